//! `Vcsr`: CSR's vertex array over a vertex-centric packed-memory array.

use crate::StoreOptions;
use crate::bal::add_vertices_end;
use crate::slot::{MAX_VERTICES, Slot, TOMBSTONE, Target, WeightedTarget};
use crate::snapshot::{History, Snapshot, SnapshotView};
use dyngraph_core::{
    Edge, Error, Graph, GraphUpdate, InNeighbors, OutNeighbors, Result, Semantics, UpdateReport,
    VertexId, Weight, WeightedEdge, WeightedOutNeighbors, check_limit,
};
use dyngraph_pma::{
    DegreeProportional, GapPolicy, PackedRuns, PmaConfig, PmaError, PmaStats, Reclaim,
};
use std::ops::Range;

/// The out-edge array: 4-byte slots, or 8-byte slots with weights.
#[derive(Clone, Debug)]
pub(crate) enum OutRuns<P> {
    Plain(PackedRuns<Target, P>),
    Weighted(PackedRuns<WeightedTarget, P>),
}

/// Runs `$body` with `$runs` bound to whichever out-edge array is in use.
macro_rules! with_out_runs {
    ($out:expr, $runs:ident => $body:expr) => {
        match $out {
            OutRuns::Plain($runs) => $body,
            OutRuns::Weighted($runs) => $body,
        }
    };
}

fn pma_error(error: PmaError) -> Error {
    Error::InvalidStructure(format!("VCSR edge array: {error}"))
}

/// Grows a per-vertex array to `len` zeroed entries, reserving at least an
/// eighth more when it reallocates (amortized `O(1)` per vertex with at
/// most 12.5% of the allocation unused, where `Vec`'s doubling may leave
/// half of it unused).
fn resize_modestly(values: &mut Vec<u32>, len: usize) {
    if len > values.capacity() {
        let additional = (len - values.len()).max(values.len() / 8);
        values.reserve_exact(additional);
    }
    values.resize(len, 0);
}

/// The pma configuration [`Vcsr::new`] and [`Vcsr::with_policy`] use for
/// the out-edge array (the in-edge array's is
/// [`default_in_edge_pma_config`]): the classic density thresholds (root
/// at most 0.75 full), growing by 1.3 instead of doubling, so an edge
/// array is at least `0.75 / 1.3 = 0.58` dense right after a growth
/// instead of 0.375. With 4-byte slots that is
/// at most 6.9 bytes per edge of slots, plus 9 bytes of pma bookkeeping and
/// 4 of degree per vertex: under twice `Csr`'s `4 + 8 V / E` at any point
/// of the growth cycle. The price is more resizes: each element is moved
/// `1.3 / 0.3 = 4.3` times by resizes on average instead of 2 (on a 5.2M
/// edge Kronecker stream, about 15% fewer inserts per second than growing
/// by 1.5; `BENCHMARKS.md`).
pub fn default_pma_config() -> PmaConfig {
    PmaConfig::default().growth(1.3)
}

/// The pma configuration of the in-edge array by default: as
/// [`default_pma_config`] but with the root at most 0.85 full instead of
/// 0.75, so the array is between `0.85 / 1.3 = 0.65` and 0.85 dense
/// instead of between 0.58 and 0.75.
///
/// Why the two arrays differ: the in-edge array is there for pull kernels
/// (PageRank, bottom-up BFS), which stream it whole, gaps included, so its
/// density sets how close they come to `Csr`; it is written only when an
/// in-edge graph takes an insert, and there a fuller array costs more
/// rebalancing. Measured on the Kronecker s20 stream's final graph, pull
/// PageRank took up to 0.13× of `Csr`'s time less than with this array at
/// 0.75 (for example 1.14× `Csr` instead of 1.27×); inserts with in-edges
/// kept stay above twice `Pcsr`'s rate with in-edges, and about 30 %
/// slower than with this array at 0.75 (`BENCHMARKS.md`, "Issue 5, fifth
/// pass"). Graphs without in-edges do not use it.
pub fn default_in_edge_pma_config() -> PmaConfig {
    let mut config = default_pma_config();
    config.thresholds.root_upper = 0.85;
    config
}

/// The pma configurations of a [`Vcsr`]'s two edge arrays. A single
/// [`PmaConfig`] converts into one that uses it for both.
///
/// ```
/// use dyngraph_vcsr::{DegreeProportional, StoreOptions, Vcsr, VcsrConfig, default_pma_config};
/// // Both arrays as dense as the in-edge default (fewer bytes per edge,
/// // slower inserts).
/// let dense = VcsrConfig::default().in_edges;
/// let graph = Vcsr::with_config(
///     StoreOptions::default().in_edges(true),
///     DegreeProportional::default(),
///     dense,
/// )?;
/// assert_eq!(graph.config().out_edges, dense);
/// // The defaults: a sparser out-edge array for inserts, a denser
/// // in-edge array for pull kernels.
/// let config = VcsrConfig::default();
/// assert_eq!(config.out_edges, default_pma_config());
/// assert!(config.in_edges.thresholds.root_upper > config.out_edges.thresholds.root_upper);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VcsrConfig {
    /// The out-edge array, written by every insert (default
    /// [`default_pma_config`]).
    pub out_edges: PmaConfig,
    /// The in-edge array, when [`StoreOptions::in_edges`] keeps one
    /// (default [`default_in_edge_pma_config`]).
    pub in_edges: PmaConfig,
}

