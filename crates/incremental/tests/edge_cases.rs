//! Bad input and edge cases: missing capabilities, deletes of edges that
//! are not there, new vertices, snapshots, failed updates, overflowing
//! logs, and options outside their domain.

mod common;

use common::*;
use dyngraph_core::StoreConfig;
use dyngraph_core::{
    Capability, Csr, CsrOptions, Edge, Error, FromEdges, GraphUpdate, Semantics, Snapshots,
    StoreOptions, WeightedEdge,
};
use dyngraph_durable::DurableVcsr;
use dyngraph_incremental::*;
use dyngraph_kernels::PageRankMethod;
use dyngraph_vcsr::Vcsr;

fn ring(n: u32) -> Vec<WeightedEdge> {
    (0..n)
        .map(|v| WeightedEdge::new(v, (v + 1) % n, 1.0 + (v % 3) as f32))
        .collect()
}

fn vcsr(edges: &[WeightedEdge], in_edges: bool) -> Vcsr {
    let options = StoreOptions::default().in_edges(in_edges).weighted(true);
    Vcsr::from_edges(edges, options.into()).expect("vcsr")
}

#[test]
fn frontier_strategies_need_in_edges_and_the_sweeps_push_without() {
    let mut store = vcsr(&ring(30), false);
    for strategy in [
        PageRankStrategy::DynamicTraversal,
        PageRankStrategy::DynamicFrontier,
        PageRankStrategy::DynamicFrontierPruned,
    ] {
        let error = Maintained::<DynamicPageRank>::new(
            &store,
            DynamicPageRankOptions::with_strategy(strategy),
        )
        .unwrap_err();
        assert!(
            matches!(
                error,
                Error::MissingCapability {
                    capability: Capability::InEdges,
                    ..
                }
            ),
            "{strategy:?}: {error}"
        );
    }
    for strategy in [PageRankStrategy::Static, PageRankStrategy::NaiveDynamic] {
        let mut ranks = Maintained::<DynamicPageRank>::new(
            &store,
            DynamicPageRankOptions::with_strategy(strategy),
        )
        .unwrap();
        assert_eq!(ranks.kernel().method(), PageRankMethod::Push);
        let inserted = [Edge::new(3, 17), Edge::new(30, 4)];
        store.insert_edges(&inserted).unwrap();
        ranks.record_batch(&inserted, &[] as &[Edge]);
        ranks.update(&store).unwrap();
        check_pagerank(&store, ranks.kernel(), 1e-9).unwrap();
    }
}

#[test]
fn deletes_without_in_edges_recompute_and_say_why() {
    let mut store = vcsr(&ring(40), false);
    let mut cc =
        Maintained::<DynamicComponents>::new(&store, always_incremental_components()).unwrap();
    let mut bfs = Maintained::<DynamicBfs>::new(
        &store,
        DynamicBfsOptions {
            thresholds: never_fall_back(),
            ..DynamicBfsOptions::from_source(0)
        },
    )
    .unwrap();
    let mut sssp = Maintained::<DynamicSssp>::new(
        &store,
        DynamicSsspOptions {
            thresholds: never_fall_back(),
            ..DynamicSsspOptions::from_source(0)
        },
    )
    .unwrap();
    // An insert needs no in-edges.
    let inserted = [Edge::new(0, 20)];
    store.insert_edges(&inserted).unwrap();
    cc.record_batch(&inserted, &[] as &[Edge]);
    bfs.record_batch(&inserted, &[] as &[Edge]);
    sssp.record_batch(&inserted, &[] as &[Edge]);
    for stats in [
        cc.update(&store).unwrap(),
        bfs.update(&store).unwrap(),
        sssp.update(&store).unwrap(),
    ] {
        assert_eq!(
            (stats.ran, stats.fallback),
            (Ran::Incremental, None),
            "{stats}"
        );
    }
    // Deleting a tree edge (and a ring edge CC must check) does.
    let deleted = [Edge::new(20, 21)];
    store.delete_edges(&deleted).unwrap();
    cc.record_batch(&[] as &[Edge], &deleted);
    bfs.record_batch(&[] as &[Edge], &deleted);
    sssp.record_batch(&[] as &[Edge], &deleted);
    for stats in [
        cc.update(&store).unwrap(),
        bfs.update(&store).unwrap(),
        sssp.update(&store).unwrap(),
    ] {
        assert_eq!(stats.fallback, Some(FallbackReason::NoInEdges), "{stats}");
    }
    check_components(&store, cc.kernel()).unwrap();
    check_bfs(&store, bfs.kernel()).unwrap();
    check_sssp(&store, sssp.kernel()).unwrap();
}

