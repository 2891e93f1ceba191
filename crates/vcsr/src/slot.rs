//! What one slot of a VCSR edge array holds: a target id whose top bit is
//! the tombstone mark, and optionally a weight.
//!
//! No per-edge version is stored. Within a vertex the edges are in
//! insertion order, so a snapshot is a copy of the degrees (DGAP's degree
//! cache) plus the deletion time of the few tombstones made while a
//! snapshot was live, kept beside the array (see `snapshot.rs`). That keeps
//! an unweighted slot at 4 bytes, the size of a `Csr` target.

use dyngraph_core::{VertexId, Weight};
use dyngraph_pma::Element;

/// The tombstone mark: ids are below `2^31`, so the top bit is free.
pub(crate) const TOMBSTONE: u32 = 1 << 31;

/// Largest vertex count a VCSR accepts (ids must leave the top bit free).
pub(crate) const MAX_VERTICES: usize = TOMBSTONE as usize;

/// A slot's target: the id, or the id with [`TOMBSTONE`] set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct Target(pub(crate) u32);

impl Target {
    #[inline]
    pub(crate) fn is_live(self) -> bool {
        self.0 & TOMBSTONE == 0
    }

    /// The id, with the tombstone mark cleared.
    #[inline]
    pub(crate) fn id(self) -> VertexId {
        self.0 & !TOMBSTONE
    }
}

impl Element for Target {
    #[inline]
    fn is_tombstone(&self) -> bool {
        !self.is_live()
    }
}

/// A weighted slot: 8 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WeightedTarget {
    pub(crate) target: Target,
    pub(crate) weight: Weight,
}

impl Element for WeightedTarget {
    #[inline]
    fn is_tombstone(&self) -> bool {
        !self.target.is_live()
    }
}

/// Both slot kinds, so the edge-array code is written once.
pub(crate) trait Slot: Element + Send + Sync + 'static {
    fn new(target: VertexId, weight: Weight) -> Self;
    fn target(&self) -> Target;
    fn target_mut(&mut self) -> &mut Target;
}

impl Slot for Target {
    #[inline]
    fn new(target: VertexId, _weight: Weight) -> Self {
        Target(target)
    }
    #[inline]
    fn target(&self) -> Target {
        *self
    }
    #[inline]
    fn target_mut(&mut self) -> &mut Target {
        self
    }
}

impl Slot for WeightedTarget {
    #[inline]
    fn new(target: VertexId, weight: Weight) -> Self {
        WeightedTarget {
            target: Target(target),
            weight,
        }
    }
    #[inline]
    fn target(&self) -> Target {
        self.target
    }
    #[inline]
    fn target_mut(&mut self) -> &mut Target {
        &mut self.target
    }
}
