//! petgraph's visit traits on dyngraph graphs (feature `petgraph`), so
//! `petgraph::algo` and `petgraph::dot` run on a store or a snapshot view
//! directly, without a copy: `tarjan_scc(&vcsr)`, `Dot::new(&view)`.
//!
//! petgraph's algorithms take a graph by value and need it `Copy`, so the
//! traits are implemented for a *reference* to each graph type. The orphan
//! rules let only the crate that defines a type do that, so each store
//! crate invokes [`impl_petgraph_traits!`](crate::impl_petgraph_traits)
//! for its stores and views behind its own `petgraph` feature (the facade's
//! `petgraph` feature turns them all on). In this crate: [`Csr`],
//! [`CsrView`], [`CsrRebuild`] and [`CowView`] (the snapshot view of Pcsr,
//! Bal and the durable store).
//!
//! # How dyngraph's graph looks to petgraph
//!
//! | petgraph | dyngraph |
//! |---|---|
//! | `NodeId` | the dense [`VertexId`]; `NodeIndexable` and `NodeCompactIndexable` map it to itself, `0..vertex_count()` |
//! | `NodeWeight` | the vertex id again (a vertex has no other label), so `Dot` prints `0 [ label = "0" ]` |
//! | `EdgeId` | [`EdgeId`]: `(source, position in the source's out-list)`, unique in a multigraph too, valid until the graph changes |
//! | `EdgeWeight` | `f32`: the stored weight, or `1.0` for every edge of a graph that keeps none |
//! | `GraphProp` | `Directed` |
//! | `Visitable` | a `FixedBitSet` over `0..vertex_count()` |
//! | `GetAdjacencyMatrix` | a hash set of the `(source, target)` pairs, built once: `O(E)` memory, `O(1)` lookups |
//! | `IntoNeighborsDirected` | out-neighbours; in-neighbours from the in-edges, or by a scan of every out-list when the graph keeps none (see *Incoming neighbours*) |
//!
//! `IntoEdgesDirected` is not implemented: dyngraph's in-edges carry no
//! weights, so an incoming edge reference could not give its weight
//! without scanning every in-neighbour's out-list.
//!
//! # Incoming neighbours
//!
//! `neighbors_directed(v, Incoming)` reads the in-edges when the graph
//! keeps them: `O(in-degree)`. On a graph built without them it scans
//! every out-list for `v`: `O(V + E)` per call, so what walks edges
//! backwards once per vertex — `kosaraju_scc`, `toposort`'s cycle check,
//! `has_path_connecting` over `Reversed(&g)` — costs `O(V · (V + E))`:
//! fine for thousands of vertices, hours for millions. Build the graph
//! with in-edges (`in_edges(true)`, one more `u32` per edge) for those,
//! or use `tarjan_scc`, which reads out-edges only. (An empty list would
//! be a silent wrong answer, and a panic a crash in the first program a
//! user writes with petgraph's prelude: both were worse.)
//! `tarjan_scc`, `dijkstra`, `min_spanning_tree`, `Dot`, `Bfs` and `Dfs`
//! use out-edges only and cost what they cost on petgraph's own graphs.
//!
//! # Method names
//!
//! petgraph's `IntoEdges::edges(self, v)` and [`OutNeighbors::edges`]
//! share a name: with `petgraph::visit::IntoEdges` imported, `g.edges()`
//! is ambiguous; write `OutNeighbors::edges(&g)`. petgraph's prelude
//! imports neither, and its `EdgeCount::edge_count` is on `&G`, so
//! `g.edge_count()` stays dyngraph's `u64`.
//!
//! # Example
//!
//! ```
//! use dyngraph_core::{Csr, CsrOptions, StoreConfig, WeightedEdge};
//! use petgraph::algo::{dijkstra, kosaraju_scc, tarjan_scc};
//! use petgraph::dot::Dot;
//! use petgraph::visit::EdgeRef;
//!
//! let edges = [
//!     WeightedEdge::new(0, 1, 2.0),
//!     WeightedEdge::new(1, 0, 1.0),
//!     WeightedEdge::new(1, 2, 5.0),
//! ];
//! let csr = Csr::from_edges(&edges, CsrOptions::default().in_edges(true))?;
//! let mut sccs = tarjan_scc(&csr);
//! sccs.iter_mut().for_each(|scc| scc.sort());
//! sccs.sort();
//! assert_eq!(sccs, [vec![0, 1], vec![2]]);
//! assert_eq!(kosaraju_scc(&csr).len(), 2); // walks in-edges: kept above
//!
//! let distances = dijkstra(&csr, 0, None, |e| *e.weight());
//! assert_eq!(distances[&2], 7.0);
//! assert!(format!("{}", Dot::new(&csr)).contains("1 -> 2 [ label = \"5\" ]"));
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! [`Csr`]: crate::Csr
//! [`CsrView`]: crate::CsrView
//! [`CsrRebuild`]: crate::CsrRebuild
//! [`CowView`]: crate::cow::CowView

