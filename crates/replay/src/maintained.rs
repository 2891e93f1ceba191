//! Kernels maintained across a replay's batches (`dyngraph-incremental`):
//! told about every batch the engine applied, brought up to date at each
//! checkpoint, and, in [`KernelMode::Both`], timed beside a run from
//! scratch on the same graph with the difference between the two.

use crate::engine::{Observer, Position};
use dyngraph_core::{Edge, EdgeChunk, GraphStore, ReadGraph, Result, VertexId};
use dyngraph_incremental::{
    ChangeLog, DynamicBfs, DynamicBfsOptions, DynamicComponents, DynamicPageRank,
    DynamicPageRankOptions, DynamicSssp, DynamicSsspOptions, Maintained, PageRankStrategy,
    UpdateStats, pagerank_error,
};
use dyngraph_kernels::{
    BfsOptions, ComponentsOptions, KernelName, KernelOutput, SsspOptions, bfs,
    connected_components, sssp,
};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// How a replay runs its kernels at checkpoints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum KernelMode {
    /// From scratch on the store's snapshot (and on a `Csr` of it).
    #[default]
    Static,
    /// Maintained across batches (PageRank, CC, BFS, SSSP; the other
    /// kernels run from scratch).
    Incremental,
    /// Maintained, and also from scratch on the same graph at every
    /// checkpoint, with the difference between the two.
    Both,
}

impl KernelMode {
    /// Whether `kernel` is maintained in this mode.
    pub fn maintains(self, kernel: KernelName) -> bool {
        self != KernelMode::Static && is_maintainable(kernel)
    }
}

/// How a maintained PageRank keeps its L1 bound (`--pagerank-method`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum BoundMethod {
    /// Warm-started sweeps over every vertex until their change proves the
    /// bound (`PageRankStrategy::NaiveDynamic` with the bound): the faster
    /// on small-world graphs, where one edge moves most ranks past a tight
    /// bound (measured on sx-mathoverflow and Kronecker graphs).
    #[default]
    Sweeps,
    /// Residual push (`PageRankStrategy::ResidualPush`): work that follows
    /// the batch and the bound, for graphs whose changes stay local; it
    /// sweeps when pushing would cost more.
    Push,
}

/// The kernels `dyngraph-incremental` maintains.
pub fn is_maintainable(kernel: KernelName) -> bool {
    matches!(
        kernel,
        KernelName::PageRank | KernelName::Afforest | KernelName::Bfs | KernelName::Sssp
    )
}

/// One maintained kernel over a whole replay.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MaintainedSummary {
    /// Checkpoints the kernel was updated at.
    pub checkpoints: usize,
    /// Seconds of all updates (the base's computation excluded).
    pub seconds: f64,
    /// Seconds of the initial computation on the base graph.
    pub initial_seconds: f64,
    /// Seconds from scratch at the same checkpoints ([`KernelMode::Both`]).
    pub static_seconds: Option<f64>,
    /// `static_seconds / seconds`.
    pub speedup: Option<f64>,
    /// Mean share of the vertices an update touched, at most 1
    /// ([`UpdateStats::touched_share`]).
    pub mean_touched: f64,
    /// Updates that fell back to a full computation.
    pub fallbacks: usize,
    /// Largest difference from the run from scratch at a checkpoint: for
    /// PageRank with an L1 bound, L1 of the normalised ranks (the run from
    /// scratch stops at the same bound), without one L∞; vertices that
    /// differ for CC, BFS, SSSP ([`KernelMode::Both`]).
    pub max_error: Option<f64>,
    /// PageRank: the L1 bound on the normalised ranks against the fixed
    /// point that the maintained ranks (and the runs from scratch beside
    /// them) keep.
    pub bound: Option<f64>,
    /// Largest L1 distance to the exact ranks `--verify` measured
    /// (PageRank).
    pub verified_error: Option<f64>,
    /// The maintained result at the last checkpoint, in words: PageRank's
    /// ten highest-ranked vertices, the component count, the vertices BFS
    /// or SSSP reached (written by [`MaintainedKernels::take_summaries`]).
    pub result: String,
    /// The verifier's verdict on every checkpoint, when asked.
    pub verified: Option<bool>,
    /// The last update, in words.
    pub last: String,
}

