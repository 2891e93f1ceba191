//! Direction-optimizing BFS over the partitions (Beamer, Asanović,
//! Patterson, SC 2012, as GAPBS `bfs.cc` and `dyngraph_kernels::bfs`).
//!
//! - **Top-down step**: every frontier vertex claims its unvisited owned
//!   out-neighbours directly and sends `(ghost position, parent)` to the
//!   owner of each ghost neighbour, once per ghost per search.
//! - **Bottom-up step** (when the run keeps in-edges): every owner first
//!   tells each worker that holds some of its vertices as ghosts which of
//!   them are in the frontier, as a bitmap over that worker's ghost list
//!   (one bit per ghost per step); then every unvisited owned vertex scans
//!   its in-neighbours (in its worker's in store, owned or ghost, all local)
//!   and stops at the first in the frontier. No claims travel.
//! - **Switching**, with the global sums of one all-reduce per step: to
//!   bottom-up when the edges leaving the frontier exceed the unexplored
//!   edges divided by `alpha`; back to top-down when the frontier holds
//!   fewer than `vertex_count / beta` vertices and is no longer growing.
//!
//! Depths are exact: every step is one level on every worker.

use super::{KernelContext, LocalOutput, Packet, Payload, Routes};
use crate::part::out_degree;
use dyngraph_core::{DynamicStore, Graph, OutNeighbors, Result, VertexId};
use dyngraph_kernels::{BfsDirection, BfsOptions, NO_PARENT, UNREACHED};

/// A set of local ids.
struct Bitmap(Vec<u64>);

impl Bitmap {
    fn new(len: usize) -> Self {
        Self(vec![0; len.div_ceil(64)])
    }

    #[inline]
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    fn get(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    fn clear(&mut self) {
        self.0.iter_mut().for_each(|w| *w = 0);
    }
}

/// One worker's search.
struct Search {
    parents: Vec<VertexId>,
    depths: Vec<u32>,
    /// Ghosts already claimed from their owner in a top-down step.
    claimed: Vec<bool>,
    level: u32,
    top_down_steps: usize,
    bottom_up_steps: usize,
}

impl<S: DynamicStore> KernelContext<'_, S> {
    /// BFS from `options.source`, direction-optimizing when the run keeps
    /// in-edges and `options.direction` allows it. Values: parent (high 32
    /// bits) and depth (low 32 bits).
    pub(crate) fn bfs(&mut self, routes: &Routes, options: &BfsOptions) -> Result<LocalOutput> {
        let local_count = self.partition.ids.len();
        let mut search = Search {
            parents: vec![NO_PARENT; local_count],
            depths: vec![UNREACHED; local_count],
            claimed: vec![false; local_count],
            level: 0,
            top_down_steps: 0,
            bottom_up_steps: 0,
        };
        let source = options.source;
        let mut frontier = Vec::new();
        let mut scout = 0u64;
        if self.partition.partitioner.owner(source, self.workers()) == self.index()
            && let Some(local) = self.partition.ids.local(source)
        {
            search.parents[local as usize] = source;
            search.depths[local as usize] = 0;
            frontier.push(local);
            let snapshot = self.partition.out().snapshot();
            scout = out_degree(&self.partition.out().view(&snapshot)?, local);
        }
        let bottom_up =
            options.direction == BfsDirection::Auto && self.partition.incoming().is_some();
        let totals = self.collective.sum(
            self.worker,
            vec![self.partition.out_edges(), scout, frontier.len() as u64],
        );
        let (mut edges_to_check, mut scout_count, mut awake) = (totals[0], totals[1], totals[2]);
        let mut supersteps = Vec::new();
        let n = self.vertex_count as u64;
        while awake > 0 {
            if bottom_up && scout_count > edges_to_check / options.alpha.max(1) {
                let mut current = Bitmap::new(local_count);
                for &v in &frontier {
                    current.set(v as usize);
                }
                let mut next = Bitmap::new(local_count);
                loop {
                    let old_awake = awake;
                    let found =
                        self.bottom_up_step(routes, &mut search, &mut current, &mut next)?;
                    supersteps.push(found.1);
                    awake = self.collective.sum(self.worker, vec![found.0])[0];
                    std::mem::swap(&mut current, &mut next);
                    let keep_going =
                        awake > 0 && (awake >= old_awake || awake > n / options.beta.max(1));
                    if !keep_going {
                        break;
                    }
                }
                // `current` holds this worker's vertices found last.
                frontier = self
                    .partition
                    .owned
                    .iter()
                    .copied()
                    .filter(|&v| current.get(v as usize))
                    .collect();
                scout_count = 1;
            } else {
                edges_to_check = edges_to_check.saturating_sub(scout_count);
                let (next, scout, traffic) = self.top_down_step(routes, &mut search, &frontier)?;
                supersteps.push(traffic);
                frontier = next;
                let totals = self
                    .collective
                    .sum(self.worker, vec![frontier.len() as u64, scout]);
                awake = totals[0];
                scout_count = totals[1];
            }
        }
        let (parents, depths) = (&search.parents, &search.depths);
        Ok(LocalOutput {
            values: self.owned_values(|v| {
                (u64::from(parents[v as usize]) << 32) | u64::from(depths[v as usize])
            }),
            iterations: supersteps.len(),
            supersteps,
            last_change: 0.0,
            bottom_up_steps: search.bottom_up_steps,
        })
    }

