//! The timed replay loop.
//!
//! # What is timed, and what timing costs
//!
//! Only the store's work: `insert_edges`, `delete_edges` and `end_batch`
//! of each batch. The batches are borrowed columns of the stream (no copy),
//! and the window's deletes for a group of batches are worked out before
//! that group's timer starts.
//!
//! Reading the clock around every batch would cost about as much as a
//! one-edge insert (two reads of ~20 ns against ~140 ns per edge). So
//! batches are timed in *groups* of at least [`ReplayOptions::timed_group`]
//! arrivals (1024 by default; a batch at least that large is a group of
//! its own): one clock read starts a group and one ends it, and the first
//! batch of every group is also timed on its own (one more read) as the
//! latency sample. Per arrival that is at most three clock reads per 1024
//! arrivals. Groups also end where a kernel checkpoint is due, so kernels
//! always see a whole number of batches. Latency percentiles are over the
//! sampled batches; with batches of 1024 or more arrivals, every batch is
//! a sample.
//!
//! Measured (issue 17, callgrind, sx-mathoverflow b30 into `Vcsr` one edge
//! at a time): the grouped replay executes 0.05 % more instructions than
//! the same replay under one timer, and 7 % more than a bare loop of
//! `insert_edge` calls (the window, delete and `end_batch` bookkeeping per
//! batch). A batch of one edge goes to the store's single-edge insert.

use crate::window::{Window, WindowState};
use dyngraph_core::{DynamicStore, Edge, EdgeChunk, Result, Semantics, StoreConfig};
use dyngraph_loader::EdgeStream;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// How a replay runs; shared by every store in one run.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayOptions {
    /// Percentage of the stream bulk-built as the base graph before timing.
    pub base_percent: f64,
    /// Arrivals per update batch (1 = one edge at a time).
    pub batch: usize,
    /// Sliding window deletes, if any.
    pub window: Option<Window>,
    /// Multigraph or simple graph.
    pub semantics: Semantics,
    /// Arrivals per timed group (see the module docs).
    pub timed_group: usize,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        Self {
            base_percent: 10.0,
            batch: 1,
            window: None,
            semantics: Semantics::Multigraph,
            timed_group: 1024,
        }
    }
}

/// One timed group of batches.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupRecord {
    /// Index of the group's first batch (0-based).
    pub batch: usize,
    /// Batches in the group.
    pub batches: usize,
    /// Edges the group inserted.
    pub edges_inserted: u64,
    /// Edges the group deleted.
    pub edges_deleted: u64,
    /// Seconds the store spent on the group.
    pub seconds: f64,
    /// Edges in the store after the group.
    pub edges: u64,
}

/// Percentiles of sampled batch latency, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Batches sampled.
    pub samples: usize,
}

/// One kernel's timing on a store's snapshot and on `Csr` of the same
/// edges, at the last checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelSummary {
    /// Seconds on the store's snapshot (best of two).
    pub seconds: f64,
    /// Seconds on a `Csr` frozen from the store (best of two).
    pub csr_seconds: f64,
    /// `seconds / csr_seconds`.
    pub ratio: f64,
    /// How the kernel ran (pull or push, ...): `KernelOutput::mode`.
    pub mode: String,
    /// PageRank: the ten highest-ranked vertices, best first, named by
    /// their original ids.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub top: Vec<RankedVertex>,
    /// The verifier's verdict, when asked for.
    pub verified: Option<bool>,
}

/// A vertex and its score, named for people.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RankedVertex {
    /// The vertex's original id (its vertex id when the input was not
    /// relabelled).
    pub id: String,
    /// The dense vertex id.
    pub vertex: u32,
    /// The score.
    pub score: f32,
}

/// One kernel run at one checkpoint of the replay.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelPoint {
    /// The checkpoint's batch (0-based; the kernel ran after it).
    pub batch: usize,
    /// The kernel's name.
    pub kernel: String,
    /// Seconds on the store's snapshot.
    pub seconds: f64,
    /// Seconds on `Csr`.
    pub csr_seconds: f64,
}