/// A maintained kernel of any kind.
#[derive(Debug)]
enum Kernel {
    PageRank(Maintained<DynamicPageRank>),
    Components(Maintained<DynamicComponents>),
    Bfs(Maintained<DynamicBfs>),
    Sssp(Maintained<DynamicSssp>),
}

/// Maintains the replay's kernels: an [`Observer`] of any store.
#[derive(Debug)]
pub struct MaintainedKernels {
    names: Vec<KernelName>,
    mode: KernelMode,
    every: Option<usize>,
    verify: bool,
    source: VertexId,
    pagerank_bound: Option<f64>,
    pagerank_method: BoundMethod,
    pagerank_stop_bound_for_tests: Option<f64>,
    log: ChangeLog,
    kernels: Vec<(KernelName, Kernel)>,
    keep_outputs: bool,
    /// The last checkpoint's maintained results, when kept
    /// ([`MaintainedKernels::keeping_outputs`]): taken by the caller after
    /// each checkpoint.
    pub outputs: Vec<(KernelName, KernelOutput)>,
    /// Each kernel's summary so far, by name.
    pub summaries: BTreeMap<String, MaintainedSummary>,
    /// Verifier rejections and differences from the run from scratch, as
    /// messages.
    pub failures: Vec<String>,
}

impl MaintainedKernels {
    /// The maintainable kernels of `kernels`, updated every `every`
    /// batches (and at the end), BFS and SSSP from `source`.
    pub fn new(
        kernels: &[KernelName],
        mode: KernelMode,
        every: Option<usize>,
        verify: bool,
        source: VertexId,
    ) -> Self {
        Self {
            names: kernels
                .iter()
                .copied()
                .filter(|&k| mode.maintains(k))
                .collect(),
            mode,
            every,
            verify,
            source,
            pagerank_bound: None,
            pagerank_method: BoundMethod::default(),
            pagerank_stop_bound_for_tests: None,
            log: ChangeLog::new(),
            kernels: Vec::new(),
            keep_outputs: false,
            outputs: Vec::new(),
            summaries: BTreeMap::new(),
            failures: Vec::new(),
        }
    }

    /// Maintains PageRank to the L1 bound `bound` on the normalised ranks,
    /// by [`MaintainedKernels::with_pagerank_method`]'s method (`None`: the
    /// crate's default, DF-P, or warm sweeps on a store without in-edges).
    pub fn with_pagerank_bound(mut self, bound: Option<f64>) -> Self {
        self.pagerank_bound = bound;
        self
    }

    /// How PageRank keeps [`MaintainedKernels::with_pagerank_bound`]'s
    /// bound.
    pub fn with_pagerank_method(mut self, method: BoundMethod) -> Self {
        self.pagerank_method = method;
        self
    }

    /// For the verifier's own tests: the maintained PageRank stops at
    /// `stop_bound` while the summary and the verifier keep to
    /// [`MaintainedKernels::with_pagerank_bound`]'s bound, a broken
    /// guarantee that `verify` must report.
    #[doc(hidden)]
    pub fn with_pagerank_stop_bound_for_tests(mut self, stop_bound: Option<f64>) -> Self {
        self.pagerank_stop_bound_for_tests = stop_bound;
        self
    }

    /// Copies each checkpoint's maintained results into
    /// [`MaintainedKernels::outputs`] as the static kernels' result types
    /// (for a per-vertex export): `O(V)` per kernel and checkpoint, paid
    /// only when asked.
    pub fn keeping_outputs(mut self, keep: bool) -> Self {
        self.keep_outputs = keep;
        self
    }

