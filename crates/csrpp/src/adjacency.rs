//! One vertex's edge list: the CSR++ vertex entry and its edge array.
//!
//! An [`AdjList`] is 16 bytes: the number of slots in use, a metadata word
//! (tombstone count, "weighted" and "vertex deleted" flags) and one 8-byte
//! slot that is either
//! - nothing, when the list is empty;
//! - the slots themselves, inline, when there are at most
//!   [`inline_capacity`] of them: one `(id, weight)` pair in a weighted
//!   list (CSR++'s degree-1 optimisation), up to two ids in an unweighted
//!   one (an `[u32; 2]`, so degree-2 vertices need no array either); or
//! - a pointer to an edge array of capacity `len.next_power_of_two()`,
//!   laid out as `[u32 id; cap]` followed, when weighted, by
//!   `[f32 weight; cap]` — one allocation, so weights stay aligned with
//!   their edges by construction.
//!
//! Ids are kept sorted. A logically deleted edge keeps its slot with the
//! [`TOMBSTONE`] bit set on its id, so the order (by `id & ID_MASK`) holds
//! and every reader skips it.
//!
//! Invariant (I): a list with `len > inline_capacity(weighted)` (it "has a
//! block") either owns a block of exactly
//! `block_bytes(capacity_for(len, weighted), weighted)` bytes from the
//! allocator of the store it lives in, or — flagged `IN_SLAB`, after a bulk
//! load — points at `block_bytes(cap, weighted)` bytes inside a [`Slab`]
//! owned by its segment, which outlives the list's use of it (`cap` is
//! `len`, or `capacity_for(len, weighted)` when the slab has headroom). A
//! list with `len <= inline_capacity(weighted)` holds its slots in the
//! entry and no block. The functions that (de)allocate are `unsafe` and
//! ask their caller for that allocator.
//!
//! Slabs are CSR++'s load layout: a bulk load into empty vertices packs
//! all their arrays back to back, exactly sized, so a scan right after
//! loading walks memory as it would in CSR. The first insert or physical
//! delete moves a vertex's array out into an allocator block.

use crate::alloc::{BlockSource, EdgeAllocator};
use dyngraph_core::hint::prefetch_address;
use dyngraph_core::{VertexId, Weight};
use std::ptr::{self, NonNull};

/// Bit set on the id of a logically deleted edge.
pub(crate) const TOMBSTONE: u32 = 1 << 31;
/// The id bits of a slot.
pub(crate) const ID_MASK: u32 = !TOMBSTONE;

const VERTEX_DELETED: u32 = 1 << 31;
const WEIGHTED: u32 = 1 << 30;
/// The array lives in its segment's slab (see [`Slab`]), not in a block
/// of the allocator: its capacity is exactly its length and it is never
/// freed on its own.
const IN_SLAB: u32 = 1 << 29;
/// With `IN_SLAB`: the slab array has no headroom (capacity = length);
/// without it a slab array has the power-of-two capacity of a block.
const EXACT: u32 = 1 << 28;
const SLAB_FLAGS: u32 = IN_SLAB | EXACT;
const TOMBSTONE_COUNT: u32 = EXACT - 1;
/// Most tombstones one list may hold before deletes fall back to physical.
pub(crate) const MAX_TOMBSTONES: usize = TOMBSTONE_COUNT as usize;

#[derive(Clone, Copy)]
#[repr(C)]
struct Inline {
    id: u32,
    weight: Weight,
}

/// The entry's 8-byte slot. Which variant is live follows from the list's
/// length and weightedness alone ([`AdjList::has_block`]): `block` when it
/// has a block; otherwise `inline` when weighted, `pair` when not. `pair[0]`
/// and `inline.id` share their bytes (`Inline` is `repr(C)`), so inline ids
/// are always read as `pair[..len]`. Every inline state is written whole
/// (all 8 bytes), so reading `pair` is never a read of uninitialised bytes.
#[derive(Clone, Copy)]
union Slot {
    block: NonNull<u32>,
    inline: Inline,
    pair: [u32; 2],
}

/// A vertex entry: its sorted neighbour list (see the module docs).
pub(crate) struct AdjList {
    len: u32,
    meta: u32,
    slot: Slot,
}

// SAFETY: an `AdjList` uniquely owns its block (invariant I); it holds no
// thread-bound state, so moving it to another thread is fine.
unsafe impl Send for AdjList {}
// SAFETY: through `&AdjList` the block is only read.
unsafe impl Sync for AdjList {}

/// The list of a vertex outside the graph, which the read traits answer as
/// isolated: empty, one unweighted and one weighted (a weighted store's
/// readers take weights from it too).
pub(crate) static EMPTY_LISTS: [AdjList; 2] = [AdjList::new(false), AdjList::new(true)];

/// Most slots a list keeps inline in its entry: one `(id, weight)` when
/// weighted, two ids when not.
#[inline]
pub(crate) fn inline_capacity(weighted: bool) -> usize {
    if weighted { 1 } else { 2 }
}

/// Capacity of a list with `len` slots: `len` itself while it fits inline
/// ([`inline_capacity`]), else the next power of two. Growth doubles it,
/// physical deletes halve it once the list is half empty (or move it back
/// inline), so it is always this function of the length and weightedness.
pub(crate) fn capacity_for(len: usize, weighted: bool) -> usize {
    if len <= inline_capacity(weighted) {
        len
    } else {
        len.next_power_of_two()
    }
}

/// Bytes of a block with `cap` slots.
pub(crate) fn block_bytes(cap: usize, weighted: bool) -> usize {
    cap * if weighted { 8 } else { 4 }
}

/// Pointer to the weights of a block with `cap` slots.
///
/// # Safety
/// `block` is a weighted block of at least `cap` slots.
unsafe fn weights_ptr(block: NonNull<u32>, cap: usize) -> *mut Weight {
    // SAFETY: a weighted block holds `2 * cap` words; offset `cap` is in
    // bounds, and `f32` has the size and alignment of `u32`.
    unsafe { block.as_ptr().add(cap).cast() }
}

/// Writes slot `pos` of a block.
///
/// # Safety
/// `pos < cap`, and `block` holds `cap` slots (weighted iff `weighted`).
unsafe fn write_slot(block: NonNull<u32>, cap: usize, weighted: bool, pos: usize, slot: Inline) {
    // SAFETY: `pos < cap`, in bounds of the ids and (if any) the weights.
    unsafe {
        block.as_ptr().add(pos).write(slot.id);
        if weighted {
            weights_ptr(block, cap).add(pos).write(slot.weight);
        }
    }
}

/// Copies `count` slots from `from[src..]` to `to[dst..]` (ids and weights).
/// The two blocks may be the same (overlapping moves are fine).
///
/// # Safety
/// Both ranges are in bounds of their blocks (capacities `from_cap` and
/// `to_cap`), the source slots are initialised.
#[allow(clippy::too_many_arguments)]
unsafe fn copy_slots(
    from: NonNull<u32>,
    from_cap: usize,
    src: usize,
    to: NonNull<u32>,
    to_cap: usize,
    dst: usize,
    count: usize,
    weighted: bool,
) {
    // SAFETY: bounds per the caller; `ptr::copy` allows overlap.
    unsafe {
        ptr::copy(from.as_ptr().add(src), to.as_ptr().add(dst), count);
        if weighted {
            ptr::copy(
                weights_ptr(from, from_cap).add(src),
                weights_ptr(to, to_cap).add(dst),
                count,
            );
        }
    }
}

