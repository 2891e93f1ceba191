//! Batch updates (CSR++ §3.2.1) and batch graph algebra (Sahu,
//! Algorithms 7-8): group by source, sort in parallel, then change every
//! modified segment in parallel, one rayon task per segment.
//!
//! A caller's batch is any [`EdgeSource`], read in place twice: once to
//! count its edges per segment, once to scatter them into CSR++'s own
//! grouping buffer ([`group_by_segment`]). Before a task first changes its
//! segment it lets the live snapshots copy it ([`crate::snapshot`]); the
//! task owns the segment (`&mut`), which is what keeps the copy and the
//! change together.

use crate::options::SET_GROUP_INSERTS_ABOVE;
use crate::segment::{Editor, Segment, SegmentData};
use crate::segment_insert::{Entry, InsertContext, Scratch};
use crate::store::CsrPP;
use dyngraph_core::grouping::{Arrivals, Groups, group_by_key};
use dyngraph_core::{EdgeSource, Error, Graph, Result, Semantics, UpdateReport, VertexId, Weight};
use rayon::prelude::*;
use std::ops::Range;

/// Batches up to this size are applied one edge at a time, in order.
const SERIAL_BATCH: usize = 64;

/// A batch as the grouping reads it: entries by index range, in order.
pub(crate) trait BatchEntries: Sync {
    /// Entries in the batch (before any filtering [`Self::for_each_entry`]
    /// does).
    fn len(&self) -> usize;

    /// Calls `f` for every entry in `range` the batch keeps, in order. Two
    /// calls with one range must see the same entries (the grouping counts
    /// them, then places them).
    fn for_each_entry(&self, range: Range<usize>, f: impl FnMut(Entry));
}

/// A caller's [`EdgeSource`] as batch entries `(src, dst, weight)`, read
/// in place.
pub(crate) struct SourceEntries<'s, S: ?Sized>(pub(crate) &'s S);

impl<S: EdgeSource + ?Sized> BatchEntries for SourceEntries<'_, S> {
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    fn for_each_entry(&self, range: Range<usize>, mut f: impl FnMut(Entry)) {
        self.0
            .for_each_in(range, |src, dst, weight| f((src, dst, weight)));
    }
}

/// CSR++'s own entries (another store's edges, the in-list side of a
/// batch).
impl BatchEntries for [Entry] {
    fn len(&self) -> usize {
        <[Entry]>::len(self)
    }

    #[inline]
    fn for_each_entry(&self, range: Range<usize>, mut f: impl FnMut(Entry)) {
        for &entry in &self[range] {
            f(entry);
        }
    }
}

/// The entries of `batch` turned around, `(target, source, _)`: the
/// in-entries of a batch whose every edge is added.
struct Reversed<'b, B: ?Sized>(&'b B);

impl<B: BatchEntries + ?Sized> BatchEntries for Reversed<'_, B> {
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    fn for_each_entry(&self, range: Range<usize>, mut f: impl FnMut(Entry)) {
        self.0
            .for_each_entry(range, |(src, dst, _)| f((dst, src, 0.0)));
    }
}

/// The entries of `batch` whose endpoints are both below `vertex_count`:
/// what a delete batch can remove (an edge naming a vertex outside the
/// graph removes nothing).
struct InGraph<'b, B: ?Sized> {
    batch: &'b B,
    vertex_count: usize,
}

impl<B: BatchEntries + ?Sized> BatchEntries for InGraph<'_, B> {
    fn len(&self) -> usize {
        self.batch.len()
    }

    #[inline]
    fn for_each_entry(&self, range: Range<usize>, mut f: impl FnMut(Entry)) {
        let n = self.vertex_count;
        self.batch.for_each_entry(range, |entry| {
            if (entry.0 as usize) < n && (entry.1 as usize) < n {
                f(entry);
            }
        });
    }
}

/// A batch's new slots keyed by source (`out`) or by target (the
/// in-slots), as [`group_by_key`] reads them.
struct Slots<'b, B: ?Sized> {
    batch: &'b B,
    incoming: bool,
}

