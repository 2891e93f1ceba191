//! [`CsrPP`]: the store, its read traits and its serial updates.

use crate::adjacency::{AdjList, TOMBSTONE};
use crate::alloc::{AllocatorKind, EdgeAllocator};
use crate::config::CsrPPConfig;
use crate::iter::{Neighbors, WeightedNeighbors};
use crate::keys::KeyMap;
use crate::segment::{Editor, EntryArrays, Segment, SegmentData};
use dyngraph_core::hint::prefetch_address;
use dyngraph_core::{
    Edge, Error, Graph, GraphUpdate, InNeighbors, OutNeighbors, Result, Semantics, UpdateReport,
    VertexId, Weight, WeightedEdge, WeightedOutNeighbors, check_limit,
};
use rayon::prelude::*;
use std::ops::Range;

/// A handle to one vertex property column of a [`CsrPP`] (see
/// [`CsrPP::add_vertex_property`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexPropertyId(pub(crate) usize);

/// CSR++: a mutable CSR whose vertices live in fixed-size segments and own
/// sorted, power-of-two edge arrays.
///
/// # Layout
/// A growable array of segment headers (the indirection layer: a lock,
/// counters and pointers; growing it moves these headers, never a vertex
/// entry or an edge array), each segment holding
/// [`CsrPPConfig::segment_size`] vertex entries of 16 bytes (degree,
/// flags, and either the neighbours inline — up to two ids when
/// unweighted, one `(id, weight)` when weighted — or a pointer to the edge
/// array), in-lists when [`CsrPPConfig::reverse_edges`] is on, and vertex
/// property columns. Weights live in the same allocation as their ids.
///
/// # Cost model
/// - **Insert** one edge: `O(log d)` search plus an `O(d)` shift (a
///   `memmove`); every time the degree passes a power of two the array is
///   reallocated and copied (amortised `O(1)` per edge). Only the source's
///   segment is touched (and the target's, for reverse edges).
/// - **Delete** one edge: physical, `O(log d + d)` with halving when half
///   empty; logical, `O(log d)` (a tombstone bit) plus a later
///   [`CsrPP::compact`].
/// - **Batch insert** of `b` edges: a parallel stable sort of the batch
///   (`O(b log b)`), then per modified segment in parallel a merge of each
///   touched vertex's array with its new edges (`O(k log d)` searches plus
///   one copy of the array when it must move; in place when it has room).
///   With [`CsrPPConfig::segment_repack`], a segment that earlier updates
///   scattered is re-packed into one slab instead (`O(segment)`).
/// - **Scan**: one slice per vertex, as in CSR, reached through two
///   indirections (segment, entry); vertices with up to two unweighted
///   slots (one weighted) need no array: their slice is inside the entry.
/// - **Memory**: 16 bytes per vertex entry (32 with reverse edges), plus,
///   for lists too long to be inline, per edge 4 bytes (8 weighted) —
///   exactly, right after a bulk load
///   (arrays packed per segment; 1.16× `Csr` on a Kronecker graph), and
///   rounded up to the vertex's power-of-two capacity once it has been
///   updated (between 1× and 2×; about 1.9× `Csr` after 100 batches on a
///   Kronecker graph, 1.5× with [`CsrPPConfig::segment_repack`]) —
///   plus the in-lists' 4 bytes per edge with reverse edges.
///
/// # Concurrency
/// `&mut CsrPP` updates serially with no locking. For many threads, take a
/// [`crate::ConcurrentWriter`] with [`CsrPP::concurrent_writer`]: its
/// `insert_edge`/`delete_edge` take `&self` and lock one segment each (two,
/// in index order, with reverse edges). The writer borrows the store
/// mutably, so no scan can run until it is dropped — the update/scan phase
/// split of the paper, enforced by the borrow checker.
///
/// ```
/// use dyngraph_core::{Edge, Graph, GraphUpdate, OutNeighbors};
/// use dyngraph_csrpp::{CsrPP, CsrPPConfig};
///
/// let mut graph = CsrPP::new(CsrPPConfig::default())?;
/// graph.insert_edges(&[Edge::new(0, 2), Edge::new(0, 1), Edge::new(3, 0)])?;
/// assert_eq!(graph.out_neighbors(0).collect::<Vec<_>>(), [1, 2]); // sorted
/// assert!(graph.delete_edge(0, 2)?);
/// assert_eq!(graph.edge_count(), 2);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub struct CsrPP {
    pub(crate) config: CsrPPConfig,
    pub(crate) shift: u32,
    pub(crate) segments: Vec<Segment>,
    pub(crate) vertex_count: usize,
    pub(crate) edge_count: u64,
    pub(crate) deleted_vertices: u64,
    pub(crate) property_defaults: Vec<f64>,
    pub(crate) keys: Option<KeyMap>,
    // Last, so it is dropped after `Drop::drop` has returned the blocks.
    pub(crate) allocator: EdgeAllocator,
}

