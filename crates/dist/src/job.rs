//! The replay job of `dyngraph-replay` ([`ReplaySpec`]) run over a
//! cluster: every store the spec names, through the registry, partitioned
//! over the cluster's workers, into one report.
//!
//! `dyngraph replay --workers W` (or `--hostfile FILE --process I`) parses
//! its arguments into the same spec as a single-machine replay, makes a
//! [`Cluster`], calls [`run_spec`] and prints the [`DistributedReport`]:
//! the single-machine [`Report`] (counts summed over the workers) plus each
//! store's per-worker counters.
//!
//! ```
//! use dyngraph_dist::{Cluster, DistSettings, run_spec};
//! use dyngraph_kernels::KernelName;
//! use dyngraph_replay::ReplaySpec;
//! use dyngraph_stores::StoreKind;
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
//! let mut spec = ReplaySpec::new(path);
//! spec.stores = vec![StoreKind::Vcsr, StoreKind::Csrpp];
//! spec.replay.batch = 20_000;
//! spec.kernels = vec![KernelName::Afforest];
//! spec.verify = true;
//! let report = run_spec(&spec, &Cluster::threads(2), &DistSettings::default())?
//!     .expect("this process hosts worker 0");
//! assert_eq!(report.report.stores.len(), 2);
//! assert_eq!(report.report.stores[1].store, "csrpp");
//! assert_eq!(report.report.stores[0].edges, 59_835);
//! assert!(report.report.verify_failures.is_empty());
//! let owned: u64 = report.distributed[0].workers.iter().map(|w| w.edges_owned).sum();
//! assert_eq!(owned, 59_835); // every edge owned by exactly one worker
//! # Ok::<(), dyngraph_core::Error>(())
//! ```

use crate::cluster::{Cluster, replay_with};
use crate::input::DistInput;
use crate::partition::Partitioner;
use crate::run::{ClusterShape, DistOptions, DistReport, WorkerCounters};
use dyngraph_core::{DynamicStore, Error, Result, Semantics};
use dyngraph_kernels::KernelOutput;
use dyngraph_loader::Order;
use dyngraph_replay::{InputSummary, KernelMode, ReplaySpec, Report, SourceVertex, plan};
use dyngraph_stores::{StoreKind, StoreVisitor};
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Duration;

/// How the cluster runs a spec, beyond what the spec says: what a
/// single-machine replay has no use for.
#[derive(Clone, Debug)]
pub struct DistSettings {
    /// Which worker owns which vertex.
    pub partitioner: Partitioner,
    /// Give up when nothing finished for this long (a dead or hung peer):
    /// [`DistOptions::stall_timeout`].
    pub stall_timeout: Duration,
    /// Sleep this long in every epoch (demonstrations, and the tests that
    /// stop or kill a process mid-run); `None` in real runs.
    pub throttle: Option<Duration>,
    /// Gather the last checkpoint's kernel results at worker 0 into
    /// [`DistributedRun::outputs`] (and the JSON's `values`).
    pub gather: bool,
}

impl Default for DistSettings {
    fn default() -> Self {
        let options = DistOptions::default();
        Self {
            partitioner: options.partitioner,
            stall_timeout: options.stall_timeout,
            throttle: options.throttle,
            gather: options.gather,
        }
    }
}

/// One store's distributed run: the JSON's `distributed` entries.
#[derive(Clone, Debug, Serialize)]
pub struct DistributedRun {
    /// The store's registry name.
    pub store: String,
    /// The cluster that ran it.
    pub cluster: ClusterShape,
    /// Largest worker's edges over the mean (1.0 is perfect balance).
    pub imbalance: f64,
    /// Each worker's counters, by worker index.
    pub workers: Vec<WorkerCounters>,
    /// The last checkpoint's kernel results, by short name, when
    /// [`DistSettings::gather`] asked for them; in JSON as `values`: BFS
    /// `depths`, PageRank `scores` (and their `scores_bits`, since JSON
    /// readers may round the last bit) with `iterations`, component
    /// `labels`, walk `visits` (and `visits_bits`).
    #[serde(
        rename = "values",
        serialize_with = "kernel_values",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub outputs: BTreeMap<String, KernelOutput>,
}

