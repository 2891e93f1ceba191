//! `Vcsr`'s and `CsrPP`'s batch paths side by side (issue 39): the shuffled tail of a
//! symmetric Kronecker graph (scale 20 by default: 2^20 vertices, 16.8 M
//! directed edges, generated at run time) inserted in batches of 10^4 to
//! 10^7 edges into the rest, bulk-built, then deleted in the same batches;
//! at 1 and 2 threads; the merged path (`BatchUpdates::Merged`, the
//! default) against the edge-by-edge one, and `CsrPP`'s batch path
//! (`--paths csrpp`; `csrpp-headroom`: bulk-loaded arrays with
//! power-of-two room; `csrpp-grouped`: every batch grouped, however
//! small); out-edges only and with in-edges; under multigraph semantics
//! or set semantics (`--semantics simple`: the stream's duplicate edges
//! dropped first, so both store the same graph and a simple store pays
//! its membership check per edge, as LSGraph and Aspen do). The tail is the last 10 % of the stream, or one whole batch
//! when that is more (a 10^7 batch goes into a 40 % base). Prints M edges/s,
//! the best of `--reps` runs, paths interleaved, and the load average
//! around each row; beside each rate, edges per CPU second of the process
//! (all threads; on a loaded machine the steadier figure at 1 thread).
//!
//! ```sh
//! cargo run --profile perf -p dyngraph-benches --example batch_updates -- \
//!     [--scale 20] [--reps 3] [--batches 10000,100000,1000000,10000000] \
//!     [--threads 1,2] [--in-edges off,on] [--paths edge-by-edge,merged,csrpp,csrpp-headroom,csrpp-grouped] \
//!     [--semantics multigraph,simple] [--deletes]
//! ```
//!
//! With `PERF_CTL_FIFO` set to the control fifo of `perf record --control
//! fifo:FIFO -D -1`, only the batches are profiled.

use dyngraph::core::{EdgeChunk, FromEdges, GraphUpdate, Semantics, StoreOptions};
use dyngraph::csrpp::{CsrPP, CsrPPOptions, DEFAULT_GROUP_INSERTS_ABOVE};
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
    paths: Vec<Path>,
    semantics: Vec<Semantics>,
    deletes: bool,
}

/// A store and its batch path.
#[derive(Clone, Copy, Debug)]
enum Path {
    Vcsr(BatchUpdates),
    /// With `CsrPPOptions::slab_headroom` or not; `grouped`: every batch
    /// grouped (`group_inserts_above(0)`), however small.
    CsrPP {
        headroom: bool,
        grouped: bool,
    },
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
        paths: vec![
            Path::Vcsr(BatchUpdates::EdgeByEdge),
            Path::Vcsr(BatchUpdates::Merged),
        ],
        semantics: vec![Semantics::Multigraph],
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
            "--semantics" => {
                args.semantics = list(&value, |v| match v {
                    "multigraph" => Semantics::Multigraph,
                    "simple" => Semantics::Simple,
                    other => panic!("unknown semantics {other}"),
                })
            }
            "--paths" => {
                args.paths = list(&value, |p| match p {
                    "edge-by-edge" => Path::Vcsr(BatchUpdates::EdgeByEdge),
                    "merged" => Path::Vcsr(BatchUpdates::Merged),
                    "csrpp" => Path::CsrPP {
                        headroom: false,
                        grouped: false,
                    },
                    "csrpp-headroom" => Path::CsrPP {
                        headroom: true,
                        grouped: false,
                    },
                    "csrpp-grouped" => Path::CsrPP {
                        headroom: false,
                        grouped: true,
                    },
                    other => panic!("unknown path {other}"),
                })
            }
            other => panic!("unknown flag {other}"),
        }
    }
    args
}

/// The Kronecker graph's edges in both directions, shuffled; `distinct`:
/// each directed edge once.
fn stream(scale: u32, distinct: bool) -> (Vec<u32>, Vec<u32>) {
    let generated = Generator::kronecker(scale, 8)
        .generate()
        .expect("a valid scale");
    let mut edges: Vec<(u32, u32)> = generated
        .src()
        .iter()
        .zip(generated.dst())
        .flat_map(|(&u, &v)| [(u, v), (v, u)])
        .collect();
    if distinct {
        edges.sort_unstable();
        edges.dedup();
    }
    edges.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(39));
    edges.into_iter().unzip()
}

/// Writes `command` (`enable` / `disable`) to `perf record`'s control
/// fifo, when `PERF_CTL_FIFO` names one.
fn perf(command: &str) {
    use std::io::Write;
    if let Some(path) = std::env::var_os("PERF_CTL_FIFO") {
        let mut fifo = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .expect("perf's control fifo");
        writeln!(fifo, "{command}").expect("a write to perf's fifo");
    }
}

