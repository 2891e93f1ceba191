//! `dyngraph replay`: the command line of the library's replay job
//! (`dyngraph::replay::ReplaySpec`), parsed into a spec, handed to the
//! library in one call, and the report printed.

use crate::dist_cmd::ClusterArgs;
use crate::flags;
use crate::replay_output::ResultsDir;
use crate::{BUNDLED_SAMPLE, STOP, install_threads};
use anyhow::{Result, bail};
use clap::Args;
use dyngraph::core::Semantics;
use dyngraph::durable::{DurableVcsr, GroupCommit, SyncPolicy};
use dyngraph::kernels::KernelName;
use dyngraph::loader::Order;
use dyngraph::replay::{
    BoundMethod, CheckpointResult, Choice, KernelMode, ReplayOptions, ReplayProgress, ReplaySpec,
    Report, SourceVertex, Window,
};
use dyngraph::stores::{GapPolicyKind, StoreKind, StoreSettings};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

#[derive(Args, Debug)]
pub(crate) struct ReplayArgs {
    /// Input: SNAP temporal `.txt`, `.el`, `.wel`, Matrix Market `.mtx`, or
    /// `.gz` of these, a binary edge stream (.dges, from `gen` or
    /// `convert`), or a binary Csr file (.dgcsr: edges by source, no
    /// arrival order). Default: the bundled CollegeMsg sample.
    file: Option<PathBuf>,

    #[command(flatten)]
    input: crate::input::InputArgs,

