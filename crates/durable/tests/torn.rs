//! Torn and corrupted files, and full disks: recovery repairs what a crash
//! can leave (an unacknowledged torn tail, an undo record that never became
//! durable, an armed record after a cut rebalance) and refuses the rest
//! with an error naming the file; it never panics and never drops an
//! acknowledged edge. A full disk is an error, not a corruption.

use dyngraph_core::{Graph, GraphUpdate, OutNeighbors, StoreOptions};
use dyngraph_durable::format::{
    EDGE_LOG_FILE, EDGES_FILE, SUPERBLOCK_FILE, UndoHeader, UndoSegment, undo_file,
};
use dyngraph_durable::{DurableOptions, DurableVcsr, SyncPolicy};
use std::path::{Path, PathBuf};

const REGION: usize = 256;

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("durable-torn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn options(dir: &Path) -> DurableOptions {
    DurableOptions::in_dir(dir)
        .store(StoreOptions::default().weighted(true))
        .vertices_per_section(4)
        .log_region_bytes(REGION as u32)
        .sync(SyncPolicy::Explicit)
}

/// A store whose vertex 0 has edges in the array and in section 0's log;
/// returns it with the number of edges inserted.
fn store_with_log_entries(dir: &Path) -> (DurableVcsr, u64) {
    let mut store = DurableVcsr::create(dir, options(dir)).unwrap();
    store.add_vertices(8).unwrap();
    let mut inserted = 0;
    while store.stats().log_appends < 4 {
        store
            .insert_weighted_edge(0, 1 + inserted as u32 % 7, 2.0)
            .unwrap();
        inserted += 1;
    }
    (store, inserted)
}

/// Byte offset of the first blank entry of section 0's log.
fn next_log_entry(dir: &Path) -> usize {
    last_log_entry(dir) + 16
}

/// Byte offset of the last written entry of section 0's log.
fn last_log_entry(dir: &Path) -> usize {
    let bytes = std::fs::read(dir.join(EDGE_LOG_FILE)).unwrap();
    let mut last = None;
    for i in 0.. {
        let at = 16 + i * 16;
        if at + 16 > REGION || bytes[at..at + 16].iter().all(|&b| b == 0) {
            break;
        }
        last = Some(at);
    }
    last.expect("section 0 has log entries")
}

