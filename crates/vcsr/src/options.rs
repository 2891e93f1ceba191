//! How a [`Vcsr`](crate::Vcsr) is built: the shared [`StoreOptions`], the
//! gap policy, and the packed-memory-array options of each edge array.
//! `Pcsr` and `Bal` take [`StoreOptions`] alone.

use dyngraph_core::{StoreConfig, StoreOptions};
use dyngraph_pma::{DegreeProportional, PmaOptions};
use std::fmt;

/// The default [`VcsrOptions::merge_batches_above`].
pub const MERGE_BATCHES_ABOVE: usize = 1 << 12;

/// How a [`Vcsr`](crate::Vcsr) takes a batch of more than
/// [`VcsrOptions::merge_batches_above`] edges (smaller batches go in one
/// edge at a time either way).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BatchUpdates {
    /// Grouped by vertex in parallel and merged into each edge array in one
    /// pass: each packed-memory-array window the batch overflows is laid
    /// out again once, disjoint windows in parallel, or the whole array is
    /// rebuilt when that touches less; deletes are tombstoned run by run in
    /// parallel. In-edges the same way.
    #[default]
    Merged,
    /// The earlier serial path, kept to measure against: inserts grouped
    /// by source and pushed one at a time (every overflow its own
    /// rebalance), deletes one at a time.
    EdgeByEdge,
}

/// The pma options of a [`Vcsr`](crate::Vcsr)'s out-edge array by default:
/// the classic density thresholds (root at most 0.75 full), growing by 1.3
/// instead of doubling, so an edge array is at least `0.75 / 1.3 = 0.58`
/// dense right after a growth instead of 0.375. With 4-byte slots that is
/// at most 6.9 bytes per edge of slots, plus 9 bytes of pma bookkeeping and
/// 4 of degree per vertex: under twice `Csr`'s `4 + 8 V / E` at any point
/// of the growth cycle. The price is more resizes: each element is moved
/// `1.3 / 0.3 = 4.3` times by resizes on average instead of 2 (on a 5.2M
/// edge Kronecker stream, about 15% fewer inserts per second than growing
/// by 1.5; `BENCHMARKS.md`).
pub fn default_out_edge_pma_options() -> PmaOptions {
    PmaOptions::default().growth(1.3)
}

/// The pma options of the in-edge array by default: as
/// [`default_out_edge_pma_options`] but with the root at most 0.85 full
/// instead of 0.75, so the array is between `0.85 / 1.3 = 0.65` and 0.85
/// dense instead of between 0.58 and 0.75.
///
/// Why the two arrays differ: the in-edge array is there for pull kernels
/// (PageRank, bottom-up BFS), which stream it whole, gaps included, so its
/// density sets how close they come to `Csr`; it is written only when an
/// in-edge graph takes an insert, and there a fuller array costs more
/// rebalancing. Measured on the Kronecker s20 stream's final graph, pull
/// PageRank took up to 0.13× of `Csr`'s time less than with this array at
/// 0.75 (for example 1.14× `Csr` instead of 1.27×); inserts with in-edges
/// kept stay above twice `Pcsr`'s rate with in-edges, and about 30 %
/// slower than with this array at 0.75 (`BENCHMARKS.md`, "Issue 5, fifth
/// pass"). Graphs without in-edges do not use it.
pub fn default_in_edge_pma_options() -> PmaOptions {
    let mut options = default_out_edge_pma_options();
    options.thresholds.root_upper = 0.85;
    options
}

