//! Mutable CSR graph stores: [`Bal`] (blocked adjacency list).
#![deny(missing_docs)]

mod bal;
mod options;

pub use bal::{BLOCK_EDGES, Bal, BalNeighbors, BalStats, BalWeightedNeighbors};
pub use options::StoreOptions;
