//! The capability traits every store implements and every kernel consumes.
//!
//! They are small and separate, after graph_builder: a kernel asks only for
//! what it uses. Neighbour iterators are associated types, so on [`Csr`] they
//! are `Copied<slice::Iter<u32>>` and a kernel's inner loop compiles to the
//! same code as a hand-written walk over the slices (measured in
//! `benches/benches/trait_overhead.rs`).
//!
//! Vertex arguments must be `< vertex_count()`; like slice indexing, reads
//! panic on an id outside the graph. Inputs from files are validated by the
//! loader before they reach a store, so that panic is a programming error,
//! never a bad-input path.
//!
//! [`Csr`]: crate::Csr

use crate::{Edge, Result, Semantics, UpdateReport, VertexId, Weight, WeightedEdge};
use std::ops::Range;

/// Sizes and semantics: what every store answers.
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
    type OutNeighbors<'a>: Iterator<Item = VertexId>
    where
        Self: 'a;

    /// Number of out-edges of `v`.
    fn out_degree(&self, v: VertexId) -> u64;

    /// The out-neighbours of `v`, with repeats in a multigraph. Order is the
    /// store's (insertion order for VCSR, sorted for CSR++, file order or
    /// sorted for `Csr` depending on how it was built).
    fn out_neighbors(&self, v: VertexId) -> Self::OutNeighbors<'_>;
}

/// In-edges, for stores that can keep reverse edges.
///
/// Whether they are kept is a runtime property (it is an option of most
/// stores), so kernels ask [`InNeighbors::has_in_edges`] and fall back to an
/// out-edge algorithm when it is `false`.
pub trait InNeighbors: Graph {
    /// Iterator over the in-neighbours of one vertex.
    type InNeighbors<'a>: Iterator<Item = VertexId>
    where
        Self: 'a;

    /// Whether in-edges are maintained. When `false`, `in_degree` returns 0
    /// and `in_neighbors` yields nothing: do not read them.
    fn has_in_edges(&self) -> bool;

    /// Number of in-edges of `v` (0 when in-edges are not kept).
    fn in_degree(&self, v: VertexId) -> u64;

    /// The in-neighbours of `v`: every `u` with an edge `u -> v`.
    fn in_neighbors(&self, v: VertexId) -> Self::InNeighbors<'_>;
}

/// Out-edges with their weights.
///
/// A store built without weights still implements this and reports every
/// weight as `1.0` and `has_weights() == false`, so weighted kernels (SSSP)
/// run on unweighted graphs with unit weights.
pub trait WeightedOutNeighbors: OutNeighbors {
    /// Iterator over `(neighbour, weight)` of one vertex.
    type WeightedOutNeighbors<'a>: Iterator<Item = (VertexId, Weight)>
    where
        Self: 'a;

    /// Whether real weights are stored.
    fn has_weights(&self) -> bool;

    /// The out-edges of `v` with their weights, in the same order as
    /// [`OutNeighbors::out_neighbors`].
    fn out_neighbors_weighted(&self, v: VertexId) -> Self::WeightedOutNeighbors<'_>;
}

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
pub trait GraphUpdate: Graph {
    /// Inserts `src -> dst`; `Ok(true)` if an edge was added. On a weighted
    /// store the weight is `1.0`.
    fn insert_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool>;

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
    fn insert_edges(&mut self, edges: &[Edge]) -> Result<UpdateReport> {
        check_limit(
            self.vertex_limit(),
            edges.iter().flat_map(|e| [e.src, e.dst]),
        )?;
        let mut report = UpdateReport::default();
        for edge in edges {
            report.edges_added += u64::from(self.insert_edge(edge.src, edge.dst)?);
        }
        Ok(report)
    }

    /// Inserts a weighted batch, in order (see [`GraphUpdate::insert_edges`]).
    fn insert_weighted_edges(&mut self, edges: &[WeightedEdge]) -> Result<UpdateReport> {
        check_limit(
            self.vertex_limit(),
            edges.iter().flat_map(|e| [e.src, e.dst]),
        )?;
        let mut report = UpdateReport::default();
        for edge in edges {
            report.edges_added +=
                u64::from(self.insert_weighted_edge(edge.src, edge.dst, edge.weight)?);
        }
        Ok(report)
    }

    /// Deletes a batch, in order; each edge removes at most one occurrence.
    fn delete_edges(&mut self, edges: &[Edge]) -> Result<UpdateReport> {
        let mut report = UpdateReport::default();
        for edge in edges {
            report.edges_removed += u64::from(self.delete_edge(edge.src, edge.dst)?);
        }
        Ok(report)
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
        Some(id) if id as u64 >= limit as u64 => Err(crate::Error::VertexLimit {
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
    type OutNeighbors<'a>
        = G::OutNeighbors<'a>
    where
        Self: 'a;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        (**self).out_degree(v)
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> Self::OutNeighbors<'_> {
        (**self).out_neighbors(v)
    }
}

impl<G: InNeighbors + ?Sized> InNeighbors for &G {
    type InNeighbors<'a>
        = G::InNeighbors<'a>
    where
        Self: 'a;

    #[inline]
    fn has_in_edges(&self) -> bool {
        (**self).has_in_edges()
    }

    #[inline]
    fn in_degree(&self, v: VertexId) -> u64 {
        (**self).in_degree(v)
    }

    #[inline]
    fn in_neighbors(&self, v: VertexId) -> Self::InNeighbors<'_> {
        (**self).in_neighbors(v)
    }
}

impl<G: WeightedOutNeighbors + ?Sized> WeightedOutNeighbors for &G {
    type WeightedOutNeighbors<'a>
        = G::WeightedOutNeighbors<'a>
    where
        Self: 'a;

    #[inline]
    fn has_weights(&self) -> bool {
        (**self).has_weights()
    }

    #[inline]
    fn out_neighbors_weighted(&self, v: VertexId) -> Self::WeightedOutNeighbors<'_> {
        (**self).out_neighbors_weighted(v)
    }
}
