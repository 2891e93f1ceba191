//! Snapshots of a [`Vcsr`]: DGAP's degree cache over the live edge array.
//!
//! # Model
//!
//! [`Snapshots::snapshot`] returns a detached [`VcsrSnapshot`]: a copy of
//! the degree arrays and the value of the graph's deletion clock. It does
//! not borrow the graph, so the graph keeps taking inserts, deletes,
//! rebalances and resizes while the snapshot exists. To read,
//! [`Snapshots::view`] turns it into a [`VcsrView`] that borrows the graph
//! immutably for as long as the reads last; every view of the same
//! snapshot shows exactly the edges that were present when the snapshot
//! was taken, through the same read traits (in-edges through
//! [`VcsrViewInEdges`], weights through [`VcsrViewWeights`], each present
//! exactly when the graph keeps them), so any kernel runs on it.
//!
//! Why a copy of the degrees is enough: within a vertex, edges sit in
//! insertion order and are only ever appended, so the edges present at
//! time `t` are a prefix of the vertex's run, minus the edges deleted
//! before `t`. A reader walks the run, skips tombstones deleted before `t`,
//! keeps live edges and tombstones deleted at or after `t`, and stops after
//! the cached degree. Two rules keep that walk valid while the graph
//! changes:
//! - While any snapshot is alive, redistributions reclaim nothing
//!   (`Reclaim::Never`), so a tombstone a snapshot still needs stays in
//!   place and indices inside a run are stable.
//! - Each delete made while a snapshot is alive records its deletion time
//!   under `(vertex, index in the run)`. Tombstones without a record were
//!   deleted before every live snapshot and are hidden from all of them.
//!
//! When the last snapshot is dropped, the next update clears the records
//! and lets redistributions reclaim tombstones again.
//!
//! # Cost
//! - Taking a snapshot: `O(V)`, a copy of `4 V` bytes (`8 V` with
//!   in-edges), whatever happens afterwards; nothing is copied later.
//! - Reading a view: a run that holds no tombstone now is read as a clean
//!   slice (its first `degree at the snapshot` slots: nothing was deleted
//!   from it, so nothing is hidden), the same walk as reading the graph;
//!   a run with tombstones is walked with a test per slot and a hash
//!   lookup per tombstone met.
//! - While snapshots are alive: deleted slots are not reused (the arrays
//!   hold every edge deleted since the oldest snapshot), `compact` and
//!   `repack` reclaim nothing, and each delete costs a hash insert (a
//!   17-byte table slot per record, counted in the graph's `memory_bytes`
//!   and freed by the first update after the last snapshot is dropped).
//! - Rebalances and resizes cost a snapshot nothing: they move runs,
//!   never reorder a run or drop a slot a snapshot needs.

use crate::Vcsr;
use crate::slot::{Slot, Target, WeightedTarget};
use crate::vcsr::{OutRuns, degree_or_zero};
#[cfg(doc)]
use dyngraph_core::Snapshots;
use dyngraph_core::{
    Capability, EdgeWeights, Error, Graph, InEdges, InNeighbors, OutNeighbors, Result, Semantics,
    VertexId, Weight, WeightedNeighbors,
};
use dyngraph_pma::{DegreeProportional, GapPolicy, PackedRuns};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// The identity of one graph's snapshot family; its strong count minus one
/// is the number of live snapshots.
#[derive(Debug, Default)]
pub(crate) struct Registry;

/// Deletion times of tombstones, by `(vertex, index in the vertex's run)`.
pub(crate) type Graves = HashMap<(VertexId, u32), u64>;

/// The graph's side of the snapshot machinery.
#[derive(Debug, Default)]
pub(crate) struct History {
    registry: Arc<Registry>,
    /// Deletes so far; a snapshot taken at clock `t` sees deletes `< t`.
    clock: u64,
    /// Whether reclamation is paused (a snapshot was alive at the last
    /// update).
    paused: bool,
    pub(crate) out_graves: Graves,
    pub(crate) in_graves: Graves,
}

impl Clone for History {
    /// A cloned graph starts its own snapshot family: snapshots of the
    /// original do not apply to the clone.
    fn clone(&self) -> Self {
        History {
            registry: Arc::new(Registry),
            clock: self.clock,
            paused: self.paused,
            out_graves: self.out_graves.clone(),
            in_graves: self.in_graves.clone(),
        }
    }
}

