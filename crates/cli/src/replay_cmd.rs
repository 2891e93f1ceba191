//! `dyngraph replay`: argument parsing and output around the library's
//! replay engine (`dyngraph-replay`).

use crate::dist_cmd::ClusterArgs;
use crate::kernels::KernelArg;
use crate::report::{self, InputSummary, Report};
use crate::stores::{GapPolicyArg, StoreKind, StoreSettings, StoreWork, with_store};
use crate::{BUNDLED_SAMPLE, STOP, install_threads, parse_percent, parse_positive};
use anyhow::{Result, bail};
use clap::Args;
use dyngraph_core::{DynamicStore, Semantics, StoreOptions};
use dyngraph_replay::{
    Choice, KernelCheckpoints, Observer, Order, Position, ReplayOptions, StoreSummary, Stream,
    Window, plan, replay,
};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

#[derive(Args, Debug)]
pub(crate) struct ReplayArgs {
    /// Input: SNAP temporal `.txt`, `.el`, `.wel`, Matrix Market `.mtx`, or
    /// `.gz` of these, or a binary Csr file (.dgcsr: edges by source, no
    /// arrival order). Default: the bundled CollegeMsg sample.
    file: Option<PathBuf>,

    /// Stores to replay into, one after another over the same stream.
    #[arg(long = "store", value_delimiter = ',', default_value = "vcsr,csrpp")]
    stores: Vec<StoreKind>,

    /// Percentage of the stream bulk-built as the base graph before timing.
    #[arg(long, default_value = "10", value_parser = parse_percent)]
    base: f64,

    /// Edges per update batch (1 = edge at a time).
    #[arg(long, default_value = "1", value_parser = parse_positive)]
    batch: usize,

    /// Arrival order.
    #[arg(long, value_enum, default_value = "file")]
    order: OrderArg,

    /// Seed for `--order shuffle`.
    #[arg(long, default_value = "1")]
    seed: u64,

    /// Sliding window: delete edges older than this many timestamp units
    /// (`86400`) or beyond this many newest arrivals (`5000edges`).
    #[arg(long)]
    window: Option<Window>,

    /// Gap policy of the VCSR edge arrays: even, degree-proportional (the
    /// VCSR default) or history-adaptive. PCSR always spreads gaps evenly.
    #[arg(long, value_enum, default_value = "degree")]
    gap_policy: GapPolicyArg,

    /// Directory of the durable store (`--store durable`), created fresh;
    /// default: a temporary directory removed after the replay.
    #[arg(long)]
    dir: Option<PathBuf>,

    /// When the durable store makes updates durable: `batch` (each batch,
    /// default), `edge`, a number N of updates, or `none` (only at close).
    #[arg(long, default_value = "batch")]
    sync: dyngraph_durable::SyncPolicy,

    /// Insert every edge in both directions.
    #[arg(long)]
    undirected: bool,

    /// Set semantics: repeated edges are ignored (default: multigraph).
    #[arg(long)]
    simple: bool,

    /// Keep in-edges: `auto` when a requested kernel uses them (pr, bfs,
    /// cc), or always `on` / never `off`.
    #[arg(long, value_enum, default_value = "auto")]
    in_edges: ChoiceArg,

    /// Keep weights: `auto` when the input has them, or `on` / `off`.
    #[arg(long, value_enum, default_value = "auto")]
    weights: ChoiceArg,

    /// Kernels to run on a snapshot every `--every` batches and at the end,
    /// each also timed on a `Csr` of the same edges.
    #[arg(long = "kernel", value_enum, value_delimiter = ',')]
    kernels: Vec<KernelArg>,

    /// Run the kernels every this many batches (default: only at the end).
    #[arg(long, value_parser = parse_positive)]
    every: Option<usize>,

    /// Check every kernel result with its verifier; exit 1 if one is wrong.
    #[arg(long)]
    verify: bool,

    /// Worker threads (rayon pool).
    #[arg(long, value_parser = parse_positive)]
    threads: Option<usize>,

