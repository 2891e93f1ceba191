//! Every kernel on every store of the registry, through the replay with
//! `--verify`: each kernel's result on each store's snapshot, at
//! checkpoints along the bundled sample and at its end, passes the
//! kernel's verifier (under multigraph and set semantics). A store added
//! to the registry, or a kernel added to `KernelName::ALL`, is tested here
//! without an edit.

use dyngraph_core::Semantics;
use dyngraph_kernels::KernelName;
use dyngraph_replay::{ReplaySpec, run};
use dyngraph_stores::StoreKind;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/CollegeMsg.txt")
}

#[test]
fn every_kernel_verifies_on_every_store_along_the_sample() {
    let stop = AtomicBool::new(false);
    for &kind in StoreKind::ALL {
        for semantics in [Semantics::Multigraph, Semantics::Simple] {
            let mut spec = ReplaySpec::new(sample());
            spec.stores = vec![kind];
            spec.replay.batch = 5_000;
            spec.replay.semantics = semantics;
            spec.kernels = KernelName::ALL.to_vec();
            spec.every = Some(5);
            spec.verify = true;
            let report = run(&spec, &mut (), &stop)
                .unwrap_or_else(|e| panic!("{kind} under {semantics:?}: {e}"));
            assert!(
                report.verify_failures.is_empty(),
                "{kind} under {semantics:?}: {:?}",
                report.verify_failures
            );
            let store = &report.stores[0];
            assert_eq!(
                store.kernels.len(),
                KernelName::ALL.len(),
                "{kind}: {:?}",
                store.kernels.keys().collect::<Vec<_>>()
            );
            assert!(
                store.kernels.values().all(|k| k.verified == Some(true)),
                "{kind} under {semantics:?}"
            );
        }
    }
}
