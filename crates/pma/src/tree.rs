//! The density tree: per-level density thresholds and the implicit binary
//! tree over leaf sections that decides which window to redistribute.

use crate::PmaError;
use std::ops::Range;

/// Density thresholds of the tree, given at the leaves and at the root and
/// interpolated linearly for the levels between (Bender, Demaine and
/// Farach-Colton's packed-memory array; the paper's §II-B and Fig. 2).
///
/// Level 0 is the leaf level and level `h` the root. A window at level `l`
/// is *within bounds* when its density `elements / slots` lies in
/// `[lower(l), upper(l)]`. Upper bounds shrink toward the root and lower
/// bounds grow toward it, so a large window is held to tighter bounds than a
/// small one; that is what makes the amortized cost of an insert
/// `O(log² N)` element moves.
///
/// The root bounds also drive resizing: an insert that would push the root
/// above `root_upper` doubles the array; a removal that leaves the root
/// below `root_lower / 2` halves it (never below the minimum capacity). The
/// factor 2 of hysteresis means a doubled array (density just above
/// `root_upper / 2`) is not immediately halved again, which needs
/// `root_lower <= root_upper`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// Lowest allowed leaf density (classic: 0.25).
    pub leaf_lower: f64,
    /// Highest allowed leaf density (classic: 1.0, a leaf may fill up).
    pub leaf_upper: f64,
    /// Lowest allowed root density (classic: 0.5).
    pub root_lower: f64,
    /// Highest allowed root density (classic: 0.75).
    pub root_upper: f64,
}

impl Default for Thresholds {
    /// The classic values: leaves `[0.25, 1.0]`, root `[0.5, 0.75]`.
    fn default() -> Self {
        Thresholds {
            leaf_lower: 0.25,
            leaf_upper: 1.0,
            root_lower: 0.5,
            root_upper: 0.75,
        }
    }
}

impl Thresholds {
    /// Checks that the bounds describe a usable tree:
    /// `0 <= leaf_lower <= root_lower <= root_upper <= leaf_upper <= 1`,
    /// `root_lower < root_upper`, `root_upper > 0`, and no value is NaN.
    pub fn validate(&self) -> Result<(), PmaError> {
        let Thresholds {
            leaf_lower,
            leaf_upper,
            root_lower,
            root_upper,
        } = *self;
        let all = [leaf_lower, leaf_upper, root_lower, root_upper];
        if all
            .iter()
            .any(|v| !v.is_finite() || !(0.0..=1.0).contains(v))
        {
            return Err(PmaError::InvalidConfig(format!(
                "every threshold must be a number in [0, 1], got {self:?}"
            )));
        }
        if !(leaf_lower <= root_lower && root_lower < root_upper && root_upper <= leaf_upper) {
            return Err(PmaError::InvalidConfig(format!(
                "need leaf_lower <= root_lower < root_upper <= leaf_upper, got {self:?}"
            )));
        }
        if root_upper <= 0.0 {
            return Err(PmaError::InvalidConfig(
                "root_upper must be positive".to_string(),
            ));
        }
        Ok(())
    }

    /// The `(lower, upper)` density bounds at `level` of a tree of
    /// `height` (0 = leaves). A tree of height 0 has only a root.
    pub fn bounds(&self, level: u32, height: u32) -> (f64, f64) {
        if height == 0 {
            return (self.root_lower, self.root_upper);
        }
        let t = f64::from(level.min(height)) / f64::from(height);
        (
            self.leaf_lower + (self.root_lower - self.leaf_lower) * t,
            self.leaf_upper + (self.root_upper - self.leaf_upper) * t,
        )
    }

    /// The root density below which the array is halved: `root_lower / 2`.
    pub fn shrink_below(&self) -> f64 {
        self.root_lower / 2.0
    }
}

/// Construction options shared by both layouts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PmaOptions {
    /// The density thresholds (see [`Thresholds`]).
    pub thresholds: Thresholds,
    /// The array never shrinks below this many slots (rounded up to a power
    /// of two for [`PackedSet`](crate::PackedSet)). Default 64.
    pub min_capacity: usize,
    /// Leaf section size: slots per leaf for [`PackedSet`](crate::PackedSet)
    /// (rounded up to a power of two), runs per section for
    /// [`PackedRuns`](crate::PackedRuns). `None` (the default) chooses
    /// `Θ(log N)` and re-chooses it on every resize.
    pub section_size: Option<usize>,
    /// The factor by which [`PackedRuns`](crate::PackedRuns) grows when
    /// the root would pass its upper bound (default 2, the classic
    /// doubling). A smaller factor keeps the array denser right after a
    /// growth (`root_upper / growth` instead of `root_upper / 2`) for
    /// more frequent resizes: each element is moved `growth / (growth -
    /// 1)` times on average by resizes (2 for doubling, 3 for 1.5). Must
    /// be in `(1, 4]`. [`PackedSet`](crate::PackedSet)'s capacity stays a
    /// power of two and always doubles.
    pub growth: f64,
}

impl Default for PmaOptions {
    fn default() -> Self {
        PmaOptions {
            thresholds: Thresholds::default(),
            min_capacity: 64,
            section_size: None,
            growth: 2.0,
        }
    }
}

