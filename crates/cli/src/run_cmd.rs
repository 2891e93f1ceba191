//! `dyngraph run`: one kernel on one store built from a file, GAPBS style.

use crate::names::Names;
use crate::progress::{Progress, phase_spinner};
use crate::{install_threads, on_pool};
use anyhow::{Context, Result};
use clap::Args;
use dyngraph::core::{DynamicStore, Graph, ReadGraph, Semantics, StoreOptions, VertexId};
use dyngraph::durable::DurableVcsr;
use dyngraph::kernels::KernelName;
use dyngraph::loader::EdgeStream;
use dyngraph::replay::kernel_options;
use dyngraph::stores::{StoreKind, StoreSettings, StoreVisitor};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// `--store`: the immutable `Csr` (`csr`) or any store of the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunStore {
    /// Immutable CSR with in-edges, mapped in place from a `.dgcsr` file.
    Csr,
    /// A store of the registry, bulk-built; kernels run on a snapshot.
    Store(StoreKind),
}

fn parse_run_store(text: &str) -> Result<RunStore, String> {
    if text == "csr" {
        return Ok(RunStore::Csr);
    }
    text.parse().map(RunStore::Store).map_err(|_| {
        let names: Vec<&str> = StoreKind::ALL.iter().map(|k| k.name()).collect();
        format!(
            "'{text}' is not a store: expected csr, {}",
            names.join(", ")
        )
    })
}

#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    input: crate::input::InputArgs,
    /// The kernel.
    #[arg(value_enum)]
    kernel: KernelName,
    /// The graph file: any text format the loader reads, a binary edge
    /// stream (.dges, mapped: every store builds from its columns in
    /// place), or a binary Csr file (.dgcsr, recognised by its contents),
    /// which `--store csr` maps and uses without a copy.
    file: PathBuf,
    /// The store to build from the file: `csr` (immutable, with in-edges)
    /// or any store of `replay --store`.
    #[arg(long, default_value = "csr", value_parser = parse_run_store)]
    store: RunStore,
    /// Trials.
    #[arg(short = 'n', long = "trials", default_value = "3", allow_hyphen_values = true, value_parser = crate::flags::positive)]
    trials: usize,
    /// Verify every trial; exit 1 if one is wrong.
    #[arg(long)]
    verify: bool,
    /// Source vertex for BFS and SSSP (default: the first vertex with
    /// out-edges): its original id or key when the input was relabelled
    /// (or the store keeps keys), else its vertex id.
    #[arg(long, allow_hyphen_values = true)]
    source: Option<String>,
    /// Worker threads.
    #[arg(long, allow_hyphen_values = true, value_parser = crate::flags::threads)]
    threads: Option<usize>,
    /// Write every vertex's result of the last trial: `.csv` (a header,
    /// then one row per vertex) or `.jsonl` (one JSON object per vertex),
    /// each vertex named by its original id or key when the input was
    /// relabelled. The columns: `vertex`, then bfs `depth,parent`, pr and
    /// bc `score`, sssp `distance`, cc `component`, rw `visits`.
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
}

pub(crate) fn run(args: RunArgs) -> Result<ExitCode> {
    if let Some(path) = &args.output {
        if crate::output::is_stdout(path) {
            anyhow::bail!("--output -: give a file (.csv or .jsonl); the trials go to stdout");
        }
        crate::per_vertex::format(path, args.kernel)?;
        crate::output::check_all([("--output", Some(path.as_path()))])?;
    }
    let threads = install_threads(args.threads)?;
    let timer = Instant::now();
    // On a terminal: the phase (reading, building, which trial) and its
    // time; at a billion edges each takes minutes.
    let progress = phase_spinner(&format!("reading {}", args.file.display()));
    // SSSP needs weights that are numbers from 0: refused at their line.
    let load = args
        .input
        .load_options()
        .nonnegative_weights(args.kernel == KernelName::Sssp);
    let (load, _parse) = crate::progress::watch_parse(&progress, load);
    if crate::kept_store::is_store_dir(&args.file)? {
        return run_on_store(&args, threads, timer, &progress);
    }
    let kind = match args.store {
        RunStore::Store(kind) => kind,
        RunStore::Csr => {
            // A binary Csr file is mapped and used in place, without a copy.
            let input =
                crate::graph_input::CsrInput::open(&args.file, &load.clone().in_edges(true))?;
            let graph = input.view()?;
            report_built(&graph, &args, threads, timer, &progress);
            let names = Names::new(graph.ids(), graph.vertex_count());
            return trials(&graph, &args, &progress, names);
        }
    };
    let path = crate::input::input_path(&args.file);
    let stream = crate::graph_input::open_stream(&path, &load)?;
    crate::input::note_relabelled(&path, stream.ids());
    progress.set_message(format!(
        "building a {} of {} edges",
        kind.name(),
        stream.len()
    ));
    // Kernels may pull over in-edges (where the store keeps them); weights
    // when the file has them.
    let wanted = StoreOptions::new(Semantics::Multigraph)
        .weighted(stream.weights().is_some())
        .in_edges(true);
    let (options, notes) = kind.fit(wanted);
    for note in notes {
        eprintln!("note: {note}");
    }
    let work = OnStore {
        stream,
        args: &args,
        threads,
        timer,
        progress: &progress,
    };
    kind.visit(&StoreSettings::default(), options, work)
}

