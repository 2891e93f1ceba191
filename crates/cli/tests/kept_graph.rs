//! Issue 35: a kept graph is never lost or confused. Each test is one
//! failure a hostile trial of the release binary found, named after it:
//! silent merges of vertices across appended files, stores written over,
//! a `--source` past the graph, outputs written over each other, weights
//! stored as infinity, inputs that never end, and a panic.

mod common;

use common::{dyngraph, scratch, stderr, text};

use serde_json::Value;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The command failed with exit 2 and one error line on stderr (clap's
/// usage errors add their `--help` hint), no panic.
fn refused(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(2), "{}", stderr(output));
    let message = stderr(output);
    assert!(!message.contains("panicked"), "{message}");
    let lines: Vec<&str> = message
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("For more information"))
        .collect();
    assert_eq!(lines.len(), 1, "{message}");
    assert!(lines[0].starts_with("error: "), "{message}");
    lines[0].to_string()
}

fn ok(output: &Output) -> String {
    assert!(output.status.success(), "{}", stderr(output));
    stdout(output)
}

fn replay_json(args: &[&str]) -> Value {
    let mut all = vec!["replay", "--json", "-"];
    all.extend_from_slice(args);
    serde_json::from_str(&ok(&dyngraph(&all))).expect("one JSON document")
}

/// The `top vertices: ...` line `run pr` prints.
fn top_line(output: &str) -> String {
    output
        .lines()
        .find(|l| l.starts_with("top vertices"))
        .unwrap_or_else(|| panic!("no top vertices in {output}"))
        .to_string()
}

/// The names of a `top vertices: a (1e-1), b (2e-2)` line, in order.
fn top_names(line: &str) -> Vec<String> {
    line.trim_start_matches("top vertices: ")
        .split(", ")
        .map(|entry| entry.split(" (").next().unwrap().to_string())
        .collect()
}