    /// Stores to replay into, one after another over the same stream.
    #[arg(
        long = "store",
        value_enum,
        value_delimiter = ',',
        default_value = "vcsr,csrpp"
    )]
    stores: Vec<StoreKind>,

    /// Percentage of the stream bulk-built as the base graph before timing.
    #[arg(long, default_value = "10", allow_hyphen_values = true, value_parser = flags::percent)]
    base: f64,

    /// Edges per update batch (1 = edge at a time).
    #[arg(long, default_value = "1", allow_hyphen_values = true, value_parser = flags::positive)]
    batch: usize,

    /// Arrival order: as in the file, by timestamp, shuffled with `--seed`
    /// (the papers' Random workload) or grouped by source (Hammer).
    #[arg(long, value_enum, default_value = "file")]
    order: Order,

    /// Seed for `--order shuffle`.
    #[arg(long, default_value = "1", allow_hyphen_values = true, value_parser = flags::seed)]
    seed: u64,

    /// Sliding window: delete edges older than this many timestamp units
    /// (`86400`) or beyond this many newest arrivals (`5000edges`).
    #[arg(long, allow_hyphen_values = true, value_parser = flags::window)]
    window: Option<Window>,

    /// Gap policy of the VCSR edge arrays: even, degree-proportional (the
    /// VCSR default) or history-adaptive. PCSR always spreads gaps evenly.
    #[arg(long, value_enum, default_value = "degree")]
    gap_policy: GapPolicyKind,

    /// Directory of the durable store (`--store durable`), created when it
    /// holds none; default: a temporary directory removed after the
    /// replay. A directory that holds a store is refused unless --append.
    #[arg(long)]
    dir: Option<PathBuf>,

    /// Append to the durable store already in --dir (recovering it first
    /// if its last run crashed): the stream's edges go on top of the kept
    /// graph. Its layout (--simple, weights, in-edges) must match.
    #[arg(long, requires = "dir")]
    append: bool,

    /// MiB of changed pages the durable store holds in memory before a
    /// checkpoint writes them to its files and lets them go; default: half
    /// the machine's physical memory. Below the memory the process may use
    /// (a container's limit), the store's files can grow past it.
    #[arg(long, value_name = "MIB", allow_hyphen_values = true, value_parser = flags::positive)]
    durable_memory: Option<usize>,

    /// When the durable store makes updates durable: `batch` (each
    /// batch), `edge`, a number N of updates, `group` (group commit: an
    /// update is acknowledged once the log group holding it is synced, at
    /// most 4,096 updates or 1 ms later; `group:N:T` to choose), or `none`
    /// (only at close). Default: `group` with `--batch 1`, else `batch`.
    #[arg(long)]
    sync: Option<SyncPolicy>,

    /// Insert every edge in both directions.
    #[arg(long)]
    undirected: bool,

    /// Set semantics: repeated edges are ignored (default: multigraph).
    #[arg(long)]
    simple: bool,

    /// Keep in-edges: `auto` when a requested kernel uses them (pr, bfs,
    /// cc) and always for a new kept durable store (`--dir`: its layout
    /// is fixed at creation, and a later day's kernel may pull), following
    /// the kept store on `--append`; or always `on` / never `off`.
    #[arg(long, value_enum, default_value = "auto")]
    in_edges: Choice,

    /// Keep weights: `auto` when the input has them, or `on` / `off`.
    #[arg(long, value_enum, default_value = "auto")]
    weights: Choice,

    /// Kernels to run on a snapshot every `--every` batches and at the end,
    /// each also timed on a `Csr` of the same edges.
    #[arg(long = "kernel", value_enum, value_delimiter = ',')]
    kernels: Vec<KernelName>,

    /// How the kernels run at each checkpoint: `static` from scratch,
    /// `incremental` maintained across batches (pr, cc, bfs, sssp; the
    /// others from scratch), or `both` side by side with the difference.
    #[arg(long, value_enum, default_value = "static")]
    mode: KernelMode,

    /// Shorthand for `--mode incremental`.
    #[arg(long, conflicts_with = "mode")]
    incremental: bool,

    /// Run the kernels every this many batches (default: only at the end).
    #[arg(long, allow_hyphen_values = true, value_parser = flags::positive)]
    every: Option<usize>,

    /// Check every kernel result with its verifier; exit 1 if one is wrong.
    #[arg(long)]
    verify: bool,

    /// Maintained PageRank to this L1 bound on the normalised ranks
    /// against the fixed point (e.g. 1e-6); `--mode both` runs from
    /// scratch to the same bound and `--verify` checks it against a
    /// converged run. Default: DF-P with its tolerances.
    #[arg(long, value_name = "EPS", allow_hyphen_values = true, value_parser = flags::bound)]
    pagerank_bound: Option<f64>,

    /// How maintained PageRank keeps `--pagerank-bound`: warm-started
    /// sweeps (the faster where one edge moves most ranks, as on social
    /// and Kronecker graphs) or residual push (work that follows the
    /// batch, for graphs whose changes stay local).
    #[arg(long, value_enum, default_value_t = BoundMethod::Sweeps, requires = "pagerank_bound")]
    pagerank_method: BoundMethod,

    /// Tests of `--verify` only: the maintained PageRank stops at this bound while
    /// the report and `--verify` hold it to `--pagerank-bound`.
    #[arg(long, hide = true, value_name = "EPS", value_parser = flags::bound)]
    pagerank_stop_bound_for_tests: Option<f64>,

    /// The source vertex of BFS and SSSP (default: the first arrival's
    /// source): its original id or key when the input's ids were
    /// relabelled, else its vertex id.
    #[arg(long, allow_hyphen_values = true)]
    source: Option<String>,

    /// Worker threads (rayon pool).
    #[arg(long, allow_hyphen_values = true, value_parser = flags::threads)]
    threads: Option<usize>,

    #[command(flatten)]
    pub(crate) cluster: ClusterArgs,

    /// Write the summary and per-group records as JSON (`-` for stdout).
    #[arg(long)]
    json: Option<PathBuf>,

    /// Write per-group records and the summary as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,

    /// Draw throughput over the replay, per store, as SVG.
    #[arg(long)]
    plot: Option<PathBuf>,

    /// Write every checkpoint's kernel results, static or maintained, to
    /// this new or empty directory: a file per store, kernel and
    /// checkpoint (`vcsr-pr-batch000010.csv`) with a row per vertex
    /// (`vertex`, then the kernel's columns as in `run --output`), named by
    /// original ids or keys, and `checkpoints.csv` indexing them. With
    /// `--every N`, checkpoints along the replay; else the end only.
    #[arg(long, short = 'o', value_name = "DIR")]
    output: Option<PathBuf>,

    /// The format of --output's files: csv or jsonl (one JSON object per
    /// vertex and line).
    #[arg(long, value_enum, default_value = "csv")]
    output_format: crate::per_vertex::Format,
}

