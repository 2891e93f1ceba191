//! `dyngraph replay --workers W` / `--hostfile FILE --process I`: the same
//! replay, partitioned over timely dataflow workers (`dyngraph-dist`).

use crate::stores::StoreKind;
use anyhow::{Result, bail};
use dyngraph_core::{DynamicStore, StoreOptions, VertexId};
use dyngraph_csrpp::CsrPP;
use dyngraph_dist::{Cluster, DistInput, DistOptions, DistReport, replay};
use dyngraph_kernels::KernelName;
use dyngraph_replay::{CsrRebuild, ReplayOptions};
use dyngraph_vcsr::Vcsr;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// How the cluster is given on the command line.
#[derive(Clone, Debug)]
pub(crate) struct ClusterArgs {
    pub(crate) workers: Option<usize>,
    pub(crate) hostfile: Option<PathBuf>,
    pub(crate) process: Option<usize>,
}

impl ClusterArgs {
    /// Whether the replay is distributed at all.
    pub(crate) fn requested(&self) -> bool {
        self.workers.is_some() || self.hostfile.is_some()
    }

    pub(crate) fn cluster(&self) -> Result<Cluster> {
        let threads = self.workers.unwrap_or(1);
        Ok(match (&self.hostfile, self.process) {
            (Some(hostfile), Some(process)) => Cluster::from_hostfile(hostfile, process, threads)?,
            (Some(_), None) => bail!(
                "--hostfile needs --process I: this process's line in the host file (0-based)"
            ),
            (None, Some(_)) => bail!("--process needs --hostfile FILE"),
            (None, None) => Cluster::threads(threads),
        })
    }
}

/// One store's distributed run, as the JSON's `distributed` entries show it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct DistributedRun {
    pub(crate) store: String,
    pub(crate) cluster: dyngraph_dist::ClusterShape,
    /// Largest worker's edges over the mean.
    pub(crate) imbalance: f64,
    pub(crate) workers: Vec<dyngraph_dist::WorkerCounters>,
}

/// Runs the distributed replay of `path` into `kind` stores; `None` on a
/// process that does not host worker 0 (it has nothing to report).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    kind: StoreKind,
    cluster: &Cluster,
    path: &Path,
    replay_options: &ReplayOptions,
    store: StoreOptions,
    kernels: &[KernelName],
    every: Option<usize>,
    verify: bool,
    source: Option<VertexId>,
) -> Result<Option<DistReport>> {
    let options = DistOptions {
        replay: replay_options.clone(),
        store,
        kernels: kernels.to_vec(),
        every,
        source,
        verify,
        ..DistOptions::default()
    };
    let input = DistInput::File(path.to_path_buf());
    fn go<S: DynamicStore + 'static>(
        cluster: &Cluster,
        input: DistInput,
        options: DistOptions,
    ) -> Result<Option<DistReport>> {
        Ok(replay::<S>(cluster, input, options)?)
    }
    match kind {
        StoreKind::Vcsr => go::<Vcsr>(cluster, input, options),
        StoreKind::Csrpp => go::<CsrPP>(cluster, input, options),
        StoreKind::CsrRebuild => go::<CsrRebuild>(cluster, input, options),
        StoreKind::Pcsr | StoreKind::Bal | StoreKind::Durable => bail!(
            "--store {} does not run distributed yet: use vcsr, csrpp or csr-rebuild with --workers/--hostfile",
            kind.name()
        ),
    }
}