impl<B: BatchEntries + ?Sized> Arrivals for Slots<'_, B> {
    type Item = (VertexId, Weight);

    fn len(&self) -> usize {
        self.batch.len()
    }

    #[inline]
    fn visit(&self, range: Range<usize>, mut f: impl FnMut(u32, (VertexId, Weight))) {
        if self.incoming {
            self.batch
                .for_each_entry(range, |(src, dst, _)| f(dst, (src, 0.0)));
        } else {
            self.batch
                .for_each_entry(range, |(src, dst, weight)| f(src, (dst, weight)));
        }
    }
}

/// The work of one segment in [`CsrPP::merge_slots`]: the segment, its
/// groups' keys and ends (relative to its slots), and its slots.
type SegmentGroups<'a> = (
    &'a mut Segment,
    &'a [u32],
    Vec<usize>,
    &'a mut [(VertexId, Weight)],
);

/// Splits `groups` (keyed by vertex) by segment and pairs each touched
/// segment with its groups.
fn groups_per_segment<'a>(
    segments: &'a mut [Segment],
    groups: &'a mut Groups<(VertexId, Weight)>,
    shift: u32,
) -> Vec<SegmentGroups<'a>> {
    let Groups {
        keys,
        offsets,
        items,
    } = groups;
    let mut work = Vec::new();
    let mut rest: &mut [(VertexId, Weight)] = items;
    let mut segments = segments.iter_mut().enumerate();
    let mut g = 0;
    while g < keys.len() {
        let segment = (keys[g] >> shift) as usize;
        let end = g + keys[g..].partition_point(|&key| (key >> shift) as usize == segment);
        let (first, last) = (offsets[g], offsets[end]);
        let (slots, tail) = std::mem::take(&mut rest).split_at_mut(last - first);
        rest = tail;
        let ends = offsets[g + 1..=end].iter().map(|&o| o - first).collect();
        let target = segments
            .by_ref()
            .find(|(s, _)| *s == segment)
            .map(|(_, target)| target)
            .expect("a key of the graph has a segment");
        work.push((target, &keys[g..end], ends, slots));
        g = end;
    }
    work
}

/// For a batch sorted by `key`, the range of entries falling in each
/// segment (`segment_count` ranges, most of them empty).
fn segment_ranges<T>(
    sorted: &[T],
    key: impl Fn(&T) -> VertexId,
    shift: u32,
    segment_count: usize,
) -> Vec<Range<usize>> {
    let mut ranges = vec![0..0; segment_count];
    let mut start = 0;
    while start < sorted.len() {
        let segment = (key(&sorted[start]) >> shift) as usize;
        let end =
            start + sorted[start..].partition_point(|e| (key(e) >> shift) as usize == segment);
        ranges[segment] = start..end;
        start = end;
    }
    ranges
}

