//! `Vcsr` through the shared store harness, with each gap policy, plus
//! snapshot isolation.

mod common;

use dyngraph_core::StoreConfig;
use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
use dyngraph_core::{
    Csr, CsrOptions, Edge, Graph, GraphUpdate, OutNeighbors, Snapshots, StoreOptions, VertexId,
};
use dyngraph_vcsr::{Even, GapPolicy, HistoryAdaptive, Vcsr, VcsrOptions, VcsrSnapshot};

impl<P: GapPolicy + Clone + Default + Send + Sync + std::fmt::Debug> common::Store for Vcsr<P> {
    fn build(options: StoreOptions) -> Self {
        Vcsr::new(VcsrOptions::from_shared(options)).unwrap()
    }

    fn validate(&self) -> Result<(), String> {
        Vcsr::validate(self).map_err(|e| e.to_string())
    }

    fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        Vcsr::has_edge(self, src, dst)
    }
}

store_tests!(Vcsr, 64);

mod even_policy {
    use super::{Even, Vcsr, common};
    use crate::store_tests;
    store_tests!(Vcsr<Even>, 24, bundled_sample_only);
}

mod history_adaptive_policy {
    use super::{HistoryAdaptive, Vcsr, common};
    use crate::store_tests;
    store_tests!(Vcsr<HistoryAdaptive>, 24, bundled_sample_only);
}

/// `Vcsr` with the default policy, from store options.
fn vcsr(options: StoreOptions) -> Vcsr {
    Vcsr::new(VcsrOptions::from(options)).unwrap()
}

#[test]
fn refuses_a_vertex_limit_past_two_to_the_31() {
    let err = Vcsr::new(VcsrOptions::from(
        StoreOptions::default().vertex_limit(1 << 32),
    ))
    .unwrap_err();
    assert!(err.to_string().contains("2^31"), "{err}");
}

#[test]
fn compact_reclaims_tombstones_and_keeps_order() {
    let mut graph = vcsr(StoreOptions::default().in_edges(true));
    for i in 0..1000u32 {
        graph.insert_edge(i % 10, i % 7).unwrap();
    }
    for i in 0..300u32 {
        assert!(graph.delete_edge(i % 10, i % 7).unwrap());
    }
    let before: Vec<Vec<u32>> = (0..10).map(|v| graph.out_neighbors(v).collect()).collect();
    graph.compact();
    assert_eq!(graph.stats().out_tombstones, 0);
    graph.validate().unwrap();
    let after: Vec<Vec<u32>> = (0..10).map(|v| graph.out_neighbors(v).collect()).collect();
    assert_eq!(before, after);
    assert_eq!(graph.edge_count(), 700);
}

/// `Csr` of a stream with deletes applied (oldest occurrence first), kept in
/// insertion order, as a model of what a snapshot must show.
fn csr_of(model: &ReferenceGraph) -> Csr {
    let edges: Vec<Edge> = model.edges().collect();
    Csr::from_edges(
        &edges,
        CsrOptions::default()
            .in_edges(true)
            .vertex_count(model.vertex_count()),
    )
    .unwrap()
}

fn assert_view_matches(graph: &Vcsr, snapshot: &VcsrSnapshot, model: &ReferenceGraph, what: &str) {
    let view = graph.view(snapshot).unwrap();
    compare_with_model(&view, model).unwrap_or_else(|e| panic!("{what}: {e}"));
    common::compare_with_csr(what, &view, &csr_of(model), true);
}

