//! The vertex-centric runs layout (VCSR's edge array).

use crate::PmaError;
use crate::element::{Element, Reclaim};
use crate::mover::{Block, move_blocks};
use crate::policy::{DegreeProportional, GapPolicy, LinearGaps, Window, apportion};
use crate::stats::PmaStats;
use crate::tree::{DensityTree, PmaOptions, ceil_log2};
use std::ops::Range;
use strength_reduce::StrengthReducedU64;

mod batch;
pub use batch::RunAppends;

/// A neighbour shift may always move this many elements, whatever the
/// section holds.
const SHIFT_SLACK: usize = 16;

/// Scratch entries (one gap and one block per run) always kept between
/// redistributions (more on layouts of many runs, see `redistribute`); a
/// larger window allocates its own and frees it.
const SCRATCH_KEPT: usize = 64;

/// A [`LinearGaps`] rule evaluated run by run, in order: each run's gap
/// from a running prefix of the weights, with one multiplication by a
/// precomputed reciprocal (no division) per run.
struct LinearPlacement {
    rule: LinearGaps,
    divisor: StrengthReducedU64,
    share: u64,
    prefix: u64,
    given: u64,
}

impl LinearPlacement {
    /// The placement of `rule` over `window`, or `None` when the rule does
    /// not add up to the window's free slots (a policy bug: the layout
    /// then asks `distribute`, which is checked) or its arithmetic would
    /// need more than 64 bits (then `apportion`'s wide path does it).
    /// `used` is the sum of the window's lengths.
    fn new(mut rule: LinearGaps, window: &Window<'_>, used: usize) -> Option<Self> {
        let runs = window.lengths.len();
        if rule.base.checked_mul(runs)?.checked_add(rule.share)? != window.free_slots {
            return None;
        }
        let mut total: u64 = (used as u64)
            .checked_mul(rule.length_weight)?
            .checked_add(rule.constant_weight.checked_mul(runs as u64)?)?;
        if total == 0 {
            // As `apportion`: all weights zero means equal shares.
            rule.length_weight = 0;
            rule.constant_weight = 1;
            total = runs as u64;
        }
        let share = rule.share as u64;
        total.checked_mul(share)?;
        Some(LinearPlacement {
            rule,
            divisor: StrengthReducedU64::new(total),
            share,
            prefix: 0,
            given: 0,
        })
    }

    /// The gap of the next run, whose length is `len`: the same rounding
    /// as [`apportion`] (`floor(W_{i+1} s / W) - floor(W_i s / W)`).
    #[inline]
    fn gap(&mut self, len: u32) -> usize {
        self.prefix += self.rule.weight(len);
        let upto = self.prefix * self.share / self.divisor;
        let gap = self.rule.base + (upto - self.given) as usize;
        self.given = upto;
        gap
    }
}

/// Gives each run of a window its new start (from `lo`, each run
/// followed by `gap(len)` free slots) and replaces `blocks` by the blocks
/// that move the elements there, one per non-empty run; returns the end of
/// the last run's slots. Run `pending` holds one element fewer than its
/// length says.
///
/// This loop runs once per run of every window, and on sparse id ranges
/// most runs are empty, in no predictable order, so it has no branch on
/// the run and nothing carried from one run to the next but two counters:
/// every run writes its block to slot `k` of `blocks`' spare capacity, and
/// only a non-empty run moves `k` on. (Merging neighbouring runs that move
/// by the same shift into one block would save `memmove` calls, but its
/// test depends on the previous block, a chain through every run: without
/// it the whole sx-mathoverflow replay ran 12 % faster, 27.9 against 31.8
/// ms. After a redistribution every run has a free slot, so such merges
/// are rare anyway.)
fn place_runs(
    starts: &mut [u32],
    lens: &[u32],
    lo: usize,
    pending: Option<usize>,
    blocks: &mut Vec<Block<u32>>,
    mut gap: impl FnMut(u32) -> usize,
) -> usize {
    blocks.clear();
    blocks.reserve(starts.len());
    // Written, not filled first: a fill is a second pass over a
    // window-sized buffer (most windows above a few thousand runs get a
    // fresh one, see `SCRATCH_KEPT`), and made the whole sx-mathoverflow
    // replay 4-5 % slower (`vcsr_probe vcsr mo10`, 28.0 vs 29.2 ms).
    let spare = blocks.spare_capacity_mut();
    let (mut k, mut next) = (0, lo);
    let pending = pending.unwrap_or(usize::MAX);
    for (i, (start, &len)) in starts.iter_mut().zip(lens).enumerate() {
        let (src, dst) = (*start, index(next));
        let elements = len - u32::from(i == pending);
        spare[k].write(Block {
            src,
            dst,
            len: elements,
        });
        k += usize::from(elements != 0);
        *start = dst;
        next += len as usize + gap(len);
    }
    // SAFETY: `blocks` was empty, and slots `0..k` of its spare capacity
    // are initialised: `k` only grows, by one, right after the write to
    // slot `k` (at run `i`, `k <= i`, so the reserve above made room for
    // every slot written; `spare[k]` is bounds-checked besides).
    unsafe { blocks.set_len(k) };
    next
}

/// The most slots a [`PackedRuns`] holds: run starts and lengths are kept
/// as `u32`. An insert or [`PackedRuns::add_runs`] that would need more
/// returns [`PmaError::CapacityLimit`] and changes nothing.
pub const MAX_CAPACITY: usize = u32::MAX as usize;

