//! `dyngraph run`: one kernel on one store built from a file, GAPBS style.

use crate::install_threads;
use crate::kernels::{KernelArg, options_for};
use crate::stores::ReplayStore;
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use dyngraph_core::{
    Graph, InNeighbors, OutNeighbors, Semantics, VertexId, WeightedEdge, WeightedOutNeighbors,
};
use dyngraph_csrpp::{CsrPP, CsrPPConfig};
use dyngraph_loader::{LoadOptions, load_csr, load_edge_stream};
use dyngraph_vcsr::{Bal, Pcsr, StoreOptions, Vcsr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Stores `run` can build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum RunStore {
    /// Immutable CSR with in-edges.
    Csr,
    /// VCSR (degree-proportional gaps), bulk-loaded, kernels on a snapshot.
    Vcsr,
    /// PCSR, inserted.
    Pcsr,
    /// Blocked adjacency list, inserted.
    Bal,
    /// CSR++, bulk-loaded.
    Csrpp,
}

#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    /// The kernel.
    #[arg(value_enum)]
    kernel: KernelArg,
    /// The graph file (any format the loader reads).
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
    if args.store == RunStore::Csr {
        let graph = load_csr(&args.file, &LoadOptions::default().transpose(true))?;
        report_built(&graph, &args, threads, timer);
        return trials(&graph, &args);
    }
    let stream = load_edge_stream(&args.file, &LoadOptions::default())?;
    let weighted = stream.weights().is_some();
    let edges: Vec<WeightedEdge> = stream.weighted_edges().collect();
    drop(stream);
    let options = StoreOptions::new(Semantics::Multigraph)
        .weighted(weighted)
        .in_edges(true);
    match args.store {
        RunStore::Csr => unreachable!("handled above"),
        RunStore::Vcsr => on_store(Vcsr::new(options)?, &edges, &args, threads, timer),
        RunStore::Pcsr => on_store(Pcsr::new(options)?, &edges, &args, threads, timer),
        RunStore::Bal => on_store(Bal::new(options)?, &edges, &args, threads, timer),
        RunStore::Csrpp => {
            let config = CsrPPConfig::default()
                .weighted(weighted)
                .reverse_edges(true);
            on_store(CsrPP::new(config)?, &edges, &args, threads, timer)
        }
    }
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

/// Loads `edges` into `store` (in bulk where it can) and runs the trials on
/// its snapshot.
fn on_store<S: ReplayStore>(
    mut store: S,
    edges: &[WeightedEdge],
    args: &RunArgs,
    threads: usize,
    timer: Instant,
) -> Result<ExitCode> {
    store.load_base(edges)?;
    report_built(&store, args, threads, timer);
    store.with_snapshot(|graph| trials(graph, args))?
}

fn trials<G>(graph: &G, args: &RunArgs) -> Result<ExitCode>
where
    G: OutNeighbors + InNeighbors + WeightedOutNeighbors + Sync,
{
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
    let options = options_for(args.kernel.kernel(), source);
    let mut total = 0.0;
    let mut wrong = 0;
    for trial in 1..=args.trials {
        let timer = Instant::now();
        let output = dyngraph_kernels::run(graph, &options)?;
        let seconds = timer.elapsed().as_secs_f64();
        total += seconds;
        print!("trial {trial}: {seconds:.6} s  {}", output.summary());
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