/// A snapshot taken mid-stream keeps showing exactly that prefix while the
/// graph takes inserts, deletes of edges the snapshot holds, rebalances at
/// several levels and resizes of both edge arrays; a second snapshot taken
/// later sees its own prefix; after both are dropped, reclamation resumes.
#[test]
fn snapshot_sees_exactly_its_prefix_across_updates_rebalances_and_resizes() {
    let edges = common::read_edges(&common::bundled_sample());
    let (prefix, rest) = edges.split_at(20_000);
    let mut graph = vcsr(StoreOptions::default().in_edges(true));
    let mut model = ReferenceGraph::new(dyngraph_core::Semantics::Multigraph);
    graph.insert_edges(&prefix[..5_000]).unwrap();
    model.insert_edges(&prefix[..5_000]).unwrap();
    for edge in &prefix[5_000..] {
        graph.insert_edge(edge.src, edge.dst).unwrap();
        model.insert_edge(edge.src, edge.dst).unwrap();
    }
    // Deletes before the snapshot: hidden from it, tombstones unrecorded.
    for edge in prefix.iter().step_by(11) {
        assert!(graph.delete_edge(edge.src, edge.dst).unwrap());
        model.delete_edge(edge.src, edge.dst).unwrap();
    }
    let first = graph.snapshot();
    let first_model = model.clone();
    let stats_at_first = graph.stats();
    assert_view_matches(&graph, &first, &first_model, "first snapshot, at once");

    // Inserts (growing the arrays), deletes of edges the snapshot holds,
    // and a vertex beyond the current count.
    for (i, edge) in rest.iter().enumerate() {
        graph.insert_edge(edge.src, edge.dst).unwrap();
        model.insert_edge(edge.src, edge.dst).unwrap();
        if i % 5 == 0 {
            let old = prefix[i % prefix.len()];
            let removed = graph.delete_edge(old.src, old.dst).unwrap();
            assert_eq!(removed, model.delete_edge(old.src, old.dst).unwrap());
        }
        if i == 20_000 {
            graph.insert_edge(50_000, 3).unwrap();
            model.insert_edge(50_000, 3).unwrap();
        }
    }
    let stats = graph.stats();
    assert!(
        stats.out_edges.grows > stats_at_first.out_edges.grows,
        "the out-edge array resized after the snapshot"
    );
    let in_grows = |s: &dyngraph_vcsr::VcsrStats| s.in_edges.as_ref().unwrap().grows;
    assert!(
        in_grows(&stats) > in_grows(&stats_at_first),
        "in-edges resized too"
    );
    assert!(
        stats.out_edges.rebalances() > stats_at_first.out_edges.rebalances(),
        "windows were redistributed after the snapshot"
    );
    assert!(
        stats.out_edges.rebalances_per_level.len() > 2,
        "at several levels"
    );
    assert_eq!(stats.live_snapshots, 1);
    assert_view_matches(
        &graph,
        &first,
        &first_model,
        "first snapshot, after updates",
    );
    graph.validate().unwrap();

    let second = graph.snapshot();
    let second_model = model.clone();
    // Delete edges both snapshots hold, then compact (which must not reclaim).
    for edge in prefix.iter().skip(3).step_by(7) {
        let removed = graph.delete_edge(edge.src, edge.dst).unwrap();
        assert_eq!(removed, model.delete_edge(edge.src, edge.dst).unwrap());
    }
    graph.compact();
    assert!(
        graph.stats().out_tombstones > 0,
        "no reclamation while snapshots live"
    );
    assert_view_matches(
        &graph,
        &first,
        &first_model,
        "first snapshot, after compact",
    );
    assert_view_matches(
        &graph,
        &second,
        &second_model,
        "second snapshot, after compact",
    );
    compare_with_model(&graph, &model).unwrap();

    drop(first);
    drop(second);
    graph.insert_edge(1, 2).unwrap();
    model.insert_edge(1, 2).unwrap();
    graph.compact();
    assert_eq!(graph.stats().out_tombstones, 0, "reclamation resumed");
    assert_eq!(graph.stats().live_snapshots, 0);
    compare_with_model(&graph, &model).unwrap();
    graph.validate().unwrap();
}

#[test]
fn a_snapshot_of_another_graph_is_refused() {
    let a = vcsr(StoreOptions::default());
    let b = a.clone();
    let snapshot = a.snapshot();
    assert!(a.view(&snapshot).is_ok());
    let err = b.view(&snapshot).unwrap_err();
    assert!(err.to_string().contains("different graph"), "{err}");
}

