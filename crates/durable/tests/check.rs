//! `check_dir` (what `dyngraph recover --check` runs) judges what a reopen
//! would serve: a store killed inside an in-place checkpoint holds pages
//! that fail their checksums until recovery writes the armed undo record
//! back, and a check that looked at those pages called a sound store
//! damaged (3 of 60 crash-consistent stores in a hostile trial).
//!
//! The child (this test binary re-run with `DYNGRAPH_CHECK_CHILD` set)
//! builds a store and is killed by a fail point half-way through an
//! in-place checkpoint; the parent checks the directory, then recovers it.

use dyngraph_core::{Edge, Graph, GraphUpdate, OutNeighbors, StoreOptions};
use dyngraph_durable::{DurableOptions, DurableVcsr, SyncPolicy};
use std::path::{Path, PathBuf};
use std::process::Command;

const CHILD: &str = "DYNGRAPH_CHECK_CHILD";

/// Edges that touch most pages of the array: every vertex gets a few,
/// spread over the id range, so a checkpoint writes many pages.
fn edges(round: u32) -> Vec<Edge> {
    (0..20_000u32)
        .map(|i| Edge::new((i * 7919 + round) % 4000, (i * 104_729 + 3 * round) % 4000))
        .collect()
}

fn options(dir: &Path) -> DurableOptions {
    DurableOptions::in_dir(dir)
        .store(StoreOptions::default().in_edges(true))
        .sync(SyncPolicy::EveryBatch)
        // In place, under the undo log, not by rewrite.
        .max_undo_bytes(1 << 30)
}

/// The child's work: a store with a base, more batches, then a sync whose
/// in-place checkpoint the fail point cuts short.
fn child(dir: &Path) {
    let mut store = DurableVcsr::create(dir, options(dir)).unwrap();
    store.insert_edges(&edges(0)).unwrap();
    store.sync().unwrap();
    for round in 1..4 {
        store.insert_edges(&edges(round)).unwrap();
    }
    println!("BEFORE-SYNC");
    store.sync().unwrap();
    println!("SYNCED");
}

fn out_lists(store: &DurableVcsr) -> Vec<Vec<u32>> {
    (0..store.vertex_count() as u32)
        .map(|v| {
            let mut list: Vec<u32> = store.out_neighbors(v).collect();
            list.sort_unstable();
            list
        })
        .collect()
}

