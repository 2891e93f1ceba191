//! Sahu's comparison (`../shared/papers/002_…`) in Rust: dyngraph's stores
//! against the crates a user would pick instead, one criterion group per
//! task and input (`sahu/<input>/<task>`, one function per structure,
//! parameter = batch size in edges):
//!
//! - `load`: text to a graph. dyngraph's loader to `Csr` (with in-edges)
//!   and to `Vcsr`; graph_builder's edge-list reader (out- and in-edges);
//!   sprs's Matrix Market reader to a CSR matrix; petgraph's obvious path
//!   (read, parse, `Graph::from_edges`).
//! - `clone`: every store's `clone` and `snapshot` (`Bal`, the VCSR
//!   paper's blocked-list baseline, is left out of this comparison: its
//!   512-edge blocks take 2 KiB per vertex and direction, 4 GiB at
//!   Kronecker scale 20), petgraph's `Graph`,
//!   `StableGraph`, `GraphMap` and `Csr` clones (graph_builder's graphs
//!   are not `Clone`).
//! - `insert_in_place`, `delete_in_place`: distinct batches applied in
//!   turn to a copy of the graph, which is replaced by a fresh clone
//!   (untimed) once it has grown or shrunk by 1 %; `insert_new`,
//!   `delete_new`: the same into a new instance, the old one kept (clone +
//!   batch; and `CsrPP`'s graph algebra, `add_graph` / `subtract_graph`,
//!   set semantics; the rebuilt static structures are new instances anyway
//!   and are measured once, in place). Batches of `10^-7 |E|` to `10^-1 |E|` random new edges or
//!   random existing edges. dyngraph's stores through `GraphUpdate`'s batch
//!   calls; `Csr` and graph_builder rebuilt from the edge list;
//!   `StableGraph` with `add_edge` / `find_edge` + `remove_edge` in a loop
//!   as the paper did; `GraphMap` `add_edge` / `remove_edge`;
//!   petgraph's `Csr` `add_edge` (inserts only, and only while a batch
//!   costs at most ~10^9 moved edges: each insert shifts the arrays).
//! - `walks_after_updates`, `pagerank_after_updates`: 42-step reverse
//!   walks and 20 PageRank iterations after an insert batch and a delete
//!   batch of the size in the parameter (`10^-5 |E|` and `10^-1 |E|`).
//!   Ours with `dyngraph-kernels`; the peers' walks with the same
//!   rayon loop over their neighbour iterators; petgraph's own `page_rank`
//!   (quadratic in the vertices). Routines that cost minutes each are left
//!   out unless `DYNGRAPH_SAHU_SLOW_PEERS=1`: petgraph's walks past 4 M
//!   edges (one walk on Kronecker scale 20 takes 42 s) and its `page_rank`
//!   past 1,100 vertices (13.6 s per run on CollegeMsg), up to 5,000.
//!
//! Inputs: `kron<S>` and `uniform<U>` (`2^S` and `2^U` vertices, `D` edges
//! each; `DYNGRAPH_SAHU_SCALE`, default 20, `DYNGRAPH_SAHU_UNIFORM_SCALE`,
//! default 18, and
//! `DYNGRAPH_SAHU_DEGREE`, default 8) and
//! the real streams of `../shared/data` (sx-mathoverflow, CollegeMsg);
//! `DYNGRAPH_SAHU_INPUTS=kron,college` picks some. With criterion's
//! `--test` (as CI runs it) the inputs shrink to scale 10 and CollegeMsg.
//! `cargo run -p dyngraph-benches --bin report` turns the results into
//! `docs/benchmarks/`.
//!
//! Criterion settings: ten samples per routine, flat sampling (a routine
//! slower than 20 ms runs once per sample), 50 ms warm-up (one call of a
//! slower routine), 200 ms measurement, 10,000 bootstrap resamples. Each
//! structure the clone and update tasks start from is built once per input
//! and only cloned after. Every task prints its wall time (`wall time:
//! sahu/<input>/<task>`); the whole suite's time is in BENCHMARKS.md.

