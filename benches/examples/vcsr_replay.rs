//! Replays temporal streams into every store of `dyngraph-vcsr` and the
//! `Csr`-rebuilt-per-1%-batch baseline, and prints a markdown table
//! (issue 5): insertion edges/s, rebalances per PMA level, elements moved,
//! resizes, bytes per edge; then 20 iterations of pull PageRank and a BFS
//! on the final graphs at 1 and 2 threads, as ratios to `Csr`.
//!
//! ```sh
//! cargo run --release -p dyngraph-benches --example vcsr_replay -- [KRONECKER_SCALE [EDGE_FACTOR]]
//! ```
//! The Kronecker stream has `EDGE_FACTOR * 2^SCALE` edges (default scale
//! 20, factor 20: 21M edges); scale 0 skips it.

use dyngraph_benches::replay::{
    ArrivalOrderCsr, ReplayResult, ReplayStore, Stream, bfs, bfs_source, bundled_sample, in_pool,
    kronecker_edges, mathoverflow, median_seconds, pagerank, read_edges, replay,
    replay_csr_rebuild, shared_data, split,
};
use dyngraph_core::{Csr, InNeighbors, OutNeighbors};
use dyngraph_vcsr::{Bal, Pcsr, Vcsr};
use std::hint::black_box;

const PAGERANK_ITERATIONS: usize = 20;

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse()
                .expect("numeric arguments: KRONECKER_SCALE [EDGE_FACTOR]")
        })
        .collect();
    let scale = args.first().copied().unwrap_or(20);
    let factor = args.get(1).copied().unwrap_or(20);

    let mut streams = Vec::new();
    if let Some(dir) = shared_data() {
        streams.push(mathoverflow(&dir, 10));
        streams.push(mathoverflow(&dir, 30));
    } else {
        eprintln!("skipping sx-mathoverflow: ../shared/data not found");
    }
    streams.push(split(
        "CollegeMsg (10% base)",
        read_edges(&bundled_sample()),
        10,
    ));
    if scale > 0 {
        let edges = kronecker_edges(scale, factor, 2026);
        let name = format!(
            "Kronecker s{scale} ef{factor} ({}M, 10% base)",
            edges.len() / 1_000_000
        );
        streams.push(split(&name, edges, 10));
    }

    for stream in &streams {
        println!(
            "\n### {} — base {} edges, then {} edges one at a time\n",
            stream.name,
            stream.base.len(),
            stream.dynamic.len()
        );
        insertion_table(stream);
        analytics_table(stream);
    }
}

fn insertion_row(result: &ReplayResult, reference: f64) {
    let levels = if result.report.rebalances_per_level.is_empty() {
        "—".to_string()
    } else {
        result
            .report
            .rebalances_per_level
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join("/")
    };
    println!(
        "| {} | {:.2} | {:.2} | {:.2} | {} | {} | {} | {:.2} |",
        result.store,
        result.dynamic_seconds,
        result.edges_per_second() / 1e6,
        result.edges_per_second() / reference,
        levels,
        result.report.elements_moved,
        result.report.resizes,
        result.bytes_per_edge(),
    );
}

