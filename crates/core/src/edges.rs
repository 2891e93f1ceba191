//! Whole-graph edge iteration and the parallel freeze into a [`Csr`], written
//! once over the read traits for every store.

use crate::traits::{EdgeWeights, OutNeighbors, ReadGraph, WeightedNeighbors};
use crate::{Csr, Edge, Error, Result, VertexId, Weight, WeightedEdge};
use rayon::prelude::*;
use std::fmt;

/// Every edge of a graph, by source vertex: [`OutNeighbors::edges`].
pub struct Edges<'a, G: OutNeighbors + ?Sized> {
    graph: &'a G,
    next_vertex: usize,
    current: Option<(VertexId, G::OutIter<'a>)>,
}

impl<'a, G: OutNeighbors + ?Sized> Edges<'a, G> {
    pub(crate) fn new(graph: &'a G) -> Self {
        Self {
            graph,
            next_vertex: 0,
            current: None,
        }
    }
}

impl<G: OutNeighbors + ?Sized> fmt::Debug for Edges<'_, G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Edges")
            .field("next_vertex", &self.next_vertex)
            .finish_non_exhaustive()
    }
}

impl<G: OutNeighbors + ?Sized> Iterator for Edges<'_, G> {
    type Item = Edge;

    #[inline]
    fn next(&mut self) -> Option<Edge> {
        loop {
            if let Some((v, neighbors)) = &mut self.current
                && let Some(d) = neighbors.next()
            {
                return Some(Edge::new(*v, d));
            }
            if self.next_vertex >= self.graph.vertex_count() {
                self.current = None;
                return None;
            }
            let v = self.next_vertex as VertexId;
            self.current = Some((v, self.graph.out_neighbors(v)));
            self.next_vertex += 1;
        }
    }
}

/// Every edge with its weight, by source vertex:
/// [`EdgeWeights::weighted_edges`].
pub struct WeightedEdges<'a, G: EdgeWeights + ?Sized> {
    graph: &'a G,
    weights: G::WeightHandle<'a>,
    next_vertex: usize,
    current: Option<(
        VertexId,
        <G::WeightHandle<'a> as WeightedNeighbors>::WeightedIter,
    )>,
}

impl<'a, G: EdgeWeights + ?Sized> WeightedEdges<'a, G> {
    pub(crate) fn new(graph: &'a G, weights: G::WeightHandle<'a>) -> Self {
        Self {
            graph,
            weights,
            next_vertex: 0,
            current: None,
        }
    }
}

impl<G: EdgeWeights + ?Sized> fmt::Debug for WeightedEdges<'_, G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeightedEdges")
            .field("next_vertex", &self.next_vertex)
            .finish_non_exhaustive()
    }
}

impl<G: EdgeWeights + ?Sized> Iterator for WeightedEdges<'_, G> {
    type Item = WeightedEdge;

    #[inline]
    fn next(&mut self) -> Option<WeightedEdge> {
        loop {
            if let Some((v, neighbors)) = &mut self.current
                && let Some((d, w)) = neighbors.next()
            {
                return Some(WeightedEdge::new(*v, d, w));
            }
            if self.next_vertex >= self.graph.vertex_count() {
                self.current = None;
                return None;
            }
            let v = self.next_vertex as VertexId;
            self.current = Some((v, self.weights.out_neighbors_weighted(v)));
            self.next_vertex += 1;
        }
    }
}

impl Csr {
    /// Freezes any graph into a `Csr`, in parallel: each vertex's out-edges
    /// in the graph's order, weights when [`EdgeWeights::edge_weights`]
    /// answers, and the in-edges (transposed from the out-edges, so each
    /// in-list is sorted by source) when the graph keeps in-edges.
    ///
    /// Costs one pass over the degrees and one over the edges, split into
    /// ranges of vertices holding equal numbers of edges; the result's
    /// arrays are allocated once at their final size. A graph whose
    /// iterators disagree with its degrees is an
    /// [`Error::InvalidStructure`], not a panic.
    pub fn from_graph<G: ReadGraph + ?Sized>(graph: &G) -> Result<Csr> {
        let n = graph.vertex_count();
        let degrees: Vec<u64> = (0..n)
            .into_par_iter()
            .with_min_len(1 << 12)
            .map(|v| graph.out_degree(v as VertexId))
            .collect();
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0u64);
        let mut total = 0u64;
        for &d in &degrees {
            total += d;
            offsets.push(total);
        }
        drop(degrees);
        let m = total as usize;
        let mut targets = vec![0 as VertexId; m];
        let weights_handle = graph.edge_weights().ok();
        let mut weights = weights_handle.map(|_| vec![0 as Weight; m]);

        // Ranges of vertices with about equal edges, several per thread.
        let parts = (rayon::current_num_threads() * 8).min(n.max(1));
        let mut bounds = vec![0usize];
        for p in 1..parts {
            let goal = (total as u128 * p as u128 / parts as u128) as u64;
            let v = offsets.partition_point(|&o| o < goal).min(n);
            if v > *bounds.last().unwrap_or(&0) {
                bounds.push(v);
            }
        }
        bounds.push(n);
        bounds.dedup();

        // Split the output arrays at the range boundaries.
        let mut target_pieces = Vec::with_capacity(bounds.len());
        let mut weight_pieces: Vec<Option<&mut [Weight]>> = Vec::with_capacity(bounds.len());
        let mut rest_targets: &mut [VertexId] = &mut targets;
        let mut rest_weights: Option<&mut [Weight]> = weights.as_deref_mut();
        for range in bounds.windows(2) {
            let len = (offsets[range[1]] - offsets[range[0]]) as usize;
            let (piece, tail) = std::mem::take(&mut rest_targets).split_at_mut(len);
            rest_targets = tail;
            target_pieces.push(piece);
            weight_pieces.push(match rest_weights.take() {
                Some(all) => {
                    let (piece, tail) = all.split_at_mut(len);
                    rest_weights = Some(tail);
                    Some(piece)
                }
                None => None,
            });
        }

        let offsets_ref = &offsets;
        let mismatch = target_pieces
            .into_par_iter()
            .zip(weight_pieces)
            .zip(bounds.par_windows(2))
            .find_map_any(|((targets, mut weights), range)| {
                let base = offsets_ref[range[0]];
                for v in range[0]..range[1] {
                    let slot =
                        (offsets_ref[v] - base) as usize..(offsets_ref[v + 1] - base) as usize;
                    let mut written = 0usize;
                    match (weights_handle, weights.as_deref_mut()) {
                        (Some(handle), Some(weights)) => {
                            let (t, w) = (&mut targets[slot.clone()], &mut weights[slot.clone()]);
                            for (d, wt) in handle.out_neighbors_weighted(v as VertexId) {
                                if written == t.len() {
                                    return Some(v);
                                }
                                t[written] = d;
                                w[written] = wt;
                                written += 1;
                            }
                        }
                        _ => {
                            let t = &mut targets[slot.clone()];
                            for d in graph.out_neighbors(v as VertexId) {
                                if written == t.len() {
                                    return Some(v);
                                }
                                t[written] = d;
                                written += 1;
                            }
                        }
                    }
                    if written != slot.len() {
                        return Some(v);
                    }
                }
                None
            });
        if let Some(v) = mismatch {
            return Err(Error::InvalidStructure(format!(
                "vertex {v}: its out-neighbours do not match its out-degree {}",
                offsets[v + 1] - offsets[v]
            )));
        }
        let csr = Csr::from_parts(offsets, targets, weights, graph.semantics())?;
        Ok(if graph.has_in_edges() {
            csr.with_transpose()
        } else {
            csr
        })
    }
}
