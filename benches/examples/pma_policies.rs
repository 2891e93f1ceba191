//! Element moves per insert for each gap policy and workload (issue 4).
//!
//! Moves are counts, not times, so one run gives exact figures; the
//! inserts/s column is a single timed pass (indicative on a shared
//! machine). Also prints the PCSR-style baseline (a `PackedSet` of
//! `(run, sequence)` keys, gaps even over slots) and the `Even` curve of
//! moves per insert at several N under the uniform workload.
//!
//! ```sh
//! cargo run --profile perf -p dyngraph-benches --example pma_policies -- \
//!     [elements=10000000] [runs=1000000] [budget_secs=120] [curve=1000000,4000000,16000000]
//! ```
//!
//! A configuration that has not finished within `budget_secs` stops there
//! and is reported with the number of inserts it reached (marked `*`).

use dyngraph::pma::{
    DegreeProportional, Even, GapPolicy, HistoryAdaptive, PackedRuns, PackedSet, PmaStats,
};
use dyngraph_benches::{RunWorkload, run_workload};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::{Duration, Instant};

struct Row {
    inserted: usize,
    finished: bool,
    secs: f64,
    stats: PmaStats,
    density: f64,
    bytes_per_element: f64,
}

fn levels(stats: &PmaStats) -> String {
    // Rebalances grouped like the paper's Table IV: levels [0-3), [3-7), >= 7.
    let sum = |r: std::ops::Range<usize>| -> u64 {
        stats
            .rebalances_per_level
            .iter()
            .enumerate()
            .filter(|(l, _)| r.contains(l))
            .map(|(_, c)| c)
            .sum()
    };
    format!("{} / {} / {}", sum(0..3), sum(3..7), sum(7..usize::MAX))
}

fn print_row(workload: &str, layout: &str, row: &Row) {
    println!(
        "| {workload} | {layout} | {}{} | {:.2} | {:.2} M | {:.2} | {} | {} | {:.2} | {:.1} |",
        row.inserted,
        if row.finished { "" } else { "*" },
        row.secs,
        row.inserted as f64 / row.secs / 1e6,
        row.stats.moves_per_insert(),
        levels(&row.stats),
        row.stats.grows,
        row.density,
        row.bytes_per_element,
    );
}

fn run_policy(policy: Box<dyn GapPolicy>, runs: u32, ops: &[u32], budget: Duration) -> Row {
    let mut layout = PackedRuns::<u32, Box<dyn GapPolicy>>::with_policy(policy);
    layout.add_runs(runs as usize).expect("within MAX_CAPACITY");
    let start = Instant::now();
    let mut inserted = 0;
    let mut finished = true;
    for (i, &run) in ops.iter().enumerate() {
        layout.push(run as usize, i as u32).expect("run exists");
        inserted += 1;
        if i % 256 == 0 && start.elapsed() > budget {
            finished = i + 1 == ops.len();
            break;
        }
    }
    Row {
        inserted,
        finished,
        secs: start.elapsed().as_secs_f64(),
        stats: layout.stats().clone(),
        density: layout.density(),
        bytes_per_element: layout.bytes_per_element(),
    }
}

/// PCSR's layout: one ordered set of `(run, sequence)` keys; appending to a
/// run inserts after the run's last key.
fn run_packed_set(runs: u32, ops: &[u32], budget: Duration) -> Row {
    let mut set = PackedSet::<(u32, u32)>::new();
    let mut next = vec![0u32; runs as usize];
    let start = Instant::now();
    let mut inserted = 0;
    let mut finished = true;
    for (i, &run) in ops.iter().enumerate() {
        let seq = &mut next[run as usize];
        set.insert((run, *seq));
        *seq += 1;
        inserted += 1;
        if i % 256 == 0 && start.elapsed() > budget {
            finished = i + 1 == ops.len();
            break;
        }
    }
    Row {
        inserted,
        finished,
        secs: start.elapsed().as_secs_f64(),
        stats: set.stats().clone(),
        density: set.density(),
        bytes_per_element: set.bytes_per_element(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: usize| -> usize {
        args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default)
    };
    let elements = arg(0, 10_000_000);
    let runs = arg(1, 1_000_000) as u32;
    let budget = Duration::from_secs(arg(2, 120) as u64);
    let curve: Vec<usize> = args
        .get(3)
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000_000, 4_000_000, 16_000_000]);

    println!(
        "## {elements} appends over {runs} runs (budget {}s per row)\n",
        budget.as_secs()
    );
    println!(
        "| workload | layout | inserts | secs | inserts/s | moves/insert | rebalances L[0-3) / [3-7) / >=7 | grows | density | bytes/elem |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    // PMA_ONLY=<name prefix> restricts the table to one workload (for
    // profiling).
    let only = std::env::var("PMA_ONLY").unwrap_or_default();
    for workload in [
        RunWorkload::Uniform,
        RunWorkload::Hammer,
        RunWorkload::Zipf(2.0),
    ] {
        if !workload.name().starts_with(&only) {
            continue;
        }
        let ops = run_workload(workload, runs, elements, 42);
        let name = workload.name();
        let policies: [Box<dyn GapPolicy>; 3] = [
            Box::new(Even),
            Box::<DegreeProportional>::default(),
            Box::<HistoryAdaptive>::default(),
        ];
        for policy in policies {
            let label = format!("runs/{}", policy.name());
            let row = run_policy(policy, runs, &ops, budget);
            print_row(&name, &label, &row);
        }
        let row = run_packed_set(runs, &ops, budget);
        print_row(&name, "set (PCSR)", &row);
    }

    println!("\n## Even: moves per insert against N (uniform)\n");
    println!(
        "| N | layout | moves/insert | of which rebalance + resize | of which in-leaf/neighbour shifts | moves/insert / log2(N)^2 | secs |"
    );
    println!("|---|---|---|---|---|---|---|");
    let curve_row = |n: usize, layout: &str, stats: &PmaStats, secs: f64| {
        let log2 = (n as f64).log2();
        let per = |x: u64| x as f64 / stats.inserts.max(1) as f64;
        println!(
            "| {n} | {layout} | {:.2} | {:.2} | {:.2} | {:.4} | {secs:.1} |",
            stats.moves_per_insert(),
            per(stats.moved_by_rebalance + stats.moved_by_resize),
            per(stats.moved_by_shift),
            stats.moves_per_insert() / (log2 * log2),
        );
    };
    for &n in &curve {
        // Classic PMA: random 64-bit keys into the ordered set.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut set = PackedSet::<u64>::new();
        let start = Instant::now();
        for _ in 0..n {
            set.insert(rng.random());
        }
        curve_row(
            n,
            "set, random keys",
            set.stats(),
            start.elapsed().as_secs_f64(),
        );
        // Classic PMA worst case: ascending keys (every insert at the end).
        let mut ascending = PackedSet::<u64>::new();
        let start = Instant::now();
        for x in 0..n as u64 {
            ascending.insert(x);
        }
        curve_row(
            n,
            "set, ascending keys",
            ascending.stats(),
            start.elapsed().as_secs_f64(),
        );
        // Runs with Even gaps, N/10 runs, uniform appends.
        let run_count = (n / 10).max(1) as u32;
        let ops = run_workload(RunWorkload::Uniform, run_count, n, 43);
        let row = run_policy(Box::new(Even), run_count, &ops, Duration::from_secs(3600));
        curve_row(
            n,
            &format!("runs/even ({run_count} runs)"),
            &row.stats,
            row.secs,
        );
    }
}
