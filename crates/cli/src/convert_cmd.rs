//! `dyngraph convert`.

use anyhow::{Context, Result};
use clap::Args;
use dyngraph_loader::{Format, LoadOptions, load_edge_stream, write_edges};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub(crate) struct ConvertArgs {
    /// Input graph (any format the loader reads).
    input: PathBuf,
    /// Output; the format follows the extension (`.el`, `.wel`, `.mtx`,
    /// `.txt`, optionally `.gz`).
    output: PathBuf,
}

pub(crate) fn run(args: ConvertArgs) -> Result<ExitCode> {
    let format = Format::from_path(&args.output).with_context(|| {
        format!(
            "cannot tell the output format of {} from its extension: use .el, .wel, .mtx or .txt (optionally .gz)",
            args.output.display()
        )
    })?;
    let stream = load_edge_stream(&args.input, &LoadOptions::default())?;
    write_edges(&args.output, &stream, format)?;
    println!(
        "wrote {} edges to {} ({format})",
        stream.len(),
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
