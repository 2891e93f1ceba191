//! **dyngraph**: graphs that change over time, in Rust.
//!
//! Static CSR is the fastest layout to analyse and cannot take one new edge
//! without a rebuild; adjacency lists take updates and lose the analysis
//! speed. dyngraph brings the research formats that close that gap — VCSR
//! on a packed-memory array, CSR++ segments, and the PCSR and blocked
//! adjacency-list baselines — behind **one store contract**, with a
//! parallel loader, the GAPBS kernels written once for every store, and a
//! replay engine for temporal streams. This is the one crate to add:
//!
//! ```toml
//! [dependencies]
//! dyngraph = "0.1"
//! ```
//!
//! and one import for the traits and types, `use dyngraph::prelude::*;`,
//! with options, kernels and readers named from their modules
//! (`dyngraph::kernels::pagerank`, `dyngraph::loader::load_edge_stream`).
//!
//! # A tour: load → build → update → snapshot → kernels → freeze
//!
//! ```
//! use dyngraph::core::{Semantics, StoreOptions};
//! use dyngraph::csrpp::CsrPPOptions;
//! use dyngraph::kernels::{BfsOptions, PageRankMethod, PageRankOptions, bfs, pagerank, verify_pagerank};
//! use dyngraph::loader::{LoadOptions, load_edge_stream};
//! use dyngraph::prelude::*;
//! use dyngraph::vcsr::VcsrOptions;
//!
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
//! // SNAP's CollegeMsg (`src dst timestamp` lines; gzip works too).
//! // let path = "CollegeMsg.txt";
//! let stream = load_edge_stream(path, &LoadOptions::default())?;
//! let all = stream.as_chunk(); // the loader's columns, borrowed: no copy
//! let (base, rest) = (all.slice(0..50_000), all.slice(50_000..all.len()));
//!
//! // Build two stores from the same columns. PageRank pulls over in-edges,
//! // so keep them; the options every store shares are `StoreOptions`.
//! let options = StoreOptions::new(Semantics::Multigraph).in_edges(true);
//! let mut vcsr = Vcsr::from_edges(&base, VcsrOptions::from(options))?;
//! let mut csrpp = CsrPP::from_edges(&base, CsrPPOptions::from(options))?;
//!
//! // Update: a batch of inserts, then 1,000 deletes.
//! vcsr.insert_edges(&rest)?;
//! csrpp.insert_edges(&rest)?;
//! let oldest: Vec<Edge> = (0..1000).map(|i| stream.edge(i)).collect();
//! assert_eq!(vcsr.delete_edges(&oldest)?.edges_removed, 1000);
//! csrpp.delete_edges(&oldest)?;
//!
//! // A snapshot stays as it was while the store keeps changing.
//! let snapshot = vcsr.snapshot();
//! vcsr.insert_edge(1, 2)?;
//! let view = vcsr.view(&snapshot)?;
//! assert_eq!(view.edge_count() + 1, vcsr.edge_count());
//!
//! // Kernels run on any store, snapshot or Csr; verifiers check them.
//! let ranks = pagerank(&view, &PageRankOptions::default())?;
//! verify_pagerank(&view, &ranks).expect("PageRank verified");
//! assert_eq!(ranks.method, PageRankMethod::Pull); // in-edges were kept
//! let tree = bfs(&csrpp, &BfsOptions::from_source(1))?;
//!
//! // Freeze into the immutable Csr (in parallel) and compare.
//! let csr = csrpp.to_csr()?;
//! let on_csr = bfs(&csr, &BfsOptions::from_source(1))?;
//! assert_eq!(tree.reached(), on_csr.reached());
//! println!("{} edges, {} bytes in Vcsr, {} in CsrPP, {} in Csr",
//!     csr.edge_count(), vcsr.memory_bytes(), csrpp.memory_bytes(), csr.memory_bytes());
//! # Ok::<(), dyngraph::Error>(())
//! ```
//!
//! # The store contract
//!
//! Every store — [`Csr`], [`Vcsr`], [`Pcsr`], [`Bal`], [`CsrPP`],
//! [`CsrRebuild`] and the durable `DurableVcsr` — implements
//! [`GraphStore`]: bulk build from any [`EdgeSource`] ([`FromEdges`]), the
//! read traits ([`ReadGraph`]), `edges()`, [`Snapshots`], `memory_bytes()`,
//! `to_csr()`, and what it can do as constants
//! ([`GraphStore::CAPABILITIES`]: in-edges, weights, durable,
//! distributable, concurrent writers); the dynamic ones also
//! [`GraphUpdate`] ([`DynamicStore`]). Code written once against these runs
//! on all of them (`dyngraph_core`'s `store` docs have the table).
//!
//! Every store's options type is built one way: from the shared
//! [`StoreOptions`] (`XOptions::from(shared)`) or its `Default`, with the
//! shared setters (`in_edges`, `weighted`, `semantics`, `vertex_limit`)
//! from [`StoreConfig`]. A read of a vertex outside the graph answers as
//! for an isolated vertex (degree 0, no neighbours) in every store.
//!
//! # The store registry
//!
//! `stores::StoreKind` names every store (`"vcsr"`, `"csrpp"`, ...) and
//! runs generic code on the type a name picks (`StoreKind::visit` with a
//! `stores::StoreVisitor`); the CLI, the replay job, `dist`, the benches
//! and the every-store tests all dispatch through it. `replay::ReplaySpec` describes a whole replay
//! (input, stores, batches, window, kernels) and `replay::run` returns its
//! `replay::Report`: what `dyngraph replay` prints.
//!
//! Edges travel in one owned stream type, `loader::EdgeStream`: columns of
//! sources and destinations with optional weights and optional timestamps
//! (both at once for a weighted temporal stream) and the original ids,
//! owned or read in place from a mapped `.dges` file. The loader and the
//! generators make it, `replay::replay` and `dist` replay it (reordered
//! with `EdgeStream::reorder` by a `loader::Order`), and each batch reaches
//! a store as a borrowed `core::EdgeChunk` (`EdgeStream::chunk`).
//!
//! In-edges and weights are options of a store, and a store built without
//! one never answers with silence: [`InEdges::in_edges`] and
//! [`EdgeWeights::edge_weights`] return `Error::MissingCapability`. Kernels
//! say what they use and what they do without it
//! ([`kernels::KernelName::needs`]): PageRank pulls over in-edges or pushes
//! without them, and reports which.
//!
//! # Choosing a store
//!
//! | store | updates | scans | snapshot | when |
//! |---|---|---|---|---|
//! | [`Csr`] | none (rebuild) | fastest | free | static analysis; the frozen form of every store |
//! | [`Vcsr`] | append into a degree-proportional gap; local rebalances | one slice per vertex | copy of the degrees (DGAP) | temporal streams, analytics between batches |
//! | [`CsrPP`] | sorted per-vertex arrays, per-segment locks, concurrent writers | one array per vertex | copy-before-write per vertex | concurrent writers, deletes, set semantics |
//! | [`Pcsr`], [`Bal`] | the papers' baselines | — | copy-before-write per vertex | comparisons |
//! | `DurableVcsr` | VCSR in memory-mapped files, synced per policy | one slice per vertex | copy of the degrees | a graph that must survive a crash |
//! | [`CsrRebuild`] | a full `Csr` rebuild per batch | `Csr`'s | the last `Csr` | the baseline dynamic stores beat |
//!
//! `BENCHMARKS.md` in the repository has the measured figures.
//!
//! # petgraph
//!
//! With the `petgraph` feature, a reference to every store and snapshot
//! view is a petgraph graph: `tarjan_scc(&vcsr)`, `kosaraju_scc(&view)`,
//! `dijkstra(&csrpp, ..)`, `min_spanning_tree(&csr)` and `Dot::new(&pcsr)`
//! run on it directly, without a wrapper or a copy. Edge weights are the
//! stored `f32`s (`1.0` each without weights); walking edges backwards
//! (`kosaraju_scc`, `toposort`) reads the in-edges, or scans the out-lists
//! on a graph built without them (`O(V + E)` per vertex). The
//! `dyngraph::petgraph` module has the details and the conversions to and
//! from `petgraph::Graph`. `use petgraph::prelude::*;` works beside
//! `use dyngraph::prelude::*;`: the prelude brings the [`Graph`] trait's
//! methods without its name, so `Graph` there is petgraph's struct.
//!
//! # Features
//!
//! The one list of the crate's features (a test checks it against
//! `Cargo.toml`):
//!
//! | feature | default | what it brings |
//! |---|---|---|
//! | `vcsr` | yes | `Vcsr`, `Pcsr`, `Bal` and the packed-memory array under them (`dyngraph::vcsr`, `dyngraph::pma`) |
//! | `csrpp` | yes | `CsrPP`, CSR++'s segmented store (`dyngraph::csrpp`) |
//! | `durable` | yes | `DurableVcsr`, the crash-consistent store in memory-mapped files (`dyngraph::durable`) |
//! | `loader` | yes | file formats, parallel parsing, generators, the binary `Csr` file (`dyngraph::loader`) |
//! | `kernels` | yes | BFS, PageRank, SSSP, CC, BC, TC, reverse walks, with verifiers (`dyngraph::kernels`) |
//! | `incremental` | yes | kernels maintained across batches (`dyngraph::incremental`) |
//! | `replay` | yes | the replay job: a stream into any store in timed batches (`dyngraph::replay`) |
//! | `dist` | no | partitioned replay and kernels on timely dataflow workers and clusters (`dyngraph::dist`) |
//! | `clap` | no | the registry's, the job's and the kernels' enums as `clap::ValueEnum` |
//! | `petgraph` | no | petgraph's algorithms on every store and view (`dyngraph::petgraph`) |
//!
//! [`Csr`]: prelude::Csr
//! [`Vcsr`]: prelude::Vcsr
//! [`Pcsr`]: prelude::Pcsr
//! [`Bal`]: prelude::Bal
//! [`CsrPP`]: prelude::CsrPP
//! [`CsrRebuild`]: prelude::CsrRebuild
//! [`Keyed`]: prelude::Keyed
//! [`StoreOptions`]: core::StoreOptions
#![deny(missing_docs)]

