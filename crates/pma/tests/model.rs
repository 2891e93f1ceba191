//! Model tests: `PackedSet` against `BTreeSet`, `PackedRuns` against
//! `Vec<Vec<T>>`, over random interleavings of every operation, with a
//! small minimum capacity so that each case grows and shrinks several times.
//! The validator runs after every operation.

use dyngraph_pma::{
    DegreeProportional, Element, Even, GapPolicy, HistoryAdaptive, PackedRuns, PackedSet,
    PmaOptions, Reclaim, Thresholds, Window,
};
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::ops::Bound;

#[derive(Clone, Debug)]
enum SetOp {
    Insert(u16),
    Remove(u16),
    Contains(u16),
    Successor(u16),
    Range(u16, u16),
}

fn set_op() -> impl Strategy<Value = SetOp> {
    prop_oneof![
        6 => any::<u16>().prop_map(|x| SetOp::Insert(x % 2048)),
        3 => any::<u16>().prop_map(|x| SetOp::Remove(x % 2048)),
        1 => any::<u16>().prop_map(|x| SetOp::Contains(x % 2048)),
        1 => any::<u16>().prop_map(|x| SetOp::Successor(x % 2048)),
        1 => (any::<u16>(), 0u16..64).prop_map(|(x, w)| SetOp::Range(x % 2048, w)),
    ]
}

fn configs() -> impl Strategy<Value = PmaOptions> {
    prop_oneof![
        Just(PmaOptions::default().min_capacity(8)),
        Just(PmaOptions::default().min_capacity(8).section_size(2)),
        Just(
            PmaOptions::default()
                .min_capacity(16)
                .section_size(4)
                .thresholds(Thresholds {
                    leaf_lower: 0.1,
                    leaf_upper: 0.9,
                    root_lower: 0.3,
                    root_upper: 0.7,
                })
        ),
    ]
}

fn check_set(set: &PackedSet<u16>, model: &BTreeSet<u16>) -> Result<(), TestCaseError> {
    set.validate()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(set.len(), model.len());
    prop_assert!(set.iter().eq(model.iter().copied()));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn packed_set_matches_btreeset(
        config in configs(),
        ops in proptest::collection::vec(set_op(), 1..700),
    ) {
        let mut set = PackedSet::with_config(config).unwrap();
        let mut model = BTreeSet::new();
        for op in ops {
            match op {
                SetOp::Insert(x) => prop_assert_eq!(set.insert(x), model.insert(x)),
                SetOp::Remove(x) => prop_assert_eq!(set.remove(&x), model.remove(&x)),
                SetOp::Contains(x) => prop_assert_eq!(set.contains(&x), model.contains(&x)),
                SetOp::Successor(x) => {
                    prop_assert_eq!(
                        set.successor(&x),
                        model.range((Bound::Excluded(x), Bound::Unbounded)).next().copied()
                    );
                    prop_assert_eq!(set.lower_bound(&x), model.range(x..).next().copied());
                }
                SetOp::Range(x, w) => {
                    let hi = x.saturating_add(w);
                    prop_assert!(set.range(x..hi).eq(model.range(x..hi).copied()));
                    prop_assert!(set.range(x..=hi).eq(model.range(x..=hi).copied()));
                    prop_assert!(set
                        .range((Bound::Excluded(x), Bound::Included(hi)))
                        .eq(model.range((Bound::Excluded(x), Bound::Included(hi))).copied()));
                }
            }
            check_set(&set, &model)?;
        }
        prop_assert_eq!(set.first(), model.first().copied());
        prop_assert_eq!(set.last(), model.last().copied());
        // Draining everything brings the array back to its minimum size.
        for x in model.iter() {
            prop_assert!(set.remove(x));
        }
        prop_assert!(set.is_empty());
        prop_assert_eq!(set.capacity(), config.min_capacity.next_power_of_two());
        check_set(&set, &BTreeSet::new())?;
    }

    #[test]
    fn packed_set_bulk_build_matches(values in proptest::collection::vec(any::<u16>(), 0..3000)) {
        let set: PackedSet<u16> = values.iter().copied().collect();
        let model: BTreeSet<u16> = values.into_iter().collect();
        check_set(&set, &model)?;
    }
}