/// A slot position or run length as stored; every caller has checked it
/// against [`MAX_CAPACITY`] (the array never holds more slots).
#[inline]
fn index(value: usize) -> u32 {
    debug_assert!(value <= MAX_CAPACITY, "{value} slots exceed MAX_CAPACITY");
    value as u32
}

/// Makes room for `additional` more items, growing the allocation by at
/// least an eighth: amortized `O(1)` per item like `Vec`'s doubling, but
/// with at most 12.5% of the allocation unused instead of up to half (the
/// per-run arrays grow one run at a time when ids arrive in order).
/// One flag per run, a bit each (a `Vec<bool>` costs a byte per vertex,
/// half a byte per edge on a sparse temporal graph).
#[derive(Clone, Debug, Default)]
struct Flags {
    words: Vec<u64>,
    len: usize,
}

impl Flags {
    #[inline]
    fn get(&self, i: usize) -> bool {
        self.words[i / 64] & (1 << (i % 64)) != 0
    }

    #[inline]
    fn set(&mut self, i: usize, value: bool) {
        debug_assert!(i < self.len);
        if value {
            self.words[i / 64] |= 1 << (i % 64);
        } else {
            self.words[i / 64] &= !(1 << (i % 64));
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    /// Grows (new flags clear) or shrinks to `len` flags.
    fn resize(&mut self, len: usize) {
        if len < self.len {
            for i in len..self.len.min(self.words.len() * 64) {
                self.words[i / 64] &= !(1 << (i % 64));
            }
        }
        self.words.resize(len.div_ceil(64), 0);
        self.len = len;
    }

    fn reserve_modestly(&mut self, additional: usize) {
        reserve_modestly(&mut self.words, additional.div_ceil(64));
    }

    fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    fn memory_bytes(&self) -> usize {
        self.words.capacity() * 8
    }
}

fn reserve_modestly<E>(items: &mut Vec<E>, additional: usize) {
    if items.capacity() - items.len() < additional {
        items.reserve_exact(additional.max(items.len() / 8));
    }
}

/// Refuses a capacity above [`MAX_CAPACITY`].
fn check_capacity(needed: usize) -> Result<(), PmaError> {
    if needed > MAX_CAPACITY {
        return Err(PmaError::CapacityLimit {
            needed,
            limit: MAX_CAPACITY,
        });
    }
    Ok(())
}

/// A packed-memory array of numbered *runs* (run = vertex): each run is a
/// contiguous slice that keeps insertion order, followed by its own free
/// slots. This is VCSR's edge array (the paper's §IV): leaf sections hold a
/// fixed number of runs, not of slots, so a vertex's edges never straddle
/// two sections and a redistribution can give each run its own share of
/// the free slots, chosen by the [`GapPolicy`] `P`.
///
/// # Operations and cost model
///
/// `N` is the number of elements, `R` the number of runs, `S = Θ(log R)`
/// runs per section (see [`PmaOptions::section_size`]).
///
/// | operation | cost |
/// |---|---|
/// | [`push`](Self::push) (append to a run) | `O(1)` when the run has a free slot after it (the common case); else a shift of neighbouring runs inside the section to the nearest free slot (`O(section elements)`); else a redistribution of the smallest enclosing window within its density bounds, amortized `O(log² N)` moves for [`Even`](crate::Even) and fewer when the policy matches where inserts go (measured in `BENCHMARKS.md`) |
/// | [`insert`](Self::insert) at a position | as `push`, plus moving the run's tail by one |
/// | [`remove`](Self::remove) | moves the run's tail by one; halves the array when the root falls below `root_lower / 2` |
/// | tombstoning | `O(1)` through [`run_mut`](Self::run_mut); the slot is reclaimed by the next redistribution of its window (if [`Reclaim`] allows) or by [`compact`](Self::compact) |
/// | [`run`](Self::run) | `O(1)`: a `&[T]` |
/// | full scan | every run's slice in order; the elements are contiguous per run and runs are in id order, so a scan reads `N / density` slots of `T` plus two `u32` per run |
/// | [`add_runs`](Self::add_runs) | amortized `O(added)`: each new run gets one free slot at the end of the array (no element moves, unless the added slots drop the root below its lower bound and the array halves) |
///
/// Memory: `capacity * size_of::<T>()` for the slots (capacity stays
/// between `N / root_upper` and `2 N / root_lower`, and never below the
/// configured minimum plus one slot per run; right after a growth the
/// density is `root_upper / growth`, see [`PmaOptions::growth`]) plus two
/// `u32` and a flag per run (start, length, "handed out mutably"), one
/// `usize` per section and at most `max(64, runs / 32)` scratch entries
/// between redistributions; see [`memory_bytes`](Self::memory_bytes). The
/// slots and per-run arrays are allocated exactly, or with at most an
/// eighth spare when runs are added, so no `Vec` growth margin sits on
/// top of the gaps. At most [`MAX_CAPACITY`] slots.
///
/// # Density bounds
///
/// An insert that finds its run without a free slot, or its section above
/// the leaf upper bound, looks from the section up the tree for the
/// smallest window whose density (counting the new element) is within its
/// level's upper bound, and redistributes that window; if even the root is
/// too dense the array doubles. The root is always within its upper bound
/// after an insert. Per-section lower bounds are not enforced: a policy
/// such as [`DegreeProportional`] deliberately leaves cold sections sparse,
/// so the lower bound is applied at the root only (shrinking).
///
/// # Example
///
/// ```
/// use dyngraph_pma::{DegreeProportional, PackedRuns};
///
/// let mut runs: PackedRuns<u32> = PackedRuns::with_policy(DegreeProportional::default());
/// let ids = runs.add_runs(3)?;
/// assert_eq!(ids, 0..3);
/// runs.push(0, 10)?;
/// runs.push(2, 30)?;
/// runs.push(0, 11)?;
/// assert_eq!(runs.run(0), Some(&[10, 11][..]));
/// assert_eq!(runs.run(1), Some(&[][..]));
/// runs.insert(2, 0, 29)?;
/// assert_eq!(runs.run(2), Some(&[29, 30][..]));
/// assert_eq!(runs.remove(0, 0)?, 10);
/// assert_eq!(runs.len(), 3);
/// assert!(runs.push(7, 1).is_err()); // no run 7: an error, not a panic
/// runs.validate()?;
/// # Ok::<(), dyngraph_pma::PmaError>(())
/// ```
#[derive(Clone, Debug)]
pub struct PackedRuns<T, P = DegreeProportional> {
    slots: Vec<T>,
    /// `start[r]` is run `r`'s first slot; `start[run_count]` is the
    /// capacity, so run `r` owns `start[r]..start[r + 1]`. `u32` (and the
    /// capacity limit [`MAX_CAPACITY`]) halves the per-run bookkeeping,
    /// which on sparse graphs (few edges per vertex) is a large part of
    /// the footprint.
    start: Vec<u32>,
    len: Vec<u32>,
    /// Runs handed out mutably since their last reclamation pass: only
    /// these can hold tombstones, so only these are scanned for them.
    touched: Flags,
    /// How many `touched` flags are set: with none, a redistribution skips
    /// the reclamation pass instead of testing every run's flag.
    touched_count: usize,
    /// Elements (tombstones included) per section.
    section_len: Vec<usize>,
    runs_per_section: usize,
    total: usize,
    tree: DensityTree,
    config: PmaOptions,
    policy: P,
    reclaim: Reclaim<T>,
    stats: PmaStats,
    scratch_gaps: Vec<usize>,
    scratch_blocks: Vec<Block<u32>>,
}

impl<T: Element, P: GapPolicy + Default> Default for PackedRuns<T, P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Element, P: GapPolicy + Default> PackedRuns<T, P> {
    /// An empty layout with no runs, the default policy and configuration.
    pub fn new() -> Self {
        Self::with_policy(P::default())
    }
}

impl<T: Element, P: GapPolicy> PackedRuns<T, P> {
    /// An empty layout with no runs and the given policy.
    pub fn with_policy(policy: P) -> Self {
        match Self::with_config(policy, PmaOptions::default()) {
            Ok(runs) => runs,
            Err(_) => unreachable!("the default configuration is valid"),
        }
    }

    /// An empty layout with the given policy and configuration; refuses an
    /// invalid configuration.
    pub fn with_config(policy: P, config: PmaOptions) -> Result<Self, PmaError> {
        config.validate()?;
        let capacity = config.min_capacity;
        let mut runs = PackedRuns {
            slots: vec![T::default(); capacity],
            start: vec![index(capacity)],
            len: Vec::new(),
            touched: Flags::default(),
            touched_count: 0,
            section_len: Vec::new(),
            runs_per_section: 1,
            total: 0,
            tree: DensityTree::new(1, config.thresholds),
            config,
            policy,
            reclaim: Reclaim::Tombstones,
            stats: PmaStats::default(),
            scratch_gaps: Vec::new(),
            scratch_blocks: Vec::new(),
        };
        runs.rebuild_sections();
        runs.policy.on_resize(capacity, 0);
        Ok(runs)
    }

    /// Builds a layout from runs given in order (run `i` is the `i`-th
    /// item), laid out at the middle of the root's density bounds with the
    /// policy's gaps. Stats start at zero afterwards.
    pub fn from_runs<I, R>(policy: P, config: PmaOptions, runs: I) -> Result<Self, PmaError>
    where
        I: IntoIterator<Item = R>,
        R: IntoIterator<Item = T>,
    {
        let mut layout = Self::with_config(policy, config)?;
        let mut elements = Vec::new();
        let mut lengths = Vec::new();
        for run in runs {
            let before = elements.len();
            elements.extend(run);
            lengths.push(elements.len() - before);
        }
        if lengths.is_empty() {
            return Ok(layout);
        }
        let n = elements.len();
        let t = config.thresholds;
        let target = (t.root_lower + t.root_upper) / 2.0;
        let capacity = ((n as f64 / target).ceil() as usize)
            .max(config.min_capacity + lengths.len())
            .max(n + lengths.len());
        check_capacity(capacity)?;
        // Exactly `capacity` slots (`extend` above left a growth margin),
        // advised for huge pages when large.
        layout.slots = crate::huge_pages::filled_to(elements, capacity, T::default());
        layout.start = Vec::with_capacity(lengths.len() + 1);
        let mut next = 0;
        for &l in &lengths {
            layout.start.push(index(next));
            next += l;
        }
        layout.start.push(index(capacity));
        // The input may hold tombstones: let the first layout drop them.
        layout.touched = Flags::default();
        layout.touched.resize(lengths.len());
        for (r, _) in lengths.iter().enumerate().filter(|&(_, &l)| l > 0) {
            layout.touched.set(r, true);
        }
        layout.touched_count = layout.touched.count();
        layout.len = lengths.iter().map(|&l| index(l)).collect();
        layout.total = n;
        layout.rebuild_sections();
        let run_count = layout.run_count();
        let root = layout.tree.height();
        layout.redistribute(0..run_count, 0, capacity, None, root);
        layout.policy.on_resize(capacity, run_count);
        layout.stats = PmaStats::default();
        Ok(layout)
    }

    // ----- reading -------------------------------------------------------

    /// Number of runs.
    pub fn run_count(&self) -> usize {
        self.len.len()
    }

    /// Number of stored elements, tombstones included.
    pub fn len(&self) -> usize {
        self.total
    }

    /// Whether no element is stored.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Slots in the array (elements plus gaps).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// `len() / capacity()`.
    pub fn density(&self) -> f64 {
        self.total as f64 / self.slots.len().max(1) as f64
    }

    /// Run `run`'s elements in insertion order, tombstones included, or
    /// `None` if there is no such run.
    #[inline]
    pub fn run(&self, run: usize) -> Option<&[T]> {
        let s = *self.start.get(run)? as usize;
        let l = *self.len.get(run)? as usize;
        Some(&self.slots[s..s + l])
    }

    /// Run `run`'s elements, mutable in place (to mark a tombstone or edit
    /// a payload; the length cannot change this way). The run is noted as
    /// possibly holding tombstones, so the next redistribution of its
    /// window scans it; runs never handed out mutably are not scanned.
    #[inline]
    pub fn run_mut(&mut self, run: usize) -> Option<&mut [T]> {
        let s = *self.start.get(run)? as usize;
        let l = *self.len.get(run)? as usize;
        if !self.touched.get(run) {
            self.touched.set(run, true);
            self.touched_count += 1;
        }
        Some(&mut self.slots[s..s + l])
    }

    /// Number of elements of run `run`, tombstones included.
    #[inline]
    pub fn run_len(&self, run: usize) -> Option<usize> {
        self.len.get(run).map(|&l| l as usize)
    }

    /// Slots run `run` owns (its length plus its free slots).
    pub fn run_capacity(&self, run: usize) -> Option<usize> {
        (run < self.run_count()).then(|| self.start_of(run + 1) - self.start_of(run))
    }

    /// Element `index` of run `run`.
    pub fn get(&self, run: usize, index: usize) -> Option<&T> {
        self.run(run)?.get(index)
    }

    /// Element `index` of run `run`, mutable in place.
    pub fn get_mut(&mut self, run: usize, index: usize) -> Option<&mut T> {
        self.run_mut(run)?.get_mut(index)
    }

    /// Every run's slice in run order.
    pub fn runs(&self) -> impl ExactSizeIterator<Item = &[T]> + '_ {
        self.start
            .iter()
            .zip(&self.len)
            .map(move |(&s, &l)| &self.slots[s as usize..(s + l) as usize])
    }

    /// The work counters.
    pub fn stats(&self) -> &PmaStats {
        &self.stats
    }

    /// Resets the work counters (for measuring one phase).
    pub fn reset_stats(&mut self) {
        self.stats = PmaStats::default();
    }

    /// The gap policy.
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// The gap policy, mutable (to tune it between operations).
    pub fn policy_mut(&mut self) -> &mut P {
        &mut self.policy
    }

    /// The configuration the layout was built with.
    pub fn config(&self) -> &PmaOptions {
        &self.config
    }

    /// The density tree over the current sections.
    pub fn tree(&self) -> &DensityTree {
        &self.tree
    }

    /// Runs per leaf section (currently).
    pub fn runs_per_section(&self) -> usize {
        self.runs_per_section
    }

    /// The current reclamation rule.
    pub fn reclaim(&self) -> &Reclaim<T> {
        &self.reclaim
    }

    /// Sets which elements later redistributions may drop.
    pub fn set_reclaim(&mut self, reclaim: Reclaim<T>) {
        self.reclaim = reclaim;
    }

    /// Heap bytes held: slots, per-run and per-section arrays, scratch.
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.slots.capacity() * size_of::<T>()
            + (self.start.capacity() + self.len.capacity()) * size_of::<u32>()
            + (self.section_len.capacity() + self.scratch_gaps.capacity()) * size_of::<usize>()
            + self.scratch_blocks.capacity() * size_of::<Block<u32>>()
            + self.touched.memory_bytes()
    }

