//! A segment: `NUM_V_SEG` consecutive vertices, their entries, in-lists and
//! properties, behind one lock; and the per-list edits every update path
//! shares.

use crate::adjacency::{AdjList, ID_MASK, MAX_TOMBSTONES, TOMBSTONE};
use crate::alloc::EdgeAllocator;
use crate::config::DeleteMode;
use dyngraph_core::{Semantics, VertexId, Weight};

/// The vertices of one segment. Ids are implicit:
/// `segment_index * segment_size + position`.
pub(crate) struct SegmentData {
    /// Out-lists (the vertex entries; they also carry the deleted flag).
    pub(crate) out: Box<[AdjList]>,
    /// In-lists, parallel to `out`; empty when reverse edges are off.
    pub(crate) incoming: Box<[AdjList]>,
    /// Live out-edges of this segment's vertices.
    pub(crate) live_edges: u64,
    /// Vertices of this segment flagged deleted.
    pub(crate) deleted_vertices: u64,
    /// Vertex property columns, each parallel to `out`.
    pub(crate) properties: Vec<Box<[f64]>>,
}

/// A segment with its lock (one `parking_lot` mutex per segment).
pub(crate) type Segment = parking_lot::Mutex<SegmentData>;

impl SegmentData {
    pub(crate) fn new(size: usize, weighted: bool, reverse: bool, defaults: &[f64]) -> Self {
        Self {
            out: (0..size).map(|_| AdjList::new(weighted)).collect(),
            incoming: if reverse {
                (0..size).map(|_| AdjList::new(false)).collect()
            } else {
                Box::default()
            },
            live_edges: 0,
            deleted_vertices: 0,
            properties: defaults
                .iter()
                .map(|&default| vec![default; size].into_boxed_slice())
                .collect(),
        }
    }

    /// A deep copy whose edge arrays come from `allocator`.
    pub(crate) fn clone_in(&self, allocator: &EdgeAllocator) -> Self {
        Self {
            out: self.out.iter().map(|l| l.clone_in(allocator)).collect(),
            incoming: self
                .incoming
                .iter()
                .map(|l| l.clone_in(allocator))
                .collect(),
            live_edges: self.live_edges,
            deleted_vertices: self.deleted_vertices,
            properties: self.properties.clone(),
        }
    }

    /// Clears vertex `index`'s deleted flag (an edge now touches it);
    /// `true` if it was set.
    pub(crate) fn undelete(&mut self, index: usize) -> bool {
        let deleted = self.out[index].is_vertex_deleted();
        if deleted {
            self.out[index].set_vertex_deleted(false);
            self.deleted_vertices -= 1;
        }
        deleted
    }

    /// Bytes of the edge arrays as the allocator holds them.
    pub(crate) fn block_footprint(&self, allocator: &EdgeAllocator) -> usize {
        self.out
            .iter()
            .chain(self.incoming.iter())
            .map(|l| match l.block_bytes() {
                0 => 0,
                bytes => allocator.footprint(bytes),
            })
            .sum()
    }

    /// # Safety
    /// `allocator` is the allocator of the store this segment lives in.
    pub(crate) unsafe fn release_on_drop(&mut self, allocator: &EdgeAllocator) {
        for list in self.out.iter_mut().chain(self.incoming.iter_mut()) {
            // SAFETY: forwarded contract.
            unsafe { list.release_on_drop(allocator) };
        }
    }
}

/// The edits of one list, with the store's allocator and delete mode.
///
/// Every method is `unsafe` for one reason: the list must live in the store
/// whose allocator this editor holds (invariant I of
/// [`crate::adjacency`]).
#[derive(Clone, Copy)]
pub(crate) struct Editor<'a> {
    pub(crate) allocator: &'a EdgeAllocator,
    pub(crate) delete_mode: DeleteMode,
}

