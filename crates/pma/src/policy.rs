//! Gap policies: how a redistribution of the runs layout shares a window's
//! free slots among its runs.

use std::fmt;
use strength_reduce::StrengthReducedU64;

/// What a [`GapPolicy`] sees of the window being redistributed.
#[derive(Clone, Copy, Debug)]
pub struct Window<'a> {
    /// Id of the window's first run; run `first_run + i` has length
    /// `lengths[i]`.
    pub first_run: usize,
    /// Current length of each run of the window (tombstones that are about
    /// to be reclaimed are already excluded; a run that is receiving the
    /// insert that caused the redistribution already counts it).
    pub lengths: &'a [u32],
    /// Free slots to share: the window's capacity minus the sum of
    /// `lengths`.
    pub free_slots: usize,
    /// Tree level of the window (0 = one section, the root has the tree's
    /// height). Resizes and `compact` redistribute at the root's level.
    pub level: u32,
}

/// Decides how a window's free slots are shared among its runs.
///
/// [`distribute`](Self::distribute) fills `gaps[i]` with the free slots
/// that run `window.first_run + i` gets after its elements; the values must
/// add up to exactly `window.free_slots` (the layout checks, and falls back
/// to [`Even`] and counts a
/// [`policy_fallback`](crate::PmaStats::policy_fallbacks) if not). The
/// helper [`apportion`] does exact-total proportional rounding.
///
/// [`record_insert`](Self::record_insert) is called for every insert
/// (before any redistribution it causes) and
/// [`on_resize`](Self::on_resize) after every resize; both default to
/// doing nothing. A policy runs inside the insert path, so it should be
/// `O(window runs)` per call at most.
pub trait GapPolicy {
    /// A short name for tables ("even", "degree", ...).
    fn name(&self) -> &str;

    /// Fills `gaps` (one entry per run of the window, zeroed on entry) so
    /// that it sums to `window.free_slots`.
    fn distribute(&mut self, window: &Window<'_>, gaps: &mut [usize]);

    /// The rule behind [`distribute`](Self::distribute), when it is a
    /// [`LinearGaps`] rule for this window: the layout then places every
    /// run in one pass, straight from the lengths, without a gaps buffer
    /// (a redistribution's per-run work is most of its cost on layouts of
    /// many short runs). The rule must give exactly the gaps `distribute`
    /// gives. Default: `None`, the layout calls `distribute`.
    fn linear_gaps(&self, window: &Window<'_>) -> Option<LinearGaps> {
        let _ = window;
        None
    }

    /// Observes an insert into `run`.
    fn record_insert(&mut self, run: usize) {
        let _ = run;
    }

    /// Observes a resize to `capacity` slots holding `run_count` runs.
    fn on_resize(&mut self, capacity: usize, run_count: usize) {
        let _ = (capacity, run_count);
    }
}

impl<P: GapPolicy + ?Sized> GapPolicy for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn distribute(&mut self, window: &Window<'_>, gaps: &mut [usize]) {
        (**self).distribute(window, gaps)
    }
    fn linear_gaps(&self, window: &Window<'_>) -> Option<LinearGaps> {
        (**self).linear_gaps(window)
    }
    fn record_insert(&mut self, run: usize) {
        (**self).record_insert(run)
    }
    fn on_resize(&mut self, capacity: usize, run_count: usize) {
        (**self).on_resize(capacity, run_count)
    }
}

