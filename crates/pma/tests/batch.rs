//! `PackedRuns::append_batch` and `par_runs_mut` against a `Vec<Vec<T>>`
//! model, interleaved with single pushes, tombstones, reclamation switches
//! and compaction, in rayon pools of 1 and 2 threads: a batch must leave
//! every run exactly as pushing its elements one at a time would, through
//! both of its ways (windows merged in place, the whole array rebuilt).

use dyngraph_pma::{
    DegreeProportional, Element, Even, GapPolicy, HistoryAdaptive, PackedRuns, PmaError,
    PmaOptions, Reclaim, RunAppends, Thresholds, Window,
};
use proptest::prelude::*;

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

fn item(value: u32) -> Item {
    Item { value, dead: false }
}

#[derive(Clone, Debug)]
enum Op {
    Push(usize, u32),
    /// `(run, value)` pairs in arrival order, grouped by run when applied.
    Batch(Vec<(usize, u32)>),
    /// Marks the `k`-th live element of each run (one `par_runs_mut` call).
    Tombstones(Vec<(usize, usize)>),
    AddRuns(usize),
    Compact,
    Reclaim(bool),
}

fn op() -> impl Strategy<Value = Op> {
    let pairs = |max| proptest::collection::vec((any::<usize>(), any::<u32>()), 0..max);
    prop_oneof![
        4 => (any::<usize>(), any::<u32>()).prop_map(|(r, v)| Op::Push(r, v)),
        4 => pairs(40).prop_map(Op::Batch),
        1 => pairs(400).prop_map(Op::Batch),
        2 => proptest::collection::vec((any::<usize>(), any::<usize>()), 0..12).prop_map(Op::Tombstones),
        1 => (1usize..30).prop_map(Op::AddRuns),
        1 => Just(Op::Compact),
        1 => any::<bool>().prop_map(Op::Reclaim),
    ]
}

