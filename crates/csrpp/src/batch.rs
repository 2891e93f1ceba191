//! Batch updates (CSR++ §3.2.1) and batch graph algebra (Sahu,
//! Algorithms 7-8): group by source, sort in parallel, then change every
//! modified segment in parallel, one rayon task per segment.

use crate::adjacency::AdjList;
use crate::segment::{Editor, Segment, merge_sorted};
use crate::store::CsrPP;
use dyngraph_core::hint::prefetch_address;
use dyngraph_core::{Edge, Error, Graph, Result, Semantics, UpdateReport, VertexId, Weight};
use rayon::prelude::*;
use std::ops::Range;

/// Into a list holding tombstones, up to this many new edges are inserted
/// one by one (binary search and shift in place, reviving tombstones);
/// more are merged into a fresh array that drops them.
const SMALL_GROUP: usize = 8;

/// Batches up to this size are inserted one edge at a time, in order.
const SERIAL_BATCH: usize = 64;

/// A batch entry: `(source, target, weight)`.
type Entry = (VertexId, VertexId, Weight);

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

/// Groups `batch` by the segment of `key` and sorts each group by `order`:
/// a counting sort by segment (stable, so entries keep arrival order
/// within a segment), then a stable sort of every segment's entries, in
/// parallel. Returns the grouped entries and every segment's range (most
/// empty). Cheaper than sorting the whole batch: one pass and many tiny
/// sorts instead of `O(b log b)` comparisons of the whole batch.
///
/// The counting sort runs in parallel too: each of a few chunks of the
/// batch counts its entries per segment, a prefix sum over (segment,
/// chunk) gives every chunk its own positions within each segment's
/// range, and the chunks scatter at once (a serial scatter took about a
/// seventh of a 1 % batch at kron21 while the other thread idled).
fn group_by_segment<T: Copy + Send + Sync, K: Ord>(
    batch: &[T],
    key: impl Fn(&T) -> VertexId + Sync,
    order: impl Fn(&T) -> K + Sync,
    shift: u32,
    segment_count: usize,
) -> (Vec<T>, Vec<Range<usize>>) {
    let segment_of = |entry: &T| (key(entry) >> shift) as usize;
    let chunk_len = batch
        .len()
        .div_ceil(rayon::current_num_threads())
        .max(PARALLEL_GROUPING_CHUNK);
    let chunks: Vec<&[T]> = batch.chunks(chunk_len).collect();
    // Per chunk, first the count of its entries in each segment, then the
    // position its next entry of that segment goes to.
    let mut next: Vec<Vec<usize>> = chunks
        .par_iter()
        .map(|chunk| {
            let mut counts = vec![0usize; segment_count];
            for entry in *chunk {
                counts[segment_of(entry)] += 1;
            }
            counts
        })
        .collect();
    let mut starts = Vec::with_capacity(segment_count + 1);
    let mut total = 0;
    for segment in 0..segment_count {
        starts.push(total);
        for counts in &mut next {
            let count = counts[segment];
            counts[segment] = total;
            total += count;
        }
    }
    starts.push(total);
    debug_assert_eq!(total, batch.len());
    let mut grouped: Vec<T> = Vec::with_capacity(batch.len());
    let out = ScatterTarget(grouped.as_mut_ptr());
    chunks
        .par_iter()
        .zip(next.par_iter_mut())
        .for_each(|(chunk, next)| {
            for &entry in *chunk {
                let segment = segment_of(&entry);
                // SAFETY: `next[segment]` runs through this chunk's own
                // positions in the segment's range, `[start, start +
                // count)`, which the prefix sum above made disjoint from
                // every other (segment, chunk) pair's and less than
                // `batch.len()`, the vector's capacity. So each position
                // is written once, by one thread.
                unsafe { out.at(next[segment]).write(entry) };
                next[segment] += 1;
            }
        });
    // SAFETY: the counts add up to `batch.len()`, so the scatter above
    // wrote every position in `[0, batch.len())` (`T: Copy`: nothing to
    // drop).
    unsafe { grouped.set_len(batch.len()) };
    let ranges: Vec<Range<usize>> = starts.windows(2).map(|w| w[0]..w[1]).collect();
    let mut parts: Vec<&mut [T]> = Vec::new();
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
        .for_each(|part| part.sort_by_key(|entry| order(entry)));
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

/// Buffers a batch task reuses from segment to segment on one thread.
#[derive(Default)]
struct Scratch {
    /// New slots per touched list, and the groups `(index, start, end)`.
    pending: Vec<(VertexId, Weight)>,
    groups: Vec<(usize, usize, usize)>,
    /// For merges into lists holding tombstones.
    merge: (Vec<u32>, Vec<Weight>),
}

impl Scratch {
    fn reset(&mut self) {
        self.pending.clear();
        self.groups.clear();
    }
}

/// [`per_segment`] with a [`Scratch`] per worker thread, so no buffer is
/// allocated per segment.
fn per_segment_with_scratch<T: Sync, R: Send>(
    segments: &mut [Segment],
    ranges: &[Range<usize>],
    batch: &[T],
    work: impl Fn(&mut Scratch, &mut crate::segment::SegmentData, &[T]) -> R + Sync + Send,
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
    work: impl Fn(&mut crate::segment::SegmentData, &[T]) -> R + Sync + Send,
) -> Vec<R> {
    segments
        .par_iter_mut()
        .zip(ranges.par_iter())
        .filter(|(_, range)| !range.is_empty())
        .map(|(segment, range)| work(segment.get_mut(), &batch[range.clone()]))
        .collect()
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

impl CsrPP {
    /// Inserts a batch whose ids are already admitted (checked and the
    /// graph grown). `set_union` forces set semantics (graph algebra);
    /// otherwise the store's semantics apply.
    pub(crate) fn insert_batch(&mut self, batch: Vec<Entry>, set_union: bool) -> UpdateReport {
        let set_union = set_union || self.config.semantics == Semantics::Simple;
        let semantics = if set_union {
            Semantics::Simple
        } else {
            Semantics::Multigraph
        };
        if batch.len() <= SERIAL_BATCH {
            // Sorting and fanning out to the pool costs more than it saves.
            let added = batch
                .iter()
                .filter(|&&(src, dst, weight)| self.insert_admitted(src, dst, weight, semantics))
                .count();
            return UpdateReport {
                edges_added: added as u64,
                edges_removed: 0,
            };
        }
        // Stable: equal edges keep arrival order, so the first one's weight
        // wins under set semantics and multigraph duplicates stay oldest
        // first.
        let (batch, ranges) = group_by_segment(
            &batch,
            |e| e.0,
            |&(src, dst, _)| (src, dst),
            self.shift,
            self.segments.len(),
        );
        // The targets of added edges are needed for the in-lists, and to
        // clear deleted flags (rare: only when some vertex is deleted).
        let track = self.config.reverse_edges || self.deleted_vertices > 0;
        let mask = self.segment_size() - 1;
        let headroom = self.config.slab_headroom;
        let repack = self.config.segment_repack;
        let editor = Editor {
            allocator: &self.allocator,
            delete_mode: self.config.delete_mode,
        };
        let results = per_segment_with_scratch(
            &mut self.segments,
            &ranges,
            &batch,
            |buffers, data, part| {
                let Scratch {
                    pending,
                    groups,
                    merge: scratch,
                } = buffers;
                let mut added_edges: Vec<Entry> = Vec::new();
                let (mut added, mut undeleted) = (0u64, 0u64);
                if data.live_edges == 0 && data.out.iter().all(|list| list.len() == 0) {
                    // A bulk load into an empty segment: CSR++'s load layout,
                    // every array exactly sized and packed into one slab.
                    let mut ids = Vec::with_capacity(part.len());
                    let mut weights = Vec::with_capacity(part.len());
                    let mut runs = Vec::new();
                    for group in part.chunk_by(|a, b| a.0 == b.0) {
                        let src = group[0].0;
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
                        let index = src as usize & mask;
                        runs.push((index, start, ids.len()));
                        undeleted += u64::from(data.undelete(index));
                    }
                    added = ids.len() as u64;
                    data.fill_from_runs(editor.allocator, headroom, false, &ids, &weights, &runs);
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
                    let list = &mut data.out[index];
                    let before = added;
                    if list.tombstones() > 0 {
                        // SAFETY: the list lives in this store, whose
                        // allocator `editor` holds.
                        added += unsafe {
                            insert_with_tombstones(
                                &editor,
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
                // SAFETY: the segment lives in this store, whose allocator
                // `editor` holds.
                unsafe { data.merge_groups(editor.allocator, false, repack, pending, groups) };
                data.live_edges += added;
                (added, undeleted, added_edges)
            },
        );
        let added: u64 = results.iter().map(|r| r.0).sum();
        self.edge_count += added;
        self.deleted_vertices -= results.iter().map(|r| r.1).sum::<u64>();
        if track {
            let reversed: Vec<Entry> = results.into_iter().flat_map(|r| r.2).collect();
            self.insert_reverse(&reversed);
        }
        UpdateReport {
            edges_added: added,
            edges_removed: 0,
        }
    }

    /// Adds `(target, source)` entries of edges just added to the in-lists
    /// (when kept) and clears the targets' deleted flags.
    fn insert_reverse(&mut self, reversed: &[Entry]) {
        let (reversed, ranges) = group_by_segment(
            reversed,
            |e| e.0,
            |&(dst, src, _)| (dst, src),
            self.shift,
            self.segments.len(),
        );
        let reversed = &reversed[..];
        let reverse = self.config.reverse_edges;
        let mask = self.segment_size() - 1;
        let headroom = self.config.slab_headroom;
        let repack = self.config.segment_repack;
        let editor = Editor {
            allocator: &self.allocator,
            delete_mode: self.config.delete_mode,
        };
        let undeleted: u64 = per_segment_with_scratch(
            &mut self.segments,
            &ranges,
            reversed,
            |buffers, data, part| {
                let Scratch {
                    pending,
                    groups,
                    merge: scratch,
                } = buffers;
                let mut undeleted = 0;
                if reverse && data.incoming.iter().all(|list| list.len() == 0) {
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
                    data.fill_from_runs(editor.allocator, headroom, true, &ids, &[], &runs);
                    return undeleted;
                }
                for group in part.chunk_by(|a, b| a.0 == b.0) {
                    prefetch_address(&data.out[group[0].0 as usize & mask]);
                    if reverse {
                        prefetch_address(&data.incoming[group[0].0 as usize & mask]);
                    }
                }
                for group in part.chunk_by(|a, b| a.0 == b.0) {
                    let index = group[0].0 as usize & mask;
                    undeleted += u64::from(data.undelete(index));
                    if !reverse {
                        continue;
                    }
                    let list = &mut data.incoming[index];
                    if list.tombstones() > 0 {
                        // SAFETY: the list lives in this store, whose
                        // allocator `editor` holds.
                        unsafe {
                            insert_with_tombstones(
                                &editor,
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
                unsafe { data.merge_groups(editor.allocator, true, repack, pending, groups) };
                undeleted
            },
        )
        .into_iter()
        .sum();
        self.deleted_vertices -= undeleted;
    }

    /// Deletes a batch. `all_occurrences`: set difference (every copy of
    /// each pair goes); otherwise each entry removes one occurrence, the
    /// oldest, as a run of single deletes would.
    pub(crate) fn delete_batch(&mut self, mut batch: Vec<Edge>, all_occurrences: bool) -> u64 {
        let vertex_count = self.vertex_count;
        batch.retain(|e| (e.src as usize) < vertex_count && (e.dst as usize) < vertex_count);
        if batch.is_empty() {
            return 0;
        }
        batch.par_sort_unstable();
        if all_occurrences {
            batch.dedup();
        }
        let reverse = self.config.reverse_edges;
        let mask = self.segment_size() - 1;
        let ranges = segment_ranges(&batch, |e| e.src, self.shift, self.segments.len());
        let editor = Editor {
            allocator: &self.allocator,
            delete_mode: self.config.delete_mode,
        };
        let results = per_segment(&mut self.segments, &ranges, &batch, |data, part| {
            let mut removed_edges: Vec<Edge> = Vec::new();
            let mut removed = 0u64;
            for edge in part {
                let list = &mut data.out[edge.src as usize & mask];
                // SAFETY: the list lives in this store, whose allocator
                // `editor` holds.
                let count = unsafe {
                    if all_occurrences {
                        editor.delete_all(list, edge.dst)
                    } else {
                        u64::from(editor.delete_one(list, edge.dst))
                    }
                };
                removed += count;
                if reverse {
                    removed_edges.extend(std::iter::repeat_n(edge.reversed(), count as usize));
                }
            }
            data.live_edges -= removed;
            (removed, removed_edges)
        });
        let removed: u64 = results.iter().map(|r| r.0).sum();
        self.edge_count -= removed;
        if reverse {
            let mut reversed: Vec<Edge> = results.into_iter().flat_map(|r| r.1).collect();
            reversed.par_sort_unstable();
            let ranges = segment_ranges(&reversed, |e| e.src, self.shift, self.segments.len());
            per_segment(&mut self.segments, &ranges, &reversed, |data, part| {
                for edge in part {
                    let list = &mut data.incoming[edge.src as usize & mask];
                    // SAFETY: as above.
                    let found = unsafe { editor.delete_one(list, edge.dst) };
                    debug_assert!(found, "in-list of {} lacks {}", edge.src, edge.dst);
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
    /// of edges actually added.
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
    /// use dyngraph_core::{Edge, Graph};
    /// use dyngraph_csrpp::{CsrPP, CsrPPConfig};
    /// let config = CsrPPConfig::default();
    /// let mut g = CsrPP::from_edges(&[Edge::new(0, 1), Edge::new(1, 2)], config.clone())?;
    /// let batch = CsrPP::from_edges(&[Edge::new(0, 1), Edge::new(2, 0)], config)?;
    /// assert_eq!(g.add_graph_in_place(&batch)?, 1);
    /// assert_eq!(g.edge_count(), 3);
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn add_graph_in_place(&mut self, other: &CsrPP) -> Result<u64> {
        if other.vertex_count() > self.config.vertex_limit {
            return Err(Error::VertexLimit {
                vertex: other.vertex_count() as u64 - 1,
                needed: other.vertex_count() as u64,
                limit: self.config.vertex_limit as u64,
            });
        }
        self.grow_to(other.vertex_count());
        let batch: Vec<Entry> = other
            .edges()
            .into_par_iter()
            .map(|e| (e.src, e.dst, e.weight))
            .collect();
        Ok(self.insert_batch(batch, true).edges_added)
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
    /// edges removed. Deletes follow [`crate::CsrPPConfig::delete_mode`].
    ///
    /// ```
    /// use dyngraph_core::{Edge, Graph, OutNeighbors};
    /// use dyngraph_csrpp::{CsrPP, CsrPPConfig};
    /// let config = CsrPPConfig::default();
    /// let mut g = CsrPP::from_edges(&[Edge::new(0, 1), Edge::new(0, 1), Edge::new(0, 2)], config.clone())?;
    /// let batch = CsrPP::from_edges(&[Edge::new(0, 1), Edge::new(5, 5)], config)?;
    /// assert_eq!(g.subtract_graph_in_place(&batch), 2);
    /// assert_eq!(g.out_neighbors(0).collect::<Vec<_>>(), [2]);
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn subtract_graph_in_place(&mut self, other: &CsrPP) -> u64 {
        let batch: Vec<Edge> = other.edges().into_par_iter().map(|e| e.edge()).collect();
        self.delete_batch(batch, true)
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

    /// The parallel counting sort groups exactly as a stable sort by
    /// segment and then by `order` would, with several chunks (a pool of
    /// four threads) and with one.
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
                let (grouped, ranges) = pool.install(|| {
                    group_by_segment(&batch, |e| e.0, |&(src, dst, _)| (src, dst), 3, 125)
                });
                assert_eq!(grouped, expected, "len {len}, {threads} threads");
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
}