    /// Each kernel's summary, with its result in words at the last
    /// checkpoint, taken: the result is described here, once, and not at
    /// every checkpoint (a component count or a reached count is `O(V)`).
    pub fn take_summaries(&mut self) -> BTreeMap<String, MaintainedSummary> {
        for (name, kernel) in &self.kernels {
            if let Some(summary) = self.summaries.get_mut(name.as_str()) {
                summary.result = describe(kernel);
            }
        }
        std::mem::take(&mut self.summaries)
    }

    /// Whether any kernel is maintained.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Computes, from scratch, every kernel not started yet that can be:
    /// BFS and SSSP wait until their source is in the graph.
    fn start<G: ReadGraph>(&mut self, graph: &G) -> Result<()> {
        for &name in &self.names {
            if self.kernels.iter().any(|(started, _)| *started == name) {
                continue;
            }
            if matches!(name, KernelName::Bfs | KernelName::Sssp)
                && self.source as usize >= graph.vertex_count()
            {
                continue;
            }
            let timer = Instant::now();
            let kernel = match name {
                KernelName::PageRank => {
                    let options = match self.pagerank_bound {
                        // Both run with or without in-edges.
                        Some(bound) => {
                            let bound = self.pagerank_stop_bound_for_tests.unwrap_or(bound);
                            match self.pagerank_method {
                                BoundMethod::Push => DynamicPageRankOptions::to_l1_bound(bound),
                                BoundMethod::Sweeps => DynamicPageRankOptions {
                                    strategy: PageRankStrategy::NaiveDynamic,
                                    l1_bound: Some(bound),
                                    ..DynamicPageRankOptions::default()
                                },
                            }
                        }
                        None => {
                            // The frontier strategies recompute single
                            // vertices over in-edges; without them,
                            // warm-started sweeps push.
                            let mut options = DynamicPageRankOptions::default();
                            if !graph.has_in_edges() {
                                options.strategy = PageRankStrategy::NaiveDynamic;
                            }
                            options
                        }
                    };
                    let summary = self.summaries.entry(name.as_str().to_string()).or_default();
                    summary.bound = self.pagerank_bound.or(options.l1_bound);
                    Kernel::PageRank(Maintained::new(graph, options)?)
                }
                KernelName::Afforest => {
                    Kernel::Components(Maintained::new(graph, Default::default())?)
                }
                KernelName::Bfs => Kernel::Bfs(Maintained::new(
                    graph,
                    DynamicBfsOptions::from_source(self.source),
                )?),
                KernelName::Sssp => Kernel::Sssp(Maintained::new(
                    graph,
                    DynamicSsspOptions::from_source(self.source),
                )?),
                _ => continue,
            };
            let summary = self.summaries.entry(name.as_str().to_string()).or_default();
            summary.initial_seconds = timer.elapsed().as_secs_f64();
            self.kernels.push((name, kernel));
        }
        Ok(())
    }

    fn update<G: ReadGraph>(&mut self, graph: &G, batch: usize) -> Result<()> {
        for (name, kernel) in &mut self.kernels {
            let stats = match kernel {
                Kernel::PageRank(k) => k.update_with(graph, &self.log)?,
                Kernel::Components(k) => k.update_with(graph, &self.log)?,
                Kernel::Bfs(k) => k.update_with(graph, &self.log)?,
                Kernel::Sssp(k) => k.update_with(graph, &self.log)?,
            };
            let summary = self.summaries.entry(name.as_str().to_string()).or_default();
            record(summary, &stats);
            if self.mode == KernelMode::Both {
                let (seconds, error) = from_scratch(kernel, graph, self.source)?;
                *summary.static_seconds.get_or_insert(0.0) += seconds;
                let worst = summary.max_error.get_or_insert(0.0);
                *worst = worst.max(error);
                summary.speedup = summary
                    .static_seconds
                    .map(|s| s / summary.seconds.max(f64::MIN_POSITIVE));
                if *name != KernelName::PageRank && error > 0.0 {
                    self.failures.push(format!(
                        "{name} after batch {batch}: {error} vertices differ from a run from scratch"
                    ));
                }
            }
            if self.keep_outputs {
                self.outputs.push((*name, output_of(kernel)));
            }
            if self.verify {
                let verdict = verify(kernel, graph, self.pagerank_bound);
                if let Ok(Some(error)) = verdict {
                    let worst = summary.verified_error.get_or_insert(0.0);
                    *worst = worst.max(error);
                }
                if let Err(message) = &verdict {
                    self.failures.push(format!(
                        "{name} (maintained) after batch {batch}: {message}"
                    ));
                }
                let ok = summary.verified.unwrap_or(true) && verdict.is_ok();
                summary.verified = Some(ok);
            }
        }
        self.log.clear();
        Ok(())
    }
}