use criterion::measurement::WallTime;
use criterion::{
    BatchSize, Bencher, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, criterion_group,
    criterion_main,
};
use dyngraph::core::StoreConfig;
use dyngraph::core::{Csr, CsrOptions, DynamicStore, Edge, FromEdges, GraphUpdate, StoreOptions};
use dyngraph::csrpp::{CsrPP, CsrPPOptions};
use dyngraph::kernels::{PageRankOptions, ReverseWalkOptions, pagerank, reverse_walks};
use dyngraph::loader::{LoadOptions, load_csr, load_edge_stream};
use dyngraph::stores::StoreKind;
use dyngraph::vcsr::{Pcsr, Vcsr};
use dyngraph_benches::sahu::{
    SahuInput, WALK_STEPS, graph_builder_graph, graph_builder_walks, graph_map, petgraph_csr,
    reverse_walks_with, sahu_inputs, stable_graph, stable_graph_delete, stable_graph_insert,
};
use graph_builder::prelude::{CsrLayout, DirectedCsrGraph, EdgeListInput, GraphBuilder};
use petgraph::graph::NodeIndex;
use petgraph::prelude::{DiGraphMap, StableDiGraph};
use std::cell::OnceCell;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Whether criterion runs in `--test` mode (each routine once): CI's smoke
/// run, on small inputs.
fn smoke_run() -> bool {
    std::env::args().any(|arg| arg == "--test")
}

fn env_number(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn inputs() -> Vec<SahuInput> {
    if smoke_run() {
        return sahu_inputs(10, 10, 8, Some("kron,college"));
    }
    let names = std::env::var("DYNGRAPH_SAHU_INPUTS").ok();
    sahu_inputs(
        env_number("DYNGRAPH_SAHU_SCALE", 20),
        env_number("DYNGRAPH_SAHU_UNIFORM_SCALE", 18),
        env_number("DYNGRAPH_SAHU_DEGREE", 8),
        names.as_deref(),
    )
}

fn group<'a>(c: &'a mut Criterion, input: &SahuInput, task: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(format!("sahu/{}/{task}", input.name));
    // About 800 routines, two thirds of them under 10 ms: their fixed cost
    // (warm-up + measurement + analysis) was a third of the suite's time.
    // Flat sampling runs a slow routine ten times, not the 55 of linear
    // sampling's ramp; a fast one gets ten samples of at least
    // `MEASUREMENT / 10` = 20 ms of iterations each.
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(WARM_UP)
        .measurement_time(MEASUREMENT);
    group
}

/// Criterion's warm-up per routine: one call of any routine slower than
/// this, which also warms caches and sizes the samples' iteration counts.
const WARM_UP: Duration = Duration::from_millis(50);

/// Criterion's measurement target per routine: a routine slower than a
/// tenth of it runs once per sample.
const MEASUREMENT: Duration = Duration::from_millis(200);

/// Whether to also run the peers' routines that cost minutes each
/// (`DYNGRAPH_SAHU_SLOW_PEERS=1`): petgraph's walks past 4 M edges and its
/// `page_rank` past 1,100 vertices.
fn slow_peers() -> bool {
    std::env::var_os("DYNGRAPH_SAHU_SLOW_PEERS").is_some_and(|value| value != "0")
}

/// dyngraph's stores keep in-edges here: `StableGraph`, `GraphMap` and
/// graph_builder keep both directions too, and PageRank pulls over them.
fn store_options() -> StoreOptions {
    StoreOptions::default().in_edges(true)
}

fn build<S: DynamicStore>(input: &SahuInput) -> S {
    S::from_edges(&input.edges[..], S::Options::from_shared(store_options()))
        .expect("bench ids fit every store")
}

fn csr_options(input: &SahuInput) -> CsrOptions {
    CsrOptions::default()
        .in_edges(true)
        .vertex_count(input.vertex_count)
}

/// petgraph's `Csr` as the suite builds it.
type PetgraphCsr = petgraph::csr::Csr<(), (), petgraph::Directed, u32>;

/// The structures the clone and update tasks start from, each built from
/// the input once, on first use (a filtered run builds only what it
/// measures), and then only cloned: building them again for every group
/// cost the full suite minutes of untimed setup (kron20: about 20 s per
/// update group).
struct Built<'a> {
    input: &'a SahuInput,
    vcsr: OnceCell<Vcsr>,
    pcsr: OnceCell<Pcsr>,
    csrpp: OnceCell<CsrPP>,
    stable: OnceCell<StableDiGraph<(), (), u32>>,
    map: OnceCell<DiGraphMap<u32, ()>>,
    petgraph_csr: OnceCell<PetgraphCsr>,
}

