//! `dyngraph-csrpp`: CSR++ — a segmented, concurrently updatable CSR — with
//! Sahu's power-of-two arena, batch graph algebra and parallel clone.
//!
//! CSR++ (paper `001`) keeps CSR's contiguous neighbour arrays for scans
//! but gives every vertex its own sorted array, so an update touches one
//! vertex and locks one segment of vertices. Sahu (paper `002`) adds a
//! concurrent power-of-two arena for those arrays (CP2AA), batch updates as
//! graph union and difference, and a parallel deep copy. [`CsrPP`] is both.
//!
//! | piece | where |
//! |---|---|
//! | segments of `NUM_V_SEG` vertices behind a growable directory | [`CsrPP`], [`CsrPPConfig::segment_size`] |
//! | 16-byte vertex entries, two ids inline (one id and weight when weighted), sorted power-of-two arrays, weights in the same block | [`CsrPP`] (cost model) |
//! | one `parking_lot` lock per segment, `&self` updates, phase split by borrow | [`ConcurrentWriter`] |
//! | batch insert/delete: sort, group by source, parallel merge per segment | [`dyngraph_core::GraphUpdate`] impl |
//! | logical deletes + compaction, physical deletes | [`DeleteMode`], [`CsrPP::compact`] |
//! | union/difference in place or into a new instance, parallel clone | [`CsrPP::add_graph_in_place`], [`CsrPP::subtract_graph`], `Clone` |
//! | reverse edges, vertex properties, external `u64` keys | [`CsrPPConfig`], [`CsrPP::add_vertex_property`], [`CsrPP::insert_edge_by_key`] |
//! | power-of-two arena (16 B … 8 KiB classes, sharded free lists), the default | [`AllocatorKind::Arena`] |
//! | bulk loads packed per segment, exactly or with headroom | [`CsrPPConfig::slab_headroom`] |
//! | batches re-pack segments that updates scattered (opt-in) | [`CsrPPConfig::segment_repack`] |
//! | lay the whole store out again in vertex order after many batches | [`CsrPP::defragment`] |
//!
//! # Example: serial and batch updates, then a scan
//!
//! ```
//! use dyngraph_core::{Edge, Graph, GraphUpdate, InNeighbors, OutNeighbors, Semantics};
//! use dyngraph_csrpp::{CsrPP, CsrPPConfig};
//!
//! let config = CsrPPConfig::default()
//!     .semantics(Semantics::Simple)
//!     .reverse_edges(true);
//! let mut graph = CsrPP::from_edges(&[Edge::new(0, 1), Edge::new(2, 1)], config)?;
//! assert!(graph.insert_edge(1, 0)?);
//! assert!(!graph.insert_edge(1, 0)?); // simple graph: already there
//! let report = graph.insert_edges(&[Edge::new(3, 1), Edge::new(0, 1)])?;
//! assert_eq!(report.edges_added, 1);
//! assert_eq!(graph.in_neighbors(1).collect::<Vec<_>>(), [0, 2, 3]);
//! assert!(graph.delete_edge(2, 1)?);
//! assert_eq!(graph.in_degree(1), 2);
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! # Example: concurrent inserts, then graph algebra
//!
//! ```
//! use dyngraph_core::{Edge, Graph, OutNeighbors};
//! use dyngraph_csrpp::{AllocatorKind, CsrPP, CsrPPConfig};
//! use rayon::prelude::*;
//!
//! let config = CsrPPConfig::default().allocator(AllocatorKind::Arena);
//! let mut graph = CsrPP::new(config.clone())?;
//! let writer = graph.concurrent_writer();
//! (0..1000u32).into_par_iter().for_each(|i| {
//!     writer.insert_edge(i % 10, i).unwrap();
//! });
//! drop(writer); // end of the update phase
//! assert_eq!(graph.edge_count(), 1000);
//!
//! let batch = CsrPP::from_edges(&[Edge::new(0, 0), Edge::new(0, 5000)], config)?;
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
mod config;
mod iter;
mod keys;
mod segment;
mod store;
mod writer;

pub use alloc::AllocatorKind;
pub use config::{CsrPPConfig, DEFAULT_SEGMENT_SIZE, DeleteMode, MAX_VERTEX_LIMIT};
pub use iter::{Neighbors, WeightedNeighbors};
pub use store::{CsrPP, VertexPropertyId};
pub use writer::ConcurrentWriter;
