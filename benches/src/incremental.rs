//! Sahu's dynamic PageRank comparison (the DF / DF-P papers' tables), and
//! the same for maintained connected components, BFS and SSSP: the inputs,
//! the batches and the measurement behind `benches/examples/incremental.rs`.
//!
//! For each input, batch kind (insertions, deletions, a mix) and batch
//! size (`10^-7 |E|` to `10^-1 |E|`, at least one edge), every row starts
//! from the same base graph and state (cloned, untimed), then applies the
//! same batches in turn: the store's update is untimed, each row's
//! [`Maintained::update`] is timed. Errors are measured against the static
//! row at the same tolerance (Sahu's measure) after every batch. The exact
//! kernels' rows (updates of microseconds) each replay the batches alone,
//! so none is timed on caches another row's recomputation left cold.

use crate::networkit::StaticFinals;
use crate::replay::{bundled_sample, read_edges};
use dyngraph::core::{Edge, FromEdges, GraphUpdate, StoreOptions, VertexId, WeightedEdge};
use dyngraph::incremental::{
    ComponentsStrategy, DynamicBfs, DynamicBfsOptions, DynamicComponents, DynamicComponentsOptions,
    DynamicPageRank, DynamicPageRankOptions, DynamicSssp, DynamicSsspOptions, IncrementalKernel,
    Maintained, PageRankStrategy, PathStrategy, PathThresholds, UpdateStats, pagerank_error,
    reference_pagerank,
};
use dyngraph::kernels::{PageRankOptions, pagerank};
use dyngraph::loader::{Generator, Order};
use dyngraph::vcsr::Vcsr;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One input graph.
#[derive(Clone, Debug)]
pub struct Input {
    /// Name for tables and files.
    pub name: String,
    /// Edges, in arrival order for a temporal stream.
    pub edges: Vec<WeightedEdge>,
    /// Whether the weights are data (else all 1: SSSP counts hops).
    pub weighted: bool,
    /// A temporal stream (batches are its next and oldest arrivals) or a
    /// static graph (batches are random).
    pub temporal: bool,
}

impl Input {
    /// The batch sizes: `10^-7 |E|` to `10^-1 |E|` in powers of ten, at
    /// least one edge, without repeats; each with its exponent.
    pub fn batch_sizes(&self, largest_exponent: i32) -> Vec<(i32, usize)> {
        let mut sizes: Vec<(i32, usize)> = (-7..=largest_exponent)
            .map(|e| {
                (
                    e,
                    ((self.edges.len() as f64) * 10f64.powi(e)).round() as usize,
                )
            })
            .filter(|&(_, size)| size >= 1)
            .collect();
        sizes.dedup_by_key(|&mut (_, size)| size);
        sizes
    }

    /// The edges the base graph starts with: 90 % of a temporal stream
    /// (the rest arrives in batches, as in Sahu's temporal runs), all of a
    /// static graph.
    pub fn base_len(&self) -> usize {
        if self.temporal {
            self.edges.len() * 9 / 10
        } else {
            self.edges.len()
        }
    }
}

/// `../shared/data` (or one level further up, from a worktree).
pub fn shared_data_dir() -> Option<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        here.join("../../shared/data"),
        here.join("../../../shared/data"),
    ]
    .into_iter()
    .find(|p| p.is_dir())
}