/// What one store cost over the whole replay.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoreSummary {
    /// The store's name.
    pub store: String,
    /// Whether the store kept in-edges.
    pub in_edges: bool,
    /// Whether the store kept weights.
    pub weighted: bool,
    /// Edges in the bulk-built base graph.
    pub base_edges: u64,
    /// Seconds to bulk-build the base graph.
    pub base_seconds: f64,
    /// Edges actually added, base included (fewer than arrivals under
    /// simple semantics).
    pub edges_inserted: u64,
    /// Edges deleted by the window.
    pub edges_deleted: u64,
    /// Edges in the store at the end.
    pub edges: u64,
    /// Vertices in the store at the end.
    pub vertices: u64,
    /// Timed batches.
    pub batch_count: usize,
    /// Timed update seconds (batches only, base excluded).
    pub seconds: f64,
    /// Million edge updates (inserts + deletes) per timed second.
    pub meps: f64,
    /// Sampled batch latency.
    pub latency_ms: Latency,
    /// Heap bytes the store holds at the end.
    pub memory_bytes: u64,
    /// `memory_bytes` per stored edge.
    pub bytes_per_edge: f64,
    /// Rebalances, where the store counts them.
    pub rebalances: Option<u64>,
    /// Elements moved by rebalances, where the store counts them.
    pub elements_moved: Option<u64>,
    /// Kernels at the last checkpoint, by name.
    pub kernels: BTreeMap<String, KernelSummary>,
    /// Every kernel checkpoint of the replay.
    pub kernel_timeline: Vec<KernelPoint>,
    /// Kernels maintained across the batches, by name
    /// ([`crate::KernelMode::Incremental`] or `Both`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub maintained: BTreeMap<String, crate::MaintainedSummary>,
    /// For a durable store, the edges acknowledged durable when the replay
    /// ended (as of its last sync point).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acknowledged_edges: Option<u64>,
    /// Whether the replay was stopped early.
    pub interrupted: bool,
    /// Every timed group, in order.
    #[serde(rename = "batches")]
    pub records: Vec<GroupRecord>,
}

/// Where a replay stands when it calls its observer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The last batch applied (0-based); `None` before the first.
    pub batch: Option<usize>,
    /// Arrivals in the store so far, base included.
    pub arrivals: usize,
    /// Whether this is the end of the replay.
    pub last: bool,
}

/// Watches a replay between timed groups (kernel checkpoints, progress).
/// Never called inside a timed group.
pub trait Observer<S> {
    /// Batches between the observer's checkpoints: groups end at every
    /// multiple, so [`Observer::after_group`] sees each one. `None`: only
    /// the end matters.
    fn every(&self) -> Option<usize> {
        None
    }

    /// Called after each timed group, and once at the end.
    fn after_group(&mut self, store: &S, position: Position) -> Result<()>;

    /// Whether [`Observer::record_batch`] is wanted (the engine skips the
    /// per-batch calls otherwise).
    fn wants_batches(&self) -> bool {
        false
    }

    /// Called once per batch of a timed group, in order, after the group's
    /// timer stopped and before [`Observer::after_group`]: the edges the
    /// batch handed to the store's insert and delete calls (what
    /// maintained kernels are told about).
    fn record_batch(&mut self, inserted: &EdgeChunk<'_>, deleted: &[Edge]) {
        let _ = (inserted, deleted);
    }
}

/// An observer that watches nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl<S> Observer<S> for NoObserver {
    fn after_group(&mut self, _: &S, _: Position) -> Result<()> {
        Ok(())
    }
}

/// A borrowed observer observes: the caller keeps it (and its results).
impl<S, O: Observer<S> + ?Sized> Observer<S> for &mut O {
    fn every(&self) -> Option<usize> {
        (**self).every()
    }

    fn after_group(&mut self, store: &S, position: Position) -> Result<()> {
        (**self).after_group(store, position)
    }

    fn wants_batches(&self) -> bool {
        (**self).wants_batches()
    }

    fn record_batch(&mut self, inserted: &EdgeChunk<'_>, deleted: &[Edge]) {
        (**self).record_batch(inserted, deleted);
    }
}

/// Two observers, in order.
impl<S, A: Observer<S>, B: Observer<S>> Observer<S> for (A, B) {
    fn every(&self) -> Option<usize> {
        match (self.0.every(), self.1.every()) {
            (Some(a), Some(b)) => Some(gcd(a, b)),
            (a, b) => a.or(b),
        }
    }

    fn after_group(&mut self, store: &S, position: Position) -> Result<()> {
        self.0.after_group(store, position)?;
        self.1.after_group(store, position)
    }

