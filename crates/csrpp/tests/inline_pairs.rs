//! Unweighted lists of two slots live inline in the vertex entry: they
//! never allocate (bulk load, single and batch inserts, deletes back down
//! to two), and clone and graph union/difference handle them like any
//! other list.

mod common;

use common::{all_options, check_invariants, weighted_or_unit};
use dyngraph_core::StoreConfig;
use dyngraph_core::{Edge, FromEdges, Graph, GraphUpdate, OutNeighbors, VertexId};
use dyngraph_csrpp::{AllocatorKind, CsrPP, CsrPPOptions, DeleteMode};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Live edges with their weights (1.0 in an unweighted store), as a map
/// (set semantics).
fn edge_map(graph: &CsrPP) -> BTreeMap<(VertexId, VertexId), f32> {
    (0..graph.vertex_count() as VertexId)
        .flat_map(|v| {
            weighted_or_unit(graph, v)
                .into_iter()
                .map(move |(d, w)| ((v, d), w))
        })
        .collect()
}

/// The bytes of `options`'s store with `n` vertices and no edge arrays,
/// as [`edge_bytes`] counts them.
fn bytes_without_edges(options: &CsrPPOptions, n: usize) -> usize {
    let mut empty = CsrPP::new(options.clone()).unwrap();
    empty.add_vertices(n).unwrap();
    edge_bytes(&empty)
}

/// `memory_bytes` of a clone: the same entries, slabs and blocks (a clone
/// keeps every array's capacity), with a segment directory exactly as
/// long as the segments, whatever growth left in the original's.
fn edge_bytes(graph: &CsrPP) -> usize {
    graph.clone().memory_bytes()
}

/// Edges `v -> first[v]` and `v -> second[v]` (self loops and repeats
/// dropped): out-degree and in-degree at most two each.
fn two_permutations(first: &[VertexId], second: &[VertexId]) -> Vec<Edge> {
    let mut edges = Vec::new();
    for (v, (&a, &b)) in first.iter().zip(second).enumerate() {
        let v = v as VertexId;
        for (k, d) in [a, b].into_iter().enumerate() {
            if d != v && (k == 0 || a != b) {
                edges.push(Edge::new(v, d));
            }
        }
    }
    edges
}

fn permutation(n: usize) -> impl Strategy<Value = Vec<VertexId>> {
    Just((0..n as VertexId).collect::<Vec<_>>()).prop_shuffle()
}

