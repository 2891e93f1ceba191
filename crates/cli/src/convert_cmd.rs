//! `dyngraph convert`: between the text formats and the binary snapshot.

use anyhow::{Context, Result};
use clap::Args;
use dyngraph_core::{Csr, Graph, VertexId, WeightedEdge, WeightedOutNeighbors};
use dyngraph_loader::{
    EdgeStream, Format, LoadOptions, SNAPSHOT_MAGIC, load_csr, load_edge_stream, read_snapshot,
    write_edges, write_snapshot,
};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The extension `convert` writes binary snapshots under. Snapshots are
/// recognised on input by their magic bytes, whatever their name.
const SNAPSHOT_EXTENSION: &str = "dgcsr";

#[derive(Args, Debug)]
pub(crate) struct ConvertArgs {
    /// Input graph: any text format the loader reads, or a binary snapshot.
    input: PathBuf,
    /// Output; the format follows the extension: `.el`, `.wel`, `.mtx`,
    /// `.txt` (optionally `.gz`), or `.dgcsr` for a binary `Csr` snapshot
    /// (with in-edges) that opens by memory map without copying.
    output: PathBuf,
}

fn is_snapshot(path: &Path) -> Result<bool> {
    let mut head = [0u8; 8];
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let read = file
        .read(&mut head)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(read == head.len() && head == SNAPSHOT_MAGIC)
}

/// A snapshot's edges as a stream, by source (a snapshot keeps no arrival
/// order), keeping isolated vertices.
fn stream_of(csr: &Csr) -> EdgeStream {
    let mut edges = Vec::with_capacity(csr.edge_count() as usize);
    for v in 0..csr.vertex_count() as VertexId {
        edges.extend(
            csr.out_neighbors_weighted(v)
                .map(|(d, w)| WeightedEdge::new(v, d, w)),
        );
    }
    let mut stream = if csr.has_weights() {
        EdgeStream::from_weighted_edges(&edges)
    } else {
        EdgeStream::from_edges(&edges.iter().map(|e| e.edge()).collect::<Vec<_>>())
    };
    stream.extend_vertex_count(csr.vertex_count());
    stream
}

pub(crate) fn run(args: ConvertArgs) -> Result<ExitCode> {
    let input_is_snapshot = is_snapshot(&args.input)?;
    let to_snapshot = args
        .output
        .extension()
        .is_some_and(|e| e == SNAPSHOT_EXTENSION);
    if to_snapshot {
        let csr = if input_is_snapshot {
            read_snapshot(&args.input)?
        } else {
            load_csr(&args.input, &LoadOptions::default().transpose(true))?
        };
        write_snapshot(&args.output, &csr)?;
        println!(
            "wrote a snapshot of {} vertices and {} edges to {}",
            csr.vertex_count(),
            csr.edge_count(),
            args.output.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let format = Format::from_path(&args.output).with_context(|| {
        format!(
            "cannot tell the output format of {} from its extension: use .el, .wel, .mtx or .txt (optionally .gz), or .{SNAPSHOT_EXTENSION}",
            args.output.display()
        )
    })?;
    let stream = if input_is_snapshot {
        stream_of(&read_snapshot(&args.input)?)
    } else {
        load_edge_stream(&args.input, &LoadOptions::default())?
    };
    write_edges(&args.output, &stream, format)?;
    println!(
        "wrote {} edges to {} ({format})",
        stream.len(),
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
