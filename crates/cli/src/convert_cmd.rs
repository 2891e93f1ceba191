//! `dyngraph convert`: between the text formats and the binary `Csr` file
//! (`.dgcsr`).

use crate::input::{InputArgs, input_path, note_relabelled};
use anyhow::{Context, Result};
use clap::Args;
use dyngraph::core::Graph;
use dyngraph::loader::{Format, load_csr, load_edge_stream, write_csr_file, write_edges};
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
    /// `.txt`, `.csv`, `.tsv` (optionally `.gz`), or `.dgcsr` for a binary
    /// Csr file (with in-edges) that opens by memory map without copying
    /// and that every command takes as input. Relabelled ids are written
    /// as the input had them (Matrix Market, which numbers vertices, is
    /// refused for them; a .dgcsr file keeps them). Written whole or not
    /// at all.
    output: PathBuf,
    #[command(flatten)]
    options: InputArgs,
}

pub(crate) fn run(args: ConvertArgs) -> Result<ExitCode> {
    let to_csr_file = args
        .output
        .extension()
        .is_some_and(|e| e == CSR_FILE_EXTENSION);
    let format = if to_csr_file {
        None
    } else {
        Some(Format::from_path(&args.output).with_context(|| {
            format!(
                "cannot tell the output format of {} from its extension: use .el, .wel, .mtx, .txt, .csv or .tsv (optionally .gz), or .{CSR_FILE_EXTENSION}",
                args.output.display()
            )
        })?)
    };
    crate::output::check(&args.output)?;
    let input = input_path(&args.input);
    let options = args.options.load_options();
    let Some(format) = format else {
        // The loader reads text and binary Csr files alike.
        let csr = load_csr(&input, &options.in_edges(true))?;
        note_relabelled(&args.input, csr.ids());
        if csr.edge_count() == 0 {
            return Err(dyngraph::core::Error::NoEdges {
                path: args.input.clone(),
                job: "convert",
            }
            .into());
        }
        write_csr_file(&args.output, &csr)?;
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
    let stream = load_edge_stream(&input, &options)?;
    note_relabelled(&args.input, stream.ids());
    if stream.is_empty() {
        return Err(dyngraph::core::Error::NoEdges {
            path: args.input.clone(),
            job: "convert",
        }
        .into());
    }
    // Relabelled ids are written as the input had them.
    write_edges(&args.output, &stream, format)?;
    println!(
        "wrote {} edges to {} ({format})",
        stream.len(),
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
