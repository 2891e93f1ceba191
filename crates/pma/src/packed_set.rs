//! The edge-centric layout: an ordered set with gaps (PCSR's edge array).

use crate::PmaError;
use crate::mover::{Block, move_blocks, push_block};
use crate::stats::PmaStats;
use crate::tree::{DensityTree, PmaOptions, ceil_log2};
use std::ops::{Bound, RangeBounds};

/// An ordered set of `T` in a packed-memory array: a sorted array with
/// free slots spread through it, so an insert moves a few neighbours
/// instead of the whole tail. This is PCSR's edge array (the paper's
/// §II-B): store `(src, dst)` pairs and a vertex's edges are the range
/// `(v, 0)..(v + 1, 0)`.
///
/// The array is cut into leaves of `L = Θ(log N)` slots (a power of two);
/// each leaf keeps its elements packed at its start, sorted, with its free
/// slots after them, and a leaf's elements are all smaller than the next
/// non-empty leaf's. Redistributions spread a window's elements evenly
/// over its leaves (within one).
///
/// # Operations and cost model
///
/// | operation | cost |
/// |---|---|
/// | [`contains`](Self::contains), [`successor`](Self::successor), [`lower_bound`](Self::lower_bound) | binary search over leaves, then inside one leaf: `O(log N)` (plus a skip over empty leaves, which even redistribution keeps rare) |
/// | [`insert`](Self::insert) | the search, plus moving at most `L` elements inside the leaf; when the leaf is full, a redistribution of the smallest window within its upper bound: amortized `O(log² N)` moves (measured in `BENCHMARKS.md`) |
/// | [`remove`](Self::remove) | the search, at most `L` moves in the leaf; a redistribution when the leaf falls below its lower bound; the array halves when the root falls below `root_lower / 2` |
/// | [`iter`](Self::iter), [`range`](Self::range) | `O(1)` per element plus `O(1)` per leaf: a scan reads `capacity` slots' worth of leaves but touches only the packed prefix of each |
///
/// Memory: `capacity * size_of::<T>()` with `capacity` a power of two
/// between `N / root_upper` and `2 N / root_lower` once past the minimum,
/// plus one `usize` per leaf (`8 / L` bytes per slot).
///
/// `T: Default` is required because free slots must hold a value (the
/// crate has no uninitialised memory); `T::default()` is written into new
/// slots on growth.
///
/// # Example
///
/// ```
/// use dyngraph_pma::PackedSet;
///
/// let mut edges: PackedSet<(u32, u32)> = PackedSet::new();
/// for e in [(2, 1), (0, 3), (0, 1), (1, 2)] {
///     assert!(edges.insert(e));
/// }
/// assert!(!edges.insert((0, 1))); // already there
/// // Vertex 0's out-edges are the range (0, 0)..(1, 0).
/// let out0: Vec<_> = edges.range((0, 0)..(1, 0)).map(|(_, d)| d).collect();
/// assert_eq!(out0, [1, 3]);
/// assert_eq!(edges.successor(&(0, 3)), Some((1, 2)));
/// assert!(edges.remove(&(0, 3)));
/// assert_eq!(edges.iter().collect::<Vec<_>>(), [(0, 1), (1, 2), (2, 1)]);
/// edges.validate()?;
/// # Ok::<(), dyngraph_pma::PmaError>(())
/// ```
#[derive(Clone, Debug)]
pub struct PackedSet<T> {
    slots: Vec<T>,
    /// Elements at the start of each leaf.
    counts: Vec<usize>,
    /// `heads[i]` is leaf `i`'s first element, or for an empty leaf the
    /// previous leaf's entry (`None` before the first non-empty leaf), so
    /// the array is non-decreasing and a search is one binary search over
    /// a dense array of heads instead of probing leaves.
    heads: Vec<Option<T>>,
    leaf_size: usize,
    len: usize,
    tree: DensityTree,
    config: PmaOptions,
    stats: PmaStats,
    scratch_old: Vec<(usize, usize)>,
    scratch_new: Vec<(usize, usize)>,
    scratch_blocks: Vec<Block>,
    /// Slots whose contents may have changed since the last
    /// [`PackedSet::take_changed`], as `start..end` (empty when none).
    changed: (usize, usize),
    /// How the last insert moved the elements already there
    /// ([`PackedSet::last_insert_moves`]): the blocks of `scratch_blocks`
    /// when it redistributed, else its shift inside a leaf, if any.
    moves_from_plan: bool,
    shift_move: Option<SlotMove>,
    /// The slot the last insert wrote.
    inserted_at: usize,
}