/// Adds to `out[i]` a share of `total` proportional to `weight(i)`, with
/// rounding that conserves the exact total: share `i` is
/// `floor(W_{i+1} * total / W) - floor(W_i * total / W)` where `W_i` is the
/// prefix sum of weights, so every share is within one of its exact value
/// and the shares add up to `total`. All weights zero means equal shares.
/// `O(out.len())`, no sorting.
pub fn apportion(out: &mut [usize], total: usize, weight: impl Fn(usize) -> u64) {
    let n = out.len();
    if n == 0 {
        return;
    }
    let sum: u128 = (0..n).map(|i| u128::from(weight(i))).sum();
    let denominator = if sum == 0 { n as u128 } else { sum };
    // 64-bit arithmetic when `prefix * total` cannot overflow it (nearly
    // always), 128-bit division otherwise: it is several times slower.
    if denominator.saturating_mul(total as u128) <= u128::from(u64::MAX) {
        let (denominator, total) = (denominator as u64, total as u64);
        // One division per run is most of a redistribution's per-run cost
        // on graphs with many short runs: divide by multiplying with a
        // precomputed reciprocal instead (exact, same quotients).
        let divisor = StrengthReducedU64::new(denominator);
        let (mut prefix, mut given) = (0u64, 0u64);
        for (i, slot) in out.iter_mut().enumerate() {
            let weight = if sum == 0 { 1 } else { weight(i) };
            if weight == 0 {
                // No share, and no division: on sparse vertex ranges most
                // runs of a window are empty.
                continue;
            }
            prefix += weight;
            let upto = prefix * total / divisor;
            *slot += (upto - given) as usize;
            given = upto;
        }
        return;
    }
    let total_wide = total as u128;
    let mut prefix: u128 = 0;
    let mut given: u128 = 0;
    for (i, slot) in out.iter_mut().enumerate() {
        prefix += if sum == 0 { 1 } else { u128::from(weight(i)) };
        let upto = prefix * total_wide / denominator;
        *slot += (upto - given) as usize;
        given = upto;
    }
}

/// A gap rule linear in run length: every run gets `base` free slots, and
/// `share` more are [`apportion`]ed in proportion to each run's weight
/// `length_weight * length + constant_weight` (equal shares when every
/// weight is zero).
///
/// Such a rule fixes every run's start in closed form — the start of run
/// `r` is `r * base` plus the elements before it plus
/// `floor(W_r * share / W)`, `W_r` the weight before it — which is what
/// lets [`PackedRuns`](crate::PackedRuns) lay a window out in one pass
/// (see [`GapPolicy::linear_gaps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearGaps {
    /// Free slots every run gets first.
    pub base: usize,
    /// Free slots shared in proportion to the weights.
    pub share: usize,
    /// Weight per element of a run.
    pub length_weight: u64,
    /// Weight every run has, whatever its length.
    pub constant_weight: u64,
}

impl LinearGaps {
    /// Run `i`'s weight when its length is `length`.
    #[inline]
    pub fn weight(&self, length: u32) -> u64 {
        self.length_weight * u64::from(length) + self.constant_weight
    }

    /// Fills `gaps` (one entry per run of `lengths`) with the rule's gaps.
    pub fn fill(&self, lengths: &[u32], gaps: &mut [usize]) {
        gaps.fill(self.base);
        apportion(gaps, self.share, |i| self.weight(lengths[i]));
    }
}

/// Every run of the window gets the same number of free slots (within one).
///
/// This is the per-run reading of "even": it ignores how long runs are, so
/// a long, hot run gets as little room as an idle one. `O(runs)` per
/// redistribution. (Spreading gaps evenly over *slots*, as PCSR does, is
/// what [`PackedSet`](crate::PackedSet) does.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Even;

impl GapPolicy for Even {
    fn name(&self) -> &str {
        "even"
    }
    fn distribute(&mut self, window: &Window<'_>, gaps: &mut [usize]) {
        apportion(gaps, window.free_slots, |_| 1);
    }
    fn linear_gaps(&self, window: &Window<'_>) -> Option<LinearGaps> {
        Some(LinearGaps {
            base: 0,
            share: window.free_slots,
            length_weight: 0,
            constant_weight: 1,
        })
    }
}

/// VCSR's policy (the default): free slots proportional to run length
/// (`gaps_v = degree_v * gaps_avail / total_degree`, the paper's §IV-A3),
/// after a minimum slack for every run.
///
/// When the window has at least `min_slack * runs` free slots, every run
/// first gets `min_slack` (so an empty run, or a run that was idle, can
/// take its next element without shifting a neighbour) and the rest is
/// shared by length with [`apportion`]. With fewer free slots, all of them
/// are shared in proportion to `length + 1`. `O(runs)` per redistribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DegreeProportional {
    /// Free slots every run gets before the proportional share (default 1).
    pub min_slack: usize,
}

impl Default for DegreeProportional {
    fn default() -> Self {
        DegreeProportional { min_slack: 1 }
    }
}