impl Default for VcsrConfig {
    fn default() -> Self {
        VcsrConfig {
            out_edges: default_pma_config(),
            in_edges: default_in_edge_pma_config(),
        }
    }
}

impl From<PmaConfig> for VcsrConfig {
    /// The same configuration for both arrays.
    fn from(config: PmaConfig) -> Self {
        VcsrConfig {
            out_edges: config,
            in_edges: config,
        }
    }
}

/// Index of the oldest live slot of `run` pointing to `target`.
#[inline]
fn find_live<S: Slot, P: GapPolicy>(
    runs: &PackedRuns<S, P>,
    run: VertexId,
    target: VertexId,
) -> Option<usize> {
    runs.run(run as usize)?
        .iter()
        .position(|slot| slot.target().0 == target)
}

/// Marks slot `index` of `run` deleted.
#[inline]
fn tombstone<S: Slot, P: GapPolicy>(runs: &mut PackedRuns<S, P>, run: VertexId, index: usize) {
    if let Some(slot) = runs.get_mut(run as usize, index) {
        slot.target_mut().0 |= TOMBSTONE;
    }
}

/// Replaces an empty edge array by one built in a single pass from
/// `edges`, which are grouped by run: run `r` gets
/// `edges[starts[r]..starts[r + 1]]`, as `slot(edge)`. Keeps the policy,
/// configuration and reclaim rule; the pma counters restart at zero.
fn bulk_build<S: Slot, P: GapPolicy + Clone>(
    runs: &mut PackedRuns<S, P>,
    starts: &[usize],
    edges: &[WeightedEdge],
    slot: impl Fn(&WeightedEdge) -> S,
) -> Result<PmaStats> {
    let run_count = runs.run_count();
    let mut fresh = PackedRuns::from_runs(
        runs.policy().clone(),
        *runs.config(),
        (0..run_count).map(|r| edges[starts[r]..starts[r + 1]].iter().map(&slot)),
    )
    .map_err(pma_error)?;
    fresh.set_reclaim(runs.reclaim().clone());
    Ok(std::mem::replace(runs, fresh).stats().clone())
}

/// Rebuilds `runs` from its live slots at the middle of the density
/// bounds; returns the replaced array's counters.
fn rebuild_live<S: Slot, P: GapPolicy + Clone>(runs: &mut PackedRuns<S, P>) -> Result<PmaStats> {
    let mut fresh = PackedRuns::from_runs(
        runs.policy().clone(),
        *runs.config(),
        runs.runs()
            .map(|run| run.iter().filter(|slot| slot.target().is_live()).copied()),
    )
    .map_err(pma_error)?;
    fresh.set_reclaim(runs.reclaim().clone());
    Ok(std::mem::replace(runs, fresh).stats().clone())
}

/// Adds `more`'s counters into `total`.
fn add_stats(total: &mut PmaStats, more: &PmaStats) {
    if total.rebalances_per_level.len() < more.rebalances_per_level.len() {
        total
            .rebalances_per_level
            .resize(more.rebalances_per_level.len(), 0);
    }
    for (sum, &count) in total
        .rebalances_per_level
        .iter_mut()
        .zip(&more.rebalances_per_level)
    {
        *sum += count;
    }
    total.elements_moved += more.elements_moved;
    total.moved_by_rebalance += more.moved_by_rebalance;
    total.moved_by_shift += more.moved_by_shift;
    total.moved_by_resize += more.moved_by_resize;
    total.grows += more.grows;
    total.shrinks += more.shrinks;
    total.inserts += more.inserts;
    total.removes += more.removes;
    total.reclaimed += more.reclaimed;
    total.policy_fallbacks += more.policy_fallbacks;
}

/// `starts` of edges sorted by `key`: `starts[r]..starts[r + 1]` is run `r`.
fn run_starts(
    edges: &[WeightedEdge],
    run_count: usize,
    key: impl Fn(&WeightedEdge) -> VertexId,
) -> Vec<usize> {
    let mut starts = vec![0usize; run_count + 1];
    for edge in edges {
        starts[key(edge) as usize + 1] += 1;
    }
    for r in 0..run_count {
        starts[r + 1] += starts[r];
    }
    starts
}