/// One order-preserving move of a [`PackedSet`] update: the `len` elements
/// at `src..src + len` went to `dst..dst + len`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlotMove {
    /// The first slot the elements left.
    pub src: usize,
    /// The first slot they went to.
    pub dst: usize,
    /// How many elements moved together.
    pub len: usize,
}

impl SlotMove {
    /// Where the element that was at `slot` is now, if this move took it.
    #[inline]
    pub fn follow(&self, slot: usize) -> Option<usize> {
        (slot >= self.src && slot < self.src + self.len).then(|| slot - self.src + self.dst)
    }
}

impl<T: Ord + Copy + Default> Default for PackedSet<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Ord + Copy + Default> FromIterator<T> for PackedSet<T> {
    /// Sorts and deduplicates, then lays the elements out evenly at the
    /// middle of the root's density bounds.
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        match Self::from_iter_with(PmaOptions::default(), iter) {
            Ok(set) => set,
            Err(_) => unreachable!("the default configuration is valid"),
        }
    }
}

impl<T: Ord + Copy + Default> PackedSet<T> {
    /// An empty set with the default configuration.
    pub fn new() -> Self {
        match Self::with_config(PmaOptions::default()) {
            Ok(set) => set,
            Err(_) => unreachable!("the default configuration is valid"),
        }
    }

    /// An empty set; refuses an invalid configuration.
    pub fn with_config(config: PmaOptions) -> Result<Self, PmaError> {
        config.validate()?;
        let capacity = config.min_capacity.next_power_of_two();
        let leaf_size = Self::leaf_size_for(&config, capacity);
        let leaves = capacity / leaf_size;
        Ok(PackedSet {
            slots: vec![T::default(); capacity],
            counts: vec![0; leaves],
            heads: vec![None; leaves],
            leaf_size,
            len: 0,
            tree: DensityTree::new(leaves, config.thresholds),
            config,
            stats: PmaStats::default(),
            scratch_old: Vec::new(),
            scratch_new: Vec::new(),
            scratch_blocks: Vec::new(),
            changed: (0, 0),
            moves_from_plan: false,
            shift_move: None,
            inserted_at: 0,
        })
    }

    /// Builds a set from any elements (sorted and deduplicated here), laid
    /// out evenly at the middle of the root's density bounds. Stats start
    /// at zero.
    pub fn from_iter_with<I: IntoIterator<Item = T>>(
        config: PmaOptions,
        iter: I,
    ) -> Result<Self, PmaError> {
        let mut set = Self::with_config(config)?;
        let mut elements: Vec<T> = iter.into_iter().collect();
        elements.sort_unstable();
        elements.dedup();
        let n = elements.len();
        if n == 0 {
            return Ok(set);
        }
        let t = config.thresholds;
        let target = (t.root_lower + t.root_upper) / 2.0;
        let capacity = ((n as f64 / target).ceil() as usize)
            .max(config.min_capacity)
            .next_power_of_two();
        let leaf_size = Self::leaf_size_for(&config, capacity);
        let leaves = capacity / leaf_size;
        elements.resize(capacity, T::default());
        set.slots = elements;
        set.scratch_old.clear();
        set.scratch_old.push((0, n));
        set.relayout(0, leaves, leaf_size, None);
        set.counts.clear();
        set.counts.extend(set.scratch_new.iter().map(|&(_, c)| c));
        set.heads = vec![None; leaves];
        set.leaf_size = leaf_size;
        set.len = n;
        set.tree = DensityTree::new(leaves, t);
        set.fix_heads(0..leaves);
        set.stats = PmaStats::default();
        set.changed = (0, capacity);
        Ok(set)
    }

    fn leaf_size_for(config: &PmaOptions, capacity: usize) -> usize {
        let wanted = match config.section_size {
            Some(size) => size.next_power_of_two(),
            None => (ceil_log2(capacity) as usize).next_power_of_two().max(8),
        };
        wanted.min(capacity)
    }

    // ----- reading -------------------------------------------------------

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Slots in the array (elements plus gaps).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Slots per leaf.
    pub fn leaf_size(&self) -> usize {
        self.leaf_size
    }

