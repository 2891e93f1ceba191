//! A quick, noise-tolerant probe of VCSR's insert and PageRank goals
//! (issue 5), for iterating on the code: each measurement is repeated
//! `reps` times, interleaved across the stores, and the minimum is kept
//! (on a shared machine the minimum of interleaved runs is the steadiest
//! figure). The `vcsr_replay` bench and example are the reference.
//!
//! ```sh
//! cargo run --profile perf -p dyngraph-benches --example vcsr_probe -- inserts mo10 5
//! cargo run --profile perf -p dyngraph-benches --example vcsr_probe -- pagerank kron20x20 3
//! cargo run --profile perf -p dyngraph-benches --example vcsr_probe -- pagerank-along kron20x20 3
//! ```
//! Mode `pagerank-along` measures the PageRank ratio at five points of the
//! stream, with the in-edge density at each.
//! Modes `vcsr` and `pcsr` replay one store alone (for `perf record`).
//! With `VCSR_PROBE_CPU` set it times process CPU time instead of wall
//! time (steadier on a shared machine, but tick-coarse on some kernels:
//! for runs of a second or more); `VCSR_PROBE_ROOT_UPPER=0.85`
//! builds `Vcsr`'s out-edge array with that root upper density bound
//! instead of the default (0.75), `VCSR_PROBE_IN_ROOT_UPPER` its in-edge
//! array (default 0.85), to measure what a denser edge array buys and
//! costs. Mode `inserts-in` times inserts with in-edges kept by both
//! `Vcsr` and `Pcsr`.
//! Streams: `mo10`, `mo30` (sx-mathoverflow with a 10 % / 30 % base; needs
//! `../shared/data`), `college` (the bundled sample), `kron<S>x<EF>` (a
//! shuffled Kronecker stream of `EF * 2^S` edges, 10 % base).

use dyngraph::core::StoreConfig;
use dyngraph::core::{Csr, CsrOptions, GraphUpdate, InEdges, OutNeighbors, StoreOptions};
use dyngraph::kernels::PageRankOptions;
use dyngraph::vcsr::{Pcsr, Vcsr, VcsrOptions};
use dyngraph_benches::process_cpu_time;
use dyngraph_benches::replay::{
    ArrivalOrderCsr, Workload, bundled_sample, in_pool, kronecker_edges, mathoverflow, read_edges,
    shared_data, split,
};
use std::hint::black_box;
use std::time::{Duration, Instant};

const PAGERANK_ITERATIONS: usize = 20;

/// `dyngraph-kernels`' PageRank, [`PAGERANK_ITERATIONS`] of them.
fn pagerank<G: OutNeighbors + InEdges + Sync>(graph: &G, iterations: usize) -> Vec<f32> {
    let options = PageRankOptions {
        max_iterations: iterations,
        ..PageRankOptions::default()
    };
    dyngraph::kernels::pagerank(graph, &options)
        .expect("valid options")
        .scores
}

fn stream(name: &str) -> Workload {
    match name {
        "mo10" | "mo30" => {
            let dir = shared_data().expect("sx-mathoverflow needs ../shared/data");
            mathoverflow(&dir, if name == "mo10" { 10 } else { 30 })
        }
        "college" => split("CollegeMsg", read_edges(&bundled_sample()), 10),
        kron => {
            let (scale, factor) = kron
                .strip_prefix("kron")
                .and_then(|rest| rest.split_once('x'))
                .and_then(|(s, f)| Some((s.parse().ok()?, f.parse().ok()?)))
                .expect("stream: mo10, mo30, college or kron<S>x<EF>");
            split(kron, kronecker_edges(scale, factor, 2026), 10)
        }
    }
}

/// With `VCSR_PROBE_CPU` set, the CPU time `f` took (steadier than wall
/// time when other processes compete for the cores; the PageRank runs use
/// a one-thread pool, whose caller blocks rather than spins); otherwise
/// the wall time. Some kernels (this VM's among them) count CPU time in
/// scheduler ticks of a few milliseconds: use it for runs of a second or
/// more, such as PageRank on the Kronecker streams, not for the inserts of
/// the real streams (tens of milliseconds).
fn time(f: impl FnOnce()) -> Duration {
    let cpu = std::env::var_os("VCSR_PROBE_CPU").is_some();
    let (start, cpu_start) = (Instant::now(), cpu.then(process_cpu_time).flatten());
    f();
    match cpu_start {
        Some(before) => process_cpu_time().map_or(start.elapsed(), |after| after - before),
        None => start.elapsed(),
    }
}

