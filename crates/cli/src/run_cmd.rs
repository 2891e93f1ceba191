//! `dyngraph run`: one kernel on one store built from a file, GAPBS style.

use crate::kernels::KernelArg;
use crate::stores::{StoreKind, StoreSettings, StoreWork, with_store};
use crate::{install_threads, on_pool};
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use dyngraph_core::{DynamicStore, Graph, ReadGraph, Semantics, StoreOptions, VertexId};
use dyngraph_loader::{EdgeStream, LoadOptions, load_edge_stream};
use dyngraph_replay::kernel_options;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Stores `run` can build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum RunStore {
    /// Immutable CSR with in-edges.
    Csr,
    /// VCSR (degree-proportional gaps); kernels on a snapshot.
    Vcsr,
    /// PCSR; kernels on a snapshot.
    Pcsr,
    /// Blocked adjacency list; kernels on a snapshot.
    Bal,
    /// CSR++; kernels on a snapshot.
    Csrpp,
    /// The durable VCSR in a temporary directory; kernels on a snapshot.
    Durable,
}

#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    /// The kernel.
    #[arg(value_enum)]
    kernel: KernelArg,
    /// The graph file: any text format the loader reads, or a binary Csr
    /// file (.dgcsr, recognised by its contents), which `--store csr` maps
    /// and uses without a copy.
    file: PathBuf,
    /// The store to build from the file.
    #[arg(long, value_enum, default_value = "csr")]
    store: RunStore,
    /// Trials.
    #[arg(short = 'n', long = "trials", default_value = "3", value_parser = crate::parse_positive)]
    trials: usize,
    /// Verify every trial; exit 1 if one is wrong.
    #[arg(long)]
    verify: bool,
    /// Source vertex for BFS and SSSP (default: the first vertex with
    /// out-edges).
    #[arg(long)]
    source: Option<VertexId>,
    /// Worker threads.
    #[arg(long)]
    threads: Option<usize>,
}

pub(crate) fn run(args: RunArgs) -> Result<ExitCode> {
    let threads = install_threads(args.threads)?;
    let timer = Instant::now();
    let kind = match args.store {
        RunStore::Csr => {
            // A binary Csr file is mapped and used in place, without a copy.
            let input = crate::graph_input::CsrInput::open(
                &args.file,
                &LoadOptions::default().in_edges(true),
            )?;
            let graph = input.view()?;
            report_built(&graph, &args, threads, timer);
            let ids = graph.ids();
            return trials(&graph, &args, |v| {
                ids.map_or_else(|| v.to_string(), |ids| ids.original(v).to_string())
            });
        }
        RunStore::Vcsr => StoreKind::Vcsr,
        RunStore::Pcsr => StoreKind::Pcsr,
        RunStore::Bal => StoreKind::Bal,
        RunStore::Csrpp => StoreKind::Csrpp,
        RunStore::Durable => StoreKind::Durable,
    };
    let stream = load_edge_stream(&args.file, &LoadOptions::default())?;
    // Kernels may pull over in-edges; weights when the file has them.
    // (The durable store keeps none: its kernels run without.)
    let options = StoreOptions::new(Semantics::Multigraph)
        .weighted(stream.weights().is_some())
        .in_edges(kind != StoreKind::Durable);
    let work = OnStore {
        stream,
        args: &args,
        threads,
        timer,
    };
    with_store(kind, &StoreSettings::default(), options, work)
}

fn report_built<G: Graph>(graph: &G, args: &RunArgs, threads: usize, timer: Instant) {
    println!(
        "{}: {} vertices, {} edges, {:?} built in {:.3} s ({threads} threads)",
        args.file.display(),
        graph.vertex_count(),
        graph.edge_count(),
        args.store,
        timer.elapsed().as_secs_f64()
    );
}

/// Builds the store from the stream's columns in bulk and runs the trials
/// on its snapshot.
struct OnStore<'a> {
    stream: EdgeStream,
    args: &'a RunArgs,
    threads: usize,
    timer: Instant,
}

impl StoreWork for OnStore<'_> {
    type Output = Result<ExitCode>;

    fn run<S: DynamicStore>(mut self, options: S::Options, _: StoreOptions) -> Result<ExitCode> {
        let store = S::from_edges(&self.stream, options)?;
        let ids = self.stream.take_ids();
        drop(self.stream);
        report_built(&store, self.args, self.threads, self.timer);
        let snapshot = store.snapshot();
        trials(&store.view(&snapshot)?, self.args, |v| {
            ids.as_ref()
                .map_or_else(|| v.to_string(), |ids| ids.original(v).to_string())
        })
    }
}

/// `name(v)` is how a vertex is shown: its original id when the input was
/// relabelled.
fn trials<G: ReadGraph>(
    graph: &G,
    args: &RunArgs,
    name: impl Fn(VertexId) -> String,
) -> Result<ExitCode> {
    let source = match args.source {
        Some(source) if source as usize >= graph.vertex_count() => bail!(
            "--source {source} is not a vertex of this graph (it has {} vertices); pick an id below that",
            graph.vertex_count()
        ),
        Some(source) => source,
        None => (0..graph.vertex_count() as VertexId)
            .find(|&v| graph.out_degree(v) > 0)
            .unwrap_or(0),
    };
    let options = kernel_options(args.kernel.kernel(), source);
    let mut total = 0.0;
    let mut wrong = 0;
    let mut last = None;
    for trial in 1..=args.trials {
        let (output, seconds) = on_pool(|| {
            let timer = Instant::now();
            let output = dyngraph_kernels::run(graph, &options);
            (output, timer.elapsed().as_secs_f64())
        });
        let output = output?;
        total += seconds;
        print!(
            "trial {trial}: {seconds:.6} s  {} [{}]",
            output.summary(),
            output.mode()
        );
        if args.verify {
            match dyngraph_kernels::verify(graph, &output) {
                Ok(()) => print!("  [verified]"),
                Err(error) => {
                    wrong += 1;
                    print!("  [WRONG: {error}]");
                }
            }
        }
        println!();
        last = Some(output);
    }
    if let Some(dyngraph_kernels::KernelOutput::PageRank(ranks)) = &last {
        let top: Vec<String> = ranks
            .top(10)
            .into_iter()
            .map(|(v, score)| format!("{} ({score:.3e})", name(v)))
            .collect();
        println!("top vertices: {}", top.join(", "));
    }
    println!(
        "average: {:.6} s over {} trials",
        total / args.trials as f64,
        args.trials
    );
    if wrong > 0 {
        eprintln!("verification failed in {wrong} of {} trials", args.trials);
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