/// The report of a distributed replay: the single-machine report (the
/// JSON's top level) and the per-worker counters of each store's run.
#[derive(Clone, Debug, Serialize)]
pub struct DistributedReport {
    /// As a single-machine replay reports it (see [`DistReport::summary`]
    /// for how the counts and times are taken over the workers).
    #[serde(flatten)]
    pub report: Report,
    /// Each store's run, in the order replayed.
    pub distributed: Vec<DistributedRun>,
}

impl DistributedReport {
    /// The single-machine table ([`Report::write_table`]), then each
    /// store's per-worker rows.
    pub fn write_table(&self, out: &mut impl Write) -> io::Result<()> {
        self.report.write_table(out)?;
        self.write_workers(out)
    }

    /// Each store's per-worker rows alone.
    pub fn write_workers(&self, out: &mut impl Write) -> io::Result<()> {
        for run in &self.distributed {
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
}

/// Runs the replay `spec` describes over `cluster`: each of its stores in
/// turn (every one must be distributable:
/// [`Capabilities::distributable`](dyngraph_core::Capabilities)), each
/// worker reading its byte range of the file. Returns the report on the
/// process hosting worker 0 and `None` on the others.
///
/// The spec's input is streamed as it is: [`Order::File`], not undirected
/// (anything else needs the whole stream in one place, and is refused).
/// Ids are read as they are (no relabelling: each range would number
/// them differently). Kernels run from scratch at every checkpoint; a spec
/// asking for maintained kernels gets a note saying so.
///
/// # Errors
/// As [`replay`](crate::replay): a bad line, a store error, a lost or stalled peer. After
/// the last two, timely's threads may still be blocked on the peer: end
/// the process once the error is reported (the `dyngraph` CLI returns from
/// `main`).
pub fn run_spec(
    spec: &ReplaySpec,
    cluster: &Cluster,
    settings: &DistSettings,
) -> Result<Option<DistributedReport>> {
    check(spec)?;
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
    let options = DistOptions {
        replay: spec.replay.clone(),
        store: plan.options,
        partitioner: settings.partitioner,
        kernels: spec.kernels.clone(),
        every: spec.every,
        source: match &spec.source {
            None => None,
            Some(SourceVertex::Vertex(v)) => Some(*v),
            // A distributed replay reads ids as they are: the name is the id.
            Some(SourceVertex::Named(text)) => Some(text.parse().map_err(|_| {
                Error::InvalidArgument(format!(
                    "--source {text:?} is not a vertex id: a distributed replay reads ids as \
                     they are (no relabelling), so --source is a whole number from 0"
                ))
            })?),
        },
        verify: spec.verify,
        gather: settings.gather,
        stall_timeout: settings.stall_timeout,
        throttle: settings.throttle,
        // How the file is read (`--header`, `--delimiter`, the third
        // column): each worker reads its range with these.
        load: spec.load.clone(),
        ..DistOptions::default()
    };
    let mut stores = Vec::new();
    let mut runs = Vec::new();
    let mut verify_failures = Vec::new();
    for kind in spec.unique_stores() {
        let work = OnCluster {
            cluster,
            spec,
            options: options.clone(),
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
            outputs: if settings.gather {
                report.outputs
            } else {
                BTreeMap::new()
            },
        });
    }
    let Some(first) = stores.first() else {
        return Ok(None);
    };
    let mut notes = Vec::new();
    if spec.mode != KernelMode::Static && !spec.kernels.is_empty() {
        notes.push(
            "a distributed replay runs its kernels from scratch at every checkpoint: maintained kernels are not distributed"
                .to_string(),
        );
    }
    let input = InputSummary {
        path: spec.input.clone(),
        edges: first.edges_inserted,
        vertices: first.vertices,
        order: Order::File,
        seed: spec.seed,
        base_pct: spec.replay.base_percent,
        batch: spec.replay.batch,
        window: spec.replay.window.map(|w| w.to_string()),
        undirected: false,
        simple: spec.replay.semantics == Semantics::Simple,
        in_edges: plan.in_edges_reason,
        weights: plan.weights_reason,
        threads: rayon::current_num_threads(),
    };
    Ok(Some(DistributedReport {
        report: Report {
            input,
            stores,
            notes,
            verify_failures,
        },
        distributed: runs,
    }))
}

/// What a distributed replay refuses before it starts.
fn check(spec: &ReplaySpec) -> Result<()> {
    // Name what was asked, and only that (`--order time` alone was
    // refused as if `--undirected` had been given too).
    let mut whole_stream = Vec::new();
    if spec.order != Order::File {
        whole_stream.push(format!("--order {}", spec.order));
    }
    if spec.undirected {
        whole_stream.push("--undirected".to_string());
    }
    if !whole_stream.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "a distributed replay streams the file as it is, each worker its own part: {} \
             needs the whole stream in one place; leave {} out, or replay on one machine",
            whole_stream.join(" and "),
            if whole_stream.len() == 1 {
                "it"
            } else {
                "them"
            }
        )));
    }
    if spec.stores.is_empty() {
        return Err(Error::InvalidArgument(
            "no store to replay into: name at least one".into(),
        ));
    }
    if let Some(kind) = spec
        .stores
        .iter()
        .find(|kind| !kind.capabilities().distributable)
    {
        let distributable: Vec<&str> = StoreKind::ALL
            .iter()
            .filter(|k| k.capabilities().distributable)
            .map(|k| k.name())
            .collect();
        return Err(Error::InvalidArgument(format!(
            "store {kind} does not run distributed: use one of {}",
            distributable.join(", ")
        )));
    }
    Ok(())
}