/// Groups `batch` by the segment of each entry's first id and sorts each
/// group by `(first, second)` id: a counting sort by segment (stable, so
/// entries keep arrival order within a segment), then a stable sort of
/// every segment's entries, in parallel. Returns the grouped entries and
/// every segment's range (most empty). Cheaper than sorting the whole
/// batch: one pass and many tiny sorts instead of `O(b log b)` comparisons
/// of the whole batch. The batch is read in place, twice (count, then
/// scatter); the grouped vector is the only copy.
///
/// The counting sort runs in parallel too: each of a few chunks of the
/// batch counts its entries per segment, a prefix sum over (segment,
/// chunk) gives every chunk its own positions within each segment's
/// range, and the chunks scatter at once (a serial scatter took about a
/// seventh of a 1 % batch at kron21 while the other thread idled).
///
/// # Panics
/// If an entry's first id is in no segment (callers admit the ids first),
/// or if the batch shows different entries to the two passes (a broken
/// [`EdgeSource`]).
fn group_by_segment<B: BatchEntries + ?Sized>(
    batch: &B,
    shift: u32,
    segment_count: usize,
) -> (Vec<Entry>, Vec<Range<usize>>) {
    let segment_of = |entry: &Entry| (entry.0 >> shift) as usize;
    let len = batch.len();
    let chunk_len = len
        .div_ceil(rayon::current_num_threads())
        .max(PARALLEL_GROUPING_CHUNK);
    let chunks: Vec<Range<usize>> = (0..len)
        .step_by(chunk_len)
        .map(|start| start..(start + chunk_len).min(len))
        .collect();
    // Per chunk, the count of its entries in each segment.
    let counts: Vec<Vec<usize>> = chunks
        .par_iter()
        .map(|chunk| {
            let mut counts = vec![0usize; segment_count];
            batch.for_each_entry(chunk.clone(), |entry| counts[segment_of(&entry)] += 1);
            counts
        })
        .collect();
    // Per chunk and segment, the positions its entries go to:
    // `[next, end)`, disjoint from every other pair's.
    let mut next = counts.clone();
    let mut ends = counts;
    let mut starts = Vec::with_capacity(segment_count + 1);
    let mut total = 0;
    for segment in 0..segment_count {
        starts.push(total);
        for (next, ends) in next.iter_mut().zip(&mut ends) {
            next[segment] = total;
            total += ends[segment];
            ends[segment] = total;
        }
    }
    starts.push(total);
    let mut grouped: Vec<Entry> = Vec::with_capacity(total);
    let out = ScatterTarget(grouped.as_mut_ptr());
    chunks
        .par_iter()
        .zip(next.par_iter_mut())
        .zip(&ends)
        .for_each(|((chunk, next), ends)| {
            batch.for_each_entry(chunk.clone(), |entry| {
                let segment = segment_of(&entry);
                let at = next[segment];
                assert!(
                    at < ends[segment],
                    "the edge source showed more edges on a second read of the same range"
                );
                // SAFETY: `at` lies in this chunk's own positions of the
                // segment, `[start, end)` (checked just above), which the
                // prefix sum made disjoint from every other (segment,
                // chunk) pair's and at most `total`, the vector's
                // capacity. So each position is written once, by one
                // thread.
                unsafe { out.at(at).write(entry) };
                next[segment] = at + 1;
            });
        });
    assert!(
        next == ends,
        "the edge source showed fewer edges on a second read of the same range"
    );
    // SAFETY: every (segment, chunk) pair wrote exactly its positions
    // (`next == ends`, asserted), and these cover `[0, total)`; `Entry` is
    // `Copy`: nothing to drop.
    unsafe { grouped.set_len(total) };
    let ranges: Vec<Range<usize>> = starts.windows(2).map(|w| w[0]..w[1]).collect();
    let mut parts: Vec<&mut [Entry]> = Vec::new();
    let mut rest = grouped.as_mut_slice();
    for range in &ranges {
        let (part, tail) = rest.split_at_mut(range.len());
        if part.len() > 1 {
            parts.push(part);
        }
        rest = tail;
    }
    parts
        .into_par_iter()
        .for_each(|part| part.sort_by_key(|&(first, second, _)| (first, second)));
    (grouped, ranges)
}

/// Batches are split into chunks of at least this many entries for the
/// parallel counting sort (smaller ones are grouped by one thread).
const PARALLEL_GROUPING_CHUNK: usize = 16 * 1024;

/// The start of the vector the chunks of [`group_by_segment`] scatter
/// into, shared by the threads, each writing its own positions.
struct ScatterTarget<T>(*mut T);

// SAFETY: the threads write disjoint positions (see `group_by_segment`);
// the pointer itself is just an address.
unsafe impl<T: Send> Send for ScatterTarget<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for ScatterTarget<T> {}

impl<T> ScatterTarget<T> {
    /// Pointer to position `i`.
    ///
    /// # Safety
    /// `i` is within the vector's capacity.
    unsafe fn at(&self, i: usize) -> *mut T {
        // SAFETY: the caller's contract.
        unsafe { self.0.add(i) }
    }
}

/// [`per_segment`] with a [`Scratch`] per worker thread, so no buffer is
/// allocated per segment.
fn per_segment_with_scratch<T: Sync, R: Send>(
    segments: &mut [Segment],
    ranges: &[Range<usize>],
    batch: &[T],
    work: impl Fn(&mut Scratch, &mut SegmentData, &[T]) -> R + Sync + Send,
) -> Vec<R> {
    segments
        .par_iter_mut()
        .zip(ranges.par_iter())
        .filter(|(_, range)| !range.is_empty())
        .map_init(Scratch::default, |scratch, (segment, range)| {
            scratch.reset();
            work(scratch, segment.get_mut(), &batch[range.clone()])
        })
        .collect()
}

