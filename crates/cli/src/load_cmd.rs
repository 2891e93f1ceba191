//! `dyngraph load`.

use crate::install_threads;
use anyhow::Result;
use clap::Args;
use dyngraph_core::{CsrOptions, Graph};
use dyngraph_loader::{LoadOptions, load_edge_stream};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args, Debug)]
pub(crate) struct LoadArgs {
    /// The graph file (any format the loader reads).
    file: PathBuf,
    /// Also print the result as one JSON object, to a file or `-` (stdout,
    /// instead of the text).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Worker threads.
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(Serialize)]
struct LoadReport {
    path: PathBuf,
    vertices: u64,
    edges: u64,
    read_seconds: f64,
    build_seconds: f64,
    edges_per_second: f64,
    bytes: u64,
}

pub(crate) fn run(args: LoadArgs) -> Result<ExitCode> {
    let threads = install_threads(args.threads)?;
    let timer = Instant::now();
    let stream = load_edge_stream(&args.file, &LoadOptions::default())?;
    let read_seconds = timer.elapsed().as_secs_f64();
    let timer = Instant::now();
    let csr = stream.to_csr(&CsrOptions::default())?;
    let build_seconds = timer.elapsed().as_secs_f64();
    let total = read_seconds + build_seconds;
    let report = LoadReport {
        path: args.file.clone(),
        vertices: csr.vertex_count() as u64,
        edges: csr.edge_count(),
        read_seconds,
        build_seconds,
        edges_per_second: if total > 0.0 {
            csr.edge_count() as f64 / total
        } else {
            0.0
        },
        bytes: csr.memory_bytes() as u64,
    };
    let to_stdout = args.json.as_deref() == Some(std::path::Path::new("-"));
    if !to_stdout {
        println!("file            {}", report.path.display());
        println!("vertices        {}", report.vertices);
        println!("edges           {}", report.edges);
        println!(
            "read            {:.4} s ({threads} threads)",
            report.read_seconds
        );
        println!("csr build       {:.4} s", report.build_seconds);
        println!("edges/s         {:.0}", report.edges_per_second);
        println!(
            "csr bytes       {} ({:.2} per edge)",
            report.bytes,
            report.bytes as f64 / report.edges.max(1) as f64
        );
    }
    if let Some(path) = &args.json {
        crate::report::write_json(&report, path)?;
    }
    Ok(ExitCode::SUCCESS)
}
