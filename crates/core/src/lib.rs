//! Core types and traits of dyngraph: vertex ids, edges, the read and update
//! traits every store implements, the store contract, the error type, and
//! [`Csr`], the immutable baseline every dynamic store is measured against.
//!
//! # Traits
//!
//! | trait | what it answers |
//! |---|---|
//! | [`Graph`] | vertex count (`usize`), edge count (`u64`), [`Semantics`] |
//! | [`OutNeighbors`] | out-degree and out-neighbours; [`OutNeighbors::edges`] |
//! | [`InEdges`] | the in-edges as an [`InNeighbors`] handle, or [`Error::MissingCapability`] |
//! | [`EdgeWeights`] | the weighted out-edges as a [`WeightedNeighbors`] handle, or [`Error::MissingCapability`] |
//! | [`ReadGraph`] | all of the above: what kernels take |
//! | [`GraphUpdate`] | insert/delete one edge or a batch from any [`EdgeSource`], add vertices, each reporting what changed |
//! | [`FromEdges`], [`Snapshots`], [`GraphStore`] | the store contract: bulk build, snapshots, memory, freeze to [`Csr`] ([`store`](GraphStore) docs) |
//!
//! A kernel is written once against these and runs on every store. The
//! neighbour iterators are associated types, so on [`Csr`] a kernel's loop
//! is a plain slice walk. A capability a store was built without (in-edges,
//! weights) is an error when asked for, never an empty list or a default
//! weight.
//!
//! # Example: build a `Csr` and walk it through the traits
//!
//! ```
//! use dyngraph_core::{Csr, CsrOptions, Edge, Graph, InEdges, InNeighbors, OutNeighbors, StoreConfig};
//!
//! let edges = [Edge::new(0, 1), Edge::new(0, 2), Edge::new(1, 2), Edge::new(2, 0)];
//! let csr = Csr::from_edges(&edges, CsrOptions::default().in_edges(true))?;
//!
//! // A function written against the traits works on any store.
//! fn out_degree_sum<G: OutNeighbors>(g: &G) -> u64 {
//!     (0..g.vertex_count() as u32).map(|v| g.out_neighbors(v).count() as u64).sum()
//! }
//! assert_eq!(out_degree_sum(&csr), csr.edge_count());
//! assert_eq!(csr.out_neighbors(0).collect::<Vec<_>>(), [1, 2]);
//! let incoming = csr.in_edges()?; // checked once
//! assert_eq!(incoming.in_neighbors(2).collect::<Vec<_>>(), [0, 1]);
//!
//! // Without in-edges, asking for them is an error that says what to do.
//! let out_only = Csr::from_edges(&edges, CsrOptions::default())?;
//! assert!(out_only.in_edges().unwrap_err().to_string().contains("without in-edges"));
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
//! # Keys: the ids users have
//!
//! [`IdMap`] maps 64-bit integer or string keys to vertex ids and grows as
//! new keys come (batches interned in parallel, lookups both ways, an
//! append-only byte form for persistence). [`Keyed`] wraps any dynamic
//! store so that edges go in and out by key and results come back by key
//! ([`Keyed::by_key`]); kernels and snapshots run on it as on the store.
//! A loaded file's keys travel with its edges ([`EdgeSource::ids`]), into
//! [`Csr::ids`] and [`Keyed::from_edges`].
//!
//! # Testing support
//!
//! With the `testing` feature, `testing::ReferenceGraph` is a plain
//! adjacency model, `testing::compare_with_model` checks any store against
//! it vertex by vertex, and `testing::check_contract` drives any
//! [`DynamicStore`] through the whole contract (builds, updates, snapshots
//! taken mid-stream, `edges()`, `to_csr()`, capabilities) against it.
//!
//! # petgraph
//!
//! With the `petgraph` feature, `&Csr`, `&CsrView`, `&CsrRebuild` and
//! `&CowView` implement petgraph's visit traits, and
//! `impl_petgraph_traits!` does the same for any type of the read traits
//! (the store crates call it for theirs); the `petgraph` module docs have
//! the mapping.
#![deny(missing_docs)]

pub mod cow;
mod csr;
mod edges;
mod error;
mod fresh;
pub mod grouping;
pub mod hint;
mod ids;
mod keyed;
#[cfg(feature = "petgraph")]
pub mod petgraph;
mod rebuild;
mod source;
mod store;
mod traits;
mod types;

#[cfg(feature = "testing")]
pub mod testing;

pub use csr::{Csr, CsrInEdges, CsrOptions, CsrSnapshot, CsrView, CsrWeights};
pub use edges::{Edges, WeightedEdges};
pub use error::{Capability, Error, Location, ParseErrorKind, Result};
pub use ids::{IdKey, IdKind, IdMap, OriginalId};
pub use keyed::{ByKey, Keyed};
pub use rebuild::CsrRebuild;
pub use source::{EdgeChunk, EdgeChunks, EdgeColumns, EdgeRecord, EdgeSource};
pub use store::{
    Capabilities, DynamicStore, FromEdges, GraphStore, MaintenanceStats, Snapshots, StoreConfig,
    StoreOptions,
};
pub use traits::{
    EdgeWeights, Graph, GraphUpdate, InEdges, InNeighbors, OutNeighbors, ReadGraph, UnitWeights,
    WeightedNeighbors, check_limit,
};
pub use types::{
    DEFAULT_VERTEX_LIMIT, Edge, Semantics, Timestamp, TimestampedEdge, UpdateReport, VertexId,
    Weight, WeightedEdge,
};
