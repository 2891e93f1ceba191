//! A probe for issue 17 (dyngraph against the C++ peers), usable without
//! the CLI: kernels on `Csr` as `dyngraph run` runs them, replays through
//! the engine with and without grouped timing, and PageRank/BFS on the
//! mutable stores' snapshot views against `Csr` of the same edges. Each
//! figure is the median of `reps` runs, interleaved where two things are
//! compared. `benches/peers/run.py` is the side-by-side harness; this is
//! for profiling and for the figures the CLI cannot give.
//!
//! ```sh
//! cargo run --profile perf -p dyngraph-benches --example peers_probe -- kernels FILE THREADS REPS [SOURCE] [KERNELS]
//! cargo run --profile perf -p dyngraph-benches --example peers_probe -- replay FILE BASE% STORE in|noin REPS
//! cargo run --profile perf -p dyngraph-benches --example peers_probe -- views FILE STORE REPS [THREADS]
//! cargo run --profile perf -p dyngraph-benches --example peers_probe -- once FILE STORE KERNEL [THREADS]
//! ```
//! `STORE` is any store of the registry (`vcsr`, `pcsr`, `bal`, `csrpp`, ...). `views` builds the store the way
//! `replay --base 30 --batch 1` does (30 % bulk, the rest one edge at a
//! time) with in-edges, then times PageRank (20 iterations) and BFS on the
//! store's snapshot view and on `Csr`. `once` runs one kernel once on the
//! view (`csr` as STORE: on `Csr`), for callgrind. `replay` prints the
//! engine's grouped timing, the engine with one timer around the whole
//! stream, and a bare loop of `insert_edges` calls under one timer.

use dyngraph::core::StoreConfig;
use dyngraph::core::{
    Csr, CsrOptions, DynamicStore, Graph, ReadGraph, Semantics, StoreOptions, VertexId,
};
use dyngraph::kernels::{KernelName, KernelOptions, run};
use dyngraph::loader::{EdgeStream, LoadOptions, load_edge_stream};
use dyngraph::replay::{NoObserver, ReplayOptions, kernel_options, replay};
use dyngraph::stores::{StoreKind, StoreSettings, StoreVisitor};
use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn load(path: &str) -> EdgeStream {
    load_edge_stream(path, &LoadOptions::default()).expect("a readable graph file")
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

fn first_source<G: ReadGraph>(graph: &G) -> VertexId {
    (0..graph.vertex_count() as VertexId)
        .find(|&v| graph.out_degree(v) > 0)
        .unwrap_or(0)
}

fn time<T>(f: impl FnOnce() -> T) -> f64 {
    let timer = Instant::now();
    black_box(f());
    timer.elapsed().as_secs_f64()
}

fn kernels(args: &[String]) {
    let path = &args[0];
    let threads: usize = args[1].parse().expect("threads");
    let reps: usize = args[2].parse().expect("reps");
    let stream = load(path);
    let weighted = stream.weights().is_some();
    let csr = Csr::from_edges(
        &stream.chunk(0..stream.len(), weighted),
        CsrOptions::default().in_edges(true),
    )
    .expect("a Csr");
    let source = args
        .get(3)
        .map(|s| s.parse().expect("source"))
        .unwrap_or_else(|| first_source(&csr));
    let names: Vec<KernelName> = args.get(4).map_or_else(
        || KernelName::ALL[..7].to_vec(),
        |list| {
            list.split(',')
                .map(|k| k.parse().expect("a kernel"))
                .collect()
        },
    );
    let pool = pool(threads);
    println!(
        "{path}: {} vertices, {} edges, {threads} threads, source {source}",
        csr.vertex_count(),
        csr.edge_count()
    );
    for name in names {
        let options = kernel_options(name, source);
        let times: Vec<f64> = (0..reps)
            .map(|_| pool.install(|| time(|| run(&csr, &options).expect("kernel"))))
            .collect();
        println!("{name}: median {:.6} s of {reps}", median(times));
    }
}

/// Runs `work` on the store `kind` names, through the registry.
fn with_store(kind: &str, store: StoreOptions, work: impl StoreVisitor<Output = ()>) {
    let kind: StoreKind = kind.parse().expect("a store name");
    kind.visit(&StoreSettings::default(), store, work);
}

struct ReplayWork<'a> {
    stream: &'a EdgeStream,
    base: f64,
    store: StoreOptions,
    reps: usize,
}