pub use dyngraph_core as core;
/// The contract's traits, at the top as in the prelude: `impl
/// dyngraph::ReadGraph` in a signature reads as what it is.
pub use dyngraph_core::{
    DynamicStore, EdgeSource, EdgeWeights, FromEdges, Graph, GraphStore, GraphUpdate, InEdges,
    InNeighbors, OutNeighbors, ReadGraph, Snapshots, StoreConfig, WeightedNeighbors,
};
/// The library's error and result (`dyngraph_core`'s), for `fn main() ->
/// dyngraph::Result<()>`.
pub use dyngraph_core::{Error, Result};

#[cfg(feature = "csrpp")]
pub use dyngraph_csrpp as csrpp;
#[cfg(feature = "dist")]
pub use dyngraph_dist as dist;
#[cfg(feature = "durable")]
pub use dyngraph_durable as durable;
#[cfg(feature = "incremental")]
pub use dyngraph_incremental as incremental;
#[cfg(feature = "kernels")]
pub use dyngraph_kernels as kernels;
#[cfg(feature = "loader")]
pub use dyngraph_loader as loader;
#[cfg(feature = "vcsr")]
pub use dyngraph_pma as pma;
#[cfg(feature = "replay")]
pub use dyngraph_replay as replay;
/// The store registry: every store by name, its capabilities and
/// settings (`dyngraph-stores`).
pub use dyngraph_stores as stores;
#[cfg(feature = "vcsr")]
pub use dyngraph_vcsr as vcsr;

