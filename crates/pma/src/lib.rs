//! `dyngraph-pma`: packed-memory arrays (PMA) for dynamic graphs.
//!
//! A packed-memory array is a sorted array with free slots (gaps) spread
//! through it, so that an insert moves a few neighbours instead of the
//! whole tail. An implicit binary tree over fixed-size leaf sections keeps
//! each window's density between per-level thresholds, and redistributes a
//! window's gaps when it leaves them (Bender, Demaine and Farach-Colton;
//! the VCSR paper's §II-B and Fig. 2).
//!
//! This crate has the engine under two mutable-CSR layouts:
//!
//! | type | layout | used by |
//! |---|---|---|
//! | [`PackedSet<T>`] | edge-centric: an ordered set, leaves of `Θ(log N)` slots, gaps spread evenly | PCSR |
//! | [`PackedRuns<T, P>`] | vertex-centric: numbered runs (run = vertex), each contiguous in insertion order, sections of `Θ(log R)` runs, gaps shared by a [`GapPolicy`] `P` | VCSR |
//!
//! and the pieces they share: [`Thresholds`] and the [`DensityTree`],
//! [`PmaOptions`], the gap policies [`Even`], [`DegreeProportional`] (the
//! VCSR default) and [`HistoryAdaptive`], and the counters in [`PmaStats`].
//!
//! # Cost model
//!
//! - **Inserts.** With even gaps the amortized number of element moves per
//!   insert is `O(log² N)`: a window at level `l` that is redistributed
//!   has room for `Θ(2^l L (τ_l - τ_{l+1}))` inserts before it needs it
//!   again. VCSR's point is that real graphs are skewed, so giving each
//!   run gaps in proportion to its length ([`DegreeProportional`]) makes
//!   the redistributions much rarer when future inserts follow current
//!   degree. `BENCHMARKS.md` has the measured moves per insert for each
//!   policy and workload, and the `Even` curve at several `N`.
//! - **Scans.** Elements are packed at the start of each leaf (set) or run
//!   (runs), so a scan is a loop of slice loops; it reads the slots
//!   between, i.e. `1 / density` times the bytes of a dense array
//!   (density is between `root_lower / 2` and `root_upper` of the
//!   capacity, `[0.25, 0.75]` by default). The measured ratio to a dense
//!   `Vec` scan is in `BENCHMARKS.md`.
//! - **Memory.** `capacity * size_of::<T>()` plus one word per leaf (set)
//!   or two `u32` and a flag per run (runs: 9 bytes); [`PackedSet::memory_bytes`]
//!   and [`PackedRuns::memory_bytes`] report it.
//!
//! # In-place redistribution
//!
//! Redistribution never copies the array: the elements of a window are
//! cut into blocks that keep their order, blocks moving left are moved
//! left to right, then blocks moving right are moved right to left, which
//! never overwrites an element that has not moved yet (the proof is in the
//! `mover` module's source). Resizes grow the vector before, or truncate
//! it after, the same in-place redistribution of the root.
//!
//! # Example: the edge-centric layout (PCSR)
//!
//! ```
//! use dyngraph_pma::PackedSet;
//!
//! let mut set = PackedSet::new();
//! for x in (0..1000u32).rev() {
//!     set.insert(x * 2);
//! }
//! assert_eq!(set.len(), 1000);
//! assert!(set.contains(&10));
//! assert_eq!(set.successor(&10), Some(12));
//! assert_eq!(set.range(5..=9).collect::<Vec<_>>(), [6, 8]);
//! assert!(set.stats().elements_moved > 0);
//! set.validate()?;
//! # Ok::<(), dyngraph_pma::PmaError>(())
//! ```
//!
//! # Example: the vertex-centric layout (VCSR) with tombstones
//!
//! ```
//! use dyngraph_pma::{Element, PackedRuns, Reclaim};
//!
//! /// An edge target with a deletion mark, as a store would keep it.
//! #[derive(Clone, Copy, Debug, Default, PartialEq)]
//! struct Target {
//!     dst: u32,
//!     deleted: bool,
//! }
//! impl Element for Target {
//!     fn is_tombstone(&self) -> bool {
//!         self.deleted
//!     }
//! }
//!
//! let mut runs: PackedRuns<Target> = PackedRuns::new(); // DegreeProportional
//! runs.add_runs(4)?;
//! for dst in 0..10 {
//!     runs.push(1, Target { dst, deleted: false })?;
//! }
//! // Delete edge 1 -> 3 lazily: mark it; readers skip it.
//! runs.run_mut(1).unwrap()[3].deleted = true;
//! let live = |r: &PackedRuns<Target>| {
//!     r.run(1).unwrap().iter().filter(|t| !t.deleted).count()
//! };
//! assert_eq!(live(&runs), 9);
//! assert_eq!(runs.run_len(1), Some(10));
//! // A store with live snapshots delays reclamation ...
//! runs.set_reclaim(Reclaim::Never);
//! runs.compact();
//! assert_eq!(runs.run_len(1), Some(10));
//! // ... and later lets the next redistribution or compact drop it.
//! runs.set_reclaim(Reclaim::Tombstones);
//! runs.compact();
//! assert_eq!(runs.run_len(1), Some(9));
//! assert_eq!(live(&runs), 9);
//! runs.validate()?;
//! # Ok::<(), dyngraph_pma::PmaError>(())
//! ```
#![deny(missing_docs)]

mod element;
mod error;
mod huge_pages;
mod mover;
mod packed_set;
mod policy;
mod runs;
mod stats;
mod tree;

pub use element::{Element, Reclaim};
pub use error::PmaError;
pub use packed_set::{Iter, PackedSet, Range, SlotMove};
pub use policy::{
    DegreeProportional, Even, GapPolicy, HistoryAdaptive, LinearGaps, Window, apportion,
};
pub use runs::{MAX_CAPACITY, PackedRuns, RunAppends};
pub use stats::PmaStats;
pub use tree::{DensityTree, PmaOptions, Thresholds};
