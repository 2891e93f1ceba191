//! `CsrPP` against the core reference model: serial and batch updates,
//! deletes of both kinds, deleted vertices, compaction, defragmentation,
//! concurrent writers, graph algebra in place — each with snapshots taken
//! mid-stream whose views must keep showing the model of their moment —
//! weights aligned, and graph algebra against set algebra on the model.

mod common;

use common::{all_options, check_invariants, weighted_or_unit};
use dyngraph_core::StoreConfig;
use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
use dyngraph_core::{
    Edge, EdgeWeights, Error, FromEdges, Graph, GraphUpdate, InEdges, InNeighbors, OutNeighbors,
    Semantics, Snapshots, VertexId, WeightedEdge, WeightedNeighbors,
};
use dyngraph_csrpp::{AllocatorKind, CsrPP, CsrPPOptions, CsrPPSnapshot, DeleteMode};
use proptest::prelude::*;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
enum Op {
    Insert(VertexId, VertexId, u8),
    Delete(VertexId, VertexId),
    InsertBatch(Vec<(VertexId, VertexId, u8)>),
    DeleteBatch(Vec<(VertexId, VertexId)>),
    DeleteVertex(VertexId),
    Compact,
    Defragment,
    AddVertices(u8),
    /// Takes a snapshot; its view is checked against the model of this
    /// moment after every later step.
    Snapshot,
    /// Drops the oldest live snapshot.
    DropSnapshot,
    /// Inserts from two threads through a `ConcurrentWriter`, split by the
    /// source's parity (so each vertex's edges keep their order).
    WriterInsert(Vec<(VertexId, VertexId, u8)>),
    /// Deletes from two threads through a `ConcurrentWriter`, split alike.
    WriterDelete(Vec<(VertexId, VertexId)>),
    /// `add_graph_in_place` of a store holding these edges.
    Union(Vec<(VertexId, VertexId, u8)>),
    /// `subtract_graph_in_place` of a store holding these edges.
    Difference(Vec<(VertexId, VertexId)>),
}

fn op(max_vertex: VertexId) -> impl Strategy<Value = Op> {
    let v = 0..max_vertex;
    // Unions and differences name a few vertices past the store's.
    let wider = 0..max_vertex + 3;
    let edge = (v.clone(), v.clone(), any::<u8>());
    prop_oneof![
        6 => edge.clone().prop_map(|(s, d, w)| Op::Insert(s, d, w)),
        3 => (v.clone(), v.clone()).prop_map(|(s, d)| Op::Delete(s, d)),
        // Batches of up to 64 edges are inserted one by one; larger ones
        // take the parallel path, where groups of more than 8 new edges
        // for one vertex are merged and empty segments packed in slabs.
        2 => prop::collection::vec(edge.clone(), 0..160).prop_map(Op::InsertBatch),
        // Likewise deletes: up to 64 one by one, more grouped by segment.
        1 => prop::collection::vec((v.clone(), v.clone()), 0..120).prop_map(Op::DeleteBatch),
        1 => v.clone().prop_map(Op::DeleteVertex),
        1 => Just(Op::Compact),
        1 => Just(Op::Defragment),
        1 => (0u8..3).prop_map(Op::AddVertices),
        1 => Just(Op::Snapshot),
        1 => Just(Op::DropSnapshot),
        1 => prop::collection::vec(edge.clone(), 0..40).prop_map(Op::WriterInsert),
        1 => prop::collection::vec((v.clone(), v.clone()), 0..20).prop_map(Op::WriterDelete),
        // Up to 100 edges: past 64 the union takes the parallel batch path.
        1 => prop::collection::vec((wider.clone(), wider.clone(), any::<u8>()), 0..100)
            .prop_map(Op::Union),
        1 => prop::collection::vec((wider.clone(), wider), 0..100).prop_map(Op::Difference),
    ]
}

fn weight(w: u8) -> f32 {
    f32::from(w) * 0.25
}

/// The model's version of `delete_vertex`: every edge out of and into `v`.
fn model_delete_vertex(model: &mut ReferenceGraph, v: VertexId) -> u64 {
    let mut removed = 0;
    let targets: Vec<VertexId> = model.out_neighbors(v).collect();
    for d in targets {
        removed += u64::from(model.delete_edge(v, d).unwrap());
    }
    for u in 0..model.vertex_count() as VertexId {
        while model.delete_edge(u, v).unwrap() {
            removed += 1;
        }
    }
    removed
}

