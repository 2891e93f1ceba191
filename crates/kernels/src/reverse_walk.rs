//! k-step reverse walks, Sahu's Algorithm 13 (paper `002`, §4.2.5).
//!
//! `visits_0 = 1`; each step sets `visits_{i+1}[u] = Σ visits_i[v]` over the
//! out-edges `u -> v`. After `k` steps `visits[u]` is the number of walks of
//! `k` edges that start at `u` following edges, which is the number of
//! reverse walks (edges followed backwards) that end at `u`: the vector
//! `A^k · 1`, Sahu's `A_T^k · 1` with his transposed-matrix convention. It
//! runs on out-edges only, so it needs no transpose. Every edge of a
//! multigraph is its own step.
//!
//! Counts are `f64`: they grow like `λ^k` (λ the largest eigenvalue), so with
//! Sahu's `k = 42` they leave `u64` quickly; they are exact while below
//! 2^53. Each vertex sums its neighbours serially in store order, so results
//! are bit-identical for any thread count.
//!
//! # Cost model
//! `O(k (V + E))` work; two `f64` arrays of `V` entries.

use crate::VerifyError;
use dyngraph_core::{OutNeighbors, Result, VertexId};
use rayon::prelude::*;

/// Options of [`reverse_walks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReverseWalkOptions {
    /// Walk length `k` (42 in Sahu's comparison).
    pub steps: usize,
}

impl Default for ReverseWalkOptions {
    fn default() -> Self {
        Self { steps: 42 }
    }
}

/// Walk counts.
#[derive(Clone, Debug, PartialEq)]
pub struct ReverseWalkResult {
    /// `visits[u]`: reverse walks of `steps` edges ending at `u`.
    pub visits: Vec<f64>,
    /// The walk length.
    pub steps: usize,
}

/// Counts k-step reverse walks ending at every vertex, in the caller's
/// rayon pool.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge};
/// use dyngraph_kernels::{ReverseWalkOptions, reverse_walks, verify_reverse_walks};
///
/// // 0 -> 1, 0 -> 2, 1 -> 2: the only 2-step walk is 0 -> 1 -> 2, which starts
/// // at 0, so one reverse walk of 2 steps ends at 0.
/// let edges = [Edge::new(0, 1), Edge::new(0, 2), Edge::new(1, 2)];
/// let graph = Csr::from_edges(&edges, CsrOptions::default())?;
/// let walks = reverse_walks(&graph, &ReverseWalkOptions { steps: 2 })?;
/// assert_eq!(walks.visits, [1.0, 0.0, 0.0]);
/// verify_reverse_walks(&graph, &walks).unwrap();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn reverse_walks<G>(graph: &G, options: &ReverseWalkOptions) -> Result<ReverseWalkResult>
where
    G: OutNeighbors + Sync,
{
    crate::util::on_pool(|| {
        let n = graph.vertex_count();
        let mut current = vec![1.0f64; n];
        let mut next = vec![0.0f64; n];
        for _ in 0..options.steps {
            next.par_iter_mut().enumerate().for_each(|(u, visits)| {
                *visits = graph
                    .out_neighbors(u as VertexId)
                    .map(|v| current[v as usize])
                    .sum();
            });
            std::mem::swap(&mut current, &mut next);
        }
        Ok(ReverseWalkResult {
            visits: current,
            steps: options.steps,
        })
    })
}

/// The serial loop [`verify_reverse_walks`] compares against.
pub fn serial_reverse_walks<G: OutNeighbors>(graph: &G, steps: usize) -> Vec<f64> {
    let n = graph.vertex_count();
    let mut current = vec![1.0f64; n];
    for _ in 0..steps {
        let mut next = vec![0.0f64; n];
        for (u, visits) in next.iter_mut().enumerate() {
            for v in graph.out_neighbors(u as VertexId) {
                *visits += current[v as usize];
            }
        }
        current = next;
    }
    current
}

/// Checks walk counts against [`serial_reverse_walks`]: equal within a
/// relative `1e-12` (the same sums in the same order, so in practice
/// exactly equal).
pub fn verify_reverse_walks<G: OutNeighbors>(
    graph: &G,
    result: &ReverseWalkResult,
) -> Result<(), VerifyError> {
    const K: &str = "reverse_walks";
    let n = graph.vertex_count();
    if result.visits.len() != n {
        return Err(VerifyError::new(
            K,
            format!("{} counts for {n} vertices", result.visits.len()),
        ));
    }
    let expected = serial_reverse_walks(graph, result.steps);
    for (v, (&got, &want)) in result.visits.iter().zip(&expected).enumerate() {
        let same = got == want || (got - want).abs() <= 1e-12 * want.abs();
        if !same {
            return Err(VerifyError::at(
                K,
                v as VertexId,
                format!("{got} walks, the serial loop gives {want}"),
            ));
        }
    }
    Ok(())
}