/// Counters of a [`Vcsr`]: the pma stats of its edge arrays and the
/// current shape.
#[derive(Clone, Debug, PartialEq)]
pub struct VcsrStats {
    /// Work done by the out-edge array (rebalances per level, elements
    /// moved, grows and shrinks, reclaimed tombstones).
    pub out_edges: PmaStats,
    /// The same for the in-edge array, when kept.
    pub in_edges: Option<PmaStats>,
    /// Slots in the out-edge array (edges, tombstones and gaps).
    pub out_slots: usize,
    /// Out-edge slots holding an edge or a tombstone, over all slots.
    pub out_density: f64,
    /// Tombstones not yet reclaimed, out-edges.
    pub out_tombstones: u64,
    /// Slots in the in-edge array, when kept (0 otherwise).
    pub in_slots: usize,
    /// In-edge slots holding an edge or a tombstone, over all slots (0
    /// without in-edges). Pull kernels stream these slots, gaps included.
    pub in_density: f64,
    /// Snapshots alive now.
    pub live_snapshots: usize,
}

impl VcsrStats {
    /// Rebalances per tree level, both arrays added up.
    pub fn rebalances_per_level(&self) -> Vec<u64> {
        let mut levels = self.out_edges.rebalances_per_level.clone();
        if let Some(incoming) = &self.in_edges {
            if levels.len() < incoming.rebalances_per_level.len() {
                levels.resize(incoming.rebalances_per_level.len(), 0);
            }
            for (total, &count) in levels.iter_mut().zip(&incoming.rebalances_per_level) {
                *total += count;
            }
        }
        levels
    }

    /// Elements moved, both arrays added up.
    pub fn elements_moved(&self) -> u64 {
        self.out_edges.elements_moved + self.in_edges.as_ref().map_or(0, |s| s.elements_moved)
    }

    /// Resizes (grows and shrinks), both arrays added up.
    pub fn resizes(&self) -> u64 {
        self.out_edges.resizes() + self.in_edges.as_ref().map_or(0, PmaStats::resizes)
    }
}

/// VCSR (Islam, Dai and Cheng): CSR's vertex array plus an edge array
/// kept as a vertex-centric packed-memory array
/// ([`dyngraph_pma::PackedRuns`]) whose gaps follow vertex degree.
///
/// Each vertex's edges are one contiguous run in insertion order followed
/// by its own gap, so an insert of `u -> v` lands at `start_u + degree_u`
/// (the paper's Algorithm 1) and a scan is a slice walk, as in CSR. The
/// gap policy `P` decides how a redistributed window shares its free slots
/// ([`DegreeProportional`] by default; any [`GapPolicy`] through
/// [`Vcsr::with_policy`]).
///
/// # Cost model
/// - Insert: `O(1)` when the vertex's gap has room; otherwise a shift of
///   neighbouring runs inside the section, or a redistribution of the
///   smallest window within its density bounds, amortized polylogarithmic
///   and rare when future inserts follow current degree (counted in
///   [`Vcsr::stats`]). Batches are grouped by source first. Under
///   [`Semantics::Simple`] the duplicate check scans the source's run,
///   `O(degree)`.
/// - Delete: `O(degree)` to find the oldest live occurrence, then a
///   tombstone (the top bit of the slot's target). Every reader skips
///   tombstones; the next redistribution of their window, or
///   [`Vcsr::compact`], reclaims them (not while a snapshot is alive).
/// - Scan: one slice per vertex with a tombstone-bit test per slot; the
///   gaps after each run are skipped, not read.
/// - Memory: 4 bytes per slot (8 with weights) at a density kept between
///   the pma's root bounds, plus per vertex the degree (4 bytes) and the
///   pma's start, length and section bookkeeping. Doubled by in-edges.
///   [`Vcsr::memory_bytes`] reports it; `BENCHMARKS.md` has bytes per edge
///   against `Csr`.
/// - Snapshot: `O(V)` copy of the degrees; see [`crate::snapshot`].
///
/// Vertex ids must be below `2^31` (the top bit marks tombstones).
///
/// ```
/// use dyngraph_core::{GraphUpdate, OutNeighbors, Semantics};
/// use dyngraph_vcsr::{StoreOptions, Vcsr};
///
/// let mut graph = Vcsr::new(StoreOptions::new(Semantics::Multigraph))?;
/// graph.insert_edge(0, 1)?;
/// graph.insert_edge(0, 5)?; // grows the vertex array to 6 vertices
/// graph.insert_edge(0, 1)?;
/// assert!(graph.delete_edge(0, 1)?); // the oldest 0 -> 1 becomes a tombstone
/// assert_eq!(graph.out_neighbors(0).collect::<Vec<_>>(), [5, 1]);
/// graph.compact(); // reclaims it
/// assert_eq!(graph.stats().out_tombstones, 0);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Vcsr<P = DegreeProportional> {
    pub(crate) out: OutRuns<P>,
    out_degree: Vec<u32>,
    pub(crate) incoming: Option<PackedRuns<Target, P>>,
    in_degree: Vec<u32>,
    edge_count: u64,
    semantics: Semantics,
    vertex_limit: usize,
    pub(crate) history: History,
    /// Counters of edge arrays replaced by a bulk load or [`Vcsr::repack`]
    /// (out, in), added into [`Vcsr::stats`].
    retired: (PmaStats, PmaStats),
    config: VcsrConfig,
}

