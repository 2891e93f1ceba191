//! [`Maintained`]: a kernel's state kept beside a store, told about each
//! applied batch and brought up to date on demand.

use crate::ChangeLog;
use dyngraph_core::{Error, ReadGraph, Result};
use std::fmt;
use std::time::Instant;

/// A kernel whose result can follow a graph's changes: computed once from
/// scratch, then updated from a [`ChangeLog`] and the graph as it is now.
///
/// Implemented by [`crate::DynamicPageRank`], [`crate::DynamicComponents`],
/// [`crate::DynamicBfs`] and [`crate::DynamicSssp`]. Every method takes any
/// [`ReadGraph`]: a store, a snapshot view of one, or a frozen `Csr`.
pub trait IncrementalKernel: Sized {
    /// The kernel's options.
    type Options: Clone + fmt::Debug;

    /// A short name for tables and errors (`"pr"`, `"cc"`, `"bfs"`,
    /// `"sssp"`, as the static kernels are named).
    const NAME: &'static str;

    /// Computes the result from scratch on `graph`.
    fn compute<G: ReadGraph>(graph: &G, options: &Self::Options) -> Result<(Self, UpdateStats)>;

    /// Brings the result up to `graph`, which must be the graph of the last
    /// update (or of `compute`) with exactly the batches of `changes`
    /// applied. Work that stays local is done locally; where it would not
    /// (a large batch, a capability the store lacks) the kernel recomputes
    /// and says why in [`UpdateStats::fallback`].
    fn apply<G: ReadGraph>(&mut self, graph: &G, changes: &ChangeLog) -> Result<UpdateStats>;

    /// Recomputes from scratch on `graph`, keeping the options.
    fn recompute<G: ReadGraph>(&mut self, graph: &G) -> Result<UpdateStats>;

    /// The vertex count of the graph the result is for.
    fn vertex_count(&self) -> usize;

    /// Edges (inserted and deleted) past which a log is not worth keeping:
    /// an update told more would recompute anyway. `None`: no limit.
    fn log_limit(&self) -> Option<usize> {
        None
    }
}

/// What an update ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ran {
    /// Nothing to do: no change was recorded.
    Nothing,
    /// The incremental algorithm, over the affected region only.
    Incremental,
    /// PageRank only: full sweeps over every vertex, warm-started from the
    /// previous ranks (naive-dynamic, asked for or as a fallback).
    WarmSweeps,
    /// The static kernel, from scratch.
    FromScratch,
}

/// Why an update did not run its incremental algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FallbackReason {
    /// The batch was larger than the kernel's measured threshold.
    LargeBatch,
    /// The affected region grew past the kernel's measured threshold while
    /// the update ran, so the rest was done by a full computation.
    LargeAffectedRegion,
    /// The store keeps no in-edges and the update needed them (the
    /// incremental repair of a deletion reads in-neighbours).
    NoInEdges,
    /// The change log overflowed its limit.
    LogOverflow,
    /// The previous update failed part-way, so the state was rebuilt.
    AfterError,
    /// Residual push: pushing the batch's residuals down to the bound
    /// would have cost more than warm sweeps over the whole graph, so the
    /// update stopped pushing and swept.
    PushCostlierThanSweeps,
}

impl fmt::Display for FallbackReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FallbackReason::LargeBatch => "large batch",
            FallbackReason::LargeAffectedRegion => "large affected region",
            FallbackReason::NoInEdges => "no in-edges",
            FallbackReason::LogOverflow => "change log overflowed",
            FallbackReason::AfterError => "previous update failed",
            FallbackReason::PushCostlierThanSweeps => {
                "pushing the changed ranks to the bound would cost more than sweeping the whole graph"
            }
        })
    }
}

/// What one update (or the initial computation) did.
#[derive(Clone, Debug, PartialEq)]
pub struct UpdateStats {
    /// The kernel ([`IncrementalKernel::NAME`]).
    pub kernel: &'static str,
    /// What ran.
    pub ran: Ran,
    /// Why the incremental algorithm did not run (or did not finish), if
    /// it did not; `None` when it did or when a static or naive-dynamic
    /// strategy was asked for.
    pub fallback: Option<FallbackReason>,
    /// Batches consumed.
    pub batches: usize,
    /// Edges told inserted.
    pub inserted: u64,
    /// Edges told deleted.
    pub deleted: u64,
    /// Vertices of the graph updated to.
    pub vertex_count: usize,
    /// Vertex computations: a vertex processed in three iterations counts
    /// three times.
    pub vertices_processed: u64,
    /// Distinct vertices computed, where the kernel tells repeats apart
    /// (residual push; a sweep computes every vertex); `None` where it
    /// does not, and [`UpdateStats::touched_share`] takes the vertex
    /// computations, at most one per vertex, instead.
    pub vertices_touched: Option<u64>,
    /// Adjacency entries read (out- and in-neighbours).
    pub edges_scanned: u64,
    /// Iterations (PageRank) or rounds; 1 for a single pass.
    pub iterations: u32,
    /// Wall time of the update, in seconds.
    pub seconds: f64,
}

