//! Replaying edge streams into the dynamic stores of `dyngraph-vcsr`
//! (issue 5): stream readers, the shuffled Kronecker stream (the loader's
//! generator), the timed replay, the `Csr`-rebuilt-per-1%-batch baseline,
//! and a pull PageRank and a BFS written once against the core traits, so
//! every store runs the identical kernel code.

use dyngraph_core::{
    Csr, CsrOptions, Edge, Graph, GraphUpdate, InNeighbors, OutNeighbors, VertexId,
};
use dyngraph_loader::{ArrivalOrder, Generator};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

/// A stream to replay: a base inserted as one batch, then the rest one
/// edge at a time.
#[derive(Clone, Debug)]
pub struct Stream {
    /// Name for tables.
    pub name: String,
    /// Inserted first, as a batch.
    pub base: Vec<Edge>,
    /// Inserted after the base, one edge at a time, in order.
    pub dynamic: Vec<Edge>,
}

impl Stream {
    /// All edges, base first.
    pub fn all(&self) -> Vec<Edge> {
        let mut all = self.base.clone();
        all.extend_from_slice(&self.dynamic);
        all
    }
}

/// `../shared/data` next to the repository, if present.
pub fn shared_data() -> Option<PathBuf> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data"));
    path.is_dir().then_some(path)
}

/// The bundled sample `data/CollegeMsg.txt`.
pub fn bundled_sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/CollegeMsg.txt")
}

/// The first two columns of a whitespace-separated edge file (`#`/`%`
/// lines are comments). Bench input only: a malformed file panics with
/// its path and line.
pub fn read_edges(path: &Path) -> Vec<Edge> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            !line.starts_with('#') && !line.starts_with('%') && !line.trim().is_empty()
        })
        .map(|(number, line)| {
            let mut fields = line.split_whitespace().map(|f| {
                f.parse::<u32>()
                    .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), number + 1))
            });
            match (fields.next(), fields.next()) {
                (Some(src), Some(dst)) => Edge::new(src, dst),
                _ => panic!("{}:{}: fewer than two fields", path.display(), number + 1),
            }
        })
        .collect()
}

/// sx-mathoverflow as split by the VCSR authors: `b10` or `b30` base, then
/// the dynamic part. The b10 split ships only its base; its dynamic part is
/// the rest of the b30 stream (b30 base + dynamic minus the b10 base's
/// first 37,597 lines; the b10 base's extra last line names the largest id
/// and is not part of the stream).
pub fn mathoverflow(dir: &Path, base_percent: u32) -> Stream {
    let math = dir.join("sx-mathoverflow");
    let mut all = read_edges(&math.join("b30/base.wel"));
    all.extend(read_edges(&math.join("b30/dynamic.wel")));
    match base_percent {
        30 => {
            let dynamic = all.split_off(read_edges(&math.join("b30/base.wel")).len());
            Stream {
                name: "sx-mathoverflow b30".into(),
                base: all,
                dynamic,
            }
        }
        _ => {
            let base = read_edges(&math.join("b10/base.wel"));
            let stream_part = base.len() - 1;
            assert_eq!(
                &all[..stream_part],
                &base[..stream_part],
                "b10 is a prefix of b30"
            );
            Stream {
                name: "sx-mathoverflow b10".into(),
                dynamic: all.split_off(stream_part),
                base,
            }
        }
    }
}

/// A stream split into its first `base_percent`% and the rest.
pub fn split(name: &str, mut edges: Vec<Edge>, base_percent: usize) -> Stream {
    let dynamic = edges.split_off(edges.len() * base_percent / 100);
    Stream {
        name: name.into(),
        base: edges,
        dynamic,
    }
}

/// `2^scale` vertices, `edge_factor * 2^scale` edges of the loader's
/// Kronecker generator (Graph500 initiator 0.57, 0.19, 0.19, 0.05; GAPBS
/// `-g scale -k edge_factor`) in shuffled arrival order, the papers'
/// "Random" update workload. Deterministic for a seed.
pub fn kronecker_edges(scale: u32, edge_factor: u32, seed: u64) -> Vec<Edge> {
    Generator::kronecker(scale, edge_factor)
        .seed(seed)
        .order(ArrivalOrder::Shuffled)
        .generate()
        .expect("a Kronecker scale the generator accepts")
        .edges()
        .collect()
}

/// `Csr`'s out-edges with in-edges kept in *arrival* order: the in-lists
/// come from a `Csr` of the reversed stream rather than from the transpose
/// of the out-edges, whose in-lists come out sorted by source. A dynamic
/// store that keeps insertion order (VCSR) has its in-edges in arrival
/// order too, and a pull kernel reading `contribution[u]` over them jumps
/// about more; this row separates that ordering cost from the cost of the
/// layout itself.
#[derive(Debug)]
pub struct ArrivalOrderCsr {
    out: Csr,
    incoming: Csr,
}