    /// Replay partitioned over this many timely workers (threads in this
    /// process, or per process with `--hostfile`).
    #[arg(long, value_parser = parse_positive)]
    workers: Option<usize>,

    /// A timely host file (one `host:port` per line, one line per process)
    /// for a replay over several processes; with `--process`.
    #[arg(long)]
    hostfile: Option<PathBuf>,

    /// This process's line in `--hostfile` (0-based); process 0 reports.
    #[arg(long)]
    process: Option<usize>,

    /// Write the summary and per-group records as JSON (`-` for stdout).
    #[arg(long)]
    json: Option<PathBuf>,

    /// Write per-group records and the summary as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,

    /// Draw throughput over the replay, per store, as SVG.
    #[arg(long)]
    plot: Option<PathBuf>,
}

/// `--order` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OrderArg {
    /// As in the file.
    File,
    /// Sorted by the timestamp column (stable).
    Time,
    /// Shuffled with `--seed` (the papers' Random workload).
    Shuffle,
    /// Grouped by source vertex (the papers' Hammer workload).
    Source,
}

impl From<OrderArg> for Order {
    fn from(order: OrderArg) -> Order {
        match order {
            OrderArg::File => Order::File,
            OrderArg::Time => Order::Time,
            OrderArg::Shuffle => Order::Shuffle,
            OrderArg::Source => Order::Source,
        }
    }
}

/// `--in-edges` and `--weights` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ChoiceArg {
    /// Decide from the kernels and the input.
    Auto,
    /// Always.
    On,
    /// Never.
    Off,
}

impl From<ChoiceArg> for Choice {
    fn from(choice: ChoiceArg) -> Choice {
        match choice {
            ChoiceArg::Auto => Choice::Auto,
            ChoiceArg::On => Choice::On,
            ChoiceArg::Off => Choice::Off,
        }
    }
}

/// Moves the progress bar between timed groups (never inside one).
struct Progress<'a>(&'a ProgressBar);

impl<S> Observer<S> for Progress<'_> {
    fn after_group(&mut self, _: &S, position: Position) -> dyngraph_core::Result<()> {
        self.0.set_position(position.arrivals as u64);
        Ok(())
    }
}

/// One store's replay, generic over the store type.
struct ReplayOne<'a> {
    stream: &'a Stream,
    options: &'a ReplayOptions,
    checkpoints: &'a mut KernelCheckpoints,
    progress: &'a ProgressBar,
}

impl StoreWork for ReplayOne<'_> {
    type Output = dyngraph_core::Result<StoreSummary>;

    fn run<S: DynamicStore>(
        self,
        options: S::Options,
        store: StoreOptions,
    ) -> dyngraph_core::Result<StoreSummary> {
        let mut observers = (Progress(self.progress), &mut *self.checkpoints);
        let (summary, _store): (StoreSummary, S) = replay(
            options,
            store,
            self.stream,
            self.options,
            &STOP,
            &mut observers,
        )?;
        Ok(summary)
    }
}