    /// `len() / capacity()`.
    pub fn density(&self) -> f64 {
        self.len as f64 / self.slots.len() as f64
    }

    /// The work counters.
    pub fn stats(&self) -> &PmaStats {
        &self.stats
    }

    /// Resets the work counters.
    pub fn reset_stats(&mut self) {
        self.stats = PmaStats::default();
    }

    /// The configuration.
    pub fn config(&self) -> &PmaOptions {
        &self.config
    }

    /// The density tree over the current leaves.
    pub fn tree(&self) -> &DensityTree {
        &self.tree
    }

    /// Heap bytes held: slots, leaf counts and heads, scratch.
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.slots.capacity() * size_of::<T>()
            + self.counts.capacity() * size_of::<usize>()
            + self.heads.capacity() * size_of::<Option<T>>()
            + (self.scratch_old.capacity() + self.scratch_new.capacity())
                * size_of::<(usize, usize)>()
            + self.scratch_blocks.capacity() * size_of::<Block>()
    }

    /// [`memory_bytes`](Self::memory_bytes) per element (the whole
    /// footprint when empty).
    pub fn bytes_per_element(&self) -> f64 {
        self.memory_bytes() as f64 / self.len.max(1) as f64
    }

    #[inline]
    fn leaf(&self, leaf: usize) -> &[T] {
        let base = leaf * self.leaf_size;
        &self.slots[base..base + self.counts[leaf]]
    }

    /// `(leaf, position, found)`: where `x` is, or where it would go.
    fn locate(&self, x: &T) -> (usize, usize, bool) {
        let key = Some(*x);
        // Leaves before `p` start at or below x (or are empty and follow
        // such a leaf); the last non-empty one among them holds x's place.
        let p = self.heads.partition_point(|h| *h <= key);
        let mut leaf = match p.checked_sub(1) {
            Some(leaf) => leaf,
            None => return (0, 0, false),
        };
        while self.counts[leaf] == 0 {
            match leaf.checked_sub(1) {
                Some(previous) => leaf = previous,
                None => return (0, 0, false),
            }
        }
        match self.leaf(leaf).binary_search(x) {
            Ok(pos) => (leaf, pos, true),
            Err(pos) => (leaf, pos, false),
        }
    }

    /// Recomputes the heads of `leaves` and of the empty leaves right after
    /// them (which copy the last head before them).
    fn fix_heads(&mut self, leaves: std::ops::Range<usize>) {
        let mut previous = match leaves.start.checked_sub(1) {
            Some(before) => self.heads[before],
            None => None,
        };
        let mut leaf = leaves.start;
        while leaf < self.counts.len() && (leaf < leaves.end || self.counts[leaf] == 0) {
            if self.counts[leaf] > 0 {
                previous = Some(self.slots[leaf * self.leaf_size]);
            }
            self.heads[leaf] = previous;
            leaf += 1;
        }
    }

    /// Whether `x` is in the set.
    pub fn contains(&self, x: &T) -> bool {
        self.locate(x).2
    }

    /// The smallest element `>= x`.
    pub fn lower_bound(&self, x: &T) -> Option<T> {
        self.range((Bound::Included(*x), Bound::Unbounded)).next()
    }

    /// The smallest element `> x`.
    pub fn successor(&self, x: &T) -> Option<T> {
        self.range((Bound::Excluded(*x), Bound::Unbounded)).next()
    }

    /// The smallest element.
    pub fn first(&self) -> Option<T> {
        self.iter().next()
    }

    /// The largest element.
    pub fn last(&self) -> Option<T> {
        (0..self.counts.len())
            .rev()
            .find(|&l| self.counts[l] > 0)
            .and_then(|l| self.leaf(l).last().copied())
    }

    /// All elements in increasing order.
    pub fn iter(&self) -> Iter<'_, T> {
        self.iter_from(0, 0)
    }

    #[inline]
    fn iter_from(&self, leaf: usize, pos: usize) -> Iter<'_, T> {
        let current = if leaf < self.counts.len() {
            self.leaf(leaf)[pos.min(self.counts[leaf])..].iter()
        } else {
            [].iter()
        };
        Iter {
            slots: &self.slots,
            counts: &self.counts,
            leaf_size: self.leaf_size,
            leaf,
            current,
        }
    }

    /// The elements within `bounds`, in increasing order.
    pub fn range<R: RangeBounds<T>>(&self, bounds: R) -> Range<'_, T> {
        let iter = match bounds.start_bound() {
            Bound::Unbounded => self.iter(),
            Bound::Included(x) => {
                let (leaf, pos, _) = self.locate(x);
                self.iter_from(leaf, pos)
            }
            Bound::Excluded(x) => {
                let (leaf, pos, found) = self.locate(x);
                self.iter_from(leaf, pos + usize::from(found))
            }
        };
        Range {
            iter,
            end: bounds.end_bound().cloned(),
        }
    }

    /// Every leaf's packed elements in order (some may be empty): the
    /// fastest full scan, two nested slice loops.
    pub fn leaf_slices(&self) -> impl ExactSizeIterator<Item = &[T]> + '_ {
        (0..self.counts.len()).map(move |l| self.leaf(l))
    }

    // ----- updating ------------------------------------------------------

    /// Inserts `x`; returns `false` (and changes nothing) if it was there.
    pub fn insert(&mut self, x: T) -> bool {
        let (leaf, pos, found) = self.locate(&x);
        if found {
            return false;
        }
        self.insert_located(leaf, pos, x);
        true
    }

    /// Inserts `x`, told where it goes: right before the element at slot
    /// `next` (`None`: after every element). An owner that keeps slot
    /// positions (PCSR's sentinel index) places an element without the
    /// search over leaf heads that [`insert`](Self::insert) does. The hint
    /// is checked against the element at `next` and the one before it,
    /// `O(1)` (plus a skip over empty leaves); a wrong hint (or an `x`
    /// already there) falls back to [`insert`](Self::insert), so the set
    /// stays ordered whatever the hint. Returns whether `x` was added.
    pub fn insert_before(&mut self, next: Option<usize>, x: T) -> bool {
        let shift = self.leaf_size.trailing_zeros();
        let (leaf, pos) = match next {
            Some(slot) if slot < self.slots.len() => {
                let (leaf, pos) = (slot >> shift, slot & (self.leaf_size - 1));
                if pos >= self.counts[leaf] || self.slots[slot] <= x {
                    return self.insert(x);
                }
                if pos > 0 {
                    (leaf, pos)
                } else {
                    // Where `insert` puts an element smaller than a
                    // leaf's head: at the end of the previous non-empty
                    // leaf, or at the very start when there is none.
                    self.end_of_nonempty_before(leaf).unwrap_or((0, 0))
                }
            }
            Some(_) => return self.insert(x),
            None => self
                .end_of_nonempty_before(self.counts.len())
                .unwrap_or((0, 0)),
        };
        if pos > 0 && self.slots[(leaf << shift) + pos - 1] >= x {
            return self.insert(x);
        }
        debug_assert_eq!(self.locate(&x), (leaf, pos, false), "insert_before's place");
        self.insert_located(leaf, pos, x);
        true
    }

    /// `(leaf, count)` of the last non-empty leaf before `leaf`.
    #[inline]
    fn end_of_nonempty_before(&self, leaf: usize) -> Option<(usize, usize)> {
        (0..leaf)
            .rev()
            .find(|&l| self.counts[l] > 0)
            .map(|l| (l, self.counts[l]))
    }

    /// Inserts `x` at position `pos` of `leaf`, its place in the order.
    fn insert_located(&mut self, leaf: usize, pos: usize, x: T) {
        self.moves_from_plan = false;
        self.shift_move = None;
        let count = self.counts[leaf];
        let (_, upper) = self.tree.bounds(0);
        let root_upper = self.config.thresholds.root_upper;
        if (self.len + 1) as f64 > root_upper * self.slots.len() as f64 {
            // Keep the root within its bound after every insert: this is
            // what bounds memory at `N / root_upper` slots.
            self.grow_for_insert(leaf, pos, x);
        } else if (count + 1) as f64 > upper * self.leaf_size as f64 {
            self.rebalance_for_insert(leaf, pos, x);
        } else {
            let base = leaf * self.leaf_size;
            self.slots
                .copy_within(base + pos..base + count, base + pos + 1);
            self.slots[base + pos] = x;
            self.shift_move = (pos < count).then_some(SlotMove {
                src: base + pos,
                dst: base + pos + 1,
                len: count - pos,
            });
            self.inserted_at = base + pos;
            self.counts[leaf] += 1;
            self.mark_changed(base + pos, base + count + 1);
            self.stats.count_shift((count - pos) as u64);
            if pos == 0 {
                self.fix_heads(leaf..leaf + 1);
            }
        }
        self.len += 1;
        self.stats.inserts += 1;
    }

    /// Removes `x`; returns whether it was there.
    pub fn remove(&mut self, x: &T) -> bool {
        let (leaf, pos, found) = self.locate(x);
        if !found {
            return false;
        }
        let base = leaf * self.leaf_size;
        let count = self.counts[leaf];
        self.slots
            .copy_within(base + pos + 1..base + count, base + pos);
        self.mark_changed(base + pos, base + count);
        self.stats.count_shift((count - pos - 1) as u64);
        self.counts[leaf] -= 1;
        self.len -= 1;
        self.stats.removes += 1;
        if pos == 0 {
            self.fix_heads(leaf..leaf + 1);
        }
        let t = self.config.thresholds;
        let capacity = self.slots.len();
        if capacity > self.min_capacity() && (self.len as f64) < t.shrink_below() * capacity as f64
        {
            self.shrink();
        } else if (self.counts[leaf] as f64) < self.tree.bounds(0).0 * self.leaf_size as f64 {
            self.rebalance_for_remove(leaf);
        }
        true
    }

    // ----- tracking where elements are -----------------------------------

    /// The slots whose contents may have changed (elements written, moved
    /// or removed) since the last call, or `None`; resets the record. An
    /// owner that indexes elements by slot (PCSR's per-vertex sentinel
    /// positions) re-reads only these after an update: a shift inside a
    /// leaf reports that leaf's tail, a redistribution its window, a
    /// resize the whole array.
    pub fn take_changed(&mut self) -> Option<std::ops::Range<usize>> {
        let (start, end) = std::mem::take(&mut self.changed);
        let end = end.min(self.slots.len());
        (start < end).then_some(start..end)
    }

    #[inline]
    fn mark_changed(&mut self, start: usize, end: usize) {
        if self.changed.0 >= self.changed.1 {
            self.changed = (start, end);
        } else {
            self.changed = (self.changed.0.min(start), self.changed.1.max(end));
        }
    }

    /// How the last [`insert`](Self::insert) or
    /// [`insert_before`](Self::insert_before) that added an element moved
    /// the elements already there, and the slot the new element went to.
    /// Moves are in element order (their sources increase, and so do
    /// their destinations); an element in no move stayed where it was. An
    /// owner that indexes a few elements by slot (PCSR's sentinels)
    /// follows them through these instead of re-reading every changed
    /// slot. Meaningful only right after such an insert (a remove leaves
    /// it stale).
    pub fn last_insert_moves(&self) -> (impl Iterator<Item = SlotMove> + '_, usize) {
        let (plan, shift) = if self.moves_from_plan {
            (&self.scratch_blocks[..], None)
        } else {
            (&[][..], self.shift_move)
        };
        let moves = plan
            .iter()
            .map(|block| SlotMove {
                src: block.src,
                dst: block.dst,
                len: block.len,
            })
            .chain(shift);
        (moves, self.inserted_at)
    }

    /// The elements stored in `slots`, as packed slices with the slot index
    /// of each slice's first element, in order (a tight loop per leaf for
    /// an owner re-reading [`PackedSet::take_changed`]'s slots).
    pub fn slices_in(
        &self,
        slots: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (usize, &[T])> + '_ {
        let end = slots.end.min(self.slots.len());
        let shift = self.leaf_size.trailing_zeros();
        let first_leaf = slots.start >> shift;
        let last_leaf = end.div_ceil(self.leaf_size);
        (first_leaf..last_leaf).filter_map(move |leaf| {
            let base = leaf << shift;
            let from = slots.start.max(base);
            let to = end.min(base + self.counts[leaf]);
            (from < to).then(|| (from, &self.slots[from..to]))
        })
    }

    /// The elements from slot `slot` on, in order: `slot` must hold an
    /// element or be the slot right after one (within its leaf). With a
    /// slot index kept through [`PackedSet::take_changed`] this starts a
    /// scan with no search.
    #[inline]
    pub fn iter_at_slot(&self, slot: usize) -> Iter<'_, T> {
        // Leaves are a power of two: a shift and a mask, not a division.
        let shift = self.leaf_size.trailing_zeros();
        self.iter_from(slot >> shift, slot & (self.leaf_size - 1))
    }

    // ----- internals -----------------------------------------------------

    fn min_capacity(&self) -> usize {
        self.config.min_capacity.next_power_of_two()
    }

    /// Redistributes the smallest window around `leaf` that stays within
    /// its upper bound with `x` added, placing `x` (whose place is `pos` in
    /// `leaf`) in the hole left for it; grows the array if even the root
    /// would be too dense.
    fn rebalance_for_insert(&mut self, leaf: usize, pos: usize, x: T) {
        let height = self.tree.height();
        for level in 0..=height {
            let window = self.tree.window(leaf, level);
            let before: usize = self.counts[window.start..leaf].iter().sum();
            let count = if level == height {
                self.len
            } else {
                before + self.counts[leaf..window.end].iter().sum::<usize>()
            } + 1;
            let capacity = window.len() * self.leaf_size;
            let (_, upper) = self.tree.bounds(level);
            if count as f64 <= upper * capacity as f64 {
                self.fill_old_segments(window.clone());
                let moved = self.relayout(
                    window.start * self.leaf_size,
                    window.len(),
                    self.leaf_size,
                    Some((before + pos, x)),
                );
                self.store_new_counts(window.start);
                self.stats.count_rebalance(level, moved);
                return;
            }
        }
        self.grow_for_insert(leaf, pos, x);
    }

    /// Doubles the array (more than once if needed) and places `x`.
    fn grow_for_insert(&mut self, leaf: usize, pos: usize, x: T) {
        let rank = self.counts[..leaf].iter().sum::<usize>() + pos;
        let upper = self.config.thresholds.root_upper;
        let mut capacity = self.slots.len() * 2;
        while (self.len + 1) as f64 > upper * capacity as f64 {
            capacity *= 2;
        }
        self.resize_to(capacity, Some((rank, x)));
    }

    /// Redistributes the smallest window around `leaf` that is within its
    /// lower bound (the root if none is).
    fn rebalance_for_remove(&mut self, leaf: usize) {
        let height = self.tree.height();
        for level in 0..=height {
            let window = self.tree.window(leaf, level);
            let count: usize = self.counts[window.clone()].iter().sum();
            let capacity = window.len() * self.leaf_size;
            let (lower, _) = self.tree.bounds(level);
            if count as f64 >= lower * capacity as f64 || level == height {
                self.fill_old_segments(window.clone());
                let moved = self.relayout(
                    window.start * self.leaf_size,
                    window.len(),
                    self.leaf_size,
                    None,
                );
                self.store_new_counts(window.start);
                self.stats.count_rebalance(level, moved);
                return;
            }
        }
    }

    fn shrink(&mut self) {
        let shrink_below = self.config.thresholds.shrink_below();
        let min = self.min_capacity();
        let mut capacity = self.slots.len();
        while capacity > min && (self.len as f64) < shrink_below * capacity as f64 {
            capacity /= 2;
        }
        self.resize_to(capacity.max(min), None);
    }

    /// Moves everything into `capacity` slots in place (the vector grows
    /// before, or is truncated after, the moves), re-choosing the leaf size.
    fn resize_to(&mut self, capacity: usize, hole: Option<(usize, T)>) {
        let grew = capacity > self.slots.len();
        if grew {
            self.slots.resize(capacity, T::default());
        }
        let leaf_size = Self::leaf_size_for(&self.config, capacity);
        let leaves = capacity / leaf_size;
        self.fill_old_segments(0..self.counts.len());
        let moved = self.relayout(0, leaves, leaf_size, hole);
        if !grew {
            self.slots.truncate(capacity);
        }
        self.leaf_size = leaf_size;
        self.counts.clear();
        self.counts.extend(self.scratch_new.iter().map(|&(_, c)| c));
        self.heads.clear();
        self.heads.resize(leaves, None);
        self.fix_heads(0..leaves);
        self.tree = DensityTree::new(leaves, self.config.thresholds);
        self.stats.count_resize(grew, moved);
    }

    fn fill_old_segments(&mut self, leaves: std::ops::Range<usize>) {
        self.scratch_old.clear();
        for leaf in leaves {
            self.scratch_old
                .push((leaf * self.leaf_size, self.counts[leaf]));
        }
    }

    fn store_new_counts(&mut self, first_leaf: usize) {
        for (i, &(_, c)) in self.scratch_new.iter().enumerate() {
            self.counts[first_leaf + i] = c;
        }
        self.fix_heads(first_leaf..first_leaf + self.scratch_new.len());
    }

    /// Spreads the elements of the segments in `scratch_old` (in order)
    /// evenly over `leaves` leaves of `leaf_size` slots from slot `first`,
    /// leaving a hole for the pending element at rank `hole.0` and writing
    /// it there. Fills `scratch_new` with the new `(start, count)` of each
    /// leaf and returns the number of elements moved.
    fn relayout(
        &mut self,
        first: usize,
        leaves: usize,
        leaf_size: usize,
        hole: Option<(usize, T)>,
    ) -> u64 {
        let n: usize = self.scratch_old.iter().map(|&(_, c)| c).sum();
        let m = n + usize::from(hole.is_some());
        debug_assert!(m <= leaves * leaf_size);
        self.scratch_new.clear();
        let mut given = 0;
        for j in 0..leaves {
            let upto = (j + 1) * m / leaves;
            self.scratch_new.push((first + j * leaf_size, upto - given));
            given = upto;
        }
        let hole_dst = plan_blocks(
            &self.scratch_old,
            &self.scratch_new,
            hole.map(|(rank, _)| rank),
            &mut self.scratch_blocks,
        );
        let moved = move_blocks(&mut self.slots, &self.scratch_blocks);
        if let (Some((_, x)), Some(dst)) = (hole, hole_dst) {
            self.slots[dst] = x;
            self.inserted_at = dst;
        }
        self.moves_from_plan = true;
        self.mark_changed(first, first + leaves * leaf_size);
        #[cfg(debug_assertions)]
        self.debug_check_relayout(leaf_size);
        moved
    }

    /// Debug builds: after a redistribution the new leaves fit and their
    /// elements are strictly increasing (nothing lost order or doubled).
    #[cfg(debug_assertions)]
    fn debug_check_relayout(&self, leaf_size: usize) {
        let mut previous: Option<T> = None;
        for &(start, count) in &self.scratch_new {
            assert!(
                count <= leaf_size,
                "leaf over capacity after a redistribution"
            );
            for &x in &self.slots[start..start + count] {
                assert!(
                    previous.is_none_or(|p| p < x),
                    "order broken by a redistribution"
                );
                previous = Some(x);
            }
        }
    }

    /// Checks every invariant the set keeps; `O(capacity)`. Meant for tests
    /// and debugging; returns the first violation found.
    ///
    /// Checked: the capacity is a power of two split into whole leaves of
    /// the expected size; every leaf holds at most `ceil(leaf_upper * L)`
    /// elements; counts add up to `len`; all elements are strictly
    /// increasing across leaves (nothing lost order, nothing duplicated);
    /// the search heads match the leaves; the root is within its upper bound and above the shrink threshold
    /// (or at the minimum capacity).
    pub fn validate(&self) -> Result<(), PmaError> {
        let fail = |why: String| Err(PmaError::Invariant(why));
        let capacity = self.slots.len();
        if !capacity.is_power_of_two() || self.counts.len() * self.leaf_size != capacity {
            return fail(format!(
                "capacity {capacity} is not {} leaves of {}",
                self.counts.len(),
                self.leaf_size
            ));
        }
        if self.leaf_size != Self::leaf_size_for(&self.config, capacity) {
            return fail(format!(
                "leaf size {} for capacity {capacity}",
                self.leaf_size
            ));
        }
        if self.tree.leaf_count() != self.counts.len() {
            return fail("tree leaf count differs from the leaves".to_string());
        }
        let t = self.config.thresholds;
        let leaf_max = (t.bounds(0, self.tree.height()).1 * self.leaf_size as f64).ceil() as usize;
        let mut total = 0;
        let mut previous: Option<T> = None;
        for (l, &count) in self.counts.iter().enumerate() {
            if count > leaf_max.max(1).min(self.leaf_size) {
                return fail(format!("leaf {l} holds {count} > {leaf_max}"));
            }
            total += count;
            for &x in self.leaf(l) {
                if previous.is_some_and(|p| p >= x) {
                    return fail(format!("leaf {l}: elements out of order or duplicated"));
                }
                previous = Some(x);
            }
        }
        if total != self.len {
            return fail(format!("len {} but leaves hold {total}", self.len));
        }
        let mut previous_head = None;
        for (l, &head) in self.heads.iter().enumerate() {
            let expected = if self.counts[l] > 0 {
                Some(self.slots[l * self.leaf_size])
            } else {
                previous_head
            };
            if head != expected || self.heads.len() != self.counts.len() {
                return fail(format!("leaf {l}: stale head"));
            }
            previous_head = expected;
        }
        if self.len as f64 > t.root_upper * capacity as f64 {
            return fail(format!(
                "root density {} above {}",
                self.density(),
                t.root_upper
            ));
        }
        if capacity > self.min_capacity() && (self.len as f64) < t.shrink_below() * capacity as f64
        {
            return fail(format!(
                "root density {} below the shrink threshold",
                self.density()
            ));
        }
        Ok(())
    }
}

