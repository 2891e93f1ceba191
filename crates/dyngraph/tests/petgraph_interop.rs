//! petgraph's algorithms on a `Csr` equal the same algorithms on a
//! `petgraph::Graph` of the same edges, on the smaller real files and on
//! random multigraphs; the conversions both ways keep every edge; the
//! capabilities a graph lacks show as documented (unit weights, incoming
//! neighbours found by a scan). Every store and view: see
//! `petgraph_on_every_store.rs`.

use dyngraph::core::{CsrOptions, StoreConfig};
use dyngraph::loader::{LoadOptions, load_edge_stream};
use dyngraph::petgraph::{PetgraphEdges, to_petgraph, to_petgraph_weighted};
use dyngraph::prelude::*;
use petgraph::algo::{dijkstra, kosaraju_scc, tarjan_scc, toposort};
use petgraph::visit::EdgeRef;
use proptest::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;

fn normalized(mut sccs: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    sccs.iter_mut().for_each(|scc| scc.sort_unstable());
    sccs.sort();
    sccs
}

fn petgraph_of(
    edges: &[WeightedEdge],
    n: usize,
) -> petgraph::Graph<(), f32, petgraph::Directed, u32> {
    let mut graph = petgraph::Graph::with_capacity(n, edges.len());
    for _ in 0..n {
        graph.add_node(());
    }
    for e in edges {
        graph.add_edge(e.src.into(), e.dst.into(), e.weight);
    }
    graph
}

/// SCCs (Tarjan and Kosaraju) and Dijkstra from `source` agree between
/// `csr` and petgraph's own `Graph`.
fn check_against_petgraph(
    csr: &Csr,
    reference: &petgraph::Graph<(), f32, petgraph::Directed, u32>,
    source: u32,
) {
    let want = normalized(
        tarjan_scc(reference)
            .into_iter()
            .map(|scc| scc.into_iter().map(|n| n.index() as u32).collect())
            .collect(),
    );
    assert_eq!(normalized(tarjan_scc(csr)), want, "tarjan_scc");
    assert_eq!(normalized(kosaraju_scc(csr)), want, "kosaraju_scc");

    let got = dijkstra(csr, source, None, |e| f64::from(*e.weight()));
    let want: HashMap<u32, f64> =
        dijkstra(reference, source.into(), None, |e| f64::from(*e.weight()))
            .into_iter()
            .map(|(n, d)| (n.index() as u32, d))
            .collect();
    assert_eq!(got.len(), want.len(), "dijkstra reached");
    for (v, d) in want {
        assert!(
            (got[&v] - d).abs() <= 1e-6 * d.max(1.0),
            "dijkstra to {v}: {} vs {d}",
            got[&v]
        );
    }
}

fn weighted_stream(path: &std::path::Path) -> (Vec<WeightedEdge>, usize) {
    let stream = load_edge_stream(path, &LoadOptions::default()).expect("readable");
    // Timestamps are not weights: give every edge a small weight of its own.
    let edges: Vec<WeightedEdge> = (0..stream.len())
        .map(|i| {
            let e = stream.edge(i);
            WeightedEdge::new(e.src, e.dst, (1 + (e.src ^ e.dst) % 7) as f32)
        })
        .collect();
    (edges, stream.vertex_count())
}

fn real_files() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("data/CollegeMsg.txt")];
    let shared = root.join("../shared/data");
    if shared.is_dir() {
        files.push(shared.join("email-Eu-core-temporal-part.txt"));
        files.push(shared.join("dnc-temporal.txt"));
    } else {
        eprintln!(
            "note: {} is absent; checking the bundled sample only",
            shared.display()
        );
    }
    files
}

fn weighted_csr(edges: &[WeightedEdge], n: usize) -> Csr {
    Csr::from_edges(edges, CsrOptions::default().in_edges(true).vertex_count(n)).unwrap()
}

#[test]
fn algorithms_on_csr_equal_petgraph_on_the_real_files() {
    for path in real_files() {
        let (edges, n) = weighted_stream(&path);
        let reference = petgraph_of(&edges, n);
        check_against_petgraph(&weighted_csr(&edges, n), &reference, edges[0].src);
    }
}

#[test]
fn conversions_round_trip() {
    let (edges, n) = weighted_stream(&real_files()[0]);
    let csr = Csr::from_edges(&edges, CsrOptions::default().vertex_count(n)).unwrap();
    let graph = to_petgraph_weighted(&csr).unwrap();
    assert_eq!((graph.node_count(), graph.edge_count()), (n, edges.len()));
    // Back, in place through `PetgraphEdges`.
    let again = Csr::from_edges(
        &PetgraphEdges::weighted(&graph, |w| *w),
        CsrOptions::default(),
    )
    .unwrap();
    assert_eq!(again, csr);
    let plain = to_petgraph(&csr);
    let unweighted =
        Csr::from_edges(&PetgraphEdges::unweighted(&plain), CsrOptions::default()).unwrap();
    assert_eq!(unweighted.edge_count(), csr.edge_count());
    assert!(unweighted.edge_weights().is_err());
    assert!(to_petgraph_weighted(&unweighted).is_err());
}

#[test]
fn a_graph_without_weights_gives_petgraph_unit_weights() {
    let edges = [(0, 1), (1, 2), (0, 2), (2, 3)].map(|(s, d)| Edge::new(s, d));
    let csr = Csr::from_edges(&edges, CsrOptions::default()).unwrap();
    assert!(csr.edge_weights().is_err());
    let hops: HashMap<u32, f32> = dijkstra(&csr, 0, None, |e| *e.weight())
        .into_iter()
        .collect();
    assert_eq!(
        hops,
        HashMap::from([(0, 0.0), (1, 1.0), (2, 1.0), (3, 2.0)])
    );
}

#[test]
fn incoming_neighbours_without_in_edges_are_found_by_a_scan() {
    let csr = Csr::from_edges(&[Edge::new(0, 1), Edge::new(1, 0)], CsrOptions::default()).unwrap();
    assert_eq!(tarjan_scc(&csr).len(), 1);
    // Walking backwards without in-edges scans the out-lists: the answers
    // are the right ones (an empty list would let toposort miss the cycle,
    // and a panic ended the program).
    assert!(toposort(&csr, None).is_err());
    assert_eq!(kosaraju_scc(&csr).len(), 1);
}

#[test]
fn toposort_runs_on_a_dag() {
    let edges = [(0, 1), (0, 2), (1, 3), (2, 3)].map(|(s, d)| Edge::new(s, d));
    let csr = Csr::from_edges(&edges, CsrOptions::default().in_edges(true)).unwrap();
    let order = toposort(&csr, None).unwrap();
    let position: HashMap<u32, usize> = order.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    for e in edges {
        assert!(position[&e.src] < position[&e.dst]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_multigraphs_agree_with_petgraph(
        edges in dyngraph_core::testing::weighted_edges(30, 1..200),
    ) {
        let n = 30;
        check_against_petgraph(&weighted_csr(&edges, n), &petgraph_of(&edges, n), edges[0].src);
    }
}
