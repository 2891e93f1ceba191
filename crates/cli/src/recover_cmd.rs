//! `dyngraph recover PATH`: opens a durable store, recovering it after a
//! crash if it needs it, and says what was repaired.

use anyhow::{Context, Result};
use clap::Args;
use dyngraph::durable::DurableVcsr;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub(crate) struct RecoverArgs {
    /// The durable store's directory (as given to `replay --dir`).
    dir: PathBuf,
}

pub(crate) fn run(args: RecoverArgs) -> Result<ExitCode> {
    let report = DurableVcsr::recover_dir(&args.dir)
        .with_context(|| format!("cannot open the durable store in {}", args.dir.display()))?;
    print!("{}: {report}", args.dir.display());
    println!(
        "  {}",
        if report.repaired() {
            "repaired, then closed cleanly"
        } else {
            "nothing to repair; closed cleanly"
        }
    );
    Ok(ExitCode::SUCCESS)
}
