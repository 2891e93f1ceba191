//! What `replay` prints and writes: the summary table, JSON, CSV and an SVG
//! plot.

use anyhow::{Context, Result};
use dyngraph_replay::{Order, StoreSummary};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The replayed input, as the JSON's top-level `input`.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct InputSummary {
    pub(crate) path: PathBuf,
    /// Arrivals replayed (after `--undirected` doubling).
    pub(crate) edges: u64,
    pub(crate) vertices: u64,
    pub(crate) order: Order,
    pub(crate) seed: u64,
    pub(crate) base_pct: f64,
    pub(crate) batch: usize,
    pub(crate) window: Option<String>,
    pub(crate) undirected: bool,
    pub(crate) simple: bool,
    /// Whether the stores kept in-edges, and why.
    pub(crate) in_edges: String,
    /// Whether the stores kept weights, and why.
    pub(crate) weights: String,
    pub(crate) threads: usize,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Report {
    pub(crate) input: InputSummary,
    pub(crate) stores: Vec<StoreSummary>,
    /// Per-worker counters of a distributed replay, one entry per store.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) distributed: Vec<crate::dist_cmd::DistributedRun>,
}

fn optional(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// The human-readable summary, one row per store, then kernel rows.
pub(crate) fn write_table(report: &Report, out: &mut impl Write) -> Result<()> {
    let input = &report.input;
    writeln!(
        out,
        "input: {} — {} edges, {} vertices, order {}, base {}%, batch {}{}{}{}",
        input.path.display(),
        input.edges,
        input.vertices,
        format!("{:?}", input.order).to_lowercase(),
        input.base_pct,
        input.batch,
        input
            .window
            .as_ref()
            .map_or(String::new(), |w| format!(", window {w}")),
        if input.undirected { ", undirected" } else { "" },
        if input.simple {
            ", simple"
        } else {
            ", multigraph"
        },
    )?;
    writeln!(
        out,
        "in-edges: {}; weights: {}",
        input.in_edges, input.weights
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<12} {:>11} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>10} {:>12} {:>8}",
        "store",
        "base s",
        "inserted",
        "deleted",
        "seconds",
        "Meps",
        "p50 ms",
        "p99 ms",
        "rebalances",
        "moved",
        "B/edge"
    )?;
    for store in &report.stores {
        writeln!(
            out,
            "{:<12} {:>11.4} {:>10} {:>10} {:>10.4} {:>9.3} {:>9.4} {:>9.4} {:>10} {:>12} {:>8.2}{}",
            store.store,
            store.base_seconds,
            store.edges_inserted,
            store.edges_deleted,
            store.seconds,
            store.meps,
            store.latency_ms.p50,
            store.latency_ms.p99,
            optional(store.rebalances),
            optional(store.elements_moved),
            store.bytes_per_edge,
            if store.interrupted {
                "  (interrupted)"
            } else {
                ""
            },
        )?;
    }
    for run in &report.distributed {
        writeln!(out)?;
        writeln!(
            out,
            "{}: {} workers ({} processes x {} threads), {} partitioner, edge imbalance {:.2}",
            run.store,
            run.cluster.workers,
            run.cluster.processes,
            run.cluster.threads,
            run.cluster.partitioner,
            run.imbalance
        )?;
        writeln!(
            out,
            "{:>8} {:>8} {:>12} {:>12} {:>14} {:>12}",
            "worker", "process", "edges owned", "vertices", "replay bytes", "memory B"
        )?;
        for worker in &run.workers {
            writeln!(
                out,
                "{:>8} {:>8} {:>12} {:>12} {:>14} {:>12}",
                worker.worker,
                worker.process,
                worker.edges_owned,
                worker.local_vertices,
                worker.replay_traffic.bytes,
                worker.memory_bytes
            )?;
        }
    }
    let any_kernels = report.stores.iter().any(|s| !s.kernels.is_empty());
    if any_kernels {
        writeln!(out)?;
        writeln!(
            out,
            "{:<12} {:<8} {:>12} {:>12} {:>8} {:>9}  how it ran",
            "store", "kernel", "seconds", "csr seconds", "ratio", "verified"
        )?;
        for store in &report.stores {
            for (kernel, timing) in &store.kernels {
                writeln!(
                    out,
                    "{:<12} {:<8} {:>12.6} {:>12.6} {:>8.3} {:>9}  {}",
                    store.store,
                    kernel,
                    timing.seconds,
                    timing.csr_seconds,
                    timing.ratio,
                    match timing.verified {
                        Some(true) => "yes",
                        Some(false) => "NO",
                        None => "-",
                    },
                    timing.mode
                )?;
                if !timing.top.is_empty() {
                    let top: Vec<String> = timing
                        .top
                        .iter()
                        .map(|r| format!("{} ({:.2e})", r.id, r.score))
                        .collect();
                    writeln!(out, "{:<12} {:<8} top: {}", "", "", top.join(", "))?;
                }
            }
        }
    }
    Ok(())
}

