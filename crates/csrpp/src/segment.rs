//! A segment: `NUM_V_SEG` consecutive vertices, their entries, in-lists and
//! properties, behind one lock; and the per-list edits every update path
//! shares.

use crate::adjacency::{
    AdjList, ID_MASK, MAX_TOMBSTONES, Slab, TOMBSTONE, block_bytes, capacity_for, inline_capacity,
};
use crate::alloc::{BlockSource, EdgeAllocator};
use crate::options::DeleteMode;
use dyngraph_core::{Semantics, VertexId, Weight};
use rayon::prelude::*;
use std::ptr::NonNull;

/// The vertices of one segment. Ids are implicit:
/// `segment_index * segment_size + position`.
pub(crate) struct SegmentData {
    /// Out-lists (the vertex entries; they also carry the deleted flag).
    pub(crate) out: Box<[AdjList]>,
    /// In-lists, parallel to `out`; empty when the store keeps no in-edges.
    pub(crate) incoming: Box<[AdjList]>,
    /// Live out-edges of this segment's vertices.
    pub(crate) live_edges: u64,
    /// Vertices of this segment flagged deleted.
    pub(crate) deleted_vertices: u64,
    /// Vertex property columns, each parallel to `out`.
    pub(crate) properties: Vec<Box<[f64]>>,
    /// Packed arrays from bulk loads that lists of this segment point into.
    pub(crate) slabs: Vec<Slab>,
    /// Per side (out, in): slots the last packing (bulk load or re-pack)
    /// put into a slab, and an estimate of the slots batches have since
    /// left in allocator blocks (the lengths of the lists a batch merge
    /// left outside a slab, so an over-estimate). Only when the estimate
    /// reaches 1/[`REPACK_SHARE`] of what was packed does a batch look at the lists to
    /// decide on a re-pack, which keeps that scan off the common path.
    pub(crate) packing: [Packing; 2],
}

/// See [`SegmentData::packing`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Packing {
    packed: usize,
    unpacked: usize,
}

fn side(incoming: bool) -> usize {
    usize::from(incoming)
}

/// An immutable copy of one segment's lists, taken for snapshots the first
/// time the segment changes after them (see [`crate::snapshot`]): the live
/// slots of every out- and in-list, tombstones dropped, each array exactly
/// sized and all of them back to back in one slab, in vertex order, so a
/// view scans a saved segment as a freshly loaded one.
pub(crate) struct FrozenSegment {
    pub(crate) out: Box<[AdjList]>,
    pub(crate) incoming: Box<[AdjList]>,
    /// The arrays of the lists too long to be inline. Owned here, so the
    /// lists (which point into it) live exactly as long as it; no list of
    /// a frozen segment owns an allocator block.
    slab: Option<Slab>,
}

impl FrozenSegment {
    /// Heap bytes: the entries and the slab.
    pub(crate) fn memory_bytes(&self) -> usize {
        (self.out.len() + self.incoming.len()) * std::mem::size_of::<AdjList>()
            + self.slab.as_ref().map_or(0, Slab::bytes)
    }
}

/// A segment with its lock (one `parking_lot` mutex per segment).
pub(crate) type Segment = parking_lot::Mutex<SegmentData>;

/// Empty vectors with room for one segment's out- and in-entries, for
/// [`SegmentData::clone_in`] to fill.
///
/// A clone allocates these for every segment before it copies any list
/// ([`EntryArrays::for_segments`]): allocated one after the other, the
/// entry arrays land back to back, as a bulk load's do (`grow_segments`),
/// so a scan over consecutive vertices of the clone streams through its
/// entries. Allocated while the lists are copied, they would be
/// interleaved with the slab copies and scattered (a pass reading every
/// in-entry of a cloned Kronecker scale-21 store took 2.0–2.5× as long).
pub(crate) struct EntryArrays {
    out: Vec<AdjList>,
    incoming: Vec<AdjList>,
}

