//! The replay engine over the rebuild baseline (every store's own replay
//! runs in the CLI's tests): counts, windows, semantics, groups and
//! checkpoints.

use dyngraph_core::testing::{check_contract, ops, weighted_edges};
use dyngraph_core::{CsrRebuild, Semantics, StoreOptions};
use dyngraph_kernels::KernelName;
use dyngraph_loader::EdgeStream;
use dyngraph_replay::{KernelCheckpoints, NoObserver, ReplayOptions, StoreSummary, Window, replay};
use proptest::prelude::*;
use std::sync::atomic::AtomicBool;

fn run(stream: &EdgeStream, options: ReplayOptions) -> StoreSummary {
    let store = StoreOptions::new(options.semantics);
    replay::<CsrRebuild>(
        store,
        stream,
        &options,
        &AtomicBool::new(false),
        &mut NoObserver,
    )
    .unwrap()
    .0
}

fn options(batch: usize, window: Option<Window>, semantics: Semantics) -> ReplayOptions {
    ReplayOptions {
        base_percent: 20.0,
        batch,
        window,
        semantics,
        ..ReplayOptions::default()
    }
}

/// 10 arrivals of 3 distinct edges, one per time unit.
fn stream() -> EdgeStream {
    let pairs = [
        (0, 1),
        (1, 2),
        (0, 1),
        (2, 0),
        (0, 1),
        (1, 2),
        (1, 2),
        (0, 1),
        (2, 0),
        (0, 1),
    ];
    EdgeStream::from_pairs(pairs)
        .with_timestamps((0..10).collect::<Vec<_>>())
        .unwrap()
}

#[test]
fn multigraph_replay_inserts_every_arrival() {
    let summary = run(&stream(), options(3, None, Semantics::Multigraph));
    assert_eq!(summary.base_edges, 2);
    assert_eq!(summary.edges_inserted, 10);
    assert_eq!(summary.edges, 10);
    assert_eq!(summary.batch_count, 3, "8 timed arrivals in batches of 3");
}

#[test]
fn simple_replay_counts_distinct_edges() {
    let summary = run(&stream(), options(1, None, Semantics::Simple));
    assert_eq!(summary.edges_inserted, 3);
    assert_eq!(summary.edges, 3);
}

#[test]
fn edge_window_keeps_the_newest_arrivals() {
    let summary = run(
        &stream(),
        options(1, Some(Window::Edges(4)), Semantics::Multigraph),
    );
    assert_eq!(summary.edges, 4);
    assert_eq!(summary.edges_deleted, 6);
    assert_eq!(
        summary.edges_inserted - summary.edges_deleted,
        summary.edges
    );
}

#[test]
fn time_window_deletes_what_is_older_than_the_span() {
    // After the last arrival (t = 9) with span 2, arrivals t = 7..=9 stay.
    let summary = run(
        &stream(),
        options(1, Some(Window::Time(2)), Semantics::Multigraph),
    );
    assert_eq!(summary.edges, 3);
    assert_eq!(summary.edges_deleted, 7);
}

#[test]
fn simple_window_expires_only_arrivals_that_inserted() {
    // Keeping 4 arrivals: an arrival that repeated a present edge inserted
    // nothing, so its expiry deletes nothing; an arrival that inserted an
    // edge deletes it when it leaves. Worked by hand: inserted are the
    // base (0,1), (1,2) and arrivals 3 (2,0), 6 (1,2), 7 (0,1), 8 (2,0);
    // deleted are (0,1), (1,2), (2,0) when arrivals 0, 1 and 3 leave.
    let summary = run(
        &stream(),
        options(1, Some(Window::Edges(4)), Semantics::Simple),
    );
    assert_eq!(
        (summary.edges_inserted, summary.edges_deleted, summary.edges),
        (6, 3, 3)
    );
}

