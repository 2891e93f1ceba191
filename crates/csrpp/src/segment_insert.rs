//! The work a batch insert does in one segment, once the batch is grouped
//! ([`crate::batch`]): the out-side part (new out-edges of the segment's
//! vertices) and the in-side part (new in-edges of its vertices). Each is
//! called by the task that owns the segment (`&mut`); before the first
//! change it lets the live snapshots copy the segment ([`crate::snapshot`]).
//!
//! The two parts are separate because set semantics decide which out-edges
//! are added, and only those become in-edges: such batches run every out
//! part, then group the added edges by target and run the in parts. Under
//! multigraph semantics every batch edge is added, so both groupings are
//! known up front and one task per segment runs both parts.

use crate::CsrPPOptions;
use crate::adjacency::AdjList;
use crate::alloc::EdgeAllocator;
use crate::segment::{Editor, SegmentData, merge_sorted};
use crate::snapshot::SegmentSnapshots;
use dyngraph_core::hint::prefetch_address;
use dyngraph_core::{Semantics, VertexId, Weight};

/// Into a list holding tombstones, up to this many new edges are inserted
/// one by one (binary search and shift in place, reviving tombstones);
/// more are merged into a fresh array that drops them.
const SMALL_GROUP: usize = 8;

/// A batch entry: `(source, target, weight)`, or, for in-lists,
/// `(target, source, _)`: grouped by its first id.
pub(crate) type Entry = (VertexId, VertexId, Weight);

/// Buffers a batch task reuses from segment to segment on one thread.
#[derive(Default)]
pub(crate) struct Scratch {
    /// New slots per touched list, and the groups `(index, start, end)`.
    pending: Vec<(VertexId, Weight)>,
    groups: Vec<(usize, usize, usize)>,
    /// For merges into lists holding tombstones.
    merge: (Vec<u32>, Vec<Weight>),
}

impl Scratch {
    pub(crate) fn reset(&mut self) {
        self.pending.clear();
        self.groups.clear();
    }
}

/// What every segment task of one batch insert shares: the store's
/// allocator and snapshots, and the batch's settings.
pub(crate) struct InsertContext<'a> {
    pub(crate) editor: Editor<'a>,
    pub(crate) snapshots: &'a SegmentSnapshots,
    /// Whether some snapshot is alive (segments are copied before they
    /// change).
    pub(crate) saving: bool,
    /// `log2` of the segment size, and the segment size minus one.
    pub(crate) shift: u32,
    pub(crate) mask: usize,
    /// `CsrPPOptions::slab_headroom` and `segment_repack`.
    pub(crate) headroom: bool,
    pub(crate) repack: bool,
}

/// What an out part did: edges added, deleted flags cleared, and the
/// `(target, source, _)` in-entries of the added edges when asked to
/// track them.
pub(crate) type OutPartResult = (u64, u64, Vec<Entry>);

impl<'a> InsertContext<'a> {
    /// The context of a batch into the store made of these parts.
    pub(crate) fn new(
        allocator: &'a EdgeAllocator,
        snapshots: &'a SegmentSnapshots,
        options: &CsrPPOptions,
        shift: u32,
    ) -> Self {
        Self {
            editor: Editor {
                allocator,
                delete_mode: options.delete_mode,
            },
            snapshots,
            saving: snapshots.is_active(),
            shift,
            mask: (1 << shift) - 1,
            headroom: options.slab_headroom,
            repack: options.segment_repack,
        }
    }

    fn allocator(&self) -> &EdgeAllocator {
        self.editor.allocator
    }