fn record(summary: &mut MaintainedSummary, stats: &UpdateStats) {
    let n = summary.checkpoints as f64;
    summary.mean_touched = (summary.mean_touched * n + stats.touched_share()) / (n + 1.0);
    summary.checkpoints += 1;
    summary.seconds += stats.seconds;
    summary.fallbacks += usize::from(stats.fell_back());
    summary.last = stats.to_string();
}

/// Runs `kernel`'s computation from scratch on `graph`: its seconds, and
/// how far the maintained result is from it.
fn from_scratch<G: ReadGraph>(kernel: &Kernel, graph: &G, source: VertexId) -> Result<(f64, f64)> {
    let timer = Instant::now();
    Ok(match kernel {
        Kernel::PageRank(maintained) => {
            // The same iteration in f64 to the same tolerance, from 1/n:
            // the static row of Sahu's comparison.
            let options = DynamicPageRankOptions {
                strategy: PageRankStrategy::Static,
                ..maintained.kernel().options().clone()
            };
            let fresh = Maintained::<DynamicPageRank>::new(graph, options)?;
            let seconds = timer.elapsed().as_secs_f64();
            let error = pagerank_error(&maintained.kernel().scores(), &fresh.kernel().scores());
            let norm = match maintained.kernel().sweep_bound() {
                Some(_) => error.l1,
                None => error.linf,
            };
            (seconds, norm)
        }
        Kernel::Components(maintained) => {
            let fresh = connected_components(graph, &ComponentsOptions::default())?;
            let seconds = timer.elapsed().as_secs_f64();
            (
                seconds,
                partition_difference(&maintained.kernel().labels(), &fresh.labels) as f64,
            )
        }
        Kernel::Bfs(maintained) => {
            let fresh = bfs(graph, &BfsOptions::from_source(source).with_depths(true))?;
            let seconds = timer.elapsed().as_secs_f64();
            let depths = fresh.depths.unwrap_or_default();
            let differ = maintained
                .kernel()
                .depths()
                .iter()
                .zip(&depths)
                .filter(|(a, b)| a != b)
                .count();
            (seconds, differ as f64)
        }
        Kernel::Sssp(maintained) => {
            let fresh = sssp(graph, &SsspOptions::from_source(source))?;
            let seconds = timer.elapsed().as_secs_f64();
            let differ = maintained
                .kernel()
                .distances()
                .iter()
                .zip(&fresh.distances)
                .filter(|(a, b)| a != b && !(a.is_infinite() && b.is_infinite()))
                .count();
            (seconds, differ as f64)
        }
    })
}

/// Vertices whose component differs between two labellings, as
/// partitions (labels may be named differently).
fn partition_difference(a: &[VertexId], b: &[VertexId]) -> usize {
    let mut a_to_b = std::collections::HashMap::new();
    let mut b_to_a = std::collections::HashMap::new();
    a.iter()
        .zip(b)
        .filter(|&(&x, &y)| {
            let forward = *a_to_b.entry(x).or_insert(y);
            let backward = *b_to_a.entry(y).or_insert(x);
            forward != y || backward != x
        })
        .count()
}

