//! What a CSR++ snapshot costs, measured.
//!
//! A store (with in-edges, so PageRank pulls) is loaded with the first
//! 80 % of a graph's edges; then, `reps` times over fresh clones of it:
//! - **take**: the time to take a snapshot (and, for scale, to clone the
//!   store, the deep copy a snapshot replaces);
//! - **batches**: ten batches of 1 % of the edges (10 % more edges), as
//!   columns read in place, into a store with no snapshot and into one
//!   with a snapshot taken just before the first batch (which pays for
//!   copying what it touches; later batches copy only what they touch
//!   for the first time);
//! - **single edges**: 20,000 single-edge inserts (the stream's next
//!   edges) with and without a live snapshot, and what the snapshot holds
//!   afterwards: the case where a snapshot's copying is least shared;
//! - **PageRank** (20 pull iterations) on the store and on the snapshot's
//!   view, right after the snapshot and after the ten batches (when the
//!   view reads many lists from the snapshot's saved copies).
//!
//! ```sh
//! cargo run --profile perf -p dyngraph-benches --example csrpp_snapshot_cost -- [kron SCALE | mathoverflow] [reps]
//! ```
//!
//! `kron` is the Graph500 Kronecker generator (edge factor 16, default
//! scale 20); `mathoverflow` reads `sx-mathoverflow/b30` (base and
//! dynamic, in arrival order) from the shared data directory. On a shared
//! machine, `SNAPSHOT_COST_CPU=1 RAYON_NUM_THREADS=1` times CPU time
//! instead of wall time.

use dyngraph::core::StoreConfig;
use dyngraph::core::{
    EdgeChunk, FromEdges, Graph, GraphUpdate, OutNeighbors, Result, Snapshots, VertexId,
};
use dyngraph::csrpp::{CsrPP, CsrPPOptions};
use dyngraph::kernels::{PageRankMethod, PageRankOptions, pagerank};
use dyngraph::loader::Generator;
use std::time::{Duration, Instant};

/// The edges as columns, in arrival order.
struct Columns {
    name: String,
    src: Vec<VertexId>,
    dst: Vec<VertexId>,
}

impl Columns {
    fn chunk(&self, range: std::ops::Range<usize>) -> EdgeChunk<'_> {
        EdgeChunk {
            src: &self.src[range.clone()],
            dst: &self.dst[range],
            weights: None,
        }
    }
}

fn kronecker(scale: u32) -> Result<Columns> {
    let stream = Generator::kronecker(scale, 16).generate()?;
    Ok(Columns {
        name: format!("Kronecker scale {scale}, edge factor 16"),
        src: stream.src().to_vec(),
        dst: stream.dst().to_vec(),
    })
}

fn mathoverflow() -> Result<Columns> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/sx-mathoverflow/b30"
    );
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    for file in ["base.wel", "dynamic.wel"] {
        let path = format!("{dir}/{file}");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            dyngraph::core::Error::InvalidArgument(format!("{path}: {e} (shared data absent?)"))
        })?;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let mut fields = line.split_whitespace();
            let mut id = || -> Result<VertexId> {
                fields.next().and_then(|f| f.parse().ok()).ok_or_else(|| {
                    dyngraph::core::Error::InvalidArgument(format!("{path}: {line}"))
                })
            };
            src.push(id()?);
            dst.push(id()?);
        }
    }
    Ok(Columns {
        name: "sx-mathoverflow (b30 base + dynamic)".into(),
        src,
        dst,
    })
}

/// Single-edge inserts timed per run.
const SINGLE_EDGES: usize = 20_000;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// CPU time of every thread of this process so far (Linux:
/// `/proc/self/task/*/schedstat`), or `None` where it cannot be read.
fn process_cpu_time() -> Option<Duration> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}

/// `f`'s result and the time it took: wall time, or with
/// `SNAPSHOT_COST_CPU` set the process's CPU time, which other processes
/// competing for the cores disturb far less (use it with
/// `RAYON_NUM_THREADS=1`: idle rayon workers spin and would count).
fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let cpu = std::env::var_os("SNAPSHOT_COST_CPU").is_some();
    let (start, cpu_start) = (Instant::now(), cpu.then(process_cpu_time).flatten());
    let out = f();
    let elapsed = match cpu_start {
        Some(before) => process_cpu_time().map_or(start.elapsed(), |after| after - before),
        None => start.elapsed(),
    };
    (out, elapsed)
}

/// 20 pull iterations of PageRank on `graph`; the time and the score sum
/// (printed, so the work is not optimised away and views can be compared).
fn timed_pagerank<G>(graph: &G) -> Result<(Duration, f64)>
where
    G: OutNeighbors + dyngraph::core::InEdges + Sync,
{
    let (ranks, elapsed) = time(|| pagerank(graph, &PageRankOptions::default()));
    let ranks = ranks?;
    assert_eq!(ranks.method, PageRankMethod::Pull);
    Ok((elapsed, ranks.scores.iter().map(|&s| f64::from(s)).sum()))
}

