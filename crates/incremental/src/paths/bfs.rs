//! BFS depths from a fixed source, maintained.

use super::tree::Tree;
use super::{PathStrategy, PathThresholds, Plan};
use crate::ChangeLog;
use crate::maintained::{FallbackReason, IncrementalKernel, Ran, UpdateStats};
use crate::on_pool_if;
use dyngraph_core::{ReadGraph, Result, UnitWeights, VertexId};
use dyngraph_kernels::{BfsOptions, BfsResult, BfsStrategy, UNREACHED, bfs};

/// Options of [`DynamicBfs`].
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicBfsOptions {
    /// Where the search starts.
    pub source: VertexId,
    /// How updates run.
    pub strategy: PathStrategy,
    /// When updates recompute instead.
    pub thresholds: PathThresholds,
}

impl DynamicBfsOptions {
    /// Default options from `source`.
    pub fn from_source(source: VertexId) -> Self {
        Self {
            source,
            strategy: PathStrategy::default(),
            thresholds: PathThresholds::default(),
        }
    }

    /// Sets [`DynamicBfsOptions::strategy`].
    pub fn with_strategy(mut self, strategy: PathStrategy) -> Self {
        self.strategy = strategy;
        self
    }
}

/// BFS depths (hops over out-edges) from a fixed source, kept exact across
/// batches ([`crate::Maintained`]`<DynamicBfs>`). See [`crate::paths`]
/// for the repair.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge};
/// use dyngraph_core::StoreConfig;
/// use dyngraph_incremental::{
///     ChangeLog, DynamicBfs, DynamicBfsOptions, IncrementalKernel, PathThresholds,
/// };
///
/// let options = CsrOptions::default().in_edges(true);
/// let graph = Csr::from_edges(&[Edge::new(0, 1), Edge::new(1, 2), Edge::new(0, 3), Edge::new(3, 2)], options.clone())?;
/// // A graph this small: let every batch run incrementally.
/// let bfs_options = DynamicBfsOptions {
///     thresholds: PathThresholds { large_batch_share: 1.0, invalidated_share: 1.0 },
///     ..DynamicBfsOptions::from_source(0)
/// };
/// let (mut tree, _) = DynamicBfs::compute(&graph, &bfs_options)?;
/// assert_eq!(tree.depths(), [0, 1, 2, 1]);
///
/// // 1 -> 2 goes: 2 keeps depth 2 through 3.
/// let graph = Csr::from_edges(&[Edge::new(0, 1), Edge::new(0, 3), Edge::new(3, 2)], options)?;
/// let mut log = ChangeLog::new();
/// log.record_batch(&[] as &[Edge], &[Edge::new(1, 2)]);
/// let stats = tree.apply(&graph, &log)?;
/// assert_eq!((tree.depths(), tree.parents()[2]), (&[0, 1, 2, 1][..], 3));
/// assert_eq!(stats.vertices_processed, 1); // 2 found its second parent
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DynamicBfs {
    options: DynamicBfsOptions,
    tree: Tree<u32>,
    /// How the last from-scratch run went.
    strategy: BfsStrategy,
    edge_count: u64,
}

impl DynamicBfs {
    /// The source.
    pub fn source(&self) -> VertexId {
        self.options.source
    }

    /// The options.
    pub fn options(&self) -> &DynamicBfsOptions {
        &self.options
    }

    /// Vertices covered.
    pub fn vertex_count(&self) -> usize {
        self.tree.dist.len()
    }

    /// `v`'s depth, `None` if unreached. Panics if `v` is not a vertex.
    pub fn depth(&self, v: VertexId) -> Option<u32> {
        let depth = self.tree.dist[v as usize];
        (depth != UNREACHED).then_some(depth)
    }

    /// Every vertex's depth ([`UNREACHED`] where unreached).
    pub fn depths(&self) -> &[u32] {
        &self.tree.dist
    }

    /// Every vertex's BFS-tree parent (the source's is itself,
    /// [`dyngraph_kernels::NO_PARENT`] where unreached).
    pub fn parents(&self) -> &[VertexId] {
        &self.tree.parent
    }

