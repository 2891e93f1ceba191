//! `dyngraph recover D`: opens a durable store, recovering it after a
//! crash if it needs it, and says what was repaired; `--check` validates it
//! read-only instead.

use anyhow::{Context, Result};
use clap::Args;
use dyngraph::durable::{DurableVcsr, RecoveryReport};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub(crate) struct RecoverArgs {
    /// The durable store's directory (as given to `replay --dir`).
    dir: PathBuf,
    /// Check the store without changing it: every page and log region
    /// against its checksum, the log, then a full structural validation.
    /// A damaged store exits 2 naming the file and offset.
    #[arg(long)]
    check: bool,
    /// Also print the result as one JSON object, to a file or `-` (stdout,
    /// instead of the text).
    #[arg(long)]
    json: Option<PathBuf>,
}

/// What `--json` writes.
#[derive(Serialize)]
struct RecoverOutput<'a> {
    dir: &'a PathBuf,
    /// `recover` (opened, repaired if needed, closed cleanly) or `check`
    /// (read-only, files untouched).
    action: &'static str,
    /// Whether anything was repaired (in memory only under `check`).
    repaired: bool,
    vertices: u64,
    edges: u64,
    /// The edges the store acknowledged durable: what it holds now.
    acknowledged_edges: u64,
    /// Keys naming its vertices, for a keyed store (`None`: vertex ids).
    keys: Option<usize>,
    report: &'a RecoveryReport,
}

pub(crate) fn run(args: RecoverArgs) -> Result<ExitCode> {
    crate::output::check_all([("--json", args.json.as_deref())])?;
    if !args.dir.exists() {
        anyhow::bail!(
            "{}: no such directory (a durable store is the --dir given to `replay --store durable`)",
            args.dir.display()
        );
    }
    // A damaged store, a store whose creation never finished, or somebody
    // else's directory: said as such, before anything is opened.
    if !crate::kept_store::is_store_dir(&args.dir)? {
        anyhow::bail!(
            "{} is a file: a durable store is a directory (the --dir given to `replay --store durable`)",
            args.dir.display()
        );
    }
    let keys = crate::kept_store::keys(&args.dir)?;
    let (report, action) = if args.check {
        let report = DurableVcsr::check_dir(&args.dir)
            .with_context(|| format!("the durable store in {} is damaged", args.dir.display()))?;
        (report, "check")
    } else {
        let report = DurableVcsr::recover_dir(&args.dir)
            .with_context(|| format!("cannot open the durable store in {}", args.dir.display()))?;
        (report, "recover")
    };
    let output = RecoverOutput {
        dir: &args.dir,
        action,
        repaired: report.repaired(),
        vertices: report.vertices as u64,
        edges: report.edges,
        acknowledged_edges: report.acknowledged.edges,
        keys: keys.as_ref().map(|k| k.len()),
        report: &report,
    };
    let to_stdout = args.json.as_deref() == Some(std::path::Path::new("-"));
    if !to_stdout {
        print!("{}: {report}", args.dir.display());
        println!(
            "  {}",
            match (args.check, report.repaired()) {
                (true, false) => "checked: valid, nothing to repair",
                (true, true) =>
                    "checked: valid after an in-memory recovery (run `dyngraph recover` to repair the files)",
                (false, true) => "repaired, then closed cleanly",
                (false, false) => "nothing to repair; closed cleanly",
            }
        );
        if let Some(keys) = &keys {
            println!(
                "  keys: {} {} keys name its vertices",
                keys.len(),
                keys.kind()
            );
        }
    }
    if let Some(path) = &args.json {
        crate::report::write_json(&output, path)?;
    }
    Ok(ExitCode::SUCCESS)
}
