//! The distributed replay over every distributable store of the registry
//! (`StoreKind::distributable`), in threads and in processes, against
//! the single-machine engine: the same counts and the same kernel results
//! whatever the store.
//!
//! The process tests start this test binary itself as the cluster's
//! processes (the `cluster_process` test, which does nothing unless
//! [`CHILD`] is set), so that a process can run any store without a
//! command-line flag for it; each process checks its cluster's results
//! against the single machine itself and exits non-zero when they differ.

mod common;

use common::nodes::*;
use common::*;
use dyngraph_core::{DynamicStore, Semantics, StoreOptions};
use dyngraph_dist::{Cluster, DistInput, DistOptions, DistReport, replay_with};
use dyngraph_kernels::KernelName;
use dyngraph_loader::LoadOptions;
use dyngraph_replay::{ReplayOptions, Window};
use dyngraph_stores::{StoreKind, StoreSettings, StoreVisitor};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The variable that makes `cluster_process` run one process of a cluster:
/// `store semantics hostfile process marker [throttle_ms]`.
const CHILD: &str = "DYNGRAPH_DIST_STORES_CHILD";

/// Every store the registry runs distributed: a store added to it is
/// tested here without an edit.
fn stores() -> Vec<StoreKind> {
    StoreKind::distributable().collect()
}

const KERNELS: [KernelName; 4] = [
    KernelName::PageRank,
    KernelName::Bfs,
    KernelName::Afforest,
    KernelName::ReverseWalks,
];

/// CollegeMsg under a window, with in-edges (so BFS goes bottom-up), all
/// kernels verified at worker 0.
fn workload(semantics: Semantics) -> DistOptions {
    DistOptions {
        replay: ReplayOptions {
            batch: 4000,
            window: Some(Window::Edges(15_000)),
            semantics,
            ..ReplayOptions::default()
        },
        store: StoreOptions::new(semantics).in_edges(true),
        kernels: KERNELS.to_vec(),
        source: Some(1),
        verify: true,
        stall_timeout: Duration::from_secs(60),
        ..DistOptions::default()
    }
}

/// Runs the distributed replay on the store `kind` names, with the
/// options the registry builds for it.
fn run_store(
    kind: StoreKind,
    cluster: &Cluster,
    options: DistOptions,
) -> dyngraph_core::Result<Option<DistReport>> {
    struct Run<'a> {
        cluster: &'a Cluster,
        options: DistOptions,
    }
    impl StoreVisitor for Run<'_> {
        type Output = dyngraph_core::Result<Option<DistReport>>;
        fn visit<S: DynamicStore + 'static>(self, store: S::Options) -> Self::Output
        where
            S::Options: Send + Sync,
        {
            let input = DistInput::File(college_msg());
            replay_with::<S>(self.cluster, input, self.options, store)
        }
    }
    let shared = options.store;
    kind.visit(&StoreSettings::default(), shared, Run { cluster, options })
}

/// Checks a report against the single machine's replay of the same
/// workload.
fn check_report(report: &DistReport, options: &DistOptions, what: &str) {
    let single = single_machine(
        &stream_of(&college_msg(), &LoadOptions::default()),
        &options.replay,
        options.store,
        &options.kernels,
        options.source.unwrap(),
    );
    assert!(
        report.verify_failures.is_empty(),
        "{what}: {:?}",
        report.verify_failures
    );
    assert_same_counts(&report.summary, &single.summary, what);
    // Stores that keep neighbours in another order than arrival sum the
    // walks in another order: their verifier, not their bits.
    assert_outputs(&report.outputs, &single, what, false);
}

#[test]
fn every_distributable_store_s_partitions_equal_one_machine() {
    for kind in stores() {
        for semantics in [Semantics::Multigraph, Semantics::Simple] {
            let options = workload(semantics);
            let report = run_store(kind, &Cluster::threads(3), options.clone())
                .expect("distributed replay")
                .expect("worker 0 is here");
            check_report(&report, &options, &format!("{kind} under {semantics:?}"));
        }
    }
}

/// One process of a cluster, when started by a test below (see [`CHILD`]);
/// a no-op otherwise.
#[test]
fn cluster_process() {
    let Ok(spec) = std::env::var(CHILD) else {
        return;
    };
    let fields: Vec<&str> = spec.split(' ').collect();
    let (store, semantics, hostfile, process, marker) =
        (fields[0], fields[1], fields[2], fields[3], fields[4]);
    let store: StoreKind = store.parse().expect("a store of the registry");
    let semantics = match semantics {
        "simple" => Semantics::Simple,
        _ => Semantics::Multigraph,
    };
    let mut options = workload(semantics);
    if let Some(throttle) = fields.get(5) {
        options.throttle = Some(Duration::from_millis(throttle.parse().unwrap()));
        options.replay.batch = 500;
    }
    let process: usize = process.parse().unwrap();
    let cluster = Cluster::from_hostfile(Path::new(hostfile), process, 1).unwrap();
    match run_store(store, &cluster, options.clone()) {
        Ok(Some(report)) => {
            check_report(&report, &options, &format!("{store} in processes"));
            std::fs::write(marker, "checked").unwrap();
        }
        Ok(None) => {}
        Err(error) => {
            eprintln!("error: {error}");
            std::process::exit(1);
        }
    }
    // Timely's threads may still wait on a peer: leave without them.
    std::process::exit(0);
}