pub(crate) fn replay_command(args: ReplayArgs) -> Result<ExitCode> {
    let threads = install_threads(args.threads)?;
    crate::output::check_all([
        args.json.as_deref(),
        args.csv.as_deref(),
        args.plot.as_deref(),
    ])?;
    if let Err(error) = ctrlc::set_handler(|| STOP.store(true, Ordering::Relaxed)) {
        eprintln!("warning: Ctrl-C will not stop the replay cleanly: {error}");
    }
    let path = args
        .file
        .clone()
        .unwrap_or_else(|| PathBuf::from(BUNDLED_SAMPLE));
    if args.file.is_none() && !path.exists() {
        bail!(
            "no FILE given and the bundled sample is not at {}: pass a file, e.g. `dyngraph replay CollegeMsg.txt`",
            path.display()
        );
    }
    // Show the bundled sample as a clean absolute path, not `crates/cli/../..`.
    let path = if args.file.is_none() {
        std::fs::canonicalize(&path).unwrap_or(path)
    } else {
        path
    };
    let cluster = ClusterArgs {
        workers: args.workers,
        hostfile: args.hostfile.clone(),
        process: args.process,
    };
    if cluster.requested() {
        return distributed(&args, &path, &cluster, threads);
    }
    let mut stream = crate::input::read_stream(&path, &dyngraph_loader::LoadOptions::default())?;
    if stream.is_empty() {
        bail!(
            "nothing to replay: {} has no edges (only comments, blank lines or a header); give a file with at least one edge",
            path.display()
        );
    }
    stream.reorder(args.order.into(), args.seed)?;
    if args.undirected {
        stream = stream.symmetrized();
    }
    if let Some(Window::Time(_)) = args.window
        && stream.timestamps.is_none()
    {
        bail!(
            "--window {} is in timestamp units but {} has no timestamp column: use an edge count such as --window 5000edges",
            args.window.map(|w| w.to_string()).unwrap_or_default(),
            path.display()
        );
    }
    let semantics = if args.simple {
        Semantics::Simple
    } else {
        Semantics::Multigraph
    };
    let kernels: Vec<_> = args.kernels.iter().map(|k| k.kernel()).collect();
    let plan = plan(
        semantics,
        args.in_edges.into(),
        args.weights.into(),
        &kernels,
        stream.weights.is_some(),
    );
    let options = ReplayOptions {
        base_percent: args.base,
        batch: args.batch,
        window: args.window,
        semantics,
        ..ReplayOptions::default()
    };

    if args.stores.contains(&StoreKind::Durable) {
        if let Some(dir) = &args.dir
            && dir.join("superblock").exists()
        {
            bail!(
                "{} already holds a durable store: replay creates a fresh one, so remove it or pick another --dir",
                dir.display()
            );
        }
        if plan.options.in_edges {
            eprintln!(
                "note: the durable store keeps no in-edges; its kernels run without them (PageRank pushes, BFS is top-down)"
            );
        }
    }
    let settings = StoreSettings {
        gap_policy: args.gap_policy,
        durable_dir: args.dir.clone(),
        sync: args.sync,
    };

    let mut summaries = Vec::new();
    let mut verification_failed = false;
    let mut unique = Vec::new();
    for kind in &args.stores {
        if !unique.contains(kind) {
            unique.push(*kind);
        }
    }
    for kind in unique {
        if STOP.load(Ordering::Relaxed) {
            break;
        }
        let progress = ProgressBar::new(stream.len() as u64);
        progress.set_style(
            ProgressStyle::with_template(
                "{prefix:>12} [{bar:40}] {pos}/{len} edges {per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        progress.set_prefix(kind.name());
        let source = stream.src.first().copied().unwrap_or(0);
        let mut checkpoints =
            KernelCheckpoints::new(kernels.clone(), args.every, args.verify, source)
                .with_ids(stream.ids.clone());
        let work = ReplayOne {
            stream: &stream,
            options: &options,
            checkpoints: &mut checkpoints,
            progress: &progress,
        };
        // The durable store refuses in-edges: it runs without, visibly.
        let mut options = plan.options;
        if kind == StoreKind::Durable {
            options.in_edges = false;
        }
        let mut summary = with_store(kind, &settings, options, work)?;
        progress.finish_and_clear();
        summary.store = kind.name().to_string();
        summary.kernels = std::mem::take(&mut checkpoints.latest);
        summary.kernel_timeline = std::mem::take(&mut checkpoints.timeline);
        for failure in &checkpoints.failures {
            eprintln!("verification failed on {}: {failure}", kind.name());
        }
        verification_failed |= !checkpoints.failures.is_empty();
        summaries.push(summary);
    }

    let report = Report {
        distributed: Vec::new(),
        input: InputSummary {
            path: path.clone(),
            edges: stream.len() as u64,
            vertices: stream.vertex_count() as u64,
            order: args.order.into(),
            seed: args.seed,
            base_pct: args.base,
            batch: args.batch,
            window: args.window.map(|w| w.to_string()),
            undirected: args.undirected,
            simple: args.simple,
            in_edges: plan.in_edges_reason.clone(),
            weights: plan.weights_reason.clone(),
            threads,
        },
        stores: summaries,
    };
    write_outputs(&args, &report, verification_failed)
}

fn write_outputs(
    args: &ReplayArgs,
    report: &Report,
    verification_failed: bool,
) -> Result<ExitCode> {
    let json_to_stdout = args.json.as_deref() == Some(std::path::Path::new("-"));
    if !json_to_stdout {
        report::write_table(report, &mut std::io::stdout().lock())?;
    }
    if let Some(path) = &args.json {
        report::write_json(report, path)?;
    }
    if let Some(path) = &args.csv {
        report::write_csv(report, path)?;
    }
    if let Some(path) = &args.plot {
        report::write_plot(report, path)?;
    }
    Ok(if verification_failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The replay over timely workers: each reads its byte range of the file;
/// process 0 reports like a single-machine replay, plus per-worker
/// counters.
fn distributed(
    args: &ReplayArgs,
    path: &std::path::Path,
    cluster: &ClusterArgs,
    threads: usize,
) -> Result<ExitCode> {
    if args.order != OrderArg::File || args.undirected {
        bail!(
            "a distributed replay streams the file as it is: --order {:?} and --undirected need the whole stream in one place",
            args.order
        );
    }
    let cluster = cluster.cluster()?;
    let semantics = if args.simple {
        Semantics::Simple
    } else {
        Semantics::Multigraph
    };
    let kernels: Vec<_> = args.kernels.iter().map(|k| k.kernel()).collect();
    // Whether the input has weights is the file's business; `auto` keeps
    // them when it does (the workers read them).
    let weighted = path.extension().is_some_and(|e| e == "wel") || args.weights == ChoiceArg::On;
    let plan = plan(
        semantics,
        args.in_edges.into(),
        args.weights.into(),
        &kernels,
        weighted,
    );
    let options = ReplayOptions {
        base_percent: args.base,
        batch: args.batch,
        window: args.window,
        semantics,
        ..ReplayOptions::default()
    };
    let mut summaries = Vec::new();
    let mut runs = Vec::new();
    let mut verification_failed = false;
    let mut unique = Vec::new();
    for kind in &args.stores {
        if !unique.contains(kind) {
            unique.push(*kind);
        }
    }
    for kind in unique {
        // The first arrival's source, as the single-machine replay picks it.
        let source = None;
        let Some(report) = crate::dist_cmd::run(
            kind,
            &cluster,
            path,
            &options,
            plan.options,
            &kernels,
            args.every,
            args.verify,
            source,
        )?
        else {
            continue;
        };
        for failure in &report.verify_failures {
            eprintln!("verification failed on {}: {failure}", kind.name());
        }
        verification_failed |= !report.verify_failures.is_empty();
        let mut summary = report.summary;
        summary.store = kind.name().to_string();
        summaries.push(summary);
        runs.push(crate::dist_cmd::DistributedRun {
            store: kind.name().to_string(),
            cluster: report.cluster,
            imbalance: report.imbalance,
            workers: report.workers,
        });
    }
    if summaries.is_empty() {
        println!(
            "process {} of {}: done (the process hosting worker 0 reports)",
            cluster.process(),
            cluster.processes()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let edges = summaries.first().map_or(0, |s| s.edges_inserted);
    let vertices = summaries.first().map_or(0, |s| s.vertices);
    let report = Report {
        input: InputSummary {
            path: path.to_path_buf(),
            edges,
            vertices,
            order: Order::File,
            seed: args.seed,
            base_pct: args.base,
            batch: args.batch,
            window: args.window.map(|w| w.to_string()),
            undirected: false,
            simple: args.simple,
            in_edges: plan.in_edges_reason.clone(),
            weights: plan.weights_reason.clone(),
            threads,
        },
        stores: summaries,
        distributed: runs,
    };
    write_outputs(args, &report, verification_failed)
}
