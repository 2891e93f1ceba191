//! Degree statistics and distributions, for summaries and plots.
//!
//! # Cost model
//! One parallel pass over the vertices reading degrees (`O(V)` on stores
//! that keep degrees, as every dyngraph store does), plus a sort of the `V`
//! degrees for the median. Memory: `8 V` bytes for the sorted degrees.

use dyngraph_core::{InEdges, InNeighbors, OutNeighbors, Result, VertexId};
use rayon::prelude::*;

/// Which degree to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DegreeKind {
    /// Out-degree.
    #[default]
    Out,
    /// In-degree (an error when the store keeps no in-edges).
    In,
}

/// Summary statistics of one kind of degree.
#[derive(Clone, Debug, PartialEq)]
pub struct DegreeStats {
    /// Which degree.
    pub kind: DegreeKind,
    /// Vertices.
    pub vertex_count: usize,
    /// Edges (sum of the degrees).
    pub edge_count: u64,
    /// Smallest degree (0 for an empty graph).
    pub min: u64,
    /// Largest degree (0 for an empty graph).
    pub max: u64,
    /// A vertex with the largest degree, if any vertex exists.
    pub max_vertex: Option<VertexId>,
    /// Mean degree (0 for an empty graph).
    pub mean: f64,
    /// Median degree (the lower middle for an even count; 0 when empty).
    pub median: u64,
    /// Population standard deviation.
    pub std_dev: f64,
    /// Vertices of degree 0.
    pub zero_degree: usize,
}

fn degrees<G: OutNeighbors + InEdges + Sync>(graph: &G, kind: DegreeKind) -> Result<Vec<u64>> {
    let vertices = (0..graph.vertex_count() as VertexId).into_par_iter();
    Ok(match kind {
        DegreeKind::Out => vertices.map(|v| graph.out_degree(v)).collect(),
        DegreeKind::In => {
            let incoming = graph.in_edges()?;
            vertices.map(|v| incoming.in_degree(v)).collect()
        }
    })
}

/// Degree statistics of `graph`; [`dyngraph_core::Error::MissingCapability`]
/// for in-degrees of a store without in-edges.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge};
/// use dyngraph_kernels::{DegreeKind, degree_stats};
///
/// let edges = [Edge::new(0, 1), Edge::new(0, 2), Edge::new(1, 2)];
/// let graph = Csr::from_edges(&edges, CsrOptions::default())?;
/// let stats = degree_stats(&graph, DegreeKind::Out)?;
/// assert!(degree_stats(&graph, DegreeKind::In).is_err()); // built without in-edges
/// assert_eq!((stats.min, stats.max, stats.median, stats.zero_degree), (0, 2, 1, 1));
/// assert_eq!(stats.mean, 1.0);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn degree_stats<G>(graph: &G, kind: DegreeKind) -> Result<DegreeStats>
where
    G: OutNeighbors + InEdges + Sync,
{
    crate::util::on_pool(|| {
        let mut degrees = degrees(graph, kind)?;
        let n = degrees.len();
        let edge_count: u64 = degrees.par_iter().sum();
        let max_vertex = degrees
            .par_iter()
            .enumerate()
            .max_by_key(|&(v, &d)| (d, std::cmp::Reverse(v)))
            .map(|(v, _)| v as VertexId);
        let mean = if n == 0 {
            0.0
        } else {
            edge_count as f64 / n as f64
        };
        let variance = if n == 0 {
            0.0
        } else {
            degrees
                .par_iter()
                .map(|&d| (d as f64 - mean).powi(2))
                .sum::<f64>()
                / n as f64
        };
        let zero_degree = degrees.par_iter().filter(|&&d| d == 0).count();
        degrees.par_sort_unstable();
        Ok(DegreeStats {
            kind,
            vertex_count: n,
            edge_count,
            min: degrees.first().copied().unwrap_or(0),
            max: degrees.last().copied().unwrap_or(0),
            max_vertex,
            mean,
            median: if n == 0 { 0 } else { degrees[(n - 1) / 2] },
            std_dev: variance.sqrt(),
            zero_degree,
        })
    })
}

/// The degree distribution: `(degree, number of vertices with it)` for every
/// degree that occurs, by increasing degree (an error for in-degrees of a
/// store without in-edges).
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge};
/// use dyngraph_kernels::{DegreeKind, degree_distribution};
///
/// let edges = [Edge::new(0, 1), Edge::new(0, 2), Edge::new(1, 2)];
/// let graph = Csr::from_edges(&edges, CsrOptions::default())?;
/// assert_eq!(degree_distribution(&graph, DegreeKind::Out)?, [(0, 1), (1, 1), (2, 1)]);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn degree_distribution<G>(graph: &G, kind: DegreeKind) -> Result<Vec<(u64, u64)>>
where
    G: OutNeighbors + InEdges + Sync,
{
    crate::util::on_pool(|| {
        let mut degrees = degrees(graph, kind)?;
        degrees.par_sort_unstable();
        let mut distribution: Vec<(u64, u64)> = Vec::new();
        for d in degrees {
            match distribution.last_mut() {
                Some((degree, count)) if *degree == d => *count += 1,
                _ => distribution.push((d, 1)),
            }
        }
        Ok(distribution)
    })
}
