//! Single-source shortest paths by delta-stepping (Meyer & Sanders), as in
//! GAPBS `sssp.cc`.
//!
//! Vertices wait in buckets of width `delta` by tentative distance. Each
//! round relaxes the lowest non-empty bucket, held in one shared frontier:
//! every pool thread takes chunks of 64 frontier vertices at a time,
//! relaxes their out-edges with a compare-and-swap on the target's
//! distance, and files every improved vertex in its own bins (per thread,
//! kept across rounds, indexed by bucket). Like GAPBS's "bucket fusion", a
//! thread then keeps relaxing its own entries of the current bucket while
//! there are fewer than 1000 of them, which saves rounds on long thin
//! frontiers. The next bucket is the lowest non-empty bin of any thread;
//! the threads' bins for it are concatenated into the next frontier. No
//! ordered map is touched in the loop. Stale entries (a vertex whose
//! distance has since moved to an earlier bucket) are skipped. A frontier
//! below 1,024 vertices runs on the calling thread without waking the pool.
//!
//! On a store without weights ([`EdgeWeights::edge_weights`] refuses) the
//! kernel counts hops, reading every edge as weight 1 through
//! [`UnitWeights`], and says so in [`SsspResult::weights`].
//! Weights must be non-negative and not NaN; a negative or NaN weight met
//! during the search is reported as [`Error::InvalidArgument`].
//!
//! # Cost model
//! `O(V + E)` relaxations for `delta` no larger than the smallest weight's
//! scale, more with a larger `delta` (re-relaxations within a bucket), more
//! rounds with a smaller one. Memory: 4 bytes per vertex of distances plus
//! the bins (each thread indexes the next 16,384 buckets directly and keeps
//! entries for later ones in an unordered overflow list, so a tiny `delta`
//! costs rounds, not memory).

use crate::VerifyError;
use crate::util::check_vertex;
use dyngraph_core::{EdgeWeights, Error, Result, UnitWeights, VertexId, Weight, WeightedNeighbors};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering::Relaxed};

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
    /// Which weights the distances sum.
    pub weights: SsspWeights,
}

/// The weights an SSSP run used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsspWeights {
    /// The store's edge weights.
    Stored,
    /// Every edge as 1, because the store keeps no weights: distances are
    /// hop counts.
    Unit,
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
/// let graph = Csr::from_edges(&edges, CsrOptions::default())?;
/// let paths = sssp(&graph, &SsspOptions::from_source(0).with_delta(2.0))?;
/// assert_eq!(paths.distances, [0.0, 3.0, 1.0]);
/// verify_sssp(&graph, &paths).unwrap();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn sssp<G>(graph: &G, options: &SsspOptions) -> Result<SsspResult>
where
    G: EdgeWeights + Sync,
{
    crate::util::on_pool(|| {
        let n = graph.vertex_count();
        match graph.edge_weights() {
            Ok(weights) => delta_stepping(n, weights, options, SsspWeights::Stored),
            Err(_) => delta_stepping(n, UnitWeights(graph), options, SsspWeights::Unit),
        }
    })
}

