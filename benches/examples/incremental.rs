//! Sahu's dynamic PageRank tables (static, naive-dynamic, dynamic
//! traversal, DF, DF-P), and the same for maintained CC, BFS and SSSP, on
//! sx-mathoverflow and CollegeMsg as temporal streams and Kronecker and
//! uniform graphs with random batches: batch sizes `10^-7 |E|` to
//! `10^-1 |E|`, insertions, deletions and a mix; time and error per row.
//!
//! ```text
//! cargo run --profile perf -p dyngraph-benches --example incremental -- --quick
//! cargo run --profile perf -p dyngraph-benches --example incremental            # scale 20, full
//! ```
//!
//! Options: `--quick` (scale 14, 2 batches per size, sizes up to
//! `10^-2 |E|`: about a minute on 2 cores), `--scale N` (Kronecker and
//! uniform `2^N` vertices, default 20), `--inputs kron,math,...`,
//! `--kinds insertions,deletions,mixed`, `--kernels pr,cc,bfs,sssp`,
//! `--repeat R` (batches per size, default 3), `--largest E` (largest batch
//! `10^E |E|`, default -1), `--frontier-tolerance X` (`τ_f` and `τ_p` of
//! the DF and DF-P rows, default the crate's), `--bound EPS` (issue 37:
//! the PageRank rows become a static run, naive-dynamic and residual push
//! all to the L1 bound `EPS` on the normalised ranks, beside the DF-P
//! default; the static row at the bound is the reference and the
//! baseline of the speedups), `--networkit PYTHON` (a Python that imports
//! `networkit` and `numpy`: NetworKit's dynamic algorithms on the same base
//! graph and batches, a row "networkit" in every table, its static PageRank
//! recomputed to the same bound for lack of a dynamic one; see
//! `benches/peers/networkit_batches.py`), `--out DIR` (default
//! `target/bench-data/incremental`). Writes `incremental.csv` and one
//! log-log SVG of time against batch size per kernel, input and kind.
//!
//! ```text
//! python3 -m venv SCRATCH/nk && SCRATCH/nk/bin/pip install networkit
//! RAYON_NUM_THREADS=1 cargo run --profile perf -p dyngraph-benches --example incremental -- \
//!     --inputs math,kron,uniform --kernels pr --kinds ins,mixed --largest -3 \
//!     --bound 1e-6 --networkit SCRATCH/nk/bin/python
//! ```

use dyngraph::core::{Graph, VertexId};
use dyngraph::incremental::{DynamicPageRank, Maintained};
use dyngraph::loader::AtomicFile;
use dyngraph_benches::incremental::{
    BatchKind, Cell, ExactStates, Input, base_store, exact_rows, inputs, measure_exact,
    measure_pagerank, one_edge_region, pagerank_rows,
};
use dyngraph_benches::networkit::{NetworKit, NetworKitJob, StaticFinals, job_name};
use dyngraph_benches::sahu::bench_data_dir;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

struct Config {
    scale: u32,
    inputs: Option<String>,
    kinds: Vec<BatchKind>,
    kernels: Vec<String>,
    repeat: usize,
    largest: i32,
    frontier_tolerance: Option<f64>,
    bound: Option<f64>,
    networkit: Option<PathBuf>,
    out: PathBuf,
}

