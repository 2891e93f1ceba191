//! Single-source shortest paths by delta-stepping (Meyer & Sanders), as in
//! GAPBS `sssp.cc`.
//!
//! Vertices wait in buckets of width `delta` by tentative distance. The
//! lowest non-empty bucket is relaxed in parallel: each task relaxes its
//! share of out-edges with a compare-and-swap on the target's distance and
//! files every improved vertex in a task-local bucket. Like GAPBS's "bucket
//! fusion", a task keeps relaxing its own entries of the current bucket
//! while there are fewer than 1000 of them, which saves a round for the long
//! thin frontiers of road-like graphs. Stale entries (a vertex whose distance
//! has since moved to an earlier bucket) are skipped.
//!
//! Unweighted stores report weight 1 through
//! [`WeightedOutNeighbors`], so the kernel then computes hop counts.
//! Weights must be non-negative and not NaN; a negative or NaN weight met
//! during the search is reported as [`Error::InvalidArgument`].
//!
//! # Cost model
//! `O(V + E)` relaxations for `delta` no larger than the smallest weight's
//! scale, more with a larger `delta` (re-relaxations within a bucket), more
//! rounds with a smaller one. Memory: 4 bytes per vertex of distances plus
//! the buckets (a bucket index is `distance / delta`, kept in an ordered map,
//! so a tiny `delta` costs rounds, not memory).

use crate::VerifyError;
use crate::util::check_vertex;
use dyngraph_core::{Error, Result, VertexId, Weight, WeightedOutNeighbors};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

/// A task keeps relaxing its own entries of the current bucket while there
/// are fewer than this many (GAPBS `kBinSizeThreshold`).
const FUSION_THRESHOLD: usize = 1000;

/// Options of [`sssp`].
#[derive(Clone, Debug, PartialEq)]
pub struct SsspOptions {
    /// Where paths start.
    pub source: VertexId,
    /// Bucket width (GAPBS `-d`, default 1). Must be positive and finite.
    pub delta: Weight,
}

impl Default for SsspOptions {
    fn default() -> Self {
        Self {
            source: 0,
            delta: 1.0,
        }
    }
}

impl SsspOptions {
    /// Default options from `source`.
    pub fn from_source(source: VertexId) -> Self {
        Self {
            source,
            ..Self::default()
        }
    }

    /// Sets [`SsspOptions::delta`].
    pub fn with_delta(mut self, delta: Weight) -> Self {
        self.delta = delta;
        self
    }
}

/// Shortest-path distances.
#[derive(Clone, Debug, PartialEq)]
pub struct SsspResult {
    /// The source.
    pub source: VertexId,
    /// `distances[v]`: length of a shortest path from the source,
    /// `f32::INFINITY` if `v` is unreachable. Deterministic.
    pub distances: Vec<Weight>,
    /// Buckets processed (rounds of the outer loop).
    pub rounds: usize,
}

impl SsspResult {
    /// Number of vertices reached, the source included.
    pub fn reached(&self) -> usize {
        self.distances.par_iter().filter(|d| d.is_finite()).count()
    }
}

/// Delta-stepping single-source shortest paths in the caller's rayon pool.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, WeightedEdge};
/// use dyngraph_kernels::{SsspOptions, sssp, verify_sssp};
///
/// let edges = [
///     WeightedEdge::new(0, 1, 4.0),
///     WeightedEdge::new(0, 2, 1.0),
///     WeightedEdge::new(2, 1, 2.0),
/// ];
/// let graph = Csr::from_weighted_edges(&edges, CsrOptions::default())?;
/// let paths = sssp(&graph, &SsspOptions::from_source(0).with_delta(2.0))?;
/// assert_eq!(paths.distances, [0.0, 3.0, 1.0]);
/// verify_sssp(&graph, &paths).unwrap();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn sssp<G>(graph: &G, options: &SsspOptions) -> Result<SsspResult>
where
    G: WeightedOutNeighbors + Sync,
{
    let n = graph.vertex_count();
    check_vertex(options.source, n)?;
    let delta = options.delta;
    if !(delta > 0.0 && delta.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "delta-stepping delta must be positive and finite, not {delta}"
        )));
    }
    let distances: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(Weight::INFINITY.to_bits()))
        .collect();
    distances[options.source as usize].store(0f32.to_bits(), Relaxed);
    let search = DeltaStepping {
        graph,
        distances: &distances,
        delta,
        bad_weight: AtomicBool::new(false),
    };

    let mut buckets: BTreeMap<u64, Vec<VertexId>> = BTreeMap::new();
    let mut frontier = vec![options.source];
    let mut bucket = 0u64;
    let mut rounds = 0;
    loop {
        rounds += 1;
        let pieces: Vec<LocalBuckets> = frontier
            .par_iter()
            .fold(LocalBuckets::default, |mut local, &u| {
                if search.bucket_of(search.distance(u)) >= bucket {
                    search.relax(u, bucket, &mut local);
                    search.fuse(bucket, &mut local);
                }
                local
            })
            .collect();
        for piece in pieces {
            if !piece.current.is_empty() {
                buckets.entry(bucket).or_default().extend(piece.current);
            }
            for (index, v) in piece.later {
                buckets.entry(index).or_default().push(v);
            }
        }
        if search.bad_weight.load(Relaxed) {
            return Err(Error::InvalidArgument(
                "SSSP found a negative or NaN edge weight".into(),
            ));
        }
        match buckets.pop_first() {
            Some((index, vertices)) => {
                bucket = index;
                frontier = vertices;
            }
            None => break,
        }
    }
    Ok(SsspResult {
        source: options.source,
        distances: distances
            .into_par_iter()
            .map(|d| Weight::from_bits(d.into_inner()))
            .collect(),
        rounds,
    })
}

