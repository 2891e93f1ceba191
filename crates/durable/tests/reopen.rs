//! A store that lives (issue 26): reopened after a clean close or a kill,
//! it takes the next edges and equals the reference model of all of them;
//! read-only opens map it, run kernels on it and never write; a second
//! writer is refused naming the holder while readers share; acknowledged
//! counts are what a crash keeps; the recovery report is JSON.

use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
use dyngraph_core::{Edge, FromEdges, Graph, GraphUpdate, InEdges, Semantics, StoreOptions};
use dyngraph_durable::{DurableOptions, DurableVcsr, GroupCommit, SyncPolicy};
use dyngraph_kernels::{
    BfsOptions, PageRankMethod, PageRankOptions, bfs, pagerank, verify_bfs, verify_pagerank,
};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn college() -> Vec<Edge> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/CollegeMsg.txt");
    let text = std::fs::read_to_string(&path).expect("the bundled CollegeMsg sample");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split_whitespace();
            Edge::new(
                f.next().unwrap().parse().unwrap(),
                f.next().unwrap().parse().unwrap(),
            )
        })
        .collect()
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("durable-reopen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn model_of(edges: &[Edge]) -> ReferenceGraph {
    let mut model = ReferenceGraph::new(Semantics::Multigraph);
    model.insert_edges(edges).unwrap();
    model
}

fn insert_in_batches(store: &mut DurableVcsr, edges: &[Edge], batch: usize) {
    for chunk in edges.chunks(batch) {
        store.insert_edges(chunk).unwrap();
    }
}