/// Cuts the order-preserving map from `old` segments (`(start, count)`, in
/// element order) to `new` ones into blocks, skipping the virtual position
/// `hole` (an element index in the new order); returns the hole's slot.
fn plan_blocks(
    old: &[(usize, usize)],
    new: &[(usize, usize)],
    hole: Option<usize>,
    blocks: &mut Vec<Block>,
) -> Option<usize> {
    blocks.clear();
    let (mut oi, mut ooff) = (0, 0);
    let (mut ni, mut noff) = (0, 0);
    let mut placed = 0; // elements (and hole) placed in the new order
    let mut hole_dst = None;
    loop {
        while ni < new.len() && noff == new[ni].1 {
            ni += 1;
            noff = 0;
        }
        if hole_dst.is_none() && hole == Some(placed) {
            hole_dst = Some(new[ni].0 + noff);
            noff += 1;
            placed += 1;
            continue;
        }
        while oi < old.len() && ooff == old[oi].1 {
            oi += 1;
            ooff = 0;
        }
        if oi == old.len() {
            break;
        }
        let mut take = (old[oi].1 - ooff).min(new[ni].1 - noff);
        if let (None, Some(h)) = (hole_dst, hole) {
            take = take.min(h - placed);
        }
        push_block(
            blocks,
            Block {
                src: old[oi].0 + ooff,
                dst: new[ni].0 + noff,
                len: take,
            },
        );
        ooff += take;
        noff += take;
        placed += take;
    }
    hole_dst
}

