//! SSSP distances from a fixed source, maintained.

use super::tree::Tree;
use super::{PathStrategy, PathThresholds, Plan};
use crate::ChangeLog;
use crate::maintained::{FallbackReason, IncrementalKernel, Ran, UpdateStats};
use crate::on_pool_if;
use dyngraph_core::{ReadGraph, Result, UnitWeights, VertexId, Weight, WeightedNeighbors};
use dyngraph_kernels::{NO_PARENT, SsspOptions, SsspResult, SsspWeights, sssp};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Options of [`DynamicSssp`].
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicSsspOptions {
    /// Where paths start.
    pub source: VertexId,
    /// Bucket width of the static delta-stepping runs.
    pub delta: Weight,
    /// How updates run.
    pub strategy: PathStrategy,
    /// When updates recompute instead.
    pub thresholds: PathThresholds,
}

impl DynamicSsspOptions {
    /// Default options from `source` (delta 1, as the static kernel).
    pub fn from_source(source: VertexId) -> Self {
        Self {
            source,
            delta: 1.0,
            strategy: PathStrategy::default(),
            thresholds: PathThresholds::default(),
        }
    }

    /// Sets [`DynamicSsspOptions::delta`].
    pub fn with_delta(mut self, delta: Weight) -> Self {
        self.delta = delta;
        self
    }

    /// Sets [`DynamicSsspOptions::strategy`].
    pub fn with_strategy(mut self, strategy: PathStrategy) -> Self {
        self.strategy = strategy;
        self
    }
}

/// Shortest-path distances from a fixed source, kept exact across batches
/// ([`crate::Maintained`]`<DynamicSssp>`): the stored weights, or hop
/// counts on a store without weights (as the static kernel). See
/// [`crate::paths`] for the repair.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge, WeightedEdge};
/// use dyngraph_core::StoreConfig;
/// use dyngraph_incremental::{ChangeLog, DynamicSssp, DynamicSsspOptions, IncrementalKernel};
///
/// let options = CsrOptions::default().in_edges(true);
/// let edges = [WeightedEdge::new(0, 1, 4.0), WeightedEdge::new(0, 2, 1.0)];
/// let graph = Csr::from_edges(&edges, options.clone())?;
/// let (mut paths, _) = DynamicSssp::compute(&graph, &DynamicSsspOptions::from_source(0))?;
/// assert_eq!(paths.distances(), [0.0, 4.0, 1.0]);
///
/// // A shortcut 2 -> 1 of weight 2.
/// let shortcut = WeightedEdge::new(2, 1, 2.0);
/// let graph = Csr::from_edges(&[edges[0], edges[1], shortcut], options)?;
/// let mut log = ChangeLog::new();
/// log.record_batch(&[shortcut], &[] as &[Edge]);
/// paths.apply(&graph, &log)?;
/// assert_eq!(paths.distances(), [0.0, 3.0, 1.0]);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DynamicSssp {
    options: DynamicSsspOptions,
    tree: Tree<f32>,
    weights: SsspWeights,
    edge_count: u64,
}

impl DynamicSssp {
    /// The source.
    pub fn source(&self) -> VertexId {
        self.options.source
    }

    /// The options.
    pub fn options(&self) -> &DynamicSsspOptions {
        &self.options
    }

    /// Vertices covered.
    pub fn vertex_count(&self) -> usize {
        self.tree.dist.len()
    }

    /// `v`'s distance, `None` if unreached. Panics if `v` is not a vertex.
    pub fn distance(&self, v: VertexId) -> Option<Weight> {
        let distance = self.tree.dist[v as usize];
        distance.is_finite().then_some(distance)
    }

    /// Every vertex's distance (`f32::INFINITY` where unreached).
    pub fn distances(&self) -> &[Weight] {
        &self.tree.dist
    }

    /// Every vertex's shortest-path-tree parent (the source's is itself,
    /// [`NO_PARENT`] where unreached).
    pub fn parents(&self) -> &[VertexId] {
        &self.tree.parent
    }

    /// Which weights the distances sum: the stored ones, or 1 per edge on
    /// a store without weights.
    pub fn weights(&self) -> SsspWeights {
        self.weights
    }

    /// Vertices reached, the source included (`O(V)`).
    pub fn reached(&self) -> usize {
        self.tree.dist.iter().filter(|d| d.is_finite()).count()
    }

