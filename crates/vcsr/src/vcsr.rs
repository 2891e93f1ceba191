//! `Vcsr`: CSR's vertex array over a vertex-centric packed-memory array.

use crate::batch::{add_vertices_end, checked_vertex_bound};
use crate::options::{BatchUpdates, VcsrOptions};
use crate::slot::{MAX_VERTICES, Slot, TOMBSTONE, Target, WeightedTarget};
use crate::snapshot::{History, VcsrSnapshot, VcsrView};
use dyngraph_core::{
    Capability, EdgeSource, EdgeWeights, Error, FromEdges, Graph, GraphStore, GraphUpdate, InEdges,
    InNeighbors, MaintenanceStats, OutNeighbors, Result, Semantics, Snapshots, UpdateReport,
    VertexId, Weight, WeightedNeighbors, check_limit,
};
use dyngraph_pma::{DegreeProportional, GapPolicy, PackedRuns, PmaError, PmaStats, Reclaim};
use std::fmt;
use std::ops::Range;

mod merged;

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

/// Runs `$body` with `$arrays` bound to an [`EdgeArrays`] over `$graph`'s
/// fields, for whichever out-edge slot type is in use, so the update paths
/// are written once for both.
macro_rules! with_edge_arrays {
    ($graph:expr, $arrays:ident => $body:expr) => {{
        let graph = $graph;
        match &mut graph.out {
            OutRuns::Plain(out) => {
                let mut $arrays = EdgeArrays {
                    out,
                    out_degree: &mut graph.out_degree,
                    incoming: graph.incoming.as_mut(),
                    in_degree: &mut graph.in_degree,
                    simple: graph.options.store.semantics == Semantics::Simple,
                };
                $body
            }
            OutRuns::Weighted(out) => {
                let mut $arrays = EdgeArrays {
                    out,
                    out_degree: &mut graph.out_degree,
                    incoming: graph.incoming.as_mut(),
                    in_degree: &mut graph.in_degree,
                    simple: graph.options.store.semantics == Semantics::Simple,
                };
                $body
            }
        }
    }};
}

fn pma_error(error: PmaError) -> Error {
    Error::InvalidStructure(format!("VCSR edge array: {error}"))
}