/// The inputs: sx-mathoverflow and CollegeMsg as temporal streams (the
/// bundled CollegeMsg when `../shared/data` is absent), Kronecker and
/// uniform graphs of `2^scale` vertices and 16 edges per vertex (GAPBS
/// `-g`/`-u`, weights 1..255) with random batches. `names`: comma-separated
/// prefixes to keep.
pub fn inputs(scale: u32, names: Option<&str>) -> Vec<Input> {
    let wanted =
        |name: &str| names.is_none_or(|list| list.split(',').any(|w| name.starts_with(w.trim())));
    let mut inputs = Vec::new();
    let shared = shared_data_dir();
    if wanted("mathoverflow") {
        match &shared {
            Some(dir) => {
                let mut edges = read_weighted(&dir.join("sx-mathoverflow/b30/base.wel"));
                edges.extend(read_weighted(&dir.join("sx-mathoverflow/b30/dynamic.wel")));
                inputs.push(Input {
                    name: "mathoverflow".into(),
                    edges,
                    weighted: true,
                    temporal: true,
                });
            }
            None => println!("note: ../shared/data is absent: no sx-mathoverflow"),
        }
    }
    if wanted("college") {
        let path = shared
            .as_ref()
            .map(|dir| dir.join("CollegeMsg.txt"))
            .filter(|p| p.exists())
            .unwrap_or_else(bundled_sample);
        let edges = read_edges(&path)
            .into_iter()
            .map(|e| WeightedEdge::new(e.src, e.dst, 1.0))
            .collect();
        inputs.push(Input {
            name: "college".into(),
            edges,
            weighted: false,
            temporal: true,
        });
    }
    for (name, generator) in [
        (format!("kron{scale}"), Generator::kronecker(scale, 16)),
        (format!("uniform{scale}"), Generator::uniform(scale, 16)),
    ] {
        if wanted(&name) {
            let stream = generator
                .seed(1)
                .weighted(true)
                .order(Order::Shuffle)
                .generate()
                .expect("a scale the generator accepts");
            inputs.push(Input {
                name,
                edges: stream.weighted_edges().collect(),
                weighted: true,
                temporal: false,
            });
        }
    }
    inputs
}

fn read_weighted(path: &Path) -> Vec<WeightedEdge> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.starts_with('%') && !l.trim().is_empty())
        .map(|(number, line)| {
            let mut fields = line.split_whitespace();
            let mut next = || {
                fields
                    .next()
                    .unwrap_or_else(|| panic!("{}:{}: missing field", path.display(), number + 1))
            };
            let bad = |e: &dyn std::fmt::Display| format!("{}:{}: {e}", path.display(), number + 1);
            let src: VertexId = next().parse().unwrap_or_else(|e| panic!("{}", bad(&e)));
            let dst: VertexId = next().parse().unwrap_or_else(|e| panic!("{}", bad(&e)));
            let weight: f32 = next().parse().unwrap_or_else(|e| panic!("{}", bad(&e)));
            WeightedEdge::new(src, dst, weight)
        })
        .collect()
}

/// What a batch holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BatchKind {
    /// Only inserts.
    Insertions,
    /// Only deletes.
    Deletions,
    /// Half inserts (rounded up), half deletes.
    Mixed,
}

impl BatchKind {
    /// All three.
    pub const ALL: [BatchKind; 3] = [
        BatchKind::Insertions,
        BatchKind::Deletions,
        BatchKind::Mixed,
    ];

    /// The name in tables.
    pub fn as_str(self) -> &'static str {
        match self {
            BatchKind::Insertions => "insertions",
            BatchKind::Deletions => "deletions",
            BatchKind::Mixed => "mixed",
        }
    }
}

/// The batches of one run: a temporal stream's next and oldest arrivals,
/// or random new edges and random present edges of a static graph.
#[derive(Debug)]
pub struct Batches<'a> {
    input: &'a Input,
    /// Next arrival to insert (temporal).
    next: usize,
    /// Oldest arrival still present (temporal).
    oldest: usize,
    /// Present edges (random deletes pick from them).
    live: Vec<WeightedEdge>,
    vertex_count: u32,
    rng: Xoshiro256PlusPlus,
}

