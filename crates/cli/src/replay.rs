//! The replay engine: base graph, then timed batches of inserts (and window
//! deletes), one store at a time over the same stream.

use crate::stores::{BaseLoad, Maintenance, ReplayStore};
use crate::stream::Stream;
use anyhow::Result;
use dyngraph_core::{Edge, Semantics, VertexId};
use indicatif::ProgressBar;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A sliding window: arrivals older than this are deleted as the stream
/// advances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Window {
    /// Delete an edge once the newest timestamp is more than this many
    /// timestamp units past its own.
    Time(u64),
    /// Keep only the newest this-many arrivals.
    Edges(u64),
}

impl std::str::FromStr for Window {
    type Err = String;

    /// `3600` (timestamp units) or `5000edges` / `5000 edges`.
    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (number, edges) = match text.strip_suffix("edges") {
            Some(number) => (number.trim(), true),
            None => (text, false),
        };
        let value: u64 = number.parse().map_err(|_| {
            format!(
                "'{text}' is not a window: give a number of timestamp units (e.g. 86400) \
                 or a number of edges (e.g. 5000edges)"
            )
        })?;
        Ok(if edges {
            Window::Edges(value)
        } else {
            Window::Time(value)
        })
    }
}

/// How a replay runs; shared by every store in one run.
#[derive(Clone, Debug)]
pub(crate) struct ReplayConfig {
    pub(crate) base_pct: f64,
    pub(crate) batch: usize,
    pub(crate) window: Option<Window>,
    pub(crate) semantics: Semantics,
}

/// One timed batch.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct BatchRecord {
    pub(crate) batch: usize,
    pub(crate) edges_inserted: u64,
    pub(crate) edges_deleted: u64,
    pub(crate) seconds: f64,
    /// Edges in the store after the batch.
    pub(crate) edges: u64,
}

/// Percentiles of batch latency, in milliseconds.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub(crate) struct Latency {
    pub(crate) p50: f64,
    pub(crate) p99: f64,
}

/// One kernel's timing on a store and on `Csr` built from the same edges.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct KernelSummary {
    pub(crate) seconds: f64,
    pub(crate) csr_seconds: f64,
    pub(crate) ratio: f64,
    pub(crate) verified: Option<bool>,
}

/// What one store cost over the whole replay.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct StoreSummary {
    pub(crate) store: String,
    pub(crate) base: BaseLoad,
    pub(crate) base_edges: u64,
    pub(crate) base_seconds: f64,
    /// Edges actually added, base included (fewer than arrivals under
    /// `--simple`).
    pub(crate) edges_inserted: u64,
    pub(crate) edges_deleted: u64,
    /// Edges in the store at the end.
    pub(crate) edges: u64,
    pub(crate) vertices: u64,
    pub(crate) batch_count: usize,
    /// Timed update seconds (batches only, base excluded).
    pub(crate) seconds: f64,
    /// Million edge updates (inserts + deletes) per timed second.
    pub(crate) meps: f64,
    pub(crate) latency_ms: Latency,
    pub(crate) memory_bytes: u64,
    pub(crate) bytes_per_edge: f64,
    pub(crate) rebalances: Option<u64>,
    pub(crate) elements_moved: Option<u64>,
    pub(crate) kernels: BTreeMap<String, KernelSummary>,
    /// Every kernel checkpoint of the replay.
    pub(crate) kernel_timeline: Vec<crate::kernels::KernelPoint>,
    pub(crate) interrupted: bool,
    /// Every timed batch, in order.
    #[serde(rename = "batches")]
    pub(crate) records: Vec<BatchRecord>,
}

/// Which arrivals are live, for deleting them when they leave the window.
struct WindowState {
    window: Window,
    /// Next arrival (stream index) to expire.
    cursor: usize,
    /// Newest timestamp seen, for time windows.
    newest: u64,
    /// Under simple semantics, which arrivals inserted an edge.
    effective: Option<SetTracking>,
}

/// Under simple semantics a repeat of a present edge inserts nothing, so
/// its expiry must delete nothing: which arrivals inserted their edge, and
/// which edges are present.
struct SetTracking {
    inserted: Vec<bool>,
    present: HashSet<(VertexId, VertexId)>,
}

impl WindowState {
    fn new(window: Window, semantics: Semantics, len: usize) -> Self {
        let effective = (semantics == Semantics::Simple).then(|| SetTracking {
            inserted: vec![false; len],
            present: HashSet::new(),
        });
        Self {
            window,
            cursor: 0,
            newest: 0,
            effective,
        }
    }

    /// Notes arrivals `range` as inserted.
    fn arrive(&mut self, stream: &Stream, range: std::ops::Range<usize>) {
        if let Some(timestamps) = &stream.timestamps {
            self.newest = range
                .clone()
                .map(|i| timestamps[i])
                .fold(self.newest, u64::max);
        }
        if let Some(tracking) = &mut self.effective {
            for i in range {
                tracking.inserted[i] = tracking.present.insert((stream.src[i], stream.dst[i]));
            }
        }
    }

