//! Run as root, `dyngraph gen ... -o /dev/null` renamed its finished
//! temporary file over `/dev/null`: the device became a regular file
//! holding the output, and every later reader of `/dev/null` read it (CI's
//! clippy step then failed: cargo hands `/dev/null` to rustc as its
//! source). A destination that is a device or a named pipe is written in
//! place. A named pipe stands in for the device here, so that a
//! regression cannot break the machine's `/dev/null`.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn pipe_in(name: &str) -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!("dyngraph-cli-pipe-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pipe = dir.join("out.el");
    let _ = std::fs::remove_file(&pipe);
    let made = Command::new("mkfifo").arg(&pipe).status();
    if made.is_ok_and(|s| s.success()) {
        Some(pipe)
    } else {
        eprintln!("note: mkfifo is not available here; skipping");
        None
    }
}

/// Runs `dyngraph args` while a thread reads `pipe` to its end; returns
/// what was read. Fails if the pipe is replaced.
fn run_into(pipe: &Path, args: &[&str]) -> Vec<u8> {
    let reader = {
        let pipe = pipe.to_path_buf();
        std::thread::spawn(move || std::fs::read(pipe).unwrap())
    };
    let output = Command::new(env!("CARGO_BIN_EXE_dyngraph"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "dyngraph {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Checked before the join: a replaced pipe leaves its reader waiting.
    let still_a_pipe = std::fs::symlink_metadata(pipe).is_ok_and(|m| m.file_type().is_fifo());
    assert!(still_a_pipe, "dyngraph {args:?} replaced the named pipe");
    reader.join().unwrap()
}

#[test]
fn writing_to_a_named_pipe_leaves_it_in_place() {
    let Some(pipe) = pipe_in("gen") else {
        return;
    };
    let path = pipe.to_str().unwrap();
    let edges = run_into(
        &pipe,
        &["gen", "kron", "--scale", "6", "--seed", "1", "-o", path],
    );
    let lines = edges
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    assert_eq!(lines, 16 << 6, "a Kronecker graph of scale 6, degree 16");

    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
    let json = run_into(&pipe, &["replay", sample, "--json", path]);
    let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(report["stores"][0]["edges"], 59835);
    std::fs::remove_dir_all(pipe.parent().unwrap()).unwrap();
}
