//! The replay engine of dyngraph: a temporal edge stream into any store of
//! the store contract ([`dyngraph_core::DynamicStore`]), in timed batches,
//! with sliding-window deletes, kernel checkpoints on snapshots, and a
//! summary with per-group records. One implementation, used by the
//! `dyngraph replay` command, the benches and the distributed crate alike.
//!
//! ```
//! use dyngraph_core::{CsrRebuild, Semantics};
//! use dyngraph_kernels::KernelName;
//! use dyngraph_loader::EdgeStream;
//! use dyngraph_replay::{Choice, KernelCheckpoints, ReplayOptions, plan, replay};
//! use std::sync::atomic::AtomicBool;
//!
//! // 1,000 arrivals on a ring of 100 vertices.
//! let stream = EdgeStream::from_pairs((0..1000u32).map(|i| (i % 100, (i + 1) % 100)));
//! let kernels = vec![KernelName::PageRank];
//! // Keep in-edges because PageRank pulls over them; no weights in the input.
//! let plan = plan(Semantics::Multigraph, Choice::Auto, Choice::Auto, &kernels, false);
//! let mut checkpoints = KernelCheckpoints::new(kernels, None, true, 0);
//! let options = ReplayOptions { batch: 10, ..ReplayOptions::default() };
//! let (summary, store) = replay::<CsrRebuild>(
//!     plan.options, &stream, &options, &AtomicBool::new(false), &mut checkpoints,
//! )?;
//! assert_eq!(summary.edges, 1000);
//! assert_eq!(summary.batch_count, 90); // 10% base, then batches of 10
//! assert!(checkpoints.failures.is_empty());
//! assert_eq!(checkpoints.latest["pr"].mode, "pull (in-edges)");
//! # let _ = store;
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
#![deny(missing_docs)]

mod checkpoints;
mod engine;
mod hooks;
mod job;
mod kept;
mod maintained;
mod plan;
mod report;
mod window;

pub use checkpoints::{KernelCheckpoints, kernel_options};
pub use engine::{
    GroupRecord, KernelPoint, KernelSummary, Latency, NoObserver, Observer, Position, RankedVertex,
    ReplayOptions, StoreSummary, replay,
};
pub use hooks::{CheckpointResult, ReplayProgress};
pub use job::{ReplaySpec, SourceVertex, prepare_stream, read_stream, run, run_on, run_reading};
pub use maintained::{
    BoundMethod, KernelMode, MaintainedKernels, MaintainedSummary, is_maintainable,
};
pub use plan::{Choice, StorePlan, plan};
pub use report::{CsvRow, InputSummary, Report};
pub use window::Window;
