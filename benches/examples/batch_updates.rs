//! `Vcsr`'s batch paths side by side (issue 39): the shuffled tail of a
//! symmetric Kronecker graph (scale 20 by default: 2^20 vertices, 16.8 M
//! directed edges, generated at run time) inserted in batches of 10^4 to
//! 10^7 edges into the rest, bulk-built, then deleted in the same batches;
//! at 1 and 2 threads; the merged path (`BatchUpdates::Merged`, the
//! default) against the edge-by-edge one; out-edges only and with
//! in-edges. The tail is the last 10 % of the stream, or one whole batch
//! when that is more (a 10^7 batch goes into a 40 % base). Prints M edges/s,
//! the best of `--reps` runs, paths interleaved, and the load average
//! around each row.
//!
//! ```sh
//! cargo run --profile perf -p dyngraph-benches --example batch_updates -- \
//!     [--scale 20] [--reps 3] [--batches 10000,100000,1000000,10000000] \
//!     [--threads 1,2] [--in-edges off,on] [--paths edge-by-edge,merged] [--deletes]
//! ```

use dyngraph::core::{EdgeChunk, FromEdges, Graph, GraphUpdate, StoreOptions};
use dyngraph::loader::generate::Generator;
use dyngraph::vcsr::{BatchUpdates, Vcsr, VcsrOptions};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Instant;

struct Args {
    scale: u32,
    reps: usize,
    batches: Vec<usize>,
    threads: Vec<usize>,
    in_edges: Vec<bool>,
    paths: Vec<BatchUpdates>,
    deletes: bool,
}

fn list<T>(value: &str, parse: impl Fn(&str) -> T) -> Vec<T> {
    value.split(',').map(parse).collect()
}

fn args() -> Args {
    let mut args = Args {
        scale: 20,
        reps: 3,
        batches: vec![10_000, 100_000, 1_000_000, 10_000_000],
        threads: vec![1, 2],
        in_edges: vec![false, true],
        paths: vec![BatchUpdates::EdgeByEdge, BatchUpdates::Merged],
        deletes: false,
    };
    let mut given = std::env::args().skip(1);
    while let Some(flag) = given.next() {
        if flag == "--deletes" {
            args.deletes = true;
            continue;
        }
        let value = given
            .next()
            .unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--scale" => args.scale = value.parse().expect("a scale"),
            "--reps" => args.reps = value.parse().expect("a count"),
            "--batches" => args.batches = list(&value, |b| b.parse().expect("a batch size")),
            "--threads" => args.threads = list(&value, |t| t.parse().expect("a thread count")),
            "--in-edges" => args.in_edges = list(&value, |v| v == "on"),
            "--paths" => {
                args.paths = list(&value, |p| match p {
                    "edge-by-edge" => BatchUpdates::EdgeByEdge,
                    "merged" => BatchUpdates::Merged,
                    other => panic!("unknown path {other}"),
                })
            }
            other => panic!("unknown flag {other}"),
        }
    }
    args
}

/// The Kronecker graph's edges in both directions, shuffled.
fn stream(scale: u32) -> (Vec<u32>, Vec<u32>) {
    let generated = Generator::kronecker(scale, 8)
        .generate()
        .expect("a valid scale");
    let mut edges: Vec<(u32, u32)> = generated
        .src()
        .iter()
        .zip(generated.dst())
        .flat_map(|(&u, &v)| [(u, v), (v, u)])
        .collect();
    edges.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(39));
    edges.into_iter().unzip()
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// Seconds to insert, then (when `deletes`) to delete, `src[base..]` in
/// batches of `batch`, on a pool of `threads`.
fn run(
    (src, dst): (&[u32], &[u32]),
    base: usize,
    batch: usize,
    threads: usize,
    options: &VcsrOptions,
    deletes: bool,
) -> (f64, Option<f64>) {
    let chunk = |range: std::ops::Range<usize>| {
        EdgeChunk::new(&src[range.clone()], &dst[range], None).expect("equal columns")
    };
    let mut graph = Vcsr::from_edges(&chunk(0..base), options.clone()).expect("a base");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    let batches = || {
        (base..src.len())
            .step_by(batch)
            .map(|at| at..(at + batch).min(src.len()))
    };
    pool.install(|| {
        let timer = Instant::now();
        for range in batches() {
            graph.insert_edges(&chunk(range)).expect("inserts");
        }
        let inserts = timer.elapsed().as_secs_f64();
        assert_eq!(graph.edge_count() as usize, src.len());
        let deletes = deletes.then(|| {
            let timer = Instant::now();
            for range in batches() {
                graph.delete_edges(&chunk(range)).expect("deletes");
            }
            assert_eq!(graph.edge_count() as usize, base);
            timer.elapsed().as_secs_f64()
        });
        (inserts, deletes)
    })
}

fn main() {
    let args = args();
    let (src, dst) = stream(args.scale);
    let total = src.len();
    println!(
        "Kronecker {}, symmetric: {total} edges; M edges/s, best of {}",
        args.scale, args.reps
    );
    println!("| batch | base | threads | in-edges | path | inserts | deletes | load |");
    println!("|---|---|---|---|---|---|---|---|");
    for &batch in &args.batches {
        let tail = (total / 10).max(batch).min(total);
        let base = total - tail;
        for &threads in &args.threads {
            for &in_edges in &args.in_edges {
                let before = load();
                let mut best = vec![(f64::MAX, f64::MAX); args.paths.len()];
                for _ in 0..args.reps {
                    for (path, best) in args.paths.iter().zip(&mut best) {
                        let options = VcsrOptions::from(StoreOptions::default().in_edges(in_edges))
                            .batch_updates(*path);
                        let (inserts, deletes) =
                            run((&src, &dst), base, batch, threads, &options, args.deletes);
                        best.0 = best.0.min(inserts);
                        best.1 = best.1.min(deletes.unwrap_or(f64::MAX));
                    }
                }
                let after = load();
                for (path, &(inserts, deletes)) in args.paths.iter().zip(&best) {
                    let rate = |seconds: f64| format!("{:.2}", tail as f64 / seconds / 1e6);
                    let deletes = if args.deletes {
                        rate(deletes)
                    } else {
                        "-".into()
                    };
                    println!(
                        "| {batch} | {base} | {threads} | {} | {path:?} | {} | {deletes} | {before}-{after} |",
                        if in_edges { "on" } else { "off" },
                        rate(inserts),
                    );
                }
            }
        }
    }
}
