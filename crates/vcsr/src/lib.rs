//! Mutable CSR graph stores: [`Vcsr`], [`Bal`].
#![deny(missing_docs)]

mod bal;
mod options;
mod slot;
pub mod snapshot;
mod vcsr;

pub use bal::{BLOCK_EDGES, Bal, BalNeighbors, BalStats, BalWeightedNeighbors};
pub use dyngraph_pma::{DegreeProportional, Even, GapPolicy, HistoryAdaptive, PmaStats};
pub use options::StoreOptions;
pub use snapshot::{Snapshot, SnapshotNeighbors, SnapshotView, SnapshotWeightedNeighbors};
pub use vcsr::{Vcsr, VcsrNeighbors, VcsrStats, VcsrWeightedNeighbors};
