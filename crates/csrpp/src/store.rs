//! [`CsrPP`]: the store, its read traits and its serial updates.

use crate::adjacency::{AdjList, EMPTY_LISTS};
use crate::alloc::{AllocatorKind, EdgeAllocator};
use crate::batch::SourceEntries;
use crate::iter::{NeighborIter, WeightedNeighborIter};
use crate::keys::KeyMap;
use crate::options::CsrPPOptions;
use crate::segment::{Editor, EntryArrays, Segment, SegmentData};
use crate::snapshot::{CsrPPSnapshot, CsrPPView, SegmentSnapshots};
use dyngraph_core::hint::prefetch_address;
use dyngraph_core::{
    Capabilities, Capability, Edge, EdgeSource, EdgeWeights, Error, FromEdges, Graph, GraphStore,
    GraphUpdate, InEdges, InNeighbors, OutNeighbors, Result, Semantics, Snapshots, UpdateReport,
    VertexId, Weight, WeightedNeighbors, check_limit,
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
/// [`CsrPPOptions::segment_size`] vertex entries of 16 bytes (degree,
/// flags, and either the neighbours inline — up to two ids when
/// unweighted, one `(id, weight)` when weighted — or a pointer to the edge
/// array), in-lists when the store keeps in-edges
/// ([`dyngraph_core::StoreOptions::in_edges`]), and vertex property
/// columns. Weights live in the same allocation as their ids.
///
/// # Reading
/// Out-edges through [`OutNeighbors`]; in-edges and weights through the
/// capability handles [`CsrPPInEdges`] and [`CsrPPWeights`] that
/// [`InEdges::in_edges`] and [`EdgeWeights::edge_weights`] return — or
/// [`Error::MissingCapability`] for a store built without them, never an
/// empty in-list or a weight of 1.0.
///
/// # Cost model
/// - **Insert** one edge: `O(log d)` search plus an `O(d)` shift (a
///   `memmove`); every time the degree passes a power of two the array is
///   reallocated and copied (amortised `O(1)` per edge). Only the source's
///   segment is touched (and the target's, with in-edges).
/// - **Delete** one edge: physical, `O(log d + d)` with halving when half
///   empty; logical, `O(log d)` (a tombstone bit) plus a later
///   [`CsrPP::compact`].
/// - **Batch insert** of `b` edges, read in place from any
///   [`EdgeSource`]: a parallel counting sort by segment into one buffer
///   (`O(b)`) and a stable sort of each segment's part, then per modified
///   segment in parallel a merge of each touched vertex's array with its
///   new edges (one copy of the array when it must move; in place when it
///   has room). With [`CsrPPOptions::segment_repack`], a segment that
///   earlier updates scattered is re-packed into one slab instead
///   (`O(segment)`).
/// - **Scan**: one slice per vertex, as in CSR, reached through two
///   indirections (segment, entry); vertices with up to two unweighted
///   slots (one weighted) need no array: their slice is inside the entry.
/// - **Snapshot** ([`Snapshots`], copy-on-write per segment): taking one
///   costs a slot per segment (16 bytes each). While one is alive, the
///   first change of each segment after it copies that segment's live
///   slots, exactly sized, into one slab (`O(edges of the segment)`,
///   shared by all live snapshots that need it); later changes of the
///   segment cost a shared read lock and a slot test per live snapshot,
///   and changes while no snapshot is alive one atomic load. A snapshot
///   holds at most one compacted copy of the store. A view reads a saved
///   segment from its copy and the others from the store: one atomic load
///   per vertex read ([`CsrPPView`]). Measured figures are in
///   `crates/csrpp/README.md`.
/// - **Memory**: 16 bytes per vertex entry (32 with in-edges), plus, for
///   lists too long to be inline, per edge 4 bytes (8 weighted) —
///   exactly, right after a bulk load
///   (arrays packed per segment; 1.16× `Csr` on a Kronecker graph), and
///   rounded up to the vertex's power-of-two capacity once it has been
///   updated (between 1× and 2×; about 1.9× `Csr` after 100 batches on a
///   Kronecker graph, 1.5× with [`CsrPPOptions::segment_repack`]) —
///   plus the in-lists' 4 bytes per edge with in-edges. Segments copied
///   for live snapshots are held by the snapshots
///   ([`CsrPPSnapshot::memory_bytes`]), not counted here.
///
/// # Concurrency
/// `&mut CsrPP` updates serially with no locking. For many threads, take a
/// [`crate::ConcurrentWriter`] with [`CsrPP::concurrent_writer`]: its
/// `insert_edge`/`delete_edge` take `&self` and lock one segment each (two,
/// in index order, with in-edges). The writer borrows the store
/// mutably, so no scan can run until it is dropped — the update/scan phase
/// split of the paper, enforced by the borrow checker.
///
/// ```
/// use dyngraph_core::{Edge, FromEdges, Graph, GraphUpdate, OutNeighbors, Snapshots};
/// use dyngraph_csrpp::{CsrPP, CsrPPOptions};
///
/// let mut graph = CsrPP::new(CsrPPOptions::default())?;
/// graph.insert_edges(&[Edge::new(0, 2), Edge::new(0, 1), Edge::new(3, 0)])?;
/// assert_eq!(graph.out_neighbors(0).collect::<Vec<_>>(), [1, 2]); // sorted
/// let before = graph.snapshot();
/// assert!(graph.delete_edge(0, 2)?);
/// assert_eq!(graph.edge_count(), 2);
/// // The snapshot still shows the graph as it was.
/// let view = graph.view(&before)?;
/// assert_eq!(view.out_neighbors(0).collect::<Vec<_>>(), [1, 2]);
/// assert_eq!(view.edge_count(), 3);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub struct CsrPP {
    pub(crate) options: CsrPPOptions,
    pub(crate) shift: u32,
    pub(crate) segments: Vec<Segment>,
    pub(crate) vertex_count: usize,
    pub(crate) edge_count: u64,
    pub(crate) deleted_vertices: u64,
    pub(crate) property_defaults: Vec<f64>,
    pub(crate) keys: Option<KeyMap>,
    /// Live snapshots, told of every segment about to change
    /// ([`crate::snapshot`]).
    pub(crate) snapshots: SegmentSnapshots,
    /// Edges at the last layout (bulk load or defragment), and edges
    /// grouped batches have added since: [`CsrPPOptions::defragment_after`].
    pub(crate) layout_edges: u64,
    pub(crate) batch_growth: u64,
    // Last, so it is dropped after `Drop::drop` has returned the blocks.
    pub(crate) allocator: EdgeAllocator,
}

