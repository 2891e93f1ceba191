//! petgraph's algorithms on dyngraph graphs, without copying, and
//! conversions both ways (feature `petgraph`).
//!
//! With this feature, a reference to every store and snapshot view —
//! `&Csr`, `&CsrView`, `&CsrRebuild`, `&Vcsr`, `&Pcsr`, `&Bal`, `&CsrPP`,
//! `&DurableVcsr` and their views — implements petgraph's visit traits
//! (`GraphBase`, `Data`, `NodeIndexable`, `NodeCompactIndexable`,
//! `NodeCount`, `EdgeCount`, `Visitable`, `GetAdjacencyMatrix`,
//! `IntoNeighbors`, `IntoNeighborsDirected`, `IntoEdges`,
//! `IntoEdgeReferences`, `IntoNodeIdentifiers`, `IntoNodeReferences`), so
//! `petgraph::algo::{tarjan_scc, kosaraju_scc, dijkstra, toposort,
//! min_spanning_tree, ...}` and `petgraph::dot::Dot` take it directly.
//!
//! - Node ids are the dense `u32` vertex ids; a node's weight is its id.
//! - Edge weights are `f32`: the stored ones, or `1.0` each on a graph
//!   built without weights. An edge's id is [`EdgeId`]
//!   `(source, position in the source's out-list)`.
//! - Incoming neighbours (`kosaraju_scc`, `toposort`, `Reversed`) come
//!   from the in-edges when the graph keeps them; on a graph built without
//!   them each call scans every out-list, `O(V + E)`, so those algorithms
//!   cost `O(V · (V + E))` there: build with in-edges beyond a few
//!   thousand vertices, or use `tarjan_scc`.
//!
//! `dyngraph_core::petgraph` has the full mapping; a store type of one's
//! own gets the traits with [`impl_petgraph_traits!`].
//!
//! ```
//! use dyngraph::core::StoreOptions;
//! use dyngraph::prelude::*;
//! use dyngraph::vcsr::VcsrOptions;
//! use petgraph::algo::{dijkstra, kosaraju_scc, min_spanning_tree, tarjan_scc};
//! use petgraph::data::FromElements;
//! use petgraph::dot::Dot;
//! use petgraph::visit::EdgeRef;
//!
//! let edges = [
//!     WeightedEdge::new(0, 1, 2.0),
//!     WeightedEdge::new(1, 0, 1.0),
//!     WeightedEdge::new(1, 2, 5.0),
//! ];
//! let options = VcsrOptions::from(StoreOptions::default().in_edges(true).weighted(true));
//! let vcsr: Vcsr = Vcsr::from_edges(&edges, options)?;
//! assert_eq!(tarjan_scc(&vcsr).len(), 2);
//! assert_eq!(kosaraju_scc(&vcsr).len(), 2);
//! assert_eq!(dijkstra(&vcsr, 0, None, |e| *e.weight())[&2], 7.0);
//! let tree = petgraph::Graph::<u32, f32>::from_elements(min_spanning_tree(&vcsr));
//! assert_eq!(tree.edge_weights().sum::<f32>(), 6.0);
//! println!("{}", Dot::new(&vcsr));
//!
//! // A snapshot view too, while the store changes.
//! let snapshot = vcsr.snapshot();
//! let mut vcsr = vcsr;
//! vcsr.insert_edge(2, 0)?;
//! let view = vcsr.view(&snapshot)?;
//! assert_eq!((tarjan_scc(&view).len(), tarjan_scc(&vcsr).len()), (2, 1));
//! # Ok::<(), dyngraph::Error>(())
//! ```

use dyngraph_core::{
    EdgeSource, EdgeWeights, OutNeighbors, Result, VertexId, Weight, WeightedEdge,
    WeightedNeighbors,
};
use std::fmt;

