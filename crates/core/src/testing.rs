//! Test support: a reference adjacency model and a store-vs-model
//! comparison. Enabled by the `testing` feature; every store's tests use it.
//!
//! ```
//! use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
//! use dyngraph_core::{Csr, CsrOptions, Edge, GraphUpdate, Semantics};
//!
//! let mut model = ReferenceGraph::new(Semantics::Multigraph);
//! let edges = [Edge::new(0, 1), Edge::new(0, 1), Edge::new(3, 2)];
//! model.insert_edges(&edges).unwrap();
//! let csr = Csr::from_edges(&edges, CsrOptions::default()).unwrap();
//! compare_with_model(&csr, &model).unwrap();
//! ```

use crate::traits::{Graph, GraphUpdate, InNeighbors, OutNeighbors, WeightedOutNeighbors};
use crate::{DEFAULT_VERTEX_LIMIT, Result, Semantics, VertexId, Weight, check_limit};
use std::ops::Range;

/// The obviously-correct model: per vertex, its out-edges in insertion order
/// and its in-neighbours, in plain `Vec`s.
#[derive(Clone, Debug, Default)]
pub struct ReferenceGraph {
    semantics: Semantics,
    out: Vec<Vec<(VertexId, Weight)>>,
    incoming: Vec<Vec<VertexId>>,
    edge_count: u64,
}

impl ReferenceGraph {
    /// An empty model with the given semantics.
    pub fn new(semantics: Semantics) -> Self {
        Self {
            semantics,
            ..Self::default()
        }
    }

    fn grow(&mut self, vertex_count: usize) {
        if vertex_count > self.out.len() {
            self.out.resize_with(vertex_count, Vec::new);
            self.incoming.resize_with(vertex_count, Vec::new);
        }
    }

    /// Every edge as `(src, dst, weight)`, by source then insertion order.
    pub fn edges(&self) -> impl Iterator<Item = (VertexId, VertexId, Weight)> + '_ {
        self.out.iter().enumerate().flat_map(|(src, list)| {
            list.iter()
                .map(move |&(dst, weight)| (src as VertexId, dst, weight))
        })
    }

    /// Whether `src -> dst` exists.
    pub fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        self.out
            .get(src as usize)
            .is_some_and(|list| list.iter().any(|&(d, _)| d == dst))
    }
}

impl Graph for ReferenceGraph {
    fn vertex_count(&self) -> usize {
        self.out.len()
    }

    fn edge_count(&self) -> u64 {
        self.edge_count
    }

    fn semantics(&self) -> Semantics {
        self.semantics
    }
}

type Targets<'a> =
    std::iter::Map<std::slice::Iter<'a, (VertexId, Weight)>, fn(&(VertexId, Weight)) -> VertexId>;

impl OutNeighbors for ReferenceGraph {
    type OutNeighbors<'a> = Targets<'a>;

    fn out_degree(&self, v: VertexId) -> u64 {
        self.out[v as usize].len() as u64
    }

    fn out_neighbors(&self, v: VertexId) -> Targets<'_> {
        self.out[v as usize].iter().map(|&(d, _)| d)
    }
}

impl InNeighbors for ReferenceGraph {
    type InNeighbors<'a> = std::iter::Copied<std::slice::Iter<'a, VertexId>>;

    fn has_in_edges(&self) -> bool {
        true
    }

    fn in_degree(&self, v: VertexId) -> u64 {
        self.incoming[v as usize].len() as u64
    }

    fn in_neighbors(&self, v: VertexId) -> Self::InNeighbors<'_> {
        self.incoming[v as usize].iter().copied()
    }
}

impl WeightedOutNeighbors for ReferenceGraph {
    type WeightedOutNeighbors<'a> = std::iter::Copied<std::slice::Iter<'a, (VertexId, Weight)>>;

    fn has_weights(&self) -> bool {
        true
    }

    fn out_neighbors_weighted(&self, v: VertexId) -> Self::WeightedOutNeighbors<'_> {
        self.out[v as usize].iter().copied()
    }
}