impl<'a> Built<'a> {
    fn new(input: &'a SahuInput) -> Self {
        Built {
            input,
            vcsr: OnceCell::new(),
            pcsr: OnceCell::new(),
            csrpp: OnceCell::new(),
            stable: OnceCell::new(),
            map: OnceCell::new(),
            petgraph_csr: OnceCell::new(),
        }
    }

    /// dyngraph's store `S` holding the input (in-edges kept).
    fn store<S: Prebuilt>(&self) -> &S {
        S::cell(self).get_or_init(|| build(self.input))
    }

    fn stable(&self) -> &StableDiGraph<(), (), u32> {
        self.stable
            .get_or_init(|| stable_graph(self.input.vertex_count, &self.input.edges))
    }

    fn map(&self) -> &DiGraphMap<u32, ()> {
        self.map
            .get_or_init(|| graph_map(self.input.vertex_count, &self.input.edges))
    }

    fn petgraph_csr(&self) -> &PetgraphCsr {
        self.petgraph_csr
            .get_or_init(|| petgraph_csr(self.input.vertex_count, &self.input.edges))
    }
}

/// Work on one of dyngraph's stores.
trait OnStore {
    fn run<S: Prebuilt>(&mut self);
}

/// Runs `work` on each of the registry's stores that Sahu's comparison
/// measures. The `match` has no catch-all arm: a store added to the
/// registry does not compile here until it is placed.
fn each_store(work: &mut impl OnStore) {
    for &kind in StoreKind::ALL {
        match kind {
            StoreKind::Vcsr => work.run::<Vcsr>(),
            StoreKind::Pcsr => work.run::<Pcsr>(),
            StoreKind::Csrpp => work.run::<CsrPP>(),
            // Measured by the suite's own rows, "Csr rebuilt".
            StoreKind::CsrRebuild => {}
            // The VCSR paper's baseline: `vcsr_replay` measures it beside
            // Vcsr; here it would add minutes to a 22-minute suite.
            StoreKind::Bal => {}
            // A store in files, without `Clone` (the clone and in-place
            // tasks copy the built store): benches/examples/durable_compare.rs
            // measures it beside Vcsr and SQLite.
            StoreKind::Durable => {}
        }
    }
}

struct CloneStore<'g, 'c, 'b, 'a> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    built: &'b Built<'a>,
}

impl OnStore for CloneStore<'_, '_, '_, '_> {
    fn run<S: Prebuilt>(&mut self) {
        clone_store::<S>(self.group, self.built);
    }
}

struct UpdateStore<'g, 'c, 'b, 'a> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    task: UpdateTask<'b, 'a>,
}

impl OnStore for UpdateStore<'_, '_, '_, '_> {
    fn run<S: Prebuilt>(&mut self) {
        update_store::<S>(self.group, self.task);
    }
}

struct AnalyticsStore<'c, 'i> {
    c: &'c mut Criterion,
    input: &'i SahuInput,
}

impl OnStore for AnalyticsStore<'_, '_> {
    fn run<S: Prebuilt>(&mut self) {
        analytics_store::<S>(self.c, self.input);
    }
}

/// A dyngraph store that [`Built`] keeps.
trait Prebuilt: DynamicStore + Clone {
    /// Where [`Built`] keeps it.
    fn cell<'b>(built: &'b Built<'_>) -> &'b OnceCell<Self>;
}

impl Prebuilt for Vcsr {
    fn cell<'b>(built: &'b Built<'_>) -> &'b OnceCell<Self> {
        &built.vcsr
    }
}

impl Prebuilt for Pcsr {
    fn cell<'b>(built: &'b Built<'_>) -> &'b OnceCell<Self> {
        &built.pcsr
    }
}

impl Prebuilt for CsrPP {
    fn cell<'b>(built: &'b Built<'_>) -> &'b OnceCell<Self> {
        &built.csrpp
    }
}

/// The edge list without one occurrence of each edge of `batch`: what a
/// static structure is rebuilt from after a delete batch.
fn without(edges: &[Edge], batch: &[Edge]) -> Vec<Edge> {
    let mut pending: HashMap<(u32, u32), u32> = HashMap::with_capacity(batch.len());
    for e in batch {
        *pending.entry((e.src, e.dst)).or_default() += 1;
    }
    edges
        .iter()
        .filter(|e| match pending.get_mut(&(e.src, e.dst)) {
            Some(count) if *count > 0 => {
                *count -= 1;
                false
            }
            _ => true,
        })
        .copied()
        .collect()
}

