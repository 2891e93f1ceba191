//! Turns the `sahu` bench's saved criterion estimates into the report in
//! `docs/benchmarks/`: `sahu.md` (per input and task, every structure's
//! median time at every batch size, the ratio of the fastest peer to the
//! fastest dyngraph store, and the goals of issue 19 met or missed) and one
//! log–log SVG plot per input and update task (time against batch size,
//! one line per structure, as the paper's figures).
//!
//! ```sh
//! cargo bench -p dyngraph-benches --bench sahu
//! cargo run --profile perf -p dyngraph-benches --bin report [CRITERION_DIR [OUT_DIR]]
//! ```
//! Defaults: `target/criterion` and `docs/benchmarks`.

use dyngraph::loader::AtomicFile;
use dyngraph::stores::StoreKind;
use plotters::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Whether a structure is dyngraph's (every other name is a peer): a
/// store of the registry by its type name (`Vcsr`, `CsrPP`, ...), `Csr`,
/// or a row named `dyngraph ...`.
fn is_ours(structure: &str) -> bool {
    structure.starts_with("Csr")
        || structure.starts_with("dyngraph")
        || StoreKind::ALL
            .iter()
            .any(|kind| structure.starts_with(kind.type_name()))
}

/// dyngraph's structures that a ratio counts: a snapshot is not a clone
/// (it shares the store), so the clone task compares clones only.
fn is_ours_compared(structure: &str) -> bool {
    is_ours(structure) && !structure.ends_with("snapshot")
}

fn is_petgraph(structure: &str) -> bool {
    structure.starts_with("petgraph")
}

/// Tasks in report order, with a title and Sahu's DiGraph factor against
/// petgraph (the goal).
const TASKS: [(&str, &str, Option<f64>); 8] = [
    ("load", "Load from text", Some(177.0)),
    ("clone", "Clone", Some(20.0)),
    ("delete_in_place", "Batch deletes, in place", Some(141.0)),
    ("insert_in_place", "Batch inserts, in place", Some(45.0)),
    (
        "delete_new",
        "Batch deletes into a new instance",
        Some(141.0),
    ),
    (
        "insert_new",
        "Batch inserts into a new instance",
        Some(45.0),
    ),
    (
        "walks_after_updates",
        "42-step reverse walks after updates",
        Some(67.0),
    ),
    (
        "pagerank_after_updates",
        "PageRank (20 iterations) after updates",
        None,
    ),
];

/// Whether a structure belongs to a peer family.
type Member = fn(&str) -> bool;

/// Structure -> batch size (none for load and clone) -> median nanoseconds.
type Table = BTreeMap<String, BTreeMap<Option<u64>, f64>>;

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every `sahu/<input>/<task>` result under `dir`: input -> task -> table.
fn collect(dir: &Path) -> Result<BTreeMap<String, BTreeMap<String, Table>>, String> {
    let mut results: BTreeMap<String, BTreeMap<String, Table>> = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let entries =
            std::fs::read_dir(&current).map_err(|e| format!("{}: {e}", current.display()))?;
        for entry in entries {
            let path = entry
                .map_err(|e| format!("{}: {e}", current.display()))?
                .path();
            if path.is_dir() {
                if path.file_name().is_some_and(|name| name == "new") {
                    record(&path, &mut results)?;
                } else {
                    pending.push(path);
                }
            }
        }
    }
    Ok(results)
}

fn record(
    new: &Path,
    results: &mut BTreeMap<String, BTreeMap<String, Table>>,
) -> Result<(), String> {
    let (Ok(benchmark), Ok(estimates)) = (
        read_json(&new.join("benchmark.json")),
        read_json(&new.join("estimates.json")),
    ) else {
        return Ok(());
    };
    let group = benchmark["group_id"].as_str().unwrap_or_default();
    let mut parts = group.splitn(3, '/');
    let (Some("sahu"), Some(input), Some(task)) = (parts.next(), parts.next(), parts.next()) else {
        return Ok(());
    };
    let structure = benchmark["function_id"]
        .as_str()
        .ok_or_else(|| format!("{}: no function_id", new.display()))?;
    let batch = benchmark["value_str"].as_str().and_then(|v| v.parse().ok());
    let nanos = estimates["median"]["point_estimate"]
        .as_f64()
        .ok_or_else(|| format!("{}: no median", new.display()))?;
    results
        .entry(input.to_owned())
        .or_default()
        .entry(task.to_owned())
        .or_default()
        .entry(structure.to_owned())
        .or_default()
        .insert(batch, nanos);
    Ok(())
}

