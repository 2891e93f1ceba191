//! Snapshots of a [`Vcsr`]: DGAP's degree cache over the live edge array.
//!
//! # Model
//!
//! [`Vcsr::snapshot`] returns a detached [`Snapshot`]: a copy of the degree
//! arrays and the value of the graph's deletion clock. It does not borrow
//! the graph, so the graph keeps taking inserts, deletes, rebalances and
//! resizes while the snapshot exists. To read, [`Vcsr::view`] turns it into
//! a [`SnapshotView`] that borrows the graph immutably for as long as the
//! reads last; every view of the same snapshot shows exactly the edges that
//! were present when the snapshot was taken.
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
//! Taking a snapshot copies `4 V` bytes (`8 V` with in-edges). Reading a
//! snapshot costs the same slice walk as reading the graph, plus a hash
//! lookup per tombstone met. While snapshots are alive, deleted slots are
//! not reused and each delete costs a hash insert.

use crate::Vcsr;
use crate::slot::{Slot, Target, WeightedTarget};
use dyngraph_core::{
    Error, Graph, InNeighbors, OutNeighbors, Result, Semantics, VertexId, Weight,
    WeightedOutNeighbors,
};
use dyngraph_pma::GapPolicy;
use std::collections::HashMap;
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
            self.out_graves.clear();
            self.in_graves.clear();
        }
        Some(live)
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
    ) -> Snapshot {
        Snapshot {
            registry: Arc::clone(&self.registry),
            clock: self.clock,
            out_degree: out_degree.into(),
            in_degree: in_degree.map(Into::into),
            edge_count,
        }
    }

    pub(crate) fn owns(&self, snapshot: &Snapshot) -> bool {
        Arc::ptr_eq(&self.registry, &snapshot.registry)
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        let entry = std::mem::size_of::<((VertexId, u32), u64)>() + 1;
        (self.out_graves.capacity() + self.in_graves.capacity()) * entry
    }
}

/// A detached snapshot of a [`Vcsr`]: the degree arrays and the deletion
/// clock at the time it was taken. It does not borrow the graph; read it
/// with [`Vcsr::view`]. While it is alive the graph does not reclaim
/// deleted slots (see the module docs of [`crate::snapshot`]).
#[derive(Debug)]
pub struct Snapshot {
    registry: Arc<Registry>,
    clock: u64,
    out_degree: Box<[u32]>,
    in_degree: Option<Box<[u32]>>,
    edge_count: u64,
}

impl Snapshot {
    /// Vertices when the snapshot was taken.
    pub fn vertex_count(&self) -> usize {
        self.out_degree.len()
    }

    /// Edges when the snapshot was taken.
    pub fn edge_count(&self) -> u64 {
        self.edge_count
    }
}

/// A read view of a [`Vcsr`] as it was when a [`Snapshot`] was taken. It
/// implements the core read traits, so every kernel runs on it.
#[derive(Debug)]
pub struct SnapshotView<'a, P = dyngraph_pma::DegreeProportional> {
    graph: &'a Vcsr<P>,
    snapshot: &'a Snapshot,
}