impl EntryArrays {
    /// For segments holding `lengths[s] = (out-entries, in-entries)`, room
    /// for as many entries each. The segments are split into one run per
    /// thread; each run allocates its out-entry arrays, then its in-entry
    /// arrays, one after the other. One run per thread, not one run in
    /// all: the allocator writes a header into every array as it hands it
    /// out, so the allocation loop takes the page faults of all the entry
    /// memory, and those are worth spreading (on one thread a clone of a
    /// freshly loaded store took 1.7–1.8× as long).
    pub(crate) fn for_segments(lengths: &[(usize, usize)]) -> Vec<EntryArrays> {
        let run = lengths.len().div_ceil(rayon::current_num_threads()).max(1);
        lengths
            .par_chunks(run)
            .flat_map_iter(Self::for_run)
            .collect()
    }

    /// As [`EntryArrays::for_segments`], on the calling thread, in one run.
    pub(crate) fn for_segments_serial(lengths: &[(usize, usize)]) -> Vec<EntryArrays> {
        Self::for_run(lengths).collect()
    }

    /// One run's out-entry arrays, then its in-entry arrays.
    fn for_run(run: &[(usize, usize)]) -> impl Iterator<Item = EntryArrays> {
        let outs: Vec<Vec<AdjList>> = run
            .iter()
            .map(|&(out, _)| Vec::with_capacity(out))
            .collect();
        let incomings: Vec<Vec<AdjList>> = run
            .iter()
            .map(|&(_, incoming)| Vec::with_capacity(incoming))
            .collect();
        outs.into_iter()
            .zip(incomings)
            .map(|(out, incoming)| EntryArrays { out, incoming })
    }
}

impl SegmentData {
    /// A segment over empty entry arrays `out` and `incoming` (empty when
    /// the store keeps no in-edges), properties at their defaults.
    pub(crate) fn with_entries(
        out: Box<[AdjList]>,
        incoming: Box<[AdjList]>,
        defaults: &[f64],
    ) -> Self {
        let size = out.len();
        Self {
            out,
            incoming,
            live_edges: 0,
            deleted_vertices: 0,
            properties: defaults
                .iter()
                .map(|&default| vec![default; size].into_boxed_slice())
                .collect(),
            slabs: Vec::new(),
            packing: [Packing::default(); 2],
        }
    }

    /// The segment's lists as they are now, frozen for snapshots (see
    /// [`FrozenSegment`]): one pass to size the slab, one to copy.
    pub(crate) fn freeze(&self) -> FrozenSegment {
        let lists = || self.out.iter().chain(self.incoming.iter());
        let words: usize = lists().map(AdjList::frozen_words).sum();
        let slab = (words > 0).then(|| Slab::new(words));
        let mut offset = 0;
        let mut copy = |list: &AdjList| {
            let start = slab.as_ref().map_or(NonNull::dangling(), |slab| {
                // SAFETY: `offset` plus this list's words is at most
                // `words`, the slab's size (the lists are walked in the
                // same order as when summing), so the pointer stays
                // inside the slab.
                unsafe { NonNull::new_unchecked(slab.start().as_ptr().add(offset)) }
            });
            let used = list.frozen_words();
            // SAFETY: `start` names `used` words of the fresh slab that no
            // other list is given (each list gets the words after the
            // previous one's), and the slab is moved into the frozen
            // segment with the lists, which it therefore outlives.
            let frozen = unsafe { list.frozen_copy(start) };
            offset += used;
            frozen
        };
        let out = self.out.iter().map(&mut copy).collect();
        let incoming = self.incoming.iter().map(&mut copy).collect();
        debug_assert_eq!(offset, words);
        FrozenSegment {
            out,
            incoming,
            slab,
        }
    }

    /// A deep copy whose edge arrays come from `allocator` and whose
    /// entries are written into `out` and `incoming` (empty vectors the
    /// caller allocated, with room for this segment's entries: see
    /// [`EntryArrays`]). Slab arrays are copied a whole slab at a time (one
    /// `memcpy`) and the lists rebased, so the copy keeps the packed layout.
    pub(crate) fn clone_in(&self, allocator: &EdgeAllocator, entries: EntryArrays) -> Self {
        let EntryArrays {
            mut out,
            mut incoming,
        } = entries;
        let slabs: Vec<Slab> = self.slabs.iter().map(Slab::duplicate).collect();
        let copy_list = |list: &AdjList| {
            if !list.is_in_slab() {
                return list.clone_in(allocator);
            }
            let k = self
                .slabs
                .iter()
                .position(|slab| slab.holds(list))
                .expect("a slab list points into a slab of its segment");
            // SAFETY: the list is in `self.slabs[k]`, and `slabs[k]` is a
            // byte copy of it owned by the new segment with the list.
            unsafe { list.rebased(self.slabs[k].start(), slabs[k].start()) }
        };
        out.extend(self.out.iter().map(copy_list));
        incoming.extend(self.incoming.iter().map(copy_list));
        Self {
            out: out.into_boxed_slice(),
            incoming: incoming.into_boxed_slice(),
            live_edges: self.live_edges,
            deleted_vertices: self.deleted_vertices,
            properties: self.properties.clone(),
            slabs,
            packing: self.packing,
        }
    }

