//! The read and update traits every store implements and every kernel
//! consumes.
//!
//! They are small and separate, after graph_builder: a kernel asks only for
//! what it uses. Neighbour iterators are associated types, so on [`Csr`] they
//! are `Copied<slice::Iter<u32>>` and a kernel's inner loop compiles to the
//! same code as a hand-written walk over the slices (measured in
//! `benches/benches/trait_overhead.rs`).
//!
//! # Capabilities are checked, never silent
//!
//! In-edges and weights are options of most stores. Reading them goes
//! through a capability check that happens once, not a flag a caller may
//! forget: [`InEdges::in_edges`] returns a handle implementing
//! [`InNeighbors`], or [`Error::MissingCapability`] when the store was built
//! without in-edges; [`EdgeWeights::edge_weights`] does the same for
//! [`WeightedNeighbors`]. There is no way to read a missing in-list as
//! empty or a missing weight as `1.0`. A kernel that can do without a
//! capability (PageRank pushes when it has no in-edges, SSSP counts hops
//! without weights) says so in its result.
//!
//! # Vertices outside the graph
//!
//! A read of a vertex `v >= vertex_count()` is answered as for an isolated
//! vertex, by every store and every view: degree 0 and no neighbours, out
//! and in. It never panics. (Such a vertex does not exist until an insert
//! names it; [`GraphUpdate`] grows the graph then.)
//!
//! [`Csr`]: crate::Csr
//! [`Error::MissingCapability`]: crate::Error::MissingCapability

use crate::source::EdgeSource;
use crate::{Error, Result, Semantics, UpdateReport, VertexId, Weight};
use std::ops::Range;

/// Sizes and semantics: what every store answers.
///
/// Vertex counts are `usize` (they size arrays); edge counts and degrees
/// are `u64` everywhere in dyngraph.
pub trait Graph {
    /// Number of vertices; ids are `0..vertex_count()`. Isolated vertices
    /// count. Deleting edges never shrinks it.
    fn vertex_count(&self) -> usize;

    /// Number of edges currently stored (each occurrence counts in a
    /// multigraph).
    fn edge_count(&self) -> u64;

    /// Multigraph or simple graph, fixed at construction.
    fn semantics(&self) -> Semantics;
}

/// Out-edges: degree and neighbours of a vertex.
pub trait OutNeighbors: Graph {
    /// Iterator over the out-neighbours of one vertex.
    type OutIter<'a>: Iterator<Item = VertexId>
    where
        Self: 'a;

    /// Number of out-edges of `v`; 0 for a vertex outside the graph.
    fn out_degree(&self, v: VertexId) -> u64;

    /// The out-neighbours of `v` (none for a vertex outside the graph), with
    /// repeats in a multigraph. Order is the
    /// store's (insertion order for VCSR, sorted for CSR++, file order or
    /// sorted for `Csr` depending on how it was built).
    fn out_neighbors(&self, v: VertexId) -> Self::OutIter<'_>;

    /// Every edge, by source vertex and then in each vertex's order.
    ///
    /// ```
    /// use dyngraph_core::{Csr, CsrOptions, Edge, FromEdges, OutNeighbors};
    /// let csr = Csr::from_edges(&[Edge::new(1, 0), Edge::new(0, 2)][..], CsrOptions::default())?;
    /// assert_eq!(csr.edges().collect::<Vec<_>>(), [Edge::new(0, 2), Edge::new(1, 0)]);
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    fn edges(&self) -> crate::Edges<'_, Self>
    where
        Self: Sized,
    {
        crate::Edges::new(self)
    }
}

/// The in-edges of a graph that keeps them: what [`InEdges::in_edges`]
/// hands out. Implemented by small `Copy` handles (for `Csr`, two slices)
/// that are passed by value, so a pull kernel's loop pays no capability
/// check per vertex and the iterators borrow the graph, not the handle.
pub trait InNeighbors: Copy {
    /// Iterator over the in-neighbours of one vertex.
    type InIter: Iterator<Item = VertexId>;

    /// Number of in-edges of `v`; 0 for a vertex outside the graph.
    fn in_degree(self, v: VertexId) -> u64;

    /// The in-neighbours of `v`: every `u` with an edge `u -> v`, with
    /// repeats in a multigraph; none for a vertex outside the graph.
    fn in_neighbors(self, v: VertexId) -> Self::InIter;
}

/// The weighted out-edges of a graph that stores weights: what
/// [`EdgeWeights::edge_weights`] hands out, a `Copy` handle passed by
/// value like [`InNeighbors`].
pub trait WeightedNeighbors: Copy {
    /// Iterator over `(neighbour, weight)` of one vertex.
    type WeightedIter: Iterator<Item = (VertexId, Weight)>;

    /// The out-edges of `v` with their weights, in the same order as
    /// [`OutNeighbors::out_neighbors`].
    fn out_neighbors_weighted(self, v: VertexId) -> Self::WeightedIter;
}