impl<'a> Batches<'a> {
    /// Batches over `input`'s base graph, seeded by `seed`.
    pub fn new(input: &'a Input, seed: u64) -> Self {
        let base = input.base_len();
        let vertex_count = input
            .edges
            .iter()
            .map(|e| e.src.max(e.dst) + 1)
            .max()
            .unwrap_or(1);
        Self {
            input,
            next: base,
            oldest: 0,
            live: if input.temporal {
                Vec::new()
            } else {
                input.edges.clone()
            },
            vertex_count,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    /// The next batch of `size` edges of `kind`: (inserted, deleted).
    pub fn next_batch(&mut self, kind: BatchKind, size: usize) -> (Vec<WeightedEdge>, Vec<Edge>) {
        let (inserts, deletes) = match kind {
            BatchKind::Insertions => (size, 0),
            BatchKind::Deletions => (0, size),
            BatchKind::Mixed => (size.div_ceil(2), size / 2),
        };
        if self.input.temporal {
            let end = (self.next + inserts).min(self.input.edges.len());
            let inserted = self.input.edges[self.next..end].to_vec();
            self.next = end;
            let stop = (self.oldest + deletes).min(self.next);
            let deleted = self.input.edges[self.oldest..stop]
                .iter()
                .map(|e| e.edge())
                .collect();
            self.oldest = stop;
            (inserted, deleted)
        } else {
            let n = self.vertex_count;
            let weighted = self.input.weighted;
            let inserted: Vec<WeightedEdge> = (0..inserts)
                .map(|_| {
                    let weight = if weighted {
                        self.rng.random_range(1..=255u32) as f32
                    } else {
                        1.0
                    };
                    WeightedEdge::new(
                        self.rng.random_range(0..n),
                        self.rng.random_range(0..n),
                        weight,
                    )
                })
                .collect();
            let mut deleted = Vec::with_capacity(deletes);
            for _ in 0..deletes.min(self.live.len()) {
                let i = self.rng.random_range(0..self.live.len());
                deleted.push(self.live.swap_remove(i).edge());
            }
            self.live.extend_from_slice(&inserted);
            (inserted, deleted)
        }
    }
}

/// The seed of the batches of one size: every row, and NetworKit's, take
/// the same ones.
pub fn batch_seed(size: usize) -> u64 {
    0xBA7C ^ size as u64
}

/// The store every row runs on: VCSR with in-edges (and weights when the
/// input has them).
pub type Store = Vcsr;

/// Builds the base store of `input`.
pub fn base_store(input: &Input) -> Store {
    let options = StoreOptions::default()
        .in_edges(true)
        .weighted(input.weighted);
    Vcsr::from_edges(&input.edges[..input.base_len()], options.into()).expect("base store")
}

/// One row's measurements at one batch size.
#[derive(Clone, Debug, Default)]
pub struct Cell {
    /// Update seconds, one per batch.
    pub seconds: Vec<f64>,
    /// Largest L∞ distance to the static row over the batches (PageRank),
    /// or count of vertices that differ from it (the exact kernels).
    pub linf: f64,
    /// Largest L1 distance to the static row (PageRank).
    pub l1: f64,
    /// Updates that fell back.
    pub fell_back: usize,
    /// Mean vertex computations per vertex.
    pub touched: f64,
}

impl Cell {
    /// Records one update of `repeat` in the cell: its time, whether it
    /// fell back, and its share of the mean work per vertex.
    pub fn record(&mut self, stats: &UpdateStats, repeat: usize) {
        self.seconds.push(stats.seconds);
        self.fell_back += usize::from(stats.fell_back());
        self.touched += stats.work_share() / repeat as f64;
    }

    /// The median update time, in seconds.
    pub fn median(&self) -> f64 {
        let mut sorted = self.seconds.clone();
        sorted.sort_by(f64::total_cmp);
        match sorted.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => sorted[n / 2],
            n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
        }
    }
}

/// The PageRank rows: Sahu's five approaches (the frontier ones without
/// the sweep fallback, as in his papers), DF-P with this crate's default
/// fallback, and the static GAPBS kernel (`f32`, 20 iterations, timed
/// only: a different tolerance).
/// `frontier_tolerance` sets DF's and DF-P's `τ_f` and `τ_p` (the
/// defaults when `None`).
///
/// With an L1 `bound` (issue 37), the rows all converge to that bound
/// instead: a static run to it (the reference row), naive-dynamic to it,
/// this crate's DF-P default (`τ = 1e-10`, its own tolerances, for
/// scale), and residual push to it.
pub fn pagerank_rows(
    frontier_tolerance: Option<f64>,
    bound: Option<f64>,
) -> Vec<(&'static str, DynamicPageRankOptions)> {
    let defaults = DynamicPageRankOptions::default();
    if let Some(bound) = bound {
        let at_bound = |strategy| DynamicPageRankOptions {
            strategy,
            l1_bound: Some(bound),
            ..defaults.clone()
        };
        return vec![
            ("static@L1", at_bound(PageRankStrategy::Static)),
            ("naive@L1", at_bound(PageRankStrategy::NaiveDynamic)),
            ("DF-P+fallback", defaults.clone()),
            ("push@L1", DynamicPageRankOptions::to_l1_bound(bound)),
        ];
    }
    let tolerance = frontier_tolerance.unwrap_or(defaults.frontier_tolerance);
    let tuned = DynamicPageRankOptions {
        frontier_tolerance: tolerance,
        prune_tolerance: tolerance,
        ..defaults
    };
    let plain = |strategy| DynamicPageRankOptions {
        strategy,
        full_sweep_share: f64::INFINITY,
        ..tuned.clone()
    };
    vec![
        ("static", plain(PageRankStrategy::Static)),
        ("naive-dynamic", plain(PageRankStrategy::NaiveDynamic)),
        ("traversal", plain(PageRankStrategy::DynamicTraversal)),
        ("DF", plain(PageRankStrategy::DynamicFrontier)),
        ("DF-P", plain(PageRankStrategy::DynamicFrontierPruned)),
        ("DF-P+fallback", tuned.clone()),
    ]
}

/// The exact kernels' rows: static, incremental with the default
/// thresholds, incremental with none (to measure where they belong).
pub fn exact_rows() -> [(&'static str, bool, bool); 3] {
    // (name, incremental, thresholds)
    [
        ("static", false, true),
        ("incremental", true, true),
        ("no-fallback", true, false),
    ]
}

/// Measures the PageRank rows on `input`, batches of `kind` and `size`,
/// `repeat` batches each, from `store` and the rows' `states`; also the
/// first row's scores after the last batch.
pub fn measure_pagerank(
    input: &Input,
    store: &Store,
    states: &[Maintained<DynamicPageRank>],
    kind: BatchKind,
    size: usize,
    repeat: usize,
) -> (Vec<Cell>, Vec<f64>) {
    let mut store = store.clone();
    let mut states: Vec<Maintained<DynamicPageRank>> = states.to_vec();
    let mut cells = vec![Cell::default(); states.len() + 1];
    let mut batches = Batches::new(input, batch_seed(size));
    for _ in 0..repeat {
        let (inserted, deleted) = batches.next_batch(kind, size);
        if inserted.is_empty() && deleted.is_empty() {
            break;
        }
        apply(&mut store, &inserted, &deleted);
        for (state, cell) in states.iter_mut().zip(&mut cells) {
            state.record_batch(&inserted, &deleted);
            let stats = state.update(&store).expect("pagerank update");
            cell.record(&stats, repeat);
        }
        let reference = states[0].kernel().scores();
        for (state, cell) in states.iter().zip(&mut cells).skip(1) {
            let error = pagerank_error(&state.kernel().scores(), &reference);
            cell.linf = cell.linf.max(error.linf);
            cell.l1 = cell.l1.max(error.l1);
        }
        let started = Instant::now();
        let gapbs = pagerank(&store, &PageRankOptions::default()).expect("static kernel");
        let cell = cells.last_mut().expect("the GAPBS row");
        cell.seconds.push(started.elapsed().as_secs_f64());
        let scores: Vec<f64> = gapbs.scores.iter().map(|&s| f64::from(s)).collect();
        let error = pagerank_error(&scores, &reference);
        cell.linf = cell.linf.max(error.linf);
        cell.l1 = cell.l1.max(error.l1);
    }
    (cells, states[0].kernel().scores())
}

/// How far one inserted edge's effect on the exact ranks reaches: the
/// share of vertices whose rank moves by more than each relative bound
/// (`1e-4`, `1e-6`, `1e-8`) and by more than each absolute bound (`1e-9`,
/// `1e-11`) when the first edge of an insertion batch goes in. A frontier
/// method that keeps every rank within a bound must touch at least the
/// vertices past it.
pub fn one_edge_region(input: &Input, store: &Store) -> ([f64; 3], [f64; 2]) {
    let before = reference_pagerank(store, 0.85);
    let mut store = store.clone();
    let (inserted, _) = Batches::new(input, 0x0E).next_batch(BatchKind::Insertions, 1);
    apply(&mut store, &inserted, &[]);
    let after = reference_pagerank(&store, 0.85);
    let n = after.len().max(1) as f64;
    let share = |test: &dyn Fn(f64, f64) -> bool| {
        let moved = after
            .iter()
            .zip(before.iter().chain(std::iter::repeat(&0.0)))
            .filter(|&(&a, &b)| test(a, b))
            .count();
        moved as f64 / n
    };
    let relative = [1e-4, 1e-6, 1e-8].map(|bound| share(&|a, b| (a - b).abs() > bound * a));
    let absolute = [1e-9, 1e-11].map(|bound| share(&|a, b| (a - b).abs() > bound));
    (relative, absolute)
}

/// The three exact kernels, each in its three rows.
#[derive(Clone, Debug)]
pub struct ExactStates {
    /// Connected components.
    pub components: Vec<Maintained<DynamicComponents>>,
    /// BFS from the source.
    pub bfs: Vec<Maintained<DynamicBfs>>,
    /// SSSP from the source.
    pub sssp: Vec<Maintained<DynamicSssp>>,
}

impl ExactStates {
    /// Every row computed on `store`, BFS and SSSP from `source`.
    pub fn new(store: &Store, source: VertexId) -> Self {
        let never = PathThresholds {
            large_batch_share: f64::INFINITY,
            invalidated_share: f64::INFINITY,
        };
        let mut states = ExactStates {
            components: Vec::new(),
            bfs: Vec::new(),
            sssp: Vec::new(),
        };
        for (_, incremental, thresholds) in exact_rows() {
            let cc = DynamicComponentsOptions {
                strategy: if incremental {
                    ComponentsStrategy::Incremental
                } else {
                    ComponentsStrategy::Recompute
                },
                ..if thresholds {
                    DynamicComponentsOptions::default()
                } else {
                    DynamicComponentsOptions {
                        large_insert_share: f64::INFINITY,
                        large_delete_share: f64::INFINITY,
                        search_budget_share: f64::INFINITY,
                        ..DynamicComponentsOptions::default()
                    }
                }
            };
            let strategy = if incremental {
                PathStrategy::Incremental
            } else {
                PathStrategy::Recompute
            };
            let limits = if thresholds {
                PathThresholds::default()
            } else {
                never
            };
            let bfs = DynamicBfsOptions {
                strategy,
                thresholds: limits,
                ..DynamicBfsOptions::from_source(source)
            };
            let sssp = DynamicSsspOptions {
                strategy,
                thresholds: limits,
                ..DynamicSsspOptions::from_source(source).with_delta(16.0)
            };
            states
                .components
                .push(Maintained::new(store, cc).expect("cc"));
            states.bfs.push(Maintained::new(store, bfs).expect("bfs"));
            states
                .sssp
                .push(Maintained::new(store, sssp).expect("sssp"));
        }
        states
    }
}

/// Measures the exact kernels' rows: cells for components, BFS, SSSP;
/// also the static rows' results after the last batch.
///
/// Each row of each kernel replays the batches alone, from its own copy of
/// the base store: an update that takes microseconds is timed on the
/// caches its own stream leaves, not on those another row's full
/// recomputation left cold (as NetworKit's rows are timed, and as a replay
/// maintaining one kernel runs).
pub fn measure_exact(
    input: &Input,
    store: &Store,
    states: &ExactStates,
    kind: BatchKind,
    size: usize,
    repeat: usize,
) -> ([Vec<Cell>; 3], StaticFinals) {
    let (components, labels) = measure_rows(
        input,
        store,
        &states.components,
        (kind, size, repeat),
        |k| k.labels(),
    );
    let (bfs, depths) = measure_rows(input, store, &states.bfs, (kind, size, repeat), |k| {
        k.depths().to_vec()
    });
    let (sssp, distances) = measure_rows(input, store, &states.sssp, (kind, size, repeat), |k| {
        k.distances().iter().map(|d| d.to_bits()).collect()
    });
    let finals = StaticFinals {
        pagerank: None,
        components: Some(labels),
        depths: Some(depths),
        distances: Some(distances.into_iter().map(f32::from_bits).collect()),
    };
    ([components, bfs, sssp], finals)
}

/// Every row of one kernel, each replaying the batches alone; each cell
/// counts the vertices whose `result` differs from the first (static)
/// row's after the same batch. Also the first row's final result.
fn measure_rows<K: IncrementalKernel + Clone>(
    input: &Input,
    base: &Store,
    states: &[Maintained<K>],
    (kind, size, repeat): (BatchKind, usize, usize),
    result: impl Fn(&K) -> Vec<u32>,
) -> (Vec<Cell>, Vec<u32>) {
    let mut cells = vec![Cell::default(); states.len()];
    let mut reference: Vec<Vec<u32>> = Vec::new();
    for (row, (state, cell)) in states.iter().zip(&mut cells).enumerate() {
        let mut store = base.clone();
        let mut state = state.clone();
        let mut batches = Batches::new(input, batch_seed(size));
        for index in 0..repeat {
            let (inserted, deleted) = batches.next_batch(kind, size);
            if inserted.is_empty() && deleted.is_empty() {
                break;
            }
            apply(&mut store, &inserted, &deleted);
            state.record_batch(&inserted, &deleted);
            let stats = state.update(&store).expect("update");
            cell.record(&stats, repeat);
            let got = result(state.kernel());
            if row == 0 {
                reference.push(got);
            } else {
                let differ = reference[index]
                    .iter()
                    .zip(&got)
                    .filter(|(a, b)| a != b)
                    .count();
                cell.linf = cell.linf.max(differ as f64);
            }
        }
    }
    (cells, reference.pop().unwrap_or_default())
}

fn apply(store: &mut Store, inserted: &[WeightedEdge], deleted: &[Edge]) {
    store.insert_edges(inserted).expect("insert");
    store.delete_edges(deleted).expect("delete");
    store.end_batch().expect("end batch");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny(temporal: bool) -> Input {
        Input {
            name: "tiny".into(),
            edges: (0..100u32)
                .map(|i| WeightedEdge::new(i % 10, (i * 7) % 10, 1.0))
                .collect(),
            weighted: false,
            temporal,
        }
    }

    #[test]
    fn batch_sizes_are_powers_of_ten_of_the_edges_at_least_one() {
        assert_eq!(tiny(true).batch_sizes(-1), [(-2, 1), (-1, 10)]);
    }

    #[test]
    fn temporal_batches_take_the_next_and_the_oldest_arrivals() {
        let input = tiny(true);
        let mut batches = Batches::new(&input, 1);
        let (inserted, deleted) = batches.next_batch(BatchKind::Mixed, 5);
        assert_eq!(inserted, input.edges[90..93]);
        assert_eq!(
            deleted,
            input.edges[..2]
                .iter()
                .map(|e| e.edge())
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn random_deletes_name_present_edges() {
        let input = tiny(false);
        let mut batches = Batches::new(&input, 1);
        let (_, deleted) = batches.next_batch(BatchKind::Deletions, 30);
        assert_eq!(deleted.len(), 30);
        assert!(
            deleted
                .iter()
                .all(|d| input.edges.iter().any(|e| e.edge() == *d))
        );
    }
}
