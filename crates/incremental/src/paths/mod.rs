//! BFS depths and SSSP distances from a fixed source, maintained across
//! batches: one shortest-path tree engine behind [`DynamicBfs`] (unit
//! weights, `u32` depths) and [`DynamicSssp`] (`f32` weights and
//! distances).
//!
//! # Deletions: KickStarter-style trimming
//!
//! A deleted edge `u -> v` matters only when it was `v`'s tree edge
//! (`parent[v] == u`). Such a `v` is a *suspect*. Suspects are settled in
//! increasing distance: a suspect keeps its distance if some edge still
//! gives it that distance from a vertex strictly closer to the source that
//! is not invalidated (its parent over another copy of the edge, or
//! another in-neighbour: KickStarter's trimming, which spares the subtree
//! of a vertex with a second parent at the same distance). Otherwise it is
//! invalidated (distance ∞) and its tree children become suspects. A
//! vertex strictly closer than the suspect being settled can never be
//! invalidated later (every later suspect is at least as far), so the
//! parent found is final. Requiring *strictly* closer keeps the tree
//! acyclic with zero-weight edges (such a vertex is invalidated and
//! repaired instead).
//!
//! # Repair and insertions
//!
//! Every invalidated vertex is then offered the best distance through its
//! in-neighbours that stayed valid, every source of an inserted edge
//! relaxes its out-edges, and a Dijkstra pass (binary heap, keyed by
//! distance) propagates from there. Distances of vertices never touched
//! were exact before the batch and are upper bounds after it, so the pass
//! ends with every distance exact: the static kernels' values, bit for
//! bit with integer weights (their `f32` sums are exact), and within the
//! SSSP verifier's relative `1e-5` otherwise (two paths of equal length
//! may round differently, and either kernel may find either).
//!
//! The store is read for every decision (whether an edge is still there,
//! its weight), never the log: a delete may have removed nothing, a
//! simple-graph insert may have added nothing, an edge may be inserted
//! and deleted in one log.

mod bfs;
mod sssp;
mod tree;

pub use bfs::{DynamicBfs, DynamicBfsOptions};
pub use sssp::{DynamicSssp, DynamicSsspOptions};

use crate::ChangeLog;
use crate::maintained::FallbackReason;
use dyngraph_core::{Error, Result};
use tree::GaveUp;

/// How BFS and SSSP updates run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PathStrategy {
    /// The static kernel from scratch at every update.
    Recompute,
    /// Relax from inserted edges, trim and repair after deleted ones.
    #[default]
    Incremental,
}

/// The thresholds past which a BFS or SSSP update recomputes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathThresholds {
    /// A log with more edges than this share of the graph's edges is
    /// handled by the static kernel (measured: crate README).
    pub large_batch_share: f64,
    /// A deletion that invalidates more than this share of the vertices
    /// hands over to the static kernel (measured: crate README).
    pub invalidated_share: f64,
}

impl Default for PathThresholds {
    fn default() -> Self {
        Self {
            large_batch_share: 0.05,
            invalidated_share: 0.1,
        }
    }
}

impl PathThresholds {
    fn check(&self) -> Result<()> {
        for (what, share) in [
            ("large batch share", self.large_batch_share),
            ("invalidated share", self.invalidated_share),
        ] {
            if share.is_nan() || share < 0.0 {
                return Err(Error::InvalidArgument(format!(
                    "{what} {share} must be non-negative"
                )));
            }
        }
        Ok(())
    }
}

/// What a BFS or SSSP update does, decided before it touches the tree.
pub(crate) enum Plan {
    /// The static kernel, for this reason (`None`: the strategy asks).
    Recompute(Option<FallbackReason>),
    /// Nothing changed.
    Nothing,
    /// The incremental repair, giving up past this many invalidated
    /// vertices.
    Incremental {
        /// The invalidation limit.
        max_invalidated: usize,
    },
}

impl PathThresholds {
    /// The plan for `changes` on a graph of `vertices` vertices and `edges`
    /// edges (`edges_before` at the last update, `vertices_before`
    /// covered).
    pub(crate) fn plan(
        &self,
        strategy: PathStrategy,
        changes: &ChangeLog,
        (vertices, vertices_before): (usize, usize),
        (edges, edges_before): (u64, u64),
    ) -> Plan {
        if strategy == PathStrategy::Recompute {
            return Plan::Recompute(None);
        }
        if changes.overflowed() {
            return Plan::Recompute(Some(FallbackReason::LogOverflow));
        }
        let edges = edges.max(edges_before).max(1) as f64;
        if changes.edges_told() as f64 > self.large_batch_share * edges {
            return Plan::Recompute(Some(FallbackReason::LargeBatch));
        }
        if changes.is_empty() && vertices == vertices_before {
            return Plan::Nothing;
        }
        Plan::Incremental {
            max_invalidated: (self.invalidated_share * vertices as f64) as usize,
        }
    }

    /// The log limit of a kernel with these thresholds on `edges` edges.
    pub(crate) fn log_limit(&self, strategy: PathStrategy, edges: u64) -> Option<usize> {
        match strategy {
            PathStrategy::Recompute => Some(0),
            PathStrategy::Incremental => {
                Some(((self.large_batch_share * edges as f64) as usize).saturating_add(1))
            }
        }
    }
}

impl From<GaveUp> for FallbackReason {
    fn from(gave_up: GaveUp) -> Self {
        match gave_up {
            GaveUp::NoInEdges => FallbackReason::NoInEdges,
            GaveUp::TooManyInvalidated => FallbackReason::LargeAffectedRegion,
        }
    }
}