use crate::{
    EdgeWeights, InEdges, InNeighbors, OutNeighbors, ReadGraph, VertexId, Weight, WeightedNeighbors,
};
use ::petgraph::Direction;
use ::petgraph::visit::{EdgeRef, NodeRef};
use fixedbitset::FixedBitSet;
use std::collections::HashSet;
use std::fmt;
use std::ops::Range;

/// What [`impl_petgraph_traits!`](crate::impl_petgraph_traits) expands to
/// refers to: petgraph and fixedbitset as this crate sees them, so a store
/// crate needs no dependency of its own on either.
#[doc(hidden)]
pub mod __private {
    pub use ::fixedbitset::FixedBitSet;
    pub use ::petgraph::visit::{
        Data, EdgeCount, GetAdjacencyMatrix, GraphBase, GraphProp, GraphRef, IntoEdgeReferences,
        IntoEdges, IntoNeighbors, IntoNeighborsDirected, IntoNodeIdentifiers, IntoNodeReferences,
        NodeCompactIndexable, NodeCount, NodeIndexable, Visitable,
    };
    pub use ::petgraph::{Directed, Direction};
}

/// An edge's id as petgraph sees it: `(source, position in the source's
/// out-list)`. Unique among the graph's edges, parallel edges of a
/// multigraph included; it names the same edge only while the graph does
/// not change (a snapshot view never does).
pub type EdgeId = (VertexId, u32);

/// One edge as petgraph sees it: endpoints, [`EdgeId`] and `f32` weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeReference {
    source: VertexId,
    target: VertexId,
    position: u32,
    weight: Weight,
}

impl EdgeRef for EdgeReference {
    type NodeId = VertexId;
    type EdgeId = EdgeId;
    type Weight = Weight;

    fn source(&self) -> VertexId {
        self.source
    }

    fn target(&self) -> VertexId {
        self.target
    }

    fn weight(&self) -> &Weight {
        &self.weight
    }

    fn id(&self) -> EdgeId {
        (self.source, self.position)
    }
}

/// One vertex as petgraph sees it: its id, which is also its weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeReference(VertexId);

impl NodeRef for NodeReference {
    type NodeId = VertexId;
    type Weight = VertexId;

    fn id(&self) -> VertexId {
        self.0
    }

    fn weight(&self) -> &VertexId {
        &self.0
    }
}

/// Every vertex, for `IntoNodeReferences`.
pub type NodeReferences = std::iter::Map<Range<VertexId>, fn(VertexId) -> NodeReference>;

/// The weighted out-edges iterator of graph `G`.
pub type WeightedIter<'a, G> =
    <<G as EdgeWeights>::WeightHandle<'a> as WeightedNeighbors>::WeightedIter;

/// The in-neighbours iterator of graph `G`.
pub type InIter<'a, G> = <<G as InEdges>::InHandle<'a> as InNeighbors>::InIter;

/// The out-edges of one vertex of `G`, for `IntoEdges`.
pub type Edges<'a, G> = OutEdges<WeightedIter<'a, G>, <G as OutNeighbors>::OutIter<'a>>;

