//! `CsrPP` against the core reference model: serial and batch updates,
//! deletes of both kinds, deleted vertices, compaction, weights aligned,
//! and graph algebra against set algebra on the model.

mod common;

use common::{all_configs, check_invariants};
use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
use dyngraph_core::{
    Edge, Error, Graph, GraphUpdate, OutNeighbors, Semantics, VertexId, WeightedEdge,
    WeightedOutNeighbors,
};
use dyngraph_csrpp::{AllocatorKind, CsrPP, CsrPPConfig, DeleteMode};
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
}

fn op(max_vertex: VertexId) -> impl Strategy<Value = Op> {
    let v = 0..max_vertex;
    let edge = (v.clone(), v.clone(), any::<u8>());
    prop_oneof![
        6 => edge.clone().prop_map(|(s, d, w)| Op::Insert(s, d, w)),
        3 => (v.clone(), v.clone()).prop_map(|(s, d)| Op::Delete(s, d)),
        // Batches of up to 64 edges are inserted one by one; larger ones
        // take the parallel path, where groups of more than 8 new edges
        // for one vertex are merged and empty segments packed in slabs.
        2 => prop::collection::vec(edge, 0..160).prop_map(Op::InsertBatch),
        1 => prop::collection::vec((v.clone(), v.clone()), 0..30).prop_map(Op::DeleteBatch),
        1 => v.prop_map(Op::DeleteVertex),
        1 => Just(Op::Compact),
        1 => Just(Op::Defragment),
        1 => (0u8..3).prop_map(Op::AddVertices),
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

fn apply(graph: &mut CsrPP, model: &mut ReferenceGraph, op: &Op) -> Result<(), String> {
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
            let got = graph.insert_weighted_edges(&edges).unwrap();
            let want = model.insert_weighted_edges(&edges).unwrap();
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
        }
        Op::AddVertices(n) => {
            let got = graph.add_vertices(*n as usize).unwrap();
            let want = model.add_vertices(*n as usize).unwrap();
            prop_assert_eq_str(got, want, "add vertices")?;
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

/// Runs `ops` on a fresh store with `config`, comparing with the model and
/// the invariants after every step.
fn run(config: CsrPPConfig, ops: &[Op]) -> Result<(), String> {
    let mut graph = CsrPP::new(config.clone()).unwrap();
    let mut model = ReferenceGraph::new(config.semantics);
    for (step, op) in ops.iter().enumerate() {
        apply(&mut graph, &mut model, op).map_err(|e| format!("step {step} {op:?}: {e}"))?;
        compare_with_model(&graph, &model).map_err(|e| format!("after step {step} {op:?}: {e}"))?;
        check_invariants(&graph).map_err(|e| format!("after step {step} {op:?}: {e}"))?;
    }
    // A parallel clone is an equal, independent copy.
    let copy = graph.clone();
    compare_with_model(&copy, &model)?;
    drop(graph);
    compare_with_model(&copy, &model)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn serial_streams_match_the_model(
        config_index in 0usize..96,
        ops in prop::collection::vec(op(20), 1..40),
    ) {
        let config = all_configs(&[1, 4, 128])[config_index].clone();
        run(config.clone(), &ops).map_err(|e| TestCaseError::fail(format!("{config:?}: {e}")))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Dense segments (8 vertices of up to ~25 edges each): batches re-pack
    /// segments (64+ short-list slots, half of them in blocks) as well as
    /// merging in place and into fresh blocks.
    #[test]
    fn dense_segment_streams_match_the_model(
        config_index in 0usize..32,
        ops in prop::collection::vec(op(32), 1..30),
    ) {
        let config = all_configs(&[8])[config_index].clone().segment_repack(true);
        run(config.clone(), &ops).map_err(|e| TestCaseError::fail(format!("{config:?}: {e}")))?;
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
                let config = CsrPPConfig::default()
                    .segment_repack(true)
                    .segment_size(16)
                    .allocator(allocator)
                    .semantics(semantics)
                    .weighted(weighted)
                    .reverse_edges(true);
                let mut graph = CsrPP::new(config.clone()).unwrap();
                let mut model = ReferenceGraph::new(semantics);
                let mut apply = |graph: &mut CsrPP, edges: &[WeightedEdge]| {
                    graph.insert_weighted_edges(edges).unwrap();
                    model.insert_weighted_edges(edges).unwrap();
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
                            "{config:?}: vertex {v}'s array is not followed by {}'s",
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
                    CsrPP::new(config.clone().delete_mode(DeleteMode::Logical)).unwrap();
                let mut logical_model = ReferenceGraph::new(semantics);
                for batch in [&load[..], &grow[..]] {
                    logical.insert_weighted_edges(batch).unwrap();
                    logical_model.insert_weighted_edges(batch).unwrap();
                }
                for v in 0..32u32 {
                    assert!(logical.delete_edge(v, 50 + v).unwrap());
                    logical_model.delete_edge(v, 50 + v).unwrap();
                }
                let more: Vec<WeightedEdge> = (0..32u32).map(|v| edge(v, 60 + v)).collect();
                logical.insert_weighted_edges(&more).unwrap();
                logical_model.insert_weighted_edges(&more).unwrap();
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
        for (d, w) in graph.out_neighbors_weighted(v) {
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
        config_index in 0usize..96,
        base in prop::collection::vec((0u32..30, 0u32..30, any::<u8>()), 0..240),
        other in prop::collection::vec((0u32..34, 0u32..34, any::<u8>()), 0..240),
        other_simple in any::<bool>(),
    ) {
        let config = all_configs(&[1, 4, 128])[config_index].clone();
        let other_config = config.clone().semantics(if other_simple { Semantics::Simple } else { Semantics::Multigraph });
        let to_edges = |list: &[(VertexId, VertexId, u8)]| -> Vec<WeightedEdge> {
            list.iter().map(|&(s, d, w)| WeightedEdge::new(s, d, weight(w))).collect()
        };
        let graph = CsrPP::from_weighted_edges(&to_edges(&base), config.clone()).unwrap();
        let batch = CsrPP::from_weighted_edges(&to_edges(&other), other_config.clone()).unwrap();
        let base_model = model_of(&base, config.semantics);
        let other_model = model_of(&other, other_config.semantics);

        // Union: every (s, d) of `other` absent from `base` is added once,
        // with the weight of its oldest occurrence in `other`.
        let mut union_model = base_model.clone();
        let mut expected_added = 0;
        for (s, d, w) in other_model.edges() {
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
        for (s, d, _) in other_model.edges() {
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
    for config in all_configs(&[4]) {
        if config.semantics != Semantics::Multigraph || !config.weighted {
            continue;
        }
        let mut graph = CsrPP::new(config).unwrap();
        graph.insert_weighted_edge(0, 1, 1.0).unwrap();
        graph.insert_weighted_edge(0, 1, 2.0).unwrap();
        graph
            .insert_weighted_edges(&[WeightedEdge::new(0, 1, 3.0); 12])
            .unwrap();
        assert!(graph.delete_edge(0, 1).unwrap());
        let weights: Vec<f32> = graph.out_neighbors_weighted(0).map(|(_, w)| w).collect();
        assert_eq!(weights[0], 2.0);
        assert_eq!(weights.len(), 13);
    }
}

#[test]
fn logical_deletes_stay_invisible_until_compaction_reclaims_them() {
    let config = CsrPPConfig::default()
        .delete_mode(DeleteMode::Logical)
        .reverse_edges(true)
        .weighted(true);
    let edges: Vec<WeightedEdge> = (0..100)
        .map(|i| WeightedEdge::new(i % 5, i, i as f32))
        .collect();
    let mut graph = CsrPP::from_weighted_edges(&edges, config).unwrap();
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
        for (d, w) in graph.out_neighbors_weighted(v) {
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
        let config = CsrPPConfig::default().allocator(allocator);
        // Single inserts, so the array is an allocator block (a bulk load
        // would pack it into the segment's slab).
        let mut graph = CsrPP::new(config).unwrap();
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
        let config = CsrPPConfig::default()
            .allocator(allocator)
            .weighted(true)
            .reverse_edges(true);
        // 100 vertices of degree 3: exactly 8 bytes per slot packed, where
        // power-of-two arrays would take 4 slots each.
        let edges: Vec<WeightedEdge> = (0..300)
            .map(|i| WeightedEdge::new(i / 3, 1000 + i, i as f32))
            .collect();
        let mut graph = CsrPP::from_weighted_edges(&edges, config).unwrap();
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
            graph.out_neighbors_weighted(5).collect::<Vec<_>>(),
            [(7, 0.5), (1015, 15.0), (1016, 16.0), (1017, 17.0)]
        );
        assert_eq!(
            copy.out_neighbors_weighted(5).collect::<Vec<_>>(),
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
    let exact = CsrPP::from_edges(&edges, CsrPPConfig::default()).unwrap();
    let mut roomy = CsrPP::from_edges(&edges, CsrPPConfig::default().slab_headroom(true)).unwrap();
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
    let config = CsrPPConfig::default().vertex_limit(100).reverse_edges(true);
    let mut graph = CsrPP::from_edges(&[Edge::new(1, 2)], config).unwrap();
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
    let big = CsrPP::from_edges(&[Edge::new(0, 150)], CsrPPConfig::default()).unwrap();
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
    for config in [
        CsrPPConfig::default().segment_size(100),
        CsrPPConfig::default().segment_size(0),
        CsrPPConfig::default().vertex_limit(1 << 32),
    ] {
        assert!(matches!(CsrPP::new(config), Err(Error::InvalidArgument(_))));
    }
}

#[test]
fn growing_never_moves_existing_segments() {
    let mut graph = CsrPP::new(CsrPPConfig::default().segment_size(2)).unwrap();
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
    let mut graph = CsrPP::new(CsrPPConfig::default().segment_size(4)).unwrap();
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
    let mut graph = CsrPP::new(CsrPPConfig::default().external_keys(true).vertex_limit(3)).unwrap();
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
    let mut plain = CsrPP::new(CsrPPConfig::default()).unwrap();
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
    let csr = Csr::from_edges(&edges, CsrOptions::default().sort(true).transpose(true)).unwrap();
    let config = CsrPPConfig::default().reverse_edges(true);
    let batch = CsrPP::from_edges(&edges, config.clone()).unwrap();
    let mut single = CsrPP::new(config.allocator(AllocatorKind::Arena)).unwrap();
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
                dyngraph_core::InNeighbors::in_neighbors(graph, v)
                    .eq(dyngraph_core::InNeighbors::in_neighbors(&csr, v)),
                "in-list of {v}"
            );
        }
    }
    let simple =
        CsrPP::from_edges(&edges, CsrPPConfig::default().semantics(Semantics::Simple)).unwrap();
    assert_eq!(simple.edge_count(), 20_296);
}
