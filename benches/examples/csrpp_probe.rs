//! A quick, noise-tolerant probe of CSR++'s three performance goals (issue
//! 6): the 1 % batch insert against a `Csr` rebuild, and PageRank / BFS on
//! `CsrPP` against `Csr` right after loading and after 100 batches. Each
//! measurement is repeated `reps` times, interleaved across the stores,
//! and the minimum is kept: on a shared machine the minimum of interleaved
//! runs is the steadiest figure. The criterion bench `csrpp` is the
//! reference; this is for iterating.
//!
//! ```sh
//! cargo run --profile perf -p dyngraph-benches --example csrpp_probe -- [scale] [reps] [batch|kernels|all]
//! ```

use dyngraph::core::StoreConfig;
use dyngraph::core::{
    Csr, CsrOptions, Edge, FromEdges, Graph, GraphUpdate, InEdges, OutNeighbors, VertexId,
};
use dyngraph::csrpp::{CsrPP, CsrPPOptions};
use dyngraph::kernels::{BfsOptions, PageRankOptions, bfs, pagerank};
use dyngraph::loader::{Generator, Order};
use dyngraph_benches::process_cpu_time;
use rayon::prelude::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// With `CSRPP_PROBE_CPU` set, the CPU time `f` took (robust when other
/// processes compete for the cores; use with `RAYON_NUM_THREADS=1`, as
/// idle rayon workers spin); otherwise the wall time.
fn time<T>(f: impl FnOnce() -> T) -> Duration {
    let cpu = std::env::var_os("CSRPP_PROBE_CPU").is_some();
    let (start, cpu_start) = (Instant::now(), cpu.then(process_cpu_time).flatten());
    black_box(f());
    match cpu_start {
        Some(before) => process_cpu_time().map_or(start.elapsed(), |after| after - before),
        None => start.elapsed(),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn max_degree_vertex<G: OutNeighbors + Sync>(graph: &G) -> VertexId {
    (0..graph.vertex_count() as VertexId)
        .into_par_iter()
        .max_by_key(|&v| (graph.out_degree(v), std::cmp::Reverse(v)))
        .unwrap_or(0)
}

fn batch(edges: &[Edge], reps: usize) {
    let batch_len = edges.len() / 100;
    let (base, new) = edges.split_at(edges.len() - batch_len);
    let stores = [
        CsrPP::from_edges(base, base_config()).unwrap(),
        CsrPP::from_edges(base, base_config().segment_repack(true)).unwrap(),
    ];
    let mut rebuild = Duration::MAX;
    let mut insert = [Duration::MAX; 2];
    for _ in 0..reps {
        rebuild = rebuild.min(time(|| {
            Csr::from_edges(black_box(edges), CsrOptions::default()).unwrap()
        }));
        for (store, best) in stores.iter().zip(&mut insert) {
            let mut graph = store.clone();
            *best = (*best).min(time(|| graph.insert_edges(black_box(new)).unwrap()));
            drop(graph);
        }
    }
    println!(
        "batch 1% ({batch_len} edges): Csr rebuild {:.1} ms, CsrPP insert {:.1} ms ({:.2}x), with re-pack {:.1} ms ({:.2}x)",
        ms(rebuild),
        ms(insert[0]),
        rebuild.as_secs_f64() / insert[0].as_secs_f64(),
        ms(insert[1]),
        rebuild.as_secs_f64() / insert[1].as_secs_f64()
    );
}

/// `CsrPPOptions::default()`, with `CSRPP_PROBE_SEGMENT` as segment size if set.
fn base_config() -> CsrPPOptions {
    match std::env::var("CSRPP_PROBE_SEGMENT")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(size) => CsrPPOptions::default().segment_size(size),
        None => CsrPPOptions::default(),
    }
}

/// Out-arrays of two or more slots, and how many of them do not start
/// within 64 bytes after the end (at power-of-two capacity, or exactly)
/// of the previous such array in vertex order: a measure of how far a
/// scan jumps around.
fn layout_breaks(store: &CsrPP) -> (usize, usize) {
    let (mut lists, mut breaks, mut previous_end) = (0, 0, None::<(usize, usize)>);
    for v in 0..store.vertex_count() as VertexId {
        let slots = store.out_slots(v);
        if slots.len() < 2 {
            continue;
        }
        let start = slots.as_ptr() as usize;
        lists += 1;
        if let Some((exact, roomy)) = previous_end {
            let near = |end: usize| start >= end && start - end <= 64;
            if !near(exact) && !near(roomy) {
                breaks += 1;
            }
        }
        previous_end = Some((
            start + 4 * slots.len(),
            start + 4 * slots.len().next_power_of_two(),
        ));
    }
    (lists, breaks)
}

fn kernels(edges: &[Edge], reps: usize) {
    let csr = Csr::from_edges(edges, CsrOptions::default().sort(true).in_edges(true)).unwrap();
    let config = base_config().in_edges(true);
    let fresh = CsrPP::from_edges(edges, config.clone()).unwrap();
    let half = edges.len() / 2;
    let mut updated = CsrPP::from_edges(&edges[..half], config.clone()).unwrap();
    let start = Instant::now();
    for chunk in edges[half..].chunks((edges.len() - half).div_ceil(100)) {
        updated.insert_edges(chunk).unwrap();
    }
    let batches = start.elapsed();
    assert_eq!(updated.edge_count(), csr.edge_count());
    let mut repacked =
        CsrPP::from_edges(&edges[..half], config.clone().segment_repack(true)).unwrap();
    let start = Instant::now();
    for chunk in edges[half..].chunks((edges.len() - half).div_ceil(100)) {
        repacked.insert_edges(chunk).unwrap();
    }
    println!(
        "100 batches with re-pack took {:.0} ms",
        ms(start.elapsed())
    );
    // A clone allocates the whole store afresh in vertex order: how much
    // of what the batches cost a scan is layout that a copy restores.
    let start = Instant::now();
    let cloned = updated.clone();
    println!(
        "clone of the batched store took {:.0} ms",
        ms(start.elapsed())
    );
    let per_edge = |bytes: usize| bytes as f64 / edges.len() as f64;
    for (name, store) in [
        ("fresh", &fresh),
        ("batched", &updated),
        ("batched with re-pack", &repacked),
        ("batched, then cloned", &cloned),
    ] {
        let (lists, breaks) = layout_breaks(store);
        println!(
            "{name}: {breaks} of {lists} out-arrays (2+ slots) do not follow the previous one within 64 bytes"
        );
    }
    println!(
        "100 batches took {:.0} ms; bytes/edge: Csr {:.2}, fresh {:.2}, batched {:.2}, batched with re-pack {:.2}, batched then cloned {:.2}",
        ms(batches),
        per_edge(csr.memory_bytes()),
        per_edge(fresh.memory_bytes()),
        per_edge(updated.memory_bytes()),
        per_edge(repacked.memory_bytes()),
        per_edge(cloned.memory_bytes())
    );
    let pr = PageRankOptions {
        damping: 0.85,
        max_iterations: 10,
        tolerance: 0.0,
    };
    let bfs_options = BfsOptions {
        source: max_degree_vertex(&csr),
        ..BfsOptions::default()
    };
    let mut best = [Duration::MAX; 10];
    for _ in 0..reps {
        best[0] = best[0].min(time(|| pagerank(&csr, &pr).unwrap()));
        best[1] = best[1].min(time(|| pagerank(&fresh, &pr).unwrap()));
        best[2] = best[2].min(time(|| pagerank(&updated, &pr).unwrap()));
        best[6] = best[6].min(time(|| pagerank(&repacked, &pr).unwrap()));
        best[8] = best[8].min(time(|| pagerank(&cloned, &pr).unwrap()));
        for _ in 0..5 {
            best[3] = best[3].min(time(|| bfs(&csr, &bfs_options).unwrap()));
            best[4] = best[4].min(time(|| bfs(&fresh, &bfs_options).unwrap()));
            best[5] = best[5].min(time(|| bfs(&updated, &bfs_options).unwrap()));
            best[7] = best[7].min(time(|| bfs(&repacked, &bfs_options).unwrap()));
            best[9] = best[9].min(time(|| bfs(&cloned, &bfs_options).unwrap()));
        }
    }
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "pagerank: Csr {:.1} ms, fresh {:.1} ms ({:.3}x), batched {:.1} ms ({:.3}x), batched with re-pack {:.1} ms ({:.3}x), batched then cloned {:.1} ms ({:.3}x)",
        ms(best[0]),
        ms(best[1]),
        ratio(best[1], best[0]),
        ms(best[2]),
        ratio(best[2], best[0]),
        ms(best[6]),
        ratio(best[6], best[0]),
        ms(best[8]),
        ratio(best[8], best[0])
    );
    println!(
        "bfs: Csr {:.2} ms, fresh {:.2} ms ({:.3}x), batched {:.2} ms ({:.3}x), batched with re-pack {:.2} ms ({:.3}x), batched then cloned {:.2} ms ({:.3}x)",
        ms(best[3]),
        ms(best[4]),
        ratio(best[4], best[3]),
        ms(best[5]),
        ratio(best[5], best[3]),
        ms(best[7]),
        ratio(best[7], best[3]),
        ms(best[9]),
        ratio(best[9], best[3])
    );
}