/// Ids a scan steps over at a time: one 64-byte cache line of `u32`s.
const SCAN_STEP: usize = 16;

/// A merge into a list without an array (inline or empty) that ends up
/// with at most this many slots builds the merged list on the stack
/// ([`AdjList::merge_in`]).
const SHORT_MERGE: usize = 16;

/// How many leading ids of the sorted `ids` are `<= id`: the
/// `partition_point` of a binary search, found by a forward scan a cache
/// line at a time instead. A batch merge reads the whole array right after
/// anyway (it copies it), and on a cold array a binary search waits for
/// one cache miss after another (each probe's address depends on the last
/// comparison), while a forward scan's loads do not depend on each other,
/// so the hardware prefetcher and out-of-order execution overlap them.
/// Successive calls resume where the last stopped, so a whole merge scans
/// the array once: `O(d / 16 + k * 16)` for `k` new slots into `d`.
fn leading_at_most(ids: &[u32], id: VertexId) -> usize {
    let mut at = 0;
    while at + SCAN_STEP <= ids.len() && ids[at + SCAN_STEP - 1] <= id {
        at += SCAN_STEP;
    }
    at + ids[at..].iter().take_while(|&&old| old <= id).count()
}

/// How many trailing ids of the sorted `ids` are `> id`: the mirror of
/// [`leading_at_most`] for the backward merge, scanning from the end.
fn trailing_above(ids: &[u32], id: VertexId) -> usize {
    let mut end = ids.len();
    while end >= SCAN_STEP && ids[end - SCAN_STEP] > id {
        end -= SCAN_STEP;
    }
    ids.len() - end + ids[..end].iter().rev().take_while(|&&old| old > id).count()
}

/// Forward merge of old live slots (`old_ids`, no tombstones, with
/// `old_weights` — empty when unweighted) and sorted `new` slots, each new
/// id after the equal old ones; writes `old_ids.len() + new.len()` ids to
/// `ids_out` and, when `weights_out` is given, as many weights there
/// (1.0 for old slots without weights). The old slots between two new
/// ones are found by a scan a cache line at a time ([`leading_at_most`])
/// and copied as one run, so a few new slots into a long list cost a
/// `memcpy` of the list and a compare per cache line of it.
///
/// # Safety
/// Both outputs are valid for that many writes and overlap no input.
unsafe fn merge_forward(
    old_ids: &[u32],
    old_weights: &[Weight],
    new: &[(VertexId, Weight)],
    ids_out: *mut u32,
    weights_out: Option<*mut Weight>,
) {
    // Copies old slots `[from, from + count)` to output slot `to`.
    let copy_old = |from: usize, to: usize, count: usize| {
        // SAFETY: `from + count <= old_ids.len()` and `to + count` is
        // within the outputs (the caller's contract: every output slot is
        // written once, in order).
        unsafe {
            ptr::copy_nonoverlapping(old_ids.as_ptr().add(from), ids_out.add(to), count);
            if let Some(out) = weights_out {
                if old_weights.is_empty() {
                    for k in 0..count {
                        out.add(to + k).write(1.0);
                    }
                } else {
                    ptr::copy_nonoverlapping(old_weights.as_ptr().add(from), out.add(to), count);
                }
            }
        }
    };
    let (mut i, mut w) = (0, 0);
    for &(id, weight) in new {
        let run = leading_at_most(&old_ids[i..], id);
        copy_old(i, w, run);
        i += run;
        w += run;
        // SAFETY: `w < old_ids.len() + new.len()`, as above.
        unsafe {
            ids_out.add(w).write(id);
            if let Some(out) = weights_out {
                out.add(w).write(weight);
            }
        }
        w += 1;
    }
    copy_old(i, w, old_ids.len() - i);
}

impl AdjList {
    /// An empty list; `weighted` lists store an `f32` per edge.
    pub(crate) const fn new(weighted: bool) -> Self {
        Self {
            len: 0,
            meta: if weighted { WEIGHTED } else { 0 },
            slot: Slot {
                inline: Inline { id: 0, weight: 0.0 },
            },
        }
    }

    pub(crate) fn is_weighted(&self) -> bool {
        self.meta & WEIGHTED != 0
    }

    /// Slots in use, tombstones included.
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    pub(crate) fn tombstones(&self) -> usize {
        (self.meta & TOMBSTONE_COUNT) as usize
    }

    /// Live edges (the degree).
    pub(crate) fn live_len(&self) -> usize {
        self.len() - self.tombstones()
    }

    pub(crate) fn is_vertex_deleted(&self) -> bool {
        self.meta & VERTEX_DELETED != 0
    }

    pub(crate) fn set_vertex_deleted(&mut self, deleted: bool) {
        if deleted {
            self.meta |= VERTEX_DELETED;
        } else {
            self.meta &= !VERTEX_DELETED;
        }
    }

    fn in_slab(&self) -> bool {
        self.meta & IN_SLAB != 0
    }

    /// Whether the slots live in an array (an allocator block or a slab)
    /// rather than inline in the entry: `len > inline_capacity(weighted)`.
    #[inline]
    pub(crate) fn has_block(&self) -> bool {
        self.len() > inline_capacity(self.is_weighted())
    }

    /// Slots the array has room for.
    fn capacity(&self) -> usize {
        if self.meta & SLAB_FLAGS == SLAB_FLAGS {
            self.len()
        } else {
            capacity_for(self.len(), self.is_weighted())
        }
    }

    /// Slot `pos` (`< len`, tombstone bit kept) with its weight (1.0 when
    /// unweighted).
    fn slot_at(&self, pos: usize) -> Inline {
        Inline {
            id: self.ids()[pos],
            weight: self.weights().get(pos).copied().unwrap_or(1.0),
        }
    }

    /// Makes the list hold `slots` inline (at most [`inline_capacity`]),
    /// writing the whole 8-byte slot. Any block the list had must already
    /// be released (or be a slab's); tombstone count and vertex flag are
    /// kept, the slab flags cleared.
    fn set_inline(&mut self, slots: &[Inline]) {
        debug_assert!(slots.len() <= inline_capacity(self.is_weighted()));
        self.slot = if self.is_weighted() {
            Slot {
                inline: slots
                    .first()
                    .copied()
                    .unwrap_or(Inline { id: 0, weight: 0.0 }),
            }
        } else {
            let id = |i: usize| slots.get(i).map_or(0, |slot| slot.id);
            Slot {
                pair: [id(0), id(1)],
            }
        };
        self.len = slots.len() as u32;
        self.meta &= !SLAB_FLAGS;
    }

    fn set_tombstones(&mut self, count: usize) {
        debug_assert!(count <= MAX_TOMBSTONES);
        self.meta = (self.meta & !TOMBSTONE_COUNT) | count as u32;
    }

    /// Bytes of the edge array the allocator holds for this list (0 when
    /// empty, inline or in a slab).
    pub(crate) fn block_bytes(&self) -> usize {
        if self.has_block() && !self.in_slab() {
            block_bytes(
                capacity_for(self.len(), self.is_weighted()),
                self.is_weighted(),
            )
        } else {
            0
        }
    }

