//! Every durable unit is checksummed (issue 26, reliability defect 1: a
//! flipped bit, a zeroed slot, a tombstoned edge, 8 bytes of 0xFF or a bit
//! in a log entry or log header once returned wrong data with exit 0).
//! Bytes flipped, zeroed or set anywhere in every file of a clean store and
//! of a crashed one are either refused with an error naming the damaged
//! file, or provably harmless: the store then opens to exactly the
//! reference model's graph and validates. Never wrong data.

use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
use dyngraph_core::{GraphUpdate, Semantics, StoreOptions};
use dyngraph_durable::{DurableOptions, DurableVcsr, SyncPolicy};
use std::path::{Path, PathBuf};

fn college() -> Vec<(u32, u32)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/CollegeMsg.txt");
    let text = std::fs::read_to_string(&path).expect("the bundled CollegeMsg sample");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split_whitespace();
            (
                f.next().unwrap().parse().unwrap(),
                f.next().unwrap().parse().unwrap(),
            )
        })
        .collect()
}

fn options(dir: &Path) -> DurableOptions {
    DurableOptions::in_dir(dir)
        .store(
            StoreOptions::new(Semantics::Multigraph)
                .weighted(true)
                .in_edges(true),
        )
        .vertices_per_section(4)
        .log_region_bytes(128)
        .initial_capacity(64)
        .sync(SyncPolicy::EveryBatch)
}

/// Applies `updates` edges of CollegeMsg (every fifth a delete of an
/// earlier one) to `store` and `model` in small batches.
fn apply(
    store: &mut DurableVcsr,
    model: &mut ReferenceGraph,
    edges: &[(u32, u32)],
    from: usize,
    to: usize,
) {
    for chunk in (from..to).collect::<Vec<_>>().chunks(23) {
        let batch: Vec<_> = chunk
            .iter()
            .map(|&i| {
                let (s, d) = edges[i];
                dyngraph_core::WeightedEdge::new(s, d, (i % 13) as f32 + 1.0)
            })
            .collect();
        store.insert_edges(&batch).unwrap();
        model.insert_edges(&batch).unwrap();
        let (s, d) = edges[chunk[0] / 2];
        assert_eq!(
            store.delete_edge(s, d).unwrap(),
            model.delete_edge(s, d).unwrap()
        );
    }
}

/// Builds a store in `dir`: updates, a checkpoint with a sidecar, more
/// updates; then a clean close, or (`crashed`) a commit and a crash, so
/// that the log holds groups past the checkpoint.
fn build(dir: &Path, crashed: bool) -> ReferenceGraph {
    let edges = college();
    let mut model = ReferenceGraph::new(Semantics::Multigraph);
    let mut store = DurableVcsr::create(dir, options(dir)).unwrap();
    apply(&mut store, &mut model, &edges, 0, 300);
    store.stage_sidecar(b"the id map of the first checkpoint".to_vec());
    store.sync().unwrap();
    apply(&mut store, &mut model, &edges, 300, 450);
    if crashed {
        store.commit().unwrap();
        store.drop_without_close();
    } else {
        store.close().unwrap();
    }
    model
}

#[derive(Clone, Copy, Debug)]
enum Damage {
    Flip(u8),
    Zero(usize),
    Ones(usize),
}

impl Damage {
    /// Applies the damage at `at`; `false` if it changed nothing.
    fn apply(self, bytes: &mut [u8], at: usize) -> bool {
        let before = bytes.to_vec();
        let len = bytes.len();
        match self {
            Damage::Flip(bit) => bytes[at] ^= bit,
            Damage::Zero(n) => bytes[at..(at + n).min(len)].fill(0),
            Damage::Ones(n) => bytes[at..(at + n).min(len)].fill(0xFF),
        }
        bytes != &before[..]
    }
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Offsets to damage in a file of `len` bytes: every byte of its first 96
/// (the headers), then ~40 spread over the rest, and the last bytes.
fn offsets(len: usize) -> Vec<usize> {
    let mut at: Vec<usize> = (0..len.min(96)).step_by(3).collect();
    if len > 96 {
        let step = ((len - 96) / 40).max(1);
        at.extend((96..len).step_by(step));
        at.push(len - 1);
    }
    at.sort_unstable();
    at.dedup();
    at
}

#[derive(Debug, Default)]
struct Tally {
    trials: u64,
    refused: u64,
    harmless: u64,
    wrong: Vec<String>,
}

fn sweep(name: &str, crashed: bool, tally: &mut Tally) {
    let root = std::env::temp_dir().join(format!("durable-corrupt-{name}-{}", std::process::id()));
    let pristine = root.join("pristine");
    let work = root.join("work");
    let _ = std::fs::remove_dir_all(&root);
    let model = build(&pristine, crashed);
    copy_dir(&pristine, &work);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&pristine)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in files {
        let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
        // The lock files hold no data.
        if file_name == "LOCK" || file_name == "READERS" {
            continue;
        }
        let original = std::fs::read(&file).unwrap();
        for at in offsets(original.len()) {
            for damage in [
                Damage::Flip(0x01),
                Damage::Flip(0x80),
                Damage::Zero(1),
                Damage::Zero(8),
                Damage::Ones(8),
            ] {
                let mut bytes = original.clone();
                if !damage.apply(&mut bytes, at) {
                    continue;
                }
                // A read-only open: the same checks and in-memory recovery
                // as a writable one, and it writes nothing, so the copy
                // only needs this file put back afterwards.
                std::fs::write(work.join(&file_name), &bytes).unwrap();
                tally.trials += 1;
                let what = format!("{name}: {file_name} byte {at} {damage:?}");
                match DurableVcsr::open_read_only_with(&work, &options(&work)) {
                    Err(e) => {
                        let e = e.to_string();
                        if e.contains(&file_name) {
                            tally.refused += 1;
                        } else {
                            tally
                                .wrong
                                .push(format!("{what}: refused without naming it: {e}"));
                        }
                    }
                    Ok(store) => match compare_with_model(&store, &model)
                        .map_err(|e| e.to_string())
                        .and_then(|()| store.validate().map_err(|e| e.to_string()))
                    {
                        Ok(()) => tally.harmless += 1,
                        Err(e) => tally.wrong.push(format!("{what}: served wrong data: {e}")),
                    },
                }
                // Put the file back once nothing maps it (the store above
                // is dropped by now).
                std::fs::write(work.join(&file_name), &original).unwrap();
            }
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn every_flipped_or_zeroed_byte_is_refused_by_name_or_harmless() {
    let mut tally = Tally::default();
    sweep("clean", false, &mut tally);
    sweep("crashed", true, &mut tally);
    eprintln!(
        "corruption sweep: {} damaged copies, {} refused naming the file, {} harmless (the \
         model's graph), {} wrong",
        tally.trials,
        tally.refused,
        tally.harmless,
        tally.wrong.len()
    );
    assert!(tally.refused > tally.trials / 2, "{tally:?}");
    assert!(
        tally.wrong.is_empty(),
        "{} of {} damaged copies were served wrong or refused without the file:\n{}",
        tally.wrong.len(),
        tally.trials,
        tally.wrong.join("\n")
    );
}