/// `replay s1.el --store durable --dir E --base 0` (edges `5000000 7000000`,
/// `7000000 8000000`), then `replay s2.el --append` (`9000000 9500000`):
/// the store held 3 vertices and the new edge sat on 5000000 -> 7000000.
/// Each file was relabelled on its own and the store kept no key map.
#[test]
fn sparse_ids_appended_to_a_durable_store_keep_their_own_vertices() {
    let dir = scratch("sparse");
    let (day1, day2, store) = (dir.join("s1.el"), dir.join("s2.el"), dir.join("E"));
    std::fs::write(&day1, "5000000 7000000\n7000000 8000000\n").unwrap();
    std::fs::write(&day2, "9000000 9500000\n7000000 9000000\n").unwrap();
    let first = replay_json(&[
        text(&day1),
        "--store",
        "durable",
        "--dir",
        text(&store),
        "--base",
        "0",
    ]);
    assert_eq!(first["stores"][0]["edges"], 2);
    let second = replay_json(&[
        text(&day2),
        "--store",
        "durable",
        "--dir",
        text(&store),
        "--append",
    ]);
    assert_eq!(second["stores"][0]["edges"], 4);
    // Five distinct keys, five vertices: 7000000 is one vertex across days.
    assert_eq!(second["input"]["vertices"], 5, "{}", second["input"]);
    let notes = second["notes"].to_string();
    assert!(notes.contains("2 new"), "{notes}");
    let load = ok(&dyngraph(&["load", text(&store)]));
    assert!(
        load.contains("vertices        5") && load.contains("5 integer keys"),
        "{load}"
    );
    // `--source` takes a key; BFS from it verifies on the kept graph.
    let run = ok(&dyngraph(&[
        "run",
        "bfs",
        text(&store),
        "--source",
        "7000000",
        "-n",
        "1",
        "--verify",
    ]));
    assert!(
        run.contains("[verified]") && run.contains("5 vertices (5 integer keys)"),
        "{run}"
    );
    // Ranks name the keys, not the internal indices.
    let run = ok(&dyngraph(&["run", "pr", text(&store), "-n", "1"]));
    let names = top_names(&top_line(&run));
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["5000000", "7000000", "8000000", "9000000", "9500000"],
        "{run}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 38: a durable store created without a kernel got in-edges off
/// (auto), and the next day's `--append --kernel pr` was refused ("holds a
/// durable store with in-edges false (asked true)"). A new kept store
/// keeps them; an append's auto follows the store, with or without a
/// kernel.
#[test]
fn a_kept_store_made_without_a_kernel_serves_pagerank_the_next_day() {
    let dir = scratch("in-edges-day2");
    let (day1, day2, store) = (dir.join("d1.el"), dir.join("d2.el"), dir.join("D"));
    std::fs::write(&day1, "0 1\n1 2\n2 0\n").unwrap();
    std::fs::write(&day2, "2 3\n3 0\n").unwrap();
    let first = replay_json(&[text(&day1), "--store", "durable", "--dir", text(&store)]);
    let reason = first["input"]["in_edges"].as_str().unwrap();
    assert!(
        reason.starts_with("on (auto: a new kept durable store"),
        "{reason}"
    );
    let second = replay_json(&[
        text(&day2),
        "--store",
        "durable",
        "--dir",
        text(&store),
        "--append",
        "--kernel",
        "pr",
    ]);
    assert_eq!(second["stores"][0]["edges"], 5);
    assert_eq!(
        second["stores"][0]["kernels"]["pr"]["mode"],
        "pull (in-edges)"
    );
    // A third day without a kernel appends too (auto follows the store).
    std::fs::write(&day1, "3 1\n").unwrap();
    let third = replay_json(&[
        text(&day1),
        "--store",
        "durable",
        "--dir",
        text(&store),
        "--append",
    ]);
    assert_eq!(third["stores"][0]["edges"], 6);
    assert!(
        third["input"]["in_edges"]
            .as_str()
            .unwrap()
            .starts_with("on (auto: as the kept")
    );
    // Asked against on a new store, they stay off, and an append follows.
    let lean = dir.join("L");
    let made = replay_json(&[
        text(&day2),
        "--store",
        "durable",
        "--dir",
        text(&lean),
        "--in-edges",
        "off",
    ]);
    assert_eq!(made["input"]["in_edges"], "off (asked for)");
    let appended = replay_json(&[
        text(&day1),
        "--store",
        "durable",
        "--dir",
        text(&lean),
        "--append",
        "--kernel",
        "pr",
    ]);
    assert_eq!(
        appended["stores"][0]["kernels"]["pr"]["mode"],
        "push (no in-edges)"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A keyed durable store from a CSV of string keys, appended the next day
/// with old and new keys, analysed with `run pr D`: the same keys, counts
/// and ranking as an in-memory replay of both files.
#[test]
fn string_keys_across_two_days_match_an_in_memory_replay_of_both_files() {
    let dir = scratch("strings");
    let (day1, day2, both, store) = (
        dir.join("day1.csv"),
        dir.join("day2.csv"),
        dir.join("both.csv"),
        dir.join("D"),
    );
    let first = "alice,bob\nbob,carol\ncarol,alice\ndave,alice\n";
    let second = "erin,dave\ndave,bob\nfrank,erin\nbob,alice\nerin,alice\n";
    std::fs::write(&day1, first).unwrap();
    std::fs::write(&day2, second).unwrap();
    std::fs::write(&both, format!("{first}{second}")).unwrap();
    ok(&dyngraph(&[
        "replay",
        text(&day1),
        "--store",
        "durable",
        "--dir",
        text(&store),
        "--base",
        "50",
    ]));
    let appended = replay_json(&[
        text(&day2),
        "--store",
        "durable",
        "--dir",
        text(&store),
        "--append",
        "--batch",
        "2",
    ]);
    assert_eq!(appended["stores"][0]["edges"], 9);
    let kept = ok(&dyngraph(&["run", "pr", text(&store), "-n", "1"]));
    assert!(
        kept.contains("6 vertices (6 string keys), 9 edges"),
        "{kept}"
    );
    let memory = ok(&dyngraph(&[
        "run",
        "pr",
        text(&both),
        "--store",
        "vcsr",
        "-n",
        "1",
    ]));
    assert!(memory.contains("6 vertices, 9 edges"), "{memory}");
    // Scores print with four digits: equal ranks give equal lines (the
    // stores' neighbour orders differ, so ties may swap: compare as sets
    // of `name (score)` entries).
    let entries = |line: String| {
        let mut all: Vec<String> = line
            .trim_start_matches("top vertices: ")
            .split(", ")
            .map(str::to_string)
            .collect();
        all.sort();
        all
    };
    assert_eq!(entries(top_line(&kept)), entries(top_line(&memory)));
    // dave -> erin is stored under those keys, not as alice -> bob.
    let from_frank = ok(&dyngraph(&[
        "run",
        "bfs",
        text(&store),
        "--source",
        "frank",
        "-n",
        "1",
        "--verify",
    ]));
    assert!(from_frank.contains("[verified]"), "{from_frank}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A store kept with its own vertex ids refuses an append whose ids need
/// relabelling, and a keyed store one read as raw vertex ids, each naming
/// the flag to use.
#[test]
fn a_dense_store_refuses_a_relabelled_append_and_a_keyed_one_raw_ids() {
    let dir = scratch("modes");
    let (dense, sparse, names) = (dir.join("d.el"), dir.join("s.el"), dir.join("n.csv"));
    std::fs::write(&dense, "0 1\n1 2\n").unwrap();
    std::fs::write(&sparse, "9000000 9500000\n").unwrap();
    std::fs::write(&names, "alice,bob\n").unwrap();
    let plain = dir.join("plain");
    ok(&dyngraph(&[
        "replay",
        text(&dense),
        "--store",
        "durable",
        "--dir",
        text(&plain),
    ]));
    let message = refused(&dyngraph(&[
        "replay",
        text(&sparse),
        "--store",
        "durable",
        "--dir",
        text(&plain),
        "--append",
    ]));
    assert!(
        message.contains("--ids dense") && message.contains("sparse"),
        "{message}"
    );
    let message = refused(&dyngraph(&[
        "replay",
        text(&names),
        "--store",
        "durable",
        "--dir",
        text(&plain),
        "--append",
    ]));
    assert!(message.contains("own vertex ids"), "{message}");
    let message = refused(&dyngraph(&[
        "replay",
        text(&dense),
        "--store",
        "durable",
        "--dir",
        text(&plain),
        "--append",
        "--ids",
        "strings",
    ]));
    assert!(message.contains("--ids keep"), "{message}");
    // --ids dense takes the numbers as they are: accepted.
    ok(&dyngraph(&[
        "replay",
        text(&sparse),
        "--store",
        "durable",
        "--dir",
        text(&plain),
        "--append",
        "--ids",
        "dense",
    ]));

    let keyed = dir.join("keyed");
    ok(&dyngraph(&[
        "replay",
        text(&names),
        "--store",
        "durable",
        "--dir",
        text(&keyed),
    ]));
    let message = refused(&dyngraph(&[
        "replay",
        text(&dense),
        "--store",
        "durable",
        "--dir",
        text(&keyed),
        "--append",
        "--ids",
        "keep",
    ]));
    assert!(
        message.contains("--ids strings") && message.contains("string keys"),
        "{message}"
    );
    // --ids auto reads the file's ids as the store's keys: "0" and "1" are
    // two new string keys.
    let report = replay_json(&[
        text(&dense),
        "--store",
        "durable",
        "--dir",
        text(&keyed),
        "--append",
    ]);
    assert_eq!(report["input"]["vertices"], 5);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `replay x --store durable --dir D` on a kept store whose `superblock`
/// was deleted wrote a new store over it (all 375,972 edges gone), and
/// `load D` said only "is a directory". A user's directory holding a file
/// named `wal.log` had it overwritten.
#[test]
fn a_store_without_its_superblock_or_a_strangers_directory_is_never_written_over() {
    let dir = scratch("overwrite");
    let store = dir.join("D");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
    ok(&dyngraph(&[
        "replay",
        sample,
        "--store",
        "durable",
        "--dir",
        text(&store),
        "--batch",
        "10000",
    ]));
    let edges_before = std::fs::read(store.join("edges.dat")).unwrap();
    std::fs::remove_file(store.join("superblock")).unwrap();
    for append in [false, true] {
        let mut args = vec![
            "replay",
            sample,
            "--store",
            "durable",
            "--dir",
            text(&store),
        ];
        if append {
            args.push("--append");
        }
        let message = refused(&dyngraph(&args));
        assert!(
            message.contains("superblock is lost") && message.contains("damaged"),
            "{message}"
        );
    }
    assert_eq!(
        std::fs::read(store.join("edges.dat")).unwrap(),
        edges_before
    );
    for command in [
        vec!["load"],
        vec!["run", "pr"],
        vec!["recover"],
        vec!["recover", "--check"],
    ] {
        let mut args = command.clone();
        args.push(text(&store));
        let message = refused(&dyngraph(&args));
        assert!(
            message.contains("damaged durable store"),
            "{command:?}: {message}"
        );
    }

    let theirs = dir.join("theirs");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("wal.log"), "my own notes\n").unwrap();
    let message = refused(&dyngraph(&[
        "replay",
        sample,
        "--store",
        "durable",
        "--dir",
        text(&theirs),
    ]));
    assert!(
        message.contains("wal.log") && message.contains("not a durable store"),
        "{message}"
    );
    assert_eq!(
        std::fs::read_to_string(theirs.join("wal.log")).unwrap(),
        "my own notes\n"
    );
    let message = refused(&dyngraph(&["load", text(&theirs)]));
    assert!(message.contains("holds no durable store"), "{message}");

    // --append on a directory that holds no store creates nothing.
    let missing = dir.join("missing");
    let message = refused(&dyngraph(&[
        "replay",
        sample,
        "--store",
        "durable",
        "--dir",
        text(&missing),
        "--append",
    ]));
    assert!(
        message.contains("no durable store to append to"),
        "{message}"
    );
    assert!(!missing.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 38: `--dir` with `--store vcsr` was silently ignored, and the
/// user's graph was not kept anywhere.
#[test]
fn a_dir_given_to_stores_that_keep_no_files_is_refused() {
    let dir = scratch("dir-without-durable");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
    let kept = dir.join("kept");
    let message = refused(&dyngraph(&[
        "replay",
        sample,
        "--store",
        "vcsr,csrpp",
        "--dir",
        text(&kept),
    ]));
    assert!(
        message.contains("--store vcsr,csrpp keeps no files")
            && message.contains("--store durable"),
        "{message}"
    );
    assert!(!kept.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A store created on a full disk (or killed while it was created) has
/// store files and no superblock: `recover --check` called it "damaged";
/// it is a creation that never finished, and nothing was acknowledged.
#[test]
fn a_creation_that_never_finished_says_nothing_was_acknowledged() {
    let dir = scratch("unfinished");
    let store = dir.join("D");
    std::fs::create_dir_all(&store).unwrap();
    for name in ["LOCK", "READERS", "edges.dat", "edgelog.dat", "undo-0.log"] {
        std::fs::write(store.join(name), b"").unwrap();
    }
    for command in [vec!["recover"], vec!["recover", "--check"], vec!["load"]] {
        let mut args = command.clone();
        args.push(text(&store));
        let message = refused(&dyngraph(&args));
        assert!(
            message.contains("creation never finished")
                && message.contains("nothing in it was acknowledged")
                && message.contains("remove the directory"),
            "{command:?}: {message}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `replay ... --kernel bfs,sssp --source 99999 --verify` on a 2,000-vertex
/// graph printed no kernel rows (`"kernels": {}`) and exited 0.
#[test]
fn a_source_past_the_graph_is_refused_before_any_work() {
    let message = refused(&dyngraph(&[
        "replay", "--kernel", "bfs,sssp", "--source", "99999", "--verify",
    ]));
    assert!(
        message.contains("--source 99999") && message.contains("1900 vertices"),
        "{message}"
    );
    let message = refused(&dyngraph(&["replay", "--kernel", "bfs", "--source", "x"]));
    assert!(message.contains("--source"), "{message}");
}

/// `replay ... --json same.out --csv same.out` kept only the CSV.
#[test]
fn two_outputs_on_one_file_are_refused() {
    let dir = scratch("same-out");
    let out = dir.join("same.out");
    let spelled_twice = format!("{}/./same.out", dir.display());
    let message = refused(&dyngraph(&[
        "replay",
        "--json",
        text(&out),
        "--csv",
        &spelled_twice,
    ]));
    assert!(
        message.contains("--json") && message.contains("--csv") && message.contains("same file"),
        "{message}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A weight `1e400` was stored as `inf` without a word.
#[test]
fn a_weight_past_f32_is_refused_at_its_line() {
    let dir = scratch("inf");
    let file = dir.join("w.wel");
    std::fs::write(&file, "0 1 2.5\n1 2 1e400\n").unwrap();
    for command in [vec!["load"], vec!["run", "sssp"], vec!["replay"]] {
        let mut args = command.clone();
        args.push(text(&file));
        let message = refused(&dyngraph(&args));
        assert!(
            message.contains("w.wel:2:5") && message.contains("1e400"),
            "{command:?}: {message}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `replay --batch 18446744073709551615` panicked (a slice index in
/// stream.rs); `--every` as large overflowed the same way.
#[test]
fn a_batch_of_u64_max_is_the_whole_stream_in_one_batch() {
    let report = replay_json(&["--store", "vcsr", "--batch", "18446744073709551615"]);
    assert_eq!(report["stores"][0]["edges"], 59835);
    assert_eq!(
        report["stores"][0]["batches"].as_array().map(Vec::len),
        Some(1)
    );
    let report = replay_json(&[
        "--store",
        "vcsr",
        "--batch",
        "1000",
        "--kernel",
        "cc",
        "--every",
        "18446744073709551615",
    ]);
    assert_eq!(report["stores"][0]["edges"], 59835);
}

/// Runs `args` with a deadline; `None` when it ran past it (then killed).
fn bounded(args: &[&str], stdin: Option<&str>, limit: Duration) -> Option<(Output, Duration)> {
    let started = Instant::now();
    let mut child = match stdin {
        None => Command::new(env!("CARGO_BIN_EXE_dyngraph"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
        // A pipe from a device: `cat /dev/zero | dyngraph load -`.
        Some(device) => Command::new("sh")
            .arg("-c")
            .arg(format!("cat {device} | exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_dyngraph"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    };
    while started.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return Some((child.wait_with_output().unwrap(), started.elapsed()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Peak resident memory of the last waited-for children, in KiB.
fn children_peak_kib() -> u64 {
    // SAFETY: getrusage writes one plain struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to that struct, for the calling process's
    // waited-for children.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss as u64
}

/// `load /dev/zero`, `replay /dev/zero`, `run pr /dev/zero`, `convert
/// /dev/zero o.el` grew without limit (12.3 GB at 60 s), `/dev/urandom`
/// too. Now a device is refused at once, and a pipe from one stops at its
/// first overlong line or its first bytes that are not text: each under
/// 10 s and 1 GiB.
#[test]
fn endless_inputs_are_refused_in_seconds_and_bounded_memory() {
    let dir = scratch("endless");
    let out = dir.join("o.el");
    for device in ["/dev/zero", "/dev/urandom"] {
        let commands: [Vec<&str>; 4] = [
            vec!["load", device],
            vec!["replay", device],
            vec!["run", "pr", device],
            vec!["convert", device, text(&out)],
        ];
        for args in commands {
            let (output, took) = bounded(&args, None, Duration::from_secs(10))
                .unwrap_or_else(|| panic!("{args:?} ran past 10 s"));
            let message = refused(&output);
            assert!(message.contains("device"), "{args:?}: {message}");
            assert!(took < Duration::from_secs(10), "{args:?}: {took:?}");
        }
        let (output, _) = bounded(&["load", "-"], Some(device), Duration::from_secs(10))
            .unwrap_or_else(|| panic!("a pipe from {device} ran past 10 s"));
        let message = refused(&output);
        assert!(
            message.contains("longer than 1 MiB") || message.contains("not text"),
            "{device}: {message}"
        );
    }
    assert!(children_peak_kib() < 1 << 20, "{} KiB", children_peak_kib());
    // A file that reports no size (under /proc) is read, not called empty.
    let message = refused(&dyngraph(&["load", "/proc/self/status"]));
    assert!(!message.contains("empty"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `replay --workers 100000` on a 2,000-edge file took 10 GB in 40 s, and
/// `--workers 1000` ran past 60 s.
#[test]
fn workers_past_the_per_process_cap_are_refused_at_once() {
    for workers in ["1000", "100000"] {
        let (output, took) = bounded(
            &["replay", "--workers", workers],
            None,
            Duration::from_secs(10),
        )
        .unwrap_or_else(|| panic!("--workers {workers} ran past 10 s"));
        let message = refused(&output);
        assert!(
            message.contains("--workers") && message.contains("at most"),
            "{message}"
        );
        assert!(took < Duration::from_secs(5));
    }
}

/// A full disk (here a file-size limit) named the file but not the edges
/// acknowledged so far.
#[test]
fn a_replay_cut_off_by_a_full_disk_says_what_the_store_keeps() {
    let dir = scratch("full");
    let store = dir.join("D");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
    ok(&dyngraph(&[
        "replay",
        sample,
        "--store",
        "durable",
        "--dir",
        text(&store),
        "--base",
        "50",
        "--batch",
        "1000",
    ]));
    // 600 blocks of `ulimit -f` (300 or 600 KB): the append's growth runs
    // into it part-way.
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 600; trap '' XFSZ; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_dyngraph"))
        .args([
            "replay",
            sample,
            "--store",
            "durable",
            "--dir",
            text(&store),
            "--append",
            "--batch",
            "500",
        ])
        .output()
        .unwrap();
    let message = refused(&output);
    assert!(
        message.contains("acknowledged edges") && message.contains(text(&store)),
        "{message}"
    );
    let kept: u64 = message
        .split(" keeps ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {message}"));
    // Day one's edges, and the part of day two acknowledged before the
    // limit; never all of day two.
    assert!((59_835..2 * 59_835).contains(&kept), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}
