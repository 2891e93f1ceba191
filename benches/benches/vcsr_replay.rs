//! Inserting a temporal stream into every store of the registry
//! (`StoreKind::ALL`, less those `dyngraph_benches::stores` leaves out, with
//! why) and the `Csr`-rebuilt-per-1%-batch baseline (base bulk-built, then the dynamic
//! part one edge at a time), through the replay engine `dyngraph replay`
//! uses; and 20 iterations of `dyngraph-kernels`' PageRank on the final
//! graphs at 1 and 2 threads. sx-mathoverflow b10 when `../shared/data` is
//! present, else the bundled CollegeMsg. `dyngraph replay` prints the
//! full table (latency, bytes per edge, rebalances); this bench gives
//! criterion's statistics for the headline numbers.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use dyngraph::core::CsrRebuild;
use dyngraph::core::StoreConfig;
use dyngraph::core::{Csr, CsrOptions, DynamicStore, ReadGraph, StoreOptions};
use dyngraph::kernels::{PageRankOptions, pagerank};
use dyngraph::stores::{StoreKind, StoreSettings, StoreVisitor};
use dyngraph_benches::replay::{
    Workload, bundled_sample, in_pool, kronecker_edges, mathoverflow, read_edges, replay,
    shared_data, split,
};
use dyngraph_benches::stores::{left_out_of_analytics, left_out_of_edge_at_a_time};
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

/// [`insert_dynamic`] on the store type a kind names.
struct InsertDynamic<'g, 'c, 'w> {
    group: &'g mut criterion::BenchmarkGroup<'c, criterion::measurement::WallTime>,
    workload: &'w Workload,
}

impl StoreVisitor for InsertDynamic<'_, '_, '_> {
    type Output = ();

    fn visit<S: DynamicStore + 'static>(self, _: S::Options) {
        insert_dynamic::<S>(self.group, self.workload);
    }
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
    for &kind in StoreKind::ALL {
        if left_out_of_edge_at_a_time(kind).is_none() {
            let work = InsertDynamic {
                group: &mut group,
                workload: &workload,
            };
            kind.visit(&StoreSettings::default(), StoreOptions::default(), work);
        }
    }
    let one_percent = (workload.base.len() + workload.dynamic.len()).div_ceil(100);
    group.bench_function("Csr rebuilt per 1%", |b| {
        b.iter(|| black_box(replay::<CsrRebuild>(&workload, false, one_percent).0))
    });
    group.finish();
}

/// PageRank at 1 and 2 threads on the store type a kind names, replayed
/// from the workload edge at a time.
struct PageRankAfterUpdates<'g, 'c, 'w> {
    group: &'g mut criterion::BenchmarkGroup<'c, criterion::measurement::WallTime>,
    workload: &'w Workload,
}

impl StoreVisitor for PageRankAfterUpdates<'_, '_, '_> {
    type Output = ();

    fn visit<S: DynamicStore + 'static>(self, _: S::Options) {
        let store: S = replay(self.workload, true, 1).1;
        pagerank_rows(self.group, S::NAME, &store);
    }
}

/// `name/1t` and `name/2t`: PageRank on `graph` in pools of 1 and 2 threads.
fn pagerank_rows<G: ReadGraph + Sync>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    graph: &G,
) {
    let options = PageRankOptions::default();
    for threads in [1, 2] {
        group.bench_function(format!("{name}/{threads}t"), |b| {
            b.iter(|| {
                in_pool(threads, || {
                    black_box(pagerank(graph, &options).expect("valid options"));
                })
            })
        });
    }
}

fn analytics(c: &mut Criterion) {
    // 2^18 vertices, 16 edges each: 4.2M edges, replayed as 10% base + rest.
    let workload = split("kronecker", kronecker_edges(18, 16, 5), 10);
    let csr = Csr::from_edges(&workload.all(), CsrOptions::default().in_edges(true))
        .expect("valid graph");
    let mut group = c.benchmark_group("pagerank_20/kronecker_s18_ef16");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    pagerank_rows(&mut group, "Csr", &csr);
    drop(csr);
    for &kind in StoreKind::ALL {
        if left_out_of_analytics(kind).is_none() {
            let work = PageRankAfterUpdates {
                group: &mut group,
                workload: &workload,
            };
            kind.visit(&StoreSettings::default(), StoreOptions::default(), work);
        }
    }
    group.finish();
}

criterion_group!(benches, insertion, analytics);
criterion_main!(benches);
