//! `dyngraph-incremental`: analytics that follow the stream. PageRank,
//! weakly connected components, BFS and SSSP kept up to date across
//! batches of inserts and deletes, written once against the store
//! contract of `dyngraph-core`, so they run on every store (`Csr`, VCSR,
//! PCSR, BAL, CSR++, the durable store) and on snapshot views of them.
//!
//! # One interface
//!
//! A [`Maintained`]`<K>` holds a kernel's state beside a store. It is
//! told about each batch the store applied ([`Maintained::record_batch`]:
//! the edges handed to the insert call and those handed to the delete
//! call), accumulates them in a [`ChangeLog`], and brings the result up to
//! date when asked ([`Maintained::update`]), reading the store wherever
//! what a batch did matters. Each update reports what it touched
//! ([`UpdateStats`]: vertex computations, edges read, iterations, whether
//! and why it fell back to the static kernel, seconds).
//!
//! | kernel | state | incremental algorithm | result |
//! |---|---|---|---|
//! | PageRank | [`DynamicPageRank`] | static, naive-dynamic, dynamic traversal, Dynamic Frontier (DF), DF with pruning (DF-P) | within stated L∞ / L1 bounds of the exact ranks |
//! | CC | [`DynamicComponents`] | union-find for inserts; searches from deleted edges' endpoints for splits | exact (the partition of static Afforest) |
//! | BFS | [`DynamicBfs`] | relax from inserted edges; KickStarter-style trimming and repair for deletes | exact depths |
//! | SSSP | [`DynamicSssp`] | the same, weighted | exact distances |
//!
//! The crate README gives the algorithms, their guarantees, the
//! tolerances, the cost model, the measured thresholds, and how the replay
//! engine calls this crate.
//!
//! # Example: a stream of batches on VCSR
//!
//! ```
//! use dyngraph_core::{Edge, FromEdges, GraphUpdate, Snapshots, StoreOptions};
//! use dyngraph_incremental::{
//!     DynamicComponents, DynamicPageRank, DynamicPageRankOptions, Maintained, verify_pagerank,
//! };
//! use dyngraph_vcsr::Vcsr;
//!
//! let ring: Vec<Edge> = (0..100).map(|v| Edge::new(v, (v + 1) % 100)).collect();
//! let mut store: Vcsr = Vcsr::from_edges(&ring, StoreOptions::default().in_edges(true).into())?;
//! let mut pagerank = Maintained::<DynamicPageRank>::new(&store, DynamicPageRankOptions::default())?;
//! let mut components = Maintained::<DynamicComponents>::new(&store, Default::default())?;
//!
//! // A batch: a chord in, a ring edge out; a new vertex 100.
//! let (inserted, deleted) = ([Edge::new(10, 60), Edge::new(100, 0)], [Edge::new(30, 31)]);
//! store.insert_edges(&inserted)?;
//! store.delete_edges(&deleted)?;
//! pagerank.record_batch(&inserted, &deleted);
//! components.record_batch(&inserted, &deleted);
//!
//! // Update against a snapshot: a reader of that snapshot sees these results.
//! let snapshot = store.snapshot();
//! let view = store.view(&snapshot)?;
//! let stats = pagerank.update(&view)?;
//! components.update(&view)?;
//! assert!(stats.work_share() < 20.0 && !stats.fell_back());
//! verify_pagerank(&view, pagerank.kernel(), 1e-9).expect("within 1e-9 of the exact ranks");
//! assert_eq!(components.kernel().component_count(), 1);
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
#![deny(missing_docs)]

mod change_log;
mod components;
mod maintained;
mod pagerank;
pub mod paths;
mod scratch;

pub use change_log::ChangeLog;
pub use components::{ComponentsStrategy, DynamicComponents, DynamicComponentsOptions};
pub use maintained::{FallbackReason, IncrementalKernel, Maintained, Ran, UpdateStats};
pub use pagerank::{
    DEFAULT_L1_BOUND, DynamicPageRank, DynamicPageRankOptions, PageRankError, PageRankStrategy,
    pagerank_error, reference_pagerank, verify_pagerank, verify_pagerank_l1,
};
pub use paths::{
    DynamicBfs, DynamicBfsOptions, DynamicSssp, DynamicSsspOptions, PathStrategy, PathThresholds,
};

use dyngraph_core::{InEdges, Result};

/// Checks once that the graph keeps in-edges, with the store's own
/// [`dyngraph_core::Error::MissingCapability`] when it does not.
pub(crate) fn ensure_in_edges<G: InEdges>(graph: &G) -> Result<()> {
    graph.in_edges().map(|_| ())
}

/// Runs `work` on a pool thread when `parallel` (one hand-off for the whole
/// update, as the static kernels do), in place otherwise: a small update
/// never wakes the pool.
pub(crate) fn on_pool_if<R: Send>(parallel: bool, work: impl FnOnce() -> R + Send) -> R {
    if parallel && rayon::current_thread_index().is_none() {
        rayon::scope(|_| work())
    } else {
        work()
    }
}
