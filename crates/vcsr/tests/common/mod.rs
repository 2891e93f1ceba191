//! The harness every store's tests share: model tests against
//! `ReferenceGraph` and replays of the real streams compared with `Csr`.
//! Each store's test file plugs its constructor in.
#![allow(dead_code, unreachable_pub)]

use dyngraph_core::StoreConfig;
use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
use dyngraph_core::{
    Csr, CsrOptions, Edge, Error, Graph, GraphUpdate, InEdges, InNeighbors, OutNeighbors,
    ReadGraph, Semantics, StoreOptions, VertexId, WeightedEdge,
};
use proptest::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a store must offer to run through the harness.
pub trait Store: GraphUpdate + ReadGraph + Sized {
    /// Builds an empty store.
    fn build(options: StoreOptions) -> Self;
    /// The store's own structural check (run after every operation).
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
    /// The store's own `has_edge`.
    fn has_edge(&self, src: VertexId, dst: VertexId) -> bool;
}

/// One step of a random update stream.
#[derive(Clone, Debug)]
pub enum Op {
    Insert(u32, u32, u8),
    Delete(u32, u32),
    /// Deletes the `n`-th stored edge (mod edge count), so deletes hit.
    DeleteExisting(usize),
    InsertBatch(Vec<(u32, u32, u8)>),
    DeleteBatch(Vec<(u32, u32)>),
    AddVertices(u8),
    /// An edge whose source is far beyond the current vertex count.
    InsertFar(u32, u32),
}

fn small_id() -> impl Strategy<Value = u32> {
    0u32..24
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (small_id(), small_id(), 0u8..8).prop_map(|(s, d, w)| Op::Insert(s, d, w)),
        3 => (small_id(), small_id()).prop_map(|(s, d)| Op::Delete(s, d)),
        4 => any::<usize>().prop_map(Op::DeleteExisting),
        2 => prop::collection::vec((small_id(), small_id(), 0u8..8), 0..40).prop_map(Op::InsertBatch),
        1 => prop::collection::vec((small_id(), small_id()), 0..12).prop_map(Op::DeleteBatch),
        1 => (0u8..5).prop_map(Op::AddVertices),
        1 => (100u32..3000, small_id()).prop_map(|(s, d)| Op::InsertFar(s, d)),
    ]
}

