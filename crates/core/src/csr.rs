//! The immutable compressed-sparse-row baseline.
//!
//! # Cost model
//! - Build: a two-pass radix scatter, each thread over its own share of the
//!   edges (count per bucket of vertices, copy into buckets, then each
//!   bucket into its slice of the output, in cache), plus a pass to find
//!   the largest id when no vertex count is given; `O(E + V)` work, parallel
//!   with rayon, and a temporary copy of the edges (8 bytes each, 12 with
//!   weights) while building.
//! - Scan: one contiguous slice per vertex, the fastest layout there is.
//! - Update: not supported. Adding one edge means rebuilding — the cost the
//!   dynamic stores in this workspace exist to avoid.
//! - Memory: `8 (V + 1)` bytes of offsets, 4 bytes per edge of targets, 4 more
//!   per edge with weights, and the same again for in-edges when transposed.
//! - In-edges: built in the scatter's last stage from each bucket's finished
//!   out-lists (graphs of up to 2^24 vertices, no dedupe), otherwise by
//!   transposing the finished CSR; both give every in-list sorted by source.
//!   [`Csr::from_columns`] also reuses the caller's destination column for
//!   the in-edges' sources.

use crate::IdMap;
use crate::fresh::copy_of;
use crate::hint::prefetch;
use crate::source::{EdgeChunk, EdgeChunks, EdgeColumns, EdgeSource, PREFETCH_AHEAD};
use crate::store::{Capabilities, FromEdges, GraphStore, Snapshots, StoreOptions};
use crate::traits::{EdgeWeights, Graph, InEdges, InNeighbors, OutNeighbors, WeightedNeighbors};
use crate::{Capability, Error, Result, Semantics, VertexId, Weight, WeightedEdge};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;

/// How to build a [`Csr`]: the [`StoreOptions`] every store shares, plus
/// the vertex count and sorting.
///
/// - [`Semantics::Simple`] sorts each list and drops repeated `src -> dst`
///   pairs (keeping the first one's weight); a multigraph keeps them.
/// - `in_edges` builds the transpose, for pull kernels.
/// - `weighted` keeps the weights of a weighted input (on by default for a
///   `Csr`, which stores weights only when its input has them); off drops
///   them.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge, Graph, Semantics, StoreConfig};
/// let edges = [Edge::new(0, 1), Edge::new(0, 1), Edge::new(1, 0)];
/// let simple = Csr::from_edges(&edges, CsrOptions::default().semantics(Semantics::Simple))?;
/// assert_eq!(simple.edge_count(), 2);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CsrOptions {
    /// Semantics, weights, in-edges and the vertex limit (see above).
    pub store: StoreOptions,
    /// The vertex count. `None`: largest id + 1. An id at or beyond a given
    /// count is an error.
    pub vertex_count: Option<usize>,
    /// Sort each neighbour list by destination. Stable: equal destinations
    /// keep input order, and their weights move with them.
    pub sort: bool,
}

impl Default for CsrOptions {
    /// A multigraph that keeps its input's weights, no in-edges, unsorted.
    fn default() -> Self {
        Self::from(StoreOptions::default().weighted(true))
    }
}

impl From<StoreOptions> for CsrOptions {
    fn from(store: StoreOptions) -> Self {
        CsrOptions {
            store,
            vertex_count: None,
            sort: false,
        }
    }
}

crate::store_config!(CsrOptions, store);

impl CsrOptions {
    /// Sets [`CsrOptions::sort`].
    pub fn sort(mut self, sort: bool) -> Self {
        self.sort = sort;
        self
    }

    /// Sets [`CsrOptions::vertex_count`].
    pub fn vertex_count(mut self, vertex_count: usize) -> Self {
        self.vertex_count = Some(vertex_count);
        self
    }

    /// Whether repeated pairs are dropped (simple semantics).
    fn dedupe(&self) -> bool {
        self.store.semantics == Semantics::Simple
    }
}

/// Immutable CSR: offsets (`u64`), targets (`u32`), optional weights (`f32`)
/// and optional in-edges.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge, OutNeighbors};
/// let edges = [Edge::new(0, 1), Edge::new(0, 2), Edge::new(2, 0)];
/// let csr = Csr::from_edges(&edges, CsrOptions::default()).unwrap();
/// assert_eq!(csr.out_neighbors(0).collect::<Vec<_>>(), [1, 2]);
/// assert_eq!(csr.targets(), &[1, 2, 0]);
/// ```
#[derive(Debug, PartialEq)]
pub struct Csr {
    offsets: Vec<u64>,
    targets: Vec<VertexId>,
    weights: Option<Vec<Weight>>,
    in_offsets: Option<Vec<u64>>,
    in_sources: Option<Vec<VertexId>>,
    semantics: Semantics,
    /// The original ids, when the graph was loaded from sparse or string
    /// ids; shared, since clones and views keep them.
    ids: Option<Arc<IdMap>>,
}

impl Clone for Csr {
    /// A deep copy of the arrays at copy speed: large ones go into memory
    /// advised for huge pages, so the clone is not paced by a page fault
    /// per 4 KiB of fresh memory. The original ids are shared.
    fn clone(&self) -> Self {
        Csr {
            ids: self.ids.clone(),
            ..self.view().copy_arrays()
        }
    }
}

/// A borrowed CSR over slices that live elsewhere (for example a memory-mapped
/// snapshot). Same read traits and cost model as [`Csr`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CsrView<'a> {
    offsets: &'a [u64],
    targets: &'a [VertexId],
    weights: Option<&'a [Weight]>,
    in_offsets: Option<&'a [u64]>,
    in_sources: Option<&'a [VertexId]>,
    semantics: Semantics,
    ids: Option<&'a IdMap>,
}

impl Csr {
    /// Builds from any [`EdgeSource`] — a slice of [`crate::Edge`] or
    /// [`WeightedEdge`], edge columns, or per-thread buffers as
    /// [`EdgeChunks`] — read in place: per-partition counts, a prefix sum
    /// and a scatter (through buckets of vertices, see the module's cost
    /// model), with no globally sorted edge list in between (GVEL's
    /// scheme). Input order is kept within each vertex unless `options`
    /// sort or dedupe; weights are kept when the source has them, and so
    /// are its keys ([`EdgeSource::ids`], then [`Csr::ids`]). The same as
    /// [`FromEdges::from_edges`](crate::FromEdges::from_edges), without
    /// the trait in scope.
    ///
    /// ```
    /// use dyngraph_core::{Csr, CsrOptions, EdgeChunk, Graph, WeightedEdge};
    /// let weighted = [WeightedEdge::new(0, 1, 0.5), WeightedEdge::new(1, 0, 2.0)];
    /// let a = Csr::from_edges(&weighted, CsrOptions::default())?;
    /// let (src, dst, w) = ([0, 1], [1, 0], [0.5, 2.0]);
    /// let b = Csr::from_edges(&EdgeChunk::new(&src, &dst, Some(&w))?, CsrOptions::default())?;
    /// assert_eq!(a, b);
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn from_edges<S: EdgeSource + ?Sized>(edges: &S, options: CsrOptions) -> Result<Csr> {
        build(edges, &options)
    }

    /// As [`Csr::from_edges`] over the runs `columns.src[run]`,
    /// `columns.dst[run]` (and weights) of each run in `runs`, in order; the
    /// columns are given up so that the build can reuse their memory once
    /// it has read them (the in-edges' sources go into the destination
    /// column: one array of 4 bytes per edge less to map and fault in).
    /// A run outside the columns, or columns of different lengths, is an
    /// [`Error::InvalidStructure`].
    ///
    /// ```
    /// use dyngraph_core::{Csr, CsrOptions, EdgeColumns, InEdges, StoreConfig};
    /// // Slot 1 holds no edge (say, a comment line of the file parsed).
    /// let columns = EdgeColumns { src: vec![0, 9, 2], dst: vec![1, 9, 0], weights: None };
    /// let csr = Csr::from_columns(columns, &[0..1, 2..3], CsrOptions::default().in_edges(true))
    ///     .unwrap();
    /// assert_eq!(csr.in_edges()?.in_slice(0), &[2]);
    /// assert_eq!(csr.in_offsets(), Some(&[0, 1, 2, 2][..]));
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn from_columns(
        columns: EdgeColumns,
        runs: &[Range<usize>],
        options: CsrOptions,
    ) -> Result<Csr> {
        build_from_columns(columns, runs, &options)
    }