    /// The edges leaving the window once arrivals `..arrived` are in.
    fn expire(&mut self, stream: &Stream, arrived: usize, out: &mut Vec<Edge>) {
        out.clear();
        while self.cursor < arrived {
            let expired = match self.window {
                Window::Edges(keep) => (arrived - self.cursor) as u64 > keep,
                Window::Time(span) => stream
                    .timestamps
                    .as_ref()
                    .is_some_and(|t| self.newest.saturating_sub(t[self.cursor]) > span),
            };
            if !expired {
                break;
            }
            let i = self.cursor;
            let deletes = match &mut self.effective {
                Some(tracking) => {
                    tracking.inserted[i] && tracking.present.remove(&(stream.src[i], stream.dst[i]))
                }
                None => true,
            };
            if deletes {
                out.push(stream.edge(i));
            }
            self.cursor += 1;
        }
    }
}

/// Observes a replay between batches (kernels, progress).
pub(crate) trait BatchObserver<S: ReplayStore> {
    /// Called after batch `batch` (0-based) has been applied; `last` on the
    /// final one.
    fn after_batch(&mut self, store: &S, batch: usize, last: bool) -> Result<()>;
}

/// Replays `stream` into `store`.
pub(crate) fn replay<S: ReplayStore>(
    mut store: S,
    name: &str,
    stream: &Stream,
    config: &ReplayConfig,
    stop: &AtomicBool,
    progress: &ProgressBar,
    observer: &mut impl BatchObserver<S>,
) -> Result<(StoreSummary, S)> {
    let len = stream.len();
    let base_len = ((len as f64) * config.base_pct / 100.0).floor() as usize;
    let batch = config.batch.max(1);
    let mut window = config
        .window
        .map(|w| WindowState::new(w, config.semantics, len));

    let base: Vec<_> = (0..base_len).map(|i| stream.weighted_edge(i)).collect();
    let started = Instant::now();
    let before = store.edge_count();
    let base_load = store.load_base(&base)?;
    let base_seconds = started.elapsed().as_secs_f64();
    drop(base);
    let base_edges = store.edge_count() - before;
    if let Some(window) = &mut window {
        window.arrive(stream, 0..base_len);
    }

    let mut edges_inserted = base_edges;
    let mut edges_deleted = 0u64;
    let mut records = Vec::with_capacity((len - base_len).div_ceil(batch));
    let mut expired = Vec::new();
    // Reused batch buffers, filled before the timer starts: only the store's
    // work is timed.
    let mut weighted_batch = Vec::new();
    let mut plain_batch = Vec::new();
    let mut interrupted = false;
    let batch_starts: Vec<usize> = (base_len..len).step_by(batch).collect();
    let weighted = stream.weights.is_some();
    for (index, &start) in batch_starts.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let end = (start + batch).min(len);
        if weighted {
            weighted_batch.clear();
            weighted_batch.extend((start..end).map(|i| stream.weighted_edge(i)));
        } else {
            plain_batch.clear();
            plain_batch.extend((start..end).map(|i| stream.edge(i)));
        }
        if let Some(window) = &mut window {
            window.arrive(stream, start..end);
            window.expire(stream, end, &mut expired);
        }
        let timer = Instant::now();
        let added = if weighted {
            store.insert_weighted_edges(&weighted_batch)?.edges_added
        } else {
            store.insert_edges(&plain_batch)?.edges_added
        };
        let removed = if expired.is_empty() {
            0
        } else {
            store.delete_edges(&expired)?.edges_removed
        };
        store.end_batch()?;
        let seconds = timer.elapsed().as_secs_f64();
        edges_inserted += added;
        edges_deleted += removed;
        records.push(BatchRecord {
            batch: index,
            edges_inserted: added,
            edges_deleted: removed,
            seconds,
            edges: store.edge_count(),
        });
        progress.inc((end - start) as u64);
        observer.after_batch(&store, index, index + 1 == batch_starts.len())?;
    }
    if batch_starts.is_empty() {
        observer.after_batch(&store, 0, true)?;
    }

    let seconds: f64 = records.iter().map(|r| r.seconds).sum();
    let updates = (edges_inserted - base_edges + edges_deleted) as f64;
    let memory_bytes = store.memory_bytes() as u64;
    let maintenance: Option<Maintenance> = store.maintenance();
    let summary = StoreSummary {
        store: name.to_string(),
        base: base_load,
        base_edges,
        base_seconds,
        edges_inserted,
        edges_deleted,
        edges: store.edge_count(),
        vertices: store.vertex_count() as u64,
        batch_count: records.len(),
        seconds,
        meps: if seconds > 0.0 {
            updates / seconds / 1e6
        } else {
            0.0
        },
        latency_ms: latency(&records),
        memory_bytes,
        bytes_per_edge: memory_bytes as f64 / store.edge_count().max(1) as f64,
        rebalances: maintenance.map(|m| m.rebalances),
        elements_moved: maintenance.map(|m| m.elements_moved),
        kernels: BTreeMap::new(),
        kernel_timeline: Vec::new(),
        interrupted,
        records,
    };
    Ok((summary, store))
}

