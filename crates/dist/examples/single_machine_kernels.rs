//! The single-machine side of the scale-out measurements: the same
//! Kronecker graph as `dyngraph gen kron --scale SCALE` writes (and
//! `dyngraph replay --workers W` reads), frozen into a `Csr`, and the rayon
//! kernels on it in a pool of `THREADS` threads.
//!
//! ```text
//! cargo run --release -p dyngraph-dist --example single_machine_kernels -- SCALE [THREADS] [in-edges|replay:BATCH]
//! ```
//!
//! Prints one JSON line: build seconds and each kernel's best-of-three
//! seconds (BFS from the first arrival's source, printed as `source`); with `replay:BATCH`, instead the single-machine replay engine
//! over the rebuild baseline (`CsrRebuild`, the store of the distributed
//! runs in docs/scale-out.md), base 10% and batches of `BATCH` arrivals.

use dyngraph_core::StoreConfig;
use dyngraph_core::{Csr, CsrOptions, Graph};
use dyngraph_kernels::KernelName;
use dyngraph_loader::Generator;
use dyngraph_replay::kernel_options;
use std::time::Instant;

fn main() -> Result<(), dyngraph_core::Error> {
    let mut args = std::env::args().skip(1);
    let scale: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(16);
    let threads: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(2);
    let mode = args.next().unwrap_or_default();
    let in_edges = mode == "in-edges";
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| dyngraph_core::Error::InvalidArgument(e.to_string()))?;
    let stream = pool.install(|| Generator::kronecker(scale, 16).generate())?;
    if let Some(batch) = mode.strip_prefix("replay:") {
        let batch: usize = batch
            .parse()
            .map_err(|_| dyngraph_core::Error::InvalidArgument(format!("batch {batch:?}")))?;
        let stream = dyngraph_replay::Stream::from(stream);
        let options = dyngraph_replay::ReplayOptions {
            batch,
            ..dyngraph_replay::ReplayOptions::default()
        };
        let store = dyngraph_core::StoreOptions::default();
        let (summary, _) = pool.install(|| {
            dyngraph_replay::replay::<dyngraph_core::CsrRebuild>(
                store,
                &stream,
                &options,
                &std::sync::atomic::AtomicBool::new(false),
                &mut dyngraph_replay::NoObserver,
            )
        })?;
        println!(
            "{}",
            serde_json::json!({
                "scale": scale,
                "threads": threads,
                "replay_batch": batch,
                "base_seconds": summary.base_seconds,
                "update_seconds": summary.seconds,
                "batches": summary.batch_count,
                "edges": summary.edges,
            })
        );
        return Ok(());
    }
    let timer = Instant::now();
    let graph = pool.install(|| {
        Csr::from_edges(
            &stream.as_chunk(),
            CsrOptions::default()
                .in_edges(in_edges)
                .vertex_count(stream.vertex_count()),
        )
    })?;
    let build = timer.elapsed().as_secs_f64();
    // A source with an out-edge (a Kronecker graph's vertex 0 may be
    // isolated): the first arrival's.
    let source = stream.src().first().copied().unwrap_or(0);
    let mut seconds = serde_json::Map::new();
    for kernel in [
        KernelName::PageRank,
        KernelName::Bfs,
        KernelName::Afforest,
        KernelName::ReverseWalks,
    ] {
        let options = kernel_options(kernel, source);
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let timer = Instant::now();
            pool.install(|| dyngraph_kernels::run(&graph, &options))?;
            best = best.min(timer.elapsed().as_secs_f64());
        }
        seconds.insert(kernel.as_str().into(), best.into());
    }
    println!(
        "{}",
        serde_json::json!({
            "scale": scale,
            "threads": threads,
            "in_edges": in_edges,
            "source": source,
            "vertices": graph.vertex_count(),
            "edges": graph.edge_count(),
            "build_seconds": build,
            "kernel_seconds": seconds,
        })
    );
    Ok(())
}
