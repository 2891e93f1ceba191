//! `dyngraph replay --workers W` / `--hostfile FILE --process I`: the same
//! replay spec, handed to `dyngraph::dist::run_spec` with the cluster these
//! arguments describe, and the report printed.
//!
//! The cluster runtime (timely, `crates/dist`) is the CLI's `dist` feature:
//! it was a third of a cold release build that every user paid for
//! (issue 38). Without it the flags are still parsed, so that asking for a
//! cluster says which build has one instead of "unexpected argument".

use crate::replay_cmd::ReplayArgs;
use anyhow::{Result, bail};
use clap::Args;
use dyngraph::replay::ReplaySpec;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// How the cluster is given on the command line.
#[derive(Args, Clone, Debug)]
pub(crate) struct ClusterArgs {
    /// Replay partitioned over this many timely workers (threads in this
    /// process, or per process with `--hostfile`).
    #[arg(long, allow_hyphen_values = true, value_parser = crate::flags::workers)]
    workers: Option<usize>,

    /// A timely host file (one `host:port` per line, one line per process)
    /// for a replay over several processes; with `--process`.
    #[arg(long)]
    hostfile: Option<PathBuf>,

    /// This process's line in `--hostfile` (0-based); process 0 reports.
    #[arg(long, allow_hyphen_values = true, value_parser = crate::flags::index)]
    process: Option<usize>,

    /// With the cluster: which worker owns which vertex, `hash` (of the
    /// id) or `modulo`. Default: hash.
    // Text, parsed by `dyngraph::dist::Partitioner` when there is a
    // cluster runtime to parse it.
    #[arg(long, value_parser = ["hash", "modulo"])]
    partitioner: Option<String>,

    /// With the cluster: give up, naming the cluster, once no epoch or
    /// superstep has finished for this many seconds (a stopped or hung
    /// peer; a lost one is noticed at once). Default: 120.
    #[arg(long, allow_hyphen_values = true, value_parser = crate::flags::seconds)]
    stall_timeout: Option<Duration>,

    /// With the cluster: gather the last checkpoint's kernel results at
    /// process 0 into the JSON (`distributed[].values`: BFS depths,
    /// PageRank scores, component labels, walk visits).
    #[arg(long)]
    gather: bool,

    /// Sleep this many milliseconds in every epoch (demonstrations, and the
    /// tests that stop or kill a process mid-run).
    #[arg(long, hide = true)]
    throttle_ms: Option<u64>,
}

impl ClusterArgs {
    /// Whether the replay is distributed at all.
    pub(crate) fn requested(&self) -> bool {
        self.workers.is_some() || self.hostfile.is_some() || self.process.is_some()
    }

    #[cfg(feature = "dist")]
    fn cluster(&self) -> Result<dyngraph::dist::Cluster> {
        use dyngraph::dist::Cluster;
        let threads = self.workers.unwrap_or(1);
        Ok(match (&self.hostfile, self.process) {
            (Some(hostfile), Some(process)) => Cluster::from_hostfile(hostfile, process, threads)?,
            (Some(_), None) => bail!(
                "--hostfile needs --process I: this process's line in the host file (0-based)"
            ),
            (None, Some(_)) => bail!("--process needs --hostfile FILE"),
            (None, None) => Cluster::threads(threads),
        })
    }

    /// Refuses the cluster's options on a single-machine replay.
    pub(crate) fn check_unused(&self) -> Result<()> {
        if self.gather
            || self.partitioner.is_some()
            || self.stall_timeout.is_some()
            || self.throttle_ms.is_some()
        {
            bail!(
                "--partitioner, --stall-timeout and --gather need a cluster: --workers W or --hostfile FILE"
            );
        }
        Ok(())
    }

    #[cfg(feature = "dist")]
    fn settings(&self) -> Result<dyngraph::dist::DistSettings> {
        let defaults = dyngraph::dist::DistSettings::default();
        Ok(dyngraph::dist::DistSettings {
            partitioner: match &self.partitioner {
                Some(name) => name.parse()?,
                None => defaults.partitioner,
            },
            stall_timeout: self.stall_timeout.unwrap_or(defaults.stall_timeout),
            throttle: self.throttle_ms.map(Duration::from_millis),
            gather: self.gather,
        })
    }
}

/// The replay over timely workers: process 0 reports like a single-machine
/// replay, plus per-worker rows; the others say on stderr that they are
/// done and print nothing on stdout.
#[cfg(feature = "dist")]
pub(crate) fn replay(args: &ReplayArgs, spec: &ReplaySpec) -> Result<ExitCode> {
    let settings = args.cluster.settings()?;
    let cluster = args.cluster.cluster()?;
    let Some(report) = dyngraph::dist::run_spec(spec, &cluster, &settings)? else {
        eprintln!(
            "process {} of {}: done (the process hosting worker 0 reports)",
            cluster.process(),
            cluster.processes()
        );
        return Ok(ExitCode::SUCCESS);
    };
    crate::replay_cmd::write_outputs(args, &report.report, &report, |out| report.write_table(out))
}

/// Without the cluster runtime: refused before any work, naming the build
/// that has one.
#[cfg(not(feature = "dist"))]
pub(crate) fn replay(_: &ReplayArgs, _: &ReplaySpec) -> Result<ExitCode> {
    bail!(
        "--workers, --hostfile and --process need the cluster runtime, which this dyngraph was \
         built without: build it with the `dist` feature (`cargo install dyngraph-cli --features \
         dist`, or `cargo run --release -p dyngraph-cli --features dist -- replay ...` in the \
         repository)"
    )
}
