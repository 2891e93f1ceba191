//! CSR++'s snapshots: copy-on-write per segment.
//!
//! A snapshot is a detached token ([`CsrPPSnapshot`]) holding, for every
//! segment the store had when it was taken, an empty slot, and the counts
//! of the moment. Before the store changes any list of a segment — an
//! insert or delete of either kind, single or batched, `delete_vertex`,
//! union or difference in place, the concurrent writer — it calls
//! [`SegmentSnapshots::before_change`] with the segment, which copies the
//! segment's lists ([`SegmentData::freeze`]: live slots only, exactly
//! sized, in one slab) into every live snapshot whose slot is still
//! empty. A view ([`CsrPPView`]) reads a segment from its saved copy when
//! there is one and from the store otherwise: exactly the graph at the
//! time of the snapshot.
//!
//! Why a segment and not a list: the segment is CSR++'s unit of locking
//! and of layout. The path that changes a list holds its segment — as
//! `&mut` in a batch task, under its lock in the concurrent writer — so
//! the copy is taken there with no further locking, once per segment
//! rather than once per list, and a view pays one load per vertex read to
//! pick the copy or the store, whose saved copies scan like a freshly
//! loaded store. Measured against per-list copy-before-write
//! ([`dyngraph_core::cow`]) in `benches/examples/csrpp_snapshot_cost.rs` (the crate's
//! README has the figures): batches and PageRank on the view are much
//! faster; single-edge streams copy more memory, since each first change
//! of a segment copies all of it.
//!
//! Moving edges without changing any list's live contents — compaction,
//! re-packing, `defragment`, arrays leaving their slab — needs no copy: a
//! view reads an unsaved segment from the store, and its live contents are
//! the same. Vertices added after a snapshot are past its vertex count;
//! segments added after it have no slot and are never copied for it.
//!
//! Soundness of reading the store through a view: a view borrows the
//! store, and every change needs `&mut CsrPP` (the concurrent writer holds
//! it for its whole life), so nothing changes while a view reads.

use crate::adjacency::{AdjList, EMPTY_LISTS};
use crate::iter::{NeighborIter, WeightedNeighborIter};
use crate::segment::{FrozenSegment, SegmentData};
use crate::store::{CsrPP, CsrPPInEdges, IN_ENTRY_LOOKAHEAD};
use dyngraph_core::hint::prefetch_address;
use dyngraph_core::{
    Capability, EdgeWeights, Error, Graph, GraphStore, InEdges, InNeighbors, OutNeighbors, Result,
    Semantics, VertexId, WeightedNeighbors,
};
use parking_lot::RwLock;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// One snapshot's state, shared by its token and the store's registry.
struct Frozen {
    vertex_count: usize,
    edge_count: u64,
    semantics: Semantics,
    weighted: bool,
    in_edges: bool,
    /// `segment_size().trailing_zeros()` of the store.
    shift: u32,
    /// One slot per segment the store had: its copy, once the store has
    /// changed it. A copy taken when several snapshots needed it is
    /// shared by them.
    saved: Box<[OnceLock<Arc<FrozenSegment>>]>,
}

#[derive(Default)]
struct Shared {
    /// Live snapshots; changes skip all work while it is 0.
    live: AtomicUsize,
    /// The live snapshots themselves: read on every change while one is
    /// alive, written when one is taken or dropped.
    snapshots: RwLock<Vec<Arc<Frozen>>>,
}

/// The store's side of its snapshots (see the module docs). A clone of a
/// store gets a fresh one.
#[derive(Default)]
pub(crate) struct SegmentSnapshots {
    shared: Arc<Shared>,
}

impl fmt::Debug for SegmentSnapshots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SegmentSnapshots")
            .field("live", &self.live_snapshots())
            .finish()
    }
}

impl SegmentSnapshots {
    /// Live snapshots.
    pub(crate) fn live_snapshots(&self) -> usize {
        self.shared.live.load(Ordering::Acquire)
    }

    /// Whether any snapshot is alive (changes must then be announced).
    #[inline]
    pub(crate) fn is_active(&self) -> bool {
        self.live_snapshots() != 0
    }

    /// Takes a snapshot of `store` as it is now: the counts and one empty
    /// slot per segment.
    pub(crate) fn take(&self, store: &CsrPP) -> CsrPPSnapshot {
        let frozen = Arc::new(Frozen {
            vertex_count: store.vertex_count(),
            edge_count: store.edge_count(),
            semantics: store.semantics(),
            weighted: store.options.store.weighted,
            in_edges: store.options.store.in_edges,
            shift: store.shift,
            saved: (0..store.segments.len()).map(|_| OnceLock::new()).collect(),
        });
        self.shared.snapshots.write().push(Arc::clone(&frozen));
        self.shared.live.fetch_add(1, Ordering::Release);
        CsrPPSnapshot {
            frozen,
            shared: Arc::clone(&self.shared),
        }
    }