impl DegreeProportional {
    fn rule(min_slack: usize, runs: usize, free: usize) -> LinearGaps {
        match min_slack.checked_mul(runs) {
            Some(reserved) if reserved <= free => LinearGaps {
                base: min_slack,
                share: free - reserved,
                length_weight: 1,
                constant_weight: 0,
            },
            _ => LinearGaps {
                base: 0,
                share: free,
                length_weight: 1,
                constant_weight: 1,
            },
        }
    }

    fn share(min_slack: usize, lengths: &[u32], free: usize, gaps: &mut [usize]) {
        Self::rule(min_slack, lengths.len(), free).fill(lengths, gaps);
    }
}

impl GapPolicy for DegreeProportional {
    fn name(&self) -> &str {
        "degree"
    }
    fn distribute(&mut self, window: &Window<'_>, gaps: &mut [usize]) {
        Self::share(self.min_slack, window.lengths, window.free_slots, gaps);
    }
    fn linear_gaps(&self, window: &Window<'_>) -> Option<LinearGaps> {
        Some(Self::rule(
            self.min_slack,
            window.lengths.len(),
            window.free_slots,
        ))
    }
}

/// Opt-in history-adaptive policy, after Bender and Hu's adaptive PMA (the
/// paper's §III-A): a bounded log of the runs of recent inserts skews gaps
/// toward hot runs.
///
/// The log holds the last `history_len` inserted-into run ids, about
/// `log2 N` entries (re-sized on every resize to `max(16, log2
/// capacity)`). On a redistribution, every run first gets `min_slack`;
/// the remaining free slots are shared by length as in
/// [`DegreeProportional`], except that each logged insert into a run of
/// the window counts as much as a run of average length: a run that is
/// being filled right now (the hammer pattern, where length says nothing
/// about the future) gets room for about as many more elements as it has
/// recent inserts times the average run, while one stale log entry can
/// cost little.
/// `O(runs + history_len)` per redistribution, `O(1)` per insert.
#[derive(Clone)]
pub struct HistoryAdaptive {
    /// Free slots every run gets first (default 1).
    pub min_slack: usize,
    history: Vec<usize>,
    history_len: usize,
    next: usize,
    hits: Vec<u64>,
}

impl fmt::Debug for HistoryAdaptive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HistoryAdaptive")
            .field("min_slack", &self.min_slack)
            .field("history_len", &self.history_len)
            .field("logged", &self.history.len())
            .finish()
    }
}

impl Default for HistoryAdaptive {
    fn default() -> Self {
        HistoryAdaptive {
            min_slack: 1,
            history: Vec::new(),
            history_len: 16,
            next: 0,
            hits: Vec::new(),
        }
    }
}

impl HistoryAdaptive {
    /// How many recent inserts the log keeps.
    pub fn history_len(&self) -> usize {
        self.history_len
    }
}

impl GapPolicy for HistoryAdaptive {
    fn name(&self) -> &str {
        "history"
    }

    fn distribute(&mut self, window: &Window<'_>, gaps: &mut [usize]) {
        let runs = window.lengths.len();
        let window_runs = window.first_run..window.first_run + runs;
        self.hits.clear();
        self.hits.resize(runs, 0);
        let mut total_hits = 0u64;
        for &run in &self.history {
            if window_runs.contains(&run) {
                self.hits[run - window.first_run] += 1;
                total_hits += 1;
            }
        }
        let reserved = self.min_slack.saturating_mul(runs);
        if total_hits == 0 || reserved > window.free_slots {
            DegreeProportional::share(self.min_slack, window.lengths, window.free_slots, gaps);
            return;
        }
        gaps.iter_mut().for_each(|g| *g = self.min_slack);
        let rest = window.free_slots - reserved;
        // Weights scaled by the run count `k` to stay integral: a run's
        // length counts `k` per element, and each logged hit counts as
        // much as a whole run of average length (`total / k` elements).
        let k = runs as u64;
        let per_hit = window.lengths.iter().map(|&l| u64::from(l)).sum::<u64>() + k;
        let hits = &self.hits;
        apportion(gaps, rest, |i| {
            window.lengths[i] as u64 * k + hits[i] * per_hit
        });
    }

    fn record_insert(&mut self, run: usize) {
        if self.history.len() < self.history_len {
            self.history.push(run);
        } else {
            self.history[self.next] = run;
        }
        self.next = (self.next + 1) % self.history_len;
    }