#[test]
fn a_delete_of_an_edge_that_is_not_there_changes_nothing() {
    let mut store = vcsr(&ring(20), true);
    let mut analytics = Analytics::new(
        &store,
        0,
        &[tight_pagerank(PageRankStrategy::DynamicFrontierPruned)],
    );
    let before_depths = analytics.bfs.kernel().depths().to_vec();
    let before_ranks = analytics.pagerank[0].kernel().scores();
    let deleted = [Edge::new(5, 9), Edge::new(19, 19), Edge::new(3, 25)];
    let report = store.delete_edges(&deleted).unwrap();
    assert_eq!(report.edges_removed, 0);
    analytics.record(&[], &deleted);
    for stats in analytics.update(&store) {
        assert!(!stats.fell_back(), "{stats}");
    }
    assert_eq!(analytics.bfs.kernel().depths(), before_depths);
    let after = analytics.pagerank[0].kernel().scores();
    assert!(pagerank_error(&after, &before_ranks).linf < 1e-12);
    analytics.check(&store, 1e-9).unwrap();
}

#[test]
fn new_vertices_grow_every_kernel() {
    let mut store = vcsr(&ring(6), true);
    let mut analytics = Analytics::new(
        &store,
        0,
        &[
            tight_pagerank(PageRankStrategy::DynamicFrontier),
            tight_pagerank(PageRankStrategy::NaiveDynamic),
        ],
    );
    let inserted = [
        WeightedEdge::new(5, 50, 2.0),
        WeightedEdge::new(50, 51, 1.0),
    ];
    store.insert_edges(&inserted).unwrap();
    analytics.record(&inserted, &[]);
    analytics.update(&store);
    assert_eq!(analytics.bfs.kernel().vertex_count(), 52);
    assert_eq!(analytics.bfs.kernel().depth(51), Some(7));
    analytics.check(&store, 1e-9).unwrap();
    // Vertices added without edges: nothing recorded, still grown.
    store.add_vertices(3).unwrap();
    let stats = analytics.update(&store);
    assert!(stats.iter().all(|s| s.vertex_count == 55), "{stats:?}");
    // The ring with 50 and 51, the 44 vertices 6..49 and the 3 new ones.
    assert_eq!(analytics.components.kernel().component_count(), 48);
    analytics.check(&store, 1e-9).unwrap();
}

#[test]
fn results_follow_the_snapshot_they_were_updated_on() {
    let mut store = vcsr(&ring(30), true);
    let mut analytics = Analytics::new(
        &store,
        0,
        &[tight_pagerank(PageRankStrategy::DynamicFrontierPruned)],
    );
    // The writer applies a batch, logs it, takes a snapshot, and goes on.
    let first = (vec![WeightedEdge::new(0, 15, 1.0)], vec![Edge::new(7, 8)]);
    store.insert_edges(&first.0).unwrap();
    store.delete_edges(&first.1).unwrap();
    analytics.record(&first.0, &first.1);
    let snapshot = store.snapshot();
    let mut second = ChangeLog::new();
    let later = [Edge::new(15, 3), Edge::new(29, 8)];
    store.insert_edges(&later).unwrap();
    second.record_batch(&later, &[Edge::new(0, 1)]);
    store.delete_edges(&[Edge::new(0, 1)]).unwrap();

    // The reader updates on the snapshot: results match the snapshot's graph.
    let view = store.view(&snapshot).unwrap();
    analytics.update(&view);
    analytics.check(&view, 1e-9).unwrap();
    assert_eq!(analytics.bfs.kernel().depth(8), None);
    // Then on the store, with the writer's later log.
    analytics.log = second;
    analytics.update(&store);
    analytics.check(&store, 1e-9).unwrap();
    // 0 -> 15 -> ... -> 29 -> 8.
    assert_eq!(analytics.bfs.kernel().depth(8), Some(16));
}