/// Every file of `dir` with its bytes (to check that nothing was written).
fn snapshot_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_closed_store_reopens_and_appends_the_next_edges() {
    let edges = college();
    let (first, rest) = edges.split_at(edges.len() / 2);
    let dir = fresh_dir("closed");
    let options = DurableOptions::in_dir(&dir).store(StoreOptions::default().in_edges(true));
    let mut store = DurableVcsr::create(&dir, options).unwrap();
    insert_in_batches(&mut store, first, 4096);
    store.close().unwrap();

    let mut store = DurableVcsr::open(&dir).unwrap();
    assert!(store.recovery_report().clean);
    assert_eq!(store.acknowledged().inserted, first.len() as u64);
    insert_in_batches(&mut store, rest, 4096);
    compare_with_model(&store, &model_of(&edges)).unwrap();
    store.validate().unwrap();
    store.close().unwrap();

    let store = DurableVcsr::open_read_only(&dir).unwrap();
    compare_with_model(&store, &model_of(&edges)).unwrap();
    assert!(store.has_in_edges());
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 29: at a billion edges a checkpoint at every 64 MiB of log
/// rewrote the whole 3.3 GB edge array each time (scattered inserts dirty
/// most pages). A checkpoint now also waits for the arrays' bytes over
/// `checkpoint_array_divisor` of log: fewer checkpoints, the same graph.
#[test]
fn checkpoints_of_a_large_store_wait_for_a_share_of_its_arrays() {
    let edges = college();
    let checkpoints = |divisor: u64| {
        let dir = fresh_dir(&format!("divisor-{divisor}"));
        // A threshold far below the arrays' bytes, as 64 MiB is at scale.
        let options = DurableOptions::in_dir(&dir)
            .checkpoint_bytes(4096)
            .checkpoint_array_divisor(divisor);
        let mut store = DurableVcsr::create(&dir, options).unwrap();
        insert_in_batches(&mut store, &edges, 500);
        let count = store.stats().checkpoints;
        store.close().unwrap();
        let store = DurableVcsr::open(&dir).unwrap();
        compare_with_model(&store, &model_of(&edges)).unwrap();
        drop(store);
        std::fs::remove_dir_all(&dir).unwrap();
        count
    };
    let (fixed, scaled) = (checkpoints(0), checkpoints(8));
    assert!(
        scaled * 4 < fixed,
        "{scaled} checkpoints with the divisor, {fixed} without"
    );
}

/// The child of the kill test: inserts the first half of CollegeMsg in
/// batches of 1,000 (each acknowledged when it returns) and says so after
/// each, until it is killed.
#[test]
fn kill_child() {
    let Ok(dir) = std::env::var("DYNGRAPH_REOPEN_CHILD") else {
        return;
    };
    let edges = college();
    let options = DurableOptions::in_dir(&dir).sync(SyncPolicy::EveryBatch);
    let mut store = DurableVcsr::create(&dir, options).unwrap();
    for chunk in edges[..edges.len() / 2].chunks(1000) {
        store.insert_edges(chunk).unwrap();
        println!("ACK {}", store.acknowledged().inserted);
    }
    println!("DONE");
    std::thread::sleep(Duration::from_secs(60));
}

#[test]
fn a_killed_store_reopens_and_appends_the_next_edges() {
    if std::env::var("DYNGRAPH_REOPEN_CHILD").is_ok() {
        return;
    }
    let edges = college();
    let dir = fresh_dir("killed");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["kill_child", "--exact", "--nocapture", "--test-threads=1"])
        .env("DYNGRAPH_REOPEN_CHILD", &dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut acked = 0u64;
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Kill it in the middle of the stream: after 12 acknowledged batches.
    while let Some(Ok(line)) = lines.next() {
        if let Some(n) = line.strip_prefix("ACK ") {
            acked = n.parse().unwrap();
            if acked >= 12_000 {
                break;
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(acked >= 12_000, "the child stopped early");

    let mut store = DurableVcsr::open(&dir).unwrap();
    let report = store.recovery_report().clone();
    assert!(!report.clean);
    // Every acknowledged edge is there, and what is there is a prefix of
    // the stream (batches of 1,000 go in stream order).
    let kept = report.acknowledged.inserted as usize;
    assert!(kept as u64 >= acked, "{kept} kept, {acked} acknowledged");
    assert!(kept <= acked as usize + 1000);
    compare_with_model(&store, &model_of(&edges[..kept])).unwrap();
    store.validate().unwrap();
    insert_in_batches(&mut store, &edges[kept..], 1000);
    compare_with_model(&store, &model_of(&edges)).unwrap();
    store.close().unwrap();
    let store = DurableVcsr::open(&dir).unwrap();
    compare_with_model(&store, &model_of(&edges)).unwrap();
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_writer_is_refused_naming_the_holder_while_readers_share() {
    let edges = college();
    let dir = fresh_dir("locks");
    let mut writer = DurableVcsr::create(&dir, DurableOptions::in_dir(&dir)).unwrap();
    insert_in_batches(&mut writer, &edges[..20_000], 2000);

    let err = DurableVcsr::open(&dir).unwrap_err().to_string();
    assert!(err.contains(&dir.display().to_string()), "{err}");
    assert!(
        err.contains(&format!("pid {}", std::process::id())),
        "{err}"
    );

    // Readers open alongside and see the graph as of their open, while the
    // writer goes on and checkpoints (by rewriting, readers being there).
    let reader = DurableVcsr::open_read_only(&dir).unwrap();
    assert!(reader.is_read_only());
    compare_with_model(&reader, &model_of(&edges[..20_000])).unwrap();
    let rewrites = writer.stats().rewrites;
    insert_in_batches(&mut writer, &edges[20_000..30_000], 2000);
    writer.sync().unwrap();
    assert!(
        writer.stats().rewrites > rewrites,
        "a reader forces a rewrite"
    );
    insert_in_batches(&mut writer, &edges[30_000..40_000], 2000);
    compare_with_model(&reader, &model_of(&edges[..20_000])).unwrap();
    let second = DurableVcsr::open_read_only(&dir).unwrap();
    compare_with_model(&second, &model_of(&edges[..40_000])).unwrap();
    drop((reader, second));
    writer.sync().unwrap();
    writer.close().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kernels_run_in_place_on_a_read_only_store_with_in_edges() {
    let edges = college();
    let dir = fresh_dir("kernels");
    let options = DurableOptions::in_dir(&dir).store(StoreOptions::default().in_edges(true));
    DurableVcsr::from_edges(&edges[..], options)
        .unwrap()
        .close()
        .unwrap();
    let store = DurableVcsr::open_read_only(&dir).unwrap();
    assert!(store.recovery_report().clean);
    let ranks = pagerank(&store, &PageRankOptions::default()).unwrap();
    assert_eq!(ranks.method, PageRankMethod::Pull);
    verify_pagerank(&store, &ranks).unwrap();
    let tree = bfs(&store, &BfsOptions::from_source(edges[0].src)).unwrap();
    verify_bfs(&store, &tree).unwrap();
    assert!(tree.bottom_up_steps > 0, "{tree:?}");
    let err = {
        let mut store = store;
        store.insert_edge(0, 1).unwrap_err().to_string()
    };
    assert!(err.contains("read-only"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_read_only_open_of_a_crashed_store_recovers_in_memory_and_writes_nothing() {
    let edges = college();
    let dir = fresh_dir("read-only-crashed");
    let options = DurableOptions::in_dir(&dir)
        .store(StoreOptions::default().in_edges(true))
        .vertices_per_section(8)
        .log_region_bytes(256);
    let mut store = DurableVcsr::create(&dir, options).unwrap();
    insert_in_batches(&mut store, &edges[..10_000], 1000);
    store.sync().unwrap();
    insert_in_batches(&mut store, &edges[10_000..30_000], 1000);
    store.drop_without_close();
    let before = snapshot_files(&dir);
    let reader = DurableVcsr::open_read_only(&dir).unwrap();
    let report = reader.recovery_report();
    assert!(!report.clean && report.read_only);
    assert_eq!(
        report.acknowledged.inserted - report.checkpoint.inserted,
        20_000,
        "{report}"
    );
    assert!(report.wal_updates_replayed >= 20_000, "{report}");
    compare_with_model(&reader, &model_of(&edges[..30_000])).unwrap();
    reader.validate().unwrap();
    drop(reader);
    assert!(snapshot_files(&dir) == before, "a read-only open wrote");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn acknowledged_counts_what_each_commit_made_durable() {
    let edges = college();
    let dir = fresh_dir("acknowledged");
    let options = DurableOptions::in_dir(&dir).sync(SyncPolicy::EveryN(3000));
    let mut store = DurableVcsr::create(&dir, options).unwrap();
    store.insert_edges(&edges[..2000]).unwrap();
    assert_eq!(store.acknowledged().edges, 0);
    assert_eq!(store.pending_updates(), 2000 + 1); // and the vertices added
    store.insert_edges(&edges[2000..4000]).unwrap();
    // Committed at the 3,000th update (vertex additions count as updates).
    let at = store.acknowledged();
    assert!(at.lsn >= 3000 && at.inserted <= 4000, "{at:?}");
    let commit = store.commit().unwrap();
    assert_eq!(commit.acknowledged.inserted, 4000);
    assert_eq!(store.last_commit(), Some(commit));
    assert_eq!(store.pending_updates(), 0);
    store.insert_edges(&edges[4000..5000]).unwrap();
    store.drop_without_close();
    // A crash keeps at least what was acknowledged (here exactly: the last
    // 1,000 were never handed to the log's file).
    let store = DurableVcsr::open(&dir).unwrap();
    assert_eq!(store.recovery_report().acknowledged.inserted, 4000);
    assert_eq!(store.edge_count(), 4000);
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The committer waits without a timeout while no group is open; the
/// update that opens one must wake it (it did not: the group waited for
/// the next update call, or for `max_updates`, and a flaky CI run saw 5,000
/// updates unacknowledged after 10 s).
#[test]
fn a_group_opened_while_the_committer_idles_is_acknowledged_within_its_window() {
    let dir = fresh_dir("idle-committer");
    let policy = GroupCommit {
        max_updates: 1_000_000,
        window: Duration::from_millis(2),
    };
    let options = DurableOptions::in_dir(&dir).sync(SyncPolicy::Group(policy));
    let mut store = DurableVcsr::create(&dir, options).unwrap();
    for round in 1..=3u64 {
        // Long enough for the committer to reach its untimed wait.
        std::thread::sleep(Duration::from_millis(50));
        store.insert_edge(0, round as u32).unwrap();
        let deadline = Instant::now() + Duration::from_secs(2);
        while store.acknowledged().inserted < round {
            assert!(
                Instant::now() < deadline,
                "round {round}: not acknowledged 2 s after a 2 ms window"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn group_commit_acknowledges_within_its_window_without_another_call() {
    let edges = college();
    let dir = fresh_dir("group");
    let policy = GroupCommit {
        max_updates: 1_000_000,
        window: Duration::from_millis(2),
    };
    let options = DurableOptions::in_dir(&dir).sync(SyncPolicy::Group(policy));
    let mut store = DurableVcsr::create(&dir, options).unwrap();
    for e in &edges[..5000] {
        store.insert_edge(e.src, e.dst).unwrap();
    }
    // No further call: the committer closes the group on its own.
    let deadline = Instant::now() + Duration::from_secs(10);
    while store.acknowledged().inserted < 5000 {
        assert!(Instant::now() < deadline, "not acknowledged after 10 s");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(store.pending_updates(), 0);
    store.drop_without_close();
    let store = DurableVcsr::open(&dir).unwrap();
    assert_eq!(store.edge_count(), 5000);
    drop(store);
    // The size bound closes groups too, and the stream is one commit per
    // group, not per edge.
    let _ = std::fs::remove_dir_all(&dir);
    let options = DurableOptions::in_dir(&dir).sync(SyncPolicy::Group(GroupCommit {
        max_updates: 512,
        window: Duration::from_secs(3600),
    }));
    let mut store = DurableVcsr::create(&dir, options).unwrap();
    for e in &edges[..5120] {
        store.insert_edge(e.src, e.dst).unwrap();
    }
    // Every full group is committed without another call. The committer
    // takes the whole buffer when it wakes, so where groups end depends on
    // timing: under load one group can take 600 updates, and the last
    // updates then wait, fewer than 512, for the hour's window (this test
    // failed so once, asking for all 5,120).
    let deadline = Instant::now() + Duration::from_secs(10);
    while 5120 - store.acknowledged().inserted >= 512 {
        assert!(Instant::now() < deadline, "groups of 512 not committed");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        store.stats().commits <= 5120 / 512 + 1,
        "{:?}",
        store.stats()
    );
    store.close().unwrap();
    let store = DurableVcsr::open(&dir).unwrap();
    assert_eq!(store.edge_count(), 5120);
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_recovery_report_serialises_to_json() {
    let dir = fresh_dir("json");
    let mut store = DurableVcsr::create(&dir, DurableOptions::in_dir(&dir)).unwrap();
    store.insert_edges(&college()[..100]).unwrap();
    store.drop_without_close();
    let report = DurableVcsr::recover_dir(&dir).unwrap();
    let json: serde_json::Value = serde_json::to_value(&report).unwrap();
    assert_eq!(json["clean"], false);
    assert_eq!(json["edges"], 100);
    assert_eq!(json["acknowledged"]["inserted"], 100);
    assert!(json["elapsed"].as_f64().unwrap() > 0.0);
    assert!(json["wal_updates_replayed"].as_u64().unwrap() >= 100);
    let check = DurableVcsr::check_dir(&dir).unwrap();
    assert!(check.clean && check.pages_verified > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_sidecar_is_written_with_its_checkpoint_and_checked_on_open() {
    let dir = fresh_dir("sidecar");
    let mut store = DurableVcsr::create(&dir, DurableOptions::in_dir(&dir)).unwrap();
    store.insert_edges(&college()[..100]).unwrap();
    store.stage_sidecar(b"ids: first".to_vec());
    assert_eq!(store.sidecar(), None, "written by the next checkpoint");
    store.sync().unwrap();
    assert_eq!(store.sidecar(), Some(&b"ids: first"[..]));
    store.insert_edges(&college()[100..200]).unwrap();
    store.stage_sidecar(b"ids: second".to_vec());
    // A crash before the checkpoint keeps the first one, with its graph's
    // log replayed on top.
    store.drop_without_close();
    let mut store = DurableVcsr::open(&dir).unwrap();
    assert_eq!(store.sidecar(), Some(&b"ids: first"[..]));
    assert_eq!(store.edge_count(), 200);
    store.stage_sidecar(b"ids: third".to_vec());
    store.close().unwrap();
    let store = DurableVcsr::open(&dir).unwrap();
    assert_eq!(store.sidecar(), Some(&b"ids: third"[..]));
    drop(store);
    let sidecars: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.starts_with("sidecar-").then_some(name)
        })
        .collect();
    assert_eq!(sidecars.len(), 1, "{sidecars:?}");
    let path = dir.join(&sidecars[0]);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let err = DurableVcsr::open(&dir).unwrap_err().to_string();
    assert!(err.contains("sidecar") && err.contains("damaged"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn open_or_create_appends_to_a_kept_store_and_refuses_other_options() {
    let edges = college();
    let dir = fresh_dir("open-or-create");
    let options = DurableOptions::in_dir(&dir).store(StoreOptions::default().in_edges(true));
    assert!(!DurableVcsr::is_store_dir(&dir));
    let (mut store, created) = DurableVcsr::open_or_create(&dir, &options).unwrap();
    assert!(created);
    store.insert_edges(&edges[..1000]).unwrap();
    store.close().unwrap();
    assert!(DurableVcsr::is_store_dir(&dir));
    assert!(!DurableVcsr::is_store_dir(dir.join("edges.dat")));
    let (mut store, created) = DurableVcsr::open_or_create(&dir, &options).unwrap();
    assert!(!created);
    store.insert_edges(&edges[1000..2000]).unwrap();
    compare_with_model(&store, &model_of(&edges[..2000])).unwrap();
    store.close().unwrap();
    let err = DurableVcsr::open_or_create(&dir, &DurableOptions::in_dir(&dir))
        .unwrap_err()
        .to_string();
    assert!(err.contains("in-edges true (asked false)"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
