//! Runs the built `dyngraph` binary: exit codes, messages, JSON fields, and
//! that the summary's edge counts equal the input's.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dyngraph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dyngraph"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn shared_data(name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipping: {} not found", path.display());
        None
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dyngraph-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Replays with `--json -` and returns the parsed report.
fn replay_json(args: &[&str]) -> Value {
    let mut all = vec!["replay", "--json", "-"];
    all.extend_from_slice(args);
    let output = dyngraph(&all);
    assert!(
        output.status.success(),
        "dyngraph {all:?} failed: {}",
        stderr(&output)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON document")
}

fn distinct_pairs(path: &Path, undirected: bool) -> (u64, u64) {
    let text = std::fs::read_to_string(path).expect("readable");
    let mut arrivals = 0u64;
    let mut pairs = std::collections::HashSet::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut fields = line.split_whitespace();
        let src: u32 = fields.next().and_then(|t| t.parse().ok()).expect("src");
        let dst: u32 = fields.next().and_then(|t| t.parse().ok()).expect("dst");
        arrivals += 1;
        pairs.insert((src, dst));
        if undirected && src != dst {
            arrivals += 1;
            pairs.insert((dst, src));
        }
    }
    (arrivals, pairs.len() as u64)
}

#[test]
fn replay_with_no_argument_replays_the_bundled_sample() {
    let output = dyngraph(&["replay"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("CollegeMsg.txt"), "{stdout}");
    assert!(stdout.contains("59835 edges"), "{stdout}");
}

#[test]
fn json_report_has_the_documented_fields() {
    let report = replay_json(&["--batch", "500", "--store", "csr-rebuild"]);
    let input = &report["input"];
    for field in ["path", "edges", "vertices", "order", "base_pct", "batch"] {
        assert!(!input[field].is_null(), "input.{field} missing: {input}");
    }
    assert_eq!(input["edges"], 59835);
    assert_eq!(input["vertices"], 1900);
    let stores = report["stores"].as_array().expect("stores is a list");
    assert_eq!(stores.len(), 1);
    let store = &stores[0];
    for field in [
        "store",
        "edges_inserted",
        "edges_deleted",
        "seconds",
        "meps",
        "bytes_per_edge",
        "kernels",
    ] {
        assert!(
            !store[field].is_null(),
            "stores[0].{field} missing: {store}"
        );
    }
    for field in ["rebalances", "elements_moved"] {
        assert!(
            store.get(field).is_some(),
            "stores[0].{field} absent: {store}"
        );
    }
    assert!(store["latency_ms"]["p50"].is_number() && store["latency_ms"]["p99"].is_number());
    assert_eq!(store["edges_inserted"], 59835);
    assert_eq!(store["edges"], 59835);
}

#[test]
fn edge_counts_equal_the_input_with_simple_undirected_and_window() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/CollegeMsg.txt");
    let sample = sample.to_str().expect("utf-8 path");
    let (arrivals, distinct) = distinct_pairs(Path::new(sample), false);
    let (arrivals_both, distinct_both) = distinct_pairs(Path::new(sample), true);

    let cases: [(&[&str], u64, u64); 4] = [
        (&[], arrivals, arrivals),
        (&["--simple"], distinct, distinct),
        (&["--undirected"], arrivals_both, arrivals_both),
        (&["--undirected", "--simple"], distinct_both, distinct_both),
    ];
    for (extra, inserted, stored) in cases {
        let mut args = vec![sample, "--batch", "2000", "--store", "csr-rebuild"];
        args.extend_from_slice(extra);
        let report = replay_json(&args);
        let store = &report["stores"][0];
        assert_eq!(store["edges_inserted"], inserted, "{extra:?}");
        assert_eq!(store["edges"], stored, "{extra:?}");
        assert_eq!(store["edges_deleted"], 0, "{extra:?}");
    }

    // A window of 10,000 arrivals: what remains is exactly the newest 10,000.
    let report = replay_json(&[
        sample,
        "--batch",
        "2000",
        "--store",
        "csr-rebuild",
        "--window",
        "10000edges",
    ]);
    let store = &report["stores"][0];
    assert_eq!(store["edges_inserted"], arrivals);
    assert_eq!(store["edges"], 10_000);
    assert_eq!(store["edges_deleted"], arrivals - 10_000);
}