/// Runs `edges` on a `ConcurrentWriter` from two threads, thread `k`
/// taking the edges whose source has parity `k`, each in order.
fn on_two_threads<T: Sync>(
    graph: &mut CsrPP,
    edges: &[T],
    source: impl Fn(&T) -> VertexId + Sync,
    apply: impl Fn(&dyngraph_csrpp::ConcurrentWriter<'_>, &T) + Sync,
) {
    let writer = graph.concurrent_writer();
    std::thread::scope(|scope| {
        for parity in 0..2 {
            let (writer, source, apply) = (&writer, &source, &apply);
            scope.spawn(move || {
                for edge in edges.iter().filter(|e| source(e) % 2 == parity) {
                    apply(writer, edge);
                }
            });
        }
    });
}

fn apply(graph: &mut CsrPP, model: &mut ReferenceGraph, op: &Op) -> Result<(), String> {
    let options = graph.options().clone();
    match op {
        Op::Insert(s, d, w) => {
            let got = graph.insert_weighted_edge(*s, *d, weight(*w)).unwrap();
            let want = model.insert_weighted_edge(*s, *d, weight(*w)).unwrap();
            prop_assert_eq_str(got, want, "insert")?;
        }
        Op::Delete(s, d) => {
            let got = graph.delete_edge(*s, *d).unwrap();
            let want = model.delete_edge(*s, *d).unwrap();
            prop_assert_eq_str(got, want, "delete")?;
        }
        Op::InsertBatch(edges) => {
            let edges: Vec<WeightedEdge> = edges
                .iter()
                .map(|&(s, d, w)| WeightedEdge::new(s, d, weight(w)))
                .collect();
            let got = graph.insert_edges(&edges).unwrap();
            let want = model.insert_edges(&edges).unwrap();
            prop_assert_eq_str(got, want, "batch insert")?;
        }
        Op::DeleteBatch(edges) => {
            let edges: Vec<Edge> = edges.iter().map(|&(s, d)| Edge::new(s, d)).collect();
            let got = graph.delete_edges(&edges).unwrap();
            let want = model.delete_edges(&edges).unwrap();
            prop_assert_eq_str(got, want, "batch delete")?;
        }
        Op::DeleteVertex(v) => {
            if (*v as usize) < graph.vertex_count() {
                let got = graph.delete_vertex(*v).unwrap();
                let want = model_delete_vertex(model, *v);
                prop_assert_eq_str(got, want, "delete vertex")?;
                if !graph.is_vertex_deleted(*v) {
                    return Err(format!("vertex {v} not flagged deleted"));
                }
            } else {
                let err = graph.delete_vertex(*v).unwrap_err();
                if !matches!(err, Error::VertexOutOfRange { .. }) {
                    return Err(format!("unexpected error {err}"));
                }
            }
        }
        Op::Compact => {
            graph.compact();
            if graph.tombstone_count() != 0 {
                return Err("tombstones left after compact".into());
            }
        }
        Op::Defragment => {
            // Same contents (checked after every step), same tombstones,
            // no more memory: the copy keeps each array's capacity.
            let (tombstones, bytes) = (graph.tombstone_count(), graph.memory_bytes());
            let live = graph.live_snapshots();
            graph.defragment();
            if graph.tombstone_count() != tombstones {
                return Err("defragment changed the tombstones".into());
            }
            if graph.memory_bytes() > bytes {
                return Err(format!(
                    "defragment grew the store from {bytes} to {} bytes",
                    graph.memory_bytes()
                ));
            }
            prop_assert_eq_str(graph.live_snapshots(), live, "snapshots after defragment")?;
        }
        Op::AddVertices(n) => {
            let got = graph.add_vertices(*n as usize).unwrap();
            let want = model.add_vertices(*n as usize).unwrap();
            prop_assert_eq_str(got, want, "add vertices")?;
        }
        // Handled by `run`, which keeps the snapshots.
        Op::Snapshot | Op::DropSnapshot => {}
        Op::WriterInsert(edges) => {
            on_two_threads(
                graph,
                edges,
                |e| e.0,
                |writer, &(s, d, w)| {
                    writer.insert_weighted_edge(s, d, weight(w)).unwrap();
                },
            );
            for &(s, d, w) in edges {
                model.insert_weighted_edge(s, d, weight(w)).unwrap();
            }
        }
        Op::WriterDelete(edges) => {
            on_two_threads(
                graph,
                edges,
                |e| e.0,
                |writer, &(s, d)| {
                    writer.delete_edge(s, d).unwrap();
                },
            );
            for &(s, d) in edges {
                model.delete_edge(s, d).unwrap();
            }
        }
        Op::Union(edges) => {
            let edges: Vec<WeightedEdge> = edges
                .iter()
                .map(|&(s, d, w)| WeightedEdge::new(s, d, weight(w)))
                .collect();
            let other = CsrPP::from_edges(&edges, options).unwrap();
            // Set semantics: each pair `self` lacks, once, with the weight
            // of its oldest occurrence in `other`.
            let mut expected = 0;
            for v in 0..other.vertex_count() as VertexId {
                for (d, w) in weighted_or_unit(&other, v) {
                    if !model.has_edge(v, d) {
                        model.insert_weighted_edge(v, d, w).unwrap();
                        expected += 1;
                    }
                }
            }
            let grow = other.vertex_count().saturating_sub(model.vertex_count());
            model.add_vertices(grow).unwrap();
            let added = graph.add_graph_in_place(&other).unwrap();
            prop_assert_eq_str(added, expected, "union")?;
        }
        Op::Difference(edges) => {
            let edges: Vec<Edge> = edges.iter().map(|&(s, d)| Edge::new(s, d)).collect();
            let other = CsrPP::from_edges(&edges, options).unwrap();
            let mut expected = 0;
            for e in &edges {
                while model.delete_edge(e.src, e.dst).unwrap() {
                    expected += 1;
                }
            }
            let removed = graph.subtract_graph_in_place(&other);
            prop_assert_eq_str(removed, expected, "difference")?;
        }
    }
    Ok(())
}

fn prop_assert_eq_str<T: PartialEq + std::fmt::Debug>(
    got: T,
    want: T,
    what: &str,
) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: store says {got:?}, model says {want:?}"))
    }
}