impl Vcsr<DegreeProportional> {
    /// An empty graph with the default [`DegreeProportional`] policy.
    pub fn new(options: StoreOptions) -> Result<Self> {
        Self::with_policy(options, DegreeProportional::default())
    }
}

impl<P: GapPolicy + Clone> Vcsr<P> {
    /// An empty graph whose edge arrays use `policy` (cloned for the
    /// in-edges). Refuses a vertex limit above `2^31`.
    pub fn with_policy(options: StoreOptions, policy: P) -> Result<Self> {
        Self::with_config(options, policy, VcsrConfig::default())
    }

    /// An empty graph with `policy` and the pma configuration of each edge
    /// array (density thresholds, growth, section size, minimum capacity;
    /// a [`PmaConfig`] applies to both): raising an array's root upper
    /// threshold trades its insert speed for fewer bytes per edge and,
    /// for the in-edges, faster pull kernels. Refuses a vertex limit above
    /// `2^31` and an invalid configuration.
    pub fn with_config(
        options: StoreOptions,
        policy: P,
        config: impl Into<VcsrConfig>,
    ) -> Result<Self> {
        let VcsrConfig {
            out_edges: config,
            in_edges: in_config,
        } = config.into();
        if options.vertex_limit > MAX_VERTICES {
            return Err(Error::InvalidArgument(format!(
                "vertex limit {} exceeds VCSR's 2^31 (the top id bit marks deletions)",
                options.vertex_limit
            )));
        }
        let invalid = |e: PmaError| Error::InvalidArgument(format!("pma configuration: {e}"));
        let out = if options.weighted {
            OutRuns::Weighted(PackedRuns::with_config(policy.clone(), config).map_err(invalid)?)
        } else {
            OutRuns::Plain(PackedRuns::with_config(policy.clone(), config).map_err(invalid)?)
        };
        let incoming = if options.in_edges {
            Some(PackedRuns::with_config(policy, in_config).map_err(invalid)?)
        } else {
            None
        };
        Ok(Vcsr {
            out,
            out_degree: Vec::new(),
            incoming,
            in_degree: Vec::new(),
            edge_count: 0,
            semantics: options.semantics,
            vertex_limit: options.vertex_limit,
            history: History::default(),
            retired: Default::default(),
            config: VcsrConfig {
                out_edges: config,
                in_edges: in_config,
            },
        })
    }
}

impl<P: GapPolicy + Clone> Vcsr<P> {
    /// The pma configurations the graph was built with (the in-edge one
    /// is unused when no in-edges are kept).
    pub fn config(&self) -> VcsrConfig {
        self.config
    }