impl ReplayArgs {
    /// Whether the JSON goes to stdout (then nothing else does).
    fn json_to_stdout(&self) -> bool {
        self.json.as_deref() == Some(std::path::Path::new("-"))
    }

    /// The library's job for these arguments.
    fn spec(&self, input: PathBuf) -> ReplaySpec {
        ReplaySpec {
            stores: self.stores.clone(),
            settings: StoreSettings {
                gap_policy: self.gap_policy,
                durable_dir: self.dir.clone(),
                sync: self.sync.unwrap_or(if self.batch == 1 {
                    SyncPolicy::Group(GroupCommit::default())
                } else {
                    SyncPolicy::EveryBatch
                }),
                append: self.append,
                durable_memory: self
                    .durable_memory
                    .map(|mib| (mib as u64).saturating_mul(1 << 20)),
                ..StoreSettings::default()
            },
            replay: ReplayOptions {
                base_percent: self.base,
                batch: self.batch,
                window: self.window,
                semantics: if self.simple {
                    Semantics::Simple
                } else {
                    Semantics::Multigraph
                },
                ..ReplayOptions::default()
            },
            order: self.order,
            seed: self.seed,
            undirected: self.undirected,
            in_edges: self.in_edges,
            weights: self.weights,
            kernels: self.kernels.clone(),
            mode: if self.incremental {
                KernelMode::Incremental
            } else {
                self.mode
            },
            every: self.every,
            verify: self.verify,
            pagerank_bound: self.pagerank_bound,
            pagerank_method: self.pagerank_method,
            pagerank_stop_bound_for_tests: self.pagerank_stop_bound_for_tests,
            source: self.source.clone().map(SourceVertex::Named),
            load: self.input.load_options(),
            ..ReplaySpec::new(crate::input::input_path(&input))
        }
    }
}

/// The replay's hooks on the command line: a progress bar per store on a
/// terminal (indicatif hides itself when stderr is not one), over the
/// timed arrivals only, and `--output`'s files.
#[derive(Default)]
struct Hooks {
    bar: Option<crate::progress::Progress>,
    results: Option<ResultsDir>,
}

impl ReplayProgress for Hooks {
    fn start(&mut self, store: StoreKind, timed: u64) {
        self.bar = Some(crate::progress::edge_bar(store.name(), timed));
    }