fn insertion_table(stream: &Stream) {
    println!("Insertion (out-edges only), one edge at a time after the base batch:\n");
    println!(
        "| store | dynamic s | M edges/s | × Csr-rebuild | rebalances per level (0/1/…) | elements moved | resizes | bytes/edge |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let (_, csr) = replay_csr_rebuild(stream, false);
    let reference = csr.edges_per_second();
    insertion_row(&csr, reference);
    let (mut vcsr_store, vcsr) = replay::<Vcsr>(stream, false);
    vcsr_store.repack().expect("room for the rebuilt arrays");
    let repacked_bytes = vcsr_store.bytes_per_edge();
    drop(vcsr_store);
    let pcsr = replay::<Pcsr>(stream, false).1;
    insertion_row(&vcsr, reference);
    insertion_row(&pcsr, reference);
    insertion_row(&replay::<Bal>(stream, false).1, reference);
    println!(
        "\nVcsr inserts {:.2}× as fast as Pcsr; Vcsr bytes/edge {:.2}× Csr's ({:.2} bytes/edge, {:.2}× Csr's, after repack()).",
        vcsr.edges_per_second() / pcsr.edges_per_second(),
        vcsr.bytes_per_edge() / csr.bytes_per_edge(),
        repacked_bytes,
        repacked_bytes / csr.bytes_per_edge()
    );
}

/// Times PageRank and BFS on a store replayed with in-edges, against `Csr`.
fn analytics_row<G: OutNeighbors + InNeighbors + Sync>(
    name: &str,
    graph: &G,
    csr_times: &[(f64, f64)],
    csr_ranks: &[f32],
) -> Vec<(f64, f64)> {
    let source = bfs_source(graph);
    let times: Vec<(f64, f64)> = [1, 2]
        .into_iter()
        .map(|threads| {
            in_pool(threads, || {
                let pr = median_seconds(3, || {
                    black_box(pagerank(graph, PAGERANK_ITERATIONS));
                });
                let bfs_time = median_seconds(5, || {
                    black_box(bfs(graph, source));
                });
                (pr, bfs_time)
            })
        })
        .collect();
    let ranks = pagerank(graph, PAGERANK_ITERATIONS);
    let max_difference = ranks
        .iter()
        .zip(csr_ranks)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    let reference = if csr_times.is_empty() {
        &times
    } else {
        csr_times
    };
    println!(
        "| {name} | {:.4} | {:.2} | {:.2} | {:.5} | {:.2} | {:.2} | {:.1e} |",
        times[0].0,
        times[0].0 / reference[0].0,
        times[1].0 / reference[1].0,
        times[0].1,
        times[0].1 / reference[0].1,
        times[1].1 / reference[1].1,
        max_difference,
    );
    times
}

fn analytics_table(stream: &Stream) {
    println!(
        "\nAnalytics on the final graph (replayed again with in-edges), PageRank {PAGERANK_ITERATIONS} iterations (pull) and top-down BFS from the highest-degree vertex; ratios to `Csr` (lower is better):\n"
    );
    println!(
        "| store | PR 1t s | PR 1t × Csr | PR 2t × Csr | BFS 1t s | BFS 1t × Csr | BFS 2t × Csr | max rank diff vs Csr |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let csr = Csr::from_edges(
        &stream.all(),
        dyngraph_core::CsrOptions::default().transpose(true),
    )
    .expect("valid graph");
    let csr_ranks = pagerank(&csr, PAGERANK_ITERATIONS);
    let csr_times = analytics_row("Csr", &csr, &[], &csr_ranks);
    drop(csr);
    analytics_row(
        "Csr, in-edges in arrival order",
        &ArrivalOrderCsr::new(&stream.all()),
        &csr_times,
        &csr_ranks,
    );
    let (mut vcsr, _) = replay::<Vcsr>(stream, true);
    analytics_row("Vcsr", &vcsr, &csr_times, &csr_ranks);
    let streamed_in_density = vcsr.stats().in_density;
    vcsr.repack().expect("room for the rebuilt arrays");
    analytics_row("Vcsr after repack()", &vcsr, &csr_times, &csr_ranks);
    println!(
        "\n(`Vcsr` in-edge density {:.2} at the end of the stream, {:.2} after repack(); out-edge density after repack() {:.2}; bytes/edge with in-edges {:.2})",
        streamed_in_density,
        vcsr.stats().in_density,
        vcsr.stats().out_density,
        vcsr.bytes_per_edge()
    );
    drop(vcsr);
    analytics_of::<Pcsr>(stream, &csr_times, &csr_ranks);
    analytics_of::<Bal>(stream, &csr_times, &csr_ranks);
}

fn analytics_of<S: ReplayStore>(stream: &Stream, csr_times: &[(f64, f64)], csr_ranks: &[f32]) {
    let (store, _) = replay::<S>(stream, true);
    analytics_row(S::NAME, &store, csr_times, csr_ranks);
}