impl std::fmt::Debug for CsrPP {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsrPP")
            .field("config", &self.config)
            .field("vertex_count", &self.vertex_count)
            .field("edge_count", &self.edge_count)
            .field("segments", &self.segments.len())
            .finish_non_exhaustive()
    }
}

impl CsrPP {
    /// An empty store.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a segment size that is not a power of
    /// two or a vertex limit above [`crate::MAX_VERTEX_LIMIT`].
    pub fn new(config: CsrPPConfig) -> Result<Self> {
        config.validate()?;
        Ok(Self {
            shift: config.segment_size.trailing_zeros(),
            segments: Vec::new(),
            vertex_count: 0,
            edge_count: 0,
            deleted_vertices: 0,
            property_defaults: Vec::new(),
            keys: config.external_keys.then(KeyMap::default),
            allocator: EdgeAllocator::new(config.allocator),
            config,
        })
    }

    /// A store holding `edges` (a batch insert into an empty store).
    ///
    /// # Errors
    /// As [`CsrPP::new`], and [`Error::VertexLimit`] for an id past the limit.
    pub fn from_edges(edges: &[Edge], config: CsrPPConfig) -> Result<Self> {
        let mut graph = Self::new(config)?;
        graph.insert_edges(edges)?;
        Ok(graph)
    }

    /// A store holding weighted `edges`.
    ///
    /// # Errors
    /// As [`CsrPP::from_edges`].
    pub fn from_weighted_edges(edges: &[WeightedEdge], config: CsrPPConfig) -> Result<Self> {
        let mut graph = Self::new(config)?;
        graph.insert_weighted_edges(edges)?;
        Ok(graph)
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &CsrPPConfig {
        &self.config
    }

    /// Which allocator its edge arrays come from.
    pub fn allocator_kind(&self) -> AllocatorKind {
        self.allocator.kind()
    }

    /// Vertices per segment.
    pub fn segment_size(&self) -> usize {
        1 << self.shift
    }

    /// Number of segments allocated.
    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }

    pub(crate) fn locate(&self, v: VertexId) -> (usize, usize) {
        let v = v as usize;
        (v >> self.shift, v & ((1 << self.shift) - 1))
    }

    /// Shared access to a segment's data.
    #[inline]
    pub(crate) fn segment(&self, index: usize) -> &SegmentData {
        // SAFETY: data behind a segment's mutex is only mutated through
        // `&mut CsrPP` (via `Mutex::get_mut`) or through a
        // `ConcurrentWriter`, which holds `&mut CsrPP` for its whole life.
        // Holding `&self` therefore proves that no mutation is in progress
        // or can start while the returned reference lives.
        unsafe { &*self.segments[index].data_ptr() }
    }

    #[inline]
    fn check_vertex(&self, v: VertexId) {
        assert!(
            (v as usize) < self.vertex_count,
            "vertex {v} is out of range for a graph of {} vertices",
            self.vertex_count
        );
    }

    /// Segment `s` and position `i` of vertex `v`, after checking that
    /// `v` exists. The read path of every kernel: kept free of further
    /// bounds checks (see [`CsrPP::out_list`]).
    #[inline]
    fn vertex_segment(&self, v: VertexId) -> (&SegmentData, usize) {
        self.check_vertex(v);
        let (s, i) = self.locate(v);
        debug_assert!(s < self.segments.len());
        // SAFETY: `v < vertex_count` (checked above) and the segments cover
        // `0..vertex_count` (`grow_segments` adds whole segments), so
        // `s < segments.len()`. Shared access as in `CsrPP::segment`.
        let data = unsafe { &*self.segments.get_unchecked(s).data_ptr() };
        (data, i)
    }

