//! Weakly connected components maintained across batches.
//!
//! Each vertex holds a component id; ids are joined by a union-find
//! (union by size, path halving), so an inserted edge costs two finds and
//! a link: exact, as union-find on the current labels. A deleted edge may
//! split its component; [`search`] decides which parts split off by
//! searching from both endpoints of every deleted edge at once, always
//! growing the search that has read the fewest edges, and stops as soon
//! as each old component has at most one search still open. A search
//! that runs out of vertices has found a whole component of the new
//! graph and gives it a fresh id; the one left open keeps the old id. The
//! work is that of the parts that split off (and of the searches until
//! they meet when nothing splits), not of the component. Past a measured
//! budget of edges read the update recomputes with Afforest instead.
//!
//! Ids are not vertex ids (a part that splits off may hold the vertex
//! whose id the rest of its old component keeps), so results are read
//! through [`DynamicComponents::component`] or converted to the static
//! kernel's min-id labels by [`DynamicComponents::labels`] (`O(V)`).

mod search;

use crate::ChangeLog;
use crate::maintained::{FallbackReason, IncrementalKernel, Ran, UpdateStats};
use crate::on_pool_if;
use crate::scratch::Stamps;
use dyngraph_core::{Edge, Error, ReadGraph, Result, VertexId};
use dyngraph_kernels::{
    ComponentsAlgorithm, ComponentsOptions, ComponentsResult, connected_components,
};
use rayon::prelude::*;
use std::collections::HashSet;

/// How updates run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ComponentsStrategy {
    /// Afforest from scratch at every update.
    Recompute,
    /// Unions for inserted edges, searches for deleted ones.
    #[default]
    Incremental,
}

/// Options of [`DynamicComponents`].
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicComponentsOptions {
    /// How updates run.
    pub strategy: ComponentsStrategy,
    /// A log inserting more edges than this share of the graph's edges is
    /// handled by Afforest from scratch (measured: crate README; unions
    /// cost a few random reads each, Afforest a pass over every edge).
    pub large_insert_share: f64,
    /// A log deleting more edges than this share of the graph's edges is
    /// handled by Afforest from scratch (measured: crate README; each
    /// deleted edge inside a component costs a search).
    pub large_delete_share: f64,
    /// The deletion searches give up, and the update recomputes with
    /// Afforest, once they have read this share of the graph's edges
    /// (measured: crate README).
    pub search_budget_share: f64,
    /// Options of the static Afforest runs (first computation and
    /// fallbacks).
    pub afforest: ComponentsOptions,
}

impl Default for DynamicComponentsOptions {
    fn default() -> Self {
        Self {
            strategy: ComponentsStrategy::Incremental,
            large_insert_share: 0.25,
            large_delete_share: 0.01,
            search_budget_share: 0.05,
            afforest: ComponentsOptions::default(),
        }
    }
}

impl DynamicComponentsOptions {
    /// Default options with `strategy`.
    pub fn with_strategy(strategy: ComponentsStrategy) -> Self {
        Self {
            strategy,
            ..Self::default()
        }
    }
}

/// Weakly connected components kept up to date across batches
/// ([`crate::Maintained`]`<DynamicComponents>`).
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge};
/// use dyngraph_core::StoreConfig;
/// use dyngraph_incremental::{ChangeLog, DynamicComponents, IncrementalKernel};
///
/// let options = CsrOptions::default().in_edges(true);
/// let before = Csr::from_edges(&[Edge::new(0, 1), Edge::new(1, 2), Edge::new(3, 4)], options.clone())?;
/// let (mut cc, _) = DynamicComponents::compute(&before, &Default::default())?;
/// assert!(cc.same_component(0, 2) && !cc.same_component(2, 3));
///
/// // Delete 1 -> 2, join 2 and 3.
/// let after = Csr::from_edges(&[Edge::new(0, 1), Edge::new(3, 4), Edge::new(2, 3)], options)?;
/// let mut log = ChangeLog::new();
/// log.record_batch(&[Edge::new(2, 3)], &[Edge::new(1, 2)]);
/// cc.apply(&after, &log)?;
/// assert_eq!(cc.labels(), [0, 0, 2, 2, 2]);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DynamicComponents {
    options: DynamicComponentsOptions,
    /// Each vertex's component id (any id of its set in `ids`).
    label: Vec<u32>,
    /// Union-find over component ids.
    ids: IdForest,
    /// Search scratch: visited stamps and the search that visited.
    visited: Stamps,
    owner: Vec<u32>,
    /// Edges of the graph at the last update, for the thresholds.
    edge_count: u64,
}

