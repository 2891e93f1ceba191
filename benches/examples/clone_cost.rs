//! What a clone and a small batch cost, per store (issue 28, item 6).
//!
//! For each input and each store: its heap bytes (`memory_bytes`), the
//! median time of `clone()` (the drop outside the timing), and beside it
//! the median time of a memcpy of the same byte count into a fresh
//! allocation (`Vec<u8>::clone`, what a clone cannot beat without sharing)
//! and into a reused, already-faulted one (`copy_from_slice`: the copy
//! alone, without the page faults of fresh memory). Then, for the dynamic
//! stores, a batch of 8 edges (`insert_edges` + `end_batch`) against the
//! same 8 edges inserted one at a time (`insert_edge` ×8 + `end_batch`),
//! per batch, over as many distinct batches as keep the graph within 1 %
//! of its size (Sahu's in-place protocol).
//!
//! ```sh
//! cargo run --profile perf -p dyngraph-benches --example clone_cost -- kron20,college 5
//! cargo run --profile perf -p dyngraph-benches --example clone_cost -- kron20 5 Csr,CsrPP
//! ```
//! The batch sizes are the `sahu` bench's up to `10^-3 |E|`, and 8. A
//! third argument keeps only the stores named (comma-separated, or `all`),
//! a fourth sets the batch sizes (comma-separated).
//! Inputs: `kron<S>` (Kronecker scale `S`, edge factor 8, shuffled: the
//! `sahu` bench's), `college` (`../shared/data/CollegeMsg.txt`, else the
//! bundled sample), `mathoverflow` (needs `../shared/data`).

