//! Distributed replays in threads of this process against the
//! single-machine engine and kernels on the same stream: counts, windows,
//! semantics, in-edge copies, and kernel results.

mod common;

use common::*;
use dyngraph_core::CsrRebuild;
use dyngraph_core::{Error, Semantics, StoreOptions};
use dyngraph_dist::{Cluster, DistInput, DistOptions, DistReport, Partitioner, replay};
use dyngraph_kernels::KernelName;
use dyngraph_loader::{Format, Generator, LoadOptions, write_edges};
use dyngraph_replay::{ReplayOptions, Window};

const ALL: [KernelName; 4] = [
    KernelName::PageRank,
    KernelName::Bfs,
    KernelName::Afforest,
    KernelName::ReverseWalks,
];

fn options(replay: ReplayOptions, kernels: &[KernelName], source: u32) -> DistOptions {
    DistOptions {
        store: StoreOptions::new(replay.semantics).weighted(true),
        replay,
        kernels: kernels.to_vec(),
        source: Some(source),
        verify: true,
        ..DistOptions::default()
    }
}

fn run(workers: usize, path: &std::path::Path, options: DistOptions) -> DistReport {
    replay::<CsrRebuild>(
        &Cluster::threads(workers),
        DistInput::File(path.into()),
        options,
    )
    .expect("distributed replay")
    .expect("worker 0 is here")
}

/// Runs the distributed replay with `workers` and compares it with the
/// single machine.
fn compare(path: &std::path::Path, workers: usize, dist: DistOptions, what: &str) -> DistReport {
    let stream = stream_of(path, &LoadOptions::default());
    let single = single_machine(
        &stream,
        &dist.replay,
        dist.store,
        &dist.kernels,
        dist.source.unwrap(),
    );
    let report = run(workers, path, dist);
    assert!(
        report.verify_failures.is_empty(),
        "{what}: {:?}",
        report.verify_failures
    );
    assert_same_counts(&report.summary, &single.summary, what);
    assert_same_outputs(&report.outputs, &single, what);
    assert_eq!(report.workers.len(), workers);
    let owned: u64 = report.workers.iter().map(|w| w.edges_owned).sum();
    assert_eq!(owned, report.summary.edges, "{what}: edges owned add up");
    report
}

#[test]
fn college_msg_multigraph_with_an_edge_window_equals_one_machine() {
    let replay = ReplayOptions {
        batch: 4000,
        window: Some(Window::Edges(15_000)),
        ..ReplayOptions::default()
    };
    for workers in [1, 3] {
        let report = compare(
            &college_msg(),
            workers,
            options(replay.clone(), &ALL, 1),
            &format!("CollegeMsg, {workers} workers"),
        );
        assert_eq!(report.summary.edges, 15_000);
        for kernel in report.summary.kernels.values() {
            assert_eq!(kernel.verified, Some(true));
        }
    }
}

#[test]
fn college_msg_simple_graph_with_a_time_window_equals_one_machine() {
    // A week of messages, set semantics: repeats insert nothing and their
    // expiry deletes nothing.
    let replay = ReplayOptions {
        batch: 3000,
        base_percent: 25.0,
        window: Some(Window::Time(7 * 86_400)),
        semantics: Semantics::Simple,
        ..ReplayOptions::default()
    };
    let mut dist = options(replay, &[KernelName::Afforest, KernelName::Bfs], 1);
    dist.partitioner = Partitioner::Modulo;
    dist.every = Some(5);
    let report = compare(&college_msg(), 2, dist, "CollegeMsg simple, time window");
    assert!(report.summary.edges_deleted > 0);
    // 15 batches: checkpoints after batches 4, 9 and 14, two kernels each.
    assert_eq!(report.summary.kernel_timeline.len(), 6);
}

#[test]
fn email_eu_core_time_window_stops_where_timestamps_go_back() {
    // Four places where time goes backwards: the window expires in arrival
    // order and stops at the first arrival still inside, across workers.
    let Some(path) = shared_data("email-Eu-core-temporal-part.txt") else {
        return;
    };
    let replay = ReplayOptions {
        batch: 5000,
        window: Some(Window::Time(200_000)),
        ..ReplayOptions::default()
    };
    let report = compare(
        &path,
        3,
        options(replay, &[KernelName::Afforest], 0),
        "email-Eu-core",
    );
    assert!(report.summary.edges_deleted > 10_000);
}