    /// The slots' ids (tombstones carry [`TOMBSTONE`]).
    #[inline]
    pub(crate) fn ids(&self) -> &[u32] {
        let len = self.len();
        if self.has_block() {
            // SAFETY: the block variant is live; it holds `len` initialised
            // ids (invariant I) and lives as long as `self`.
            unsafe { std::slice::from_raw_parts(self.slot.block.as_ptr(), len) }
        } else {
            // SAFETY: no block: `len <= inline_capacity <= 2` ids inline,
            // at `pair[..len]` (`pair[0]` is `inline.id` in a weighted
            // list); inline slots are always written whole (`Slot`).
            unsafe { self.slot.pair.get_unchecked(..len) }
        }
    }

    /// The slots' weights, parallel to [`AdjList::ids`]; empty when the
    /// list is not weighted.
    #[inline]
    pub(crate) fn weights(&self) -> &[Weight] {
        if !self.is_weighted() {
            return &[];
        }
        match self.len {
            0 => &[],
            // SAFETY: one slot: the inline variant is the live one.
            1 => std::slice::from_ref(unsafe { &self.slot.inline.weight }),
            // SAFETY: a weighted block of `capacity()` slots holds
            // `len` initialised weights after its ids (invariant I).
            len => unsafe {
                let cap = self.capacity();
                std::slice::from_raw_parts(weights_ptr(self.slot.block, cap), len as usize)
            },
        }
    }

    /// Ids and weights, mutably (weights empty when unweighted).
    fn parts_mut(&mut self) -> (&mut [u32], &mut [Weight]) {
        let weighted = self.is_weighted();
        let len = self.len();
        match (self.has_block(), weighted) {
            (false, true) => {
                // SAFETY: weighted, no block: the inline variant is live
                // (`len <= 1`).
                let inline = unsafe { &mut self.slot.inline };
                (
                    &mut std::slice::from_mut(&mut inline.id)[..len],
                    &mut std::slice::from_mut(&mut inline.weight)[..len],
                )
            }
            (false, false) => {
                // SAFETY: unweighted, no block: the pair variant is live
                // (`len <= 2`).
                let pair = unsafe { &mut self.slot.pair };
                (&mut pair[..len], &mut [])
            }
            (true, _) => {
                let cap = self.capacity();
                // SAFETY: the block is ours (invariant I); ids
                // `[0, len)` and weights `[cap, cap + len)` are disjoint.
                unsafe {
                    let block = self.slot.block;
                    let ids = std::slice::from_raw_parts_mut(block.as_ptr(), len);
                    let weights = if weighted {
                        std::slice::from_raw_parts_mut(weights_ptr(block, cap), len)
                    } else {
                        &mut []
                    };
                    (ids, weights)
                }
            }
        }
    }

    /// First slot whose id is `>= id` (tombstones ordered by their id).
    #[inline]
    pub(crate) fn lower_bound(&self, id: VertexId) -> usize {
        self.ids().partition_point(|&slot| slot & ID_MASK < id)
    }

    /// The slots holding `id`, live or not.
    pub(crate) fn equal_range(&self, id: VertexId) -> std::ops::Range<usize> {
        let ids = self.ids();
        let start = self.lower_bound(id);
        let end = start
            + ids[start..]
                .iter()
                .take_while(|&&s| s & ID_MASK == id)
                .count();
        start..end
    }

    /// Builds a list from sorted live slots. `weights` is empty (all 1.0)
    /// or as long as `ids`; it is ignored when `weighted` is false.
    pub(crate) fn from_sorted(
        allocator: &impl BlockSource,
        weighted: bool,
        ids: &[u32],
        weights: &[Weight],
    ) -> Self {
        debug_assert!(weights.is_empty() || weights.len() == ids.len());
        debug_assert!(ids.iter().all(|&id| id & TOMBSTONE == 0));
        let mut list = Self::new(weighted);
        let weight_at = |i: usize| weights.get(i).copied().unwrap_or(1.0);
        match ids.len() {
            len if len <= inline_capacity(weighted) => {
                let mut slots = [Inline { id: 0, weight: 0.0 }; 2];
                for (i, &id) in ids.iter().enumerate() {
                    slots[i] = Inline {
                        id,
                        weight: weight_at(i),
                    };
                }
                list.set_inline(&slots[..len]);
            }
            len => {
                let cap = capacity_for(len, weighted);
                let block = allocator.allocate(block_bytes(cap, weighted));
                // SAFETY: the fresh block holds `cap >= len` slots.
                unsafe {
                    ptr::copy_nonoverlapping(ids.as_ptr(), block.as_ptr(), len);
                    if weighted {
                        let out = weights_ptr(block, cap);
                        if weights.is_empty() {
                            for i in 0..len {
                                out.add(i).write(1.0);
                            }
                        } else {
                            ptr::copy_nonoverlapping(weights.as_ptr(), out, len);
                        }
                    }
                }
                list.slot = Slot { block };
            }
        }
        list.len = u32::try_from(ids.len()).expect("a vertex holds at most u32::MAX edges");
        list
    }

    /// Words a frozen copy of this list ([`AdjList::frozen_copy`]) needs in
    /// a slab: its live slots, exactly, or none when they fit inline.
    pub(crate) fn frozen_words(&self) -> usize {
        let live = self.live_len();
        if live <= inline_capacity(self.is_weighted()) {
            0
        } else {
            block_bytes(live, self.is_weighted()) / 4
        }
    }

    /// An immutable copy of the live slots (tombstones dropped, in order,
    /// with their weights), for a snapshot: inline when they fit, else an
    /// exact array at `block` (ids, then weights from slot `live_len`).
    /// The vertex-deleted flag is not copied (snapshots do not read it).
    ///
    /// # Safety
    /// When [`AdjList::frozen_words`] is not 0, `block` points at that many
    /// writable words inside a slab that outlives every use of the copy
    /// and that no other list uses.
    pub(crate) unsafe fn frozen_copy(&self, block: NonNull<u32>) -> Self {
        let weighted = self.is_weighted();
        let (ids, weights) = (self.ids(), self.weights());
        let live = (0..ids.len()).filter(|&pos| ids[pos] & TOMBSTONE == 0);
        let weight_at = |pos: usize| weights.get(pos).copied().unwrap_or(1.0);
        let len = self.live_len();
        if len <= inline_capacity(weighted) {
            let mut slots = [Inline { id: 0, weight: 0.0 }; 2];
            for (slot, pos) in slots.iter_mut().zip(live) {
                *slot = Inline {
                    id: ids[pos],
                    weight: weight_at(pos),
                };
            }
            let mut copy = Self::new(weighted);
            copy.set_inline(&slots[..len]);
            return copy;
        }
        // SAFETY: the caller's contract: `block` holds `len` ids and, when
        // weighted, `len` weights after them (`frozen_words`); each of the
        // `len` live positions is written once, in order, below `len`.
        unsafe {
            if self.tombstones() == 0 {
                ptr::copy_nonoverlapping(ids.as_ptr(), block.as_ptr(), len);
                if weighted {
                    ptr::copy_nonoverlapping(weights.as_ptr(), weights_ptr(block, len), len);
                }
            } else {
                for (at, pos) in live.enumerate() {
                    block.as_ptr().add(at).write(ids[pos]);
                    if weighted {
                        weights_ptr(block, len).add(at).write(weight_at(pos));
                    }
                }
            }
            // SAFETY: `len > inline_capacity`, the array at `block` is
            // exactly `len` slots in a slab that outlives the copy (the
            // caller's contract) and holds sorted live ids.
            Self::from_slab(block, len, weighted, true)
        }
    }

