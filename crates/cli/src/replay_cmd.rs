//! `dyngraph replay`.

use crate::kernels::{KernelArg, KernelCheckpoints};
use crate::replay::StoreSummary;
use crate::replay::{self, ReplayConfig, Window};
use crate::report::{self, InputSummary, Report};
use crate::stores::{CsrRebuild, ReplayStore, StoreKind};
use crate::stream::{Order, Stream};
use crate::{BUNDLED_SAMPLE, STOP, install_threads, parse_percent, parse_positive};
use anyhow::{Result, bail};
use clap::Args;
use dyngraph_core::Semantics;
use dyngraph_csrpp::{CsrPP, CsrPPConfig};
use dyngraph_vcsr::{Bal, Even, HistoryAdaptive, Pcsr, StoreOptions, Vcsr};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

#[derive(Args, Debug)]
pub(crate) struct ReplayArgs {
    /// Input: SNAP temporal `.txt`, `.el`, `.wel`, Matrix Market `.mtx`, or
    /// `.gz` of these. Default: the bundled CollegeMsg sample.
    file: Option<PathBuf>,

    /// Stores to replay into, one after another over the same stream.
    #[arg(long = "store", value_delimiter = ',', default_value = "vcsr,csrpp")]
    stores: Vec<StoreKind>,

    /// Percentage of the stream loaded as the base graph before timing.
    #[arg(long, default_value = "10", value_parser = parse_percent)]
    base: f64,

    /// Edges per update batch (1 = edge at a time).
    #[arg(long, default_value = "1", value_parser = parse_positive)]
    batch: usize,

    /// Arrival order.
    #[arg(long, value_enum, default_value = "file")]
    order: Order,

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

    /// Insert every edge in both directions.
    #[arg(long)]
    undirected: bool,

    /// Set semantics: repeated edges are ignored (default: multigraph).
    #[arg(long)]
    simple: bool,

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

    /// Write the summary and per-batch records as JSON (`-` for stdout).
    #[arg(long)]
    json: Option<PathBuf>,

    /// Write per-batch records and the summary as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,

    /// Draw throughput over the replay, per store, as SVG.
    #[arg(long)]
    plot: Option<PathBuf>,
}

/// `--gap-policy` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GapPolicyArg {
    /// Gaps spread evenly.
    Even,
    /// Gaps proportional to vertex degree (VCSR).
    Degree,
    /// Gaps skewed toward recently hot vertices.
    Adaptive,
}

/// What every store's replay shares.
struct Context<'a> {
    name: &'static str,
    stream: &'a Stream,
    config: &'a ReplayConfig,
    progress: &'a ProgressBar,
}

impl Context<'_> {
    fn replay<S: ReplayStore>(
        &self,
        store: S,
        checkpoints: &mut KernelCheckpoints,
    ) -> Result<StoreSummary> {
        let (summary, _store) = replay::replay(
            store,
            self.name,
            self.stream,
            self.config,
            &STOP,
            self.progress,
            checkpoints,
        )?;
        Ok(summary)
    }
}

pub(crate) fn replay_command(args: ReplayArgs) -> Result<ExitCode> {
    let threads = install_threads(args.threads)?;
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
    let mut stream = crate::input::read_stream(&path, &dyngraph_loader::LoadOptions::default())?;
    stream.reorder(args.order, args.seed)?;
    if args.undirected {
        stream = stream.symmetrized();
    }
    if let Some(Window::Time(_)) = args.window
        && stream.timestamps.is_none()
    {
        bail!(
            "--window {} is in timestamp units but {} has no timestamp column: use an edge count such as --window 5000edges",
            args.window.map(|w| format!("{w:?}")).unwrap_or_default(),
            path.display()
        );
    }
    let semantics = if args.simple {
        Semantics::Simple
    } else {
        Semantics::Multigraph
    };
    let config = ReplayConfig {
        base_pct: args.base,
        batch: args.batch,
        window: args.window,
        semantics,
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
        let weighted = stream.weights.is_some();
        let source = stream.src.first().copied().unwrap_or(0);
        let mut checkpoints =
            KernelCheckpoints::new(args.kernels.clone(), args.every, args.verify, source);
        let context = Context {
            name: kind.name(),
            stream: &stream,
            config: &config,
            progress: &progress,
        };
        let mut summary = match kind {
            StoreKind::CsrRebuild => {
                context.replay(CsrRebuild::new(semantics, weighted), &mut checkpoints)?
            }
            StoreKind::Vcsr => {
                let options = StoreOptions::new(semantics)
                    .weighted(weighted)
                    .in_edges(true);
                match args.gap_policy {
                    GapPolicyArg::Even => {
                        context.replay(Vcsr::with_policy(options, Even)?, &mut checkpoints)?
                    }
                    GapPolicyArg::Degree => {
                        context.replay(Vcsr::new(options)?, &mut checkpoints)?
                    }
                    GapPolicyArg::Adaptive => context.replay(
                        Vcsr::with_policy(options, HistoryAdaptive::default())?,
                        &mut checkpoints,
                    )?,
                }
            }
            StoreKind::Pcsr => {
                let options = StoreOptions::new(semantics)
                    .weighted(weighted)
                    .in_edges(true);
                context.replay(Pcsr::new(options)?, &mut checkpoints)?
            }
            StoreKind::Bal => {
                let options = StoreOptions::new(semantics)
                    .weighted(weighted)
                    .in_edges(true);
                context.replay(Bal::new(options)?, &mut checkpoints)?
            }
            StoreKind::Csrpp => {
                let store_config = CsrPPConfig::default()
                    .semantics(semantics)
                    .weighted(weighted)
                    .reverse_edges(true);
                context.replay(CsrPP::new(store_config)?, &mut checkpoints)?
            }
        };
        progress.finish_and_clear();
        summary.kernels = std::mem::take(&mut checkpoints.latest);
        summary.kernel_timeline = std::mem::take(&mut checkpoints.timeline);
        for failure in &checkpoints.failures {
            eprintln!("verification failed on {}: {failure}", kind.name());
        }
        verification_failed |= !checkpoints.failures.is_empty();
        summaries.push(summary);
    }

    let report = Report {
        input: InputSummary {
            path: path.clone(),
            edges: stream.len() as u64,
            vertices: stream.vertex_count() as u64,
            order: args.order,
            seed: args.seed,
            base_pct: args.base,
            batch: args.batch,
            window: args.window.map(|w| match w {
                Window::Time(units) => format!("{units}"),
                Window::Edges(edges) => format!("{edges}edges"),
            }),
            undirected: args.undirected,
            simple: args.simple,
            threads,
        },
        stores: summaries,
    };
    let json_to_stdout = args.json.as_deref() == Some(std::path::Path::new("-"));
    if !json_to_stdout {
        report::write_table(&report, &mut std::io::stdout().lock())?;
    }
    if let Some(path) = &args.json {
        report::write_json(&report, path)?;
    }
    if let Some(path) = &args.csv {
        report::write_csv(&report, path)?;
    }
    if let Some(path) = &args.plot {
        report::write_plot(&report, path)?;
    }
    Ok(if verification_failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