    fn on_resize(&mut self, capacity: usize, _run_count: usize) {
        let wanted = (crate::tree::ceil_log2(capacity) as usize).max(16);
        if wanted != self.history_len {
            // Keep the most recent entries in a fresh ring.
            let mut recent = Vec::with_capacity(self.history.len());
            let n = self.history.len();
            for i in 0..n {
                recent.push(self.history[(self.next + i) % n]);
            }
            let keep = recent.len().saturating_sub(wanted);
            self.history = recent.split_off(keep);
            self.history_len = wanted;
            self.next = self.history.len() % wanted;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn window(lengths: &[u32], free: usize) -> Window<'_> {
        Window {
            first_run: 10,
            lengths,
            free_slots: free,
            level: 1,
        }
    }

    #[test]
    fn degree_gives_min_slack_then_proportional() {
        let lengths = [0, 10, 30, 0];
        let mut gaps = [0; 4];
        DegreeProportional::default().distribute(&window(&lengths, 44), &mut gaps);
        assert_eq!(gaps, [1, 11, 31, 1]);
        assert_eq!(gaps.iter().sum::<usize>(), 44);
    }

    #[test]
    fn degree_with_too_few_free_slots_still_conserves() {
        let lengths = [0, 0, 5, 0, 0];
        let mut gaps = [0; 5];
        DegreeProportional::default().distribute(&window(&lengths, 3), &mut gaps);
        assert_eq!(gaps.iter().sum::<usize>(), 3);
    }

    #[test]
    fn history_skews_toward_logged_runs() {
        let mut policy = HistoryAdaptive::default();
        for _ in 0..16 {
            policy.record_insert(13);
        }
        let lengths = [5, 5, 5, 5];
        let mut gaps = [0; 4];
        policy.distribute(&window(&lengths, 84), &mut gaps);
        assert_eq!(gaps.iter().sum::<usize>(), 84);
        assert!(gaps[3] > 2 * gaps[0], "{gaps:?}");
    }

    #[test]
    fn history_ring_resizes_keeping_recent() {
        let mut policy = HistoryAdaptive::default();
        for run in 0..40 {
            policy.record_insert(run);
        }
        policy.on_resize(1 << 20, 4);
        assert_eq!(policy.history_len(), 20);
        let mut logged = policy.history.clone();
        logged.sort_unstable();
        assert_eq!(logged, (24..40).collect::<Vec<_>>());
        for run in 100..125 {
            policy.record_insert(run);
        }
        let mut logged = policy.history.clone();
        logged.sort_unstable();
        assert_eq!(logged, (105..125).collect::<Vec<_>>());
    }

    proptest! {
        #[test]
        fn policies_conserve_the_exact_total(
            lengths in proptest::collection::vec(0u32..1000, 1..50),
            free in 0usize..5000,
            hot in 0usize..60,
        ) {
            let w = Window { first_run: 0, lengths: &lengths, free_slots: free, level: 0 };
            let mut history = HistoryAdaptive::default();
            history.record_insert(hot);
            let policies: [&mut dyn GapPolicy; 3] =
                [&mut Even, &mut DegreeProportional::default(), &mut history];
            for policy in policies {
                let mut gaps = vec![0; lengths.len()];
                policy.distribute(&w, &mut gaps);
                prop_assert_eq!(gaps.iter().sum::<usize>(), free, "{}", policy.name());
            }
        }

        #[test]
        fn apportion_conserves_with_huge_weights(
            weights in proptest::collection::vec(0u64..u64::MAX / 64, 1..30),
            total in 0usize..usize::MAX / 64,
        ) {
            let mut out = vec![0; weights.len()];
            apportion(&mut out, total, |i| weights[i]);
            prop_assert_eq!(out.iter().sum::<usize>(), total);
        }

        #[test]
        fn apportion_is_within_one_of_exact(
            weights in proptest::collection::vec(0u64..100, 1..30),
            total in 0usize..10_000,
        ) {
            let mut out = vec![0; weights.len()];
            apportion(&mut out, total, |i| weights[i]);
            prop_assert_eq!(out.iter().sum::<usize>(), total);
            let sum: u64 = weights.iter().sum();
            if sum > 0 {
                for (i, &w) in weights.iter().enumerate() {
                    let exact = w as f64 * total as f64 / sum as f64;
                    prop_assert!((out[i] as f64 - exact).abs() < 1.0 + 1e-9);
                }
            }
        }
    }
}