fn human(nanos: f64) -> String {
    match nanos {
        n if n >= 1e9 => format!("{:.2} s", n / 1e9),
        n if n >= 1e6 => format!("{:.2} ms", n / 1e6),
        n if n >= 1e3 => format!("{:.1} µs", n / 1e3),
        n => format!("{n:.0} ns"),
    }
}

/// The fastest structure among those `keep` selects, at `batch`.
fn fastest(table: &Table, batch: Option<u64>, keep: impl Fn(&str) -> bool) -> Option<(&str, f64)> {
    table
        .iter()
        .filter(|(name, _)| keep(name))
        .filter_map(|(name, times)| times.get(&batch).map(|&t| (name.as_str(), t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn task_section(
    out: &mut String,
    input: &str,
    task: &str,
    title: &str,
    goal: Option<f64>,
    table: &Table,
) -> Vec<String> {
    let mut batches: Vec<Option<u64>> = table.values().flat_map(|t| t.keys().copied()).collect();
    batches.sort();
    batches.dedup();
    out.push_str(&format!("\n### {input}: {title}\n\n"));
    let header: Vec<String> = batches
        .iter()
        .map(|b| b.map_or("time".into(), |b| format!("batch {b}")))
        .collect();
    out.push_str(&format!("| structure | {} |\n", header.join(" | ")));
    out.push_str(&format!("|---|{}\n", "---:|".repeat(batches.len())));
    for (name, times) in table {
        let cells: Vec<String> = batches
            .iter()
            .map(|b| times.get(b).map_or("—".into(), |&t| human(t)))
            .collect();
        let shown = if is_ours(name) {
            format!("**{name}**")
        } else {
            name.clone()
        };
        out.push_str(&format!("| {shown} | {} |\n", cells.join(" | ")));
    }
    // Ratios: how many times faster dyngraph's best is than each peer
    // family's best (above 1: dyngraph ahead).
    let mut verdicts = Vec::new();
    let families: [(&str, Member); 3] = [
        ("petgraph", is_petgraph),
        ("graph_builder", |name: &str| {
            name.starts_with("graph_builder")
        }),
        ("sprs", |name: &str| name.starts_with("sprs")),
    ];
    let mut ratio_rows = String::new();
    for (family, member) in families {
        let cells: Vec<Option<f64>> = batches
            .iter()
            .map(|&b| {
                let ours = fastest(table, b, is_ours_compared)?;
                let peer = fastest(table, b, member)?;
                Some(peer.1 / ours.1)
            })
            .collect();
        if cells.iter().all(Option::is_none) {
            continue;
        }
        let shown: Vec<String> = cells
            .iter()
            .map(|c| c.map_or("—".into(), |r| format!("{r:.2}×")))
            .collect();
        ratio_rows.push_str(&format!(
            "| dyngraph's best vs {family}'s best | {} |\n",
            shown.join(" | ")
        ));
        let measured: Vec<f64> = cells.iter().flatten().copied().collect();
        let worst = measured.iter().copied().fold(f64::INFINITY, f64::min);
        let best = measured.iter().copied().fold(0.0, f64::max);
        let target = if family == "petgraph" {
            goal
        } else {
            Some(1.0)
        };
        if let Some(target) = target {
            let met = worst >= target;
            verdicts.push(format!(
                "| {input} | {task} | {family} | ≥ {target}× | {worst:.2}×–{best:.2}× | {} |",
                if met { "met" } else { "missed" }
            ));
        }
    }
    if !ratio_rows.is_empty() {
        out.push_str(&ratio_rows);
    }
    verdicts
}

fn plot(path: &Path, title: &str, table: &Table) -> Result<(), String> {
    let points: Vec<(&String, Vec<(f64, f64)>)> = table
        .iter()
        .map(|(name, times)| {
            let series = times
                .iter()
                .filter_map(|(b, &t)| b.map(|b| (b as f64, t / 1e9)))
                .collect();
            (name, series)
        })
        .filter(|(_, series): &(_, Vec<_>)| !series.is_empty())
        .collect();
    if points.is_empty() {
        return Ok(());
    }
    let all = points.iter().flat_map(|(_, p)| p.iter().copied());
    let (x_max, y_min, y_max) = all
        .fold((1.0f64, f64::INFINITY, 0.0f64), |(x, lo, hi), (bx, t)| {
            (x.max(bx), lo.min(t), hi.max(t))
        });
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
        let draw = || -> Result<(), Box<dyn std::error::Error>> {
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(title, ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(44)
                .y_label_area_size(70)
                .build_cartesian_2d(
                    (0.8f64..x_max * 1.25).log_scale(),
                    (y_min * 0.8..y_max * 1.25).log_scale(),
                )?;
            chart
                .configure_mesh()
                .x_desc("batch size (edges)")
                .y_desc("time (s)")
                .y_label_formatter(&|y| format!("{y:.0e}"))
                .x_label_formatter(&|x| format!("{x:.0e}"))
                .draw()?;
            for (index, (name, series)) in points.iter().enumerate() {
                let color = Palette99::pick(index).to_rgba();
                let width = if is_ours(name) { 3 } else { 1 };
                chart
                    .draw_series(LineSeries::new(
                        series.iter().copied(),
                        color.stroke_width(width),
                    ))?
                    .label(name.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(width))
                    });
                chart.draw_series(series.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .border_style(BLACK)
                .background_style(WHITE.mix(0.9))
                .draw()?;
            root.present()?;
            Ok(())
        };
        draw().map_err(|e| format!("{}: cannot draw: {e}", path.display()))?;
    }
    write_whole(path, svg.as_bytes())
}

fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut file = AtomicFile::create(path).map_err(|e| e.to_string())?;
    file.write_all(bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    file.commit().map_err(|e| e.to_string())
}

fn run(criterion: &Path, out_dir: &Path) -> Result<(), String> {
    let results = collect(criterion)?;
    if results.is_empty() {
        return Err(format!(
            "{}: no `sahu` results; run `cargo bench -p dyngraph-benches --bench sahu` first",
            criterion.display()
        ));
    }
    std::fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let mut body = String::new();
    let mut verdicts = Vec::new();
    for (input, tasks) in &results {
        body.push_str(&format!("\n## {input}\n"));
        for (task, title, goal) in TASKS {
            let Some(table) = tasks.get(task) else {
                continue;
            };
            verdicts.extend(task_section(&mut body, input, task, title, goal, table));
            if table.values().any(|t| t.keys().any(Option::is_some)) {
                let name = format!("sahu-{input}-{task}.svg");
                plot(&out_dir.join(&name), &format!("{input}: {title}"), table)?;
                body.push_str(&format!("\n![{input}: {title}]({name})\n"));
            }
        }
    }
    let mut report = String::from(
        "# Sahu's comparison in Rust: dyngraph against the crates users would pick\n\n\
         Generated by `cargo run --profile perf -p dyngraph-benches --bin report` from the \
         results of `cargo bench -p dyngraph-benches --bench sahu` (medians of criterion's \
         ten samples per routine: flat sampling, 50 ms warm-up, 200 ms measurement; the \
         settings are in BENCHMARKS.md). Bold rows are dyngraph's structures. A ratio is the fastest peer's time \
         over dyngraph's fastest structure's at the same batch size: above 1, dyngraph is \
         ahead; snapshots are shown but not counted as clones. Goals (issue 19): at least Sahu's DiGraph factors against petgraph \
         (load 177×, clone 20×, deletes 141×, inserts 45×, walks 67×), and ahead of \
         graph_builder and sprs on every task they support.\n\n\
         ## Goals\n\n| input | task | against | goal | measured (worst–best batch) | |\n\
         |---|---|---|---|---|---|\n",
    );
    for verdict in &verdicts {
        report.push_str(verdict);
        report.push('\n');
    }
    report.push_str(&body);
    write_whole(&out_dir.join("sahu.md"), report.as_bytes())?;
    println!(
        "wrote {} ({} inputs, {} goal rows)",
        out_dir.join("sahu.md").display(),
        results.len(),
        verdicts.len()
    );
    Ok(())
}

fn main() -> ExitCode {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut args = std::env::args_os().skip(1);
    let criterion = args
        .next()
        .map_or_else(|| root.join("target/criterion"), PathBuf::from);
    let out_dir = args
        .next()
        .map_or_else(|| root.join("docs/benchmarks"), PathBuf::from);
    match run(&criterion, &out_dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("report: {message}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes one criterion result the way criterion 0.8 lays it out.
    fn result(dir: &Path, group: &str, function: &str, batch: Option<u64>, median_ns: f64) {
        let mut path = dir.join(group.replace('/', "_")).join(function);
        if let Some(batch) = batch {
            path = path.join(batch.to_string());
        }
        let new = path.join("new");
        std::fs::create_dir_all(&new).unwrap();
        let value = batch.map_or(Value::Null, |b| Value::String(b.to_string()));
        let benchmark = serde_json::json!({
            "group_id": group, "function_id": function, "value_str": value,
        });
        std::fs::write(new.join("benchmark.json"), benchmark.to_string()).unwrap();
        let estimates = serde_json::json!({ "median": { "point_estimate": median_ns } });
        std::fs::write(new.join("estimates.json"), estimates.to_string()).unwrap();
    }

    #[test]
    fn tables_ratios_goals_and_plots_come_from_the_saved_estimates() {
        let root = std::env::temp_dir().join(format!("dyngraph-report-{}", std::process::id()));
        let (criterion, out) = (root.join("criterion"), root.join("out"));
        result(
            &criterion,
            "sahu/tiny/insert_in_place",
            "Vcsr",
            Some(1),
            100.0,
        );
        result(
            &criterion,
            "sahu/tiny/insert_in_place",
            "Vcsr",
            Some(10),
            1_000.0,
        );
        result(
            &criterion,
            "sahu/tiny/insert_in_place",
            "petgraph StableGraph",
            Some(1),
            5_000.0,
        );
        result(
            &criterion,
            "sahu/tiny/insert_in_place",
            "petgraph StableGraph",
            Some(10),
            50_000.0,
        );
        result(&criterion, "sahu/tiny/load", "dyngraph Csr", None, 2e6);
        result(&criterion, "sahu/tiny/load", "graph_builder", None, 1e6);
        // Another bench's results are not part of the report.
        result(&criterion, "pagerank_20/kron", "Csr", None, 1.0);
        run(&criterion, &out).unwrap();
        let report = std::fs::read_to_string(out.join("sahu.md")).unwrap();
        assert!(
            report.contains("| tiny | insert_in_place | petgraph | ≥ 45× | 50.00×–50.00× | met |")
        );
        assert!(report.contains("| tiny | load | graph_builder | ≥ 1× | 0.50×–0.50× | missed |"));
        assert!(report.contains("| **Vcsr** | 100 ns | 1.0 µs |"));
        assert!(!report.contains("pagerank_20"));
        let svg = std::fs::read_to_string(out.join("sahu-tiny-insert_in_place.svg")).unwrap();
        assert!(svg.contains("batch size (edges)") && svg.contains("petgraph StableGraph"));
        assert!(!out.join("sahu-tiny-load.svg").exists());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn no_results_is_an_error_that_says_what_to_run() {
        let root =
            std::env::temp_dir().join(format!("dyngraph-report-empty-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        let error = run(&root, &root.join("out")).unwrap_err();
        assert!(
            error.contains("cargo bench -p dyngraph-benches --bench sahu"),
            "{error}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
