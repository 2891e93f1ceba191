//! Text loading throughput on a Kronecker graph (scale 21, edge factor 16:
//! 33.5M edges by default; `DYNGRAPH_LOADER_SCALE` overrides), as `.el` and
//! as Matrix Market, in one run:
//! - the I/O floor: the same file mapped and scanned for newlines (memchr);
//! - the output floor: the stream's two id columns allocated and written
//!   from two threads, with nothing parsed;
//! - dyngraph's edge-stream and CSR readers at 1 and 2 threads;
//! - graph_builder's edge-list reader and sprs's Matrix Market reader.
//!
//! The files are generated once into `target/bench-data/` and reused.
//! BENCHMARKS.md records edges/s and the ratios.

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use dyngraph::loader::{Format, LoadOptions, load_csr, load_edge_stream};
use dyngraph_benches::kronecker_bench_file;
use graph_builder::prelude::*;
use rayon::prelude::*;
use std::hint::black_box;
use std::time::Duration;

fn scale() -> u32 {
    std::env::var("DYNGRAPH_LOADER_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(21)
}

fn newline_count(path: &std::path::Path) -> usize {
    let file = std::fs::File::open(path).expect("open");
    // SAFETY: the bench file is written once before the benchmarks start
    // and nothing modifies it while they run.
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("map");
    memchr::memchr_iter(b'\n', &map).count()
}

/// Two zeroed columns of `edges` ids (as the stream reader allocates
/// them), each entry written once in parallel chunks.
fn fill_stream_columns(edges: usize) -> (Vec<u32>, Vec<u32>) {
    let mut src = vec![0u32; edges];
    let mut dst = vec![0u32; edges];
    const CHUNK: usize = 1 << 16;
    src.par_chunks_mut(CHUNK)
        .zip(dst.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(chunk, (src, dst))| {
            let first = (chunk * CHUNK) as u32;
            for (offset, (s, d)) in src.iter_mut().zip(dst).enumerate() {
                *s = first.wrapping_add(offset as u32);
                *d = s.rotate_left(7);
            }
        });
    (src, dst)
}

fn bench(c: &mut Criterion) {
    let scale = scale();
    let (el, edges) = kronecker_bench_file(scale, Format::EdgeList);
    let (mtx, _) = kronecker_bench_file(scale, Format::MatrixMarket);

    let mut group = c.benchmark_group(format!("load_kron{scale}_k16"));
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(edges));

    group.bench_function("newline_scan_el", |b| {
        b.iter(|| black_box(newline_count(&el)))
    });
    group.bench_function("newline_scan_mtx", |b| {
        b.iter(|| black_box(newline_count(&mtx)))
    });
    // The other floor: a stream read must also fill its output, two `u32`
    // columns of `edges` entries in fresh memory. This writes them from two
    // threads with nothing to parse, so the page faults and page clears of
    // 8 bytes per edge are all it measures.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("pool");
    group.bench_function("output_fill_el/2t", |b| {
        b.iter(|| pool.install(|| black_box(fill_stream_columns(edges as usize))))
    });
    for threads in [1, 2] {
        let options = LoadOptions::default().threads(threads);
        group.bench_function(format!("dyngraph_stream_el/{threads}t"), |b| {
            b.iter(|| black_box(load_edge_stream(&el, &options).expect("load")))
        });
        group.bench_function(format!("dyngraph_csr_el/{threads}t"), |b| {
            b.iter(|| black_box(load_csr(&el, &options).expect("load")))
        });
        group.bench_function(format!("dyngraph_csr_mtx/{threads}t"), |b| {
            b.iter(|| black_box(load_csr(&mtx, &options).expect("load")))
        });
    }
    // graph_builder's DirectedCsrGraph holds out- and in-edges, so the fair
    // comparison is our CSR with the transpose; both unsorted.
    let options = LoadOptions::default().threads(2).in_edges(true);
    group.bench_function("dyngraph_csr_transpose_el/2t", |b| {
        b.iter(|| black_box(load_csr(&el, &options).expect("load")))
    });
    group.bench_function("graph_builder_el/2t", |b| {
        b.iter(|| {
            pool.install(|| {
                let graph: DirectedCsrGraph<u32> = GraphBuilder::new()
                    .csr_layout(CsrLayout::Unsorted)
                    .file_format(EdgeListInput::default())
                    .path(&el)
                    .build()
                    .expect("graph_builder load");
                black_box(graph)
            })
        })
    });
    group.bench_function("sprs_mtx_to_csr", |b| {
        b.iter(|| {
            let triplets = sprs::io::read_matrix_market::<sprs::num_kinds::Pattern, usize, _>(&mtx)
                .expect("sprs load");
            black_box(triplets.to_csr::<usize>())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