/// The maintained result as the static kernel's result type.
fn output_of(kernel: &Kernel) -> KernelOutput {
    match kernel {
        Kernel::PageRank(k) => KernelOutput::PageRank(k.kernel().to_pagerank_result()),
        Kernel::Components(k) => KernelOutput::Components(k.kernel().to_components_result()),
        Kernel::Bfs(k) => KernelOutput::Bfs(k.kernel().to_bfs_result()),
        Kernel::Sssp(k) => KernelOutput::Sssp(k.kernel().to_sssp_result()),
    }
}

/// The maintained result in words, for the report.
fn describe(kernel: &Kernel) -> String {
    match kernel {
        Kernel::PageRank(k) => {
            let top: Vec<String> = k
                .kernel()
                .top(10)
                .iter()
                .map(|(v, s)| format!("{v}:{s:.3e}"))
                .collect();
            format!("top {}", top.join(" "))
        }
        Kernel::Components(k) => format!("{} components", k.kernel().component_count()),
        Kernel::Bfs(k) => format!("{} reached", k.kernel().reached()),
        Kernel::Sssp(k) => format!("{} reached", k.kernel().reached()),
    }
}

/// The verifier's verdict; for PageRank the L1 distance to the exact ranks
/// measured, held to `pagerank_bound`, the bound the user asked for.
fn verify<G: ReadGraph>(
    kernel: &Kernel,
    graph: &G,
    pagerank_bound: Option<f64>,
) -> std::result::Result<Option<f64>, String> {
    match kernel {
        // Within the asked L1 bound of the exact ranks (a converged
        // static run), not the state's own: a state that stopped short of
        // what was asked fails; without a bound, within 1e-6 in L∞ (the
        // frontier defaults bound the L1 error at 6.7e-7, the crate's docs).
        Kernel::PageRank(k) => match pagerank_bound.or(k.kernel().sweep_bound()) {
            Some(bound) => dyngraph_incremental::verify_pagerank_l1(graph, k.kernel(), bound)
                .map(|error| Some(error.l1))
                .map_err(|e| e.to_string()),
            None => dyngraph_incremental::verify_pagerank(graph, k.kernel(), 1e-6)
                .map(|error| Some(error.l1))
                .map_err(|e| e.to_string()),
        },
        Kernel::Components(k) => {
            dyngraph_kernels::verify_components(graph, &k.kernel().to_components_result())
                .map(|()| None)
                .map_err(|e| e.to_string())
        }
        Kernel::Bfs(k) => dyngraph_kernels::verify_bfs(graph, &k.kernel().to_bfs_result())
            .map(|()| None)
            .map_err(|e| e.to_string()),
        Kernel::Sssp(k) => dyngraph_kernels::verify_sssp(graph, &k.kernel().to_sssp_result())
            .map(|()| None)
            .map_err(|e| e.to_string()),
    }
}

impl<S: GraphStore> Observer<S> for MaintainedKernels {
    fn every(&self) -> Option<usize> {
        self.every.filter(|_| !self.names.is_empty())
    }

    fn wants_batches(&self) -> bool {
        !self.names.is_empty()
    }

    fn record_batch(&mut self, inserted: &EdgeChunk<'_>, deleted: &[Edge]) {
        self.log.record_batch(inserted, deleted);
    }

    fn after_group(&mut self, store: &S, position: Position) -> Result<()> {
        if self.names.is_empty() {
            return Ok(());
        }
        let Some(batch) = position.batch else {
            // The base: compute every kernel once.
            return self.start(store);
        };
        let due = self
            .every
            .is_some_and(|every| (batch + 1).is_multiple_of(every));
        if due || position.last {
            self.update(store, batch)?;
            // Kernels whose source appeared since start from scratch now.
            self.start(store)?;
        }
        Ok(())
    }
}