    /// A deep copy with the same capacity (so the same allocation class),
    /// tombstones and flags included.
    pub(crate) fn clone_in(&self, allocator: &EdgeAllocator) -> Self {
        let mut copy = Self {
            len: self.len,
            meta: self.meta,
            slot: self.slot,
        };
        if self.has_block() {
            // A slab array is copied out into a block of its own; segments
            // copy whole slabs instead (`SegmentData::clone_in`). Inline
            // slots were copied with the slot above.
            copy.meta &= !SLAB_FLAGS;
            let weighted = self.is_weighted();
            let (cap, new_cap) = (self.capacity(), capacity_for(self.len(), weighted));
            let block = allocator.allocate(block_bytes(new_cap, weighted));
            // SAFETY: `self`'s array holds `len` initialised slots of
            // capacity `cap` (invariant I); the new block has room for
            // `new_cap >= len` and does not overlap it.
            unsafe {
                copy_slots(
                    self.slot.block,
                    cap,
                    0,
                    block,
                    new_cap,
                    0,
                    self.len(),
                    weighted,
                );
            }
            copy.slot = Slot { block };
        }
        copy
    }

    /// A list of `len > inline_capacity(weighted)` slots whose array is at
    /// `block` in a slab.
    ///
    /// `exact`: the array has exactly `len` slots; otherwise
    /// `capacity_for(len, weighted)` (headroom for inserts in place).
    ///
    /// # Safety
    /// `block` points at `block_bytes(cap, weighted)` bytes inside a slab
    /// that outlives every use of the list (`cap` as above), holding `len`
    /// sorted live ids and, when weighted, `len` weights from slot `cap`
    /// on; no other list uses them.
    pub(crate) unsafe fn from_slab(
        block: NonNull<u32>,
        len: usize,
        weighted: bool,
        exact: bool,
    ) -> Self {
        debug_assert!(len > inline_capacity(weighted));
        let mut list = Self::new(weighted);
        list.meta |= if exact { SLAB_FLAGS } else { IN_SLAB };
        list.len = u32::try_from(len).expect("a vertex holds at most u32::MAX edges");
        list.slot = Slot { block };
        list
    }

    /// The same slab list, pointing into a copy of its slab that starts at
    /// `to` instead of `from`.
    ///
    /// # Safety
    /// `self` is in the slab starting at `from`; the slab at `to` is a
    /// byte-for-byte copy of it, with the lifetime requirements of
    /// [`AdjList::from_slab`].
    pub(crate) unsafe fn rebased(&self, from: NonNull<u32>, to: NonNull<u32>) -> Self {
        debug_assert!(self.in_slab() && self.has_block());
        // SAFETY: the list's array is inside the slab at `from`, so its
        // offset is in bounds of the same-sized copy at `to`, and non-null.
        let block = unsafe {
            let offset = self.slot.block.as_ptr().offset_from(from.as_ptr());
            NonNull::new_unchecked(to.as_ptr().offset(offset))
        };
        Self {
            len: self.len,
            meta: self.meta,
            slot: Slot { block },
        }
    }

    /// Starts loading the first cache line of the edge array
    /// ([`prefetch_address`]).
    #[inline]
    pub(crate) fn prefetch_array(&self) {
        if self.has_block() {
            // SAFETY: the block variant is live.
            prefetch_address(unsafe { self.slot.block }.as_ptr());
        }
    }

    /// Whether a live slot holds `id` (binary search).
    pub(crate) fn contains_live(&self, id: VertexId) -> bool {
        let ids = self.ids();
        self.equal_range(id).any(|pos| ids[pos] & TOMBSTONE == 0)
    }

    /// Merges sorted new live slots `new` (ids without the tombstone bit,
    /// equal ids in arrival order) into a list **without tombstones**;
    /// each new id goes after the equal old ones (multigraph order; set
    /// filtering is the caller's). Every slot moves at most once:
    /// - when the array has room for all of them (a block or a slab array
    ///   with headroom, same power-of-two capacity), a backward merge in
    ///   place;
    /// - otherwise one forward merge straight into a fresh block of the
    ///   new capacity (the old block is freed; a slab array is left to its
    ///   slab).
    ///
    /// # Safety
    /// `allocator` is the allocator of the store this list lives in (or a
    /// [`crate::alloc::LocalBlocks`] of it).
    pub(crate) unsafe fn merge_in(
        &mut self,
        allocator: &impl BlockSource,
        new: &[(VertexId, Weight)],
    ) {
        debug_assert_eq!(self.tombstones(), 0);
        debug_assert!(new.windows(2).all(|w| w[0].0 <= w[1].0));
        let (old_len, count) = (self.len(), new.len());
        if count == 0 {
            return;
        }
        let len = old_len + count;
        assert!(
            len < u32::MAX as usize,
            "a vertex holds at most u32::MAX edges"
        );
        let weighted = self.is_weighted();
        if !self.has_block() && len <= SHORT_MERGE {
            // Inline or empty, and short once merged (most touched lists
            // of a batch on skewed graphs): built on the stack, not in two
            // heap vectors per list.
            let mut ids = [0u32; SHORT_MERGE];
            let mut weights = [0.0 as Weight; SHORT_MERGE];
            // SAFETY: both buffers hold `SHORT_MERGE >= len` slots.
            unsafe {
                merge_forward(
                    self.ids(),
                    self.weights(),
                    new,
                    ids.as_mut_ptr(),
                    weighted.then_some(weights.as_mut_ptr()),
                );
            }
            let weights: &[Weight] = if weighted { &weights[..len] } else { &[] };
            // SAFETY: forwarded contract.
            unsafe { self.replace(allocator, &ids[..len], weights) };
            return;
        }
        if !self.has_block() {
            // Inline or empty: at most two old slots; build the merged list
            // in a small vector.
            let mut ids = Vec::with_capacity(len);
            let mut weights = Vec::with_capacity(len);
            let (old_ids, old_weights) = (self.ids(), self.weights());
            // SAFETY: both buffers have capacity `len`; set_len follows.
            unsafe {
                merge_forward(
                    old_ids,
                    old_weights,
                    new,
                    ids.as_mut_ptr(),
                    weighted.then_some(weights.as_mut_ptr()),
                );
                ids.set_len(len);
                if weighted {
                    weights.set_len(len);
                }
            }
            // SAFETY: forwarded contract.
            unsafe { self.replace(allocator, &ids, &weights) };
            return;
        }
        let cap = self.capacity();
        // SAFETY: the list has a block: the block variant is live.
        let old = unsafe { self.slot.block };
        if len <= cap {
            // Backward merge in place, from the last new slot down: the old
            // slots after it move right as one run (`ptr::copy`, which
            // allows the overlap), then it is written in the gap. Nothing
            // is overwritten before it is read, since the write position
            // stays above every unread old slot. Capacity is a function of
            // the length and `len` needs no bigger power of two, so the
            // weights stay at offset `cap`.
            // SAFETY: the array holds `cap >= len` slots (invariant I),
            // `old_len` of them initialised; every index below is `< len`.
            unsafe {
                let ids = old.as_ptr();
                let weights = weighted.then(|| weights_ptr(old, cap));
                let (mut i, mut w) = (old_len, len);
                for &(id, weight) in new.iter().rev() {
                    let keep = i - trailing_above(std::slice::from_raw_parts(ids, i), id);
                    let run = i - keep;
                    w -= run;
                    ptr::copy(ids.add(keep), ids.add(w), run);
                    if let Some(weights) = weights {
                        ptr::copy(weights.add(keep), weights.add(w), run);
                    }
                    i = keep;
                    w -= 1;
                    ids.add(w).write(id);
                    if let Some(weights) = weights {
                        weights.add(w).write(weight);
                    }
                }
                debug_assert_eq!(w, i);
            }
        } else {
            let new_cap = capacity_for(len, weighted);
            let block = allocator.allocate(block_bytes(new_cap, weighted));
            // SAFETY: the fresh block holds `new_cap >= len` slots and does
            // not overlap the old array, which holds `old_len` initialised
            // slots of capacity `cap`; an allocator block is freed once and
            // not used again, a slab array is left to its slab.
            unsafe {
                let old_ids = std::slice::from_raw_parts(old.as_ptr(), old_len);
                let old_weights: &[Weight] = if weighted {
                    std::slice::from_raw_parts(weights_ptr(old, cap), old_len)
                } else {
                    &[]
                };
                merge_forward(
                    old_ids,
                    old_weights,
                    new,
                    block.as_ptr(),
                    weighted.then(|| weights_ptr(block, new_cap)),
                );
                if !self.in_slab() {
                    allocator.deallocate(old, block_bytes(cap, weighted));
                }
            }
            self.slot = Slot { block };
            self.meta &= !SLAB_FLAGS;
        }
        self.len = len as u32;
    }

