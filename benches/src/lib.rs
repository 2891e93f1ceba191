//! Inputs shared by the criterion benches in `benches/benches/`.
//!
//! Generated inputs are deterministic (seeded), so two runs of a bench time
//! the same graph.
#![deny(missing_docs)]

pub mod incremental;
pub mod networkit;
pub mod replay;
pub mod sahu;
pub mod stores;

use dyngraph::core::{Edge, VertexId};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

/// CPU time of the whole process so far: every thread's run time from
/// `/proc/self/task/*/schedstat` (Linux), or `None` where that is
/// unavailable. The probes in `benches/examples` time with it when asked:
/// on a shared machine it leaves out the time other processes held the
/// cores, which wall time does not. Some kernels update it only on
/// scheduler ticks (4 ms on the VM `BENCHMARKS.md` describes), so it suits
/// runs of a second or more.
pub fn process_cpu_time() -> Option<std::time::Duration> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(std::time::Duration::from_nanos(total))
}

/// `vertex_count * degree` edges with endpoints drawn uniformly at random
/// (the shape of GAPBS `-u`), generated in parallel blocks each seeded from
/// `seed` and its block number.
pub fn uniform_edges(vertex_count: u32, degree: u32, seed: u64) -> Vec<Edge> {
    const BLOCK: usize = 1 << 16;
    let total = vertex_count as usize * degree as usize;
    let mut edges = vec![Edge::default(); total];
    edges
        .par_chunks_mut(BLOCK)
        .enumerate()
        .for_each(|(block, chunk)| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(
                seed ^ (block as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
            for edge in chunk {
                let src: VertexId = rng.random_range(0..vertex_count);
                let dst: VertexId = rng.random_range(0..vertex_count);
                *edge = Edge::new(src, dst);
            }
        });
    edges
}

/// Splits edges into struct-of-arrays form, the shape loaders produce.
pub fn to_columns(edges: &[Edge]) -> (Vec<VertexId>, Vec<VertexId>) {
    edges.par_iter().map(|e| (e.src, e.dst)).unzip()
}

/// Which runs (vertices) a stream of appends goes to, for the PMA benches
/// (issue 4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunWorkload {
    /// Each append picks a run uniformly at random.
    Uniform,
    /// The paper's hammer workload: runs in random order, each receiving
    /// all of its elements in one burst (`elements / runs` each) before
    /// the next run starts, and never again.
    Hammer,
    /// Each append picks a run by a Zipf law over runs with this exponent
    /// (rank `k` has weight `k^-exponent`); ranks are shuffled over run ids
    /// so hot runs are scattered through the array.
    Zipf(f64),
}

impl RunWorkload {
    /// A short name for tables.
    pub fn name(&self) -> String {
        match self {
            RunWorkload::Uniform => "uniform".to_string(),
            RunWorkload::Hammer => "hammer".to_string(),
            RunWorkload::Zipf(s) => format!("zipf({s})"),
        }
    }
}

/// The run id of each of `elements` appends over `runs` runs, drawn per
/// `workload` from `seed` (deterministic).
pub fn run_workload(workload: RunWorkload, runs: u32, elements: usize, seed: u64) -> Vec<u32> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut permutation: Vec<u32> = (0..runs).collect();
    for i in (1..permutation.len()).rev() {
        let j = rng.random_range(0..=i);
        permutation.swap(i, j);
    }
    match workload {
        RunWorkload::Uniform => (0..elements).map(|_| rng.random_range(0..runs)).collect(),
        RunWorkload::Hammer => {
            let mut out = Vec::with_capacity(elements);
            let runs = runs as usize;
            for (i, &run) in permutation.iter().enumerate() {
                let burst = (i + 1) * elements / runs - i * elements / runs;
                out.extend(std::iter::repeat_n(run, burst));
            }
            out
        }
        RunWorkload::Zipf(exponent) => {
            let mut cumulative = Vec::with_capacity(runs as usize);
            let mut sum = 0.0f64;
            for rank in 1..=runs {
                sum += f64::from(rank).powf(-exponent);
                cumulative.push(sum);
            }
            (0..elements)
                .map(|_| {
                    let u = rng.random::<f64>() * sum;
                    let rank = cumulative
                        .partition_point(|&c| c < u)
                        .min(runs as usize - 1);
                    permutation[rank]
                })
                .collect()
        }
    }
}

/// A Kronecker graph (Graph500 parameters, GAPBS `-g scale -k 16`, seed 1)
/// written in `format` under `target/bench-data/`, generated on first use
/// and reused afterwards. Returns the path and the edge count.
pub fn kronecker_bench_file(
    scale: u32,
    format: dyngraph::loader::Format,
) -> (std::path::PathBuf, u64) {
    use dyngraph::loader::{Generator, write_edges};
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../target").into());
    let dir = target.join("bench-data");
    std::fs::create_dir_all(&dir).expect("create target/bench-data");
    let generator = Generator::kronecker(scale, 16).seed(1);
    let path = dir.join(format!("kron{scale}-k16.{}", format.extension()));
    if !path.exists() {
        let stream = generator.generate().expect("generate");
        // Write to a temporary name first so an interrupted run never
        // leaves a truncated file to be reused.
        let partial = path.with_extension("partial");
        write_edges(&partial, &stream, format).expect("write bench file");
        std::fs::rename(&partial, &path).expect("rename bench file");
    }
    (path, generator.edge_count() as u64)
}
