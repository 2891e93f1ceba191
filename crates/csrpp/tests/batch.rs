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
    Op, ReferenceGraph, compare_with_model, fixed_weighted_edges, ops, weighted_edges,
};
use dyngraph_core::{
    Edge, EdgeWeights, FromEdges, Graph, GraphUpdate, InEdges, InNeighbors, OutNeighbors,
    Semantics, Snapshots, StoreConfig, VertexId, WeightedEdge, WeightedNeighbors,
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

/// Every out-list equal in order, with its weights when kept; every
/// in-list equal (in-lists are sorted ids).
fn same_lists(a: &CsrPP, b: &CsrPP) -> Result<(), String> {
    if (a.vertex_count(), a.edge_count()) != (b.vertex_count(), b.edge_count()) {
        return Err(format!(
            "{} vertices, {} edges against {}, {}",
            a.vertex_count(),
            a.edge_count(),
            b.vertex_count(),
            b.edge_count()
        ));
    }
    let options = a.options().store;
    for v in 0..a.vertex_count() as VertexId {
        let (x, y): (Vec<_>, Vec<_>) = (a.out_neighbors(v).collect(), b.out_neighbors(v).collect());
        if x != y {
            return Err(format!("out-list of {v}: {x:?} against {y:?}"));
        }
        if options.weighted {
            let x: Vec<_> = a
                .edge_weights()
                .unwrap()
                .out_neighbors_weighted(v)
                .collect();
            let y: Vec<_> = b
                .edge_weights()
                .unwrap()
                .out_neighbors_weighted(v)
                .collect();
            if x != y {
                return Err(format!("weighted out-list of {v}: {x:?} against {y:?}"));
            }
        }
        if options.in_edges {
            let x: Vec<_> = a.in_edges().unwrap().in_neighbors(v).collect();
            let y: Vec<_> = b.in_edges().unwrap().in_neighbors(v).collect();
            if x != y {
                return Err(format!("in-list of {v}: {x:?} against {y:?}"));
            }
        }
    }
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
    same_lists(&batched, &single)
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

/// The edges a view shows, per vertex, out (with weights when kept) and in.
type Lists = Vec<(Vec<(VertexId, f32)>, Vec<VertexId>)>;

fn lists<G: OutNeighbors + InEdges + EdgeWeights>(graph: &G) -> Lists {
    let incoming = graph.in_edges().ok();
    let weights = graph.edge_weights().ok();
    (0..graph.vertex_count() as VertexId)
        .map(|v| {
            let out = match weights {
                Some(w) => w.out_neighbors_weighted(v).collect(),
                None => graph.out_neighbors(v).map(|d| (d, 1.0)).collect(),
            };
            let ins = incoming.map_or(Vec::new(), |i| i.in_neighbors(v).collect());
            (out, ins)
        })
        .collect()
}

#[test]
fn snapshots_taken_before_a_batch_read_the_same_after_it() {
    for threads in [1, 2] {
        for options in every_option() {
            in_pool(threads, || {
                let base = fixed_weighted_edges(3_000, 300, 3);
                let mut graph = CsrPP::from_edges(&base, options.clone()).unwrap();
                let first = graph.snapshot();
                let first_lists = lists(&graph.view(&first).unwrap());
                // A batch that adds vertices, then deletes of base edges,
                // then a small batch into lists holding tombstones.
                graph
                    .insert_edges(&fixed_weighted_edges(20_000, 350, 4))
                    .unwrap();
                let second = graph.snapshot();
                let second_lists = lists(&graph.view(&second).unwrap());
                let deletes: Vec<Edge> = base
                    .iter()
                    .step_by(2)
                    .map(|e| Edge::new(e.src, e.dst))
                    .collect();
                assert!(graph.delete_edges(&deletes).unwrap().edges_removed > 0);
                let third = graph.snapshot();
                let third_lists = lists(&graph.view(&third).unwrap());
                graph
                    .insert_edges(&fixed_weighted_edges(500, 300, 5))
                    .unwrap();
                for (snapshot, expected, name) in [
                    (&first, &first_lists, "before the first batch"),
                    (&second, &second_lists, "before the deletes"),
                    (&third, &third_lists, "before the last batch"),
                ] {
                    assert_eq!(
                        &lists(&graph.view(snapshot).unwrap()),
                        expected,
                        "{threads} threads, {options:?}: snapshot {name}"
                    );
                }
                check_invariants(&graph).unwrap();
            });
        }
    }
}

/// Applies the core contract's steps to a `CsrPP` whose every batch is
/// grouped, and to the model, comparing after each step, snapshots and
/// the order of the weights of equal edges included.
fn run_against_model(
    options: &CsrPPOptions,
    base: &[WeightedEdge],
    steps: &[Op],
) -> Result<(), TestCaseError> {
    let mut model = ReferenceGraph::new(options.store.semantics);
    model.insert_edges(base).unwrap();
    let mut graph = CsrPP::from_edges(base, options.clone()).unwrap();
    let mut snapshots = Vec::new();
    for (step, op) in steps.iter().enumerate() {
        match op {
            Op::Insert(e) => {
                prop_assert_eq!(
                    graph.insert_weighted_edge(e.src, e.dst, e.weight).unwrap(),
                    model.insert_weighted_edge(e.src, e.dst, e.weight).unwrap()
                );
            }
            Op::Delete(e) => {
                prop_assert_eq!(
                    graph.delete_edge(e.src, e.dst).unwrap(),
                    model.delete_edge(e.src, e.dst).unwrap()
                );
            }
            Op::InsertBatch(batch) => {
                prop_assert_eq!(
                    graph.insert_edges(batch).unwrap(),
                    model.insert_edges(batch).unwrap()
                );
            }
            Op::InsertColumns(batch) => {
                let src: Vec<VertexId> = batch.iter().map(|e| e.src).collect();
                let dst: Vec<VertexId> = batch.iter().map(|e| e.dst).collect();
                let columns = dyngraph_core::EdgeChunk::new(&src, &dst, None).unwrap();
                prop_assert_eq!(
                    graph.insert_edges(&columns).unwrap(),
                    model.insert_edges(batch).unwrap()
                );
            }
            Op::DeleteBatch(batch) => {
                prop_assert_eq!(
                    graph.delete_edges(batch).unwrap(),
                    model.delete_edges(batch).unwrap()
                );
            }
            Op::AddVertices(count) => {
                prop_assert_eq!(
                    graph.add_vertices(*count).unwrap(),
                    model.add_vertices(*count).unwrap()
                );
            }
            Op::Snapshot => snapshots.push((graph.snapshot(), model.clone())),
            Op::DropSnapshot => {
                if !snapshots.is_empty() {
                    snapshots.remove(0);
                }
            }
        }
        compare_with_model(&graph, &model)
            .and_then(|()| check_invariants(&graph))
            .map_err(|e| TestCaseError::fail(format!("step {step} ({op:?}): {e}")))?;
        if options.store.weighted {
            // The model keeps arrival order; the store sorts by target,
            // equal targets in arrival order (so their weights too).
            let weights = graph.edge_weights().unwrap();
            let model_weights = model.edge_weights().unwrap();
            for v in 0..model.vertex_count() as VertexId {
                let mut expected: Vec<_> = model_weights.out_neighbors_weighted(v).collect();
                expected.sort_by_key(|slot| slot.0);
                let got: Vec<_> = weights.out_neighbors_weighted(v).collect();
                prop_assert_eq!(got, expected, "step {}: weights of {} in order", step, v);
            }
        }
        for (i, (snapshot, then)) in snapshots.iter().enumerate() {
            compare_with_model(&graph.view(snapshot).unwrap(), then)
                .map_err(|e| TestCaseError::fail(format!("step {step}: snapshot {i}: {e}")))?;
        }
    }
    Ok(())
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