    /// Call before changing any list of segment `s`, holding it
    /// exclusively (`&mut`, or its lock): copies it into every live
    /// snapshot that has no copy of it yet. One atomic load when no
    /// snapshot is alive.
    #[inline]
    pub(crate) fn before_change(&self, s: usize, data: &SegmentData) {
        if self.is_active() {
            self.save(s, data);
        }
    }

    #[cold]
    fn save(&self, s: usize, data: &SegmentData) {
        let snapshots = self.shared.snapshots.read();
        let mut copy: Option<Arc<FrozenSegment>> = None;
        for frozen in snapshots.iter() {
            // A segment added after the snapshot has no slot.
            let Some(slot) = frozen.saved.get(s) else {
                continue;
            };
            if slot.get().is_none() {
                let copy = copy.get_or_insert_with(|| Arc::new(data.freeze()));
                // Only the holder of segment `s` fills its slots, so the
                // slot is still empty; `set` cannot fail.
                let _ = slot.set(Arc::clone(copy));
            }
        }
    }

    /// A view of `snapshot` over `store`, the store owning this registry.
    pub(crate) fn view<'a>(
        &self,
        store: &'a CsrPP,
        snapshot: &'a CsrPPSnapshot,
    ) -> Result<CsrPPView<'a>> {
        if !Arc::ptr_eq(&self.shared, &snapshot.shared) {
            return Err(Error::InvalidArgument(
                "the snapshot was taken from a different store".into(),
            ));
        }
        Ok(CsrPPView {
            store,
            frozen: &snapshot.frozen,
        })
    }
}

/// A detached snapshot of a [`CsrPP`]: read it with
/// [`dyngraph_core::Snapshots::view`]. It does not borrow the store, which
/// keeps taking updates; while it lives, the first change of each segment
/// copies that segment for it. Dropping it releases the copies and stops
/// the copying.
pub struct CsrPPSnapshot {
    frozen: Arc<Frozen>,
    shared: Arc<Shared>,
}

impl fmt::Debug for CsrPPSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CsrPPSnapshot")
            .field("vertex_count", &self.frozen.vertex_count)
            .field("edge_count", &self.frozen.edge_count)
            .field("saved_segments", &self.saved_segments())
            .finish_non_exhaustive()
    }
}

impl CsrPPSnapshot {
    /// Vertices when the snapshot was taken.
    pub fn vertex_count(&self) -> usize {
        self.frozen.vertex_count
    }

    /// Edges when the snapshot was taken.
    pub fn edge_count(&self) -> u64 {
        self.frozen.edge_count
    }

    /// Segments copied for this snapshot so far (the store changed them
    /// after it was taken).
    pub fn saved_segments(&self) -> usize {
        self.frozen
            .saved
            .iter()
            .filter(|s| s.get().is_some())
            .count()
    }

    /// Heap bytes this snapshot holds: its slots and the segments saved
    /// for it (a copy shared with another snapshot counts in both).
    pub fn memory_bytes(&self) -> usize {
        self.frozen.saved.len() * std::mem::size_of::<OnceLock<Arc<FrozenSegment>>>()
            + self
                .frozen
                .saved
                .iter()
                .filter_map(OnceLock::get)
                .map(|segment| segment.memory_bytes())
                .sum::<usize>()
    }
}

impl Drop for CsrPPSnapshot {
    fn drop(&mut self) {
        let mut snapshots = self.shared.snapshots.write();
        snapshots.retain(|frozen| !Arc::ptr_eq(frozen, &self.frozen));
        self.shared.live.fetch_sub(1, Ordering::Release);
    }
}

/// A [`CsrPP`] as it was when a [`CsrPPSnapshot`] was taken: what
/// [`dyngraph_core::Snapshots::view`] returns. Reads a segment from the
/// snapshot's copy when the store has changed it since, from the store
/// otherwise.
#[derive(Clone, Copy)]
pub struct CsrPPView<'a> {
    store: &'a CsrPP,
    frozen: &'a Frozen,
}

impl fmt::Debug for CsrPPView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CsrPPView")
            .field("vertex_count", &self.frozen.vertex_count)
            .field("edge_count", &self.frozen.edge_count)
            .finish_non_exhaustive()
    }
}

impl<'a> CsrPPView<'a> {
    /// Whether `v` existed at the snapshot; a later vertex (or one past the
    /// graph) reads as isolated.
    #[inline]
    fn existed(self, v: VertexId) -> bool {
        (v as usize) < self.frozen.vertex_count
    }

    /// The saved copy of `v`'s segment, if any, and `v`'s position in it,
    /// for a `v` that existed at the snapshot.
    #[inline]
    fn saved(self, v: VertexId) -> (Option<&'a FrozenSegment>, usize) {
        debug_assert!(self.existed(v));
        let v = v as usize;
        let (s, i) = (v >> self.frozen.shift, v & ((1 << self.frozen.shift) - 1));
        // `v` existed, so its segment did: it has a slot.
        (self.frozen.saved[s].get().map(|segment| &**segment), i)
    }