/// Ten batches of 1 % of the edges into `graph`; the time of each.
fn ten_batches(graph: &mut CsrPP, edges: &Columns, start: usize) -> Result<Vec<Duration>> {
    let batch = edges.src.len() / 100;
    (0..10)
        .map(|k| {
            let range = start + k * batch..start + (k + 1) * batch;
            let (report, elapsed) = time(|| graph.insert_edges(&edges.chunk(range)));
            report?;
            Ok(elapsed)
        })
        .collect()
}

fn summary(label: &str, times: &[f64]) {
    let min = times.iter().copied().fold(f64::INFINITY, f64::min);
    let max = times.iter().copied().fold(0.0, f64::max);
    println!(
        "  {label:<52} {min:>9.2} – {max:>9.2} ms   ({} runs)",
        times.len()
    );
}

/// Ranges of every figure over the runs.
#[derive(Default)]
struct Figures {
    take_us: Vec<f64>,
    clone: Vec<f64>,
    plain_batches: Vec<f64>,
    plain_first: Vec<f64>,
    plain_rest: Vec<f64>,
    live_batches: Vec<f64>,
    live_first: Vec<f64>,
    live_rest: Vec<f64>,
    pr_store_fresh: Vec<f64>,
    pr_view_fresh: Vec<f64>,
    pr_plain_after: Vec<f64>,
    pr_store_after: Vec<f64>,
    pr_view_after: Vec<f64>,
    single_plain: Vec<f64>,
    single_live: Vec<f64>,
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (edges, rest) = match args.first().map(String::as_str) {
        Some("mathoverflow") => (mathoverflow()?, &args[1..]),
        Some("kron") => {
            let scale = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
            (kronecker(scale)?, args.get(2..).unwrap_or(&[]))
        }
        _ => (kronecker(20)?, &args[..]),
    };
    let reps: usize = rest.first().and_then(|s| s.parse().ok()).unwrap_or(3);
    let m = edges.src.len();
    let base_len = m * 80 / 100;
    let batch_len = m / 100;
    let singles = base_len..base_len + SINGLE_EDGES.min(m - base_len);
    println!(
        "{}: {m} edges; store loaded with {base_len}, batches of {batch_len} (1 %), {} rayon threads",
        edges.name,
        rayon::current_num_threads()
    );

    let options = CsrPPOptions::default().in_edges(true);
    let (loaded, load_time) = time(|| CsrPP::from_edges(&edges.chunk(0..base_len), options));
    let loaded = loaded?;
    println!(
        "  load {:.0} ms, {} vertices, {:.1} MB",
        ms(load_time),
        loaded.vertex_count(),
        loaded.memory_bytes() as f64 / 1e6
    );
    // Warm-up: the first store to grow its arena faults its memory in;
    // later ones reuse the maps a dropped store left. Only one measured
    // store is alive at a time, each after one was dropped.
    ten_batches(&mut loaded.clone(), &edges, base_len)?;

