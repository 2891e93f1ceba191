//! CSR++ (`dyngraph-csrpp`) against `Csr` and against itself with the two
//! allocators (issue 6).
//!
//! Inputs: a shuffled Kronecker stream (`CSRPP_BENCH_SCALE`, default 19,
//! edge factor 10: 5,242,880 edges, so the file runs in a few minutes on
//! two shared cores; `CSRPP_BENCH_SCALE=21` gives the 20,971,520
//! edges, about 15 minutes) and the real streams of
//! `../shared/data` (sx-mathoverflow base + dynamic, CollegeMsg), skipped
//! when absent. Groups (filter with `cargo bench ... -- <group>`):
//!
//! - `insert_single`: concurrent single-edge inserts through a
//!   `ConcurrentWriter` with 1 and 2 threads, system allocator vs arena.
//! - `batch`: inserting the last 0.01 %, 0.1 %, 1 %, 10 % of a stream into a
//!   store holding the rest (system allocator, arena, system with slab
//!   headroom), vs rebuilding `Csr` from all edges.
//! - `kernels`: PageRank (10 iterations) and BFS on `Csr`, on `CsrPP` built
//!   in one batch, and on `CsrPP` after 100 batches of inserts (loaded with
//!   exact or power-of-two slab packing, and with segment re-packing).
//! - `clone`: `CsrPP::clone` (parallel) vs `Csr::clone` (a copy of its
//!   arrays).
//! - `delete`: deleting 1 % of the edges one at a time, physical vs logical
//!   (and the compaction after logical deletes).
//!
//! Bytes per edge are printed to stderr when the inputs are built.
//! `CSRPP_BENCH_GROUPS` and `CSRPP_BENCH_INPUTS` (comma-separated name
//! prefixes, e.g. `batch,kernels` and `kron`) restrict what is built and run.

use criterion::{BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput};
use dyngraph::core::StoreConfig;
use dyngraph::core::{
    Csr, CsrOptions, Edge, FromEdges, Graph, GraphUpdate, OutNeighbors, VertexId,
};
use dyngraph::csrpp::{AllocatorKind, CsrPP, CsrPPOptions, DeleteMode};
use dyngraph::kernels::{BfsOptions, PageRankOptions, bfs, pagerank};
use dyngraph::loader::{Generator, LoadOptions, Order, load_edge_stream};
use rayon::prelude::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

struct Input {
    name: String,
    edges: Vec<Edge>,
}

fn shared_data(relative: &str) -> Option<Vec<Edge>> {
    let path = format!(
        "{}/../../shared/data/{relative}",
        env!("CARGO_MANIFEST_DIR")
    );
    if !std::path::Path::new(&path).exists() {
        eprintln!("skipping: {path} not found");
        return None;
    }
    let stream = load_edge_stream(&path, &LoadOptions::default()).expect("shared data loads");
    Some(stream.edges().collect())
}

