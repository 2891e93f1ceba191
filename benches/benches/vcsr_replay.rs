//! Issue 5: inserting a temporal stream into `Vcsr`, `Pcsr`, `Bal` and the
//! `Csr`-rebuilt-per-1%-batch baseline (base as a batch, then the dynamic
//! part one edge at a time), and 20 iterations of pull PageRank on the
//! final graphs at 1 and 2 threads. The `vcsr_replay` example prints the
//! full table (rebalances per level, moves, bytes per edge, BFS, the
//! Kronecker stream); this bench gives criterion's statistics for the
//! headline numbers. sx-mathoverflow b10 when `../shared/data` is present,
//! else the bundled CollegeMsg.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use dyngraph_benches::replay::{
    ReplayStore, Stream, bundled_sample, in_pool, kronecker_edges, mathoverflow, pagerank,
    read_edges, replay, replay_csr_rebuild, shared_data, split,
};
use dyngraph_core::{Csr, CsrOptions};
use dyngraph_vcsr::{Bal, Pcsr, Vcsr};
use std::hint::black_box;
use std::time::Duration;

fn insert_dynamic<S: ReplayStore>(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    stream: &Stream,
) {
    c.bench_function(S::NAME, |b| {
        b.iter_batched(
            || {
                let mut store = S::empty(false);
                store
                    .insert_edges(&stream.base)
                    .expect("ids within the limit");
                store
            },
            |mut store| {
                for edge in &stream.dynamic {
                    store
                        .insert_edge(edge.src, edge.dst)
                        .expect("ids within the limit");
                }
                store
            },
            BatchSize::LargeInput,
        )
    });
}

fn insertion(c: &mut Criterion) {
    let stream = match shared_data() {
        Some(dir) => mathoverflow(&dir, 10),
        None => split("CollegeMsg", read_edges(&bundled_sample()), 10),
    };
    let mut group = c.benchmark_group(format!("insert/{}", stream.name));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Elements(stream.dynamic.len() as u64));
    insert_dynamic::<Vcsr>(&mut group, &stream);
    insert_dynamic::<Pcsr>(&mut group, &stream);
    insert_dynamic::<Bal>(&mut group, &stream);
    group.bench_function("Csr rebuilt per 1%", |b| {
        b.iter(|| black_box(replay_csr_rebuild(&stream, false)))
    });
    group.finish();
}

fn analytics(c: &mut Criterion) {
    // 2^18 vertices, 16 edges each: 4.2M edges, replayed as 10% base + rest.
    let stream = split("kronecker", kronecker_edges(18, 16, 5), 10);
    let csr =
        Csr::from_edges(&stream.all(), CsrOptions::default().transpose(true)).expect("valid graph");
    let (vcsr, _) = replay::<Vcsr>(&stream, true);
    let (pcsr, _) = replay::<Pcsr>(&stream, true);
    let (bal, _) = replay::<Bal>(&stream, true);
    let mut group = c.benchmark_group("pagerank_20/kronecker_s18_ef16");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for threads in [1, 2] {
        group.bench_function(format!("Csr/{threads}t"), |b| {
            b.iter(|| in_pool(threads, || black_box(pagerank(&csr, 20))))
        });
        group.bench_function(format!("Vcsr/{threads}t"), |b| {
            b.iter(|| in_pool(threads, || black_box(pagerank(&vcsr, 20))))
        });
        group.bench_function(format!("Pcsr/{threads}t"), |b| {
            b.iter(|| in_pool(threads, || black_box(pagerank(&pcsr, 20))))
        });
        group.bench_function(format!("Bal/{threads}t"), |b| {
            b.iter(|| in_pool(threads, || black_box(pagerank(&bal, 20))))
        });
    }
    group.finish();
}

criterion_group!(benches, insertion, analytics);
criterion_main!(benches);