fn configs() -> impl Strategy<Value = PmaOptions> {
    prop_oneof![
        Just(PmaOptions::default().min_capacity(4)),
        Just(PmaOptions::default().min_capacity(4).section_size(2)),
        Just(PmaOptions::default().min_capacity(4).growth(1.3)),
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

fn live(run: &[Item]) -> Vec<u32> {
    run.iter().filter(|e| !e.dead).map(|e| e.value).collect()
}

/// Groups `pairs` (run ids taken modulo `runs`) by run, keeping arrival
/// order within a run: the arguments of `RunAppends::new`.
fn group(pairs: &[(usize, u32)], runs: usize) -> (Vec<u32>, Vec<usize>, Vec<Item>) {
    let mut by_run: Vec<Vec<Item>> = vec![Vec::new(); runs];
    for &(r, v) in pairs {
        by_run[r % runs].push(item(v));
    }
    let (mut ids, mut offsets, mut elements) = (Vec::new(), vec![0], Vec::new());
    for (r, items) in by_run.into_iter().enumerate() {
        if !items.is_empty() {
            ids.push(r as u32);
            elements.extend(items);
            offsets.push(elements.len());
        }
    }
    (ids, offsets, elements)
}

fn check<P: GapPolicy>(
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
    Ok(())
}

/// Applies `ops` to a layout and to the model. While reclamation is off
/// they agree element for element, tombstones included; while it is on,
/// redistributions may drop tombstones, so live elements must agree.
fn run_model<P: GapPolicy>(
    policy: P,
    config: PmaOptions,
    ops: Vec<Op>,
) -> Result<(), TestCaseError> {
    let mut runs = PackedRuns::<Item, P>::with_config(policy, config).unwrap();
    let mut model: Vec<Vec<Item>> = vec![Vec::new(); 5];
    runs.add_runs(5).unwrap();
    runs.set_reclaim(Reclaim::Never);
    let (mut reclaiming, mut exact) = (false, true);
    for op in ops {
        let n = model.len();
        match op {
            Op::Push(r, v) => {
                runs.push(r % n, item(v)).unwrap();
                model[r % n].push(item(v));
            }
            Op::Batch(pairs) => {
                let (ids, offsets, elements) = group(&pairs, n);
                let appends = RunAppends::new(&ids, &offsets, &elements).unwrap();
                runs.append_batch(appends).unwrap();
                for &(r, v) in &pairs {
                    model[r % n].push(item(v));
                }
            }
            Op::Tombstones(picks) => {
                let mut picks: Vec<(usize, usize)> =
                    picks.into_iter().map(|(r, k)| (r % n, k)).collect();
                picks.sort_unstable();
                picks.dedup_by_key(|p| p.0);
                let ids: Vec<u32> = picks.iter().map(|&(r, _)| r as u32).collect();
                let ks: Vec<usize> = picks.iter().map(|&(_, k)| k).collect();
                let marked = runs
                    .par_runs_mut(&ids, ks, |run, k| {
                        let live: Vec<usize> = (0..run.len()).filter(|&j| !run[j].dead).collect();
                        if live.is_empty() {
                            return None;
                        }
                        let at = live[k % live.len()];
                        run[at].dead = true;
                        Some(run[at].value)
                    })
                    .unwrap();
                for (&(r, k), value) in picks.iter().zip(marked) {
                    let live: Vec<usize> =
                        (0..model[r].len()).filter(|&j| !model[r][j].dead).collect();
                    prop_assert_eq!(value.is_some(), !live.is_empty());
                    if let Some(value) = value {
                        let at = live[k % live.len()];
                        prop_assert_eq!(
                            model[r][at].value,
                            value,
                            "run {} picks another element",
                            r
                        );
                        model[r][at].dead = true;
                        if reclaiming {
                            exact = false;
                        }
                    }
                }
            }
            Op::AddRuns(count) => {
                runs.add_runs(count).unwrap();
                model.resize(n + count, Vec::new());
            }
            Op::Compact => {
                runs.compact();
                if reclaiming {
                    model.iter_mut().for_each(|run| run.retain(|e| !e.dead));
                    exact = true;
                }
            }
            Op::Reclaim(on) => {
                reclaiming = on;
                exact &= !on;
                runs.set_reclaim(if on {
                    Reclaim::Tombstones
                } else {
                    Reclaim::Never
                });
            }
        }
        check(&runs, &model, exact)?;
    }
    Ok(())
}

/// Gets the total wrong: the layout must fall back and count it, batch
/// or not.
#[derive(Debug, Default)]
struct Sloppy;

impl GapPolicy for Sloppy {
    fn name(&self) -> &str {
        "sloppy"
    }
    fn distribute(&mut self, _window: &Window<'_>, gaps: &mut [usize]) {
        gaps.iter_mut().for_each(|g| *g = 1);
    }
}

fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn batches_match_the_model_degree(config in configs(), ops in proptest::collection::vec(op(), 1..120)) {
        for threads in [1, 2] {
            in_pool(threads, || run_model(DegreeProportional::default(), config, ops.clone()))?;
        }
    }

    #[test]
    fn batches_match_the_model_even(config in configs(), ops in proptest::collection::vec(op(), 1..120)) {
        for threads in [1, 2] {
            in_pool(threads, || run_model(Even, config, ops.clone()))?;
        }
    }

    #[test]
    fn batches_match_the_model_history_and_sloppy(config in configs(), ops in proptest::collection::vec(op(), 1..80)) {
        for threads in [1, 2] {
            in_pool(threads, || run_model(HistoryAdaptive::default(), config, ops.clone()))?;
            in_pool(threads, || run_model(Sloppy, config, ops.clone()))?;
        }
    }
}

/// 1,000 runs holding 10 elements each, built one push at a time.
fn thousand_runs() -> PackedRuns<Item> {
    let mut runs = PackedRuns::<Item>::new();
    runs.add_runs(1000).unwrap();
    for round in 0..10 {
        for r in 0..1000 {
            runs.push(r, item(round)).unwrap();
        }
    }
    runs.reset_stats();
    runs
}

#[test]
fn a_small_batch_merges_windows_and_a_large_one_grows_once() {
    let mut runs = thousand_runs();
    let capacity = runs.capacity();
    // Sixty elements into one run: its section overflows, nothing grows.
    let elements = vec![item(7); 60];
    runs.append_batch(RunAppends::new(&[500], &[0, 60], &elements).unwrap())
        .unwrap();
    let stats = runs.stats().clone();
    assert_eq!((stats.grows, stats.inserts), (0, 60));
    assert!(stats.rebalances() >= 1, "{stats:?}");
    assert_eq!(runs.capacity(), capacity);
    assert_eq!(runs.run_len(500), Some(70));
    runs.validate().unwrap();
    // Twice the elements again, spread over every run: one growth.
    let ids: Vec<u32> = (0..1000).collect();
    let offsets: Vec<usize> = (0..=1000).map(|r| r * 20).collect();
    let elements = vec![item(9); 20_000];
    runs.append_batch(RunAppends::new(&ids, &offsets, &elements).unwrap())
        .unwrap();
    assert_eq!(runs.stats().grows, 1);
    assert_eq!(runs.len(), 10_000 + 60 + 20_000);
    assert!(runs.run(3).unwrap()[10..].iter().all(|e| e.value == 9));
    runs.validate().unwrap();
}

#[test]
fn a_refused_batch_changes_nothing() {
    let mut runs = thousand_runs();
    let before: Vec<Vec<Item>> = runs.runs().map(<[Item]>::to_vec).collect();
    let elements = [item(1), item(2)];
    let refused = runs.append_batch(RunAppends::new(&[3, 1000], &[0, 1, 2], &elements).unwrap());
    assert_eq!(
        refused,
        Err(PmaError::RunOutOfRange {
            run: 1000,
            run_count: 1000
        })
    );
    assert!(runs.runs().map(<[Item]>::to_vec).eq(before));
    assert_eq!(runs.stats().inserts, 0);
    // Ill-formed appends are refused before they reach the layout.
    assert!(RunAppends::new(&[2, 2], &[0, 1, 2], &elements).is_err());
    assert!(RunAppends::new(&[2], &[0, 1], &elements).is_err());
    assert!(
        runs.par_runs_mut(&[5, 4], vec![(), ()], |_, ()| ())
            .is_err()
    );
    assert!(runs.par_runs_mut(&[4, 5], vec![()], |_, ()| ()).is_err());
}

#[test]
fn rebuilds_over_many_runs_keep_every_run() {
    // More runs than one task of a rebuild takes, with tombstones to drop;
    // debug builds also check the parallel placement against one pass.
    for threads in [1, 2] {
        in_pool(threads, || {
            let mut runs = PackedRuns::<Item>::new();
            runs.add_runs(30_000).unwrap();
            let mut model: Vec<Vec<Item>> = vec![Vec::new(); 30_000];
            for round in 0..3u32 {
                let ids: Vec<u32> = (0..30_000).filter(|r| (r + round) % 3 != 0).collect();
                let offsets: Vec<usize> = (0..=ids.len()).map(|i| i * 4).collect();
                let elements: Vec<Item> =
                    (0..ids.len() * 4).map(|i| item(i as u32 + round)).collect();
                for (k, &r) in ids.iter().enumerate() {
                    model[r as usize].extend_from_slice(&elements[k * 4..k * 4 + 4]);
                }
                runs.append_batch(RunAppends::new(&ids, &offsets, &elements).unwrap())
                    .unwrap();
                // Tombstone every run's first live element; the next
                // rebuild reclaims them.
                let all: Vec<u32> = (0..30_000).collect();
                let kill_first = |run: &mut [Item]| {
                    if let Some(first) = run.iter_mut().find(|e| !e.dead) {
                        first.dead = true;
                    }
                };
                runs.par_runs_mut(&all, vec![(); 30_000], |run, ()| kill_first(run))
                    .unwrap();
                model.iter_mut().for_each(|run| kill_first(run));
                runs.validate().unwrap();
                for (r, expected) in model.iter().enumerate() {
                    assert_eq!(live(runs.run(r).unwrap()), live(expected), "run {r}");
                }
            }
            assert!(runs.stats().grows >= 2, "{:?}", runs.stats());
            assert!(runs.stats().reclaimed > 0, "{:?}", runs.stats());
        });
    }
}
