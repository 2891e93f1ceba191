//! Mutable CSR graph stores: [`Vcsr`], [`Bal`].
#![deny(missing_docs)]

mod bal;
mod options;
mod pcsr;
mod slot;
pub mod snapshot;
mod vcsr;

pub use bal::{BLOCK_EDGES, Bal, BalNeighbors, BalStats, BalWeightedNeighbors};
pub use dyngraph_pma::{DegreeProportional, Even, GapPolicy, HistoryAdaptive, PmaStats};
pub use options::StoreOptions;
pub use pcsr::{Pcsr, PcsrNeighbors, PcsrWeightedNeighbors};
pub use snapshot::{Snapshot, SnapshotNeighbors, SnapshotView, SnapshotWeightedNeighbors};
pub use vcsr::{Vcsr, VcsrNeighbors, VcsrStats, VcsrWeightedNeighbors};