fn load(c: &mut Criterion, input: &SahuInput) {
    let (el, mtx) = input.text_files();
    let mut group = group(c, input, "load");
    let options = LoadOptions::default().in_edges(true);
    group.bench_function("dyngraph Csr", |b| {
        b.iter(|| black_box(load_csr(&el, &options).expect("load")))
    });
    group.bench_function("dyngraph Vcsr", |b| {
        b.iter(|| {
            let stream = load_edge_stream(&el, &LoadOptions::default()).expect("load");
            let store: Vcsr = Vcsr::from_edges(&stream, store_options().into()).expect("build");
            black_box(store)
        })
    });
    group.bench_function("graph_builder", |b| {
        b.iter(|| {
            let graph: DirectedCsrGraph<u32> = GraphBuilder::new()
                .csr_layout(CsrLayout::Unsorted)
                .file_format(EdgeListInput::default())
                .path(&el)
                .build()
                .expect("graph_builder load");
            black_box(graph)
        })
    });
    group.bench_function("sprs", |b| {
        b.iter(|| {
            let triplets = sprs::io::read_matrix_market::<sprs::num_kinds::Pattern, usize, _>(&mtx)
                .expect("sprs load");
            black_box(triplets.to_csr::<usize>())
        })
    });
    group.bench_function("petgraph Graph", |b| {
        b.iter(|| {
            let text = std::fs::read_to_string(&el).expect("read");
            let pairs = text
                .lines()
                .filter(|line| !line.starts_with('#') && !line.starts_with('%'))
                .filter_map(|line| {
                    let mut fields = line.split_whitespace().map(|f| f.parse::<u32>().ok());
                    Some((fields.next()??, fields.next()??))
                });
            black_box(petgraph::Graph::<(), (), petgraph::Directed, u32>::from_edges(pairs))
        })
    });
    group.finish();
}

/// Times `value().clone()`; `value` is called inside the routine so that a
/// filtered run builds only what it measures, and returns a built value.
fn clone_one<'v, T: Clone + 'v>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    value: impl Fn() -> &'v T,
) {
    group.bench_function(name, |b| {
        let value = value();
        b.iter(|| black_box(value.clone()))
    });
}

fn clone_store<S: Prebuilt>(group: &mut BenchmarkGroup<'_, WallTime>, built: &Built<'_>) {
    clone_one(group, S::NAME, || built.store::<S>());
    group.bench_function(format!("{} snapshot", S::NAME), |b| {
        let store = built.store::<S>();
        b.iter(|| black_box(store.snapshot()))
    });
}

fn clone(c: &mut Criterion, built: &Built<'_>) {
    let input = built.input;
    let mut group = group(c, input, "clone");
    // `Csr` and petgraph's `Graph` are cloned here only: built for this
    // group, dropped after it.
    let csr = OnceCell::new();
    clone_one(&mut group, "Csr", || {
        csr.get_or_init(|| {
            Csr::from_edges(&input.edges[..], csr_options(input)).expect("valid graph")
        })
    });
    drop(csr);
    each_store(&mut CloneStore {
        group: &mut group,
        built,
    });
    let graph = OnceCell::new();
    clone_one(&mut group, "petgraph Graph", || {
        graph.get_or_init(|| {
            let pairs = input.edges.iter().map(|e| (e.src, e.dst));
            petgraph::Graph::<(), (), petgraph::Directed, u32>::from_edges(pairs)
        })
    });
    drop(graph);
    clone_one(&mut group, "petgraph StableGraph", || built.stable());
    clone_one(&mut group, "petgraph GraphMap", || built.map());
    clone_one(&mut group, "petgraph Csr", || built.petgraph_csr());
    group.finish();
}

/// Inserts or deletes.
#[derive(Clone, Copy, PartialEq)]
enum Update {
    Insert,
    Delete,
}

impl Update {
    fn batch(self, input: &SahuInput, size: usize) -> Vec<Edge> {
        match self {
            Update::Insert => input.insert_batch(size),
            Update::Delete => input.delete_batch(size),
        }
    }

    /// The distinct batches one in-place measurement applies in turn.
    fn batches(self, input: &SahuInput, size: usize) -> Vec<Vec<Edge>> {
        let count = input.batches_within_one_percent(size);
        match self {
            Update::Insert => input.insert_batches(size, count),
            Update::Delete => input.delete_batches(size, count),
        }
    }

