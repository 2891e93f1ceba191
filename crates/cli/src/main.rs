//! `dyngraph`: replay temporal graphs into dynamic graph stores, analyse them
//! as they evolve, and compare what each store costs.
//!
//! Exit codes: 0 on success, 1 when `--verify` finds a wrong result, 2 on
//! any error (bad arguments, unreadable or malformed input), with one line
//! on stderr saying what went wrong and where.

mod convert_cmd;
mod dist_cmd;
mod flags;
mod gen_cmd;
mod graph_input;
mod input;
mod kept_store;
mod load_cmd;
mod names;
mod output;
mod per_vertex;
mod progress;
mod recover_cmd;
mod replay_cmd;
mod replay_output;
mod report;
mod run_cmd;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

/// The sample replayed when no file is given: SNAP CollegeMsg, bundled in
/// the repository's `data/` directory.
const BUNDLED_SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");

/// Set by Ctrl-C; a replay stops after its current batch and reports.
static STOP: AtomicBool = AtomicBool::new(false);

#[derive(Parser, Debug)]
#[command(
    name = "dyngraph",
    version,
    about = "Replay temporal graphs into dynamic graph stores and compare what each costs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Stream a temporal graph into one or several stores, analyse it as it
    /// evolves, and print what each store cost.
    Replay(Box<replay_cmd::ReplayArgs>),
    /// Generate a Kronecker or uniform random graph into a text file.
    Gen(gen_cmd::GenArgs),
    /// Read a graph file (text, or a binary Csr file mapped without a copy),
    /// build a Csr, and report sizes and times.
    Load(load_cmd::LoadArgs),
    /// Run one kernel on a graph file, GAPBS style: trials and average.
    Run(run_cmd::RunArgs),
    /// Convert between the text formats and the binary Csr file (.dgcsr),
    /// by extension.
    Convert(convert_cmd::ConvertArgs),
    /// Open a durable store, recover it after a crash if needed, and say
    /// what was repaired.
    Recover(recover_cmd::RecoverArgs),
}

/// Sizes rayon's global pool; returns the thread count in use.
fn install_threads(threads: Option<usize>) -> Result<usize> {
    if let Some(threads) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .context("cannot start the thread pool")?;
    }
    Ok(rayon::current_num_threads())
}

/// Runs `work` on a thread of rayon's global pool and waits for it, so a
/// trial's timer inside `work` measures the kernel, not the hand-off from
/// the main thread to the pool (a wake-up, tens of microseconds: GAPBS's
/// whole BFS on CollegeMsg is 30).
fn on_pool<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| work())
}

/// Lets a closed stdout end the process quietly, as it ends `cat` or
/// `grep`: Rust ignores `SIGPIPE`, so `dyngraph run pr g.el | head -1` made
/// the next `println!` panic ("failed printing to stdout: Broken pipe").
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default has no
    // preconditions; it runs first in `main`, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // Help and version go to stdout with 0; usage errors exit 2.
            let code = if error.use_stderr() { 2 } else { 0 };
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Replay(args) => replay_cmd::replay_command(*args),
        Command::Gen(args) => gen_cmd::run(args),
        Command::Load(args) => load_cmd::run(args),
        Command::Run(args) => run_cmd::run(args),
        Command::Convert(args) => convert_cmd::run(args),
        Command::Recover(args) => recover_cmd::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}