/// Runs `work` on every segment that has entries, in parallel, and
/// collects what it returns.
fn per_segment<T: Sync, R: Send>(
    segments: &mut [Segment],
    ranges: &[Range<usize>],
    batch: &[T],
    work: impl Fn(&mut SegmentData, &[T]) -> R + Sync + Send,
) -> Vec<R> {
    segments
        .par_iter_mut()
        .zip(ranges.par_iter())
        .filter(|(_, range)| !range.is_empty())
        .map(|(segment, range)| work(segment.get_mut(), &batch[range.clone()]))
        .collect()
}

/// Every live edge of `other` as a batch entry, with its weight or 1.0,
/// gathered in parallel in `other`'s order (by source, then target).
fn entries_of(other: &CsrPP) -> Vec<Entry> {
    (0..other.vertex_count() as VertexId)
        .into_par_iter()
        .flat_map_iter(|v| other.weighted_or_unit(v).map(move |(d, w)| (v, d, w)))
        .collect()
}

impl CsrPP {
    /// Inserts a batch whose ids are already admitted (checked and the
    /// graph grown). `set_union` forces set semantics (graph algebra);
    /// otherwise the store's semantics apply.
    pub(crate) fn insert_batch<B: BatchEntries + ?Sized>(
        &mut self,
        batch: &B,
        set_union: bool,
    ) -> UpdateReport {
        let set_union = set_union || self.options.store.semantics == Semantics::Simple;
        let semantics = if set_union {
            Semantics::Simple
        } else {
            Semantics::Multigraph
        };
        // A load into an empty store keeps the grouped path (its packed
        // layout), and so does a store that re-packs segments on batches.
        let threshold = match self.options.group_inserts_above {
            0 => 0,
            _ if !set_union && self.deleted_vertices == 0 => self.options.group_inserts_above,
            edges => edges.max(SET_GROUP_INSERTS_ABOVE),
        };
        let one_at_a_time = batch.len() <= SERIAL_BATCH.min(threshold)
            || (batch.len() <= threshold && self.edge_count > 0 && !self.options.segment_repack);
        if one_at_a_time {
            // Sorting and fanning out to the pool costs more than it saves.
            let mut added = 0;
            batch.for_each_entry(0..batch.len(), |(src, dst, weight)| {
                added += u64::from(self.insert_admitted(src, dst, weight, semantics));
            });
            return UpdateReport {
                edges_added: added,
                edges_removed: 0,
            };
        }
        let in_edges = self.options.store.in_edges;
        if !set_union && self.deleted_vertices == 0 && self.edge_count > 0 {
            // Every edge is added (multigraph) and no deleted flag needs
            // clearing: the slots are grouped by vertex straight from the
            // source, out-slots by source and in-slots by target, and each
            // list merges its group in place. Two passes over the segments
            // (out-lists, then in-lists), for the reason below.
            let added = self.merge_slots(batch, false);
            debug_assert_eq!(added, batch.len() as u64, "a multigraph adds every edge");
            if in_edges {
                self.merge_slots(batch, true);
            }
            self.edge_count += added;
            self.after_grouped_batch(added);
            return UpdateReport {
                edges_added: added,
                edges_removed: 0,
            };
        }
        let context =
            InsertContext::new(&self.allocator, &self.snapshots, &self.options, self.shift);
        if !set_union && in_edges && self.deleted_vertices == 0 && self.edge_count > 0 {
            // Every edge is added (multigraph), so the in-entries are the
            // batch itself, reversed: grouped straight from the source,
            // not gathered edge by edge from what the out pass added. Two
            // passes over the segments all the same (out-lists, then
            // in-lists), so the blocks a batch allocates for in-lists lie
            // next to each other, not between out-lists: one task per
            // segment doing both sides (blocks of the two interleaved)
            // took pull PageRank after 50 1 % batches of a Kronecker
            // scale-18 stream from 2.3× to 2.9× `Csr`.
            // A load into an empty store takes the general path below.
            let (out, out_ranges) = group_by_segment(batch, self.shift, self.segments.len());
            let added: u64 = per_segment_with_scratch(
                &mut self.segments,
                &out_ranges,
                &out,
                |scratch, data, part| context.out_part(scratch, data, part, false, false).0,
            )
            .into_iter()
            .sum();
            debug_assert_eq!(added, out.len() as u64, "a multigraph adds every edge");
            drop(out);
            let (incoming, in_ranges) =
                group_by_segment(&Reversed(batch), self.shift, self.segments.len());
            per_segment_with_scratch(
                &mut self.segments,
                &in_ranges,
                &incoming,
                |scratch, data, part| {
                    let undeleted = context.in_part(scratch, data, part, true);
                    debug_assert_eq!(undeleted, 0, "no vertex is deleted");
                },
            );
            self.edge_count += added;
            self.after_grouped_batch(added);
            return UpdateReport {
                edges_added: added,
                edges_removed: 0,
            };
        }
        // Stable: equal edges keep arrival order, so the first one's weight
        // wins under set semantics and multigraph duplicates stay oldest
        // first.
        let (batch, ranges) = group_by_segment(batch, self.shift, self.segments.len());
        // The targets of added edges are needed for the in-lists, and to
        // clear deleted flags (rare: only when some vertex is deleted).
        let track = in_edges || self.deleted_vertices > 0;
        let results = per_segment_with_scratch(
            &mut self.segments,
            &ranges,
            &batch,
            |scratch, data, part| context.out_part(scratch, data, part, set_union, track),
        );
        let added: u64 = results.iter().map(|r| r.0).sum();
        self.edge_count += added;
        self.deleted_vertices -= results.iter().map(|r| r.1).sum::<u64>();
        if track {
            let in_entries: Vec<Entry> = results.into_iter().flat_map(|r| r.2).collect();
            self.insert_in_entries(&in_entries);
        }
        self.after_grouped_batch(added);
        UpdateReport {
            edges_added: added,
            edges_removed: 0,
        }
    }

