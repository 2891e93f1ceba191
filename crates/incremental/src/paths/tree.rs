//! The shortest-path tree engine behind [`crate::DynamicBfs`] and
//! [`crate::DynamicSssp`]; the algorithm is described in the docs of
//! [`crate::paths`].

use crate::ChangeLog;
use crate::maintained::UpdateStats;
use crate::scratch::Stamps;
use dyngraph_core::{Error, InNeighbors, Result, VertexId, Weight, WeightedNeighbors};
use dyngraph_kernels::NO_PARENT;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Debug;

/// A distance: `u32` hop counts for BFS, `f32` sums for SSSP.
pub(crate) trait Distance: Copy + PartialOrd + Debug + Send + Sync {
    /// An unreached vertex's distance.
    const INFINITY: Self;
    /// Whether the edge weights are all 1 (BFS): an in-neighbour one hop
    /// closer is then a parent without reading its out-edges.
    const UNIT: bool;
    /// A totally ordered key with the order of the distances.
    type Key: Ord + Copy + Debug;
    /// The key of the distance.
    fn key(self) -> Self::Key;
    /// The distance one edge of `weight` further.
    fn plus(self, weight: Weight) -> Self;
    /// Whether the vertex is reached.
    fn is_finite(self) -> bool;
}

impl Distance for u32 {
    const INFINITY: Self = u32::MAX;
    const UNIT: bool = true;
    type Key = u32;

    #[inline]
    fn key(self) -> u32 {
        self
    }

    #[inline]
    fn plus(self, _: Weight) -> Self {
        self.saturating_add(1)
    }

    #[inline]
    fn is_finite(self) -> bool {
        self != u32::MAX
    }
}

impl Distance for f32 {
    const INFINITY: Self = f32::INFINITY;
    const UNIT: bool = false;
    // Non-negative `f32` bit patterns order like their values.
    type Key = u32;

    #[inline]
    fn key(self) -> u32 {
        self.to_bits()
    }

    #[inline]
    fn plus(self, weight: Weight) -> Self {
        self + weight
    }

    #[inline]
    fn is_finite(self) -> bool {
        self.is_finite()
    }
}

/// Why a repair gave up (the caller recomputes with the static kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GaveUp {
    /// A deleted tree edge needs in-neighbours the store does not keep.
    NoInEdges,
    /// More vertices were invalidated than the limit.
    TooManyInvalidated,
}

/// The tree: distances and parents from one source.
#[derive(Clone, Debug)]
pub(crate) struct Tree<D> {
    pub(crate) source: VertexId,
    pub(crate) dist: Vec<D>,
    pub(crate) parent: Vec<VertexId>,
    /// Invalidated in the current update.
    invalid: Stamps,
    /// Settled suspects, relaxed vertices: per-update dedup.
    seen: Stamps,
}

impl<D: Distance> Tree<D> {
    /// A tree from a static kernel's distances and parents.
    pub(crate) fn new(source: VertexId, dist: Vec<D>, parent: Vec<VertexId>) -> Self {
        let n = dist.len();
        Self {
            source,
            dist,
            parent,
            invalid: Stamps::new(n),
            seen: Stamps::new(n),
        }
    }

    /// Room for `n` vertices, unreached.
    pub(crate) fn grow(&mut self, n: usize) {
        if n > self.dist.len() {
            self.dist.resize(n, D::INFINITY);
            self.parent.resize(n, NO_PARENT);
            self.invalid.grow(n);
            self.seen.grow(n);
        }
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.dist.capacity() * std::mem::size_of::<D>()
            + self.parent.capacity() * 4
            + self.invalid.memory_bytes()
            + self.seen.memory_bytes()
    }