/// The degree in a per-vertex array; 0 for a vertex outside the graph,
/// which the contract reads as isolated.
#[inline]
pub(crate) fn degree_or_zero(degrees: &[u32], v: VertexId) -> u32 {
    degrees.get(v as usize).copied().unwrap_or(0)
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

/// Replaces `runs` by an array laid out in one pass from `slots`, grouped
/// by run (`starts[r]..starts[r + 1]` is run `r`), at the middle of the
/// density bounds. Keeps the policy, options and reclaim rule; returns the
/// replaced array's counters. On an error `runs` is unchanged.
fn replace_with_runs<S: Slot, P: GapPolicy + Clone>(
    runs: &mut PackedRuns<S, P>,
    slots: &[S],
    starts: &[usize],
) -> Result<PmaStats> {
    let run_count = runs.run_count();
    let mut fresh = PackedRuns::from_runs(
        runs.policy().clone(),
        *runs.config(),
        (0..run_count).map(|r| slots[starts[r]..starts[r + 1]].iter().copied()),
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

/// Turns per-run counts (`counts[r + 1]` = run `r`'s length, `counts[0]`
/// = 0) into run starts, in place.
fn counts_to_starts(counts: &mut [usize]) {
    for r in 1..counts.len() {
        counts[r] += counts[r - 1];
    }
}

/// Under simple semantics: keeps the first slot of each run pointing to
/// each target, moving kept slots down and fixing `starts`. `O(slots +
/// runs)`; every target must be below the run count.
fn keep_first_of_each_target<S: Slot>(slots: &mut Vec<S>, starts: &mut [usize]) {
    let run_count = starts.len() - 1;
    // `seen[t] == r + 1`: target `t` already kept in run `r`. One stamp
    // array for all runs, so no clearing between them.
    let mut seen = vec![0u32; run_count];
    let mut write = 0;
    let mut read_start = starts[0];
    for r in 0..run_count {
        let read_end = starts[r + 1];
        starts[r] = write;
        let stamp = r as u32 + 1;
        for read in read_start..read_end {
            let slot = slots[read];
            let seen_at = &mut seen[slot.target().0 as usize];
            if *seen_at != stamp {
                *seen_at = stamp;
                slots[write] = slot;
                write += 1;
            }
        }
        read_start = read_end;
    }
    starts[run_count] = write;
    slots.truncate(write);
}

/// Batches up to this many edges go in one edge at a time: grouping them
/// by source (two buffers, two stable sorts) costs more than the order
/// it gives the pushes saves below it. Measured with the `clone_cost`
/// example of `dyngraph-benches` (grouped / one at a time): on Kronecker
/// 20, 1.66× at 84 edges, 1.34× at 839, 1.03× at 8,389, 0.83× at 83,886;
/// on CollegeMsg 2.0× at 598 and 1.55× at 5,984.
const SMALL_BATCH: usize = 1 << 14;

/// The edge arrays of a [`Vcsr`] with the out-edge slot type `S` fixed:
/// the update paths, written once for plain and weighted slots.
struct EdgeArrays<'g, S, P> {
    out: &'g mut PackedRuns<S, P>,
    out_degree: &'g mut Vec<u32>,
    incoming: Option<&'g mut PackedRuns<Target, P>>,
    in_degree: &'g mut Vec<u32>,
    simple: bool,
}

/// What a one-pass bulk load did.
struct BulkLoaded {
    added: u64,
    /// Counters of the arrays it replaced (out, in).
    retired_out: PmaStats,
    retired_in: Option<PmaStats>,
}

impl<S: Slot, P: GapPolicy + Clone> EdgeArrays<'_, S, P> {
    /// Appends `src -> slot` to the out-edges only (ids already checked and
    /// the graph grown); `false` for a simple-graph duplicate.
    #[inline]
    fn push_out(&mut self, src: VertexId, slot: S) -> Result<bool> {
        if self.simple && find_live(self.out, src, slot.target().0).is_some() {
            return Ok(false);
        }
        self.out.push(src as usize, slot).map_err(pma_error)?;
        self.out_degree[src as usize] += 1;
        Ok(true)
    }

    #[inline]
    fn push_in(&mut self, src: VertexId, dst: VertexId) -> Result<()> {
        if let Some(incoming) = self.incoming.as_deref_mut() {
            incoming
                .push(dst as usize, Target(src))
                .map_err(pma_error)?;
            self.in_degree[dst as usize] += 1;
        }
        Ok(())
    }

    /// Inserts a small batch one edge at a time, in order (ids already
    /// checked and the graph grown). Returns the edges added.
    fn insert_each<E: EdgeSource + ?Sized>(&mut self, edges: &E) -> Result<u64> {
        let mut added = 0;
        let mut failure = None;
        edges.for_each_in(0..edges.len(), |src, dst, weight| {
            if failure.is_some() {
                return;
            }
            let pushed = self.push_out(src, S::new(dst, weight)).and_then(|pushed| {
                if pushed {
                    self.push_in(src, dst)?;
                }
                Ok(pushed)
            });
            match pushed {
                Ok(pushed) => added += u64::from(pushed),
                Err(error) => failure = Some(error),
            }
        });
        failure.map_or(Ok(added), Err)
    }

    /// Inserts a batch into non-empty arrays: the out-edges grouped by
    /// source (a stable sort of an internal buffer of ready slots, so
    /// arrival order is kept within a source and the result equals
    /// inserting one at a time), then the added edges' in-edges grouped by
    /// destination. Returns the edges added.
    fn insert_grouped<E: EdgeSource + ?Sized>(&mut self, edges: &E) -> Result<u64> {
        let mut grouped: Vec<(VertexId, S)> = Vec::with_capacity(edges.len());
        edges.for_each_in(0..edges.len(), |src, dst, weight| {
            grouped.push((src, S::new(dst, weight)));
        });
        grouped.sort_by_key(|&(src, _)| src);
        let keep_in_edges = self.incoming.is_some();
        let mut added_in: Vec<(VertexId, VertexId)> = Vec::new();
        let mut added = 0;
        for &(src, slot) in &grouped {
            if self.push_out(src, slot)? {
                added += 1;
                if keep_in_edges {
                    added_in.push((slot.target().0, src));
                }
            }
        }
        drop(grouped);
        added_in.sort_by_key(|&(dst, _)| dst);
        for &(dst, src) in &added_in {
            self.push_in(src, dst)?;
        }
        Ok(added)
    }

    /// The batch path into an empty out-edge array: the arrays are laid out
    /// once ([`PackedRuns::from_runs`]) from the batch grouped by source
    /// with a counting sort, instead of taking the edges one by one, which
    /// for a batch grouped by source is the worst case of any gap policy
    /// (every vertex's edges arrive together). The batch is read in place
    /// twice (count, scatter); the scatter buffer holds the finished slots.
    fn bulk_load<E: EdgeSource + ?Sized>(&mut self, edges: &E) -> Result<BulkLoaded> {
        let run_count = self.out.run_count();
        let mut starts = vec![0usize; run_count + 1];
        edges.for_each_in(0..edges.len(), |src, _, _| starts[src as usize + 1] += 1);
        counts_to_starts(&mut starts);
        let mut slots = vec![S::default(); edges.len()];
        let mut cursor = starts[..run_count].to_vec();
        edges.for_each_in(0..edges.len(), |src, dst, weight| {
            let at = &mut cursor[src as usize];
            slots[*at] = S::new(dst, weight);
            *at += 1;
        });
        drop(cursor);
        if self.simple {
            keep_first_of_each_target(&mut slots, &mut starts);
        }
        let retired_out = replace_with_runs(self.out, &slots, &starts)?;
        for (degree, bounds) in self.out_degree.iter_mut().zip(starts.windows(2)) {
            *degree += (bounds[1] - bounds[0]) as u32;
        }
        let added = slots.len() as u64;
        let mut retired_in = None;
        if let Some(incoming) = self.incoming.as_deref_mut() {
            if incoming.is_empty() {
                // Transpose the finished out-edges with a second counting
                // sort: each in-list comes out ordered by source.
                let mut in_starts = vec![0usize; run_count + 1];
                for slot in &slots {
                    in_starts[slot.target().0 as usize + 1] += 1;
                }
                counts_to_starts(&mut in_starts);
                let mut sources = vec![Target::default(); slots.len()];
                let mut cursor = in_starts[..run_count].to_vec();
                for (src, bounds) in starts.windows(2).enumerate() {
                    for slot in &slots[bounds[0]..bounds[1]] {
                        let at = &mut cursor[slot.target().0 as usize];
                        sources[*at] = Target(src as VertexId);
                        *at += 1;
                    }
                }
                drop(cursor);
                retired_in = Some(replace_with_runs(incoming, &sources, &in_starts)?);
                for (degree, bounds) in self.in_degree.iter_mut().zip(in_starts.windows(2)) {
                    *degree += (bounds[1] - bounds[0]) as u32;
                }
            } else {
                // Out-edges empty but in-edges holding tombstones: append.
                for (src, bounds) in starts.windows(2).enumerate() {
                    for slot in &slots[bounds[0]..bounds[1]] {
                        let dst = slot.target().0;
                        incoming
                            .push(dst as usize, Target(src as VertexId))
                            .map_err(pma_error)?;
                        self.in_degree[dst as usize] += 1;
                    }
                }
            }
        }
        Ok(BulkLoaded {
            added,
            retired_out,
            retired_in,
        })
    }
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

    /// Rebalances over all levels, both arrays added up.
    pub fn rebalances(&self) -> u64 {
        self.out_edges.rebalances() + self.in_edges.as_ref().map_or(0, PmaStats::rebalances)
    }

    /// Elements moved, both arrays added up.
    pub fn elements_moved(&self) -> u64 {
        self.out_edges.elements_moved + self.in_edges.as_ref().map_or(0, |s| s.elements_moved)
    }

    /// Resizes (grows and shrinks), both arrays added up.
    pub fn resizes(&self) -> u64 {
        self.out_edges.resizes() + self.in_edges.as_ref().map_or(0, PmaStats::resizes)
    }

    /// The counters [`GraphStore::maintenance`] reports: both arrays added
    /// up.
    pub fn maintenance(&self) -> MaintenanceStats {
        MaintenanceStats {
            rebalances: self.rebalances(),
            elements_moved: self.elements_moved(),
            resizes: self.resizes(),
        }
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
/// [`VcsrOptions::policy`]).
///
/// In-edges and weights are options ([`VcsrOptions::store`]); reading them
/// goes through [`InEdges::in_edges`] ([`VcsrInEdges`]) and
/// [`EdgeWeights::edge_weights`] ([`VcsrWeights`]), which fail with
/// [`Error::MissingCapability`] on a graph built without them.
///
/// # Cost model
/// - Insert: `O(1)` when the vertex's gap has room; otherwise a shift of
///   neighbouring runs inside the section, or a redistribution of the
///   smallest window within its density bounds, amortized polylogarithmic
///   and rare when future inserts follow current degree (counted in
///   [`Vcsr::stats`]). A batch of more than
///   [`VcsrOptions::merge_batches_above`] edges is grouped by vertex in
///   parallel and merged into each edge array in one pass
///   ([`BatchUpdates::Merged`]): runs with room take their edges in place,
///   each window the batch overflows is laid out again once (disjoint
///   windows in parallel), or the whole array is rebuilt in one parallel
///   pass when the windows would cover half of it or it must grow; every
///   list, in-lists included, gets the batch in arrival order (under
///   simple semantics a batch's in-edges arrive in source order). A batch
///   into an empty edge array (and [`FromEdges::from_edges`]) lays the
///   arrays out in one pass, in-lists in source order. Under
///   [`Semantics::Simple`] the duplicate check scans the source's run,
///   `O(degree)`.
/// - Delete: `O(degree)` to find the oldest live occurrence, then a
///   tombstone (the top bit of the slot's target); a large batch is
///   grouped by source and tombstoned run by run in parallel. Every reader skips
///   tombstones; the next redistribution of their window, or
///   [`Vcsr::compact`], reclaims them (not while a snapshot is alive).
/// - Scan: one slice per vertex; while the array holds no tombstone (or
///   the vertex's run holds none) the walk tests nothing per slot, as in
///   CSR; otherwise a tombstone-bit test per slot. The gaps after each run
///   are skipped, not read.
/// - Memory: 4 bytes per slot (8 with weights) at a density kept between
///   the pma's root bounds, plus per vertex the degree (4 bytes) and the
///   pma's start, length and section bookkeeping. Doubled by in-edges.
///   [`GraphStore::memory_bytes`] reports it; `BENCHMARKS.md` has bytes per
///   edge against `Csr`.
/// - Snapshot: `O(V)` copy of the degrees (DGAP's degree cache); while one
///   is alive, no tombstone is reclaimed and each delete records its time.
///   See [`crate::snapshot`].
///
/// Vertex ids must be below `2^31` (the top bit marks tombstones).
///
/// ```
/// use dyngraph_core::{GraphUpdate, OutNeighbors, Semantics, StoreOptions};
/// use dyngraph_vcsr::{Vcsr, VcsrOptions};
///
/// let mut graph = Vcsr::new(VcsrOptions::from(StoreOptions::new(Semantics::Multigraph)))?;
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
    pub(crate) out_degree: Vec<u32>,
    pub(crate) incoming: Option<PackedRuns<Target, P>>,
    pub(crate) in_degree: Vec<u32>,
    edge_count: u64,
    pub(crate) history: History,
    /// Counters of edge arrays replaced by a bulk load or [`Vcsr::repack`]
    /// (out, in), added into [`Vcsr::stats`].
    retired: (PmaStats, PmaStats),
    options: VcsrOptions<P>,
}

impl<P: GapPolicy + Clone> Vcsr<P> {
    /// An empty graph built with `options`: semantics, weights, in-edges
    /// and vertex limit, the gap policy (cloned for the in-edges) and each
    /// edge array's pma options. Refuses a vertex limit above `2^31` and
    /// invalid pma options.
    ///
    /// `VcsrOptions::default()` and `VcsrOptions::from(StoreOptions)` pin
    /// the default [`DegreeProportional`] policy, so
    /// `Vcsr::new(VcsrOptions::default())` needs no type annotation.
    pub fn new(options: VcsrOptions<P>) -> Result<Self> {
        let store = options.store;
        if store.vertex_limit > MAX_VERTICES {
            return Err(Error::InvalidArgument(format!(
                "vertex limit {} exceeds VCSR's 2^31 (the top id bit marks deletions)",
                store.vertex_limit
            )));
        }
        let invalid = |e: PmaError| Error::InvalidArgument(format!("pma options: {e}"));
        let policy = options.policy.clone();
        let out_options = options.out_edge_array;
        let out = if store.weighted {
            OutRuns::Weighted(
                PackedRuns::with_config(policy.clone(), out_options).map_err(invalid)?,
            )
        } else {
            OutRuns::Plain(PackedRuns::with_config(policy.clone(), out_options).map_err(invalid)?)
        };
        let incoming = if store.in_edges {
            Some(PackedRuns::with_config(policy, options.in_edge_array).map_err(invalid)?)
        } else {
            None
        };
        Ok(Vcsr {
            out,
            out_degree: Vec::new(),
            incoming,
            in_degree: Vec::new(),
            edge_count: 0,
            history: History::default(),
            retired: Default::default(),
            options,
        })
    }

    /// The options the graph was built with (the policy as given; the edge
    /// arrays keep their own copies, which a stateful policy updates).
    pub fn options(&self) -> &VcsrOptions<P> {
        &self.options
    }

    /// Whether `src -> dst` exists. `O(degree(src))`.
    pub fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        (src as usize) < self.vertex_count()
            && with_out_runs!(&self.out, runs => find_live(runs, src, dst).is_some())
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
    /// degree arrays, and the snapshot records (a snapshot's own degree
    /// copy is its memory, not the graph's).
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
    /// all went away since the last update. Every path that changes the
    /// arrays calls it first: a snapshot relies on no tombstone being
    /// reclaimed (and no run index shifting) while it lives.
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

    fn insert_one(&mut self, src: VertexId, dst: VertexId, weight: Weight) -> Result<bool> {
        check_limit(self.options.store.vertex_limit, [src, dst])?;
        self.before_update();
        self.grow(src.max(dst) as usize + 1)?;
        let added = with_edge_arrays!(&mut *self, arrays => {
            let added = arrays.push_out(src, Slot::new(dst, weight))?;
            if added {
                arrays.push_in(src, dst)?;
            }
            added
        });
        self.edge_count += u64::from(added);
        Ok(added)
    }

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

    /// Whether the out-edge array holds no slot at all (a batch into it is
    /// a bulk load).
    #[inline]
    fn out_is_empty(&self) -> bool {
        with_out_runs!(&self.out, runs => runs.is_empty())
    }

    /// Whether the out-edge array holds no tombstone at all, so every run
    /// is read as a clean slice without looking at its degree.
    #[inline]
    fn out_is_clean(&self) -> bool {
        with_out_runs!(&self.out, runs => runs.len() as u64 == self.edge_count)
    }
}

/// The batch paths: the merged one may work on both edge arrays at once,
/// on two threads, so the policy must move between them.
impl<P: GapPolicy + Clone + Send> Vcsr<P> {
    /// A batch whose largest id is `max` (`None`: no edges), read in place:
    /// one pass into an empty out-edge array, grouped by source otherwise.
    /// Every id is checked before anything changes.
    fn insert_batch<E: EdgeSource + ?Sized>(
        &mut self,
        edges: &E,
        max: Option<VertexId>,
    ) -> Result<UpdateReport> {
        let Some(max) = max else {
            return Ok(UpdateReport::default());
        };
        check_limit(self.options.store.vertex_limit, [max])?;
        self.before_update();
        self.grow(max as usize + 1)?;
        let added = if self.out_is_empty() {
            let loaded = with_edge_arrays!(&mut *self, arrays => arrays.bulk_load(edges))?;
            add_stats(&mut self.retired.0, &loaded.retired_out);
            if let Some(retired_in) = &loaded.retired_in {
                add_stats(&mut self.retired.1, retired_in);
            }
            loaded.added
        } else if self.takes_merged(edges.len()) {
            with_edge_arrays!(&mut *self, arrays => arrays.insert_merged(edges))?
        } else if edges.len() <= SMALL_BATCH {
            // Up to `SMALL_BATCH` edges: the single-edge path per edge,
            // without the grouping buffers and their sorts.
            with_edge_arrays!(&mut *self, arrays => arrays.insert_each(edges))?
        } else {
            with_edge_arrays!(&mut *self, arrays => arrays.insert_grouped(edges))?
        };
        self.edge_count += added;
        Ok(UpdateReport {
            edges_added: added,
            edges_removed: 0,
        })
    }

    /// Whether a batch of `len` edges takes the merged path: asked for,
    /// large enough to pay for its grouping, and numbered in `u32`.
    fn takes_merged(&self, len: usize) -> bool {
        self.options.batch_updates == BatchUpdates::Merged
            && len > self.options.merge_batches_above
            && len <= u32::MAX as usize
    }

    /// A batch of deletes the merged way (see [`BatchUpdates::Merged`]).
    fn delete_merged<E: EdgeSource + ?Sized>(&mut self, edges: &E) -> Result<UpdateReport> {
        self.before_update();
        let record = self.history.records_deletes();
        let (removed, deleted) =
            with_edge_arrays!(&mut *self, arrays => arrays.delete_merged(edges, record))?;
        for (incoming, vertex, index) in deleted {
            self.history.record_delete(incoming, vertex, index as usize);
        }
        self.history.tick();
        self.edge_count -= removed;
        Ok(UpdateReport {
            edges_added: 0,
            edges_removed: removed,
        })
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

    /// Always inlined, as [`crate::VcsrViewNeighbors`]'s: called once per
    /// edge by a kernel that steps the iterator by hand.
    #[inline(always)]
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

/// The live slots of one weighted run.
#[derive(Clone, Debug)]
enum LiveWeightedSlots<'a> {
    /// No tombstone in the run: no test per slot.
    Clean(std::slice::Iter<'a, WeightedTarget>),
    Tested(std::slice::Iter<'a, WeightedTarget>),
}

/// `(neighbour, weight)` of one vertex of a weighted [`Vcsr`]: what
/// [`VcsrWeights`] walks.
#[derive(Clone, Debug)]
pub struct VcsrWeightedNeighbors<'a>(LiveWeightedSlots<'a>);

impl Iterator for VcsrWeightedNeighbors<'_> {
    type Item = (VertexId, Weight);

    #[inline]
    fn next(&mut self) -> Option<(VertexId, Weight)> {
        match &mut self.0 {
            LiveWeightedSlots::Clean(slots) => slots.next().map(|s| (s.target.0, s.weight)),
            LiveWeightedSlots::Tested(slots) => slots
                .find(|s| s.target.is_live())
                .map(|s| (s.target.0, s.weight)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            LiveWeightedSlots::Clean(slots) => (slots.len(), Some(slots.len())),
            LiveWeightedSlots::Tested(slots) => (0, Some(slots.len())),
        }
    }

    /// One dispatch per vertex, as [`VcsrNeighbors`]' `fold`.
    #[inline]
    fn fold<B, F: FnMut(B, (VertexId, Weight)) -> B>(self, init: B, mut f: F) -> B {
        match self.0 {
            LiveWeightedSlots::Clean(slots) => {
                slots.fold(init, |acc, s| f(acc, (s.target.0, s.weight)))
            }
            LiveWeightedSlots::Tested(slots) => slots.fold(init, |acc, s| {
                if s.target.is_live() {
                    f(acc, (s.target.0, s.weight))
                } else {
                    acc
                }
            }),
        }
    }
}

/// The in-edges of a [`Vcsr`] built with them: what [`InEdges::in_edges`]
/// returns. A `Copy` handle of references, so a pull kernel's loop pays no
/// capability check per vertex.
pub struct VcsrInEdges<'a, P = DegreeProportional> {
    runs: &'a PackedRuns<Target, P>,
    degrees: &'a [u32],
    /// No tombstone anywhere in the in-edge array (decided once, when the
    /// handle is made): every run is a clean slice and the degree array is
    /// not read by a scan.
    clean: bool,
}

impl<P> Clone for VcsrInEdges<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for VcsrInEdges<'_, P> {}

impl<P> fmt::Debug for VcsrInEdges<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VcsrInEdges")
            .field("vertex_count", &self.degrees.len())
            .field("clean", &self.clean)
            .finish_non_exhaustive()
    }
}

impl<'a, P: GapPolicy> InNeighbors for VcsrInEdges<'a, P> {
    type InIter = VcsrNeighbors<'a>;

    #[inline]
    fn in_degree(self, v: VertexId) -> u64 {
        u64::from(degree_or_zero(self.degrees, v))
    }

    #[inline]
    fn in_neighbors(self, v: VertexId) -> VcsrNeighbors<'a> {
        // One run per vertex, so a missing run is an id outside the graph.
        let Some(run) = self.runs.run(v as usize) else {
            return VcsrNeighbors(LiveSlots::Clean([].iter()));
        };
        if self.clean {
            VcsrNeighbors(LiveSlots::Clean(run.iter()))
        } else {
            VcsrNeighbors(live_slots(run, self.degrees[v as usize] as usize))
        }
    }
}