    /// Vertices reached, the source included (`O(V)`).
    pub fn reached(&self) -> usize {
        self.tree.dist.iter().filter(|&&d| d != UNREACHED).count()
    }

    /// The tree as the static kernel's result, for its verifier
    /// ([`dyngraph_kernels::verify_bfs`]).
    pub fn to_bfs_result(&self) -> BfsResult {
        BfsResult {
            source: self.source(),
            parents: self.tree.parent.clone(),
            depths: Some(self.tree.dist.clone()),
            strategy: self.strategy,
            top_down_steps: 0,
            bottom_up_steps: 0,
        }
    }

    /// Heap bytes held (about 16 bytes per vertex).
    pub fn memory_bytes(&self) -> usize {
        self.tree.memory_bytes()
    }

    fn run_static<G: ReadGraph>(&mut self, graph: &G) -> Result<UpdateStats> {
        let result = bfs(
            graph,
            &BfsOptions::from_source(self.source()).with_depths(true),
        )?;
        let n = graph.vertex_count();
        self.strategy = result.strategy;
        self.tree = Tree::new(
            self.source(),
            result.depths.expect("depths were asked for"),
            result.parents,
        );
        self.edge_count = graph.edge_count();
        let mut stats = UpdateStats::new(Self::NAME, Ran::FromScratch, n);
        stats.iterations = result.top_down_steps + result.bottom_up_steps;
        stats.vertices_processed = n as u64;
        stats.edges_scanned = graph.edge_count();
        Ok(stats)
    }

    fn recompute_because<G: ReadGraph>(
        &mut self,
        graph: &G,
        reason: FallbackReason,
    ) -> Result<UpdateStats> {
        let mut stats = self.run_static(graph)?;
        stats.fallback = Some(reason);
        Ok(stats)
    }
}

impl IncrementalKernel for DynamicBfs {
    type Options = DynamicBfsOptions;
    const NAME: &'static str = "bfs";

    fn compute<G: ReadGraph>(graph: &G, options: &Self::Options) -> Result<(Self, UpdateStats)> {
        options.thresholds.check()?;
        let mut state = DynamicBfs {
            options: options.clone(),
            tree: Tree::new(options.source, Vec::new(), Vec::new()),
            strategy: BfsStrategy::DirectionOptimizing,
            edge_count: 0,
        };
        let stats = state.run_static(graph)?;
        Ok((state, stats))
    }

    fn apply<G: ReadGraph>(&mut self, graph: &G, changes: &ChangeLog) -> Result<UpdateStats> {
        let n = graph.vertex_count();
        let plan = self.options.thresholds.plan(
            self.options.strategy,
            changes,
            (n, self.vertex_count()),
            (graph.edge_count(), self.edge_count),
        );
        let limit = match plan {
            Plan::Recompute(None) => return self.run_static(graph),
            Plan::Recompute(Some(reason)) => return self.recompute_because(graph, reason),
            Plan::Nothing => return Ok(UpdateStats::new(Self::NAME, Ran::Nothing, n)),
            Plan::Incremental { max_invalidated } => max_invalidated,
        };
        self.tree.grow(n);
        let mut stats = UpdateStats::new(Self::NAME, Ran::Incremental, n);
        let outcome = self.tree.apply(
            UnitWeights(graph),
            graph.in_edges().ok(),
            changes,
            limit,
            &mut stats,
        )?;
        self.edge_count = graph.edge_count();
        match outcome {
            Ok(()) => Ok(stats),
            Err(gave_up) => on_pool_if(true, || self.recompute_because(graph, gave_up.into())),
        }
    }

    fn recompute<G: ReadGraph>(&mut self, graph: &G) -> Result<UpdateStats> {
        self.run_static(graph)
    }

    fn vertex_count(&self) -> usize {
        self.tree.dist.len()
    }

    fn log_limit(&self) -> Option<usize> {
        self.options
            .thresholds
            .log_limit(self.options.strategy, self.edge_count)
    }
}