fn delta_stepping<W: WeightedNeighbors + Sync>(
    n: usize,
    graph: W,
    options: &SsspOptions,
    weights: SsspWeights,
) -> Result<SsspResult> {
    check_vertex(options.source, n)?;
    let delta = options.delta;
    if !(delta > 0.0 && delta.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "delta-stepping delta must be positive and finite, not {delta}"
        )));
    }
    let distances: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|_| AtomicU32::new(Weight::INFINITY.to_bits()))
        .collect();
    distances[options.source as usize].store(0f32.to_bits(), Relaxed);
    let search = DeltaStepping {
        graph,
        distances: &distances,
        delta,
        bad_weight: AtomicBool::new(false),
    };

    // One set of bins per pool thread, kept across rounds (GAPBS's
    // `local_bins`); a thread only ever locks its own, so the locks are
    // never contended.
    let threads = rayon::current_num_threads();
    let bins: Vec<Mutex<LocalBins>> = (0..threads)
        .map(|_| Mutex::new(LocalBins::default()))
        .collect();
    let mut frontier = vec![options.source];
    let mut bucket = 0u64;
    let mut rounds = 0;
    loop {
        rounds += 1;
        let next_chunk = AtomicUsize::new(0);
        let frontier_ref = &frontier;
        let relax_round = |thread: usize| {
            let mut local = lock(&bins[thread]);
            local.advance_to(bucket);
            // Dynamic scheduling over the shared frontier, chunks of
            // `FRONTIER_CHUNK` (GAPBS: `schedule(dynamic, 64)`).
            loop {
                let start = next_chunk.fetch_add(FRONTIER_CHUNK, Relaxed);
                if start >= frontier_ref.len() {
                    break;
                }
                let end = (start + FRONTIER_CHUNK).min(frontier_ref.len());
                for &u in &frontier_ref[start..end] {
                    if search.bucket_of(search.distance(u)) >= bucket {
                        search.relax(u, bucket, &mut local);
                    }
                }
            }
            search.fuse(bucket, &mut local);
        };
        if threads == 1 || frontier.len() < PARALLEL_FRONTIER {
            // A small frontier: no broadcast to the pool (waking the other
            // threads costs more than the work). Any thread's bins do, as
            // long as the gather below visits them all.
            let thread = rayon::current_thread_index().unwrap_or(0).min(threads - 1);
            relax_round(thread);
        } else {
            rayon::broadcast(|context| relax_round(context.index()));
        }
        if search.bad_weight.load(Relaxed) {
            return Err(Error::InvalidArgument(
                "SSSP found a negative or NaN edge weight".into(),
            ));
        }
        // The lowest non-empty bin of every thread's bins, those of threads
        // that sat out a one-chunk round included.
        let Some(next) = bins.iter().filter_map(|local| lock(local).lowest()).min() else {
            break;
        };
        // The next frontier: every thread's bin `next`, back to back.
        bucket = next;
        frontier.clear();
        for local in &bins {
            lock(local).take_bin(bucket, &mut frontier);
        }
    }
    Ok(SsspResult {
        source: options.source,
        // In place (the buffer is reused): no second allocation per call.
        distances: distances
            .into_iter()
            .map(|d| Weight::from_bits(d.into_inner()))
            .collect(),
        rounds,
        weights,
    })
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Frontier vertices a thread takes at a time.
const FRONTIER_CHUNK: usize = 64;

/// Smallest frontier relaxed by the whole pool; smaller ones run on the
/// calling thread, so small graphs do not get slower with more threads.
const PARALLEL_FRONTIER: usize = 1024;

/// Bins further than this past the current bucket wait in an unordered
/// overflow list, so a tiny `delta` (a huge bucket index) costs rounds,
/// not memory.
const NEAR_BINS: u64 = 1 << 14;

/// One thread's bins: vertices it improved, by bucket index. `near[i]` is
/// bucket `offset + i`; buckets at `offset + NEAR_BINS` and past wait in
/// `far`. Every bucket below the current one is empty.
#[derive(Default)]
struct LocalBins {
    offset: u64,
    near: VecDeque<Vec<VertexId>>,
    far: Vec<(u64, VertexId)>,
}

impl LocalBins {
    #[inline]
    fn push(&mut self, index: u64, v: VertexId) {
        let at = index - self.offset;
        if at >= NEAR_BINS {
            self.far.push((index, v));
            return;
        }
        let at = at as usize;
        if at >= self.near.len() {
            self.near.resize_with(at + 1, Vec::new);
        }
        self.near[at].push(v);
    }