    /// Adds every edge of a multigraph batch to the out-lists (`incoming`
    /// false) or the in-lists: the batch grouped by vertex in parallel
    /// ([`group_by_key`]), then each touched segment's groups merged into
    /// its lists, one rayon task per segment. Returns the slots added.
    /// No vertex may be flagged deleted.
    fn merge_slots<B: BatchEntries + ?Sized>(&mut self, batch: &B, incoming: bool) -> u64 {
        let mut groups = group_by_key(&Slots { batch, incoming }, self.vertex_count);
        let context =
            InsertContext::new(&self.allocator, &self.snapshots, &self.options, self.shift);
        let added: u64 = groups_per_segment(&mut self.segments, &mut groups, self.shift)
            .into_par_iter()
            .map_init(Scratch::default, |scratch, (segment, keys, ends, slots)| {
                scratch.reset();
                let data = segment.get_mut();
                let added = context.merge_slot_groups(scratch, data, incoming, keys, &ends, slots);
                if !incoming {
                    data.live_edges += added;
                }
                added
            })
            .sum();
        added
    }

    /// Maintenance after a grouped batch insert that added `added` edges
    /// ([`crate::CsrPPOptions::defragment_after`]): a load into an empty
    /// store is a fresh layout; otherwise the growth counts toward the
    /// next defragment, which runs once it reaches the share.
    fn after_grouped_batch(&mut self, added: u64) {
        if self.edge_count == added {
            // The store was empty: a bulk load's packed layout.
            self.layout_edges = self.edge_count;
            self.batch_growth = 0;
            return;
        }
        let Some(percent) = self.options.defragment_after else {
            return;
        };
        self.batch_growth += added;
        if self.batch_growth * 100 >= u64::from(percent) * self.layout_edges.max(1) {
            // Resets the counters: the copy is a fresh layout.
            self.defragment();
        }
    }

    /// Adds `(target, source)` entries of edges just added to the in-lists
    /// (when kept) and clears the targets' deleted flags.
    fn insert_in_entries(&mut self, in_entries: &[Entry]) {
        let (in_entries, ranges) = group_by_segment(in_entries, self.shift, self.segments.len());
        let in_edges = self.options.store.in_edges;
        let context =
            InsertContext::new(&self.allocator, &self.snapshots, &self.options, self.shift);
        let undeleted: u64 = per_segment_with_scratch(
            &mut self.segments,
            &ranges,
            &in_entries,
            |scratch, data, part| context.in_part(scratch, data, part, in_edges),
        )
        .into_iter()
        .sum();
        self.deleted_vertices -= undeleted;
    }