/// A store-like element: a value and a deletion mark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Item {
    value: u32,
    dead: bool,
}

impl Element for Item {
    fn is_tombstone(&self) -> bool {
        self.dead
    }
}

#[derive(Clone, Debug)]
enum RunOp {
    Push(usize, u32),
    /// Insert before the `k`-th live element (or at the end).
    Insert(usize, usize, u32),
    /// Physically remove the `k`-th live element.
    Remove(usize, usize),
    /// Mark the `k`-th live element deleted.
    Tombstone(usize, usize),
    AddRuns(usize),
    Compact,
    Reclaim(bool),
}

fn run_op() -> impl Strategy<Value = RunOp> {
    // Run ids and positions are taken modulo what exists when applied.
    prop_oneof![
        10 => (any::<usize>(), any::<u32>()).prop_map(|(r, v)| RunOp::Push(r, v)),
        2 => (any::<usize>(), any::<usize>(), any::<u32>()).prop_map(|(r, k, v)| RunOp::Insert(r, k, v)),
        3 => (any::<usize>(), any::<usize>()).prop_map(|(r, k)| RunOp::Remove(r, k)),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(r, k)| RunOp::Tombstone(r, k)),
        1 => (1usize..20).prop_map(RunOp::AddRuns),
        1 => Just(RunOp::Compact),
        1 => any::<bool>().prop_map(RunOp::Reclaim),
    ]
}

/// Physical index of the `k`-th live element of `run`, or its length.
fn live_index(run: &[Item], k: usize) -> usize {
    run.iter()
        .enumerate()
        .filter(|(_, e)| !e.dead)
        .nth(k)
        .map_or(run.len(), |(i, _)| i)
}

fn live(run: &[Item]) -> Vec<u32> {
    run.iter().filter(|e| !e.dead).map(|e| e.value).collect()
}

fn check_runs<P: GapPolicy>(
    runs: &PackedRuns<Item, P>,
    model: &[Vec<Item>],
    exact: bool,
) -> Result<(), TestCaseError> {
    runs.validate()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(runs.run_count(), model.len());
    for (r, expected) in model.iter().enumerate() {
        let got = runs.run(r).unwrap();
        prop_assert_eq!(live(got), live(expected), "run {}", r);
        if exact {
            prop_assert_eq!(got, &expected[..], "run {} with tombstones", r);
        }
    }
    prop_assert_eq!(runs.runs().len(), model.len());
    Ok(())
}