fn config() -> Config {
    let mut config = Config {
        scale: 20,
        inputs: None,
        kinds: BatchKind::ALL.to_vec(),
        kernels: ["pr", "cc", "bfs", "sssp"].map(String::from).to_vec(),
        repeat: 3,
        largest: -1,
        frontier_tolerance: None,
        bound: None,
        networkit: None,
        out: bench_data_dir().join("incremental"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--quick" => {
                config.scale = 14;
                config.repeat = 2;
                config.largest = -2;
            }
            "--scale" => config.scale = value().parse().expect("--scale N"),
            "--inputs" => config.inputs = Some(value()),
            "--kinds" => {
                let list = value();
                config.kinds = BatchKind::ALL
                    .into_iter()
                    .filter(|k| list.split(',').any(|w| k.as_str().starts_with(w.trim())))
                    .collect();
            }
            "--kernels" => config.kernels = value().split(',').map(String::from).collect(),
            "--repeat" => config.repeat = value().parse().expect("--repeat R"),
            "--largest" => config.largest = value().parse().expect("--largest E"),
            "--out" => config.out = PathBuf::from(value()),
            "--frontier-tolerance" => {
                config.frontier_tolerance = Some(value().parse().expect("--frontier-tolerance X"))
            }
            "--bound" => config.bound = Some(value().parse().expect("--bound EPS")),
            "--networkit" => config.networkit = Some(PathBuf::from(value())),
            "--bench" => {}
            other => panic!("unknown option {other} (see the example's docs)"),
        }
    }
    config
}

/// One measured row, for the CSV and the plots.
struct Record {
    input: String,
    kind: BatchKind,
    exponent: i32,
    batch: usize,
    kernel: &'static str,
    row: &'static str,
    cell: Cell,
    speedup: f64,
}

fn main() {
    let config = config();
    std::fs::create_dir_all(&config.out).expect("output directory");
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "# incremental analytics, {} threads, load average {}",
        rayon::current_num_threads(),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let networkit = config.networkit.as_ref().map(|python| NetworKit {
        python: python.clone(),
        dir: config.out.join("networkit-scratch"),
        threads: rayon::current_num_threads(),
        bound: config
            .bound
            .unwrap_or(dyngraph::incremental::DEFAULT_L1_BOUND),
    });
    if let Some(nk) = &networkit {
        match nk.version() {
            Ok(version) => println!(
                "# NetworKit {version}, {} threads; its PageRank: static, recomputed to L1 {:e}",
                nk.threads, nk.bound
            ),
            Err(e) => panic!("--networkit: {e}"),
        }
    }
    let mut records = Vec::new();
    for input in inputs(config.scale, config.inputs.as_deref()) {
        run_input(&config, &input, networkit.as_ref(), &mut records);
    }
    write_csv(&config.out.join("incremental.csv"), &records);
    plot_all(&config.out, &records);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "# done; load average {}; results in {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        config.out.display()
    );
}