mod snapshot_model {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Step {
        Op(common::Op),
        TakeSnapshot,
        DropSnapshot(usize),
        Compact,
        Repack,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            10 => common::op().prop_map(Step::Op),
            2 => Just(Step::TakeSnapshot),
            1 => any::<usize>().prop_map(Step::DropSnapshot),
            1 => Just(Step::Compact),
            1 => Just(Step::Repack),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Every live snapshot, after every later step, equals the model as
        /// it was when the snapshot was taken (order included).
        #[test]
        fn snapshots_stay_consistent(
            steps in prop::collection::vec(step(), 1..80),
            simple in any::<bool>(),
            weighted in any::<bool>(),
        ) {
            let semantics = if simple {
                dyngraph_core::Semantics::Simple
            } else {
                dyngraph_core::Semantics::Multigraph
            };
            let options = StoreOptions::new(semantics).weighted(weighted).in_edges(true);
            let mut graph = vcsr(options);
            let mut model = ReferenceGraph::new(semantics);
            let mut snapshots: Vec<(VcsrSnapshot, ReferenceGraph)> = Vec::new();
            for (i, step) in steps.iter().enumerate() {
                match step {
                    Step::Op(op) => apply(&mut graph, &mut model, op),
                    Step::TakeSnapshot => snapshots.push((graph.snapshot(), model.clone())),
                    Step::DropSnapshot(k) => {
                        if !snapshots.is_empty() {
                            let k = k % snapshots.len();
                            snapshots.remove(k);
                        }
                    }
                    Step::Compact => graph.compact(),
                    Step::Repack => graph.repack().unwrap(),
                }
                graph.validate().map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
                compare_with_model(&graph, &model)
                    .map_err(|e| TestCaseError::fail(format!("step {i}: live graph: {e}")))?;
                for (k, (snapshot, frozen)) in snapshots.iter().enumerate() {
                    let view = graph.view(snapshot).unwrap();
                    compare_with_model(&view, frozen).map_err(|e| {
                        TestCaseError::fail(format!("step {i} ({step:?}): snapshot {k}: {e}"))
                    })?;
                    for v in 0..frozen.vertex_count() as VertexId {
                        let got: Vec<VertexId> = view.out_neighbors(v).collect();
                        let want: Vec<VertexId> = frozen.out_neighbors(v).collect();
                        prop_assert_eq!(got, want, "step {}: snapshot {} vertex {}", i, k, v);
                    }
                }
                prop_assert_eq!(graph.stats().live_snapshots, snapshots.len());
            }
        }
    }

    fn apply(graph: &mut Vcsr, model: &mut ReferenceGraph, op: &common::Op) {
        use common::Op;
        match op {
            Op::Insert(s, d, w) => {
                let w = f32::from(*w);
                assert_eq!(
                    graph.insert_weighted_edge(*s, *d, w).unwrap(),
                    model.insert_weighted_edge(*s, *d, w).unwrap()
                );
            }
            Op::InsertFar(s, d) => {
                assert_eq!(
                    graph.insert_edge(*s, *d).unwrap(),
                    model.insert_edge(*s, *d).unwrap()
                );
            }
            Op::Delete(s, d) => {
                assert_eq!(
                    graph.delete_edge(*s, *d).unwrap(),
                    model.delete_edge(*s, *d).unwrap()
                );
            }
            Op::DeleteExisting(n) => {
                let edges: Vec<_> = model.edges().collect();
                if !edges.is_empty() {
                    let Edge { src: s, dst: d } = edges[n % edges.len()];
                    assert!(graph.delete_edge(s, d).unwrap());
                    assert!(model.delete_edge(s, d).unwrap());
                }
            }
            Op::InsertBatch(batch) => {
                let batch: Vec<dyngraph_core::WeightedEdge> = batch
                    .iter()
                    .map(|&(s, d, w)| dyngraph_core::WeightedEdge::new(s, d, f32::from(w)))
                    .collect();
                assert_eq!(
                    graph.insert_edges(&batch).unwrap(),
                    model.insert_edges(&batch).unwrap()
                );
            }
            Op::DeleteBatch(batch) => {
                let batch: Vec<Edge> = batch.iter().map(|&(s, d)| Edge::new(s, d)).collect();
                assert_eq!(
                    graph.delete_edges(&batch).unwrap(),
                    model.delete_edges(&batch).unwrap()
                );
            }
            Op::AddVertices(count) => {
                assert_eq!(
                    graph.add_vertices(usize::from(*count)).unwrap(),
                    model.add_vertices(usize::from(*count)).unwrap()
                );
            }
        }
    }
}