    #[inline]
    pub(crate) fn out_list(&self, v: VertexId) -> &AdjList {
        let (data, i) = self.vertex_segment(v);
        debug_assert_eq!(data.out.len(), self.segment_size());
        // SAFETY: every segment holds `segment_size()` out-entries
        // (`grow_segments`, `SegmentData::clone_in`) and `i` is a position
        // within a segment (`locate` masks it).
        unsafe { data.out.get_unchecked(i) }
    }

    #[inline]
    fn in_list(&self, v: VertexId) -> Option<&AdjList> {
        if !self.config.reverse_edges {
            self.check_vertex(v);
            return None;
        }
        let (data, i) = self.vertex_segment(v);
        debug_assert_eq!(data.incoming.len(), self.segment_size());
        // SAFETY: with reverse edges every segment holds `segment_size()`
        // in-entries, and `i` is a position within a segment.
        Some(unsafe { data.incoming.get_unchecked(i) })
    }

    /// The raw sorted slots of `v`'s out-list: live ids, and — only under
    /// [`crate::DeleteMode::Logical`] before [`CsrPP::compact`] — tombstones with
    /// the top bit set. For kernels that want the slice itself.
    ///
    /// # Panics
    /// If `v >= vertex_count()`.
    pub fn out_slots(&self, v: VertexId) -> &[u32] {
        self.out_list(v).ids()
    }