/// Applies `ops` to a fresh store and to the model, comparing after each.
pub fn run_model_test<S: Store>(
    ops: &[Op],
    semantics: Semantics,
    weighted: bool,
    in_edges: bool,
) -> Result<(), TestCaseError> {
    let options = StoreOptions::new(semantics)
        .weighted(weighted)
        .in_edges(in_edges);
    let mut store = S::build(options);
    let mut model = ReferenceGraph::new(semantics);
    for (step, op) in ops.iter().enumerate() {
        match op {
            Op::Insert(s, d, w) => {
                let got = store.insert_weighted_edge(*s, *d, f32::from(*w)).unwrap();
                let want = model.insert_weighted_edge(*s, *d, f32::from(*w)).unwrap();
                prop_assert_eq!(got, want, "step {}: insert {:?}", step, op);
            }
            Op::InsertFar(s, d) => {
                let got = store.insert_edge(*s, *d).unwrap();
                let want = model.insert_edge(*s, *d).unwrap();
                prop_assert_eq!(got, want, "step {}: insert {:?}", step, op);
            }
            Op::Delete(s, d) => {
                let got = store.delete_edge(*s, *d).unwrap();
                let want = model.delete_edge(*s, *d).unwrap();
                prop_assert_eq!(got, want, "step {}: delete {:?}", step, op);
            }
            Op::DeleteExisting(n) => {
                let edges: Vec<_> = model.edges().collect();
                if !edges.is_empty() {
                    let Edge { src: s, dst: d } = edges[n % edges.len()];
                    prop_assert!(
                        store.has_edge(s, d),
                        "step {}: has_edge({}, {})",
                        step,
                        s,
                        d
                    );
                    prop_assert!(store.delete_edge(s, d).unwrap());
                    prop_assert!(model.delete_edge(s, d).unwrap());
                }
            }
            Op::InsertBatch(batch) => {
                let batch: Vec<WeightedEdge> = batch
                    .iter()
                    .map(|&(s, d, w)| WeightedEdge::new(s, d, f32::from(w)))
                    .collect();
                let got = store.insert_edges(&batch).unwrap();
                let want = model.insert_edges(&batch).unwrap();
                prop_assert_eq!(got, want, "step {}: batch insert", step);
                if weighted {
                    continue;
                }
                // The unweighted batch path too, on the same edges.
                let plain: Vec<Edge> = batch.iter().map(|e| e.edge()).collect();
                let got = store.insert_edges(&plain).unwrap();
                let want = model.insert_edges(&plain).unwrap();
                prop_assert_eq!(got, want, "step {}: unweighted batch insert", step);
            }
            Op::DeleteBatch(batch) => {
                let batch: Vec<Edge> = batch.iter().map(|&(s, d)| Edge::new(s, d)).collect();
                let got = store.delete_edges(&batch).unwrap();
                let want = model.delete_edges(&batch).unwrap();
                prop_assert_eq!(got, want, "step {}: batch delete", step);
            }
            Op::AddVertices(count) => {
                let got = store.add_vertices(usize::from(*count)).unwrap();
                let want = model.add_vertices(usize::from(*count)).unwrap();
                prop_assert_eq!(got, want, "step {}: add vertices", step);
            }
        }
        store
            .validate()
            .map_err(|e| TestCaseError::fail(format!("step {step}: {e}")))?;
        // The model keeps weights; an unweighted store refuses to report
        // any, so the comparison only looks at neighbours there.
        prop_assert_eq!(store.has_weights(), weighted);
        compare_with_model(&store, &model)
            .map_err(|e| TestCaseError::fail(format!("step {step} ({op:?}): {e}")))?;
        prop_assert_eq!(store.has_in_edges(), in_edges);
        // Order within a vertex is insertion order for every store here.
        for v in 0..model.vertex_count() as VertexId {
            let got: Vec<VertexId> = store.out_neighbors(v).collect();
            let want: Vec<VertexId> = model.out_neighbors(v).collect();
            prop_assert_eq!(got, want, "step {}: order of vertex {}", step, v);
        }
    }
    Ok(())
}

/// Refused ids leave the store unchanged, for single inserts and batches.
pub fn check_vertex_limit<S: Store>() {
    let mut store = S::build(StoreOptions::new(Semantics::Multigraph).vertex_limit(100));
    store.insert_edge(1, 2).unwrap();
    let err = store.insert_edge(5, 100).unwrap_err();
    assert!(
        matches!(err, Error::VertexLimit { vertex: 100, .. }),
        "{err}"
    );
    let err = store
        .insert_edges(&[Edge::new(3, 4), Edge::new(7, 1000)])
        .unwrap_err();
    assert!(
        matches!(err, Error::VertexLimit { vertex: 1000, .. }),
        "{err}"
    );
    assert!(store.add_vertices(98).is_err());
    assert_eq!(store.vertex_count(), 3);
    assert_eq!(store.edge_count(), 1);
    assert_eq!(store.out_neighbors(3 - 2).collect::<Vec<_>>(), [2]);
    // Deleting an edge between vertices that do not exist is a no-op.
    assert!(!store.delete_edge(50, 60).unwrap());
    assert_eq!(store.vertex_count(), 3);
    // Up to the limit is fine.
    assert_eq!(store.add_vertices(97).unwrap(), 3..100);
    assert!(store.insert_edge(99, 0).unwrap());
}

/// The repository's bundled sample.
pub fn bundled_sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/CollegeMsg.txt")
}

/// `../shared/data`, or `None` (after saying so) when it is absent.
pub fn shared_data() -> Option<PathBuf> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"));
    if path.is_dir() {
        Some(path)
    } else {
        eprintln!("skipping: {} not found", path.display());
        None
    }
}