/// Applies `ops` to a `PackedRuns` with `policy` and to a `Vec<Vec<Item>>`.
/// While reclamation is off the two must agree element for element; while
/// it is on, the layout may have dropped tombstones, so live elements must
/// agree and the model drops its tombstones at every `Compact`.
fn run_model<P: GapPolicy>(
    policy: P,
    config: PmaOptions,
    ops: Vec<RunOp>,
) -> Result<(), TestCaseError> {
    let mut runs = PackedRuns::<Item, P>::with_config(policy, config).unwrap();
    let mut model: Vec<Vec<Item>> = Vec::new();
    runs.add_runs(3).unwrap();
    model.resize(3, Vec::new());
    runs.set_reclaim(Reclaim::Never);
    let mut reclaiming = false;
    // Once reclamation has been on, tombstones in the layout and the model
    // may differ until the next compact.
    let mut exact = true;
    for op in ops {
        let n = model.len();
        match op {
            RunOp::Push(r, v) => {
                let item = Item {
                    value: v,
                    dead: false,
                };
                runs.push(r % n, item).unwrap();
                model[r % n].push(item);
            }
            RunOp::Insert(r, k, v) => {
                let r = r % n;
                let item = Item {
                    value: v,
                    dead: false,
                };
                let live_count = live(&model[r]).len();
                let k = k % (live_count + 1);
                let at = live_index(runs.run(r).unwrap(), k);
                runs.insert(r, at, item).unwrap();
                let at = live_index(&model[r], k);
                model[r].insert(at, item);
            }
            RunOp::Remove(r, k) | RunOp::Tombstone(r, k) => {
                let r = r % n;
                let live_count = live(&model[r]).len();
                if live_count == 0 {
                    continue;
                }
                let k = k % live_count;
                let at = live_index(runs.run(r).unwrap(), k);
                let at_model = live_index(&model[r], k);
                if matches!(op, RunOp::Remove(..)) {
                    let removed = runs.remove(r, at).unwrap();
                    prop_assert_eq!(removed, model[r].remove(at_model));
                } else {
                    runs.get_mut(r, at).unwrap().dead = true;
                    model[r][at_model].dead = true;
                    if reclaiming {
                        exact = false;
                    }
                }
            }
            RunOp::AddRuns(count) => {
                let ids = runs.add_runs(count).unwrap();
                prop_assert_eq!(ids, n..n + count);
                model.resize(n + count, Vec::new());
            }
            RunOp::Compact => {
                runs.compact();
                if reclaiming {
                    for run in &mut model {
                        run.retain(|e| !e.dead);
                    }
                    exact = true;
                }
            }
            RunOp::Reclaim(on) => {
                reclaiming = on;
                if on {
                    exact = false;
                }
                runs.set_reclaim(if on {
                    Reclaim::Tombstones
                } else {
                    Reclaim::Never
                });
            }
        }
        check_runs(&runs, &model, exact)?;
        // Errors, not panics, for bad ids.
        prop_assert!(runs.push(model.len(), Item::default()).is_err());
        prop_assert!(runs.run(model.len()).is_none());
    }
    Ok(())
}

fn run_configs() -> impl Strategy<Value = PmaOptions> {
    prop_oneof![
        Just(PmaOptions::default().min_capacity(4)),
        Just(PmaOptions::default().min_capacity(4).section_size(2)),
        Just(
            PmaOptions::default()
                .min_capacity(8)
                .section_size(3)
                .thresholds(Thresholds {
                    leaf_lower: 0.1,
                    leaf_upper: 0.9,
                    root_lower: 0.3,
                    root_upper: 0.7,
                })
        ),
    ]
}

/// A user policy that gets the total wrong on purpose: the layout must fall
/// back to `Even` and count it rather than corrupt itself.
#[derive(Debug, Default)]
struct Sloppy;