    fn wants_batches(&self) -> bool {
        self.0.wants_batches() || self.1.wants_batches()
    }

    fn record_batch(&mut self, inserted: &EdgeChunk<'_>, deleted: &[Edge]) {
        self.0.record_batch(inserted, deleted);
        self.1.record_batch(inserted, deleted);
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

/// Replays `stream` into a store of type `S` built with `options`: the
/// first [`ReplayOptions::base_percent`] of the stream bulk-built with
/// [`FromEdges::from_edges`](dyngraph_core::FromEdges::from_edges), then
/// the rest in timed batches of inserts (and window deletes), each batch
/// ended with `end_batch`; weights are passed only when the options keep
/// them. Stops between groups when `stop` is set. Returns the summary
/// (kernels and timeline left empty for the observer's owner to fill) and
/// the store.
pub fn replay<S: DynamicStore>(
    options: S::Options,
    stream: &EdgeStream,
    replay: &ReplayOptions,
    stop: &AtomicBool,
    observer: &mut impl Observer<S>,
) -> Result<(StoreSummary, S)> {
    let store_options = *options.shared();
    let len = stream.len();
    let base_len = ((len as f64) * replay.base_percent / 100.0).floor() as usize;
    let batch = replay.batch.max(1);
    let weighted = store_options.weighted;
    let mut window = replay
        .window
        .map(|w| WindowState::new(w, replay.semantics, len));

    let started = Instant::now();
    let mut store = S::from_edges(&stream.chunk(0..base_len, weighted), options)?;
    store.end_batch()?;
    let base_seconds = started.elapsed().as_secs_f64();
    let base_edges = store.edge_count();
    if let Some(window) = &mut window {
        window.arrive(stream, 0..base_len);
    }
    observer.after_group(
        &store,
        Position {
            batch: None,
            arrivals: base_len,
            last: base_len == len,
        },
    )?;

    let batch_count = (len - base_len).div_ceil(batch);
    // Capped at the batch count, so a huge `timed_group` (one timer around
    // the whole replay) sizes nothing past the stream.
    let group_batches = replay
        .timed_group
        .div_ceil(batch)
        .clamp(1, batch_count.max(1));
    let every = observer.every();
    let mut edges_inserted = base_edges;
    let mut edges_deleted = 0u64;
    let mut records = Vec::with_capacity(batch_count.div_ceil(group_batches));
    let mut samples = Vec::with_capacity(records.capacity());
    // The deletes of each batch of a group, back to back, and where each
    // batch's start: worked out before the group's timer starts.
    let mut deletes: Vec<Edge> = Vec::new();
    let mut delete_starts: Vec<usize> = Vec::with_capacity(group_batches + 1);
    let mut expired = Vec::new();
    let mut interrupted = false;
    let mut next_batch = 0usize;
    // The columns once, outside the per-edge loop: each accessor derefs a
    // column that may be a mapped file's (a branch and a cast per call),
    // which cost Bal's edge-at-a-time replay about a tenth of its rate.
    let (src, dst) = (stream.src(), stream.dst());
    let weights = stream.weights().filter(|_| weighted);
    while next_batch < batch_count {
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let mut group_end = (next_batch + group_batches).min(batch_count);
        if let Some(every) = every {
            // End the group at the next checkpoint.
            let checkpoint = (next_batch / every + 1).saturating_mul(every);
            group_end = group_end.min(checkpoint);
        }
        // Saturating: a batch of `usize::MAX` arrivals is the whole rest.
        let arrival = |b: usize| base_len.saturating_add(b.saturating_mul(batch)).min(len);

        deletes.clear();
        delete_starts.clear();
        for b in next_batch..group_end {
            delete_starts.push(deletes.len());
            if let Some(window) = &mut window {
                window.arrive(stream, arrival(b)..arrival(b + 1));
                window.expire(stream, arrival(b + 1), &mut expired);
                deletes.extend_from_slice(&expired);
            }
        }
        delete_starts.push(deletes.len());

        let (mut added, mut removed) = (0u64, 0u64);
        let timer = Instant::now();
        let mut first_batch_seconds = None;
        for (i, b) in (next_batch..group_end).enumerate() {
            let (start, end) = (arrival(b), arrival(b + 1));
            if end - start == 1 {
                // One edge at a time: the store's single-edge insert, not a
                // batch of one (no batch set-up per edge).
                let weight = weights.map_or(1.0, |w| w[start]);
                added += u64::from(store.insert_weighted_edge(src[start], dst[start], weight)?);
            } else {
                added += store
                    .insert_edges(&stream.chunk(start..end, weighted))?
                    .edges_added;
            }
            let batch_deletes = &deletes[delete_starts[i]..delete_starts[i + 1]];
            if !batch_deletes.is_empty() {
                removed += store.delete_edges(batch_deletes)?.edges_removed;
            }
            store.end_batch()?;
            if i == 0 {
                first_batch_seconds = Some(timer.elapsed().as_secs_f64());
            }
        }
        let seconds = timer.elapsed().as_secs_f64();
        samples.extend(first_batch_seconds.map(|s| s * 1e3));
        edges_inserted += added;
        edges_deleted += removed;
        if observer.wants_batches() {
            for (i, b) in (next_batch..group_end).enumerate() {
                let inserted = stream.chunk(arrival(b)..arrival(b + 1), weighted);
                observer.record_batch(&inserted, &deletes[delete_starts[i]..delete_starts[i + 1]]);
            }
        }
        records.push(GroupRecord {
            batch: next_batch,
            batches: group_end - next_batch,
            edges_inserted: added,
            edges_deleted: removed,
            seconds,
            edges: store.edge_count(),
        });
        next_batch = group_end;
        observer.after_group(
            &store,
            Position {
                batch: Some(group_end - 1),
                arrivals: arrival(group_end),
                last: group_end == batch_count,
            },
        )?;
    }

    // The last group's updates may wait in a durable store's group commit:
    // made durable here, outside the timed groups (one sync).
    store.persist()?;
    let seconds: f64 = records.iter().map(|r| r.seconds).sum();
    let updates = (edges_inserted - base_edges + edges_deleted) as f64;
    let memory_bytes = store.memory_bytes() as u64;
    let maintenance = store.maintenance();
    let summary = StoreSummary {
        store: S::NAME.to_string(),
        in_edges: store_options.in_edges,
        weighted,
        base_edges,
        base_seconds,
        edges_inserted,
        edges_deleted,
        edges: store.edge_count(),
        vertices: store.vertex_count() as u64,
        batch_count: records.iter().map(|r| r.batches).sum(),
        seconds,
        meps: if seconds > 0.0 {
            updates / seconds / 1e6
        } else {
            0.0
        },
        latency_ms: latency(samples),
        memory_bytes,
        bytes_per_edge: memory_bytes as f64 / store.edge_count().max(1) as f64,
        rebalances: maintenance.map(|m| m.rebalances),
        elements_moved: maintenance.map(|m| m.elements_moved),
        kernels: BTreeMap::new(),
        kernel_timeline: Vec::new(),
        maintained: BTreeMap::new(),
        acknowledged_edges: store.acknowledged_edges(),
        interrupted,
        records,
    };
    Ok((summary, store))
}

/// Nearest-rank percentiles of the sampled batch times (milliseconds).
pub(crate) fn latency(mut times: Vec<f64>) -> Latency {
    if times.is_empty() {
        return Latency::default();
    }
    times.sort_by(f64::total_cmp);
    let rank = |p: f64| times[((p * times.len() as f64).ceil() as usize).clamp(1, times.len()) - 1];
    Latency {
        p50: rank(0.50),
        p99: rank(0.99),
        samples: times.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_percentiles_use_nearest_rank() {
        let latency = latency((1..=100).map(f64::from).collect());
        assert!(
            (latency.p50 - 50.0).abs() < 1e-9 && (latency.p99 - 99.0).abs() < 1e-9,
            "{latency:?}"
        );
        assert_eq!(latency.samples, 100);
    }

    #[test]
    fn observers_compose_to_the_finer_interval() {
        struct Every(usize);
        impl Observer<()> for Every {
            fn every(&self) -> Option<usize> {
                Some(self.0)
            }
            fn after_group(&mut self, _: &(), _: Position) -> Result<()> {
                Ok(())
            }
        }
        assert_eq!((Every(4), Every(6)).every(), Some(2));
        assert_eq!((Every(4), NoObserver).every(), Some(4));
    }
}
