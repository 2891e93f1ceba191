//! Residual push ([`PageRankStrategy::ResidualPush`]): per-vertex residuals
//! kept across batches, after Ohsaka, Maehara and Kawarabayashi,
//! "Efficient PageRank Tracking in Evolving Networks" (KDD 2015), and Zhang,
//! Lofgren and Goel, "Approximate Personalized PageRank on Dynamic Graphs"
//! (KDD 2016), for the global (uniformly teleporting) PageRank of the
//! static kernel.
//!
//! # The invariant
//!
//! With `p` the maintained unnormalised ranks and `b = 1 - d`, every vertex
//! keeps its residual
//!
//! `r_v = b + d · Σ_{u → v} p_u / out_degree(u) − p_v`
//!
//! (a dangling `u` contributes nothing, as in the static kernel; a
//! self-loop is an ordinary in-edge). The exact ranks are
//! `y = p + (I − d Pᵀ)⁻¹ r`, and the columns of `(I − d Pᵀ)⁻¹` are
//! non-negative and sum to at most `1 / (1 − d)`, so
//!
//! `‖p / n − y / n‖₁ ≤ Σ |r_v| / ((1 − d) · n)`.
//!
//! An update ends when `Σ |r_v| ≤ ε (1 − d) n`: the normalised ranks are
//! then within `ε` of the fixed point in L1, whatever came before.
//!
//! # An update
//!
//! 1. **Restore the invariant.** An edge `u → w` inserted or deleted
//!    changes, for every out-neighbour `x` of `u`, the term
//!    `d p_u mult(u, x) / out_degree(u)`. For the out-neighbours the log
//!    does not name, the multiplicity is unchanged and the residual moves
//!    by `d p_u (1 / deg_new − 1 / deg_old)`. For the named ones the old
//!    multiplicity is derived: each told insert added at most one copy and
//!    each told delete removed at most one, so it lies in a box, and the
//!    old degree fixes its sum; when the sum sits at the box's lower or
//!    upper corner every multiplicity is known. Otherwise (a source with
//!    no-op inserts and deletes mixed in one log) those targets' residuals
//!    are recomputed from their in-edges, or, on a store without in-edges,
//!    every residual is recounted in one pass over the out-edges.
//! 2. **Push.** The vertex with the largest `|r_v| / (out_degree(v) + 1)`
//!    (bucketed by its binary exponent) moves its residual into `p_v` and
//!    hands `d r_v / out_degree(v)` to each out-neighbour's residual, until
//!    the sum is under the bound. A push of `r` costs `out_degree + 1` and
//!    lowers the sum by at least `(1 − d) |r|` (all of it at a dangling
//!    vertex); residuals of opposite sign (an insert's gain beside its
//!    source's other neighbours' loss) cancel where they meet.
//! 3. **Fall back only when pushing costs more.** A warm sweep over every
//!    vertex lowers the residual sum by at least a factor `d`, and by the
//!    rate `ρ` the last sweeps measured in practice, so
//!    `k = ⌈ln(2S / B) / ln(1/ρ)⌉ + 2` sweeps (they stop at `B / 2` on
//!    their L1 change, which runs ahead of the residual; then one pass
//!    recounts the residuals) reach the bound `B` from a sum `S`.
//!    Once a fallback has run them, their measured count (scaled by
//!    `ln(2S / B)`) replaces the estimate. Sweeping to half the bound leaves the batches after it room: a
//!    batch whose residuals keep the sum under `B` needs no push at all. The push stops and
//!    hands the rest to those sweeps once its work (entries read, times
//!    [`super::DynamicPageRankOptions::push_edge_cost`]) passes theirs,
//!    and the update says so ([`FallbackReason::PushCostlierThanSweeps`]).
//!    A push is also priced before it starts, from the entries the last
//!    one read per unit of the excess over the bound it cleared (a push
//!    that ran out of its limit prices its excess at twice the limit: the
//!    largest residuals go first, so what is left costs more per unit):
//!    one expected to pass the limit is not started, since it would pay
//!    the limit and then the sweeps. Each update that skips it lowers the price by
//!    [`PUSH_RATE_DECAY`], so a stream whose batches turn local returns to
//!    pushing.

use super::DynamicPageRank;
use crate::ChangeLog;
use crate::maintained::{FallbackReason, IncrementalKernel, Ran, UpdateStats};
use crate::on_pool_if;
use dyngraph_core::{Edge, InNeighbors, OutNeighbors, ReadGraph, Result, VertexId};
use rayon::prelude::*;

