//! What the cluster tests start and compare against: `dyngraph replay`
//! processes on 127.0.0.1 (the children helpers are the dist crate's), and
//! the single-machine replay engine and kernels on the same stream.

#![allow(dead_code, unreachable_pub)]

// The dist crate's own process tests start clusters the same way.
#[path = "../../../dist/tests/common/nodes.rs"]
pub mod nodes;

use dyngraph::core::{Csr, CsrRebuild, GraphStore, StoreOptions, VertexId};
use dyngraph::kernels::{KernelName, KernelOutput};
use dyngraph::loader::{LoadOptions, load_edge_stream};
use dyngraph::replay::{NoObserver, ReplayOptions, StoreSummary, Stream, kernel_options, replay};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

/// The CLI under test.
pub const DYNGRAPH: &str = env!("CARGO_BIN_EXE_dyngraph");

/// `dyngraph replay FILE ARGS...`, not yet started.
pub fn replay_command(file: &Path, args: &[String]) -> Command {
    let mut command = Command::new(DYNGRAPH);
    command.arg("replay").arg(file).args(args);
    command
}

/// The bundled sample.
pub fn college_msg() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/CollegeMsg.txt")
}

/// A file of `../shared/data`, or `None` with a note when it is absent.
pub fn shared_data(name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("note: {} is absent; skipping this part", path.display());
        None
    }
}

/// The single-machine replay of a file with the same options, its final
/// graph frozen, and each kernel's output on it.
pub struct SingleMachine {
    pub summary: StoreSummary,
    pub graph: Csr,
    pub outputs: BTreeMap<String, KernelOutput>,
}

pub fn single_machine(
    path: &Path,
    replay_options: &ReplayOptions,
    store: StoreOptions,
    kernels: &[KernelName],
    source: VertexId,
) -> SingleMachine {
    let stream = Stream::from(load_edge_stream(path, &LoadOptions::default()).expect("loads"));
    let (summary, store) = replay::<CsrRebuild>(
        store.in_edges(false),
        &stream,
        replay_options,
        &AtomicBool::new(false),
        &mut NoObserver,
    )
    .expect("single-machine replay");
    let graph = store.to_csr().expect("freeze");
    let outputs = kernels
        .iter()
        .map(|&k| {
            let output =
                dyngraph::kernels::run(&graph, &kernel_options(k, source)).expect("kernel");
            (k.as_str().to_string(), output)
        })
        .collect();
    SingleMachine {
        summary,
        graph,
        outputs,
    }
}