    /// [`memory_bytes`](Self::memory_bytes) per stored element (the whole
    /// footprint when empty).
    pub fn bytes_per_element(&self) -> f64 {
        self.memory_bytes() as f64 / self.total.max(1) as f64
    }

    // ----- updating ------------------------------------------------------

    /// Adds `count` empty runs after the last one and returns their ids.
    pub fn add_runs(&mut self, count: usize) -> Result<Range<usize>, PmaError> {
        let first = self.run_count();
        if count == 0 {
            return Ok(first..first);
        }
        check_capacity(self.slots.len().saturating_add(count))?;
        // Each new run comes with one free slot of its own at the end of
        // the array, so its first element needs no shift and no
        // redistribution (and a layout of a million empty runs is not a
        // 64-slot array that every first insert must redistribute).
        let capacity = self.slots.len();
        reserve_modestly(&mut self.slots, count);
        self.slots.resize(capacity + count, T::default());
        reserve_modestly(&mut self.start, count);
        reserve_modestly(&mut self.len, count);
        self.touched.reserve_modestly(count);
        self.start.pop();
        self.start.extend((capacity..capacity + count).map(index));
        if first == 0 {
            // The first run also owns the slots no run owned before.
            self.start[0] = 0;
        }
        self.start.push(index(capacity + count));
        self.len.resize(first + count, 0);
        self.touched.resize(first + count);
        let wanted = self.chosen_runs_per_section();
        if wanted != self.runs_per_section {
            self.rebuild_sections();
        } else {
            let sections = self.run_count().div_ceil(self.runs_per_section);
            self.section_len.resize(sections, 0);
            self.tree = DensityTree::new(sections.max(1), self.config.thresholds);
        }
        self.policy.on_resize(self.slots.len(), self.run_count());
        // The added slots may leave the root below its lower bound; that
        // needs as many added slots as a removal-driven shrink needs
        // removals, so it stays amortized O(1) per added run.
        self.maybe_shrink();
        Ok(first..first + count)
    }