/// The weighted out-edges of a weighted [`Vcsr`]: what
/// [`EdgeWeights::edge_weights`] returns, a `Copy` handle like
/// [`VcsrInEdges`].
pub struct VcsrWeights<'a, P = DegreeProportional> {
    runs: &'a PackedRuns<WeightedTarget, P>,
    degrees: &'a [u32],
    /// No tombstone anywhere in the out-edge array.
    clean: bool,
}

impl<P> Clone for VcsrWeights<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for VcsrWeights<'_, P> {}

impl<P> fmt::Debug for VcsrWeights<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VcsrWeights")
            .field("vertex_count", &self.degrees.len())
            .field("clean", &self.clean)
            .finish_non_exhaustive()
    }
}

impl<'a, P: GapPolicy> WeightedNeighbors for VcsrWeights<'a, P> {
    type WeightedIter = VcsrWeightedNeighbors<'a>;

    #[inline]
    fn out_neighbors_weighted(self, v: VertexId) -> VcsrWeightedNeighbors<'a> {
        let Some(run) = self.runs.run(v as usize) else {
            return VcsrWeightedNeighbors(LiveWeightedSlots::Clean([].iter()));
        };
        if self.clean || run.len() == self.degrees[v as usize] as usize {
            VcsrWeightedNeighbors(LiveWeightedSlots::Clean(run.iter()))
        } else {
            VcsrWeightedNeighbors(LiveWeightedSlots::Tested(run.iter()))
        }
    }
}

