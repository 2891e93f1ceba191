//! Clusters of `dyngraph replay --hostfile FILE --process I` processes on
//! 127.0.0.1: their results equal a one-process run (`--workers 1`) and
//! the single machine's, and a process that never comes makes the others
//! exit with a clear error instead of hanging (the other faults:
//! `cluster_faults.rs`). Every child is killed when a test ends, passes or
//! fails (the guard's `Drop`), and every wait is bounded.
//!
//! The store is `csr-rebuild`: it keeps neighbours in arrival order, as the
//! single machine's rebuild does, so walk counts agree bit for bit.

mod common;

use common::nodes::*;
use common::*;
use dyngraph::core::{Semantics, StoreOptions};
use dyngraph::kernels::{
    KernelName, KernelOutput, PageRankMethod, PageRankResult, serial_bfs_depths, verify_pagerank,
};
use dyngraph::loader::LoadOptions;
use dyngraph::replay::{ReplayOptions, Window};
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// `dyngraph replay FILE --store csr-rebuild --gather FLAGS`: the job
/// every process of a test runs (`flags` split at blanks).
fn job(file: &Path, flags: &str) -> Vec<String> {
    let mut all = strings(&[file.to_str().unwrap(), "--store", "csr-rebuild", "--gather"]);
    all.extend(flags.split_whitespace().map(str::to_string));
    all
}

/// Starts `processes` processes with `threads` workers each on a fresh
/// host file; process 0 writes its report to `scratch/out.json`.
fn start(scratch: &Path, processes: usize, threads: usize, args: &[String]) -> Children {
    let hosts = hostfile(scratch, processes);
    start_each(scratch, 0..processes, |process| {
        let mut command = std::process::Command::new(DYNGRAPH);
        command
            .arg("replay")
            .args(args)
            .arg("--hostfile")
            .arg(&hosts)
            .args(["--process", &process.to_string()])
            .args(["--workers", &threads.to_string()])
            .arg("--json")
            .arg(scratch.join("out.json"));
        command
    })
}

/// Runs a cluster to completion and returns process 0's report; retries
/// with new ports if one was taken between choosing and binding.
fn run_cluster(scratch: &Path, processes: usize, threads: usize, args: &[String]) -> Value {
    for attempt in 0..3 {
        let mut children = start(scratch, processes, threads, args);
        let codes = children.wait_all(Duration::from_secs(60));
        if codes.iter().all(|&c| c == Some(0)) {
            for process in 1..processes {
                assert!(
                    children.stdout_of(process).is_empty(),
                    "process {process} wrote on stdout"
                );
            }
            let text = std::fs::read_to_string(scratch.join("out.json")).unwrap();
            return serde_json::from_str(&text).unwrap();
        }
        let stderr = children.stderr_text();
        if attempt < 2 && stderr.contains("in use") {
            continue;
        }
        panic!("cluster failed with {codes:?}:\n{stderr}");
    }
    unreachable!()
}

/// The same job as one process with one worker.
fn run_single_process(scratch: &Path, args: &[String]) -> Value {
    let out = scratch.join("single.json");
    let status = std::process::Command::new(DYNGRAPH)
        .arg("replay")
        .args(args)
        .args(["--workers", "1", "--json"])
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

fn counts(report: &Value) -> Vec<u64> {
    let s = &report["stores"][0];
    [
        "base_edges",
        "edges_inserted",
        "edges_deleted",
        "edges",
        "vertices",
        "batch_count",
    ]
    .iter()
    .map(|k| s[k].as_u64().unwrap())
    .collect()
}

fn u32s(value: &Value) -> Vec<u32> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect()
}

/// The gathered kernel values of a report's (only) store.
fn values(report: &Value) -> &Value {
    &report["distributed"][0]["values"]
}

