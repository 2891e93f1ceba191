//! Shared test support: a tiny whitespace edge-list reader (there is no
//! loader crate yet; issue 3 lands in parallel), seeded R-MAT and uniform
//! generators, store construction, and a harness that runs every kernel on
//! every store at 1 and 2 threads and checks the results.
#![allow(dead_code, unreachable_pub)]

use dyngraph_core::StoreConfig;
use dyngraph_core::testing::ReferenceGraph;
use dyngraph_core::{
    Csr, CsrOptions, Graph, GraphUpdate, ReadGraph, Semantics, VertexId, WeightedEdge,
};
use dyngraph_kernels::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::{Path, PathBuf};

/// `../shared/data`, the repository's sibling data directory.
pub fn shared_data() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"))
}

/// The bundled sample, always present.
pub fn bundled_college_msg() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/CollegeMsg.txt"
    ))
}

/// Reads `src dst [third]` lines, skipping blank lines and `#`/`%` comments.
/// With `weighted`, the third column is the weight; otherwise it (a
/// timestamp) is ignored and the weight is 1. Test-only: panics on bad input.
pub fn read_edges(path: &Path, weighted: bool) -> Vec<WeightedEdge> {
    let text = std::fs::read_to_string(path).expect("readable edge list");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#') && !line.starts_with('%'))
        .map(|line| {
            let mut fields = line.split_whitespace();
            let mut next = || fields.next().expect("field");
            let src: VertexId = next().parse().expect("source id");
            let dst: VertexId = next().parse().expect("destination id");
            let weight = if weighted {
                next().parse().expect("weight")
            } else {
                1.0
            };
            WeightedEdge::new(src, dst, weight)
        })
        .collect()
}

/// Reads a file from `../shared/data`, or prints the skip note and returns
/// `None` when it is absent.
pub fn shared_file(relative: &str, weighted: bool) -> Option<Vec<WeightedEdge>> {
    let path = shared_data().join(relative);
    if !path.exists() {
        eprintln!("skipping: {} not found", path.display());
        return None;
    }
    Some(read_edges(&path, weighted))
}

/// R-MAT (Kronecker, Graph500 parameters a = 0.57, b = c = 0.19) with
/// `2^scale` vertices and `edge_factor · 2^scale` edges, integer weights in
/// `1..=255` as GAPBS.
pub fn rmat(scale: u32, edge_factor: u32, seed: u64) -> Vec<WeightedEdge> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let count = (edge_factor as usize) << scale;
    (0..count)
        .map(|_| {
            let (mut src, mut dst) = (0u32, 0u32);
            for _ in 0..scale {
                let r: f64 = rng.random();
                let (s, d) = if r < 0.57 {
                    (0, 0)
                } else if r < 0.76 {
                    (0, 1)
                } else if r < 0.95 {
                    (1, 0)
                } else {
                    (1, 1)
                };
                src = (src << 1) | s;
                dst = (dst << 1) | d;
            }
            WeightedEdge::new(src, dst, rng.random_range(1..=255u32) as f32)
        })
        .collect()
}

/// Uniform random edges (GAPBS `-u`), integer weights in `1..=255`.
pub fn uniform(scale: u32, edge_factor: u32, seed: u64) -> Vec<WeightedEdge> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = 1u32 << scale;
    (0..(edge_factor as usize) << scale)
        .map(|_| {
            WeightedEdge::new(
                rng.random_range(0..n),
                rng.random_range(0..n),
                rng.random_range(1..=255u32) as f32,
            )
        })
        .collect()
}

/// Every edge in both directions (for graphs that must be undirected).
pub fn symmetrize(edges: &[WeightedEdge]) -> Vec<WeightedEdge> {
    edges
        .iter()
        .flat_map(|e| [*e, WeightedEdge::new(e.dst, e.src, e.weight)])
        .collect()
}

/// The stores every kernel is tested on, built from the same edges.
pub struct Stores {
    /// `Csr` with in-edges: the pull / bottom-up paths.
    pub csr: Csr,
    /// `Csr` without in-edges: the fallbacks (top-down BFS, push PageRank,
    /// Afforest without skipping).
    pub csr_out_only: Csr,
    /// The reference model, whose iterators are not slice iterators.
    pub model: ReferenceGraph,
}