use dyngraph::core::{Csr, CsrOptions, DynamicStore, Edge, StoreConfig, StoreOptions};
use dyngraph::csrpp::CsrPP;
use dyngraph::vcsr::{Bal, Pcsr, Vcsr};
use dyngraph_benches::sahu::{SahuInput, petgraph_csr, sahu_inputs};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Median of `reps` timings of `f`, each result dropped outside the timing.
fn median<T>(reps: usize, mut f: impl FnMut() -> T) -> Duration {
    let times: Vec<Duration> = (0..reps.max(1))
        .map(|_| {
            let start = Instant::now();
            let value = black_box(f());
            let elapsed = start.elapsed();
            drop(value);
            elapsed
        })
        .collect();
    median_of(times)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One row of the clone table: `bytes` of `name` cloned by `clone`.
fn clone_row<T>(name: &str, bytes: usize, reps: usize, clone: impl FnMut() -> T) {
    let clone_time = median(reps, clone);
    let source = vec![1u8; bytes];
    let fresh = median(reps, || source.clone());
    let mut reused = vec![0u8; bytes];
    let warm = median(reps, || reused.copy_from_slice(black_box(&source)));
    black_box(&reused);
    println!(
        "  {name:<14} {:>9.1} MB {:>9.3} {:>9.3} {:>9.3} {:>7.2}×",
        bytes as f64 / 1e6,
        ms(clone_time),
        ms(fresh),
        ms(warm),
        clone_time.as_secs_f64() / fresh.as_secs_f64()
    );
}

fn store_options() -> StoreOptions {
    StoreOptions::default().in_edges(true)
}

fn build<S: DynamicStore>(input: &SahuInput) -> S {
    S::from_edges(&input.edges[..], S::Options::from_shared(store_options()))
        .expect("bench ids fit every store")
}

fn clone_store<S: DynamicStore + Clone>(input: &SahuInput, reps: usize) {
    let store: S = build(input);
    clone_row(S::NAME, store.memory_bytes(), reps, || store.clone());
}

/// Time per batch of `batches` applied in turn to a clone of `base` by
/// `apply`, the clone made and dropped outside the timing.
fn per_batch<S: DynamicStore + Clone>(
    base: &S,
    batches: &[Vec<Edge>],
    apply: impl Fn(&mut S, &[Edge]),
) -> Duration {
    let mut copy = base.clone();
    let start = Instant::now();
    for batch in batches {
        apply(&mut copy, batch);
    }
    let elapsed = start.elapsed();
    drop(black_box(copy));
    elapsed / batches.len() as u32
}

fn median_of(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn batch_rows<S: DynamicStore + Clone>(input: &SahuInput, reps: usize, sizes: Option<&str>) {
    let store: S = build(input);
    let mut sizes: Vec<usize> = match sizes {
        Some(list) => list
            .split(',')
            .map(|s| s.parse().expect("a batch size"))
            .collect(),
        None => input
            .batch_sizes()
            .into_iter()
            .filter(|&size| size <= (input.edges.len() / 1_000).max(8))
            .chain([8])
            .collect(),
    };
    sizes.sort_unstable();
    sizes.dedup();
    for size in sizes {
        batch_row(&store, input, size, reps);
    }
}

fn batch_row<S: DynamicStore + Clone>(store: &S, input: &SahuInput, size: usize, reps: usize) {
    let batches = input.insert_batches(size, input.batches_per_copy(size));
    let batched = |copy: &mut S, batch: &[Edge]| {
        copy.insert_edges(batch).expect("ids fit");
        copy.end_batch().expect("no batch work fails here");
    };
    let singles = |copy: &mut S, batch: &[Edge]| {
        for e in batch {
            copy.insert_edge(e.src, e.dst).expect("ids fit");
        }
        copy.end_batch().expect("no batch work fails here");
    };
    // Interleaved, each first in turn, so that load from other processes
    // falls on both alike.
    let (mut batched_times, mut singles_times) = (Vec::new(), Vec::new());
    for rep in 0..reps.max(1) {
        if rep % 2 == 0 {
            batched_times.push(per_batch(store, &batches, batched));
            singles_times.push(per_batch(store, &batches, singles));
        } else {
            singles_times.push(per_batch(store, &batches, singles));
            batched_times.push(per_batch(store, &batches, batched));
        }
    }
    let (batched, singles) = (median_of(batched_times), median_of(singles_times));
    println!(
        "  {:<14} {:>6} {:>8} {:>13.2} {:>13.2} {:>7.2}×",
        S::NAME,
        size,
        batches.len(),
        batched.as_secs_f64() * 1e6,
        singles.as_secs_f64() * 1e6,
        batched.as_secs_f64() / singles.as_secs_f64()
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let names = args.next().unwrap_or_else(|| "kron20,college".into());
    let reps: usize = args.next().map_or(5, |r| r.parse().expect("reps: a count"));
    let stores = args.next().filter(|list| list != "all");
    let sizes = args.next();
    let wanted = |name: &str| {
        stores
            .as_deref()
            .is_none_or(|list| list.split(',').any(|s| s == name))
    };
    let mut inputs = Vec::new();
    for name in names.split(',') {
        let scale = name
            .strip_prefix("kron")
            .map(|s| s.parse().expect("kron<scale>"));
        inputs.extend(match scale {
            Some(scale) => sahu_inputs(scale, 0, 8, Some(name)),
            None => sahu_inputs(0, 0, 8, Some(name)),
        });
    }
    for input in &inputs {
        println!(
            "{}: {} edges, {} vertices, in-edges kept, median of {reps}",
            input.name,
            input.edges.len(),
            input.vertex_count
        );
        println!(
            "  {:<14} {:>12} {:>9} {:>9} {:>9} {:>8}",
            "store", "bytes", "clone ms", "memcpy ms", "warm ms", "ratio"
        );
        if wanted("Csr") {
            let csr = Csr::from_edges(
                &input.edges[..],
                CsrOptions::default()
                    .in_edges(true)
                    .vertex_count(input.vertex_count),
            )
            .expect("valid graph");
            clone_row("Csr", csr.memory_bytes(), reps, || csr.clone());
        }
        if wanted("Vcsr") {
            clone_store::<Vcsr>(input, reps);
        }
        if wanted("Pcsr") {
            clone_store::<Pcsr>(input, reps);
        }
        if wanted("Bal") {
            clone_store::<Bal>(input, reps);
        }
        if wanted("CsrPP") {
            clone_store::<CsrPP>(input, reps);
        }
        if wanted("petgraph") {
            let petgraph = petgraph_csr(input.vertex_count, &input.edges);
            // Its row offsets (usize) and columns (u32); its edge weights
            // are `()`.
            let petgraph_bytes = (input.vertex_count + 1) * size_of::<usize>()
                + petgraph.edge_count() * size_of::<u32>();
            clone_row("petgraph Csr", petgraph_bytes, reps, || petgraph.clone());
        }
        println!(
            "  {:<14} {:>6} {:>8} {:>13} {:>13} {:>8}",
            "store", "size", "batches", "batch µs", "singles µs", "ratio"
        );
        if wanted("Vcsr") {
            batch_rows::<Vcsr>(input, reps, sizes.as_deref());
        }
        if wanted("Pcsr") {
            batch_rows::<Pcsr>(input, reps, sizes.as_deref());
        }
        if wanted("Bal") {
            batch_rows::<Bal>(input, reps, sizes.as_deref());
        }
        if wanted("CsrPP") {
            batch_rows::<CsrPP>(input, reps, sizes.as_deref());
        }
    }
}
