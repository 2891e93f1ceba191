//! `CsrPP`'s prefetch hints (`prefetch_out_neighbors`,
//! `prefetch_in_neighbors`): they read a vertex entry and prefetch its
//! array. Every kind of entry goes through them — empty, degree-1 inline,
//! an array in a load slab, an array moved into an allocator block, one
//! with tombstones, a deleted vertex — plus ids outside the graph, and
//! nothing may change; and the kernels that call them (bottom-up BFS, pull
//! PageRank) give on a batch-updated `CsrPP` what they give on `Csr`.

mod common;

use common::{all_configs, check_invariants};
use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
use dyngraph_core::{
    Csr, CsrOptions, Edge, Graph, GraphUpdate, InNeighbors, OutNeighbors, Semantics, VertexId,
};
use dyngraph_csrpp::{CsrPP, CsrPPConfig};
use dyngraph_kernels::{BfsOptions, PageRankOptions, bfs, pagerank, verify_bfs};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Hints for every vertex, past the end and at the largest id.
fn hint_everything<G: OutNeighbors + InNeighbors>(graph: &G) {
    let n = graph.vertex_count() as VertexId;
    for v in (0..n + 20).chain([VertexId::MAX - 1, VertexId::MAX]) {
        graph.prefetch_out_neighbors(v);
        graph.prefetch_in_neighbors(v);
    }
}

/// The model's version of `delete_vertex`: every edge out of and into `v`.
fn model_delete_vertex(model: &mut ReferenceGraph, v: VertexId) -> u64 {
    let mut removed = 0;
    let targets: Vec<VertexId> = model.out_neighbors(v).collect();
    for d in targets {
        removed += u64::from(model.delete_edge(v, d).unwrap());
    }
    for u in 0..model.vertex_count() as VertexId {
        while model.delete_edge(u, v).unwrap() {
            removed += 1;
        }
    }
    removed
}

#[test]
fn hints_read_every_kind_of_entry_and_change_nothing() {
    for config in all_configs(&[4]) {
        let mut graph = CsrPP::new(config.clone()).unwrap();
        let mut model = ReferenceGraph::new(config.semantics);
        hint_everything(&graph); // empty store, no segment at all
        // Vertex 0: a long array packed into the load slab; 1: one
        // neighbour, inline; 2 and 3: empty; 4: an array the second batch
        // moves out of the slab; 5: deleted below; 6..10 fill a segment.
        let mut load: Vec<Edge> = (0..40).map(|d| Edge::new(0, d % 10)).collect();
        load.extend([Edge::new(1, 7), Edge::new(4, 5), Edge::new(4, 6)]);
        load.extend([Edge::new(5, 0), Edge::new(5, 1), Edge::new(9, 5)]);
        let more: Vec<Edge> = (0..30).map(|d| Edge::new(4, d % 10)).collect();
        for batch in [&load, &more] {
            graph.insert_edges(batch).unwrap();
            model.insert_edges(batch).unwrap();
        }
        graph.add_vertices(3).unwrap(); // 10..12: a segment of empty entries
        model.add_vertices(3).unwrap();
        // Tombstones under logical deletes, a shrink under physical ones.
        for d in [0, 2, 4] {
            assert_eq!(
                graph.delete_edge(0, d).unwrap(),
                model.delete_edge(0, d).unwrap()
            );
        }
        let removed = graph.delete_vertex(5).unwrap();
        assert_eq!(removed, model_delete_vertex(&mut model, 5));
        assert!(graph.is_vertex_deleted(5));
        let before: Vec<(Vec<VertexId>, Vec<VertexId>)> = (0..graph.vertex_count() as VertexId)
            .map(|v| {
                (
                    graph.out_neighbors(v).collect(),
                    graph.in_neighbors(v).collect(),
                )
            })
            .collect();
        hint_everything(&graph);
        let by_reference: &CsrPP = &graph; // `&CsrPP` through the blanket impl
        hint_everything(&by_reference);
        let after: Vec<(Vec<VertexId>, Vec<VertexId>)> = (0..graph.vertex_count() as VertexId)
            .map(|v| {
                (
                    graph.out_neighbors(v).collect(),
                    graph.in_neighbors(v).collect(),
                )
            })
            .collect();
        assert_eq!(before, after, "{config:?}");
        compare_with_model(&graph, &model).unwrap_or_else(|e| panic!("{config:?}: {e}"));
        check_invariants(&graph).unwrap_or_else(|e| panic!("{config:?}: {e}"));
        graph.compact();
        hint_everything(&graph);
        compare_with_model(&graph, &model).unwrap_or_else(|e| panic!("{config:?}: {e}"));
    }
}

/// R-MAT edges with a hub (Graph500 parameters), `2^scale` vertices.
fn rmat(scale: u32, edges: usize, seed: u64) -> Vec<Edge> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..edges)
        .map(|_| {
            let (mut src, mut dst) = (0u32, 0u32);
            for _ in 0..scale {
                let r: f64 = rng.random();
                let (s, d) = match r {
                    r if r < 0.57 => (0, 0),
                    r if r < 0.76 => (0, 1),
                    r if r < 0.95 => (1, 0),
                    _ => (1, 1),
                };
                src = (src << 1) | s;
                dst = (dst << 1) | d;
            }
            Edge::new(src, dst)
        })
        .collect()
}

#[test]
fn kernels_on_a_batch_updated_store_match_csr() {
    // Half the edges in one load, the rest in 50 batches: the arrays end up
    // scattered over allocator blocks, the layout the hints are for.
    let edges = rmat(12, 64 << 10, 11);
    let n = edges.iter().map(|e| e.src.max(e.dst) + 1).max().unwrap() as usize;
    let csr = Csr::from_edges(
        &edges,
        CsrOptions::default()
            .vertex_count(n)
            .sort(true)
            .transpose(true),
    )
    .unwrap();
    let half = edges.len() / 2;
    let mut store = CsrPP::from_edges(
        &edges[..half],
        CsrPPConfig::default()
            .reverse_edges(true)
            .semantics(Semantics::Multigraph),
    )
    .unwrap();
    for chunk in edges[half..].chunks(half.div_ceil(50)) {
        store.insert_edges(chunk).unwrap();
    }
    store.add_vertices(n - store.vertex_count()).unwrap();
    let source = (0..n as VertexId)
        .max_by_key(|&v| (csr.out_degree(v), std::cmp::Reverse(v)))
        .unwrap();
    let options = BfsOptions::from_source(source).with_depths(true);
    let pr = PageRankOptions::default();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (want, got) = pool.install(|| (bfs(&csr, &options), bfs(&store, &options)));
        let (want, got) = (want.unwrap(), got.unwrap());
        assert!(got.bottom_up_steps > 0, "no bottom-up step taken");
        verify_bfs(&store, &got).unwrap();
        assert_eq!(got.depths, want.depths);
        // Both keep in-lists sorted, so pull PageRank adds the same terms
        // in the same order: bit-identical scores.
        let (want, got) = pool.install(|| (pagerank(&csr, &pr), pagerank(&store, &pr)));
        assert_eq!(got.unwrap(), want.unwrap());
    }
}
