//! Runs the built `dyngraph` binary: exit codes, messages, JSON fields, and
//! that the summary's edge counts equal the input's.

mod common;

use common::{dyngraph, stderr};

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
    for field in [
        "path", "edges", "vertices", "order", "base_pct", "batch", "in_edges", "weights",
    ] {
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
    // Without kernels nothing needs in-edges, and the input has no weights.
    assert_eq!(store["in_edges"], false);
    assert_eq!(store["weighted"], false);
    // Groups of batches, each record saying how many batches it holds.
    let records = store["batches"].as_array().expect("records");
    let batches: u64 = records.iter().map(|r| r["batches"].as_u64().unwrap()).sum();
    assert_eq!(batches, store["batch_count"].as_u64().unwrap());
}

#[test]
fn in_edges_are_kept_only_when_a_kernel_uses_them_and_the_mode_says_so() {
    // Auto: PageRank pulls, so in-edges are kept and the mode says pull.
    let report = replay_json(&[
        "--batch",
        "5000",
        "--store",
        "vcsr,csrpp",
        "--kernel",
        "pr,tc",
    ]);
    for store in report["stores"].as_array().unwrap() {
        assert_eq!(store["in_edges"], true, "{}", store["store"]);
        assert_eq!(store["kernels"]["pr"]["mode"], "pull (in-edges)");
    }
    assert!(
        report["input"]["in_edges"]
            .as_str()
            .unwrap()
            .contains("used by pr")
    );
    // Forced off: PageRank pushes and says so.
    let report = replay_json(&[
        "--batch",
        "5000",
        "--store",
        "vcsr",
        "--kernel",
        "pr",
        "--in-edges",
        "off",
        "--verify",
    ]);
    let store = &report["stores"][0];
    assert_eq!(store["in_edges"], false);
    assert_eq!(store["kernels"]["pr"]["mode"], "push (no in-edges)");
    assert_eq!(store["kernels"]["pr"]["verified"], true);
}