    /// Whether `src -> dst` is a live edge (`O(log d)`).
    pub fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        if src as usize >= self.vertex_count {
            return false;
        }
        let list = self.out_list(src);
        let ids = list.ids();
        list.equal_range(dst).any(|pos| ids[pos] & TOMBSTONE == 0)
    }

    /// Whether `v` was deleted with [`CsrPP::delete_vertex`] and has not
    /// been touched by an edge since.
    pub fn is_vertex_deleted(&self, v: VertexId) -> bool {
        (v as usize) < self.vertex_count && self.out_list(v).is_vertex_deleted()
    }

    /// Number of vertices currently flagged deleted.
    pub fn deleted_vertex_count(&self) -> u64 {
        self.deleted_vertices
    }

    /// Grows the graph so `0..vertex_count` exist, adding whole segments at
    /// the end; existing segments do not move.
    pub(crate) fn grow_to(&mut self, vertex_count: usize) {
        grow_segments(
            &mut self.segments,
            &mut self.vertex_count,
            vertex_count,
            &self.config,
            &self.property_defaults,
        );
    }

    /// Refuses ids past the vertex limit, then grows the graph to hold them.
    fn admit(&mut self, ids: impl IntoIterator<Item = VertexId>) -> Result<()> {
        let max = ids.into_iter().max();
        check_limit(self.config.vertex_limit, max)?;
        if let Some(max) = max {
            self.grow_to(max as usize + 1);
        }
        Ok(())
    }

    fn insert_one(&mut self, src: VertexId, dst: VertexId, weight: Weight) -> Result<bool> {
        self.admit([src, dst])?;
        Ok(self.insert_admitted(src, dst, weight, self.config.semantics))
    }

    /// Inserts one edge whose endpoints exist, with `semantics`.
    pub(crate) fn insert_admitted(
        &mut self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
        semantics: Semantics,
    ) -> bool {
        let (s, i) = self.locate(src);
        let (t, j) = self.locate(dst);
        let editor = Editor {
            allocator: &self.allocator,
            delete_mode: self.config.delete_mode,
        };
        let data = self.segments[s].get_mut();
        // SAFETY: the list lives in this store, whose allocator `editor` holds.
        let added = unsafe { data.insert_one(&editor, false, i, dst, weight, semantics) };
        if !added {
            return false;
        }
        data.live_edges += 1;
        let mut undeleted = u64::from(data.undelete(i));
        self.edge_count += 1;
        let target = self.segments[t].get_mut();
        undeleted += u64::from(target.undelete(j));
        if self.config.reverse_edges {
            // SAFETY: as above.
            unsafe { target.insert_one(&editor, true, j, src, 0.0, Semantics::Multigraph) };
        }
        self.deleted_vertices -= undeleted;
        true
    }

    fn delete_one(&mut self, src: VertexId, dst: VertexId) -> bool {
        if src as usize >= self.vertex_count || dst as usize >= self.vertex_count {
            return false;
        }
        let (s, i) = self.locate(src);
        let (t, j) = self.locate(dst);
        let editor = Editor {
            allocator: &self.allocator,
            delete_mode: self.config.delete_mode,
        };
        let data = self.segments[s].get_mut();
        // SAFETY: the list lives in this store, whose allocator `editor` holds.
        if !unsafe { editor.delete_one(&mut data.out[i], dst) } {
            return false;
        }
        data.live_edges -= 1;
        self.edge_count -= 1;
        if self.config.reverse_edges {
            let target = self.segments[t].get_mut();
            // SAFETY: as above.
            let found = unsafe { editor.delete_one(&mut target.incoming[j], src) };
            debug_assert!(found, "in-list of {dst} lacks {src}");
        }
        true
    }

    /// Deletes vertex `v`: removes its out-edges and every edge into it and
    /// flags it deleted (it keeps its id; `vertex_count` does not shrink).
    /// Returns the number of edges removed. Inserting an edge that touches
    /// it later clears the flag.
    ///
    /// Costs `O(d_out + Σ in-neighbour degrees)` with reverse edges; without
    /// them, finding the in-edges scans every vertex (in parallel).
    ///
    /// # Errors
    /// [`Error::VertexOutOfRange`] if `v >= vertex_count()`.
    pub fn delete_vertex(&mut self, v: VertexId) -> Result<u64> {
        if v as usize >= self.vertex_count {
            return Err(Error::VertexOutOfRange {
                vertex: v.into(),
                vertex_count: self.vertex_count as u64,
            });
        }
        let mut edges: Vec<Edge> = self.out_neighbors(v).map(|d| Edge::new(v, d)).collect();
        if self.config.reverse_edges {
            edges.extend(
                self.in_neighbors(v)
                    .filter(|&u| u != v)
                    .map(|u| Edge::new(u, v)),
            );
        } else {
            let sources: Vec<VertexId> = (0..self.vertex_count as VertexId)
                .into_par_iter()
                .filter(|&u| u != v)
                .flat_map_iter(|u| {
                    let count = self.out_neighbors(u).filter(|&d| d == v).count();
                    std::iter::repeat_n(u, count)
                })
                .collect();
            edges.extend(sources.into_iter().map(|u| Edge::new(u, v)));
        }
        let mut removed = 0;
        for edge in edges {
            removed += u64::from(self.delete_one(edge.src, edge.dst));
        }
        let (s, i) = self.locate(v);
        let data = self.segments[s].get_mut();
        if !data.out[i].is_vertex_deleted() {
            data.out[i].set_vertex_deleted(true);
            data.deleted_vertices += 1;
            self.deleted_vertices += 1;
        }
        Ok(removed)
    }

    /// Reclaims the slots of logically deleted edges, segment by segment in
    /// parallel; returns the slots reclaimed. A no-op under
    /// [`crate::DeleteMode::Physical`].
    pub fn compact(&mut self) -> u64 {
        let editor = Editor {
            allocator: &self.allocator,
            delete_mode: self.config.delete_mode,
        };
        self.segments
            .par_iter_mut()
            .map(|segment| {
                let data = segment.get_mut();
                let mut scratch = (Vec::new(), Vec::new());
                let mut reclaimed = 0u64;
                for list in data.out.iter_mut().chain(data.incoming.iter_mut()) {
                    // SAFETY: the list lives in this store, whose allocator
                    // `editor` holds.
                    reclaimed +=
                        unsafe { editor.compact(list, &mut scratch.0, &mut scratch.1) } as u64;
                }
                data.drop_unused_slabs();
                reclaimed
            })
            .sum()
    }

    /// Lays the store out again as a bulk load would: every vertex entry
    /// and edge array is copied, in vertex order, into fresh memory (a
    /// parallel [`Clone::clone`] that replaces `self`). Contents,
    /// capacities, tombstones and deleted vertices stay as they are
    /// ([`CsrPP::compact`] drops tombstones).
    ///
    /// Why: each batch moves the arrays it grows into blocks wherever the
    /// allocator has room, so after many batches a scan over consecutive
    /// vertices jumps around memory. Re-packing segment by segment
    /// ([`CsrPPConfig::segment_repack`]) did not win that back on this
    /// project's benchmark machine; one copy of the whole store in vertex
    /// order did. On a Kronecker scale-21 graph after 100 batches, BFS
    /// went from 1.34–1.42× `Csr` to 1.12–1.18× and PageRank from
    /// 1.16–1.28× to 1.08–1.16× (ten one-thread runs), for about 0.7 s of
    /// copying against 5 s of batches (`BENCHMARKS.md`, "CSR++, sixth
    /// pass").
    ///
    /// Memory: old and new layout are both held until the copy is done.
    ///
    /// [`CsrPPConfig::segment_repack`]: crate::CsrPPConfig::segment_repack
    pub fn defragment(&mut self) {
        *self = self.clone();
    }

    /// Slots holding logically deleted edges (out- and in-lists), waiting
    /// for [`CsrPP::compact`].
    pub fn tombstone_count(&self) -> u64 {
        (0..self.segments.len())
            .into_par_iter()
            .map(|s| {
                let data = self.segment(s);
                data.out
                    .iter()
                    .chain(data.incoming.iter())
                    .map(|l| l.tombstones() as u64)
                    .sum::<u64>()
            })
            .sum()
    }

    /// Heap bytes: the segment directory, the vertex entries, property
    /// columns, and the edge arrays as the allocator holds them (rounded to
    /// their size class in the arena; the arena's unused region space is in
    /// [`CsrPP::arena_reserved_bytes`]).
    pub fn memory_bytes(&self) -> usize {
        let directory = self.segments.capacity() * std::mem::size_of::<Segment>();
        let per_segment: usize = (0..self.segments.len())
            .into_par_iter()
            .map(|s| {
                let data = self.segment(s);
                (data.out.len() + data.incoming.len()) * std::mem::size_of::<AdjList>()
                    + data.properties.len() * data.out.len() * std::mem::size_of::<f64>()
                    + data.block_footprint(&self.allocator)
            })
            .sum();
        directory + per_segment
    }

    /// Bytes the arena has taken from the system for small edge arrays
    /// (0 with the system allocator).
    pub fn arena_reserved_bytes(&self) -> usize {
        self.allocator.reserved_bytes()
    }

    /// Adds a vertex property column (an `f64` per vertex, stored per
    /// segment beside the entries), every vertex starting at `default`.
    pub fn add_vertex_property(&mut self, default: f64) -> VertexPropertyId {
        self.property_defaults.push(default);
        let size = self.segment_size();
        for segment in &mut self.segments {
            segment
                .get_mut()
                .properties
                .push(vec![default; size].into_boxed_slice());
        }
        VertexPropertyId(self.property_defaults.len() - 1)
    }

    /// The value of property `property` at vertex `v`.
    ///
    /// # Panics
    /// If `v >= vertex_count()` or `property` belongs to another store.
    pub fn vertex_property(&self, property: VertexPropertyId, v: VertexId) -> f64 {
        self.check_vertex(v);
        let (s, i) = self.locate(v);
        self.segment(s).properties[property.0][i]
    }

    /// Sets property `property` of vertex `v`.
    ///
    /// # Errors
    /// [`Error::VertexOutOfRange`] if `v >= vertex_count()`;
    /// [`Error::InvalidArgument`] for a property of another store.
    pub fn set_vertex_property(
        &mut self,
        property: VertexPropertyId,
        v: VertexId,
        value: f64,
    ) -> Result<()> {
        if v as usize >= self.vertex_count {
            return Err(Error::VertexOutOfRange {
                vertex: v.into(),
                vertex_count: self.vertex_count as u64,
            });
        }
        if property.0 >= self.property_defaults.len() {
            return Err(Error::InvalidArgument(format!(
                "vertex property {} does not exist",
                property.0
            )));
        }
        let (s, i) = self.locate(v);
        self.segments[s].get_mut().properties[property.0][i] = value;
        Ok(())
    }

    /// Every live edge `(src, dst, weight)`, sorted by source then target,
    /// gathered in parallel.
    pub fn edges(&self) -> Vec<WeightedEdge> {
        (0..self.vertex_count as VertexId)
            .into_par_iter()
            .flat_map_iter(|v| {
                self.out_neighbors_weighted(v)
                    .map(move |(d, w)| WeightedEdge::new(v, d, w))
            })
            .collect()
    }
}

