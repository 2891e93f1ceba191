//! `Vcsr`'s merged batch path (`BatchUpdates::Merged`) against one edge at
//! a time and against the reference model: a batch equals its edges
//! inserted one at a time (lists in order, in-edges and weights included);
//! mixed batches of inserts and deletes; snapshots taken before a batch
//! read the same after it; proptest sequences in rayon pools of 1 and 2
//! threads. `merge_batches_above(0)` sends every batch down the merged
//! path, however small.

use dyngraph_core::testing::fixed_weighted_edges;
use dyngraph_core::testing::{
    InListOrder, Op, ReferenceGraph, check_contract_with, check_snapshots_across_batches,
    compare_with_model, ops, same_lists, weighted_edges,
};
use dyngraph_core::{
    Edge, FromEdges, Graph, GraphUpdate, OutNeighbors, Semantics, StoreOptions, VertexId,
    WeightedEdge,
};
use dyngraph_vcsr::{BatchUpdates, Vcsr, VcsrOptions};
use proptest::prelude::*;

fn every_option() -> Vec<StoreOptions> {
    let mut all = Vec::new();
    for semantics in [Semantics::Multigraph, Semantics::Simple] {
        for (in_edges, weighted) in [(false, false), (false, true), (true, false), (true, true)] {
            all.push(
                StoreOptions::new(semantics)
                    .in_edges(in_edges)
                    .weighted(weighted),
            );
        }
    }
    all
}

fn merged(options: StoreOptions) -> VcsrOptions {
    VcsrOptions::from(options).merge_batches_above(0)
}

fn one_by_one(options: StoreOptions) -> VcsrOptions {
    VcsrOptions::from(options).batch_updates(BatchUpdates::EdgeByEdge)
}

fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// The two stores' lists equal ([`same_lists`]), and both stores valid.
/// In-lists are compared in order only when both grew from one base under
/// multigraph semantics: a simple batch's in-edges arrive in source order,
/// as do a bulk load's and the edge-by-edge path's.
fn same_lists_valid(
    a: &Vcsr,
    b: &Vcsr,
    options: StoreOptions,
    in_order: bool,
) -> Result<(), String> {
    let in_lists = if in_order && options.semantics == Semantics::Multigraph {
        InListOrder::Kept
    } else {
        InListOrder::Sorted
    };
    same_lists(a, b, in_lists)?;
    a.validate().map_err(|e| e.to_string())?;
    b.validate().map_err(|e| e.to_string())
}

/// `base` bulk-built, then `batch` as one merged batch into one store and
/// one edge at a time into the other.
fn batch_equals_one_at_a_time(
    options: StoreOptions,
    base: &[WeightedEdge],
    batch: &[WeightedEdge],
) -> Result<(), String> {
    let mut batched = Vcsr::from_edges(base, merged(options)).map_err(|e| e.to_string())?;
    let mut single = Vcsr::from_edges(base, merged(options)).map_err(|e| e.to_string())?;
    let report = batched.insert_edges(batch).map_err(|e| e.to_string())?;
    let mut added = 0;
    for e in batch {
        added += u64::from(
            single
                .insert_weighted_edge(e.src, e.dst, e.weight)
                .map_err(|e| e.to_string())?,
        );
    }
    if report.edges_added != added {
        return Err(format!(
            "batch added {}, one at a time {added}",
            report.edges_added
        ));
    }
    // Into an empty store a batch is a bulk load.
    same_lists_valid(&batched, &single, options, !base.is_empty())
}

#[test]
fn a_batch_equals_its_edges_one_at_a_time() {
    // Bases from empty to dense; batches small, growing the array, and
    // reaching past the vertex count; duplicates and self-loops included.
    let cases = [
        (0, 3_000, 50),
        (2_000, 300, 200),
        (20_000, 5_000, 3_000),
        (5_000, 40_000, 1_000),
        (30_000, 30_000, 20),
    ];
    for threads in [1, 2] {
        for &(base_len, batch_len, vertices) in &cases {
            let base = fixed_weighted_edges(base_len, vertices, 7);
            let batch = fixed_weighted_edges(batch_len, vertices + 25, 8);
            for options in every_option() {
                in_pool(threads, || {
                    batch_equals_one_at_a_time(options, &base, &batch)
                })
                .unwrap_or_else(|e| {
                    panic!(
                        "{threads} threads, {options:?}, base {base_len}, batch {batch_len}: {e}"
                    )
                });
            }
        }
    }
}