/// Every stream to replay: the bundled sample, each file of the shared
/// data, and sx-mathoverflow's b30 base followed by its dynamic part (the
/// b10 base is a file of its own).
pub fn streams() -> Vec<(String, Vec<Edge>)> {
    let mut streams = vec![(
        "bundled CollegeMsg".to_string(),
        read_edges(&bundled_sample()),
    )];
    let Some(dir) = shared_data() else {
        return streams;
    };
    for name in [
        "CollegeMsg.txt",
        "dnc-temporal.txt",
        "email-Eu-core-temporal-part.txt",
    ] {
        streams.push((name.to_string(), read_edges(&dir.join(name))));
    }
    let math = dir.join("sx-mathoverflow");
    let mut b30 = read_edges(&math.join("b30/base.wel"));
    b30.extend(read_edges(&math.join("b30/dynamic.wel")));
    streams.push(("sx-mathoverflow b30 base + dynamic".to_string(), b30));
    streams.push((
        "sx-mathoverflow b10 base".to_string(),
        read_edges(&math.join("b10/base.wel")),
    ));
    streams
}

/// The first two columns of a whitespace-separated edge file; `#` and `%`
/// lines are comments. Test input only, so a malformed line panics.
pub fn read_edges(path: &Path) -> Vec<Edge> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.starts_with('%') && !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.split_whitespace().map(|f| f.parse::<u32>().unwrap());
            Edge::new(fields.next().unwrap(), fields.next().unwrap())
        })
        .collect()
}

/// Replays `edges` into a store — the first 10% as one batch, the rest one
/// at a time — and compares it with `Csr` built from the same edges:
/// neighbour lists in the same order under multigraph semantics, the same
/// sets under simple semantics, in-edges as multisets. Then deletes every
/// third edge of the stream and compares again.
pub fn replay_and_compare<S: Store>(name: &str, edges: &[Edge], semantics: Semantics) {
    let options = StoreOptions::new(semantics).in_edges(true);
    let mut store = S::build(options);
    assert!(store.has_in_edges(), "{name}: built with in-edges");
    let base = edges.len() / 10;
    store.insert_edges(&edges[..base]).unwrap();
    for edge in &edges[base..] {
        store.insert_edge(edge.src, edge.dst).unwrap();
    }
    store.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
    let csr_options = CsrOptions::default().in_edges(true).semantics(semantics);
    let csr = Csr::from_edges(edges, csr_options.clone()).unwrap();
    compare_with_csr(name, &store, &csr, semantics == Semantics::Multigraph);

    // Delete every third edge of the stream; the oldest occurrence goes.
    let deleted: Vec<Edge> = edges.iter().copied().step_by(3).collect();
    let report = store.delete_edges(&deleted).unwrap();
    store
        .validate()
        .unwrap_or_else(|e| panic!("{name} after deletes: {e}"));
    let remaining = remaining_after_deletes(edges, &deleted, semantics);
    assert_eq!(
        report.edges_removed,
        store_len_difference(edges, &remaining, semantics),
        "{name}: edges removed"
    );
    let csr = Csr::from_edges(&remaining, csr_options.vertex_count(csr.vertex_count())).unwrap();
    compare_with_csr(name, &store, &csr, semantics == Semantics::Multigraph);
}

fn store_len_difference(edges: &[Edge], remaining: &[Edge], semantics: Semantics) -> u64 {
    let distinct = |list: &[Edge]| {
        let mut list = list.to_vec();
        list.sort_unstable();
        list.dedup();
        list.len() as u64
    };
    match semantics {
        Semantics::Multigraph => (edges.len() - remaining.len()) as u64,
        Semantics::Simple => distinct(edges) - distinct(remaining),
    }
}