impl ArrivalOrderCsr {
    /// Both directions of `edges`, each list in arrival order.
    pub fn new(edges: &[Edge]) -> Self {
        let vertex_count = edges
            .iter()
            .map(|e| e.src.max(e.dst) as usize + 1)
            .max()
            .unwrap_or(0);
        let options = CsrOptions::default().vertex_count(vertex_count);
        let reversed: Vec<Edge> = edges.iter().map(|e| Edge::new(e.dst, e.src)).collect();
        ArrivalOrderCsr {
            out: Csr::from_edges(edges, options.clone()).expect("valid graph"),
            incoming: Csr::from_edges(&reversed, options).expect("valid graph"),
        }
    }
}

impl Graph for ArrivalOrderCsr {
    fn vertex_count(&self) -> usize {
        self.out.vertex_count()
    }
    fn edge_count(&self) -> u64 {
        self.out.edge_count()
    }
    fn semantics(&self) -> dyngraph_core::Semantics {
        self.out.semantics()
    }
}

impl OutNeighbors for ArrivalOrderCsr {
    type OutNeighbors<'a> = <Csr as OutNeighbors>::OutNeighbors<'a>;
    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        self.out.out_degree(v)
    }
    #[inline]
    fn out_neighbors(&self, v: VertexId) -> Self::OutNeighbors<'_> {
        self.out.out_neighbors(v)
    }
}

impl InNeighbors for ArrivalOrderCsr {
    type InNeighbors<'a> = <Csr as OutNeighbors>::OutNeighbors<'a>;
    fn has_in_edges(&self) -> bool {
        true
    }
    #[inline]
    fn in_degree(&self, v: VertexId) -> u64 {
        self.incoming.out_degree(v)
    }
    #[inline]
    fn in_neighbors(&self, v: VertexId) -> Self::InNeighbors<'_> {
        self.incoming.out_neighbors(v)
    }
}

/// Per-store counters reported next to the timings.
#[derive(Clone, Debug, Default)]
pub struct StoreReport {
    /// Rebalances by tree level (empty for stores without a PMA).
    pub rebalances_per_level: Vec<u64>,
    /// Elements moved by rebalances, shifts and resizes.
    pub elements_moved: u64,
    /// Resizes of the edge array.
    pub resizes: u64,
    /// Heap bytes.
    pub memory_bytes: usize,
}

/// A store the replay can drive.
pub trait ReplayStore: GraphUpdate + OutNeighbors + InNeighbors + Sync + Sized {
    /// Name for tables.
    const NAME: &'static str;
    /// An empty multigraph store, with in-edges when asked.
    fn empty(in_edges: bool) -> Self;
    /// Its counters.
    fn report(&self) -> StoreReport;
}

/// What one replay measured.
#[derive(Clone, Debug)]
pub struct ReplayResult {
    /// Store name.
    pub store: &'static str,
    /// Seconds to insert the base batch.
    pub base_seconds: f64,
    /// Seconds to insert the dynamic part (one at a time, or 1% batches for
    /// the `Csr` rebuild).
    pub dynamic_seconds: f64,
    /// Edges in the dynamic part.
    pub dynamic_edges: usize,
    /// Edges in the final graph.
    pub final_edges: u64,
    /// Counters after the replay.
    pub report: StoreReport,
}

impl ReplayResult {
    /// Dynamic-part insertion throughput.
    pub fn edges_per_second(&self) -> f64 {
        self.dynamic_edges as f64 / self.dynamic_seconds
    }

    /// Heap bytes per stored edge.
    pub fn bytes_per_edge(&self) -> f64 {
        self.report.memory_bytes as f64 / self.final_edges.max(1) as f64
    }
}

/// Inserts the base as one batch, then the dynamic part one edge at a time.
pub fn replay<S: ReplayStore>(stream: &Stream, in_edges: bool) -> (S, ReplayResult) {
    let mut store = S::empty(in_edges);
    let start = Instant::now();
    store
        .insert_edges(&stream.base)
        .expect("ids within the limit");
    let base_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    for edge in &stream.dynamic {
        store
            .insert_edge(edge.src, edge.dst)
            .expect("ids within the limit");
    }
    let dynamic_seconds = start.elapsed().as_secs_f64();
    let result = ReplayResult {
        store: S::NAME,
        base_seconds,
        dynamic_seconds,
        dynamic_edges: stream.dynamic.len(),
        final_edges: store.edge_count(),
        report: store.report(),
    };
    (store, result)
}

/// The static baseline: a `Csr` of the base, then rebuilt from every edge
/// so far after each batch of 1% of the whole stream.
pub fn replay_csr_rebuild(stream: &Stream, transpose: bool) -> (Csr, ReplayResult) {
    let options = CsrOptions::default().transpose(transpose);
    let batch = ((stream.base.len() + stream.dynamic.len()) / 100).max(1);
    let start = Instant::now();
    let mut all = stream.base.clone();
    let mut csr = Csr::from_edges(&all, options.clone()).expect("valid graph");
    let base_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    for chunk in stream.dynamic.chunks(batch) {
        all.extend_from_slice(chunk);
        csr = Csr::from_edges(&all, options.clone()).expect("valid graph");
    }
    let dynamic_seconds = start.elapsed().as_secs_f64();
    let result = ReplayResult {
        store: "Csr (rebuilt per 1%)",
        base_seconds,
        dynamic_seconds,
        dynamic_edges: stream.dynamic.len(),
        final_edges: csr.edge_count(),
        report: StoreReport {
            memory_bytes: csr.memory_bytes(),
            ..StoreReport::default()
        },
    };
    (csr, result)
}