fn run_input(
    config: &Config,
    input: &Input,
    networkit: Option<&NetworKit>,
    records: &mut Vec<Record>,
) {
    let store = base_store(input);
    if let Some(nk) = networkit {
        nk.write_base(input)
            .unwrap_or_else(|e| panic!("{}: {e}", nk.dir.display()));
    }
    let source: VertexId = input.edges[0].src;
    println!(
        "\n## {}: {} vertices, {} edges in the base graph ({}; {} batches)",
        input.name,
        store.vertex_count(),
        store.edge_count(),
        if input.weighted {
            "weighted"
        } else {
            "unweighted"
        },
        if input.temporal {
            "temporal: next and oldest arrivals"
        } else {
            "random"
        }
    );
    let sizes = input.batch_sizes(config.largest);
    let want = |kernel: &str| config.kernels.iter().any(|k| k == kernel);
    let pagerank_states: Vec<Maintained<DynamicPageRank>> = if want("pr") {
        pagerank_rows(config.frontier_tolerance, config.bound)
            .into_iter()
            .map(|(_, options)| Maintained::new(&store, options).expect("pagerank"))
            .collect()
    } else {
        Vec::new()
    };
    let exact =
        (want("cc") || want("bfs") || want("sssp")).then(|| ExactStates::new(&store, source));
    if want("pr") {
        let (relative, absolute) = one_edge_region(input, &store);
        println!(
            "one inserted edge moves the exact ranks of {:.1} % / {:.1} % / {:.1} % of the vertices \
             by more than 1e-4 / 1e-6 / 1e-8 of their rank, {:.1} % / {:.1} % by more than 1e-9 / 1e-11",
            relative[0] * 100.0,
            relative[1] * 100.0,
            relative[2] * 100.0,
            absolute[0] * 100.0,
            absolute[1] * 100.0
        );
    }
    for &kind in &config.kinds {
        let mut finals = vec![StaticFinals::default(); sizes.len()];
        let mut pagerank_columns = Vec::new();
        if want("pr") {
            for (&(exponent, size), finals) in sizes.iter().zip(&mut finals) {
                let repeat = repeat_for(config.repeat, exponent);
                let (cells, scores) =
                    measure_pagerank(input, &store, &pagerank_states, kind, size, repeat);
                finals.pagerank = Some(scores);
                pagerank_columns.push((exponent, size, cells));
            }
        }
        let mut per_kernel: [Vec<(i32, usize, Vec<Cell>)>; 3] = Default::default();
        if let Some(exact) = &exact {
            for (&(exponent, size), finals) in sizes.iter().zip(&mut finals) {
                let repeat = repeat_for(config.repeat, exponent);
                let ([cc, bfs, sssp], static_finals) =
                    measure_exact(input, &store, exact, kind, size, repeat);
                *finals = StaticFinals {
                    pagerank: finals.pagerank.take(),
                    ..static_finals
                };
                per_kernel[0].push((exponent, size, cc));
                per_kernel[1].push((exponent, size, bfs));
                per_kernel[2].push((exponent, size, sssp));
            }
        }
        let kernels: Vec<&str> = ["pr", "cc", "bfs", "sssp"]
            .into_iter()
            .filter(|k| want(k))
            .collect();
        let theirs: Option<Vec<NetworKitJob>> = networkit.map(|nk| {
            let jobs: Vec<(usize, usize)> = sizes
                .iter()
                .map(|&(exponent, size)| (size, repeat_for(config.repeat, exponent)))
                .collect();
            let mut done = nk
                .run(input, kind, &jobs, source, &kernels)
                .unwrap_or_else(|e| panic!("--networkit: {e}"));
            for ((job, &(_, size)), finals) in done.iter_mut().zip(&sizes).zip(&finals) {
                nk.compare(&job_name(kind, size), job, finals);
            }
            done
        });
        let add_networkit =
            |kernel: &str,
             rows: &mut Vec<&'static str>,
             columns: &mut Vec<(i32, usize, Vec<Cell>)>| {
                if let Some(jobs) = &theirs {
                    rows.push("networkit");
                    for ((_, _, cells), job) in columns.iter_mut().zip(jobs) {
                        let cell = job
                            .cells
                            .iter()
                            .find(|(k, _)| *k == kernel)
                            .map(|(_, c)| c.clone())
                            .unwrap_or_default();
                        cells.push(cell);
                    }
                }
            };
        if want("pr") {
            let mut rows: Vec<&'static str> =
                pagerank_rows(config.frontier_tolerance, config.bound)
                    .iter()
                    .map(|(n, _)| *n)
                    .collect();
            rows.push("gapbs-20 (f32)");
            add_networkit("pr", &mut rows, &mut pagerank_columns);
            table(input, kind, "PageRank", &rows, &pagerank_columns, true);
            collect(input, kind, "pr", &rows, pagerank_columns, records);
        }
        if exact.is_some() {
            for ((kernel, title), mut columns) in [("cc", "CC"), ("bfs", "BFS"), ("sssp", "SSSP")]
                .into_iter()
                .zip(per_kernel)
            {
                if want(kernel) {
                    let mut rows: Vec<&'static str> =
                        exact_rows().iter().map(|(n, _, _)| *n).collect();
                    add_networkit(kernel, &mut rows, &mut columns);
                    table(input, kind, title, &rows, &columns, false);
                    for (job, (exponent, size)) in theirs.iter().flatten().zip(&sizes) {
                        for &(_, differ) in job.self_check.iter().filter(|(k, _)| *k == kernel) {
                            if differ > 0 {
                                println!(
                                    "networkit's dynamic {title} at 1e{exponent} ({size}) differs \
                                     from its own static run at {differ} vertices"
                                );
                            }
                        }
                    }
                    collect(input, kind, kernel, &rows, columns, records);
                }
            }
        }
    }
    if let Some(nk) = networkit {
        nk.clean();
    }
}