#[test]
fn string_ids_are_named_in_the_pagerank_top_vertices() {
    let dir = temp_dir("string-ids");
    let path = dir.join("names.txt");
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!("user{i} hub\nhub user{i}\n"));
    }
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap();
    let report = replay_json(&[path, "--store", "vcsr", "--kernel", "pr", "--verify"]);
    let top = &report["stores"][0]["kernels"]["pr"]["top"];
    assert_eq!(top[0]["id"], "hub", "{top}");
    let output = dyngraph(&["run", "pr", path, "--store", "csrpp", "-n", "1"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("top vertices: hub ("), "{stdout}");
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
fn convert_round_trips_through_a_binary_csr_file_and_rejects_a_truncated_one() {
    let dir = temp_dir("csr-file");
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
        stderr(&output).contains("not a valid binary Csr file"),
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

#[test]
fn durable_replay_survives_and_recover_reports_it() {
    let dir = temp_dir("durable").join("store");
    let _ = std::fs::remove_dir_all(&dir);
    let dir_text = dir.to_str().unwrap();
    let report = replay_json(&[
        "--store", "durable", "--dir", dir_text, "--sync", "1000", "--batch", "1000", "--kernel",
        "pr,bfs", "--verify",
    ]);
    let store = &report["stores"][0];
    assert_eq!(store["store"], "durable");
    assert_eq!(store["edges"], 59835);
    assert_eq!(store["kernels"]["pr"]["verified"], true);
    // The durable store keeps in-edges when a kernel pulls over them.
    assert_eq!(store["kernels"]["pr"]["mode"], "pull (in-edges)");
    // The files stay, and reopen with every edge.
    let output = dyngraph(&["recover", dir_text]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("edges: 59835"), "{stdout}");
    assert!(stdout.contains("nothing to repair"), "{stdout}");
    // Replaying into the same directory again is refused, not a silent overwrite.
    let output = dyngraph(&["replay", "--store", "durable", "--dir", dir_text]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("already holds a durable store"),
        "{}",
        stderr(&output)
    );
    // A directory that is not a store: a clear error, exit 2.
    let output = dyngraph(&["recover", temp_dir("not-a-store").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
}

/// `--durable-memory` reaches the store: with a bound of 1 MiB of changed
/// pages the replay checkpoints as it goes and keeps every edge; 0 is
/// refused at the command line.
#[test]
fn durable_memory_bound_keeps_every_edge() {
    let dir = temp_dir("durable-memory").join("store");
    let _ = std::fs::remove_dir_all(&dir);
    let dir_text = dir.to_str().unwrap();
    let report = replay_json(&[
        "--store",
        "durable",
        "--dir",
        dir_text,
        "--batch",
        "5000",
        "--durable-memory",
        "1",
    ]);
    let store = &report["stores"][0];
    assert_eq!(store["edges"], 59835);
    assert_eq!(store["acknowledged_edges"], 59835);
    let output = dyngraph(&["recover", dir_text, "--check"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("edges: 59835"), "{stdout}");
    let output = dyngraph(&["replay", "--store", "durable", "--durable-memory", "0"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

/// Issue 26: a kept store takes tomorrow's edges (`replay --append`), and
/// `run`, `load` and `recover --json` work on the directory in place.
#[test]
fn durable_store_is_appended_to_and_analysed_in_place() {
    let dir = temp_dir("durable-kept").join("store");
    let _ = std::fs::remove_dir_all(&dir);
    let dir_text = dir.to_str().unwrap();
    let first = replay_json(&["--store", "durable", "--dir", dir_text, "--batch", "5000"]);
    let store = &first["stores"][0];
    assert_eq!(store["edges"], 59835);
    // Synced every batch: everything applied is acknowledged.
    assert_eq!(store["acknowledged_edges"], 59835);

    let second = replay_json(&[
        "--store", "durable", "--dir", dir_text, "--batch", "5000", "--append",
    ]);
    let store = &second["stores"][0];
    assert_eq!(
        store["edges"],
        2 * 59835,
        "the second day's edges go on top"
    );
    assert_eq!(store["acknowledged_edges"], 2 * 59835);
    let notes = second["notes"].to_string();
    assert!(notes.contains("appending to the durable store"), "{notes}");

    // A kernel on the kept graph, read in place.
    let output = dyngraph(&["run", "pr", dir_text, "-n", "1", "--verify"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("[verified]")
            && stdout.contains("119670 edges")
            && stdout.contains("read-only"),
        "{stdout}"
    );

    let output = dyngraph(&["load", dir_text, "--json", "-"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let load: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(load["input"], "durable-store");
    assert_eq!(load["edges"], 2 * 59835);
    assert_eq!(load["acknowledged_edges"], 2 * 59835);

    let output = dyngraph(&["recover", dir_text, "--json", "-"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let recover: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(recover["edges"], 2 * 59835);
    assert_eq!(recover["acknowledged_edges"], 2 * 59835);
    assert_eq!(recover["repaired"], false);

    let output = dyngraph(&["recover", dir_text, "--check"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("checked: valid"));

    // A layout that differs from the kept store's is refused, naming it.
    let output = dyngraph(&[
        "replay", "--store", "durable", "--dir", dir_text, "--append", "--simple",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("semantics"), "{}", stderr(&output));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 26 defect 5: `--threads 10000` hung for a minute, `--threads 0`
/// was taken by `load` and `run` and refused by `replay`.
#[test]
fn threads_are_checked_alike_by_every_command() {
    for command in ["load", "run", "replay"] {
        for threads in ["0", "100000"] {
            let mut args = vec![command];
            if command == "run" {
                args.push("pr");
            }
            if command != "replay" {
                args.push("../../data/CollegeMsg.txt");
            }
            args.extend(["--threads", threads]);
            let output = dyngraph(&args);
            assert_eq!(output.status.code(), Some(2), "{args:?}");
            assert!(
                stderr(&output).contains("--threads"),
                "{args:?}: {}",
                stderr(&output)
            );
        }
    }
}

/// Ports free right now on 127.0.0.1 (held together so they differ).
#[cfg(feature = "dist")]
fn free_ports(count: usize) -> Vec<u16> {
    let listeners: Vec<std::net::TcpListener> = (0..count)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect()
}

#[test]
#[cfg(feature = "dist")]
fn distributed_replay_in_threads_and_two_processes_equals_one_machine() {
    let single = replay_json(&[
        "--store", "vcsr", "--batch", "2000", "--kernel", "pr,cc", "--verify",
    ]);
    let threads = replay_json(&[
        "--store",
        "vcsr",
        "--batch",
        "2000",
        "--kernel",
        "pr,cc",
        "--verify",
        "--workers",
        "2",
    ]);
    for report in [&single, &threads] {
        assert_eq!(report["stores"][0]["edges"], 59835);
        assert_eq!(report["stores"][0]["kernels"]["cc"]["verified"], true);
    }
    assert_eq!(threads["distributed"][0]["cluster"]["workers"], 2);
    let owned: u64 = threads["distributed"][0]["workers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["edges_owned"].as_u64().unwrap())
        .sum();
    assert_eq!(owned, 59835, "every edge owned by exactly one worker");

    // Two processes on 127.0.0.1 from a host file.
    let dir = temp_dir("hostfile");
    let hostfile = dir.join("hosts.txt");
    let ports = free_ports(2);
    std::fs::write(
        &hostfile,
        ports
            .iter()
            .map(|p| format!("127.0.0.1:{p}\n"))
            .collect::<String>(),
    )
    .unwrap();
    let json = dir.join("report.json");
    let spawn = |process: usize| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_dyngraph"));
        command.args([
            "replay",
            "--store",
            "vcsr",
            "--batch",
            "2000",
            "--kernel",
            "pr,cc",
            "--verify",
            "--hostfile",
            hostfile.to_str().unwrap(),
            "--process",
            &process.to_string(),
        ]);
        if process == 0 {
            command.args(["--json", json.to_str().unwrap()]);
        }
        command
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("starts")
    };
    let mut children = vec![spawn(0), spawn(1)];
    // Bounded: no child outlives two minutes, whatever happens.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let mut statuses = vec![None, None];
    while statuses.iter().any(Option::is_none) && std::time::Instant::now() < deadline {
        for (child, status) in children.iter_mut().zip(&mut statuses) {
            if status.is_none() {
                *status = child.try_wait().expect("waits");
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    for child in &mut children {
        let _ = child.kill();
    }
    for (process, status) in statuses.iter().enumerate() {
        let status = status.unwrap_or_else(|| panic!("process {process} did not finish in time"));
        assert!(status.success(), "process {process}: {status}");
    }
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let store = &report["stores"][0];
    assert_eq!(store["edges"], single["stores"][0]["edges"]);
    assert_eq!(store["kernels"]["pr"]["verified"], true);
    assert_eq!(store["kernels"]["cc"]["verified"], true);
    assert_eq!(report["distributed"][0]["cluster"]["processes"], 2);
    let top_single = &single["stores"][0]["kernels"]["pr"]["top"][0]["id"];
    assert_eq!(&store["kernels"]["pr"]["top"][0]["id"], top_single);
}

#[test]
#[cfg(feature = "dist")]
fn distributed_replay_refuses_what_needs_the_whole_stream() {
    let output = dyngraph(&["replay", "--workers", "2", "--order", "shuffle"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("distributed replay"),
        "{}",
        stderr(&output)
    );
    let output = dyngraph(&["replay", "--workers", "2", "--store", "durable"]);
    assert_eq!(output.status.code(), Some(2));
    let output = dyngraph(&["replay", "--hostfile", "/nonexistent/hosts"]);
    assert_eq!(output.status.code(), Some(2));
}

/// The cluster's own flags: refused on one machine, where they would do
/// nothing.
#[test]
fn cluster_flags_need_a_cluster() {
    for flag in [
        &["--gather"][..],
        &["--stall-timeout", "5"],
        &["--partitioner", "modulo"],
    ] {
        let mut args = vec!["replay", "--store", "vcsr"];
        args.extend_from_slice(flag);
        let output = dyngraph(&args);
        assert_eq!(output.status.code(), Some(2), "{flag:?}");
        assert!(
            stderr(&output).contains("need a cluster"),
            "{flag:?}: {}",
            stderr(&output)
        );
    }
}

/// With a cluster, the partitioner reaches the report and `--gather` puts
/// every vertex's kernel result in the JSON.
#[test]
#[cfg(feature = "dist")]
fn cluster_flags_reach_the_cluster() {
    let report = replay_json(&[
        "--store",
        "vcsr,pcsr",
        "--batch",
        "20000",
        "--kernel",
        "cc",
        "--workers",
        "2",
        "--partitioner",
        "modulo",
        "--gather",
    ]);
    for (i, store) in ["vcsr", "pcsr"].into_iter().enumerate() {
        let run = &report["distributed"][i];
        assert_eq!(run["store"], store);
        assert_eq!(run["cluster"]["partitioner"], "modulo");
        let vertices = report["stores"][i]["vertices"].as_u64().unwrap();
        let labels = run["values"]["cc"]["labels"].as_array().unwrap();
        assert_eq!(labels.len() as u64, vertices, "{store}");
        assert_eq!(labels[0], 0, "{store}: vertex 0 never occurs");
    }
    let without = replay_json(&["--store", "vcsr", "--kernel", "cc", "--workers", "2"]);
    assert!(without["distributed"][0].get("values").is_none());
}

/// Built without the `dist` feature (the default), asking for a cluster is
/// refused before any work, naming the feature, not "unexpected argument".
#[test]
#[cfg(not(feature = "dist"))]
fn a_cluster_without_the_dist_feature_names_the_feature() {
    for args in [
        &["replay", "--workers", "2"][..],
        &["replay", "--hostfile", "hosts", "--process", "0"],
    ] {
        let output = dyngraph(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let message = stderr(&output);
        assert!(
            message.contains("--features dist") && message.lines().count() == 1,
            "{args:?}: {message}"
        );
        assert!(output.stdout.is_empty(), "{args:?}: work was done");
    }
}

// ---- issue 20, the reliability sweep: one test per defect ----

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/CollegeMsg.txt")
}

/// Converts the bundled sample to a binary Csr file at `path`.
fn csr_file_of_the_sample(path: &Path) {
    let output = dyngraph(&[
        "convert",
        sample().to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
}

/// Asserts a failure with exit code 2 and exactly one line on stderr,
/// `error: ...`, in which no `: `-separated part is repeated (the source
/// chain printed once), and returns that line.
fn one_line_error(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(2), "{}", stderr(output));
    let text = stderr(output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    let line = lines[0];
    assert!(line.starts_with("error: "), "{line}");
    assert!(!line.contains("panicked"), "{line}");
    let parts: Vec<&str> = line.split(": ").collect();
    for (i, part) in parts.iter().enumerate() {
        assert!(!parts[i + 1..].contains(part), "{part:?} twice in {line}");
    }
    line.to_string()
}

/// Issue 20: `dyngraph load g.dgcsr` and `dyngraph run pr g.dgcsr` parsed
/// the binary file as text and failed at `1:1`.
#[test]
fn binary_csr_file_is_accepted_by_load_run_and_replay_whatever_its_extension() {
    let dir = temp_dir("csr-input");
    let written = dir.join("g.dgcsr");
    csr_file_of_the_sample(&written);
    for name in ["g.dgcsr", "g.txt", "g"] {
        let path = dir.join(name);
        if name != "g.dgcsr" {
            std::fs::copy(&written, &path).unwrap();
        }
        let path = path.to_str().unwrap();

        let output = dyngraph(&["load", path, "--json", "-"]);
        assert!(output.status.success(), "{name}: {}", stderr(&output));
        let report: Value = serde_json::from_slice(&output.stdout).expect("json");
        assert_eq!(report["input"], "binary-csr", "{name}");
        assert_eq!(
            (report["edges"].as_u64(), report["vertices"].as_u64()),
            (Some(59_835), Some(1_900)),
            "{name}"
        );

        for store in ["csr", "vcsr"] {
            let output = dyngraph(&["run", "pr", path, "--store", store, "-n", "1", "--verify"]);
            assert!(
                output.status.success(),
                "{name} {store}: {}",
                stderr(&output)
            );
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                stdout.contains("[verified]") && stdout.contains("59835 edges"),
                "{name} {store}: {stdout}"
            );
        }

        let report = replay_json(&[path, "--store", "vcsr", "--batch", "1000"]);
        assert_eq!(report["input"]["edges"], 59_835, "{name}");
        assert_eq!(report["stores"][0]["edges"], 59_835, "{name}");
    }
}

#[test]
fn run_gives_the_same_pagerank_from_the_binary_file_as_from_text() {
    let dir = temp_dir("csr-same");
    let path = dir.join("g.dgcsr");
    csr_file_of_the_sample(&path);
    let summary = |file: &Path| {
        let output = dyngraph(&["run", "pr", file.to_str().unwrap(), "-n", "1"]);
        assert!(output.status.success(), "{}", stderr(&output));
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let line = stdout
            .lines()
            .find(|l| l.starts_with("trial 1:"))
            .unwrap()
            .to_string();
        line.split("  ").nth(1).unwrap().to_string()
    };
    assert_eq!(summary(&path), summary(&sample()));
}

/// Issue 20: a corrupt or truncated binary file must be refused with the
/// reason wherever it is read.
#[test]
fn truncated_binary_csr_file_is_refused_with_the_reason_by_every_command() {
    let dir = temp_dir("csr-cut");
    let path = dir.join("g.dgcsr");
    csr_file_of_the_sample(&path);
    let bytes = std::fs::read(&path).unwrap();
    let cut = dir.join("cut.dgcsr");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let cut = cut.to_str().unwrap();
    for args in [
        vec!["load", cut],
        vec!["run", "pr", cut],
        vec!["run", "bfs", cut, "--store", "csrpp"],
        vec!["replay", cut],
    ] {
        let line = one_line_error(&dyngraph(&args));
        assert!(
            line.starts_with(&format!("error: {cut}: not a valid binary Csr file: ")),
            "{args:?}: {line}"
        );
        assert!(
            line.ends_with("(the file is truncated; write it again)"),
            "{line}"
        );
    }
}

/// Issue 20: `nonexist.el: No such file or directory (os error 2): No
/// such file or directory (os error 2)`, `trunc.el.gz: unexpected end of
/// file: unexpected end of file`, and `No such device (os error 19)` for a
/// directory.
#[test]
fn errors_print_their_chain_once_with_the_path_and_a_remedy() {
    let dir = temp_dir("chain");
    let missing = dir.join("nonexist.el");
    let line = one_line_error(&dyngraph(&["load", missing.to_str().unwrap()]));
    assert_eq!(
        line,
        format!(
            "error: {}: No such file or directory (os error 2) (check the path)",
            missing.display()
        )
    );

    let text: String = (0..20_000).map(|i| format!("{i} {}\n", i + 1)).collect();
    let gzip = dir.join("whole.el.gz");
    let output = dyngraph(&[
        "convert",
        sample().to_str().unwrap(),
        gzip.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let bytes = std::fs::read(&gzip).unwrap();
    let truncated = dir.join("trunc.el.gz");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    for command in ["load", "replay"] {
        let line = one_line_error(&dyngraph(&[command, truncated.to_str().unwrap()]));
        assert!(
            line.starts_with(&format!(
                "error: {}: gzip data ends early, at compressed byte {} of {}",
                truncated.display(),
                bytes.len() / 2,
                bytes.len() / 2
            )),
            "{line}"
        );
        assert!(
            line.ends_with("the file is truncated; download or compress it again"),
            "{line}"
        );
    }
    drop(text);

    let line = one_line_error(&dyngraph(&["replay", dir.to_str().unwrap()]));
    assert_eq!(
        line,
        format!(
            "error: {}: is a directory, not a graph file (give the path of a file, not a \
             directory)",
            dir.display()
        ),
    );
    // `load` and `run` also take a durable store's directory: they say
    // this one holds none, and what it holds.
    for command in [vec!["load"], vec!["run", "pr"]] {
        let mut args = command.clone();
        args.push(dir.to_str().unwrap());
        let line = one_line_error(&dyngraph(&args));
        assert_eq!(
            line,
            format!(
                "error: {} is a directory that holds no durable store (trunc.el.gz, \
                 whole.el.gz): give a graph file, or the directory of a durable store \
                 (`replay --store durable --dir DIR`)",
                dir.display()
            ),
            "{command:?}"
        );
    }
}

/// Issue 20: a Matrix Market `integer` file with the value `1.5` loaded
/// without a word.
#[test]
fn matrix_market_integer_file_with_a_real_value_fails_at_its_line_and_column() {
    let dir = temp_dir("mtx-int");
    let path = dir.join("int.mtx");
    std::fs::write(
        &path,
        "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 3\n2 3 1.5\n",
    )
    .unwrap();
    for command in ["load", "replay"] {
        let line = one_line_error(&dyngraph(&[command, path.to_str().unwrap()]));
        assert_eq!(
            line,
            format!(
                "error: {}:4:5: value 1.5 is not an integer, but the Matrix Market header \
                 declares the field 'integer' (fix the value, or declare the field 'real')",
                path.display()
            )
        );
    }
}

/// Issue 20: `replay --json /nonexistent/dir/x.json` ran the whole replay,
/// then failed.
#[test]
fn unwritable_output_fails_at_once_before_any_work() {
    let bad = "/nonexistent/dir/x.json";
    let expected = "error: /nonexistent/dir/x.json: cannot create a file there: the directory \
                    /nonexistent/dir does not exist (check the path)";
    for args in [
        vec!["replay", "--json", bad],
        vec!["replay", "--csv", bad],
        vec!["replay", "--plot", bad],
        vec!["replay", "--json", "-", "--csv", bad],
        vec!["load", sample().to_str().unwrap(), "--json", bad],
        vec![
            "convert",
            sample().to_str().unwrap(),
            "/nonexistent/dir/x.json.el",
        ],
        vec![
            "gen",
            "kron",
            "--scale",
            "4",
            "-o",
            "/nonexistent/dir/x.json.el",
        ],
    ] {
        let output = dyngraph(&args);
        let line = one_line_error(&output);
        // Nothing was replayed, loaded, converted or generated first.
        assert!(
            output.stdout.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        if args.contains(&bad) {
            assert_eq!(line, expected, "{args:?}");
        } else {
            assert!(line.contains("/nonexistent/dir does not exist"), "{line}");
        }
    }
    // A directory as the output is refused by name.
    let dir = temp_dir("out-dir");
    let line = one_line_error(&dyngraph(&["replay", "--json", dir.to_str().unwrap()]));
    assert!(
        line.ends_with(": is a directory (give the path of a file, not a directory)"),
        "{line}"
    );
}

/// Issue 20: an input with no edges replayed to a table of `-0.0000`
/// seconds.
#[test]
fn input_with_no_edges_says_there_is_nothing_to_replay() {
    let dir = temp_dir("no-edges");
    let comments = dir.join("comments.txt");
    std::fs::write(&comments, "# a header\n% and nothing else\n").unwrap();
    let mtx = dir.join("zero.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate pattern general\n5 5 0\n",
    )
    .unwrap();
    for path in [comments, mtx] {
        let output = dyngraph(&["replay", path.to_str().unwrap(), "--json", "-"]);
        let line = one_line_error(&output);
        assert_eq!(
            line,
            format!(
                "error: nothing to replay: {} has no edges (only comments, blank lines or a \
                 header); give a file with at least one edge",
                path.display()
            )
        );
        assert!(output.stdout.is_empty());
    }
}

/// Runs `dyngraph args` under `sh` with the file-size limit at `blocks`
/// (of `ulimit -f`), `SIGXFSZ` ignored when `ignore_signal` (a write past
/// the limit then fails with `EFBIG`) or left to kill the process
/// mid-write, as a crash would.
fn dyngraph_size_limited(args: &[&str], blocks: u32, ignore_signal: bool) -> Output {
    let trap = if ignore_signal { "trap '' XFSZ; " } else { "" };
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -f {blocks}; {trap}exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_dyngraph"))
        .args(args)
        .output()
        .expect("sh runs")
}

fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".tmp"))
        .collect()
}

/// Issue 20: `convert` and the report writers wrote the final file in
/// place, so a full disk or a crash mid-write left a truncated file under
/// the final name and destroyed the previous one.
#[test]
fn a_write_cut_off_by_the_file_size_limit_keeps_the_previous_file() {
    let dir = temp_dir("fsize");
    let previous = b"the previous file, which must survive\n";
    // 64 blocks of `ulimit -f` are 32 or 64 KiB, 8 are 4 or 8 KiB; every
    // output below is larger than its limit (the binary file ~500 KB, the
    // edge list ~600 KB, the CSV of four stores' timed groups ~20 KB), so
    // each write is cut off mid-way.
    let gen_kron = ["gen", "kron", "--scale", "12", "-o"]
        .map(String::from)
        .to_vec();
    let cases: [(&str, Vec<String>); 5] = [
        // Issue 29: `gen` streams its edges to a temporary name too.
        ("k.dges", gen_kron.clone()),
        ("k.el", gen_kron),
        (
            "g.dgcsr",
            vec!["convert".into(), sample().display().to_string()],
        ),
        (
            "g.el",
            vec!["convert".into(), sample().display().to_string()],
        ),
        (
            "batches.csv",
            vec![
                "replay".into(),
                "--store".into(),
                "vcsr,pcsr,bal,csrpp".into(),
                "--batch".into(),
                "50".into(),
                "--csv".into(),
            ],
        ),
    ];
    for (name, command) in &cases {
        for ignore_signal in [true, false] {
            let target = dir.join(name);
            std::fs::write(&target, previous).unwrap();
            let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
            args.push(target.to_str().unwrap());
            // The CSV of timed groups is smaller: cut it off at 8 blocks.
            let blocks = if name.ends_with(".csv") { 8 } else { 64 };
            let output = dyngraph_size_limited(&args, blocks, ignore_signal);
            assert!(
                !output.status.success(),
                "{name}: the write should have failed"
            );
            assert_eq!(
                std::fs::read(&target).unwrap(),
                previous,
                "{name}: the previous file was damaged"
            );
            if ignore_signal {
                // A clean error: exit 2, one line naming the file and the
                // limit, and no temporary file left behind.
                let line = one_line_error(&output);
                assert!(
                    line.starts_with(&format!("error: {}: File too large", target.display())),
                    "{line}"
                );
                assert!(
                    line.ends_with("(the file-size limit was reached (see `ulimit -f`))"),
                    "{line}"
                );
                assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
            } else {
                // Killed mid-write like a crash: only a temporary file
                // beside the target can be left; remove it.
                for name in temporaries(&dir) {
                    std::fs::remove_file(dir.join(name)).unwrap();
                }
            }
        }
    }
    // Without the limit the same commands replace the file.
    for (name, command) in &cases {
        let target = dir.join(name);
        let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
        args.push(target.to_str().unwrap());
        let output = dyngraph(&args);
        assert!(output.status.success(), "{name}: {}", stderr(&output));
        assert_ne!(std::fs::read(&target).unwrap(), previous, "{name}");
    }
}

/// Issue 29: running out of space while a replay appends to a durable
/// store must not lose what the store held: the command fails with one
/// line naming the file, and the store opens with every edge it had and
/// every edge it acknowledged since, whether the write failed cleanly or
/// the process was killed mid-write.
#[test]
fn out_of_space_while_appending_to_a_durable_store_loses_nothing_stored() {
    let dir = temp_dir("durable-fsize");
    let text = std::fs::read_to_string(sample()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (first, second) = lines.split_at(lines.len() / 2);
    let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
    std::fs::write(&a, first.join("\n") + "\n").unwrap();
    std::fs::write(&b, second.join("\n") + "\n").unwrap();
    let edges = |store: &Path| -> (u64, u64) {
        let output = dyngraph(&["load", store.to_str().unwrap(), "--json", "-"]);
        assert!(output.status.success(), "{}", stderr(&output));
        let json: Value = serde_json::from_slice(&output.stdout).unwrap();
        let count = |key: &str| json[key].as_u64().unwrap();
        (count("edges"), count("acknowledged_edges"))
    };
    for ignore_signal in [true, false] {
        let store = dir.join(format!("D-{ignore_signal}"));
        let store_arg = store.to_str().unwrap();
        let output = dyngraph(&[
            "replay",
            a.to_str().unwrap(),
            "--store",
            "durable",
            "--dir",
            store_arg,
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        let before = edges(&store);
        assert_eq!(before.0, before.1, "a closed store acknowledged every edge");
        // 600 blocks of `ulimit -f` (300 or 600 KB): the store's files are
        // about 250 KB, so the append runs into the limit part-way.
        let args = [
            "replay",
            b.to_str().unwrap(),
            "--store",
            "durable",
            "--dir",
            store_arg,
            "--append",
            "--batch",
            "500",
        ];
        let output = dyngraph_size_limited(&args, 600, ignore_signal);
        assert!(
            !output.status.success(),
            "the append should have hit the limit"
        );
        if ignore_signal {
            let line = one_line_error(&output);
            assert!(
                line.contains("File too large") && line.contains(store_arg),
                "{line}"
            );
        }
        let after = edges(&store);
        assert!(
            after.0 >= before.0,
            "lost stored edges: {before:?} -> {after:?}"
        );
        assert_eq!(after.0, after.1, "recovered to what was acknowledged");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `dyngraph run pr g.el | head -1` panicked with "failed printing to
/// stdout: Broken pipe" once `head` had gone.
#[test]
fn a_closed_stdout_ends_the_command_without_a_panic() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_dyngraph"))
        .args(["run", "pr", sample().to_str().unwrap(), "-n", "20"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Read the first line, then close the pipe, as `head -1` does.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    let message = stderr(&output);
    assert!(!message.contains("panicked"), "{message}");
}

/// Writes `text` to a file named `name` in a fresh directory for `test`.
fn input_file(test: &str, name: &str, text: &[u8]) -> PathBuf {
    let path = temp_dir(test).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Issue 25: relabelling was silent. `load` and `convert` relabel ids that
/// cannot be vertex ids and say so in one line; `--ids keep` refuses them,
/// naming the option that relabels.
#[test]
fn load_and_convert_say_in_one_line_when_they_relabel() {
    let path = input_file("relabel", "sparse.el", b"1 2000000\n2000000 3\n");
    let file = path.to_str().unwrap();
    let output = dyngraph(&["load", file]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        format!(
            "note: {file}: 3 integer ids (up to 2000000) relabelled as vertices 0..=2, in id \
             order; results name the original ids\n"
        )
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("vertices        3\n"), "{stdout}");
    let json: Value =
        serde_json::from_slice(&dyngraph(&["load", file, "--json", "-"]).stdout).unwrap();
    assert!(
        json["relabelled"]
            .as_str()
            .unwrap()
            .starts_with("3 integer ids"),
        "{json}"
    );
    let line = one_line_error(&dyngraph(&["load", file, "--ids", "keep"]));
    assert!(
        line.contains("--ids auto") && line.contains("2000000"),
        "{line}"
    );
    // Dense files say nothing.
    let quiet = dyngraph(&["load", sample().to_str().unwrap()]);
    assert!(
        quiet.status.success() && quiet.stderr.is_empty(),
        "{}",
        stderr(&quiet)
    );
}

/// Issue 26, defect 2: a UTF-8 byte-order mark loaded 3 vertices instead
/// of 2, and `convert` wrote `2 1`/`1 0`.
#[test]
fn a_utf8_byte_order_mark_is_skipped_by_load_and_convert() {
    let path = input_file("bom", "b.el", b"\xef\xbb\xbf0 1\n1 0\n");
    let output = dyngraph(&["load", path.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&output.stdout).contains("vertices        2\n"));
    let out = path.with_file_name("o.el");
    let output = dyngraph(&["convert", path.to_str().unwrap(), out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "0 1\n1 0\n");
}

/// Issue 26, defect 3: `src dst` before numeric lines loaded as an edge,
/// with exit 0.
#[test]
fn a_header_line_is_refused_naming_the_option_that_skips_it() {
    let path = input_file("header", "h.el", b"src dst\n0 1\n1 2\n");
    let file = path.to_str().unwrap();
    let line = one_line_error(&dyngraph(&["load", file]));
    assert_eq!(
        line,
        format!(
            "error: {file}:1:1: the first line \"src dst\" is not numeric but the lines after \
             it are: it looks like a header row; skip it with LoadOptions::header(true) \
             (`--header` on the command line)"
        )
    );
    let output = dyngraph(&["load", file, "--header"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("vertices        3\nedges           2\n"),
        "{stdout}"
    );
    // A delimited file with a header: the delimiter detected, the header
    // skipped on request.
    let csv = input_file("header", "people.csv", b"source;target\n1;2\n2;0\n");
    let output = dyngraph(&["load", csv.to_str().unwrap(), "--header"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("edges           2\n"));
}

/// Issue 26, defect 4: `convert` renumbered `1 2`/`3 4294967296` to
/// `0 1`/`2 3` without a word.
#[test]
fn convert_keeps_original_ids_in_text_outputs() {
    let path = input_file("convert-ids", "r.el", b"1 2\n3 4294967296\n");
    let dir = path.parent().unwrap();
    let convert = |to: &str| {
        dyngraph(&[
            "convert",
            path.to_str().unwrap(),
            dir.join(to).to_str().unwrap(),
        ])
    };
    let output = convert("o.el");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).starts_with("note: "), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(dir.join("o.el")).unwrap(),
        "1 2\n3 4294967296\n"
    );
    // Through the binary file and back, the ids are kept too.
    assert!(convert("o.dgcsr").status.success());
    let back = dir.join("back.csv");
    let output = dyngraph(&[
        "convert",
        dir.join("o.dgcsr").to_str().unwrap(),
        back.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(&back).unwrap(),
        "1,2\n3,4294967296\n"
    );
    // Matrix Market numbers vertices: refused, saying why.
    let output = convert("o.mtx");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("cannot be kept in it"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.join("o.mtx").exists());
}

/// Issue 26, defect 6: binary garbage or a gzip of garbage said "line
/// ends before the destination vertex id".
#[test]
fn binary_garbage_and_a_gzip_of_garbage_are_not_text_graph_files() {
    let garbage: Vec<u8> = (0..2000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    let raw = input_file("garbage", "g.el", &garbage);
    let gzipped = raw.with_file_name("g.el.gz");
    let status = Command::new("gzip")
        .args(["-c", raw.to_str().unwrap()])
        .output()
        .map(|out| std::fs::write(&gzipped, out.stdout));
    for path in [Some(&raw), status.is_ok().then_some(&gzipped)]
        .into_iter()
        .flatten()
    {
        let line = one_line_error(&dyngraph(&["load", path.to_str().unwrap()]));
        assert!(line.contains("not a text graph file"), "{line}");
    }
}

/// Issue 26, defect 6: an empty file gave no hint, and a comments-only file
/// loaded as 0 vertices with exit 0.
#[test]
fn an_empty_or_comments_only_file_says_what_is_missing() {
    let empty = input_file("no-edges", "empty.el", b"");
    let line = one_line_error(&dyngraph(&["load", empty.to_str().unwrap()]));
    assert!(
        line.ends_with("the input is empty: a graph file holds one edge per line, such as `0 1`"),
        "{line}"
    );
    let comments = input_file(
        "no-edges",
        "comments.txt",
        b"# a header\n% and nothing else\n",
    );
    let file = comments.to_str().unwrap();
    for verb in ["load", "convert"] {
        let out = comments.with_file_name("o.el");
        let mut args = vec![verb, file];
        if verb == "convert" {
            args.push(out.to_str().unwrap());
        }
        let line = one_line_error(&dyngraph(&args));
        assert_eq!(
            line,
            format!(
                "error: nothing to {verb}: {file} has no edges (only comments, blank lines or a \
                 header); give a file with at least one edge"
            )
        );
    }
}

/// Issue 26, defect 6: a negative timestamp was a "non-numeric token"; a
/// NaN weight failed later without its file and line.
#[test]
fn a_negative_timestamp_and_a_nan_weight_are_named_at_their_line() {
    let path = input_file("values", "t.txt", b"0 1 5\n1 2 -5\n");
    let line = one_line_error(&dyngraph(&["load", path.to_str().unwrap()]));
    assert!(
        line.ends_with(":2:5: timestamp -5 is negative; a timestamp is a whole number from 0 up"),
        "{line}"
    );
    let path = input_file("values", "w.wel", b"0 1 1\n1 2 nan\n");
    let line = one_line_error(&dyngraph(&["load", path.to_str().unwrap()]));
    assert_eq!(
        line,
        format!(
            "error: {}:2:5: weight nan is not a number; every weight must be one",
            path.display()
        )
    );
}

/// Issue 25: `1 2 0.5` in a `.txt` file said "expected timestamp" without
/// naming the option that reads a weight, and `alice,bob` did not say what
/// separates fields.
#[test]
fn a_weight_column_and_commas_are_one_named_option_away() {
    let path = input_file("options", "w.txt", b"1 2 0.5\n2 3 1.5\n");
    let file = path.to_str().unwrap();
    let line = one_line_error(&dyngraph(&["load", file]));
    assert!(line.contains("`--third-column weight`"), "{line}");
    let output = dyngraph(&["load", file, "--third-column", "weight"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let path = input_file("options", "names.el", b"alice,bob\n");
    let file = path.to_str().unwrap();
    let line = one_line_error(&dyngraph(&["load", file]));
    assert!(
        line.contains("separated by blanks") && line.contains("--delimiter ','"),
        "{line}"
    );
    let output = dyngraph(&["load", file, "--delimiter", ","]);
    assert!(output.status.success(), "{}", stderr(&output));
}

/// Issue 26, defect 6: a pipe as input was opened twice and read as
/// empty. `-`, `/dev/stdin` and a process substitution are read once.
#[test]
fn a_pipe_or_standard_input_is_read_once() {
    let text = std::fs::read(sample()).unwrap();
    for input in ["-", "/dev/stdin"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dyngraph"))
            .args(["load", input, "--json", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = {
            let text = text.clone();
            std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &text))
        };
        let output = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(output.status.success(), "{input}: {}", stderr(&output));
        let json: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(json["edges"], 59_835, "{input}");
    }
    // A process substitution of a gzip file, as `<(zcat x.gz)`.
    let dir = temp_dir("pipe");
    let gzipped = dir.join("college.txt.gz");
    let zipped = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "gzip -c '{}' > '{}'",
            sample().display(),
            gzipped.display()
        ))
        .status();
    let bash = Command::new("bash").arg("--version").output();
    if !(zipped.is_ok_and(|s| s.success()) && bash.is_ok()) {
        eprintln!("skipped the process substitution: no gzip or bash");
        return;
    }
    let output = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' load <(gzip -dc '{}') --json -",
            env!("CARGO_BIN_EXE_dyngraph"),
            gzipped.display()
        ))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["edges"], 59_835);
}

/// Issue 29: a binary edge stream (`.dges`) written by `gen` and `convert`
/// is read by `load`, `run`, `replay` and `convert` as the text it came
/// from.
#[test]
fn binary_edge_stream_from_gen_and_convert_reads_as_its_text_everywhere() {
    let dir = temp_dir("edge-stream");
    let (el, dges) = (dir.join("k.el"), dir.join("k.dges"));
    for out in [&el, &dges] {
        let output = dyngraph(&[
            "gen",
            "kron",
            "--scale",
            "10",
            "--degree",
            "8",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    // Back to text: the same bytes as generating text directly.
    let back = dir.join("back.el");
    let output = dyngraph(&["convert", dges.to_str().unwrap(), back.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&el).unwrap());

    let output = dyngraph(&["load", dges.to_str().unwrap(), "--json", "-"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(report["input"], "binary-stream");
    assert_eq!(report["edges"], 8 * 1024);

    // The sample, with its timestamps, through a binary stream.
    let sample_dges = dir.join("college.bin");
    let output = dyngraph(&[
        "convert",
        sample().to_str().unwrap(),
        dir.join("college.dges").to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    std::fs::rename(dir.join("college.dges"), &sample_dges).unwrap();
    let summary = |file: &Path, store: &str| {
        let output = dyngraph(&[
            "run",
            "pr",
            file.to_str().unwrap(),
            "--store",
            store,
            "-n",
            "1",
            "--verify",
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(stdout.contains("[verified]"), "{stdout}");
        let line = stdout.lines().find(|l| l.starts_with("trial 1:")).unwrap();
        line.split("  ").nth(1).unwrap().to_string()
    };
    for store in ["csr", "vcsr"] {
        assert_eq!(summary(&sample_dges, store), summary(&sample(), store));
    }
    let from_text = replay_json(&[
        sample().to_str().unwrap(),
        "--store",
        "vcsr",
        "--order",
        "time",
    ]);
    let from_binary = replay_json(&[
        sample_dges.to_str().unwrap(),
        "--store",
        "vcsr",
        "--order",
        "time",
    ]);
    assert_eq!(from_binary["input"]["edges"], 59_835);
    assert_eq!(
        from_binary["stores"][0]["edges"],
        from_text["stores"][0]["edges"]
    );
}

/// Issue 29: a truncated or corrupted binary edge stream is refused with
/// the path, the byte offset and the reason by every command.
#[test]
fn damaged_binary_edge_stream_is_refused_with_its_offset_by_every_command() {
    let dir = temp_dir("edge-stream-cut");
    let path = dir.join("g.dges");
    let output = dyngraph(&[
        "convert",
        sample().to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let bytes = std::fs::read(&path).unwrap();
    let cut = dir.join("cut.dges");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let mut flipped = bytes.clone();
    flipped[1000] ^= 4;
    let bad = dir.join("bad.dges");
    std::fs::write(&bad, &flipped).unwrap();
    let out = dir.join("out.el");
    let (cut, bad, out_el) = (
        cut.to_str().unwrap(),
        bad.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    for (file, offset, reason) in [
        (
            cut,
            bytes.len() - 100,
            "(the file is truncated; write it again)",
        ),
        (bad, 40, "the file is corrupted; write it again"),
    ] {
        for args in [
            vec!["load", file],
            vec!["run", "pr", file],
            vec!["run", "bfs", file, "--store", "csrpp"],
            vec!["replay", file],
            vec!["convert", file, out_el],
        ] {
            let line = one_line_error(&dyngraph(&args));
            assert!(
                line.starts_with(&format!(
                    "error: {file}: not a valid binary edge stream file (at byte {offset}): "
                )),
                "{args:?}: {line}"
            );
            assert!(line.ends_with(reason), "{args:?}: {line}");
        }
    }
    assert!(!out.exists());
}

#[test]
fn incremental_pagerank_to_an_l1_bound_reports_the_bound_and_verifies_it() {
    // The bundled sample, maintained to L1 1e-6 by warm sweeps (the
    // default) and by residual push, and run from scratch to the same
    // bound beside it, verified at every checkpoint against a converged
    // run.
    for method in ["sweeps", "push"] {
        let report = replay_json(&[
            "--store",
            "vcsr",
            "--kernel",
            "pr,cc",
            "--mode",
            "both",
            "--batch",
            "2000",
            "--every",
            "4",
            "--pagerank-bound",
            "1e-6",
            "--pagerank-method",
            method,
            "--verify",
        ]);
        let pr = &report["stores"][0]["maintained"]["pr"];
        assert_eq!(pr["bound"], 1e-6, "{method}: {pr}");
        assert_eq!(pr["verified"], true, "{method}: {pr}");
        assert!(pr["checkpoints"].as_u64().unwrap() >= 2, "{method}: {pr}");
        let verified = pr["verified_error"].as_f64().unwrap();
        assert!(verified > 0.0 && verified <= 1e-6, "{method}: {pr}");
        // Both sides within the bound of the fixed point: within twice it
        // of each other.
        assert!(pr["max_error"].as_f64().unwrap() <= 2e-6, "{method}: {pr}");
        assert!(pr["result"].as_str().unwrap().starts_with("top "), "{pr}");
        let cc = &report["stores"][0]["maintained"]["cc"];
        // `touched` is a share of the vertices, even when an update sweeps
        // them all several times.
        for kernel in [pr, cc] {
            let touched = kernel["mean_touched"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&touched), "{method}: {kernel}");
        }
        assert!(
            cc["result"].as_str().unwrap().ends_with(" components"),
            "{cc}"
        );
        assert_eq!(cc["bound"], Value::Null);
    }
    // A bound that is not a positive number is refused in one line.
    let output = dyngraph(&[
        "replay",
        "--kernel",
        "pr",
        "--incremental",
        "--pagerank-bound",
        "0",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("positive L1 bound"),
        "{}",
        stderr(&output)
    );
    // A method without a bound to keep is refused.
    let output = dyngraph(&[
        "replay",
        "--kernel",
        "pr",
        "--incremental",
        "--pagerank-method",
        "push",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--pagerank-bound"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn verify_fails_when_maintained_pagerank_breaks_its_bound() {
    // The push stops at L1 1e-2 while the user asked for 1e-9: the
    // maintained ranks are not what was promised, and --verify must say
    // so at a checkpoint and exit 1, not report them as verified.
    let output = dyngraph(&[
        "replay",
        "--json",
        "-",
        "--store",
        "vcsr",
        "--kernel",
        "pr",
        "--incremental",
        "--batch",
        "2000",
        "--every",
        "4",
        "--pagerank-bound",
        "1e-9",
        "--pagerank-stop-bound-for-tests",
        "1e-2",
        "--verify",
    ]);
    let errors = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{errors}");
    assert!(
        errors.contains("verification failed on vcsr: pr (maintained) after batch"),
        "{errors}"
    );
    assert!(errors.contains("over the allowed 1e-9"), "{errors}");
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON document");
    let pr = &report["stores"][0]["maintained"]["pr"];
    assert_eq!(pr["bound"], 1e-9, "{pr}");
    assert_eq!(pr["verified"], false, "{pr}");
}