impl History {
    pub(crate) fn live_snapshots(&self) -> usize {
        Arc::strong_count(&self.registry) - 1
    }

    /// Called before every update. Returns the new pause state when it
    /// changes, for the caller to set the edge arrays' reclaim rule.
    pub(crate) fn sync(&mut self) -> Option<bool> {
        let live = self.live_snapshots() > 0;
        if live == self.paused {
            return None;
        }
        self.paused = live;
        if !live {
            // Dropped, not cleared: a burst of deletes under a snapshot
            // should not keep its table's memory for the graph's life.
            self.out_graves = Graves::default();
            self.in_graves = Graves::default();
        }
        Some(live)
    }

    /// Whether deletes are recorded now (a snapshot is alive).
    pub(crate) fn records_deletes(&self) -> bool {
        self.paused
    }

    /// Records a delete at `(vertex, index)` of the out- or in-edge runs.
    pub(crate) fn record_delete(&mut self, incoming: bool, vertex: VertexId, index: usize) {
        if self.paused {
            let graves = if incoming {
                &mut self.in_graves
            } else {
                &mut self.out_graves
            };
            graves.insert((vertex, index as u32), self.clock);
        }
    }

    pub(crate) fn tick(&mut self) {
        self.clock += 1;
    }

    pub(crate) fn take(
        &self,
        out_degree: &[u32],
        in_degree: Option<&[u32]>,
        edge_count: u64,
    ) -> VcsrSnapshot {
        VcsrSnapshot {
            registry: Arc::clone(&self.registry),
            clock: self.clock,
            out_degree: out_degree.into(),
            in_degree: in_degree.map(Into::into),
            edge_count,
        }
    }

    pub(crate) fn owns(&self, snapshot: &VcsrSnapshot) -> bool {
        Arc::ptr_eq(&self.registry, &snapshot.registry)
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        let entry = std::mem::size_of::<((VertexId, u32), u64)>() + 1;
        (self.out_graves.capacity() + self.in_graves.capacity()) * entry
    }
}

/// A detached snapshot of a [`Vcsr`]: the degree arrays and the deletion
/// clock at the time it was taken. It does not borrow the graph; read it
/// with [`Snapshots::view`]. While it is alive the graph does not reclaim
/// deleted slots (see the module docs of [`crate::snapshot`]). Dropping it
/// lets the next update resume reclamation once no other snapshot lives.
#[derive(Debug)]
pub struct VcsrSnapshot {
    registry: Arc<Registry>,
    clock: u64,
    out_degree: Box<[u32]>,
    in_degree: Option<Box<[u32]>>,
    edge_count: u64,
}

impl VcsrSnapshot {
    /// Vertices when the snapshot was taken.
    pub fn vertex_count(&self) -> usize {
        self.out_degree.len()
    }

    /// Edges when the snapshot was taken.
    pub fn edge_count(&self) -> u64 {
        self.edge_count
    }

    /// Heap bytes the snapshot holds: its copy of the degrees.
    pub fn memory_bytes(&self) -> usize {
        (self.out_degree.len() + self.in_degree.as_ref().map_or(0, |d| d.len()))
            * std::mem::size_of::<u32>()
    }
}

/// A read view of a [`Vcsr`] as it was when a [`VcsrSnapshot`] was taken:
/// what [`Snapshots::view`] returns. It implements the core read traits,
/// so every kernel runs on it.
pub struct VcsrView<'a, P = DegreeProportional> {
    graph: &'a Vcsr<P>,
    snapshot: &'a VcsrSnapshot,
}

impl<P> fmt::Debug for VcsrView<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VcsrView")
            .field("vertex_count", &self.snapshot.vertex_count())
            .field("edge_count", &self.snapshot.edge_count)
            .field("clock", &self.snapshot.clock)
            .finish_non_exhaustive()
    }
}

impl<'a, P: GapPolicy + Clone> VcsrView<'a, P> {
    pub(crate) fn new(graph: &'a Vcsr<P>, snapshot: &'a VcsrSnapshot) -> Result<Self> {
        if !graph.history.owns(snapshot) {
            return Err(Error::InvalidArgument(
                "the snapshot was taken from a different graph".into(),
            ));
        }
        Ok(VcsrView { graph, snapshot })
    }
}

