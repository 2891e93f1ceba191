//! `CsrPP`'s grouped batch path against one edge at a time and against the
//! reference model (issue 39): a batch equals its edges inserted one at a
//! time (lists in order, weights and in-edges included), into lists
//! inline, packed in slabs, in blocks with and without room, and holding
//! tombstones; mixed batches of inserts and deletes; snapshots taken
//! before a batch read the same after it; proptest sequences in rayon
//! pools of 1 and 2 threads. `group_inserts_above(0)` sends every batch
//! down the grouped path, however small.

mod common;

use common::check_invariants;
use dyngraph_core::testing::{
    InListOrder, Op, ReferenceGraph, check_contract_with, check_snapshots_across_batches,
    compare_with_model, fixed_weighted_edges, ops, same_lists, weighted_edges,
};
use dyngraph_core::{
    Edge, EdgeWeights, FromEdges, Graph, GraphUpdate, Semantics, StoreConfig, VertexId,
    WeightedEdge, WeightedNeighbors,
};
use dyngraph_csrpp::{CsrPP, CsrPPOptions, DeleteMode};
use proptest::prelude::*;

/// Semantics × weights × in-edges × delete mode, segments of 4 and 128
/// vertices, every batch grouped.
fn every_option() -> Vec<CsrPPOptions> {
    let mut all = Vec::new();
    for segment_size in [4, 128] {
        for semantics in [Semantics::Multigraph, Semantics::Simple] {
            for (in_edges, weighted) in [(false, false), (false, true), (true, false), (true, true)]
            {
                for delete_mode in [DeleteMode::Physical, DeleteMode::Logical] {
                    all.push(
                        CsrPPOptions::default()
                            .segment_size(segment_size)
                            .semantics(semantics)
                            .in_edges(in_edges)
                            .weighted(weighted)
                            .delete_mode(delete_mode)
                            .group_inserts_above(0),
                    );
                }
            }
        }
    }
    all
}

fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// The two stores' lists equal ([`same_lists`]; in-lists are sorted ids,
/// so compared as kept), and both stores' invariants hold.
fn same_lists_valid(a: &CsrPP, b: &CsrPP) -> Result<(), String> {
    same_lists(a, b, InListOrder::Kept)?;
    check_invariants(a)?;
    check_invariants(b)
}

/// `base` bulk-built, then every `deletes`-th base edge deleted one at a
/// time (tombstones under logical deletes), then `batch` as one batch
/// into one store and one edge at a time into the other.
fn batch_equals_one_at_a_time(
    options: &CsrPPOptions,
    base: &[WeightedEdge],
    deletes: usize,
    batch: &[WeightedEdge],
) -> Result<(), String> {
    let build = || -> Result<CsrPP, String> {
        let mut graph = CsrPP::from_edges(base, options.clone()).map_err(|e| e.to_string())?;
        for e in base.iter().step_by(deletes) {
            graph.delete_edge(e.src, e.dst).map_err(|e| e.to_string())?;
        }
        Ok(graph)
    };
    let (mut batched, mut single) = (build()?, build()?);
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
    same_lists_valid(&batched, &single)
}