impl StoreVisitor for ReplayWork<'_> {
    type Output = ();

    fn visit<S: DynamicStore + 'static>(self, options: S::Options) {
        let stop = AtomicBool::new(false);
        let grouped = ReplayOptions {
            base_percent: self.base,
            batch: 1,
            ..ReplayOptions::default()
        };
        let one_timer = ReplayOptions {
            timed_group: usize::MAX / 2,
            ..grouped.clone()
        };
        let len = self.stream.len();
        let base_len = ((len as f64) * self.base / 100.0).floor() as usize;
        let weighted = self.store.weighted;
        let (mut a, mut b, mut c, mut d) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // PROBE_ONLY=grouped|one|bare runs one variant (for callgrind).
        let only = std::env::var("PROBE_ONLY").unwrap_or_default();
        let runs = |name: &str| only.is_empty() || only == name;
        for _ in 0..self.reps {
            if runs("grouped") {
                let (summary, store) = replay::<S>(
                    options.clone(),
                    self.stream,
                    &grouped,
                    &stop,
                    &mut NoObserver,
                )
                .expect("replay");
                a.push(summary.seconds);
                drop(store);
            }
            if runs("one") {
                let (summary, store) = replay::<S>(
                    options.clone(),
                    self.stream,
                    &one_timer,
                    &stop,
                    &mut NoObserver,
                )
                .expect("replay");
                b.push(summary.seconds);
                drop(store);
            }
            if runs("bare") {
                // The probe's loop: one timer, the store's calls and nothing else.
                let mut store =
                    S::from_edges(&self.stream.chunk(0..base_len, weighted), options.clone())
                        .expect("base");
                let timer = Instant::now();
                for i in base_len..len {
                    store
                        .insert_edges(&self.stream.chunk(i..i + 1, weighted))
                        .expect("insert");
                }
                c.push(timer.elapsed().as_secs_f64());
                black_box(store);
            }
            if runs("edge") {
                // As `vcsr_probe inserts`: `insert_edge` per edge, one timer.
                let mut store =
                    S::from_edges(&self.stream.chunk(0..base_len, weighted), options.clone())
                        .expect("base");
                let timer = Instant::now();
                for i in base_len..len {
                    store
                        .insert_edge(self.stream.src()[i], self.stream.dst()[i])
                        .expect("insert");
                }
                d.push(timer.elapsed().as_secs_f64());
                black_box(store);
            }
        }
        let edges = (len - base_len) as f64;
        let (a, b, c, d) = (median(a), median(b), median(c), median(d));
        println!(
            "{}: {} inserts; engine grouped {:.4} s ({:.2} M/s), engine one timer {:.4} s ({:.2} M/s), bare loop {:.4} s ({:.2} M/s), insert_edge loop {:.4} s ({:.2} M/s); grouped/one timer {:.3}",
            S::NAME,
            len - base_len,
            a,
            edges / a / 1e6,
            b,
            edges / b / 1e6,
            c,
            edges / c / 1e6,
            d,
            edges / d / 1e6,
            a / b
        );
    }
}

/// Builds `S` as a replay with `--batch 1` does.
fn replayed<S: DynamicStore>(stream: &EdgeStream, options: S::Options) -> S {
    let options_replay = ReplayOptions {
        base_percent: 30.0,
        batch: 1,
        ..ReplayOptions::default()
    };
    replay::<S>(
        options,
        stream,
        &options_replay,
        &AtomicBool::new(false),
        &mut NoObserver,
    )
    .expect("replay")
    .1
}

struct ViewWork<'a> {
    stream: &'a EdgeStream,
    reps: usize,
    threads: usize,
}