/// Appends segments until `vertex_count` vertices exist.
pub(crate) fn grow_segments(
    segments: &mut Vec<Segment>,
    current: &mut usize,
    vertex_count: usize,
    config: &CsrPPConfig,
    property_defaults: &[f64],
) {
    if vertex_count <= *current {
        return;
    }
    let size = config.segment_size;
    let new = vertex_count.div_ceil(size).saturating_sub(segments.len());
    // All new out-entry arrays first, then all in-entry arrays: allocated
    // one after the other, they usually land back to back, so a scan over
    // consecutive vertices streams through memory as over CSR's offsets
    // (interleaving them would halve the hardware prefetcher's runs).
    let entries = |weighted: bool| -> Vec<Box<[AdjList]>> {
        (0..new)
            .map(|_| (0..size).map(|_| AdjList::new(weighted)).collect())
            .collect()
    };
    let out = entries(config.weighted);
    let incoming = if config.reverse_edges {
        entries(false)
    } else {
        (0..new).map(|_| Box::default()).collect()
    };
    segments.reserve(new);
    for (out, incoming) in out.into_iter().zip(incoming) {
        segments.push(Segment::new(SegmentData::with_entries(
            out,
            incoming,
            property_defaults,
        )));
    }
    *current = vertex_count;
}

