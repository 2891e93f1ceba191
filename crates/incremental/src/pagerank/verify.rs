//! The reference ranks a maintained PageRank is checked against.

use super::DynamicPageRank;
use dyngraph_core::{OutNeighbors, VertexId};
use dyngraph_kernels::{VerifyError, serial_pagerank};

/// How far two rank vectors are apart.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PageRankError {
    /// The largest difference of one vertex's ranks (L∞ norm).
    pub linf: f64,
    /// The sum of the differences (L1 norm).
    pub l1: f64,
}

/// The L∞ and L1 distance of two rank vectors (over the shorter length;
/// vectors of different lengths should not be compared).
pub fn pagerank_error(a: &[f64], b: &[f64]) -> PageRankError {
    a.iter()
        .zip(b)
        .fold(PageRankError::default(), |error, (&x, &y)| {
            let diff = (x - y).abs();
            PageRankError {
                linf: error.linf.max(diff),
                l1: error.l1 + diff,
            }
        })
}

/// The exact ranks, to `f64` rounding: the static kernel's serial `f64`
/// power iteration ([`serial_pagerank`], the reference its verifier uses)
/// run until `d^k < 1e-16`, so its distance to the fixed point is below
/// `1e-15` in L1.
pub fn reference_pagerank<G: OutNeighbors>(graph: &G, damping: f64) -> Vec<f64> {
    let iterations = if damping <= 0.0 {
        1
    } else {
        ((1e-16f64).ln() / damping.ln())
            .ceil()
            .clamp(1.0, 100_000.0) as usize
            + 1
    };
    serial_pagerank(graph, damping, iterations)
}

/// Checks a maintained PageRank against [`reference_pagerank`] on `graph`:
/// one rank per vertex, and every rank within `max_linf` of the exact one.
/// Returns the measured distance.
///
/// Serial and `O(E · log(1e-16) / log(d))`: a test's verifier, not
/// something to run per batch in production.
pub fn verify_pagerank<G: OutNeighbors>(
    graph: &G,
    ranks: &DynamicPageRank,
    max_linf: f64,
) -> Result<PageRankError, VerifyError> {
    let fail = |vertex: Option<VertexId>, message: String| VerifyError {
        kernel: "dynamic pagerank",
        vertex,
        message,
    };
    let n = graph.vertex_count();
    if ranks.vertex_count() != n {
        return Err(fail(
            None,
            format!("{} ranks for {n} vertices", ranks.vertex_count()),
        ));
    }
    let exact = reference_pagerank(graph, ranks.options().damping);
    let scores = ranks.scores();
    let error = pagerank_error(&scores, &exact);
    if error.linf.is_nan() || error.linf > max_linf {
        let (v, _) = scores
            .iter()
            .zip(&exact)
            .enumerate()
            .map(|(v, (a, b))| (v, (a - b).abs()))
            .fold((0, -1.0), |best, x| if x.1 > best.1 { x } else { best });
        return Err(fail(
            Some(v as VertexId),
            format!(
                "rank {} but exactly {} (L∞ error {:e} over the allowed {max_linf:e}, L1 {:e})",
                scores[v], exact[v], error.linf, error.l1
            ),
        ));
    }
    Ok(error)
}

/// Checks a maintained PageRank against [`reference_pagerank`] on `graph`
/// in L1: one rank per vertex, and the normalised ranks within `max_l1`
/// of the exact ones summed over the vertices (the bound
/// [`crate::DynamicPageRankOptions::l1_bound`] states). Returns the
/// measured distance.
///
/// Serial and `O(E · log(1e-16) / log(d))`, as [`verify_pagerank`].
pub fn verify_pagerank_l1<G: OutNeighbors>(
    graph: &G,
    ranks: &DynamicPageRank,
    max_l1: f64,
) -> Result<PageRankError, VerifyError> {
    let n = graph.vertex_count();
    if ranks.vertex_count() != n {
        return Err(VerifyError {
            kernel: "dynamic pagerank",
            vertex: None,
            message: format!("{} ranks for {n} vertices", ranks.vertex_count()),
        });
    }
    let exact = reference_pagerank(graph, ranks.options().damping);
    let error = pagerank_error(&ranks.scores(), &exact);
    if error.l1.is_nan() || error.l1 > max_l1 {
        return Err(VerifyError {
            kernel: "dynamic pagerank",
            vertex: None,
            message: format!(
                "L1 distance {:e} to the exact ranks, over the allowed {max_l1:e} (L∞ {:e})",
                error.l1, error.linf
            ),
        });
    }
    Ok(error)
}