/// A graph that may keep in-edges (every store in dyngraph can, as an
/// option chosen when it is built).
pub trait InEdges: Graph {
    /// The handle reading the in-edges.
    type InHandle<'a>: InNeighbors + Send + Sync
    where
        Self: 'a;

    /// The in-edges, or [`Error::MissingCapability`] naming the store and
    /// how to build it with them.
    fn in_edges(&self) -> Result<Self::InHandle<'_>>;

    /// Whether [`InEdges::in_edges`] succeeds.
    fn has_in_edges(&self) -> bool {
        self.in_edges().is_ok()
    }

    /// The in-neighbours of `v`, or [`Error::MissingCapability`]:
    /// `self.in_edges()?.in_neighbors(v)`. A loop over many vertices takes
    /// the handle once instead ([`InEdges::in_edges`]).
    ///
    /// ```
    /// use dyngraph_core::{Csr, CsrOptions, Edge, InEdges, StoreConfig};
    /// let csr = Csr::from_edges(&[Edge::new(0, 2), Edge::new(1, 2)], CsrOptions::default().in_edges(true))?;
    /// assert_eq!(csr.in_neighbors(2)?.collect::<Vec<_>>(), [0, 1]);
    /// assert_eq!(csr.in_degree(7)?, 0); // outside the graph: isolated
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    fn in_neighbors(&self, v: VertexId) -> Result<<Self::InHandle<'_> as InNeighbors>::InIter> {
        Ok(self.in_edges()?.in_neighbors(v))
    }

    /// The in-degree of `v`, or [`Error::MissingCapability`]:
    /// `self.in_edges()?.in_degree(v)`.
    fn in_degree(&self, v: VertexId) -> Result<u64> {
        Ok(self.in_edges()?.in_degree(v))
    }
}

/// A graph that may store edge weights.
pub trait EdgeWeights: OutNeighbors {
    /// The handle reading weighted out-edges.
    type WeightHandle<'a>: WeightedNeighbors + Send + Sync
    where
        Self: 'a;

    /// The weighted out-edges, or [`Error::MissingCapability`] when the
    /// store keeps no weights.
    fn edge_weights(&self) -> Result<Self::WeightHandle<'_>>;

    /// Whether [`EdgeWeights::edge_weights`] succeeds.
    fn has_weights(&self) -> bool {
        self.edge_weights().is_ok()
    }

    /// The out-edges of `v` with their weights, or
    /// [`Error::MissingCapability`]: `self.edge_weights()?.out_neighbors_weighted(v)`.
    /// A loop over many vertices takes the handle once instead.
    fn weighted_out_neighbors(
        &self,
        v: VertexId,
    ) -> Result<<Self::WeightHandle<'_> as WeightedNeighbors>::WeightedIter> {
        Ok(self.edge_weights()?.out_neighbors_weighted(v))
    }

    /// Every edge with its weight, by source vertex, or
    /// [`Error::MissingCapability`] when the store keeps no weights.
    fn weighted_edges(&self) -> Result<crate::WeightedEdges<'_, Self>>
    where
        Self: Sized,
    {
        Ok(crate::WeightedEdges::new(self, self.edge_weights()?))
    }
}

/// Everything a kernel may read: out-edges, and in-edges and weights behind
/// their capability checks. Implemented for every type that has them all.
pub trait ReadGraph: OutNeighbors + InEdges + EdgeWeights + Sync {}

impl<G: OutNeighbors + InEdges + EdgeWeights + Sync + ?Sized> ReadGraph for G {}