    /// Expands `frontier` along out-edges: owned neighbours directly,
    /// ghosts by a claim to their owner. Returns the next frontier, the
    /// out-degree sum of its vertices, and the step's traffic.
    fn top_down_step(
        &mut self,
        routes: &Routes,
        search: &mut Search,
        frontier: &[VertexId],
    ) -> Result<(Vec<VertexId>, u64, crate::mailbox::Traffic)> {
        search.level += 1;
        search.top_down_steps += 1;
        let level = search.level;
        let mut next = Vec::new();
        let mut claims: Vec<Vec<(u32, u32)>> = vec![Vec::new(); self.workers()];
        {
            let snapshot = self.partition.out().snapshot();
            let view = self.partition.out().view(&snapshot)?;
            let partition = &*self.partition;
            for &u in frontier {
                if u as usize >= view.vertex_count() {
                    continue;
                }
                let parent = partition.ids.global(u);
                for d in view.out_neighbors(u) {
                    let slot = d as usize;
                    if partition.is_owned[slot] {
                        if search.parents[slot] == NO_PARENT {
                            search.parents[slot] = parent;
                            search.depths[slot] = level;
                            next.push(d);
                        }
                    } else if !search.claimed[slot] {
                        search.claimed[slot] = true;
                        let owner = partition
                            .partitioner
                            .owner(partition.ids.global(d), partition.workers);
                        claims[owner].push((routes.ghost_position[slot], parent));
                    }
                }
            }
        }
        let from = self.index() as u32;
        for (owner, pairs) in claims.into_iter().enumerate() {
            if !pairs.is_empty() {
                self.packets.send(
                    owner,
                    Packet {
                        from,
                        payload: Payload::ToOwnerPairs(pairs),
                    },
                );
            }
        }
        let (received, traffic) = self.round();
        for packet in received {
            if let Payload::ToOwnerPairs(pairs) = packet.payload {
                let mirrors = &routes.mirrors[packet.from as usize];
                for (position, parent) in pairs {
                    let Some(&v) = mirrors.get(position as usize) else {
                        continue;
                    };
                    if search.parents[v as usize] == NO_PARENT {
                        search.parents[v as usize] = parent;
                        search.depths[v as usize] = level;
                        next.push(v);
                    }
                }
            }
        }
        let snapshot = self.partition.out().snapshot();
        let view = self.partition.out().view(&snapshot)?;
        let scout = next.iter().map(|&v| out_degree(&view, v)).sum();
        Ok((next, scout, traffic))
    }

    /// Tells the holders of this worker's vertices which are in `current`,
    /// learns the same of its own ghosts, then finds a parent in `current`
    /// for every unvisited owned vertex among its in-neighbours, marking
    /// them in `next` (cleared first). Returns how many it found and the
    /// bitmaps' traffic.
    fn bottom_up_step(
        &mut self,
        routes: &Routes,
        search: &mut Search,
        current: &mut Bitmap,
        next: &mut Bitmap,
    ) -> Result<(u64, crate::mailbox::Traffic)> {
        search.level += 1;
        search.bottom_up_steps += 1;
        let level = search.level;
        let from = self.index() as u32;
        for (holder, list) in routes.mirrors.iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            let mut bits = Bitmap::new(list.len());
            for (position, &v) in list.iter().enumerate() {
                if current.get(v as usize) {
                    bits.set(position);
                }
            }
            self.packets.send(
                holder,
                Packet {
                    from,
                    payload: Payload::Frontier(bits.0),
                },
            );
        }
        let (received, traffic) = self.round();
        for packet in received {
            if let Payload::Frontier(words) = packet.payload {
                let ghosts = &routes.ghosts[packet.from as usize];
                for (w, &word) in words.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        let position = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if let Some(&g) = ghosts.get(position) {
                            current.set(g as usize);
                        }
                    }
                }
            }
        }
        next.clear();
        let incoming = self
            .partition
            .incoming()
            .expect("bottom-up steps run only with in-edges");
        let snapshot = incoming.snapshot();
        let view = incoming.view(&snapshot)?;
        let partition = &*self.partition;
        let mut found = 0u64;
        for &v in &partition.owned {
            let slot = v as usize;
            if search.parents[slot] != NO_PARENT || slot >= view.vertex_count() {
                continue;
            }
            for u in view.out_neighbors(v) {
                if current.get(u as usize) {
                    search.parents[slot] = partition.ids.global(u);
                    search.depths[slot] = level;
                    next.set(slot);
                    found += 1;
                    break;
                }
            }
        }
        Ok((found, traffic))
    }
}
