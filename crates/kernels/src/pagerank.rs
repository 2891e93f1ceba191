//! PageRank by power iteration, as in GAPBS `pr.cc` (Jacobi form).
//!
//! Each iteration computes every vertex's outgoing contribution
//! `score / out_degree`, then each vertex's new score
//! `(1 - d) / n + d * Σ contributions of its in-neighbours`.
//!
//! **Dangling vertices** (out-degree 0) are handled the GAPBS way: they
//! contribute nothing, so their score leaks out of the system and the scores
//! sum to less than 1 on graphs that have them. (petgraph instead spreads a
//! dangling vertex's score over all vertices and renormalises; on a graph
//! without dangling vertices both give the same fixed point.)
//!
//! With in-edges the kernel pulls (each vertex sums its in-neighbours'
//! contributions on one thread, in four running sums whose order the
//! neighbour order fixes, so results are bit-identical for any thread
//! count). Without in-edges it pushes contributions along out-edges with
//! atomic float adds, whose order, and so whose last bits, depend on thread
//! timing.
//!
//! # Cost model
//! `O(V + E)` per iteration: one pass over the vertices pulls (each writes
//! its score), a second streaming pass refreshes the outgoing shares
//! `score · (1 / out_degree)` in place (the inverse degrees read once).
//! Traffic per iteration, as GAPBS's: 4 bytes per edge (the in-neighbour
//! ids) plus the random reads of one `4 V`-byte array of shares, plus 32
//! bytes per vertex streamed (in-offsets 8, score read and written 8, then
//! score 4, inverse degree 4, share written 8 with its read for ownership;
//! GAPBS: in-offsets 8, out-offsets 8, score 8, share 4, its share line
//! mostly cached by the pulls), about 0.14 bytes per edge more at degree 29.
//! Memory: three `f32` arrays of `V` entries (four when pushing).

use crate::VerifyError;
use crate::util::{atomic_add_f32, vertices};
use dyngraph_core::{Error, InEdges, InNeighbors, OutNeighbors, Result, VertexId};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Fewest vertices a parallel task takes: below this a graph runs on one
/// thread, so small graphs do not get slower with more threads (GAPBS
/// schedules PageRank in chunks of 16,384).
const VERTEX_GRAIN: usize = 2048;

/// Most vertices a task of the pull (or push) pass takes, so the work stays
/// stealable to the end (GAPBS: `schedule(dynamic, 16384)`). Rayon's
/// adaptive splitting alone stops splitting when nothing is stolen: at two
/// threads one thread ran quarters of the vertex range as single tasks,
/// and on a skewed in-degree distribution the other idled while the last
/// one finished.
const VERTEX_CHUNK: usize = 8192;

/// The sum of `shares[u]` over the in-neighbours `u`, in four running
/// sums taken in turn (edges 0, 4, 8, ... in the first), added pairwise at
/// the end.
///
/// One running sum makes every edge wait for the previous edge's float
/// add (four cycles of latency): at about a nanosecond per edge that chain,
/// not memory, bounded the pull on graphs whose shares fit in cache (GAPBS
/// has the same chain). Four chains let the adds overlap. The order is
/// fixed by the neighbour order alone, so the result is still the same
/// at any thread count; it differs from a left-to-right sum in the last
/// bits. The distributed pull (`dyngraph-dist`) sums the same way.
///
/// Always inlined: it runs once per vertex, a few edges each on sparse
/// graphs, and out of line the call costs more than the sum. It steps the
/// iterator with `next`, not `fold` (four sums taken in turn cannot be
/// written as one closure without moving them at every edge: 25% slower
/// on `Csr`), so a store's iterator must inline its `next` too: `Vcsr`'s
/// view iterator, left out of line, cost a call per edge and put
/// `Vcsr`'s PageRank on sx-mathoverflow at 2.8-3.1× `Csr`'s time (issue
/// 39; 1.4× with it inlined, its rare tombstone lookup kept out of line).
///
/// ```
/// use dyngraph_kernels::sum_of_shares;
/// let shares = [0.5f32, 0.25, 0.125];
/// assert_eq!(sum_of_shares([0u32, 2, 1, 2].into_iter(), &shares), 1.0);
/// ```
#[inline(always)]
pub fn sum_of_shares(in_neighbors: impl Iterator<Item = VertexId>, shares: &[f32]) -> f32 {
    let mut neighbors = in_neighbors;
    let mut sums = [0.0f32; 4];
    'edges: loop {
        for sum in &mut sums {
            let Some(u) = neighbors.next() else {
                break 'edges;
            };
            *sum += shares[u as usize];
        }
    }
    (sums[0] + sums[1]) + (sums[2] + sums[3])
}