/// Runs `ops` on a fresh store with `options`, comparing with the model
/// and the invariants after every step, and every live snapshot's view
/// with the model of its moment.
fn run(options: CsrPPOptions, ops: &[Op]) -> Result<(), String> {
    let mut graph = CsrPP::new(options.clone()).unwrap();
    let mut model = ReferenceGraph::new(options.store.semantics);
    let mut snapshots: Vec<(CsrPPSnapshot, ReferenceGraph)> = Vec::new();
    for (step, op) in ops.iter().enumerate() {
        match op {
            Op::Snapshot => snapshots.push((graph.snapshot(), model.clone())),
            Op::DropSnapshot if !snapshots.is_empty() => drop(snapshots.remove(0)),
            _ => {}
        }
        apply(&mut graph, &mut model, op).map_err(|e| format!("step {step} {op:?}: {e}"))?;
        compare_with_model(&graph, &model).map_err(|e| format!("after step {step} {op:?}: {e}"))?;
        check_invariants(&graph).map_err(|e| format!("after step {step} {op:?}: {e}"))?;
        if graph.live_snapshots() != snapshots.len() {
            return Err(format!("after step {step}: live snapshots miscounted"));
        }
        for (index, (snapshot, then)) in snapshots.iter().enumerate() {
            let view = graph.view(snapshot).map_err(|e| e.to_string())?;
            compare_with_model(&view, then)
                .map_err(|e| format!("after step {step} {op:?}: snapshot {index}: {e}"))?;
            check_view_capabilities(&view, &options)
                .map_err(|e| format!("after step {step}: snapshot {index}: {e}"))?;
        }
    }
    // A parallel clone is an equal, independent copy, without the
    // original's snapshots.
    let copy = graph.clone();
    compare_with_model(&copy, &model)?;
    if copy.live_snapshots() != 0 {
        return Err("a clone shares the original's snapshots".into());
    }
    if let Some((snapshot, then)) = snapshots.first() {
        if copy.view(snapshot).is_ok() {
            return Err("a clone accepted the original's snapshot".into());
        }
        compare_with_model(&graph.view(snapshot).map_err(|e| e.to_string())?, then)?;
    }
    drop(graph);
    compare_with_model(&copy, &model)?;
    Ok(())
}