    fn apply<S: GraphUpdate>(self, store: &mut S, batch: &[Edge]) {
        match self {
            Update::Insert => store.insert_edges(batch).expect("ids fit"),
            Update::Delete => store.delete_edges(batch).expect("valid batch"),
        };
        store.end_batch().expect("no batch work fails here");
    }

    fn edges_after(self, edges: &[Edge], batch: &[Edge]) -> Vec<Edge> {
        match self {
            Update::Insert => edges.iter().chain(batch).copied().collect(),
            Update::Delete => without(edges, batch),
        }
    }
}

/// A copy of the input graph that in-place batches are applied to, and
/// how many of the distinct batches it has taken. One lives as long as its
/// routine's measurement (warm-up and every sample, see [`in_place`]):
/// until issue 28 it lived for one criterion call, so every sample cloned
/// the graph afresh and re-applied the same first batches (kron20: about
/// 0.5 s of untimed clone per sample for `Pcsr` and `GraphMap`).
struct InPlace<G> {
    copy: Option<(G, usize)>,
}

impl<G> InPlace<G> {
    fn new() -> Self {
        Self { copy: None }
    }

    /// Times `apply` in place for one criterion call: the next distinct
    /// batches (`batches`: as many as keep the graph within 1 % of its
    /// size) applied to the copy in turn, timed, their mean scaled to
    /// `iters`. When the copy has taken every batch it is replaced by a
    /// new one from `fresh` (a clone of the input graph), untimed, at the
    /// start of the call that needs it. Undoing a batch instead would
    /// favour some structures (a re-inserted edge moves to the front of
    /// `StableGraph`'s list, so deleting it again is cheaper than the first
    /// time), and a clone per call would cost the suite far more than the
    /// small batches it measures.
    ///
    /// At least `iters` batches, and more while the copy has some left and
    /// less than [`SAMPLE_TIME`] has been timed: criterion sizes `iters`
    /// from the call's wall time, clone included, so it often asks for
    /// one, and one microsecond batch is noise.
    fn time(
        &mut self,
        fresh: impl Fn() -> G,
        iters: u64,
        batches: &[Vec<Edge>],
        apply: impl Fn(&mut G, &[Edge]),
    ) -> Duration {
        let least = iters.max(1);
        let mut elapsed = Duration::ZERO;
        let mut done = 0u64;
        loop {
            if self
                .copy
                .as_ref()
                .is_none_or(|(_, next)| *next == batches.len())
            {
                if done >= least {
                    break;
                }
                // The old copy is dropped here, untimed.
                self.copy = Some((fresh(), 0));
            }
            let (copy, next) = self.copy.as_mut().expect("set above");
            let start = Instant::now();
            apply(copy, &batches[*next]);
            elapsed += start.elapsed();
            *next += 1;
            done += 1;
            if done >= least && elapsed >= SAMPLE_TIME {
                break;
            }
        }
        black_box(&self.copy);
        elapsed.mul_f64(iters as f64 / done as f64)
    }
}

/// How much batch work one in-place sample times at least, when its copy
/// has the batches for it.
const SAMPLE_TIME: Duration = Duration::from_millis(10);

/// Times `make` (a new instance: clone + batch), dropping each result
/// outside the timing.
fn new_instance<G>(b: &mut Bencher<'_>, make: impl Fn() -> G) {
    b.iter_batched(|| (), |()| make(), BatchSize::PerIteration)
}

/// Times `apply` in place on copies `fresh` makes (see [`InPlace::time`]).
/// The copy outlives criterion's calls of the routine (warm-up and every
/// sample), so each sample takes the next batches of the same copy and a
/// new copy is cloned only once the last one has taken all its batches.
fn in_place<G>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    fresh: impl Fn() -> G,
    batches: &[Vec<Edge>],
    apply: impl Fn(&mut G, &[Edge]),
) {
    let mut in_place = InPlace::new();
    group.bench_function(id, |b| {
        b.iter_custom(|iters| in_place.time(&fresh, iters, batches, &apply))
    });
}

/// A dyngraph store at every batch size, through `GraphUpdate`'s batch
/// calls.
fn update_store<S: Prebuilt>(group: &mut BenchmarkGroup<'_, WallTime>, task: UpdateTask<'_, '_>) {
    let UpdateTask { built, update, new } = task;
    let input = built.input;
    for size in input.batch_sizes() {
        let id = BenchmarkId::new(S::NAME, size);
        if new {
            let batch = update.batch(input, size);
            group.bench_function(id, |b| {
                let store = built.store::<S>();
                new_instance(b, || {
                    let mut copy = store.clone();
                    update.apply(&mut copy, &batch);
                    copy
                })
            });
        } else {
            in_place(
                group,
                id,
                || built.store::<S>().clone(),
                &update.batches(input, size),
                |copy, batch| update.apply(copy, batch),
            );
        }
    }
}