/// The slots of one vertex visible at a snapshot: live ones, and
/// tombstones deleted at or after the snapshot's clock, up to the cached
/// degree.
#[derive(Clone, Debug)]
struct Visible<'a, S> {
    slots: &'a [S],
    index: usize,
    remaining: u32,
    vertex: VertexId,
    graves: &'a Graves,
    clock: u64,
}

impl<S> Visible<'_, S> {
    /// Whether the tombstone at `index` of this vertex's run was deleted at
    /// or after the snapshot, so the view still sees the edge. Out of line:
    /// a hash lookup that only tombstones reach, kept out of the walk
    /// that every neighbour iterator inlines.
    #[cold]
    #[inline(never)]
    fn deleted_since_snapshot(&self, index: u32) -> bool {
        self.graves
            .get(&(self.vertex, index))
            .is_some_and(|&deleted| deleted >= self.clock)
    }
}

impl<'a, S: Slot> Iterator for Visible<'a, S> {
    type Item = &'a S;

    #[inline]
    fn next(&mut self) -> Option<&'a S> {
        while self.remaining > 0 {
            let slot = self.slots.get(self.index)?;
            let index = self.index as u32;
            self.index += 1;
            if slot.target().is_live() || self.deleted_since_snapshot(index) {
                self.remaining -= 1;
                return Some(slot);
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.remaining as usize))
    }
}

/// How a view reads one run.
enum Walk<'a, S> {
    /// The run holds no tombstone now, so nothing was deleted from it
    /// since the snapshot (deleted slots are kept while it lives) and no
    /// older tombstone is left to hide: the snapshot's edges are the run's
    /// first `degree at the snapshot` slots, walked with no test at all.
    Clean(&'a [S]),
    /// Tombstones in the run: each slot is tested.
    Tested(Visible<'a, S>),
}

/// One edge array as a view reads it: the live runs, the live degrees (to
/// tell clean runs), the snapshot's degrees and the deletion records.
struct VisibleRuns<'a, S, P> {
    runs: &'a PackedRuns<S, P>,
    live_degrees: &'a [u32],
    snapshot_degrees: &'a [u32],
    graves: &'a Graves,
    clock: u64,
    /// No tombstone anywhere in the array (decided once, when the handle
    /// is made): every run is clean, so a walk needs neither the live
    /// degree nor a test per slot. Saves a random read per vertex.
    clean: bool,
}

impl<S, P> Clone for VisibleRuns<'_, S, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S, P> Copy for VisibleRuns<'_, S, P> {}

impl<'a, S: Slot, P: GapPolicy> VisibleRuns<'a, S, P> {
    #[inline]
    fn degree(self, v: VertexId) -> u64 {
        u64::from(degree_or_zero(self.snapshot_degrees, v))
    }

    #[inline]
    fn walk(self, v: VertexId) -> Walk<'a, S> {
        // Indexing the snapshot's degrees first: a vertex added after the
        // snapshot is outside the view, even though the graph has its run.
        if v as usize >= self.snapshot_degrees.len() {
            return Walk::Clean(&[]);
        }
        let remaining = self.snapshot_degrees[v as usize];
        let Some(run) = self.runs.run(v as usize) else {
            return Walk::Clean(&[]);
        };
        if (self.clean || run.len() == self.live_degrees[v as usize] as usize)
            && let Some(prefix) = run.get(..remaining as usize)
        {
            return Walk::Clean(prefix);
        }
        Walk::Tested(Visible {
            slots: run,
            index: 0,
            remaining,
            vertex: v,
            graves: self.graves,
            clock: self.clock,
        })
    }
}

#[derive(Clone, Debug)]
enum VisibleSlots<'a> {
    Clean(std::slice::Iter<'a, Target>),
    Plain(Visible<'a, Target>),
    CleanWeighted(std::slice::Iter<'a, WeightedTarget>),
    Weighted(Visible<'a, WeightedTarget>),
}

impl<'a> From<Walk<'a, Target>> for VisibleSlots<'a> {
    #[inline]
    fn from(walk: Walk<'a, Target>) -> Self {
        match walk {
            Walk::Clean(slots) => VisibleSlots::Clean(slots.iter()),
            Walk::Tested(visible) => VisibleSlots::Plain(visible),
        }
    }
}

impl<'a> From<Walk<'a, WeightedTarget>> for VisibleSlots<'a> {
    #[inline]
    fn from(walk: Walk<'a, WeightedTarget>) -> Self {
        match walk {
            Walk::Clean(slots) => VisibleSlots::CleanWeighted(slots.iter()),
            Walk::Tested(visible) => VisibleSlots::Weighted(visible),
        }
    }
}

/// Neighbours of one vertex in a [`VcsrView`].
#[derive(Clone, Debug)]
pub struct VcsrViewNeighbors<'a>(VisibleSlots<'a>);

