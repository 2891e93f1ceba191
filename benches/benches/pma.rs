//! Packed-memory arrays (issue 4): insert throughput per gap policy and
//! workload, and full-scan throughput against a dense `Vec`.
//!
//! Element moves per insert are counts, printed by the
//! `pma_policies` example (exact, one pass, at the 10M elements
//! over 1M runs); this bench times inserts at 1M elements over 100k runs,
//! because ten samples at 10M per configuration would take most of an hour
//! on the shared 2-core machine. Scans use the full size.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use dyngraph::pma::{
    DegreeProportional, Even, GapPolicy, HistoryAdaptive, PackedRuns, PackedSet, PmaOptions,
};
use dyngraph_benches::{RunWorkload, run_workload};
use std::hint::black_box;
use std::time::Duration;

/// Appends per insert benchmark iteration, and runs they go to.
const INSERT_ELEMENTS: usize = 1_000_000;
const INSERT_RUNS: u32 = 100_000;
/// Elements and runs of the scan benchmark (the sizes).
const SCAN_ELEMENTS: usize = 10_000_000;
const SCAN_RUNS: u32 = 1_000_000;

fn policy(name: &str) -> Box<dyn GapPolicy> {
    match name {
        "even" => Box::new(Even),
        "degree" => Box::<DegreeProportional>::default(),
        _ => Box::<HistoryAdaptive>::default(),
    }
}

fn inserts(c: &mut Criterion) {
    let mut group = c.benchmark_group("pma_insert");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(4));
    group.warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(INSERT_ELEMENTS as u64));
    for workload in [
        RunWorkload::Uniform,
        RunWorkload::Hammer,
        RunWorkload::Zipf(2.0),
    ] {
        let ops = run_workload(workload, INSERT_RUNS, INSERT_ELEMENTS, 42);
        for name in ["even", "degree", "history"] {
            // Even gaps under Zipf(2) redistribute most of the array every
            // few inserts into the hot run (thousands of moves per insert,
            // see the `pma_policies` example): one pass of 1M takes minutes,
            // too long for ten samples here.
            if name == "even" && matches!(workload, RunWorkload::Zipf(_)) {
                continue;
            }
            group.bench_function(format!("{}/runs-{name}", workload.name()), |b| {
                b.iter_batched(
                    || {
                        let mut runs =
                            PackedRuns::<u32, Box<dyn GapPolicy>>::with_policy(policy(name));
                        runs.add_runs(INSERT_RUNS as usize)
                            .expect("within MAX_CAPACITY");
                        runs
                    },
                    |mut runs| {
                        for (i, &run) in ops.iter().enumerate() {
                            runs.push(run as usize, i as u32).expect("run exists");
                        }
                        runs
                    },
                    BatchSize::PerIteration,
                )
            });
        }
        group.bench_function(format!("{}/set-pcsr", workload.name()), |b| {
            b.iter_batched(
                || {
                    (
                        PackedSet::<(u32, u32)>::new(),
                        vec![0u32; INSERT_RUNS as usize],
                    )
                },
                |(mut set, mut next)| {
                    for &run in &ops {
                        let seq = &mut next[run as usize];
                        set.insert((run, *seq));
                        *seq += 1;
                    }
                    set
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

fn scans(c: &mut Criterion) {
    let ops = run_workload(RunWorkload::Uniform, SCAN_RUNS, SCAN_ELEMENTS, 42);
    let mut runs: PackedRuns<u32> = PackedRuns::new();
    runs.add_runs(SCAN_RUNS as usize)
        .expect("within MAX_CAPACITY");
    for (i, &run) in ops.iter().enumerate() {
        runs.push(run as usize, i as u32).expect("run exists");
    }
    let dense_runs: Vec<u32> = runs.runs().flatten().copied().collect();
    // The same runs as CSR: offsets into the dense vector.
    let mut offsets = Vec::with_capacity(runs.run_count() + 1);
    offsets.push(0usize);
    for run in runs.runs() {
        offsets.push(offsets.last().copied().unwrap_or(0) + run.len());
    }
    let set: PackedSet<u32> = (0..SCAN_ELEMENTS as u32)
        .map(|x| x.wrapping_mul(2_654_435_761))
        .collect();
    let dense_set: Vec<u32> = set.iter().collect();
    // The same keys with 256-slot leaves: fewer, longer inner loops.
    let set_wide = PackedSet::from_iter_with(
        PmaOptions::default().section_size(256),
        dense_set.iter().copied(),
    )
    .expect("valid configuration");
    eprintln!(
        "scan inputs: runs density {:.3} ({} slots), set density {:.3} ({} slots)",
        runs.density(),
        runs.capacity(),
        set.density(),
        set.capacity()
    );

    let mut group = c.benchmark_group("pma_scan");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    group.warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(SCAN_ELEMENTS as u64));
    group.bench_function("runs-degree", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for run in runs.runs() {
                for &x in run {
                    sum += u64::from(x);
                }
            }
            black_box(sum)
        })
    });
    group.bench_function("runs-dense-vec", |b| {
        b.iter(|| black_box(dense_runs.iter().map(|&x| u64::from(x)).sum::<u64>()))
    });
    group.bench_function("runs-csr-walk", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for v in 0..offsets.len() - 1 {
                for &x in &dense_runs[offsets[v]..offsets[v + 1]] {
                    sum += u64::from(x);
                }
            }
            black_box(sum)
        })
    });
    group.bench_function("set-leaf-slices", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for leaf in set.leaf_slices() {
                for &x in leaf {
                    sum += u64::from(x);
                }
            }
            black_box(sum)
        })
    });
    group.bench_function("set-leaf-slices-256", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for leaf in set_wide.leaf_slices() {
                for &x in leaf {
                    sum += u64::from(x);
                }
            }
            black_box(sum)
        })
    });
    group.bench_function("set-iter", |b| {
        b.iter(|| black_box(set.iter().map(u64::from).sum::<u64>()))
    });
    group.bench_function("set-dense-vec", |b| {
        b.iter(|| black_box(dense_set.iter().map(|&x| u64::from(x)).sum::<u64>()))
    });
    group.finish();
}

criterion_group!(benches, inserts, scans);
criterion_main!(benches);