pub(crate) fn write_json(report: &impl Serialize, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(report)?;
    if crate::output::is_stdout(path) {
        println!("{text}");
        return Ok(());
    }
    crate::output::write(path, |out| writeln!(out, "{text}"))
}

/// One CSV row: a batch record or a store's summary (`kind` tells which).
#[derive(Serialize)]
struct CsvRow<'a> {
    kind: &'static str,
    store: &'a str,
    batch: Option<usize>,
    batches: Option<usize>,
    edges_inserted: u64,
    edges_deleted: u64,
    seconds: f64,
    edges: u64,
    meps: Option<f64>,
    p50_ms: Option<f64>,
    p99_ms: Option<f64>,
    bytes_per_edge: Option<f64>,
    rebalances: Option<u64>,
    elements_moved: Option<u64>,
}

pub(crate) fn write_csv(report: &Report, path: &Path) -> Result<()> {
    // Formatted in memory, then written whole.
    let mut writer = csv::Writer::from_writer(Vec::new());
    for store in &report.stores {
        for record in &store.records {
            writer.serialize(CsvRow {
                kind: "group",
                store: &store.store,
                batch: Some(record.batch),
                batches: Some(record.batches),
                edges_inserted: record.edges_inserted,
                edges_deleted: record.edges_deleted,
                seconds: record.seconds,
                edges: record.edges,
                meps: None,
                p50_ms: None,
                p99_ms: None,
                bytes_per_edge: None,
                rebalances: None,
                elements_moved: None,
            })?;
        }
        writer.serialize(CsvRow {
            kind: "summary",
            store: &store.store,
            batch: None,
            batches: Some(store.batch_count),
            edges_inserted: store.edges_inserted,
            edges_deleted: store.edges_deleted,
            seconds: store.seconds,
            edges: store.edges,
            meps: Some(store.meps),
            p50_ms: Some(store.latency_ms.p50),
            p99_ms: Some(store.latency_ms.p99),
            bytes_per_edge: Some(store.bytes_per_edge),
            rebalances: store.rebalances,
            elements_moved: store.elements_moved,
        })?;
    }
    let bytes = writer.into_inner().context("cannot format the CSV")?;
    crate::output::write(path, |out| out.write_all(&bytes))
}

/// Throughput over the replay, one line per store: the batches are grouped
/// into at most 200 buckets and each point is the bucket's updates per
/// second.
pub(crate) fn write_plot(report: &Report, path: &Path) -> Result<()> {
    use plotters::prelude::*;
    const BUCKETS: usize = 200;
    let series: Vec<(String, Vec<(f64, f64)>)> = report
        .stores
        .iter()
        .map(|store| {
            let per_bucket = store.records.len().div_ceil(BUCKETS).max(1);
            let total = store.records.len().max(1) as f64;
            let points = store
                .records
                .chunks(per_bucket)
                .enumerate()
                .map(|(i, chunk)| {
                    let updates: u64 = chunk
                        .iter()
                        .map(|r| r.edges_inserted + r.edges_deleted)
                        .sum();
                    let seconds: f64 = chunk.iter().map(|r| r.seconds).sum();
                    let progress =
                        100.0 * ((i + 1) * per_bucket).min(store.records.len()) as f64 / total;
                    (
                        progress,
                        if seconds > 0.0 {
                            updates as f64 / seconds / 1e6
                        } else {
                            0.0
                        },
                    )
                })
                .collect();
            (store.store.clone(), points)
        })
        .collect();
    let max_meps = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
        .fold(0.0, f64::max);

    // Drawn in memory, then written whole.
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (900, 500)).into_drawing_area();
    let draw = || -> Result<(), Box<dyn std::error::Error>> {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("replay of {}", report.input.path.display()),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..100.0, 0.0..(max_meps * 1.1).max(1e-6))?;
        chart
            .configure_mesh()
            .x_desc("timed batches replayed (%)")
            .y_desc("million edge updates / s")
            .draw()?;
        for (index, (name, points)) in series.iter().enumerate() {
            let color = Palette99::pick(index).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|error| anyhow::anyhow!("cannot draw {}: {error}", path.display()))?;
    drop(root);
    crate::output::write(path, |out| out.write_all(svg.as_bytes()))
}