impl<P: GapPolicy + Clone> Graph for Vcsr<P> {
    #[inline]
    fn vertex_count(&self) -> usize {
        self.out_degree.len()
    }

    #[inline]
    fn edge_count(&self) -> u64 {
        self.edge_count
    }

    fn semantics(&self) -> Semantics {
        self.options.store.semantics
    }
}

impl<P: GapPolicy + Clone> OutNeighbors for Vcsr<P> {
    type OutIter<'a>
        = VcsrNeighbors<'a>
    where
        Self: 'a;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        u64::from(degree_or_zero(&self.out_degree, v))
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> VcsrNeighbors<'_> {
        match &self.out {
            OutRuns::Plain(runs) => {
                let Some(run) = runs.run(v as usize) else {
                    return VcsrNeighbors(LiveSlots::Clean([].iter()));
                };
                // With no tombstone anywhere every run is clean, and a scan
                // need not read the degree array at all.
                if runs.len() as u64 == self.edge_count {
                    VcsrNeighbors(LiveSlots::Clean(run.iter()))
                } else {
                    VcsrNeighbors(live_slots(run, self.out_degree[v as usize] as usize))
                }
            }
            OutRuns::Weighted(runs) => {
                let Some(run) = runs.run(v as usize) else {
                    return VcsrNeighbors(LiveSlots::Clean([].iter()));
                };
                VcsrNeighbors(LiveSlots::Weighted(run.iter()))
            }
        }
    }
}

