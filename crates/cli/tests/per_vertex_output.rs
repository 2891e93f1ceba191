//! Issue 38: every vertex's result out, by key. `run KERNEL FILE
//! --output OUT.csv|.jsonl` writes one row per vertex of the last trial,
//! each vertex named by the input's original key.

mod common;

use common::{dyngraph, scratch, stderr, text};
use std::path::{Path, PathBuf};

/// A graph of string keys: alice -> bob -> carol -> {alice, dave}, and
/// erin -> frank apart from them.
fn keyed_graph(dir: &Path) -> PathBuf {
    let graph = dir.join("people.txt");
    std::fs::write(
        &graph,
        "alice bob\nbob carol\ncarol alice\ncarol dave\nerin frank\n",
    )
    .unwrap();
    graph
}

/// `run KERNEL graph --output out`, which must succeed; the output file's
/// lines.
fn rows(graph: &Path, kernel: &str, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["run", kernel, text(graph), "-n", "1", "--output", text(out)];
    args.extend_from_slice(extra);
    let output = dyngraph(&args);
    assert!(output.status.success(), "{kernel}: {}", stderr(&output));
    std::fs::read_to_string(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The CSV row of `key`, split into cells.
fn row_of<'a>(rows: &'a [String], key: &str) -> Vec<&'a str> {
    rows.iter()
        .map(|r| r.split(',').collect::<Vec<_>>())
        .find(|cells| cells[0] == key)
        .unwrap_or_else(|| panic!("no row for {key} in {rows:?}"))
}