#[test]
fn pma_options_are_selectable_and_checked() {
    use dyngraph_vcsr::{PmaOptions, default_out_edge_pma_options};
    let bad = PmaOptions::default().section_size(0);
    let err =
        Vcsr::new(VcsrOptions::from(StoreOptions::default()).out_edge_array(bad)).unwrap_err();
    assert!(err.to_string().contains("pma options"), "{err}");
    let err =
        Vcsr::new(VcsrOptions::from(StoreOptions::default().in_edges(true)).in_edge_array(bad))
            .unwrap_err();
    assert!(err.to_string().contains("pma options"), "{err}");
    // A denser root bound keeps fewer slots per edge.
    let mut thresholds = PmaOptions::default().thresholds;
    thresholds.root_lower = 0.6;
    thresholds.root_upper = 0.9;
    let dense = default_out_edge_pma_options().thresholds(thresholds);
    let mut sparse_graph = vcsr(StoreOptions::default());
    let mut dense_graph =
        Vcsr::new(VcsrOptions::from(StoreOptions::default()).edge_arrays(dense)).unwrap();
    // The same growth factor (1.5) under a 0.9 instead of a 0.75 root
    // bound: the denser array never needs more slots.
    let edges = &common::read_edges(&common::bundled_sample())[..52_000];
    for edge in edges {
        sparse_graph.insert_edge(edge.src, edge.dst).unwrap();
        dense_graph.insert_edge(edge.src, edge.dst).unwrap();
    }
    dense_graph.validate().unwrap();
    assert!(
        dense_graph.stats().out_density > 0.5,
        "{:?}",
        dense_graph.stats()
    );
    assert!(dense_graph.stats().out_slots <= sparse_graph.stats().out_slots);
}

/// The in-edge array's shape is reported beside the out-edge array's: its
/// density is its stored slots over its capacity, and both are zero
/// without in-edges.
#[test]
fn stats_report_the_in_edge_array_shape() {
    let edges = &common::read_edges(&common::bundled_sample())[..20_000];
    let mut with_in = vcsr(StoreOptions::default().in_edges(true));
    let mut without = vcsr(StoreOptions::default());
    for edge in edges {
        with_in.insert_edge(edge.src, edge.dst).unwrap();
        without.insert_edge(edge.src, edge.dst).unwrap();
    }
    let stats = with_in.stats();
    assert!(stats.in_slots >= edges.len(), "{stats:?}");
    let stored = stats.in_density * stats.in_slots as f64;
    assert!((stored - edges.len() as f64).abs() < 0.5, "{stats:?}");
    assert!(
        stats.in_density > 0.25 && stats.in_density <= 1.0,
        "{stats:?}"
    );
    // Deleting leaves tombstones, which still occupy their slots.
    with_in.delete_edge(edges[0].src, edges[0].dst).unwrap();
    assert_eq!(with_in.stats().in_density, stats.in_density);
    let stats = without.stats();
    assert_eq!((stats.in_slots, stats.in_density), (0, 0.0), "{stats:?}");
}

/// By default the in-edge array runs denser than the out-edge array (root
/// bound 0.85 against 0.75, both growing by 1.3), so pull kernels stream
/// fewer gaps; a single `PmaOptions` still configures both alike.
#[test]
fn in_edges_are_kept_denser_than_out_edges_by_default() {
    use dyngraph_vcsr::default_out_edge_pma_options;
    let edges = common::read_edges(&common::bundled_sample());
    let store = StoreOptions::default().in_edges(true);
    let mut graph = vcsr(store);
    let options = graph.options().clone();
    assert_eq!(options, VcsrOptions::from(store));
    assert_eq!(options, VcsrOptions::from(store));
    let (out_upper, in_upper) = (
        options.out_edge_array.thresholds.root_upper,
        options.in_edge_array.thresholds.root_upper,
    );
    assert_eq!((out_upper, in_upper), (0.75, 0.85));
    let growth = options.in_edge_array.growth;
    for (inserted, edge) in edges.iter().enumerate() {
        graph.insert_edge(edge.src, edge.dst).unwrap();
        if inserted >= 5_000 && inserted % 1_000 == 0 {
            // Past the first growths, each array's density stays within
            // its own cycle: at most the bound, at least bound / growth.
            let stats = graph.stats();
            let within = |density: f64, upper: f64| {
                density <= upper + 1e-9 && density >= upper / growth - 0.01
            };
            assert!(
                within(stats.out_density, out_upper),
                "{inserted}: {stats:?}"
            );
            assert!(within(stats.in_density, in_upper), "{inserted}: {stats:?}");
        }
    }
    graph.validate().unwrap();
    let stats = graph.stats();
    assert!(stats.in_slots < stats.out_slots, "{stats:?}");

    let same = Vcsr::new(
        VcsrOptions::from(StoreOptions::default().in_edges(true))
            .edge_arrays(default_out_edge_pma_options()),
    )
    .unwrap();
    assert_eq!(same.options().in_edge_array, same.options().out_edge_array);
}