impl<P: GapPolicy + Clone + Sync> InEdges for Vcsr<P> {
    type InHandle<'a>
        = VcsrInEdges<'a, P>
    where
        Self: 'a;

    #[inline]
    fn in_edges(&self) -> Result<VcsrInEdges<'_, P>> {
        match &self.incoming {
            Some(runs) => Ok(VcsrInEdges {
                runs,
                degrees: &self.in_degree,
                // As in `out_neighbors`: no tombstone anywhere, no degree
                // lookup.
                clean: runs.len() as u64 == self.edge_count,
            }),
            None => Err(Error::missing("Vcsr", Capability::InEdges)),
        }
    }
}

impl<P: GapPolicy + Clone + Sync> EdgeWeights for Vcsr<P> {
    type WeightHandle<'a>
        = VcsrWeights<'a, P>
    where
        Self: 'a;

    #[inline]
    fn edge_weights(&self) -> Result<VcsrWeights<'_, P>> {
        match &self.out {
            OutRuns::Weighted(runs) => Ok(VcsrWeights {
                runs,
                degrees: &self.out_degree,
                clean: self.out_is_clean(),
            }),
            OutRuns::Plain(_) => Err(Error::missing("Vcsr", Capability::Weights)),
        }
    }
}

impl<P: GapPolicy + Clone + Send> GraphUpdate for Vcsr<P> {
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