/// `run KERNEL D` on a durable store's directory: the kernel runs on the
/// kept graph, opened read-only in place (pull over its in-edges when it
/// keeps them), without copying the edges.
fn run_on_store(
    args: &RunArgs,
    threads: usize,
    timer: Instant,
    progress: &Progress,
) -> Result<ExitCode> {
    if !matches!(
        args.store,
        RunStore::Csr | RunStore::Store(StoreKind::Durable)
    ) {
        eprintln!(
            "note: {} is a durable store: the kernel runs on it in place, not on --store {:?}",
            args.file.display(),
            args.store
        );
    }
    let store = DurableVcsr::open_read_only(&args.file)
        .with_context(|| format!("cannot open the durable store in {}", args.file.display()))?;
    let recovery = store.recovery_report();
    if !recovery.clean {
        eprintln!(
            "note: {} was not closed cleanly: recovered in memory for this run (the files are untouched; `dyngraph recover` repairs them)",
            args.file.display()
        );
    }
    let keys = crate::kept_store::keys(&args.file)?;
    progress.suspend(|| {
        println!(
            "{}: {} vertices{}, {} edges, durable store opened read-only in {:.3} s ({threads} threads)",
            args.file.display(),
            store.vertex_count(),
            keys.as_ref()
                .map(|k| format!(" ({} {} keys)", k.len(), k.kind()))
                .unwrap_or_default(),
            store.edge_count(),
            timer.elapsed().as_secs_f64()
        )
    });
    let names = Names::new(keys.as_ref(), store.vertex_count());
    trials(&store, args, progress, names)
}

fn report_built<G: Graph>(
    graph: &G,
    args: &RunArgs,
    threads: usize,
    timer: Instant,
    progress: &Progress,
) {
    progress.suspend(|| {
        println!(
            "{}: {} vertices, {} edges, {:?} built in {:.3} s ({threads} threads)",
            args.file.display(),
            graph.vertex_count(),
            graph.edge_count(),
            args.store,
            timer.elapsed().as_secs_f64()
        )
    });
}

/// Builds the store from the stream's columns in bulk and runs the trials
/// on its snapshot.
struct OnStore<'a> {
    stream: EdgeStream,
    args: &'a RunArgs,
    threads: usize,
    timer: Instant,
    progress: &'a Progress,
}

impl StoreVisitor for OnStore<'_> {
    type Output = Result<ExitCode>;

    fn visit<S: DynamicStore + 'static>(mut self, options: S::Options) -> Result<ExitCode> {
        let store = S::from_edges(&self.stream, options)?;
        let ids = self.stream.take_ids();
        drop(self.stream);
        report_built(&store, self.args, self.threads, self.timer, self.progress);
        let snapshot = store.snapshot();
        let names = Names::new(ids.as_ref(), store.vertex_count());
        trials(&store.view(&snapshot)?, self.args, self.progress, names)
    }
}

/// `names` say how a vertex is shown and which one `--source` names: by
/// its original id or key when the input was relabelled.
fn trials<G: ReadGraph>(
    graph: &G,
    args: &RunArgs,
    progress: &Progress,
    names: Names<'_>,
) -> Result<ExitCode> {
    let source = match &args.source {
        Some(text) => names.vertex("--source", text)?,
        None => (0..graph.vertex_count() as VertexId)
            .find(|&v| graph.out_degree(v) > 0)
            .unwrap_or(0),
    };
    let options = kernel_options(args.kernel, source);
    let mut total = 0.0;
    let mut wrong = 0;
    let mut last = None;
    for trial in 1..=args.trials {
        progress.set_message(format!("trial {trial} of {}: {}", args.trials, args.kernel));
        let (output, seconds) = on_pool(|| {
            let timer = Instant::now();
            let output = dyngraph::kernels::run(graph, &options);
            (output, timer.elapsed().as_secs_f64())
        });
        let output = output?;
        total += seconds;
        let mut line = format!(
            "trial {trial}: {seconds:.6} s  {} [{}]",
            output.summary(),
            output.mode()
        );
        if args.verify {
            progress.set_message(format!("verifying trial {trial}"));
            match dyngraph::kernels::verify(graph, &output) {
                Ok(()) => line.push_str("  [verified]"),
                Err(error) => {
                    wrong += 1;
                    line.push_str(&format!("  [WRONG: {error}]"));
                }
            }
        }
        progress.suspend(|| println!("{line}"));
        last = Some(output);
    }
    progress.finish_and_clear();
    if let Some(dyngraph::kernels::KernelOutput::PageRank(ranks)) = &last {
        let top: Vec<String> = ranks
            .top(10)
            .into_iter()
            .map(|(v, score)| format!("{} ({score:.3e})", names.name(v)))
            .collect();
        println!("top vertices: {}", top.join(", "));
    }
    println!(
        "average: {:.6} s over {} trials",
        total / args.trials as f64,
        args.trials
    );
    if let (Some(path), Some(output)) = (&args.output, &last) {
        let format = crate::per_vertex::format(path, args.kernel)?;
        crate::per_vertex::write(path, format, output, &names, graph.vertex_count())?;
        println!(
            "wrote {} vertices to {}",
            graph.vertex_count(),
            path.display()
        );
    }
    if wrong > 0 {
        eprintln!("verification failed in {wrong} of {} trials", args.trials);
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
