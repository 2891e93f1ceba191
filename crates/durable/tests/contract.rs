//! The store contract and a model check with small layouts that make
//! merges, rebalances, rewrites and reopens frequent.

use dyngraph_core::testing::{
    ReferenceGraph, check_contract, compare_with_model, ops, weighted_edges,
};
use dyngraph_core::{
    Edge, FromEdges, Graph, GraphStore, GraphUpdate, OutNeighbors, Semantics, StoreOptions,
    WeightedEdge,
};
use dyngraph_durable::{DurableOptions, DurableVcsr, SyncPolicy};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn contract_holds(
        base in weighted_edges(12, 0..40),
        steps in ops(14, 0..60),
        simple in any::<bool>(),
        weighted in any::<bool>(),
    ) {
        let semantics = if simple { Semantics::Simple } else { Semantics::Multigraph };
        let options = StoreOptions::new(semantics).weighted(weighted);
        check_contract::<DurableVcsr>(options, &base, &steps).map_err(TestCaseError::fail)?;
    }
}

/// One step of the small-layout model check.
#[derive(Clone, Debug)]
enum Step {
    Insert(WeightedEdge),
    Delete(Edge),
    Batch(Vec<WeightedEdge>),
    Reopen,
}

fn steps(max_vertex: u32) -> impl Strategy<Value = Vec<Step>> {
    let edge = (0..max_vertex, 0..max_vertex, 1u8..9)
        .prop_map(|(s, d, w)| WeightedEdge::new(s, d, f32::from(w)));
    prop::collection::vec(
        prop_oneof![
            8 => edge.clone().prop_map(Step::Insert),
            3 => (0..max_vertex, 0..max_vertex).prop_map(|(s, d)| Step::Delete(Edge::new(s, d))),
            2 => prop::collection::vec(edge, 0..30).prop_map(Step::Batch),
            1 => Just(Step::Reopen),
        ],
        0..120,
    )
}