#[test]
fn a_batch_equals_its_edges_one_at_a_time() {
    // (base, deletes every, batch, vertices): bases from empty to dense
    // (lists inline, in slabs, in blocks); batches small, growing lists
    // past their blocks and reaching past the vertex count; duplicates
    // and self-loops included.
    let cases = [
        (0, 1_000, 3_000, 50),
        (2_000, 5, 300, 200),
        (20_000, 3, 5_000, 3_000),
        (5_000, 1_000, 40_000, 1_000),
        (30_000, 2, 30_000, 20),
        (600, 7, 20_000, 4_000),
    ];
    for threads in [1, 2] {
        for &(base_len, deletes, batch_len, vertices) in &cases {
            let base = fixed_weighted_edges(base_len, vertices, 7);
            let batch = fixed_weighted_edges(batch_len, vertices + 25, 8);
            for options in every_option() {
                in_pool(threads, || {
                    batch_equals_one_at_a_time(&options, &base, deletes, &batch)
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
fn mixed_batches_of_inserts_and_deletes_keep_the_model() {
    for threads in [1, 2] {
        for options in every_option() {
            in_pool(threads, || {
                let base = fixed_weighted_edges(10_000, 400, 1);
                let mut graph = CsrPP::from_edges(&base, options.clone()).unwrap();
                let mut model = ReferenceGraph::new(options.store.semantics);
                model.insert_edges(&base).unwrap();
                for round in 0..5u64 {
                    let inserts = fixed_weighted_edges(20_000, 420, 10 + round);
                    // Deletes: some present edges, some twice, some absent
                    // or outside the graph.
                    let mut deletes: Vec<Edge> = fixed_weighted_edges(15_000, 430, 20 + round)
                        .iter()
                        .map(|e| Edge::new(e.src, e.dst))
                        .collect();
                    deletes.extend(inserts.iter().step_by(3).map(|e| Edge::new(e.src, e.dst)));
                    deletes.extend(inserts.iter().step_by(7).map(|e| Edge::new(e.src, e.dst)));
                    deletes.push(Edge::new(10_000, 1));
                    assert_eq!(
                        graph.insert_edges(&inserts).unwrap(),
                        model.insert_edges(&inserts).unwrap(),
                        "{threads} threads, {options:?}, round {round}: inserts"
                    );
                    assert_eq!(
                        graph.delete_edges(&deletes).unwrap(),
                        model.delete_edges(&deletes).unwrap(),
                        "{threads} threads, {options:?}, round {round}: deletes"
                    );
                    compare_with_model(&graph, &model)
                        .and_then(|()| check_invariants(&graph))
                        .unwrap_or_else(|e| {
                            panic!("{threads} threads, {options:?}, round {round}: {e}")
                        });
                }
            });
        }
    }
}

#[test]
fn snapshots_taken_before_a_batch_read_the_same_after_it() {
    for threads in [1, 2] {
        for options in every_option() {
            in_pool(threads, || {
                let graph = check_snapshots_across_batches::<CsrPP>(options.clone())
                    .unwrap_or_else(|e| panic!("{threads} threads, {options:?}: {e}"));
                check_invariants(&graph).unwrap();
            });
        }
    }
}

/// The core contract's steps on a `CsrPP` whose every batch is grouped,
/// against the model after each step (snapshots included), with the
/// store's invariants and the order of the weights of equal edges.
fn run_against_model(
    options: &CsrPPOptions,
    base: &[WeightedEdge],
    steps: &[Op],
) -> Result<(), TestCaseError> {
    let weighted = options.store.weighted;
    check_contract_with::<CsrPP>(options.clone(), base, steps, |graph, model| {
        check_invariants(graph)?;
        if !weighted {
            return Ok(());
        }
        // The model keeps arrival order; the store sorts by target,
        // equal targets in arrival order (so their weights too).
        let weights = graph.edge_weights().map_err(|e| e.to_string())?;
        let model_weights = model.edge_weights().map_err(|e| e.to_string())?;
        for v in 0..model.vertex_count() as VertexId {
            let mut expected: Vec<_> = model_weights.out_neighbors_weighted(v).collect();
            expected.sort_by_key(|slot| slot.0);
            let got: Vec<_> = weights.out_neighbors_weighted(v).collect();
            if got != expected {
                return Err(format!(
                    "the weights of {v} in order: {got:?}, expected {expected:?}"
                ));
            }
        }
        Ok(())
    })
    .map_err(TestCaseError::fail)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn grouped_batches_keep_the_model_at_one_and_two_threads(
        base in weighted_edges(40, 0..300),
        steps in ops(44, 0..100),
    ) {
        for threads in [1, 2] {
            for options in every_option() {
                in_pool(threads, || run_against_model(&options, &base, &steps))
                    .map_err(|e| TestCaseError::fail(format!("{threads} threads, {options:?}: {e}")))?;
            }
        }
    }
}