    /// Assembles a `Csr` from arrays, checking that they describe a graph:
    /// `offsets` starts at 0, never decreases, ends at `targets.len()`,
    /// every target is `< offsets.len() - 1`, and weights match targets.
    pub fn from_parts(
        offsets: Vec<u64>,
        targets: Vec<VertexId>,
        weights: Option<Vec<Weight>>,
        semantics: Semantics,
    ) -> Result<Csr> {
        validate(&offsets, &targets, weights.as_deref())?;
        Ok(Csr {
            offsets,
            targets,
            weights,
            in_offsets: None,
            in_sources: None,
            semantics,
            ids: None,
        })
    }

    /// Adds the in-edges (transpose) if they are not there yet.
    pub fn with_transpose(mut self) -> Csr {
        if self.in_offsets.is_none() {
            let (in_offsets, in_sources) = transpose(&self.offsets, &self.targets);
            self.in_offsets = Some(in_offsets);
            self.in_sources = Some(in_sources);
        }
        self
    }

    /// A borrowed view of this graph.
    pub fn view(&self) -> CsrView<'_> {
        CsrView {
            offsets: &self.offsets,
            targets: &self.targets,
            weights: self.weights.as_deref(),
            in_offsets: self.in_offsets.as_deref(),
            in_sources: self.in_sources.as_deref(),
            semantics: self.semantics,
            ids: self.ids.as_deref(),
        }
    }

    /// The original ids of the vertices (vertex `v` was `ids.original(v)`
    /// in the input), when the graph was loaded from sparse integer or
    /// string ids; `None` when the ids are the vertex ids.
    pub fn ids(&self) -> Option<&IdMap> {
        self.ids.as_deref()
    }

    /// The graph with the original ids of its vertices; an error unless
    /// `ids` maps exactly `vertex_count()` vertices.
    pub fn with_ids(mut self, ids: IdMap) -> Result<Csr> {
        if ids.len() != self.offsets.len().saturating_sub(1) {
            return Err(Error::InvalidStructure(format!(
                "{} original ids for {} vertices",
                ids.len(),
                self.offsets.len().saturating_sub(1)
            )));
        }
        self.ids = Some(Arc::new(ids));
        Ok(self)
    }

    /// The offsets array: `offsets[v]..offsets[v + 1]` indexes `v`'s edges.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// The targets array, all neighbour lists back to back.
    pub fn targets(&self) -> &[VertexId] {
        &self.targets
    }

    /// The weights, parallel to [`Csr::targets`], if any.
    pub fn weights(&self) -> Option<&[Weight]> {
        self.weights.as_deref()
    }

    /// In-edge offsets, when transposed.
    pub fn in_offsets(&self) -> Option<&[u64]> {
        self.in_offsets.as_deref()
    }

    /// In-edge sources, when transposed.
    pub fn in_sources(&self) -> Option<&[VertexId]> {
        self.in_sources.as_deref()
    }

    /// The out-neighbours of `v` as a slice.
    #[inline]
    pub fn out_slice(&self, v: VertexId) -> &[VertexId] {
        let v = v as usize;
        &self.targets[row(&self.offsets, v)]
    }

    /// Heap bytes held by the arrays (capacity, not just length) and the
    /// original ids, if any.
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.offsets.capacity() * size_of::<u64>()
            + self.targets.capacity() * size_of::<VertexId>()
            + self
                .weights
                .as_ref()
                .map_or(0, |w| w.capacity() * size_of::<Weight>())
            + self
                .in_offsets
                .as_ref()
                .map_or(0, |o| o.capacity() * size_of::<u64>())
            + self
                .in_sources
                .as_ref()
                .map_or(0, |s| s.capacity() * size_of::<VertexId>())
            + self.ids.as_ref().map_or(0, |ids| ids.memory_bytes())
    }
}

impl<'a> CsrView<'a> {
    /// A view over arrays that live elsewhere, checked as in
    /// [`Csr::from_parts`] (and the in-edge arrays the same way when given).
    pub fn new(
        offsets: &'a [u64],
        targets: &'a [VertexId],
        weights: Option<&'a [Weight]>,
        in_edges: Option<(&'a [u64], &'a [VertexId])>,
        semantics: Semantics,
    ) -> Result<Self> {
        validate(offsets, targets, weights)?;
        if let Some((in_offsets, in_sources)) = in_edges {
            validate(in_offsets, in_sources, None)?;
            if in_offsets.len() != offsets.len() || in_sources.len() != targets.len() {
                return Err(Error::InvalidStructure(
                    "in-edge arrays do not match the out-edge arrays in size".into(),
                ));
            }
        }
        Ok(Self {
            offsets,
            targets,
            weights,
            in_offsets: in_edges.map(|(o, _)| o),
            in_sources: in_edges.map(|(_, s)| s),
            semantics,
            ids: None,
        })
    }

    /// The view with the original ids of its vertices (see [`Csr::ids`]);
    /// an error unless `ids` maps exactly its vertices.
    pub fn with_ids(mut self, ids: &'a IdMap) -> Result<Self> {
        if ids.len() != self.offsets.len().saturating_sub(1) {
            return Err(Error::InvalidStructure(format!(
                "{} original ids for {} vertices",
                ids.len(),
                self.offsets.len().saturating_sub(1)
            )));
        }
        self.ids = Some(ids);
        Ok(self)
    }

    /// See [`Csr::ids`].
    pub fn ids(&self) -> Option<&'a IdMap> {
        self.ids
    }

    /// Copies the view into an owned [`Csr`].
    pub fn to_csr(&self) -> Csr {
        Csr {
            ids: self.ids.map(|ids| Arc::new(ids.clone())),
            ..self.copy_arrays()
        }
    }

    /// The arrays copied into a new [`Csr`] without ids, each at copy
    /// speed (see [`copy_of`]).
    fn copy_arrays(&self) -> Csr {
        Csr {
            offsets: copy_of(self.offsets),
            targets: copy_of(self.targets),
            weights: self.weights.map(copy_of),
            in_offsets: self.in_offsets.map(copy_of),
            in_sources: self.in_sources.map(copy_of),
            semantics: self.semantics,
            ids: None,
        }
    }

    /// See [`Csr::offsets`].
    pub fn offsets(&self) -> &'a [u64] {
        self.offsets
    }

    /// See [`Csr::targets`].
    pub fn targets(&self) -> &'a [VertexId] {
        self.targets
    }

    /// See [`Csr::weights`].
    pub fn weights(&self) -> Option<&'a [Weight]> {
        self.weights
    }

    /// See [`Csr::in_offsets`].
    pub fn in_offsets(&self) -> Option<&'a [u64]> {
        self.in_offsets
    }

    /// See [`Csr::in_sources`].
    pub fn in_sources(&self) -> Option<&'a [VertexId]> {
        self.in_sources
    }

    /// See [`Csr::out_slice`].
    #[inline]
    pub fn out_slice(&self, v: VertexId) -> &'a [VertexId] {
        let v = v as usize;
        &self.targets[row(self.offsets, v)]
    }
}

/// The in-edges of a [`Csr`] or [`CsrView`] built with them: what
/// [`InEdges::in_edges`] returns. Two slices; `in_slice` is the fastest way
/// to read an in-list.
#[derive(Clone, Copy, Debug)]
pub struct CsrInEdges<'a> {
    offsets: &'a [u64],
    sources: &'a [VertexId],
}

impl<'a> CsrInEdges<'a> {
    /// The in-neighbours of `v` as a slice, sorted by source.
    #[inline]
    pub fn in_slice(self, v: VertexId) -> &'a [VertexId] {
        let v = v as usize;
        &self.sources[row(self.offsets, v)]
    }

    /// The in-edge offsets: `offsets[v]..offsets[v + 1]` indexes `v`'s
    /// in-edges in [`CsrInEdges::sources`].
    pub fn offsets(self) -> &'a [u64] {
        self.offsets
    }

    /// All in-lists back to back.
    pub fn sources(self) -> &'a [VertexId] {
        self.sources
    }
}