#[test]
fn small_batches_are_timed_in_groups_and_sampled() {
    let stream = EdgeStream::from_pairs((0..5000u32).map(|i| (i % 50, (i * 7) % 50)));
    let options = ReplayOptions {
        base_percent: 0.0,
        batch: 1,
        timed_group: 1000,
        ..ReplayOptions::default()
    };
    let summary = run(&stream, options);
    assert_eq!(summary.batch_count, 5000);
    assert_eq!(
        summary.records.len(),
        5,
        "one record per 1000-arrival group"
    );
    assert!(summary.records.iter().all(|r| r.batches == 1000));
    assert_eq!(
        summary.latency_ms.samples, 5,
        "the first batch of each group"
    );
    assert_eq!(summary.edges, 5000);
}

#[test]
fn groups_end_at_every_kernel_checkpoint() {
    let stream = EdgeStream::from_pairs((0..1000u32).map(|i| (i % 40, (i + 3) % 40)));
    let options = ReplayOptions {
        base_percent: 0.0,
        batch: 1,
        timed_group: 1000,
        ..ReplayOptions::default()
    };
    let store = StoreOptions::new(Semantics::Multigraph).in_edges(true);
    let mut checkpoints = KernelCheckpoints::new(vec![KernelName::Bfs], Some(300), true, 0);
    let (summary, _) = replay::<CsrRebuild>(
        store,
        &stream,
        &options,
        &AtomicBool::new(false),
        &mut checkpoints,
    )
    .unwrap();
    let checkpoint_batches: Vec<usize> = checkpoints.timeline.iter().map(|p| p.batch).collect();
    assert_eq!(checkpoint_batches, [299, 599, 899, 999]);
    assert_eq!(
        summary
            .records
            .iter()
            .map(|r| r.batches)
            .collect::<Vec<_>>(),
        [300, 300, 300, 100]
    );
    assert!(checkpoints.failures.is_empty());
}

#[test]
fn an_interrupted_replay_stops_between_groups() {
    let stream = EdgeStream::from_pairs((0..100u32).map(|i| (i, i + 1)));
    let store = StoreOptions::default();
    let (summary, _) = replay::<CsrRebuild>(
        store,
        &stream,
        &ReplayOptions::default(),
        &AtomicBool::new(true),
        &mut NoObserver,
    )
    .unwrap();
    assert!(summary.interrupted);
    assert_eq!(summary.batch_count, 0);
    assert_eq!(summary.edges, 10, "the base only");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// The rebuild baseline answers the store contract (its reads reflect
    /// updates once the batch is ended, which the check does after every
    /// step).
    #[test]
    fn rebuild_baseline_answers_the_contract(
        base in weighted_edges(12, 0..30),
        steps in ops(14, 0..40),
        simple in any::<bool>(),
        in_edges in any::<bool>(),
        weighted in any::<bool>(),
    ) {
        let semantics = if simple { Semantics::Simple } else { Semantics::Multigraph };
        let options = StoreOptions::new(semantics).in_edges(in_edges).weighted(weighted);
        check_contract::<CsrRebuild>(options, &base, &steps).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn pagerank_names_its_top_vertices_by_their_original_ids() {
    // A star into "hub" from string-named leaves, loaded with string ids.
    let text: String = (0..50)
        .map(|i| format!("leaf{i} hub\nhub leaf{i}\n"))
        .collect();
    let stream = dyngraph_loader::parse_edge_stream(
        text.as_bytes(),
        &dyngraph_loader::LoadOptions::default(),
    )
    .unwrap();
    let ids = stream.shared_ids().cloned().expect("string ids relabelled");
    let store = StoreOptions::new(Semantics::Multigraph).in_edges(true);
    let mut checkpoints =
        KernelCheckpoints::new(vec![KernelName::PageRank], None, true, 0).with_ids(Some(ids));
    replay::<CsrRebuild>(
        store,
        &stream,
        &ReplayOptions::default(),
        &AtomicBool::new(false),
        &mut checkpoints,
    )
    .unwrap();
    let top = &checkpoints.latest["pr"].top;
    assert_eq!(top.len(), 10);
    assert_eq!(top[0].id, "hub");
    assert_eq!(stream.name(top[0].vertex), "hub");
    assert!(top[1].id.starts_with("leaf"));
}