impl Iterator for VcsrViewNeighbors<'_> {
    type Item = VertexId;

    /// Always inlined: a pull kernel calls it once per edge (PageRank's
    /// four running sums step it by hand), and out of line that call was
    /// the walk's cost. `Vcsr`'s view PageRank on sx-mathoverflow ran at
    /// 3× `Csr`'s time with the call (issue 39).
    #[inline(always)]
    fn next(&mut self) -> Option<VertexId> {
        match &mut self.0 {
            VisibleSlots::Clean(slots) => slots.next().map(|s| s.0),
            VisibleSlots::Plain(slots) => slots.next().map(|s| s.target().id()),
            VisibleSlots::CleanWeighted(slots) => slots.next().map(|s| s.target.0),
            VisibleSlots::Weighted(slots) => slots.next().map(|s| s.target().id()),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            VisibleSlots::Clean(slots) => slots.size_hint(),
            VisibleSlots::Plain(slots) => slots.size_hint(),
            VisibleSlots::CleanWeighted(slots) => slots.size_hint(),
            VisibleSlots::Weighted(slots) => slots.size_hint(),
        }
    }

    /// One dispatch per vertex, not per edge.
    #[inline]
    fn fold<B, F: FnMut(B, VertexId) -> B>(self, init: B, mut f: F) -> B {
        match self.0 {
            VisibleSlots::Clean(slots) => slots.fold(init, |acc, s| f(acc, s.0)),
            VisibleSlots::Plain(slots) => slots.fold(init, |acc, s| f(acc, s.target().id())),
            VisibleSlots::CleanWeighted(slots) => slots.fold(init, |acc, s| f(acc, s.target.0)),
            VisibleSlots::Weighted(slots) => slots.fold(init, |acc, s| f(acc, s.target().id())),
        }
    }
}

#[derive(Clone, Debug)]
enum VisibleWeightedSlots<'a> {
    Clean(std::slice::Iter<'a, WeightedTarget>),
    Tested(Visible<'a, WeightedTarget>),
}

/// `(neighbour, weight)` of one vertex in a [`VcsrView`].
#[derive(Clone, Debug)]
pub struct VcsrViewWeightedNeighbors<'a>(VisibleWeightedSlots<'a>);

impl Iterator for VcsrViewWeightedNeighbors<'_> {
    type Item = (VertexId, Weight);

    #[inline]
    fn next(&mut self) -> Option<(VertexId, Weight)> {
        match &mut self.0 {
            VisibleWeightedSlots::Clean(slots) => slots.next().map(|s| (s.target.0, s.weight)),
            VisibleWeightedSlots::Tested(slots) => {
                slots.next().map(|s| (s.target().id(), s.weight))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            VisibleWeightedSlots::Clean(slots) => slots.size_hint(),
            VisibleWeightedSlots::Tested(slots) => slots.size_hint(),
        }
    }
}

/// The in-edges of a [`VcsrView`] of a graph that keeps them: what
/// [`InEdges::in_edges`] returns on a view. A `Copy` handle.
pub struct VcsrViewInEdges<'a, P = DegreeProportional>(VisibleRuns<'a, Target, P>);

impl<P> Clone for VcsrViewInEdges<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for VcsrViewInEdges<'_, P> {}

impl<P> fmt::Debug for VcsrViewInEdges<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VcsrViewInEdges")
            .field("vertex_count", &self.0.snapshot_degrees.len())
            .finish_non_exhaustive()
    }
}

impl<'a, P: GapPolicy> InNeighbors for VcsrViewInEdges<'a, P> {
    type InIter = VcsrViewNeighbors<'a>;

    #[inline]
    fn in_degree(self, v: VertexId) -> u64 {
        self.0.degree(v)
    }