impl Editor<'_> {
    /// Inserts `id`; under [`Semantics::Simple`] only when no live slot
    /// holds it (a tombstone is revived). Multigraph inserts go after the
    /// equal slots, so equal edges keep arrival order (oldest first).
    ///
    /// # Safety
    /// `list` lives in the store whose allocator is `self.allocator`.
    pub(crate) unsafe fn insert(
        &self,
        list: &mut AdjList,
        id: VertexId,
        weight: Weight,
        semantics: Semantics,
    ) -> bool {
        let range = list.equal_range(id);
        if semantics == Semantics::Simple {
            let ids = &list.ids()[range.clone()];
            if ids.iter().any(|&slot| slot & TOMBSTONE == 0) {
                return false;
            }
            if !range.is_empty() {
                list.revive(range.start, weight);
                return true;
            }
        }
        // SAFETY: forwarded contract.
        unsafe { list.insert_at(self.allocator, range.end, id, weight) };
        true
    }

    /// Deletes the oldest live occurrence of `id`; `true` if one was there.
    ///
    /// # Safety
    /// `list` lives in the store whose allocator is `self.allocator`.
    pub(crate) unsafe fn delete_one(&self, list: &mut AdjList, id: VertexId) -> bool {
        let range = list.equal_range(id);
        let Some(pos) = range.clone().find(|&pos| list.ids()[pos] & TOMBSTONE == 0) else {
            return false;
        };
        if self.delete_mode == DeleteMode::Logical && list.tombstones() < MAX_TOMBSTONES {
            list.bury(pos);
        } else {
            // SAFETY: forwarded contract.
            unsafe { list.remove_at(self.allocator, pos) };
        }
        true
    }

    /// Deletes every live occurrence of `id`; returns how many.
    ///
    /// # Safety
    /// `list` lives in the store whose allocator is `self.allocator`.
    pub(crate) unsafe fn delete_all(&self, list: &mut AdjList, id: VertexId) -> u64 {
        let mut removed = 0;
        // SAFETY: forwarded contract.
        while unsafe { self.delete_one(list, id) } {
            removed += 1;
        }
        removed
    }

    /// Rebuilds `list` without its tombstones; returns the slots reclaimed.
    ///
    /// # Safety
    /// `list` lives in the store whose allocator is `self.allocator`.
    pub(crate) unsafe fn compact(
        &self,
        list: &mut AdjList,
        ids: &mut Vec<u32>,
        weights: &mut Vec<Weight>,
    ) -> usize {
        let reclaimed = list.tombstones();
        if reclaimed == 0 {
            return 0;
        }
        ids.clear();
        weights.clear();
        let list_weights = list.weights();
        for (pos, &slot) in list.ids().iter().enumerate() {
            if slot & TOMBSTONE == 0 {
                ids.push(slot);
                if let Some(&w) = list_weights.get(pos) {
                    weights.push(w);
                }
            }
        }
        // SAFETY: forwarded contract.
        unsafe { list.replace(self.allocator, ids, weights) };
        reclaimed
    }
}

/// Merges a sorted group of new edges `(id, weight)` into `list` through
/// scratch buffers and one fresh array (tombstones are dropped on the way).
/// `set_union`: add only ids with no live slot and drop repeats within the
/// group (first one wins); otherwise add every new edge after the equal old
/// ones. Calls `added` for each edge actually added; returns their number.
///
/// # Safety
/// `list` lives in the store whose allocator is `editor.allocator`.
pub(crate) unsafe fn merge_sorted(
    editor: &Editor<'_>,
    list: &mut AdjList,
    group: &[(VertexId, Weight)],
    set_union: bool,
    scratch: &mut (Vec<u32>, Vec<Weight>),
    mut added: impl FnMut(VertexId),
) -> u64 {
    let (ids_out, weights_out) = scratch;
    ids_out.clear();
    weights_out.clear();
    let weighted = list.is_weighted();
    let ids = list.ids();
    let weights = list.weights();
    let mut count = 0;
    let (mut i, mut j) = (0, 0);
    while i < ids.len() || j < group.len() {
        let take_old = j == group.len() || (i < ids.len() && ids[i] & ID_MASK <= group[j].0);
        if take_old {
            if ids[i] & TOMBSTONE == 0 {
                ids_out.push(ids[i]);
                if weighted {
                    weights_out.push(weights[i]);
                }
            }
            i += 1;
        } else {
            let (id, weight) = group[j];
            j += 1;
            if set_union && ids_out.last() == Some(&id) {
                continue;
            }
            ids_out.push(id);
            if weighted {
                weights_out.push(weight);
            }
            added(id);
            count += 1;
        }
    }
    // SAFETY: forwarded contract.
    unsafe { list.replace(editor.allocator, ids_out, weights_out) };
    count
}
