//! The frontier strategies: dynamic traversal, Dynamic Frontier (DF) and DF
//! with pruning (DF-P).

use super::sweep::GRAIN;
use super::{DynamicPageRank, PageRankStrategy};
use crate::ChangeLog;
use crate::maintained::{FallbackReason, IncrementalKernel, Ran, UpdateStats};
use crate::on_pool_if;
use dyngraph_core::{InNeighbors, OutNeighbors, ReadGraph, Result, VertexId};
use rayon::prelude::*;
use std::sync::atomic::Ordering::Relaxed;

/// Smallest frontier processed by the whole pool; smaller ones run on the
/// calling thread, so a tiny batch never wakes the pool.
const PARALLEL_FRONTIER: usize = 4096;

/// Past these, the frontier is large enough that full sweeps are cheaper.
#[derive(Clone, Copy, Debug)]
struct Limits {
    /// Vertices in the frontier.
    vertices: usize,
    /// Adjacency entries one iteration reads.
    edges: u64,
}

/// What happens to a processed vertex.
#[derive(Clone, Copy, Debug)]
struct Rule {
    /// Keep every processed vertex in the frontier (DF, traversal), or only
    /// those whose rank moved by more than this share of it (DF-P).
    keep_above: Option<f64>,
    /// Announce changes past the frontier tolerance to the out-neighbours
    /// (DF, DF-P); the traversal's region is closed already.
    announce: bool,
}

/// What one iteration over (part of) the frontier found.
#[derive(Default)]
struct Step {
    change: f64,
    read: u64,
    next: Vec<VertexId>,
}

impl Step {
    fn merge(mut self, mut other: Step) -> Step {
        self.change = self.change.max(other.change);
        self.read += other.read;
        if self.next.len() < other.next.len() {
            std::mem::swap(&mut self.next, &mut other.next);
        }
        self.next.extend(other.next);
        self
    }
}

impl DynamicPageRank {
    /// An update by one of the frontier strategies.
    pub(super) fn run_frontier<G: ReadGraph>(
        &mut self,
        graph: &G,
        changes: &ChangeLog,
    ) -> Result<UpdateStats> {
        let incoming = graph.in_edges()?;
        let old_n = self.vertex_count();
        self.grow(graph);
        let n = self.vertex_count();
        let mut stats = UpdateStats::new(DynamicPageRank::NAME, Ran::Incremental, n);
        let region_limit = Limits {
            vertices: (self.options.full_sweep_share * n as f64) as usize,
            edges: (self.options.full_sweep_share * graph.edge_count() as f64) as u64,
        };

        // The first frontier: what the last update left dirty, the
        // out-neighbours of every changed edge's source (its out-degree,
        // so its contribution to each of them, changed), every deleted
        // edge's target, and every new vertex.
        let epoch = self.queued.next_epoch();
        let mut frontier = std::mem::take(&mut self.carried);
        for &v in &frontier {
            self.queued.mark(v, epoch);
        }
        let mut sources: Vec<VertexId> = changes
            .inserted()
            .iter()
            .chain(changes.deleted())
            .map(|e| e.src)
            .filter(|&u| (u as usize) < n)
            .collect();
        sources.sort_unstable();
        sources.dedup();
        let push = |this: &Self, v: VertexId, frontier: &mut Vec<VertexId>| {
            this.dirty[v as usize].store(true, Relaxed);
            if this.queued.mark(v, epoch) {
                frontier.push(v);
            }
        };
        for &u in &sources {
            self.degrees[u as usize] = graph.out_degree(u);
            self.refresh_contribution(u);
            for w in graph.out_neighbors(u) {
                stats.edges_scanned += 1;
                push(self, w, &mut frontier);
            }
        }
        for e in changes.deleted() {
            if (e.dst as usize) < n {
                push(self, e.dst, &mut frontier);
            }
        }
        for v in old_n..n {
            push(self, v as VertexId, &mut frontier);
        }

        let strategy = self.options.strategy;
        if strategy == PageRankStrategy::DynamicTraversal {
            // Everything reachable from the first frontier.
            let mut next = 0;
            while next < frontier.len() && frontier.len() <= region_limit.vertices {
                let u = frontier[next];
                next += 1;
                for w in graph.out_neighbors(u) {
                    stats.edges_scanned += 1;
                    push(self, w, &mut frontier);
                }
            }
        }
        let rule = match strategy {
            PageRankStrategy::DynamicTraversal => Rule {
                keep_above: None,
                announce: false,
            },
            PageRankStrategy::DynamicFrontier => Rule {
                keep_above: None,
                announce: true,
            },
            _ => Rule {
                keep_above: Some(self.options.prune_tolerance),
                announce: true,
            },
        };
        let finished = frontier.len() <= region_limit.vertices
            && self.iterate(graph, incoming, frontier, rule, region_limit, &mut stats);
        if !finished {
            // The affected region is large: sweep everything, warm-started.
            let big = n >= GRAIN;
            on_pool_if(big, || {
                stats.ran = Ran::WarmSweeps;
                stats.fallback = Some(FallbackReason::LargeAffectedRegion);
                self.pull_sweeps(incoming, &mut stats);
            });
        }
        Ok(stats)
    }

