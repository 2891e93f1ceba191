//! Workloads for the replay benches and probes: the real streams split as
//! the VCSR authors split them, the shuffled Kronecker stream (the loader's
//! generator), and [`replay`], which drives any store of the contract
//! through the same engine as `dyngraph replay` (`dyngraph-replay`).
//! Kernels come from `dyngraph-kernels`, as users call them.

use dyngraph::core::StoreConfig;
use dyngraph::core::{
    Csr, CsrOptions, DynamicStore, Edge, Graph, InEdges, InNeighbors, OutNeighbors, Result,
    StoreOptions, VertexId,
};
use dyngraph::loader::{EdgeStream, Generator, Order};
use dyngraph::replay::{NoObserver, ReplayOptions, StoreSummary};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// A stream to replay: a base bulk-built first, then the rest.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Name for tables.
    pub name: String,
    /// Inserted first, as a batch.
    pub base: Vec<Edge>,
    /// Inserted after the base, one edge at a time, in order.
    pub dynamic: Vec<Edge>,
}

impl Workload {
    /// All edges, base first.
    pub fn all(&self) -> Vec<Edge> {
        let mut all = self.base.clone();
        all.extend_from_slice(&self.dynamic);
        all
    }

    /// All edges as the replay engine's stream.
    pub fn stream(&self) -> EdgeStream {
        EdgeStream::from_pairs(
            self.base
                .iter()
                .chain(&self.dynamic)
                .map(|edge| (edge.src, edge.dst)),
        )
    }

    /// The base as the engine's `base_percent`: the engine floors
    /// `len * percent / 100`, so aiming half an edge past the base gives
    /// exactly `base.len()` edges.
    pub fn base_percent(&self) -> f64 {
        let len = (self.base.len() + self.dynamic.len()).max(1) as f64;
        (self.base.len() as f64 + 0.5) * 100.0 / len
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
pub fn mathoverflow(dir: &Path, base_percent: u32) -> Workload {
    let math = dir.join("sx-mathoverflow");
    let mut all = read_edges(&math.join("b30/base.wel"));
    all.extend(read_edges(&math.join("b30/dynamic.wel")));
    match base_percent {
        30 => {
            let dynamic = all.split_off(read_edges(&math.join("b30/base.wel")).len());
            Workload {
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
            Workload {
                name: "sx-mathoverflow b10".into(),
                dynamic: all.split_off(stream_part),
                base,
            }
        }
    }
}

/// A stream split into its first `base_percent`% and the rest.
pub fn split(name: &str, mut edges: Vec<Edge>, base_percent: usize) -> Workload {
    let dynamic = edges.split_off(edges.len() * base_percent / 100);
    Workload {
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
        .order(Order::Shuffle)
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
    fn semantics(&self) -> dyngraph::core::Semantics {
        self.out.semantics()
    }
}

impl OutNeighbors for ArrivalOrderCsr {
    type OutIter<'a> = <Csr as OutNeighbors>::OutIter<'a>;
    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        self.out.out_degree(v)
    }
    #[inline]
    fn out_neighbors(&self, v: VertexId) -> Self::OutIter<'_> {
        self.out.out_neighbors(v)
    }
}

/// [`ArrivalOrderCsr`]'s in-edges: the reversed stream's out-lists.
#[derive(Clone, Copy, Debug)]
pub struct ArrivalInEdges<'a>(&'a Csr);

impl<'a> InNeighbors for ArrivalInEdges<'a> {
    type InIter = <Csr as OutNeighbors>::OutIter<'a>;
    #[inline]
    fn in_degree(self, v: VertexId) -> u64 {
        self.0.out_degree(v)
    }
    #[inline]
    fn in_neighbors(self, v: VertexId) -> Self::InIter {
        self.0.out_neighbors(v)
    }
}

impl InEdges for ArrivalOrderCsr {
    type InHandle<'a> = ArrivalInEdges<'a>;
    fn in_edges(&self) -> Result<ArrivalInEdges<'_>> {
        Ok(ArrivalInEdges(&self.incoming))
    }
}

/// Replays `workload` into an empty `S` through the replay engine that
/// `dyngraph replay` uses: the base bulk-built with `FromEdges`, then the
/// dynamic part one edge at a time (timed in groups of 1,024 arrivals, as
/// the CLI does). The returned summary has the store's own maintenance
/// counters and memory.
///
/// `batch` is the arrivals per update batch: 1 for the dynamic stores, 1%
/// of the stream for `dyngraph::core::CsrRebuild`, which rebuilds its
/// `Csr` at the end of every batch.
pub fn replay<S: DynamicStore>(
    workload: &Workload,
    in_edges: bool,
    batch: usize,
) -> (StoreSummary, S) {
    let store_options = StoreOptions::default().in_edges(in_edges);
    let options = ReplayOptions {
        base_percent: workload.base_percent(),
        batch,
        ..ReplayOptions::default()
    };
    dyngraph::replay::replay::<S>(
        S::Options::from_shared(store_options),
        &workload.stream(),
        &options,
        &AtomicBool::new(false),
        &mut NoObserver,
    )
    .expect("bench streams have ids within every store's limit")
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
