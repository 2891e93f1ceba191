//! `dyngraph-kernels`: the GAP Benchmark Suite kernels and k-step reverse
//! walks, written once against the `dyngraph-core` read traits, each with a
//! public serial verifier.
//!
//! The papers dyngraph reproduces measure every store by running these
//! kernels on it (VCSR Table II, DGAP Table 1) and by 42-step reverse walks
//! (Sahu, Algorithm 13). Every kernel here is generic over
//! [`OutNeighbors`](dyngraph_core::OutNeighbors) and, where it can use
//! them, [`InEdges`](dyngraph_core::InEdges) and
//! [`EdgeWeights`](dyngraph_core::EdgeWeights) (`+ Sync`), so one
//! implementation runs on `Csr` (where the neighbour iterators are slice
//! iterators and the loops compile to slice walks), on every dynamic store
//! and snapshot, and on any user store that implements the traits.
//!
//! # Capabilities: what each kernel needs, and what it does without
//!
//! A store may be built without in-edges or weights. No kernel reads a
//! missing capability as empty: each asks for it once and, where it can do
//! without, runs another way and says so ([`KernelName::needs`] lists it;
//! [`KernelOutput::mode`] reports what happened):
//!
//! | kernel | in-edges | weights |
//! |---|---|---|
//! | BFS | bottom-up steps; top-down only without | — |
//! | PageRank | pull; push over out-edges without | — |
//! | SSSP | — | the weights; hop counts without |
//! | CC (Afforest) | skips the largest component; visits every vertex without | — |
//! | CC (SV), BC, TC, reverse walks | — | — |
//!
//! | kernel | function | verifier | algorithm | deterministic |
//! |---|---|---|---|---|
//! | BFS | [`bfs`] | [`verify_bfs`] | direction-optimizing (Beamer), α = 15, β = 18 | depths yes, parents no |
//! | PageRank | [`pagerank`] | [`verify_pagerank`] | pull (push without in-edges), d = 0.85, 20 iterations | pull yes, push to rounding |
//! | SSSP | [`sssp`] | [`verify_sssp`] | delta-stepping with bucket fusion | yes |
//! | CC | [`connected_components`] | [`verify_components`] | Afforest or Shiloach-Vishkin, weakly connected | yes (min-id labels) |
//! | BC | [`betweenness_centrality`] | [`verify_bc`] | Brandes from k sources | yes |
//! | TC | [`triangle_count`] | [`verify_triangles`] | degree-ordered counting on the undirected view | yes |
//! | reverse walks | [`reverse_walks`] | [`verify_reverse_walks`] | Sahu's Algorithm 13, `A^k · 1` | yes |
//! | degrees | [`degree_stats`], [`degree_distribution`] | — | one pass | yes |
//!
//! # Threads
//!
//! Kernels use rayon's parallel iterators and so run in whatever pool the
//! caller is in: `pool.install(|| bfs(&graph, &options))` runs on that pool's
//! threads; outside any pool they use rayon's global pool. Called from a
//! thread outside the pool (a program's main thread), a kernel hands itself
//! to a pool thread once and waits, rather than once per parallel step: on
//! small graphs those hand-offs cost more than the work (BFS on CollegeMsg
//! took 0.53 ms that way, 0.03 ms now, like GAPBS).
//!
//! # Errors and verification
//!
//! Bad arguments (a source outside the graph, a damping factor outside
//! `[0, 1]`, a non-positive `delta`, a negative edge weight met by SSSP)
//! are [`dyngraph_core::Error`] values, never panics. Every kernel has a
//! serial, deliberately simple verifier returning [`VerifyError`] with the
//! first discrepancy, like GAPBS's `-v`.
//!
//! # Running by name
//!
//! [`KernelName`] parses the GAPBS short names (`bfs`, `pr`, `sssp`, `cc`,
//! `cc_sv`, `bc`, `tc`, plus `rw`), [`run`] runs a [`KernelOptions`] and
//! [`verify`] checks the [`KernelOutput`]:
//!
//! ```
//! use dyngraph_core::{Csr, CsrOptions, Edge};
//! use dyngraph_core::StoreConfig;
//! use dyngraph_kernels::{KernelName, KernelOptions, SsspOptions, run, verify};
//!
//! let edges = [Edge::new(0, 1), Edge::new(1, 2), Edge::new(2, 0), Edge::new(2, 3)];
//! let graph = Csr::from_edges(&edges, CsrOptions::default().in_edges(true))?;
//! let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
//!
//! let name: KernelName = "sssp".parse()?;
//! assert_eq!(name, KernelName::Sssp);
//! let options = KernelOptions::Sssp(SsspOptions::from_source(1));
//! let output = pool.install(|| run(&graph, &options))?;
//! verify(&graph, &output).expect("verified");
//! assert!(output.summary().starts_with("sssp from 1: 4 vertices reached"));
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! # Example: every kernel on a small graph
//!
//! ```
//! use dyngraph_core::{Csr, CsrOptions, Edge};
//! use dyngraph_core::StoreConfig;
//! use dyngraph_kernels::*;
//!
//! // Two triangles sharing vertex 2, plus an isolated vertex 5.
//! let edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 2)]
//!     .map(|(s, d)| Edge::new(s, d));
//! let graph = Csr::from_edges(&edges, CsrOptions::default().in_edges(true).vertex_count(6))?;
//!
//! let tree = bfs(&graph, &BfsOptions::from_source(0).with_depths(true))?;
//! assert_eq!(tree.depths.unwrap(), [0, 1, 2, 3, 4, UNREACHED]);
//!
//! let cc = connected_components(&graph, &ComponentsOptions::default())?;
//! assert_eq!(cc.labels, [0, 0, 0, 0, 0, 5]);
//!
//! assert_eq!(triangle_count(&graph)?.triangles, 2);
//!
//! let bc = betweenness_centrality(
//!     &graph,
//!     &BcOptions { sources: BcSources::Given(vec![0]), normalize: false },
//! )?;
//! // From 0: 1 lies on the paths to 2, 3 and 4; 2 on those to 3 and 4; 3 on the one to 4.
//! assert_eq!(bc.scores, [0.0, 3.0, 2.0, 1.0, 0.0, 0.0]);
//!
//! let stats = degree_stats(&graph, DegreeKind::Out)?;
//! assert_eq!((stats.max, stats.zero_degree), (2, 1));
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
#![deny(missing_docs)]