/// Fewer batches at the largest sizes (each one costs a static run).
fn repeat_for(repeat: usize, exponent: i32) -> usize {
    if exponent >= -2 {
        repeat.min(2)
    } else {
        repeat
    }
}

fn table(
    input: &Input,
    kind: BatchKind,
    kernel: &str,
    rows: &[&str],
    columns: &[(i32, usize, Vec<Cell>)],
    pagerank: bool,
) {
    let mut out = String::new();
    let header = |out: &mut String, what: &str| {
        let _ = write!(out, "{:<16}", format!("{what}"));
        for (exponent, size, _) in columns {
            let _ = write!(out, "{:>14}", format!("1e{exponent} ({size})"));
        }
        out.push('\n');
    };
    let _ = writeln!(out, "\n### {} {kernel}, {}", input.name, kind.as_str());
    header(&mut out, "time (ms)");
    for (r, row) in rows.iter().enumerate() {
        let _ = write!(out, "{row:<16}");
        for (_, _, cells) in columns {
            let cell = &cells[r];
            let mark = if cell.fell_back > 0 { "*" } else { " " };
            let _ = write!(out, "{:>13.3}{mark}", cell.median() * 1e3);
        }
        out.push('\n');
    }
    header(
        &mut out,
        if pagerank {
            "L∞ vs static"
        } else {
            "wrong vertices"
        },
    );
    for (r, row) in rows.iter().enumerate().skip(1) {
        let _ = write!(out, "{row:<16}");
        for (_, _, cells) in columns {
            let _ = write!(out, "{:>14}", format!("{:.1e}", cells[r].linf));
        }
        out.push('\n');
    }
    if pagerank {
        header(&mut out, "L1 vs static");
        for (r, row) in rows.iter().enumerate().skip(1) {
            let _ = write!(out, "{row:<16}");
            for (_, _, cells) in columns {
                let _ = write!(out, "{:>14}", format!("{:.1e}", cells[r].l1));
            }
            out.push('\n');
        }
    }
    header(&mut out, "speedup");
    for (r, row) in rows.iter().enumerate().skip(1) {
        let _ = write!(out, "{row:<16}");
        for (_, _, cells) in columns {
            let speedup = cells[0].median() / cells[r].median();
            let _ = write!(out, "{:>14}", format!("{speedup:.2}x"));
        }
        out.push('\n');
    }
    header(&mut out, "work/|V|");
    for (r, row) in rows.iter().enumerate() {
        let _ = write!(out, "{row:<16}");
        for (_, _, cells) in columns {
            let _ = write!(out, "{:>14}", format!("{:.2e}", cells[r].touched));
        }
        out.push('\n');
    }
    if let Some(theirs) = rows.iter().position(|&r| r == "networkit") {
        header(&mut out, "networkit/row");
        for (r, row) in rows.iter().enumerate().filter(|&(r, _)| r != theirs) {
            let _ = write!(out, "{row:<16}");
            for (_, _, cells) in columns {
                let ratio = cells[theirs].median() / cells[r].median();
                let _ = write!(out, "{:>14}", format!("{ratio:.2}x"));
            }
            out.push('\n');
        }
        out.push_str(if pagerank {
            "(networkit: its static PageRank recomputed per batch; its error is after the last \
             batch, both sides scaled to sum 1)\n"
        } else {
            "(networkit: its dynamic algorithm; wrong vertices after the last batch, against \
             the static row)\n"
        });
    }
    out.push_str("(* an update of the row fell back to a full computation)\n");
    print!("{out}");
    let _ = std::io::stdout().flush();
}

