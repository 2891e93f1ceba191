//! `dyngraph convert`: between the text formats and the binary `Csr` file
//! (`.dgcsr`).

use crate::input::{InputArgs, input_path, note_relabelled};
use anyhow::{Context, Result};
use clap::Args;
use dyngraph::core::Graph;
use dyngraph::loader::{
    EDGE_STREAM_EXTENSION, Format, load_csr, write_csr_file, write_edge_stream_file, write_edges,
};
use std::path::PathBuf;
use std::process::ExitCode;

/// The extension `convert` writes binary `Csr` files under. They are
/// recognised on input by their magic bytes, whatever their name.
const CSR_FILE_EXTENSION: &str = "dgcsr";

#[derive(Args, Debug)]
pub(crate) struct ConvertArgs {
    /// Input graph: any text format the loader reads, or a binary Csr file
    /// (.dgcsr, recognised by its contents); `-` for standard input.
    input: PathBuf,
    /// Output; the format follows the extension: `.el`, `.wel`, `.mtx`,
    /// `.txt`, `.csv`, `.tsv` (optionally `.gz`), `.dgcsr` for a binary
    /// Csr file (with in-edges) that opens by memory map without copying
    /// and that every command takes as input, or `.dges` for a binary edge
    /// stream (the edges in arrival order with their weights or
    /// timestamps, mapped without a copy by every command). Relabelled ids are written
    /// as the input had them (Matrix Market, which numbers vertices, is
    /// refused for them; a .dgcsr file keeps them). Written whole or not
    /// at all.
    output: PathBuf,
    #[command(flatten)]
    options: InputArgs,
}

pub(crate) fn run(args: ConvertArgs) -> Result<ExitCode> {
    let extension = args.output.extension();
    let to_csr_file = extension.is_some_and(|e| e == CSR_FILE_EXTENSION);
    let to_edge_stream = extension.is_some_and(|e| e == EDGE_STREAM_EXTENSION);
    let format = if to_csr_file || to_edge_stream {
        None
    } else {
        Some(Format::from_path(&args.output).with_context(|| {
            format!(
                "cannot tell the output format of {} from its extension: use .el, .wel, .mtx, .txt, .csv or .tsv (optionally .gz), .{CSR_FILE_EXTENSION} or .{EDGE_STREAM_EXTENSION}",
                args.output.display()
            )
        })?)
    };
    crate::output::check(&args.output)?;
    let input = input_path(&args.input);
    let options = args.options.load_options();
    // Reading, then writing, on a terminal; cleared when the command ends.
    let spinner = crate::progress::phase_spinner(&format!(
        "converting {} to {}",
        args.input.display(),
        args.output.display()
    ));
    let (options, _parse) = crate::progress::watch_parse(&spinner, options);
    if to_edge_stream {
        let stream = crate::graph_input::open_stream(&input, &options)?;
        note_relabelled(&args.input, stream.ids());
        if stream.is_empty() {
            return Err(no_edges(&args.input));
        }
        write_edge_stream_file(&args.output, &stream)?;
        spinner.finish_and_clear();
        println!(
            "wrote a binary edge stream (.{EDGE_STREAM_EXTENSION}) of {} vertices and {} edges to {}",
            stream.vertex_count(),
            stream.len(),
            args.output.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let Some(format) = format else {
        // The loader reads text and binary Csr files alike.
        let csr = load_csr(&input, &options.in_edges(true))?;
        note_relabelled(&args.input, csr.ids());
        if csr.edge_count() == 0 {
            return Err(no_edges(&args.input));
        }
        write_csr_file(&args.output, &csr)?;
        spinner.finish_and_clear();
        println!(
            "wrote a binary Csr file (.{CSR_FILE_EXTENSION}) of {} vertices and {} edges to {}",
            csr.vertex_count(),
            csr.edge_count(),
            args.output.display()
        );
        return Ok(ExitCode::SUCCESS);
    };
    // A binary Csr file reads as its edges grouped by source (it keeps no
    // arrival order), isolated vertices included.
    let stream = crate::graph_input::open_stream(&input, &options)?;
    note_relabelled(&args.input, stream.ids());
    if stream.is_empty() {
        return Err(no_edges(&args.input));
    }
    // Relabelled ids are written as the input had them.
    write_edges(&args.output, &stream, format)?;
    spinner.finish_and_clear();
    println!(
        "wrote {} edges to {} ({format})",
        stream.len(),
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The error for an input without edges: there is nothing to convert.
fn no_edges(input: &std::path::Path) -> anyhow::Error {
    dyngraph::core::Error::NoEdges {
        path: input.to_path_buf(),
        job: "convert",
    }
    .into()
}