/// Options of [`pagerank`].
#[derive(Clone, Debug, PartialEq)]
pub struct PageRankOptions {
    /// Damping factor `d` (0.85 in GAPBS and the papers).
    pub damping: f32,
    /// Iterations to run at most (20 in the papers' runs).
    pub max_iterations: usize,
    /// Stop early once the L1 change of the scores in one iteration is below
    /// this (GAPBS `-t`). `0.0` runs all `max_iterations`.
    pub tolerance: f64,
}

impl Default for PageRankOptions {
    fn default() -> Self {
        Self {
            damping: 0.85,
            max_iterations: 20,
            tolerance: 0.0,
        }
    }
}

/// How the scores were propagated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageRankMethod {
    /// Pull over in-edges (deterministic).
    Pull,
    /// Push over out-edges with atomic adds, because the store keeps no
    /// in-edges.
    Push,
}

/// PageRank scores.
#[derive(Clone, Debug, PartialEq)]
pub struct PageRankResult {
    /// One score per vertex.
    pub scores: Vec<f32>,
    /// Iterations run.
    pub iterations: usize,
    /// L1 change of the scores in the last iteration.
    pub last_change: f64,
    /// Pull or push.
    pub method: PageRankMethod,
    /// The damping factor used.
    pub damping: f32,
}