/// Iterator over a [`PackedSet`] in increasing order.
#[derive(Clone, Debug)]
pub struct Iter<'a, T> {
    slots: &'a [T],
    counts: &'a [usize],
    leaf_size: usize,
    leaf: usize,
    current: std::slice::Iter<'a, T>,
}

impl<'a, T> Iter<'a, T> {
    /// The rest of the current leaf's elements, or the next non-empty
    /// leaf's, consumed whole: a scan that knows how many elements it wants
    /// walks packed slices and skips each leaf's gaps in one step.
    #[inline]
    pub fn next_slice(&mut self) -> Option<&'a [T]> {
        loop {
            let rest = std::mem::take(&mut self.current).as_slice();
            if !rest.is_empty() {
                return Some(rest);
            }
            self.leaf += 1;
            let count = *self.counts.get(self.leaf)?;
            let base = self.leaf * self.leaf_size;
            self.current = self.slots[base..base + count].iter();
        }
    }
}

impl<T: Copy> Iterator for Iter<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        loop {
            if let Some(&x) = self.current.next() {
                return Some(x);
            }
            self.leaf += 1;
            let count = *self.counts.get(self.leaf)?;
            let base = self.leaf * self.leaf_size;
            self.current = self.slots[base..base + count].iter();
        }
    }
}

/// Iterator over the elements of a [`PackedSet`] within a range.
#[derive(Clone, Debug)]
pub struct Range<'a, T> {
    iter: Iter<'a, T>,
    end: Bound<T>,
}

impl<T: Ord + Copy> Iterator for Range<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        let x = self.iter.next()?;
        let inside = match &self.end {
            Bound::Unbounded => true,
            Bound::Included(e) => x <= *e,
            Bound::Excluded(e) => x < *e,
        };
        if inside {
            Some(x)
        } else {
            // Fuse: every later element is past the end too.
            self.iter.leaf = self.iter.counts.len();
            self.iter.current = [].iter();
            None
        }
    }
}