fn inputs() -> Vec<Input> {
    let scale: u32 = std::env::var("CSRPP_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(19);
    let mut inputs = Vec::new();
    if selected("CSRPP_BENCH_INPUTS", "kron") {
        let kronecker = Generator::kronecker(scale, 10)
            .order(Order::Shuffle)
            .seed(6)
            .generate()
            .expect("generator");
        inputs.push(Input {
            name: format!("kron{scale}"),
            edges: kronecker.edges().collect(),
        });
    }
    if let (Some(mut base), Some(dynamic)) = (
        shared_data("sx-mathoverflow/b30/base.wel"),
        shared_data("sx-mathoverflow/b30/dynamic.wel"),
    ) {
        base.extend(dynamic);
        inputs.push(Input {
            name: "mathoverflow".into(),
            edges: base,
        });
    }
    if let Some(edges) = shared_data("CollegeMsg.txt") {
        inputs.push(Input {
            name: "collegemsg".into(),
            edges,
        });
    }
    inputs
}

fn config(allocator: AllocatorKind) -> CsrPPOptions {
    CsrPPOptions::default().allocator(allocator)
}

fn allocator_name(kind: AllocatorKind) -> &'static str {
    match kind {
        AllocatorKind::System => "system",
        AllocatorKind::Arena => "arena",
    }
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

/// Concurrent single-edge insert throughput.
fn insert_single(c: &mut Criterion, inputs: &[Input]) {
    let mut group = c.benchmark_group("csrpp/insert_single");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(1));
    for input in inputs {
        group.throughput(Throughput::Elements(input.edges.len() as u64));
        for threads in [1, 2] {
            let pool = pool(threads);
            for allocator in [AllocatorKind::System, AllocatorKind::Arena] {
                let id = BenchmarkId::new(
                    format!("{}/{}", input.name, allocator_name(allocator)),
                    format!("{threads}t"),
                );
                group.bench_function(id, |b| {
                    b.iter_custom(|iters| {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            let mut graph = CsrPP::new(config(allocator)).unwrap();
                            let start = Instant::now();
                            {
                                let writer = graph.concurrent_writer();
                                pool.install(|| {
                                    input.edges.par_chunks(4096).for_each(|chunk| {
                                        for e in chunk {
                                            writer.insert_edge(e.src, e.dst).unwrap();
                                        }
                                    });
                                });
                            }
                            total += start.elapsed();
                            assert_eq!(graph.edge_count(), input.edges.len() as u64);
                            drop(graph);
                        }
                        total
                    });
                });
            }
        }
    }
    group.finish();
}

/// Batch inserts of a suffix of the stream vs rebuilding `Csr`.
fn batch(c: &mut Criterion, inputs: &[Input]) {
    let mut group = c.benchmark_group("csrpp/batch");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(1));
    for input in inputs {
        let edges = &input.edges;
        group.throughput(Throughput::Elements(edges.len() as u64));
        group.bench_function(BenchmarkId::new(&input.name, "csr_rebuild"), |b| {
            b.iter(|| Csr::from_edges(black_box(edges), CsrOptions::default()).unwrap())
        });
        for (label, per_million) in [
            ("0.01%", 100),
            ("0.1%", 1000),
            ("1%", 10_000),
            ("10%", 100_000),
        ] {
            let batch_len = (edges.len() * per_million / 1_000_000).max(1);
            let (base, new) = edges.split_at(edges.len() - batch_len);
            let variants = [
                ("system", config(AllocatorKind::System)),
                ("arena", config(AllocatorKind::Arena)),
                (
                    "system_headroom",
                    config(AllocatorKind::System).slab_headroom(true),
                ),
            ];
            for (variant, store_config) in variants {
                let store = CsrPP::from_edges(base, store_config).unwrap();
                group.throughput(Throughput::Elements(batch_len as u64));
                let id = BenchmarkId::new(format!("{}/{variant}", input.name), label);
                group.bench_function(id, |b| {
                    b.iter_batched_ref(
                        || store.clone(),
                        |graph| graph.insert_edges(black_box(new)).unwrap(),
                        BatchSize::PerIteration,
                    )
                });
            }
        }
    }
    group.finish();
}

fn max_degree_vertex<G: OutNeighbors + Sync>(graph: &G) -> VertexId {
    (0..graph.vertex_count() as VertexId)
        .into_par_iter()
        .max_by_key(|&v| (graph.out_degree(v), std::cmp::Reverse(v)))
        .unwrap_or(0)
}