impl PageRankResult {
    /// The `k` highest-ranked vertices, best first (ties by lower id).
    ///
    /// ```
    /// use dyngraph_kernels::{PageRankMethod, PageRankResult};
    /// let result = PageRankResult {
    ///     scores: vec![0.1, 0.5, 0.4],
    ///     iterations: 1,
    ///     last_change: 0.0,
    ///     method: PageRankMethod::Pull,
    ///     damping: 0.85,
    /// };
    /// assert_eq!(result.top(2), [(1, 0.5), (2, 0.4)]);
    /// ```
    pub fn top(&self, k: usize) -> Vec<(VertexId, f32)> {
        let mut ranked: Vec<(VertexId, f32)> = self
            .scores
            .iter()
            .enumerate()
            .map(|(v, &s)| (v as VertexId, s))
            .collect();
        let by_score =
            |a: &(VertexId, f32), b: &(VertexId, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if k < ranked.len() {
            ranked.select_nth_unstable_by(k, by_score);
            ranked.truncate(k);
        }
        ranked.sort_by(by_score);
        ranked
    }
}

/// PageRank by power iteration in the caller's rayon pool.
///
/// Errors with [`Error::InvalidArgument`] for a damping factor outside
/// `[0, 1]` or a negative or NaN tolerance.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge};
/// use dyngraph_core::StoreConfig;
/// use dyngraph_kernels::{PageRankOptions, pagerank, verify_pagerank};
///
/// // A directed 3-cycle: every vertex ends with a third of the rank.
/// let edges = [Edge::new(0, 1), Edge::new(1, 2), Edge::new(2, 0)];
/// let graph = Csr::from_edges(&edges, CsrOptions::default().in_edges(true))?;
/// let ranks = pagerank(&graph, &PageRankOptions::default())?;
/// assert!(ranks.scores.iter().all(|s| (s - 1.0 / 3.0).abs() < 1e-6));
/// verify_pagerank(&graph, &ranks).unwrap();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn pagerank<G>(graph: &G, options: &PageRankOptions) -> Result<PageRankResult>
where
    G: OutNeighbors + InEdges + Sync,
{
    crate::util::on_pool(|| {
        if !(0.0..=1.0).contains(&options.damping) {
            return Err(Error::InvalidArgument(format!(
                "PageRank damping {} is outside [0, 1]",
                options.damping
            )));
        }
        if options.tolerance.is_nan() || options.tolerance < 0.0 {
            return Err(Error::InvalidArgument(format!(
                "PageRank tolerance {} must be non-negative",
                options.tolerance
            )));
        }
        let n = graph.vertex_count();
        // Pull over the in-edges when the store keeps them, push otherwise;
        // the result says which.
        let pull = graph.in_edges().ok();
        let method = if pull.is_some() {
            PageRankMethod::Pull
        } else {
            PageRankMethod::Push
        };
        let mut result = PageRankResult {
            scores: Vec::new(),
            iterations: 0,
            last_change: 0.0,
            method,
            damping: options.damping,
        };
        if n == 0 {
            return Ok(result);
        }
        let damping = options.damping;
        let base = (1.0 - damping) / n as f32;
        let mut scores = vec![1.0 / n as f32; n];
        // `1 / out_degree` (0 for a dangling vertex), read once: the
        // iterations then multiply, and never ask the store for a degree again
        // (on a snapshot view a degree costs a visibility check).
        let inverse_degree: Vec<f32> = (0..n)
            .into_par_iter()
            .with_min_len(VERTEX_GRAIN)
            .map(|v| match graph.out_degree(v as VertexId) {
                0 => 0.0,
                degree => 1.0 / degree as f32,
            })
            .collect();
        // Each vertex's outgoing share `score / out_degree`, the only array
        // the pull reads at random. It is refreshed in place by a streaming
        // pass after the pull, not written beside it into a second array:
        // two arrays of `4 n` bytes (one read at random, one written) made
        // the working set twice GAPBS's (whose Gauss-Seidel update writes
        // its one array in place), and on Kronecker 18 (1 MiB each) that is
        // the difference between the random reads fitting a 2 MiB L2 or
        // not. The values, and so the scores, are bit for bit the same.
        let mut contributions: Vec<f32> = scores
            .par_iter()
            .zip(inverse_degree.par_iter())
            .with_min_len(VERTEX_GRAIN)
            .map(|(&score, &inverse)| score * inverse)
            .collect();
        let pushed: Vec<AtomicU32> = match method {
            PageRankMethod::Push => (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect(),
            PageRankMethod::Pull => Vec::new(),
        };
        for _ in 0..options.max_iterations {
            if method == PageRankMethod::Push {
                pushed
                    .par_iter()
                    .with_min_len(VERTEX_GRAIN)
                    .for_each(|c| c.store(0, Relaxed));
                vertices(n)
                    .with_min_len(VERTEX_GRAIN)
                    .with_max_len(VERTEX_CHUNK)
                    .for_each(|u| {
                        let contribution = contributions[u as usize];
                        if contribution != 0.0 {
                            for v in graph.out_neighbors(u) {
                                atomic_add_f32(&pushed[v as usize], contribution);
                            }
                        }
                    });
            }
            let incoming = &contributions;
            let change: f64 = scores
                .par_iter_mut()
                .enumerate()
                .with_min_len(VERTEX_GRAIN)
                .with_max_len(VERTEX_CHUNK)
                .map(|(v, score)| {
                    let sum: f32 = match pull {
                        Some(pull) => sum_of_shares(pull.in_neighbors(v as VertexId), incoming),
                        None => f32::from_bits(pushed[v].load(Relaxed)),
                    };
                    let old = *score;
                    *score = base + damping * sum;
                    f64::from((*score - old).abs())
                })
                .sum();
            contributions
                .par_iter_mut()
                .zip(scores.par_iter().zip(inverse_degree.par_iter()))
                .with_min_len(VERTEX_GRAIN)
                .for_each(|(contribution, (&score, &inverse))| *contribution = score * inverse);
            result.iterations += 1;
            result.last_change = change;
            if change < options.tolerance {
                break;
            }
        }
        result.scores = scores;
        Ok(result)
    })
}

/// Serial power iteration in `f64` over out-edges, with GAPBS's dangling
/// handling: the reference [`verify_pagerank`] compares against.
pub fn serial_pagerank<G: OutNeighbors>(graph: &G, damping: f64, iterations: usize) -> Vec<f64> {
    let n = graph.vertex_count();
    if n == 0 {
        return Vec::new();
    }
    let base = (1.0 - damping) / n as f64;
    let mut scores = vec![1.0 / n as f64; n];
    let mut incoming = vec![0.0f64; n];
    for _ in 0..iterations {
        incoming.iter_mut().for_each(|x| *x = 0.0);
        for u in 0..n as VertexId {
            let degree = graph.out_degree(u);
            if degree > 0 {
                let contribution = scores[u as usize] / degree as f64;
                for v in graph.out_neighbors(u) {
                    incoming[v as usize] += contribution;
                }
            }
        }
        for (score, sum) in scores.iter_mut().zip(&incoming) {
            *score = base + damping * sum;
        }
    }
    scores
}

/// The largest per-vertex difference [`verify_pagerank`] accepts between the
/// kernel's `f32` scores and the serial `f64` power iteration, relative to
/// the larger of the expected score and `1 / n` (the mean score): `1e-4`,
/// well above `f32` rounding over 20 iterations of sums and well below a
/// real error (one missing edge moves a score by about `d / (n · degree)`).
pub const PAGERANK_RELATIVE_TOLERANCE: f64 = 1e-4;

/// Checks PageRank scores against [`serial_pagerank`] run for the same
/// number of iterations: every vertex within
/// [`PAGERANK_RELATIVE_TOLERANCE`]` · max(expected, 1 / n)`.
pub fn verify_pagerank<G: OutNeighbors>(
    graph: &G,
    result: &PageRankResult,
) -> Result<(), VerifyError> {
    const K: &str = "pagerank";
    let n = graph.vertex_count();
    if result.scores.len() != n {
        return Err(VerifyError::new(
            K,
            format!("{} scores for {n} vertices", result.scores.len()),
        ));
    }
    let expected = serial_pagerank(graph, f64::from(result.damping), result.iterations);
    let mean = 1.0 / n.max(1) as f64;
    for (v, (&got, &want)) in result.scores.iter().zip(&expected).enumerate() {
        let diff = (f64::from(got) - want).abs();
        let allowed = PAGERANK_RELATIVE_TOLERANCE * want.max(mean);
        if diff.is_nan() || diff > allowed {
            return Err(VerifyError::at(
                K,
                v as VertexId,
                format!(
                    "score {got}, serial power iteration gives {want} (allowed error {allowed:e})"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyngraph_core::{Csr, CsrOptions, Edge, Graph, StoreConfig};

    /// The Jacobi iteration written plainly in `f32`, summing each vertex's
    /// in-neighbours in the store's order into four running sums taken in
    /// turn: what the pull must equal bit for bit, at any thread count (it
    /// refreshes its shares in place).
    fn plain_f32_pull(graph: &Csr, damping: f32, iterations: usize) -> Vec<f32> {
        let n = graph.vertex_count();
        let incoming = graph.in_edges().unwrap();
        let base = (1.0 - damping) / n as f32;
        let inverse: Vec<f32> = (0..n as VertexId)
            .map(|v| match graph.out_degree(v) {
                0 => 0.0,
                degree => 1.0 / degree as f32,
            })
            .collect();
        let mut scores = vec![1.0 / n as f32; n];
        for _ in 0..iterations {
            let shares: Vec<f32> = scores.iter().zip(&inverse).map(|(s, i)| s * i).collect();
            for (v, score) in scores.iter_mut().enumerate() {
                let mut sums = [0.0f32; 4];
                for (k, u) in incoming.in_neighbors(v as VertexId).enumerate() {
                    sums[k % 4] += shares[u as usize];
                }
                let sum = (sums[0] + sums[1]) + (sums[2] + sums[3]);
                *score = base + damping * sum;
            }
        }
        scores
    }

    #[test]
    fn pull_is_bit_identical_to_plain_jacobi_at_any_thread_count() {
        // Skewed degrees, a dangling vertex (9_999) and a self-loop, on more
        // vertices than one task takes.
        let n: VertexId = 10_000;
        let mut edges: Vec<Edge> = (0..n - 1)
            .flat_map(|v| {
                let fan = 1 + (v % 7) + if v % 97 == 0 { 300 } else { 0 };
                (1..=fan).map(move |k| Edge::new(v, (v * 31 + k * 17) % n))
            })
            .collect();
        edges.push(Edge::new(5, 5));
        let graph = Csr::from_edges(&edges, CsrOptions::default().in_edges(true)).unwrap();
        let expected = plain_f32_pull(&graph, 0.85, 20);
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let ranks = pool
                .install(|| pagerank(&graph, &PageRankOptions::default()))
                .unwrap();
            assert_eq!(ranks.method, PageRankMethod::Pull);
            let same = ranks
                .scores
                .iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{threads} threads: scores differ from plain Jacobi");
        }
    }
}