/// An id far past the vertex array grows it (one run per new vertex);
/// the edges already stored are not rebuilt or disturbed.
#[test]
fn an_id_far_beyond_capacity_grows_the_vertex_array() {
    let mut graph = vcsr(StoreOptions::default().in_edges(true));
    for i in 0..500u32 {
        graph.insert_edge(i % 20, (i * 7) % 20).unwrap();
    }
    let before: Vec<Vec<u32>> = (0..20).map(|v| graph.out_neighbors(v).collect()).collect();
    graph.insert_edge(1_000_000, 3).unwrap();
    graph.insert_edge(3, 999_999).unwrap();
    assert_eq!(graph.vertex_count(), 1_000_001);
    for (v, list) in before.iter().enumerate() {
        let mut want = list.clone();
        if v == 3 {
            want.push(999_999);
        }
        assert_eq!(graph.out_neighbors(v as u32).collect::<Vec<_>>(), want);
    }
    assert_eq!(graph.out_neighbors(1_000_000).collect::<Vec<_>>(), [3]);
    let incoming = dyngraph_core::InEdges::in_edges(&graph).unwrap();
    assert_eq!(
        dyngraph_core::InNeighbors::in_neighbors(incoming, 999_999).collect::<Vec<_>>(),
        [3]
    );
    graph.validate().unwrap();
    assert!(graph.bytes_per_edge() > 0.0);
}

/// Parallel kernels need `Sync` stores and views; snapshots move between
/// threads.
#[test]
fn stores_views_and_snapshots_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Vcsr>();
    assert_send_sync::<dyngraph_vcsr::VcsrView<'static>>();
    assert_send_sync::<VcsrSnapshot>();
    assert_send_sync::<dyngraph_vcsr::VcsrInEdges<'static>>();
    assert_send_sync::<dyngraph_vcsr::VcsrWeights<'static>>();
    assert_send_sync::<dyngraph_vcsr::VcsrViewInEdges<'static>>();
    assert_send_sync::<dyngraph_vcsr::VcsrViewWeights<'static>>();
    assert_send_sync::<dyngraph_vcsr::Pcsr>();
    assert_send_sync::<dyngraph_vcsr::Bal>();
    assert_send_sync::<dyngraph_core::cow::CowSnapshot>();
    // A copy-before-write view holds a read lock on its saved lists, so it
    // stays on the thread that made it; kernels only need it `Sync`.
    fn assert_sync<T: Sync>() {}
    assert_sync::<dyngraph_core::cow::CowView<'static, dyngraph_vcsr::Pcsr>>();
    assert_sync::<dyngraph_core::cow::CowView<'static, dyngraph_vcsr::Bal>>();
    // A snapshot taken on one thread is read on another while the graph
    // is not borrowed in between.
    let mut graph = vcsr(StoreOptions::default());
    graph.insert_edge(0, 1).unwrap();
    let snapshot = std::thread::spawn({
        let graph = graph.clone();
        move || (graph.snapshot(), graph)
    })
    .join()
    .unwrap();
    let (snapshot, owner) = snapshot;
    graph.insert_edge(0, 2).unwrap();
    let view = owner.view(&snapshot).unwrap();
    assert_eq!(view.out_neighbors(0).collect::<Vec<_>>(), [1]);
}