    /// Appends `value` to run `run` (the fast path: it goes to slot
    /// `start + len`).
    pub fn push(&mut self, run: usize, value: T) -> Result<(), PmaError> {
        let len = self.run_len(run).ok_or(PmaError::RunOutOfRange {
            run,
            run_count: self.run_count(),
        })?;
        self.insert_unchecked(run, len, value)
    }

    /// Inserts `value` at position `index` of run `run` (`index <= len`),
    /// moving the run's later elements one slot on.
    pub fn insert(&mut self, run: usize, index: usize, value: T) -> Result<(), PmaError> {
        let len = self.run_len(run).ok_or(PmaError::RunOutOfRange {
            run,
            run_count: self.run_count(),
        })?;
        if index > len {
            return Err(PmaError::IndexOutOfRange { run, index, len });
        }
        self.insert_unchecked(run, index, value)
    }

    /// Removes and returns element `index` of run `run`, moving the run's
    /// later elements one slot back. Halves the array when the root falls
    /// below `root_lower / 2`.
    pub fn remove(&mut self, run: usize, index: usize) -> Result<T, PmaError> {
        let len = self.run_len(run).ok_or(PmaError::RunOutOfRange {
            run,
            run_count: self.run_count(),
        })?;
        if index >= len {
            return Err(PmaError::IndexOutOfRange { run, index, len });
        }
        let s = self.start_of(run);
        let value = self.slots[s + index];
        self.slots.copy_within(s + index + 1..s + len, s + index);
        self.stats.count_shift((len - index - 1) as u64);
        self.len[run] -= 1;
        self.section_len[run / self.runs_per_section] -= 1;
        self.total -= 1;
        self.stats.removes += 1;
        self.maybe_shrink();
        Ok(value)
    }

