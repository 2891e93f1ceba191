//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub)]

use dyngraph_core::StoreConfig;
use dyngraph_core::{
    Capability, Edge, EdgeWeights, Error, Graph, InEdges, InNeighbors, OutNeighbors, Semantics,
    VertexId, WeightedNeighbors,
};
use dyngraph_csrpp::{AllocatorKind, CsrPP, CsrPPOptions, DeleteMode};

/// Every combination of the options that change code paths.
pub fn all_options(segment_sizes: &[usize]) -> Vec<CsrPPOptions> {
    let mut options_list = Vec::new();
    for &segment_size in segment_sizes {
        for semantics in [Semantics::Multigraph, Semantics::Simple] {
            for weighted in [false, true] {
                for in_edges in [false, true] {
                    for delete_mode in [DeleteMode::Physical, DeleteMode::Logical] {
                        for allocator in [AllocatorKind::System, AllocatorKind::Arena] {
                            // Slab headroom alternates with the allocator so
                            // both packings meet both allocators across
                            // segment sizes without doubling the matrix.
                            let headroom =
                                (allocator == AllocatorKind::Arena) != (segment_size % 8 == 0);
                            // Every batch grouped (however small) with the
                            // system allocator, the default threshold with
                            // the arena.
                            let group_above = if allocator == AllocatorKind::System {
                                0
                            } else {
                                dyngraph_csrpp::DEFAULT_GROUP_INSERTS_ABOVE
                            };
                            options_list.push(
                                CsrPPOptions::default()
                                    .slab_headroom(headroom)
                                    .segment_size(segment_size)
                                    .semantics(semantics)
                                    .weighted(weighted)
                                    .in_edges(in_edges)
                                    .delete_mode(delete_mode)
                                    .allocator(allocator)
                                    .group_inserts_above(group_above),
                            );
                        }
                    }
                }
            }
        }
    }
    options_list
}

/// Structural invariants the model comparison cannot see: out-lists sorted,
/// degrees consistent with the iterators, weights as many as neighbours,
/// in-lists the exact transpose of the out-lists, and in-edges and weights
/// answered exactly when the store was built with them (otherwise
/// `Error::MissingCapability`, never empty lists or unit weights).
pub fn check_invariants(graph: &CsrPP) -> Result<(), String> {
    let options = graph.options();
    match (graph.in_edges().map(|_| ()), options.store.in_edges) {
        (Ok(()), true)
        | (
            Err(Error::MissingCapability {
                store: "CsrPP",
                capability: Capability::InEdges,
            }),
            false,
        ) => {}
        (got, built_with) => {
            return Err(format!(
                "in_edges() answered {got:?}, built with {built_with}"
            ));
        }
    }
    match (graph.edge_weights().map(|_| ()), options.store.weighted) {
        (Ok(()), true)
        | (
            Err(Error::MissingCapability {
                store: "CsrPP",
                capability: Capability::Weights,
            }),
            false,
        ) => {}
        (got, built_with) => {
            return Err(format!(
                "edge_weights() answered {got:?}, built with {built_with}"
            ));
        }
    }
    let n = graph.vertex_count() as VertexId;
    let mut out_edges: Vec<Edge> = Vec::new();
    let mut total = 0u64;
    for v in 0..n {
        let neighbours: Vec<VertexId> = graph.out_neighbors(v).collect();
        if !neighbours.is_sorted() {
            return Err(format!("vertex {v}: out-list not sorted: {neighbours:?}"));
        }
        if graph.out_degree(v) != neighbours.len() as u64 {
            return Err(format!(
                "vertex {v}: out_degree disagrees with the iterator"
            ));
        }
        if let Ok(weights) = graph.edge_weights() {
            let weighted: Vec<VertexId> =
                weights.out_neighbors_weighted(v).map(|(d, _)| d).collect();
            if weighted != neighbours {
                return Err(format!("vertex {v}: weighted iterator order differs"));
            }
        }
        if graph.is_vertex_deleted(v) && !neighbours.is_empty() {
            return Err(format!("deleted vertex {v} still has out-edges"));
        }
        for &d in &neighbours {
            if graph.is_vertex_deleted(d) {
                return Err(format!("edge {v} -> {d} points at a deleted vertex"));
            }
        }
        total += neighbours.len() as u64;
        out_edges.extend(neighbours.into_iter().map(|d| Edge::new(v, d)));
    }
    if total != graph.edge_count() {
        return Err(format!(
            "edge_count {} but {} edges iterate",
            graph.edge_count(),
            total
        ));
    }
    if let Ok(incoming) = graph.in_edges() {
        let mut in_edges: Vec<Edge> = Vec::new();
        for v in 0..n {
            let sources: Vec<VertexId> = incoming.in_neighbors(v).collect();
            if !sources.is_sorted() || incoming.in_degree(v) != sources.len() as u64 {
                return Err(format!("vertex {v}: in-list unsorted or in_degree wrong"));
            }
            in_edges.extend(sources.into_iter().map(|u| Edge::new(u, v)));
        }
        in_edges.sort_unstable();
        out_edges.sort_unstable();
        if in_edges != out_edges {
            return Err("in-lists are not the transpose of the out-lists".into());
        }
    }
    Ok(())
}

/// Reads the bundled CollegeMsg sample (`src dst ts` lines after `#`
/// provenance lines).
pub fn college_msg() -> Vec<Edge> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
    let text = std::fs::read_to_string(path).expect("the bundled sample is part of the repo");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.split_whitespace();
            let src = fields.next().unwrap().parse().unwrap();
            let dst = fields.next().unwrap().parse().unwrap();
            Edge::new(src, dst)
        })
        .collect()
}

/// The out-edges of `v` with their weights: the store's weights when it
/// keeps them, otherwise 1.0 (a choice of the test, for comparing weighted
/// and unweighted stores alike).
pub fn weighted_or_unit(graph: &CsrPP, v: VertexId) -> Vec<(VertexId, f32)> {
    match graph.edge_weights() {
        Ok(weights) => weights.out_neighbors_weighted(v).collect(),
        Err(_) => graph.out_neighbors(v).map(|d| (d, 1.0)).collect(),
    }
}

/// A file under the shared data directory (`../shared/data` beside the
/// repository), or `None` after printing why the test skips it.
pub fn shared_data(relative: &str) -> Option<std::path::PathBuf> {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"))
        .join(relative);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "note: skipping: {} is absent (the shared data directory holds it)",
            path.display()
        );
        None
    }
}
