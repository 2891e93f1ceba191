//! Operation counters, cheap enough to leave on in release builds.

/// Counters of the work a layout has done since it was built.
///
/// Each field is a plain `u64` bumped on the path that does the work (no
/// atomics, no logging), so keeping them costs a few adds per operation.
/// Density and bytes per element are computed on demand by the layouts
/// (`density()`, `bytes_per_element()`), since they are functions of the
/// current state, not counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PmaStats {
    /// Window redistributions, indexed by tree level (0 = one leaf
    /// section). Redistributions done as part of a resize are counted in
    /// [`grows`](Self::grows)/[`shrinks`](Self::shrinks), not here.
    pub rebalances_per_level: Vec<u64>,
    /// Every existing element copied to a different slot, for any reason:
    /// the sum of the `moved_by_*` fields.
    pub elements_moved: u64,
    /// Elements moved by window redistributions.
    pub moved_by_rebalance: u64,
    /// Elements moved by local shifts: making room inside a leaf of a
    /// [`PackedSet`](crate::PackedSet), shifting neighbouring runs by one
    /// slot, or inserting/removing inside a run.
    pub moved_by_shift: u64,
    /// Elements moved by resizes (growing, shrinking, `compact`).
    pub moved_by_resize: u64,
    /// Times the array doubled (or grew by more, for a bulk add).
    pub grows: u64,
    /// Times the array halved (or shrank by more).
    pub shrinks: u64,
    /// Elements inserted.
    pub inserts: u64,
    /// Elements removed (physically; tombstoning is the owner's business).
    pub removes: u64,
    /// Tombstones reclaimed by redistributions and `compact`.
    pub reclaimed: u64,
    /// Times a user [`GapPolicy`](crate::GapPolicy) returned gaps that did
    /// not add up to the free slots and [`Even`](crate::Even) was used
    /// instead.
    pub policy_fallbacks: u64,
}

impl PmaStats {
    /// Total window redistributions over all levels.
    pub fn rebalances(&self) -> u64 {
        self.rebalances_per_level.iter().sum()
    }

    /// Total resizes (grows plus shrinks).
    pub fn resizes(&self) -> u64 {
        self.grows + self.shrinks
    }

    /// Elements moved per insert (0 before the first insert).
    pub fn moves_per_insert(&self) -> f64 {
        if self.inserts == 0 {
            0.0
        } else {
            self.elements_moved as f64 / self.inserts as f64
        }
    }

    pub(crate) fn count_rebalance(&mut self, level: u32, moved: u64) {
        let level = level as usize;
        if self.rebalances_per_level.len() <= level {
            self.rebalances_per_level.resize(level + 1, 0);
        }
        self.rebalances_per_level[level] += 1;
        self.moved_by_rebalance += moved;
        self.elements_moved += moved;
    }

    pub(crate) fn count_shift(&mut self, moved: u64) {
        self.moved_by_shift += moved;
        self.elements_moved += moved;
    }

    pub(crate) fn count_resize(&mut self, grew: bool, moved: u64) {
        if grew {
            self.grows += 1;
        } else {
            self.shrinks += 1;
        }
        self.moved_by_resize += moved;
        self.elements_moved += moved;
    }
}
