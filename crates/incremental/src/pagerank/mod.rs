//! PageRank maintained across batches: static, naive-dynamic, dynamic
//! traversal, Dynamic Frontier (DF) and DF with pruning (DF-P), after Sahu
//! ("DF* PageRank: Improved Incrementally Expanding Approaches for Updating
//! PageRank on Dynamic Graphs", and the Dynamic Frontier report,
//! arXiv:2401.03256).
//!
//! # The ranks
//!
//! The fixed point of the static kernel ([`dyngraph_kernels::pagerank`],
//! GAPBS): `r_v = (1 - d) / n + d · Σ_{u → v} r_u / out_degree(u)`, with
//! dangling vertices contributing nothing. It is kept unnormalised,
//! `y = n · r`, whose equation `y_v = (1 - d) + d · Σ y_u / out_degree(u)`
//! does not mention `n`: a batch that adds vertices changes no rank but
//! those its edges reach (a new isolated vertex starts at its exact value
//! `1 - d`), and [`DynamicPageRank::score`] divides by `n` when read. Ranks
//! are `f64`: an `f32` rank of `1e-5` has a resolution of `1e-12`, too
//! coarse for an iteration tolerance of `1e-10` summed over thousands of
//! in-edges. A vertex with `k` self-loops is solved for in closed form,
//! `y_v = ((1 - d) + d · Σ_{u ≠ v} c_u) / (1 - d · k / out_degree(v))`, as
//! in Sahu's DF-P (there every vertex has one, here only the graph's own).
//!
//! # The strategies
//!
//! | strategy | what an update processes |
//! |---|---|
//! | [`PageRankStrategy::Static`] | every vertex, from `r = 1/n`, until converged |
//! | [`PageRankStrategy::NaiveDynamic`] | every vertex, from the previous ranks |
//! | [`PageRankStrategy::DynamicTraversal`] | the vertices reachable from the changed edges, from the previous ranks |
//! | [`PageRankStrategy::DynamicFrontier`] | a frontier grown from the changed edges' out-neighbours as ranks move (DF) |
//! | [`PageRankStrategy::DynamicFrontierPruned`] | the same, dropping vertices whose rank stopped moving (DF-P) |
//! | [`PageRankStrategy::ResidualPush`] | the residuals the batch changed, pushed until the L1 bound holds (Ohsaka et al.; Zhang, Lofgren and Goel) |
//!
//! DF and DF-P start from the out-neighbours of every changed edge's source
//! (their in-flow changed with the source's out-degree) and every deleted
//! edge's target. Each iteration recomputes the frontier's ranks in place
//! (Gauss-Seidel, as Sahu's asynchronous variant); a vertex whose rank has
//! moved by more than the frontier tolerance (relative) since it last did
//! so adds its out-neighbours to the frontier. DF keeps every vertex it
//! has processed in the frontier until the update converges; DF-P keeps
//! only those whose last change exceeded the pruning tolerance (relative).
//! The update ends when no processed rank moved by more than the
//! iteration tolerance (absolute, on the normalised ranks: the L∞ norm of
//! the change, as Sahu).
//!
//! One difference from the papers, so that errors do not build up over
//! a stream of batches: a rank change too small to announce is not
//! forgotten but accumulated per vertex (`pending`), and announced once
//! the sum passes the frontier tolerance. Every vertex then satisfies its
//! equation up to `τ_f · y_v` at all times (its unannounced in-flow), which
//! bounds the error however many batches pass (see the crate README).
//!
//! # Bounds
//!
//! [`DynamicPageRankOptions::l1_bound`] states the error as an L1 bound on
//! the normalised rank vector against the fixed point. Residual push keeps
//! it by construction (its residuals bound the distance, see `push.rs`);
//! full sweeps (static, naive-dynamic, and every fallback) stop once the
//! L1 change of a sweep proves it. So a static run and a maintained one at
//! the same bound compute the same thing, each within the bound of the
//! exact ranks. Without an L1 bound the sweeps and the frontier
//! strategies stop on the iteration tolerance (L∞ of a change).
//!
//! # Capabilities
//!
//! With in-edges every strategy pulls. Without them, [`PageRankStrategy::Static`]
//! and [`PageRankStrategy::NaiveDynamic`] push along out-edges (the
//! result's [`DynamicPageRank::method`] says so, as the static kernel's
//! does), and the frontier strategies, which recompute single vertices,
//! refuse with [`dyngraph_core::Error::MissingCapability`].

