//! Concurrent updates through `ConcurrentWriter`: streams from 2 and 8
//! threads (disjoint and overlapping edge sets) must end equal to the
//! reference model, one segment hammered by many threads loses nothing,
//! and snapshots taken before the writer keep their graph.

mod common;

use common::{all_options, check_invariants};
use dyngraph_core::StoreConfig;
use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
use dyngraph_core::{
    Edge, FromEdges, Graph, GraphUpdate, OutNeighbors, Semantics, Snapshots, VertexId, Weight,
};
use dyngraph_csrpp::{AllocatorKind, ConcurrentWriter, CsrPP, CsrPPOptions};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

#[test]
fn the_store_and_its_writer_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CsrPP>();
    assert_send_sync::<ConcurrentWriter<'static>>();
}

/// Per-thread edge streams: `disjoint` gives each thread its own sources;
/// otherwise all threads draw from the same small pool of edges, so many
/// inserts collide on the same vertex and the same edge.
fn streams(threads: usize, per_thread: usize, disjoint: bool, seed: u64) -> Vec<Vec<Edge>> {
    (0..threads)
        .map(|t| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ (t as u64 * 7919));
            (0..per_thread)
                .map(|_| {
                    let dst = rng.random_range(0..300);
                    if disjoint {
                        let src = t as VertexId + threads as VertexId * rng.random_range(0..40);
                        Edge::new(src, dst)
                    } else {
                        Edge::new(rng.random_range(0..40), dst % 40)
                    }
                })
                .collect()
        })
        .collect()
}

fn run_threads(writer: &ConcurrentWriter<'_>, streams: &[Vec<Edge>], delete: bool) {
    std::thread::scope(|scope| {
        for stream in streams {
            scope.spawn(move || {
                for edge in stream {
                    if delete {
                        writer.delete_edge(edge.src, edge.dst).unwrap();
                    } else {
                        writer.insert_edge(edge.src, edge.dst).unwrap();
                    }
                }
            });
        }
    });
}

/// Inserts from `threads` threads at once, then deletes the first half of
/// each thread's stream from `threads` threads at once, checking the store
/// against the model after each phase. Under set semantics the deletes of
/// overlapping streams may target the same edge; the end state is still
/// determined (every edge named by a delete is gone).
fn concurrent_matches_model(options: CsrPPOptions, threads: usize, disjoint: bool) {
    let streams = streams(
        threads,
        1500,
        disjoint,
        threads as u64 + u64::from(disjoint),
    );
    let mut graph = CsrPP::new(options.clone()).unwrap();
    let mut model = ReferenceGraph::new(options.store.semantics);
    run_threads(&graph.concurrent_writer(), &streams, false);
    for edge in streams.iter().flatten() {
        model.insert_edge(edge.src, edge.dst).unwrap();
    }
    compare_with_model(&graph, &model).unwrap_or_else(|e| panic!("{options:?} inserts: {e}"));
    check_invariants(&graph).unwrap();

    let deletes: Vec<Vec<Edge>> = streams.iter().map(|s| s[..s.len() / 2].to_vec()).collect();
    run_threads(&graph.concurrent_writer(), &deletes, true);
    for edge in deletes.iter().flatten() {
        model.delete_edge(edge.src, edge.dst).unwrap();
    }
    compare_with_model(&graph, &model).unwrap_or_else(|e| panic!("{options:?} deletes: {e}"));
    check_invariants(&graph).unwrap();
}

#[test]
fn two_and_eight_threads_disjoint_and_overlapping_match_the_model() {
    // Unweighted configurations (the writer's weights are exercised in the
    // serial model tests): both semantics, in-edges on and off, both
    // delete modes and allocators, small and default segments.
    for options in all_options(&[2, 128]) {
        if options.store.weighted {
            continue;
        }
        for threads in [2, 8] {
            for disjoint in [true, false] {
                concurrent_matches_model(options.clone(), threads, disjoint);
            }
        }
    }
}

/// Every thread inserts and deletes edges among the vertices of one
/// segment (with in-edges, so each update also takes the in-list
/// lock), interleaved. Multigraph counts make lost updates visible: each
/// thread inserts `ROUNDS` copies of its edges and deletes all but one.
#[test]
fn one_segment_hammered_by_many_threads_loses_no_update() {
    const THREADS: u32 = 8;
    const ROUNDS: u32 = 300;
    for allocator in [AllocatorKind::System, AllocatorKind::Arena] {
        let options = CsrPPOptions::default()
            .segment_size(128)
            .in_edges(true)
            .allocator(allocator);
        let mut graph = CsrPP::new(options).unwrap();
        {
            let writer = graph.concurrent_writer();
            std::thread::scope(|scope| {
                for t in 0..THREADS {
                    let writer = &writer;
                    scope.spawn(move || {
                        for round in 0..ROUNDS {
                            // Shared sources 0..4, targets spread over the
                            // segment: every thread contends on the same
                            // four arrays and the same lock.
                            for k in 0..8 {
                                writer.insert_edge(k % 4, t * 8 + k).unwrap();
                            }
                            if round > 0 {
                                for k in 0..8 {
                                    assert!(writer.delete_edge(k % 4, t * 8 + k).unwrap());
                                }
                            }
                        }
                    });
                }
            });
        }
        assert_eq!(graph.edge_count(), u64::from(THREADS * 8));
        for src in 0..4 {
            let mut want: Vec<VertexId> = (0..THREADS)
                .flat_map(|t| (0..8).filter(move |k| k % 4 == src).map(move |k| t * 8 + k))
                .collect();
            want.sort_unstable();
            assert_eq!(graph.out_neighbors(src).collect::<Vec<_>>(), want);
        }
        check_invariants(&graph).unwrap();
    }
}