    #[inline]
    fn out_list(self, v: VertexId) -> &'a AdjList {
        if !self.existed(v) {
            return &EMPTY_LISTS[usize::from(self.frozen.weighted)];
        }
        match self.saved(v) {
            (Some(segment), i) => &segment.out[i],
            (None, _) => self.store.out_list(v),
        }
    }
}

impl Graph for CsrPPView<'_> {
    #[inline]
    fn vertex_count(&self) -> usize {
        self.frozen.vertex_count
    }

    #[inline]
    fn edge_count(&self) -> u64 {
        self.frozen.edge_count
    }

    fn semantics(&self) -> Semantics {
        self.frozen.semantics
    }
}

impl OutNeighbors for CsrPPView<'_> {
    type OutIter<'b>
        = NeighborIter<'b>
    where
        Self: 'b;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        self.out_list(v).live_len() as u64
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> NeighborIter<'_> {
        let list = self.out_list(v);
        NeighborIter::new(list.ids(), list.tombstones() > 0)
    }
}

/// The in-edges of a [`CsrPPView`] of a store with in-edges: the view,
/// and the store's own in-edge handle for the segments read live.
#[derive(Clone, Copy, Debug)]
pub struct CsrPPViewInEdges<'a> {
    view: CsrPPView<'a>,
    live: CsrPPInEdges<'a>,
}

impl<'a> CsrPPViewInEdges<'a> {
    #[inline]
    fn list(self, v: VertexId) -> &'a AdjList {
        if !self.view.existed(v) {
            return &EMPTY_LISTS[usize::from(self.view.frozen.weighted)];
        }
        match self.view.saved(v) {
            (Some(segment), i) => &segment.incoming[i],
            (None, _) => self.live.list(v),
        }
    }
}

impl<'a> InNeighbors for CsrPPViewInEdges<'a> {
    type InIter = NeighborIter<'a>;

    #[inline]
    fn in_degree(self, v: VertexId) -> u64 {
        self.list(v).live_len() as u64
    }

    /// As [`crate::CsrPPInEdges`], with the same hint of the in-entry 16
    /// places on (in the copy or the store, whichever holds this one).
    #[inline]
    fn in_neighbors(self, v: VertexId) -> NeighborIter<'a> {
        let list = self.list(v);
        // Past the end of the entries this names unrelated memory; a
        // prefetch of any address is harmless.
        prefetch_address(std::ptr::from_ref(list).wrapping_add(IN_ENTRY_LOOKAHEAD));
        NeighborIter::new(list.ids(), list.tombstones() > 0)
    }
}

impl InEdges for CsrPPView<'_> {
    type InHandle<'b>
        = CsrPPViewInEdges<'b>
    where
        Self: 'b;

    /// # Errors
    /// [`Error::MissingCapability`] when the store keeps no in-edges.
    #[inline]
    fn in_edges(&self) -> Result<CsrPPViewInEdges<'_>> {
        // The store keeps in-edges exactly when it did at the snapshot
        // (its options never change), so its check is the view's.
        debug_assert!(self.frozen.in_edges == self.store.options.store.in_edges);
        Ok(CsrPPViewInEdges {
            view: *self,
            live: self.store.in_edges()?,
        })
    }
}

/// The weighted out-edges of a [`CsrPPView`] of a store with weights.
#[derive(Clone, Copy, Debug)]
pub struct CsrPPViewWeights<'a> {
    view: CsrPPView<'a>,
}

impl<'a> WeightedNeighbors for CsrPPViewWeights<'a> {
    type WeightedIter = WeightedNeighborIter<'a>;

    #[inline]
    fn out_neighbors_weighted(self, v: VertexId) -> WeightedNeighborIter<'a> {
        let list = self.view.out_list(v);
        WeightedNeighborIter::new(list.ids(), list.weights())
    }
}

impl EdgeWeights for CsrPPView<'_> {
    type WeightHandle<'b>
        = CsrPPViewWeights<'b>
    where
        Self: 'b;

    /// # Errors
    /// [`Error::MissingCapability`] when the store keeps no weights.
    #[inline]
    fn edge_weights(&self) -> Result<CsrPPViewWeights<'_>> {
        if self.frozen.weighted {
            Ok(CsrPPViewWeights { view: *self })
        } else {
            Err(Error::missing(
                <CsrPP as GraphStore>::NAME,
                Capability::Weights,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cost model's "one 16-byte slot per segment".
    #[test]
    fn a_slot_is_16_bytes() {
        assert_eq!(std::mem::size_of::<OnceLock<Arc<FrozenSegment>>>(), 16);
    }
}