/// A view answers in-edges and weights exactly as its store was built.
fn check_view_capabilities<G: InEdges + EdgeWeights>(
    view: &G,
    options: &CsrPPOptions,
) -> Result<(), String> {
    if view.in_edges().is_ok() != options.store.in_edges
        || view.edge_weights().is_ok() != options.store.weighted
    {
        return Err(format!("the view's capabilities differ from {options:?}"));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn serial_streams_match_the_model(
        options_index in 0usize..96,
        ops in prop::collection::vec(op(20), 1..40),
    ) {
        let options = all_options(&[1, 4, 128])[options_index].clone();
        run(options.clone(), &ops).map_err(|e| TestCaseError::fail(format!("{options:?}: {e}")))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Dense segments (8 vertices of up to ~25 edges each): batches re-pack
    /// segments (64+ short-list slots, half of them in blocks) as well as
    /// merging in place and into fresh blocks.
    #[test]
    fn dense_segment_streams_match_the_model(
        options_index in 0usize..32,
        ops in prop::collection::vec(op(32), 1..30),
    ) {
        let options = all_options(&[8])[options_index].clone().segment_repack(true);
        run(options.clone(), &ops).map_err(|e| TestCaseError::fail(format!("{options:?}: {e}")))?;
    }
}

/// Segment re-packing: a batch into a segment whose arrays earlier batches
/// moved out of the slab writes them all, merged, back into one slab in
/// vertex order with power-of-two capacity — ids, weights and in-lists
/// still aligned — and later inserts that fit stay in place.
#[test]
fn batches_repack_scattered_segments_in_vertex_order() {
    for allocator in [AllocatorKind::System, AllocatorKind::Arena] {
        for semantics in [Semantics::Multigraph, Semantics::Simple] {
            for weighted in [false, true] {
                let options = CsrPPOptions::default()
                    .segment_repack(true)
                    .segment_size(16)
                    .allocator(allocator)
                    .semantics(semantics)
                    .weighted(weighted)
                    .in_edges(true);
                let mut graph = CsrPP::new(options.clone()).unwrap();
                let mut model = ReferenceGraph::new(semantics);
                let mut apply = |graph: &mut CsrPP, edges: &[WeightedEdge]| {
                    graph.insert_edges(edges).unwrap();
                    model.insert_edges(edges).unwrap();
                    compare_with_model(graph, &model).unwrap();
                    check_invariants(graph).unwrap();
                };
                let edge =
                    |src: u32, dst: u32| WeightedEdge::new(src, dst, (src * 1000 + dst) as f32);
                // Load: 32 vertices of degree 4 (64 slots per segment),
                // packed exactly.
                let load: Vec<WeightedEdge> = (0..32u32)
                    .flat_map(|v| (0..4).map(move |k| edge(v, 100 + 10 * k + v % 3)))
                    .collect();
                apply(&mut graph, &load);
                // Two more edges each (one a repeat of an existing one):
                // every array leaves the slab (6 > 4 slots) into a block.
                let grow: Vec<WeightedEdge> = (0..32u32)
                    .flat_map(|v| [edge(v, 50 + v), edge(v, 100 + v % 3)])
                    .collect();
                apply(&mut graph, &grow);
                // The next batch (over 64 edges, so not inserted one by
                // one) finds both segments scattered and re-packs them.
                // Vertices 1, 9, 17, 25 get nothing: they are packed
                // exactly, the others with power-of-two room to grow.
                let touched = |v: u32| v % 8 != 1;
                let mut again: Vec<WeightedEdge> = (0..32u32)
                    .filter(|&v| touched(v))
                    .flat_map(|v| [edge(v, 200 + v), edge(v, 300 + v), edge(v, 400 + v)])
                    .collect();
                again.push(edge(5, 7));
                apply(&mut graph, &again);
                let words = if weighted { 2 } else { 1 };
                for segment in [0..16u32, 16..32] {
                    for v in segment.start..segment.end - 1 {
                        let here = graph.out_slots(v);
                        let next = graph.out_slots(v + 1).as_ptr();
                        let capacity = if touched(v) {
                            here.len().next_power_of_two()
                        } else {
                            here.len()
                        };
                        assert_eq!(
                            here.as_ptr().wrapping_add(capacity * words),
                            next,
                            "{options:?}: vertex {v}'s array is not followed by {}'s",
                            v + 1
                        );
                    }
                }
                // An insert that fits the power-of-two capacity stays in
                // place; one into an exactly packed array moves it out.
                let exact = graph.out_slots(9).as_ptr();
                apply(&mut graph, &[edge(9, 98)]);
                assert_ne!(graph.out_slots(9).as_ptr(), exact);
                let roomy = (0..32u32)
                    .find(|&v| {
                        let len = graph.out_slots(v).len();
                        touched(v) && len < len.next_power_of_two()
                    })
                    .expect("a re-packed array with headroom");
                let before = graph.out_slots(roomy).as_ptr();
                apply(&mut graph, &[edge(roomy, 99)]);
                assert_eq!(graph.out_slots(roomy).as_ptr(), before);
                // Logical deletes leave tombstones; a side holding them is
                // never re-packed, and updates still match the model.
                let mut logical =
                    CsrPP::new(options.clone().delete_mode(DeleteMode::Logical)).unwrap();
                let mut logical_model = ReferenceGraph::new(semantics);
                for batch in [&load[..], &grow[..]] {
                    logical.insert_edges(batch).unwrap();
                    logical_model.insert_edges(batch).unwrap();
                }
                for v in 0..32u32 {
                    assert!(logical.delete_edge(v, 50 + v).unwrap());
                    logical_model.delete_edge(v, 50 + v).unwrap();
                }
                let more: Vec<WeightedEdge> = (0..32u32).map(|v| edge(v, 60 + v)).collect();
                logical.insert_edges(&more).unwrap();
                logical_model.insert_edges(&more).unwrap();
                compare_with_model(&logical, &logical_model).unwrap();
                check_invariants(&logical).unwrap();
                logical.compact();
                compare_with_model(&logical, &logical_model).unwrap();
            }
        }
    }
}

/// Multiset of `(src, dst, weight bits)` of a store.
fn edge_multiset(graph: &CsrPP) -> BTreeMap<(VertexId, VertexId, u32), u64> {
    let mut counts = BTreeMap::new();
    for v in 0..graph.vertex_count() as VertexId {
        for (d, w) in weighted_or_unit(graph, v) {
            *counts.entry((v, d, w.to_bits())).or_insert(0) += 1;
        }
    }
    counts
}

fn model_of(edges: &[(VertexId, VertexId, u8)], semantics: Semantics) -> ReferenceGraph {
    let mut model = ReferenceGraph::new(semantics);
    for &(s, d, w) in edges {
        model.insert_weighted_edge(s, d, weight(w)).unwrap();
    }
    model
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Union and difference, in place and into new instances, against the
    /// same set algebra computed on the reference model's edge lists.
    #[test]
    fn graph_algebra_matches_set_algebra(
        options_index in 0usize..96,
        base in prop::collection::vec((0u32..30, 0u32..30, any::<u8>()), 0..240),
        other in prop::collection::vec((0u32..34, 0u32..34, any::<u8>()), 0..240),
        other_simple in any::<bool>(),
    ) {
        let options = all_options(&[1, 4, 128])[options_index].clone();
        let other_options = options.clone().semantics(if other_simple { Semantics::Simple } else { Semantics::Multigraph });
        let to_edges = |list: &[(VertexId, VertexId, u8)]| -> Vec<WeightedEdge> {
            list.iter().map(|&(s, d, w)| WeightedEdge::new(s, d, weight(w))).collect()
        };
        let graph = CsrPP::from_edges(&to_edges(&base), options.clone()).unwrap();
        let batch = CsrPP::from_edges(&to_edges(&other), other_options.clone()).unwrap();
        let base_model = model_of(&base, options.store.semantics);
        let other_model = model_of(&other, other_options.store.semantics);

        // Union: every (s, d) of `other` absent from `base` is added once,
        // with the weight of its oldest occurrence in `other`.
        let mut union_model = base_model.clone();
        let mut expected_added = 0;
        for WeightedEdge { src: s, dst: d, weight: w } in other_model.weighted_edges().unwrap() {
            if !union_model.has_edge(s, d) {
                union_model.insert_weighted_edge(s, d, w).unwrap();
                expected_added += 1;
            }
        }
        union_model.add_vertices(other_model.vertex_count().saturating_sub(union_model.vertex_count())).unwrap();
        let (union, added) = graph.add_graph(&batch).unwrap();
        prop_assert_eq!(added, expected_added);
        compare_with_model(&union, &union_model).map_err(TestCaseError::fail)?;
        check_invariants(&union).map_err(TestCaseError::fail)?;
        let mut in_place = graph.clone();
        prop_assert_eq!(in_place.add_graph_in_place(&batch).unwrap(), expected_added);
        prop_assert_eq!(edge_multiset(&in_place), edge_multiset(&union));

        // Difference: every occurrence of each (s, d) of `other` goes.
        let mut difference_model = base_model.clone();
        let mut expected_removed = 0;
        for Edge { src: s, dst: d } in other_model.edges() {
            while difference_model.delete_edge(s, d).unwrap() {
                expected_removed += 1;
            }
        }
        let (difference, removed) = graph.subtract_graph(&batch);
        prop_assert_eq!(removed, expected_removed);
        compare_with_model(&difference, &difference_model).map_err(TestCaseError::fail)?;
        check_invariants(&difference).map_err(TestCaseError::fail)?;
        let mut in_place = graph.clone();
        prop_assert_eq!(in_place.subtract_graph_in_place(&batch), expected_removed);
        prop_assert_eq!(edge_multiset(&in_place), edge_multiset(&difference));
        // The inputs are untouched.
        compare_with_model(&graph, &base_model).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn multigraph_delete_removes_the_oldest_occurrence_with_its_weight() {
    for options in all_options(&[4]) {
        if options.store.semantics != Semantics::Multigraph || !options.store.weighted {
            continue;
        }
        let mut graph = CsrPP::new(options).unwrap();
        graph.insert_weighted_edge(0, 1, 1.0).unwrap();
        graph.insert_weighted_edge(0, 1, 2.0).unwrap();
        graph
            .insert_edges(&[WeightedEdge::new(0, 1, 3.0); 12])
            .unwrap();
        assert!(graph.delete_edge(0, 1).unwrap());
        let weights: Vec<f32> = weighted_or_unit(&graph, 0)
            .into_iter()
            .map(|(_, w)| w)
            .collect();
        assert_eq!(weights[0], 2.0);
        assert_eq!(weights.len(), 13);
    }
}

#[test]
fn logical_deletes_stay_invisible_until_compaction_reclaims_them() {
    let options = CsrPPOptions::default()
        .delete_mode(DeleteMode::Logical)
        .in_edges(true)
        .weighted(true);
    let edges: Vec<WeightedEdge> = (0..100)
        .map(|i| WeightedEdge::new(i % 5, i, i as f32))
        .collect();
    let mut graph = CsrPP::from_edges(&edges, options).unwrap();
    let before = graph.memory_bytes();
    for i in (0..100).step_by(2) {
        assert!(graph.delete_edge(i % 5, i).unwrap());
    }
    assert_eq!(graph.tombstone_count(), 100); // 50 out-slots + 50 in-slots
    assert_eq!(
        graph.memory_bytes(),
        before,
        "logical deletes keep the slots"
    );
    for v in 0..5 {
        for (d, w) in graph.edge_weights().unwrap().out_neighbors_weighted(v) {
            assert_eq!(d % 2, 1, "deleted edge {v} -> {d} visible");
            assert_eq!(w, d as f32, "weight misaligned after deletes");
        }
    }
    assert_eq!(graph.compact(), 100);
    assert!(graph.memory_bytes() < before);
    assert_eq!(graph.edge_count(), 50);
    check_invariants(&graph).unwrap();
}

#[test]
fn physical_deletes_shrink_the_arrays() {
    for allocator in [AllocatorKind::System, AllocatorKind::Arena] {
        let options = CsrPPOptions::default().allocator(allocator);
        // Single inserts, so the array is an allocator block (a bulk load
        // would pack it into the segment's slab).
        let mut graph = CsrPP::new(options).unwrap();
        for i in 0..1000 {
            graph.insert_edge(0, i).unwrap();
        }
        let full = graph.memory_bytes();
        for i in 0..990 {
            graph.delete_edge(0, i).unwrap();
        }
        assert!(graph.memory_bytes() + 3000 < full, "array did not shrink");
        assert_eq!(
            graph.out_neighbors(0).collect::<Vec<_>>(),
            (990..1000).collect::<Vec<_>>()
        );
    }
}

#[test]
fn bulk_loads_pack_arrays_exactly_and_updates_move_them_out() {
    for allocator in [AllocatorKind::System, AllocatorKind::Arena] {
        let options = CsrPPOptions::default()
            .allocator(allocator)
            .weighted(true)
            .in_edges(true);
        // 100 vertices of degree 3: exactly 8 bytes per slot packed, where
        // power-of-two arrays would take 4 slots each.
        let edges: Vec<WeightedEdge> = (0..300)
            .map(|i| WeightedEdge::new(i / 3, 1000 + i, i as f32))
            .collect();
        let mut graph = CsrPP::from_edges(&edges, options).unwrap();
        let loaded = graph.memory_bytes();
        let copy = graph.clone();
        // Equal up to the directory's spare capacity.
        assert!(
            copy.memory_bytes() <= loaded,
            "clone keeps the packed layout"
        );
        assert!(
            copy.memory_bytes() + 1024 > loaded,
            "clone keeps the packed layout"
        );
        // Growing one vertex moves its array out of the slab; the others
        // and the clone are unaffected.
        graph.insert_weighted_edge(5, 7, 0.5).unwrap();
        assert_eq!(
            weighted_or_unit(&graph, 5),
            [(7, 0.5), (1015, 15.0), (1016, 16.0), (1017, 17.0)]
        );
        assert_eq!(
            weighted_or_unit(&copy, 5),
            [(1015, 15.0), (1016, 16.0), (1017, 17.0)]
        );
        for v in 0..100u32 {
            graph.delete_edge(v, 1000 + 3 * v).unwrap();
        }
        graph.compact();
        check_invariants(&graph).unwrap();
        check_invariants(&copy).unwrap();
        drop(graph);
        check_invariants(&copy).unwrap();
    }
}

#[test]
fn slab_headroom_keeps_inserts_in_place() {
    let edges: Vec<Edge> = (0..300).map(|i| Edge::new(i / 3, 1000 + i)).collect();
    let exact = CsrPP::from_edges(&edges, CsrPPOptions::default()).unwrap();
    let mut roomy = CsrPP::from_edges(&edges, CsrPPOptions::default().slab_headroom(true)).unwrap();
    // Degree 3 packs into 3 slots exactly, or 4 with headroom.
    assert_eq!(roomy.memory_bytes() - exact.memory_bytes(), 100 * 4);
    let before = roomy.memory_bytes();
    let slots = roomy.out_slots(7).as_ptr();
    roomy.insert_edge(7, 5).unwrap(); // fits the headroom: no move
    assert_eq!(roomy.out_slots(7).as_ptr(), slots);
    assert_eq!(roomy.memory_bytes(), before);
    roomy.insert_edge(7, 6).unwrap(); // outgrows it: moves to a block
    assert_ne!(roomy.out_slots(7).as_ptr(), slots);
    assert_eq!(
        roomy.out_neighbors(7).collect::<Vec<_>>(),
        [5, 6, 1021, 1022, 1023]
    );
    for _ in 0..3 {
        roomy.delete_edge(8, 1024).unwrap();
        roomy.delete_edge(8, 1025).unwrap();
    }
    assert_eq!(roomy.out_neighbors(8).collect::<Vec<_>>(), [1026]);
    check_invariants(&roomy).unwrap();
}

#[test]
fn ids_past_the_limit_are_refused_and_change_nothing() {
    let options = CsrPPOptions::default().vertex_limit(100).in_edges(true);
    let mut graph = CsrPP::from_edges(&[Edge::new(1, 2)], options).unwrap();
    assert!(matches!(
        graph.insert_edge(5, 100),
        Err(Error::VertexLimit { .. })
    ));
    assert!(matches!(
        graph.insert_edges(&[Edge::new(3, 4), Edge::new(200, 1)]),
        Err(Error::VertexLimit { .. })
    ));
    assert!(matches!(
        graph.add_vertices(98),
        Err(Error::VertexLimit { .. })
    ));
    {
        let writer = graph.concurrent_writer();
        assert!(matches!(
            writer.insert_edge(100, 0),
            Err(Error::VertexLimit { .. })
        ));
    }
    assert_eq!(graph.vertex_count(), 3);
    assert_eq!(graph.edge_count(), 1);
    let big = CsrPP::from_edges(&[Edge::new(0, 150)], CsrPPOptions::default()).unwrap();
    assert!(matches!(
        graph.add_graph_in_place(&big),
        Err(Error::VertexLimit { .. })
    ));
    assert_eq!(graph.vertex_count(), 3);
    assert!(
        !graph.delete_edge(50, 60).unwrap(),
        "deleting outside the graph removes nothing"
    );
    assert_eq!(graph.vertex_count(), 3);
}

#[test]
fn bad_configurations_are_errors() {
    for options in [
        CsrPPOptions::default().segment_size(100),
        CsrPPOptions::default().segment_size(0),
        CsrPPOptions::default().vertex_limit(1 << 32),
    ] {
        assert!(matches!(
            CsrPP::new(options),
            Err(Error::InvalidArgument(_))
        ));
    }
}

#[test]
fn growing_never_moves_existing_segments() {
    let mut graph = CsrPP::new(CsrPPOptions::default().segment_size(2)).unwrap();
    graph.insert_edge(0, 1).unwrap();
    let first = graph.out_slots(0).as_ptr();
    graph.insert_edge(0, 2).unwrap(); // two ids: still inline (unweighted)
    assert_eq!(graph.out_slots(0).as_ptr(), first);
    graph.insert_edge(0, 3).unwrap(); // now a 3-slot array
    let array = graph.out_slots(0).as_ptr();
    for v in 4..2000 {
        graph.insert_edge(v, v - 1).unwrap();
    }
    assert_eq!(
        graph.out_slots(0).as_ptr(),
        array,
        "the array of vertex 0 moved"
    );
    assert_ne!(first, array);
    assert_eq!(graph.segment_count(), 1000);
}

#[test]
fn vertex_properties_live_beside_the_vertices() {
    let mut graph = CsrPP::new(CsrPPOptions::default().segment_size(4)).unwrap();
    let rank = graph.add_vertex_property(0.5);
    graph.insert_edge(0, 9).unwrap();
    assert_eq!(graph.vertex_property(rank, 9), 0.5);
    graph.set_vertex_property(rank, 9, 2.0).unwrap();
    let label = graph.add_vertex_property(-1.0);
    graph.insert_edge(20, 0).unwrap(); // new segments get the defaults
    assert_eq!(graph.vertex_property(rank, 20), 0.5);
    assert_eq!(graph.vertex_property(label, 20), -1.0);
    assert_eq!(graph.vertex_property(rank, 9), 2.0);
    assert!(matches!(
        graph.set_vertex_property(rank, 21, 1.0),
        Err(Error::VertexOutOfRange { .. })
    ));
    {
        let writer = graph.concurrent_writer();
        writer.set_vertex_property(label, 3, 7.0).unwrap();
        assert!(writer.set_vertex_property(label, 99, 7.0).is_err());
    }
    assert_eq!(graph.vertex_property(label, 3), 7.0);
    let copy = graph.clone();
    assert_eq!(copy.vertex_property(rank, 9), 2.0);
}

#[test]
fn external_keys_map_sparse_ids() {
    let mut graph =
        CsrPP::new(CsrPPOptions::default().external_keys(true).vertex_limit(3)).unwrap();
    assert!(graph.insert_edge_by_key(1 << 40, 7).unwrap());
    assert!(graph.insert_edge_by_key(7, u64::MAX).unwrap());
    assert_eq!(graph.vertex_count(), 3);
    let a = graph.vertex_of_key(1 << 40).unwrap();
    let b = graph.vertex_of_key(7).unwrap();
    assert_eq!(graph.out_neighbors(a).collect::<Vec<_>>(), [b]);
    assert_eq!(graph.key_of_vertex(b), Some(7));
    // A fourth key would pass the limit: refused, nothing interned.
    assert!(matches!(
        graph.insert_edge_by_key(7, 99),
        Err(Error::VertexLimit { .. })
    ));
    assert_eq!(graph.vertex_of_key(99), None);
    assert_eq!(graph.vertex_count(), 3);
    assert!(graph.delete_edge_by_key(1 << 40, 7).unwrap());
    assert!(!graph.delete_edge_by_key(5, 7).unwrap());
    let mut plain = CsrPP::new(CsrPPOptions::default()).unwrap();
    assert!(matches!(
        plain.insert_edge_by_key(1, 2),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn college_msg_matches_csr_after_single_and_batch_loads() {
    use dyngraph_core::{Csr, CsrOptions};
    let edges = common::college_msg();
    assert_eq!(edges.len(), 59_835);
    let csr = Csr::from_edges(&edges, CsrOptions::default().sort(true).in_edges(true)).unwrap();
    let options = CsrPPOptions::default().in_edges(true);
    let batch = CsrPP::from_edges(&edges, options.clone()).unwrap();
    let mut single = CsrPP::new(options.allocator(AllocatorKind::Arena)).unwrap();
    for e in &edges {
        single.insert_edge(e.src, e.dst).unwrap();
    }
    for graph in [&batch, &single] {
        assert_eq!(graph.vertex_count(), 1900);
        assert_eq!(graph.edge_count(), 59_835);
        for v in 0..1900 {
            assert!(
                graph.out_neighbors(v).eq(csr.out_neighbors(v)),
                "vertex {v}"
            );
            assert!(
                graph
                    .in_edges()
                    .unwrap()
                    .in_neighbors(v)
                    .eq(csr.in_edges().unwrap().in_neighbors(v)),
                "in-list of {v}"
            );
        }
    }
    let simple =
        CsrPP::from_edges(&edges, CsrPPOptions::default().semantics(Semantics::Simple)).unwrap();
    assert_eq!(simple.edge_count(), 20_296);
}

/// Lists holding tombstones (logical deletes, not compacted) in inline
/// entries and in arrays, weighted or not, out- and in-lists, are copied
/// for a snapshot when their segment next changes: the copy keeps their
/// live edges only, with the right weights, before and after compaction.
#[test]
fn snapshots_copy_lists_holding_tombstones() {
    for weighted in [false, true] {
        for in_edges in [false, true] {
            let options = CsrPPOptions::default()
                .segment_size(4)
                .delete_mode(DeleteMode::Logical)
                .weighted(weighted)
                .in_edges(in_edges);
            let mut graph = CsrPP::new(options.clone()).unwrap();
            let mut model = ReferenceGraph::new(Semantics::Multigraph);
            // Vertex v has v + 1 out-edges (inline up to 2, or 1 weighted;
            // arrays above), to targets 20 + v + k.
            for v in 0..12u32 {
                for k in 0..=v {
                    let (dst, w) = (20 + v + k, (v * 10 + k) as f32);
                    graph.insert_weighted_edge(v, dst, w).unwrap();
                    model.insert_weighted_edge(v, dst, w).unwrap();
                }
            }
            // Tombstones at the front and in the middle of every list.
            for v in 0..12u32 {
                for k in [0, v / 2] {
                    let dst = 20 + v + k;
                    let got = graph.delete_edge(v, dst).unwrap();
                    assert_eq!(got, model.delete_edge(v, dst).unwrap());
                }
            }
            assert!(graph.tombstone_count() > 0);
            let then = model.clone();
            let snapshot = graph.snapshot();
            // Change every segment, one edge and then a batch at a time.
            for v in 0..12u32 {
                graph.insert_weighted_edge(v, 2, 0.5).unwrap();
                model.insert_weighted_edge(v, 2, 0.5).unwrap();
            }
            let batch: Vec<WeightedEdge> = (0..100u32)
                .map(|i| WeightedEdge::new(i % 12, 40 + i % 7, i as f32))
                .collect();
            graph.insert_edges(&batch).unwrap();
            model.insert_edges(&batch).unwrap();
            let label = format!("{options:?}");
            compare_with_model(&graph.view(&snapshot).unwrap(), &then)
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            compare_with_model(&graph, &model).unwrap_or_else(|e| panic!("{label}: {e}"));
            graph.compact();
            compare_with_model(&graph.view(&snapshot).unwrap(), &then)
                .unwrap_or_else(|e| panic!("{label} after compact: {e}"));
            // Sources 0..12 (segments 0-2) and, with in-edges, targets 40-42
            // (segment 10; 43-46 came after the snapshot: no slot).
            assert_eq!(snapshot.saved_segments(), 3 + usize::from(in_edges));
        }
    }
}

/// A batch into segments whose vertices existed but had no edges at the
/// snapshot takes the bulk-load path (every array packed into a fresh
/// slab): the snapshot still shows them without edges.
#[test]
fn a_batch_into_segments_empty_at_the_snapshot() {
    for in_edges in [false, true] {
        let options = CsrPPOptions::default().segment_size(4).in_edges(in_edges);
        let mut graph = CsrPP::from_edges(&[Edge::new(40, 41)], options).unwrap();
        graph.add_vertices(8).unwrap(); // 0..50: twelve segments, one with an edge
        let mut then = ReferenceGraph::new(Semantics::Multigraph);
        then.insert_edge(40, 41).unwrap();
        then.add_vertices(8).unwrap();
        let snapshot = graph.snapshot();
        let batch: Vec<Edge> = (0..120u32)
            .map(|i| Edge::new(i % 40, (i * 7) % 40))
            .collect();
        graph.insert_edges(&batch).unwrap();
        assert_eq!(graph.edge_count(), 121);
        compare_with_model(&graph.view(&snapshot).unwrap(), &then)
            .unwrap_or_else(|e| panic!("in-edges {in_edges}: {e}"));
    }
}
