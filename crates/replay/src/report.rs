//! What a replay job reports: the input, one summary per store, and the
//! human-readable table and CSV rows of it (JSON is its `Serialize`).

use crate::engine::StoreSummary;
use dyngraph_loader::Order;
use serde::{Serialize, Serializer};
use std::io::{self, Write};
use std::path::PathBuf;

fn order_name<S: Serializer>(order: &Order, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(order.as_str())
}

/// The replayed input and how it was replayed: the JSON's `input`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InputSummary {
    /// The file.
    pub path: PathBuf,
    /// Arrivals replayed (after `undirected` doubling).
    pub edges: u64,
    /// Vertices of the stream.
    pub vertices: u64,
    /// Arrival order (`file`, `time`, `shuffle` or `source` in the JSON).
    #[serde(serialize_with = "order_name")]
    pub order: Order,
    /// Seed of a shuffled order.
    pub seed: u64,
    /// Percentage bulk-built as the base.
    pub base_pct: f64,
    /// Arrivals per batch.
    pub batch: usize,
    /// The sliding window, as written.
    pub window: Option<String>,
    /// Whether every edge was inserted in both directions.
    pub undirected: bool,
    /// Set semantics.
    pub simple: bool,
    /// Whether the stores kept in-edges, and why.
    pub in_edges: String,
    /// Whether the stores kept weights, and why.
    pub weights: String,
    /// Threads of the rayon pool.
    pub threads: usize,
}

/// The whole report of a replay job.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The input.
    pub input: InputSummary,
    /// One summary per store, in the order replayed.
    pub stores: Vec<StoreSummary>,
    /// What the job chose or dropped on the way (a capability a store
    /// cannot keep, a relabelled input), one line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Verifier rejections, `store: message` (empty when all passed or
    /// nothing was verified).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub verify_failures: Vec<String>,
}

fn optional(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| v.to_string())
}

impl Report {
    /// The human-readable summary: the input, one row per store, then the
    /// kernel rows. `inserted` and `Meps` both count the timed batches
    /// only (the base is bulk-built and shown as `base s`).
    pub fn write_table(&self, out: &mut impl Write) -> io::Result<()> {
        let input = &self.input;
        writeln!(
            out,
            "input: {} — {} edges, {} vertices, order {}, base {}%, batch {}{}{}{}",
            input.path.display(),
            input.edges,
            input.vertices,
            input.order,
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
        for store in &self.stores {
            writeln!(
                out,
                "{:<12} {:>11.4} {:>10} {:>10} {:>10.4} {:>9.3} {:>9.4} {:>9.4} {:>10} {:>12} {:>8.2}{}",
                store.store,
                store.base_seconds,
                store.edges_inserted - store.base_edges,
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
        for store in &self.stores {
            if let Some(acknowledged) = store.acknowledged_edges {
                writeln!(
                    out,
                    "{}: {acknowledged} of {} edges acknowledged durable (as of the last sync point)",
                    store.store, store.edges
                )?;
            }
        }
        self.write_kernel_rows(out)?;
        self.write_maintained_rows(out)
    }

    fn write_maintained_rows(&self, out: &mut impl Write) -> io::Result<()> {
        if self.stores.iter().all(|s| s.maintained.is_empty()) {
            return Ok(());
        }
        writeln!(out)?;
        writeln!(
            out,
            "{:<12} {:<6} {:>6} {:>12} {:>12} {:>8} {:>9} {:>9} {:>10} {:>9} {:>8}  result",
            "maintained",
            "kernel",
            "checks",
            "update s",
            "scratch s",
            "speedup",
            "touched",
            "fallbacks",
            "max error",
            "verified",
            "L1 bound"
        )?;
        for store in &self.stores {
            for (kernel, m) in &store.maintained {
                let optional = |v: Option<f64>, digits: usize| {
                    v.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
                };
                writeln!(
                    out,
                    "{:<12} {:<6} {:>6} {:>12.6} {:>12} {:>8} {:>8.3}% {:>9} {:>10} {:>9} {:>8}  {}",
                    store.store,
                    kernel,
                    m.checkpoints,
                    m.seconds,
                    optional(m.static_seconds, 6),
                    optional(m.speedup, 1),
                    m.mean_touched * 100.0,
                    m.fallbacks,
                    m.max_error
                        .map_or_else(|| "-".to_string(), |e| format!("{e:.1e}")),
                    match m.verified {
                        Some(true) => "yes",
                        Some(false) => "NO",
                        None => "-",
                    },
                    m.bound
                        .map_or_else(|| "-".to_string(), |b| format!("{b:.0e}")),
                    m.result,
                )?;
            }
        }
        Ok(())
    }

    fn write_kernel_rows(&self, out: &mut impl Write) -> io::Result<()> {
        if self.stores.iter().all(|s| s.kernels.is_empty()) {
            return Ok(());
        }
        writeln!(out)?;
        writeln!(
            out,
            "{:<12} {:<8} {:>12} {:>12} {:>8} {:>9}  how it ran",
            "store", "kernel", "seconds", "csr seconds", "ratio", "verified"
        )?;
        for store in &self.stores {
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
        Ok(())
    }

    /// The CSV rows: every timed group of every store (`kind` `group`),
    /// then the store's summary (`kind` `summary`).
    pub fn csv_rows(&self) -> Vec<CsvRow<'_>> {
        let mut rows = Vec::new();
        for store in &self.stores {
            rows.extend(store.records.iter().map(|record| CsvRow {
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
            }));
            rows.push(CsvRow {
                kind: "summary",
                store: &store.store,
                batch: None,
                batches: Some(store.batch_count),
                edges_inserted: store.edges_inserted - store.base_edges,
                edges_deleted: store.edges_deleted,
                seconds: store.seconds,
                edges: store.edges,
                meps: Some(store.meps),
                p50_ms: Some(store.latency_ms.p50),
                p99_ms: Some(store.latency_ms.p99),
                bytes_per_edge: Some(store.bytes_per_edge),
                rebalances: store.rebalances,
                elements_moved: store.elements_moved,
            });
        }
        rows
    }
}

/// One CSV row: a timed group or a store's summary (`kind` tells which).
/// Inserts count the timed batches only, as in the table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CsvRow<'a> {
    /// `group` or `summary`.
    pub kind: &'static str,
    /// The store.
    pub store: &'a str,
    /// The group's first batch.
    pub batch: Option<usize>,
    /// Batches in the group (all timed batches in a summary).
    pub batches: Option<usize>,
    /// Edges inserted by the timed batches.
    pub edges_inserted: u64,
    /// Edges deleted.
    pub edges_deleted: u64,
    /// Seconds.
    pub seconds: f64,
    /// Edges in the store after the group (at the end, in a summary).
    pub edges: u64,
    /// Million updates per second (summary).
    pub meps: Option<f64>,
    /// Median sampled batch latency (summary).
    pub p50_ms: Option<f64>,
    /// 99th percentile (summary).
    pub p99_ms: Option<f64>,
    /// Bytes per stored edge (summary).
    pub bytes_per_edge: Option<f64>,
    /// Rebalances (summary, where counted).
    pub rebalances: Option<u64>,
    /// Elements moved (summary, where counted).
    pub elements_moved: Option<u64>,
}