pub fn vertex_count_of(edges: &[WeightedEdge]) -> usize {
    edges
        .iter()
        .map(|e| e.src.max(e.dst) as usize + 1)
        .max()
        .unwrap_or(0)
}

pub fn stores(edges: &[WeightedEdge], vertex_count: usize) -> Stores {
    let options = CsrOptions::default().vertex_count(vertex_count);
    let csr = Csr::from_edges(edges, options.clone().in_edges(true)).expect("csr");
    let csr_out_only = Csr::from_edges(edges, options).expect("csr");
    let mut model = ReferenceGraph::new(Semantics::Multigraph);
    model.insert_edges(edges).expect("model");
    let missing = vertex_count - model.vertex_count();
    if missing > 0 {
        model.add_vertices(missing).expect("vertices");
    }
    assert_eq!(model.vertex_count(), vertex_count);
    Stores {
        csr,
        csr_out_only,
        model,
    }
}

pub fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool")
        .install(f)
}

/// What one store produced at one thread count.
#[derive(Debug)]
pub struct Outputs {
    pub bfs: BfsResult,
    pub pagerank: PageRankResult,
    pub sssp: SsspResult,
    pub afforest: ComponentsResult,
    pub shiloach_vishkin: ComponentsResult,
    pub bc: BcResult,
    pub triangles: TriangleResult,
    pub walks: ReverseWalkResult,
}

/// Runs every kernel from `source`, verifies each result with its verifier.
pub fn run_and_verify<G>(graph: &G, source: VertexId, threads: usize, label: &str) -> Outputs
where
    G: ReadGraph,
{
    let outputs = in_pool(threads, || Outputs {
        bfs: bfs(graph, &BfsOptions::from_source(source).with_depths(true)).expect("bfs"),
        pagerank: pagerank(graph, &PageRankOptions::default()).expect("pagerank"),
        sssp: sssp(graph, &SsspOptions::from_source(source).with_delta(16.0)).expect("sssp"),
        afforest: connected_components(graph, &ComponentsOptions::default()).expect("cc"),
        shiloach_vishkin: connected_components(
            graph,
            &ComponentsOptions::with_algorithm(ComponentsAlgorithm::ShiloachVishkin),
        )
        .expect("cc_sv"),
        bc: betweenness_centrality(
            graph,
            &BcOptions {
                sources: BcSources::Given(vec![source]),
                ..BcOptions::default()
            },
        )
        .expect("bc"),
        triangles: triangle_count(graph).expect("tc"),
        walks: reverse_walks(graph, &ReverseWalkOptions::default()).expect("walks"),
    });
    let context = |e: VerifyError| format!("{label}, {threads} thread(s): {e}");
    verify_bfs(graph, &outputs.bfs).map_err(context).unwrap();
    verify_pagerank(graph, &outputs.pagerank)
        .map_err(context)
        .unwrap();
    verify_sssp(graph, &outputs.sssp).map_err(context).unwrap();
    verify_components(graph, &outputs.afforest)
        .map_err(context)
        .unwrap();
    verify_components(graph, &outputs.shiloach_vishkin)
        .map_err(context)
        .unwrap();
    verify_bc(graph, &outputs.bc).map_err(context).unwrap();
    verify_triangles(graph, &outputs.triangles)
        .map_err(context)
        .unwrap();
    verify_reverse_walks(graph, &outputs.walks)
        .map_err(context)
        .unwrap();
    outputs
}

fn assert_close(a: &[f32], b: &[f32], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (v, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= 1e-6, "{what}: vertex {v}: {x} vs {y}");
    }
}