/// Vertices one task improved in a round: those in the current bucket (to
/// relax again at once) and the rest with their bucket index.
#[derive(Default)]
struct LocalBuckets {
    current: Vec<VertexId>,
    later: Vec<(u64, VertexId)>,
}

struct DeltaStepping<'a, G> {
    graph: &'a G,
    distances: &'a [AtomicU32],
    delta: Weight,
    bad_weight: AtomicBool,
}

impl<G: WeightedOutNeighbors + Sync> DeltaStepping<'_, G> {
    #[inline]
    fn distance(&self, v: VertexId) -> Weight {
        Weight::from_bits(self.distances[v as usize].load(Relaxed))
    }

    /// The bucket of a distance; saturates for distances past `u64`.
    #[inline]
    fn bucket_of(&self, distance: Weight) -> u64 {
        (distance / self.delta) as u64
    }

    fn relax(&self, u: VertexId, bucket: u64, local: &mut LocalBuckets) {
        let base = self.distance(u);
        for (v, weight) in self.graph.out_neighbors_weighted(u) {
            if weight.is_nan() || weight < 0.0 {
                self.bad_weight.store(true, Relaxed);
                continue;
            }
            let candidate = base + weight;
            let slot = &self.distances[v as usize];
            let mut old = slot.load(Relaxed);
            // Non-negative f32 bit patterns order like the values, but the
            // comparison is done on values for clarity.
            while candidate < Weight::from_bits(old) {
                match slot.compare_exchange_weak(old, candidate.to_bits(), Relaxed, Relaxed) {
                    Ok(_) => {
                        let index = self.bucket_of(candidate).max(bucket);
                        if index == bucket {
                            local.current.push(v);
                        } else {
                            local.later.push((index, v));
                        }
                        break;
                    }
                    Err(actual) => old = actual,
                }
            }
        }
    }

    /// Bucket fusion: relax this task's current-bucket entries while they
    /// are few.
    fn fuse(&self, bucket: u64, local: &mut LocalBuckets) {
        while !local.current.is_empty() && local.current.len() < FUSION_THRESHOLD {
            let batch = std::mem::take(&mut local.current);
            for u in batch {
                if self.bucket_of(self.distance(u)) >= bucket {
                    self.relax(u, bucket, local);
                }
            }
        }
    }
}

/// Serial Dijkstra with a binary heap, adding weights in `f32` in path
/// order like the kernel does: the reference [`verify_sssp`] compares
/// against. Negative or NaN weights are skipped.
pub fn serial_dijkstra<G: WeightedOutNeighbors>(graph: &G, source: VertexId) -> Vec<Weight> {
    let n = graph.vertex_count();
    let mut distances = vec![Weight::INFINITY; n];
    if source as usize >= n {
        return distances;
    }
    distances[source as usize] = 0.0;
    // Non-negative f32 bits order like their values.
    let mut heap = BinaryHeap::from([Reverse((0f32.to_bits(), source))]);
    while let Some(Reverse((bits, u))) = heap.pop() {
        let d = Weight::from_bits(bits);
        if d > distances[u as usize] {
            continue;
        }
        for (v, weight) in graph.out_neighbors_weighted(u) {
            if weight.is_nan() || weight < 0.0 {
                continue;
            }
            let candidate = d + weight;
            if candidate < distances[v as usize] {
                distances[v as usize] = candidate;
                heap.push(Reverse((candidate.to_bits(), v)));
            }
        }
    }
    distances
}

/// Checks SSSP distances against [`serial_dijkstra`]: the same vertices
/// reached, and each distance equal within a relative `1e-5` (both sum the
/// same `f32` weights; the slack only covers paths of equal length summed in
/// a different order).
pub fn verify_sssp<G: WeightedOutNeighbors>(
    graph: &G,
    result: &SsspResult,
) -> Result<(), VerifyError> {
    const K: &str = "sssp";
    let n = graph.vertex_count();
    if result.distances.len() != n {
        return Err(VerifyError::new(
            K,
            format!("{} distances for {n} vertices", result.distances.len()),
        ));
    }
    let expected = serial_dijkstra(graph, result.source);
    for (v, (&got, &want)) in result.distances.iter().zip(&expected).enumerate() {
        let ok = if want.is_infinite() {
            got.is_infinite()
        } else {
            (got - want).abs() <= 1e-5 * want.abs().max(1.0)
        };
        if !ok {
            return Err(VerifyError::at(
                K,
                v as VertexId,
                format!("distance {got}, Dijkstra gives {want}"),
            ));
        }
    }
    Ok(())
}
