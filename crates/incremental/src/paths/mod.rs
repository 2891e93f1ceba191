//! BFS depths and SSSP distances from a fixed source, maintained across
//! batches ([`tree`] holds the shared repair engine).

mod bfs;
mod sssp;
mod tree;

pub use bfs::{DynamicBfs, DynamicBfsOptions};
pub use sssp::{DynamicSssp, DynamicSsspOptions};

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
            if !(share >= 0.0) {
                return Err(Error::InvalidArgument(format!(
                    "{what} {share} must be non-negative"
                )));
            }
        }
        Ok(())
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