/// One update task: which input, which update, in place or not.
#[derive(Clone, Copy)]
struct UpdateTask<'b, 'a> {
    built: &'b Built<'a>,
    update: Update,
    new: bool,
}

/// The group name of an update task.
fn update_task_name(update: Update, new: bool) -> &'static str {
    match (update, new) {
        (Update::Insert, false) => "insert_in_place",
        (Update::Delete, false) => "delete_in_place",
        (Update::Insert, true) => "insert_new",
        (Update::Delete, true) => "delete_new",
    }
}

fn updates(c: &mut Criterion, built: &Built<'_>, update: Update, new: bool) {
    let input = built.input;
    let mut group = group(c, input, update_task_name(update, new));
    let task = UpdateTask { built, update, new };
    each_store(&mut UpdateStore {
        group: &mut group,
        task,
    });
    let sizes = input.batch_sizes();
    for &size in &sizes {
        let batch = update.batch(input, size);
        // The static structures: the edge list edited, the graph rebuilt.
        // The old graph is untouched either way, so in place and new
        // instance are the same work, measured once (in place).
        if !new {
            group.bench_function(BenchmarkId::new("Csr rebuilt", size), |b| {
                b.iter(|| {
                    let edges = update.edges_after(&input.edges, &batch);
                    Csr::from_edges(&edges[..], csr_options(input)).expect("valid graph")
                })
            });
            group.bench_function(BenchmarkId::new("graph_builder rebuilt", size), |b| {
                b.iter(|| graph_builder_graph(&update.edges_after(&input.edges, &batch)))
            });
        }
        // CSR++'s graph algebra (set semantics): the batch as a graph,
        // then union or difference into a new instance.
        if new {
            let options = CsrPPOptions::from(store_options());
            group.bench_function(BenchmarkId::new("CsrPP graph algebra", size), |b| {
                // The same options as `build`'s: the shared base.
                let base = built.store::<CsrPP>();
                new_instance(b, || {
                    let other = CsrPP::from_edges(&batch[..], options.clone()).expect("build");
                    match update {
                        Update::Insert => base.add_graph(&other).expect("ids fit").0,
                        Update::Delete => base.subtract_graph(&other).0,
                    }
                })
            });
        }
    }
    // petgraph: StableGraph (as the paper used), GraphMap, and Csr.
    let stable_apply = |g: &mut StableDiGraph<(), (), u32>, batch: &[Edge]| match update {
        Update::Insert => stable_graph_insert(g, batch),
        Update::Delete => stable_graph_delete(g, batch),
    };
    let map_apply = |g: &mut DiGraphMap<u32, ()>, batch: &[Edge]| {
        for e in batch {
            match update {
                Update::Insert => {
                    g.add_edge(e.src, e.dst, ());
                }
                Update::Delete => {
                    g.remove_edge(e.src, e.dst);
                }
            }
        }
    };
    // A StableGraph delete walks the source's out-list and the target's
    // in-list: on a large skewed graph 10^-1 |E| deletes took 176 s for one
    // run (Kronecker scale 20, BENCHMARKS.md), ten samples half an hour.
    // Its deletes stop at 10^-3 |E| once the graph passes 10^6 edges.
    let stable_affordable = |size: usize| {
        update == Update::Insert
            || input.edges.len() < 1_000_000
            || size * 1000 <= input.edges.len()
    };
    for &size in &sizes {
        let stable_id = BenchmarkId::new("petgraph StableGraph", size);
        let map_id = BenchmarkId::new("petgraph GraphMap", size);
        let stable_id = stable_affordable(size).then_some(stable_id);
        if new {
            let batch = update.batch(input, size);
            if let Some(stable_id) = stable_id {
                group.bench_function(stable_id, |b| {
                    let stable = built.stable();
                    new_instance(b, || {
                        let mut copy = stable.clone();
                        stable_apply(&mut copy, &batch);
                        copy
                    })
                });
            }
            group.bench_function(map_id, |b| {
                let map = built.map();
                new_instance(b, || {
                    let mut copy = map.clone();
                    map_apply(&mut copy, &batch);
                    copy
                })
            });
        } else {
            let batches = update.batches(input, size);
            // A StableGraph clone has no spare capacity, so the first insert
            // into it would copy every edge to a larger vector: a cost a
            // graph that grew to this size pays once per doubling, not once
            // per copy. Its copies get room for their batches, untimed.
            // (GraphMap's index map keeps its slack when cloned.)
            let growth = match update {
                Update::Insert => batches.iter().map(Vec::len).sum(),
                Update::Delete => 0,
            };
            let stable_copy = || {
                let mut copy = built.stable().clone();
                copy.reserve_edges(growth);
                copy
            };
            if let Some(stable_id) = stable_id {
                in_place(&mut group, stable_id, stable_copy, &batches, stable_apply);
            }
            in_place(
                &mut group,
                map_id,
                || built.map().clone(),
                &batches,
                map_apply,
            );
        }
    }
    // petgraph's Csr takes inserts only, and every `add_edge` shifts the
    // arrays behind it: batches of at most ~10^9 moved edges. It has no
    // remove, so in place is a clone (untimed) once its copy has taken
    // those batches; cheap next to the inserts.
    if update == Update::Insert {
        let insert = |g: &mut PetgraphCsr, batch: &[Edge]| {
            for e in batch {
                g.add_edge(e.src, e.dst, ());
            }
        };
        for &size in &sizes {
            let moved = size as f64 * input.edges.len() as f64;
            if moved > 1e9 {
                continue;
            }
            let id = BenchmarkId::new("petgraph Csr", size);
            if new {
                let batch = update.batch(input, size);
                group.bench_function(id, |b| {
                    let csr = built.petgraph_csr();
                    new_instance(b, || {
                        let mut copy = csr.clone();
                        insert(&mut copy, &batch);
                        copy
                    })
                });
            } else {
                let mut batches = update.batches(input, size);
                batches.truncate(((1e9 / moved) as usize).max(1));
                in_place(
                    &mut group,
                    id,
                    || built.petgraph_csr().clone(),
                    &batches,
                    insert,
                );
            }
        }
    }
    group.finish();
}