/// Nearest-rank percentiles of the batch times.
fn latency(records: &[BatchRecord]) -> Latency {
    if records.is_empty() {
        return Latency::default();
    }
    let mut times: Vec<f64> = records.iter().map(|r| r.seconds * 1e3).collect();
    times.sort_by(f64::total_cmp);
    let rank = |p: f64| times[((p * times.len() as f64).ceil() as usize).clamp(1, times.len()) - 1];
    Latency {
        p50: rank(0.50),
        p99: rank(0.99),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stores::CsrRebuild;

    struct Nothing;
    impl<S: ReplayStore> BatchObserver<S> for Nothing {
        fn after_batch(&mut self, _: &S, _: usize, _: bool) -> Result<()> {
            Ok(())
        }
    }

    fn run(stream: &Stream, config: ReplayConfig) -> StoreSummary {
        let store = CsrRebuild::new(config.semantics, false);
        let stop = AtomicBool::new(false);
        replay(
            store,
            "csr-rebuild",
            stream,
            &config,
            &stop,
            &ProgressBar::hidden(),
            &mut Nothing,
        )
        .unwrap()
        .0
    }

    fn config(batch: usize, window: Option<Window>, semantics: Semantics) -> ReplayConfig {
        ReplayConfig {
            base_pct: 20.0,
            batch,
            window,
            semantics,
        }
    }

    fn stream() -> Stream {
        // 10 arrivals of 3 distinct edges, one per time unit.
        let pairs = [
            (0, 1),
            (1, 2),
            (0, 1),
            (2, 0),
            (0, 1),
            (1, 2),
            (1, 2),
            (0, 1),
            (2, 0),
            (0, 1),
        ];
        Stream {
            src: pairs.iter().map(|p| p.0).collect(),
            dst: pairs.iter().map(|p| p.1).collect(),
            timestamps: Some((0..10).collect()),
            weights: None,
        }
    }

    #[test]
    fn window_parses_time_units_and_edge_counts() {
        assert_eq!("3600".parse::<Window>().unwrap(), Window::Time(3600));
        assert_eq!("50edges".parse::<Window>().unwrap(), Window::Edges(50));
        assert_eq!("50 edges".parse::<Window>().unwrap(), Window::Edges(50));
        assert!(
            "soon"
                .parse::<Window>()
                .unwrap_err()
                .contains("not a window")
        );
    }

    #[test]
    fn multigraph_replay_inserts_every_arrival() {
        let summary = run(&stream(), config(3, None, Semantics::Multigraph));
        assert_eq!(summary.base_edges, 2);
        assert_eq!(summary.edges_inserted, 10);
        assert_eq!(summary.edges, 10);
        assert_eq!(summary.batch_count, 3, "8 timed arrivals in batches of 3");
    }

    #[test]
    fn simple_replay_counts_distinct_edges() {
        let summary = run(&stream(), config(1, None, Semantics::Simple));
        assert_eq!(summary.edges_inserted, 3);
        assert_eq!(summary.edges, 3);
    }

    #[test]
    fn edge_window_keeps_the_newest_arrivals() {
        let summary = run(
            &stream(),
            config(1, Some(Window::Edges(4)), Semantics::Multigraph),
        );
        assert_eq!(summary.edges, 4);
        assert_eq!(summary.edges_deleted, 6);
        assert_eq!(
            summary.edges_inserted - summary.edges_deleted,
            summary.edges
        );
    }

    #[test]
    fn time_window_deletes_what_is_older_than_the_span() {
        // After the last arrival (t = 9) with span 2, arrivals t = 7..=9 stay.
        let summary = run(
            &stream(),
            config(1, Some(Window::Time(2)), Semantics::Multigraph),
        );
        assert_eq!(summary.edges, 3);
        assert_eq!(summary.edges_deleted, 7);
    }

    #[test]
    fn simple_window_expires_only_arrivals_that_inserted() {
        // Keeping 4 arrivals: an arrival that repeated a present edge inserted
        // nothing, so its expiry deletes nothing; an arrival that inserted an
        // edge deletes it when it leaves. Worked by hand: inserted are the
        // base (0,1), (1,2) and arrivals 3 (2,0), 6 (1,2), 7 (0,1), 8 (2,0);
        // deleted are (0,1), (1,2), (2,0) when arrivals 0, 1 and 3 leave.
        let summary = run(
            &stream(),
            config(1, Some(Window::Edges(4)), Semantics::Simple),
        );
        assert_eq!(
            (summary.edges_inserted, summary.edges_deleted, summary.edges),
            (6, 3, 3)
        );
    }

    #[test]
    fn latency_percentiles_use_nearest_rank() {
        let records: Vec<BatchRecord> = (1..=100)
            .map(|i| BatchRecord {
                batch: i,
                edges_inserted: 1,
                edges_deleted: 0,
                seconds: i as f64 / 1e3,
                edges: 0,
            })
            .collect();
        let latency = latency(&records);
        assert!(
            (latency.p50 - 50.0).abs() < 1e-9 && (latency.p99 - 99.0).abs() < 1e-9,
            "{latency:?}"
        );
    }
}