mod frontier;
mod push;
mod sweep;
mod verify;

pub use verify::{
    PageRankError, pagerank_error, reference_pagerank, verify_pagerank, verify_pagerank_l1,
};

use crate::maintained::{FallbackReason, IncrementalKernel, Ran, UpdateStats};
use crate::scratch::{F64Cells, Stamps};
use crate::{ChangeLog, ensure_in_edges, on_pool_if};
use dyngraph_core::{Error, ReadGraph, Result, VertexId};
use dyngraph_kernels::{PageRankMethod, PageRankResult};
use rayon::prelude::*;
use std::sync::atomic::AtomicBool;

/// How an update recomputes the ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PageRankStrategy {
    /// From scratch (`r = 1/n`) over every vertex: the static kernel, in
    /// `f64` to the iteration tolerance.
    Static,
    /// Every vertex, from the previous ranks (naive-dynamic).
    NaiveDynamic,
    /// The vertices reachable from the changed edges, from the previous
    /// ranks (dynamic traversal). Needs in-edges.
    DynamicTraversal,
    /// Dynamic Frontier (DF). Needs in-edges.
    DynamicFrontier,
    /// Dynamic Frontier with pruning (DF-P). Needs in-edges.
    #[default]
    DynamicFrontierPruned,
    /// Residual push to an L1 bound (per-vertex residuals kept across
    /// batches; the batch's changes restore them, then the largest are
    /// pushed until their sum proves the bound). Uses in-edges only to
    /// settle ambiguous multiplicities; without them it recounts the
    /// residuals in one pass over the out-edges.
    ResidualPush,
}

impl PageRankStrategy {
    /// Every strategy, in the order of Sahu's tables.
    pub const ALL: [PageRankStrategy; 6] = [
        PageRankStrategy::Static,
        PageRankStrategy::NaiveDynamic,
        PageRankStrategy::DynamicTraversal,
        PageRankStrategy::DynamicFrontier,
        PageRankStrategy::DynamicFrontierPruned,
        PageRankStrategy::ResidualPush,
    ];

    /// The short name used in tables (`static`, `naive`, `traversal`,
    /// `df`, `dfp`, `push`).
    pub fn as_str(self) -> &'static str {
        match self {
            PageRankStrategy::Static => "static",
            PageRankStrategy::NaiveDynamic => "naive",
            PageRankStrategy::DynamicTraversal => "traversal",
            PageRankStrategy::DynamicFrontier => "df",
            PageRankStrategy::DynamicFrontierPruned => "dfp",
            PageRankStrategy::ResidualPush => "push",
        }
    }

    /// Whether the strategy recomputes single vertices (and so pulls over
    /// in-edges).
    pub fn needs_in_edges(self) -> bool {
        matches!(
            self,
            PageRankStrategy::DynamicTraversal
                | PageRankStrategy::DynamicFrontier
                | PageRankStrategy::DynamicFrontierPruned
        )
    }
}

impl std::str::FromStr for PageRankStrategy {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self> {
        PageRankStrategy::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown PageRank strategy `{name}` (static, naive, traversal, df, dfp, push)"
                ))
            })
    }
}