/// The two batch sizes the analytics run after: small and large.
fn analytics_sizes(input: &SahuInput) -> [usize; 2] {
    let len = input.edges.len() as f64;
    [
        ((len * 1e-5).round() as usize).max(1),
        ((len * 1e-1).round() as usize).max(1),
    ]
}

fn updated<S: DynamicStore>(input: &SahuInput, size: usize) -> S {
    let mut store: S = build(input);
    Update::Insert.apply(&mut store, &input.insert_batch(size));
    Update::Delete.apply(&mut store, &input.delete_batch(size));
    store
}

fn updated_edges(input: &SahuInput, size: usize) -> Vec<Edge> {
    let inserted = Update::Insert.edges_after(&input.edges, &input.insert_batch(size));
    Update::Delete.edges_after(&inserted, &input.delete_batch(size))
}

fn analytics_store<S: DynamicStore>(c: &mut Criterion, input: &SahuInput) {
    let walks = ReverseWalkOptions { steps: WALK_STEPS };
    let ranks = PageRankOptions::default();
    for size in analytics_sizes(input) {
        let store: S = updated(input, size);
        group(c, input, "walks_after_updates")
            .bench_function(BenchmarkId::new(S::NAME, size), |b| {
                b.iter(|| black_box(reverse_walks(&store, &walks).expect("walks")))
            });
        group(c, input, "pagerank_after_updates")
            .bench_function(BenchmarkId::new(S::NAME, size), |b| {
                b.iter(|| black_box(pagerank(&store, &ranks).expect("valid options")))
            });
    }
}

