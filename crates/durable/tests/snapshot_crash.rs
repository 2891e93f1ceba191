//! Deterministic crash points: the directory is copied (what a `SIGKILL`
//! at that instant leaves: the files as the kernel has them) after every
//! update and every sync, and each copy is recovered and checked against
//! the model.

use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
use dyngraph_core::{GraphUpdate, Semantics, StoreOptions};
use dyngraph_durable::{DurableOptions, DurableVcsr, SyncPolicy};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() != "LOCK" {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

#[test]
fn every_synced_state_recovers_exactly() {
    for seed in 0..3u64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let dir = std::env::temp_dir().join(format!("durable-snap-{}-{seed}", std::process::id()));
        let copy = dir.with_extension("copy");
        let _ = std::fs::remove_dir_all(&dir);
        let options = DurableOptions::in_dir(&dir)
            .store(StoreOptions::new(Semantics::Multigraph).weighted(seed % 2 == 0))
            .vertices_per_section(rng.random_range(2..16))
            .log_region_bytes(16 * rng.random_range(5..20))
            .initial_capacity(64)
            .edge_log(seed % 3 != 0)
            .max_undo_bytes(if seed == 1 { 256 } else { 1 << 20 })
            .sync(SyncPolicy::Explicit);
        let mut store = DurableVcsr::create(&dir, options.clone()).unwrap();
        let mut model = ReferenceGraph::new(Semantics::Multigraph);
        let mut inserted = Vec::new();
        // The model after every step since the last sync: a copy taken
        // now must equal one of them (files change only at syncs, growths
        // and rewrites, each of which writes the whole current state).
        let mut since_sync: Vec<ReferenceGraph> = vec![model.clone()];
        for step in 0..200 {
            let n = 10 + step / 3;
            if !inserted.is_empty() && rng.random_bool(0.1) {
                let (s, d) = inserted[rng.random_range(0..inserted.len())];
                assert_eq!(
                    store.delete_edge(s, d).unwrap(),
                    model.delete_edge(s, d).unwrap()
                );
            } else {
                let (s, d) = (rng.random_range(0..n), rng.random_range(0..n));
                let w = f32::from(rng.random_range(1u8..9));
                inserted.push((s, d));
                store.insert_weighted_edge(s, d, w).unwrap();
                model.insert_weighted_edge(s, d, w).unwrap();
            }
            since_sync.push(model.clone());
            let synced = rng.random_bool(0.2);
            if synced {
                store.sync().unwrap();
            }
            copy_dir(&dir, &copy);
            let recovered = DurableVcsr::open_with(&copy, &options).unwrap();
            recovered.validate().unwrap();
            let candidates: &[ReferenceGraph] = if synced {
                &since_sync[since_sync.len() - 1..]
            } else {
                &since_sync
            };
            let matched = candidates
                .iter()
                .rposition(|m| compare_with_model(&recovered, m).is_ok());
            if matched.is_none() {
                panic!(
                    "seed {seed} step {step} (synced {synced}): matches no state since the last sync ({} candidates); vs now: {:?}\n{}",
                    candidates.len(),
                    compare_with_model(&recovered, &model),
                    recovered.recovery_report()
                );
            }
            drop(recovered);
            if synced {
                since_sync = vec![model.clone()];
            }
        }
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&copy);
    }
}