/// The neighbours of one vertex of `G` in a direction, for
/// `IntoNeighborsDirected`.
pub type NeighborsDirected<'a, G> =
    DirectedNeighbors<<G as OutNeighbors>::OutIter<'a>, InIter<'a, G>>;

/// The targets of one vertex's out-edges, with their weights or without.
#[derive(Clone, Debug)]
enum Targets<W, U> {
    Weighted(W),
    Unit(U),
}

/// The out-edges of one vertex as [`EdgeReference`]s. `W` iterates the
/// stored weights, `U` the targets of a graph that keeps none (weight
/// `1.0`).
#[derive(Clone, Debug)]
pub struct OutEdges<W, U> {
    source: VertexId,
    position: u32,
    targets: Targets<W, U>,
}

impl<W, U> Iterator for OutEdges<W, U>
where
    W: Iterator<Item = (VertexId, Weight)>,
    U: Iterator<Item = VertexId>,
{
    type Item = EdgeReference;

    #[inline]
    fn next(&mut self) -> Option<EdgeReference> {
        let (target, weight) = match &mut self.targets {
            Targets::Weighted(list) => list.next()?,
            Targets::Unit(list) => (list.next()?, 1.0),
        };
        let position = self.position;
        self.position += 1;
        Some(EdgeReference {
            source: self.source,
            target,
            position,
            weight,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.targets {
            Targets::Weighted(list) => list.size_hint(),
            Targets::Unit(list) => list.size_hint(),
        }
    }
}

fn edges_with<'a, G: ReadGraph + ?Sized>(
    graph: &'a G,
    weights: Option<G::WeightHandle<'a>>,
    v: VertexId,
) -> Edges<'a, G> {
    OutEdges {
        source: v,
        position: 0,
        targets: match weights {
            Some(handle) => Targets::Weighted(handle.out_neighbors_weighted(v)),
            None => Targets::Unit(graph.out_neighbors(v)),
        },
    }
}

/// The out-edges of `v` as petgraph sees them (`IntoEdges::edges`): the
/// stored weights, or `1.0` each when `graph` keeps none.
pub fn out_edges<G: ReadGraph + ?Sized>(graph: &G, v: VertexId) -> Edges<'_, G> {
    edges_with(graph, graph.edge_weights().ok(), v)
}

/// Every edge, by source vertex (`IntoEdgeReferences`).
pub struct AllEdges<'a, G: ReadGraph + ?Sized> {
    graph: &'a G,
    weights: Option<G::WeightHandle<'a>>,
    next_vertex: VertexId,
    current: Option<Edges<'a, G>>,
}

impl<'a, G: ReadGraph + ?Sized + 'a> AllEdges<'a, G> {
    /// Every edge of `graph`.
    pub fn new(graph: &'a G) -> Self {
        AllEdges {
            graph,
            weights: graph.edge_weights().ok(),
            next_vertex: 0,
            current: None,
        }
    }
}

impl<'a, G: ReadGraph + ?Sized + 'a> Clone for AllEdges<'a, G>
where
    Edges<'a, G>: Clone,
{
    fn clone(&self) -> Self {
        AllEdges {
            graph: self.graph,
            weights: self.weights,
            next_vertex: self.next_vertex,
            current: self.current.clone(),
        }
    }
}