/// The stream minus, for each deleted pair, its first `k` occurrences
/// (`k` = times it was deleted; under simple semantics a pair is present
/// once, so one delete removes it).
fn remaining_after_deletes(edges: &[Edge], deleted: &[Edge], semantics: Semantics) -> Vec<Edge> {
    let mut to_skip: HashMap<Edge, usize> = HashMap::new();
    for &edge in deleted {
        *to_skip.entry(edge).or_default() += 1;
    }
    match semantics {
        Semantics::Multigraph => edges
            .iter()
            .copied()
            .filter(|edge| match to_skip.get_mut(edge) {
                Some(k) if *k > 0 => {
                    *k -= 1;
                    false
                }
                _ => true,
            })
            .collect(),
        Semantics::Simple => edges
            .iter()
            .copied()
            .filter(|edge| !to_skip.contains_key(edge))
            .collect(),
    }
}

/// Compares a store with a transposed `Csr` vertex by vertex (the
/// in-edges when the store keeps them).
pub fn compare_with_csr<G: ReadGraph>(name: &str, store: &G, csr: &Csr, same_order: bool) {
    let csr_in = csr.in_edges().expect("the reference Csr has in-edges");
    let store_in = store.in_edges().ok();
    assert_eq!(
        store.vertex_count(),
        csr.vertex_count(),
        "{name}: vertex count"
    );
    assert_eq!(store.edge_count(), csr.edge_count(), "{name}: edge count");
    for v in 0..csr.vertex_count() as VertexId {
        assert_eq!(
            store.out_degree(v),
            csr.out_degree(v),
            "{name}: out-degree of {v}"
        );
        let mut got: Vec<VertexId> = store.out_neighbors(v).collect();
        let mut want = csr.out_slice(v).to_vec();
        if !same_order {
            got.sort_unstable();
            want.sort_unstable();
        }
        assert_eq!(got, want, "{name}: out-neighbours of {v}");
        if let Some(store_in) = store_in {
            assert_eq!(
                store_in.in_degree(v),
                csr_in.in_degree(v),
                "{name}: in-degree of {v}"
            );
            let mut got: Vec<VertexId> = store_in.in_neighbors(v).collect();
            let mut want = csr_in.in_slice(v).to_vec();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "{name}: in-neighbours of {v}");
        }
    }
}

/// The model tests and the replay, instantiated for one store.
#[macro_export]
macro_rules! store_tests {
    ($store:ty, $cases:expr) => {
        use dyngraph_core::Semantics;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases($cases))]

            #[test]
            fn matches_the_model(
                ops in prop::collection::vec(common::op(), 1..60),
                simple in any::<bool>(),
                weighted in any::<bool>(),
                in_edges in any::<bool>(),
            ) {
                let semantics = if simple { Semantics::Simple } else { Semantics::Multigraph };
                common::run_model_test::<$store>(&ops, semantics, weighted, in_edges)?;
            }
        }

        #[test]
        fn refuses_ids_past_the_vertex_limit() {
            common::check_vertex_limit::<$store>();
        }

        #[test]
        fn replays_every_stream_like_csr() {
            for (name, edges) in common::streams() {
                common::replay_and_compare::<$store>(&name, &edges, Semantics::Multigraph);
                common::replay_and_compare::<$store>(&name, &edges, Semantics::Simple);
            }
        }
    };
    // Variants of a store already replayed in full (another gap policy):
    // the model tests and the bundled sample only, to keep the suite short.
    ($store:ty, $cases:expr, bundled_sample_only) => {
        use dyngraph_core::Semantics;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases($cases))]

            #[test]
            fn matches_the_model(
                ops in prop::collection::vec(common::op(), 1..60),
                simple in any::<bool>(),
                weighted in any::<bool>(),
                in_edges in any::<bool>(),
            ) {
                let semantics = if simple { Semantics::Simple } else { Semantics::Multigraph };
                common::run_model_test::<$store>(&ops, semantics, weighted, in_edges)?;
            }
        }

        #[test]
        fn replays_the_bundled_sample_like_csr() {
            let edges = common::read_edges(&common::bundled_sample());
            common::replay_and_compare::<$store>(
                "bundled CollegeMsg",
                &edges,
                Semantics::Multigraph,
            );
            common::replay_and_compare::<$store>("bundled CollegeMsg", &edges, Semantics::Simple);
        }
    };
}
