//! `dyngraph gen`.

use crate::install_threads;
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use dyngraph::loader::{ArrivalOrder, Format, Generator, write_edges};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum Kind {
    /// Kronecker / R-MAT, Graph500 parameters (GAPBS `-g`).
    Kron,
    /// Uniform random endpoints (GAPBS `-u`).
    Uniform,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum GenOrder {
    /// Shuffled (the papers' Random workload).
    Shuffle,
    /// Grouped by source (the Hammer workload).
    Source,
    /// As drawn.
    Generated,
}

#[derive(Args, Debug)]
pub(crate) struct GenArgs {
    /// Graph kind.
    #[arg(value_enum)]
    kind: Kind,
    /// 2^scale vertices.
    #[arg(long)]
    scale: u32,
    /// Edges per vertex (edge factor).
    #[arg(long, default_value = "16")]
    degree: u32,
    /// Arrival order of the written edges.
    #[arg(long, value_enum, default_value = "generated")]
    order: GenOrder,
    /// Random seed.
    #[arg(long, default_value = "27491095")]
    seed: u64,
    /// Output file; the format follows the extension (`.el`, `.wel` adds
    /// weights, `.mtx`, `.txt`, `.csv`, `.tsv`, and `.gz` of these).
    #[arg(short, long)]
    output: PathBuf,
    /// Worker threads.
    #[arg(long, value_parser = crate::parse_threads)]
    threads: Option<usize>,
}

pub(crate) fn run(args: GenArgs) -> Result<ExitCode> {
    install_threads(args.threads)?;
    let format = Format::from_path(&args.output).with_context(|| {
        format!(
            "cannot tell the format of {} from its extension: use .el, .wel, .mtx, .txt, .csv or .tsv (optionally .gz)",
            args.output.display()
        )
    })?;
    crate::output::check(&args.output)?;
    let generator = match args.kind {
        Kind::Kron => Generator::kronecker(args.scale, args.degree),
        Kind::Uniform => Generator::uniform(args.scale, args.degree),
    }
    .seed(args.seed)
    .order(match args.order {
        GenOrder::Shuffle => ArrivalOrder::Shuffled,
        GenOrder::Source => ArrivalOrder::GroupedBySource,
        GenOrder::Generated => ArrivalOrder::AsGenerated,
    })
    .weighted(format == Format::WeightedEdgeList);
    let timer = Instant::now();
    let stream = generator.generate()?;
    let generated = timer.elapsed().as_secs_f64();
    let timer = Instant::now();
    write_edges(&args.output, &stream, format)?;
    println!(
        "wrote {} edges over {} vertices to {} ({format}) — generated in {generated:.2} s, written in {:.2} s",
        stream.len(),
        stream.vertex_count(),
        args.output.display(),
        timer.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