impl Drop for CsrPP {
    fn drop(&mut self) {
        let allocator = &self.allocator;
        self.segments.par_iter_mut().for_each(|segment| {
            // SAFETY: every list of this store owns a block of
            // `self.allocator` (invariant I); the store is going away.
            unsafe { segment.get_mut().release_on_drop(allocator) };
        });
    }
}

impl Clone for CsrPP {
    /// A deep copy in parallel (Sahu's Algorithm 6): segments are copied
    /// concurrently, each vertex's array into a fresh one of the same
    /// capacity from a new allocator of the same kind (so the same arena
    /// size classes).
    fn clone(&self) -> Self {
        let allocator = EdgeAllocator::new(self.allocator.kind());
        let lengths: Vec<(usize, usize)> = (0..self.segments.len())
            .map(|s| {
                let data = self.segment(s);
                (data.out.len(), data.incoming.len())
            })
            .collect();
        let entries = EntryArrays::for_segments(&lengths);
        let segments = entries
            .into_par_iter()
            .enumerate()
            .map(|(s, entries)| Segment::new(self.segment(s).clone_in(&allocator, entries)))
            .collect();
        Self {
            config: self.config.clone(),
            shift: self.shift,
            segments,
            vertex_count: self.vertex_count,
            edge_count: self.edge_count,
            deleted_vertices: self.deleted_vertices,
            property_defaults: self.property_defaults.clone(),
            keys: self.keys.clone(),
            allocator,
        }
    }
}

impl Graph for CsrPP {
    #[inline]
    fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    #[inline]
    fn edge_count(&self) -> u64 {
        self.edge_count
    }

    fn semantics(&self) -> Semantics {
        self.config.semantics
    }
}

impl OutNeighbors for CsrPP {
    type OutNeighbors<'a> = Neighbors<'a>;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        self.out_list(v).live_len() as u64
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> Neighbors<'_> {
        let list = self.out_list(v);
        Neighbors::new(list.ids(), list.tombstones() > 0)
    }
}