    /// Redistributes the whole array, dropping every element the
    /// [`Reclaim`] rule allows, then halves it while the root is below
    /// `root_lower / 2`. `O(capacity)`.
    pub fn compact(&mut self) {
        let run_count = self.run_count();
        let capacity = self.slots.len();
        let root = self.tree.height();
        let moved = self.redistribute(0..run_count, 0, capacity, None, root);
        self.stats.count_rebalance(root, moved);
        self.maybe_shrink();
    }

    // ----- internals -----------------------------------------------------

    #[inline]
    fn start_of(&self, run: usize) -> usize {
        self.start[run] as usize
    }

    #[inline]
    fn len_of(&self, run: usize) -> usize {
        self.len[run] as usize
    }

    /// Elements (tombstones included) of the runs `runs`.
    fn sum_len(&self, runs: Range<usize>) -> usize {
        self.len[runs].iter().map(|&l| l as usize).sum()
    }

    fn chosen_runs_per_section(&self) -> usize {
        self.config
            .section_size
            .unwrap_or_else(|| (ceil_log2(self.run_count()) as usize).max(8))
    }

    /// Recomputes runs per section, the section counts and the tree.
    fn rebuild_sections(&mut self) {
        self.runs_per_section = self.chosen_runs_per_section();
        let sections = self.run_count().div_ceil(self.runs_per_section);
        self.section_len.clear();
        self.section_len.extend(
            self.len
                .chunks(self.runs_per_section)
                .map(|c| c.iter().map(|&l| l as usize).sum::<usize>()),
        );
        debug_assert_eq!(self.section_len.len(), sections);
        self.tree = DensityTree::new(sections.max(1), self.config.thresholds);
    }

    /// Runs of sections `sections` (clipped to the run count).
    fn runs_of(&self, sections: Range<usize>) -> Range<usize> {
        let rps = self.runs_per_section;
        (sections.start * rps).min(self.run_count())..(sections.end * rps).min(self.run_count())
    }

    #[inline]
    fn has_slack(&self, run: usize) -> bool {
        self.start[run] + self.len[run] < self.start[run + 1]
    }