    /// Whether `src -> dst` exists. `O(degree(src))`.
    pub fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        (src as usize) < self.vertex_count()
            && with_out_runs!(&self.out, runs => find_live(runs, src, dst).is_some())
    }

    /// A detached snapshot of the current edges (see [`crate::snapshot`]):
    /// the graph may keep changing; [`Vcsr::view`] reads it. `O(V)`.
    pub fn snapshot(&self) -> Snapshot {
        self.history.take(
            &self.out_degree,
            self.incoming.as_ref().map(|_| &self.in_degree[..]),
            self.edge_count,
        )
    }

    /// A read view of the graph as it was when `snapshot` was taken.
    /// Fails if the snapshot comes from another graph.
    pub fn view<'a>(&'a self, snapshot: &'a Snapshot) -> Result<SnapshotView<'a, P>> {
        SnapshotView::new(self, snapshot)
    }

    /// Redistributes the edge arrays over their whole length, reclaiming
    /// every tombstone (unless a snapshot is alive), and shrinks them if
    /// they became sparse. `O(slots)`.
    pub fn compact(&mut self) {
        self.before_update();
        with_out_runs!(&mut self.out, runs => runs.compact());
        if let Some(incoming) = &mut self.incoming {
            incoming.compact();
        }
    }

    /// Rebuilds the edge arrays from their live edges at the middle of the
    /// pma's density bounds (the layout a bulk load gives), dropping every
    /// tombstone. Unlike [`Vcsr::compact`], which redistributes in place and
    /// only halves a very sparse array, this also shrinks an array that sits
    /// at the low density right after a growth, so scans touch fewer
    /// cache lines. Needs room for a second copy of the edges while it
    /// runs. While a snapshot is alive it does what `compact` does
    /// (nothing may be reclaimed or renumbered). `O(slots)`.
    pub fn repack(&mut self) -> Result<()> {
        if self.history.live_snapshots() > 0 {
            self.compact();
            return Ok(());
        }
        self.before_update();
        let old = with_out_runs!(&mut self.out, runs => rebuild_live(runs))?;
        add_stats(&mut self.retired.0, &old);
        if let Some(incoming) = &mut self.incoming {
            let old = rebuild_live(incoming)?;
            add_stats(&mut self.retired.1, &old);
        }
        Ok(())
    }

    /// The edge arrays' counters (since construction or the last
    /// [`Vcsr::reset_stats`], across bulk loads and repacks) and shape.
    pub fn stats(&self) -> VcsrStats {
        let (out_edges, out_slots, out_density, stored) = with_out_runs!(&self.out, runs => (
            runs.stats().clone(),
            runs.capacity(),
            runs.density(),
            runs.len(),
        ));
        let mut out_total = self.retired.0.clone();
        add_stats(&mut out_total, &out_edges);
        let in_edges = self.incoming.as_ref().map(|runs| {
            let mut total = self.retired.1.clone();
            add_stats(&mut total, runs.stats());
            total
        });
        VcsrStats {
            out_edges: out_total,
            in_edges,
            out_slots,
            out_density,
            out_tombstones: stored as u64 - self.edge_count,
            in_slots: self.incoming.as_ref().map_or(0, PackedRuns::capacity),
            in_density: self.incoming.as_ref().map_or(0.0, PackedRuns::density),
            live_snapshots: self.history.live_snapshots(),
        }
    }

    /// Resets the pma counters (to measure one phase).
    pub fn reset_stats(&mut self) {
        self.retired = Default::default();
        with_out_runs!(&mut self.out, runs => runs.reset_stats());
        if let Some(incoming) = &mut self.incoming {
            incoming.reset_stats();
        }
    }

    /// Heap bytes held: edge arrays (slots and per-run bookkeeping), the
    /// degree arrays, and the snapshot records.
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        with_out_runs!(&self.out, runs => runs.memory_bytes())
            + self.incoming.as_ref().map_or(0, PackedRuns::memory_bytes)
            + (self.out_degree.capacity() + self.in_degree.capacity()) * size_of::<u32>()
            + self.history.memory_bytes()
    }

    /// [`Vcsr::memory_bytes`] per stored edge (the whole footprint when
    /// empty).
    pub fn bytes_per_edge(&self) -> f64 {
        self.memory_bytes() as f64 / self.edge_count.max(1) as f64
    }

    /// Checks the structure: the pma invariants, that every degree equals
    /// the live slots of its run, that runs past the vertex count are empty,
    /// and that the edge count adds up. For tests; `O(slots)`.
    pub fn validate(&self) -> Result<()> {
        fn check<S: Slot, P: GapPolicy>(
            runs: &PackedRuns<S, P>,
            degrees: &[u32],
            what: &str,
        ) -> Result<u64> {
            runs.validate()
                .map_err(|e| Error::InvalidStructure(format!("{what}: {e}")))?;
            let mut total = 0;
            for (v, run) in runs.runs().enumerate() {
                let live = run.iter().filter(|s| s.target().is_live()).count() as u64;
                let degree = degrees.get(v).copied().map_or(0, u64::from);
                if live != degree {
                    return Err(Error::InvalidStructure(format!(
                        "{what} of vertex {v}: degree {degree} but {live} live slots"
                    )));
                }
                if v >= degrees.len() && !run.is_empty() {
                    return Err(Error::InvalidStructure(format!(
                        "{what}: run {v} past the vertex count is not empty"
                    )));
                }
                total += live;
            }
            Ok(total)
        }
        let out_total =
            with_out_runs!(&self.out, runs => check(runs, &self.out_degree, "out-edges"))?;
        if out_total != self.edge_count {
            return Err(Error::InvalidStructure(format!(
                "edge count {} but {out_total} live out-edges",
                self.edge_count
            )));
        }
        if let Some(incoming) = &self.incoming {
            let in_total = check(incoming, &self.in_degree, "in-edges")?;
            if in_total != self.edge_count {
                return Err(Error::InvalidStructure(format!(
                    "edge count {} but {in_total} live in-edges",
                    self.edge_count
                )));
            }
        }
        Ok(())
    }

    /// Pauses or resumes tombstone reclamation when snapshots appeared or
    /// all went away since the last update.
    fn before_update(&mut self) {
        if let Some(paused) = self.history.sync() {
            fn rule<T>(paused: bool) -> Reclaim<T> {
                if paused {
                    Reclaim::Never
                } else {
                    Reclaim::Tombstones
                }
            }
            with_out_runs!(&mut self.out, runs => runs.set_reclaim(rule(paused)));
            if let Some(incoming) = &mut self.incoming {
                incoming.set_reclaim(rule(paused));
            }
        }
    }

    /// Grows the vertex array to `vertex_count` (one pma run per vertex;
    /// amortized `O(1)` per vertex). Fails only when the pma cannot
    /// address the slots the new runs need.
    fn grow(&mut self, vertex_count: usize) -> Result<()> {
        if vertex_count <= self.out_degree.len() {
            return Ok(());
        }
        // Exactly one run per vertex: the pma grows its per-run arrays by
        // at least an eighth at a time, so ids that arrive one by one in
        // increasing order still cost amortized `O(1)` each, and no memory
        // goes to runs no vertex has.
        let runs = with_out_runs!(&self.out, runs => runs.run_count());
        if vertex_count > runs {
            with_out_runs!(&mut self.out, r => r.add_runs(vertex_count - runs))
                .map_err(pma_error)?;
        }
        if let Some(incoming) = &mut self.incoming {
            let runs = incoming.run_count();
            if vertex_count > runs {
                incoming.add_runs(vertex_count - runs).map_err(pma_error)?;
            }
        }
        resize_modestly(&mut self.out_degree, vertex_count);
        if self.incoming.is_some() {
            resize_modestly(&mut self.in_degree, vertex_count);
        }
        Ok(())
    }

    /// Appends `src -> dst` to the out-edges only (ids already checked and
    /// the graph grown); `false` for a simple-graph duplicate.
    fn push_out(&mut self, src: VertexId, dst: VertexId, weight: Weight) -> Result<bool> {
        let duplicate = self.semantics == Semantics::Simple
            && with_out_runs!(&self.out, runs => find_live(runs, src, dst).is_some());
        if duplicate {
            return Ok(false);
        }
        with_out_runs!(&mut self.out, runs => runs.push(src as usize, Slot::new(dst, weight)))
            .map_err(pma_error)?;
        self.out_degree[src as usize] += 1;
        self.edge_count += 1;
        Ok(true)
    }

    fn push_in(&mut self, src: VertexId, dst: VertexId) -> Result<()> {
        if let Some(incoming) = &mut self.incoming {
            incoming
                .push(dst as usize, Target(src))
                .map_err(pma_error)?;
            self.in_degree[dst as usize] += 1;
        }
        Ok(())
    }

    fn insert_one(&mut self, src: VertexId, dst: VertexId, weight: Weight) -> Result<bool> {
        check_limit(self.vertex_limit, [src, dst])?;
        self.before_update();
        self.grow(src.max(dst) as usize + 1)?;
        let added = self.push_out(src, dst, weight)?;
        if added {
            self.push_in(src, dst)?;
        }
        Ok(added)
    }

    /// The batch path into an empty edge array: the arrays are laid out
    /// once from the grouped batch ([`PackedRuns::from_runs`]) instead of
    /// taking the edges one by one, which for a batch grouped by source is
    /// the worst case of any gap policy (every vertex's edges arrive
    /// together).
    fn bulk_load(&mut self, mut batch: Vec<WeightedEdge>) -> Result<UpdateReport> {
        if self.semantics == Semantics::Simple {
            // Keep each source's first occurrence of a destination.
            let mut seen = std::collections::HashSet::new();
            batch.retain(|e| seen.insert((e.src, e.dst)));
        }
        let run_count = with_out_runs!(&self.out, runs => runs.run_count());
        let starts = run_starts(&batch, run_count, |e| e.src);
        let old = with_out_runs!(&mut self.out, runs => bulk_build(runs, &starts, &batch, |e| Slot::new(e.dst, e.weight)))?;
        add_stats(&mut self.retired.0, &old);
        for edge in &batch {
            self.out_degree[edge.src as usize] += 1;
        }
        if let Some(incoming) = &mut self.incoming {
            if incoming.is_empty() {
                batch.sort_by_key(|e| e.dst);
                let starts = run_starts(&batch, incoming.run_count(), |e| e.dst);
                let old = bulk_build(incoming, &starts, &batch, |e| Target(e.src))?;
                add_stats(&mut self.retired.1, &old);
                for edge in &batch {
                    self.in_degree[edge.dst as usize] += 1;
                }
            } else {
                // Out-edges empty but in-edges holding tombstones: append.
                for edge in &batch {
                    incoming
                        .push(edge.dst as usize, Target(edge.src))
                        .map_err(pma_error)?;
                    self.in_degree[edge.dst as usize] += 1;
                }
            }
        }
        self.edge_count += batch.len() as u64;
        Ok(UpdateReport {
            edges_added: batch.len() as u64,
            edges_removed: 0,
        })
    }

    /// The batch path: out-edges grouped by source (arrival order kept
    /// within a source, so the result equals inserting one at a time), then
    /// the added edges' in-edges grouped by destination.
    fn insert_batch(
        &mut self,
        edges: impl ExactSizeIterator<Item = WeightedEdge> + Clone,
    ) -> Result<UpdateReport> {
        let Some(max) = edges.clone().map(|e| e.src.max(e.dst)).max() else {
            return Ok(UpdateReport::default());
        };
        check_limit(self.vertex_limit, [max])?;
        self.before_update();
        self.grow(max as usize + 1)?;
        let mut batch: Vec<WeightedEdge> = edges.collect();
        batch.sort_by_key(|e| e.src); // stable: arrival order within a source
        if with_out_runs!(&self.out, runs => runs.is_empty()) {
            return self.bulk_load(batch);
        }
        let keep_in_edges = self.incoming.is_some();
        let mut report = UpdateReport::default();
        let mut added = Vec::new();
        for edge in &batch {
            if self.push_out(edge.src, edge.dst, edge.weight)? {
                report.edges_added += 1;
                if keep_in_edges {
                    added.push(edge.edge());
                }
            }
        }
        added.sort_by_key(|e| e.dst);
        for edge in &added {
            self.push_in(edge.src, edge.dst)?;
        }
        Ok(report)
    }
}

