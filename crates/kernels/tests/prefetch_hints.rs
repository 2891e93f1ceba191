//! The prefetch hints of the read traits (`prefetch_in_neighbors`,
//! `prefetch_out_neighbors`): a store that overrides them must get the
//! same results from every kernel that calls them, and the kernels must
//! only ever name vertices of the graph. `Hinting` wraps a `Csr`, forwards
//! every read and counts the hints instead of prefetching.

mod common;

use common::*;
use dyngraph_core::{
    Csr, CsrOptions, Graph, InNeighbors, OutNeighbors, Semantics, VertexId, WeightedEdge,
};
use dyngraph_kernels::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A `Csr` whose hints are counted, with the ids outside the graph counted
/// apart.
struct Hinting {
    csr: Csr,
    in_hints: AtomicU64,
    out_hints: AtomicU64,
    outside: AtomicU64,
}

impl Hinting {
    fn new(csr: Csr) -> Self {
        Self {
            csr,
            in_hints: AtomicU64::new(0),
            out_hints: AtomicU64::new(0),
            outside: AtomicU64::new(0),
        }
    }

    fn count(&self, counter: &AtomicU64, v: VertexId) {
        counter.fetch_add(1, Relaxed);
        if v as usize >= self.csr.vertex_count() {
            self.outside.fetch_add(1, Relaxed);
        }
    }

    /// (in-hints, out-hints, hints outside the graph) since the last call.
    fn take(&self) -> (u64, u64, u64) {
        (
            self.in_hints.swap(0, Relaxed),
            self.out_hints.swap(0, Relaxed),
            self.outside.swap(0, Relaxed),
        )
    }
}

impl Graph for Hinting {
    fn vertex_count(&self) -> usize {
        self.csr.vertex_count()
    }

    fn edge_count(&self) -> u64 {
        self.csr.edge_count()
    }

    fn semantics(&self) -> Semantics {
        self.csr.semantics()
    }
}

impl OutNeighbors for Hinting {
    type OutNeighbors<'a> = <Csr as OutNeighbors>::OutNeighbors<'a>;

    fn out_degree(&self, v: VertexId) -> u64 {
        self.csr.out_degree(v)
    }

    fn out_neighbors(&self, v: VertexId) -> Self::OutNeighbors<'_> {
        self.csr.out_neighbors(v)
    }

    fn prefetch_out_neighbors(&self, v: VertexId) {
        self.count(&self.out_hints, v);
    }
}

impl InNeighbors for Hinting {
    type InNeighbors<'a> = <Csr as InNeighbors>::InNeighbors<'a>;

    fn has_in_edges(&self) -> bool {
        self.csr.has_in_edges()
    }

    fn in_degree(&self, v: VertexId) -> u64 {
        self.csr.in_degree(v)
    }

    fn in_neighbors(&self, v: VertexId) -> Self::InNeighbors<'_> {
        self.csr.in_neighbors(v)
    }

    fn prefetch_in_neighbors(&self, v: VertexId) {
        self.count(&self.in_hints, v);
    }
}

fn graph(edges: &[WeightedEdge]) -> Csr {
    let options = CsrOptions::default()
        .vertex_count(vertex_count_of(edges))
        .transpose(true);
    Csr::from_weighted_edges(edges, options).expect("csr")
}

#[test]
fn hinting_stores_get_the_same_bfs_and_pagerank() {
    // An R-MAT graph with a hub: BFS from the hub goes bottom-up at once.
    let edges = rmat(12, 16, 7);
    let csr = graph(&edges);
    let hinting = Hinting::new(graph(&edges));
    let n = csr.vertex_count();
    let source = busiest_vertex(&edges, n);
    let bfs_options = BfsOptions::from_source(source).with_depths(true);
    let pr_options = PageRankOptions::default();
    for threads in [1, 2] {
        let (plain_tree, hinted_tree, through_reference) = in_pool(threads, || {
            (
                bfs(&csr, &bfs_options).unwrap(),
                bfs(&hinting, &bfs_options).unwrap(),
                // `&Hinting` is a store too: its hints must reach `Hinting`.
                bfs(&&hinting, &bfs_options).unwrap(),
            )
        });
        assert!(hinted_tree.bottom_up_steps > 0, "no bottom-up step taken");
        for tree in [&hinted_tree, &through_reference] {
            verify_bfs(&hinting, tree).unwrap();
            assert_eq!(tree.depths, plain_tree.depths);
            assert_eq!(tree.reached(), plain_tree.reached());
        }
        let (in_hints, _, outside) = hinting.take();
        assert!(
            in_hints > 0,
            "bottom-up BFS gave no in-neighbour hint ({threads} threads)"
        );
        assert_eq!(outside, 0, "hints for ids outside the graph");

        let (plain_ranks, hinted_ranks) = in_pool(threads, || {
            (
                pagerank(&csr, &pr_options).unwrap(),
                pagerank(&hinting, &pr_options).unwrap(),
            )
        });
        assert_eq!(hinted_ranks.method, PageRankMethod::Pull);
        // Pull PageRank is bit-identical for any thread count; hints must
        // not change a bit either.
        assert_eq!(hinted_ranks, plain_ranks);
        let (in_hints, _, outside) = hinting.take();
        assert!(in_hints > 0, "pull PageRank gave no in-neighbour hint");
        assert_eq!(outside, 0, "hints for ids outside the graph");
    }
}

#[test]
fn hints_stay_inside_tiny_graphs() {
    // Fewer vertices than the lookahead: no hint may name a missing vertex.
    for n in [1u32, 2, 5, 17, 40] {
        let edges: Vec<WeightedEdge> = (0..n)
            .flat_map(|v| {
                [
                    WeightedEdge::new(v, (v + 1) % n, 1.0),
                    WeightedEdge::new(0, v, 1.0),
                ]
            })
            .collect();
        let hinting = Hinting::new(graph(&edges));
        let tree = bfs(&hinting, &BfsOptions::from_source(0).with_depths(true)).unwrap();
        verify_bfs(&hinting, &tree).unwrap();
        let ranks = pagerank(&hinting, &PageRankOptions::default()).unwrap();
        verify_pagerank(&hinting, &ranks).unwrap();
        let (_, _, outside) = hinting.take();
        assert_eq!(outside, 0, "{n} vertices: hints for ids outside the graph");
    }
}