    /// Adds `part` (the batch's entries with a source in this segment,
    /// sorted by `(source, target)`, arrival order among equals) to the
    /// out-lists. `set_union`: an edge already present, or repeated in
    /// `part`, is added once (set semantics). `track`: return the
    /// in-entries of the edges added.
    pub(crate) fn out_part(
        &self,
        buffers: &mut Scratch,
        data: &mut SegmentData,
        part: &[Entry],
        set_union: bool,
        track: bool,
    ) -> OutPartResult {
        let Scratch {
            pending,
            groups,
            merge: scratch,
        } = buffers;
        let (mask, snapshots, saving) = (self.mask, self.snapshots, self.saving);
        let semantics = if set_union {
            Semantics::Simple
        } else {
            Semantics::Multigraph
        };
        let segment = (part[0].0 >> self.shift) as usize;
        let mut added_edges: Vec<Entry> = Vec::new();
        let (mut added, mut undeleted) = (0u64, 0u64);
        if data.live_edges == 0 && data.out.iter().all(|list| list.len() == 0) {
            // A bulk load into an empty segment: CSR++'s load layout,
            // every array exactly sized and packed into one slab.
            if saving {
                // Its vertices had no out-edges at the snapshot.
                snapshots.before_change(segment, data);
            }
            let mut ids = Vec::with_capacity(part.len());
            let mut weights = Vec::with_capacity(part.len());
            let mut runs = Vec::new();
            for group in part.chunk_by(|a, b| a.0 == b.0) {
                let src = group[0].0;
                let index = src as usize & mask;
                let start = ids.len();
                for &(_, dst, weight) in group {
                    if set_union && ids.len() > start && ids.last() == Some(&dst) {
                        continue;
                    }
                    ids.push(dst);
                    weights.push(weight);
                    if track {
                        added_edges.push((dst, src, 0.0));
                    }
                }
                runs.push((index, start, ids.len()));
                undeleted += u64::from(data.undelete(index));
            }
            added = ids.len() as u64;
            data.fill_from_runs(
                self.allocator(),
                self.headroom,
                false,
                &ids,
                &weights,
                &runs,
            );
            data.live_edges += added;
            return (added, undeleted, added_edges);
        }
        // New slots per touched list, merged in one pass per segment
        // (lists with tombstones take the slot-by-slot path).
        for group in part.chunk_by(|a, b| a.0 == b.0) {
            prefetch_address(&data.out[group[0].0 as usize & mask]);
        }
        for group in part.chunk_by(|a, b| a.0 == b.0) {
            let src = group[0].0;
            let index = src as usize & mask;
            let before = added;
            if data.out[index].tombstones() > 0 {
                // Changed here, not in `merge_groups`: copied first
                // unless nothing will be added.
                if saving
                    && (!set_union
                        || group
                            .iter()
                            .any(|&(_, dst, _)| !data.out[index].contains_live(dst)))
                {
                    snapshots.before_change(segment, data);
                }
                let list = &mut data.out[index];
                // SAFETY: the list lives in this store, whose
                // allocator `editor` holds.
                added += unsafe {
                    insert_with_tombstones(
                        &self.editor,
                        list,
                        group,
                        semantics,
                        set_union,
                        scratch,
                        |dst| {
                            if track {
                                added_edges.push((dst, src, 0.0));
                            }
                        },
                    )
                };
            } else {
                let list = &data.out[index];
                let start = pending.len();
                for &(_, dst, weight) in group {
                    if set_union
                        && (pending[start..].last().is_some_and(|l| l.0 == dst)
                            || list.contains_live(dst))
                    {
                        continue;
                    }
                    pending.push((dst, weight));
                    if track {
                        added_edges.push((dst, src, 0.0));
                    }
                }
                if pending.len() > start {
                    groups.push((index, start, pending.len()));
                    added += (pending.len() - start) as u64;
                }
            }
            if added > before {
                undeleted += u64::from(data.undelete(index));
            }
        }
        if saving && !groups.is_empty() {
            // The lists in `groups` have been read, not changed.
            snapshots.before_change(segment, data);
        }
        // SAFETY: the segment lives in this store, whose allocator
        // `editor` holds.
        unsafe {
            data.merge_groups(self.allocator(), false, self.repack, pending, groups);
        }
        data.live_edges += added;
        (added, undeleted, added_edges)
    }

