//! petgraph's algorithms on dyngraph graphs, without copying, and
//! conversions both ways (feature `petgraph`).
//!
//! [`PetgraphView`] wraps any graph of the read traits — `Csr`, a store,
//! or a store's snapshot view — and implements petgraph's visit traits
//! (`GraphBase`, `IntoNeighbors`, `IntoEdges`, `IntoEdgeReferences`,
//! `IntoNodeIdentifiers`, `NodeIndexable`, `NodeCount`, `Visitable`, ...),
//! so `petgraph::algo::{tarjan_scc, kosaraju_scc, dijkstra, toposort,
//! astar, ...}` run on it directly. Node ids are the dense `u32` vertex
//! ids; petgraph's `FixedBitSet` is the visit map.
//!
//! Capabilities stay explicit: [`PetgraphView::new`] offers out-edges and
//! no edge weights (`EdgeWeight = ()`); [`PetgraphView::with_weights`] and
//! [`PetgraphView::with_in_edges`] ask the graph for them and fail with
//! `Error::MissingCapability` if it was built without. Only a view with
//! in-edges implements `IntoNeighborsDirected` (`toposort`, Kosaraju).
//!
//! ```
//! use dyngraph::prelude::*;
//! use dyngraph::petgraph::PetgraphView;
//! use petgraph::algo::{dijkstra, tarjan_scc};
//!
//! let edges = [
//!     WeightedEdge::new(0, 1, 2.0),
//!     WeightedEdge::new(1, 0, 1.0),
//!     WeightedEdge::new(1, 2, 5.0),
//! ];
//! let csr = Csr::from_edges(&edges, CsrOptions::default())?;
//! let view = PetgraphView::new(&csr);
//! let mut sccs = tarjan_scc(view);
//! sccs.iter_mut().for_each(|scc| scc.sort());
//! sccs.sort();
//! assert_eq!(sccs, [vec![0, 1], vec![2]]);
//!
//! let weighted = PetgraphView::new(&csr).with_weights()?;
//! let distances = dijkstra(weighted, 0, None, |e| *petgraph::visit::EdgeRef::weight(&e));
//! assert_eq!(distances[&2], 7.0);
//! # Ok::<(), dyngraph::Error>(())
//! ```

use ::petgraph::Direction;
use ::petgraph::visit::{
    Data, EdgeRef, GraphBase, GraphProp, GraphRef, IntoEdgeReferences, IntoEdges, IntoNeighbors,
    IntoNeighborsDirected, IntoNodeIdentifiers, NodeCompactIndexable, NodeCount, NodeIndexable,
    Visitable,
};
use dyngraph_core::{
    EdgeSource, EdgeWeights, InEdges, InNeighbors, OutNeighbors, Result, VertexId, Weight,
    WeightedEdge, WeightedNeighbors,
};
use fixedbitset::FixedBitSet;
use std::fmt;
use std::ops::Range;

/// No in-edges in a [`PetgraphView`].
#[derive(Clone, Copy, Debug, Default)]
pub struct NoInEdges;

/// No edge weights in a [`PetgraphView`] (`EdgeWeight = ()`).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoWeights;

/// The stored edge weights in a [`PetgraphView`] (`EdgeWeight = f32`).
#[derive(Clone, Copy, Debug)]
pub struct Weights<H>(H);

/// A dyngraph graph seen through petgraph's visit traits. `I` is the
/// in-edge handle ([`NoInEdges`] or the graph's), `W` the weight mode
/// ([`NoWeights`] or [`Weights`]). `Copy`: petgraph passes graphs by value.
pub struct PetgraphView<'a, G: ?Sized, I = NoInEdges, W = NoWeights> {
    graph: &'a G,
    incoming: I,
    weights: W,
}

impl<G: ?Sized, I: Copy, W: Copy> Clone for PetgraphView<'_, G, I, W> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: ?Sized, I: Copy, W: Copy> Copy for PetgraphView<'_, G, I, W> {}

impl<G: ?Sized, I, W> fmt::Debug for PetgraphView<'_, G, I, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PetgraphView").finish_non_exhaustive()
    }
}

impl<'a, G: OutNeighbors + ?Sized> PetgraphView<'a, G> {
    /// Out-edges only, no weights.
    pub fn new(graph: &'a G) -> Self {
        PetgraphView {
            graph,
            incoming: NoInEdges,
            weights: NoWeights,
        }
    }
}

