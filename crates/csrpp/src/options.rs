//! How a [`crate::CsrPP`] is built.

use crate::alloc::AllocatorKind;
use dyngraph_core::{Error, Result, StoreOptions};

/// Vertices per segment unless told otherwise: the CSR++ paper's best
/// trade-off between scan locality and update contention.
pub const DEFAULT_SEGMENT_SIZE: usize = 128;

/// Largest vertex limit a [`crate::CsrPP`] accepts: the top bit of an id
/// marks a logically deleted edge, so ids must fit in 31 bits.
pub const MAX_VERTEX_LIMIT: usize = 1 << 31;

/// What a delete does to the edge array.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DeleteMode {
    /// Shift the tail left and halve the array once it is half empty:
    /// `O(degree)` per delete, memory follows the live edges.
    #[default]
    Physical,
    /// Flag the edge (a tombstone bit on its id) and leave it in place:
    /// `O(log degree)` per delete; iterators skip it and
    /// [`crate::CsrPP::compact`] reclaims the slots.
    Logical,
}

/// Options of a [`crate::CsrPP`]: the [`StoreOptions`] every store shares
/// (semantics, weights, in-edges, vertex limit) and CSR++'s own knobs,
/// with builder methods for both.
///
/// ```
/// use dyngraph_csrpp::{AllocatorKind, CsrPPOptions, DeleteMode};
/// use dyngraph_core::{Semantics, StoreOptions};
/// use dyngraph_core::StoreConfig;
/// let options = CsrPPOptions::default()
///     .semantics(Semantics::Simple)
///     .weighted(true)
///     .in_edges(true)
///     .segment_size(64)
///     .delete_mode(DeleteMode::Logical)
///     .allocator(AllocatorKind::Arena);
/// assert_eq!(options.segment_size, 64);
/// assert!(options.store.in_edges);
///
/// // What code written for every store passes: CSR++'s knobs at their defaults.
/// let shared = CsrPPOptions::from(StoreOptions::new(Semantics::Simple).in_edges(true));
/// assert_eq!(shared, CsrPPOptions::default().semantics(Semantics::Simple).in_edges(true));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsrPPOptions {
    /// Semantics, weights, in-edges and vertex limit, as for every store.
    ///
    /// - Semantics apply to single-edge updates and batches (graph algebra
    ///   always uses set semantics).
    /// - `weighted`: store an `f32` per edge, beside its id.
    /// - `in_edges`: keep every vertex's in-list, updated with its
    ///   out-lists (the paper's reverse edges).
    /// - `vertex_limit`: at most [`MAX_VERTEX_LIMIT`].
    pub store: StoreOptions,
    /// Vertices per segment (`NUM_V_SEG`), a power of two.
    pub segment_size: usize,
    /// Physical or logical deletes.
    pub delete_mode: DeleteMode,
    /// Where edge arrays are allocated.
    pub allocator: AllocatorKind,
    /// Keep a map from external `u64` keys to internal ids.
    pub external_keys: bool,
    /// Give the arrays a bulk load packs into a segment's slab their
    /// power-of-two capacity instead of their exact length: inserts then
    /// stay in place (and the packed scan layout survives updates) until a
    /// vertex outgrows it, at the price of about 1.4× the edge memory.
    pub slab_headroom: bool,
    /// Re-pack a segment's lists into one fresh slab, in vertex order,
    /// during a batch insert once earlier updates have left a share of
    /// them (a quarter of the slots of lists up to 1,024 slots) in
    /// separate blocks: CSR++'s per-segment relocation, amortised, so
    /// scans keep a packed layout after many batches. Lists the batch adds
    /// to get their power-of-two capacity in the slab (room to grow in
    /// place), the others exactly their length. The first batch after a
    /// bulk load never re-packs (nothing has left the slabs yet).
    ///
    /// Off by default: on a Kronecker stream, 100 batches of 0.5 % took
    /// about 1.8× as long with it, for about 20 % less memory after the
    /// batches (14.8 instead of 18.4 bytes per edge with in-edges), and
    /// scans did not get faster: in fifteen runs of the sixth pass
    /// PageRank was 1–5 % and BFS 3–12 % slower than on the same store
    /// without re-packing (`BENCHMARKS.md`, "CSR++, sixth pass").
    /// [`crate::CsrPP::defragment`], one copy of the whole store in vertex
    /// order, is what restored scan speed there.
    pub segment_repack: bool,
    /// Maintenance: [`crate::CsrPP::defragment`] the store once grouped
    /// batch inserts (batches past the one-edge-at-a-time threshold) have
    /// added this percentage of the edges it held at its last layout (a
    /// bulk load or a defragment). `None`: only when asked. Single-edge
    /// inserts and small batches never trigger it.
    ///
    /// Each batch moves the arrays it grows to wherever the arena has
    /// room, so scans over consecutive vertices jump around memory more
    /// and more; one copy of the store in vertex order undoes that (see
    /// [`crate::CsrPP::defragment`]). The copy costs about a clone, once
    /// per this share of growth: amortised, a constant per inserted edge.
    pub defragment_after: Option<u32>,
    /// Multigraph insert batches of at most this many edges, into a store
    /// holding edges, no vertex deleted, that does not re-pack segments,
    /// go in one edge at a time (batches of at most 64 always do, unless
    /// this is smaller): below it, grouping a batch by vertex and merging
    /// each touched list costs more than the single inserts it replaces.
    /// The other insert batches (set semantics, deleted vertices: the
    /// segment-grouped path) go one at a time up to
    /// [`SET_GROUP_INSERTS_ABOVE`] edges or this, whichever is more.
    /// Default [`DEFAULT_GROUP_INSERTS_ABOVE`]; 0 groups every batch (the
    /// tests use that to drive the grouped paths with small batches).
    pub group_inserts_above: usize,
}