impl<'a, P: GapPolicy + Clone> SnapshotView<'a, P> {
    pub(crate) fn new(graph: &'a Vcsr<P>, snapshot: &'a Snapshot) -> Result<Self> {
        if !graph.history.owns(snapshot) {
            return Err(Error::InvalidArgument(
                "the snapshot was taken from a different graph".into(),
            ));
        }
        Ok(SnapshotView { graph, snapshot })
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

impl<'a, S: Slot> Iterator for Visible<'a, S> {
    type Item = &'a S;

    #[inline]
    fn next(&mut self) -> Option<&'a S> {
        while self.remaining > 0 {
            let slot = self.slots.get(self.index)?;
            let index = self.index as u32;
            self.index += 1;
            let visible = slot.target().is_live()
                || self
                    .graves
                    .get(&(self.vertex, index))
                    .is_some_and(|&deleted| deleted >= self.clock);
            if visible {
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

#[derive(Clone, Debug)]
enum VisibleSlots<'a> {
    Plain(Visible<'a, Target>),
    Weighted(Visible<'a, WeightedTarget>),
}

/// Neighbours of one vertex in a [`SnapshotView`].
#[derive(Clone, Debug)]
pub struct SnapshotNeighbors<'a>(VisibleSlots<'a>);

impl Iterator for SnapshotNeighbors<'_> {
    type Item = VertexId;

    #[inline]
    fn next(&mut self) -> Option<VertexId> {
        match &mut self.0 {
            VisibleSlots::Plain(slots) => slots.next().map(|s| s.target().id()),
            VisibleSlots::Weighted(slots) => slots.next().map(|s| s.target().id()),
        }
    }
}

/// `(neighbour, weight)` of one vertex in a [`SnapshotView`].
#[derive(Clone, Debug)]
pub struct SnapshotWeightedNeighbors<'a>(VisibleSlots<'a>);

impl Iterator for SnapshotWeightedNeighbors<'_> {
    type Item = (VertexId, Weight);

    #[inline]
    fn next(&mut self) -> Option<(VertexId, Weight)> {
        match &mut self.0 {
            VisibleSlots::Plain(slots) => slots.next().map(|s| (s.target().id(), 1.0)),
            VisibleSlots::Weighted(slots) => slots.next().map(|s| (s.target().id(), s.weight)),
        }
    }
}

impl<'a, P: GapPolicy + Clone> SnapshotView<'a, P> {
    fn out_slots(&self, v: VertexId) -> VisibleSlots<'a> {
        let remaining = self.snapshot.out_degree[v as usize];
        let graves = &self.graph.history.out_graves;
        let clock = self.snapshot.clock;
        match &self.graph.out {
            crate::vcsr::OutRuns::Plain(runs) => VisibleSlots::Plain(Visible {
                slots: runs.run(v as usize).unwrap_or(&[]),
                index: 0,
                remaining,
                vertex: v,
                graves,
                clock,
            }),
            crate::vcsr::OutRuns::Weighted(runs) => VisibleSlots::Weighted(Visible {
                slots: runs.run(v as usize).unwrap_or(&[]),
                index: 0,
                remaining,
                vertex: v,
                graves,
                clock,
            }),
        }
    }
}

impl<P: GapPolicy + Clone> Graph for SnapshotView<'_, P> {
    fn vertex_count(&self) -> usize {
        self.snapshot.out_degree.len()
    }

    fn edge_count(&self) -> u64 {
        self.snapshot.edge_count
    }

    fn semantics(&self) -> Semantics {
        self.graph.semantics()
    }
}

impl<P: GapPolicy + Clone> OutNeighbors for SnapshotView<'_, P> {
    type OutNeighbors<'b>
        = SnapshotNeighbors<'b>
    where
        Self: 'b;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        u64::from(self.snapshot.out_degree[v as usize])
    }

    fn out_neighbors(&self, v: VertexId) -> SnapshotNeighbors<'_> {
        SnapshotNeighbors(self.out_slots(v))
    }
}

impl<P: GapPolicy + Clone> WeightedOutNeighbors for SnapshotView<'_, P> {
    type WeightedOutNeighbors<'b>
        = SnapshotWeightedNeighbors<'b>
    where
        Self: 'b;

    fn has_weights(&self) -> bool {
        self.graph.has_weights()
    }

    fn out_neighbors_weighted(&self, v: VertexId) -> SnapshotWeightedNeighbors<'_> {
        SnapshotWeightedNeighbors(self.out_slots(v))
    }
}

impl<P: GapPolicy + Clone> InNeighbors for SnapshotView<'_, P> {
    type InNeighbors<'b>
        = SnapshotNeighbors<'b>
    where
        Self: 'b;

    fn has_in_edges(&self) -> bool {
        self.snapshot.in_degree.is_some()
    }

    #[inline]
    fn in_degree(&self, v: VertexId) -> u64 {
        assert!(
            (v as usize) < self.vertex_count(),
            "vertex {v} out of range"
        );
        self.snapshot
            .in_degree
            .as_ref()
            .map_or(0, |degrees| u64::from(degrees[v as usize]))
    }

    fn in_neighbors(&self, v: VertexId) -> SnapshotNeighbors<'_> {
        let remaining = self.in_degree(v) as u32;
        let slots = self
            .graph
            .incoming
            .as_ref()
            .and_then(|runs| runs.run(v as usize))
            .unwrap_or(&[]);
        SnapshotNeighbors(VisibleSlots::Plain(Visible {
            slots,
            index: 0,
            remaining,
            vertex: v,
            graves: &self.graph.history.in_graves,
            clock: self.snapshot.clock,
        }))
    }
}