    /// Adds a multigraph batch's groups of one segment to its out-lists
    /// (`incoming` false) or in-lists: group `g` adds the slots
    /// `slots[starts(g)..ends[g]]` (in arrival order; sorted here, stably)
    /// to the list of vertex `keys[g]`, every slot an edge added. The
    /// groups come straight from [`dyngraph_core::grouping`], so nothing
    /// is copied on the way: each list takes its new slots in one merge,
    /// in place when its block has room ([`AdjList::merge_in`]); an
    /// empty side is filled as a bulk load (one packed slab). Clears no
    /// deleted flag (the caller runs this only when no vertex is
    /// deleted). Returns the slots added.
    pub(crate) fn merge_slot_groups(
        &self,
        buffers: &mut Scratch,
        data: &mut SegmentData,
        incoming: bool,
        keys: &[u32],
        ends: &[usize],
        slots: &mut [(VertexId, Weight)],
    ) -> u64 {
        let mask = self.mask;
        let Scratch {
            groups,
            merge: scratch,
            ..
        } = buffers;
        let mut start = 0;
        for (&key, &end) in keys.iter().zip(ends) {
            let group = &mut slots[start..end];
            if group.len() > 1 {
                group.sort_by_key(|slot| slot.0);
            }
            groups.push((key as usize & mask, start, end));
            start = end;
        }
        if self.saving {
            // Every slot is added to a list of this segment.
            self.snapshots
                .before_change((keys[0] >> self.shift) as usize, data);
        }
        let lists = if incoming { &data.incoming } else { &data.out };
        // The out side counts its edges; an in side with a list is seen
        // at the first touched one, mostly, before any scan.
        let empty = if incoming {
            lists[groups[0].0].len() == 0 && lists.iter().all(|list| list.len() == 0)
        } else {
            data.live_edges == 0 && lists.iter().all(|list| list.len() == 0)
        };
        if empty {
            // Nothing in this side of the segment yet: packed as a bulk
            // load packs it.
            let ids: Vec<u32> = slots.iter().map(|slot| slot.0).collect();
            let weights: Vec<Weight> = if lists.first().is_some_and(AdjList::is_weighted) {
                slots.iter().map(|slot| slot.1).collect()
            } else {
                Vec::new()
            };
            data.fill_from_runs(
                self.allocator(),
                self.headroom,
                incoming,
                &ids,
                &weights,
                groups,
            );
            return slots.len() as u64;
        }
        for &(index, _, _) in groups.iter() {
            prefetch_address(&lists[index]);
        }
        // Lists holding tombstones take their slots here and leave
        // `groups` (merged below, they would take them twice).
        let editor = &self.editor;
        let side = if incoming {
            &mut data.incoming
        } else {
            &mut data.out
        };
        groups.retain(|&(index, start, end)| {
            let list = &mut side[index];
            if list.tombstones() == 0 {
                return true;
            }
            // SAFETY: the list lives in this store, whose allocator
            // `editor` holds.
            unsafe { insert_slots_with_tombstones(editor, list, &slots[start..end], scratch) };
            false
        });
        // SAFETY: the segment lives in this store, whose allocator
        // `editor` holds; the lists of `groups` hold no tombstones.
        unsafe {
            data.merge_groups(self.allocator(), incoming, self.repack, slots, groups);
        }
        slots.len() as u64
    }