/// A `Vcsr` with the default configuration, or with the root upper
/// density bounds `VCSR_PROBE_ROOT_UPPER` (out-edges) and
/// `VCSR_PROBE_IN_ROOT_UPPER` (in-edges), to measure what a denser edge
/// array buys and costs.
fn new_vcsr(in_edges: bool) -> Vcsr {
    let mut options = VcsrOptions::from(StoreOptions::default().in_edges(in_edges));
    let bound = |name: &str, upper: &mut f64| {
        if let Ok(value) = std::env::var(name) {
            *upper = value.parse().expect("a root upper bound: a number");
        }
    };
    bound(
        "VCSR_PROBE_ROOT_UPPER",
        &mut options.out_edge_array.thresholds.root_upper,
    );
    bound(
        "VCSR_PROBE_IN_ROOT_UPPER",
        &mut options.in_edge_array.thresholds.root_upper,
    );
    Vcsr::new(options).expect("a valid root upper bound")
}

/// [`new_vcsr`] after the whole stream: the base as one batch, then one
/// edge at a time (as `replay`).
fn replayed_vcsr(stream: &Workload, in_edges: bool) -> Vcsr {
    let mut store = new_vcsr(in_edges);
    store
        .insert_edges(&stream.base)
        .expect("ids within the limit");
    for edge in &stream.dynamic {
        store
            .insert_edge(edge.src, edge.dst)
            .expect("ids within the limit");
    }
    store
}

/// Dynamic-part insert time of one replay into `store`.
fn insert_time<S: GraphUpdate>(stream: &Workload, mut store: S) -> Duration {
    store
        .insert_edges(&stream.base)
        .expect("ids within the limit");
    let elapsed = time(|| {
        for edge in &stream.dynamic {
            store
                .insert_edge(edge.src, edge.dst)
                .expect("ids within the limit");
        }
    });
    black_box(store);
    elapsed
}

/// Insert times of `Vcsr` and `Pcsr`, both with or both without
/// in-edges (the insertion table of `vcsr_replay` keeps none).
fn inserts(stream: &Workload, reps: usize, in_edges: bool) {
    let (mut vcsr, mut pcsr) = (Duration::MAX, Duration::MAX);
    for rep in 0..reps {
        let v = insert_time(stream, new_vcsr(in_edges));
        let p = insert_time(
            stream,
            Pcsr::new(StoreOptions::default().in_edges(in_edges)).expect("valid options"),
        );
        vcsr = vcsr.min(v);
        pcsr = pcsr.min(p);
        println!(
            "rep {rep}: Vcsr {:.1} ms, Pcsr {:.1} ms",
            v.as_secs_f64() * 1e3,
            p.as_secs_f64() * 1e3
        );
    }
    println!(
        "{}{}: min Vcsr {:.1} ms, Pcsr {:.1} ms; Vcsr inserts {:.2}x as fast",
        stream.name,
        if in_edges { ", in-edges kept" } else { "" },
        vcsr.as_secs_f64() * 1e3,
        pcsr.as_secs_f64() * 1e3,
        pcsr.as_secs_f64() / vcsr.as_secs_f64()
    );
}

