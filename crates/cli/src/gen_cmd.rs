//! `dyngraph gen`.

use crate::install_threads;
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use dyngraph::loader::{
    EDGE_STREAM_EXTENSION, EdgeStreamWriter, Format, Generator, Order, TextEdgeWriter, ValueKind,
};
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

#[derive(Args, Debug)]
pub(crate) struct GenArgs {
    /// Graph kind.
    #[arg(value_enum)]
    kind: Kind,
    /// 2^scale vertices.
    #[arg(long, allow_hyphen_values = true, value_parser = crate::flags::positive_u32)]
    scale: u32,
    /// Edges per vertex (edge factor).
    #[arg(long, default_value = "16", allow_hyphen_values = true, value_parser = crate::flags::positive_u32)]
    degree: u32,
    /// Arrival order of the written edges: as drawn (`generated`, or
    /// `file`), shuffled (the Random workload) or grouped by source
    /// (Hammer); a generated graph has no timestamps, so not `time`.
    #[arg(long, value_enum, default_value = "generated")]
    order: Order,
    /// Weights in a binary edge stream (`.wel` always has them).
    #[arg(long)]
    weighted: bool,
    /// Random seed.
    #[arg(long, default_value = "27491095", allow_hyphen_values = true, value_parser = crate::flags::seed)]
    seed: u64,
    /// Output file; the format follows the extension (`.el`, `.wel` adds
    /// weights, `.mtx`, `.txt`, `.csv`, `.tsv`, and `.gz` of these), or
    /// `.dges` for a binary edge stream (mapped without a copy by every
    /// command that reads it). Written a chunk at a time in generated
    /// order (memory: one chunk), whole or not at all.
    #[arg(short, long)]
    output: PathBuf,
    /// Worker threads.
    #[arg(long, allow_hyphen_values = true, value_parser = crate::flags::threads)]
    threads: Option<usize>,
}

/// Edges drawn and written per chunk: bounds memory at a billion edges.
const CHUNK_EDGES: usize = 1 << 22;

pub(crate) fn run(args: GenArgs) -> Result<ExitCode> {
    install_threads(args.threads)?;
    let binary = args
        .output
        .extension()
        .is_some_and(|e| e == EDGE_STREAM_EXTENSION);
    let format = if binary {
        None
    } else {
        Some(Format::from_path(&args.output).with_context(|| {
            format!(
                "cannot tell the format of {} from its extension: use .el, .wel, .mtx, .txt, .csv or .tsv (optionally .gz), or .{EDGE_STREAM_EXTENSION}",
                args.output.display()
            )
        })?)
    };
    crate::output::check(&args.output)?;
    let weighted = format.map_or(args.weighted, |f| f == Format::WeightedEdgeList);
    let generator = match args.kind {
        Kind::Kron => Generator::kronecker(args.scale, args.degree),
        Kind::Uniform => Generator::uniform(args.scale, args.degree),
    }
    .seed(args.seed)
    .order(args.order)
    .weighted(weighted);
    let (vertices, edges) = (generator.vertex_count(), generator.edge_count());
    let timer = Instant::now();
    let bar = crate::progress::edge_bar("generating", edges as u64);
    let advance = |chunk: &dyngraph::loader::EdgeStream| bar.inc(chunk.len() as u64);
    match format {
        None => {
            let kind = if weighted {
                ValueKind::Weight
            } else {
                ValueKind::None
            };
            let mut writer = EdgeStreamWriter::create(&args.output, vertices, edges, kind, None)?;
            generator.generate_chunks(CHUNK_EDGES, |chunk| {
                writer.append(chunk, 0..chunk.len())?;
                advance(chunk);
                Ok(())
            })?;
            writer.finish()?;
        }
        Some(format) => {
            let mut writer =
                TextEdgeWriter::create(&args.output, format, vertices, edges, weighted)?;
            generator.generate_chunks(CHUNK_EDGES, |chunk| {
                writer.append(chunk)?;
                advance(chunk);
                Ok(())
            })?;
            writer.finish()?;
        }
    }
    bar.finish_and_clear();
    println!(
        "wrote {edges} edges over {vertices} vertices to {} ({}) in {:.2} s",
        args.output.display(),
        format.map_or_else(|| "binary edge stream".to_string(), |f| f.to_string()),
        timer.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