impl UpdateStats {
    /// Stats of `kernel` that did nothing yet, for `vertex_count` vertices.
    pub(crate) fn new(kernel: &'static str, ran: Ran, vertex_count: usize) -> Self {
        Self {
            kernel,
            ran,
            fallback: None,
            batches: 0,
            inserted: 0,
            deleted: 0,
            vertex_count,
            vertices_processed: 0,
            vertices_touched: None,
            edges_scanned: 0,
            iterations: 0,
            seconds: 0.0,
        }
    }

    /// Whether the update fell back from its incremental algorithm.
    pub fn fell_back(&self) -> bool {
        self.fallback.is_some()
    }

    /// The share of the graph's vertices the update computed, at most 1:
    /// distinct vertices where the kernel counts them
    /// ([`UpdateStats::vertices_touched`]), else its vertex computations
    /// capped at the vertex count (an upper bound where a vertex is
    /// computed more than once).
    pub fn touched_share(&self) -> f64 {
        let n = self.vertex_count.max(1) as u64;
        let touched = self
            .vertices_touched
            .unwrap_or(self.vertices_processed)
            .min(n);
        touched as f64 / n as f64
    }

    /// Vertex computations per vertex of the graph, the update's work: 0.01
    /// is the work of computing 1 % of the vertices once, 20 that of twenty
    /// full sweeps.
    pub fn work_share(&self) -> f64 {
        self.vertices_processed as f64 / self.vertex_count.max(1) as f64
    }
}

impl fmt::Display for UpdateStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ran = match self.ran {
            Ran::Nothing => "nothing",
            Ran::Incremental => "incremental",
            Ran::WarmSweeps => "warm sweeps",
            Ran::FromScratch => "from scratch",
        };
        write!(
            f,
            "{}: {ran}, +{}/-{} edges in {} batch(es), {} vertex computations ({:.3}% of {} \
             vertices touched), {} edges read, {} iteration(s), {:.3} ms",
            self.kernel,
            self.inserted,
            self.deleted,
            self.batches,
            self.vertices_processed,
            100.0 * self.touched_share(),
            self.vertex_count,
            self.edges_scanned,
            self.iterations,
            self.seconds * 1e3
        )?;
        if let Some(reason) = self.fallback {
            write!(f, " (fell back: {reason})")?;
        }
        Ok(())
    }
}

/// A kernel's result kept beside a store: told about each applied batch,
/// updated on demand.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge, GraphUpdate, StoreOptions, FromEdges};
/// use dyngraph_incremental::{DynamicBfs, DynamicBfsOptions, Maintained};
/// use dyngraph_vcsr::Vcsr;
///
/// // A path 0 -> 1 -> ... -> 999.
/// let path: Vec<Edge> = (0..999).map(|v| Edge::new(v, v + 1)).collect();
/// let mut store: Vcsr = Vcsr::from_edges(&path, StoreOptions::default().in_edges(true).into())?;
/// let mut bfs = Maintained::<DynamicBfs>::new(&store, DynamicBfsOptions::from_source(0))?;
/// assert_eq!(bfs.kernel().depth(999), Some(999));
///
/// // A batch: the store applies it, the maintained kernel is told.
/// let (inserted, deleted) = ([Edge::new(0, 500), Edge::new(998, 1000)], [Edge::new(998, 999)]);
/// store.insert_edges(&inserted)?;
/// store.delete_edges(&deleted)?;
/// bfs.record_batch(&inserted, &deleted);
///
/// let stats = bfs.update(&store)?;
/// let depth = |v| bfs.kernel().depth(v);
/// assert_eq!((depth(500), depth(998), depth(999), depth(1000)), (Some(1), Some(499), None, Some(500)));
/// assert!(!stats.fell_back());
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Maintained<K: IncrementalKernel> {
    kernel: K,
    log: ChangeLog,
    last: UpdateStats,
    /// Set when an update failed part-way: the next one recomputes.
    stale: bool,
}

