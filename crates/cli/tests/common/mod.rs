//! What the cluster tests start and compare against: `dyngraph replay`
//! processes on 127.0.0.1, and the single-machine replay engine and
//! kernels on the same stream (both the dist crate's test helpers, which
//! its own process tests use too).

#![allow(dead_code, unreachable_pub, unused_imports)]

#[path = "../../../dist/tests/common/mod.rs"]
mod dist;

pub use dist::*;
use std::path::Path;
use std::process::{Command, Output};

/// The CLI under test.
pub const DYNGRAPH: &str = env!("CARGO_BIN_EXE_dyngraph");

/// `dyngraph replay FILE ARGS...`, not yet started.
pub fn replay_command(file: &Path, args: &[String]) -> Command {
    let mut command = Command::new(DYNGRAPH);
    command.arg("replay").arg(file).args(args);
    command
}

/// Runs the CLI with `args` to its end.
pub fn dyngraph(args: &[&str]) -> Output {
    Command::new(DYNGRAPH)
        .args(args)
        .output()
        .expect("the binary runs")
}

/// What a run wrote on stderr.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh scratch directory for one test of this process, `name` telling
/// the tests apart.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dyngraph-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A path as the `&str` argument a command line takes.
pub fn text(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}