/// Options of [`DynamicPageRank`].
///
/// The defaults are Sahu's damping and iteration tolerance, and frontier
/// and pruning tolerances measured to keep the L∞ error under `1e-9` of a
/// static run on the real streams and Kronecker graphs (crate README).
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicPageRankOptions {
    /// How updates run.
    pub strategy: PageRankStrategy,
    /// Damping factor `d`, in `[0, 1)`.
    pub damping: f64,
    /// Iteration tolerance `τ`: an update (or a static run) ends when no
    /// normalised rank moved by more than this in an iteration (L∞ norm).
    pub tolerance: f64,
    /// Frontier tolerance `τ_f`, relative: a vertex whose rank has moved by
    /// more than `τ_f` times its rank since it last announced a change
    /// adds its out-neighbours to the frontier (DF, DF-P).
    pub frontier_tolerance: f64,
    /// Pruning tolerance `τ_p`, relative: DF-P drops from the frontier a
    /// vertex whose rank moved by at most `τ_p` times its rank.
    pub prune_tolerance: f64,
    /// Iterations an update (or a static run) takes at most.
    pub max_iterations: u32,
    /// When full warm-started sweeps are cheaper: once the frontier (or
    /// the traversal's region, or the batch) holds more than this share
    /// of the vertices, or one frontier iteration reads more than this
    /// share of the edges, the update switches to them and says so
    /// ([`crate::FallbackReason::LargeAffectedRegion`]). Measured in the
    /// `incremental` bench (crate README). `f64::INFINITY`: never (Sahu's
    /// algorithms as published).
    pub full_sweep_share: f64,
    /// The error as an L1 bound `ε` on the normalised ranks against the
    /// fixed point: `Σ_v |r_v − r*_v| ≤ ε`. [`PageRankStrategy::ResidualPush`]
    /// meets it after every update ([`DEFAULT_L1_BOUND`] when `None`); with
    /// `Some`, full sweeps (static, naive-dynamic, and every strategy's
    /// fallback) stop once it is proven instead of on `tolerance`.
    pub l1_bound: Option<f64>,
    /// Residual push: the cost of one adjacency entry the push reads, in
    /// entries a full sweep reads (the push reads scattered lists and
    /// keeps buckets; a sweep streams). The push hands over to warm
    /// sweeps once its work times this passes theirs. Measured in the
    /// `incremental` bench (crate README).
    pub push_edge_cost: f64,
}

/// The L1 bound residual push keeps when none is given: `1e-6` of the
/// normalised ranks' total (issue 37).
pub const DEFAULT_L1_BOUND: f64 = 1e-6;

impl Default for DynamicPageRankOptions {
    fn default() -> Self {
        Self {
            strategy: PageRankStrategy::default(),
            damping: 0.85,
            tolerance: 1e-10,
            frontier_tolerance: 1e-7,
            prune_tolerance: 1e-7,
            max_iterations: 500,
            full_sweep_share: 0.25,
            l1_bound: None,
            push_edge_cost: 10.0,
        }
    }
}

impl DynamicPageRankOptions {
    /// Default options with `strategy`.
    pub fn with_strategy(strategy: PageRankStrategy) -> Self {
        Self {
            strategy,
            ..Self::default()
        }
    }

    /// Residual push to the L1 bound `bound`; static runs with these
    /// options ([`PageRankStrategy::Static`] in place of the strategy)
    /// stop at the same bound.
    ///
    /// ```
    /// use dyngraph_incremental::{DynamicPageRankOptions, PageRankStrategy};
    /// let options = DynamicPageRankOptions::to_l1_bound(1e-6);
    /// assert_eq!(options.strategy, PageRankStrategy::ResidualPush);
    /// assert_eq!(options.l1_bound, Some(1e-6));
    /// ```
    pub fn to_l1_bound(bound: f64) -> Self {
        Self {
            strategy: PageRankStrategy::ResidualPush,
            l1_bound: Some(bound),
            ..Self::default()
        }
    }