    #[inline]
    fn in_neighbors(self, v: VertexId) -> VcsrViewNeighbors<'a> {
        VcsrViewNeighbors(self.0.walk(v).into())
    }
}

/// The weighted out-edges of a [`VcsrView`] of a weighted graph: what
/// [`EdgeWeights::edge_weights`] returns on a view. A `Copy` handle.
pub struct VcsrViewWeights<'a, P = DegreeProportional>(VisibleRuns<'a, WeightedTarget, P>);

impl<P> Clone for VcsrViewWeights<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for VcsrViewWeights<'_, P> {}

impl<P> fmt::Debug for VcsrViewWeights<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VcsrViewWeights")
            .field("vertex_count", &self.0.snapshot_degrees.len())
            .finish_non_exhaustive()
    }
}

impl<'a, P: GapPolicy> WeightedNeighbors for VcsrViewWeights<'a, P> {
    type WeightedIter = VcsrViewWeightedNeighbors<'a>;

    #[inline]
    fn out_neighbors_weighted(self, v: VertexId) -> VcsrViewWeightedNeighbors<'a> {
        VcsrViewWeightedNeighbors(match self.0.walk(v) {
            Walk::Clean(slots) => VisibleWeightedSlots::Clean(slots.iter()),
            Walk::Tested(visible) => VisibleWeightedSlots::Tested(visible),
        })
    }
}

impl<'a, P: GapPolicy + Clone> VcsrView<'a, P> {
    /// The out-edge array of `runs` as this view reads it.
    #[inline]
    fn out_runs<S: Slot>(&self, runs: &'a PackedRuns<S, P>) -> VisibleRuns<'a, S, P> {
        VisibleRuns {
            runs,
            live_degrees: &self.graph.out_degree,
            snapshot_degrees: &self.snapshot.out_degree,
            graves: &self.graph.history.out_graves,
            clock: self.snapshot.clock,
            clean: runs.len() as u64 == self.graph.edge_count(),
        }
    }
}

impl<P: GapPolicy + Clone> Graph for VcsrView<'_, P> {
    #[inline]
    fn vertex_count(&self) -> usize {
        self.snapshot.out_degree.len()
    }

    #[inline]
    fn edge_count(&self) -> u64 {
        self.snapshot.edge_count
    }

    fn semantics(&self) -> Semantics {
        self.graph.semantics()
    }
}

impl<P: GapPolicy + Clone> OutNeighbors for VcsrView<'_, P> {
    type OutIter<'b>
        = VcsrViewNeighbors<'b>
    where
        Self: 'b;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        u64::from(degree_or_zero(&self.snapshot.out_degree, v))
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> VcsrViewNeighbors<'_> {
        VcsrViewNeighbors(match &self.graph.out {
            OutRuns::Plain(runs) => self.out_runs(runs).walk(v).into(),
            OutRuns::Weighted(runs) => self.out_runs(runs).walk(v).into(),
        })
    }
}

impl<P: GapPolicy + Clone + Sync> InEdges for VcsrView<'_, P> {
    type InHandle<'b>
        = VcsrViewInEdges<'b, P>
    where
        Self: 'b;

    fn in_edges(&self) -> Result<VcsrViewInEdges<'_, P>> {
        match (&self.graph.incoming, &self.snapshot.in_degree) {
            (Some(runs), Some(snapshot_degrees)) => Ok(VcsrViewInEdges(VisibleRuns {
                runs,
                live_degrees: &self.graph.in_degree,
                snapshot_degrees,
                graves: &self.graph.history.in_graves,
                clock: self.snapshot.clock,
                clean: runs.len() as u64 == self.graph.edge_count(),
            })),
            _ => Err(Error::missing("Vcsr", Capability::InEdges)),
        }
    }
}

impl<P: GapPolicy + Clone + Sync> EdgeWeights for VcsrView<'_, P> {
    type WeightHandle<'b>
        = VcsrViewWeights<'b, P>
    where
        Self: 'b;

    fn edge_weights(&self) -> Result<VcsrViewWeights<'_, P>> {
        match &self.graph.out {
            OutRuns::Weighted(runs) => Ok(VcsrViewWeights(self.out_runs(runs))),
            OutRuns::Plain(_) => Err(Error::missing("Vcsr", Capability::Weights)),
        }
    }
}