/// Threads that insert edges between two segments in both directions take
/// the two segment locks in opposite orders unless the writer orders them;
/// this would deadlock (and hang the test) without the ordering.
#[test]
fn cross_segment_updates_with_in_edges_do_not_deadlock() {
    let options = CsrPPOptions::default()
        .segment_size(2)
        .in_edges(true)
        .semantics(Semantics::Simple);
    let mut graph = CsrPP::new(options).unwrap();
    {
        let writer = graph.concurrent_writer();
        std::thread::scope(|scope| {
            for t in 0..8u32 {
                let writer = &writer;
                scope.spawn(move || {
                    for i in 0..4000u32 {
                        let (a, b) = (i % 4, 4 + (i / 4 + t) % 4);
                        if t % 2 == 0 {
                            writer.insert_edge(a, b).unwrap();
                        } else {
                            writer.insert_edge(b, a).unwrap();
                        }
                        if i % 3 == 0 {
                            writer.delete_edge(b, a).unwrap();
                        }
                    }
                });
            }
        });
    }
    check_invariants(&graph).unwrap();
}

#[test]
fn the_writer_grows_the_graph_and_publishes_counts_on_drop() {
    let mut graph = CsrPP::new(CsrPPOptions::default().segment_size(4)).unwrap();
    {
        let writer = graph.concurrent_writer();
        std::thread::scope(|scope| {
            for t in 0..4u32 {
                let writer = &writer;
                scope.spawn(move || {
                    for i in 0..500 {
                        writer.insert_edge(t * 1000 + i, i).unwrap();
                    }
                });
            }
        });
    }
    assert_eq!(graph.vertex_count(), 3500);
    assert_eq!(graph.edge_count(), 2000);
    check_invariants(&graph).unwrap();
}

#[test]
fn deleted_vertices_are_revived_by_concurrent_inserts() {
    let mut graph = CsrPP::from_edges(
        &[Edge::new(0, 1), Edge::new(2, 1), Edge::new(1, 3)],
        CsrPPOptions::default(),
    )
    .unwrap();
    assert_eq!(graph.delete_vertex(1).unwrap(), 3);
    assert!(graph.is_vertex_deleted(1));
    assert_eq!(graph.deleted_vertex_count(), 1);
    {
        let writer = graph.concurrent_writer();
        writer.insert_edge(3, 1).unwrap();
    }
    assert!(!graph.is_vertex_deleted(1));
    assert_eq!(graph.deleted_vertex_count(), 0);
    check_invariants(&graph).unwrap();
}

/// The weight every copy of `src -> dst` gets in the snapshot test: the
/// same for all copies, so the end state does not depend on which thread
/// inserted first.
fn weight_of(edge: Edge) -> Weight {
    (edge.src * 31 + edge.dst) as Weight
}

/// Eight threads insert, then delete, overlapping edge sets through a
/// `ConcurrentWriter` while snapshots taken before each phase are alive:
/// afterwards every view equals the graph at its snapshot's moment —
/// out-lists, in-lists and weights — and the store equals the model.
/// Every configuration (weights, in-edges, both semantics, both delete
/// modes and allocators), in segments of 2 vertices (many segments, so
/// the in-list's save happens under another lock than the out-list's) and
/// of 128.
#[test]
fn concurrent_writers_leave_live_snapshots_as_they_were() {
    for options in all_options(&[2, 128]) {
        let streams = streams(8, 600, false, 99);
        let base: Vec<Edge> = streams.iter().map(|s| s[0]).collect();
        let mut graph = CsrPP::from_edges(&base, options.clone()).unwrap();
        let mut model = ReferenceGraph::new(options.store.semantics);
        model.insert_edges(&base).unwrap();

        let at_first = model.clone();
        let first = graph.snapshot();
        {
            let writer = graph.concurrent_writer();
            std::thread::scope(|scope| {
                for stream in &streams {
                    let writer = &writer;
                    scope.spawn(move || {
                        for &edge in stream {
                            writer
                                .insert_weighted_edge(edge.src, edge.dst, weight_of(edge))
                                .unwrap();
                        }
                    });
                }
            });
        }
        for &edge in streams.iter().flatten() {
            model
                .insert_weighted_edge(edge.src, edge.dst, weight_of(edge))
                .unwrap();
        }
        compare_with_model(&graph, &model).unwrap_or_else(|e| panic!("{options:?}: {e}"));
        compare_with_model(&graph.view(&first).unwrap(), &at_first)
            .unwrap_or_else(|e| panic!("{options:?} first snapshot after inserts: {e}"));

        let at_second = model.clone();
        let second = graph.snapshot();
        let deletes: Vec<Vec<Edge>> = streams.iter().map(|s| s[..s.len() / 2].to_vec()).collect();
        run_threads(&graph.concurrent_writer(), &deletes, true);
        for edge in deletes.iter().flatten() {
            model.delete_edge(edge.src, edge.dst).unwrap();
        }
        compare_with_model(&graph, &model).unwrap_or_else(|e| panic!("{options:?}: {e}"));
        compare_with_model(&graph.view(&first).unwrap(), &at_first)
            .unwrap_or_else(|e| panic!("{options:?} first snapshot after deletes: {e}"));
        compare_with_model(&graph.view(&second).unwrap(), &at_second)
            .unwrap_or_else(|e| panic!("{options:?} second snapshot after deletes: {e}"));
        check_invariants(&graph).unwrap();
        // Dropping the snapshots ends the saving.
        drop((first, second));
        assert_eq!(graph.live_snapshots(), 0);
    }
}