/// Results that must not depend on the thread count or the store.
pub fn assert_same_results(a: &Outputs, b: &Outputs, what: &str, same_in_order: bool) {
    assert_eq!(a.bfs.depths, b.bfs.depths, "{what}: bfs depths");
    assert_eq!(a.bfs.reached(), b.bfs.reached(), "{what}: bfs reach");
    if same_in_order
        && a.pagerank.method == PageRankMethod::Pull
        && b.pagerank.method == PageRankMethod::Pull
    {
        assert_eq!(
            a.pagerank.scores, b.pagerank.scores,
            "{what}: pagerank bits"
        );
    }
    assert_close(
        &a.pagerank.scores,
        &b.pagerank.scores,
        &format!("{what}: pagerank"),
    );
    assert_eq!(a.sssp.distances, b.sssp.distances, "{what}: sssp");
    assert_eq!(a.afforest.labels, b.afforest.labels, "{what}: afforest");
    assert_eq!(
        a.shiloach_vishkin.labels, a.afforest.labels,
        "{what}: sv vs afforest"
    );
    assert_eq!(
        a.shiloach_vishkin.labels, b.shiloach_vishkin.labels,
        "{what}: sv"
    );
    assert_eq!(a.bc.scores, b.bc.scores, "{what}: bc");
    assert_eq!(a.triangles, b.triangles, "{what}: triangles");
    assert_eq!(a.walks.visits, b.walks.visits, "{what}: reverse walks");
}

/// A vertex of largest out-degree: a source that reaches a lot.
pub fn busiest_vertex(edges: &[WeightedEdge], vertex_count: usize) -> VertexId {
    let mut degree = vec![0u32; vertex_count];
    for e in edges {
        degree[e.src as usize] += 1;
    }
    (0..vertex_count)
        .max_by_key(|&v| (degree[v], std::cmp::Reverse(v)))
        .unwrap_or(0) as VertexId
}

/// The whole check for one graph: every kernel on every store at 1 and 2
/// threads, verified, and the deterministic results compared.
pub fn check_graph(name: &str, edges: &[WeightedEdge], vertex_count: usize) {
    let stores = stores(edges, vertex_count);
    let source = busiest_vertex(edges, vertex_count);
    let csr_1 = run_and_verify(&stores.csr, source, 1, &format!("{name} csr"));
    let csr_2 = run_and_verify(&stores.csr, source, 2, &format!("{name} csr"));
    assert_eq!(csr_1.bfs.strategy, BfsStrategy::DirectionOptimizing);
    assert_same_results(&csr_1, &csr_2, &format!("{name} csr 1 vs 2 threads"), true);
    // A borrowed view is a third store type over the same arrays.
    let view_2 = run_and_verify(&stores.csr.view(), source, 2, &format!("{name} csr view"));
    assert_same_results(&csr_1, &view_2, &format!("{name} csr vs view"), true);
    let out_1 = run_and_verify(&stores.csr_out_only, source, 1, &format!("{name} csr-out"));
    let out_2 = run_and_verify(&stores.csr_out_only, source, 2, &format!("{name} csr-out"));
    assert_eq!(out_2.bfs.strategy, BfsStrategy::TopDownNoInEdges);
    assert_eq!(out_2.pagerank.method, PageRankMethod::Push);
    assert!(!out_2.afforest.skipped_largest);
    assert_same_results(
        &out_1,
        &out_2,
        &format!("{name} csr-out 1 vs 2 threads"),
        false,
    );
    assert_same_results(&csr_1, &out_2, &format!("{name} csr vs csr-out"), false);
    let model_1 = run_and_verify(&stores.model, source, 1, &format!("{name} model"));
    let model_2 = run_and_verify(&stores.model, source, 2, &format!("{name} model"));
    assert_same_results(
        &model_1,
        &model_2,
        &format!("{name} model 1 vs 2 threads"),
        true,
    );
    assert_same_results(&csr_2, &model_2, &format!("{name} csr vs model"), false);
    eprintln!(
        "{name}: {} vertices, {} edges; {}; {}; {}; {}",
        vertex_count,
        edges.len(),
        KernelOutput::Bfs(csr_2.bfs).summary(),
        KernelOutput::Components(csr_2.afforest).summary(),
        KernelOutput::Triangles(csr_2.triangles).summary(),
        KernelOutput::Sssp(csr_2.sssp).summary(),
    );
}