    /// Moves the window to start at `bucket` (all bins below it are empty)
    /// and files the overflow entries that now fall within it.
    fn advance_to(&mut self, bucket: u64) {
        while self.offset < bucket {
            match self.near.pop_front() {
                Some(bin) => {
                    debug_assert!(bin.is_empty(), "a bin below the current bucket");
                    self.offset += 1;
                }
                None => self.offset = bucket,
            }
        }
        if !self.far.is_empty() && self.far.iter().any(|&(i, _)| i - self.offset < NEAR_BINS) {
            let far = std::mem::take(&mut self.far);
            for (index, v) in far {
                self.push(index, v);
            }
        }
    }

    /// The current bucket's entries (the window starts there).
    fn current(&mut self) -> Option<&mut Vec<VertexId>> {
        self.near.front_mut()
    }

    /// The lowest non-empty bucket.
    fn lowest(&self) -> Option<u64> {
        let near = self
            .near
            .iter()
            .position(|bin| !bin.is_empty())
            .map(|i| self.offset + i as u64);
        near.or_else(|| self.far.iter().map(|&(i, _)| i).min())
    }

    /// Appends bucket `index`'s entries to `out` and empties it.
    fn take_bin(&mut self, index: u64, out: &mut Vec<VertexId>) {
        self.advance_to(index);
        if let Some(bin) = self.near.front_mut() {
            out.extend_from_slice(bin);
            bin.clear();
        }
    }
}

struct DeltaStepping<'a, G> {
    graph: G,
    distances: &'a [AtomicU32],
    delta: Weight,
    bad_weight: AtomicBool,
}

impl<G: WeightedNeighbors + Sync> DeltaStepping<'_, G> {
    #[inline]
    fn distance(&self, v: VertexId) -> Weight {
        Weight::from_bits(self.distances[v as usize].load(Relaxed))
    }

    /// The bucket of a distance; saturates for distances past `u64`.
    #[inline]
    fn bucket_of(&self, distance: Weight) -> u64 {
        (distance / self.delta) as u64
    }

    #[inline]
    fn relax(&self, u: VertexId, bucket: u64, local: &mut LocalBins) {
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
                        local.push(self.bucket_of(candidate).max(bucket), v);
                        break;
                    }
                    Err(actual) => old = actual,
                }
            }
        }
    }

    /// Bucket fusion: relax this thread's current-bucket entries while they
    /// are few (GAPBS `kBinSizeThreshold`), instead of a round for each.
    fn fuse(&self, bucket: u64, local: &mut LocalBins) {
        let mut batch = Vec::new();
        while let Some(current) = local.current()
            && !current.is_empty()
            && current.len() < FUSION_THRESHOLD
        {
            std::mem::swap(current, &mut batch);
            for &u in &batch {
                if self.bucket_of(self.distance(u)) >= bucket {
                    self.relax(u, bucket, local);
                }
            }
            batch.clear();
        }
    }
}

/// Serial Dijkstra with a binary heap, adding weights in `f32` in path
/// order like the kernel does: the reference [`verify_sssp`] compares
/// against. Negative or NaN weights are skipped; a store without weights
/// counts hops, as [`sssp`] does.
pub fn serial_dijkstra<G: EdgeWeights + Sync>(graph: &G, source: VertexId) -> Vec<Weight> {
    let n = graph.vertex_count();
    match graph.edge_weights() {
        Ok(weights) => dijkstra(n, weights, source),
        Err(_) => dijkstra(n, UnitWeights(graph), source),
    }
}

fn dijkstra<W: WeightedNeighbors>(n: usize, graph: W, source: VertexId) -> Vec<Weight> {
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
pub fn verify_sssp<G: EdgeWeights + Sync>(
    graph: &G,
    result: &SsspResult,
) -> Result<(), VerifyError> {
    const K: &str = "sssp";
    let n = graph.vertex_count();
    let expected_weights = if graph.has_weights() {
        SsspWeights::Stored
    } else {
        SsspWeights::Unit
    };
    if result.weights != expected_weights {
        return Err(VerifyError::new(
            K,
            format!(
                "the result used {:?} weights, the graph has {expected_weights:?}",
                result.weights
            ),
        ));
    }
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