#[test]
fn every_kernel_writes_a_row_per_vertex_named_by_its_key() {
    let dir = scratch("csv");
    let graph = keyed_graph(&dir);
    let out = dir.join("out.csv");

    let bfs = rows(&graph, "bfs", &out, &["--source", "alice"]);
    assert_eq!(bfs[0], "vertex,depth,parent");
    assert_eq!(bfs.len(), 1 + 6, "{bfs:?}");
    assert_eq!(row_of(&bfs, "dave"), ["dave", "3", "carol"]);
    assert_eq!(row_of(&bfs, "alice"), ["alice", "0", "alice"]);
    assert_eq!(
        row_of(&bfs, "erin"),
        ["erin", "", ""],
        "unreached: empty cells"
    );

    let sssp = rows(&graph, "sssp", &out, &["--source", "bob"]);
    assert_eq!(sssp[0], "vertex,distance");
    assert_eq!(row_of(&sssp, "dave"), ["dave", "2"]);
    assert_eq!(row_of(&sssp, "frank"), ["frank", ""]);

    let pr = rows(&graph, "pr", &out, &[]);
    assert_eq!(pr[0], "vertex,score");
    let total: f64 = pr[1..]
        .iter()
        .map(|r| r.split(',').nth(1).unwrap().parse::<f64>().unwrap())
        .sum();
    // GAPBS's PageRank lets dangling vertices' rank go (dave and frank
    // here), so the sum is below 1; every vertex keeps its teleport share.
    assert_eq!(pr.len(), 7);
    assert!(total > 0.0 && total <= 1.0 + 1e-6, "scores sum to {total}");
    let teleport = 0.15 / 6.0;
    for row in &pr[1..] {
        let score: f64 = row.split(',').nth(1).unwrap().parse().unwrap();
        assert!(score >= teleport - 1e-6, "{row}");
    }
    assert!(
        row_of(&pr, "frank")[1].parse::<f64>().unwrap()
            > row_of(&pr, "erin")[1].parse::<f64>().unwrap()
    );

    let cc = rows(&graph, "cc", &out, &[]);
    assert_eq!(cc[0], "vertex,component");
    let component = |key: &str| row_of(&cc, key)[1].to_string();
    assert_eq!(component("alice"), component("dave"));
    assert_eq!(component("erin"), component("frank"));
    assert_ne!(component("alice"), component("erin"));
    // A component is named by one of its own vertices' keys.
    assert!(["erin", "frank"].contains(&component("erin").as_str()));

    for (kernel, header) in [("bc", "vertex,score"), ("rw", "vertex,visits")] {
        let lines = rows(&graph, kernel, &out, &[]);
        assert_eq!(lines[0], header, "{kernel}");
        assert_eq!(lines.len(), 7, "{kernel}: {lines:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn json_lines_name_string_keys_as_strings() {
    let dir = scratch("jsonl");
    let graph = keyed_graph(&dir);
    let out = dir.join("out.jsonl");
    let lines = rows(&graph, "bfs", &out, &["--source", "alice"]);
    assert_eq!(lines.len(), 6);
    let dave: serde_json::Value = lines
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|row| row["vertex"] == "dave")
        .expect("a row for dave");
    assert_eq!(
        dave,
        serde_json::json!({"vertex": "dave", "depth": 3, "parent": "carol"})
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_output_without_per_vertex_values_or_a_known_format_is_refused_before_any_work() {
    let dir = scratch("refused");
    let graph = keyed_graph(&dir);
    for (kernel, out, expected) in [
        ("tc", "t.csv", "no per-vertex value"),
        ("pr", "t.txt", ".csv"),
        ("pr", "-", "give a file"),
    ] {
        let path = if out == "-" {
            PathBuf::from("-")
        } else {
            dir.join(out)
        };
        let output = dyngraph(&["run", kernel, text(&graph), "--output", text(&path)]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        let message = stderr(&output);
        assert!(message.contains(expected), "{kernel} {out}: {message}");
        assert!(out == "-" || !path.exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A stream of string keys whose last batch brings a new vertex, gina.
fn keyed_stream(dir: &Path) -> PathBuf {
    let graph = dir.join("stream.txt");
    std::fs::write(
        &graph,
        "alice bob\nbob carol\ncarol alice\ncarol dave\nerin frank\nbob erin\n\
         dave alice\nfrank bob\nalice carol\nerin dave\ndave gina\ngina alice\n",
    )
    .unwrap();
    graph
}

/// `replay` with `--output DIR`, which must succeed; the index's rows.
fn replay_rows(graph: &Path, out: &Path, extra: &[&str]) -> Vec<Vec<String>> {
    let mut args = vec![
        "replay",
        text(graph),
        "--store",
        "vcsr",
        "--base",
        "50",
        "--batch",
        "2",
        "--every",
        "1",
        "--kernel",
        "pr,cc,bfs",
        "--source",
        "alice",
        "--output",
        text(out),
    ];
    args.extend_from_slice(extra);
    let output = dyngraph(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    std::fs::read_to_string(out.join("checkpoints.csv"))
        .unwrap()
        .lines()
        .map(|line| line.split(',').map(str::to_string).collect())
        .collect()
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn replay_writes_every_checkpoints_results_by_key_static_and_maintained() {
    let dir = scratch("replay-output");
    let graph = keyed_stream(&dir);
    // The whole graph's BFS from alice, from `run`, to compare with the
    // replay's last checkpoint.
    let whole = rows(
        &graph,
        "bfs",
        &dir.join("whole.csv"),
        &["--source", "alice"],
    );

    for (mode, extra, maintained) in [
        ("static", &[][..], "false"),
        ("incremental", &["--incremental"][..], "true"),
    ] {
        let out = dir.join(format!("out-{mode}"));
        let index = replay_rows(&graph, &out, extra);
        assert_eq!(
            index[0],
            [
                "store",
                "kernel",
                "batches",
                "arrivals",
                "maintained",
                "file"
            ]
        );
        // 6 timed arrivals in batches of 2: checkpoints after batches 1, 2
        // and 3, three kernels each.
        assert_eq!(index.len(), 1 + 9, "{mode}: {index:?}");
        for row in &index[1..] {
            assert_eq!(row[0], "vcsr");
            assert_eq!(row[4], maintained, "{mode}: {row:?}");
            let batches: usize = row[2].parse().unwrap();
            assert_eq!(row[3], (6 + 2 * batches).to_string(), "arrivals: {row:?}");
            assert!(out.join(&row[5]).is_file(), "{mode}: {row:?}");
        }
        let listed = std::fs::read_dir(&out).unwrap().count();
        assert_eq!(listed, 10, "{mode}: the index names every file");

        // The last checkpoint holds the whole graph: BFS as `run` has it.
        let bfs = lines(&out.join("vcsr-bfs-batch000003.csv"));
        assert_eq!(bfs[0], "vertex,depth,parent");
        for key in ["alice", "bob", "carol", "dave", "erin", "frank", "gina"] {
            assert_eq!(
                row_of(&bfs, key)[..2],
                row_of(&whole, key)[..2],
                "{mode}: {key}'s depth"
            );
        }
        // gina arrives in the last batch.
        let first = lines(&out.join("vcsr-pr-batch000001.csv"));
        assert!(first.iter().all(|r| !r.starts_with("gina,")), "{first:?}");
        let last = lines(&out.join("vcsr-pr-batch000003.csv"));
        let score: f64 = row_of(&last, "gina")[1].parse().unwrap();
        assert!(score > 0.0, "{last:?}");
        let components = lines(&out.join("vcsr-cc-batch000003.csv"));
        let label = row_of(&components, "alice")[1].to_string();
        assert!(
            components[1..]
                .iter()
                .all(|r| r.ends_with(&format!(",{label}"))),
            "{mode}: one component, named by one of its keys: {components:?}"
        );
    }
}

#[test]
fn replay_output_refuses_a_directory_with_files_and_kernels_without_values() {
    let dir = scratch("replay-output-refused");
    let graph = keyed_stream(&dir);
    let taken = dir.join("taken");
    std::fs::create_dir_all(&taken).unwrap();
    std::fs::write(taken.join("mine.csv"), "precious").unwrap();
    for (args, expected) in [
        (
            vec!["--kernel", "pr", "--output", text(&taken)],
            "holds files already",
        ),
        (
            vec!["--kernel", "pr,tc", "--output", text(&dir.join("new"))],
            "no per-vertex value",
        ),
        (vec!["--output", text(&dir.join("new"))], "no kernel runs"),
    ] {
        let mut full = vec!["replay", text(&graph), "--store", "vcsr"];
        full.extend(args);
        let output = dyngraph(&full);
        assert_eq!(output.status.code(), Some(2), "{full:?}");
        assert!(stderr(&output).contains(expected), "{}", stderr(&output));
    }
    assert_eq!(
        std::fs::read_to_string(taken.join("mine.csv")).unwrap(),
        "precious"
    );
}