/// `repack` drops tombstones and re-lays the arrays at the middle density
/// (fewer slots than after a doubling), keeps order and the counters; with
/// a snapshot alive it only compacts in place and the snapshot holds.
#[test]
fn repack_shrinks_to_the_middle_density_and_respects_snapshots() {
    let edges = common::read_edges(&common::bundled_sample());
    let mut graph = vcsr(StoreOptions::default().in_edges(true));
    let mut model = ReferenceGraph::new(dyngraph_core::Semantics::Multigraph);
    for edge in &edges {
        graph.insert_edge(edge.src, edge.dst).unwrap();
        model.insert_edge(edge.src, edge.dst).unwrap();
    }
    for edge in edges.iter().step_by(4) {
        graph.delete_edge(edge.src, edge.dst).unwrap();
        model.delete_edge(edge.src, edge.dst).unwrap();
    }
    let snapshot = graph.snapshot();
    let frozen = model.clone();
    let before = graph.stats();
    graph.repack().unwrap();
    assert_eq!(
        graph.stats().out_tombstones,
        before.out_tombstones,
        "snapshot alive: nothing dropped"
    );
    assert_view_matches(&graph, &snapshot, &frozen, "snapshot across repack");
    drop(snapshot);
    graph.repack().unwrap();
    let after = graph.stats();
    assert_eq!(after.out_tombstones, 0);
    assert!(
        after.out_slots < before.out_slots,
        "{} vs {}",
        after.out_slots,
        before.out_slots
    );
    assert!(after.out_density > 0.5, "{}", after.out_density);
    assert!(after.out_edges.elements_moved >= before.out_edges.elements_moved);
    assert!(after.out_edges.inserts >= before.out_edges.inserts);
    graph.validate().unwrap();
    compare_with_model(&graph, &model).unwrap();
    common::compare_with_csr("after repack", &graph, &csr_of(&model), true);
    // Inserts keep working on the repacked arrays.
    graph.insert_edge(5, 6).unwrap();
    model.insert_edge(5, 6).unwrap();
    compare_with_model(&graph, &model).unwrap();
}

/// The memory goal, pinned: every stream replayed one edge at a
/// time (after a 10% base batch) stays within twice `Csr`'s bytes per edge
/// (out-edges, unweighted), checked along the way and at the end. Before
/// the pma kept `u32` run bookkeeping and grew by 1.3, sx-mathoverflow
/// ended at 2.9–4.7× and CollegeMsg at 2.05×. A graph with fewer edges
/// than vertices is not held to it: there a vertex costs `Vcsr` about 17
/// bytes (pma start, length and flag, a free slot, the degree) against
/// `Csr`'s 8-byte offset, so the ratio tends to 2.1 as the degree tends to
/// zero. Byte counts are deterministic, so this is a test, not a bench.
#[test]
fn replayed_streams_stay_within_twice_csr_bytes_per_edge() {
    for (name, edges) in common::streams() {
        let base = edges.len() / 10;
        let mut graph = vcsr(StoreOptions::default());
        graph.insert_edges(&edges[..base]).unwrap();
        let mut worst: f64 = 0.0;
        for (i, edge) in edges[base..].iter().enumerate() {
            graph.insert_edge(edge.src, edge.dst).unwrap();
            let stored = base + i + 1;
            // Along the way too: the bound must hold at every point of the
            // growth cycle, not only where the stream happens to end.
            if (i % 997 == 0 || stored == edges.len()) && stored >= graph.vertex_count() {
                let csr = Csr::from_edges(&edges[..stored], CsrOptions::default()).unwrap();
                let ratio = graph.memory_bytes() as f64 / csr.memory_bytes() as f64;
                assert!(
                    ratio <= 2.0,
                    "{name}: Vcsr at {ratio:.2}× Csr's bytes after {stored} edges"
                );
                worst = worst.max(ratio);
            }
        }
        if worst > 0.0 {
            eprintln!("{name}: Vcsr at most {worst:.2}× Csr's bytes");
        } else {
            eprintln!("{name}: never as many edges as vertices, not checked");
        }
    }
}