    /// Deletes a batch. `all_occurrences`: set difference (every copy of
    /// each pair goes); otherwise each entry removes one occurrence, the
    /// oldest, as a run of single deletes would. Entries naming a vertex
    /// outside the graph remove nothing; weights are ignored.
    pub(crate) fn delete_batch<B: BatchEntries + ?Sized>(
        &mut self,
        batch: &B,
        all_occurrences: bool,
    ) -> u64 {
        if batch.len() <= SERIAL_BATCH {
            // One at a time: grouping costs more than it saves.
            let mut removed = 0;
            batch.for_each_entry(0..batch.len(), |(src, dst, _)| {
                while self.delete_one(src, dst) {
                    removed += 1;
                    if !all_occurrences {
                        break;
                    }
                }
            });
            return removed;
        }
        let existing = InGraph {
            batch,
            vertex_count: self.vertex_count,
        };
        let (batch, ranges) = group_by_segment(&existing, self.shift, self.segments.len());
        if batch.is_empty() {
            return 0;
        }
        let in_edges = self.options.store.in_edges;
        let mask = self.segment_size() - 1;
        let shift = self.shift;
        let snapshots = &self.snapshots;
        let saving = snapshots.is_active();
        let editor = Editor {
            allocator: &self.allocator,
            delete_mode: self.options.delete_mode,
        };
        let results = per_segment(&mut self.segments, &ranges, &batch, |data, part| {
            let segment = (part[0].0 >> shift) as usize;
            // Copied for the snapshots before the first delete that finds
            // its edge.
            let mut copied = !saving;
            let mut removed_edges: Vec<Entry> = Vec::new();
            let mut removed = 0u64;
            let mut previous = None;
            for &(src, dst, _) in part {
                // Sorted: a repeated pair follows its first occurrence; a
                // set difference has already removed it all.
                if all_occurrences && previous == Some((src, dst)) {
                    continue;
                }
                previous = Some((src, dst));
                if !copied && data.out[src as usize & mask].contains_live(dst) {
                    snapshots.before_change(segment, data);
                    copied = true;
                }
                let list = &mut data.out[src as usize & mask];
                // SAFETY: the list lives in this store, whose allocator
                // `editor` holds.
                let count = unsafe {
                    if all_occurrences {
                        editor.delete_all(list, dst)
                    } else {
                        u64::from(editor.delete_one(list, dst))
                    }
                };
                removed += count;
                if in_edges {
                    removed_edges.extend(std::iter::repeat_n((dst, src, 0.0), count as usize));
                }
            }
            data.live_edges -= removed;
            (removed, removed_edges)
        });
        let removed: u64 = results.iter().map(|r| r.0).sum();
        self.edge_count -= removed;
        if in_edges {
            let mut in_entries: Vec<Entry> = results.into_iter().flat_map(|r| r.1).collect();
            in_entries.par_sort_unstable_by_key(|&(dst, src, _)| (dst, src));
            let ranges = segment_ranges(&in_entries, |e| e.0, self.shift, self.segments.len());
            per_segment(&mut self.segments, &ranges, &in_entries, |data, part| {
                if saving {
                    // Every entry's out-edge was removed: its in-entry goes.
                    snapshots.before_change((part[0].0 >> shift) as usize, data);
                }
                for &(dst, src, _) in part {
                    let list = &mut data.incoming[dst as usize & mask];
                    // SAFETY: as above.
                    let found = unsafe { editor.delete_one(list, src) };
                    debug_assert!(found, "in-list of {dst} lacks {src}");
                }
            });
        }
        removed
    }