    /// Grouped by source and tombstoned run by run in parallel for large
    /// batches ([`BatchUpdates::Merged`]); one at a time otherwise.
    fn delete_edges<E: EdgeSource + ?Sized>(&mut self, edges: &E) -> Result<UpdateReport> {
        if self.takes_merged(edges.len()) {
            return self.delete_merged(edges);
        }
        let mut report = UpdateReport::default();
        for i in 0..edges.len() {
            let edge = edges.edge(i);
            report.edges_removed += u64::from(self.delete_one(edge.src, edge.dst)?);
        }
        Ok(report)
    }

    /// Grouped by source (one pass into an empty edge array); see
    /// [`Vcsr`]'s cost model.
    fn insert_edges<E: EdgeSource + ?Sized>(&mut self, edges: &E) -> Result<UpdateReport> {
        if edges.len() == 1 && !self.out_is_empty() {
            // A replay's one-edge batches: exactly the single-edge call.
            let edge = edges.edge(0);
            let added = self.insert_one(edge.src, edge.dst, edge.weight)?;
            return Ok(UpdateReport {
                edges_added: u64::from(added),
                edges_removed: 0,
            });
        }
        self.insert_batch(edges, edges.max_vertex())
    }

    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        let start = self.vertex_count();
        let end = add_vertices_end(start, count, self.options.store.vertex_limit)?;
        self.before_update();
        self.grow(end)?;
        Ok(start as VertexId..end as VertexId)
    }

    fn vertex_limit(&self) -> usize {
        self.options.store.vertex_limit
    }
}

