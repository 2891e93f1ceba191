//! What the distributed tests compare against: the single-machine replay
//! engine and kernels on the same stream.

#![allow(dead_code, unreachable_pub)]

pub mod nodes;

use dyngraph_core::{Csr, CsrRebuild, GraphStore, StoreOptions, VertexId};
use dyngraph_kernels::{KernelName, KernelOutput};
use dyngraph_loader::{EdgeStream, LoadOptions, load_edge_stream};
use dyngraph_replay::{NoObserver, ReplayOptions, StoreSummary, kernel_options, replay};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

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

/// The single-machine replay of `path` with the same options, its final
/// graph frozen, and each kernel's output on it.
pub struct SingleMachine {
    pub summary: StoreSummary,
    pub graph: Csr,
    pub outputs: BTreeMap<String, KernelOutput>,
}

pub fn stream_of(path: &Path, load: &LoadOptions) -> EdgeStream {
    load_edge_stream(path, load).expect("the file loads")
}

pub fn single_machine(
    stream: &EdgeStream,
    replay_options: &ReplayOptions,
    store: StoreOptions,
    kernels: &[KernelName],
    source: VertexId,
) -> SingleMachine {
    let store = store.in_edges(false);
    let (summary, store) = replay::<CsrRebuild>(
        store,
        stream,
        replay_options,
        &AtomicBool::new(false),
        &mut NoObserver,
    )
    .expect("single-machine replay");
    let graph = store.to_csr().expect("freeze");
    let outputs = kernels
        .iter()
        .map(|&k| {
            let output = dyngraph_kernels::run(&graph, &kernel_options(k, source)).expect("kernel");
            (k.as_str().to_string(), output)
        })
        .collect();
    SingleMachine {
        summary,
        graph,
        outputs,
    }
}

/// Asserts the counts of two summaries are equal.
pub fn assert_same_counts(dist: &StoreSummary, single: &StoreSummary, what: &str) {
    let pick = |s: &StoreSummary| {
        (
            s.base_edges,
            s.edges_inserted,
            s.edges_deleted,
            s.edges,
            s.vertices,
            s.batch_count,
        )
    };
    assert_eq!(
        pick(dist),
        pick(single),
        "{what}: (base, inserted, deleted, edges, vertices, batches) differ"
    );
}

/// Asserts the distributed kernel outputs match the single machine's:
/// exact for BFS depths, components and walks; PageRank through its
/// verifier on the single machine's graph.
pub fn assert_same_outputs(
    dist: &BTreeMap<String, KernelOutput>,
    single: &SingleMachine,
    what: &str,
) {
    assert_outputs(dist, single, what, true);
}

/// As [`assert_same_outputs`]; with `exact_walks` false, walk counts are
/// checked by their verifier (relative 1e-12) instead of bit for bit, for
/// stores that keep neighbours in another order than arrival (the sums
/// then run in another order).
pub fn assert_outputs(
    dist: &BTreeMap<String, KernelOutput>,
    single: &SingleMachine,
    what: &str,
    exact_walks: bool,
) {
    assert_eq!(
        dist.keys().collect::<Vec<_>>(),
        single.outputs.keys().collect::<Vec<_>>(),
        "{what}: kernels"
    );
    for (name, output) in dist {
        let expected = &single.outputs[name];
        match (output, expected) {
            (KernelOutput::Bfs(d), KernelOutput::Bfs(s)) => {
                let serial = dyngraph_kernels::serial_bfs_depths(&single.graph, s.source);
                assert_eq!(d.depths.as_ref(), Some(&serial), "{what}: bfs depths");
                dyngraph_kernels::verify_bfs(&single.graph, d)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
            }
            (KernelOutput::Components(d), KernelOutput::Components(s)) => {
                assert_eq!(d.labels, s.labels, "{what}: component labels");
            }
            (KernelOutput::ReverseWalks(d), KernelOutput::ReverseWalks(_)) if !exact_walks => {
                dyngraph_kernels::verify_reverse_walks(&single.graph, d)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
            }
            (KernelOutput::ReverseWalks(d), KernelOutput::ReverseWalks(s)) => {
                assert_eq!(d.visits.len(), s.visits.len(), "{what}: walk vertices");
                // Same sums in the same order: the same bits.
                let first = d
                    .visits
                    .iter()
                    .zip(&s.visits)
                    .position(|(a, b)| a.to_bits() != b.to_bits());
                assert_eq!(first, None, "{what}: walk counts differ");
            }
            (KernelOutput::PageRank(d), KernelOutput::PageRank(_)) => {
                dyngraph_kernels::verify_pagerank(&single.graph, d)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
            }
            _ => panic!("{what}: {name} has a different kind of output"),
        }
    }
}