/// How many in-entries ahead [`CsrPP::in_neighbors`] hints: 16 entries
/// of 16 bytes, four cache lines.
///
/// Why: pull PageRank and bottom-up BFS walk the in-entries in vertex
/// order, and each step also reads an edge array and the kernel's own
/// arrays, so the hardware prefetcher alone left the entry loads waiting
/// (17.6 % of a fresh store's BFS samples sat on the entry load, against
/// 3.5 % on `Csr`'s offsets). A hint for the line itself costs no load;
/// the fourth pass's hints, which read the entry 16 ahead to prefetch its
/// array, cost a load each and were dropped. Measured on Kronecker scale
/// 21, ten runs each, alternating (`BENCHMARKS.md`, "CSR++, sixth pass"):
/// on a fresh store PageRank 1.088–1.143× `Csr` without the hint,
/// 1.036–1.091× with it, BFS 1.116–1.179× against 1.085–1.169×; after
/// batches, where the arrays miss, no clear change.
const IN_ENTRY_LOOKAHEAD: usize = 16;

impl InNeighbors for CsrPP {
    type InNeighbors<'a> = Neighbors<'a>;

    fn has_in_edges(&self) -> bool {
        self.config.reverse_edges
    }

    #[inline]
    fn in_degree(&self, v: VertexId) -> u64 {
        self.in_list(v).map_or(0, |l| l.live_len() as u64)
    }

    // Also hints the in-entry `IN_ENTRY_LOOKAHEAD` places on, which a scan
    // over consecutive vertices reads next (see there).
    #[inline]
    fn in_neighbors(&self, v: VertexId) -> Neighbors<'_> {
        match self.in_list(v) {
            Some(list) => {
                // Past the segment's end this names the next segment's
                // entries (allocated back to back) or unrelated memory; a
                // prefetch of any address is harmless.
                prefetch_address(std::ptr::from_ref(list).wrapping_add(IN_ENTRY_LOOKAHEAD));
                Neighbors::new(list.ids(), list.tombstones() > 0)
            }
            None => Neighbors::new(&[], false),
        }
    }
}

impl WeightedOutNeighbors for CsrPP {
    type WeightedOutNeighbors<'a> = WeightedNeighbors<'a>;

    fn has_weights(&self) -> bool {
        self.config.weighted
    }

    #[inline]
    fn out_neighbors_weighted(&self, v: VertexId) -> WeightedNeighbors<'_> {
        let list = self.out_list(v);
        WeightedNeighbors::new(list.ids(), list.weights())
    }
}

impl GraphUpdate for CsrPP {
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
        Ok(self.delete_one(src, dst))
    }

    fn insert_edges(&mut self, edges: &[Edge]) -> Result<UpdateReport> {
        self.admit(edges.iter().flat_map(|e| [e.src, e.dst]))?;
        let batch: Vec<(VertexId, VertexId, Weight)> =
            edges.par_iter().map(|e| (e.src, e.dst, 1.0)).collect();
        Ok(self.insert_batch(batch, false))
    }

    fn insert_weighted_edges(&mut self, edges: &[WeightedEdge]) -> Result<UpdateReport> {
        self.admit(edges.iter().flat_map(|e| [e.src, e.dst]))?;
        let batch: Vec<(VertexId, VertexId, Weight)> =
            edges.par_iter().map(|e| (e.src, e.dst, e.weight)).collect();
        Ok(self.insert_batch(batch, false))
    }

    fn delete_edges(&mut self, edges: &[Edge]) -> Result<UpdateReport> {
        let removed = self.delete_batch(edges.to_vec(), false);
        Ok(UpdateReport {
            edges_added: 0,
            edges_removed: removed,
        })
    }

    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        let start = self.vertex_count;
        let end = start + count;
        if end > self.config.vertex_limit {
            return Err(Error::VertexLimit {
                vertex: end as u64 - 1,
                needed: end as u64,
                limit: self.config.vertex_limit as u64,
            });
        }
        self.grow_to(end);
        Ok(start as VertexId..end as VertexId)
    }

    fn vertex_limit(&self) -> usize {
        self.config.vertex_limit
    }
}