#[test]
fn in_edge_copies_live_at_destination_owners() {
    let replay = ReplayOptions {
        batch: 10_000,
        window: Some(Window::Edges(30_000)),
        ..ReplayOptions::default()
    };
    let mut dist = options(replay, &[KernelName::PageRank], 1);
    dist.store = dist.store.in_edges(true);
    let report = compare(&college_msg(), 3, dist, "in-edges");
    let copies: u64 = report.workers.iter().map(|w| w.in_edges_owned).sum();
    assert_eq!(copies, report.summary.edges, "one reversed copy per edge");
}

#[test]
fn weighted_wel_stream_keeps_weights_and_counts() {
    let Some(path) = shared_data("sx-mathoverflow/b30/base.wel") else {
        return;
    };
    let replay = ReplayOptions {
        batch: 20_000,
        ..ReplayOptions::default()
    };
    let report = compare(
        &path,
        2,
        options(replay, &[KernelName::Afforest], 1),
        "sx-mathoverflow",
    );
    assert!(report.summary.weighted);
    assert_eq!(report.summary.edges, 112_792);
}

#[test]
fn kronecker_graph_equals_one_machine() {
    let generator = Generator::kronecker(11, 16).seed(7);
    let path = std::env::temp_dir().join(format!("dyngraph-dist-kron-{}.el", std::process::id()));
    write_edges(&path, &generator.generate().unwrap(), Format::EdgeList).unwrap();
    let replay_options = ReplayOptions {
        batch: 8000,
        base_percent: 50.0,
        ..ReplayOptions::default()
    };
    let source = 0;
    compare(
        &path,
        3,
        options(replay_options, &ALL, source),
        "Kronecker scale 11",
    );
    // The same graph drawn in every process instead of read from a file.
    let stream = stream_of(&path, &LoadOptions::default());
    let single = single_machine(
        &stream,
        &ReplayOptions {
            batch: 8000,
            base_percent: 50.0,
            ..ReplayOptions::default()
        },
        StoreOptions::default(),
        &[KernelName::Afforest],
        source,
    );
    let report = replay::<CsrRebuild>(
        &Cluster::threads(2),
        DistInput::Generated(generator),
        DistOptions {
            replay: ReplayOptions {
                batch: 8000,
                base_percent: 50.0,
                ..ReplayOptions::default()
            },
            kernels: vec![KernelName::Afforest],
            gather: true,
            ..DistOptions::default()
        },
    )
    .unwrap()
    .unwrap();
    assert_same_counts(&report.summary, &single.summary, "generated Kronecker");
    assert_same_outputs(&report.outputs, &single, "generated Kronecker");
    std::fs::remove_file(&path).ok();
}

#[test]
fn a_bad_line_fails_every_worker_with_the_files_line_number() {
    let path = std::env::temp_dir().join(format!("dyngraph-dist-bad-{}.el", std::process::id()));
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!("{i} {}\n", i + 1));
    }
    text.push_str("7 x\n");
    for i in 0..50 {
        text.push_str(&format!("{i} {}\n", i + 2));
    }
    std::fs::write(&path, text).unwrap();
    let error = replay::<CsrRebuild>(
        &Cluster::threads(3),
        DistInput::File(path.clone()),
        DistOptions::default(),
    )
    .unwrap_err();
    match &error {
        Error::Parse { location, .. } => assert_eq!(location.line, 201, "{error}"),
        other => panic!("expected a parse error, got {other}"),
    }
    std::fs::remove_file(&path).ok();
}

#[test]
fn kernels_without_a_distributed_version_are_refused() {
    let mut dist = options(ReplayOptions::default(), &[KernelName::Triangles], 0);
    dist.verify = false;
    let error = replay::<CsrRebuild>(&Cluster::threads(2), DistInput::File(college_msg()), dist)
        .unwrap_err();
    assert!(
        error.to_string().contains("no distributed version"),
        "{error}"
    );
}

