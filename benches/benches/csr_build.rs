//! `Csr` build throughput from struct-of-arrays edge buffers (the loader's
//! shape) at 1 and 2 threads, for 30M edges. BENCHMARKS.md records edges/s.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dyngraph::core::StoreConfig;
use dyngraph::core::{Csr, CsrOptions, EdgeChunk, EdgeChunks};
use dyngraph_benches::{to_columns, uniform_edges};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    // 1,875,000 vertices x 16 = 30M edges.
    let edges = uniform_edges(1_875_000, 16, 7);
    let (src, dst) = to_columns(&edges);
    drop(edges);
    let chunks = [EdgeChunk {
        src: &src,
        dst: &dst,
        weights: None,
    }];

    let mut group = c.benchmark_group("csr_build_30m");
    group.sample_size(10);
    group.throughput(Throughput::Elements(src.len() as u64));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        group.bench_function(format!("from_chunks/{threads}t"), |b| {
            b.iter(|| {
                pool.install(|| {
                    black_box(Csr::from_edges(
                        &EdgeChunks::new(&chunks).unwrap(),
                        CsrOptions::default(),
                    ))
                })
            })
        });
        group.bench_function(format!("from_chunks_transpose/{threads}t"), |b| {
            b.iter(|| {
                pool.install(|| {
                    black_box(Csr::from_edges(
                        &EdgeChunks::new(&chunks).unwrap(),
                        CsrOptions::default().in_edges(true),
                    ))
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