fn collect(
    input: &Input,
    kind: BatchKind,
    kernel: &'static str,
    rows: &[&'static str],
    columns: Vec<(i32, usize, Vec<Cell>)>,
    records: &mut Vec<Record>,
) {
    for (exponent, batch, cells) in columns {
        let static_time = cells[0].median();
        for (r, cell) in cells.into_iter().enumerate() {
            records.push(Record {
                input: input.name.clone(),
                kind,
                exponent,
                batch,
                kernel,
                row: rows[r],
                speedup: static_time / cell.median(),
                cell,
            });
        }
    }
}

fn write_csv(path: &Path, records: &[Record]) {
    let mut text = String::from(
        "input,kind,exponent,batch,kernel,row,median_ms,speedup_vs_static,linf_or_wrong,l1,fell_back,touched_per_vertex\n",
    );
    for r in records {
        let _ = writeln!(
            text,
            "{},{},{},{},{},{},{:.6},{:.3},{:e},{:e},{},{:e}",
            r.input,
            r.kind.as_str(),
            r.exponent,
            r.batch,
            r.kernel,
            r.row,
            r.cell.median() * 1e3,
            r.speedup,
            r.cell.linf,
            r.cell.l1,
            r.cell.fell_back,
            r.cell.touched
        );
    }
    write_whole(path, text.as_bytes());
}

fn write_whole(path: &Path, bytes: &[u8]) {
    let mut file = AtomicFile::create(path).unwrap_or_else(|e| panic!("{e}"));
    file.write_all(bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    file.commit().unwrap_or_else(|e| panic!("{e}"));
}

/// One log-log chart per kernel, input and kind: a line per row.
fn plot_all(out: &Path, records: &[Record]) {
    let mut groups: Vec<(String, BatchKind, &'static str)> = records
        .iter()
        .map(|r| (r.input.clone(), r.kind, r.kernel))
        .collect();
    groups.dedup();
    for (input, kind, kernel) in groups {
        let chosen: Vec<&Record> = records
            .iter()
            .filter(|r| r.input == input && r.kind == kind && r.kernel == kernel)
            .collect();
        let path = out.join(format!(
            "incremental-{kernel}-{input}-{}.svg",
            kind.as_str()
        ));
        let title = format!("{kernel} on {input}, {}: time per update", kind.as_str());
        if let Err(e) = plot(&path, &title, &chosen) {
            eprintln!("{}: {e}", path.display());
        }
    }
}

fn plot(path: &Path, title: &str, records: &[&Record]) -> Result<(), Box<dyn std::error::Error>> {
    let mut rows: Vec<&str> = records.iter().map(|r| r.row).collect();
    rows.dedup();
    let series: Vec<(&str, Vec<(f64, f64)>)> = rows
        .iter()
        .map(|row| {
            let points = records
                .iter()
                .filter(|r| r.row == *row && r.cell.median() > 0.0)
                .map(|r| (r.batch as f64, r.cell.median()))
                .collect();
            (*row, points)
        })
        .collect();
    let all = series.iter().flat_map(|(_, p)| p.iter());
    let (x_max, y_min, y_max) = all.fold((1.0f64, f64::MAX, 0.0f64), |(x, lo, hi), &(bx, t)| {
        (x.max(bx), lo.min(t), hi.max(t))
    });
    if y_max <= 0.0 {
        return Ok(());
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
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
            .y_desc("time per update (s)")
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .x_label_formatter(&|x| format!("{x:.0e}"))
            .draw()?;
        for (index, (name, points)) in series.iter().enumerate() {
            let color = Palette99::pick(index).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))?
                .label(*name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .border_style(BLACK)
            .background_style(WHITE.mix(0.9))
            .draw()?;
        root.present()?;
    }
    write_whole(path, svg.as_bytes());
    Ok(())
}