/// PageRank and BFS on `Csr` and on `CsrPP` fresh and after 100 batches.
fn kernels(c: &mut Criterion, inputs: &[Input]) {
    let mut group = c.benchmark_group("csrpp/kernels");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(1));
    let pr = PageRankOptions {
        damping: 0.85,
        max_iterations: 10,
        tolerance: 0.0,
    };
    for input in inputs {
        let edges = &input.edges;
        let csr = Csr::from_edges(edges, CsrOptions::default().sort(true).in_edges(true)).unwrap();
        let reverse = CsrPPOptions::default().in_edges(true);
        let fresh = CsrPP::from_edges(edges, reverse.clone()).unwrap();
        // Half the stream in one batch, then 100 batches of 0.5 %.
        let half = edges.len() / 2;
        let mut updated = CsrPP::from_edges(&edges[..half], reverse).unwrap();
        for chunk in edges[half..].chunks((edges.len() - half).div_ceil(100)) {
            updated.insert_edges(chunk).unwrap();
        }
        assert_eq!(updated.edge_count(), csr.edge_count());
        // The same updates on a store whose load packing left headroom.
        let mut roomy = CsrPP::from_edges(
            &edges[..half],
            CsrPPOptions::default().in_edges(true).slab_headroom(true),
        )
        .unwrap();
        for chunk in edges[half..].chunks((edges.len() - half).div_ceil(100)) {
            roomy.insert_edges(chunk).unwrap();
        }
        // The same updates with segment re-packing (opt-in).
        let mut repacked = CsrPP::from_edges(
            &edges[..half],
            CsrPPOptions::default().in_edges(true).segment_repack(true),
        )
        .unwrap();
        for chunk in edges[half..].chunks((edges.len() - half).div_ceil(100)) {
            repacked.insert_edges(chunk).unwrap();
        }
        let source = max_degree_vertex(&csr);
        let bfs_options = BfsOptions {
            source,
            ..BfsOptions::default()
        };
        eprintln!(
            "{}: {} vertices, {} edges; bytes/edge (out+in lists): Csr {:.2}, CsrPP fresh {:.2}, after 100 batches {:.2} (with slab headroom {:.2}, with segment re-packing {:.2})",
            input.name,
            csr.vertex_count(),
            csr.edge_count(),
            csr.memory_bytes() as f64 / edges.len() as f64,
            fresh.memory_bytes() as f64 / edges.len() as f64,
            updated.memory_bytes() as f64 / edges.len() as f64,
            roomy.memory_bytes() as f64 / edges.len() as f64,
            repacked.memory_bytes() as f64 / edges.len() as f64,
        );
        group.throughput(Throughput::Elements(edges.len() as u64));
        group.bench_function(BenchmarkId::new(&input.name, "pagerank/csr"), |b| {
            b.iter(|| pagerank(&csr, &pr).unwrap())
        });
        group.bench_function(BenchmarkId::new(&input.name, "pagerank/csrpp_fresh"), |b| {
            b.iter(|| pagerank(&fresh, &pr).unwrap())
        });
        group.bench_function(
            BenchmarkId::new(&input.name, "pagerank/csrpp_batched"),
            |b| b.iter(|| pagerank(&updated, &pr).unwrap()),
        );
        group.bench_function(
            BenchmarkId::new(&input.name, "pagerank/csrpp_batched_headroom"),
            |b| b.iter(|| pagerank(&roomy, &pr).unwrap()),
        );
        group.bench_function(
            BenchmarkId::new(&input.name, "pagerank/csrpp_batched_repack"),
            |b| b.iter(|| pagerank(&repacked, &pr).unwrap()),
        );
        group.bench_function(BenchmarkId::new(&input.name, "bfs/csr"), |b| {
            b.iter(|| bfs(&csr, &bfs_options).unwrap())
        });
        group.bench_function(BenchmarkId::new(&input.name, "bfs/csrpp_fresh"), |b| {
            b.iter(|| bfs(&fresh, &bfs_options).unwrap())
        });
        group.bench_function(BenchmarkId::new(&input.name, "bfs/csrpp_batched"), |b| {
            b.iter(|| bfs(&updated, &bfs_options).unwrap())
        });
        group.bench_function(
            BenchmarkId::new(&input.name, "bfs/csrpp_batched_headroom"),
            |b| b.iter(|| bfs(&roomy, &bfs_options).unwrap()),
        );
        group.bench_function(
            BenchmarkId::new(&input.name, "bfs/csrpp_batched_repack"),
            |b| b.iter(|| bfs(&repacked, &bfs_options).unwrap()),
        );
    }
    group.finish();
}