#[test]
fn update_with_refuses_while_the_own_log_holds_changes() {
    let store = vcsr(&ring(10), true);
    let mut bfs = Maintained::<DynamicBfs>::new(&store, DynamicBfsOptions::from_source(0)).unwrap();
    bfs.record_batch(&[Edge::new(1, 2)], &[] as &[Edge]);
    let error = bfs.update_with(&store, &ChangeLog::new()).unwrap_err();
    assert!(error.to_string().contains("record in one place"), "{error}");
}

#[test]
fn a_failed_update_recomputes_the_next_time() {
    let mut store = vcsr(&ring(10), true);
    let mut sssp =
        Maintained::<DynamicSssp>::new(&store, DynamicSsspOptions::from_source(0)).unwrap();
    let bad = [WeightedEdge::new(2, 7, -1.0)];
    store.insert_edges(&bad).unwrap();
    sssp.record_batch(&bad, &[] as &[Edge]);
    let error = sssp.update(&store).unwrap_err();
    assert!(error.to_string().contains("negative"), "{error}");
    let fix = [Edge::new(2, 7)];
    store.delete_edges(&fix).unwrap();
    sssp.record_batch(&[] as &[Edge], &fix);
    let stats = sssp.update(&store).unwrap();
    assert_eq!(stats.fallback, Some(FallbackReason::AfterError));
    check_sssp(&store, sssp.kernel()).unwrap();
}

#[test]
fn an_overflowing_log_recomputes() {
    let mut store = vcsr(&ring(50), true);
    // 5 % of 50 edges: a log of more than three edges overflows.
    let mut bfs = Maintained::<DynamicBfs>::new(&store, DynamicBfsOptions::from_source(0)).unwrap();
    let inserted = [
        Edge::new(0, 30),
        Edge::new(0, 40),
        Edge::new(0, 45),
        Edge::new(3, 9),
    ];
    store.insert_edges(&inserted).unwrap();
    bfs.record_batch(&inserted, &[] as &[Edge]);
    assert!(bfs.pending().overflowed());
    let stats = bfs.update(&store).unwrap();
    assert_eq!(stats.fallback, Some(FallbackReason::LogOverflow));
    assert_eq!((stats.inserted, stats.deleted), (4, 0));
    check_bfs(&store, bfs.kernel()).unwrap();
}

#[test]
fn a_graph_with_fewer_vertices_is_refused() {
    let big = vcsr(&ring(20), true);
    let small = vcsr(&ring(10), true);
    let mut cc = Maintained::<DynamicComponents>::new(&big, Default::default()).unwrap();
    let error = cc.update(&small).unwrap_err();
    assert!(error.to_string().contains("never shrink"), "{error}");
}

