//! What a running replay job hands its caller between timed groups: the
//! progress of each store's replay and, when asked, every checkpoint's
//! whole kernel results (`dyngraph replay --output DIR` writes them one
//! file per store, kernel and checkpoint).

use crate::checkpoints::KernelCheckpoints;
use crate::engine::{Observer, Position};
use crate::maintained::MaintainedKernels;
use dyngraph_core::{Edge, EdgeChunk, GraphStore, IdMap, Result};
use dyngraph_kernels::{KernelName, KernelOutput};
use dyngraph_stores::StoreKind;

/// What a running job tells its caller between timed groups (never inside
/// one): a progress bar's hooks, and the results of each checkpoint for a
/// caller that keeps them. Every method does nothing by default; `()` is
/// the silent progress.
pub trait ReplayProgress {
    /// A store's replay starts: `timed` arrivals follow the base.
    fn start(&mut self, store: StoreKind, timed: u64) {
        let _ = (store, timed);
    }

    /// `done` of the store's timed arrivals are applied.
    fn advance(&mut self, done: u64) {
        let _ = done;
    }

    /// The store's replay is over.
    fn finish(&mut self) {}

    /// Whether [`ReplayProgress::checkpoint`] is wanted. When it is not
    /// (the default), a checkpoint's results are dropped once timed,
    /// verified and summarised, and maintained kernels' states are not
    /// copied out.
    fn wants_results(&self) -> bool {
        false
    }

    /// One kernel's whole result at a checkpoint, static or maintained,
    /// after it was timed and verified (outside any timing). An error ends
    /// the replay with it.
    fn checkpoint(&mut self, result: CheckpointResult<'_>) -> Result<()> {
        let _ = result;
        Ok(())
    }
}

impl ReplayProgress for () {}

/// One kernel's whole result at one of a replay's checkpoints, handed to
/// [`ReplayProgress::checkpoint`].
#[derive(Clone, Copy, Debug)]
pub struct CheckpointResult<'a> {
    /// The store the kernel ran on.
    pub store: StoreKind,
    /// Batches applied when the kernel ran (the checkpoint after the tenth
    /// batch is 10; 0 when the whole stream was the base).
    pub batches: usize,
    /// Arrivals applied when the kernel ran, the base included (with a
    /// window, some of them deleted since).
    pub arrivals: usize,
    /// Whether this is the replay's last checkpoint.
    pub last: bool,
    /// The kernel.
    pub kernel: KernelName,
    /// Whether the result was maintained across batches (else computed
    /// from scratch on the store's snapshot).
    pub maintained: bool,
    /// The result, one value per vertex of the graph at the checkpoint (a
    /// maintained PageRank's ranks rounded to `f32`, as the static
    /// kernel's).
    pub output: &'a KernelOutput,
    /// The vertices' original ids or keys, when the input was relabelled
    /// (or a kept store keeps keys).
    pub ids: Option<&'a IdMap>,
}

/// The job's observer of one store's replay: the kernels at their
/// checkpoints, their results handed to the caller, then the progress.
pub(crate) struct Hooks<'a> {
    pub(crate) progress: &'a mut dyn ReplayProgress,
    /// Arrivals bulk-built before the first timed group.
    pub(crate) base: u64,
    pub(crate) store: StoreKind,
    pub(crate) ids: Option<&'a IdMap>,
    pub(crate) kernels: (&'a mut KernelCheckpoints, &'a mut MaintainedKernels),
}

impl<S: GraphStore> Observer<S> for Hooks<'_> {
    fn every(&self) -> Option<usize> {
        Observer::<S>::every(&self.kernels)
    }

    fn after_group(&mut self, store: &S, position: Position) -> Result<()> {
        self.kernels.after_group(store, position)?;
        let batches = position.batch.map_or(0, |b| b + 1);
        let (checkpoints, maintained) = &mut self.kernels;
        let from_scratch = checkpoints.outputs.drain(..).map(|o| (o, false));
        let kept = maintained.outputs.drain(..).map(|o| (o, true));
        for ((kernel, output), is_maintained) in from_scratch.chain(kept) {
            self.progress.checkpoint(CheckpointResult {
                store: self.store,
                batches,
                arrivals: position.arrivals,
                last: position.last,
                kernel,
                maintained: is_maintained,
                output: &output,
                ids: self.ids,
            })?;
        }
        self.progress
            .advance((position.arrivals as u64).saturating_sub(self.base));
        Ok(())
    }

    fn wants_batches(&self) -> bool {
        Observer::<S>::wants_batches(&self.kernels)
    }

    fn record_batch(&mut self, inserted: &EdgeChunk<'_>, deleted: &[Edge]) {
        Observer::<S>::record_batch(&mut self.kernels, inserted, deleted);
    }
}
