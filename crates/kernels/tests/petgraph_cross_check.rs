//! Cross-checks against petgraph on the same graphs: BFS reachability,
//! Dijkstra distances, the number of weakly connected components, and
//! PageRank.

mod common;

use common::*;
use dyngraph_core::StoreConfig;
use dyngraph_core::{Csr, CsrOptions, Semantics, WeightedEdge};
use dyngraph_kernels::*;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Bfs;

fn petgraph_of(edges: &[WeightedEdge], vertex_count: usize) -> DiGraph<(), f32> {
    let mut graph = DiGraph::with_capacity(vertex_count, edges.len());
    for _ in 0..vertex_count {
        graph.add_node(());
    }
    for e in edges {
        graph.add_edge(
            NodeIndex::new(e.src as usize),
            NodeIndex::new(e.dst as usize),
            e.weight,
        );
    }
    graph
}

fn cross_check(name: &str, edges: &[WeightedEdge], vertex_count: usize) {
    let stores = stores(edges, vertex_count);
    let reference = petgraph_of(edges, vertex_count);
    let source = busiest_vertex(edges, vertex_count);

    // BFS reachability, on both stores.
    let mut reached = vec![false; vertex_count];
    let mut walk = Bfs::new(&reference, NodeIndex::new(source as usize));
    while let Some(v) = walk.next(&reference) {
        reached[v.index()] = true;
    }
    for tree in [
        in_pool(2, || bfs(&stores.csr, &BfsOptions::from_source(source))).unwrap(),
        in_pool(2, || bfs(&stores.model, &BfsOptions::from_source(source))).unwrap(),
    ] {
        let ours: Vec<bool> = tree.parents.iter().map(|&p| p != NO_PARENT).collect();
        assert_eq!(ours, reached, "{name}: BFS reachability");
    }

    // Dijkstra: integer weights, so f32 sums are exact and must be equal.
    let expected =
        petgraph::algo::dijkstra(&reference, NodeIndex::new(source as usize), None, |e| {
            *e.weight()
        });
    for delta in [1.0, 32.0, 1000.0] {
        let paths = in_pool(2, || {
            sssp(
                &stores.csr,
                &SsspOptions::from_source(source).with_delta(delta),
            )
        })
        .unwrap();
        for (v, &d) in paths.distances.iter().enumerate() {
            assert_eq!(
                expected
                    .get(&NodeIndex::new(v))
                    .copied()
                    .unwrap_or(f32::INFINITY),
                d,
                "{name}: distance to {v} with delta {delta}"
            );
        }
    }

    // Weakly connected components: petgraph counts them with union-find.
    let count = petgraph::algo::connected_components(&reference);
    for algorithm in [
        ComponentsAlgorithm::Afforest,
        ComponentsAlgorithm::ShiloachVishkin,
    ] {
        let options = ComponentsOptions::with_algorithm(algorithm);
        assert_eq!(
            in_pool(2, || connected_components(&stores.csr, &options))
                .unwrap()
                .component_count(),
            count,
            "{name}: {algorithm:?} component count"
        );
        assert_eq!(
            connected_components(&stores.model, &options)
                .unwrap()
                .component_count(),
            count
        );
    }
}

#[test]
fn bundled_college_msg_against_petgraph() {
    let edges = read_edges(&common::bundled_college_msg(), false);
    cross_check("CollegeMsg", &edges, vertex_count_of(&edges));
}

#[test]
fn sx_mathoverflow_against_petgraph() {
    let Some(mut edges) = shared_file("sx-mathoverflow/b30/base.wel", true) else {
        return;
    };
    let Some(dynamic) = shared_file("sx-mathoverflow/b30/dynamic.wel", true) else {
        return;
    };
    edges.extend(dynamic);
    cross_check("sx-mathoverflow", &edges, 88_581);
}

#[test]
fn generated_graphs_against_petgraph() {
    cross_check("kronecker 12", &rmat(12, 16, 1), 1 << 12);
    cross_check("uniform 12", &uniform(12, 8, 2), 1 << 12);
}

/// petgraph's PageRank redistributes dangling vertices' scores and
/// renormalises, and leaves out the teleport term `(1 - d) r_w / n` for
/// pairs `w -> v` that are linked. On a simple graph without dangling
/// vertices its scores therefore differ from the textbook (and GAPBS)
/// fixed point by about `(1 - d) · in_degree / n` relative; with `n = 2000`
/// and degree about 8 that is under 1%, while one wrong edge moves a score
/// by about `1 / degree`, over 10%. So the check is relative 2%.
#[test]
fn pagerank_against_petgraph() {
    let n = 2000u32;
    let mut list: Vec<WeightedEdge> = (0..n)
        .map(|v| WeightedEdge::new(v, (v + 1) % n, 1.0))
        .collect();
    list.extend(
        uniform(11, 3, 5)
            .into_iter()
            .filter(|e| e.src < n && e.dst < n),
    );
    let symmetric = symmetrize(&list);
    let csr = Csr::from_edges(
        &symmetric,
        CsrOptions::default()
            .semantics(Semantics::Simple)
            .in_edges(true)
            .vertex_count(n as usize),
    )
    .unwrap();
    // The same deduplicated, loop-free edges for petgraph.
    let simple: Vec<WeightedEdge> = (0..n)
        .flat_map(|u| {
            csr.out_slice(u)
                .iter()
                .map(move |&v| WeightedEdge::new(u, v, 1.0))
        })
        .collect();
    let reference = petgraph_of(&simple, n as usize);
    let theirs: Vec<f64> = petgraph::algo::page_rank(&reference, 0.85f64, 20);
    let ours = in_pool(2, || pagerank(&csr, &PageRankOptions::default())).unwrap();
    verify_pagerank(&csr, &ours).unwrap();
    let sum: f64 = ours.scores.iter().map(|&s| f64::from(s)).sum();
    assert!(
        (sum - 1.0).abs() < 1e-4,
        "no dangling vertices, so no leak: {sum}"
    );
    let mut worst = 0.0f64;
    for (v, (&a, &b)) in ours.scores.iter().zip(&theirs).enumerate() {
        let relative = (f64::from(a) - b).abs() / b;
        assert!(relative < 0.02, "vertex {v}: ours {a}, petgraph {b}");
        worst = worst.max(relative);
    }
    eprintln!("pagerank vs petgraph: largest relative difference {worst:.2e}");
}