    /// The distances as the static kernel's result, for its verifier
    /// ([`dyngraph_kernels::verify_sssp`]).
    pub fn to_sssp_result(&self) -> SsspResult {
        SsspResult {
            source: self.source(),
            distances: self.tree.dist.clone(),
            rounds: 0,
            weights: self.weights,
        }
    }

    /// Heap bytes held (about 16 bytes per vertex).
    pub fn memory_bytes(&self) -> usize {
        self.tree.memory_bytes()
    }

    fn run_static<G: ReadGraph>(&mut self, graph: &G) -> Result<UpdateStats> {
        let options = SsspOptions::from_source(self.source()).with_delta(self.options.delta);
        let result = sssp(graph, &options)?;
        let n = graph.vertex_count();
        let parents = match graph.edge_weights() {
            Ok(weights) => tree_parents(weights, &result.distances, self.source()),
            Err(_) => tree_parents(UnitWeights(graph), &result.distances, self.source()),
        };
        self.weights = result.weights;
        self.tree = Tree::new(self.source(), result.distances, parents);
        self.edge_count = graph.edge_count();
        let mut stats = UpdateStats::new(Self::NAME, Ran::FromScratch, n);
        stats.iterations = result.rounds as u32;
        stats.vertices_processed = n as u64;
        stats.edges_scanned = 2 * graph.edge_count();
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

/// A shortest-path tree over the distances the static kernel computed:
/// each reached vertex's parent is an in-neighbour whose edge gives it its
/// distance exactly (in `f32`), strictly closer to the source where one is
/// (always, without zero weights); vertices reached only over zero-weight
/// edges from equally distant ones are hung under a parent already in the
/// tree, pass by pass, so the tree stays acyclic.
fn tree_parents<W>(weights: W, distances: &[Weight], source: VertexId) -> Vec<VertexId>
where
    W: WeightedNeighbors + Sync,
{
    let n = distances.len();
    let parents: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|_| AtomicU32::new(NO_PARENT))
        .collect();
    parents[source as usize].store(source, Relaxed);
    (0..n as VertexId)
        .into_par_iter()
        .with_min_len(1024)
        .for_each(|u| {
            let du = distances[u as usize];
            if !du.is_finite() {
                return;
            }
            for (v, weight) in weights.out_neighbors_weighted(u) {
                let dv = distances[v as usize];
                if du < dv && du + weight == dv {
                    let _ = parents[v as usize].compare_exchange(NO_PARENT, u, Relaxed, Relaxed);
                }
            }
        });
    let mut parents: Vec<VertexId> = parents.into_iter().map(AtomicU32::into_inner).collect();
    let orphans =
        |parents: &[VertexId]| (0..n).any(|v| distances[v].is_finite() && parents[v] == NO_PARENT);
    while orphans(&parents) {
        let mut progress = false;
        for u in 0..n as VertexId {
            let du = distances[u as usize];
            if parents[u as usize] == NO_PARENT || !du.is_finite() {
                continue;
            }
            for (v, weight) in weights.out_neighbors_weighted(u) {
                if parents[v as usize] == NO_PARENT && du + weight == distances[v as usize] {
                    parents[v as usize] = u;
                    progress = true;
                }
            }
        }
        if !progress {
            break;
        }
    }
    parents
}

impl IncrementalKernel for DynamicSssp {
    type Options = DynamicSsspOptions;
    const NAME: &'static str = "sssp";

    fn compute<G: ReadGraph>(graph: &G, options: &Self::Options) -> Result<(Self, UpdateStats)> {
        options.thresholds.check()?;
        let mut state = DynamicSssp {
            options: options.clone(),
            tree: Tree::new(options.source, Vec::new(), Vec::new()),
            weights: SsspWeights::Unit,
            edge_count: 0,
        };
        let stats = state.run_static(graph)?;
        Ok((state, stats))
    }

    fn apply<G: ReadGraph>(&mut self, graph: &G, changes: &ChangeLog) -> Result<UpdateStats> {
        let n = graph.vertex_count();
        let weights_now = if graph.has_weights() {
            SsspWeights::Stored
        } else {
            SsspWeights::Unit
        };
        if weights_now != self.weights {
            return self.run_static(graph);
        }
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
        let incoming = graph.in_edges().ok();
        let outcome = match graph.edge_weights() {
            Ok(weights) => self
                .tree
                .apply(weights, incoming, changes, limit, &mut stats)?,
            Err(_) => self
                .tree
                .apply(UnitWeights(graph), incoming, changes, limit, &mut stats)?,
        };
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
