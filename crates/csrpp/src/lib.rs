//! `dyngraph-csrpp`: CSR++ — a segmented, concurrently updatable CSR — with
//! Sahu's power-of-two arena, batch graph algebra, parallel clone and
//! copy-before-write snapshots, on the dyngraph store contract.
//!
//! CSR++ (paper `001`) keeps CSR's contiguous neighbour arrays for scans
//! but gives every vertex its own sorted array, so an update touches one
//! vertex and locks one segment of vertices. Sahu (paper `002`) adds a
//! concurrent power-of-two arena for those arrays (CP2AA), batch updates as
//! graph union and difference, and a parallel deep copy. [`CsrPP`] is both,
//! and implements [`dyngraph_core::GraphStore`] and
//! [`dyngraph_core::GraphUpdate`].
//!
//! | piece | where |
//! |---|---|
//! | segments of `NUM_V_SEG` vertices behind a growable directory | [`CsrPP`], [`CsrPPOptions::segment_size`] |
//! | 16-byte vertex entries, two ids inline (one id and weight when weighted), sorted power-of-two arrays, weights in the same block | [`CsrPP`] (cost model) |
//! | in-edges and weights behind capability checks | [`CsrPPInEdges`], [`CsrPPWeights`] |
//! | one `parking_lot` lock per segment, `&self` updates, phase split by borrow | [`ConcurrentWriter`] |
//! | batch insert/delete from any [`dyngraph_core::EdgeSource`], read in place: group by segment, parallel merge per segment | [`dyngraph_core::GraphUpdate`] impl |
//! | bulk build | [`dyngraph_core::FromEdges`] impl |
//! | snapshots: copy-on-write per segment, through every update path | [`CsrPPSnapshot`], [`CsrPPView`], [`CsrPP`] (cost model) |
//! | logical deletes + compaction, physical deletes | [`DeleteMode`], [`CsrPP::compact`] |
//! | union/difference in place or into a new instance, parallel clone | [`CsrPP::add_graph_in_place`], [`CsrPP::subtract_graph`], `Clone` |
//! | in-edges, vertex properties, external `u64` keys | [`CsrPPOptions`], [`CsrPP::add_vertex_property`], [`CsrPP::insert_edge_by_key`] |
//! | power-of-two arena (16 B … 8 KiB classes, sharded free lists), the default | [`AllocatorKind::Arena`] |
//! | bulk loads packed per segment, exactly or with headroom | [`CsrPPOptions::slab_headroom`] |
//! | batches re-pack segments that updates scattered (opt-in) | [`CsrPPOptions::segment_repack`] |
//! | lay the whole store out again in vertex order after many batches | [`CsrPP::defragment`] |
//!
//! # Example: serial and batch updates, in-edges, a snapshot
//!
//! ```
//! use dyngraph_core::{
//!     Edge, FromEdges, Graph, GraphUpdate, InEdges, InNeighbors, OutNeighbors, Semantics,
//!     Snapshots,
//! };
//! use dyngraph_core::StoreConfig;
//! use dyngraph_csrpp::{CsrPP, CsrPPOptions};
//!
//! let options = CsrPPOptions::default()
//!     .semantics(Semantics::Simple)
//!     .in_edges(true);
//! let mut graph = CsrPP::from_edges(&[Edge::new(0, 1), Edge::new(2, 1)], options)?;
//! assert!(graph.insert_edge(1, 0)?);
//! assert!(!graph.insert_edge(1, 0)?); // simple graph: already there
//! let report = graph.insert_edges(&[Edge::new(3, 1), Edge::new(0, 1)])?;
//! assert_eq!(report.edges_added, 1);
//! assert_eq!(graph.in_edges()?.in_neighbors(1).collect::<Vec<_>>(), [0, 2, 3]);
//!
//! let snapshot = graph.snapshot(); // detached: the store keeps changing
//! assert!(graph.delete_edge(2, 1)?);
//! assert_eq!(graph.in_edges()?.in_degree(1), 2);
//! let view = graph.view(&snapshot)?; // the graph as it was
//! assert_eq!(view.in_edges()?.in_neighbors(1).collect::<Vec<_>>(), [0, 2, 3]);
//! assert_eq!(view.edge_count(), 4);
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! A store built without in-edges or weights says so instead of answering
//! empty lists or unit weights:
//!
//! ```
//! use dyngraph_core::{Capability, EdgeWeights, Error, FromEdges, InEdges};
//! use dyngraph_csrpp::{CsrPP, CsrPPOptions};
//!
//! let graph = CsrPP::from_edges(&[(0, 1)], CsrPPOptions::default())?;
//! assert!(matches!(
//!     graph.in_edges(),
//!     Err(Error::MissingCapability { capability: Capability::InEdges, .. })
//! ));
//! assert!(graph.edge_weights().is_err());
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! # Example: concurrent inserts, then graph algebra
//!
//! ```
//! use dyngraph_core::{Edge, FromEdges, Graph, OutNeighbors};
//! use dyngraph_csrpp::{AllocatorKind, CsrPP, CsrPPOptions};
//! use rayon::prelude::*;
//!
//! let options = CsrPPOptions::default().allocator(AllocatorKind::Arena);
//! let mut graph = CsrPP::new(options.clone())?;
//! let writer = graph.concurrent_writer();
//! (0..1000u32).into_par_iter().for_each(|i| {
//!     writer.insert_edge(i % 10, i).unwrap();
//! });
//! drop(writer); // end of the update phase
//! assert_eq!(graph.edge_count(), 1000);
//!
//! let batch = CsrPP::from_edges(&[Edge::new(0, 0), Edge::new(0, 5000)], options)?;
//! let (union, added) = graph.add_graph(&batch)?;
//! assert_eq!(added, 1); // 0 -> 0 was already there
//! let (back, removed) = union.subtract_graph(&batch);
//! assert_eq!(removed, 2);
//! assert_eq!(back.edge_count(), 999);
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
#![deny(missing_docs)]

mod adjacency;
mod alloc;
mod batch;
mod iter;
mod keys;
mod options;
mod segment;
mod segment_insert;
mod snapshot;
mod store;
mod writer;

pub use alloc::AllocatorKind;

/// The README's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
pub use iter::{NeighborIter, WeightedNeighborIter};
pub use options::{
    CsrPPOptions, DEFAULT_GROUP_INSERTS_ABOVE, DEFAULT_SEGMENT_SIZE, DeleteMode, MAX_VERTEX_LIMIT,
    SET_GROUP_INSERTS_ABOVE,
};
pub use snapshot::{CsrPPSnapshot, CsrPPView, CsrPPViewInEdges, CsrPPViewWeights};
pub use store::{CsrPP, CsrPPInEdges, CsrPPWeights, VertexPropertyId};
pub use writer::ConcurrentWriter;

// petgraph's visit traits.
#[cfg(feature = "petgraph")]
dyngraph_core::impl_petgraph_traits!(CsrPP);
#[cfg(feature = "petgraph")]
dyngraph_core::impl_petgraph_traits!(['v] CsrPPView<'v>);