/// Checks a cluster's report against the one-process run and the single
/// machine.
fn check(cluster: &Value, one: &Value, single: &SingleMachine, what: &str) {
    let summary = &single.summary;
    let expected = vec![
        summary.base_edges,
        summary.edges_inserted,
        summary.edges_deleted,
        summary.edges,
        summary.vertices,
        summary.batch_count as u64,
    ];
    assert_eq!(counts(cluster), expected, "{what}: cluster counts");
    assert_eq!(counts(one), expected, "{what}: one-process counts");
    assert!(
        cluster.get("verify_failures").is_none(),
        "{what}: {}",
        cluster["verify_failures"]
    );
    let (values, one_values) = (values(cluster), values(one));
    for (name, output) in &single.outputs {
        match output {
            KernelOutput::Bfs(s) => {
                let serial = serial_bfs_depths(&single.graph, s.source);
                assert_eq!(u32s(&values[name]["depths"]), serial, "{what}: bfs");
                assert_eq!(values[name], one_values[name], "{what}: bfs, one process");
            }
            KernelOutput::Components(s) => {
                assert_eq!(u32s(&values[name]["labels"]), s.labels, "{what}: cc");
                assert_eq!(values[name], one_values[name], "{what}: cc, one process");
            }
            KernelOutput::ReverseWalks(s) => {
                let bits: Vec<u64> = values[name]["visits_bits"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap())
                    .collect();
                let visits: Vec<f64> = bits.into_iter().map(f64::from_bits).collect();
                // Same sums in the same order: the same bits.
                assert!(
                    visits
                        .iter()
                        .zip(&s.visits)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{what}: walks"
                );
                assert_eq!(visits.len(), s.visits.len());
                assert_eq!(values[name], one_values[name], "{what}: walks, one process");
            }
            KernelOutput::PageRank(_) => {
                for report in [values, one_values] {
                    let result = PageRankResult {
                        scores: report[name]["scores_bits"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|v| f32::from_bits(v.as_u64().unwrap() as u32))
                            .collect(),
                        iterations: report[name]["iterations"].as_u64().unwrap() as usize,
                        last_change: 0.0,
                        method: PageRankMethod::Push,
                        damping: 0.85,
                    };
                    verify_pagerank(&single.graph, &result)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                }
            }
            _ => unreachable!(),
        }
    }
}

const ALL_KERNELS: [KernelName; 4] = [
    KernelName::PageRank,
    KernelName::Bfs,
    KernelName::Afforest,
    KernelName::ReverseWalks,
];

#[test]
fn three_processes_on_college_msg_equal_one_process_and_one_machine() {
    let scratch = Scratch::new("college");
    let input = college_msg();
    let args = job(
        &input,
        "--batch 5000 --window 20000edges --kernel pr,bfs,cc,rw --in-edges off --source 1 --verify --stall-timeout 30",
    );
    let cluster = run_cluster(&scratch.0, 3, 1, &args);
    let one = run_single_process(&scratch.0, &args);
    let replay = ReplayOptions {
        batch: 5000,
        window: Some(Window::Edges(20_000)),
        ..ReplayOptions::default()
    };
    let single = single_machine(
        &stream_of(&input, &LoadOptions::default()),
        &replay,
        StoreOptions::default(),
        &ALL_KERNELS,
        1,
    );
    check(&cluster, &one, &single, "CollegeMsg, 3 processes");
    for kernel in ["pr", "bfs", "cc", "rw"] {
        assert_eq!(
            cluster["stores"][0]["kernels"][kernel]["verified"], true,
            "{kernel}"
        );
    }
    let workers = cluster["distributed"][0]["workers"].as_array().unwrap();
    assert_eq!(workers.len(), 3);
    // Between processes every byte is remote.
    for worker in workers {
        let traffic = &worker["replay_traffic"];
        assert_eq!(traffic["bytes"], traffic["remote_bytes"]);
        assert!(traffic["bytes"].as_u64().unwrap() > 0);
    }
}