fn flip(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 0x5A;
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_torn_unacknowledged_log_tail_is_cut_and_reported() {
    let dir = fresh_dir("log-tail");
    let (mut store, inserted) = store_with_log_entries(&dir);
    store.sync().unwrap();
    store.sync().unwrap(); // and the synced count with it
    store.drop_without_close();
    // An entry a crash cut half-way (its first half written, never
    // acknowledged): garbage after the last good entry.
    let log = dir.join(EDGE_LOG_FILE);
    let mut bytes = std::fs::read(&log).unwrap();
    let at = next_log_entry(&dir);
    bytes[at..at + 8].copy_from_slice(&[0, 0, 0, 0, 3, 0, 0, 0x40]);
    std::fs::write(&log, bytes).unwrap();
    let store = DurableVcsr::open(&dir).unwrap();
    let report = store.recovery_report();
    assert!(!report.clean);
    assert_eq!(report.torn_log_entries, 1, "{report}");
    assert!(
        report.to_string().contains("torn edge-log entries"),
        "{report}"
    );
    assert_eq!(
        store.edge_count(),
        inserted,
        "every acknowledged edge is kept"
    );
    store.validate().unwrap();
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_corrupted_acknowledged_log_entry_is_refused() {
    let dir = fresh_dir("log-acked");
    let (mut store, _) = store_with_log_entries(&dir);
    store.sync().unwrap(); // the last entry is acknowledged ...
    store.sync().unwrap(); // ... and its section's synced count durable
    store.drop_without_close();
    flip(&dir.join(EDGE_LOG_FILE), last_log_entry(&dir) + 8);
    let err = DurableVcsr::open(&dir).unwrap_err().to_string();
    assert!(
        err.contains(EDGE_LOG_FILE) && err.contains("acknowledged"),
        "{err}"
    );
    // Truncating the log below what the vertices need is refused too.
    let log = dir.join(EDGE_LOG_FILE);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(100)
        .unwrap();
    let err = DurableVcsr::open(&dir).unwrap_err().to_string();
    assert!(
        err.contains(EDGE_LOG_FILE) && err.contains("section regions"),
        "{err}"
    );
    std::fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(0)
        .unwrap();
    let err = DurableVcsr::open(&dir).unwrap_err().to_string();
    assert!(
        err.contains(EDGE_LOG_FILE) && err.contains("truncated"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Writes an armed undo record into `dir`'s undo log.
fn write_undo(dir: &Path, header: &UndoHeader, body: &[u8]) {
    let path = dir.join(undo_file(0));
    let mut bytes = header.encode();
    bytes.resize(4096, 0);
    bytes.extend_from_slice(body);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn an_undo_record_that_never_became_durable_is_discarded() {
    let dir = fresh_dir("undo-torn");
    let (mut store, inserted) = store_with_log_entries(&dir);
    store.sync().unwrap();
    let generation = store.generation();
    let edges = store.edge_count();
    store.drop_without_close();
    let window = 16 * 8; // 16 slots of 8 bytes (weighted)
    let mut body = UndoSegment {
        lo: 0,
        hi: 16,
        first_section: 0,
        end_section: 1,
    }
    .encode()
    .to_vec();
    body.resize(body.len() + window + REGION, 0xEE);
    let header = UndoHeader {
        armed: true,
        generation,
        segments: 1,
        body_len: body.len() as u64,
        body_crc: crc(&body) ^ 1, // torn: the body is not what was saved
    };
    write_undo(&dir, &header, &body);
    let store = DurableVcsr::open(&dir).unwrap();
    assert!(store.recovery_report().undo_discarded.is_some());
    assert!(store.recovery_report().undo_restored.is_empty());
    assert_eq!(store.edge_count(), edges);
    assert_eq!(edges, inserted);
    store.validate().unwrap();
    drop(store);
    // A record cut short (the file truncated inside its body) likewise.
    let mut store = DurableVcsr::open(&dir).unwrap();
    store.sync().unwrap();
    store.drop_without_close();
    let header = UndoHeader {
        body_crc: crc(&body),
        ..header
    };
    write_undo(&dir, &header, &body[..body.len() / 2]);
    let store = DurableVcsr::open(&dir).unwrap();
    assert!(store.recovery_report().undo_discarded.is_some());
    assert_eq!(store.edge_count(), edges);
    store.validate().unwrap();
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn crc(bytes: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(bytes);
    h.finalize()
}

#[test]
fn an_armed_undo_record_is_restored_and_the_rebalance_redone() {
    let dir = fresh_dir("undo-restore");
    let (mut store, _) = store_with_log_entries(&dir);
    store.sync().unwrap();
    let want: Vec<Vec<(u32, u32)>> = (0..store.vertex_count() as u32)
        .map(|v| {
            use dyngraph_core::{EdgeWeights, WeightedNeighbors};
            let h = store.edge_weights().unwrap();
            h.out_neighbors_weighted(v)
                .map(|(d, w)| (d, w.to_bits()))
                .collect()
        })
        .collect();
    let generation = store.generation();
    store.drop_without_close();
    // Save section 0's window and log as a rebalance would, then wreck
    // them as a rebalance cut half-way would.
    let edges_path = dir.join(EDGES_FILE);
    let log_path = dir.join(EDGE_LOG_FILE);
    let mut array = std::fs::read(&edges_path).unwrap();
    let mut log = std::fs::read(&log_path).unwrap();
    let hi = 48u64; // slots 0..48 cover vertices 0..4 (spacing up to 16)
    let window = 4096..4096 + hi as usize * 8;
    let segment = UndoSegment {
        lo: 0,
        hi,
        first_section: 0,
        end_section: 1,
    };
    let mut body = segment.encode().to_vec();
    body.extend_from_slice(&array[window.clone()]);
    body.extend_from_slice(&log[..REGION]);
    let header = UndoHeader {
        armed: true,
        generation,
        segments: 1,
        body_len: body.len() as u64,
        body_crc: crc(&body),
    };
    write_undo(&dir, &header, &body);
    array[window.start + 40..window.end].fill(0xAB);
    log[16..REGION].fill(0);
    std::fs::write(&edges_path, array).unwrap();
    std::fs::write(&log_path, log).unwrap();

    let store = DurableVcsr::open(&dir).unwrap();
    let report = store.recovery_report().clone();
    assert_eq!(report.undo_restored, [(0, hi, 0, 1)], "{report}");
    assert!(report.rebalance_redone, "{report}");
    store.validate().unwrap();
    use dyngraph_core::{EdgeWeights, WeightedNeighbors};
    let h = store.edge_weights().unwrap();
    for (v, list) in want.iter().enumerate() {
        let got: Vec<(u32, u32)> = h
            .out_neighbors_weighted(v as u32)
            .map(|(d, w)| (d, w.to_bits()))
            .collect();
        assert_eq!(&got, list, "vertex {v}");
    }
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_corrupted_or_missing_superblock_is_refused_by_name() {
    let dir = fresh_dir("superblock");
    let (store, _) = store_with_log_entries(&dir);
    store.close().unwrap();
    let path = dir.join(SUPERBLOCK_FILE);
    let good = std::fs::read(&path).unwrap();
    flip(&path, 20);
    let err = DurableVcsr::open(&dir).unwrap_err().to_string();
    assert!(
        err.contains(SUPERBLOCK_FILE) && err.contains("checksum"),
        "{err}"
    );
    std::fs::write(&path, &good[..good.len() - 3]).unwrap();
    let err = DurableVcsr::open(&dir).unwrap_err().to_string();
    assert!(
        err.contains(SUPERBLOCK_FILE) && err.contains("truncated"),
        "{err}"
    );
    std::fs::write(&path, b"something else entirely").unwrap();
    let err = DurableVcsr::open(&dir).unwrap_err().to_string();
    assert!(err.contains("bad magic"), "{err}");
    std::fs::remove_file(&path).unwrap();
    let err = DurableVcsr::open(&dir).unwrap_err().to_string();
    assert!(err.contains("superblock is lost"), "{err}");
    // Nor is it taken for a place to create a new store in.
    let err = DurableVcsr::create(&dir, DurableOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("superblock is lost"), "{err}");
    // Put it back: the store opens cleanly again.
    std::fs::write(&path, &good).unwrap();
    let store = DurableVcsr::open(&dir).unwrap();
    assert!(store.recovery_report().clean);
    drop(store);
    // A truncated edge array is refused by name.
    let edges = dir.join(EDGES_FILE);
    let len = std::fs::metadata(&edges).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&edges)
        .unwrap()
        .set_len(len / 3)
        .unwrap();
    let err = DurableVcsr::open(&dir).unwrap_err().to_string();
    assert!(err.contains(EDGES_FILE), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Inserts a growing stream until the first error; returns the edges the
/// store acknowledged and the error.
fn fill_until_error(store: &mut DurableVcsr) -> (u64, dyngraph_core::Error) {
    let mut acknowledged = 0;
    for round in 0..100_000u32 {
        let batch: Vec<(u32, u32)> = (0..64).map(|i| (round % 500, round + i)).collect();
        match store.insert_edges(&batch) {
            Ok(report) => acknowledged += report.edges_added,
            Err(e) => return (acknowledged, e),
        }
    }
    panic!("the disk never filled");
}

#[test]
fn a_full_disk_is_an_error_not_a_corruption() {
    let dir = fresh_dir("enospc");
    let limit = 512 << 10;
    let options = DurableOptions::in_dir(&dir)
        .sync(SyncPolicy::EveryBatch)
        .space_limit(Some(limit));
    let mut store = DurableVcsr::create(&dir, options.clone()).unwrap();
    let (acknowledged, err) = fill_until_error(&mut store);
    assert!(err.to_string().contains("no space left"), "{err}");
    assert!(acknowledged > 0);
    assert!(store.file_bytes() <= limit);
    // The failed batch may have inserted a prefix before the error; the
    // store is consistent either way and keeps at least what was
    // acknowledged.
    store.validate().unwrap();
    let kept = store.edge_count();
    assert!(kept >= acknowledged);
    store.close().unwrap();
    let store = DurableVcsr::open_with(&dir, &options).unwrap();
    assert!(store.recovery_report().clean);
    assert_eq!(store.edge_count(), kept);
    store.validate().unwrap();
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_full_tmpfs_is_an_error_not_a_corruption() {
    let dir = fresh_dir("tmpfs");
    std::fs::create_dir_all(&dir).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(&dir)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!(
            "skipped: cannot mount a 1 MiB tmpfs here (needs root); the space-limit test covers the path"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }
    let store_dir = dir.join("store");
    let result = std::panic::catch_unwind(|| {
        let options = DurableOptions::in_dir(&store_dir).sync(SyncPolicy::EveryBatch);
        let mut store = DurableVcsr::create(&store_dir, options.clone()).unwrap();
        let (acknowledged, err) = fill_until_error(&mut store);
        assert!(err.to_string().contains("No space left"), "{err}");
        store.validate().unwrap();
        // Closing needs room for the state file; it may fail, cleanly.
        let closed = store.close();
        let store = DurableVcsr::open_with(&store_dir, &options).unwrap();
        assert_eq!(store.recovery_report().clean, closed.is_ok());
        assert!(store.edge_count() >= acknowledged);
        store.validate().unwrap();
        let first: Vec<u32> = store.out_neighbors(0).take(3).collect();
        assert_eq!(first, [0, 1, 2]);
    });
    let _ = std::process::Command::new("umount").arg(&dir).status();
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// The byte ranges of the write-ahead log's groups: `(start, end)` each.
fn log_groups(dir: &Path) -> Vec<(usize, usize)> {
    let bytes = std::fs::read(dir.join(dyngraph_durable::format::WAL_FILE)).unwrap();
    let mut at = dyngraph_durable::format::wal::WAL_HEADER_BYTES;
    let mut groups = Vec::new();
    while at + 68 <= bytes.len() && bytes[at..at + 4] == *b"WGRP" {
        let payload = u32::from_le_bytes(bytes[at + 16..at + 20].try_into().unwrap()) as usize;
        groups.push((at, at + 68 + payload));
        at += 68 + payload;
    }
    groups
}

#[test]
fn a_torn_last_log_group_is_cut_and_a_damaged_one_refused() {
    let dir = fresh_dir("wal-tail");
    let options = DurableOptions::in_dir(&dir).sync(SyncPolicy::EveryBatch);
    let mut store = DurableVcsr::create(&dir, options.clone()).unwrap();
    let first: Vec<(u32, u32)> = (0..100).map(|i| (i % 10, i)).collect();
    let second: Vec<(u32, u32)> = (0..300).map(|i| (i % 10, 100 + i)).collect();
    store.insert_edges(&first).unwrap();
    store.insert_edges(&second).unwrap();
    store.drop_without_close();
    let groups = log_groups(&dir);
    assert_eq!(groups.len(), 2, "{groups:?}");
    let (start, end) = groups[1];
    let wal = dir.join(dyngraph_durable::format::WAL_FILE);
    let good = std::fs::read(&wal).unwrap();
    // Zeros follow the last group (written ahead): that is the log's end,
    // not a tear.
    assert!(good[end..].iter().all(|&b| b == 0) && good.len() > end);

    // A power cut inside the second commit: a sector of its payload never
    // written. The group was never acknowledged; it is cut, the first kept.
    let mut torn = good.clone();
    torn[start + 200..start + 712].fill(0);
    std::fs::write(&wal, &torn).unwrap();
    let store = DurableVcsr::open_with(&dir, &options).unwrap();
    let report = store.recovery_report().clone();
    assert!(report.wal_torn_bytes > 0, "{report}");
    assert!(
        report.to_string().contains("torn write-ahead-log group"),
        "{report}"
    );
    assert_eq!(store.edge_count(), 100);
    store.validate().unwrap();
    drop(store);

    // The same group damaged (one bit) is refused: it may have been
    // acknowledged, and nothing says it was not.
    let _ = std::fs::remove_dir_all(&dir);
    let mut store = DurableVcsr::create(&dir, options.clone()).unwrap();
    store.insert_edges(&first).unwrap();
    store.insert_edges(&second).unwrap();
    store.drop_without_close();
    let mut damaged = std::fs::read(&wal).unwrap();
    damaged[start + 400] ^= 0x10;
    std::fs::write(&wal, &damaged).unwrap();
    let err = DurableVcsr::open_with(&dir, &options)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("wal.log")
            && err.contains(&format!("byte {start}"))
            && err.contains("damaged"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