/// The default of [`CsrPPOptions::group_inserts_above`]: on the shuffled
/// tail of a symmetric Kronecker 20 graph (`batch_updates` example of
/// `dyngraph-benches`, 2026-12-02, load 4–7, one thread, out-edges only),
/// grouping every batch took 1.2–1.6× as many edges per second as single
/// inserts at 1,000 and 3,000 edges and 2.0–2.3× at 10,000 (in-edges
/// kept: 1.2–1.7× and 2.4–2.5×).
pub const DEFAULT_GROUP_INSERTS_ABOVE: usize = 1 << 10;

/// Insert batches that the segment-grouped path takes (set semantics, or
/// some vertex deleted) go one at a time up to this size (see
/// [`CsrPPOptions::group_inserts_above`]). Measured with the
/// `clone_cost` example of `dyngraph-benches` (batch / single inserts):
/// on Kronecker 20 (8,192 segments) 8.8× at 84 edges, 5.3× at 839, 1.14×
/// at 8,389 and 0.56× at 83,886; on CollegeMsg 2.7× at 598 and 1.75× at
/// 5,984.
pub const SET_GROUP_INSERTS_ABOVE: usize = 1 << 14;

impl Default for CsrPPOptions {
    /// A multigraph without weights or in-edges ([`StoreOptions::default`]),
    /// segments of [`DEFAULT_SEGMENT_SIZE`], physical deletes, the arena.
    fn default() -> Self {
        Self::from(StoreOptions::default())
    }
}

impl From<StoreOptions> for CsrPPOptions {
    /// `store`, with CSR++'s own knobs at their defaults.
    fn from(store: StoreOptions) -> Self {
        Self {
            store,
            segment_size: DEFAULT_SEGMENT_SIZE,
            delete_mode: DeleteMode::Physical,
            allocator: AllocatorKind::Arena,
            external_keys: false,
            slab_headroom: false,
            segment_repack: false,
            defragment_after: None,
            group_inserts_above: DEFAULT_GROUP_INSERTS_ABOVE,
        }
    }
}

dyngraph_core::store_config!(CsrPPOptions, store);

dyngraph_core::setters!(CsrPPOptions {
    segment_size: usize,
    delete_mode: DeleteMode,
    allocator: AllocatorKind,
    external_keys: bool,
    slab_headroom: bool,
    segment_repack: bool,
    group_inserts_above: usize,
    defragment_after: Option<u32>,
});

impl CsrPPOptions {
    pub(crate) fn validate(&self) -> Result<()> {
        if !self.segment_size.is_power_of_two() || self.segment_size > 1 << 20 {
            return Err(Error::InvalidArgument(format!(
                "segment size {} is not a power of two in 1..=2^20",
                self.segment_size
            )));
        }
        if self.defragment_after == Some(0) {
            return Err(Error::InvalidArgument(
                "defragment_after is a percentage of growth above 0 (None turns it off)".into(),
            ));
        }
        if self.store.vertex_limit > MAX_VERTEX_LIMIT {
            return Err(Error::InvalidArgument(format!(
                "vertex limit {} exceeds CSR++'s maximum of 2^31 (the top id bit marks deleted edges)",
                self.store.vertex_limit
            )));
        }
        Ok(())
    }
}