mod bc;
mod bfs;
mod components;
mod degree;
mod dispatch;
mod pagerank;
mod reverse_walk;
mod sssp;
mod triangles;
mod util;
mod verify_error;

pub use bc::{BcOptions, BcResult, BcSources, betweenness_centrality, serial_brandes, verify_bc};
pub use bfs::{
    BfsDirection, BfsOptions, BfsResult, BfsStrategy, NO_PARENT, UNREACHED, bfs, serial_bfs_depths,
    verify_bfs,
};
pub use components::{
    ComponentsAlgorithm, ComponentsOptions, ComponentsResult, connected_components,
    serial_union_find, verify_components,
};
pub use degree::{DegreeKind, DegreeStats, degree_distribution, degree_stats};
pub use dispatch::{KernelName, KernelOptions, KernelOutput, Need, Needs, run, verify};
pub use pagerank::{
    PAGERANK_RELATIVE_TOLERANCE, PageRankMethod, PageRankOptions, PageRankResult, pagerank,
    serial_pagerank, sum_of_shares, verify_pagerank,
};
pub use reverse_walk::{
    ReverseWalkOptions, ReverseWalkResult, reverse_walks, serial_reverse_walks,
    verify_reverse_walks,
};
pub use sssp::{SsspOptions, SsspResult, SsspWeights, serial_dijkstra, sssp, verify_sssp};
pub use triangles::{TriangleResult, serial_triangle_count, triangle_count, verify_triangles};
pub use verify_error::VerifyError;