fn small(
    dir: &std::path::Path,
    semantics: Semantics,
    weighted: bool,
    edge_log: bool,
) -> DurableOptions {
    DurableOptions::in_dir(dir)
        .store(StoreOptions::new(semantics).weighted(weighted))
        .vertices_per_section(2)
        .log_region_bytes(96) // 5 entries
        .initial_capacity(16)
        .edge_log(edge_log)
        .sync(SyncPolicy::EveryN(3))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn small_layouts_match_the_model(
        steps in steps(20),
        simple in any::<bool>(),
        weighted in any::<bool>(),
        edge_log in any::<bool>(),
        max_undo in prop_oneof![Just(64u64), Just(1 << 20)],
        // One page: nearly every commit checkpoints to let its pages go.
        max_changed in prop_oneof![Just(0u64), Just(4096)],
    ) {
        let semantics = if simple { Semantics::Simple } else { Semantics::Multigraph };
        let dir = std::env::temp_dir().join(format!(
            "durable-model-{}-{}", std::process::id(), rand_suffix()));
        let options = small(&dir, semantics, weighted, edge_log)
            .max_undo_bytes(max_undo)
            .max_changed_bytes(max_changed);
        let mut store = DurableVcsr::create(&dir, options.clone()).unwrap();
        let mut model = ReferenceGraph::new(semantics);
        for (i, step) in steps.iter().enumerate() {
            match step {
                Step::Insert(e) => {
                    let got = store.insert_weighted_edge(e.src, e.dst, e.weight).unwrap();
                    let want = model.insert_weighted_edge(e.src, e.dst, e.weight).unwrap();
                    prop_assert_eq!(got, want);
                }
                Step::Delete(e) => {
                    let got = store.delete_edge(e.src, e.dst).unwrap();
                    let want = model.delete_edge(e.src, e.dst).unwrap();
                    prop_assert_eq!(got, want);
                }
                Step::Batch(batch) => {
                    let got = store.insert_edges(batch).unwrap();
                    let want = model.insert_edges(batch).unwrap();
                    prop_assert_eq!(got, want);
                }
                Step::Reopen => {
                    store.close().unwrap();
                    store = DurableVcsr::open_with(&dir, &options).unwrap();
                    prop_assert!(store.recovery_report().clean);
                }
            }
            if let Err(e) = compare_with_model(&store, &model) {
                return Err(TestCaseError::fail(format!("after step {i} {step:?}: {e}")));
            }
            store.validate().map_err(|e| TestCaseError::fail(format!("after step {i}: {e}")))?;
            // Order within a vertex is insertion order (multigraph, no deletes differ).
        }
        // A crash-style reopen (no clean close) finds the same graph.
        store.sync().unwrap();
        std::mem::forget(store); // the lock file's descriptor leaks with it
        let reopened = reopen_after_leak(&dir, &options);
        compare_with_model(&reopened, &model).map_err(TestCaseError::fail)?;
        reopened.validate().unwrap();
        prop_assert!(!reopened.recovery_report().clean);
        drop(reopened);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Reopens a store whose handle was leaked (its lock is still held by this
/// process's descriptor): copy the directory and open the copy, as a new
/// process would see it after a crash.
fn reopen_after_leak(dir: &std::path::Path, options: &DurableOptions) -> DurableVcsr {
    let copy = dir.with_extension("copy");
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::rename(&copy, dir).unwrap();
    DurableVcsr::open_with(dir, options).unwrap()
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[test]
fn insertion_order_is_kept_across_log_merges_and_reopens() {
    let dir = std::env::temp_dir().join(format!("durable-order-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = small(&dir, Semantics::Multigraph, false, true);
    let mut store = DurableVcsr::create(&dir, options.clone()).unwrap();
    store.add_vertices(300).unwrap();
    // Interleave neighbouring vertices so runs collide and the logs fill.
    for i in 0..200u32 {
        store.insert_edge(i % 2, 100 + i).unwrap();
        store.insert_edge(3, i).unwrap();
    }
    let want0: Vec<u32> = (0..200).filter(|i| i % 2 == 0).map(|i| 100 + i).collect();
    assert_eq!(store.out_neighbors(0).collect::<Vec<_>>(), want0);
    assert_eq!(
        store.out_neighbors(3).collect::<Vec<_>>(),
        (0..200).collect::<Vec<_>>()
    );
    let stats = store.stats();
    assert!(stats.log_appends > 0 && stats.log_merges > 0, "{stats:?}");
    assert!(stats.rebalances > 0 && stats.resizes > 0, "{stats:?}");
    store.close().unwrap();
    let store = DurableVcsr::open(&dir).unwrap();
    assert_eq!(store.out_neighbors(0).collect::<Vec<_>>(), want0);
    store.validate().unwrap();
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn options_and_capabilities_are_checked() {
    // Built with in-edges, the store answers them (issue 26: the durable
    // in-edge array); built without, it says it has none.
    let in_edges = DurableOptions::from(StoreOptions::default().in_edges(true));
    let store = DurableVcsr::from_edges(&[Edge::new(0, 1)][..], in_edges).unwrap();
    assert!(dyngraph_core::InEdges::has_in_edges(&store));
    drop(store);
    let store = DurableVcsr::from_edges(&[Edge::new(0, 1)][..], DurableOptions::default()).unwrap();
    assert!(!dyngraph_core::InEdges::has_in_edges(&store));
    assert!(dyngraph_core::EdgeWeights::edge_weights(&store).is_err());
    assert_eq!(DurableVcsr::NAME, "DurableVcsr");
    assert!(store.memory_bytes() >= store.capacity() as usize * 4);
    let csr = store.to_csr().unwrap();
    assert_eq!(csr.edge_count(), 1);
    let dir = store.dir().to_path_buf();
    drop(store);
    assert!(
        !dir.exists(),
        "a Default store's temporary directory is removed on drop"
    );
    assert!("7".parse::<SyncPolicy>().unwrap() == SyncPolicy::EveryN(7));
    assert!("0".parse::<SyncPolicy>().is_err());
}

#[test]
fn a_second_open_of_an_open_store_is_refused() {
    let dir = std::env::temp_dir().join(format!("durable-lock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = DurableVcsr::create(&dir, DurableOptions::default()).unwrap();
    let err = DurableVcsr::open(&dir).unwrap_err();
    assert!(err.to_string().contains("open in another process"), "{err}");
    let err = DurableVcsr::create(&dir, DurableOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("LOCK") || err.to_string().contains("already"),
        "{err}"
    );
    drop(store);
    let err = DurableVcsr::create(&dir, DurableOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("already holds a durable store"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A store larger than the changed pages it may hold: with
/// `max_changed_bytes` far below its arrays, checkpoints come from that
/// bound alone (the log's threshold is out of reach), every batch's pages
/// are written out and let go, and the graph survives a reopen whole.
#[test]
fn a_store_bigger_than_its_changed_page_budget_checkpoints_and_keeps_every_edge() {
    let dir = std::env::temp_dir().join(format!("durable-budget-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = DurableOptions::in_dir(&dir)
        .store(StoreOptions::new(Semantics::Multigraph))
        .checkpoint_bytes(1 << 40)
        .checkpoint_array_divisor(0)
        .max_changed_bytes(64 << 10);
    let mut store = DurableVcsr::create(&dir, options.clone()).unwrap();
    let mut model = ReferenceGraph::new(Semantics::Multigraph);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 20_000) as u32
    };
    for _ in 0..20 {
        let batch: Vec<WeightedEdge> = (0..5_000)
            .map(|_| WeightedEdge::new(next(), next(), 1.0))
            .collect();
        store.insert_edges(&batch).unwrap();
        model.insert_edges(&batch).unwrap();
        store.commit().unwrap();
    }
    let checkpoints = store.stats().checkpoints;
    assert!(
        checkpoints >= 10,
        "{checkpoints} checkpoints for 20 batches"
    );
    compare_with_model(&store, &model).unwrap();
    store.close().unwrap();
    let reopened = DurableVcsr::open_with(&dir, &options).unwrap();
    assert!(reopened.recovery_report().clean);
    compare_with_model(&reopened, &model).unwrap();
    reopened.validate().unwrap();
    drop(reopened);
    std::fs::remove_dir_all(&dir).unwrap();
}