pub use dyngraph_core::impl_petgraph_traits;
pub use dyngraph_core::petgraph::{
    AllEdges, DirectedNeighbors, EdgeId, EdgeReference, NodeReference, OutEdges,
};
/// petgraph's algorithms, visit traits, element builders and DOT output,
/// so a program needs no petgraph dependency of its own to run them.
pub use petgraph::{algo, data, dot, visit};

/// A `petgraph::Graph` with `u32` indices read as an [`EdgeSource`], in
/// place: build any dyngraph store from it with `FromEdges::from_edges`.
/// Edge weights are read through `weight` (or not at all with
/// [`PetgraphEdges::unweighted`]).
pub struct PetgraphEdges<'a, N, E, Ty: ::petgraph::EdgeType> {
    graph: &'a ::petgraph::Graph<N, E, Ty, u32>,
    weight: Option<fn(&E) -> Weight>,
}

impl<N, E, Ty: ::petgraph::EdgeType> fmt::Debug for PetgraphEdges<'_, N, E, Ty> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PetgraphEdges")
            .field("edges", &self.graph.edge_count())
            .field("weighted", &self.weight.is_some())
            .finish()
    }
}

impl<'a, N, E, Ty: ::petgraph::EdgeType> PetgraphEdges<'a, N, E, Ty> {
    /// The graph's edges without weights.
    pub fn unweighted(graph: &'a ::petgraph::Graph<N, E, Ty, u32>) -> Self {
        PetgraphEdges {
            graph,
            weight: None,
        }
    }

    /// The graph's edges with `weight(&edge_weight)` as their weight.
    pub fn weighted(graph: &'a ::petgraph::Graph<N, E, Ty, u32>, weight: fn(&E) -> Weight) -> Self {
        PetgraphEdges {
            graph,
            weight: Some(weight),
        }
    }
}

impl<N: Sync, E: Sync, Ty: ::petgraph::EdgeType + Sync> EdgeSource for PetgraphEdges<'_, N, E, Ty> {
    fn len(&self) -> usize {
        self.graph.edge_count()
    }

    fn is_weighted(&self) -> bool {
        self.weight.is_some()
    }

    /// Isolated nodes count too.
    fn declared_vertex_count(&self) -> Option<usize> {
        Some(self.graph.node_count())
    }

    fn edge(&self, i: usize) -> WeightedEdge {
        let edge = &self.graph.raw_edges()[i];
        WeightedEdge::new(
            edge.source().index() as VertexId,
            edge.target().index() as VertexId,
            self.weight.map_or(1.0, |w| w(&edge.weight)),
        )
    }
}

/// Copies any graph into a `petgraph::Graph` without weights, vertex ids
/// as node indices.
pub fn to_petgraph<G: OutNeighbors + ?Sized>(
    graph: &G,
) -> ::petgraph::Graph<(), (), ::petgraph::Directed, u32> {
    let mut out =
        ::petgraph::Graph::with_capacity(graph.vertex_count(), graph.edge_count() as usize);
    for _ in 0..graph.vertex_count() {
        out.add_node(());
    }
    for v in 0..graph.vertex_count() as VertexId {
        for d in graph.out_neighbors(v) {
            out.add_edge(v.into(), d.into(), ());
        }
    }
    out
}

/// Copies any weighted graph into a `petgraph::Graph` with its `f32`
/// weights; `Error::MissingCapability` if it keeps none.
pub fn to_petgraph_weighted<G: EdgeWeights + ?Sized>(
    graph: &G,
) -> Result<::petgraph::Graph<(), Weight, ::petgraph::Directed, u32>> {
    let weights = graph.edge_weights()?;
    let mut out =
        ::petgraph::Graph::with_capacity(graph.vertex_count(), graph.edge_count() as usize);
    for _ in 0..graph.vertex_count() {
        out.add_node(());
    }
    for v in 0..graph.vertex_count() as VertexId {
        for (d, w) in weights.out_neighbors_weighted(v) {
            out.add_edge(v.into(), d.into(), w);
        }
    }
    Ok(out)
}