    /// Brings the tree up to the graph after `changes`. `weights` reads
    /// the (stored or unit) weighted out-edges, `incoming` the in-edges if
    /// the store keeps them. Gives up when a deletion needs in-edges the
    /// store lacks or invalidates more than `max_invalidated` vertices.
    pub(crate) fn apply<W, I>(
        &mut self,
        weights: W,
        incoming: Option<I>,
        changes: &ChangeLog,
        max_invalidated: usize,
        stats: &mut UpdateStats,
    ) -> Result<std::result::Result<(), GaveUp>>
    where
        W: WeightedNeighbors,
        I: InNeighbors,
    {
        let n = self.dist.len();
        let invalid_epoch = self.invalid.next_epoch();
        let seen_epoch = self.seen.next_epoch();
        let mut heap: BinaryHeap<Reverse<(D::Key, VertexId)>> = BinaryHeap::new();

        // Deletions: settle the suspects, closest first.
        for e in changes.deleted() {
            let (u, v) = (e.src, e.dst);
            if (v as usize) < n && v != self.source && self.parent[v as usize] == u {
                heap.push(Reverse((self.dist[v as usize].key(), v)));
            }
        }
        let mut invalidated: Vec<VertexId> = Vec::new();
        while let Some(Reverse((_, v))) = heap.pop() {
            if !self.seen.mark(v, seen_epoch) {
                continue;
            }
            stats.vertices_processed += 1;
            let parent = self.parent[v as usize];
            if parent != NO_PARENT
                && !self.invalid.is_marked(parent, invalid_epoch)
                && self.gives(weights, parent, v, stats)
            {
                continue;
            }
            let Some(incoming) = incoming else {
                return Ok(Err(GaveUp::NoInEdges));
            };
            if let Some(other) = self.second_parent(weights, incoming, v, invalid_epoch, stats) {
                self.parent[v as usize] = other;
                continue;
            }
            // No edge gives `v` its distance any more.
            self.invalid.mark(v, invalid_epoch);
            self.dist[v as usize] = D::INFINITY;
            self.parent[v as usize] = NO_PARENT;
            invalidated.push(v);
            if invalidated.len() > max_invalidated {
                return Ok(Err(GaveUp::TooManyInvalidated));
            }
            for (child, _) in weights.out_neighbors_weighted(v) {
                stats.edges_scanned += 1;
                if self.parent[child as usize] == v && child != v {
                    heap.push(Reverse((self.dist[child as usize].key(), child)));
                }
            }
        }

        // Repair: the invalidated vertices' valid in-neighbours, and the
        // inserted edges' sources, relax; Dijkstra from there.
        let relaxed_epoch = self.seen.next_epoch();
        if let Some(incoming) = incoming {
            for &x in &invalidated {
                for w in incoming.in_neighbors(x) {
                    stats.edges_scanned += 1;
                    if self.invalid.is_marked(w, invalid_epoch)
                        || !self.dist[w as usize].is_finite()
                    {
                        continue;
                    }
                    if D::UNIT {
                        let candidate = self.dist[w as usize].plus(1.0);
                        if candidate < self.dist[x as usize] {
                            self.dist[x as usize] = candidate;
                            self.parent[x as usize] = w;
                            heap.push(Reverse((candidate.key(), x)));
                        }
                    } else if self.seen.mark(w, relaxed_epoch) {
                        self.relax(weights, w, &mut heap, stats)?;
                    }
                }
            }
        }
        // Unit weights: an inserted edge the log does not also name as
        // deleted is in the graph, so it alone relaxes, whatever its
        // source's degree. Otherwise (a weight to read, or an edge that
        // may be gone again) the source relaxes every out-edge.
        let deleted: std::collections::HashSet<(VertexId, VertexId)> = if D::UNIT {
            changes.deleted().iter().map(|e| (e.src, e.dst)).collect()
        } else {
            Default::default()
        };
        let mut sources: Vec<VertexId> = Vec::new();
        for e in changes.inserted() {
            let (u, v) = (e.src, e.dst);
            if u as usize >= n || v as usize >= n {
                continue;
            }
            if D::UNIT && !deleted.contains(&(u, v)) {
                stats.edges_scanned += 1;
                let candidate = self.dist[u as usize].plus(1.0);
                if self.dist[u as usize].is_finite() && candidate < self.dist[v as usize] {
                    self.dist[v as usize] = candidate;
                    self.parent[v as usize] = u;
                    heap.push(Reverse((candidate.key(), v)));
                }
            } else {
                sources.push(u);
            }
        }
        sources.sort_unstable();
        sources.dedup();
        for u in sources {
            if self.dist[u as usize].is_finite() {
                self.relax(weights, u, &mut heap, stats)?;
            }
        }
        while let Some(Reverse((key, v))) = heap.pop() {
            if key != self.dist[v as usize].key() {
                continue;
            }
            self.relax(weights, v, &mut heap, stats)?;
        }
        stats.iterations = 1;
        Ok(Ok(()))
    }

    /// Whether an edge `u -> v` (still) gives `v` its distance from a
    /// strictly closer `u`.
    fn gives<W: WeightedNeighbors>(
        &self,
        weights: W,
        u: VertexId,
        v: VertexId,
        stats: &mut UpdateStats,
    ) -> bool {
        let (du, dv) = (self.dist[u as usize], self.dist[v as usize]);
        // Distances are never NaN (NaN weights are refused).
        if du >= dv {
            return false;
        }
        for (w, weight) in weights.out_neighbors_weighted(u) {
            stats.edges_scanned += 1;
            if w == v && du.plus(weight) == dv {
                return true;
            }
        }
        false
    }

    /// An in-neighbour, strictly closer and not invalidated, whose edge
    /// gives `v` its distance.
    fn second_parent<W: WeightedNeighbors, I: InNeighbors>(
        &self,
        weights: W,
        incoming: I,
        v: VertexId,
        invalid_epoch: u32,
        stats: &mut UpdateStats,
    ) -> Option<VertexId> {
        let dv = self.dist[v as usize];
        for w in incoming.in_neighbors(v) {
            stats.edges_scanned += 1;
            let dw = self.dist[w as usize];
            if dw >= dv || self.invalid.is_marked(w, invalid_epoch) {
                continue;
            }
            let found = if D::UNIT {
                dw.plus(1.0) == dv
            } else {
                self.gives(weights, w, v, stats)
            };
            if found {
                return Some(w);
            }
        }
        None
    }

    /// Relaxes `u`'s out-edges; refuses negative and NaN weights as the
    /// static kernel does.
    fn relax<W: WeightedNeighbors>(
        &mut self,
        weights: W,
        u: VertexId,
        heap: &mut BinaryHeap<Reverse<(D::Key, VertexId)>>,
        stats: &mut UpdateStats,
    ) -> Result<()> {
        let du = self.dist[u as usize];
        stats.vertices_processed += 1;
        for (v, weight) in weights.out_neighbors_weighted(u) {
            stats.edges_scanned += 1;
            if weight.is_nan() || weight < 0.0 {
                return Err(Error::InvalidArgument(format!(
                    "SSSP found a negative or NaN edge weight {weight} on {u} -> {v}"
                )));
            }
            let candidate = du.plus(weight);
            if candidate < self.dist[v as usize] {
                self.dist[v as usize] = candidate;
                self.parent[v as usize] = u;
                heap.push(Reverse((candidate.key(), v)));
            }
        }
        Ok(())
    }
}