#[test]
fn options_outside_their_domain_are_errors() {
    let store = vcsr(&ring(5), true);
    for options in [
        DynamicPageRankOptions {
            damping: 1.5,
            ..Default::default()
        },
        DynamicPageRankOptions {
            tolerance: -1.0,
            ..Default::default()
        },
        DynamicPageRankOptions {
            frontier_tolerance: f64::NAN,
            ..Default::default()
        },
        DynamicPageRankOptions {
            max_iterations: 0,
            ..Default::default()
        },
    ] {
        let error = Maintained::<DynamicPageRank>::new(&store, options).unwrap_err();
        assert!(matches!(error, Error::InvalidArgument(_)), "{error}");
    }
    let error =
        Maintained::<DynamicBfs>::new(&store, DynamicBfsOptions::from_source(9)).unwrap_err();
    assert!(matches!(error, Error::VertexOutOfRange { .. }), "{error}");
    let error = Maintained::<DynamicComponents>::new(
        &store,
        DynamicComponentsOptions {
            search_budget_share: f64::NAN,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(error, Error::InvalidArgument(_)), "{error}");
    assert!("nope".parse::<PageRankStrategy>().is_err());
    assert_eq!(
        "dfp".parse::<PageRankStrategy>().unwrap(),
        PageRankStrategy::default()
    );
}

#[test]
fn a_simple_graph_keeps_the_first_weight_of_a_repeated_insert() {
    let options = StoreOptions::new(Semantics::Simple)
        .in_edges(true)
        .weighted(true);
    let mut store =
        Vcsr::<dyngraph_vcsr::DegreeProportional>::from_edges(&ring(8), options.into()).unwrap();
    let mut sssp = Maintained::<DynamicSssp>::new(
        &store,
        DynamicSsspOptions {
            thresholds: never_fall_back(),
            ..DynamicSsspOptions::from_source(0)
        },
    )
    .unwrap();
    // 3 -> 4 is there with weight 1 + 3 % 3 = 1; a repeated insert with
    // weight 0.5 adds nothing, and an edge inserted then deleted is gone.
    let inserted = [WeightedEdge::new(0, 1, 0.25), WeightedEdge::new(0, 5, 0.5)];
    store.insert_edges(&inserted).unwrap();
    store.delete_edges(&[Edge::new(0, 5)]).unwrap();
    sssp.record_batch(&inserted, &[Edge::new(0, 5)]);
    sssp.update(&store).unwrap();
    assert_eq!(sssp.kernel().distance(1), Some(1.0));
    check_sssp(&store, sssp.kernel()).unwrap();
}

#[test]
fn zero_weight_edges_keep_the_tree_a_tree() {
    let edges = [
        WeightedEdge::new(0, 1, 1.0),
        WeightedEdge::new(1, 2, 0.0),
        WeightedEdge::new(2, 1, 0.0),
        WeightedEdge::new(2, 3, 0.0),
        WeightedEdge::new(0, 3, 1.0),
        WeightedEdge::new(3, 2, 0.0),
    ];
    let mut store = vcsr(&edges, true);
    let mut sssp = Maintained::<DynamicSssp>::new(
        &store,
        DynamicSsspOptions {
            thresholds: never_fall_back(),
            ..DynamicSsspOptions::from_source(0)
        },
    )
    .unwrap();
    check_sssp(&store, sssp.kernel()).unwrap();
    for deleted in [Edge::new(0, 1), Edge::new(0, 3)] {
        store.delete_edges(&[deleted]).unwrap();
        sssp.record_batch(&[] as &[Edge], &[deleted]);
        sssp.update(&store).unwrap();
        check_sssp(&store, sssp.kernel()).unwrap();
    }
    assert_eq!(sssp.kernel().reached(), 1);
}

#[test]
fn the_durable_store_runs_every_kernel_without_in_edges() {
    let edges = ring(40);
    let mut store = DurableVcsr::from_edges(&edges, Default::default()).expect("durable store");
    let mut cc = Maintained::<DynamicComponents>::new(&store, Default::default()).unwrap();
    let mut bfs = Maintained::<DynamicBfs>::new(&store, DynamicBfsOptions::from_source(0)).unwrap();
    let mut pr = Maintained::<DynamicPageRank>::new(
        &store,
        DynamicPageRankOptions::with_strategy(PageRankStrategy::NaiveDynamic),
    )
    .unwrap();
    assert!(Maintained::<DynamicPageRank>::new(&store, DynamicPageRankOptions::default()).is_err());
    let (inserted, deleted) = ([Edge::new(3, 30), Edge::new(41, 2)], [Edge::new(10, 11)]);
    store.insert_edges(&inserted).unwrap();
    store.delete_edges(&deleted).unwrap();
    store.end_batch().unwrap();
    cc.record_batch(&inserted, &deleted);
    bfs.record_batch(&inserted, &deleted);
    pr.record_batch(&inserted, &deleted);
    cc.update(&store).unwrap();
    bfs.update(&store).unwrap();
    pr.update(&store).unwrap();
    check_components(&store, cc.kernel()).unwrap();
    check_bfs(&store, bfs.kernel()).unwrap();
    check_pagerank(&store, pr.kernel(), 1e-9).unwrap();
}

#[test]
fn every_strategy_on_a_frozen_csr() {
    let edges = ring(25);
    let options = CsrOptions::default().in_edges(true);
    let before = Csr::from_edges(&edges, options.clone()).unwrap();
    let mut after_edges = edges.clone();
    after_edges.retain(|e| e.src != 4);
    after_edges.push(WeightedEdge::new(4, 12, 1.0));
    let after = Csr::from_edges(&after_edges, options).unwrap();
    let mut log = ChangeLog::new();
    log.record_batch(&[Edge::new(4, 12)], &[Edge::new(4, 5)]);
    for strategy in PageRankStrategy::ALL {
        let mut ranks =
            Maintained::<DynamicPageRank>::new(&before, tight_pagerank(strategy)).unwrap();
        let stats = ranks.update_with(&after, &log).unwrap();
        assert!(stats.vertices_processed > 0, "{strategy:?}: {stats}");
        check_pagerank(&after, ranks.kernel(), 1e-9).unwrap();
    }
}