/// Starts a cluster of `processes` copies of this binary running
/// `cluster_process` with `store`.
fn start_cluster(
    dir: &Path,
    processes: usize,
    store: StoreKind,
    semantics: &str,
    throttle: Option<u64>,
) -> Children {
    let hosts = hostfile(dir, processes);
    let marker = dir.join("checked");
    start_each(dir, 0..processes, |process| {
        let mut spec = format!(
            "{store} {semantics} {} {process} {}",
            hosts.display(),
            marker.display()
        );
        if let Some(ms) = throttle {
            spec.push_str(&format!(" {ms}"));
        }
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args([
                "cluster_process",
                "--exact",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(CHILD, spec);
        command
    })
}

#[test]
fn real_stores_in_processes_equal_one_machine() {
    let runs: Vec<(Scratch, Children)> = stores()
        .into_iter()
        .zip(["multigraph", "simple"].into_iter().cycle())
        .map(|(store, semantics)| {
            let scratch = Scratch::new(&format!("stores-{store}"));
            let children = start_cluster(scratch.path(), 2, store, semantics, None);
            (scratch, children)
        })
        .collect();
    for ((scratch, mut children), store) in runs.into_iter().zip(stores()) {
        let codes = children.wait_all(Duration::from_secs(120));
        assert_eq!(
            codes,
            [Some(0), Some(0)],
            "{store}:\n{}",
            children.stderr_text()
        );
        assert!(
            scratch.path().join("checked").exists(),
            "{store}: process 0 did not check its report:\n{}",
            children.stderr_text()
        );
    }
}

#[test]
fn a_killed_process_ends_the_others_on_every_real_store() {
    let runs: Vec<(Scratch, Children)> = stores()
        .into_iter()
        .map(|store| {
            let scratch = Scratch::new(&format!("kill-{store}"));
            let children = start_cluster(scratch.path(), 3, store, "multigraph", Some(50));
            (scratch, children)
        })
        .collect();
    std::thread::sleep(Duration::from_millis(3000));
    let mut runs = runs;
    for ((_, children), store) in runs.iter_mut().zip(stores()) {
        assert!(
            children.children[2].try_wait().unwrap().is_none(),
            "{store}: process 2 ended before the kill:\n{}",
            children.stderr_text()
        );
        children.children[2].kill().unwrap();
    }
    for ((_, children), store) in runs.iter_mut().zip(stores()) {
        let ended = children.wait_for(&[0, 1], Duration::from_secs(30));
        for (process, (code, took)) in ended.into_iter().enumerate() {
            let stderr = children.stderr_of(process);
            assert_eq!(code, Some(1), "{store}, process {process}:\n{stderr}");
            assert!(
                took < Duration::from_secs(3),
                "{store}: process {process} took {took:?}"
            );
            assert!(
                stderr.contains("lost process 2"),
                "{store}, process {process}:\n{stderr}"
            );
        }
    }
}

/// Issue 36: `OnCluster::visit` dropped the options the registry built
/// and rebuilt them from the shared ones, so `--gap-policy` under
/// `--workers` was ignored. The same replay with two gap policies moves
/// different elements; with the same policy, the same.
#[test]
fn the_registry_s_store_options_reach_every_worker() {
    use dyngraph_dist::{DistSettings, run_spec};
    use dyngraph_replay::ReplaySpec;
    use dyngraph_stores::{GapPolicyKind, StoreKind};
    let moved = |policy: GapPolicyKind| {
        let mut spec = ReplaySpec::new(college_msg());
        spec.stores = vec![StoreKind::Vcsr];
        spec.replay.batch = 5000;
        spec.settings.gap_policy = policy;
        let report = run_spec(&spec, &Cluster::threads(2), &DistSettings::default())
            .unwrap()
            .expect("this process reports");
        report.report.stores[0]
            .elements_moved
            .expect("Vcsr counts its moves")
    };
    let degree = moved(GapPolicyKind::DegreeProportional);
    assert_eq!(degree, moved(GapPolicyKind::DegreeProportional));
    assert_ne!(
        degree,
        moved(GapPolicyKind::Even),
        "the gap policy did not reach the stores"
    );
}