    /// Writes this list's live slots merged with sorted `new` (as in
    /// [`AdjList::merge_in`]) to `block`, an array of capacity `cap`;
    /// returns the number of slots written. The list is not changed.
    ///
    /// # Safety
    /// `block` holds `block_bytes(cap, weighted)` writable bytes that do not
    /// overlap this list's array, with `cap >= self.live_len() + new.len()`.
    pub(crate) unsafe fn write_merged(
        &self,
        new: &[(VertexId, Weight)],
        block: NonNull<u32>,
        cap: usize,
    ) -> usize {
        debug_assert_eq!(self.tombstones(), 0);
        let len = self.len() + new.len();
        debug_assert!(len <= cap);
        let weighted = self.is_weighted();
        // SAFETY: the caller's contract.
        unsafe {
            merge_forward(
                self.ids(),
                self.weights(),
                new,
                block.as_ptr(),
                weighted.then(|| weights_ptr(block, cap)),
            );
        }
        len
    }

    /// Whether the list's array lies in a slab.
    pub(crate) fn is_in_slab(&self) -> bool {
        self.in_slab() && self.has_block()
    }

    /// Moves a slab array into a block of its own, so that it can grow and
    /// shrink.
    fn leave_slab(&mut self, allocator: &EdgeAllocator) {
        if !self.in_slab() {
            return;
        }
        let (len, cap) = (self.len(), self.capacity());
        let weighted = self.is_weighted();
        let new_cap = capacity_for(len, weighted);
        let block = allocator.allocate(block_bytes(new_cap, weighted));
        // SAFETY: a slab list has a block (the block variant is live) and
        // holds `len` initialised slots with capacity `cap`; the fresh
        // block has room for `new_cap >= len`.
        unsafe {
            copy_slots(self.slot.block, cap, 0, block, new_cap, 0, len, weighted);
        }
        self.slot = Slot { block };
        self.meta &= !SLAB_FLAGS;
    }

    /// Inserts a live slot at `pos` (`<= len`), keeping the others in order,
    /// doubling the array when it is full.
    ///
    /// # Safety
    /// `allocator` is the allocator of the store this list lives in.
    pub(crate) unsafe fn insert_at(
        &mut self,
        allocator: &EdgeAllocator,
        pos: usize,
        id: VertexId,
        weight: Weight,
    ) {
        let len = self.len();
        assert!(pos <= len && len < u32::MAX as usize);
        let weighted = self.is_weighted();
        let new = Inline { id, weight };
        let inline_cap = inline_capacity(weighted);
        match len {
            _ if len < inline_cap => {
                // Still fits inline: the old slots around the new one.
                let mut slots = [new; 2];
                for i in 0..len {
                    slots[i + usize::from(i >= pos)] = self.slot_at(i);
                }
                self.set_inline(&slots[..=len]);
                return;
            }
            _ if len == inline_cap => {
                // Inline to a first block (2 slots weighted, 4 unweighted).
                let new_cap = capacity_for(len + 1, weighted);
                let block = allocator.allocate(block_bytes(new_cap, weighted));
                // SAFETY: the fresh block has `new_cap > len` slots; every
                // index written is `<= len`.
                unsafe {
                    for i in 0..len {
                        let at = i + usize::from(i >= pos);
                        write_slot(block, new_cap, weighted, at, self.slot_at(i));
                    }
                    write_slot(block, new_cap, weighted, pos, new);
                }
                self.slot = Slot { block };
            }
            _ => {
                // A slab array is full by construction (capacity = length),
                // so it takes the second branch and moves out in one copy.
                let cap = self.capacity();
                // SAFETY: `len >= 2`: the block variant is live.
                let old = unsafe { self.slot.block };
                if len < cap {
                    // SAFETY: `len < cap`: moving `[pos, len)` one right
                    // stays in bounds; slot `pos` is then free to write.
                    unsafe {
                        copy_slots(old, cap, pos, old, cap, pos + 1, len - pos, weighted);
                        write_slot(old, cap, weighted, pos, new);
                    }
                } else {
                    let new_cap = capacity_for(len + 1, weighted);
                    let block = allocator.allocate(block_bytes(new_cap, weighted));
                    // SAFETY: the old array holds `len = cap` initialised
                    // slots; the new block `new_cap > len`. An allocator
                    // block came from `allocator` (caller's contract,
                    // invariant I) and is not used after it is freed; a
                    // slab array is simply abandoned (the slab owns it).
                    unsafe {
                        copy_slots(old, cap, 0, block, new_cap, 0, pos, weighted);
                        write_slot(block, new_cap, weighted, pos, new);
                        copy_slots(old, cap, pos, block, new_cap, pos + 1, len - pos, weighted);
                        if !self.in_slab() {
                            allocator.deallocate(old, block_bytes(cap, weighted));
                        }
                    }
                    self.slot = Slot { block };
                    self.meta &= !SLAB_FLAGS;
                }
            }
        }
        self.len += 1;
    }

