//! Core types and traits of dyngraph: vertex ids, edges, the read and update
//! traits every store implements, the error type, and [`Csr`], the immutable
//! baseline every dynamic store is measured against.
//!
//! # Traits
//!
//! | trait | what it answers |
//! |---|---|
//! | [`Graph`] | vertex and edge counts, [`Semantics`] |
//! | [`OutNeighbors`] | out-degree and out-neighbours |
//! | [`InNeighbors`] | in-degree and in-neighbours, when kept ([`InNeighbors::has_in_edges`]) |
//! | [`WeightedOutNeighbors`] | out-edges with `f32` weights (1.0 when none are stored) |
//! | [`GraphUpdate`] | insert/delete one edge or a batch, add vertices, each reporting what changed |
//!
//! A kernel is written once against these and runs on every store. The
//! neighbour iterators are associated types, so on [`Csr`] a kernel's loop
//! is a plain slice walk.
//!
//! # Example: build a `Csr` and walk it through the traits
//!
//! ```
//! use dyngraph_core::{Csr, CsrOptions, Edge, Graph, InNeighbors, OutNeighbors};
//!
//! let edges = [Edge::new(0, 1), Edge::new(0, 2), Edge::new(1, 2), Edge::new(2, 0)];
//! let csr = Csr::from_edges(&edges, CsrOptions::default().transpose(true))?;
//!
//! // A function written against the traits works on any store.
//! fn out_degree_sum<G: OutNeighbors>(g: &G) -> u64 {
//!     (0..g.vertex_count() as u32).map(|v| g.out_neighbors(v).count() as u64).sum()
//! }
//! assert_eq!(out_degree_sum(&csr), csr.edge_count());
//! assert_eq!(csr.out_neighbors(0).collect::<Vec<_>>(), [1, 2]);
//! assert!(csr.has_in_edges());
//! assert_eq!(csr.in_neighbors(2).collect::<Vec<_>>(), [0, 1]);
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! # Semantics
//!
//! Every store is built as a [`Semantics::Multigraph`] (each arrival is an
//! edge, as in a message stream) or a [`Semantics::Simple`] graph (set
//! semantics: a repeated insert or a missing delete is a no-op). The
//! [`GraphUpdate`] docs give the exact rules.
//!
//! # Testing support
//!
//! With the `testing` feature, `testing::ReferenceGraph` is a plain
//! adjacency model and `testing::compare_with_model` checks any store
//! against it vertex by vertex.
#![deny(missing_docs)]

mod csr;
mod error;
pub mod hint;
mod traits;
mod types;

#[cfg(feature = "testing")]
pub mod testing;

pub use csr::{Csr, CsrOptions, CsrView, CsrWeightedNeighbors, EdgeChunk, EdgeColumns};
pub use error::{Error, Location, ParseErrorKind, Result};
pub use traits::{
    Graph, GraphUpdate, InNeighbors, OutNeighbors, WeightedOutNeighbors, check_limit,
};
pub use types::{
    DEFAULT_VERTEX_LIMIT, Edge, Semantics, Timestamp, TimestampedEdge, UpdateReport, VertexId,
    Weight, WeightedEdge,
};