#[test]
fn traffic_is_counted_and_pagerank_exchanges_one_value_per_ghost() {
    let replay = ReplayOptions {
        batch: 60_000,
        base_percent: 100.0,
        ..ReplayOptions::default()
    };
    let mut dist = options(replay, &[KernelName::PageRank], 1);
    dist.verify = false;
    let report = run(2, &college_msg(), dist);
    let per_step = report.bytes_per_edge_per_superstep("pr").unwrap();
    assert_eq!(per_step.len(), 20);
    // Every iteration sends the same dense vectors.
    assert!(per_step.windows(2).all(|w| w[0] == w[1]));
    // At most one 4-byte value per edge (ghosts are at most the cut edges).
    assert!(per_step[0] > 0.0 && per_step[0] < 4.0, "{per_step:?}");
    // In one process nothing crosses processes.
    assert!(
        report
            .workers
            .iter()
            .all(|w| w.replay_traffic.remote_bytes == 0)
    );
    assert!(report.workers.iter().all(|w| w.replay_traffic.bytes > 0));
}

#[test]
fn workers_with_no_lines_still_take_part_in_a_time_window() {
    // Eight workers, five lines (one a comment): most ranges are empty or
    // comment-only, and every worker must still join the window's
    // collectives.
    let path = std::env::temp_dir().join(format!("dyngraph-dist-tiny-{}.txt", std::process::id()));
    std::fs::write(&path, "# src dst t\n1 2 10\n2 3 20\n3 1 30\n4 1 45\n").unwrap();
    let replay = ReplayOptions {
        batch: 1,
        base_percent: 0.0,
        window: Some(Window::Time(15)),
        ..ReplayOptions::default()
    };
    let mut dist = options(replay, &[KernelName::Afforest], 1);
    dist.stall_timeout = std::time::Duration::from_secs(20);
    let report = compare(&path, 8, dist, "tiny file, 8 workers");
    // At 30 the arrival at 10 leaves; at 45 the one at 20 (30 is exactly 15
    // behind: still inside).
    assert_eq!(report.summary.edges_deleted, 2);
    assert_eq!(report.summary.edges, 2);
    std::fs::remove_file(&path).ok();
}

/// The base's reversed copies were never tracked under simple semantics
/// with a window (the in store was created after the base's bookkeeping),
/// so their expiry deleted nothing and the in store kept edges the out
/// store had dropped: a bottom-up BFS step then found parents along edges
/// that no longer exist.
#[test]
fn reversed_copies_of_base_edges_leave_with_their_window_under_simple_semantics() {
    let replay = ReplayOptions {
        batch: 5_000,
        base_percent: 30.0,
        window: Some(Window::Edges(12_000)),
        semantics: Semantics::Simple,
        ..ReplayOptions::default()
    };
    let mut dist = options(replay, &[KernelName::Bfs], 1);
    dist.store = dist.store.in_edges(true);
    let report = compare(&college_msg(), 3, dist, "simple, window, in-edges");
    assert!(report.summary.edges_deleted > 0);
    let copies: u64 = report.workers.iter().map(|w| w.in_edges_owned).sum();
    assert_eq!(copies, report.summary.edges, "one reversed copy per edge");
}

/// With in-edges the BFS takes bottom-up steps (GAPBS's switching rule on
/// the cluster's sums) and its depths stay exact; PageRank pulls and the
/// components skip the largest part's remaining edges, with the same
/// results as without.
#[test]
fn kernels_with_in_edges_equal_one_machine_and_bfs_goes_bottom_up() {
    let path = std::env::temp_dir().join(format!("dyngraph-dist-dobfs-{}.el", std::process::id()));
    let stream = Generator::kronecker(12, 16).seed(5).generate().unwrap();
    write_edges(&path, &stream, Format::EdgeList).unwrap();
    let source = stream.src()[0];
    let replay_options = ReplayOptions {
        base_percent: 100.0,
        ..ReplayOptions::default()
    };
    for in_edges in [true, false] {
        let mut dist = options(replay_options.clone(), &[KernelName::Bfs], source);
        dist.store = dist.store.in_edges(in_edges);
        let report = compare(
            &path,
            3,
            dist,
            &format!("Kronecker 12, in-edges {in_edges}"),
        );
        let dyngraph_kernels::KernelOutput::Bfs(bfs) = &report.outputs["bfs"] else {
            unreachable!()
        };
        if in_edges {
            assert_eq!(
                bfs.strategy,
                dyngraph_kernels::BfsStrategy::DirectionOptimizing
            );
            assert!(bfs.bottom_up_steps > 0, "{bfs:?}");
            assert!(bfs.top_down_steps > 0);
        } else {
            assert_eq!(
                bfs.strategy,
                dyngraph_kernels::BfsStrategy::TopDownNoInEdges
            );
            assert_eq!(bfs.bottom_up_steps, 0);
        }
    }
    std::fs::remove_file(&path).ok();
}