    fn advance(&mut self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    fn wants_results(&self) -> bool {
        self.results.is_some()
    }

    fn checkpoint(&mut self, result: CheckpointResult<'_>) -> dyngraph::core::Result<()> {
        let Some(results) = &mut self.results else {
            return Ok(());
        };
        // The writers' errors are the library's (a file that cannot be
        // written, with its path); anything else keeps its message.
        results.write(&result).map_err(|error| {
            error
                .downcast::<dyngraph::core::Error>()
                .unwrap_or_else(|error| {
                    dyngraph::core::Error::InvalidArgument(format!("{error:#}"))
                })
        })
    }
}

pub(crate) fn replay_command(args: ReplayArgs) -> Result<ExitCode> {
    // A directory only the durable store would use, given to stores that
    // keep nothing, would be silently ignored: the user meant to keep the
    // graph.
    if let Some(dir) = &args.dir
        && !args.stores.contains(&StoreKind::Durable)
    {
        let names: Vec<&str> = args.stores.iter().map(|kind| kind.name()).collect();
        bail!(
            "--dir {} keeps a durable store, but --store {} keeps no files: add `--store durable` \
             (e.g. `--store durable` or `--store vcsr,durable`) or leave out --dir",
            dir.display(),
            names.join(",")
        );
    }
    install_threads(args.threads)?;
    crate::output::check_all([
        ("--json", args.json.as_deref()),
        ("--csv", args.csv.as_deref()),
        ("--plot", args.plot.as_deref()),
    ])?;
    let input = match &args.file {
        Some(file) => file.clone(),
        None => {
            let path = PathBuf::from(BUNDLED_SAMPLE);
            if !path.exists() {
                bail!(
                    "no FILE given and the bundled sample is not at {}: pass a file, e.g. `dyngraph replay CollegeMsg.txt`",
                    path.display()
                );
            }
            // A clean absolute path, not `crates/cli/../..`.
            std::fs::canonicalize(&path).unwrap_or(path)
        }
    };
    let spec = args.spec(input);
    if args.cluster.requested() {
        if let Some(dir) = &args.output {
            bail!(
                "--output {}: a cluster's results are gathered with --gather (the last \
                 checkpoint's values in the JSON); --output writes a replay on one machine",
                dir.display()
            );
        }
        return crate::dist_cmd::replay(&args, &spec);
    }
    args.cluster.check_unused()?;
    if let Err(error) = ctrlc::set_handler(|| STOP.store(true, Ordering::Relaxed)) {
        eprintln!("warning: Ctrl-C will not stop the replay cleanly: {error}");
    }
    // A binary edge stream is mapped: a replay in file order reads its
    // columns in place (at a billion edges, 8 GiB not copied).
    let read = |spec: &ReplaySpec| {
        let spinner = crate::progress::phase_spinner(&format!("reading {}", spec.input.display()));
        let (load, _parse) = crate::progress::watch_parse(&spinner, spec.load.clone());
        crate::graph_input::read_edges(&spec.input, &load)
    };
    let mut hooks = Hooks::default();
    if let Some(dir) = &args.output {
        hooks.results = Some(ResultsDir::create(dir, args.output_format, &args.kernels)?);
    }
    let report = dyngraph::replay::run_reading(&spec, read, &mut hooks, &STOP)
        .map_err(|error| with_kept_edges(error, &spec))?;
    if let Some(results) = hooks.results {
        let index = results.finish()?;
        eprintln!(
            "note: every checkpoint's results are indexed in {}",
            index.display()
        );
    }
    write_outputs(&args, &report, &report, |out| report.write_table(out))
}

/// A replay into a kept durable store failed (a full disk, a file-size
/// limit, a bad line part-way): the error, and what the store keeps now,
/// read back from its files, so the user knows what was acknowledged.
fn with_kept_edges(error: dyngraph::core::Error, spec: &ReplaySpec) -> anyhow::Error {
    let kept = spec
        .stores
        .contains(&StoreKind::Durable)
        .then_some(spec.settings.durable_dir.as_ref())
        .flatten()
        .filter(|dir| DurableVcsr::is_store_dir(dir))
        .and_then(|dir| {
            let store = DurableVcsr::open_read_only(dir).ok()?;
            Some((dir.clone(), store.acknowledged().edges))
        });
    match kept {
        Some((dir, edges)) => anyhow::anyhow!(
            "{error}; the durable store in {} keeps {edges} acknowledged edges (everything \
             acknowledged before the error; `dyngraph recover {}` repairs what a crash left)",
            dir.display(),
            dir.display()
        ),
        None => error.into(),
    }
}

/// Prints the notes, the table (`table`, unless JSON goes to stdout),
/// writes the files asked for (`json` as the JSON, `report` as CSV and
/// plot), and says which verifications failed: exit 1 if any did.
pub(crate) fn write_outputs(
    args: &ReplayArgs,
    report: &Report,
    json: &impl serde::Serialize,
    table: impl FnOnce(&mut std::io::StdoutLock<'static>) -> std::io::Result<()>,
) -> Result<ExitCode> {
    for note in &report.notes {
        eprintln!("note: {note}");
    }
    if !args.json_to_stdout() {
        table(&mut std::io::stdout().lock())?;
    }
    if let Some(path) = &args.json {
        crate::report::write_json(json, path)?;
    }
    if let Some(path) = &args.csv {
        crate::report::write_csv(report, path)?;
    }
    if let Some(path) = &args.plot {
        crate::report::write_plot(report, path)?;
    }
    for failure in &report.verify_failures {
        eprintln!("verification failed on {failure}");
    }
    Ok(if report.verify_failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