/// CPU seconds the process has used (user and system, all threads), from
/// `/proc/self/stat` (clock ticks: 1/100 s here).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis; utime and stime
    // are the 14th and 15th of the whole line.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (tick(11) + tick(12)) / 100.0
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// Wall and CPU seconds of one timed phase.
#[derive(Clone, Copy)]
struct Times {
    wall: f64,
    cpu: f64,
}

impl Times {
    const NONE: Times = Times {
        wall: f64::MAX,
        cpu: f64::MAX,
    };

    /// Times `f`.
    fn of(f: impl FnOnce()) -> Times {
        perf("enable");
        let (timer, cpu) = (Instant::now(), cpu_seconds());
        f();
        let times = Times {
            wall: timer.elapsed().as_secs_f64(),
            cpu: cpu_seconds() - cpu,
        };
        perf("disable");
        times
    }

    /// The best of each.
    fn min(self, other: Times) -> Times {
        Times {
            wall: self.wall.min(other.wall),
            cpu: self.cpu.min(other.cpu),
        }
    }
}

/// The times to insert, then (when `deletes`) to delete, `src[base..]` in
/// batches of `batch`, on a pool of `threads`.
fn run<G: FromEdges + GraphUpdate + Send>(
    (src, dst): (&[u32], &[u32]),
    base: usize,
    batch: usize,
    threads: usize,
    options: &G::Options,
    deletes: bool,
) -> (Times, Option<Times>) {
    let chunk = |range: std::ops::Range<usize>| {
        EdgeChunk::new(&src[range.clone()], &dst[range], None).expect("equal columns")
    };
    let mut graph = G::from_edges(&chunk(0..base), options.clone()).expect("a base");
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
        let inserts = Times::of(|| {
            for range in batches() {
                graph.insert_edges(&chunk(range)).expect("inserts");
            }
        });
        assert_eq!(graph.edge_count() as usize, src.len());
        let deletes = deletes.then(|| {
            let times = Times::of(|| {
                for range in batches() {
                    graph.delete_edges(&chunk(range)).expect("deletes");
                }
            });
            assert_eq!(graph.edge_count() as usize, base);
            times
        });
        (inserts, deletes)
    })
}

fn main() {
    let args = args();
    for &semantics in &args.semantics {
        table(&args, semantics);
    }
}

/// One table: every batch size, thread count, in-edge setting and path
/// under `semantics`.
fn table(args: &Args, semantics: Semantics) {
    let (src, dst) = stream(args.scale, semantics == Semantics::Simple);
    let total = src.len();
    println!(
        "Kronecker {}, symmetric: {total} edges, {semantics:?}; M edges/s, best of {}",
        args.scale, args.reps
    );
    println!(
        "| batch | base | threads | in-edges | path | inserts | per CPU s | deletes | per CPU s | load |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &batch in &args.batches {
        let tail = (total / 10).max(batch).min(total);
        let base = total - tail;
        for &threads in &args.threads {
            for &in_edges in &args.in_edges {
                let before = load();
                let mut best = vec![(Times::NONE, Times::NONE); args.paths.len()];
                for _ in 0..args.reps {
                    for (path, best) in args.paths.iter().zip(&mut best) {
                        let store = StoreOptions::new(semantics).in_edges(in_edges);
                        let columns = (&src[..], &dst[..]);
                        let (inserts, deletes) = match *path {
                            Path::Vcsr(updates) => run::<Vcsr>(
                                columns,
                                base,
                                batch,
                                threads,
                                &VcsrOptions::from(store).batch_updates(updates),
                                args.deletes,
                            ),
                            Path::CsrPP { headroom, grouped } => run::<CsrPP>(
                                columns,
                                base,
                                batch,
                                threads,
                                &CsrPPOptions::from(store)
                                    .slab_headroom(headroom)
                                    .group_inserts_above(if grouped {
                                        0
                                    } else {
                                        DEFAULT_GROUP_INSERTS_ABOVE
                                    }),
                                args.deletes,
                            ),
                        };
                        best.0 = best.0.min(inserts);
                        best.1 = best.1.min(deletes.unwrap_or(Times::NONE));
                    }
                }
                let after = load();
                for (path, &(inserts, deletes)) in args.paths.iter().zip(&best) {
                    let rate = |seconds: f64| format!("{:.2}", tail as f64 / seconds / 1e6);
                    let rates =
                        |times: Times| format!("{} | {}", rate(times.wall), rate(times.cpu));
                    let deletes = if args.deletes {
                        rates(deletes)
                    } else {
                        "- | -".into()
                    };
                    println!(
                        "| {batch} | {base} | {threads} | {} | {path:?} | {} | {deletes} | {before}-{after} |",
                        if in_edges { "on" } else { "off" },
                        rates(inserts),
                    );
                }
            }
        }
    }
}