impl<'a, G: ReadGraph + ?Sized + 'a> fmt::Debug for AllEdges<'a, G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AllEdges")
            .field("next_vertex", &self.next_vertex)
            .field("weighted", &self.weights.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a, G: ReadGraph + ?Sized + 'a> Iterator for AllEdges<'a, G> {
    type Item = EdgeReference;

    fn next(&mut self) -> Option<EdgeReference> {
        loop {
            if let Some(edge) = self.current.as_mut().and_then(Iterator::next) {
                return Some(edge);
            }
            if self.next_vertex as usize >= self.graph.vertex_count() {
                return None;
            }
            self.current = Some(edges_with(self.graph, self.weights, self.next_vertex));
            self.next_vertex += 1;
        }
    }
}

/// Out- or in-neighbours, for `IntoNeighborsDirected`.
#[derive(Clone, Debug)]
pub enum DirectedNeighbors<O, I> {
    /// Out-neighbours.
    Outgoing(O),
    /// In-neighbours, from the graph's in-edges.
    Incoming(I),
    /// In-neighbours found by scanning every out-list (a graph without
    /// in-edges; module docs for the cost).
    Scanned(std::vec::IntoIter<VertexId>),
}

impl<O: Iterator<Item = VertexId>, I: Iterator<Item = VertexId>> Iterator
    for DirectedNeighbors<O, I>
{
    type Item = VertexId;

    #[inline]
    fn next(&mut self) -> Option<VertexId> {
        match self {
            DirectedNeighbors::Outgoing(list) => list.next(),
            DirectedNeighbors::Incoming(list) => list.next(),
            DirectedNeighbors::Scanned(list) => list.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            DirectedNeighbors::Outgoing(list) => list.size_hint(),
            DirectedNeighbors::Incoming(list) => list.size_hint(),
            DirectedNeighbors::Scanned(list) => list.size_hint(),
        }
    }
}

/// The neighbours of `v` in direction `d` (`IntoNeighborsDirected`).
/// `Incoming` on a graph built without in-edges scans every out-list:
/// `O(V + E)` per call (module docs).
pub fn neighbors_directed<G: ReadGraph + ?Sized>(
    graph: &G,
    v: VertexId,
    d: Direction,
) -> NeighborsDirected<'_, G> {
    match d {
        Direction::Outgoing => DirectedNeighbors::Outgoing(graph.out_neighbors(v)),
        Direction::Incoming => match graph.in_edges() {
            Ok(incoming) => DirectedNeighbors::Incoming(incoming.in_neighbors(v)),
            Err(_) => DirectedNeighbors::Scanned(scan_in_neighbors(graph, v)),
        },
    }
}

/// Every `u` with an edge `u → v`, once per edge, by source: what an
/// in-list holds, found without one.
fn scan_in_neighbors<G: ReadGraph + ?Sized>(
    graph: &G,
    v: VertexId,
) -> std::vec::IntoIter<VertexId> {
    let mut sources = Vec::new();
    for u in node_identifiers(graph) {
        sources.extend(graph.out_neighbors(u).filter(|&w| w == v).map(|_| u));
    }
    sources.into_iter()
}

/// Every vertex id, `0..vertex_count()` (`IntoNodeIdentifiers`).
pub fn node_identifiers<G: ReadGraph + ?Sized>(graph: &G) -> Range<VertexId> {
    0..graph.vertex_count() as VertexId
}

/// Every vertex with its id as its weight (`IntoNodeReferences`).
pub fn node_references<G: ReadGraph + ?Sized>(graph: &G) -> NodeReferences {
    node_identifiers(graph).map(NodeReference as fn(VertexId) -> NodeReference)
}

/// A visit map sized for `graph` (`Visitable::visit_map`).
pub fn visit_map<G: ReadGraph + ?Sized>(graph: &G) -> FixedBitSet {
    FixedBitSet::with_capacity(graph.vertex_count())
}

/// Clears `map` and sizes it for `graph` (`Visitable::reset_map`).
pub fn reset_map<G: ReadGraph + ?Sized>(graph: &G, map: &mut FixedBitSet) {
    map.clear();
    map.grow(graph.vertex_count());
}

/// Every `(source, target)` pair of `graph`, for
/// `GetAdjacencyMatrix::adjacency_matrix`: `O(E)` to build, `O(1)` to ask.
pub fn adjacency_matrix<G: ReadGraph + ?Sized>(graph: &G) -> HashSet<(VertexId, VertexId)> {
    let mut pairs = HashSet::with_capacity(graph.edge_count() as usize);
    for v in node_identifiers(graph) {
        pairs.extend(graph.out_neighbors(v).map(|d| (v, d)));
    }
    pairs
}