impl<'a> InNeighbors for CsrInEdges<'a> {
    type InIter = std::iter::Copied<std::slice::Iter<'a, VertexId>>;

    #[inline]
    fn in_degree(self, v: VertexId) -> u64 {
        row(self.offsets, v as usize).len() as u64
    }

    #[inline]
    fn in_neighbors(self, v: VertexId) -> Self::InIter {
        self.in_slice(v).iter().copied()
    }
}

/// The weighted out-edges of a weighted [`Csr`] or [`CsrView`]: what
/// [`EdgeWeights::edge_weights`] returns.
#[derive(Clone, Copy, Debug)]
pub struct CsrWeights<'a> {
    offsets: &'a [u64],
    targets: &'a [VertexId],
    weights: &'a [Weight],
}

impl<'a> CsrWeights<'a> {
    /// The weights of `v`'s out-edges, parallel to its out-neighbours.
    #[inline]
    pub fn weight_slice(self, v: VertexId) -> &'a [Weight] {
        let v = v as usize;
        &self.weights[row(self.offsets, v)]
    }
}

impl<'a> WeightedNeighbors for CsrWeights<'a> {
    type WeightedIter = std::iter::Zip<
        std::iter::Copied<std::slice::Iter<'a, VertexId>>,
        std::iter::Copied<std::slice::Iter<'a, Weight>>,
    >;

    #[inline]
    fn out_neighbors_weighted(self, v: VertexId) -> Self::WeightedIter {
        let range = row(self.offsets, v as usize);
        self.targets[range.clone()]
            .iter()
            .copied()
            .zip(self.weights[range].iter().copied())
    }
}

/// The index range of `v`'s list in an offsets array; empty for a vertex
/// outside the graph (the contract's answer for one), at the cost of the
/// bounds check slice indexing makes anyway.
#[inline]
fn row(offsets: &[u64], v: usize) -> Range<usize> {
    match offsets.get(v..v.wrapping_add(2)) {
        Some(&[start, end]) => start as usize..end as usize,
        _ => 0..0,
    }
}

/// The read traits for `Csr` and `CsrView`, written once over the fields
/// both types have.
macro_rules! impl_csr_read_traits {
    ($ty:ty) => {
        impl Graph for $ty {
            #[inline]
            fn vertex_count(&self) -> usize {
                self.offsets.len().saturating_sub(1)
            }

            #[inline]
            fn edge_count(&self) -> u64 {
                self.targets.len() as u64
            }

            fn semantics(&self) -> Semantics {
                self.semantics
            }
        }

        impl OutNeighbors for $ty {
            type OutIter<'b>
                = std::iter::Copied<std::slice::Iter<'b, VertexId>>
            where
                Self: 'b;

            #[inline]
            fn out_degree(&self, v: VertexId) -> u64 {
                row(&self.offsets, v as usize).len() as u64
            }

            #[inline]
            fn out_neighbors(&self, v: VertexId) -> Self::OutIter<'_> {
                self.out_slice(v).iter().copied()
            }
        }

        impl InEdges for $ty {
            type InHandle<'b>
                = CsrInEdges<'b>
            where
                Self: 'b;

            #[inline]
            fn in_edges(&self) -> Result<CsrInEdges<'_>> {
                match (self.in_offsets.as_deref(), self.in_sources.as_deref()) {
                    (Some(offsets), Some(sources)) => Ok(CsrInEdges { offsets, sources }),
                    _ => Err(Error::missing("Csr", Capability::InEdges)),
                }
            }
        }

        impl EdgeWeights for $ty {
            type WeightHandle<'b>
                = CsrWeights<'b>
            where
                Self: 'b;

            #[inline]
            fn edge_weights(&self) -> Result<CsrWeights<'_>> {
                match self.weights.as_deref() {
                    Some(weights) => Ok(CsrWeights {
                        offsets: &self.offsets,
                        targets: &self.targets,
                        weights,
                    }),
                    None => Err(Error::missing("Csr", Capability::Weights)),
                }
            }
        }
    };
}