    /// Adds `part` (`(target, source, _)` in-entries of edges just added,
    /// with a target in this segment, sorted) to the in-lists, when
    /// `in_edges`, and clears the targets' deleted flags. Returns the
    /// number of flags cleared.
    pub(crate) fn in_part(
        &self,
        buffers: &mut Scratch,
        data: &mut SegmentData,
        part: &[Entry],
        in_edges: bool,
    ) -> u64 {
        let Scratch {
            pending,
            groups,
            merge: scratch,
        } = buffers;
        let mask = self.mask;
        let mut undeleted = 0;
        if in_edges && self.saving {
            // Every entry adds to an in-list of this segment.
            self.snapshots
                .before_change((part[0].0 >> self.shift) as usize, data);
        }
        if in_edges && data.incoming.iter().all(|list| list.len() == 0) {
            // Bulk load: pack the in-lists into a slab too.
            let ids: Vec<u32> = part.iter().map(|&(_, src, _)| src).collect();
            let mut runs = Vec::new();
            let mut start = 0;
            for group in part.chunk_by(|a, b| a.0 == b.0) {
                let index = group[0].0 as usize & mask;
                undeleted += u64::from(data.undelete(index));
                runs.push((index, start, start + group.len()));
                start += group.len();
            }
            data.fill_from_runs(self.allocator(), self.headroom, true, &ids, &[], &runs);
            return undeleted;
        }
        for group in part.chunk_by(|a, b| a.0 == b.0) {
            prefetch_address(&data.out[group[0].0 as usize & mask]);
            if in_edges {
                prefetch_address(&data.incoming[group[0].0 as usize & mask]);
            }
        }
        for group in part.chunk_by(|a, b| a.0 == b.0) {
            let index = group[0].0 as usize & mask;
            undeleted += u64::from(data.undelete(index));
            if !in_edges {
                continue;
            }
            let list = &mut data.incoming[index];
            if list.tombstones() > 0 {
                // SAFETY: the list lives in this store, whose
                // allocator `editor` holds.
                unsafe {
                    insert_with_tombstones(
                        &self.editor,
                        list,
                        group,
                        Semantics::Multigraph,
                        false,
                        scratch,
                        |_| {},
                    )
                };
            } else {
                let start = pending.len();
                pending.extend(group.iter().map(|&(_, src, _)| (src, 0.0)));
                groups.push((index, start, pending.len()));
            }
        }
        // SAFETY: the segment lives in this store, whose allocator
        // `editor` holds.
        unsafe { data.merge_groups(self.allocator(), true, self.repack, pending, groups) };
        undeleted
    }
}

/// Inserts a sorted group of new slots, every one added (multigraph),
/// into a list that holds tombstones: slot by slot for small groups,
/// otherwise one merge through `scratch` that drops the tombstones.
///
/// # Safety
/// `list` lives in the store whose allocator `editor` holds.
unsafe fn insert_slots_with_tombstones(
    editor: &Editor<'_>,
    list: &mut AdjList,
    slots: &[(VertexId, Weight)],
    scratch: &mut (Vec<u32>, Vec<Weight>),
) {
    if slots.len() <= SMALL_GROUP {
        for &(id, weight) in slots {
            // SAFETY: forwarded contract.
            unsafe { editor.insert(list, id, weight, Semantics::Multigraph) };
        }
    } else {
        // SAFETY: forwarded contract.
        unsafe { merge_sorted(editor, list, slots, false, scratch, |_| {}) };
    }
}

/// Inserts one source's sorted group of batch entries into a list that
/// holds tombstones (rare: logical deletes not yet compacted): slot by slot
/// for small groups (reviving tombstones under set semantics), otherwise
/// one merge through `scratch` that drops the tombstones. Calls `added`
/// for each edge added; returns their number.
///
/// # Safety
/// `list` lives in the store whose allocator `editor` holds.
unsafe fn insert_with_tombstones(
    editor: &Editor<'_>,
    list: &mut AdjList,
    group: &[Entry],
    semantics: Semantics,
    set_union: bool,
    scratch: &mut (Vec<u32>, Vec<Weight>),
    mut added: impl FnMut(VertexId),
) -> u64 {
    if group.len() <= SMALL_GROUP {
        let mut count = 0;
        for &(_, dst, weight) in group {
            // SAFETY: forwarded contract.
            if unsafe { editor.insert(list, dst, weight, semantics) } {
                count += 1;
                added(dst);
            }
        }
        count
    } else {
        let buffer: Vec<(VertexId, Weight)> = group.iter().map(|&(_, dst, w)| (dst, w)).collect();
        // SAFETY: forwarded contract.
        unsafe { merge_sorted(editor, list, &buffer, set_union, scratch, added) }
    }
}
