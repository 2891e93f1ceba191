//! Mutable CSR graph stores for temporal edge streams.
//!
//! | store | layout | insert | scan | memory per edge | snapshot |
//! |---|---|---|---|---|---|
//! | [`Vcsr`] | CSR vertex array + a vertex-centric packed-memory array ([`dyngraph_pma::PackedRuns`]), gaps by degree | append at `start_u + degree_u`; occasional local rebalance | one slice per vertex, as CSR | 4 B per slot (8 with weights) at the pma's density, plus per-vertex bookkeeping | `O(V)` degree copy (DGAP) |
//! | [`Pcsr`] | one edge-centric packed-memory array ([`dyngraph_pma::PackedSet`]) ordered by `(src, seq)`, a sentinel per vertex, even gaps | `O(1)` to place (before the next vertex's sentinel) + amortized `O(log² N)` moves | a range per vertex (`O(1)` to find: a sentinel index) over 16-byte elements | 16 B per element at the pma's density | copy-before-write per changed list |
//! | [`Bal`] | per-vertex chains of blocks that double from 8 to 512 edges | `O(1)` append | a slice per block, a pointer chase per block (per 512 edges on long chains) | at most twice the degree in slots per vertex (at most 511 empty) | copy-before-write per changed list |
//!
//! All three implement the store contract of `dyngraph-core`
//! ([`GraphStore`](dyngraph_core::GraphStore) and
//! [`GraphUpdate`](dyngraph_core::GraphUpdate)): the read traits, with
//! in-edges ([`InEdges`](dyngraph_core::InEdges)) and weights
//! ([`EdgeWeights`](dyngraph_core::EdgeWeights)) behind capability checks
//! that fail with [`Error::MissingCapability`](dyngraph_core::Error::MissingCapability)
//! on a store built without them; batches from any
//! [`EdgeSource`](dyngraph_core::EdgeSource), read in place;
//! [`FromEdges`](dyngraph_core::FromEdges); detached
//! [`Snapshots`](dyngraph_core::Snapshots); memory and maintenance
//! counters. Semantics are multigraph or simple, weights and in-edges
//! optional ([`StoreOptions`]; [`VcsrOptions`] adds `Vcsr`'s own knobs).
//! Within a vertex, edges are listed in insertion order in every store; a
//! multigraph delete removes the oldest occurrence.
//!
//! # VCSR
//!
//! VCSR (Islam, Dai and Cheng, "VCSR: Mutable CSR Graph Format Using
//! Vertex-Centric Packed Memory Array") keeps CSR's vertex array and puts
//! the edge array in a packed-memory array whose leaf sections hold a fixed
//! number of *vertices*; a redistribution gives each vertex free slots in
//! proportion to its degree ([`DegreeProportional`], or any [`GapPolicy`]
//! through [`VcsrOptions::policy`]). Deletes are tombstones (the top bit of
//! the target id), skipped by readers and reclaimed by the next
//! redistribution of their window or by [`Vcsr::compact`];
//! [`Vcsr::repack`] rebuilds the arrays at the middle of the density bounds
//! before a long analysis (measured in `BENCHMARKS.md`).
//!
//! ```
//! use dyngraph_core::{
//!     Edge, Graph, GraphStore, GraphUpdate, InEdges, InNeighbors, OutNeighbors, Semantics, StoreOptions,
//! };
//! use dyngraph_vcsr::{Vcsr, VcsrOptions};
//!
//! let options = VcsrOptions::from(StoreOptions::new(Semantics::Multigraph).in_edges(true));
//! let mut graph = Vcsr::new(options)?;
//! // A base batch (laid out in one pass), then single edges.
//! graph.insert_edges(&[Edge::new(0, 1), Edge::new(2, 0), Edge::new(0, 2)])?;
//! graph.insert_edge(1, 2)?;
//! graph.insert_edge(9, 0)?; // vertex 9 is new: the vertex array grows
//! assert_eq!(graph.vertex_count(), 10);
//! assert_eq!(graph.out_neighbors(0).collect::<Vec<_>>(), [1, 2]);
//! let incoming = graph.in_edges()?; // checked once, then a plain handle
//! assert_eq!(incoming.in_degree(0), 2);
//! assert!(graph.delete_edge(0, 1)?);
//! assert!(!graph.has_edge(0, 1));
//! let work = graph.maintenance().unwrap_or_default();
//! println!("{} rebalances, {} bytes", work.rebalances, graph.memory_bytes());
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! # Snapshots
//!
//! Every store hands out detached snapshots
//! ([`Snapshots::snapshot`](dyngraph_core::Snapshots::snapshot)): the store
//! keeps taking updates, and
//! [`Snapshots::view`](dyngraph_core::Snapshots::view) turns a snapshot
//! into a read view that shows exactly the edges present when it was
//! taken, through the same read traits, so any kernel runs on it. The
//! concurrency model is Rust's: mutation needs `&mut`, a view borrows the
//! store immutably, so a view never observes a half-done update.
//!
//! - [`Vcsr`]: a [`VcsrSnapshot`] is DGAP's degree cache, a copy of the
//!   degree arrays and the deletion clock (`O(V)` to take, nothing copied
//!   afterwards); while one lives no tombstone is reclaimed and deletes
//!   record their time. A [`VcsrView`] reads the live arrays. See
//!   [`snapshot`].
//! - [`Pcsr`] and [`Bal`]: copy-before-write
//!   ([`dyngraph_core::cow`]): taking a snapshot costs two bitmaps; the
//!   first change of a vertex's list after it copies that list once.
//!   Rebalances move edges without changing a list and copy nothing.
//!
//! ```
//! use dyngraph_core::{GraphUpdate, OutNeighbors, Snapshots, StoreOptions};
//! use dyngraph_vcsr::{Bal, Vcsr, VcsrOptions};
//!
//! let mut graph = Vcsr::new(VcsrOptions::from(StoreOptions::default()))?;
//! graph.insert_edge(0, 1)?;
//! graph.insert_edge(0, 2)?;
//! let snapshot = graph.snapshot();
//! // Mutation continues while the snapshot exists ...
//! graph.delete_edge(0, 1)?;
//! for v in 3..1000 {
//!     graph.insert_edge(0, v)?; // rebalances and resizes on the way
//! }
//! // ... and a view of it still shows exactly the two edges.
//! let view = graph.view(&snapshot)?;
//! assert_eq!(view.out_neighbors(0).collect::<Vec<_>>(), [1, 2]);
//! assert_eq!(graph.out_degree(0), 998);
//!
//! // The same contract on a copy-before-write store.
//! let mut bal = Bal::new(StoreOptions::default())?;
//! bal.insert_edge(0, 1)?;
//! let snapshot = bal.snapshot();
//! bal.insert_edge(0, 2)?;
//! assert_eq!(bal.view(&snapshot)?.out_neighbors(0).collect::<Vec<_>>(), [1]);
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! # Baselines
//!
//! [`Pcsr`] is PCSR after Wheatman and Xu in the VCSR authors' improved
//! form (a new edge goes after its vertex's last edge instead of into a
//! destination-sorted place); [`Bal`] is the blocked adjacency list with
//! 512-edge blocks the paper compares against.
//!
//! ```
//! use dyngraph_core::{Edge, FromEdges, GraphUpdate, OutNeighbors, StoreOptions};
//! use dyngraph_vcsr::{Bal, Pcsr};
//!
//! let edges = [Edge::new(3, 1), Edge::new(3, 0), Edge::new(1, 3)];
//! let pcsr = Pcsr::from_edges(&edges, StoreOptions::default())?;
//! let mut bal = Bal::new(StoreOptions::default())?;
//! for edge in edges {
//!     bal.insert_edge(edge.src, edge.dst)?;
//! }
//! assert_eq!(pcsr.out_neighbors(3).collect::<Vec<_>>(), [1, 0]);
//! assert_eq!(bal.out_neighbors(3).collect::<Vec<_>>(), [1, 0]);
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
#![deny(missing_docs)]