/// Buckets of `|r| / (out_degree + 1)` by binary exponent: bucket `k` holds
/// values in `[2^(k - OFFSET), 2^(k + 1 - OFFSET))`; bucket 0 everything
/// below (values under `2^-107`, far below any bound's share), the last
/// everything above.
const LEVELS: usize = 128;
const OFFSET: i64 = 107;
/// How much each update that skips the push lowers its price: after a
/// few such updates (four halve it) the push is tried again, so a stream
/// whose batches turn local returns to pushing.
const PUSH_RATE_DECAY: f64 = 0.85;
/// `bucket_of` for a vertex listed in no bucket.
const UNLISTED: u8 = u8::MAX;

/// The bucket of a value.
#[inline]
fn level(value: f64) -> u8 {
    let exponent = ((value.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    (exponent + OFFSET).clamp(0, LEVELS as i64 - 1) as u8
}

/// The residuals and their buckets.
#[derive(Clone, Debug, Default)]
pub(super) struct Residuals {
    /// `r_v`, per vertex.
    values: Vec<f64>,
    /// `Σ |r_v|`, kept as residuals change (recounted exactly after every
    /// full pass).
    sum: f64,
    /// The bucket each vertex is listed in, or [`UNLISTED`].
    bucket_of: Vec<u8>,
    /// Vertices by bucket; an entry whose vertex has since moved to
    /// another bucket is stale and skipped.
    buckets: Vec<Vec<VertexId>>,
    /// Entries over all buckets, stale ones included.
    entries: usize,
    /// No bucket above this one holds an entry.
    top: usize,
}

impl Residuals {
    /// Heap bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
        self.values.capacity() * 8
            + self.bucket_of.capacity()
            + self.buckets.iter().map(|b| b.capacity() * 4).sum::<usize>()
    }

    /// The sum of the residuals' magnitudes, unnormalised.
    pub(super) fn sum(&self) -> f64 {
        self.sum
    }

    /// Room for `n` vertices, with residual 0.
    fn grow(&mut self, n: usize) {
        if self.buckets.is_empty() {
            self.buckets = vec![Vec::new(); LEVELS];
        }
        if n > self.values.len() {
            self.values.resize(n, 0.0);
            self.bucket_of.resize(n, UNLISTED);
        }
    }

    /// Lists `v` in the bucket of its residual, unless it is there.
    #[inline]
    fn list(&mut self, v: VertexId, degree: u64) {
        let value = self.values[v as usize];
        if value == 0.0 {
            return;
        }
        let k = level(value.abs() / (degree + 1) as f64);
        if self.bucket_of[v as usize] != k {
            self.bucket_of[v as usize] = k;
            self.buckets[k as usize].push(v);
            self.entries += 1;
            self.top = self.top.max(k as usize);
        }
    }

    /// Adds `delta` to `r_v`, keeping the sum and the buckets.
    #[inline]
    fn add(&mut self, v: VertexId, delta: f64, degree: u64) {
        let old = self.values[v as usize];
        let new = old + delta;
        self.values[v as usize] = new;
        self.sum += new.abs() - old.abs();
        self.list(v, degree);
    }

    /// Sets `r_v`, keeping the sum and the buckets.
    #[inline]
    fn set(&mut self, v: VertexId, value: f64, degree: u64) {
        let old = self.values[v as usize];
        self.values[v as usize] = value;
        self.sum += value.abs() - old.abs();
        self.list(v, degree);
    }

    /// The listed vertex of the highest bucket, taken out of it, with its
    /// residual (set to 0); `None` when no vertex is listed.
    #[inline]
    fn pop(&mut self) -> Option<(VertexId, f64)> {
        loop {
            let bucket = &mut self.buckets[self.top];
            match bucket.pop() {
                Some(v) => {
                    self.entries -= 1;
                    if self.bucket_of[v as usize] as usize != self.top {
                        continue;
                    }
                    self.bucket_of[v as usize] = UNLISTED;
                    let value = std::mem::take(&mut self.values[v as usize]);
                    self.sum -= value.abs();
                    if value == 0.0 {
                        continue;
                    }
                    return Some((v, value));
                }
                None if self.top == 0 => return None,
                None => self.top -= 1,
            }
        }
    }

    /// Drops stale entries once they outnumber the vertices (each vertex
    /// is listed in at most one bucket, so this is amortised `O(1)` per
    /// entry).
    fn compact(&mut self) {
        if self.entries <= 2 * self.values.len() + 1024 {
            return;
        }
        let mut entries = 0;
        for (k, bucket) in self.buckets.iter_mut().enumerate() {
            let bucket_of = &mut self.bucket_of;
            // A vertex may have left a bucket and come back: keep one entry.
            bucket.retain(|&v| {
                if bucket_of[v as usize] as usize == k {
                    bucket_of[v as usize] = UNLISTED;
                    true
                } else {
                    false
                }
            });
            for &v in bucket.iter() {
                bucket_of[v as usize] = k as u8;
            }
            entries += bucket.len();
        }
        self.entries = entries;
    }

    /// Replaces every residual (after a full pass): the exact sum, every
    /// nonzero residual listed.
    fn reset(&mut self, values: Vec<f64>, degrees: &[u64]) {
        let n = values.len();
        self.values = values;
        self.bucket_of.clear();
        self.bucket_of.resize(n, UNLISTED);
        self.buckets = vec![Vec::new(); LEVELS];
        self.entries = 0;
        self.top = 0;
        self.sum = self
            .values
            .par_iter()
            .with_min_len(4096)
            .map(|r| r.abs())
            .sum();
        for v in 0..n as VertexId {
            self.list(v, degrees[v as usize]);
        }
    }
}

/// One source's told changes to one target.
#[derive(Clone, Copy, Debug, Default)]
struct Pair {
    target: VertexId,
    inserts: u64,
    deletes: u64,
    /// Copies of `source -> target` now.
    now: u64,
    /// Copies before the log, once derived.
    before: u64,
}

/// `1 / degree`, 0 for a dangling vertex.
#[inline]
fn inverse(degree: u64) -> f64 {
    if degree == 0 {
        0.0
    } else {
        1.0 / degree as f64
    }
}

impl DynamicPageRank {
    /// `Σ |r| ≤ B`: the bound on the unnormalised residual sum.
    pub(super) fn residual_budget(&self) -> f64 {
        self.bound() * (1.0 - self.options.damping) * self.vertex_count() as f64
    }

    /// The L1 bound an update of this state meets.
    pub(super) fn bound(&self) -> f64 {
        self.options.l1_bound.unwrap_or(super::DEFAULT_L1_BOUND)
    }

    /// Every residual from the ranks, in one pass (over the in-edges if the
    /// store keeps them, the out-edges otherwise). The degrees must be the
    /// graph's.
    pub(super) fn recount_residuals<G: ReadGraph>(&mut self, graph: &G, stats: &mut UpdateStats) {
        let n = self.vertex_count();
        self.refresh_all_contributions();
        let damping = self.options.damping;
        let base = 1.0 - damping;
        let this = &*self;
        let values: Vec<f64> = match graph.in_edges() {
            Ok(incoming) => (0..n as VertexId)
                .into_par_iter()
                .with_min_len(4096)
                .map(|v| {
                    let sum: f64 = incoming
                        .in_neighbors(v)
                        .map(|u| this.contributions.get(u))
                        .sum();
                    base + damping * sum - this.ranks.get(v)
                })
                .collect(),
            Err(_) => {
                self.incoming_sums.grow(n, 0.0);
                let this = &*self;
                this.incoming_sums.fill(0.0);
                (0..n as VertexId)
                    .into_par_iter()
                    .with_min_len(4096)
                    .for_each(|u| {
                        let share = this.contributions.get(u);
                        if share != 0.0 {
                            for w in graph.out_neighbors(u) {
                                this.incoming_sums.add(w, share);
                            }
                        }
                    });
                (0..n as VertexId)
                    .into_par_iter()
                    .with_min_len(4096)
                    .map(|v| base + damping * this.incoming_sums.get(v) - this.ranks.get(v))
                    .collect()
            }
        };
        stats.edges_scanned += graph.edge_count();
        stats.vertices_processed += n as u64;
        stats.vertices_touched = Some(n as u64);
        self.residuals.reset(values, &self.degrees);
    }

    /// Sweeps to the bound, then the exact residuals: the push strategy's
    /// computation from scratch (`warm == false`) and its fallback.
    pub(super) fn push_sweeps_to_bound<G: ReadGraph>(
        &mut self,
        graph: &G,
        warm: bool,
    ) -> Result<UpdateStats> {
        let mut stats = self.run_static(graph, warm)?;
        self.recount_residuals(graph, &mut stats);
        // The sweeps' stopping rule implies the bound; rounding may leave
        // a residual sum a hair over it, which the push removes.
        let budget = self.residual_budget();
        if self.residuals.sum() > budget {
            self.push(graph, budget, u64::MAX, &mut stats);
        }
        Ok(stats)
    }

    /// An update by residual push.
    pub(super) fn run_push<G: ReadGraph>(
        &mut self,
        graph: &G,
        changes: &ChangeLog,
    ) -> Result<UpdateStats> {
        let big = graph.vertex_count() >= super::sweep::GRAIN;
        if changes.overflowed() {
            return on_pool_if(big, || {
                let mut stats = self.push_sweeps_to_bound(graph, true)?;
                stats.fallback = Some(FallbackReason::LogOverflow);
                Ok(stats)
            });
        }
        let old_n = self.vertex_count();
        self.grow(graph);
        let n = self.vertex_count();
        self.residuals.grow(n);
        // A new vertex was isolated (rank 1 - d, residual 0) and dangling
        // in the graph before the log; its edges are all in the log.
        for v in old_n..n {
            self.degrees[v] = 0;
        }
        let mut stats = UpdateStats::new(DynamicPageRank::NAME, Ran::Incremental, n);
        let exact = self.restore_invariant(graph, changes, &mut stats);
        if !exact {
            // Ambiguous multiplicities and no in-edges to settle them.
            stats.ran = Ran::WarmSweeps;
            stats.fallback = Some(FallbackReason::NoInEdges);
            on_pool_if(big, || self.recount_residuals(graph, &mut stats));
        }
        let budget = self.residual_budget();
        let sum = self.residuals.sum();
        if sum <= budget {
            return Ok(stats);
        }
        // What warm sweeps would cost from here, in entries read.
        // Sweeps stop on their L1 change, which runs ahead of the residual
        // (an in-place sweep carries part of a change on within the
        // sweep), at half the bound; and one pass recounts the residuals.
        // Once a fallback has measured them, scaled from its count.
        let distance = (2.0 * sum / budget).ln().max(1.0);
        let sweeps = match self.warm_sweeps {
            Some((iterations, from)) => f64::from(iterations) * distance / from + 1.0,
            None => (distance / (1.0 / self.sweep_rate).ln()).ceil() + 2.0,
        };
        let sweep_work = (graph.edge_count() + n as u64) as f64;
        let limit = sweeps * sweep_work / self.options.push_edge_cost;
        // Priced before it starts: what the last push read per unit of
        // excess it cleared, times this excess. A push expected to cost more
        // than the sweeps is not started (it would pay its limit, then the
        // sweeps); each skip lowers the price, so pushing is tried again.
        let excess = sum - budget;
        let skip = self.push_rate.is_some_and(|rate| rate * excess > limit);
        if skip {
            self.push_rate = self.push_rate.map(|rate| rate * PUSH_RATE_DECAY);
        }
        let limit_entries = if limit.is_finite() {
            limit as u64
        } else {
            u64::MAX
        };
        let read_before = stats.edges_scanned + stats.vertices_processed;
        let pushed = !skip && self.push(graph, budget, limit_entries, &mut stats);
        if !skip {
            let read = stats.edges_scanned + stats.vertices_processed - read_before;
            self.push_rate = Some(if pushed {
                // What this excess cost.
                read as f64 / excess
            } else {
                // Past the limit with residual left: the largest residuals
                // went first, so the rest costs more per unit than the
                // average so far; price this excess at twice the limit.
                2.0 * limit / excess
            });
        }
        if !pushed {
            let from = (2.0 * self.residuals.sum() / budget).ln().max(1.0);
            let sweeps = on_pool_if(big, || self.push_sweeps_to_bound(graph, true))?;
            self.warm_sweeps = Some((sweeps.iterations, from));
            stats.ran = Ran::WarmSweeps;
            stats.fallback = Some(FallbackReason::PushCostlierThanSweeps);
            stats.iterations += sweeps.iterations;
            stats.vertices_processed += sweeps.vertices_processed;
            stats.vertices_touched = Some(n as u64);
            stats.edges_scanned += sweeps.edges_scanned;
        }
        Ok(stats)
    }

    /// Restores the invariant for the graph's new edges (step 1 of the
    /// module docs). `false` when some multiplicity could not be derived
    /// and the graph keeps no in-edges: every residual must be recounted.
    fn restore_invariant<G: ReadGraph>(
        &mut self,
        graph: &G,
        changes: &ChangeLog,
        stats: &mut UpdateStats,
    ) -> bool {
        // (source, target, is_insert), grouped by source then target.
        let mut told: Vec<(VertexId, VertexId, bool)> =
            Vec::with_capacity(changes.inserted().len() + changes.deleted().len());
        let n = self.vertex_count() as VertexId;
        let keep = |e: &&Edge| e.src < n && e.dst < n;
        told.extend(
            changes
                .inserted()
                .iter()
                .filter(keep)
                .map(|e| (e.src, e.dst, true)),
        );
        told.extend(
            changes
                .deleted()
                .iter()
                .filter(keep)
                .map(|e| (e.src, e.dst, false)),
        );
        told.sort_unstable();
        let damping = self.options.damping;
        // Targets whose residual is recomputed from its in-edges.
        let exact_epoch = self.queued.next_epoch();
        let mut recompute: Vec<VertexId> = Vec::new();
        // Per source: its pairs, the old multiplicities, then the deltas.
        let mut pairs: Vec<Pair> = Vec::new();
        let mut sources: Vec<(VertexId, std::ops::Range<usize>, bool)> = Vec::new();
        let mut i = 0;
        while i < told.len() {
            let source = told[i].0;
            let start = pairs.len();
            while i < told.len() && told[i].0 == source {
                let target = told[i].1;
                let mut pair = Pair {
                    target,
                    ..Pair::default()
                };
                while i < told.len() && told[i].0 == source && told[i].1 == target {
                    if told[i].2 {
                        pair.inserts += 1;
                    } else {
                        pair.deletes += 1;
                    }
                    i += 1;
                }
                pairs.push(pair);
            }
            let range = start..pairs.len();
            let group = &mut pairs[range.clone()];
            // Copies now, and the untouched out-neighbours' count.
            let mut untouched = 0u64;
            for w in graph.out_neighbors(source) {
                stats.edges_scanned += 1;
                match group.binary_search_by_key(&w, |p| p.target) {
                    Ok(k) => group[k].now += 1,
                    Err(_) => untouched += 1,
                }
            }
            let old_degree = self.degrees[source as usize];
            let known = old_degree.saturating_sub(untouched);
            let low: u64 = group.iter().map(|p| p.now.saturating_sub(p.inserts)).sum();
            let high: u64 = group.iter().map(|p| p.now + p.deletes).sum();
            let derived = if known == low {
                group
                    .iter_mut()
                    .for_each(|p| p.before = p.now.saturating_sub(p.inserts));
                true
            } else if known == high {
                group.iter_mut().for_each(|p| p.before = p.now + p.deletes);
                true
            } else {
                for p in group.iter() {
                    if self.queued.mark(p.target, exact_epoch) {
                        recompute.push(p.target);
                    }
                }
                false
            };
            sources.push((source, range, derived));
        }
        let in_edges = graph.in_edges().ok();
        if !recompute.is_empty() && in_edges.is_none() {
            for &(source, _, _) in &sources {
                self.degrees[source as usize] = graph.out_degree(source);
            }
            return false;
        }
        // The deltas, skipping the targets recomputed below.
        for (source, range, derived) in sources {
            let old_degree = self.degrees[source as usize];
            let new_degree = graph.out_degree(source);
            self.degrees[source as usize] = new_degree;
            let rank = self.ranks.get(source);
            let (old_share, new_share) = (
                damping * rank * inverse(old_degree),
                damping * rank * inverse(new_degree),
            );
            let group = &pairs[range];
            let untouched_delta = new_share - old_share;
            if untouched_delta != 0.0 {
                for w in graph.out_neighbors(source) {
                    stats.edges_scanned += 1;
                    if group.binary_search_by_key(&w, |p| p.target).is_err()
                        && !self.queued.is_marked(w, exact_epoch)
                    {
                        let degree = self.degrees[w as usize];
                        self.residuals.add(w, untouched_delta, degree);
                    }
                }
            }
            if derived {
                for p in group {
                    if self.queued.is_marked(p.target, exact_epoch) {
                        continue;
                    }
                    let delta = p.now as f64 * new_share - p.before as f64 * old_share;
                    if delta != 0.0 {
                        let degree = self.degrees[p.target as usize];
                        self.residuals.add(p.target, delta, degree);
                    }
                }
            }
        }
        // Exact residuals of the ambiguous targets (every degree is the
        // graph's now).
        if let Some(incoming) = in_edges {
            let base = 1.0 - damping;
            for w in recompute {
                let mut sum = 0.0;
                for u in incoming.in_neighbors(w) {
                    stats.edges_scanned += 1;
                    sum += self.ranks.get(u) * inverse(self.degrees[u as usize]);
                }
                let residual = base + damping * sum - self.ranks.get(w);
                let degree = self.degrees[w as usize];
                self.residuals.set(w, residual, degree);
            }
        }
        true
    }

    /// Pushes the largest residuals until their sum is at most `budget`
    /// (`true`) or the work passes `limit` entries (`false`).
    pub(super) fn push<G: OutNeighbors>(
        &mut self,
        graph: &G,
        budget: f64,
        limit: u64,
        stats: &mut UpdateStats,
    ) -> bool {
        let damping = self.options.damping;
        let mut work = 0u64;
        let mut done = true;
        let epoch = self.queued.next_epoch();
        let mut touched = 0u64;
        while self.residuals.sum > budget {
            let Some((v, residual)) = self.residuals.pop() else {
                // Every residual is 0: the kept sum is rounding.
                self.residuals.sum = 0.0;
                break;
            };
            self.ranks.set(v, self.ranks.get(v) + residual);
            let degree = self.degrees[v as usize];
            stats.vertices_processed += 1;
            touched += u64::from(self.queued.mark(v, epoch));
            work += degree + 1;
            if degree > 0 {
                let share = damping * residual / degree as f64;
                for w in graph.out_neighbors(v) {
                    let degree = self.degrees[w as usize];
                    self.residuals.add(w, share, degree);
                }
                stats.edges_scanned += degree;
            }
            if work > limit {
                done = false;
                break;
            }
        }
        self.residuals.compact();
        stats.iterations = stats.iterations.max(1);
        stats.vertices_touched = Some(stats.vertices_touched.unwrap_or(0).max(touched));
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pagerank::DynamicPageRankOptions;
    use dyngraph_core::{FromEdges, GraphUpdate, Semantics, StoreOptions};
    use dyngraph_vcsr::Vcsr;

    #[test]
    fn a_push_priced_above_the_sweeps_is_not_started_and_is_tried_again() {
        let n = 300;
        let edges: Vec<Edge> = (0..n)
            .flat_map(|v| [Edge::new(v, (v + 1) % n), Edge::new(v, (v * 7 + 3) % n)])
            .collect();
        let options = StoreOptions::new(Semantics::Multigraph).in_edges(true);
        let mut graph = Vcsr::from_edges(&edges, options.into()).unwrap();
        // Entries read priced so low that a started push always finishes.
        let options = DynamicPageRankOptions {
            push_edge_cost: 1e-6,
            ..DynamicPageRankOptions::to_l1_bound(1e-9)
        };
        let (mut ranks, _) = DynamicPageRank::compute(&graph, &options).unwrap();
        let mut step = |ranks: &mut DynamicPageRank, edge: Edge| {
            graph.insert_edges(&[edge]).unwrap();
            let mut log = ChangeLog::new();
            log.record_insert(edge.src, edge.dst);
            ranks.apply(&graph, &log).unwrap()
        };
        // A price no push can meet: the update sweeps without pushing, and
        // the price comes down.
        ranks.push_rate = Some(1e300);
        let stats = step(&mut ranks, Edge::new(5, 250));
        assert_eq!(
            stats.fallback,
            Some(FallbackReason::PushCostlierThanSweeps),
            "{stats}"
        );
        assert_eq!(ranks.push_rate, Some(1e300 * PUSH_RATE_DECAY));
        assert!(ranks.proven_l1().unwrap() <= 1e-9);
        // A price any push meets: it pushes, and measures its own.
        ranks.push_rate = Some(0.0);
        let stats = step(&mut ranks, Edge::new(9, 120));
        assert_eq!(stats.ran, Ran::Incremental, "{stats}");
        assert!(ranks.push_rate.is_some_and(|rate| rate > 0.0));
        assert!(ranks.proven_l1().unwrap() <= 1e-9);
    }
}
