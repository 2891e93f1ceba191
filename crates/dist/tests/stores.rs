//! The distributed replay over the workspace's dynamic stores, against the
//! single-machine engine: the same checks as `threads.rs`, with `Vcsr` and
//! `CsrPP` as each worker's store.

mod common;

use common::*;
use dyngraph_core::{DynamicStore, Semantics, StoreOptions};
use dyngraph_dist::{Cluster, DistInput, DistOptions, replay};
use dyngraph_kernels::KernelName;
use dyngraph_loader::LoadOptions;
use dyngraph_replay::{ReplayOptions, Window};

fn check<S: DynamicStore + 'static>(semantics: Semantics) {
    let replay_options = ReplayOptions {
        batch: 4000,
        window: Some(Window::Edges(15_000)),
        semantics,
        ..ReplayOptions::default()
    };
    let kernels = vec![
        KernelName::PageRank,
        KernelName::Bfs,
        KernelName::Afforest,
        KernelName::ReverseWalks,
    ];
    let options = DistOptions {
        replay: replay_options.clone(),
        store: StoreOptions::new(semantics).in_edges(true),
        kernels: kernels.clone(),
        source: 1,
        verify: true,
        ..DistOptions::default()
    };
    let path = college_msg();
    let single = single_machine(
        &stream_of(&path, &LoadOptions::default()),
        &replay_options,
        options.store,
        &kernels,
        1,
    );
    let report = replay::<S>(&Cluster::threads(3), DistInput::File(path), options)
        .expect("distributed replay")
        .expect("worker 0 is here");
    let what = format!("{} under {semantics:?}", S::NAME);
    assert!(
        report.verify_failures.is_empty(),
        "{what}: {:?}",
        report.verify_failures
    );
    assert_same_counts(&report.summary, &single.summary, &what);
    assert_outputs(&report.outputs, &single, &what, false);
}

#[test]
fn vcsr_partitions_equal_one_machine() {
    check::<dyngraph_vcsr::Vcsr>(Semantics::Multigraph);
    check::<dyngraph_vcsr::Vcsr>(Semantics::Simple);
}

#[test]
fn csrpp_partitions_equal_one_machine() {
    check::<dyngraph_csrpp::CsrPP>(Semantics::Multigraph);
    check::<dyngraph_csrpp::CsrPP>(Semantics::Simple);
}

#[test]
fn csr_rebuild_partitions_equal_one_machine() {
    check::<dyngraph_replay::CsrRebuild>(Semantics::Multigraph);
    check::<dyngraph_replay::CsrRebuild>(Semantics::Simple);
}