impl PmaOptions {
    /// Sets the thresholds.
    pub fn thresholds(mut self, thresholds: Thresholds) -> Self {
        self.thresholds = thresholds;
        self
    }

    /// Sets the minimum capacity in slots.
    pub fn min_capacity(mut self, slots: usize) -> Self {
        self.min_capacity = slots;
        self
    }

    /// Fixes the leaf section size (see the field's docs).
    pub fn section_size(mut self, size: usize) -> Self {
        self.section_size = Some(size);
        self
    }

    /// Sets the growth factor of [`PackedRuns`](crate::PackedRuns) (see the
    /// field's docs).
    pub fn growth(mut self, factor: f64) -> Self {
        self.growth = factor;
        self
    }

    /// Checks the thresholds, the growth factor, and that fixed sizes are
    /// positive.
    pub fn validate(&self) -> Result<(), PmaError> {
        self.thresholds.validate()?;
        if !(self.growth > 1.0 && self.growth <= 4.0) {
            return Err(PmaError::InvalidConfig(format!(
                "growth must be in (1, 4], got {}",
                self.growth
            )));
        }
        if self.section_size == Some(0) {
            return Err(PmaError::InvalidConfig(
                "section_size must be at least 1".to_string(),
            ));
        }
        if self.min_capacity == 0 {
            return Err(PmaError::InvalidConfig(
                "min_capacity must be at least 1".to_string(),
            ));
        }
        Ok(())
    }
}

/// The implicit binary tree over `leaf_count` leaf sections.
///
/// A node at level `l` covers the `2^l` leaves aligned at a multiple of
/// `2^l` (the last node of a level may cover fewer when the leaf count is
/// not a power of two); the root at level [`height`](Self::height) covers
/// all of them. Nothing is stored per node: a layout sums its per-leaf
/// counts over a window when it needs the window's density, which costs
/// `O(2^l)` at level `l`, no more than redistributing the window would.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DensityTree {
    leaf_count: usize,
    height: u32,
    thresholds: Thresholds,
}

impl DensityTree {
    /// A tree over `leaf_count` leaves (at least one is assumed).
    pub fn new(leaf_count: usize, thresholds: Thresholds) -> Self {
        let leaf_count = leaf_count.max(1);
        DensityTree {
            leaf_count,
            height: leaf_count.next_power_of_two().trailing_zeros(),
            thresholds,
        }
    }

    /// Number of leaf sections.
    pub fn leaf_count(&self) -> usize {
        self.leaf_count
    }

    /// Height of the root (0 when there is a single leaf).
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The thresholds the tree uses.
    pub fn thresholds(&self) -> &Thresholds {
        &self.thresholds
    }

    /// `(lower, upper)` density bounds at `level`.
    pub fn bounds(&self, level: u32) -> (f64, f64) {
        self.thresholds.bounds(level, self.height)
    }

    /// The leaves covered by the level-`level` node that contains `leaf`.
    pub fn window(&self, leaf: usize, level: u32) -> Range<usize> {
        if level >= self.height {
            return 0..self.leaf_count;
        }
        let first = (leaf >> level) << level;
        first..(first + (1usize << level)).min(self.leaf_count)
    }
}

/// `ceil(log2(n))` for `n >= 1` (0 for `n <= 1`).
pub(crate) fn ceil_log2(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_bounds_interpolate() {
        let t = Thresholds::default();
        assert_eq!(t.bounds(0, 4), (0.25, 1.0));
        assert_eq!(t.bounds(4, 4), (0.5, 0.75));
        let (lo, hi) = t.bounds(2, 4);
        assert!((lo - 0.375).abs() < 1e-12 && (hi - 0.875).abs() < 1e-12);
        assert_eq!(t.bounds(0, 0), (0.5, 0.75));
    }

    #[test]
    fn bad_thresholds_are_refused() {
        let low_root = Thresholds {
            root_upper: 0.2,
            ..Thresholds::default()
        };
        assert!(low_root.validate().is_err());
        let nan = Thresholds {
            leaf_upper: f64::NAN,
            ..Thresholds::default()
        };
        assert!(nan.validate().is_err());
        assert!(PmaOptions::default().section_size(0).validate().is_err());
        assert!(PmaOptions::default().growth(1.0).validate().is_err());
        assert!(PmaOptions::default().growth(f64::NAN).validate().is_err());
        assert!(PmaOptions::default().growth(1.5).validate().is_ok());
        assert!(PmaOptions::default().validate().is_ok());
    }

    #[test]
    fn windows_are_aligned_and_clipped() {
        let tree = DensityTree::new(5, Thresholds::default());
        assert_eq!(tree.height(), 3);
        assert_eq!(tree.window(3, 0), 3..4);
        assert_eq!(tree.window(3, 1), 2..4);
        assert_eq!(tree.window(4, 2), 4..5);
        assert_eq!(tree.window(4, 3), 0..5);
        assert_eq!(ceil_log2(1), 0);
        assert_eq!(ceil_log2(5), 3);
        assert_eq!(ceil_log2(8), 3);
    }
}
