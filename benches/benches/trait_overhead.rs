//! Does a kernel written against the core traits cost anything on `Csr`?
//!
//! 20 iterations of pull PageRank over a uniform graph, once through
//! `InEdges`/`OutNeighbors` and once directly over `Csr`'s arrays. The
//! two must be within 3% (issue 2); BENCHMARKS.md records the ratio.

use criterion::{Criterion, criterion_group, criterion_main};
use dyngraph::core::StoreConfig;
use dyngraph::core::{Csr, CsrOptions, InEdges, InNeighbors, OutNeighbors};
use dyngraph_benches::uniform_edges;
use rayon::prelude::*;
use std::hint::black_box;

const DAMPING: f32 = 0.85;
const ITERATIONS: usize = 20;

/// Pull PageRank through the traits: works on any store.
fn pagerank_traits<G: OutNeighbors + InEdges + Sync>(graph: &G) -> Vec<f32> {
    let incoming = graph.in_edges().expect("built with in-edges");
    let n = graph.vertex_count();
    let base = (1.0 - DAMPING) / n as f32;
    let mut rank = vec![1.0 / n as f32; n];
    let mut contribution = vec![0.0f32; n];
    for _ in 0..ITERATIONS {
        contribution.par_iter_mut().enumerate().for_each(|(v, c)| {
            let degree = graph.out_degree(v as u32);
            *c = if degree == 0 {
                0.0
            } else {
                rank[v] / degree as f32
            };
        });
        rank.par_iter_mut().enumerate().for_each(|(v, r)| {
            let sum: f32 = incoming
                .in_neighbors(v as u32)
                .map(|u| contribution[u as usize])
                .sum();
            *r = base + DAMPING * sum;
        });
    }
    rank
}

/// The same loop written by hand over the arrays.
fn pagerank_slices(csr: &Csr) -> Vec<f32> {
    let offsets = csr.offsets();
    let in_offsets = csr.in_offsets().expect("transposed");
    let in_sources = csr.in_sources().expect("transposed");
    let n = offsets.len() - 1;
    let base = (1.0 - DAMPING) / n as f32;
    let mut rank = vec![1.0 / n as f32; n];
    let mut contribution = vec![0.0f32; n];
    for _ in 0..ITERATIONS {
        contribution.par_iter_mut().enumerate().for_each(|(v, c)| {
            let degree = offsets[v + 1] - offsets[v];
            *c = if degree == 0 {
                0.0
            } else {
                rank[v] / degree as f32
            };
        });
        rank.par_iter_mut().enumerate().for_each(|(v, r)| {
            let sources = &in_sources[in_offsets[v] as usize..in_offsets[v + 1] as usize];
            let sum: f32 = sources.iter().map(|&u| contribution[u as usize]).sum();
            *r = base + DAMPING * sum;
        });
    }
    rank
}

fn bench(c: &mut Criterion) {
    // 2^20 vertices, 16 edges each: 16.8M edges, sized for a 2-core machine.
    let edges = uniform_edges(1 << 20, 16, 42);
    let csr = Csr::from_edges(&edges, CsrOptions::default().in_edges(true)).expect("valid graph");
    drop(edges);
    assert_eq!(
        pagerank_traits(&csr),
        pagerank_slices(&csr),
        "both versions compute the same ranks"
    );

    let mut group = c.benchmark_group("pagerank_pull_20_iterations");
    group.sample_size(10);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        group.bench_function(format!("traits/{threads}t"), |b| {
            b.iter(|| pool.install(|| black_box(pagerank_traits(black_box(&csr)))))
        });
        group.bench_function(format!("slices/{threads}t"), |b| {
            b.iter(|| pool.install(|| black_box(pagerank_slices(black_box(&csr)))))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