fn pagerank_ratio(stream: &Workload, reps: usize) {
    let all = stream.all();
    let csr = Csr::from_edges(&all, CsrOptions::default().in_edges(true)).expect("valid graph");
    let arrival = ArrivalOrderCsr::new(&all);
    let vcsr = replayed_vcsr(stream, true);
    let stats = vcsr.stats();
    println!(
        "Vcsr density out {:.3}, in {:.3}; bytes/edge {:.2}, Csr {:.2}",
        stats.out_density,
        stats.in_density,
        vcsr.memory_bytes() as f64 / all.len() as f64,
        csr.memory_bytes() as f64 / all.len() as f64
    );
    in_pool(1, || {
        let mut best = [Duration::MAX; 3];
        for _ in 0..reps {
            best[0] = best[0].min(time(|| {
                black_box(pagerank(&csr, PAGERANK_ITERATIONS));
            }));
            best[1] = best[1].min(time(|| {
                black_box(pagerank(&arrival, PAGERANK_ITERATIONS));
            }));
            best[2] = best[2].min(time(|| {
                black_box(pagerank(&vcsr, PAGERANK_ITERATIONS));
            }));
        }
        let csr_time = best[0].as_secs_f64();
        for (name, t) in ["Csr", "Csr, arrival order", "Vcsr"].iter().zip(best) {
            println!(
                "{}: PageRank 1t min {:.1} ms, {:.3}x Csr",
                name,
                t.as_secs_f64() * 1e3,
                t.as_secs_f64() / csr_time
            );
        }
    });
}

/// PageRank on `Vcsr` against `Csr` at several points of the stream (after
/// 60, 70, 80, 90 and 100 % of its dynamic part): the edge arrays grow by a
/// factor when the root passes its upper bound, so their density, and the
/// slots a pull scan streams, cycle between `root_upper / growth` and
/// `root_upper` as the stream goes on. This shows where in that cycle the
/// end of a stream falls and what each point costs.
fn pagerank_along(stream: &Workload, reps: usize) {
    let mut vcsr = new_vcsr(true);
    vcsr.insert_edges(&stream.base)
        .expect("ids within the limit");
    let mut inserted = 0;
    for percent in [60, 70, 80, 90, 100] {
        let until = stream.dynamic.len() * percent / 100;
        for edge in &stream.dynamic[inserted..until] {
            vcsr.insert_edge(edge.src, edge.dst)
                .expect("ids within the limit");
        }
        inserted = until;
        let mut prefix = stream.base.clone();
        prefix.extend_from_slice(&stream.dynamic[..until]);
        let csr =
            Csr::from_edges(&prefix, CsrOptions::default().in_edges(true)).expect("valid graph");
        let (csr_time, vcsr_time) = in_pool(1, || {
            let mut best = (Duration::MAX, Duration::MAX);
            for _ in 0..reps {
                best.0 = best.0.min(time(|| {
                    black_box(pagerank(&csr, PAGERANK_ITERATIONS));
                }));
                best.1 = best.1.min(time(|| {
                    black_box(pagerank(&vcsr, PAGERANK_ITERATIONS));
                }));
            }
            best
        });
        println!(
            "{percent:>3} % of the dynamic part: {} edges, Vcsr in-edge density {:.3}; PageRank 1t min Csr {:.1} ms, Vcsr {:.1} ms, {:.3}x Csr",
            prefix.len(),
            vcsr.stats().in_density,
            csr_time.as_secs_f64() * 1e3,
            vcsr_time.as_secs_f64() * 1e3,
            vcsr_time.as_secs_f64() / csr_time.as_secs_f64()
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map_or("inserts", String::as_str);
    let stream = stream(args.get(1).map_or("mo10", String::as_str));
    let reps = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);
    match mode {
        "inserts" => inserts(&stream, reps, false),
        "inserts-in" => inserts(&stream, reps, true),
        "pagerank" => pagerank_ratio(&stream, reps),
        "pagerank-along" => pagerank_along(&stream, reps),
        // One store alone, for `perf record` or `valgrind`.
        "vcsr" => {
            println!("{:?}", replayed_vcsr(&stream, false).stats());
            let best = (0..reps)
                .map(|_| insert_time(&stream, new_vcsr(false)))
                .min();
            println!(
                "Vcsr min {:.2} ms",
                best.unwrap_or_default().as_secs_f64() * 1e3
            );
        }
        "pcsr" => (0..reps).for_each(|_| {
            println!(
                "{:?}",
                insert_time(
                    &stream,
                    Pcsr::new(StoreOptions::default()).expect("valid options")
                )
            )
        }),
        other => {
            panic!("mode {other}: inserts, inserts-in, pagerank, pagerank-along, vcsr or pcsr")
        }
    }
}
