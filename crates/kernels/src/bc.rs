//! Betweenness centrality by Brandes's algorithm from `k` sources, as in
//! GAPBS `bc.cc` (an approximation when `k < V`).
//!
//! Per source: a level-synchronous parallel BFS counts shortest paths
//! (`sigma`), then the levels are walked backwards and every vertex sums its
//! dependency `Σ sigma[u] / sigma[w] · (1 + delta[w])` over its successors
//! `w` (out-neighbours one level further), in parallel within a level.
//!
//! Differences from GAPBS, both deliberate: successors are recognised by
//! depth rather than by a per-edge bitmap (the traits have no edge indices),
//! and the source's own dependency is **not** added to its score, as in
//! Brandes's definition (GAPBS adds it). In a multigraph every parallel edge
//! is its own shortest path, in both the kernel and the verifier.
//!
//! Path counts are integers held in `f64` and added atomically; they are
//! exact (so the result is deterministic) below 2^53 shortest paths per
//! vertex.
//!
//! # Cost model
//! `O(k (V + E))` work. Memory: 4 bytes of depth, 8 of path count and 8 of
//! dependency per vertex, plus the level lists.

use crate::VerifyError;
use crate::util::{atomic_add_f64, check_vertex};
use dyngraph_core::{Error, OutNeighbors, Result, VertexId};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

const UNSEEN: u32 = u32::MAX;

/// Where the Brandes searches start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BcSources {
    /// `count` sources drawn at random (seeded) among the vertices with
    /// out-edges, as GAPBS's source picker does (GAPBS runs 4 per trial).
    Random {
        /// Number of sources.
        count: usize,
        /// Seed of the draw.
        seed: u64,
    },
    /// These sources.
    Given(Vec<VertexId>),
}

/// Options of [`betweenness_centrality`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BcOptions {
    /// Sources.
    pub sources: BcSources,
    /// Divide every score by the largest (GAPBS does).
    pub normalize: bool,
}

impl Default for BcOptions {
    fn default() -> Self {
        Self {
            sources: BcSources::Random {
                count: 4,
                seed: 27491095,
            },
            normalize: true,
        }
    }
}

/// Betweenness scores.
#[derive(Clone, Debug, PartialEq)]
pub struct BcResult {
    /// One score per vertex. Deterministic.
    pub scores: Vec<f64>,
    /// The sources used, in order.
    pub sources: Vec<VertexId>,
    /// Whether the scores were divided by their maximum.
    pub normalized: bool,
}

