//! Several writer threads with per-section locks (issue 26, DGAP §3.1.6):
//! the graph they build equals the reference model of the same updates,
//! validates, and survives a clean reopen and a crash-style reopen, with
//! small layouts that make merges, rebalances and growth frequent while
//! the threads run.

use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
use dyngraph_core::{Graph, GraphUpdate, Semantics, StoreOptions};
use dyngraph_durable::{DurableOptions, DurableVcsr, SyncPolicy};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn fresh_dir(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "durable-concurrent-{name}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// One thread's updates: inserts of its own weights, and deletes of edges
/// it inserted itself (so the model's result does not depend on how the
/// threads interleave).
#[derive(Clone, Debug)]
enum Op {
    Insert(u32, u32),
    Delete(u32, u32),
}

fn thread_ops(max_vertex: u32) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            6 => (0..max_vertex, 0..max_vertex).prop_map(|(s, d)| Op::Insert(s, d)),
            1 => (0..max_vertex, 0..max_vertex).prop_map(|(s, d)| Op::Delete(s, d)),
        ],
        0..150,
    )
}

fn options(dir: &Path, in_edges: bool, weighted: bool, sync: SyncPolicy) -> DurableOptions {
    DurableOptions::in_dir(dir)
        .store(
            StoreOptions::new(Semantics::Multigraph)
                .in_edges(in_edges)
                .weighted(weighted),
        )
        .vertices_per_section(2)
        .log_region_bytes(96)
        .initial_capacity(16)
        .sync(sync)
}

/// Runs each thread's ops on its own thread (thread `t` owns the sources
/// `s` with `s % threads == t`, so its deletes always find its own edges);
/// returns the model of all of them.
fn run_threads(store: &mut DurableVcsr, threads: &[Vec<Op>], weighted: bool) -> ReferenceGraph {
    let count = threads.len() as u32;
    {
        let writer = store.concurrent_writer().unwrap();
        std::thread::scope(|scope| {
            for (t, ops) in threads.iter().enumerate() {
                let writer = &writer;
                scope.spawn(move || {
                    for op in ops {
                        match *op {
                            Op::Insert(s, d) => {
                                let s = s - s % count + t as u32;
                                let w = if weighted { (t + 1) as f32 } else { 1.0 };
                                assert!(writer.insert_weighted_edge(s, d, w).unwrap());
                            }
                            Op::Delete(s, d) => {
                                let s = s - s % count + t as u32;
                                writer.delete_edge(s, d).unwrap();
                            }
                        }
                    }
                });
            }
        });
        writer.commit().unwrap();
    }
    // The model: each thread's ops in its own order (sources are disjoint,
    // so the threads' lists never mix).
    let mut model = ReferenceGraph::new(Semantics::Multigraph);
    for (t, ops) in threads.iter().enumerate() {
        for op in ops {
            match *op {
                Op::Insert(s, d) => {
                    let s = s - s % count + t as u32;
                    let w = if weighted { (t + 1) as f32 } else { 1.0 };
                    model.insert_weighted_edge(s, d, w).unwrap();
                }
                Op::Delete(s, d) => {
                    let s = s - s % count + t as u32;
                    model.delete_edge(s, d).unwrap();
                }
            }
        }
    }
    model
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn two_writer_threads_build_the_graph_one_would(
        a in thread_ops(24),
        b in thread_ops(24),
        in_edges in any::<bool>(),
        weighted in any::<bool>(),
        crash in any::<bool>(),
    ) {
        let dir = fresh_dir("model");
        let options = options(&dir, in_edges, weighted, SyncPolicy::EveryBatch);
        let mut store = DurableVcsr::create(&dir, options.clone()).unwrap();
        let model = run_threads(&mut store, &[a, b], weighted);
        compare_with_model(&store, &model).map_err(TestCaseError::fail)?;
        store.validate().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(store.acknowledged().edges, model.edge_count());
        if crash {
            store.drop_without_close();
        } else {
            store.close().unwrap();
        }
        let store = DurableVcsr::open_with(&dir, &options).unwrap();
        prop_assert_eq!(store.recovery_report().clean, !crash);
        compare_with_model(&store, &model).map_err(TestCaseError::fail)?;
        store.validate().map_err(|e| TestCaseError::fail(e.to_string()))?;
        drop(store);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn concurrent_inserts_into_one_section_keep_every_edge_under_group_commit() {
    let dir = fresh_dir("hot");
    let options = options(&dir, true, false, SyncPolicy::Group(Default::default()));
    let mut store = DurableVcsr::create(&dir, options.clone()).unwrap();
    {
        let writer = store.concurrent_writer().unwrap();
        std::thread::scope(|scope| {
            for t in 0..2u32 {
                let writer = &writer;
                // Both threads hammer vertices 0 and 1 (one section), so
                // the section lock, merges and rebalances are contended.
                scope.spawn(move || {
                    for i in 0..2000u32 {
                        writer.insert_edge(i % 2, 2 + t * 2000 + i).unwrap();
                    }
                });
            }
        });
        let commit = writer.commit().unwrap();
        assert_eq!(commit.acknowledged.edges, 4000);
    }
    assert_eq!(store.edge_count(), 4000);
    store.validate().unwrap();
    let stats = store.stats();
    assert!(stats.log_merges > 0 && stats.rebalances > 0, "{stats:?}");
    // The threads took the shared path (log appends under section locks).
    assert!(
        stats.log_appends > 0 && stats.in_place_inserts > 0,
        "{stats:?}"
    );
    store.drop_without_close();
    let store = DurableVcsr::open_with(&dir, &options).unwrap();
    assert_eq!(store.edge_count(), 4000);
    let mut in_degree_sum = 0;
    let incoming = dyngraph_core::InEdges::in_edges(&store).unwrap();
    for v in 0..store.vertex_count() as u32 {
        in_degree_sum += dyngraph_core::InNeighbors::in_degree(incoming, v);
    }
    assert_eq!(in_degree_sum, 4000);
    store.validate().unwrap();
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}