    /// Drops slabs no list points into any more.
    pub(crate) fn drop_unused_slabs(&mut self) {
        let (out, incoming) = (&self.out, &self.incoming);
        self.slabs
            .retain(|slab| out.iter().chain(incoming.iter()).any(|l| slab.holds(l)));
    }

    /// Fills empty lists (`incoming` or out) from sorted runs of `ids`
    /// (and `weights`, parallel to `ids`, when weighted): run
    /// `(index, start, end)` becomes the list of vertex `index`. Arrays of
    /// lists too long to be inline ([`inline_capacity`]) are packed into
    /// one new slab, exactly sized or, with `headroom`, with their
    /// power-of-two capacity.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn fill_from_runs(
        &mut self,
        allocator: &EdgeAllocator,
        headroom: bool,
        incoming: bool,
        ids: &[u32],
        weights: &[Weight],
        runs: &[(usize, usize, usize)],
    ) {
        self.drop_unused_slabs();
        let lists = if incoming {
            &mut self.incoming
        } else {
            &mut self.out
        };
        let weighted = lists.first().is_some_and(AdjList::is_weighted);
        let words_per_slot = block_bytes(1, weighted) / 4;
        let inline_cap = inline_capacity(weighted);
        let slots = |len: usize| {
            if headroom {
                capacity_for(len, weighted)
            } else {
                len
            }
        };
        let total: usize = runs
            .iter()
            .map(|&(_, start, end)| end - start)
            .filter(|&len| len > inline_cap)
            .map(|len| slots(len) * words_per_slot)
            .sum();
        let slab = (total > 0).then(|| Slab::new(total));
        let mut offset = 0;
        for &(index, start, end) in runs {
            let list = &mut lists[index];
            debug_assert_eq!(list.len(), 0, "fill_from_runs needs empty lists");
            let deleted = list.is_vertex_deleted();
            let len = end - start;
            let run_weights: &[Weight] = if weighted { &weights[start..end] } else { &[] };
            let mut fresh = match &slab {
                Some(slab) if len > inline_cap => {
                    let cap = slots(len);
                    // SAFETY: the runs' arrays take `total` words, so
                    // `[offset, offset + cap * words_per_slot)` is inside
                    // the slab; ids then weights (from slot `cap`) are
                    // written there before the list is made, and each run
                    // gets its own range.
                    unsafe {
                        let block = NonNull::new_unchecked(slab.start().as_ptr().add(offset));
                        std::ptr::copy_nonoverlapping(
                            ids[start..end].as_ptr(),
                            block.as_ptr(),
                            len,
                        );
                        if weighted {
                            std::ptr::copy_nonoverlapping(
                                run_weights.as_ptr(),
                                block.as_ptr().add(cap).cast::<Weight>(),
                                len,
                            );
                        }
                        offset += cap * words_per_slot;
                        AdjList::from_slab(block, len, weighted, !headroom)
                    }
                }
                _ => AdjList::from_sorted(allocator, weighted, &ids[start..end], run_weights),
            };
            fresh.set_vertex_deleted(deleted);
            *list = fresh;
        }
        if let Some(slab) = slab {
            self.slabs.push(slab);
        }
        self.packing[side(incoming)] = Packing {
            packed: ids.len(),
            unpacked: 0,
        };
    }

    /// Merges sorted groups of new slots into lists without tombstones of
    /// this segment (`incoming` or out): group `(index, start, end)` adds
    /// `pending[start..end]` to the list of vertex `index`; groups are in
    /// increasing `index` order.
    ///
    /// With `repack`, when earlier batches have left at least 1/[`REPACK_SHARE`] of the
    /// side's short-list slots outside slabs (see [`should_repack`]),
    /// every list is instead written, merged, into one fresh slab in
    /// vertex order — except inline lists and changing lists longer than
    /// [`PACK_LIMIT`] — with the capacity [`repacked_capacity`] gives, and
    /// the blocks and unused slabs are released: one pass over the segment
    /// restores the packed scan layout of a bulk load, with room to grow
    /// where this batch inserted. Sides holding tombstones are never
    /// re-packed.
    ///
    /// # Safety
    /// `allocator` is the allocator of the store this segment lives in.
    pub(crate) unsafe fn merge_groups(
        &mut self,
        allocator: &EdgeAllocator,
        incoming: bool,
        repack: bool,
        pending: &[(VertexId, Weight)],
        groups: &[(usize, usize, usize)],
    ) {
        if groups.is_empty() {
            return;
        }
        let lists = if incoming {
            &mut self.incoming
        } else {
            &mut self.out
        };
        let packing = &mut self.packing[side(incoming)];
        let likely = REPACK_SHARE * packing.unpacked >= packing.packed.max(MIN_REPACK_SLOTS);
        for &(index, _, _) in groups {
            lists[index].prefetch_array();
        }
        // One lock of this thread's arena shard for all the merges.
        let blocks = allocator.local();
        if repack && likely && should_repack(lists) {
            // SAFETY: forwarded contract.
            unsafe { self.repack(&blocks, incoming, pending, groups) };
            return;
        }
        for &(index, start, end) in groups {
            let list = &mut lists[index];
            // SAFETY: forwarded contract (`blocks` is `allocator`'s).
            unsafe { list.merge_in(&blocks, &pending[start..end]) };
            if list.has_block() && !list.is_in_slab() {
                packing.unpacked += list.len();
            }
        }
    }

    /// The re-packing part of [`SegmentData::merge_groups`].
    ///
    /// # Safety
    /// As for [`SegmentData::merge_groups`]; no list of the side holds
    /// tombstones.
    unsafe fn repack(
        &mut self,
        allocator: &impl BlockSource,
        incoming: bool,
        pending: &[(VertexId, Weight)],
        groups: &[(usize, usize, usize)],
    ) {
        let lists = if incoming {
            &mut self.incoming
        } else {
            &mut self.out
        };
        let weighted = lists.first().is_some_and(AdjList::is_weighted);
        let words_per_slot = block_bytes(1, weighted) / 4;
        let added = |g: usize| {
            groups
                .get(g)
                .map(|&(index, start, end)| (index, end - start))
        };
        // Pass 1: the slab's size from every list's final length.
        let mut words = 0;
        let mut g = 0;
        for (index, list) in lists.iter().enumerate() {
            let mut len = list.len();
            if let Some((at, count)) = added(g)
                && at == index
            {
                len += count;
                g += 1;
            }
            if packs(list, len) {
                words += repacked_capacity(len, len > list.len(), weighted) * words_per_slot;
            }
        }
        let slab = Slab::new(words.max(1));
        // Pass 2: merge each list into its place in the slab.
        let mut offset = 0;
        let mut g = 0;
        for (index, list) in lists.iter_mut().enumerate() {
            let mut new: &[(VertexId, Weight)] = &[];
            if let Some(&(at, start, end)) = groups.get(g)
                && at == index
            {
                new = &pending[start..end];
                g += 1;
            }
            let len = list.len() + new.len();
            if !packs(list, len) {
                // Empty, inline, or long and changing: merged on its own.
                // SAFETY: forwarded contract.
                unsafe { list.merge_in(allocator, new) };
                continue;
            }
            let grows = !new.is_empty();
            let cap = repacked_capacity(len, grows, weighted);
            // SAFETY: pass 1 reserved `cap * words_per_slot` words at
            // `offset` for this list (in vertex order, as here), inside the
            // fresh slab, which overlaps no list's array. The merged slots
            // are written before the list is pointed at them; the old
            // array is released (a block) or left to its slab, which is
            // dropped below once unused.
            unsafe {
                let block = NonNull::new_unchecked(slab.start().as_ptr().add(offset));
                list.write_merged(new, block, cap);
                let deleted = list.is_vertex_deleted();
                list.free(allocator);
                *list = AdjList::from_slab(block, len, weighted, !grows);
                list.set_vertex_deleted(deleted);
            }
            offset += cap * words_per_slot;
        }
        debug_assert_eq!(offset, words);
        if words > 0 {
            self.slabs.push(slab);
        }
        self.packing[side(incoming)] = Packing {
            packed: words / words_per_slot,
            unpacked: 0,
        };
        self.drop_unused_slabs();
    }

    /// Inserts one edge into list `index` of `incoming` or out (see
    /// [`Editor::insert`]), noting an array that leaves its slab in the
    /// re-pack estimate ([`SegmentData::packing`]); `true` if added.
    ///
    /// # Safety
    /// The segment lives in the store whose allocator `editor` holds.
    pub(crate) unsafe fn insert_one(
        &mut self,
        editor: &Editor<'_>,
        incoming: bool,
        index: usize,
        id: VertexId,
        weight: Weight,
        semantics: Semantics,
    ) -> bool {
        let list = if incoming {
            &mut self.incoming[index]
        } else {
            &mut self.out[index]
        };
        let was_in_slab = list.is_in_slab();
        // SAFETY: forwarded contract.
        let added = unsafe { editor.insert(list, id, weight, semantics) };
        if was_in_slab && !list.is_in_slab() {
            self.packing[side(incoming)].unpacked += list.len();
        }
        added
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
        self.slabs.iter().map(Slab::bytes).sum::<usize>()
            + self
                .out
                .iter()
                .chain(self.incoming.iter())
                .map(|l| match l.block_bytes() {
                    0 => 0,
                    bytes => allocator.footprint(bytes),
                })
                .sum::<usize>()
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

/// A segment side is re-packed once 1/`REPACK_SHARE` of its short-list
/// slots live outside slabs. On a Kronecker stream, 100 batches leave
/// about 10 % of the arrays out of place with 1/32, 26 % with 1/4, 55 %
/// with 1/2 and 99 % without re-packing, while the batches take 2.9×,
/// 1.8× and 1.5× as long as without (`BENCHMARKS.md`, issue 6, second
/// pass); 1/4 is the middle.
const REPACK_SHARE: usize = 4;

/// Segment sides with fewer short-list slots are never re-packed: it
/// saves little and costs a slab allocation.
const MIN_REPACK_SLOTS: usize = 64;

/// Lists longer than this many slots are left out of a re-pack when they
/// change (they are merged into a block of their own): a long array is a
/// sequential scan by itself, and copying hub arrays on every re-pack is
/// what would make re-packing cost more than it saves.
pub(crate) const PACK_LIMIT: usize = 1024;

/// The capacity a re-pack gives a list of `len` slots: its power of two
/// when this batch adds to it (what grows now tends to grow again, so it
/// gets room to do so in place), else exactly `len` (dense, as after a
/// bulk load: a scan then streams no gaps through the cache).
fn repacked_capacity(len: usize, grows: bool, weighted: bool) -> usize {
    if grows {
        capacity_for(len, weighted)
    } else {
        len
    }
}

/// Whether a re-pack moves the list of final length `len` into the new
/// slab: when it is too long to be inline but has at most [`PACK_LIMIT`]
/// slots, or more but is untouched and in a slab (so the old slab can go).
fn packs(list: &AdjList, len: usize) -> bool {
    len > inline_capacity(list.is_weighted())
        && (len <= PACK_LIMIT || (len == list.len() && list.is_in_slab()))
}

/// Whether at least 1/[`REPACK_SHARE`] of the slots of `lists`' short lists
/// (those with a block, up to [`PACK_LIMIT`] slots) already live in allocator blocks rather than
/// slabs, and no list holds a tombstone.
///
/// Only lists that left their slab in earlier updates count, not those
/// this batch will move: so the first batch after a bulk load relocates
/// what it touches as before (and costs no more than it did), and a later
/// batch into the segment packs it again. A re-pack thus costs one pass
/// over the segment per batch at most, and only where earlier updates
/// scattered it.
fn should_repack(lists: &[AdjList]) -> bool {
    let (mut total, mut outside) = (0, 0);
    for list in lists {
        if list.tombstones() > 0 {
            return false;
        }
        let len = list.len();
        if list.has_block() && len <= PACK_LIMIT {
            total += len;
            if !list.is_in_slab() {
                outside += len;
            }
        }
    }
    total >= MIN_REPACK_SLOTS && REPACK_SHARE * outside >= total
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
