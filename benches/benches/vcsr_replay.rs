//! Inserting a temporal stream into `Vcsr`, `Pcsr`, `Bal`, `CsrPP` and the
//! `Csr`-rebuilt-per-1%-batch baseline (base bulk-built, then the dynamic
//! part one edge at a time), through the replay engine `dyngraph replay`
//! uses; and 20 iterations of `dyngraph-kernels`' PageRank on the final
//! graphs at 1 and 2 threads. sx-mathoverflow b10 when `../shared/data` is
//! present, else the bundled CollegeMsg. `dyngraph replay` prints the
//! full table (latency, bytes per edge, rebalances); this bench gives
//! criterion's statistics for the headline numbers.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use dyngraph::core::CsrRebuild;
use dyngraph::core::StoreConfig;
use dyngraph::core::{Csr, CsrOptions, DynamicStore};
use dyngraph::csrpp::CsrPP;
use dyngraph::kernels::{PageRankOptions, pagerank};
use dyngraph::vcsr::{Bal, Pcsr, Vcsr};
use dyngraph_benches::replay::{
    Workload, bundled_sample, in_pool, kronecker_edges, mathoverflow, read_edges, replay,
    shared_data, split,
};
use std::hint::black_box;
use std::time::Duration;

/// Times the dynamic part alone, one edge at a time; the base is built in
/// the untimed setup.
fn insert_dynamic<S: DynamicStore>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    workload: &Workload,
) {
    let base_only = Workload {
        dynamic: Vec::new(),
        ..workload.clone()
    };
    group.bench_function(S::NAME, |b| {
        b.iter_batched(
            || replay::<S>(&base_only, false, 1).1,
            |mut store| {
                for edge in &workload.dynamic {
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
    let workload = match shared_data() {
        Some(dir) => mathoverflow(&dir, 10),
        None => split("CollegeMsg", read_edges(&bundled_sample()), 10),
    };
    let mut group = c.benchmark_group(format!("insert/{}", workload.name));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Elements(workload.dynamic.len() as u64));
    insert_dynamic::<Vcsr>(&mut group, &workload);
    insert_dynamic::<Pcsr>(&mut group, &workload);
    insert_dynamic::<Bal>(&mut group, &workload);
    insert_dynamic::<CsrPP>(&mut group, &workload);
    let one_percent = (workload.base.len() + workload.dynamic.len()).div_ceil(100);
    group.bench_function("Csr rebuilt per 1%", |b| {
        b.iter(|| black_box(replay::<CsrRebuild>(&workload, false, one_percent).0))
    });
    group.finish();
}

fn analytics(c: &mut Criterion) {
    // 2^18 vertices, 16 edges each: 4.2M edges, replayed as 10% base + rest.
    let workload = split("kronecker", kronecker_edges(18, 16, 5), 10);
    let csr = Csr::from_edges(&workload.all(), CsrOptions::default().in_edges(true))
        .expect("valid graph");
    let vcsr: Vcsr = replay(&workload, true, 1).1;
    let pcsr: Pcsr = replay(&workload, true, 1).1;
    let bal: Bal = replay(&workload, true, 1).1;
    let csrpp: CsrPP = replay(&workload, true, 1).1;
    let options = PageRankOptions::default();
    let mut group = c.benchmark_group("pagerank_20/kronecker_s18_ef16");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for threads in [1, 2] {
        let mut run = |name: &str, f: &(dyn Fn() + Sync)| {
            group.bench_function(format!("{name}/{threads}t"), |b| {
                b.iter(|| in_pool(threads, f))
            });
        };
        run("Csr", &|| {
            black_box(pagerank(&csr, &options).expect("valid options"));
        });
        run("Vcsr", &|| {
            black_box(pagerank(&vcsr, &options).expect("valid options"));
        });
        run("Pcsr", &|| {
            black_box(pagerank(&pcsr, &options).expect("valid options"));
        });
        run("Bal", &|| {
            black_box(pagerank(&bal, &options).expect("valid options"));
        });
        run("CsrPP", &|| {
            black_box(pagerank(&csrpp, &options).expect("valid options"));
        });
    }
    group.finish();
}

criterion_group!(benches, insertion, analytics);
criterion_main!(benches);