#[cfg(feature = "petgraph")]
pub mod petgraph;

/// The traits and types a program names, in one import, as petgraph's
/// and rayon's preludes: the contract's traits (so their methods are in
/// scope), the stores, `Csr`, `Keyed` and the edge and id types. Options,
/// kernels and readers stay in their modules: `dyngraph::vcsr::VcsrOptions`,
/// `dyngraph::kernels::pagerank`, `dyngraph::loader::load_edge_stream`.
pub mod prelude {
    pub use dyngraph_core::{
        DynamicStore, EdgeSource, EdgeWeights, FromEdges, GraphStore, GraphUpdate, InEdges,
        InNeighbors, OutNeighbors, ReadGraph, Snapshots, StoreConfig, WeightedNeighbors,
    };
    // The `Graph` trait's methods without its name, which stays free for
    // `petgraph::prelude::Graph` beside this prelude (`dyngraph::Graph`
    // names the trait).
    pub use dyngraph_core::Graph as _;
    pub use dyngraph_core::{Csr, CsrRebuild, Edge, Keyed, VertexId, WeightedEdge};

    #[cfg(feature = "csrpp")]
    pub use dyngraph_csrpp::CsrPP;
    #[cfg(feature = "durable")]
    pub use dyngraph_durable::DurableVcsr;
    #[cfg(feature = "vcsr")]
    pub use dyngraph_vcsr::{Bal, Pcsr, Vcsr};
}