/// A union-find over component ids, by size, with path halving.
#[derive(Clone, Debug, Default)]
struct IdForest {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl IdForest {
    fn fresh(&mut self, size: u32) -> u32 {
        let id = self.parent.len() as u32;
        self.parent.push(id);
        self.size.push(size);
        id
    }

    /// The root of `id`, without shortening paths (for `&self` readers;
    /// union by size keeps paths at most `log2` of the ids long).
    #[inline]
    fn root(&self, mut id: u32) -> u32 {
        while self.parent[id as usize] != id {
            id = self.parent[id as usize];
        }
        id
    }

    /// The root of `id`, halving the path.
    #[inline]
    fn find(&mut self, mut id: u32) -> u32 {
        while self.parent[id as usize] != id {
            let grandparent = self.parent[self.parent[id as usize] as usize];
            self.parent[id as usize] = grandparent;
            id = grandparent;
        }
        id
    }

    /// Joins the sets of two roots; returns whether they were apart.
    fn union_roots(&mut self, a: u32, b: u32) -> bool {
        if a == b {
            return false;
        }
        let (small, large) = if self.size[a as usize] < self.size[b as usize] {
            (a, b)
        } else {
            (b, a)
        };
        self.parent[small as usize] = large;
        self.size[large as usize] =
            self.size[large as usize].saturating_add(self.size[small as usize]);
        true
    }

    fn len(&self) -> usize {
        self.parent.len()
    }
}

impl DynamicComponents {
    /// The options.
    pub fn options(&self) -> &DynamicComponentsOptions {
        &self.options
    }

    /// Vertices labelled.
    pub fn vertex_count(&self) -> usize {
        self.label.len()
    }

    /// `v`'s component id: equal for two vertices exactly when they are
    /// weakly connected. Ids are stable between updates unless a component
    /// splits or joins, and are not vertex ids. Panics if `v` is not a
    /// vertex.
    pub fn component(&self, v: VertexId) -> u32 {
        self.ids.root(self.label[v as usize])
    }

    /// Whether `u` and `v` are weakly connected.
    pub fn same_component(&self, u: VertexId, v: VertexId) -> bool {
        self.component(u) == self.component(v)
    }

    /// The static kernel's labels: each vertex's smallest weakly connected
    /// vertex id (`O(V)`).
    pub fn labels(&self) -> Vec<VertexId> {
        let roots: Vec<u32> = (0..self.vertex_count() as VertexId)
            .into_par_iter()
            .with_min_len(4096)
            .map(|v| self.component(v))
            .collect();
        let mut smallest = vec![VertexId::MAX; self.ids.len()];
        for (v, &root) in roots.iter().enumerate() {
            let slot = &mut smallest[root as usize];
            if *slot == VertexId::MAX {
                *slot = v as VertexId;
            }
        }
        roots
            .into_iter()
            .map(|root| smallest[root as usize])
            .collect()
    }

    /// The number of components (isolated vertices count one each; `O(V)`).
    pub fn component_count(&self) -> usize {
        (0..self.vertex_count() as VertexId)
            .into_par_iter()
            .with_min_len(4096)
            .map(|v| self.component(v))
            .collect::<HashSet<u32>>()
            .len()
    }

    /// The labels as the static kernel's result, for its verifier
    /// ([`dyngraph_kernels::verify_components`]).
    pub fn to_components_result(&self) -> ComponentsResult {
        ComponentsResult {
            labels: self.labels(),
            algorithm: ComponentsAlgorithm::Afforest,
            skipped_largest: false,
        }
    }

    /// Heap bytes held (about 16 bytes per vertex, plus 8 per component id
    /// handed out since the last compaction).
    pub fn memory_bytes(&self) -> usize {
        self.label.capacity() * 4
            + self.ids.parent.capacity() * 4
            + self.ids.size.capacity() * 4
            + self.visited.memory_bytes()
            + self.owner.capacity() * 4
    }