    fn check(&self) -> Result<()> {
        let bad = |what: &str, value: f64, domain: &str| {
            Err(Error::InvalidArgument(format!(
                "PageRank {what} {value} is outside {domain}"
            )))
        };
        if !(0.0..1.0).contains(&self.damping) {
            return bad("damping", self.damping, "[0, 1)");
        }
        for (what, value) in [
            ("tolerance", self.tolerance),
            ("frontier tolerance", self.frontier_tolerance),
            ("pruning tolerance", self.prune_tolerance),
        ] {
            if !(value >= 0.0 && value.is_finite()) {
                return bad(what, value, "[0, inf)");
            }
        }
        if let Some(bound) = self.l1_bound
            && !(bound > 0.0 && bound.is_finite())
        {
            return bad("L1 bound", bound, "(0, inf)");
        }
        if !(self.push_edge_cost > 0.0 && self.push_edge_cost.is_finite()) {
            return bad("push edge cost", self.push_edge_cost, "(0, inf)");
        }
        if self.full_sweep_share.is_nan() || self.full_sweep_share < 0.0 {
            return bad("full sweep share", self.full_sweep_share, "[0, inf)");
        }
        if self.max_iterations == 0 {
            return Err(Error::InvalidArgument(
                "PageRank max_iterations must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// PageRank kept up to date across batches ([`crate::Maintained`]
/// `<DynamicPageRank>`).
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge};
/// use dyngraph_core::StoreConfig;
/// use dyngraph_incremental::{
///     ChangeLog, DynamicPageRank, DynamicPageRankOptions, IncrementalKernel, reference_pagerank,
/// };
///
/// let edges = [Edge::new(0, 1), Edge::new(1, 2), Edge::new(2, 0)];
/// let graph = Csr::from_edges(&edges, CsrOptions::default().in_edges(true))?;
/// let (mut ranks, _) = DynamicPageRank::compute(&graph, &DynamicPageRankOptions::default())?;
/// assert!((ranks.score(0) - 1.0 / 3.0).abs() < 1e-9);
///
/// // A fourth vertex pointing at 0.
/// let grown = Csr::from_edges(&[edges[0], edges[1], edges[2], Edge::new(3, 0)],
///     CsrOptions::default().in_edges(true))?;
/// let mut log = ChangeLog::new();
/// log.record_batch(&[Edge::new(3, 0)], &[] as &[Edge]);
/// ranks.apply(&grown, &log)?;
/// let exact = reference_pagerank(&grown, 0.85);
/// assert!((0..4).all(|v| (ranks.score(v) - exact[v as usize]).abs() < 1e-9));
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Debug)]
pub struct DynamicPageRank {
    options: DynamicPageRankOptions,
    method: PageRankMethod,
    /// `y = n · r`, per vertex.
    ranks: F64Cells,
    /// `y / out_degree` (0 for a dangling vertex): what each vertex gives
    /// each out-neighbour.
    contributions: F64Cells,
    /// Rank change not yet announced to the out-neighbours.
    pending: F64Cells,
    /// Out-degrees as of the last update.
    degrees: Vec<u64>,
    /// Marked by an in-neighbour's announcement since last recomputed.
    dirty: Vec<AtomicBool>,
    /// Frontier membership, per iteration.
    queued: Stamps,
    /// Push sweeps' accumulator (empty until a push sweep runs).
    incoming_sums: F64Cells,
    /// Vertices still dirty when the last update ended (it converged or
    /// ran out of iterations before recomputing them): the next update
    /// starts with them.
    carried: Vec<VertexId>,
    /// Whether the last update converged within `max_iterations`.
    converged: bool,
    /// Residual push's residuals (empty for the other strategies).
    residuals: Box<push::Residuals>,
    /// How much one full sweep lowered the L1 change, as last measured
    /// (`d` until a sweep run measures it).
    sweep_rate: f64,
    /// Residual push: the last fallback's warm sweeps, measured
    /// (iterations, and `ln(2S / B)` of the residual sum it started from).
    warm_sweeps: Option<(u32, f64)>,
    /// Residual push: adjacency entries the last push read per unit of the
    /// residual sum it removed, to price the next push before it starts
    /// (decayed on each update that skips the push, so it is tried again).
    push_rate: Option<f64>,
}

/// A copy of the state: a reader can keep one beside the snapshot it was
/// updated on while the original follows the store (`O(V)`).
impl Clone for DynamicPageRank {
    fn clone(&self) -> Self {
        Self {
            options: self.options.clone(),
            method: self.method,
            ranks: self.ranks.clone(),
            contributions: self.contributions.clone(),
            pending: self.pending.clone(),
            degrees: self.degrees.clone(),
            dirty: self
                .dirty
                .iter()
                .map(|d| AtomicBool::new(d.load(std::sync::atomic::Ordering::Relaxed)))
                .collect(),
            queued: self.queued.clone(),
            incoming_sums: F64Cells::default(),
            carried: self.carried.clone(),
            converged: self.converged,
            residuals: self.residuals.clone(),
            sweep_rate: self.sweep_rate,
            warm_sweeps: self.warm_sweeps,
            push_rate: self.push_rate,
        }
    }
}

impl DynamicPageRank {
    fn new(options: DynamicPageRankOptions) -> Self {
        let sweep_rate = options.damping;
        Self {
            options,
            method: PageRankMethod::Pull,
            ranks: F64Cells::default(),
            contributions: F64Cells::default(),
            pending: F64Cells::default(),
            degrees: Vec::new(),
            dirty: Vec::new(),
            queued: Stamps::default(),
            incoming_sums: F64Cells::default(),
            carried: Vec::new(),
            converged: true,
            residuals: Box::default(),
            sweep_rate,
            warm_sweeps: None,
            push_rate: None,
        }
    }

    /// The options.
    pub fn options(&self) -> &DynamicPageRankOptions {
        &self.options
    }

    /// Pull over in-edges, or push over out-edges (static and
    /// naive-dynamic on a store without in-edges).
    pub fn method(&self) -> PageRankMethod {
        self.method
    }

    /// Vertices ranked.
    pub fn vertex_count(&self) -> usize {
        self.ranks.len()
    }

    /// The rank of `v`, normalised like the static kernel's (the ranks sum
    /// to 1 without dangling vertices, less with them). Panics if `v` is
    /// not a vertex.
    pub fn score(&self, v: VertexId) -> f64 {
        self.ranks.get(v) / self.vertex_count() as f64
    }

    /// Every vertex's normalised rank (`O(V)`).
    pub fn scores(&self) -> Vec<f64> {
        let n = self.vertex_count() as f64;
        let mut scores = self.ranks.to_vec();
        scores
            .par_iter_mut()
            .with_min_len(4096)
            .for_each(|s| *s /= n);
        scores
    }

    /// The `k` highest-ranked vertices, best first (ties by lower id).
    pub fn top(&self, k: usize) -> Vec<(VertexId, f64)> {
        let mut ranked: Vec<(VertexId, f64)> = self
            .scores()
            .into_iter()
            .enumerate()
            .map(|(v, s)| (v as VertexId, s))
            .collect();
        let by_score =
            |a: &(VertexId, f64), b: &(VertexId, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if k < ranked.len() {
            ranked.select_nth_unstable_by(k, by_score);
            ranked.truncate(k);
        }
        ranked.sort_by(by_score);
        ranked
    }

    /// The ranks as the static kernel's result (scores rounded to `f32`
    /// like its own, a relative 6e-8 per vertex, far under any bound a
    /// maintained state keeps), for code that takes either, such as a
    /// replay's per-vertex output. A maintained state has no iteration
    /// count of its own: `iterations` and `last_change` are 0.
    pub fn to_pagerank_result(&self) -> PageRankResult {
        PageRankResult {
            scores: self.scores().into_iter().map(|s| s as f32).collect(),
            iterations: 0,
            last_change: 0.0,
            method: self.method,
            damping: self.options.damping as f32,
        }
    }

    /// Whether the last update (or computation) converged within
    /// `max_iterations`.
    pub fn converged(&self) -> bool {
        self.converged
    }

    /// Heap bytes held (about 37 bytes per vertex, 45 after push sweeps).
    pub fn memory_bytes(&self) -> usize {
        self.ranks.memory_bytes()
            + self.contributions.memory_bytes()
            + self.pending.memory_bytes()
            + self.incoming_sums.memory_bytes()
            + self.degrees.capacity() * 8
            + self.dirty.capacity()
            + self.queued.memory_bytes()
            + self.carried.capacity() * 4
            + self.residuals.memory_bytes()
    }

    /// The L1 distance the normalised ranks are proven to be within of
    /// the fixed point, by the residuals: `Σ |r_v| / ((1 − d) n)`.
    /// `None` for the strategies that keep no residuals.
    pub fn proven_l1(&self) -> Option<f64> {
        (self.options.strategy == PageRankStrategy::ResidualPush).then(|| {
            self.residuals.sum()
                / ((1.0 - self.options.damping) * self.vertex_count().max(1) as f64)
        })
    }

    /// The L1 bound full sweeps stop at, if any (see
    /// [`DynamicPageRankOptions::l1_bound`]).
    pub fn sweep_bound(&self) -> Option<f64> {
        match self.options.strategy {
            PageRankStrategy::ResidualPush => Some(self.bound()),
            _ => self.options.l1_bound,
        }
    }

    /// The L1 bound this state's full sweeps stop at: residual push
    /// sweeps to half its bound, so the batches after a sweep have room
    /// before they need a push (`push.rs`).
    fn sweep_target(&self) -> Option<f64> {
        match self.options.strategy {
            PageRankStrategy::ResidualPush => Some(0.5 * self.bound()),
            _ => self.options.l1_bound,
        }
    }

    /// Room for `n` vertices: a new vertex starts at `1 - d` (exact while
    /// nothing points at it), its out-degree read from `graph`.
    fn grow<G: ReadGraph>(&mut self, graph: &G) {
        let old = self.degrees.len();
        let n = graph.vertex_count();
        if n <= old {
            return;
        }
        let start = 1.0 - self.options.damping;
        self.ranks.grow(n, start);
        self.contributions.grow(n, 0.0);
        self.pending.grow(n, 0.0);
        self.queued.grow(n);
        self.dirty.extend((old..n).map(|_| AtomicBool::new(false)));
        self.degrees
            .extend((old..n).map(|v| graph.out_degree(v as VertexId)));
        for v in old..n {
            self.refresh_contribution(v as VertexId);
        }
    }

    /// `c_v = y_v / out_degree(v)` from the cached degree.
    #[inline]
    fn refresh_contribution(&self, v: VertexId) {
        let degree = self.degrees[v as usize];
        let share = if degree == 0 {
            0.0
        } else {
            self.ranks.get(v) / degree as f64
        };
        self.contributions.set(v, share);
    }

    /// The iteration tolerance on the unnormalised ranks.
    fn change_limit(&self) -> f64 {
        self.options.tolerance * self.vertex_count() as f64
    }

    fn run_static<G: ReadGraph>(&mut self, graph: &G, warm: bool) -> Result<UpdateStats> {
        self.grow(graph);
        let n = self.vertex_count();
        let kind = if warm {
            Ran::WarmSweeps
        } else {
            Ran::FromScratch
        };
        let mut stats = UpdateStats::new(DynamicPageRank::NAME, kind, n);
        self.refresh_all_degrees(graph);
        if !warm {
            self.ranks.fill(1.0);
        }
        self.refresh_all_contributions();
        self.carried.clear();
        match graph.in_edges() {
            Ok(incoming) => {
                self.method = PageRankMethod::Pull;
                self.pull_sweeps(incoming, &mut stats);
            }
            Err(_) => {
                self.method = PageRankMethod::Push;
                self.push_sweeps(graph, &mut stats);
            }
        }
        Ok(stats)
    }

    fn refresh_all_degrees<G: ReadGraph>(&mut self, graph: &G) {
        let n = self.vertex_count();
        self.degrees.clear();
        self.degrees.par_extend(
            (0..n as VertexId)
                .into_par_iter()
                .with_min_len(4096)
                .map(|v| graph.out_degree(v)),
        );
    }

    fn refresh_all_contributions(&self) {
        (0..self.vertex_count() as VertexId)
            .into_par_iter()
            .with_min_len(4096)
            .for_each(|v| self.refresh_contribution(v));
    }
}

impl IncrementalKernel for DynamicPageRank {
    type Options = DynamicPageRankOptions;
    const NAME: &'static str = "pr";

    fn compute<G: ReadGraph>(graph: &G, options: &Self::Options) -> Result<(Self, UpdateStats)> {
        options.check()?;
        if options.strategy.needs_in_edges() {
            ensure_in_edges(graph)?;
        }
        let mut state = DynamicPageRank::new(options.clone());
        let stats = on_pool_if(graph.vertex_count() >= sweep::GRAIN, || {
            if options.strategy == PageRankStrategy::ResidualPush {
                state.push_sweeps_to_bound(graph, false)
            } else {
                state.run_static(graph, false)
            }
        })?;
        Ok((state, stats))
    }

    fn apply<G: ReadGraph>(&mut self, graph: &G, changes: &ChangeLog) -> Result<UpdateStats> {
        let strategy = self.options.strategy;
        if strategy.needs_in_edges() {
            ensure_in_edges(graph)?;
        }
        let grew = graph.vertex_count() > self.vertex_count();
        if changes.is_empty() && !grew && self.carried.is_empty() {
            return Ok(UpdateStats::new(
                Self::NAME,
                Ran::Nothing,
                self.vertex_count(),
            ));
        }
        let n = graph.vertex_count();
        let told = changes.edges_told() as f64;
        let large = changes.overflowed() || told > self.options.full_sweep_share * n as f64;
        let big = n >= sweep::GRAIN;
        match strategy {
            PageRankStrategy::Static => on_pool_if(big, || self.run_static(graph, false)),
            PageRankStrategy::NaiveDynamic => on_pool_if(big, || self.run_static(graph, true)),
            PageRankStrategy::ResidualPush => self.run_push(graph, changes),
            _ if large => on_pool_if(big, || {
                let mut stats = self.run_static(graph, true)?;
                stats.fallback = Some(if changes.overflowed() {
                    FallbackReason::LogOverflow
                } else {
                    FallbackReason::LargeBatch
                });
                Ok(stats)
            }),
            _ => self.run_frontier(graph, changes),
        }
    }

    fn recompute<G: ReadGraph>(&mut self, graph: &G) -> Result<UpdateStats> {
        on_pool_if(graph.vertex_count() >= sweep::GRAIN, || {
            if self.options.strategy == PageRankStrategy::ResidualPush {
                self.push_sweeps_to_bound(graph, false)
            } else {
                self.run_static(graph, false)
            }
        })
    }

    fn vertex_count(&self) -> usize {
        self.ranks.len()
    }

    fn log_limit(&self) -> Option<usize> {
        match self.options.strategy {
            PageRankStrategy::Static | PageRankStrategy::NaiveDynamic => Some(0),
            // Restoring the residuals reads the changed sources' lists:
            // past a few edges per vertex a recount is as cheap.
            PageRankStrategy::ResidualPush => {
                Some(self.vertex_count().saturating_mul(4).saturating_add(1024))
            }
            _ => Some(
                ((self.options.full_sweep_share * self.vertex_count() as f64) as usize)
                    .saturating_add(1),
            ),
        }
    }
}
