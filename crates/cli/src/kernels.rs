//! Kernels during a replay: run on the store's snapshot every `--every`
//! batches and at the end, each also timed on a `Csr` built from the same
//! edges, and optionally verified.

use crate::replay::{BatchObserver, KernelSummary};
use crate::stores::ReplayStore;
use anyhow::{Context, Result};
use dyngraph_core::{
    Csr, CsrOptions, InNeighbors, OutNeighbors, VertexId, WeightedEdge, WeightedOutNeighbors,
};
use dyngraph_kernels::{BfsOptions, KernelName, KernelOptions, SsspOptions};
use std::collections::BTreeMap;
use std::time::Instant;

/// Kernel names as the CLI spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub(crate) enum KernelArg {
    /// PageRank, 20 iterations.
    Pr,
    /// Direction-optimizing BFS.
    Bfs,
    /// Delta-stepping single-source shortest paths.
    Sssp,
    /// Connected components (Afforest).
    Cc,
    /// Connected components (Shiloach-Vishkin).
    CcSv,
    /// Betweenness centrality (Brandes from sampled sources).
    Bc,
    /// Triangle counting.
    Tc,
    /// k-step reverse walks.
    Walk,
}

impl KernelArg {
    pub(crate) fn kernel(self) -> KernelName {
        match self {
            KernelArg::Pr => KernelName::PageRank,
            KernelArg::Bfs => KernelName::Bfs,
            KernelArg::Sssp => KernelName::Sssp,
            KernelArg::Cc => KernelName::Afforest,
            KernelArg::CcSv => KernelName::ShiloachVishkin,
            KernelArg::Bc => KernelName::Bc,
            KernelArg::Tc => KernelName::Triangles,
            KernelArg::Walk => KernelName::ReverseWalks,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            KernelArg::Walk => "walk",
            KernelArg::CcSv => "cc-sv",
            other => other.kernel().as_str(),
        }
    }
}

/// The options a kernel runs with; BFS and SSSP start at `source`.
pub(crate) fn options_for(kernel: KernelName, source: VertexId) -> KernelOptions {
    match kernel.default_options() {
        KernelOptions::Bfs(options) => KernelOptions::Bfs(BfsOptions { source, ..options }),
        KernelOptions::Sssp(_) => KernelOptions::Sssp(SsspOptions::from_source(source)),
        other => other,
    }
}

/// A `Csr` (with in-edges, and weights when the graph has them) holding the
/// same edges as `graph`.
pub(crate) fn csr_of<G: WeightedOutNeighbors>(graph: &G) -> Result<Csr> {
    let mut edges = Vec::with_capacity(graph.edge_count() as usize);
    for v in 0..graph.vertex_count() as VertexId {
        edges.extend(
            graph
                .out_neighbors_weighted(v)
                .map(|(d, w)| WeightedEdge::new(v, d, w)),
        );
    }
    let options = CsrOptions::default()
        .transpose(true)
        .vertex_count(graph.vertex_count());
    let csr = if graph.has_weights() {
        Csr::from_weighted_edges(&edges, options)
    } else {
        let plain: Vec<_> = edges.iter().map(|e| e.edge()).collect();
        Csr::from_edges(&plain, options)
    };
    csr.context("cannot build the comparison Csr")
}

/// Runs `kernel` twice and keeps the faster time: the first run of a
/// checkpoint pays for cold caches, which would otherwise land on whichever
/// side runs first.
fn best_of_two<T>(
    mut kernel: impl FnMut() -> dyngraph_core::Result<T>,
) -> dyngraph_core::Result<(T, f64)> {
    let timer = Instant::now();
    kernel()?;
    let first = timer.elapsed().as_secs_f64();
    let timer = Instant::now();
    let output = kernel()?;
    Ok((output, first.min(timer.elapsed().as_secs_f64())))
}

/// One kernel run at one checkpoint of the replay.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct KernelPoint {
    pub(crate) batch: usize,
    pub(crate) kernel: String,
    pub(crate) seconds: f64,
    pub(crate) csr_seconds: f64,
}

/// Runs the kernels between batches.
#[derive(Debug)]
pub(crate) struct KernelCheckpoints {
    kernels: Vec<KernelArg>,
    every: Option<usize>,
    verify: bool,
    source: VertexId,
    /// The last checkpoint's timings, by kernel name.
    pub(crate) latest: BTreeMap<String, KernelSummary>,
    /// Every checkpoint, for the plot and the JSON.
    pub(crate) timeline: Vec<KernelPoint>,
    /// Verifier rejections, as messages.
    pub(crate) failures: Vec<String>,
}

impl KernelCheckpoints {
    pub(crate) fn new(
        kernels: Vec<KernelArg>,
        every: Option<usize>,
        verify: bool,
        source: VertexId,
    ) -> Self {
        Self {
            kernels,
            every,
            verify,
            source,
            latest: BTreeMap::new(),
            timeline: Vec::new(),
            failures: Vec::new(),
        }
    }

    fn run_all<S: ReplayStore>(&mut self, store: &S, batch: usize) -> Result<()> {
        store.with_snapshot(|snapshot| self.run_on(snapshot, batch))?
    }

    fn run_on<G>(&mut self, snapshot: &G, batch: usize) -> Result<()>
    where
        G: OutNeighbors + InNeighbors + WeightedOutNeighbors + Sync,
    {
        if self.source as usize >= snapshot.vertex_count() {
            return Ok(());
        }
        let csr = csr_of(snapshot)?;
        for &kernel in &self.kernels {
            let options = options_for(kernel.kernel(), self.source);
            let (output, seconds) = best_of_two(|| dyngraph_kernels::run(snapshot, &options))
                .with_context(|| format!("kernel {} failed", kernel.name()))?;
            let (_, csr_seconds) = best_of_two(|| dyngraph_kernels::run(&csr, &options))
                .with_context(|| format!("kernel {} failed on Csr", kernel.name()))?;
            let verified = if self.verify {
                let result = dyngraph_kernels::verify(snapshot, &output);
                if let Err(error) = &result {
                    self.failures
                        .push(format!("{} after batch {batch}: {error}", kernel.name()));
                }
                Some(result.is_ok())
            } else {
                None
            };
            let ratio = if csr_seconds > 0.0 {
                seconds / csr_seconds
            } else {
                f64::NAN
            };
            self.latest.insert(
                kernel.name().to_string(),
                KernelSummary {
                    seconds,
                    csr_seconds,
                    ratio,
                    verified,
                },
            );
            self.timeline.push(KernelPoint {
                batch,
                kernel: kernel.name().to_string(),
                seconds,
                csr_seconds,
            });
        }
        Ok(())
    }
}

impl<S: ReplayStore> BatchObserver<S> for KernelCheckpoints {
    fn after_batch(&mut self, store: &S, batch: usize, last: bool) -> Result<()> {
        if self.kernels.is_empty() {
            return Ok(());
        }
        let due = self
            .every
            .is_some_and(|every| (batch + 1).is_multiple_of(every));
        if due || last {
            self.run_all(store, batch)
        } else {
            Ok(())
        }
    }
}