/// Runs [`replay`] on the store type a kind names.
struct OnCluster<'a> {
    cluster: &'a Cluster,
    spec: &'a ReplaySpec,
    options: DistOptions,
}

impl StoreVisitor for OnCluster<'_> {
    type Output = Result<Option<DistReport>>;

    /// The store's options as the registry built them (a gap policy
    /// included) go to every worker.
    fn visit<S: DynamicStore + 'static>(self, options: S::Options) -> Result<Option<DistReport>>
    where
        S::Options: Send + Sync,
    {
        let input = DistInput::File(self.spec.input.clone());
        replay_with::<S>(self.cluster, input, self.options, options)
    }
}

/// The kernel results as the JSON's `values`.
fn kernel_values<Ser: Serializer>(
    outputs: &BTreeMap<String, KernelOutput>,
    serializer: Ser,
) -> std::result::Result<Ser::Ok, Ser::Error> {
    let values: BTreeMap<&str, serde_json::Value> = outputs
        .iter()
        .map(|(name, output)| {
            let value = match output {
                KernelOutput::Bfs(r) => serde_json::json!({ "depths": r.depths }),
                KernelOutput::PageRank(r) => serde_json::json!({
                    "scores": r.scores,
                    "scores_bits": r.scores.iter().map(|v| v.to_bits()).collect::<Vec<u32>>(),
                    "iterations": r.iterations,
                }),
                KernelOutput::Components(r) => serde_json::json!({ "labels": r.labels }),
                KernelOutput::ReverseWalks(r) => serde_json::json!({
                    "visits": r.visits,
                    "visits_bits": r.visits.iter().map(|v| v.to_bits()).collect::<Vec<u64>>(),
                }),
                _ => serde_json::Value::Null,
            };
            (name.as_str(), value)
        })
        .collect();
    values.serialize(serializer)
}
