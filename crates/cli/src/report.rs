//! What `replay` prints and writes: the summary table, JSON, CSV and an SVG
//! plot.

use crate::replay::StoreSummary;
use crate::stream::Order;
use anyhow::{Context, Result};
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
    pub(crate) threads: usize,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Report {
    pub(crate) input: InputSummary,
    pub(crate) stores: Vec<StoreSummary>,
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
    writeln!(out)?;
    writeln!(
        out,
        "{:<12} {:>11} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>10} {:>12} {:>8}",
        "store",
        "base",
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
        let base = match store.base {
            crate::stores::BaseLoad::BulkBuilt => "bulk-built",
            crate::stores::BaseLoad::Inserted => "inserted",
        };
        writeln!(
            out,
            "{:<12} {:>11} {:>10} {:>10} {:>10.4} {:>9.3} {:>9.4} {:>9.4} {:>10} {:>12} {:>8.2}{}",
            store.store,
            base,
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
    let any_kernels = report.stores.iter().any(|s| !s.kernels.is_empty());
    if any_kernels {
        writeln!(out)?;
        writeln!(
            out,
            "{:<12} {:<8} {:>12} {:>12} {:>8} {:>9}",
            "store", "kernel", "seconds", "csr seconds", "ratio", "verified"
        )?;
        for store in &report.stores {
            for (kernel, timing) in &store.kernels {
                writeln!(
                    out,
                    "{:<12} {:<8} {:>12.6} {:>12.6} {:>8.3} {:>9}",
                    store.store,
                    kernel,
                    timing.seconds,
                    timing.csr_seconds,
                    timing.ratio,
                    match timing.verified {
                        Some(true) => "yes",
                        Some(false) => "NO",
                        None => "-",
                    }
                )?;
            }
        }
    }
    Ok(())
}

pub(crate) fn write_json(report: &impl Serialize, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(report)?;
    if path == Path::new("-") {
        println!("{text}");
        return Ok(());
    }
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}

/// One CSV row: a batch record or a store's summary (`kind` tells which).
#[derive(Serialize)]
struct CsvRow<'a> {
    kind: &'static str,
    store: &'a str,
    batch: Option<usize>,
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
    let mut writer =
        csv::Writer::from_path(path).with_context(|| format!("cannot write {}", path.display()))?;
    for store in &report.stores {
        for record in &store.records {
            writer.serialize(CsvRow {
                kind: "batch",
                store: &store.store,
                batch: Some(record.batch),
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
    writer
        .flush()
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
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

    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
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
    draw().map_err(|error| anyhow::anyhow!("cannot draw {}: {error}", path.display()))
}