fn analytics(c: &mut Criterion, input: &SahuInput) {
    each_store(&mut AnalyticsStore { c, input });
    let walks = ReverseWalkOptions { steps: WALK_STEPS };
    let ranks = PageRankOptions::default();
    let n = input.vertex_count;
    for size in analytics_sizes(input) {
        let edges = updated_edges(input, size);
        let csr = Csr::from_edges(&edges[..], csr_options(input)).expect("valid graph");
        let mut walk = group(c, input, "walks_after_updates");
        walk.bench_function(BenchmarkId::new("Csr rebuilt", size), |b| {
            b.iter(|| black_box(reverse_walks(&csr, &walks).expect("walks")))
        });
        let builder = graph_builder_graph(&edges);
        walk.bench_function(BenchmarkId::new("graph_builder rebuilt", size), |b| {
            b.iter(|| black_box(graph_builder_walks(&builder, WALK_STEPS)))
        });
        drop(builder);
        // One 42-step walk over petgraph's linked lists took 41.7 s on
        // Kronecker scale 20 (8.4 M edges), and its `page_rank` is
        // quadratic in the vertices (13.6 s per run on CollegeMsg's 1,900):
        // ten samples would be minutes per structure and batch size.
        let petgraph_walks = input.edges.len() <= 4_000_000 || slow_peers();
        let petgraph_pagerank = n <= 1_100 || (slow_peers() && n <= 5_000);
        // The updated StableGraph, only when something reads it: its
        // 10^-1 |E| deletes alone took minutes on Kronecker scale 20.
        let stable = (petgraph_walks || petgraph_pagerank).then(|| {
            let mut stable = stable_graph(n, &input.edges);
            stable_graph_insert(&mut stable, &input.insert_batch(size));
            stable_graph_delete(&mut stable, &input.delete_batch(size));
            stable
        });
        if let Some(stable) = stable.as_ref().filter(|_| petgraph_walks) {
            walk.bench_function(BenchmarkId::new("petgraph StableGraph", size), |b| {
                b.iter(|| {
                    black_box(reverse_walks_with(n, WALK_STEPS, |u| {
                        stable.neighbors(NodeIndex::new(u)).map(|v| v.index())
                    }))
                })
            });
        }
        if petgraph_walks {
            let mut map = graph_map(n, &input.edges);
            for e in input.insert_batch(size) {
                map.add_edge(e.src, e.dst, ());
            }
            for e in input.delete_batch(size) {
                map.remove_edge(e.src, e.dst);
            }
            walk.bench_function(BenchmarkId::new("petgraph GraphMap", size), |b| {
                b.iter(|| {
                    black_box(reverse_walks_with(n, WALK_STEPS, |u| {
                        map.neighbors(u as u32).map(|v| v as usize)
                    }))
                })
            });
        }
        walk.finish();
        let mut rank = group(c, input, "pagerank_after_updates");
        rank.bench_function(BenchmarkId::new("Csr rebuilt", size), |b| {
            b.iter(|| black_box(pagerank(&csr, &ranks).expect("valid options")))
        });
        if let Some(stable) = stable.as_ref().filter(|_| petgraph_pagerank) {
            rank.bench_function(BenchmarkId::new("petgraph StableGraph", size), |b| {
                b.iter(|| black_box(petgraph::algo::page_rank(stable, 0.85f32, 20)))
            });
        }
        rank.finish();
    }
}

fn sahu(c: &mut Criterion) {
    let start = Instant::now();
    let inputs = inputs();
    println!(
        "wall time: sahu inputs {:.1} s",
        start.elapsed().as_secs_f64()
    );
    for input in inputs {
        println!(
            "input {}: {} vertices, {} edges, batch sizes {:?}",
            input.name,
            input.vertex_count,
            input.edges.len(),
            input.batch_sizes()
        );
        let input_start = Instant::now();
        timed(&input, "load", || load(c, &input));
        let built = Built::new(&input);
        timed(&input, "clone", || clone(c, &built));
        for update in [Update::Insert, Update::Delete] {
            for new in [false, true] {
                timed(&input, update_task_name(update, new), || {
                    updates(c, &built, update, new)
                });
            }
        }
        // The analytics build their own updated graphs.
        drop(built);
        timed(&input, "analytics", || analytics(c, &input));
        println!(
            "wall time: sahu/{} {:.1} s",
            input.name,
            input_start.elapsed().as_secs_f64()
        );
    }
}

/// Runs one task's groups and prints their wall time (setup, warm-up,
/// measurement and analysis): where the suite's time goes.
fn timed(input: &SahuInput, task: &str, run: impl FnOnce()) {
    let start = Instant::now();
    run();
    println!(
        "wall time: sahu/{}/{task} {:.1} s",
        input.name,
        start.elapsed().as_secs_f64()
    );
}

criterion_group! {
    name = benches;
    // Criterion's bootstrap only sets the confidence intervals (the report
    // reads the medians, which are computed directly): 10,000 resamples of
    // ten samples are plenty, 100,000 (the default) cost ~50 ms per
    // routine.
    config = Criterion::default().nresamples(10_000);
    targets = sahu
}
criterion_main!(benches);