/// Implements petgraph's visit traits for `&'_ T`, for a graph type `T`
/// of the read traits ([`ReadGraph`](crate::ReadGraph)), as the
/// [module docs](crate::petgraph) describe.
///
/// Invoke it in the crate that defines `T` (the orphan rules allow no
/// other), behind that crate's `petgraph` feature, which turns on
/// `dyngraph-core/petgraph`; the crate needs no petgraph dependency of its
/// own. Generic parameters go in brackets before the type, lifetimes first:
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge, Graph, OutNeighbors, Result, Semantics};
/// # use dyngraph_core::{EdgeWeights, InEdges, VertexId};
///
/// /// A store of one's own, here a `Csr` inside.
/// struct MyStore(Csr);
/// # impl Graph for MyStore {
/// #     fn vertex_count(&self) -> usize { self.0.vertex_count() }
/// #     fn edge_count(&self) -> u64 { self.0.edge_count() }
/// #     fn semantics(&self) -> Semantics { self.0.semantics() }
/// # }
/// # impl OutNeighbors for MyStore {
/// #     type OutIter<'a> = <Csr as OutNeighbors>::OutIter<'a>;
/// #     fn out_degree(&self, v: VertexId) -> u64 { self.0.out_degree(v) }
/// #     fn out_neighbors(&self, v: VertexId) -> Self::OutIter<'_> { self.0.out_neighbors(v) }
/// # }
/// # impl InEdges for MyStore {
/// #     type InHandle<'a> = <Csr as InEdges>::InHandle<'a>;
/// #     fn in_edges(&self) -> Result<Self::InHandle<'_>> { self.0.in_edges() }
/// # }
/// # impl EdgeWeights for MyStore {
/// #     type WeightHandle<'a> = <Csr as EdgeWeights>::WeightHandle<'a>;
/// #     fn edge_weights(&self) -> Result<Self::WeightHandle<'_>> { self.0.edge_weights() }
/// # }
/// // ... implementing Graph, OutNeighbors, InEdges and EdgeWeights ...
///
/// dyngraph_core::impl_petgraph_traits!(MyStore);
/// // A generic type: parameters in brackets, lifetimes first, e.g.
/// // impl_petgraph_traits!(['v, P: GapPolicy + Clone] VcsrView<'v, P>);
///
/// let store = MyStore(Csr::from_edges(&[Edge::new(0, 1), Edge::new(1, 0)], CsrOptions::default())?);
/// assert_eq!(petgraph::algo::tarjan_scc(&store), [vec![1, 0]]);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
///
/// Implemented: `GraphBase`, `GraphRef`, `Data`, `GraphProp`, `NodeCount`,
/// `EdgeCount`, `NodeIndexable`, `NodeCompactIndexable`, `Visitable`,
/// `GetAdjacencyMatrix`, `IntoNeighbors`, `IntoNeighborsDirected`,
/// `IntoEdgeReferences`, `IntoEdges`, `IntoNodeIdentifiers`,
/// `IntoNodeReferences`.
#[macro_export]
macro_rules! impl_petgraph_traits {
    ([$($generics:tt)*] $graph:ty) => {
        const _: () = {
            use $crate::petgraph as __support;
            use $crate::petgraph::__private as __pg;

            impl<'__pg, $($generics)*> __pg::GraphBase for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                type NodeId = $crate::VertexId;
                type EdgeId = __support::EdgeId;
            }

            impl<'__pg, $($generics)*> __pg::GraphRef for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
            }

            impl<'__pg, $($generics)*> __pg::Data for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                type NodeWeight = $crate::VertexId;
                type EdgeWeight = $crate::Weight;
            }

            impl<'__pg, $($generics)*> __pg::GraphProp for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                type EdgeType = __pg::Directed;
            }

            impl<'__pg, $($generics)*> __pg::NodeCount for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                fn node_count(&self) -> usize {
                    $crate::Graph::vertex_count(*self)
                }
            }

            impl<'__pg, $($generics)*> __pg::EdgeCount for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                fn edge_count(&self) -> usize {
                    $crate::Graph::edge_count(*self) as usize
                }
            }

            impl<'__pg, $($generics)*> __pg::NodeIndexable for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                fn node_bound(&self) -> usize {
                    $crate::Graph::vertex_count(*self)
                }

                fn to_index(&self, a: $crate::VertexId) -> usize {
                    a as usize
                }

                fn from_index(&self, i: usize) -> $crate::VertexId {
                    i as $crate::VertexId
                }
            }

            impl<'__pg, $($generics)*> __pg::NodeCompactIndexable for &'__pg $graph where
                $graph: $crate::ReadGraph
            {
            }

            impl<'__pg, $($generics)*> __pg::Visitable for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                type Map = __pg::FixedBitSet;

                fn visit_map(&self) -> __pg::FixedBitSet {
                    __support::visit_map(*self)
                }

                fn reset_map(&self, map: &mut __pg::FixedBitSet) {
                    __support::reset_map(*self, map)
                }
            }

            impl<'__pg, $($generics)*> __pg::GetAdjacencyMatrix for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                type AdjMatrix = ::std::collections::HashSet<($crate::VertexId, $crate::VertexId)>;

                fn adjacency_matrix(&self) -> Self::AdjMatrix {
                    __support::adjacency_matrix(*self)
                }

                fn is_adjacent(
                    &self,
                    matrix: &Self::AdjMatrix,
                    a: $crate::VertexId,
                    b: $crate::VertexId,
                ) -> bool {
                    matrix.contains(&(a, b))
                }
            }

            impl<'__pg, $($generics)*> __pg::IntoNeighbors for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                type Neighbors = <$graph as $crate::OutNeighbors>::OutIter<'__pg>;

                fn neighbors(self, a: $crate::VertexId) -> Self::Neighbors {
                    $crate::OutNeighbors::out_neighbors(self, a)
                }
            }

            impl<'__pg, $($generics)*> __pg::IntoNeighborsDirected for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                type NeighborsDirected = __support::NeighborsDirected<'__pg, $graph>;

                fn neighbors_directed(
                    self,
                    n: $crate::VertexId,
                    d: __pg::Direction,
                ) -> Self::NeighborsDirected {
                    __support::neighbors_directed(self, n, d)
                }
            }

            impl<'__pg, $($generics)*> __pg::IntoEdgeReferences for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                type EdgeRef = __support::EdgeReference;
                type EdgeReferences = __support::AllEdges<'__pg, $graph>;

                fn edge_references(self) -> Self::EdgeReferences {
                    __support::AllEdges::new(self)
                }
            }

            impl<'__pg, $($generics)*> __pg::IntoEdges for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                type Edges = __support::Edges<'__pg, $graph>;

                fn edges(self, a: $crate::VertexId) -> Self::Edges {
                    __support::out_edges(self, a)
                }
            }

            impl<'__pg, $($generics)*> __pg::IntoNodeIdentifiers for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                type NodeIdentifiers = ::std::ops::Range<$crate::VertexId>;

                fn node_identifiers(self) -> Self::NodeIdentifiers {
                    __support::node_identifiers(self)
                }
            }

            impl<'__pg, $($generics)*> __pg::IntoNodeReferences for &'__pg $graph
            where
                $graph: $crate::ReadGraph,
            {
                type NodeRef = __support::NodeReference;
                type NodeReferences = __support::NodeReferences;

                fn node_references(self) -> Self::NodeReferences {
                    __support::node_references(self)
                }
            }
        };
    };
    ($graph:ty) => {
        $crate::impl_petgraph_traits!([] $graph);
    };
}

crate::impl_petgraph_traits!(crate::Csr);
crate::impl_petgraph_traits!(['v] crate::CsrView<'v>);
crate::impl_petgraph_traits!(crate::CsrRebuild);
crate::impl_petgraph_traits!(['v, G: ReadGraph + ?Sized] crate::cow::CowView<'v, G>);
crate::impl_petgraph_traits!([S: ReadGraph] crate::Keyed<S>);