impl<P: GapPolicy + Clone> Vcsr<P> {
    fn delete_one(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        let n = self.vertex_count();
        if src as usize >= n || dst as usize >= n {
            return Ok(false);
        }
        self.before_update();
        let Some(index) = with_out_runs!(&self.out, runs => find_live(runs, src, dst)) else {
            return Ok(false);
        };
        with_out_runs!(&mut self.out, runs => tombstone(runs, src, index));
        self.history.record_delete(false, src, index);
        self.out_degree[src as usize] -= 1;
        if let Some(incoming) = &mut self.incoming {
            let index = find_live(incoming, dst, src).ok_or_else(|| {
                Error::InvalidStructure(format!("in-edge {dst} <- {src} missing"))
            })?;
            tombstone(incoming, dst, index);
            self.history.record_delete(true, dst, index);
            self.in_degree[dst as usize] -= 1;
        }
        self.history.tick();
        self.edge_count -= 1;
        Ok(true)
    }
}

/// The live slots of one run.
#[derive(Clone, Debug)]
enum LiveSlots<'a> {
    /// A run without tombstones (its length equals the degree): every
    /// slot is live and the walk has no test at all, which is what keeps
    /// a scan as fast as CSR's.
    Clean(std::slice::Iter<'a, Target>),
    Plain(std::slice::Iter<'a, Target>),
    Weighted(std::slice::Iter<'a, WeightedTarget>),
}

/// The walk over an unweighted run holding `degree` live slots.
#[inline]
fn live_slots(run: &[Target], degree: usize) -> LiveSlots<'_> {
    if run.len() == degree {
        LiveSlots::Clean(run.iter())
    } else {
        LiveSlots::Plain(run.iter())
    }
}

/// Neighbours of one vertex of a [`Vcsr`]: a walk over its run that skips
/// tombstones.
#[derive(Clone, Debug)]
pub struct VcsrNeighbors<'a>(LiveSlots<'a>);