    fn run_static<G: ReadGraph>(&mut self, graph: &G) -> Result<UpdateStats> {
        let n = graph.vertex_count();
        let result = connected_components(graph, &self.options.afforest)?;
        self.label = result.labels;
        self.ids.parent = (0..n as u32).collect();
        self.ids.size = vec![0; n];
        for &label in &self.label {
            self.ids.size[label as usize] += 1;
        }
        self.visited.grow(n);
        self.owner.resize(n, 0);
        self.edge_count = graph.edge_count();
        let mut stats = UpdateStats::new(Self::NAME, Ran::FromScratch, n);
        stats.iterations = 1;
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

    /// New vertices, each in a component of its own.
    fn grow(&mut self, n: usize) {
        for _ in self.label.len()..n {
            let id = self.ids.fresh(1);
            self.label.push(id);
        }
        self.visited.grow(n);
        self.owner.resize(n, 0);
    }

    /// Renumbers the ids densely once splits have handed out many.
    fn compact(&mut self) {
        let n = self.label.len();
        if self.ids.len() <= 2 * n + 1024 {
            return;
        }
        let mut renamed = vec![u32::MAX; self.ids.len()];
        let mut forest = IdForest::default();
        for v in 0..n {
            let root = self.ids.root(self.label[v]);
            if renamed[root as usize] == u32::MAX {
                renamed[root as usize] = forest.fresh(0);
            }
            let id = renamed[root as usize];
            forest.size[id as usize] += 1;
            self.label[v] = id;
        }
        self.ids = forest;
    }

    fn union_inserted<G: ReadGraph>(
        &mut self,
        graph: &G,
        changes: &ChangeLog,
        stats: &mut UpdateStats,
    ) {
        // An edge both inserted and deleted in the log may be gone: ask the
        // store about those (and only those).
        let deleted: HashSet<Edge> = if changes.deleted().is_empty() {
            HashSet::new()
        } else {
            changes.deleted().iter().copied().collect()
        };
        let n = self.label.len();
        for e in changes.inserted() {
            if e.src as usize >= n || e.dst as usize >= n {
                // Not in the graph: the store refused it.
                continue;
            }
            if deleted.contains(e) {
                stats.edges_scanned += graph.out_degree(e.src);
                if !graph.out_neighbors(e.src).any(|w| w == e.dst) {
                    continue;
                }
            }
            let a = self.ids.find(self.label[e.src as usize]);
            let b = self.ids.find(self.label[e.dst as usize]);
            self.ids.union_roots(a, b);
            stats.vertices_processed += 2;
        }
    }
}

impl IncrementalKernel for DynamicComponents {
    type Options = DynamicComponentsOptions;
    const NAME: &'static str = "cc";

    fn compute<G: ReadGraph>(graph: &G, options: &Self::Options) -> Result<(Self, UpdateStats)> {
        for (what, share) in [
            ("large insert share", options.large_insert_share),
            ("large delete share", options.large_delete_share),
            ("search budget share", options.search_budget_share),
        ] {
            if share.is_nan() || share < 0.0 {
                return Err(Error::InvalidArgument(format!(
                    "components {what} {share} must be non-negative"
                )));
            }
        }
        let mut state = DynamicComponents {
            options: options.clone(),
            label: Vec::new(),
            ids: IdForest::default(),
            visited: Stamps::default(),
            owner: Vec::new(),
            edge_count: 0,
        };
        let stats = state.run_static(graph)?;
        Ok((state, stats))
    }

    fn apply<G: ReadGraph>(&mut self, graph: &G, changes: &ChangeLog) -> Result<UpdateStats> {
        let n = graph.vertex_count();
        if self.options.strategy == ComponentsStrategy::Recompute {
            return self.run_static(graph);
        }
        if changes.overflowed() {
            return self.recompute_because(graph, FallbackReason::LogOverflow);
        }
        let edges = graph.edge_count().max(self.edge_count).max(1) as f64;
        if changes.inserted_told() as f64 > self.options.large_insert_share * edges
            || changes.deleted_told() as f64 > self.options.large_delete_share * edges
        {
            return self.recompute_because(graph, FallbackReason::LargeBatch);
        }
        if changes.is_empty() && n == self.vertex_count() {
            return Ok(UpdateStats::new(Self::NAME, Ran::Nothing, n));
        }
        self.grow(n);
        let mut stats = UpdateStats::new(Self::NAME, Ran::Incremental, n);
        stats.iterations = 1;
        let budget = (self.options.search_budget_share * edges) as u64;
        match search::split_deleted(self, graph, changes.deleted(), budget, &mut stats) {
            search::Outcome::Done => {}
            search::Outcome::NoInEdges => {
                return on_pool_if(true, || {
                    self.recompute_because(graph, FallbackReason::NoInEdges)
                });
            }
            search::Outcome::OverBudget => {
                return on_pool_if(true, || {
                    self.recompute_because(graph, FallbackReason::LargeAffectedRegion)
                });
            }
        }
        self.union_inserted(graph, changes, &mut stats);
        self.compact();
        self.edge_count = graph.edge_count();
        Ok(stats)
    }

    fn recompute<G: ReadGraph>(&mut self, graph: &G) -> Result<UpdateStats> {
        self.run_static(graph)
    }

    fn vertex_count(&self) -> usize {
        self.label.len()
    }

    fn log_limit(&self) -> Option<usize> {
        match self.options.strategy {
            ComponentsStrategy::Recompute => Some(0),
            ComponentsStrategy::Incremental => {
                let share = self.options.large_insert_share + self.options.large_delete_share;
                Some(((share * self.edge_count as f64) as usize).saturating_add(1))
            }
        }
    }
}