    /// Graph union in place (Sahu, Algorithm 8 `addGraphInplace`): adds
    /// every edge of `other` that `self` lacks, with set semantics whatever
    /// either store's semantics (an edge already present, or repeated in
    /// `other`, is added at most once; its weight is `other`'s, or 1.0).
    /// Grows `self` to at least `other`'s vertex count. Returns the number
    /// of edges actually added. Live snapshots of `self` keep their graph.
    ///
    /// Cost: gathering `other`'s edges (already sorted by source and
    /// target) in parallel, then one merge per touched vertex, in parallel
    /// per segment.
    ///
    /// # Errors
    /// [`Error::VertexLimit`] if `other` has more vertices than `self`'s
    /// limit; `self` is then unchanged.
    ///
    /// ```
    /// use dyngraph_core::{Edge, FromEdges, Graph};
    /// use dyngraph_csrpp::{CsrPP, CsrPPOptions};
    /// let options = CsrPPOptions::default();
    /// let mut g = CsrPP::from_edges(&[Edge::new(0, 1), Edge::new(1, 2)], options.clone())?;
    /// let batch = CsrPP::from_edges(&[Edge::new(0, 1), Edge::new(2, 0)], options)?;
    /// assert_eq!(g.add_graph_in_place(&batch)?, 1);
    /// assert_eq!(g.edge_count(), 3);
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn add_graph_in_place(&mut self, other: &CsrPP) -> Result<u64> {
        if other.vertex_count() > self.options.store.vertex_limit {
            return Err(Error::VertexLimit {
                vertex: other.vertex_count() as u64 - 1,
                needed: other.vertex_count() as u64,
                limit: self.options.store.vertex_limit as u64,
            });
        }
        self.grow_to(other.vertex_count());
        let batch = entries_of(other);
        Ok(self.insert_batch(batch.as_slice(), true).edges_added)
    }

    /// Graph union into a new instance (Algorithm 8 `addGraph`): `self ∪
    /// other` and the number of edges added. Implemented as a parallel
    /// [`Clone`] followed by [`CsrPP::add_graph_in_place`], not as the
    /// paper's fused copy-and-merge.
    ///
    /// # Errors
    /// As [`CsrPP::add_graph_in_place`].
    pub fn add_graph(&self, other: &CsrPP) -> Result<(CsrPP, u64)> {
        let mut union = self.clone();
        let added = union.add_graph_in_place(other)?;
        Ok((union, added))
    }

    /// Graph difference in place (Algorithm 7 `subtractGraphInplace`):
    /// removes every edge `u -> v` of `self` for which `other` has an edge
    /// `u -> v` (all occurrences, set semantics). Returns the number of
    /// edges removed. Deletes follow [`crate::CsrPPOptions::delete_mode`].
    /// Live snapshots of `self` keep their graph.
    ///
    /// ```
    /// use dyngraph_core::{Edge, FromEdges, OutNeighbors};
    /// use dyngraph_csrpp::{CsrPP, CsrPPOptions};
    /// let options = CsrPPOptions::default();
    /// let mut g = CsrPP::from_edges(&[Edge::new(0, 1), Edge::new(0, 1), Edge::new(0, 2)], options.clone())?;
    /// let batch = CsrPP::from_edges(&[Edge::new(0, 1), Edge::new(5, 5)], options)?;
    /// assert_eq!(g.subtract_graph_in_place(&batch), 2);
    /// assert_eq!(g.out_neighbors(0).collect::<Vec<_>>(), [2]);
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn subtract_graph_in_place(&mut self, other: &CsrPP) -> u64 {
        let batch = entries_of(other);
        self.delete_batch(batch.as_slice(), true)
    }