impl StoreVisitor for ViewWork<'_> {
    type Output = ();

    fn visit<S: DynamicStore + 'static>(self, options: S::Options) {
        let store: S = replayed(self.stream, options);
        let snapshot = store.snapshot();
        let view = store.view(&snapshot).expect("view");
        let csr = store.to_csr().expect("csr");
        let pool = pool(self.threads);
        let source = first_source(&csr);
        for name in [KernelName::PageRank, KernelName::Bfs] {
            let options = kernel_options(name, source);
            let (mut on_view, mut on_live, mut on_csr) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..self.reps {
                pool.install(|| {
                    on_view.push(time(|| run(&view, &options).expect("kernel")));
                    on_live.push(time(|| run(&store, &options).expect("kernel")));
                    on_csr.push(time(|| run(&csr, &options).expect("kernel")));
                });
            }
            let (v, l, c) = (median(on_view), median(on_live), median(on_csr));
            println!(
                "{} {name} ({} threads): view {:.3} ms ({:.2}x Csr), live {:.3} ms ({:.2}x), Csr {:.3} ms",
                S::NAME,
                self.threads,
                v * 1e3,
                v / c,
                l * 1e3,
                l / c,
                c * 1e3
            );
        }
        println!(
            "{}: {:.1} bytes per edge, Csr {:.1}",
            S::NAME,
            store.memory_bytes() as f64 / store.edge_count() as f64,
            csr.memory_bytes() as f64 / csr.edge_count() as f64
        );
    }
}

struct OnceWork<'a> {
    stream: &'a EdgeStream,
    kernel: KernelOptions,
    threads: usize,
}

impl StoreVisitor for OnceWork<'_> {
    type Output = ();

    fn visit<S: DynamicStore + 'static>(self, options: S::Options) {
        let store: S = replayed(self.stream, options);
        let snapshot = store.snapshot();
        let view = store.view(&snapshot).expect("view");
        let seconds = pool(self.threads).install(|| time(|| run(&view, &self.kernel)));
        println!("{}: {seconds:.6} s", S::NAME);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map(String::as_str).unwrap_or("");
    let rest = &args[1.min(args.len())..];
    match mode {
        "kernels" => kernels(rest),
        "replay" => {
            let stream = load(&rest[0]);
            // PROBE_WEIGHTS=off drops the input's weights (as `--weights off`).
            let weights = std::env::var("PROBE_WEIGHTS").map_or(true, |w| w != "off");
            let store = StoreOptions::new(Semantics::Multigraph)
                .in_edges(rest[3] == "in")
                .weighted(weights && stream.weights().is_some());
            with_store(
                &rest[2],
                store,
                ReplayWork {
                    stream: &stream,
                    base: rest[1].parse().expect("base percent"),
                    store,
                    reps: rest[4].parse().expect("reps"),
                },
            );
        }
        "views" => {
            let stream = load(&rest[0]);
            let store = StoreOptions::new(Semantics::Multigraph)
                .in_edges(true)
                .weighted(stream.weights().is_some());
            with_store(
                &rest[1],
                store,
                ViewWork {
                    stream: &stream,
                    reps: rest[2].parse().expect("reps"),
                    threads: rest.get(3).map_or(1, |t| t.parse().expect("threads")),
                },
            );
        }
        "once" => {
            let stream = load(&rest[0]);
            let kernel: KernelName = rest[2].parse().expect("a kernel");
            let threads = rest.get(3).map_or(1, |t| t.parse().expect("threads"));
            let store = StoreOptions::new(Semantics::Multigraph)
                .in_edges(true)
                .weighted(stream.weights().is_some());
            if rest[1] == "csr" {
                let csr = Csr::from_edges(
                    &stream.chunk(0..stream.len(), store.weighted),
                    CsrOptions::default().in_edges(true),
                )
                .expect("a Csr");
                let options = kernel_options(kernel, first_source(&csr));
                let seconds = pool(threads).install(|| time(|| run(&csr, &options)));
                println!("Csr: {seconds:.6} s");
                return;
            }
            let source = 1; // sx-mathoverflow and CollegeMsg: vertex 1 has out-edges
            with_store(
                &rest[1],
                store,
                OnceWork {
                    stream: &stream,
                    kernel: kernel_options(kernel, source),
                    threads,
                },
            );
        }
        _ => eprintln!("modes: kernels, replay, views, once (see the file's docs)"),
    }
}