    /// Iterates over the frontier until the ranks converge; `false` if the
    /// frontier grew past `region_limit` (the caller then sweeps).
    fn iterate<G, I>(
        &mut self,
        graph: &G,
        incoming: I,
        mut frontier: Vec<VertexId>,
        rule: Rule,
        region_limit: Limits,
        stats: &mut UpdateStats,
    ) -> bool
    where
        G: OutNeighbors + Sync,
        I: InNeighbors + Sync,
    {
        let limit = self.change_limit();
        self.converged = false;
        for _ in 0..self.options.max_iterations {
            if frontier.is_empty() {
                self.converged = true;
                break;
            }
            if frontier.len() > region_limit.vertices {
                return false;
            }
            let epoch = self.queued.next_epoch();
            let this = &*self;
            let step = if frontier.len() >= PARALLEL_FRONTIER {
                frontier
                    .par_iter()
                    .with_min_len(256)
                    .fold(Step::default, |mut step, &v| {
                        this.process(graph, incoming, v, epoch, rule, &mut step);
                        step
                    })
                    .reduce(Step::default, Step::merge)
            } else {
                let mut step = Step {
                    next: Vec::with_capacity(frontier.len()),
                    ..Step::default()
                };
                for &v in &frontier {
                    this.process(graph, incoming, v, epoch, rule, &mut step);
                }
                step
            };
            stats.iterations += 1;
            stats.vertices_processed += frontier.len() as u64;
            stats.edges_scanned += step.read;
            frontier = step.next;
            if step.change <= limit {
                self.converged = true;
                break;
            }
            if step.read > region_limit.edges {
                // An iteration read a sweep's share of the edges: the
                // rest is cheaper as full sweeps.
                return false;
            }
        }
        // What is still dirty (marked in the last iteration, or left when
        // the iterations ran out) starts the next update.
        frontier.retain(|&v| self.dirty[v as usize].load(Relaxed));
        self.carried = frontier;
        true
    }

    /// Recomputes `v`; keeps it in the next frontier and announces its
    /// change by the rule.
    #[inline]
    fn process<G, I>(
        &self,
        graph: &G,
        incoming: I,
        v: VertexId,
        epoch: u32,
        rule: Rule,
        step: &mut Step,
    ) where
        G: OutNeighbors,
        I: InNeighbors,
    {
        // Cleared before reading the in-neighbours: an announcement that
        // lands while `v` is being recomputed marks it again.
        self.dirty[v as usize].store(false, Relaxed);
        let (rank, read) = self.pull(incoming, v);
        let old = self.ranks.get(v);
        let change = self.store_rank(v, rank);
        let scale = rank.max(old);
        step.change = step.change.max(change);
        step.read += read;
        let keep = rule.keep_above.is_none_or(|share| change > share * scale);
        if keep && self.queued.mark(v, epoch) {
            step.next.push(v);
        }
        if rule.announce {
            let unannounced = self.pending.get(v) + change;
            if unannounced > self.options.frontier_tolerance * scale {
                self.pending.set(v, 0.0);
                for w in graph.out_neighbors(v) {
                    step.read += 1;
                    if w != v {
                        self.dirty[w as usize].store(true, Relaxed);
                        if self.queued.mark(w, epoch) {
                            step.next.push(w);
                        }
                    }
                }
            } else {
                self.pending.set(v, unannounced);
            }
        }
    }
}