    /// Removes slot `pos` (live or tombstone), shifting the rest left and
    /// halving the array once it is half empty.
    ///
    /// # Safety
    /// `allocator` is the allocator of the store this list lives in.
    pub(crate) unsafe fn remove_at(&mut self, allocator: &EdgeAllocator, pos: usize) {
        let len = self.len();
        assert!(pos < len);
        if self.ids()[pos] & TOMBSTONE != 0 {
            self.set_tombstones(self.tombstones() - 1);
        }
        let weighted = self.is_weighted();
        if len - 1 <= inline_capacity(weighted) {
            // What is left fits inline: from inline slots, or out of a
            // block of `inline_capacity + 1` slots.
            let mut keep = [Inline { id: 0, weight: 0.0 }; 2];
            for (i, slot) in keep.iter_mut().enumerate().take(len - 1) {
                *slot = self.slot_at(i + usize::from(i >= pos));
            }
            if self.has_block() && !self.in_slab() {
                // SAFETY: an allocator block of `capacity_for(len)` slots
                // (invariant I) from `allocator` (caller's contract); its
                // slots were read above and it is not used again. A slab
                // array is left to its slab.
                unsafe {
                    allocator.deallocate(
                        self.slot.block,
                        block_bytes(capacity_for(len, weighted), weighted),
                    );
                }
            }
            self.set_inline(&keep[..len - 1]);
            return;
        }
        if self.meta & SLAB_FLAGS == SLAB_FLAGS {
            // No headroom: the capacity would no longer match the length.
            self.leave_slab(allocator);
        }
        let in_slab = self.in_slab();
        let cap = capacity_for(len, weighted);
        let new_cap = capacity_for(len - 1, weighted);
        // SAFETY: `len - 1 > inline_capacity`: the block variant
        // is live.
        let old = unsafe { self.slot.block };
        if new_cap < cap {
            let block = allocator.allocate(block_bytes(new_cap, weighted));
            // SAFETY: `len - 1 <= new_cap` slots are copied into the
            // new block; the old one came from `allocator` and is
            // not used after it is freed.
            unsafe {
                copy_slots(old, cap, 0, block, new_cap, 0, pos, weighted);
                copy_slots(
                    old,
                    cap,
                    pos + 1,
                    block,
                    new_cap,
                    pos,
                    len - pos - 1,
                    weighted,
                );
                if !in_slab {
                    allocator.deallocate(old, block_bytes(cap, weighted));
                }
            }
            self.slot = Slot { block };
            self.meta &= !SLAB_FLAGS;
        } else {
            // SAFETY: moves `[pos + 1, len)` one left, in bounds.
            unsafe {
                copy_slots(old, cap, pos + 1, old, cap, pos, len - pos - 1, weighted);
            }
        }
        self.len -= 1;
    }

    /// Marks live slot `pos` deleted; it stays in place until compaction.
    pub(crate) fn bury(&mut self, pos: usize) {
        let tombstones = self.tombstones();
        let (ids, _) = self.parts_mut();
        debug_assert_eq!(ids[pos] & TOMBSTONE, 0);
        ids[pos] |= TOMBSTONE;
        self.set_tombstones(tombstones + 1);
    }

    /// Makes tombstone `pos` a live edge again with `weight`.
    pub(crate) fn revive(&mut self, pos: usize, weight: Weight) {
        let tombstones = self.tombstones();
        let (ids, weights) = self.parts_mut();
        debug_assert_ne!(ids[pos] & TOMBSTONE, 0);
        ids[pos] &= ID_MASK;
        if let Some(slot) = weights.get_mut(pos) {
            *slot = weight;
        }
        self.set_tombstones(tombstones - 1);
    }

    /// Replaces the contents with sorted live slots (see
    /// [`AdjList::from_sorted`]), keeping the flags.
    ///
    /// # Safety
    /// `allocator` is the allocator of the store this list lives in.
    pub(crate) unsafe fn replace(
        &mut self,
        allocator: &impl BlockSource,
        ids: &[u32],
        weights: &[Weight],
    ) {
        let deleted = self.is_vertex_deleted();
        let fresh = Self::from_sorted(allocator, self.is_weighted(), ids, weights);
        // SAFETY: forwarded contract.
        unsafe { self.free(allocator) };
        *self = fresh;
        self.set_vertex_deleted(deleted);
    }

    /// Releases the edge array; the list is empty afterwards (flags kept).
    ///
    /// # Safety
    /// `allocator` is the allocator of the store this list lives in.
    pub(crate) unsafe fn free(&mut self, allocator: &impl BlockSource) {
        if self.has_block() && !self.in_slab() {
            // SAFETY: invariant I and the caller's contract: the block came
            // from `allocator` with these bytes; `len` is reset below so it
            // is never used again.
            unsafe { allocator.deallocate(self.slot.block, self.block_bytes()) };
        }
        self.len = 0;
        self.meta &= !SLAB_FLAGS;
        self.set_tombstones(0);
    }

    /// Releases the edge array when the whole store is being dropped:
    /// blocks the arena releases in bulk are skipped.
    ///
    /// # Safety
    /// As for [`AdjList::free`]; the list is not used afterwards.
    pub(crate) unsafe fn release_on_drop(&mut self, allocator: &EdgeAllocator) {
        if self.has_block()
            && !self.in_slab()
            && allocator.needs_individual_free(self.block_bytes())
        {
            // SAFETY: forwarded contract.
            unsafe { self.free(allocator) };
        }
    }
}

/// Exactly sized edge arrays of several vertices of one segment, back to
/// back in one allocation (see the module docs). Owned by the segment;
/// lists point into it.
pub(crate) struct Slab {
    start: NonNull<u32>,
    words: usize,
}

// SAFETY: a slab is plain memory owned by its segment; the lists pointing
// into it live in the same segment and move with it.
unsafe impl Send for Slab {}
// SAFETY: through `&Slab` nothing is written.
unsafe impl Sync for Slab {}

impl Slab {
    fn layout(words: usize) -> std::alloc::Layout {
        std::alloc::Layout::array::<u32>(words)
            .and_then(|l| l.align_to(16))
            .expect("slab size fits the address space")
    }

    /// An uninitialised slab of `words > 0` words.
    pub(crate) fn new(words: usize) -> Self {
        debug_assert!(words > 0);
        let layout = Self::layout(words);
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe { std::alloc::alloc(layout) };
        let Some(start) = NonNull::new(raw.cast::<u32>()) else {
            std::alloc::handle_alloc_error(layout)
        };
        Self { start, words }
    }

    pub(crate) fn start(&self) -> NonNull<u32> {
        self.start
    }

    pub(crate) fn bytes(&self) -> usize {
        self.words * 4
    }

    /// Whether `list`'s array lies in this slab.
    pub(crate) fn holds(&self, list: &AdjList) -> bool {
        if !list.in_slab() || !list.has_block() {
            return false;
        }
        // SAFETY: the list has a block: the block variant is live.
        let block = unsafe { list.slot.block }.as_ptr() as usize;
        let start = self.start.as_ptr() as usize;
        (start..start + self.bytes()).contains(&block)
    }

    /// A byte-for-byte copy (the lists are rebased by the caller).
    pub(crate) fn duplicate(&self) -> Self {
        let copy = Self::new(self.words);
        // SAFETY: both allocations hold `words` words and do not overlap;
        // slab words past the arrays may be uninitialised, but copying
        // them as raw bytes is fine (nothing reads them as values).
        unsafe {
            ptr::copy_nonoverlapping(
                self.start.as_ptr().cast::<u8>(),
                copy.start.as_ptr().cast::<u8>(),
                self.bytes(),
            );
        }
        copy
    }
}

