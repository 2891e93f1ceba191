//! `dyngraph replay --workers W` / `--hostfile FILE --process I`: the same
//! replay spec, partitioned over timely dataflow workers (`dyngraph::dist`).

use crate::replay_cmd::ReplayArgs;
use anyhow::{Result, bail};
use clap::Args;
use dyngraph::core::DynamicStore;
use dyngraph::dist::{Cluster, DistInput, DistOptions, DistReport};
use dyngraph::replay::{InputSummary, Order, ReplaySpec, Report, StoreKind, StoreVisitor, plan};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// How the cluster is given on the command line.
#[derive(Args, Clone, Debug)]
pub(crate) struct ClusterArgs {
    /// Replay partitioned over this many timely workers (threads in this
    /// process, or per process with `--hostfile`).
    #[arg(long, value_parser = crate::parse_positive)]
    workers: Option<usize>,

    /// A timely host file (one `host:port` per line, one line per process)
    /// for a replay over several processes; with `--process`.
    #[arg(long)]
    hostfile: Option<PathBuf>,

    /// This process's line in `--hostfile` (0-based); process 0 reports.
    #[arg(long)]
    process: Option<usize>,
}

impl ClusterArgs {
    /// Whether the replay is distributed at all.
    pub(crate) fn requested(&self) -> bool {
        self.workers.is_some() || self.hostfile.is_some() || self.process.is_some()
    }

    fn cluster(&self) -> Result<Cluster> {
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
struct DistributedRun {
    store: String,
    cluster: dyngraph::dist::ClusterShape,
    /// Largest worker's edges over the mean.
    imbalance: f64,
    workers: Vec<dyngraph::dist::WorkerCounters>,
}

/// The report of a distributed replay: the single-machine report and the
/// per-worker counters.
#[derive(Clone, Debug, Serialize)]
struct DistributedReport {
    #[serde(flatten)]
    report: Report,
    distributed: Vec<DistributedRun>,
}

/// Runs `dyngraph::dist::replay` on the store type a kind names.
struct OnCluster<'a> {
    cluster: &'a Cluster,
    spec: &'a ReplaySpec,
    options: DistOptions,
}

impl StoreVisitor for OnCluster<'_> {
    type Output = Result<Option<DistReport>>;

    fn visit<S: DynamicStore + 'static>(self, _: S::Options) -> Result<Option<DistReport>> {
        let input = DistInput::File(self.spec.input.clone());
        Ok(dyngraph::dist::replay::<S>(
            self.cluster,
            input,
            self.options,
        )?)
    }
}

/// The replay over timely workers: each reads its byte range of the file;
/// process 0 reports like a single-machine replay, plus per-worker
/// counters.
pub(crate) fn replay(args: &ReplayArgs, spec: &ReplaySpec) -> Result<ExitCode> {
    if spec.order != Order::File || spec.undirected {
        bail!(
            "a distributed replay streams the file as it is: --order {:?} and --undirected need the whole stream in one place",
            spec.order
        );
    }
    let cluster = args.cluster.cluster()?;
    // Whether the input has weights is the file's business; `auto` keeps
    // them when it does (the workers read them).
    let weighted = spec.input.extension().is_some_and(|e| e == "wel");
    let plan = plan(
        spec.replay.semantics,
        spec.in_edges,
        spec.weights,
        &spec.kernels,
        weighted,
    );
    let mut stores = Vec::new();
    let mut runs = Vec::new();
    let mut verify_failures = Vec::new();
    for kind in spec.unique_stores() {
        if !kind.capabilities().distributable {
            bail!(
                "--store {kind} does not run distributed: use one of {}",
                StoreKind::ALL
                    .iter()
                    .filter(|k| k.capabilities().distributable)
                    .map(|k| k.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let options = DistOptions {
            replay: spec.replay.clone(),
            store: plan.options,
            kernels: spec.kernels.clone(),
            every: spec.every,
            source: spec.source,
            verify: spec.verify,
            ..DistOptions::default()
        };
        let work = OnCluster {
            cluster: &cluster,
            spec,
            options,
        };
        let Some(report) = kind.visit(&spec.settings, plan.options, work)? else {
            continue;
        };
        verify_failures.extend(
            report
                .verify_failures
                .iter()
                .map(|failure| format!("{kind}: {failure}")),
        );
        let mut summary = report.summary;
        summary.store = kind.name().to_string();
        stores.push(summary);
        runs.push(DistributedRun {
            store: kind.name().to_string(),
            cluster: report.cluster,
            imbalance: report.imbalance,
            workers: report.workers,
        });
    }
    if stores.is_empty() {
        eprintln!(
            "process {} of {}: done (the process hosting worker 0 reports)",
            cluster.process(),
            cluster.processes()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let edges = stores.first().map_or(0, |s| s.edges_inserted);
    let vertices = stores.first().map_or(0, |s| s.vertices);
    let report = Report {
        input: InputSummary {
            path: spec.input.clone(),
            edges,
            vertices,
            order: Order::File,
            seed: spec.seed,
            base_pct: spec.replay.base_percent,
            batch: spec.replay.batch,
            window: spec.replay.window.map(|w| w.to_string()),
            undirected: false,
            simple: spec.replay.semantics == dyngraph::core::Semantics::Simple,
            in_edges: plan.in_edges_reason.clone(),
            weights: plan.weights_reason.clone(),
            threads: rayon::current_num_threads(),
        },
        stores,
        notes: Vec::new(),
        verify_failures,
    };
    let report = DistributedReport {
        report,
        distributed: runs,
    };
    let code = crate::replay_cmd::write_outputs(args, &report.report, &report)?;
    if !args.json_to_stdout() {
        write_workers(&report.distributed, &mut std::io::stdout().lock())?;
    }
    Ok(code)
}

/// The per-worker rows of each store's distributed run.
fn write_workers(runs: &[DistributedRun], out: &mut impl Write) -> Result<()> {
    for run in runs {
        writeln!(out)?;
        writeln!(
            out,
            "{}: {} workers ({} processes x {} threads), {} partitioner, edge imbalance {:.2}",
            run.store,
            run.cluster.workers,
            run.cluster.processes,
            run.cluster.threads,
            run.cluster.partitioner,
            run.imbalance
        )?;
        writeln!(
            out,
            "{:>8} {:>8} {:>12} {:>12} {:>14} {:>12}",
            "worker", "process", "edges owned", "vertices", "replay bytes", "memory B"
        )?;
        for worker in &run.workers {
            writeln!(
                out,
                "{:>8} {:>8} {:>12} {:>12} {:>14} {:>12}",
                worker.worker,
                worker.process,
                worker.edges_owned,
                worker.local_vertices,
                worker.replay_traffic.bytes,
                worker.memory_bytes
            )?;
        }
    }
    Ok(())
}
