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