impl<K: IncrementalKernel> Maintained<K> {
    /// Computes the kernel on `graph` from scratch and keeps it.
    pub fn new<G: ReadGraph>(graph: &G, options: K::Options) -> Result<Self> {
        let started = Instant::now();
        let (kernel, mut stats) = K::compute(graph, &options)?;
        stats.seconds = started.elapsed().as_secs_f64();
        let log = match kernel.log_limit() {
            Some(limit) => ChangeLog::with_limit(limit),
            None => ChangeLog::new(),
        };
        Ok(Self {
            kernel,
            log,
            last: stats,
            stale: false,
        })
    }

    /// Records one batch the store applied: the edges handed to its insert
    /// call and those handed to its delete call.
    pub fn record_batch<I, D>(&mut self, inserted: &I, deleted: &D)
    where
        I: dyngraph_core::EdgeSource + ?Sized,
        D: dyngraph_core::EdgeSource + ?Sized,
    {
        self.log.record_batch(inserted, deleted);
    }

    /// The changes recorded since the last update.
    pub fn pending(&self) -> &ChangeLog {
        &self.log
    }

    /// The changes recorded since the last update, to record into in parts
    /// ([`ChangeLog::record_inserted`], [`ChangeLog::record_deleted`],
    /// [`ChangeLog::end_batch`]).
    pub fn pending_mut(&mut self) -> &mut ChangeLog {
        &mut self.log
    }

    /// Brings the result up to `graph`: the graph of the last update with
    /// the recorded batches applied (the store itself, or a snapshot view
    /// taken after the last recorded batch). Clears the log.
    pub fn update<G: ReadGraph>(&mut self, graph: &G) -> Result<UpdateStats> {
        let log = std::mem::take(&mut self.log);
        let result = self.run(graph, &log);
        self.log = log;
        self.log.clear();
        self.log.set_limit(self.kernel.log_limit());
        result
    }

    /// Brings the result up to `graph` with the changes of a log kept
    /// elsewhere (one log shared by several maintained kernels, or the log
    /// a writer handed over with a snapshot). The own log must be empty:
    /// changes are recorded in one place.
    pub fn update_with<G: ReadGraph>(
        &mut self,
        graph: &G,
        changes: &ChangeLog,
    ) -> Result<UpdateStats> {
        if !self.log.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "{}: update_with was given a log while {} recorded edge(s) wait in the own log; \
                 record in one place",
                K::NAME,
                self.log.edges_told()
            )));
        }
        self.run(graph, changes)
    }

    /// Recomputes from scratch on `graph` and drops the recorded changes.
    pub fn recompute<G: ReadGraph>(&mut self, graph: &G) -> Result<UpdateStats> {
        let started = Instant::now();
        self.log.clear();
        let mut stats = self
            .kernel
            .recompute(graph)
            .inspect_err(|_| self.stale = true)?;
        self.stale = false;
        stats.seconds = started.elapsed().as_secs_f64();
        self.last = stats.clone();
        Ok(stats)
    }

    fn run<G: ReadGraph>(&mut self, graph: &G, changes: &ChangeLog) -> Result<UpdateStats> {
        let started = Instant::now();
        if graph.vertex_count() < self.kernel.vertex_count() {
            return Err(Error::InvalidArgument(format!(
                "{}: the graph has {} vertices, fewer than the {} the result is for \
                 (vertex counts never shrink; is it the same graph?)",
                K::NAME,
                graph.vertex_count(),
                self.kernel.vertex_count()
            )));
        }
        let outcome = if self.stale {
            self.kernel.recompute(graph).map(|mut stats| {
                stats.fallback = Some(FallbackReason::AfterError);
                stats
            })
        } else {
            self.kernel.apply(graph, changes)
        };
        let mut stats = outcome.inspect_err(|_| self.stale = true)?;
        self.stale = false;
        stats.batches = changes.batches();
        stats.inserted = changes.inserted_told();
        stats.deleted = changes.deleted_told();
        stats.seconds = started.elapsed().as_secs_f64();
        self.last = stats.clone();
        Ok(stats)
    }

    /// The kernel's state and results.
    pub fn kernel(&self) -> &K {
        &self.kernel
    }

    /// What the last update (or the initial computation) did.
    pub fn last_update(&self) -> &UpdateStats {
        &self.last
    }

    /// The kernel's state, dropping the log.
    pub fn into_kernel(self) -> K {
        self.kernel
    }
}