/// Updates: what a dynamic store does.
///
/// Semantics follow [`Graph::semantics`]:
/// - [`Semantics::Multigraph`]: every insert adds an edge; a delete removes
///   the oldest occurrence of `src -> dst`.
/// - [`Semantics::Simple`]: inserting an existing edge is a no-op (`Ok(false)`),
///   deleting a missing one is a no-op.
///
/// Inserting an edge whose endpoint is `>= vertex_count()` grows the graph so
/// that both endpoints exist; deleting one reports nothing removed and does
/// not grow it. An id that would take the graph past the store's vertex
/// limit is refused with [`crate::Error::VertexLimit`], and then the graph is
/// unchanged (batches check every id before changing anything).
///
/// Batches take any [`EdgeSource`]: a slice of [`crate::Edge`] or
/// [`crate::WeightedEdge`], the loader's columns, or [`crate::EdgeChunk`], with no
/// copy into another edge type first. A weighted batch into a store built
/// without weights keeps the edges and drops the weights (the store's
/// [`EdgeWeights`] then refuses to answer weights at all).
pub trait GraphUpdate: Graph {
    /// Inserts `src -> dst`; `Ok(true)` if an edge was added. On a weighted
    /// store the weight is `1.0`.
    fn insert_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.insert_weighted_edge(src, dst, 1.0)
    }

    /// Inserts `src -> dst` with `weight`; `Ok(true)` if an edge was added.
    /// A store built without weights drops the weight.
    fn insert_weighted_edge(
        &mut self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) -> Result<bool>;

    /// Deletes one occurrence of `src -> dst`; `Ok(true)` if one was removed.
    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool>;

    /// Inserts a batch, in order. Stores override this with a faster bulk
    /// path; the result must equal inserting one edge at a time.
    fn insert_edges<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<UpdateReport>
    where
        Self: Sized,
    {
        check_limit(self.vertex_limit(), edges.max_vertex())?;
        let mut report = UpdateReport::default();
        for i in 0..edges.len() {
            let e = edges.edge(i);
            report.edges_added += u64::from(self.insert_weighted_edge(e.src, e.dst, e.weight)?);
        }
        Ok(report)
    }

    /// Deletes a batch, in order; each edge removes at most one occurrence.
    /// Weights in the batch are ignored.
    fn delete_edges<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<UpdateReport>
    where
        Self: Sized,
    {
        let mut report = UpdateReport::default();
        for i in 0..edges.len() {
            let e = edges.edge(i);
            report.edges_removed += u64::from(self.delete_edge(e.src, e.dst)?);
        }
        Ok(report)
    }

    /// Marks the end of a batch of updates (a replay calls it after each
    /// batch's inserts and deletes). Stores that work per batch do it here:
    /// a durable store makes the batch durable under a per-batch sync
    /// policy; a rebuild-per-batch baseline rebuilds, and its reads show
    /// the graph as of the last `end_batch` (it says so in its docs; every
    /// other store's reads reflect each update at once). A no-op by
    /// default.
    fn end_batch(&mut self) -> Result<()> {
        Ok(())
    }

    /// Adds `count` isolated vertices and returns their ids.
    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>>;

    /// The largest vertex count this store accepts.
    fn vertex_limit(&self) -> usize;
}

/// Checks that every id in `ids` fits a graph of at most `limit` vertices.
///
/// Stores call this before changing anything, so a refused batch leaves the
/// graph as it was.
pub fn check_limit(limit: usize, ids: impl IntoIterator<Item = VertexId>) -> Result<()> {
    let max = ids.into_iter().max();
    match max {
        Some(id) if id as u64 >= limit as u64 => Err(Error::VertexLimit {
            vertex: id.into(),
            needed: u64::from(id) + 1,
            limit: limit as u64,
        }),
        _ => Ok(()),
    }
}

// A reference to a graph is a graph: lets a store hand out `&Self` as its
// read view and lets generic code take `&G` or `G` alike.

impl<G: Graph + ?Sized> Graph for &G {
    #[inline]
    fn vertex_count(&self) -> usize {
        (**self).vertex_count()
    }

    #[inline]
    fn edge_count(&self) -> u64 {
        (**self).edge_count()
    }

    #[inline]
    fn semantics(&self) -> Semantics {
        (**self).semantics()
    }
}

impl<G: OutNeighbors + ?Sized> OutNeighbors for &G {
    type OutIter<'a>
        = G::OutIter<'a>
    where
        Self: 'a;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        (**self).out_degree(v)
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> Self::OutIter<'_> {
        (**self).out_neighbors(v)
    }
}

impl<G: InEdges + ?Sized> InEdges for &G {
    type InHandle<'a>
        = G::InHandle<'a>
    where
        Self: 'a;

    #[inline]
    fn in_edges(&self) -> Result<Self::InHandle<'_>> {
        (**self).in_edges()
    }
}

impl<G: EdgeWeights + ?Sized> EdgeWeights for &G {
    type WeightHandle<'a>
        = G::WeightHandle<'a>
    where
        Self: 'a;

    #[inline]
    fn edge_weights(&self) -> Result<Self::WeightHandle<'_>> {
        (**self).edge_weights()
    }
}

/// Unit weights over any graph's out-edges: what a kernel that accepts
/// unweighted graphs (SSSP counting hops) reads when
/// [`EdgeWeights::edge_weights`] says there are no weights. Using it is a
/// visible choice of the caller, never a silent default of a store.
#[derive(Debug)]
pub struct UnitWeights<'a, G: ?Sized>(pub &'a G);

impl<G: ?Sized> Clone for UnitWeights<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: ?Sized> Copy for UnitWeights<'_, G> {}

impl<'a, G: OutNeighbors + ?Sized> WeightedNeighbors for UnitWeights<'a, G> {
    type WeightedIter = std::iter::Map<G::OutIter<'a>, fn(VertexId) -> (VertexId, Weight)>;

    #[inline]
    fn out_neighbors_weighted(self, v: VertexId) -> Self::WeightedIter {
        self.0.out_neighbors(v).map(|d| (d, 1.0))
    }
}