impl Iterator for VcsrNeighbors<'_> {
    type Item = VertexId;

    #[inline]
    fn next(&mut self) -> Option<VertexId> {
        match &mut self.0 {
            LiveSlots::Clean(slots) => slots.next().map(|t| t.0),
            LiveSlots::Plain(slots) => slots.find(|t| t.is_live()).map(|t| t.0),
            LiveSlots::Weighted(slots) => slots.find(|s| s.target.is_live()).map(|s| s.target.0),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            LiveSlots::Clean(slots) => (slots.len(), Some(slots.len())),
            LiveSlots::Plain(slots) => (0, Some(slots.len())),
            LiveSlots::Weighted(slots) => (0, Some(slots.len())),
        }
    }

    /// One dispatch per vertex, not per edge: `sum`, `for_each` and friends
    /// compile to a plain slice loop.
    #[inline]
    fn fold<B, F: FnMut(B, VertexId) -> B>(self, init: B, mut f: F) -> B {
        match self.0 {
            LiveSlots::Clean(slots) => slots.fold(init, |acc, t| f(acc, t.0)),
            LiveSlots::Plain(slots) => {
                slots.fold(init, |acc, t| if t.is_live() { f(acc, t.0) } else { acc })
            }
            LiveSlots::Weighted(slots) => slots.fold(init, |acc, s| {
                if s.target.is_live() {
                    f(acc, s.target.0)
                } else {
                    acc
                }
            }),
        }
    }
}

/// `(neighbour, weight)` of one vertex of a [`Vcsr`]; weight 1 when none
/// are kept.
#[derive(Clone, Debug)]
pub struct VcsrWeightedNeighbors<'a>(LiveSlots<'a>);