    fn insert_unchecked(&mut self, run: usize, index: usize, value: T) -> Result<(), PmaError> {
        // Logged first, so the redistribution this insert may cause
        // already counts it (a refused insert leaves one stale log entry,
        // which the policy tolerates).
        self.policy.record_insert(run);
        let redistributed = self.make_room(run)?;
        let s = self.start_of(run);
        let len = self.len_of(run);
        if index < len {
            self.slots.copy_within(s + index..s + len, s + index + 1);
            self.stats.count_shift((len - index) as u64);
        }
        self.slots[s + index] = value;
        self.len[run] += 1;
        self.section_len[run / self.runs_per_section] += 1;
        self.total += 1;
        self.stats.inserts += 1;
        if redistributed {
            // It may have reclaimed tombstones.
            self.maybe_shrink();
        }
        Ok(())
    }

    /// Ensures run `run` has a free slot right after its elements, and
    /// says whether that took a redistribution (which may have reclaimed
    /// tombstones); fails (changing nothing) only when that needs more than
    /// [`MAX_CAPACITY`] slots.
    fn make_room(&mut self, run: usize) -> Result<bool, PmaError> {
        let root_upper = self.config.thresholds.root_upper;
        if (self.total + 1) as f64 > root_upper * self.slots.len() as f64 {
            // Keep the root within its bound after every insert: this is
            // what bounds memory at `N / root_upper` slots.
            self.grow(run)?;
            return Ok(true);
        }
        // The common case, checked first: when leaf sections may fill up
        // (the default leaf bound of 1), a free slot after the run also
        // means its section is within bounds.
        if self.config.thresholds.leaf_upper >= 1.0 && self.has_slack(run) {
            return Ok(false);
        }
        let section = run / self.runs_per_section;
        let runs = self.runs_of(section..section + 1);
        let capacity = self.start_of(runs.end) - self.start_of(runs.start);
        let (_, upper) = self.tree.bounds(0);
        let section_too_dense = (self.section_len[section] + 1) as f64 > upper * capacity as f64;
        if section_too_dense || (!self.has_slack(run) && !self.shift_for(run, runs)) {
            self.rebalance_for_insert(run)?;
            debug_assert!(self.has_slack(run));
            return Ok(true);
        }
        debug_assert!(self.has_slack(run));
        Ok(false)
    }

    /// Moves neighbouring runs inside `bounds` by one slot so that `run`
    /// gains a free slot; picks the side that moves fewer elements. Does
    /// nothing and returns `false` when that would move more than half the
    /// section's elements (a long run next to the free slot): a
    /// redistribution is the better buy then. The caller guarantees a free
    /// slot somewhere in `bounds`.
    fn shift_for(&mut self, run: usize, bounds: Range<usize>) -> bool {
        let limit = SHIFT_SLACK + self.sum_len(bounds.clone()) / 2;
        let mut right = None;
        let mut right_cost = 0;
        for j in run + 1..bounds.end {
            right_cost += self.len_of(j);
            if self.has_slack(j) {
                right = Some(j);
                break;
            }
        }
        let mut left = None;
        let mut left_cost = self.len_of(run);
        for j in (bounds.start..run).rev() {
            if right.is_some() && left_cost >= right_cost {
                break;
            }
            if self.has_slack(j) {
                left = Some(j);
                break;
            }
            left_cost += self.len_of(j);
        }
        let use_left = match (left, right) {
            (Some(_), Some(_)) => left_cost < right_cost,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return false,
        };
        if (if use_left { left_cost } else { right_cost }) > limit {
            return false;
        }
        let moved = if use_left {
            let j = left.unwrap_or(run);
            for i in j + 1..=run {
                let (s, l) = (self.start_of(i), self.len_of(i));
                self.slots.copy_within(s..s + l, s - 1);
                self.start[i] -= 1;
            }
            left_cost
        } else {
            let j = right.unwrap_or(run);
            for i in (run + 1..=j).rev() {
                let (s, l) = (self.start_of(i), self.len_of(i));
                self.slots.copy_within(s..s + l, s + 1);
                self.start[i] += 1;
            }
            right_cost
        };
        self.stats.count_shift(moved as u64);
        true
    }

    /// Redistributes the smallest window around `run`'s section that stays
    /// within its upper bound with one more element, growing the array if
    /// even the root would not; afterwards `run` has a free slot.
    fn rebalance_for_insert(&mut self, run: usize) -> Result<(), PmaError> {
        let leaf = run / self.runs_per_section;
        let height = self.tree.height();
        for level in 0..=height {
            let window = self.tree.window(leaf, level);
            let runs = self.runs_of(window.clone());
            let count = if level == height {
                self.total
            } else {
                self.section_len[window].iter().sum()
            } + 1;
            let (lo, hi) = (self.start_of(runs.start), self.start_of(runs.end));
            let (_, upper) = self.tree.bounds(level);
            if count as f64 <= upper * (hi - lo) as f64 {
                let moved = self.redistribute(runs, lo, hi, Some(run), level);
                self.stats.count_rebalance(level, moved);
                return Ok(());
            }
        }
        self.grow(run)
    }