/// Runs the child with `fail_point` armed at its `n`-th pass, for the
/// first `n` that stops the child's last sync (earlier passes belong to
/// the base's sync).
fn kill_inside_a_checkpoint(name: &str, fail_point: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("durable-check-{}-{name}", std::process::id()));
    for n in 1..=8 {
        let _ = std::fs::remove_dir_all(&dir);
        let output = Command::new(std::env::current_exe().unwrap())
            .args(["child_entry", "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD, &dir)
            .env("DYNGRAPH_DURABLE_FAILPOINT", format!("{fail_point}:{n}"))
            .output()
            .expect("re-run the test binary as the child");
        let stdout = String::from_utf8_lossy(&output.stdout);
        if stdout.contains("BEFORE-SYNC") && !stdout.contains("SYNCED") {
            return dir;
        }
    }
    panic!("the fail point {fail_point} never stopped the child's last sync");
}

#[test]
fn child_entry() {
    if let Ok(dir) = std::env::var(CHILD) {
        child(Path::new(&dir));
    }
}

#[test]
fn check_passes_a_store_killed_inside_an_in_place_checkpoint() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    for fail_point in [
        "checkpoint-pages-written",
        "sync-array-written",
        "sync-written",
    ] {
        let dir = kill_inside_a_checkpoint(fail_point, fail_point);
        let checked = DurableVcsr::check_dir(&dir).unwrap_or_else(|e| {
            panic!("{fail_point}: check called a crash-consistent store damaged: {e}")
        });
        assert!(!checked.clean, "{fail_point}: the store was not closed");
        let served = DurableVcsr::open_read_only(&dir).unwrap();
        let served_lists = out_lists(&served);
        let served_edges = served.edge_count();
        drop(served);
        assert_eq!(checked.edges, served_edges, "{fail_point}");
        // Recovery writes the record back; the check then passes on the
        // files themselves, and the graph is the one the check judged.
        let recovered = DurableVcsr::open(&dir).unwrap();
        assert_eq!(out_lists(&recovered), served_lists, "{fail_point}");
        recovered.close().unwrap();
        let after = DurableVcsr::check_dir(&dir).unwrap();
        assert!(after.clean && after.edges == served_edges, "{fail_point}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A read-only open (what `check_dir`, `load D` and `run KERNEL D` do)
/// of a store that crashed after its array grew replays the growth from
/// the log in memory; extending the page-checksum file, opened for
/// reading, failed with EBADF, and the check called the store damaged
/// (4 of 2,000 kills of the crash campaign once it checked every store).
#[test]
fn a_read_only_open_replays_a_growth_without_writing_its_files() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("durable-check-{}-growth", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = DurableOptions::in_dir(&dir)
        .sync(SyncPolicy::EveryBatch)
        .initial_capacity(64)
        .store(StoreOptions::default().in_edges(true));
    let mut store = DurableVcsr::create(&dir, options).unwrap();
    store.insert_edges(&[Edge::new(0, 1)]).unwrap();
    store.sync().unwrap();
    let sums_path = dir.join("edges-1.sum");
    let checkpointed = std::fs::metadata(&sums_path).unwrap().len();
    // Acknowledged in the log; the arrays grew, and no checkpoint wrote
    // the growth into the files.
    for round in 0..4 {
        store.insert_edges(&edges(round)).unwrap();
    }
    let expected = out_lists(&store);
    store.drop_without_close();
    // A power cut may lose the extension of the checksum file (it is not
    // synced until a checkpoint): recovery then grows it again.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&sums_path)
        .unwrap();
    file.set_len(checkpointed).unwrap();
    drop(file);
    let sums = std::fs::read(&sums_path).unwrap();
    let checked = DurableVcsr::check_dir(&dir).unwrap();
    let view = DurableVcsr::open_read_only(&dir).unwrap();
    assert_eq!(out_lists(&view), expected);
    assert_eq!(checked.edges, view.edge_count());
    drop(view);
    assert_eq!(
        std::fs::read(&sums_path).unwrap(),
        sums,
        "a read-only open wrote the checksums"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A store killed after a checkpoint, whose superblock is then lost, was
/// called a creation that never finished ("nothing in it was
/// acknowledged; remove the directory") when the checkpoint had cut its
/// long log back to the header: the log's length was the only evidence
/// of updates. The header's base counts them. And the other way: a
/// creation cut short after its log was written, zeros ahead of it, is
/// not a store that took updates.
#[test]
fn a_checkpointed_store_without_its_superblock_is_damaged_not_unfinished() {
    let dir = std::env::temp_dir().join(format!("dyngraph-check-lost-sb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut store = DurableVcsr::create(&dir, options(&dir)).unwrap();
    store.insert_edges(&edges(0)).unwrap();
    store.sync().unwrap();
    store.drop_without_close();
    assert!(!dir.join("vertices.dat").exists(), "never closed cleanly");
    std::fs::remove_file(dir.join("superblock")).unwrap();
    let verdict = |dir: &Path| match DurableVcsr::inspect_dir(dir).unwrap() {
        dyngraph_durable::StoreDir::Damaged { reason } => reason,
        other => panic!("{other:?}"),
    };
    let log = dir.join("wal.log");
    // As the checkpoint leaves the log (zeros ahead), and as it leaves a
    // log past 16 MiB: cut back to its header.
    for cut in [false, true] {
        if cut {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&log)
                .unwrap()
                .set_len(64)
                .unwrap();
        }
        let reason = verdict(&dir);
        assert!(
            reason.contains("superblock is lost") && !reason.contains("never finished"),
            "log cut: {cut}: {reason}"
        );
    }
    // A fresh log (base 0, no group) with zeros ahead, no superblock: a
    // creation that never finished, whatever the log's length.
    let fresh = dir.with_extension("fresh");
    let _ = std::fs::remove_dir_all(&fresh);
    DurableVcsr::create(&fresh, options(&fresh))
        .unwrap()
        .drop_without_close();
    std::fs::remove_file(fresh.join("superblock")).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(fresh.join("wal.log"))
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let reason = verdict(&fresh);
    assert!(reason.contains("never finished"), "{reason}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&fresh).unwrap();
}