impl<'a, G: OutNeighbors + ?Sized, I: Copy, W: Copy> PetgraphView<'a, G, I, W> {
    /// The same view with the graph's in-edges (`IntoNeighborsDirected`),
    /// or `Error::MissingCapability`.
    pub fn with_in_edges(self) -> Result<PetgraphView<'a, G, G::InHandle<'a>, W>>
    where
        G: InEdges,
    {
        Ok(PetgraphView {
            graph: self.graph,
            incoming: self.graph.in_edges()?,
            weights: self.weights,
        })
    }

    /// The same view with the graph's edge weights (`EdgeWeight = f32`),
    /// or `Error::MissingCapability`.
    pub fn with_weights(self) -> Result<PetgraphView<'a, G, I, Weights<G::WeightHandle<'a>>>>
    where
        G: EdgeWeights,
    {
        Ok(PetgraphView {
            graph: self.graph,
            incoming: self.incoming,
            weights: Weights(self.graph.edge_weights()?),
        })
    }

    /// The wrapped graph.
    pub fn graph(&self) -> &'a G {
        self.graph
    }
}

/// How a [`PetgraphView`] lists a vertex's edges with their weights.
pub trait WeightMode<'a, G: OutNeighbors + ?Sized + 'a>: Copy {
    /// The edge weight petgraph sees.
    type Weight: Copy;
    /// `(target, weight)` of one vertex.
    type Edges: Iterator<Item = (VertexId, Self::Weight)>;
    /// The out-edges of `v` with their weights.
    fn out_edges(self, graph: &'a G, v: VertexId) -> Self::Edges;
}

impl<'a, G: OutNeighbors + ?Sized + 'a> WeightMode<'a, G> for NoWeights {
    type Weight = ();
    type Edges = std::iter::Map<G::OutIter<'a>, fn(VertexId) -> (VertexId, ())>;

    fn out_edges(self, graph: &'a G, v: VertexId) -> Self::Edges {
        graph.out_neighbors(v).map(|d| (d, ()))
    }
}

impl<'a, G: OutNeighbors + ?Sized + 'a, H: WeightedNeighbors> WeightMode<'a, G> for Weights<H> {
    type Weight = Weight;
    type Edges = H::WeightedIter;

    fn out_edges(self, _: &'a G, v: VertexId) -> Self::Edges {
        self.0.out_neighbors_weighted(v)
    }
}

/// One edge as petgraph sees it. Its id is `(source, position in the
/// source's list)`, unique in a multigraph too.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeReference<W> {
    source: VertexId,
    target: VertexId,
    position: u32,
    weight: W,
}

impl<W: Copy> EdgeRef for EdgeReference<W> {
    type NodeId = VertexId;
    type EdgeId = (VertexId, u32);
    type Weight = W;

    fn source(&self) -> VertexId {
        self.source
    }

    fn target(&self) -> VertexId {
        self.target
    }

    fn weight(&self) -> &W {
        &self.weight
    }

    fn id(&self) -> (VertexId, u32) {
        (self.source, self.position)
    }
}

/// The out-edges of one vertex.
#[derive(Clone, Debug)]
pub struct VertexEdges<E> {
    source: VertexId,
    position: u32,
    edges: E,
}

impl<W, E: Iterator<Item = (VertexId, W)>> Iterator for VertexEdges<E> {
    type Item = EdgeReference<W>;

    fn next(&mut self) -> Option<EdgeReference<W>> {
        let (target, weight) = self.edges.next()?;
        let position = self.position;
        self.position += 1;
        Some(EdgeReference {
            source: self.source,
            target,
            position,
            weight,
        })
    }
}

/// Every edge, by source.
pub struct AllEdges<'a, G: OutNeighbors + ?Sized, W: WeightMode<'a, G>> {
    graph: &'a G,
    weights: W,
    next_vertex: usize,
    current: Option<VertexEdges<W::Edges>>,
}

impl<'a, G: OutNeighbors + ?Sized, W: WeightMode<'a, G>> fmt::Debug for AllEdges<'a, G, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AllEdges")
            .field("next_vertex", &self.next_vertex)
            .finish_non_exhaustive()
    }
}

impl<'a, G: OutNeighbors + ?Sized, W: WeightMode<'a, G>> Iterator for AllEdges<'a, G, W> {
    type Item = EdgeReference<W::Weight>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(edges) = &mut self.current
                && let Some(edge) = edges.next()
            {
                return Some(edge);
            }
            if self.next_vertex >= self.graph.vertex_count() {
                return None;
            }
            let v = self.next_vertex as VertexId;
            self.current = Some(VertexEdges {
                source: v,
                position: 0,
                edges: self.weights.out_edges(self.graph, v),
            });
            self.next_vertex += 1;
        }
    }
}

impl<G: ?Sized, I, W> GraphBase for PetgraphView<'_, G, I, W> {
    type NodeId = VertexId;
    type EdgeId = (VertexId, u32);
}