impl_csr_read_traits!(Csr);
impl_csr_read_traits!(CsrView<'_>);

impl FromEdges for Csr {
    type Options = CsrOptions;

    fn from_edges<S: EdgeSource + ?Sized>(edges: &S, options: CsrOptions) -> Result<Self> {
        build(edges, &options)
    }
}

/// A `Csr` never changes, so its snapshot is a marker and its view the
/// graph itself, borrowed: `O(1)` and no memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CsrSnapshot;

impl Snapshots for Csr {
    type Snapshot = CsrSnapshot;
    type View<'a> = CsrView<'a>;

    fn snapshot(&self) -> CsrSnapshot {
        CsrSnapshot
    }

    fn view<'a>(&'a self, _: &'a CsrSnapshot) -> Result<CsrView<'a>> {
        Ok(self.view())
    }
}

impl GraphStore for Csr {
    const NAME: &'static str = "Csr";
    /// Immutable, so not a replay or cluster store ([`crate::CsrRebuild`] is).
    const CAPABILITIES: Capabilities = Capabilities {
        distributable: false,
        ..Capabilities::IN_MEMORY
    };

    fn memory_bytes(&self) -> usize {
        Csr::memory_bytes(self)
    }

    /// A copy of the arrays (the graph is already a `Csr`).
    fn to_csr(&self) -> Result<Csr> {
        Ok(self.clone())
    }
}

fn validate(offsets: &[u64], targets: &[VertexId], weights: Option<&[Weight]>) -> Result<()> {
    let invalid = |message: String| Err(Error::InvalidStructure(message));
    if offsets.is_empty() {
        return invalid("offsets must hold at least one entry".into());
    }
    if offsets[0] != 0 {
        return invalid(format!("offsets[0] is {}, expected 0", offsets[0]));
    }
    if *offsets.last().unwrap_or(&0) != targets.len() as u64 {
        return invalid(format!(
            "last offset is {}, but there are {} targets",
            offsets[offsets.len() - 1],
            targets.len()
        ));
    }
    // Blocks are checked in parallel and the first bad one searched
    // serially: rayon's per-item `position_first` checks a shared atomic
    // per element, which made opening a mapped file of 67 M edges take
    // 1.4 s.
    const BLOCK: usize = 1 << 16;
    let decreasing = |pair: &[u64]| pair[0] > pair[1];
    if let Some(block) = (0..offsets.len().div_ceil(BLOCK))
        .into_par_iter()
        .position_first(|b| {
            let end = ((b + 1) * BLOCK + 1).min(offsets.len());
            offsets[b * BLOCK..end].windows(2).any(decreasing)
        })
    {
        let start = block * BLOCK;
        let position = start
            + offsets[start..]
                .windows(2)
                .position(decreasing)
                .unwrap_or_default();
        return invalid(format!("offsets decrease at vertex {position}"));
    }
    let vertex_count = (offsets.len() - 1) as u64;
    if let Some(block) = targets
        .par_chunks(BLOCK)
        .position_first(|block| block.iter().copied().max().map_or(0, u64::from) >= vertex_count)
    {
        let start = block * BLOCK;
        let position = start
            + targets[start..]
                .iter()
                .position(|&t| u64::from(t) >= vertex_count)
                .unwrap_or_default();
        return invalid(format!(
            "target {} at position {position} is not below the vertex count {vertex_count}",
            targets[position]
        ));
    }
    if let Some(weights) = weights
        && weights.len() != targets.len()
    {
        return invalid(format!(
            "{} weights for {} targets",
            weights.len(),
            targets.len()
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Parallel build.

/// The edges of a built CSR, read back as a sequence (used for the transpose).
struct CsrSeq<'a> {
    offsets: &'a [u64],
    targets: &'a [VertexId],
}

impl EdgeSource for CsrSeq<'_> {
    fn len(&self) -> usize {
        self.targets.len()
    }

    fn is_weighted(&self) -> bool {
        false
    }

    fn edge(&self, i: usize) -> WeightedEdge {
        let v = self.offsets.partition_point(|&o| o <= i as u64) - 1;
        WeightedEdge::new(v as VertexId, self.targets[i], 1.0)
    }

    fn for_each_in(&self, range: Range<usize>, mut f: impl FnMut(VertexId, VertexId, Weight)) {
        if range.is_empty() {
            return;
        }
        // First vertex whose edges reach past range.start.
        let mut v = self.offsets.partition_point(|&o| o <= range.start as u64) - 1;
        let mut position = range.start;
        while position < range.end {
            let end = (self.offsets[v + 1] as usize).min(range.end);
            for &target in &self.targets[position..end] {
                f(v as VertexId, target, 1.0);
            }
            position = end;
            v += 1;
        }
    }
}

/// Swaps source and destination.
struct Reversed<S>(S);

impl<S: EdgeSource> EdgeSource for Reversed<S> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn is_weighted(&self) -> bool {
        false
    }

    fn edge(&self, i: usize) -> WeightedEdge {
        let e = self.0.edge(i);
        WeightedEdge::new(e.dst, e.src, 1.0)
    }

    fn for_each_in(&self, range: Range<usize>, mut f: impl FnMut(VertexId, VertexId, Weight)) {
        self.0.for_each_in(range, |s, d, w| f(d, s, w));
    }
}

/// `parts` contiguous ranges covering `0..len`, as equal as possible.
fn even_ranges(len: usize, parts: usize) -> Vec<Range<usize>> {
    let parts = parts.max(1);
    (0..parts)
        .map(|i| len * i / parts..len * (i + 1) / parts)
        .collect()
}

/// Vertex ranges holding roughly equal numbers of edges, so a skewed graph
/// does not leave one thread with the hub vertices' work.
fn edge_balanced_vertex_ranges(offsets: &[u64], parts: usize) -> Vec<Range<usize>> {
    let vertex_count = offsets.len() - 1;
    let total = offsets[vertex_count];
    let parts = parts.max(1);
    let mut bounds = vec![0usize];
    for i in 1..parts {
        let goal = total * i as u64 / parts as u64;
        let bound = offsets.partition_point(|&o| o < goal).min(vertex_count);
        bounds.push(bound.max(*bounds.last().unwrap_or(&0)));
    }
    bounds.push(vertex_count);
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Splits `slice` into consecutive pieces of the given lengths.
fn split_by_lengths<T>(
    mut slice: &mut [T],
    lengths: impl IntoIterator<Item = usize>,
) -> Vec<&mut [T]> {
    let mut pieces = Vec::new();
    for length in lengths {
        let (head, tail) = slice.split_at_mut(length);
        pieces.push(head);
        slice = tail;
    }
    pieces
}

/// Cuts `slice`, laid out bucket by bucket and within a bucket partition
/// by partition, into `pieces[p][b]` of `length(p, b)` elements each.
fn carve<T>(
    mut slice: &mut [T],
    partitions: usize,
    buckets: usize,
    length: impl Fn(usize, usize) -> usize,
) -> Vec<Vec<&mut [T]>> {
    let mut pieces: Vec<Vec<&mut [T]>> = (0..partitions)
        .map(|_| Vec::with_capacity(buckets))
        .collect();
    for b in 0..buckets {
        for (p, partition) in pieces.iter_mut().enumerate() {
            let (head, tail) = slice.split_at_mut(length(p, b));
            partition.push(head);
            slice = tail;
        }
    }
    pieces
}

/// [`build_with`], keeping the source's keys ([`EdgeSource::ids`]).
fn build<S: EdgeSource + ?Sized>(seq: &S, options: &CsrOptions) -> Result<Csr> {
    let csr = build_with(seq, options, in_edges_for(options))?;
    match seq.ids() {
        Some(ids) => csr.with_ids(ids.clone()),
        None => Ok(csr),
    }
}

/// How [`build_with`] makes the in-edges, when asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum InEdgeBuild {
    /// In the scatter's stage 3 ([`InEdgeHandoff`]) for graphs of up to
    /// 2^24 vertices, otherwise as `FromCsr`. Not with dedupe.
    Fused,
    /// By transposing the finished CSR (the only way after a dedupe, and
    /// the reference the tests compare with).
    FromCsr,
}

fn build_with<S: EdgeSource + ?Sized>(
    seq: &S,
    options: &CsrOptions,
    in_edges: InEdgeBuild,
) -> Result<Csr> {
    let mut scratch = ScatterScratch::default();
    let bucketed = bucket_for_build(seq, options, &mut scratch)?;
    Ok(finish_build(bucketed, options, in_edges, &mut scratch))
}

/// [`Csr::from_columns`]: the chunks borrow the columns only until the
/// scatter has bucketed them; then a column becomes the scratch's spare.
fn build_from_columns(
    columns: EdgeColumns,
    runs: &[Range<usize>],
    options: &CsrOptions,
) -> Result<Csr> {
    let EdgeColumns { src, dst, weights } = columns;
    if src.len() != dst.len() || weights.as_ref().is_some_and(|w| w.len() != src.len()) {
        return Err(Error::InvalidStructure(
            "edge columns of different lengths".into(),
        ));
    }
    let mut scratch = ScatterScratch::default();
    let bucketed = {
        let mut chunks = Vec::with_capacity(runs.len());
        for run in runs {
            let (Some(src), Some(dst)) = (src.get(run.clone()), dst.get(run.clone())) else {
                return Err(Error::InvalidStructure(format!(
                    "run {run:?} is not within columns of {} edges",
                    src.len()
                )));
            };
            chunks.push(EdgeChunk {
                src,
                dst,
                weights: weights.as_ref().map(|w| &w[run.clone()]),
            });
        }
        bucket_for_build(&EdgeChunks::new(&chunks)?, options, &mut scratch)?
    };
    drop((src, weights));
    scratch.spare = dst;
    Ok(finish_build(
        bucketed,
        options,
        in_edges_for(options),
        &mut scratch,
    ))
}

/// The in-edges' construction for `options` (see [`InEdgeBuild`]).
fn in_edges_for(options: &CsrOptions) -> InEdgeBuild {
    // Deduping changes the edges after the scatter, so the in-edges must
    // come from the deduped CSR.
    if options.dedupe() {
        InEdgeBuild::FromCsr
    } else {
        InEdgeBuild::Fused
    }
}

/// The vertex count (checked) and the scatter's stages 1 and 2.
fn bucket_for_build<S: EdgeSource + ?Sized>(
    seq: &S,
    options: &CsrOptions,
    scratch: &mut ScatterScratch,
) -> Result<Bucketed> {
    let threads = rayon::current_num_threads();
    let edge_ranges = even_ranges(seq.len(), edge_partitions(seq.len(), threads));

    // The largest id, to size (or check) the vertex array.
    let max_id = || {
        edge_ranges
            .par_iter()
            .map(|range| {
                let mut max: Option<VertexId> = None;
                seq.for_each_in(range.clone(), |s, d, _| max = max.max(Some(s.max(d))));
                max
            })
            .max()
            .flatten()
    };
    let out_of_range = |id: VertexId, count: usize| Error::VertexOutOfRange {
        vertex: id.into(),
        vertex_count: count as u64,
    };
    let vertex_limit = |vertex_count: usize| Error::VertexLimit {
        vertex: vertex_count as u64 - 1,
        needed: vertex_count as u64,
        limit: options.store.vertex_limit as u64,
    };
    match options.vertex_count {
        // A given count within the limit: the degree count checks the ids
        // as it goes, so no separate pass is needed unless one is out of
        // range (then the pass finds the largest, for the error).
        Some(count) if count <= options.store.vertex_limit => {
            bucket_edges(seq, count, &edge_ranges, scratch)
                .map_err(|IdOutOfRange| out_of_range(max_id().unwrap_or_default(), count))
        }
        _ => {
            let vertex_count = match (options.vertex_count, max_id()) {
                (Some(count), Some(id)) if id as usize >= count => {
                    return Err(out_of_range(id, count));
                }
                (Some(count), _) => count,
                // A declared count may add isolated vertices past the ids.
                (None, id) => seq
                    .declared_vertex_count()
                    .unwrap_or(0)
                    .max(id.map_or(0, |id| id as usize + 1)),
            };
            if vertex_count > options.store.vertex_limit {
                return Err(vertex_limit(vertex_count));
            }
            bucket_edges(seq, vertex_count, &edge_ranges, scratch).map_err(|IdOutOfRange| {
                Error::InvalidStructure("ids changed during the build".into())
            })
        }
    }
}

/// The scatter's stage 3, sorting or deduping, and the in-edges.
fn finish_build(
    bucketed: Bucketed,
    options: &CsrOptions,
    in_edges: InEdgeBuild,
    scratch: &mut ScatterScratch,
) -> Csr {
    debug_assert!(!(options.dedupe() && in_edges == InEdgeBuild::Fused));
    let fuse = options.store.in_edges && in_edges == InEdgeBuild::Fused;
    let Scattered {
        mut offsets,
        mut targets,
        mut weights,
        in_edges,
    } = finish_scatter(bucketed, scratch, fuse);
    if options.sort || options.dedupe() {
        (offsets, targets, weights) = sort_lists(
            offsets,
            targets,
            weights,
            options.dedupe(),
            rayon::current_num_threads(),
        );
    }
    // Sorting keeps the in-edges (each in-list is sorted by source either
    // way); deduping does not, and then `fuse` was off.
    let (in_offsets, in_sources) = match in_edges {
        Some((o, s)) => (Some(o), Some(s)),
        None if options.store.in_edges => {
            let (o, s) = transpose_with(&offsets, &targets, scratch);
            (Some(o), Some(s))
        }
        None => (None, None),
    };
    let semantics = if options.dedupe() {
        Semantics::Simple
    } else {
        Semantics::Multigraph
    };
    if !options.store.weighted {
        weights = None;
    }
    Csr {
        offsets,
        targets,
        weights,
        in_offsets,
        in_sources,
        semantics,
        ids: None,
    }
}

fn transpose(offsets: &[u64], targets: &[VertexId]) -> (Vec<u64>, Vec<VertexId>) {
    transpose_with(offsets, targets, &mut ScatterScratch::default())
}

fn transpose_with(
    offsets: &[u64],
    targets: &[VertexId],
    scratch: &mut ScatterScratch,
) -> (Vec<u64>, Vec<VertexId>) {
    let threads = rayon::current_num_threads();
    let seq = Reversed(CsrSeq { offsets, targets });
    // Every target of a valid CSR is below its vertex count.
    let scattered = scatter(
        &seq,
        offsets.len() - 1,
        &even_ranges(seq.len(), edge_partitions(seq.len(), threads)),
        scratch,
        false,
    )
    .expect("a CSR's targets are below its vertex count");
    (scattered.offsets, scattered.targets)
}

/// The scatter's bucketed copy of the edges. The sources are kept between
/// the out-edge and in-edge builds so the second does not map and fault in
/// fresh memory; the destinations become the output's targets (each bucket
/// is permuted in place), so every build takes them.
#[derive(Default)]
struct ScatterScratch {
    src: Vec<VertexId>,
    dst: Vec<VertexId>,
    /// A buffer the input no longer needs once stage 2 is done (see
    /// [`Csr::from_columns`]): it replaces `dst` when stage 3 takes that as
    /// the targets, so the in-edges' sources go into memory already
    /// mapped instead of fresh pages.
    spare: Vec<VertexId>,
}

impl ScatterScratch {
    /// Both arrays, at least `len` long.
    fn arrays(&mut self, len: usize) -> (&mut [VertexId], &mut [VertexId]) {
        // Zeroed allocations come as untouched pages; no need to keep the
        // old contents.
        if self.src.len() < len {
            self.src = vec![0; len];
        }
        if self.dst.len() < len {
            self.dst = vec![0; len];
        }
        (&mut self.src[..len], &mut self.dst[..len])
    }
}

/// What [`scatter`] builds: offsets, targets and optional weights, and the
/// in-edges' offsets and sources when they were asked for and fit
/// [`InEdgeHandoff`].
struct Scattered {
    offsets: Vec<u64>,
    targets: Vec<VertexId>,
    weights: Option<Vec<Weight>>,
    in_edges: Option<(Vec<u64>, Vec<VertexId>)>,
}

/// The scatter met an id at or past the vertex count.
#[derive(Debug)]
struct IdOutOfRange;

/// How many edge partitions the build uses: several per thread, so that
/// rayon can balance them when a thread is slowed down (a partition costs
/// only [`SCATTER_BUCKETS`] counters), but none smaller than 64 Ki edges.
fn edge_partitions(edges: usize, threads: usize) -> usize {
    const MIN_PARTITION: usize = 1 << 16;
    (threads * 8).min(edges.div_ceil(MIN_PARTITION)).max(1)
}

/// Vertices per scatter bucket, as a shift: at most [`SCATTER_BUCKETS`]
/// buckets of consecutive vertices.
fn bucket_shift(vertex_count: usize) -> u32 {
    let bits = usize::BITS - vertex_count.saturating_sub(1).leading_zeros();
    bits.saturating_sub(SCATTER_BUCKETS.trailing_zeros())
}

/// How many vertex ranges the scatter's first stage sorts edges into: few
/// enough that every bucket's write stream stays in cache, many enough that
/// one bucket's share of the output does too.
const SCATTER_BUCKETS: usize = 256;

/// The CSR build, a two-pass radix scatter in three parallel stages, each
/// thread reading only its own edges and no stage writing at random into
/// anything larger than a cache:
/// 1. every edge partition counts its edges per bucket of consecutive source
///    vertices (a few hundred counters) and checks the ids;
/// 2. every partition copies its edges into the buckets, laid out as the
///    output will be (bucket `b` occupies the slots of its vertices),
///    partition `p` after partitions `0..p` within each bucket: sequential
///    writes to a few hundred streams;
/// 3. every bucket counts its vertices' degrees, writes their offsets and
///    scatters its edges into its own slice of the output.
///
/// Input order is kept within every vertex (stage 2 keeps it per bucket,
/// stage 3 per vertex). Stage 3 permutes each bucket's destinations (and
/// weights) in place, through a copy of one bucket at a time, so the
/// bucketed copy's destinations become the output's targets: besides the
/// output, the build holds the bucketed sources (4 bytes per edge) and one
/// bucket's copy per thread. Fresh memory matters here: every new page is
/// a page fault, a third of the build's time in profiles.
///
/// With `in_edges`, stage 3 also builds the in-edges where
/// [`InEdgeHandoff`] applies (2^24 vertices or fewer); the result's
/// `in_edges` says whether it did.
///
/// An id at or past `vertex_count` is reported as [`IdOutOfRange`] (the
/// caller finds the largest id for the message).
fn scatter<S: EdgeSource + ?Sized>(
    seq: &S,
    vertex_count: usize,
    edge_ranges: &[Range<usize>],
    scratch: &mut ScatterScratch,
    in_edges: bool,
) -> std::result::Result<Scattered, IdOutOfRange> {
    let bucketed = bucket_edges(seq, vertex_count, edge_ranges, scratch)?;
    Ok(finish_scatter(bucketed, scratch, in_edges))
}

/// The scatter's stages 1 and 2 (see [`scatter`]), the only ones that read
/// the input: the bucketed sources and destinations are left in `scratch`.
fn bucket_edges<S: EdgeSource + ?Sized>(
    seq: &S,
    vertex_count: usize,
    edge_ranges: &[Range<usize>],
    scratch: &mut ScatterScratch,
) -> std::result::Result<Bucketed, IdOutOfRange> {
    let shift = bucket_shift(vertex_count);
    let buckets: Vec<Range<usize>> = (0..vertex_count.div_ceil(1 << shift))
        .map(|b| b << shift..((b + 1) << shift).min(vertex_count))
        .collect();

    // Stage 1.
    let counted: Vec<Option<Vec<u64>>> = edge_ranges
        .par_iter()
        .map(|range| {
            let mut per_bucket = vec![0u64; buckets.len()];
            let mut in_range = true;
            seq.for_each_in(range.clone(), |s, d, _| {
                in_range &= (s as usize) < vertex_count && (d as usize) < vertex_count;
                // An id past the count may land in no bucket; the error is
                // reported below.
                if let Some(count) = per_bucket.get_mut((s >> shift) as usize) {
                    *count += 1;
                }
            });
            in_range.then_some(per_bucket)
        })
        .collect();
    // Partition p's first slot in bucket b, and where each bucket starts.
    let mut bucket_cursors: Vec<Vec<u64>> = counted
        .into_iter()
        .collect::<Option<_>>()
        .ok_or(IdOutOfRange)?;
    let mut bucket_starts = Vec::with_capacity(buckets.len() + 1);
    let mut running = 0u64;
    for b in 0..buckets.len() {
        bucket_starts.push(running);
        for cursors in &mut bucket_cursors {
            let count = cursors[b];
            cursors[b] = running;
            running += count;
        }
    }
    bucket_starts.push(running);
    let edge_count = running as usize;
    let bucket_lengths: Vec<usize> = bucket_starts
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .collect();

    // Stage 2. Partition p's slots in bucket b are one contiguous range
    // (`bucket_cursors[p][b]` on), so the bucketed arrays are carved into
    // one slice per (partition, bucket) and each partition writes only its
    // own slices: no shared writes.
    let (bucketed_src, bucketed_dst) = scratch.arrays(edge_count);
    let mut bucketed_weights = seq.is_weighted().then(|| vec![0.0 as Weight; edge_count]);
    let partitions = bucket_cursors.len();
    let slot_count = |p: usize, b: usize| -> usize {
        let end = match bucket_cursors.get(p + 1) {
            Some(next) => next[b],
            None => bucket_starts[b + 1],
        };
        (end - bucket_cursors[p][b]) as usize
    };
    let src_pieces = carve(bucketed_src, partitions, buckets.len(), slot_count);
    let dst_pieces = carve(bucketed_dst, partitions, buckets.len(), slot_count);
    let weight_pieces: Vec<Option<Vec<&mut [Weight]>>> = match bucketed_weights.as_deref_mut() {
        Some(w) => carve(w, partitions, buckets.len(), slot_count)
            .into_iter()
            .map(Some)
            .collect(),
        None => (0..partitions).map(|_| None).collect(),
    };
    edge_ranges
        .par_iter()
        .zip(src_pieces)
        .zip(dst_pieces)
        .zip(weight_pieces)
        .for_each(|(((range, mut src), mut dst), mut weights)| {
            let mut filled = vec![0usize; src.len()];
            seq.for_each_in(range.clone(), |s, d, w| {
                // Ids were checked in stage 1; the walk is the same, so
                // every bucket receives exactly the edges it counted.
                let b = (s >> shift) as usize;
                let at = filled[b];
                filled[b] += 1;
                src[b][at] = s;
                dst[b][at] = d;
                if let Some(weights) = &mut weights {
                    weights[b][at] = w;
                }
            });
        });

    Ok(Bucketed {
        vertex_count,
        shift,
        buckets,
        bucket_starts,
        bucket_lengths,
        edge_count,
        weights: bucketed_weights,
    })
}

/// Stages 1 and 2's result (with the bucketed sources and destinations in
/// the scratch).
struct Bucketed {
    vertex_count: usize,
    shift: u32,
    /// The vertex range of every bucket.
    buckets: Vec<Range<usize>>,
    /// Where every bucket's slots start, and one entry more: the edge count.
    bucket_starts: Vec<u64>,
    bucket_lengths: Vec<usize>,
    edge_count: usize,
    /// The bucketed weights, if any.
    weights: Option<Vec<Weight>>,
}

/// The scatter's stage 3 (see [`scatter`]), and with `in_edges` the
/// in-edges when they fit [`InEdgeHandoff`]; their sources go into
/// `scratch.dst` when it is long enough (a caller's spare buffer).
fn finish_scatter(bucketed: Bucketed, scratch: &mut ScatterScratch, in_edges: bool) -> Scattered {
    let Bucketed {
        vertex_count,
        shift,
        buckets,
        bucket_starts,
        bucket_lengths,
        edge_count,
        weights: bucketed_weights,
    } = bucketed;
    let with_in_edges = in_edges && shift <= HANDOFF_MAX_SHIFT;
    // Stage 3, in place: bucket b's targets occupy the slots its bucketed
    // edges do, so each bucket's destinations (and weights) are copied out
    // and scattered back into the same slice. With the in-edges fused, each
    // bucket then hands its edges, in output order, to the in-edge build
    // (see `InEdgeHandoff`), in the slots its sources no longer need.
    let mut targets = std::mem::replace(&mut scratch.dst, std::mem::take(&mut scratch.spare));
    targets.truncate(edge_count);
    let mut weights = bucketed_weights;
    let mut offsets = vec![0u64; vertex_count + 1];
    let mut handoff = with_in_edges.then(|| InEdgeHandoff::new(shift, buckets.len()));
    let row_pieces: Vec<&mut [u64]> = match handoff.as_mut() {
        Some(handoff) => handoff.counts.chunks_mut(buckets.len().max(1)).collect(),
        None => buckets.iter().map(|_| <&mut [u64]>::default()).collect(),
    };
    let weight_pieces: Vec<Option<&mut [Weight]>> = match weights.as_mut() {
        Some(w) => split_by_lengths(w, bucket_lengths.iter().copied())
            .into_iter()
            .map(Some)
            .collect(),
        None => buckets.iter().map(|_| None).collect(),
    };
    split_by_lengths(&mut targets, bucket_lengths.iter().copied())
        .into_par_iter()
        .zip(weight_pieces)
        .zip(split_by_lengths(
            &mut scratch.src[..edge_count],
            bucket_lengths.iter().copied(),
        ))
        .zip(row_pieces)
        .zip(split_by_lengths(
            &mut offsets[1..],
            buckets.iter().map(Range::len),
        ))
        .zip(buckets.par_iter().zip(&bucket_starts))
        .for_each_init(
            || (Vec::new(), Vec::new()),
            |(dst_copy, weight_copy): &mut (Vec<VertexId>, Vec<Weight>),
             (
                ((((target_piece, mut weight_piece), sources), in_row), offset_piece),
                (bucket, &base),
            )| {
                let first = bucket.start as VertexId;
                // Degrees, then each vertex's first slot in the piece.
                let mut cursor = vec![0usize; bucket.len()];
                // The first read of this bucket's slots: prefetched, for
                // the sources here and the destinations copied next.
                for (line, sixteen) in sources.chunks(16).enumerate() {
                    prefetch(sources, line * 16 + PREFETCH_AHEAD);
                    prefetch(target_piece, line * 16 + PREFETCH_AHEAD);
                    for &s in sixteen {
                        cursor[(s - first) as usize] += 1;
                    }
                }
                let mut end = 0;
                for (slot, offset) in cursor.iter_mut().zip(offset_piece) {
                    let degree = *slot;
                    *slot = end;
                    end += degree;
                    *offset = base + end as u64;
                }
                dst_copy.clear();
                dst_copy.extend_from_slice(target_piece);
                weight_copy.clear();
                if let Some(piece) = weight_piece.as_deref() {
                    weight_copy.extend_from_slice(piece);
                }
                for (i, (&s, &d)) in sources.iter().zip(dst_copy.iter()).enumerate() {
                    let slot = &mut cursor[(s - first) as usize];
                    target_piece[*slot] = d;
                    if let Some(out) = weight_piece.as_deref_mut() {
                        out[*slot] = weight_copy[i];
                    }
                    *slot += 1;
                }
                // `cursor[v]` is now the end of `v`'s list.
                if !in_row.is_empty() {
                    InEdgeHandoff::hand_over(shift, target_piece, &cursor, sources, in_row);
                }
            },
        );
    let in_edges = handoff.map(|handoff| {
        let reusable = std::mem::take(&mut scratch.dst);
        handoff.build(
            &scratch.src[..edge_count],
            &buckets,
            &bucket_starts,
            vertex_count,
            reusable,
        )
    });
    Scattered {
        offsets,
        targets,
        weights,
        in_edges,
    }
}

/// The in-edges built alongside the out-edges, from the scatter's stage 3
/// instead of from the finished CSR. Needs buckets of at most 2^16 vertices
/// (graphs of up to 2^24 vertices), so that an edge fits one `u32`: its
/// source's index in its bucket (high half) and its destination's index in
/// its destination's bucket (low half).
///
/// Stage 3 finishes bucket `b`'s out-lists, in order of source, in cache;
/// it then counts them per destination bucket `c` (`counts[b][c]`) and
/// writes them as packed edges, grouped by `c` and in output order within
/// each group, over its bucketed sources, which it no longer needs. Once
/// every bucket is done, each destination bucket `c` gathers its groups
/// (bucket `0`'s first) and scatters them by destination: every in-list
/// comes out sorted by source, exactly as transposing the finished CSR
/// gives, without that transpose's two walks over the CSR, its bucketed
/// copy (8 bytes per edge written, then read) and its own scratch.
struct InEdgeHandoff {
    shift: u32,
    bucket_count: usize,
    /// `counts[b * bucket_count + c]`: edges from bucket `b` into bucket `c`.
    counts: Vec<u64>,
}

/// The largest bucket width (as a shift) the in-edge handoff can pack.
const HANDOFF_MAX_SHIFT: u32 = 16;

impl InEdgeHandoff {
    fn new(shift: u32, bucket_count: usize) -> Self {
        debug_assert!(shift <= HANDOFF_MAX_SHIFT);
        Self {
            shift,
            bucket_count,
            counts: vec![0; bucket_count * bucket_count],
        }
    }

    /// Stage 3's part for one source bucket: `targets` holds its finished
    /// out-lists (`list_ends[v]` is the end of local vertex `v`'s list);
    /// `slots` (as long as `targets`) receives the packed edges grouped by
    /// destination bucket; `row` receives the group sizes.
    fn hand_over(
        shift: u32,
        targets: &[VertexId],
        list_ends: &[usize],
        slots: &mut [VertexId],
        row: &mut [u64],
    ) {
        for &d in targets {
            row[(d >> shift) as usize] += 1;
        }
        let mut next: Vec<usize> = Vec::with_capacity(row.len());
        let mut running = 0usize;
        for &count in row.iter() {
            next.push(running);
            running += count as usize;
        }
        let low = (1u32 << shift) - 1;
        let mut start = 0;
        for (local, &end) in list_ends.iter().enumerate() {
            let high = (local as u32) << 16;
            for &d in &targets[start..end] {
                let group = &mut next[(d >> shift) as usize];
                slots[*group] = high | (d & low);
                *group += 1;
            }
            start = end;
        }
    }

    /// The in-edge offsets and sources, from the packed groups in `slots`
    /// (source bucket `b`'s slots start at `bucket_starts[b]`).
    fn build(
        &self,
        slots: &[VertexId],
        buckets: &[Range<usize>],
        bucket_starts: &[u64],
        vertex_count: usize,
        mut reusable: Vec<VertexId>,
    ) -> (Vec<u64>, Vec<VertexId>) {
        let n = self.bucket_count;
        // Where group (b, c) starts in `slots`, and each c's total.
        let mut group_starts = vec![0usize; n * n];
        let mut in_lengths = vec![0usize; n];
        for b in 0..n {
            let mut at = bucket_starts[b] as usize;
            for c in 0..n {
                group_starts[b * n + c] = at;
                let count = self.counts[b * n + c] as usize;
                at += count;
                in_lengths[c] += count;
            }
        }
        let mut in_offsets = vec![0u64; vertex_count + 1];
        // Every slot is written below, so a reused buffer's old contents
        // do not matter.
        let mut in_sources = if reusable.len() >= slots.len() {
            reusable.truncate(slots.len());
            reusable.shrink_to_fit();
            reusable
        } else {
            vec![0 as VertexId; slots.len()]
        };
        let mut in_bases = Vec::with_capacity(n);
        let mut running = 0u64;
        for &length in &in_lengths {
            in_bases.push(running);
            running += length as u64;
        }
        let shift = self.shift;
        let (group_starts, counts) = (&group_starts, &self.counts);
        split_by_lengths(&mut in_sources, in_lengths.iter().copied())
            .into_par_iter()
            .zip(split_by_lengths(
                &mut in_offsets[1..],
                buckets.iter().map(Range::len),
            ))
            .zip(buckets.par_iter().zip(&in_bases))
            .enumerate()
            .for_each(|(c, ((out, offset_piece), (bucket, &base)))| {
                let groups = || {
                    (0..n).map(move |b| {
                        let start = group_starts[b * n + c];
                        let len = counts[b * n + c] as usize;
                        ((b << shift) as VertexId, &slots[start..start + len])
                    })
                };
                let mut cursor = vec![0usize; bucket.len()];
                // The first read of the groups, from all over `slots`:
                // the next group's start is asked for while this one is
                // counted, and a long group's data 2 KiB ahead (measured: about
                // 2% less user CPU for a 1-thread CSR + transpose load).
                let mut upcoming = groups().skip(1);
                for (_, group) in groups() {
                    if let Some((_, next)) = upcoming.next() {
                        prefetch(next, 0);
                        prefetch(next, 16);
                    }
                    for (line, sixteen) in group.chunks(16).enumerate() {
                        prefetch(group, line * 16 + PREFETCH_AHEAD);
                        for &packed in sixteen {
                            cursor[(packed & 0xffff) as usize] += 1;
                        }
                    }
                }
                let mut end = 0;
                for (slot, offset) in cursor.iter_mut().zip(offset_piece) {
                    let degree = *slot;
                    *slot = end;
                    end += degree;
                    *offset = base + end as u64;
                }
                for (first, group) in groups() {
                    for &packed in group {
                        let slot = &mut cursor[(packed & 0xffff) as usize];
                        out[*slot] = first + (packed >> 16);
                        *slot += 1;
                    }
                }
            });
        (in_offsets, in_sources)
    }
}

/// Sorts every neighbour list (stable, weights alongside) and, with
/// `dedupe`, keeps the first of each run of equal targets, then compacts.
fn sort_lists(
    offsets: Vec<u64>,
    mut targets: Vec<VertexId>,
    mut weights: Option<Vec<Weight>>,
    dedupe: bool,
    threads: usize,
) -> (Vec<u64>, Vec<VertexId>, Option<Vec<Weight>>) {
    let vertex_count = offsets.len() - 1;
    let vertex_ranges = edge_balanced_vertex_ranges(&offsets, threads);
    let lengths: Vec<usize> = vertex_ranges
        .iter()
        .map(|r| (offsets[r.end] - offsets[r.start]) as usize)
        .collect();
    let mut new_degrees = vec![0u64; vertex_count];
    {
        let target_pieces = split_by_lengths(&mut targets, lengths.iter().copied());
        let weight_pieces: Vec<Option<&mut [Weight]>> = match weights.as_mut() {
            Some(w) => split_by_lengths(w, lengths.iter().copied())
                .into_iter()
                .map(Some)
                .collect(),
            None => vertex_ranges.iter().map(|_| None).collect(),
        };
        let degree_pieces =
            split_by_lengths(&mut new_degrees, vertex_ranges.iter().map(|r| r.len()));
        vertex_ranges
            .par_iter()
            .zip(target_pieces)
            .zip(weight_pieces)
            .zip(degree_pieces)
            .for_each(|(((range, targets), mut weights), degrees)| {
                let base = offsets[range.start];
                let mut pairs: Vec<(VertexId, Weight)> = Vec::new();
                for (i, v) in range.clone().enumerate() {
                    let list = (offsets[v] - base) as usize..(offsets[v + 1] - base) as usize;
                    let kept = match weights.as_deref_mut() {
                        Some(weights) => {
                            pairs.clear();
                            pairs.extend(
                                targets[list.clone()]
                                    .iter()
                                    .copied()
                                    .zip(weights[list.clone()].iter().copied()),
                            );
                            pairs.sort_by_key(|&(t, _)| t);
                            if dedupe {
                                pairs.dedup_by_key(|&mut (t, _)| t);
                            }
                            for (k, &(t, w)) in pairs.iter().enumerate() {
                                targets[list.start + k] = t;
                                weights[list.start + k] = w;
                            }
                            pairs.len()
                        }
                        None => {
                            let list = &mut targets[list];
                            list.sort_unstable();
                            if dedupe {
                                dedup_sorted_in_place(list)
                            } else {
                                list.len()
                            }
                        }
                    };
                    degrees[i] = kept as u64;
                }
            });
    }
    if !dedupe {
        return (offsets, targets, weights);
    }
    // Compact: each list's kept prefix moves to its new place.
    let mut new_offsets = Vec::with_capacity(vertex_count + 1);
    let mut running = 0u64;
    new_offsets.push(0);
    for &degree in &new_degrees {
        running += degree;
        new_offsets.push(running);
    }
    let new_targets = compact(&targets, &offsets, &new_degrees, running as usize);
    let new_weights = weights.map(|w| compact(&w, &offsets, &new_degrees, running as usize));
    (new_offsets, new_targets, new_weights)
}

/// Copies the first `kept[v]` entries of every list into a new dense array.
fn compact<T: Copy>(old: &[T], offsets: &[u64], kept: &[u64], total: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(total);
    for (v, &count) in kept.iter().enumerate() {
        let start = offsets[v] as usize;
        out.extend_from_slice(&old[start..start + count as usize]);
    }
    out
}

/// Removes repeats from a sorted slice, moving kept values to the front;
/// returns how many are kept.
fn dedup_sorted_in_place(list: &mut [VertexId]) -> usize {
    if list.is_empty() {
        return 0;
    }
    let mut kept = 1;
    for i in 1..list.len() {
        if list[i] != list[kept - 1] {
            list[kept] = list[i];
            kept += 1;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Edge;
    use proptest::prelude::*;

    /// Both ways of building the in-edges, in a pool of `threads`.
    fn fused_and_from_csr(
        edges: &[WeightedEdge],
        weighted: bool,
        options: &CsrOptions,
        threads: usize,
    ) -> (Csr, Csr) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let plain: Vec<Edge> = edges.iter().map(|e| Edge::new(e.src, e.dst)).collect();
            let both = |in_edges| {
                if weighted {
                    build_with(edges, options, in_edges)
                } else {
                    build_with(&plain[..], options, in_edges)
                }
                .expect("valid edges")
            };
            (both(InEdgeBuild::Fused), both(InEdgeBuild::FromCsr))
        })
    }

    /// A vertex count (one vertex per bucket up to buckets of hundreds)
    /// and edges below it, half of their ids among a few vertices, so lists
    /// repeat sources and hold multi-edges.
    fn counted_edges() -> impl Strategy<Value = (u32, Vec<WeightedEdge>)> {
        prop_oneof![Just(1u32), Just(40), Just(257), Just(5_000), Just(70_001)].prop_flat_map(
            |vertex_count| {
                let id = prop_oneof![0..vertex_count, 0..vertex_count.min(9)];
                let edge = (id.clone(), id, 0u8..4)
                    .prop_map(|(s, d, w)| WeightedEdge::new(s, d, f32::from(w)));
                (Just(vertex_count), prop::collection::vec(edge, 0..1500))
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(160))]

        /// The in-edges built in the scatter's stage 3 equal the transpose
        /// of the finished CSR, whatever the vertex count, the sort option,
        /// weights and threads; and the fused path is the one taken.
        #[test]
        fn fused_in_edges_equal_the_transposed_csr(
            (vertex_count, edges) in counted_edges(),
            given_count in any::<bool>(),
            sort in any::<bool>(),
            weighted in any::<bool>(),
            threads in 1usize..=2,
        ) {
            let mut options = CsrOptions::default().in_edges(true).sort(sort);
            if given_count {
                options = options.vertex_count(vertex_count as usize);
            }
            let (fused, from_csr) = fused_and_from_csr(&edges, weighted, &options, threads);
            prop_assert_eq!(&fused, &from_csr);
            let without = fused_and_from_csr(&edges, weighted, &options.clone().in_edges(false), threads).0;
            prop_assert_eq!(&without.with_transpose(), &from_csr);

            let vertex_count = from_csr.offsets().len() - 1;
            let scattered = scatter(
                &edges[..],
                vertex_count,
                &even_ranges(edges.len(), 3),
                &mut ScatterScratch::default(),
                true,
            )
            .expect("ids in range");
            prop_assert!(scattered.in_edges.is_some());
        }
    }

    /// Buckets of 2^16 vertices (2^24 vertices), the widest the handoff
    /// packs, and one vertex more, where the in-edges come from the CSR.
    #[test]
    fn fused_in_edges_at_the_widest_buckets() {
        let top = (1u32 << 24) - 1;
        let ids = [
            0,
            1,
            65_535,
            65_536,
            65_537,
            1 << 23,
            top - 65_536,
            top - 1,
            top,
        ];
        let edges: Vec<WeightedEdge> = ids
            .iter()
            .flat_map(|&s| ids.iter().map(move |&d| WeightedEdge::new(s, d, 1.0)))
            .chain([
                WeightedEdge::new(top, 0, 2.0),
                WeightedEdge::new(top, 0, 3.0),
            ])
            .rev()
            .collect();
        assert_eq!(bucket_shift(1 << 24), HANDOFF_MAX_SHIFT);
        for threads in [1, 2] {
            let empty = CsrOptions::default().in_edges(true);
            let (fused, from_csr) = fused_and_from_csr(&[], false, &empty, threads);
            assert_eq!((fused.in_offsets(), &fused), (Some(&[0u64][..]), &from_csr));
            let options = CsrOptions::default().in_edges(true);
            let (fused, from_csr) = fused_and_from_csr(&edges, true, &options, threads);
            assert_eq!(fused, from_csr);
            let incoming = fused.in_edges().unwrap();
            assert_eq!(incoming.in_slice(0)[..3], [0, 1, 65_535]);
            assert_eq!(
                incoming.in_slice(0)[incoming.in_slice(0).len() - 2..],
                [top, top]
            );
            let wider = options.vertex_count((1 << 24) + 1);
            let (fused, from_csr) = fused_and_from_csr(&edges, false, &wider, threads);
            assert_eq!(fused, from_csr);
        }
    }

    /// The chunk walk (which prefetches ahead of itself, past chunk ends
    /// too) visits exactly the edges of any range, in order, with their
    /// weights.
    #[test]
    fn chunk_walk_visits_every_edge_of_any_range_in_order() {
        let lengths = [0usize, 1, 15, 16, 17, 700, 0, 1100, 33];
        let total: usize = lengths.iter().sum();
        let src: Vec<VertexId> = (0..total as u32).collect();
        let dst: Vec<VertexId> = (0..total as u32).map(|i| i * 7 % 1000).collect();
        let weights: Vec<Weight> = (0..total).map(|i| i as Weight / 4.0).collect();
        for weighted in [false, true] {
            let mut start = 0;
            let chunks: Vec<EdgeChunk<'_>> = lengths
                .iter()
                .map(|&len| {
                    let range = start..start + len;
                    start += len;
                    EdgeChunk {
                        src: &src[range.clone()],
                        dst: &dst[range.clone()],
                        weights: weighted.then(|| &weights[range]),
                    }
                })
                .collect();
            let seq = EdgeChunks::new(&chunks).expect("consistent chunks");
            let points = [0, 1, 16, 17, 40, 600, 733, 1500, total - 1, total];
            for &from in &points {
                for &to in points.iter().filter(|&&to| to >= from) {
                    let mut seen = Vec::new();
                    seq.for_each_in(from..to, |s, d, w| seen.push((s, d, w)));
                    let expected: Vec<(VertexId, VertexId, Weight)> = (from..to)
                        .map(|i| (src[i], dst[i], if weighted { weights[i] } else { 1.0 }))
                        .collect();
                    assert_eq!(seen, expected, "range {from}..{to}, weighted {weighted}");
                }
            }
        }
    }
}

#[cfg(test)]
mod validate_tests {
    use super::validate;

    /// The block scan must name the first fault, past the first block and
    /// at a block's edge alike.
    #[test]
    fn validation_names_the_first_fault_in_any_block() {
        let vertices = 3 * (1 << 16) + 10;
        let offsets: Vec<u64> = (0..=vertices as u64).collect();
        let targets: Vec<u32> = (0..vertices as u32).collect();
        assert!(validate(&offsets, &targets, None).is_ok());
        for position in [0, (1 << 16) - 1, 1 << 16, 2 * (1 << 16) + 7] {
            let mut bad = targets.clone();
            bad[position] = vertices as u32;
            bad[position + 3] = vertices as u32 + 1;
            let error = validate(&offsets, &bad, None).unwrap_err().to_string();
            assert!(
                error.contains(&format!("at position {position} ")),
                "{error}"
            );
            // Offsets fall after vertex `position + 1` and again later.
            let mut bad = offsets.clone();
            bad[position + 2] = position as u64;
            bad[position + 5] = 0;
            let error = validate(&bad, &targets, None).unwrap_err().to_string();
            let expected = format!("offsets decrease at vertex {}", position + 1);
            assert!(error.contains(&expected), "{error}");
        }
    }
}