/// PageRank damping factor.
pub const DAMPING: f32 = 0.85;

/// Pull PageRank, a fixed number of iterations, through the core traits
/// (needs in-edges). The same code runs on every store.
pub fn pagerank<G: OutNeighbors + InNeighbors + Sync>(graph: &G, iterations: usize) -> Vec<f32> {
    let n = graph.vertex_count();
    let base = (1.0 - DAMPING) / n as f32;
    let mut rank = vec![1.0 / n as f32; n];
    let mut contribution = vec![0.0f32; n];
    for _ in 0..iterations {
        contribution.par_iter_mut().enumerate().for_each(|(v, c)| {
            let degree = graph.out_degree(v as VertexId);
            *c = if degree == 0 {
                0.0
            } else {
                rank[v] / degree as f32
            };
        });
        rank.par_iter_mut().enumerate().for_each(|(v, r)| {
            let sum: f32 = graph
                .in_neighbors(v as VertexId)
                .map(|u| contribution[u as usize])
                .sum();
            *r = base + DAMPING * sum;
        });
    }
    rank
}

/// Level-synchronous top-down BFS through the core traits, parallel over
/// the frontier; returns the parent of every vertex (`u32::MAX` when
/// unreached; the source is its own parent).
pub fn bfs<G: OutNeighbors + Sync>(graph: &G, source: VertexId) -> Vec<VertexId> {
    let parents: Vec<AtomicU32> = (0..graph.vertex_count())
        .map(|_| AtomicU32::new(u32::MAX))
        .collect();
    parents[source as usize].store(source, Ordering::Relaxed);
    let mut frontier = vec![source];
    while !frontier.is_empty() {
        frontier = frontier
            .par_iter()
            .flat_map_iter(|&u| {
                let parents = &parents;
                graph.out_neighbors(u).filter(move |&v| {
                    parents[v as usize]
                        .compare_exchange(u32::MAX, u, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
                })
            })
            .collect();
    }
    parents.into_iter().map(AtomicU32::into_inner).collect()
}

/// The vertex of largest out-degree (lowest id on ties): a BFS source that
/// reaches most of the graph.
pub fn bfs_source<G: OutNeighbors>(graph: &G) -> VertexId {
    (0..graph.vertex_count() as VertexId)
        .max_by_key(|&v| (graph.out_degree(v), std::cmp::Reverse(v)))
        .unwrap_or(0)
}

/// Runs `f` on a pool of `threads` threads.
pub fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
        .install(f)
}

/// Median of `runs` timings of `f`, in seconds.
pub fn median_seconds(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

impl ReplayStore for dyngraph_vcsr::Bal {
    const NAME: &'static str = "Bal";

    fn empty(in_edges: bool) -> Self {
        dyngraph_vcsr::Bal::new(dyngraph_vcsr::StoreOptions::default().in_edges(in_edges))
            .expect("default options are valid")
    }

    fn report(&self) -> StoreReport {
        StoreReport {
            memory_bytes: self.memory_bytes(),
            ..StoreReport::default()
        }
    }
}

impl ReplayStore for dyngraph_vcsr::Vcsr {
    const NAME: &'static str = "Vcsr";

    fn empty(in_edges: bool) -> Self {
        dyngraph_vcsr::Vcsr::new(dyngraph_vcsr::StoreOptions::default().in_edges(in_edges))
            .expect("default options are valid")
    }

    fn report(&self) -> StoreReport {
        let stats = self.stats();
        StoreReport {
            rebalances_per_level: stats.rebalances_per_level(),
            elements_moved: stats.elements_moved(),
            resizes: stats.resizes(),
            memory_bytes: self.memory_bytes(),
        }
    }
}

impl ReplayStore for dyngraph_vcsr::Pcsr {
    const NAME: &'static str = "Pcsr";

    fn empty(in_edges: bool) -> Self {
        dyngraph_vcsr::Pcsr::new(dyngraph_vcsr::StoreOptions::default().in_edges(in_edges))
            .expect("default options are valid")
    }

    fn report(&self) -> StoreReport {
        let mut levels = self.stats().rebalances_per_level.clone();
        let mut moved = self.stats().elements_moved;
        let mut resizes = self.stats().resizes();
        if let Some(incoming) = self.in_edge_stats() {
            if levels.len() < incoming.rebalances_per_level.len() {
                levels.resize(incoming.rebalances_per_level.len(), 0);
            }
            for (total, &count) in levels.iter_mut().zip(&incoming.rebalances_per_level) {
                *total += count;
            }
            moved += incoming.elements_moved;
            resizes += incoming.resizes();
        }
        StoreReport {
            rebalances_per_level: levels,
            elements_moved: moved,
            resizes,
            memory_bytes: self.memory_bytes(),
        }
    }
}
