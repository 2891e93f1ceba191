//! Full sweeps: every vertex recomputed each iteration, in place, until no
//! rank moves by more than the tolerance (static and naive-dynamic
//! PageRank, and the fallback of the frontier strategies).

use super::DynamicPageRank;
use crate::maintained::UpdateStats;
use dyngraph_core::{InNeighbors, OutNeighbors, VertexId};
use rayon::prelude::*;
use std::sync::atomic::Ordering::Relaxed;

/// Fewest vertices a parallel task takes, and the vertex count from which
/// a whole update moves onto the pool.
pub(crate) const GRAIN: usize = 2048;

impl DynamicPageRank {
    /// The new unnormalised rank of `v` from its in-neighbours'
    /// contributions, and the in-edges read. Self-loops are solved for in
    /// closed form (Sahu's DF-P): `y = (base + d Σ_{u≠v} c_u) / (1 - d k / deg)`.
    #[inline]
    pub(super) fn pull<I: InNeighbors>(&self, incoming: I, v: VertexId) -> (f64, u64) {
        let damping = self.options.damping;
        let (mut sum, mut loops, mut read) = (0.0f64, 0u64, 0u64);
        for u in incoming.in_neighbors(v) {
            read += 1;
            if u == v {
                loops += 1;
            } else {
                sum += self.contributions.get(u);
            }
        }
        let flow = (1.0 - damping) + damping * sum;
        if loops == 0 {
            return (flow, read);
        }
        let degree = self.degrees[v as usize].max(loops) as f64;
        let keep = 1.0 - damping * loops as f64 / degree;
        let rank = if keep > 1e-12 {
            flow / keep
        } else {
            // d = 1 and only self-loops out of v: no closed form; iterate.
            flow + damping * loops as f64 * self.contributions.get(v)
        };
        (rank, read)
    }

    /// Stores `v`'s new rank and contribution; returns the change.
    #[inline]
    pub(super) fn store_rank(&self, v: VertexId, rank: f64) -> f64 {
        let old = self.ranks.get(v);
        self.ranks.set(v, rank);
        self.refresh_contribution(v);
        (rank - old).abs()
    }

    /// Pull sweeps over every vertex until converged. Leaves nothing
    /// pending or dirty: every vertex was just recomputed.
    pub(super) fn pull_sweeps<I: InNeighbors + Sync>(
        &mut self,
        incoming: I,
        stats: &mut UpdateStats,
    ) {
        let n = self.vertex_count();
        let limit = self.change_limit();
        self.converged = false;
        let this = &*self;
        let mut totals = (0.0, 0.0, 0u32);
        for _ in 0..this.options.max_iterations {
            let (change, total, read) = (0..n as VertexId)
                .into_par_iter()
                .with_min_len(GRAIN)
                .map(|v| {
                    let (rank, read) = this.pull(incoming, v);
                    let change = this.store_rank(v, rank);
                    (change, change, read)
                })
                .reduce(
                    || (0.0, 0.0, 0),
                    |a, b| (a.0.max(b.0), a.1 + b.1, a.2 + b.2),
                );
            totals = Self::count_total(totals, total);
            if Self::sweep_done(stats, n, read, this.sweeps_converged(change, total, limit)) {
                self.converged = true;
                break;
            }
        }
        self.measure_rate(totals);
        self.forget_pending();
    }

    /// Whether a full sweep whose largest rank change was `linf` and whose
    /// changes summed to `l1` (both unnormalised) ends the sweeps.
    ///
    /// With an L1 bound `ε`: the residual after a sweep (Jacobi, or in
    /// place in any order) is at most `d · l1` in L1, as every vertex's
    /// change reaches each out-neighbour's equation at most once, scaled
    /// by `d / out_degree`; the distance to the fixed point is at most the
    /// residual over `1 - d`. So `d · l1 ≤ ε (1 - d) n` puts the normalised
    /// ranks within `ε` of it. Without one, the iteration tolerance on the
    /// largest change (L∞).
    fn sweeps_converged(&self, linf: f64, l1: f64, limit: f64) -> bool {
        match self.sweep_target() {
            Some(bound) => {
                let damping = self.options.damping;
                damping * l1 <= bound * (1.0 - damping) * self.vertex_count() as f64
            }
            None => linf <= limit,
        }
    }

    /// `(first, last, sweeps)` of the sweeps' L1 changes, with `total`.
    fn count_total(totals: (f64, f64, u32), total: f64) -> (f64, f64, u32) {
        let first = if totals.2 == 0 { total } else { totals.0 };
        (first, total, totals.2 + 1)
    }

    /// The measured contraction of one sweep: the geometric mean ratio of
    /// consecutive L1 changes, which residual push uses to price warm
    /// sweeps (clamped to `[0.01, d]`: a sweep contracts by `d` at worst).
    fn measure_rate(&mut self, (first, last, sweeps): (f64, f64, u32)) {
        let damping = self.options.damping;
        if sweeps >= 3 && first > 0.0 && last > 0.0 {
            let rate = (last / first).powf(1.0 / f64::from(sweeps - 1));
            if rate.is_finite() {
                self.sweep_rate = rate.clamp(0.01, damping.max(0.01));
            }
        }
    }

    /// Counts one full sweep in `stats`; `converged` passed through.
    fn sweep_done(stats: &mut UpdateStats, n: usize, read: u64, converged: bool) -> bool {
        stats.iterations += 1;
        stats.vertices_processed += n as u64;
        stats.edges_scanned += read;
        converged
    }

    /// Push sweeps (Jacobi) over out-edges, for a store without in-edges.
    pub(super) fn push_sweeps<G: OutNeighbors + Sync>(
        &mut self,
        graph: &G,
        stats: &mut UpdateStats,
    ) {
        let n = self.vertex_count();
        self.incoming_sums.grow(n, 0.0);
        let limit = self.change_limit();
        let damping = self.options.damping;
        self.converged = false;
        let this = &*self;
        let mut totals = (0.0, 0.0, 0u32);
        for _ in 0..this.options.max_iterations {
            this.incoming_sums.fill(0.0);
            let read: u64 = (0..n as VertexId)
                .into_par_iter()
                .with_min_len(GRAIN)
                .map(|u| {
                    let share = this.contributions.get(u);
                    if share == 0.0 {
                        return 0;
                    }
                    let mut read = 0;
                    for w in graph.out_neighbors(u) {
                        this.incoming_sums.add(w, share);
                        read += 1;
                    }
                    read
                })
                .sum();
            let (change, total) = (0..n as VertexId)
                .into_par_iter()
                .with_min_len(GRAIN)
                .map(|v| {
                    let rank = (1.0 - damping) + damping * this.incoming_sums.get(v);
                    let change = this.store_rank(v, rank);
                    (change, change)
                })
                .reduce(|| (0.0, 0.0), |a, b| (a.0.max(b.0), a.1 + b.1));
            totals = Self::count_total(totals, total);
            if Self::sweep_done(stats, n, read, this.sweeps_converged(change, total, limit)) {
                self.converged = true;
                break;
            }
        }
        self.measure_rate(totals);
        self.forget_pending();
    }

    /// After a full sweep: nothing is pending, dirty or carried.
    fn forget_pending(&mut self) {
        self.pending.fill(0.0);
        self.dirty
            .par_iter()
            .with_min_len(4096)
            .for_each(|d| d.store(false, Relaxed));
        self.carried.clear();
    }
}