impl GapPolicy for Sloppy {
    fn name(&self) -> &str {
        "sloppy"
    }
    fn distribute(&mut self, window: &Window<'_>, gaps: &mut [usize]) {
        gaps.iter_mut().for_each(|g| *g = 1);
        let _ = window;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn runs_match_vec_of_vecs_degree(config in run_configs(), ops in proptest::collection::vec(run_op(), 1..500)) {
        run_model(DegreeProportional::default(), config, ops)?;
    }

    #[test]
    fn runs_match_vec_of_vecs_even(config in run_configs(), ops in proptest::collection::vec(run_op(), 1..500)) {
        run_model(Even, config, ops)?;
    }

    #[test]
    fn runs_match_vec_of_vecs_history(config in run_configs(), ops in proptest::collection::vec(run_op(), 1..500)) {
        run_model(HistoryAdaptive::default(), config, ops)?;
    }

    #[test]
    fn runs_match_with_boxed_and_sloppy_policies(config in run_configs(), ops in proptest::collection::vec(run_op(), 1..300)) {
        let boxed: Box<dyn GapPolicy> = Box::new(DegreeProportional { min_slack: 2 });
        run_model(boxed, config, ops.clone())?;
        run_model(Sloppy, config, ops)?;
    }

    #[test]
    fn runs_bulk_build_matches(lengths in proptest::collection::vec(0usize..40, 0..200)) {
        let model: Vec<Vec<u32>> = lengths
            .iter()
            .enumerate()
            .map(|(r, &l)| (0..l as u32).map(|i| i * 1000 + r as u32).collect())
            .collect();
        let runs = PackedRuns::<u32>::from_runs(DegreeProportional::default(), PmaOptions::default(), model.clone()).unwrap();
        runs.validate().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(runs.run_count(), model.len());
        for (r, expected) in model.iter().enumerate() {
            prop_assert_eq!(runs.run(r).unwrap(), &expected[..]);
            // Every run has room for its next element.
            prop_assert!(runs.run_capacity(r).unwrap() > expected.len());
        }
    }
}

/// `policy` with its `linear_gaps` rule hidden: the layout must take the
/// gaps-buffer path (`distribute`) for every window.
#[derive(Debug, Default)]
struct GapsBufferOnly<P>(P);

impl<P: GapPolicy> GapPolicy for GapsBufferOnly<P> {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn distribute(&mut self, window: &Window<'_>, gaps: &mut [usize]) {
        self.0.distribute(window, gaps)
    }
}

/// Applies `ops` to two layouts, one placing runs from the policy's
/// linear rule in one pass and one from its gaps buffer, and asserts that
/// after every operation both hold the same elements in runs of the same
/// capacity with the same counters: the one-pass placement must be exactly
/// the policy's `distribute`.
fn one_pass_matches_gaps_buffer<P: GapPolicy + Clone>(
    policy: P,
    config: PmaOptions,
    ops: Vec<RunOp>,
) -> Result<(), TestCaseError> {
    let mut fast = PackedRuns::<Item, P>::with_config(policy.clone(), config).unwrap();
    let mut slow =
        PackedRuns::<Item, GapsBufferOnly<P>>::with_config(GapsBufferOnly(policy), config).unwrap();
    fast.add_runs(3).unwrap();
    slow.add_runs(3).unwrap();
    for op in ops {
        let n = fast.run_count();
        match op {
            RunOp::Push(r, value) => {
                let item = Item { value, dead: false };
                fast.push(r % n, item).unwrap();
                slow.push(r % n, item).unwrap();
            }
            RunOp::Insert(r, k, value) => {
                let item = Item { value, dead: false };
                let at = k % (fast.run_len(r % n).unwrap() + 1);
                fast.insert(r % n, at, item).unwrap();
                slow.insert(r % n, at, item).unwrap();
            }
            RunOp::Remove(r, k) | RunOp::Tombstone(r, k) => {
                let len = fast.run_len(r % n).unwrap();
                if len == 0 {
                    continue;
                }
                if matches!(op, RunOp::Remove(..)) {
                    prop_assert_eq!(fast.remove(r % n, k % len), slow.remove(r % n, k % len));
                } else {
                    fast.run_mut(r % n).unwrap()[k % len].dead = true;
                    slow.run_mut(r % n).unwrap()[k % len].dead = true;
                }
            }
            RunOp::AddRuns(count) => {
                prop_assert_eq!(fast.add_runs(count), slow.add_runs(count));
            }
            RunOp::Compact => {
                fast.compact();
                slow.compact();
            }
            RunOp::Reclaim(on) => {
                let rule = if on {
                    Reclaim::Tombstones
                } else {
                    Reclaim::Never
                };
                fast.set_reclaim(rule.clone());
                slow.set_reclaim(rule);
            }
        }
        fast.validate()
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(fast.capacity(), slow.capacity());
        for r in 0..fast.run_count() {
            prop_assert_eq!(fast.run(r), slow.run(r), "run {}", r);
            prop_assert_eq!(fast.run_capacity(r), slow.run_capacity(r), "run {}", r);
        }
        prop_assert_eq!(fast.stats(), slow.stats());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn one_pass_placement_matches_the_gaps_buffer(
        config in run_configs(),
        min_slack in 0usize..3,
        ops in proptest::collection::vec(run_op(), 1..400),
    ) {
        one_pass_matches_gaps_buffer(DegreeProportional { min_slack }, config, ops.clone())?;
        one_pass_matches_gaps_buffer(Even, config, ops)?;
    }
}