impl Drop for Slab {
    fn drop(&mut self) {
        // SAFETY: allocated in `Slab::new` with this layout, freed once.
        unsafe { std::alloc::dealloc(self.start.as_ptr().cast(), Self::layout(self.words)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::AllocatorKind;

    #[test]
    fn line_scans_agree_with_binary_search() {
        // Lengths around multiples of the step, runs of equal ids, and
        // probes below, between, on and above every id.
        for len in [0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 257] {
            let ids: Vec<u32> = (0..len as u32).map(|i| 2 * (i / 3) + 1).collect();
            for id in 0..=2 * len as u32 + 2 {
                let at_most = ids.partition_point(|&old| old <= id);
                assert_eq!(leading_at_most(&ids, id), at_most, "len {len}, id {id}");
                assert_eq!(
                    trailing_above(&ids, id),
                    len - at_most,
                    "len {len}, id {id}"
                );
            }
        }
    }

    fn live(list: &AdjList) -> Vec<(u32, f32)> {
        let weights = list.weights();
        list.ids()
            .iter()
            .enumerate()
            .filter(|(_, id)| *id & TOMBSTONE == 0)
            .map(|(i, &id)| (id, weights.get(i).copied().unwrap_or(1.0)))
            .collect()
    }

    #[test]
    fn grows_and_shrinks_through_every_representation() {
        for kind in [AllocatorKind::System, AllocatorKind::Arena] {
            for weighted in [false, true] {
                let allocator = EdgeAllocator::new(kind);
                let mut list = AdjList::new(weighted);
                let mut model: Vec<(u32, f32)> = Vec::new();
                // Insert 0..100 in a scrambled order at the sorted position.
                for i in 0..100u32 {
                    let id = (i * 37) % 101;
                    let pos = list.lower_bound(id);
                    // SAFETY: `allocator` owns every block of `list`.
                    unsafe { list.insert_at(&allocator, pos, id, id as f32 * 0.5) };
                    let at = model.partition_point(|&(m, _)| m < id);
                    model.insert(at, (id, if weighted { id as f32 * 0.5 } else { 1.0 }));
                    assert_eq!(live(&list), model);
                    assert_eq!(
                        list.block_bytes(),
                        if model.len() > inline_capacity(weighted) {
                            block_bytes(model.len().next_power_of_two(), weighted)
                        } else {
                            0
                        }
                    );
                }
                while !model.is_empty() {
                    let pos = (model.len() * 7) % model.len();
                    // SAFETY: as above.
                    unsafe { list.remove_at(&allocator, pos) };
                    model.remove(pos);
                    assert_eq!(live(&list), model);
                }
                // SAFETY: as above.
                unsafe { list.free(&allocator) };
            }
        }
    }

    /// `merge_in` through each of its cases — into an empty and an inline
    /// list, backward in place (block with room, slab with headroom), and
    /// into a new block (full block, exact slab) — against a merged model,
    /// with weights and with equal ids (new ones after the old).
    #[test]
    fn merge_in_moves_each_slot_once_and_keeps_weights_aligned() {
        fn merged(old: &[(u32, f32)], new: &[(u32, f32)]) -> Vec<(u32, f32)> {
            let mut all: Vec<(u32, f32)> = old.to_vec();
            for &(id, w) in new {
                let at = all.partition_point(|&(o, _)| o <= id);
                all.insert(at, (id, w));
            }
            all
        }
        let old: Vec<(u32, f32)> = (0..5).map(|i| (i * 10, i as f32)).collect();
        let groups: [&[(u32, f32)]; 4] = [
            &[(10, 0.5)],
            &[(0, 0.25), (25, 2.5), (40, 4.5), (99, 9.9)],
            &[(5, 0.1), (5, 0.2), (45, 4.4)],
            &[],
        ];
        for kind in [AllocatorKind::System, AllocatorKind::Arena] {
            let allocator = EdgeAllocator::new(kind);
            for weighted in [false, true] {
                let weigh = |slots: &[(u32, f32)]| -> Vec<(u32, f32)> {
                    slots
                        .iter()
                        .map(|&(id, w)| (id, if weighted { w } else { 1.0 }))
                        .collect()
                };
                for group in groups {
                    for start in [0usize, 1, 2, 3, 5] {
                        let old = &old[..start];
                        let ids: Vec<u32> = old.iter().map(|s| s.0).collect();
                        let weights: Vec<f32> = old.iter().map(|s| s.1).collect();
                        // A block (capacity 8 for 5 slots: room for 3).
                        let mut list = AdjList::from_sorted(&allocator, weighted, &ids, &weights);
                        // SAFETY: `list` owns a block of `allocator`.
                        unsafe { list.merge_in(&allocator, group) };
                        assert_eq!(live(&list), weigh(&merged(old, group)));
                        // SAFETY: as above.
                        unsafe { list.free(&allocator) };
                        if start <= inline_capacity(weighted) {
                            continue;
                        }
                        // Slab arrays, exact (always moves) and with headroom.
                        for exact in [true, false] {
                            let cap = if exact {
                                start
                            } else {
                                capacity_for(start, weighted)
                            };
                            let slab = Slab::new(block_bytes(cap, weighted) / 4);
                            // SAFETY: the slab holds `cap` slots; ids then
                            // weights (from slot `cap`) are written first.
                            let mut list = unsafe {
                                let block = slab.start();
                                ptr::copy_nonoverlapping(ids.as_ptr(), block.as_ptr(), start);
                                if weighted {
                                    ptr::copy_nonoverlapping(
                                        weights.as_ptr(),
                                        weights_ptr(block, cap),
                                        start,
                                    );
                                }
                                AdjList::from_slab(block, start, weighted, exact)
                            };
                            let fits = start + group.len() <= cap;
                            // SAFETY: blocks come from `allocator`; the
                            // slab outlives the list's use of it.
                            unsafe { list.merge_in(&allocator, group) };
                            assert_eq!(live(&list), weigh(&merged(old, group)));
                            assert_eq!(slab.holds(&list), fits || group.is_empty());
                            // SAFETY: as above.
                            unsafe { list.free(&allocator) };
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn tombstones_keep_order_and_revive() {
        let allocator = EdgeAllocator::new(AllocatorKind::System);
        let mut list = AdjList::from_sorted(&allocator, true, &[1, 3, 5], &[0.1, 0.3, 0.5]);
        list.bury(1);
        assert_eq!(list.live_len(), 2);
        assert_eq!(list.lower_bound(3), 1);
        assert_eq!(list.equal_range(3), 1..2);
        assert_eq!(live(&list), [(1, 0.1), (5, 0.5)]);
        list.revive(1, 9.0);
        assert_eq!(live(&list), [(1, 0.1), (3, 9.0), (5, 0.5)]);
        let copy = list.clone_in(&allocator);
        assert_eq!(live(&copy), live(&list));
        for mut l in [list, copy] {
            // SAFETY: both lists' blocks came from `allocator`.
            unsafe { l.free(&allocator) };
        }
    }

    /// Whether the list's ids live inside its own 16-byte entry.
    fn ids_inside_entry(list: &AdjList) -> bool {
        let entry = list as *const AdjList as usize;
        let ids = list.ids().as_ptr() as usize;
        (entry..entry + std::mem::size_of::<AdjList>()).contains(&ids)
    }

    /// The representation a list of `len` slots must have: inline (no
    /// allocator bytes, ids inside the entry) up to its inline capacity,
    /// else a power-of-two block.
    fn check_representation(list: &AdjList, weighted: bool) {
        let len = list.len();
        let inline = len <= inline_capacity(weighted);
        assert_eq!(list.has_block(), !inline, "len {len}, weighted {weighted}");
        assert_eq!(
            list.block_bytes(),
            if inline {
                0
            } else {
                block_bytes(len.next_power_of_two(), weighted)
            },
            "len {len}, weighted {weighted}"
        );
        if len > 0 {
            assert_eq!(ids_inside_entry(list), inline, "len {len}");
        }
        assert_eq!(list.weights().len(), if weighted { len } else { 0 });
    }

    #[test]
    fn inline_capacity_is_two_ids_unweighted_and_one_pair_weighted() {
        assert_eq!(std::mem::size_of::<AdjList>(), 16);
        assert_eq!(inline_capacity(false), 2);
        assert_eq!(inline_capacity(true), 1);
        let unweighted: Vec<usize> = (0..6).map(|len| capacity_for(len, false)).collect();
        assert_eq!(unweighted, [0, 1, 2, 4, 4, 8]);
        let weighted: Vec<usize> = (0..6).map(|len| capacity_for(len, true)).collect();
        assert_eq!(weighted, [0, 1, 2, 4, 4, 8]);
        let allocator = EdgeAllocator::new(AllocatorKind::System);
        let pair = AdjList::from_sorted(&allocator, false, &[3, 7], &[]);
        assert_eq!(pair.block_bytes(), 0);
        assert_eq!(pair.ids(), [3, 7]);
        let mut weighted_pair = AdjList::from_sorted(&allocator, true, &[3, 7], &[0.5, 2.0]);
        assert_eq!(weighted_pair.block_bytes(), block_bytes(2, true));
        // SAFETY: the block came from `allocator`.
        unsafe { weighted_pair.free(&allocator) };
    }

    /// Every path between 0, 1, 2 and 3 slots, both ways, in every order of
    /// inserting and physically removing three ids, with a logical delete
    /// and revival of every slot at each size, unweighted (inline up to 2)
    /// and weighted (inline up to 1), with both allocators.
    #[test]
    fn every_transition_between_zero_and_three_slots() {
        let orders = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let ids = [10u32, 20, 30];
        for kind in [AllocatorKind::System, AllocatorKind::Arena] {
            let allocator = EdgeAllocator::new(kind);
            for weighted in [false, true] {
                let weigh = |id: u32| if weighted { id as f32 / 4.0 } else { 1.0 };
                for insert_order in orders {
                    for remove_order in orders {
                        let mut list = AdjList::new(weighted);
                        let mut model: Vec<(u32, f32)> = Vec::new();
                        for &k in &insert_order {
                            let id = ids[k];
                            let pos = list.lower_bound(id);
                            // SAFETY: `allocator` owns every block of `list`.
                            unsafe { list.insert_at(&allocator, pos, id, id as f32 / 4.0) };
                            let at = model.partition_point(|&(m, _)| m < id);
                            model.insert(at, (id, weigh(id)));
                            assert_eq!(live(&list), model);
                            check_representation(&list, weighted);
                            // A logical delete of each slot in this state
                            // keeps the representation; revive restores it.
                            for pos in 0..list.len() {
                                list.bury(pos);
                                let mut without = model.clone();
                                without.remove(pos);
                                assert_eq!(live(&list), without);
                                assert_eq!(list.tombstones(), 1);
                                check_representation(&list, weighted);
                                list.revive(pos, model[pos].1);
                                assert_eq!(live(&list), model);
                            }
                        }
                        for &k in &remove_order {
                            let pos = list.lower_bound(ids[k]);
                            // SAFETY: as above.
                            unsafe { list.remove_at(&allocator, pos) };
                            model.retain(|&(m, _)| m != ids[k]);
                            assert_eq!(live(&list), model);
                            check_representation(&list, weighted);
                        }
                        assert_eq!(list.len(), 0);
                    }
                }
            }
        }
    }

    /// Tombstones in an inline pair: logical deletes keep both ids (the
    /// bit set), revive restores the weight-less slot, a physical delete
    /// of the tombstone or of the live id shrinks it, and growing past
    /// the pair carries the tombstone into the block and back inline.
    #[test]
    fn tombstones_in_an_inline_pair() {
        let allocator = EdgeAllocator::new(AllocatorKind::Arena);
        for buried in [0, 1] {
            let mut list = AdjList::from_sorted(&allocator, false, &[4, 9], &[]);
            list.bury(buried);
            assert_eq!(list.tombstones(), 1);
            assert_eq!(list.len(), 2);
            assert_eq!(list.ids()[buried], [4, 9][buried] | TOMBSTONE);
            assert_eq!(live(&list), [[(9, 1.0)], [(4, 1.0)]][buried]);
            assert!(!list.contains_live([4, 9][buried]));
            assert!(list.contains_live([4, 9][1 - buried]));
            check_representation(&list, false);

            // Grow to a block of 4 with the tombstone in it, then back.
            let pos = list.lower_bound(6);
            // SAFETY: `allocator` owns every block of `list`.
            unsafe { list.insert_at(&allocator, pos, 6, 1.0) };
            check_representation(&list, false);
            assert_eq!(list.tombstones(), 1);
            assert_eq!(live(&list).len(), 2);
            // SAFETY: as above.
            unsafe { list.remove_at(&allocator, 1) };
            check_representation(&list, false);
            assert_eq!(list.tombstones(), 1);
            assert_eq!(list.ids()[buried], [4, 9][buried] | TOMBSTONE);

            // A clone copies the pair, tombstone bit and count included.
            let copy = list.clone_in(&allocator);
            assert_eq!(copy.ids(), list.ids());
            assert_eq!(copy.tombstones(), 1);
            assert!(ids_inside_entry(&copy));

            list.revive(buried, 7.0);
            assert_eq!(list.tombstones(), 0);
            assert_eq!(live(&list), [(4, 1.0), (9, 1.0)]);
            list.bury(buried);
            // Physical delete of the tombstone: one live id left, inline.
            // SAFETY: as above.
            unsafe { list.remove_at(&allocator, buried) };
            assert_eq!(list.tombstones(), 0);
            assert_eq!(live(&list), [[(9, 1.0)], [(4, 1.0)]][buried]);
            check_representation(&list, false);
            // SAFETY: as above (nothing to free: inline).
            unsafe { list.free(&allocator) };
        }
    }

    /// A three-slot unweighted slab array (exact and with headroom) shrinks
    /// back inline on a physical delete and leaves the slab alone.
    #[test]
    fn slab_list_of_three_shrinks_inline() {
        let allocator = EdgeAllocator::new(AllocatorKind::System);
        for exact in [true, false] {
            let cap = if exact { 3 } else { capacity_for(3, false) };
            let slab = Slab::new(cap);
            // SAFETY: the slab holds `cap >= 3` ids, written first.
            let mut list = unsafe {
                ptr::copy_nonoverlapping([1u32, 2, 3].as_ptr(), slab.start().as_ptr(), 3);
                AdjList::from_slab(slab.start(), 3, false, exact)
            };
            assert!(slab.holds(&list) && list.is_in_slab());
            // SAFETY: blocks come from `allocator`; the slab outlives the
            // list's use of it.
            unsafe { list.remove_at(&allocator, 1) };
            assert_eq!(list.ids(), [1, 3]);
            assert!(!slab.holds(&list) && !list.is_in_slab());
            check_representation(&list, false);
            // Growing again takes a block of its own, not the slab.
            // SAFETY: as above.
            unsafe { list.insert_at(&allocator, 1, 2, 1.0) };
            assert_eq!(list.ids(), [1, 2, 3]);
            assert!(!slab.holds(&list));
            check_representation(&list, false);
            // SAFETY: as above.
            unsafe { list.free(&allocator) };
        }
    }
}