/// Picks the sources of [`BcSources::Random`]: uniformly among vertices
/// with out-degree > 0 (with repetition, as GAPBS), or none if there are
/// none.
fn pick_sources<G: OutNeighbors>(graph: &G, count: usize, seed: u64) -> Vec<VertexId> {
    let n = graph.vertex_count();
    let has_edges = (0..n as VertexId).any(|v| graph.out_degree(v) > 0);
    if !has_edges {
        return Vec::new();
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut sources = Vec::with_capacity(count);
    while sources.len() < count {
        let v = rng.random_range(0..n as VertexId);
        if graph.out_degree(v) > 0 {
            sources.push(v);
        }
    }
    sources
}

/// Brandes betweenness centrality from the given or sampled sources, in the
/// caller's rayon pool.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge};
/// use dyngraph_kernels::{BcOptions, BcSources, betweenness_centrality, verify_bc};
///
/// // A path 0 -> 1 -> 2: from source 0, vertex 1 lies on the path to 2.
/// let edges = [Edge::new(0, 1), Edge::new(1, 2)];
/// let graph = Csr::from_edges(&edges, CsrOptions::default())?;
/// let options = BcOptions { sources: BcSources::Given(vec![0]), normalize: false };
/// let bc = betweenness_centrality(&graph, &options)?;
/// assert_eq!(bc.scores, [0.0, 1.0, 0.0]);
/// verify_bc(&graph, &bc).unwrap();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn betweenness_centrality<G>(graph: &G, options: &BcOptions) -> Result<BcResult>
where
    G: OutNeighbors + Sync,
{
    crate::util::on_pool(|| {
        let n = graph.vertex_count();
        let sources = match &options.sources {
            BcSources::Given(sources) => {
                for &s in sources {
                    check_vertex(s, n)?;
                }
                sources.clone()
            }
            BcSources::Random { count, seed } => {
                if *count > 0 && n == 0 {
                    return Err(Error::InvalidArgument(
                        "betweenness centrality needs a vertex to start from".into(),
                    ));
                }
                pick_sources(graph, *count, *seed)
            }
        };
        let mut scores = vec![0.0f64; n];
        let depths: Vec<AtomicU32> = (0..n)
            .into_par_iter()
            .map(|_| AtomicU32::new(UNSEEN))
            .collect();
        let sigma: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
        let mut delta = vec![0.0f64; n];
        for &source in &sources {
            depths.par_iter().for_each(|d| d.store(UNSEEN, Relaxed));
            sigma
                .par_iter()
                .for_each(|s| s.store(0f64.to_bits(), Relaxed));
            depths[source as usize].store(0, Relaxed);
            sigma[source as usize].store(1f64.to_bits(), Relaxed);
            let levels = count_paths(graph, source, &depths, &sigma);
            // Backward pass: the deepest level has no successors.
            for (depth, level) in levels.iter().enumerate().rev() {
                let next = depth as u32 + 1;
                let dependencies: Vec<f64> = level
                    .par_iter()
                    .map(|&u| {
                        let sigma_u = f64::from_bits(sigma[u as usize].load(Relaxed));
                        graph
                            .out_neighbors(u)
                            .filter(|&w| depths[w as usize].load(Relaxed) == next)
                            .map(|w| {
                                sigma_u / f64::from_bits(sigma[w as usize].load(Relaxed))
                                    * (1.0 + delta[w as usize])
                            })
                            .sum()
                    })
                    .collect();
                for (&u, dependency) in level.iter().zip(dependencies) {
                    delta[u as usize] = dependency;
                    if u != source {
                        scores[u as usize] += dependency;
                    }
                }
            }
            for level in &levels {
                for &u in level {
                    delta[u as usize] = 0.0;
                }
            }
        }
        if options.normalize {
            normalize(&mut scores);
        }
        Ok(BcResult {
            scores,
            sources,
            normalized: options.normalize,
        })
    })
}

/// Level-synchronous BFS from `source` counting shortest paths; returns the
/// vertices by level.
fn count_paths<G: OutNeighbors + Sync>(
    graph: &G,
    source: VertexId,
    depths: &[AtomicU32],
    sigma: &[AtomicU64],
) -> Vec<Vec<VertexId>> {
    let mut levels = vec![vec![source]];
    loop {
        let frontier = levels.last().expect("at least the source level");
        let next = levels.len() as u32;
        let pieces: Vec<Vec<VertexId>> = frontier
            .par_iter()
            .fold(Vec::new, |mut found, &u| {
                let sigma_u = f64::from_bits(sigma[u as usize].load(Relaxed));
                for w in graph.out_neighbors(u) {
                    let slot = &depths[w as usize];
                    let mut depth = slot.load(Relaxed);
                    if depth == UNSEEN {
                        depth = match slot.compare_exchange(UNSEEN, next, Relaxed, Relaxed) {
                            Ok(_) => {
                                found.push(w);
                                next
                            }
                            Err(actual) => actual,
                        };
                    }
                    if depth == next {
                        atomic_add_f64(&sigma[w as usize], sigma_u);
                    }
                }
                found
            })
            .collect();
        let level: Vec<VertexId> = pieces.into_iter().flatten().collect();
        if level.is_empty() {
            return levels;
        }
        levels.push(level);
    }
}

fn normalize(scores: &mut [f64]) {
    let max = scores.iter().copied().fold(0.0f64, f64::max);
    if max > 0.0 {
        scores.iter_mut().for_each(|s| *s /= max);
    }
}

/// Serial Brandes from `sources` with a queue and a stack, scores not
/// normalised: the reference [`verify_bc`] compares against.
pub fn serial_brandes<G: OutNeighbors>(graph: &G, sources: &[VertexId]) -> Vec<f64> {
    let n = graph.vertex_count();
    let mut scores = vec![0.0; n];
    for &source in sources {
        let mut depth = vec![UNSEEN; n];
        let mut sigma = vec![0.0f64; n];
        let mut delta = vec![0.0f64; n];
        let mut order = Vec::new();
        depth[source as usize] = 0;
        sigma[source as usize] = 1.0;
        let mut queue = VecDeque::from([source]);
        while let Some(u) = queue.pop_front() {
            order.push(u);
            for w in graph.out_neighbors(u) {
                if depth[w as usize] == UNSEEN {
                    depth[w as usize] = depth[u as usize] + 1;
                    queue.push_back(w);
                }
                if depth[w as usize] == depth[u as usize] + 1 {
                    sigma[w as usize] += sigma[u as usize];
                }
            }
        }
        for &u in order.iter().rev() {
            for w in graph.out_neighbors(u) {
                if depth[w as usize] == depth[u as usize] + 1 {
                    delta[u as usize] +=
                        sigma[u as usize] / sigma[w as usize] * (1.0 + delta[w as usize]);
                }
            }
            if u != source {
                scores[u as usize] += delta[u as usize];
            }
        }
    }
    scores
}

/// Checks BC scores against [`serial_brandes`] from the same sources
/// (normalised the same way): every score within `1e-6` of the largest.
pub fn verify_bc<G: OutNeighbors>(graph: &G, result: &BcResult) -> Result<(), VerifyError> {
    const K: &str = "bc";
    let n = graph.vertex_count();
    if result.scores.len() != n {
        return Err(VerifyError::new(
            K,
            format!("{} scores for {n} vertices", result.scores.len()),
        ));
    }
    if let Some(&bad) = result.sources.iter().find(|&&s| s as usize >= n) {
        return Err(VerifyError::new(K, format!("source {bad} is not a vertex")));
    }
    let mut expected = serial_brandes(graph, &result.sources);
    if result.normalized {
        normalize(&mut expected);
    }
    let scale = expected.iter().copied().fold(1e-300f64, f64::max);
    for (v, (&got, &want)) in result.scores.iter().zip(&expected).enumerate() {
        let close = (got - want).abs() <= 1e-6 * scale;
        if !close {
            return Err(VerifyError::at(
                K,
                v as VertexId,
                format!("score {got}, serial Brandes gives {want}"),
            ));
        }
    }
    Ok(())
}