#[test]
fn time_window_on_real_data_deletes_and_keeps_counts_consistent() {
    let Some(path) = shared_data("email-Eu-core-temporal-part.txt") else {
        return;
    };
    let path = path.to_str().expect("utf-8 path");
    let report = replay_json(&[
        path,
        "--batch",
        "5000",
        "--store",
        "csr-rebuild",
        "--window",
        "86400",
        "--order",
        "time",
    ]);
    let store = &report["stores"][0];
    let inserted = store["edges_inserted"].as_u64().expect("number");
    let deleted = store["edges_deleted"].as_u64().expect("number");
    assert_eq!(inserted, 83_083);
    assert!(
        deleted > 0,
        "a one-day window over the stream deletes edges"
    );
    assert_eq!(store["edges"].as_u64(), Some(inserted - deleted));
}

#[test]
fn csv_and_plot_are_written() {
    let dir = temp_dir("outputs");
    let (csv, svg) = (dir.join("r.csv"), dir.join("r.svg"));
    let output = dyngraph(&[
        "replay",
        "--batch",
        "5000",
        "--store",
        "csr-rebuild",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = std::fs::read_to_string(&csv).expect("csv written");
    assert!(text.starts_with("kind,store,batch,"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("summary,csr-rebuild,")));
    assert!(
        std::fs::read_to_string(&svg)
            .expect("svg written")
            .contains("<svg")
    );
}

#[test]
fn errors_exit_2_with_one_clear_message() {
    let cases: [(&[&str], &str); 5] = [
        (&["replay", "/no/such/file.txt"], "/no/such/file.txt"),
        (&["replay", "--store", "btree"], "btree"),
        (&["replay", "--base", "150"], "between 0 and 100"),
        (&["replay", "--window", "soon"], "not a window"),
        (&["replay", "--batch", "0"], "positive"),
    ];
    for (args, needle) in cases {
        let output = dyngraph(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        let message = stderr(&output);
        assert!(message.contains(needle), "{args:?}: {message}");
        assert!(!message.contains("panicked"), "{args:?}: {message}");
    }
}

#[test]
fn malformed_input_names_file_line_and_column() {
    let dir = temp_dir("bad");
    let path = dir.join("bad.txt");
    std::fs::write(&path, "1 2 100\n3 x 200\n").expect("write");
    let output = dyngraph(&["replay", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("bad.txt:2:3"), "{message}");
}

#[test]
fn gen_load_run_and_convert_round_trip() {
    let dir = temp_dir("subcommands");
    let el = dir.join("k.el");
    let output = dyngraph(&[
        "gen",
        "kron",
        "--scale",
        "10",
        "--degree",
        "8",
        "--order",
        "shuffle",
        "-o",
        el.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));

    let output = dyngraph(&["load", el.to_str().unwrap(), "--json", "-"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(report["edges"], 8 * 1024);
    for field in [
        "vertices",
        "edges",
        "read_seconds",
        "build_seconds",
        "edges_per_second",
        "bytes",
    ] {
        assert!(report[field].is_number(), "{field} missing: {report}");
    }

    let mtx = dir.join("k.mtx");
    let output = dyngraph(&["convert", el.to_str().unwrap(), mtx.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let output = dyngraph(&["load", mtx.to_str().unwrap(), "--json", "-"]);
    let converted: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(converted["edges"], report["edges"]);

    for kernel in ["pr", "bfs", "sssp", "cc", "bc", "tc", "walk"] {
        let output = dyngraph(&[
            "run",
            kernel,
            el.to_str().unwrap(),
            "-n",
            "2",
            "--verify",
            "--threads",
            "2",
        ]);
        assert!(output.status.success(), "{kernel}: {}", stderr(&output));
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            stdout.matches("[verified]").count(),
            2,
            "{kernel}: {stdout}"
        );
        assert!(stdout.contains("average:"), "{stdout}");
    }
}

#[test]
fn run_rejects_a_source_outside_the_graph() {
    let dir = temp_dir("run-source");
    let el = dir.join("u.el");
    assert!(
        dyngraph(&["gen", "uniform", "--scale", "6", "-o", el.to_str().unwrap()])
            .status
            .success()
    );
    let output = dyngraph(&["run", "bfs", el.to_str().unwrap(), "--source", "64"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--source 64"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn replay_with_kernels_verifies_and_reports_ratios() {
    let report = replay_json(&[
        "--batch",
        "10000",
        "--store",
        "csr-rebuild",
        "--kernel",
        "pr,bfs,cc,tc",
        "--verify",
        "--every",
        "2",
    ]);
    let kernels = &report["stores"][0]["kernels"];
    for kernel in ["pr", "bfs", "cc", "tc"] {
        let timing = &kernels[kernel];
        for field in ["seconds", "csr_seconds", "ratio"] {
            assert!(timing[field].is_number(), "{kernel}.{field}: {kernels}");
        }
        assert_eq!(timing["verified"], true, "{kernel}");
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_cleanly_and_prints_the_summary_so_far() {
    use std::process::Stdio;
    // csr-rebuild at one edge per batch takes far longer than a second.
    let child = Command::new(env!("CARGO_BIN_EXE_dyngraph"))
        .args([
            "replay",
            "--store",
            "csr-rebuild",
            "--batch",
            "1",
            "--json",
            "-",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let output = child.wait_with_output().expect("the binary exits");
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status.code(),
        stderr(&output)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("a summary is printed");
    let store = &report["stores"][0];
    assert_eq!(store["interrupted"], true);
    let inserted = store["edges_inserted"].as_u64().expect("number");
    assert!(inserted < 59_835, "stopped early: {inserted}");
    assert_eq!(
        store["edges"].as_u64(),
        Some(inserted),
        "the summary covers exactly what was replayed"
    );
}

#[test]
fn every_store_ends_with_the_same_graph_and_verified_kernels() {
    let stores = "vcsr,pcsr,bal,csrpp,csr-rebuild";
    let mut runs: Vec<(String, Vec<&str>)> = vec![(
        "bundled sample, simple, window".into(),
        vec!["--simple", "--window", "10000edges", "--batch", "1000"],
    )];
    let dnc = shared_data("dnc-temporal.txt");
    if let Some(path) = &dnc {
        runs.push((
            "dnc-temporal, undirected, self-loops".into(),
            vec![
                path.to_str().unwrap(),
                "--undirected",
                "--batch",
                "2000",
                "--order",
                "time",
            ],
        ));
    }
    for (name, extra) in runs {
        let mut args = vec!["--store", stores, "--kernel", "pr,bfs,cc,sssp", "--verify"];
        args.extend(extra);
        let report = replay_json(&args);
        let summaries = report["stores"].as_array().expect("stores");
        assert_eq!(summaries.len(), 5, "{name}");
        let first = &summaries[0];
        for store in summaries {
            for field in ["edges_inserted", "edges_deleted", "edges", "vertices"] {
                assert_eq!(
                    store[field], first[field],
                    "{name}: {} {field}",
                    store["store"]
                );
            }
            for kernel in ["pr", "bfs", "cc", "sssp"] {
                assert_eq!(
                    store["kernels"][kernel]["verified"], true,
                    "{name}: {} {kernel}",
                    store["store"]
                );
            }
        }
        let pma_counters = summaries
            .iter()
            .filter(|s| s["rebalances"].is_number())
            .count();
        assert_eq!(
            pma_counters, 2,
            "{name}: vcsr and pcsr report rebalances, the others null"
        );
    }
}

#[test]
fn convert_round_trips_through_a_binary_snapshot_and_rejects_a_truncated_one() {
    let dir = temp_dir("snapshot");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/CollegeMsg.txt");
    let (snapshot, text) = (dir.join("c.dgcsr"), dir.join("c.el"));
    let output = dyngraph(&[
        "convert",
        sample.to_str().unwrap(),
        snapshot.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let output = dyngraph(&[
        "convert",
        snapshot.to_str().unwrap(),
        text.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let loaded: Value =
        serde_json::from_slice(&dyngraph(&["load", text.to_str().unwrap(), "--json", "-"]).stdout)
            .expect("json");
    assert_eq!(
        (loaded["edges"].as_u64(), loaded["vertices"].as_u64()),
        (Some(59_835), Some(1_900))
    );

    let bytes = std::fs::read(&snapshot).expect("snapshot written");
    let truncated = dir.join("t.dgcsr");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).expect("write");
    let output = dyngraph(&[
        "convert",
        truncated.to_str().unwrap(),
        text.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("invalid snapshot"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn run_builds_every_store_and_verifies() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/CollegeMsg.txt");
    for store in ["csr", "vcsr", "pcsr", "bal", "csrpp"] {
        for kernel in ["pr", "bfs", "cc"] {
            let output = dyngraph(&[
                "run",
                kernel,
                sample.to_str().unwrap(),
                "--store",
                store,
                "-n",
                "1",
                "--verify",
            ]);
            assert!(
                output.status.success(),
                "{store} {kernel}: {}",
                stderr(&output)
            );
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                stdout.contains("[verified]") && stdout.contains("59835 edges"),
                "{store} {kernel}: {stdout}"
            );
        }
    }
}