/// With `CSRPP_PROBE_PERF_CTL=<fifo>` (and `perf record --control
/// fifo:<fifo> -D -1`), switches `perf` sampling on and off around the
/// measured part, so the profile holds only that.
fn perf_control(command: &str) {
    if let Some(path) = std::env::var_os("CSRPP_PROBE_PERF_CTL") {
        use std::io::Write;
        let mut fifo = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        writeln!(fifo, "{command}").unwrap();
    }
}

/// Runs PageRank `reps` times on one store (`csr`, `fresh`, `batched`), for
/// `perf record`.
fn profile(edges: &[Edge], reps: usize, store: &str) {
    let pr = PageRankOptions {
        damping: 0.85,
        max_iterations: 10,
        tolerance: 0.0,
    };
    let config = base_config().in_edges(true);
    let start = Instant::now();
    match store {
        "batch" => {
            let batch_len = edges.len() / 100;
            let (base, new) = edges.split_at(edges.len() - batch_len);
            let store = CsrPP::from_edges(base, base_config()).unwrap();
            let mut spent = Duration::ZERO;
            for _ in 0..reps {
                let mut graph = store.clone();
                perf_control("enable");
                spent += time(|| graph.insert_edges(black_box(new)).unwrap());
                perf_control("disable");
            }
            let mut graph = store.clone();
            let before = graph.memory_bytes();
            graph.insert_edges(new).unwrap();
            println!(
                "batch 1% x{reps}: {:.0} ms inserting; memory {:.1} MB -> {:.1} MB",
                ms(spent),
                before as f64 / 1e6,
                graph.memory_bytes() as f64 / 1e6
            );
        }
        "csr" => {
            let csr =
                Csr::from_edges(edges, CsrOptions::default().sort(true).in_edges(true)).unwrap();
            let start = Instant::now();
            for _ in 0..reps {
                black_box(pagerank(&csr, &pr).unwrap());
            }
            println!("csr pagerank x{reps}: {:.0} ms", ms(start.elapsed()));
        }
        "fresh" => {
            let fresh = CsrPP::from_edges(edges, config).unwrap();
            let start = Instant::now();
            for _ in 0..reps {
                black_box(pagerank(&fresh, &pr).unwrap());
            }
            println!("fresh pagerank x{reps}: {:.0} ms", ms(start.elapsed()));
        }
        _ => {
            let half = edges.len() / 2;
            let mut updated = CsrPP::from_edges(&edges[..half], config).unwrap();
            for chunk in edges[half..].chunks((edges.len() - half).div_ceil(100)) {
                updated.insert_edges(chunk).unwrap();
            }
            let start = Instant::now();
            for _ in 0..reps {
                black_box(pagerank(&updated, &pr).unwrap());
            }
            println!("batched pagerank x{reps}: {:.0} ms", ms(start.elapsed()));
        }
    }
    println!("total {:.0} ms", ms(start.elapsed()));
}