    /// Grows the array by the configured [`PmaOptions::growth`] factor
    /// (more than once if needed, at least by one slot), leaving `run` a
    /// free slot; refuses, changing nothing, past [`MAX_CAPACITY`].
    fn grow(&mut self, run: usize) -> Result<(), PmaError> {
        let upper = self.config.thresholds.root_upper;
        let growth = self.config.growth;
        let needed = self.total + 1;
        let grown = |capacity: usize| ((capacity as f64 * growth) as usize).max(capacity + 1);
        let mut capacity = grown(self.slots.len().max(1));
        while needed as f64 > upper * capacity as f64 {
            capacity = grown(capacity);
        }
        check_capacity(capacity)?;
        self.resize_to(capacity, Some(run));
        Ok(())
    }

    /// The array never shrinks below the configured minimum plus one slot
    /// per run (what [`add_runs`](Self::add_runs) adds).
    fn capacity_floor(&self) -> usize {
        self.config.min_capacity + self.run_count()
    }

    /// Halves the array while the root is below `root_lower / 2` (and
    /// above [`capacity_floor`](Self::capacity_floor)).
    fn maybe_shrink(&mut self) {
        let shrink_below = self.config.thresholds.shrink_below();
        let min = self.capacity_floor();
        let mut capacity = self.slots.len();
        while capacity > min && (self.total as f64) < shrink_below * capacity as f64 {
            capacity = (capacity / 2).max(min);
        }
        if capacity != self.slots.len() {
            self.resize_to(capacity, None);
        }
    }

    /// Moves everything into an array of `capacity` slots (in place: the
    /// vector is extended before, or truncated after, the redistribution).
    fn resize_to(&mut self, capacity: usize, pending: Option<usize>) {
        let old = self.slots.len();
        let grew = capacity > old;
        if grew {
            // Exactly `capacity`: the gaps are the layout's slack already,
            // a `Vec` growth margin on top would be memory no run owns.
            self.slots.reserve_exact(capacity - old);
            self.slots.resize(capacity, T::default());
        }
        let run_count = self.run_count();
        // Sections may change size with the run count's logarithm; lay out
        // the root with the new tree so the policy sees the final level.
        let moved = self.redistribute(0..run_count, 0, capacity, pending, self.tree.height());
        self.start[run_count] = index(capacity);
        if !grew {
            self.slots.truncate(capacity);
            self.slots.shrink_to_fit();
        }
        if self.config.section_size.is_none() {
            self.rebuild_sections();
        }
        self.policy.on_resize(capacity, run_count);
        self.stats.count_resize(grew, moved);
    }

    /// Lays the runs `runs` out again over slots `lo..hi` in place, giving
    /// each the free slots the policy chooses (with one extra element
    /// counted for `pending`), after dropping reclaimable elements.
    /// Returns the number of elements moved.
    fn redistribute(
        &mut self,
        runs: Range<usize>,
        lo: usize,
        hi: usize,
        pending: Option<usize>,
        level: u32,
    ) -> u64 {
        let (a, b) = (runs.start, runs.end);
        if a == b {
            return 0;
        }
        let mut moved = 0u64;
        // Pass 0: squeeze reclaimable elements out of each run that may
        // hold some (it was handed out mutably), leftward inside the run's
        // own slots, so every run below is dense. The run receiving an
        // insert keeps its tombstones this time, so the caller's position
        // in it stays valid.
        if self.touched_count > 0 && !matches!(self.reclaim, Reclaim::Never) {
            for r in a..b {
                if !self.touched.get(r) || pending == Some(r) {
                    continue;
                }
                let s = self.start_of(r);
                let l = self.len_of(r);
                let mut write = s;
                let mut kept_tombstones = false;
                for read in s..s + l {
                    let element = self.slots[read];
                    if self.reclaim.reclaims(&element) {
                        continue;
                    }
                    kept_tombstones |= element.is_tombstone();
                    if write != read {
                        self.slots[write] = element;
                        moved += 1;
                    }
                    write += 1;
                }
                // A tombstone the rule kept (say, for a live snapshot) must
                // be looked at again next time.
                if !kept_tombstones {
                    self.touched.set(r, false);
                    self.touched_count -= 1;
                }
                let dropped = s + l - write;
                if dropped > 0 {
                    self.len[r] -= index(dropped);
                    self.total -= dropped;
                    self.stats.reclaimed += dropped as u64;
                }
            }
        }
        if let Some(p) = pending {
            self.len[p] += 1;
        }
        let used = self.sum_len(a..b);
        debug_assert!(used <= hi - lo, "window over capacity");
        let free = (hi - lo).saturating_sub(used);
        let window = Window {
            first_run: a,
            lengths: &self.len[a..b],
            free_slots: free,
            level,
        };
        // Both paths count the pending element in its run's length (the
        // policy sees it so), which puts every start where it belongs; the
        // run's block then moves one element fewer, leaving the slot free.
        let pending_index = pending.map(|p| p - a);
        let linear = self
            .policy
            .linear_gaps(&window)
            .and_then(|rule| LinearPlacement::new(rule, &window, used));
        let next = match linear {
            Some(mut placement) => place_runs(
                &mut self.start[a..b],
                &self.len[a..b],
                lo,
                pending_index,
                &mut self.scratch_blocks,
                |len| placement.gap(len),
            ),
            None => {
                self.scratch_gaps.clear();
                self.scratch_gaps.resize(b - a, 0);
                self.policy.distribute(&window, &mut self.scratch_gaps);
                if self.scratch_gaps.iter().sum::<usize>() != free {
                    self.scratch_gaps.iter_mut().for_each(|g| *g = 0);
                    apportion(&mut self.scratch_gaps, free, |_| 1);
                    self.stats.policy_fallbacks += 1;
                }
                let mut gaps = self.scratch_gaps.iter();
                place_runs(
                    &mut self.start[a..b],
                    &self.len[a..b],
                    lo,
                    pending_index,
                    &mut self.scratch_blocks,
                    |_| gaps.next().copied().unwrap_or(0),
                )
            }
        };
        if let Some(p) = pending {
            self.len[p] -= 1;
        }
        debug_assert_eq!(next, hi);
        moved += move_blocks(&mut self.slots, &self.scratch_blocks);
        // A window of most runs leaves scratch of 32 bytes per run behind,
        // more than the per-run bookkeeping itself: give it back, keeping
        // what the frequent small windows need (at most a byte per run).
        let kept = SCRATCH_KEPT.max(self.run_count() / 32);
        if self
            .scratch_gaps
            .capacity()
            .max(self.scratch_blocks.capacity())
            > kept
        {
            self.scratch_blocks = Vec::new();
            self.scratch_gaps = Vec::new();
        }
        // Recount the sections the window covers.
        let rps = self.runs_per_section;
        let first_section = a / rps;
        let window_lengths =
            &self.len[first_section * rps..self.runs_of(first_section..b.div_ceil(rps)).end];
        for (count, lengths) in self.section_len[first_section..]
            .iter_mut()
            .zip(window_lengths.chunks(rps))
        {
            *count = lengths.iter().map(|&l| l as usize).sum();
        }
        #[cfg(debug_assertions)]
        self.debug_check_window(a..b, hi);
        moved
    }