/// Every configuration without weights, re-packing on in every other
/// one (so batches also take the re-pack path).
fn unweighted_options() -> Vec<CsrPPOptions> {
    all_options(&[1, 4, 128])
        .into_iter()
        .filter(|c| !c.store.weighted)
        .enumerate()
        .map(|(i, c)| c.segment_repack(i % 2 == 1))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Out- and in-degrees of at most two: however the edges arrive (a
    /// bulk load, single inserts, batches into a loaded store) the store
    /// holds no edge array: the arena never takes memory and the store's
    /// bytes equal those of the same store without edges. Deleting the
    /// third edge of a vertex, physically, brings it back.
    #[test]
    fn degree_two_unweighted_lists_never_allocate(
        (first, second) in (8usize..300).prop_flat_map(|n| (permutation(n), permutation(n))),
        options_index in 0usize..48,
        how in 0u8..3,
    ) {
        let options_list = unweighted_options();
        let options = options_list[options_index % options_list.len()]
            .clone()
            .allocator(AllocatorKind::Arena);
        let n = first.len();
        let edges = two_permutations(&first, &second);
        let graph = match how {
            0 => CsrPP::from_edges(&edges, options.clone()).unwrap(),
            1 => {
                let mut g = CsrPP::new(options.clone()).unwrap();
                g.add_vertices(n).unwrap();
                for e in &edges {
                    g.insert_edge(e.src, e.dst).unwrap();
                }
                g
            }
            _ => {
                let (load, rest) = edges.split_at(edges.len() / 2);
                let mut g = CsrPP::from_edges(load, options.clone()).unwrap();
                g.add_vertices(n.saturating_sub(g.vertex_count())).unwrap();
                for chunk in rest.chunks(100) {
                    g.insert_edges(chunk).unwrap();
                }
                g
            }
        };
        let mut graph = graph;
        graph.add_vertices(n.saturating_sub(graph.vertex_count())).unwrap();
        prop_assert_eq!(graph.edge_count(), edges.len() as u64);
        prop_assert!(check_invariants(&graph).is_ok());
        prop_assert_eq!(graph.arena_reserved_bytes(), 0);
        let baseline = bytes_without_edges(&options, graph.vertex_count());
        prop_assert_eq!(edge_bytes(&graph), baseline, "how {} options {:?}", how, options);

        // Control: a third out-edge needs an array (so the checks above
        // can fail) ...
        let Some(&Edge { src: v, .. }) = edges.first() else {
            return Ok(());
        };
        let extra = (0..n as VertexId)
            .find(|&d| d != v && !graph.has_edge(v, d))
            .unwrap();
        let had_two = graph.out_degree(v) == 2;
        graph.insert_edge(v, extra).unwrap();
        if had_two {
            prop_assert!(edge_bytes(&graph) > baseline);
        }
        // ... and a delete back to two moves it inline again (a physical
        // delete at once, a logical one at compaction).
        prop_assert!(graph.delete_edge(v, extra).unwrap());
        graph.compact();
        prop_assert_eq!(edge_bytes(&graph), baseline);
        prop_assert_eq!(graph.edge_count(), edges.len() as u64);
        prop_assert!(check_invariants(&graph).is_ok());
    }
}

/// Graph union and difference, in place and into new instances, over
/// stores whose vertices hold 0 to 3 slots, so merges go 0 → 1, 1 → 2,
/// 2 → 3 (inline pair into a block) and deletes 3 → 2 → 1 → 0, against
/// set algebra on the edges (weights from the added side).
#[test]
fn union_and_difference_over_inline_pairs() {
    // Vertex v has out-degree v % 4 in `a`; `b` overlaps it.
    let a_edges: Vec<(VertexId, VertexId, f32)> = (0..16u32)
        .flat_map(|v| (1..=v % 4).map(move |k| (v, (v + k * 3) % 16, 1.0 + k as f32)))
        .collect();
    let b_edges: Vec<(VertexId, VertexId, f32)> = (0..16u32)
        .flat_map(|v| (2..=(v + 1) % 4 + 1).map(move |k| (v, (v + k * 3) % 16, 10.0 + k as f32)))
        .collect();
    for options in all_options(&[4]) {
        let build = |edges: &[(VertexId, VertexId, f32)]| {
            let weighted: Vec<_> = edges
                .iter()
                .map(|&(s, d, w)| dyngraph_core::WeightedEdge::new(s, d, w))
                .collect();
            CsrPP::from_edges(&weighted, options.clone()).unwrap()
        };
        let (a, b) = (build(&a_edges), build(&b_edges));
        let (map_a, map_b) = (edge_map(&a), edge_map(&b));
        let mut union = map_a.clone();
        for (&edge, &w) in &map_b {
            union.entry(edge).or_insert(w);
        }
        let difference: BTreeMap<_, _> = map_a
            .iter()
            .filter(|(edge, _)| !map_b.contains_key(edge))
            .map(|(&e, &w)| (e, w))
            .collect();

        let (sum, added) = a.add_graph(&b).unwrap();
        assert_eq!(added as usize, union.len() - map_a.len());
        assert_eq!(edge_map(&sum), union);
        check_invariants(&sum).unwrap();
        let mut in_place = a.clone();
        assert_eq!(in_place.add_graph_in_place(&b).unwrap(), added);
        assert_eq!(edge_map(&in_place), union);

        let (rest, removed) = a.subtract_graph(&b);
        assert_eq!(removed as usize, map_a.len() - difference.len());
        assert_eq!(edge_map(&rest), difference);
        check_invariants(&rest).unwrap();
        let mut in_place = a.clone();
        assert_eq!(in_place.subtract_graph_in_place(&b), removed);
        assert_eq!(edge_map(&in_place), difference);
        // The source stores are unchanged.
        assert_eq!(edge_map(&a), map_a);
        // Union then difference of the same graph: every list back to its
        // size in `a`, minus what `b` shares with it.
        let mut round = sum;
        round.subtract_graph_in_place(&b);
        assert_eq!(edge_map(&round), difference);
        check_invariants(&round).unwrap();
    }
}

/// A parallel clone copies inline pairs and their tombstones (every slot
/// bit for bit), and the copy is independent of the original.
#[test]
fn clone_copies_inline_pairs_and_tombstones() {
    for delete_mode in [DeleteMode::Logical, DeleteMode::Physical] {
        for weighted in [false, true] {
            let options = CsrPPOptions::default()
                .segment_size(4)
                .weighted(weighted)
                .in_edges(true)
                .delete_mode(delete_mode);
            let n = 4000u32;
            let edges: Vec<Edge> = (0..n)
                .flat_map(|v| [Edge::new(v, (v + 1) % n), Edge::new(v, (v + 7) % n)])
                .collect();
            let mut graph = CsrPP::from_edges(&edges, options).unwrap();
            for v in (0..n).step_by(3) {
                assert!(graph.delete_edge(v, (v + 7) % n).unwrap());
            }
            let copy = graph.clone();
            for v in 0..n {
                assert_eq!(copy.out_slots(v), graph.out_slots(v), "vertex {v}");
                assert_ne!(
                    copy.out_slots(v).as_ptr(),
                    graph.out_slots(v).as_ptr(),
                    "vertex {v}: the copy shares the original's slots"
                );
            }
            assert_eq!(copy.tombstone_count(), graph.tombstone_count());
            assert_eq!(edge_map(&copy), edge_map(&graph));
            let expected_tombstones = if delete_mode == DeleteMode::Logical {
                2 * n.div_ceil(3) as u64 // out- and in-list of each delete
            } else {
                0
            };
            assert_eq!(graph.tombstone_count(), expected_tombstones);
            check_invariants(&copy).unwrap();
            // Independent: changing the copy leaves the original alone.
            let mut copy = copy;
            copy.insert_edge(1, 3).unwrap();
            assert!(!graph.has_edge(1, 3));
            assert_eq!(weighted_or_unit(&graph, 1).len(), 2);
        }
    }
}