/// The per-vertex read path alone: sums of out-degrees and of in-neighbour
/// ids over every vertex, on `Csr` and a freshly loaded `CsrPP`.
fn scan(edges: &[Edge], reps: usize) {
    use dyngraph::core::InNeighbors;
    let csr = Csr::from_edges(edges, CsrOptions::default().sort(true).in_edges(true)).unwrap();
    let fresh = CsrPP::from_edges(edges, base_config().in_edges(true)).unwrap();
    let n = csr.vertex_count() as VertexId;
    fn degrees<G: OutNeighbors>(g: &G, n: VertexId) -> u64 {
        (0..n).map(|v| g.out_degree(black_box(v))).sum()
    }
    fn sources<G: InEdges>(g: &G, n: VertexId) -> u64 {
        let incoming = g.in_edges().expect("built with in-edges");
        (0..n)
            .map(|v| incoming.in_neighbors(v).map(u64::from).sum::<u64>())
            .sum()
    }
    let mut best = [Duration::MAX; 4];
    for _ in 0..reps {
        best[0] = best[0].min(time(|| degrees(&csr, n)));
        best[1] = best[1].min(time(|| degrees(&fresh, n)));
        best[2] = best[2].min(time(|| sources(&csr, n)));
        best[3] = best[3].min(time(|| sources(&fresh, n)));
    }
    println!(
        "out-degree pass: Csr {:.2} ms, CsrPP {:.2} ms ({:.3}x); in-neighbour pass: Csr {:.2} ms, CsrPP {:.2} ms ({:.3}x)",
        ms(best[0]),
        ms(best[1]),
        best[1].as_secs_f64() / best[0].as_secs_f64(),
        ms(best[2]),
        ms(best[3]),
        best[3].as_secs_f64() / best[2].as_secs_f64()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scale: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(19);
    let reps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let what = args.get(3).map_or("all", String::as_str);
    let edges: Vec<Edge> = Generator::kronecker(scale, 10)
        .order(Order::Shuffle)
        .seed(6)
        .generate()
        .expect("generator")
        .edges()
        .collect();
    println!("kron{scale}: {} edges, {reps} reps", edges.len());
    if what == "all" || what == "batch" {
        batch(&edges, reps);
    }
    if what == "all" || what == "kernels" {
        kernels(&edges, reps);
    }
    if what == "scan" {
        scan(&edges, reps);
    }
    if let Some(store) = what.strip_prefix("profile-") {
        profile(&edges, reps, store);
    }
}