#[test]
fn merged_and_edge_by_edge_batches_agree_and_deletes_remove_the_oldest() {
    for options in every_option() {
        let base = fixed_weighted_edges(10_000, 400, 1);
        let mut merged_store = Vcsr::from_edges(&base, merged(options)).unwrap();
        let mut old = Vcsr::from_edges(&base, one_by_one(options)).unwrap();
        let mut model = ReferenceGraph::new(options.semantics);
        model.insert_edges(&base).unwrap();
        for round in 0..6u64 {
            let inserts = fixed_weighted_edges(20_000, 420, 10 + round);
            // Deletes: half of them present edges, some twice, some absent
            // or outside the graph.
            let mut deletes: Vec<Edge> = fixed_weighted_edges(15_000, 430, 20 + round)
                .iter()
                .map(|e| Edge::new(e.src, e.dst))
                .collect();
            deletes.extend(inserts.iter().step_by(3).map(|e| Edge::new(e.src, e.dst)));
            deletes.extend(inserts.iter().step_by(7).map(|e| Edge::new(e.src, e.dst)));
            deletes.push(Edge::new(10_000, 1));
            for (store, name) in [(&mut merged_store, "merged"), (&mut old, "edge by edge")] {
                assert_eq!(
                    store.insert_edges(&inserts).unwrap().edges_added,
                    model.clone().insert_edges(&inserts).unwrap().edges_added,
                    "{name}, {options:?}, round {round}: inserts added"
                );
                let _ = store;
            }
            let added = model.insert_edges(&inserts).unwrap();
            let removed_model = model.delete_edges(&deletes).unwrap();
            let removed = merged_store.delete_edges(&deletes).unwrap();
            assert_eq!(
                removed, removed_model,
                "{options:?}, round {round}: removed"
            );
            assert_eq!(old.delete_edges(&deletes).unwrap(), removed_model);
            let _ = added;
            compare_with_model(&merged_store, &model)
                .unwrap_or_else(|e| panic!("{options:?}, round {round}: {e}"));
            same_lists_valid(&merged_store, &old, options, false)
                .unwrap_or_else(|e| panic!("{options:?}, round {round}: {e}"));
        }
    }
}

#[test]
fn snapshots_taken_before_a_batch_read_the_same_after_it() {
    for options in every_option() {
        let mut graph = check_snapshots_across_batches::<Vcsr>(merged(options))
            .unwrap_or_else(|e| panic!("{options:?}: {e}"));
        graph.validate().unwrap();
        // The snapshots kept the deleted slots as tombstones; with none
        // left, the next batches reclaim them.
        assert!(
            graph.stats().out_tombstones > 0,
            "snapshots keep the tombstones"
        );
        graph
            .insert_edges(&fixed_weighted_edges(60_000, 300, 6))
            .unwrap();
        graph.validate().unwrap();
        assert_eq!(graph.stats().out_tombstones, 0, "{options:?}");
    }
}

/// The core contract's steps on a `Vcsr` whose every batch is merged,
/// against the model after each step (snapshots included), with the
/// store's invariants and each list in arrival order.
fn run_against_model(
    options: StoreOptions,
    base: &[WeightedEdge],
    steps: &[Op],
) -> Result<(), TestCaseError> {
    check_contract_with::<Vcsr>(merged(options), base, steps, |graph, model| {
        graph.validate().map_err(|e| e.to_string())?;
        match (0..model.vertex_count() as VertexId)
            .find(|&v| !graph.out_neighbors(v).eq(model.out_neighbors(v)))
        {
            Some(v) => Err(format!("the order of {v}'s list")),
            None => Ok(()),
        }
    })
    .map_err(TestCaseError::fail)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn merged_batches_keep_the_model_at_one_and_two_threads(
        base in weighted_edges(40, 0..300),
        steps in ops(44, 0..120),
    ) {
        for threads in [1, 2] {
            for options in every_option() {
                in_pool(threads, || run_against_model(options, &base, &steps))
                    .map_err(|e| TestCaseError::fail(format!("{threads} threads, {options:?}: {e}")))?;
            }
        }
    }
}
