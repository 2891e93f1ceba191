//! Mutable CSR graph stores for temporal edge streams.
//!
//! | store | layout | insert | scan | memory per edge |
//! |---|---|---|---|---|
//! | [`Vcsr`] | CSR vertex array + a vertex-centric packed-memory array ([`dyngraph_pma::PackedRuns`]), gaps by degree | append at `start_u + degree_u`; occasional local rebalance | one slice per vertex, as CSR | 4 B per slot (8 with weights) at the pma's density, plus per-vertex bookkeeping |
//! | [`Pcsr`] | one edge-centric packed-memory array ([`dyngraph_pma::PackedSet`]) ordered by `(src, seq)`, a sentinel per vertex, even gaps | `O(log N)` search + amortized `O(log² N)` moves | a range per vertex (`O(log N)` to find) over 16-byte elements | 16 B per element at the pma's density |
//! | [`Bal`] | per-vertex chains of 512-edge blocks | `O(1)` append | a slice per block, a pointer chase per 512 edges | a whole block per non-empty vertex |
//!
//! All three implement every read trait of `dyngraph-core`
//! ([`Graph`](dyngraph_core::Graph), [`OutNeighbors`](dyngraph_core::OutNeighbors),
//! [`InNeighbors`](dyngraph_core::InNeighbors),
//! [`WeightedOutNeighbors`](dyngraph_core::WeightedOutNeighbors)) and
//! [`GraphUpdate`](dyngraph_core::GraphUpdate), with multigraph or simple
//! semantics, optional weights and optional in-edges
//! ([`StoreOptions`]). Within a vertex, edges are listed in insertion order
//! in every store; a multigraph delete removes the oldest occurrence.
//!
//! # VCSR
//!
//! VCSR (Islam, Dai and Cheng, "VCSR: Mutable CSR Graph Format Using
//! Vertex-Centric Packed Memory Array") keeps CSR's vertex array and puts
//! the edge array in a packed-memory array whose leaf sections hold a fixed
//! number of *vertices*; a redistribution gives each vertex free slots in
//! proportion to its degree ([`DegreeProportional`], or any [`GapPolicy`]
//! through [`Vcsr::with_policy`]). Deletes are tombstones (the top bit of
//! the target id), skipped by readers and reclaimed by the next
//! redistribution of their window or by [`Vcsr::compact`];
//! [`Vcsr::repack`] rebuilds the arrays at the middle of the density bounds
//! before a long analysis (measured in `BENCHMARKS.md`).
//!
//! ```
//! use dyngraph_core::{Edge, Graph, GraphUpdate, InNeighbors, OutNeighbors, Semantics};
//! use dyngraph_vcsr::{StoreOptions, Vcsr};
//!
//! let options = StoreOptions::new(Semantics::Multigraph).in_edges(true);
//! let mut graph = Vcsr::new(options)?;
//! // A base batch (grouped by source inside), then single edges.
//! graph.insert_edges(&[Edge::new(0, 1), Edge::new(2, 0), Edge::new(0, 2)])?;
//! graph.insert_edge(1, 2)?;
//! graph.insert_edge(9, 0)?; // vertex 9 is new: the vertex array grows
//! assert_eq!(graph.vertex_count(), 10);
//! assert_eq!(graph.out_neighbors(0).collect::<Vec<_>>(), [1, 2]);
//! assert_eq!(graph.in_degree(0), 2);
//! assert!(graph.delete_edge(0, 1)?);
//! assert!(!graph.has_edge(0, 1));
//! let stats = graph.stats();
//! println!("rebalances per level {:?}, {} bytes", stats.rebalances_per_level(), graph.memory_bytes());
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! # Snapshots
//!
//! [`Vcsr::snapshot`] takes a detached [`Snapshot`] (DGAP's degree cache:
//! a copy of the degree arrays and the deletion clock). The graph keeps
//! changing; [`Vcsr::view`] turns the snapshot into a [`SnapshotView`]
//! that shows exactly the edges present when it was taken, through the
//! same read traits, so any kernel runs on it. The concurrency model is
//! Rust's: mutation needs `&mut Vcsr`, a view borrows `&Vcsr`, so a view
//! never observes a half-done update, and different views of one snapshot
//! taken between updates agree. See [`snapshot`] for how it works and
//! what it costs.
//!
//! ```
//! use dyngraph_core::{GraphUpdate, OutNeighbors};
//! use dyngraph_vcsr::{StoreOptions, Vcsr};
//!
//! let mut graph = Vcsr::new(StoreOptions::default())?;
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
//! use dyngraph_core::{GraphUpdate, OutNeighbors};
//! use dyngraph_vcsr::{Bal, Pcsr, StoreOptions};
//!
//! let mut pcsr = Pcsr::new(StoreOptions::default())?;
//! let mut bal = Bal::new(StoreOptions::default())?;
//! for (s, d) in [(3, 1), (3, 0), (1, 3)] {
//!     pcsr.insert_edge(s, d)?;
//!     bal.insert_edge(s, d)?;
//! }
//! assert_eq!(pcsr.out_neighbors(3).collect::<Vec<_>>(), [1, 0]);
//! assert_eq!(bal.out_neighbors(3).collect::<Vec<_>>(), [1, 0]);
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
#![deny(missing_docs)]

mod bal;
mod options;
mod pcsr;
mod slot;
pub mod snapshot;
mod vcsr;

pub use bal::{BLOCK_EDGES, Bal, BalNeighbors, BalStats, BalWeightedNeighbors};
pub use dyngraph_pma::{DegreeProportional, Even, GapPolicy, HistoryAdaptive, PmaConfig, PmaStats};
pub use options::StoreOptions;
pub use pcsr::{Pcsr, PcsrNeighbors, PcsrWeightedNeighbors};
pub use snapshot::{Snapshot, SnapshotNeighbors, SnapshotView, SnapshotWeightedNeighbors};
pub use vcsr::{
    Vcsr, VcsrConfig, VcsrNeighbors, VcsrStats, VcsrWeightedNeighbors, default_in_edge_pma_config,
    default_pma_config,
};