impl std::fmt::Debug for CsrPP {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsrPP")
            .field("options", &self.options)
            .field("vertex_count", &self.vertex_count)
            .field("edge_count", &self.edge_count)
            .field("segments", &self.segments.len())
            .field("snapshots", &self.snapshots)
            .finish_non_exhaustive()
    }
}

impl CsrPP {
    /// An empty store.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a segment size that is not a power of
    /// two or a vertex limit above [`crate::MAX_VERTEX_LIMIT`].
    pub fn new(options: CsrPPOptions) -> Result<Self> {
        options.validate()?;
        Ok(Self {
            shift: options.segment_size.trailing_zeros(),
            segments: Vec::new(),
            vertex_count: 0,
            edge_count: 0,
            deleted_vertices: 0,
            property_defaults: Vec::new(),
            keys: options.external_keys.then(KeyMap::default),
            snapshots: SegmentSnapshots::default(),
            layout_edges: 0,
            batch_growth: 0,
            allocator: EdgeAllocator::new(options.allocator),
            options,
        })
    }

    /// The options it was built with.
    pub fn options(&self) -> &CsrPPOptions {
        &self.options
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

    /// Snapshots of this store still alive: while there are any, the first
    /// change of each segment copies it (see [`Snapshots`] in the cost
    /// model).
    pub fn live_snapshots(&self) -> usize {
        self.snapshots.live_snapshots()
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
        if v as usize >= self.vertex_count {
            return &EMPTY_LISTS[usize::from(self.options.store.weighted)];
        }
        let (data, i) = self.vertex_segment(v);
        debug_assert_eq!(data.out.len(), self.segment_size());
        // SAFETY: every segment holds `segment_size()` out-entries
        // (`grow_segments`, `SegmentData::clone_in`) and `i` is a position
        // within a segment (`locate` masks it).
        unsafe { data.out.get_unchecked(i) }
    }

    /// The raw sorted slots of `v`'s out-list: live ids, and — only under
    /// [`crate::DeleteMode::Logical`] before [`CsrPP::compact`] — tombstones with
    /// the top bit set. For kernels that want the slice itself.
    ///
    /// Empty for `v >= vertex_count()`, as every read of a vertex outside
    /// the graph.
    pub fn out_slots(&self, v: VertexId) -> &[u32] {
        self.out_list(v).ids()
    }

    /// Whether `src -> dst` is a live edge (`O(log d)`).
    pub fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        (src as usize) < self.vertex_count && self.out_list(src).contains_live(dst)
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
            &self.options,
            &self.property_defaults,
        );
    }

    /// Refuses ids past the vertex limit (`max` is the largest), then
    /// grows the graph to hold them.
    pub(crate) fn admit(&mut self, max: Option<VertexId>) -> Result<()> {
        check_limit(self.options.store.vertex_limit, max)?;
        if let Some(max) = max {
            self.grow_to(max as usize + 1);
        }
        Ok(())
    }

    fn insert_one(&mut self, src: VertexId, dst: VertexId, weight: Weight) -> Result<bool> {
        self.admit(Some(src.max(dst)))?;
        Ok(self.insert_admitted(src, dst, weight, self.options.store.semantics))
    }

    /// Lets the live snapshots copy `src`'s segment and, with in-edges,
    /// `dst`'s, before an edge `src -> dst` is added or removed.
    fn before_edge_change(&self, src: VertexId, dst: VertexId) {
        let (s, _) = self.locate(src);
        self.snapshots.before_change(s, self.segment(s));
        if self.options.store.in_edges {
            let (t, _) = self.locate(dst);
            self.snapshots.before_change(t, self.segment(t));
        }
    }

    /// Inserts one edge whose endpoints exist, with `semantics`.
    pub(crate) fn insert_admitted(
        &mut self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
        semantics: Semantics,
    ) -> bool {
        if self.snapshots.is_active()
            && (semantics == Semantics::Multigraph || !self.has_edge(src, dst))
        {
            self.before_edge_change(src, dst);
        }
        let (s, i) = self.locate(src);
        let (t, j) = self.locate(dst);
        let editor = Editor {
            allocator: &self.allocator,
            delete_mode: self.options.delete_mode,
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
        if self.options.store.in_edges {
            // SAFETY: as above.
            unsafe { target.insert_one(&editor, true, j, src, 0.0, Semantics::Multigraph) };
        }
        self.deleted_vertices -= undeleted;
        true
    }

    pub(crate) fn delete_one(&mut self, src: VertexId, dst: VertexId) -> bool {
        if src as usize >= self.vertex_count || dst as usize >= self.vertex_count {
            return false;
        }
        if self.snapshots.is_active() && self.has_edge(src, dst) {
            self.before_edge_change(src, dst);
        }
        let (s, i) = self.locate(src);
        let (t, j) = self.locate(dst);
        let editor = Editor {
            allocator: &self.allocator,
            delete_mode: self.options.delete_mode,
        };
        let data = self.segments[s].get_mut();
        // SAFETY: the list lives in this store, whose allocator `editor` holds.
        if !unsafe { editor.delete_one(&mut data.out[i], dst) } {
            return false;
        }
        data.live_edges -= 1;
        self.edge_count -= 1;
        if self.options.store.in_edges {
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
    /// Costs `O(d_out + Σ in-neighbour degrees)` with in-edges; without
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
        if let Ok(incoming) = self.in_edges() {
            edges.extend(
                incoming
                    .in_neighbors(v)
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
        // One edge at a time: each delete lets the live snapshots copy the
        // segments it changes first.
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
    /// [`crate::DeleteMode::Physical`]. Live snapshots need no copy:
    /// no list's live edges change.
    pub fn compact(&mut self) -> u64 {
        let editor = Editor {
            allocator: &self.allocator,
            delete_mode: self.options.delete_mode,
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
    /// ([`CsrPP::compact`] drops tombstones), and so do live snapshots:
    /// the store keeps its snapshot registry, and the views read the new
    /// layout's lists, whose contents are the old ones.
    ///
    /// Why: each batch moves the arrays it grows into blocks wherever the
    /// allocator has room, so after many batches a scan over consecutive
    /// vertices jumps around memory. Re-packing segment by segment
    /// ([`CsrPPOptions::segment_repack`]) did not win that back on this
    /// project's benchmark machine; one copy of the whole store in vertex
    /// order did. On a Kronecker scale-21 graph after 100 batches, BFS
    /// went from 1.34–1.42× `Csr` to 1.12–1.18× and PageRank from
    /// 1.16–1.28× to 1.08–1.16× (ten one-thread runs), for about 0.7 s of
    /// copying against 5 s of batches (`BENCHMARKS.md`, "CSR++, sixth
    /// pass").
    ///
    /// Memory: old and new layout are both held until the copy is done.
    pub fn defragment(&mut self) {
        let mut copy = self.clone();
        // The clone got a fresh registry; the snapshots taken of `self`
        // must keep being told of changes.
        std::mem::swap(&mut copy.snapshots, &mut self.snapshots);
        *self = copy;
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
    /// [`CsrPP::arena_reserved_bytes`]). Lists saved for live snapshots are
    /// the snapshots' ([`CsrPPSnapshot::memory_bytes`]).
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

    /// Every live edge of `v` with its weight, or 1.0 when the store keeps
    /// none: what graph algebra takes from its other operand (which may be
    /// weighted or not). Not a read path for users: those go through
    /// [`EdgeWeights::edge_weights`], which refuses an unweighted store.
    pub(crate) fn weighted_or_unit(&self, v: VertexId) -> WeightedNeighborIter<'_> {
        let list = self.out_list(v);
        WeightedNeighborIter::new(list.ids(), list.weights())
    }
}

/// Appends segments until `vertex_count` vertices exist.
pub(crate) fn grow_segments(
    segments: &mut Vec<Segment>,
    current: &mut usize,
    vertex_count: usize,
    options: &CsrPPOptions,
    property_defaults: &[f64],
) {
    if vertex_count <= *current {
        return;
    }
    let size = options.segment_size;
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
    let out = entries(options.store.weighted);
    let incoming = if options.store.in_edges {
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

/// Stores with fewer edges than this are cloned on the calling thread.
const PARALLEL_CLONE_EDGES: u64 = 1 << 16;

impl Clone for CsrPP {
    /// A deep copy in parallel (Sahu's Algorithm 6): segments are copied
    /// concurrently, each vertex's array into a fresh one of the same
    /// capacity from a new allocator of the same kind (so the same arena
    /// size classes). The copy has no snapshots: those of the original
    /// show the original.
    fn clone(&self) -> Self {
        let allocator = EdgeAllocator::new(self.allocator.kind());
        let lengths: Vec<(usize, usize)> = (0..self.segments.len())
            .map(|s| {
                let data = self.segment(s);
                (data.out.len(), data.incoming.len())
            })
            .collect();
        let copy = |(s, entries)| Segment::new(self.segment(s).clone_in(&allocator, entries));
        let segments = if self.edge_count < PARALLEL_CLONE_EDGES {
            // Handing a small store's segments to the pool (twice) cost
            // more than copying them: 64 µs against 11 µs for a memcpy of
            // CollegeMsg's 0.5 MB.
            EntryArrays::for_segments_serial(&lengths)
                .into_iter()
                .enumerate()
                .map(copy)
                .collect()
        } else {
            EntryArrays::for_segments(&lengths)
                .into_par_iter()
                .enumerate()
                .map(copy)
                .collect()
        };
        Self {
            options: self.options.clone(),
            shift: self.shift,
            segments,
            vertex_count: self.vertex_count,
            edge_count: self.edge_count,
            deleted_vertices: self.deleted_vertices,
            property_defaults: self.property_defaults.clone(),
            keys: self.keys.clone(),
            snapshots: SegmentSnapshots::default(),
            // The copy is laid out afresh.
            layout_edges: self.edge_count,
            batch_growth: 0,
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
        self.options.store.semantics
    }
}

impl OutNeighbors for CsrPP {
    type OutIter<'a> = NeighborIter<'a>;

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

/// How many in-entries ahead [`CsrPPInEdges::in_neighbors`] hints: 16
/// entries of 16 bytes, four cache lines.
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
pub(crate) const IN_ENTRY_LOOKAHEAD: usize = 16;

/// The in-edges of a [`CsrPP`] built with in-edges: what
/// [`InEdges::in_edges`] returns. A reference to the store, copied into a
/// kernel's loop; the capability was checked when it was made, so reading
/// an in-list is the out-list's read path on the in-entries.
#[derive(Clone, Copy, Debug)]
pub struct CsrPPInEdges<'a> {
    graph: &'a CsrPP,
}

impl<'a> CsrPPInEdges<'a> {
    /// `v`'s in-entry.
    #[inline]
    pub(crate) fn list(self, v: VertexId) -> &'a AdjList {
        if v as usize >= self.graph.vertex_count {
            return &EMPTY_LISTS[usize::from(self.graph.options.store.weighted)];
        }
        let (data, i) = self.graph.vertex_segment(v);
        debug_assert_eq!(data.incoming.len(), self.graph.segment_size());
        // SAFETY: a `CsrPPInEdges` is only made by `CsrPP::in_edges` for a
        // store with in-edges, whose every segment holds `segment_size()`
        // in-entries (`grow_segments`, `SegmentData::clone_in`); `i` is a
        // position within a segment (`locate` masks it).
        unsafe { data.incoming.get_unchecked(i) }
    }
}

impl<'a> InNeighbors for CsrPPInEdges<'a> {
    type InIter = NeighborIter<'a>;

    #[inline]
    fn in_degree(self, v: VertexId) -> u64 {
        self.list(v).live_len() as u64
    }

    /// The in-neighbours of `v`, in increasing id order. Also hints the
    /// in-entry `IN_ENTRY_LOOKAHEAD` places on, which a scan over
    /// consecutive vertices reads next (see there).
    #[inline]
    fn in_neighbors(self, v: VertexId) -> NeighborIter<'a> {
        let list = self.list(v);
        // Past the segment's end this names the next segment's entries
        // (allocated back to back) or unrelated memory; a prefetch of any
        // address is harmless.
        prefetch_address(std::ptr::from_ref(list).wrapping_add(IN_ENTRY_LOOKAHEAD));
        NeighborIter::new(list.ids(), list.tombstones() > 0)
    }
}

impl InEdges for CsrPP {
    type InHandle<'a> = CsrPPInEdges<'a>;

    /// # Errors
    /// [`Error::MissingCapability`] when the store was built without
    /// in-edges.
    #[inline]
    fn in_edges(&self) -> Result<CsrPPInEdges<'_>> {
        if self.options.store.in_edges {
            Ok(CsrPPInEdges { graph: self })
        } else {
            Err(Error::missing(
                <Self as GraphStore>::NAME,
                Capability::InEdges,
            ))
        }
    }
}

/// The weighted out-edges of a [`CsrPP`] built with weights: what
/// [`EdgeWeights::edge_weights`] returns.
#[derive(Clone, Copy, Debug)]
pub struct CsrPPWeights<'a> {
    graph: &'a CsrPP,
}

impl<'a> WeightedNeighbors for CsrPPWeights<'a> {
    type WeightedIter = WeightedNeighborIter<'a>;

    #[inline]
    fn out_neighbors_weighted(self, v: VertexId) -> WeightedNeighborIter<'a> {
        let list = self.graph.out_list(v);
        WeightedNeighborIter::new(list.ids(), list.weights())
    }
}

impl EdgeWeights for CsrPP {
    type WeightHandle<'a> = CsrPPWeights<'a>;

    /// # Errors
    /// [`Error::MissingCapability`] when the store was built without
    /// weights.
    #[inline]
    fn edge_weights(&self) -> Result<CsrPPWeights<'_>> {
        if self.options.store.weighted {
            Ok(CsrPPWeights { graph: self })
        } else {
            Err(Error::missing(
                <Self as GraphStore>::NAME,
                Capability::Weights,
            ))
        }
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

    /// The batch path ([`CsrPP`] cost model): every id checked against the
    /// vertex limit first (nothing changes if one is past it), then the
    /// source is read in place, once to count and once to scatter its
    /// edges into CSR++'s per-segment groups.
    fn insert_edges<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<UpdateReport> {
        self.admit(edges.max_vertex())?;
        Ok(self.insert_batch(&SourceEntries(edges), false))
    }

    /// Each edge of the batch removes one occurrence (the oldest), as a
    /// run of single deletes would; edges naming a vertex outside the
    /// graph remove nothing. The source is read in place.
    fn delete_edges<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<UpdateReport> {
        let removed = self.delete_batch(&SourceEntries(edges), false);
        Ok(UpdateReport {
            edges_added: 0,
            edges_removed: removed,
        })
    }

    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        let start = self.vertex_count;
        let end = start + count;
        if end > self.options.store.vertex_limit {
            return Err(Error::VertexLimit {
                vertex: end as u64 - 1,
                needed: end as u64,
                limit: self.options.store.vertex_limit as u64,
            });
        }
        self.grow_to(end);
        Ok(start as VertexId..end as VertexId)
    }

    fn vertex_limit(&self) -> usize {
        self.options.store.vertex_limit
    }
}

impl FromEdges for CsrPP {
    type Options = CsrPPOptions;

    /// A batch insert into an empty store: every segment's arrays packed
    /// into one slab, exactly sized (CSR++'s load layout). A vertex count
    /// the source declares ([`EdgeSource::declared_vertex_count`]) is
    /// honoured, so isolated vertices past the largest id exist.
    ///
    /// # Errors
    /// As [`CsrPP::new`], and [`Error::VertexLimit`] for an id, or a
    /// declared vertex count, past the limit.
    fn from_edges<S: EdgeSource + ?Sized>(edges: &S, options: CsrPPOptions) -> Result<Self> {
        let mut graph = Self::new(options)?;
        if let Some(declared) = edges.declared_vertex_count().filter(|&n| n > 0) {
            graph.add_vertices(declared)?;
        }
        graph.insert_edges(edges)?;
        Ok(graph)
    }
}

impl Snapshots for CsrPP {
    type Snapshot = CsrPPSnapshot;
    type View<'a> = CsrPPView<'a>;

    /// Takes a snapshot: one empty slot per segment; from then on the
    /// first change of each segment copies it for the snapshot (see the
    /// cost model). Drop the token to stop paying for it.
    fn snapshot(&self) -> CsrPPSnapshot {
        self.snapshots.take(self)
    }

    /// # Errors
    /// [`Error::InvalidArgument`] for a snapshot of another store
    /// (a clone included).
    fn view<'a>(&'a self, snapshot: &'a CsrPPSnapshot) -> Result<CsrPPView<'a>> {
        self.snapshots.view(self, snapshot)
    }
}

impl GraphStore for CsrPP {
    const NAME: &'static str = "CsrPP";
    const CAPABILITIES: Capabilities = Capabilities {
        concurrent_writers: true,
        ..Capabilities::IN_MEMORY
    };

    fn memory_bytes(&self) -> usize {
        CsrPP::memory_bytes(self)
    }
}

/// An empty multigraph with the default options (which always build).
impl Default for CsrPP {
    fn default() -> Self {
        Self::new(CsrPPOptions::default()).expect("the default options build an empty CsrPP")
    }
}