/// Parallel clone vs a copy of `Csr`'s arrays, and memory per edge.
fn clone(c: &mut Criterion, inputs: &[Input]) {
    let mut group = c.benchmark_group("csrpp/clone");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(1));
    for input in inputs {
        let edges = &input.edges;
        let csr = Csr::from_edges(edges, CsrOptions::default().sort(true)).unwrap();
        group.throughput(Throughput::Elements(edges.len() as u64));
        group.bench_function(BenchmarkId::new(&input.name, "csr"), |b| {
            b.iter_with_large_drop(|| csr.clone())
        });
        let roomy = CsrPP::from_edges(edges, CsrPPOptions::default().slab_headroom(true)).unwrap();
        eprintln!(
            "{} ({}, slab headroom): bytes/edge CsrPP {:.2}, Csr {:.2}",
            input.name,
            allocator_name(roomy.allocator_kind()),
            roomy.memory_bytes() as f64 / edges.len() as f64,
            csr.memory_bytes() as f64 / edges.len() as f64,
        );
        drop(roomy);
        for allocator in [AllocatorKind::System, AllocatorKind::Arena] {
            let store = CsrPP::from_edges(edges, config(allocator)).unwrap();
            eprintln!(
                "{} ({}): bytes/edge CsrPP {:.2} (arena reserved {:.2}), Csr {:.2}",
                input.name,
                allocator_name(allocator),
                store.memory_bytes() as f64 / edges.len() as f64,
                store.arena_reserved_bytes() as f64 / edges.len() as f64,
                csr.memory_bytes() as f64 / edges.len() as f64,
            );
            group.bench_function(
                BenchmarkId::new(&input.name, allocator_name(allocator)),
                |b| b.iter_with_large_drop(|| store.clone()),
            );
        }
    }
    group.finish();
}

/// Single-edge deletes of 1 % of the edges, physical vs logical.
fn delete(c: &mut Criterion, inputs: &[Input]) {
    let mut group = c.benchmark_group("csrpp/delete");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(1));
    for input in inputs {
        let edges = &input.edges;
        let victims: Vec<Edge> = edges.iter().step_by(100).copied().collect();
        group.throughput(Throughput::Elements(victims.len() as u64));
        for mode in [DeleteMode::Physical, DeleteMode::Logical] {
            let store =
                CsrPP::from_edges(edges, CsrPPOptions::default().delete_mode(mode)).unwrap();
            let name = format!("{mode:?}").to_lowercase();
            group.bench_function(BenchmarkId::new(&input.name, &name), |b| {
                b.iter_batched_ref(
                    || store.clone(),
                    |graph| {
                        for e in &victims {
                            graph.delete_edge(e.src, e.dst).unwrap();
                        }
                    },
                    BatchSize::PerIteration,
                )
            });
            if mode == DeleteMode::Logical {
                let mut deleted = store.clone();
                for e in &victims {
                    deleted.delete_edge(e.src, e.dst).unwrap();
                }
                group.bench_function(BenchmarkId::new(&input.name, "logical_compact"), |b| {
                    b.iter_batched_ref(
                        || deleted.clone(),
                        |graph| graph.compact(),
                        BatchSize::PerIteration,
                    )
                });
            }
        }
    }
    group.finish();
}

/// Whether `name` is selected by the comma-separated list in `variable`
/// (all when unset). Criterion's own filter skips benchmarks but not the
/// inputs and stores a group builds first, hence these.
fn selected(variable: &str, name: &str) -> bool {
    std::env::var(variable).map_or(true, |list| {
        list.split(',').any(|item| name.starts_with(item))
    })
}

fn main() {
    let inputs: Vec<Input> = inputs()
        .into_iter()
        .filter(|input| selected("CSRPP_BENCH_INPUTS", &input.name))
        .collect();
    let mut criterion = Criterion::default()
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    type Group = fn(&mut Criterion, &[Input]);
    let groups: [(&str, Group); 5] = [
        ("insert_single", insert_single),
        ("batch", batch),
        ("kernels", kernels),
        ("clone", clone),
        ("delete", delete),
    ];
    for (name, group) in groups {
        if selected("CSRPP_BENCH_GROUPS", name) {
            group(&mut criterion, &inputs);
        }
    }
    criterion.final_summary();
}
