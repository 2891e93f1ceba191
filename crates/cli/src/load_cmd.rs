//! `dyngraph load`.

use crate::graph_input::CsrInput;
use crate::input::{InputArgs, input_path, note_relabelled};
use crate::install_threads;
use anyhow::{Context, Result};
use clap::Args;
use dyngraph::core::{CsrOptions, Graph, GraphStore, InEdges};
use dyngraph::durable::DurableVcsr;
use dyngraph::loader::{is_csr_file, is_edge_stream_file};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args, Debug)]
pub(crate) struct LoadArgs {
    /// The graph file: any text format the loader reads, a binary edge
    /// stream (.dges) or a binary Csr file (.dgcsr), each recognised by its
    /// contents and mapped without a copy; `-` for standard input.
    file: PathBuf,
    #[command(flatten)]
    input: InputArgs,
    /// Also print the result as one JSON object, to a file or `-` (stdout,
    /// instead of the text).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Worker threads.
    #[arg(long, allow_hyphen_values = true, value_parser = crate::flags::threads)]
    threads: Option<usize>,
}

#[derive(Serialize)]
struct LoadReport {
    path: PathBuf,
    /// `text`, `binary-csr` for a binary Csr file used in place,
    /// `binary-stream` for a binary edge stream read in place, or
    /// `durable-store` for a durable store's directory opened read-only.
    input: &'static str,
    /// What was relabelled, when the file's ids were (the note printed).
    relabelled: Option<String>,
    vertices: u64,
    edges: u64,
    read_seconds: f64,
    build_seconds: f64,
    edges_per_second: f64,
    bytes: u64,
    /// A durable store's edges as of its last sync point.
    #[serde(skip_serializing_if = "Option::is_none")]
    acknowledged_edges: Option<u64>,
}

pub(crate) fn run(args: LoadArgs) -> Result<ExitCode> {
    let threads = install_threads(args.threads)?;
    crate::output::check_all([("--json", args.json.as_deref())])?;
    let options = args.input.load_options();
    let file = input_path(&args.file);
    if crate::kept_store::is_store_dir(&file)? {
        return load_store(&args, threads);
    }
    let binary_stream = is_edge_stream_file(&file)?;
    let timer = Instant::now();
    let spinner = crate::progress::phase_spinner(&format!("reading {}", args.file.display()));
    let (options, _parse) = crate::progress::watch_parse(&spinner, options);
    let (input, read_seconds, build_seconds) = if is_csr_file(&file)? {
        // A binary Csr file: mapped with its header and checksum checked
        // (the read), its arrays checked in place (the build); no copy.
        let input = CsrInput::open(&file, &options)?;
        let read_seconds = timer.elapsed().as_secs_f64();
        let timer = Instant::now();
        input.view()?;
        (input, read_seconds, timer.elapsed().as_secs_f64())
    } else {
        let stream = crate::graph_input::open_stream(&file, &options)?;
        note_relabelled(&args.file, stream.ids());
        let read_seconds = timer.elapsed().as_secs_f64();
        spinner.set_message(format!("building a Csr of {} edges", stream.len()));
        let timer = Instant::now();
        let csr = stream.to_csr(&CsrOptions::default())?;
        (
            CsrInput::Built(csr),
            read_seconds,
            timer.elapsed().as_secs_f64(),
        )
    };
    spinner.finish_and_clear();
    let (vertices, edges) = input.counts();
    if edges == 0 {
        return Err(dyngraph::core::Error::NoEdges {
            path: args.file.clone(),
            job: "load",
        }
        .into());
    }
    let total = read_seconds + build_seconds;
    let report = LoadReport {
        path: args.file.clone(),
        input: if input.is_mapped() {
            "binary-csr"
        } else if binary_stream {
            "binary-stream"
        } else {
            "text"
        },
        relabelled: input.ids().map(|ids| ids.relabel_note()),
        vertices: vertices as u64,
        edges,
        read_seconds,
        build_seconds,
        edges_per_second: if total > 0.0 {
            edges as f64 / total
        } else {
            0.0
        },
        bytes: input.memory_bytes() as u64,
        acknowledged_edges: None,
    };
    let to_stdout = args.json.as_deref() == Some(std::path::Path::new("-"));
    if !to_stdout {
        println!("file            {}", report.path.display());
        if input.is_mapped() {
            println!("input           binary Csr file, mapped (no copy)");
        } else if binary_stream {
            println!("input           binary edge stream, mapped (no copy)");
        }
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

/// `load D` on a durable store's directory: opened read-only in place
/// (recovered in memory if its last run crashed, the files untouched),
/// its counts and what the open found.
fn load_store(args: &LoadArgs, threads: usize) -> Result<ExitCode> {
    let timer = Instant::now();
    let store = DurableVcsr::open_read_only(&args.file)
        .with_context(|| format!("cannot open the durable store in {}", args.file.display()))?;
    let read_seconds = timer.elapsed().as_secs_f64();
    let edges = store.edge_count();
    let keys = crate::kept_store::keys(&args.file)?;
    let report = LoadReport {
        path: args.file.clone(),
        input: "durable-store",
        relabelled: keys
            .as_ref()
            .map(|k| format!("{} {} keys kept with the store", k.len(), k.kind())),
        vertices: store.vertex_count() as u64,
        edges,
        read_seconds,
        build_seconds: 0.0,
        edges_per_second: edges as f64 / read_seconds.max(1e-9),
        bytes: store.memory_bytes() as u64,
        acknowledged_edges: store.acknowledged_edges(),
    };
    let to_stdout = args.json.as_deref() == Some(std::path::Path::new("-"));
    if !to_stdout {
        println!("store           {}", report.path.display());
        println!(
            "input           durable store, opened read-only in place ({})",
            if store.in_edges().is_ok() {
                "with in-edges"
            } else {
                "out-edges only"
            }
        );
        println!("vertices        {}", report.vertices);
        if let Some(keys) = &report.relabelled {
            println!("keys            {keys}");
        }
        println!("edges           {}", report.edges);
        println!(
            "acknowledged    {} edges",
            report.acknowledged_edges.unwrap_or(edges)
        );
        println!("open            {:.4} s ({threads} threads)", read_seconds);
        println!(
            "mapped bytes    {} ({:.2} per edge)",
            report.bytes,
            report.bytes as f64 / edges.max(1) as f64
        );
        print!("recovery        {}", store.recovery_report());
    }
    if let Some(path) = &args.json {
        crate::report::write_json(&report, path)?;
    }
    Ok(ExitCode::SUCCESS)
}
