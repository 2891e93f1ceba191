//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub)]

use dyngraph_core::Semantics;
use dyngraph_core::{Edge, Graph, InNeighbors, OutNeighbors, VertexId, WeightedOutNeighbors};
use dyngraph_csrpp::{AllocatorKind, CsrPP, CsrPPConfig, DeleteMode};

/// Every combination of the options that change code paths.
pub fn all_configs(segment_sizes: &[usize]) -> Vec<CsrPPConfig> {
    let mut configs = Vec::new();
    for &segment_size in segment_sizes {
        for semantics in [Semantics::Multigraph, Semantics::Simple] {
            for weighted in [false, true] {
                for reverse in [false, true] {
                    for delete_mode in [DeleteMode::Physical, DeleteMode::Logical] {
                        for allocator in [AllocatorKind::System, AllocatorKind::Arena] {
                            configs.push(
                                CsrPPConfig::default()
                                    .segment_size(segment_size)
                                    .semantics(semantics)
                                    .weighted(weighted)
                                    .reverse_edges(reverse)
                                    .delete_mode(delete_mode)
                                    .allocator(allocator),
                            );
                        }
                    }
                }
            }
        }
    }
    configs
}

/// Structural invariants the model comparison cannot see: out-lists sorted,
/// degrees consistent with the iterators, weights as many as neighbours,
/// in-lists the exact transpose of the out-lists.
pub fn check_invariants(graph: &CsrPP) -> Result<(), String> {
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
        let weighted: Vec<VertexId> = graph.out_neighbors_weighted(v).map(|(d, _)| d).collect();
        if weighted != neighbours {
            return Err(format!("vertex {v}: weighted iterator order differs"));
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
    if graph.has_in_edges() {
        let mut in_edges: Vec<Edge> = Vec::new();
        for v in 0..n {
            let sources: Vec<VertexId> = graph.in_neighbors(v).collect();
            if !sources.is_sorted() || graph.in_degree(v) != sources.len() as u64 {
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