#[test]
fn two_processes_of_two_workers_on_a_kronecker_graph_equal_one_machine() {
    let scratch = Scratch::new("kron");
    let path = scratch.0.join("kron.el");
    let generated = std::process::Command::new(DYNGRAPH)
        .args(["gen", "kron", "--scale", "10", "--seed", "3", "-o"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let args = job(
        &path,
        "--batch 4000 --base 40 --kernel pr,bfs,cc,rw --source 0 --in-edges on --stall-timeout 30",
    );
    let cluster = run_cluster(&scratch.0, 2, 2, &args);
    let one = run_single_process(&scratch.0, &args);
    let replay = ReplayOptions {
        batch: 4000,
        base_percent: 40.0,
        ..ReplayOptions::default()
    };
    let single = single_machine(
        &stream_of(&path, &LoadOptions::default()),
        &replay,
        StoreOptions::default(),
        &ALL_KERNELS,
        0,
    );
    check(&cluster, &one, &single, "Kronecker, 2x2");
    let workers = cluster["distributed"][0]["workers"].as_array().unwrap();
    assert_eq!(workers.len(), 4);
    // Workers 0 and 1 share process 0: part of their bytes stay local.
    let local: u64 = workers
        .iter()
        .map(|w| {
            w["replay_traffic"]["bytes"].as_u64().unwrap()
                - w["replay_traffic"]["remote_bytes"].as_u64().unwrap()
        })
        .sum();
    assert!(local > 0);
}

#[test]
fn a_process_that_never_comes_makes_the_others_give_up_naming_it() {
    let scratch = Scratch::new("absent");
    let input = college_msg();
    let args = job(&input, "--batch 1024 --stall-timeout 3");
    let mut children = start(&scratch.0, 3, 1, &args);
    // Process 2 never starts.
    children.children[2].kill().unwrap();
    let ended = children.wait_for(&[0, 1], Duration::from_secs(30));
    let stderr = children.stderr_text();
    for (process, (code, took)) in ended.into_iter().enumerate() {
        // The CLI's exit code for every error.
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            took < Duration::from_secs(10),
            "process {process} took {took:?}"
        );
        let text = children.stderr_of(process);
        assert!(
            text.contains("process 2 (127.0.0.1:") && text.contains("hosts:3"),
            "process {process} does not name the absent process:\n{text}"
        );
        assert!(children.stdout_of(process).is_empty());
    }
}

#[test]
fn two_processes_on_email_eu_core_with_a_time_window_equal_one_machine() {
    // Time goes backwards in four places: the window's cursor must stop
    // where the single-machine engine stops, across processes.
    let Some(input) = shared_data("email-Eu-core-temporal-part.txt") else {
        return;
    };
    let scratch = Scratch::new("email");
    let args = job(
        &input,
        "--batch 7000 --window 200000 --simple --kernel bfs,cc --in-edges off --source 1 --stall-timeout 30",
    );
    let cluster = run_cluster(&scratch.0, 2, 1, &args);
    let one = run_single_process(&scratch.0, &args);
    let replay = ReplayOptions {
        batch: 7000,
        window: Some(Window::Time(200_000)),
        semantics: Semantics::Simple,
        ..ReplayOptions::default()
    };
    let single = single_machine(
        &stream_of(&input, &LoadOptions::default()),
        &replay,
        StoreOptions::new(Semantics::Simple),
        &[KernelName::Bfs, KernelName::Afforest],
        1,
    );
    assert!(single.summary.edges_deleted > 0);
    check(&cluster, &one, &single, "email-Eu-core, 2 processes");
}

/// The cluster path read every file with the default options: `--header`
/// and `--delimiter` were dropped (a CSV with a header row failed on it,
/// or its header was taken for an edge), though the fingerprint's
/// processes agreed. The same edges as comma-separated text with a header
/// give the same counts as the plain file.
#[test]
fn a_cluster_reads_the_file_as_its_flags_say() {
    let scratch = Scratch::new("csv-header");
    let text = std::fs::read_to_string(college_msg()).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.starts_with('#'))
        .take(6_000)
        .collect();
    let mut csv = String::from("src,dst,ts\n");
    for line in &lines {
        csv.push_str(&line.split_whitespace().collect::<Vec<_>>().join(","));
        csv.push('\n');
    }
    let plain = scratch.0.join("plain.txt");
    std::fs::write(&plain, lines.join("\n")).unwrap();
    let headed = scratch.0.join("headed.csv");
    std::fs::write(&headed, csv).unwrap();
    let report = |file: &Path, extra: &[&str]| {
        let mut args = job(file, "--batch 1000 --workers 2");
        args.extend(extra.iter().map(|s| s.to_string()));
        let output = std::process::Command::new(DYNGRAPH)
            .arg("replay")
            .args(&args)
            .args(["--json", "-"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        counts(&report)
    };
    let want = report(&plain, &[]);
    assert_eq!(want[3], 6_000, "edges");
    assert_eq!(report(&headed, &["--header", "--delimiter", "comma"]), want);
}