impl GraphUpdate for ReferenceGraph {
    fn insert_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.insert_weighted_edge(src, dst, 1.0)
    }

    fn insert_weighted_edge(
        &mut self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) -> Result<bool> {
        check_limit(self.vertex_limit(), [src, dst])?;
        self.grow(src.max(dst) as usize + 1);
        if self.semantics == Semantics::Simple && self.has_edge(src, dst) {
            return Ok(false);
        }
        self.out[src as usize].push((dst, weight));
        self.incoming[dst as usize].push(src);
        self.edge_count += 1;
        Ok(true)
    }

    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        let Some(list) = self.out.get_mut(src as usize) else {
            return Ok(false);
        };
        let Some(position) = list.iter().position(|&(d, _)| d == dst) else {
            return Ok(false);
        };
        list.remove(position);
        let sources = &mut self.incoming[dst as usize];
        if let Some(position) = sources.iter().position(|&s| s == src) {
            sources.remove(position);
        }
        self.edge_count -= 1;
        Ok(true)
    }

    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        let start = self.out.len();
        let end = start + count;
        if end > self.vertex_limit() {
            return Err(crate::Error::VertexLimit {
                vertex: end as u64 - 1,
                needed: end as u64,
                limit: self.vertex_limit() as u64,
            });
        }
        self.grow(end);
        Ok(start as VertexId..end as VertexId)
    }

    fn vertex_limit(&self) -> usize {
        DEFAULT_VERTEX_LIMIT
    }
}

/// Compares a store with the model, vertex by vertex: vertex and edge
/// counts, and each out-list as a multiset (a set under simple semantics)
/// of neighbours — with weights when the store keeps them — and the in-lists
/// when the store keeps in-edges. Returns the first difference found.
pub fn compare_with_model<G>(store: &G, model: &ReferenceGraph) -> Result<(), String>
where
    G: OutNeighbors + InNeighbors + WeightedOutNeighbors,
{
    if store.vertex_count() != model.vertex_count() {
        return Err(format!(
            "vertex count: store has {}, model has {}",
            store.vertex_count(),
            model.vertex_count()
        ));
    }
    if store.edge_count() != model.edge_count() {
        return Err(format!(
            "edge count: store has {}, model has {}",
            store.edge_count(),
            model.edge_count()
        ));
    }
    for v in 0..model.vertex_count() as VertexId {
        if store.out_degree(v) != model.out_degree(v) {
            return Err(format!(
                "vertex {v}: out-degree {} in the store, {} in the model",
                store.out_degree(v),
                model.out_degree(v)
            ));
        }
        if store.has_weights() {
            let mut got: Vec<(VertexId, u32)> = store
                .out_neighbors_weighted(v)
                .map(|(d, w)| (d, w.to_bits()))
                .collect();
            let mut want: Vec<(VertexId, u32)> = model
                .out_neighbors_weighted(v)
                .map(|(d, w)| (d, w.to_bits()))
                .collect();
            got.sort_unstable();
            want.sort_unstable();
            if got != want {
                return Err(format!(
                    "vertex {v}: weighted out-edges {got:?} in the store, {want:?} in the model"
                ));
            }
        }
        let mut got: Vec<VertexId> = store.out_neighbors(v).collect();
        let mut want: Vec<VertexId> = model.out_neighbors(v).collect();
        got.sort_unstable();
        want.sort_unstable();
        if got != want {
            return Err(format!(
                "vertex {v}: out-neighbours {got:?} in the store, {want:?} in the model"
            ));
        }
        if store.has_in_edges() {
            let mut got: Vec<VertexId> = store.in_neighbors(v).collect();
            let mut want: Vec<VertexId> = model.in_neighbors(v).collect();
            got.sort_unstable();
            want.sort_unstable();
            if got != want || store.in_degree(v) != got.len() as u64 {
                return Err(format!(
                    "vertex {v}: in-neighbours {got:?} (in-degree {}) in the store, {want:?} in the model",
                    store.in_degree(v)
                ));
            }
        }
    }
    Ok(())
}