impl<P: GapPolicy + Clone + Default + fmt::Debug + Send> FromEdges for Vcsr<P> {
    type Options = VcsrOptions<P>;

    /// An empty graph with `options`, sized for the source's vertex bound
    /// (its declared count when larger than the ids), then the edges laid
    /// out in one pass (see [`Vcsr`]'s cost model).
    fn from_edges<E: EdgeSource + ?Sized>(edges: &E, options: VcsrOptions<P>) -> Result<Self> {
        let mut graph = Vcsr::new(options)?;
        let bound = checked_vertex_bound(edges, graph.options.store.vertex_limit)?;
        graph.grow(bound)?;
        // The bound covers every id, so the batch needs no second pass over
        // the ids to find its largest.
        graph.insert_batch(edges, bound.checked_sub(1).map(|m| m as VertexId))?;
        Ok(graph)
    }
}

impl<P: GapPolicy + Clone + Sync> Snapshots for Vcsr<P> {
    type Snapshot = VcsrSnapshot;
    type View<'a>
        = VcsrView<'a, P>
    where
        Self: 'a;

    /// A detached snapshot of the current edges (see [`crate::snapshot`]):
    /// the graph may keep changing; [`Snapshots::view`] reads it. `O(V)`.
    fn snapshot(&self) -> VcsrSnapshot {
        self.history.take(
            &self.out_degree,
            self.incoming.as_ref().map(|_| &self.in_degree[..]),
            self.edge_count,
        )
    }

    /// A read view of the graph as it was when `snapshot` was taken.
    /// Fails if the snapshot comes from another graph.
    fn view<'a>(&'a self, snapshot: &'a VcsrSnapshot) -> Result<VcsrView<'a, P>> {
        VcsrView::new(self, snapshot)
    }
}

impl<P: GapPolicy + Clone + Default + fmt::Debug + Send + Sync> GraphStore for Vcsr<P> {
    const NAME: &'static str = "Vcsr";
    const CAPABILITIES: dyngraph_core::Capabilities = dyngraph_core::Capabilities::IN_MEMORY;

    fn memory_bytes(&self) -> usize {
        Vcsr::memory_bytes(self)
    }

    /// Both edge arrays' rebalances (all levels), elements moved and
    /// resizes, including arrays replaced by bulk loads and repacks.
    fn maintenance(&self) -> Option<MaintenanceStats> {
        Some(self.stats().maintenance())
    }
}

/// An empty multigraph with the default options and
/// [`DegreeProportional`] gaps (the default options always build).
impl Default for Vcsr<DegreeProportional> {
    fn default() -> Self {
        Self::new(VcsrOptions::default()).expect("the default options build an empty Vcsr")
    }
}