mod bal;
mod batch;
mod cow_registry;
mod options;
mod pcsr;
mod slot;
pub mod snapshot;
mod vcsr;

pub use bal::{
    BLOCK_EDGES, Bal, BalInEdges, BalNeighbors, BalStats, BalWeightedNeighbors, BalWeights,
    FIRST_BLOCK_EDGES,
};
pub use dyngraph_core::StoreOptions;
pub use dyngraph_pma::{
    DegreeProportional, Even, GapPolicy, HistoryAdaptive, PmaOptions, PmaStats,
};
pub use options::{
    BatchUpdates, MERGE_BATCHES_ABOVE, VcsrOptions, default_in_edge_pma_options,
    default_out_edge_pma_options,
};
pub use pcsr::{Pcsr, PcsrInEdges, PcsrNeighbors, PcsrWeightedNeighbors, PcsrWeights};
pub use snapshot::{
    VcsrSnapshot, VcsrView, VcsrViewInEdges, VcsrViewNeighbors, VcsrViewWeightedNeighbors,
    VcsrViewWeights,
};
pub use vcsr::{Vcsr, VcsrInEdges, VcsrNeighbors, VcsrStats, VcsrWeightedNeighbors, VcsrWeights};

// petgraph's visit traits; the Pcsr and Bal views are core's `CowView`,
// which has them from core.
#[cfg(feature = "petgraph")]
dyngraph_core::impl_petgraph_traits!([P: GapPolicy + Clone] Vcsr<P>);
#[cfg(feature = "petgraph")]
dyngraph_core::impl_petgraph_traits!(['v, P: GapPolicy + Clone] VcsrView<'v, P>);
#[cfg(feature = "petgraph")]
dyngraph_core::impl_petgraph_traits!(Pcsr);
#[cfg(feature = "petgraph")]
dyngraph_core::impl_petgraph_traits!(Bal);

// The README's examples run as doctests, so they keep up with the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