    /// Debug builds: after a redistribution, the window's runs are in
    /// order, fit their slots, and end exactly at the window's end.
    #[cfg(debug_assertions)]
    fn debug_check_window(&self, runs: Range<usize>, hi: usize) {
        for r in runs.clone() {
            let end = if r + 1 == runs.end {
                hi
            } else {
                self.start_of(r + 1)
            };
            assert!(
                self.start_of(r) + self.len_of(r) <= end,
                "run {r} overflows after a redistribution"
            );
        }
    }

    /// Checks every invariant the layout keeps; `O(capacity + runs)`.
    /// Meant for tests and debugging; returns the first violation found.
    ///
    /// Checked: run slots are in order, disjoint, inside the array, and
    /// each run fits its slots; the array size matches the last boundary;
    /// section and total counts match the run lengths; the tree matches the
    /// section count; the root is within its upper bound and above the
    /// shrink threshold (or at the capacity floor: the minimum capacity
    /// plus one slot per run).
    pub fn validate(&self) -> Result<(), PmaError> {
        let fail = |why: String| Err(PmaError::Invariant(why));
        let run_count = self.run_count();
        if self.start.len() != run_count + 1 {
            return fail(format!(
                "{} boundaries for {run_count} runs",
                self.start.len()
            ));
        }
        if self.start_of(run_count) != self.slots.len() {
            return fail(format!(
                "last boundary {} != capacity {}",
                self.start[run_count],
                self.slots.len()
            ));
        }
        if run_count > 0 && self.start[0] != 0 {
            return fail(format!("run 0 starts at {}", self.start[0]));
        }
        for r in 0..run_count {
            if self.start[r] > self.start[r + 1] {
                return fail(format!("run {r} starts after run {}", r + 1));
            }
            if self.start_of(r) + self.len_of(r) > self.start_of(r + 1) {
                return fail(format!(
                    "run {r} ({} elements) overflows its {} slots",
                    self.len[r],
                    self.start_of(r + 1) - self.start_of(r)
                ));
            }
        }
        if self.touched.len() != run_count {
            return fail(format!(
                "{} touched flags for {run_count} runs",
                self.touched.len()
            ));
        }
        let touched = self.touched.count();
        if touched != self.touched_count {
            return fail(format!(
                "{touched} touched flags set, {} counted",
                self.touched_count
            ));
        }
        let sections = run_count.div_ceil(self.runs_per_section);
        if self.section_len.len() != sections || self.tree.leaf_count() != sections.max(1) {
            return fail(format!(
                "{} section counts and {} tree leaves for {sections} sections",
                self.section_len.len(),
                self.tree.leaf_count()
            ));
        }
        for (s, &count) in self.section_len.iter().enumerate() {
            let actual = self.sum_len(self.runs_of(s..s + 1));
            if actual != count {
                return fail(format!("section {s} counts {count}, holds {actual}"));
            }
        }
        let total = self.sum_len(0..run_count);
        if total != self.total {
            return fail(format!("total {} but runs hold {total}", self.total));
        }
        let t = self.config.thresholds;
        let capacity = self.slots.len() as f64;
        if self.total as f64 > t.root_upper * capacity {
            return fail(format!(
                "root density {} above {}",
                self.density(),
                t.root_upper
            ));
        }
        // `from_runs` gives every run a free slot on top of the elements, so
        // a layout of few elements over many runs is legitimately sparse up
        // to `total + run_count` slots.
        let sparse_allowed = self.capacity_floor().max(self.total + self.run_count());
        if self.slots.len() > sparse_allowed && (self.total as f64) < t.shrink_below() * capacity {
            return fail(format!(
                "root density {} below the shrink threshold {}",
                self.density(),
                t.shrink_below()
            ));
        }
        Ok(())
    }
}