/// Components converge in O(log n) rounds where min-label propagation
/// needs one per hop between partitions: on a path of 20,000 vertices in
/// random id order over three workers, hash-partitioned (two thirds of its
/// edges cut), propagation would take thousands of rounds.
#[test]
fn components_converge_in_logarithmic_rounds_on_a_long_path() {
    let n: u32 = 20_000;
    // A permutation of the ids (multiplication by an odd constant mod 2^k,
    // restricted to 0..n by cycle walking).
    let mut order: Vec<u32> = Vec::with_capacity(n as usize);
    let mut x = 12345u32;
    let mut seen = vec![false; n as usize];
    while order.len() < n as usize {
        x = x.wrapping_mul(2_654_435_761).wrapping_add(1) & ((1 << 15) - 1);
        if x < n && !seen[x as usize] {
            seen[x as usize] = true;
            order.push(x);
        }
    }
    let text: String = order
        .windows(2)
        .map(|w| format!("{} {}\n", w[0], w[1]))
        .collect();
    let path = std::env::temp_dir().join(format!("dyngraph-dist-path-{}.el", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let replay_options = ReplayOptions {
        base_percent: 100.0,
        ..ReplayOptions::default()
    };
    // Without in-edges every edge is joined locally first; with them,
    // Afforest's sampling phase, then the rest outside the largest part.
    for in_edges in [false, true] {
        let mut dist = options(replay_options.clone(), &[KernelName::Afforest], order[0]);
        dist.store = dist.store.in_edges(in_edges);
        let report = compare(&path, 3, dist, &format!("a long path, in-edges {in_edges}"));
        let dyngraph_kernels::KernelOutput::Components(cc) = &report.outputs["cc"] else {
            unreachable!()
        };
        assert!(
            cc.labels.iter().all(|&l| l == 0),
            "one component, labelled 0"
        );
        let rounds = report.workers[0]
            .kernels
            .iter()
            .find(|k| k.kernel == "cc")
            .unwrap()
            .iterations;
        let bound = 2 * (32 - n.leading_zeros()) as usize + 2;
        assert!(rounds <= bound, "{rounds} rounds, more than {bound}");
    }
    std::fs::remove_file(&path).ok();
}

/// The id maps a worker picks from its base (the ids themselves when it
/// sees half the id range or more, a dense array of ranks, a table) give
/// the single machine's results, with ids first seen in later batches (and
/// holes in the identity mapping) and in-edges.
#[test]
fn every_id_map_gives_the_single_machines_results() {
    let path = std::env::temp_dir().join(format!("dyngraph-dist-ids-{}.el", std::process::id()));
    let stream = Generator::kronecker(14, 8).seed(11).generate().unwrap();
    write_edges(&path, &stream, Format::EdgeList).unwrap();
    let source = stream.src()[0];
    let replay_options = ReplayOptions {
        batch: 20_000,
        base_percent: 40.0,
        window: Some(Window::Edges(90_000)),
        ..ReplayOptions::default()
    };
    for workers in [1, 2, 7] {
        let mut dist = options(replay_options.clone(), &ALL, source);
        dist.store = dist.store.in_edges(true);
        compare(
            &path,
            workers,
            dist,
            &format!("Kronecker 14, {workers} workers"),
        );
    }
    std::fs::remove_file(&path).ok();
}

/// A base sent in many rounds (here 1,000 arrivals per worker each) builds
/// the same partitions: the owners put the rounds' shipments back in
/// arrival order.
#[test]
fn a_base_sent_in_rounds_equals_one_machine() {
    for semantics in [Semantics::Multigraph, Semantics::Simple] {
        let replay = ReplayOptions {
            batch: 6_000,
            base_percent: 50.0,
            window: Some(Window::Edges(25_000)),
            semantics,
            ..ReplayOptions::default()
        };
        let mut dist = options(replay, &ALL, 1);
        dist.store = dist.store.in_edges(true);
        dist.base_round = 1_000;
        compare(
            &college_msg(),
            3,
            dist,
            &format!("base in rounds, {semantics:?}"),
        );
    }
}