impl Iterator for VcsrWeightedNeighbors<'_> {
    type Item = (VertexId, Weight);

    #[inline]
    fn next(&mut self) -> Option<(VertexId, Weight)> {
        match &mut self.0 {
            LiveSlots::Clean(slots) => slots.next().map(|t| (t.0, 1.0)),
            LiveSlots::Plain(slots) => slots.find(|t| t.is_live()).map(|t| (t.0, 1.0)),
            LiveSlots::Weighted(slots) => slots
                .find(|s| s.target.is_live())
                .map(|s| (s.target.0, s.weight)),
        }
    }
}

impl<P: GapPolicy + Clone> Graph for Vcsr<P> {
    #[inline]
    fn vertex_count(&self) -> usize {
        self.out_degree.len()
    }

    fn edge_count(&self) -> u64 {
        self.edge_count
    }

    fn semantics(&self) -> Semantics {
        self.semantics
    }
}

impl<P: GapPolicy + Clone> Vcsr<P> {
    #[inline]
    fn live_out(&self, v: VertexId) -> LiveSlots<'_> {
        match &self.out {
            OutRuns::Plain(runs) => {
                let run = runs.run(v as usize).unwrap_or(&[]);
                // With no tombstone anywhere every run is clean, and a scan
                // need not read the degree array at all.
                if runs.len() as u64 == self.edge_count {
                    LiveSlots::Clean(run.iter())
                } else {
                    live_slots(run, self.out_degree[v as usize] as usize)
                }
            }
            OutRuns::Weighted(runs) => {
                LiveSlots::Weighted(runs.run(v as usize).unwrap_or(&[]).iter())
            }
        }
    }
}

impl<P: GapPolicy + Clone> OutNeighbors for Vcsr<P> {
    type OutNeighbors<'a>
        = VcsrNeighbors<'a>
    where
        Self: 'a;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        u64::from(self.out_degree[v as usize])
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> VcsrNeighbors<'_> {
        VcsrNeighbors(self.live_out(v))
    }
}

impl<P: GapPolicy + Clone> WeightedOutNeighbors for Vcsr<P> {
    type WeightedOutNeighbors<'a>
        = VcsrWeightedNeighbors<'a>
    where
        Self: 'a;

    fn has_weights(&self) -> bool {
        matches!(self.out, OutRuns::Weighted(_))
    }

    #[inline]
    fn out_neighbors_weighted(&self, v: VertexId) -> VcsrWeightedNeighbors<'_> {
        VcsrWeightedNeighbors(self.live_out(v))
    }
}

impl<P: GapPolicy + Clone> InNeighbors for Vcsr<P> {
    type InNeighbors<'a>
        = VcsrNeighbors<'a>
    where
        Self: 'a;

    fn has_in_edges(&self) -> bool {
        self.incoming.is_some()
    }

    #[inline]
    fn in_degree(&self, v: VertexId) -> u64 {
        assert!(
            (v as usize) < self.vertex_count(),
            "vertex {v} out of range"
        );
        self.in_degree.get(v as usize).copied().map_or(0, u64::from)
    }

    #[inline]
    fn in_neighbors(&self, v: VertexId) -> VcsrNeighbors<'_> {
        assert!(
            (v as usize) < self.vertex_count(),
            "vertex {v} out of range"
        );
        let Some(runs) = &self.incoming else {
            return VcsrNeighbors(LiveSlots::Clean([].iter()));
        };
        let slots = runs.run(v as usize).unwrap_or(&[]);
        // As in `live_out`: no tombstone anywhere, no degree lookup.
        if runs.len() as u64 == self.edge_count {
            VcsrNeighbors(LiveSlots::Clean(slots.iter()))
        } else {
            VcsrNeighbors(live_slots(
                slots,
                self.in_degree.get(v as usize).map_or(0, |&d| d as usize),
            ))
        }
    }
}

impl<P: GapPolicy + Clone> GraphUpdate for Vcsr<P> {
    fn insert_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.insert_one(src, dst, 1.0)
    }

    fn insert_weighted_edge(
        &mut self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) -> Result<bool> {
        self.insert_one(src, dst, weight)
    }

    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.delete_one(src, dst)
    }

    fn insert_edges(&mut self, edges: &[Edge]) -> Result<UpdateReport> {
        self.insert_batch(edges.iter().map(|e| WeightedEdge::new(e.src, e.dst, 1.0)))
    }

    fn insert_weighted_edges(&mut self, edges: &[WeightedEdge]) -> Result<UpdateReport> {
        self.insert_batch(edges.iter().copied())
    }

    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        let start = self.vertex_count();
        let end = add_vertices_end(start, count, self.vertex_limit)?;
        self.grow(end)?;
        Ok(start as VertexId..end as VertexId)
    }

    fn vertex_limit(&self) -> usize {
        self.vertex_limit
    }
}