    /// Graph difference into a new instance (Algorithm 7 `subtractGraph`):
    /// `self \ other` and the number of edges removed. Implemented as a
    /// parallel [`Clone`] followed by [`CsrPP::subtract_graph_in_place`].
    pub fn subtract_graph(&self, other: &CsrPP) -> (CsrPP, u64) {
        let mut difference = self.clone();
        let removed = difference.subtract_graph_in_place(other);
        (difference, removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyngraph_core::Weight;
    use dyngraph_core::{Edge, EdgeChunk, FromEdges, GraphUpdate, StoreConfig, WeightedEdge};

    /// The parallel counting sort groups exactly as a stable sort by
    /// segment and then by `(first, second)` id would, with several chunks
    /// (a pool of four threads) and with one; reading the same edges from
    /// columns in place gives the same groups.
    #[test]
    fn grouping_matches_a_stable_sort() {
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        for len in [0, 1, 100, 3 * PARALLEL_GROUPING_CHUNK + 17] {
            // Ids below 1,000 in segments of 8 vertices: 125 segments;
            // weights record arrival order, so stability is checked too.
            let batch: Vec<Entry> = (0..len)
                .map(|i| (next() % 1000, next() % 50, i as Weight))
                .collect();
            let mut expected = batch.clone();
            expected.sort_by_key(|&(src, dst, _)| (src >> 3, src, dst));
            for threads in [1, 4] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let (grouped, ranges) = pool.install(|| group_by_segment(batch.as_slice(), 3, 125));
                assert_eq!(grouped, expected, "len {len}, {threads} threads");
                let src: Vec<VertexId> = batch.iter().map(|e| e.0).collect();
                let dst: Vec<VertexId> = batch.iter().map(|e| e.1).collect();
                let weights: Vec<Weight> = batch.iter().map(|e| e.2).collect();
                let columns = EdgeChunk::new(&src, &dst, Some(&weights)).unwrap();
                let (from_columns, column_ranges) =
                    pool.install(|| group_by_segment(&SourceEntries(&columns), 3, 125));
                assert_eq!(from_columns, expected, "columns, len {len}");
                assert_eq!(column_ranges, ranges);
                assert_eq!(ranges.len(), 125);
                for (segment, range) in ranges.iter().enumerate() {
                    assert!(
                        grouped[range.clone()]
                            .iter()
                            .all(|e| e.0 >> 3 == segment as u32)
                    );
                }
                assert_eq!(ranges.last().map_or(0, |r| r.end), len);
            }
        }
    }

    /// A delete batch keeps only edges between existing vertices, so
    /// every id it groups has a segment.
    #[test]
    fn delete_grouping_drops_edges_outside_the_graph() {
        let batch = [
            Edge::new(0, 1),
            Edge::new(9, 0),
            Edge::new(2, 9),
            Edge::new(2, 0),
        ];
        let existing = InGraph {
            batch: &SourceEntries(&batch[..]),
            vertex_count: 4,
        };
        let (grouped, ranges) = group_by_segment(&existing, 1, 2);
        assert_eq!(grouped, [(0, 1, 1.0), (2, 0, 1.0)]);
        assert_eq!(ranges, [0..1, 1..2]);
    }

    /// With `defragment_after`, a grouped batch that brings the growth
    /// since the last layout to the share defragments (a fresh layout:
    /// the counters restart from the store's edges); smaller growth only
    /// counts, and a bulk load is a layout of its own.
    #[test]
    fn a_defragment_is_due_once_batches_add_the_share() {
        let edges = |from: u32, count: u32| -> Vec<Edge> {
            (from..from + count)
                .map(|i| Edge::new(i.wrapping_mul(2654435761) % 5000, i % 4999))
                .collect()
        };
        let options = crate::CsrPPOptions::default()
            .in_edges(true)
            .defragment_after(Some(50));
        let mut graph = CsrPP::from_edges(&edges(0, 40_000), options).unwrap();
        assert_eq!((graph.layout_edges, graph.batch_growth), (40_000, 0));
        graph.insert_edges(&edges(40_000, 17_000)).unwrap();
        assert_eq!((graph.layout_edges, graph.batch_growth), (40_000, 17_000));
        graph.insert_edges(&edges(57_000, 17_000)).unwrap();
        assert_eq!((graph.layout_edges, graph.batch_growth), (74_000, 0));
        // Without the option, growth is not even counted.
        let options = crate::CsrPPOptions::default().defragment_after(None);
        let mut graph = CsrPP::from_edges(&edges(0, 40_000), options).unwrap();
        graph.insert_edges(&edges(40_000, 30_000)).unwrap();
        assert_eq!((graph.layout_edges, graph.batch_growth), (40_000, 0));
    }

    /// An edge source that shows a different edge each time it is read.
    struct Shifting(std::sync::atomic::AtomicU32);

    impl EdgeSource for Shifting {
        fn len(&self) -> usize {
            4
        }

        fn is_weighted(&self) -> bool {
            false
        }

        fn edge(&self, i: usize) -> WeightedEdge {
            let turn = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            WeightedEdge::new(i as u32 % 2 + 2 * (turn / 4 % 2), 0, 1.0)
        }
    }

    /// A broken source (different edges on the second read) is a panic,
    /// never a write outside the grouping buffer.
    #[test]
    fn a_source_that_changes_between_reads_panics() {
        let source = Shifting(std::sync::atomic::AtomicU32::new(0));
        let result = std::panic::catch_unwind(|| group_by_segment(&SourceEntries(&source), 1, 2));
        let message = *result
            .expect_err("the second read differs")
            .downcast::<&str>()
            .expect("a message");
        assert!(message.contains("second read"), "{message}");
    }
}