/// Everything a [`Vcsr`](crate::Vcsr) is built with: the [`StoreOptions`]
/// every store shares, the gap policy `P` of its edge arrays, and each
/// array's [`PmaOptions`] (density thresholds, growth, section size,
/// minimum capacity).
///
/// The defaults are a sparser out-edge array, written by every insert
/// ([`default_out_edge_pma_options`]), and a denser in-edge array for pull
/// kernels ([`default_in_edge_pma_options`]). Raising an array's root upper
/// threshold trades its insert speed for fewer bytes per edge and, for the
/// in-edges, faster pull kernels.
///
/// `VcsrOptions::from(store)` (or `default()`) starts from
/// [`StoreOptions`] with the default [`DegreeProportional`] policy, and the
/// shared setters come from [`StoreConfig`]; [`VcsrOptions::policy`] swaps
/// the policy (and the type).
///
/// ```
/// use dyngraph_core::{Semantics, StoreConfig, StoreOptions};
/// use dyngraph_vcsr::{Even, Vcsr, VcsrOptions, default_in_edge_pma_options, default_out_edge_pma_options};
///
/// // Both arrays as dense as the in-edge default (fewer bytes per edge,
/// // slower inserts), with even gaps.
/// let options = VcsrOptions::from(StoreOptions::new(Semantics::Simple).in_edges(true))
///     .edge_arrays(default_in_edge_pma_options())
///     .policy(Even);
/// let graph: Vcsr<Even> = Vcsr::new(options)?;
/// assert_eq!(graph.options().out_edge_array, default_in_edge_pma_options());
///
/// // The defaults: a sparser out-edge array for inserts, a denser in-edge
/// // array for pull kernels.
/// let defaults = VcsrOptions::default().in_edges(true);
/// assert!(defaults.store.in_edges);
/// assert_eq!(defaults.out_edge_array, default_out_edge_pma_options());
/// assert!(defaults.in_edge_array.thresholds.root_upper > defaults.out_edge_array.thresholds.root_upper);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct VcsrOptions<P = DegreeProportional> {
    /// Semantics, weights, in-edges and the vertex limit (at most `2^31`
    /// for `Vcsr`: the top id bit marks deletions).
    pub store: StoreOptions,
    /// How a redistributed window shares its free slots among vertices
    /// (cloned for the in-edge array).
    pub policy: P,
    /// The out-edge array's pma options (default
    /// [`default_out_edge_pma_options`]).
    pub out_edge_array: PmaOptions,
    /// The in-edge array's pma options, used when
    /// [`StoreOptions::in_edges`] keeps one (default
    /// [`default_in_edge_pma_options`]).
    pub in_edge_array: PmaOptions,
    /// How batches are applied (default [`BatchUpdates::Merged`]).
    pub batch_updates: BatchUpdates,
    /// Batches of more than this many edges take the merged path, smaller
    /// ones go in one edge at a time, which costs less below it (default
    /// [`MERGE_BATCHES_ABOVE`]). Only read under [`BatchUpdates::Merged`].
    pub merge_batches_above: usize,
}

impl<P> VcsrOptions<P> {
    /// The same options with another gap policy.
    pub fn policy<Q>(self, policy: Q) -> VcsrOptions<Q> {
        VcsrOptions {
            store: self.store,
            policy,
            out_edge_array: self.out_edge_array,
            in_edge_array: self.in_edge_array,
            batch_updates: self.batch_updates,
            merge_batches_above: self.merge_batches_above,
        }
    }

    /// Sets [`VcsrOptions::merge_batches_above`].
    pub fn merge_batches_above(mut self, edges: usize) -> Self {
        self.merge_batches_above = edges;
        self
    }

    /// Sets [`VcsrOptions::batch_updates`].
    pub fn batch_updates(mut self, batch_updates: BatchUpdates) -> Self {
        self.batch_updates = batch_updates;
        self
    }

    /// Sets [`VcsrOptions::out_edge_array`].
    pub fn out_edge_array(mut self, options: PmaOptions) -> Self {
        self.out_edge_array = options;
        self
    }

    /// Sets [`VcsrOptions::in_edge_array`].
    pub fn in_edge_array(mut self, options: PmaOptions) -> Self {
        self.in_edge_array = options;
        self
    }

    /// Sets both arrays' pma options to `options`.
    pub fn edge_arrays(self, options: PmaOptions) -> Self {
        self.out_edge_array(options).in_edge_array(options)
    }
}

/// The options of the default [`Vcsr`](crate::Vcsr), with
/// [`DegreeProportional`] gaps: only this policy has `Default` and
/// `From<StoreOptions>`, so `VcsrOptions::default()` names one type and
/// `Vcsr::from_edges(&edges, VcsrOptions::default())` needs no annotation.
impl Default for VcsrOptions<DegreeProportional> {
    /// [`StoreOptions::default`], the default policy and arrays.
    fn default() -> Self {
        Self::from(StoreOptions::default())
    }
}

impl From<StoreOptions> for VcsrOptions<DegreeProportional> {
    /// `store` with [`DegreeProportional`] gaps and the default arrays.
    fn from(store: StoreOptions) -> Self {
        Self::from_shared(store)
    }
}

/// Any policy with a default, for code written against every store.
impl<P: Default + Clone + fmt::Debug> StoreConfig for VcsrOptions<P> {
    fn from_shared(store: StoreOptions) -> Self {
        VcsrOptions {
            store,
            policy: P::default(),
            out_edge_array: default_out_edge_pma_options(),
            in_edge_array: default_in_edge_pma_options(),
            batch_updates: BatchUpdates::default(),
            merge_batches_above: MERGE_BATCHES_ABOVE,
        }
    }

    fn shared(&self) -> &StoreOptions {
        &self.store
    }

    fn shared_mut(&mut self) -> &mut StoreOptions {
        &mut self.store
    }
}
