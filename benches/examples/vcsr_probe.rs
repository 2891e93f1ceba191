//! A quick, noise-tolerant probe of VCSR's insert and PageRank goals
//! (issue 5), for iterating on the code: each measurement is repeated
//! `reps` times, interleaved across the stores, and the minimum is kept
//! (on a shared machine the minimum of interleaved runs is the steadiest
//! figure). The `vcsr_replay` bench and example are the reference.
//!
//! ```sh
//! cargo run --release -p dyngraph-benches --example vcsr_probe -- inserts mo10 5
//! cargo run --release -p dyngraph-benches --example vcsr_probe -- pagerank kron20x20 3
//! ```
//! Modes `vcsr` and `pcsr` replay one store alone (for `perf record`).
//! Streams: `mo10`, `mo30` (sx-mathoverflow with a 10 % / 30 % base; needs
//! `../shared/data`), `college` (the bundled sample), `kron<S>x<EF>` (a
//! shuffled Kronecker stream of `EF * 2^S` edges, 10 % base).

use dyngraph_benches::replay::{
    ArrivalOrderCsr, ReplayStore, Stream, bundled_sample, in_pool, kronecker_edges, mathoverflow,
    pagerank, read_edges, replay, shared_data, split,
};
use dyngraph_core::{Csr, CsrOptions};
use dyngraph_vcsr::{Pcsr, Vcsr};
use std::hint::black_box;
use std::time::{Duration, Instant};

const PAGERANK_ITERATIONS: usize = 20;

fn stream(name: &str) -> Stream {
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

fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// Dynamic-part insert time of one replay (out-edges only, as the
/// insertion table of `vcsr_replay`).
fn insert_time<S: ReplayStore>(stream: &Stream) -> Duration {
    let mut store = S::empty(false);
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

fn inserts(stream: &Stream, reps: usize) {
    let (mut vcsr, mut pcsr) = (Duration::MAX, Duration::MAX);
    for rep in 0..reps {
        let v = insert_time::<Vcsr>(stream);
        let p = insert_time::<Pcsr>(stream);
        vcsr = vcsr.min(v);
        pcsr = pcsr.min(p);
        println!(
            "rep {rep}: Vcsr {:.1} ms, Pcsr {:.1} ms",
            v.as_secs_f64() * 1e3,
            p.as_secs_f64() * 1e3
        );
    }
    println!(
        "{}: min Vcsr {:.1} ms, Pcsr {:.1} ms; Vcsr inserts {:.2}x as fast",
        stream.name,
        vcsr.as_secs_f64() * 1e3,
        pcsr.as_secs_f64() * 1e3,
        pcsr.as_secs_f64() / vcsr.as_secs_f64()
    );
}

fn pagerank_ratio(stream: &Stream, reps: usize) {
    let all = stream.all();
    let csr = Csr::from_edges(&all, CsrOptions::default().transpose(true)).expect("valid graph");
    let arrival = ArrivalOrderCsr::new(&all);
    let (vcsr, _) = replay::<Vcsr>(stream, true);
    println!(
        "Vcsr bytes/edge {:.2}, Csr {:.2}",
        vcsr.bytes_per_edge(),
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map_or("inserts", String::as_str);
    let stream = stream(args.get(1).map_or("mo10", String::as_str));
    let reps = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);
    match mode {
        "inserts" => inserts(&stream, reps),
        "pagerank" => pagerank_ratio(&stream, reps),
        // One store alone, for `perf record` or `valgrind`.
        "vcsr" => {
            let (store, _) = replay::<Vcsr>(&stream, false);
            println!("{:?}", store.stats());
            let best = (0..reps).map(|_| insert_time::<Vcsr>(&stream)).min();
            println!(
                "Vcsr min {:.2} ms",
                best.unwrap_or_default().as_secs_f64() * 1e3
            );
        }
        "pcsr" => (0..reps).for_each(|_| println!("{:?}", insert_time::<Pcsr>(&stream))),
        other => panic!("mode {other}: inserts or pagerank"),
    }
}