impl<G: ?Sized, I: Copy, W: Copy> GraphRef for PetgraphView<'_, G, I, W> {}

impl<'a, G: OutNeighbors + ?Sized, I, W: WeightMode<'a, G>> Data for PetgraphView<'a, G, I, W> {
    type NodeWeight = ();
    type EdgeWeight = W::Weight;
}

impl<G: ?Sized, I, W> GraphProp for PetgraphView<'_, G, I, W> {
    type EdgeType = ::petgraph::Directed;
}

impl<G: OutNeighbors + ?Sized, I, W> NodeCount for PetgraphView<'_, G, I, W> {
    fn node_count(&self) -> usize {
        self.graph.vertex_count()
    }
}

impl<G: OutNeighbors + ?Sized, I, W> NodeIndexable for PetgraphView<'_, G, I, W> {
    fn node_bound(&self) -> usize {
        self.graph.vertex_count()
    }

    fn to_index(&self, a: VertexId) -> usize {
        a as usize
    }

    fn from_index(&self, i: usize) -> VertexId {
        i as VertexId
    }
}

impl<G: OutNeighbors + ?Sized, I, W> NodeCompactIndexable for PetgraphView<'_, G, I, W> {}

impl<G: OutNeighbors + ?Sized, I, W> Visitable for PetgraphView<'_, G, I, W> {
    type Map = FixedBitSet;

    fn visit_map(&self) -> FixedBitSet {
        FixedBitSet::with_capacity(self.graph.vertex_count())
    }

    fn reset_map(&self, map: &mut FixedBitSet) {
        map.clear();
        map.grow(self.graph.vertex_count());
    }
}

impl<'a, G: OutNeighbors + ?Sized, I: Copy, W: Copy> IntoNodeIdentifiers
    for PetgraphView<'a, G, I, W>
{
    type NodeIdentifiers = Range<VertexId>;

    fn node_identifiers(self) -> Range<VertexId> {
        0..self.graph.vertex_count() as VertexId
    }
}

impl<'a, G: OutNeighbors + ?Sized, I: Copy, W: Copy> IntoNeighbors for PetgraphView<'a, G, I, W> {
    type Neighbors = G::OutIter<'a>;

    fn neighbors(self, a: VertexId) -> G::OutIter<'a> {
        self.graph.out_neighbors(a)
    }
}

/// Out- or in-neighbours, for `IntoNeighborsDirected`.
#[derive(Clone, Debug)]
pub enum DirectedNeighbors<O, I> {
    /// Out-neighbours.
    Outgoing(O),
    /// In-neighbours.
    Incoming(I),
}

impl<O: Iterator<Item = VertexId>, I: Iterator<Item = VertexId>> Iterator
    for DirectedNeighbors<O, I>
{
    type Item = VertexId;

    fn next(&mut self) -> Option<VertexId> {
        match self {
            DirectedNeighbors::Outgoing(o) => o.next(),
            DirectedNeighbors::Incoming(i) => i.next(),
        }
    }
}

impl<'a, G: OutNeighbors + ?Sized, H: InNeighbors, W: Copy> IntoNeighborsDirected
    for PetgraphView<'a, G, H, W>
{
    type NeighborsDirected = DirectedNeighbors<G::OutIter<'a>, H::InIter>;

    fn neighbors_directed(self, n: VertexId, d: Direction) -> Self::NeighborsDirected {
        match d {
            Direction::Outgoing => DirectedNeighbors::Outgoing(self.graph.out_neighbors(n)),
            Direction::Incoming => DirectedNeighbors::Incoming(self.incoming.in_neighbors(n)),
        }
    }
}

impl<'a, G: OutNeighbors + ?Sized, I: Copy, W: WeightMode<'a, G>> IntoEdgeReferences
    for PetgraphView<'a, G, I, W>
{
    type EdgeRef = EdgeReference<W::Weight>;
    type EdgeReferences = AllEdges<'a, G, W>;

    fn edge_references(self) -> AllEdges<'a, G, W> {
        AllEdges {
            graph: self.graph,
            weights: self.weights,
            next_vertex: 0,
            current: None,
        }
    }
}

impl<'a, G: OutNeighbors + ?Sized, I: Copy, W: WeightMode<'a, G>> IntoEdges
    for PetgraphView<'a, G, I, W>
{
    type Edges = VertexEdges<W::Edges>;

    fn edges(self, a: VertexId) -> Self::Edges {
        VertexEdges {
            source: a,
            position: 0,
            edges: self.weights.out_edges(self.graph, a),
        }
    }
}

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