    let one_by_one = |graph: &mut CsrPP| -> Result<Duration> {
        let (inserted, elapsed) = time(|| -> Result<()> {
            for i in singles.clone() {
                graph.insert_edge(edges.src[i], edges.dst[i])?;
            }
            Ok(())
        });
        inserted.map(|()| elapsed)
    };
    let mut f = Figures::default();
    let (mut saved_bytes, mut store_bytes, mut single_saved_bytes) = (0, 0, 0);
    let mut after_batches = String::new();
    for rep in 0..reps {
        // Take: best of five, each snapshot dropped at once; wall time
        // (a few microseconds, below the CPU clock's resolution).
        let best = (0..5)
            .map(|_| {
                let start = Instant::now();
                let snapshot = loaded.snapshot();
                let elapsed = start.elapsed();
                drop(snapshot);
                elapsed
            })
            .min()
            .unwrap_or_default();
        f.take_us.push(best.as_secs_f64() * 1e6);

        // No snapshot: ten batches, PageRank.
        {
            let (mut plain, clone_time) = time(|| loaded.clone());
            f.clone.push(ms(clone_time));
            let times = ten_batches(&mut plain, &edges, base_len)?;
            f.plain_batches.push(times.iter().map(|&d| ms(d)).sum());
            f.plain_first.push(ms(times[0]));
            f.plain_rest
                .push(times[1..].iter().map(|&d| ms(d)).sum::<f64>() / 9.0);
            f.pr_plain_after.push(ms(timed_pagerank(&plain)?.0));
        }

        // A live snapshot: PageRank on store and view at once (every
        // segment read from the store), ten batches, PageRank again (the
        // view now reads what the batches changed from the saved copies).
        {
            let mut live = loaded.clone();
            let snapshot = live.snapshot();
            let fresh_sum = {
                let (store_time, store_sum) = timed_pagerank(&live)?;
                let view = live.view(&snapshot)?;
                let (view_time, view_sum) = timed_pagerank(&view)?;
                assert!(
                    (store_sum - view_sum).abs() < 1e-3,
                    "same graph, same ranks"
                );
                f.pr_store_fresh.push(ms(store_time));
                f.pr_view_fresh.push(ms(view_time));
                view_sum
            };
            let times = ten_batches(&mut live, &edges, base_len)?;
            f.live_batches.push(times.iter().map(|&d| ms(d)).sum());
            f.live_first.push(ms(times[0]));
            f.live_rest
                .push(times[1..].iter().map(|&d| ms(d)).sum::<f64>() / 9.0);
            f.pr_store_after.push(ms(timed_pagerank(&live)?.0));
            {
                let view = live.view(&snapshot)?;
                assert_eq!(view.edge_count(), loaded.edge_count());
                let (view_time, view_sum) = timed_pagerank(&view)?;
                assert!(
                    (view_sum - fresh_sum).abs() < 1e-3,
                    "the view still ranks the graph of its moment"
                );
                f.pr_view_after.push(ms(view_time));
            }
            saved_bytes = snapshot.memory_bytes();
            store_bytes = live.memory_bytes();
            after_batches = format!("{snapshot:?}");
        }

        // Single-edge inserts: the stream's next edges, one at a time.
        {
            let mut plain = loaded.clone();
            f.single_plain.push(ms(one_by_one(&mut plain)?));
        }
        {
            let mut live = loaded.clone();
            let snapshot = live.snapshot();
            f.single_live.push(ms(one_by_one(&mut live)?));
            single_saved_bytes = snapshot.memory_bytes();
        }
        println!(
            "  run {rep}: batches {:.0} ms without, {:.0} ms with a snapshot; \
             PageRank store/view {:.0}/{:.0} ms fresh, {:.0}/{:.0} ms after",
            f.plain_batches[rep],
            f.live_batches[rep],
            f.pr_store_fresh[rep],
            f.pr_view_fresh[rep],
            f.pr_store_after[rep],
            f.pr_view_after[rep]
        );
    }

    println!("ranges over {reps} runs (min – max), ms unless marked:");
    summary("take a snapshot, µs wall (best of 5 per run)", &f.take_us);
    summary("clone the store (a deep copy, for scale)", &f.clone);
    summary("10 batches of 1 %, no snapshot", &f.plain_batches);
    summary("10 batches of 1 %, a live snapshot", &f.live_batches);
    summary("  first batch, no snapshot", &f.plain_first);
    summary("  first batch after the snapshot", &f.live_first);
    summary("  later batches (mean of 9), no snapshot", &f.plain_rest);
    summary("  later batches (mean of 9), live snapshot", &f.live_rest);
    let rate = |ms: &[f64]| -> (f64, f64) {
        let rates: Vec<f64> = ms
            .iter()
            .map(|t| 10.0 * batch_len as f64 / (t / 1e3) / 1e6)
            .collect();
        (
            rates.iter().copied().fold(f64::INFINITY, f64::min),
            rates.iter().copied().fold(0.0, f64::max),
        )
    };
    let (plain_rate, live_rate) = (rate(&f.plain_batches), rate(&f.live_batches));
    println!(
        "  throughput, M edges/s: no snapshot {:.2} – {:.2}, live snapshot {:.2} – {:.2}",
        plain_rate.0, plain_rate.1, live_rate.0, live_rate.1
    );
    summary(
        "PageRank, store, right after the snapshot",
        &f.pr_store_fresh,
    );
    summary("PageRank, view, right after the snapshot", &f.pr_view_fresh);
    summary(
        "PageRank, store without snapshot, after +10 %",
        &f.pr_plain_after,
    );
    summary(
        "PageRank, store with a live snapshot, after +10 %",
        &f.pr_store_after,
    );
    summary("PageRank, view, after +10 %", &f.pr_view_after);
    println!(
        "  snapshot holds {:.1} MB after +10 % (store {:.1} MB): {after_batches}",
        saved_bytes as f64 / 1e6,
        store_bytes as f64 / 1e6
    );
    let count = singles.len();
    summary(
        &format!("{count} single-edge inserts, no snapshot"),
        &f.single_plain,
    );
    summary(
        &format!("{count} single-edge inserts, a live snapshot"),
        &f.single_live,
    );
    println!(
        "  snapshot holds {:.1} MB after the single-edge inserts",
        single_saved_bytes as f64 / 1e6
    );
    Ok(())
}
