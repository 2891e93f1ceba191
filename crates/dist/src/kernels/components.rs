//! Weakly connected components over the partitions, in O(log n) rounds.
//!
//! 1. **Local forest**: each worker joins the ends of its own edges (its
//!    owned vertices' out-edges, ghosts included) by union-find, once over
//!    its edges. A local component's members are connected, so the rest
//!    only has to join components that share a vertex (a ghost here, its
//!    owner's copy there).
//! 2. **Shiloach-Vishkin over vertex ids**: every vertex `v` has a label
//!    `p(v)`, a vertex id kept by `v`'s owner, starting at the smallest id
//!    of `v`'s local component; labels form a forest whose roots label
//!    themselves, and a label only ever points to a smaller id. Each
//!    round:
//!    - *push*: owners send the labels of their vertices that other
//!      workers hold as ghosts, when changed (`(position, label)` along the
//!      routes);
//!    - *hook*: in each local component, every member whose label (a root)
//!      is above the component's smallest label asks that root's owner to
//!      hang it under the smaller one; an owner applies the smallest
//!      request to each of its roots (one message per distinct root per
//!      worker);
//!    - *jump*: pointer jumping (`p(v) = p(p(v))`, asking the owner of a
//!      remote label) until every tree is a star.
//!
//!    It stops at the first round without a request: then every local
//!    component and every ghost agree with their owners, so each weakly
//!    connected component has one label, the root its smallest id (a root
//!    is only hung under a smaller id, and the smallest never is).
//!
//! A star whose neighbouring stars all have larger labels is hooked onto
//! by them in the same round or hooks itself in the next one, so the
//! number of trees at least halves every two rounds: O(log n) rounds (each
//! with a few jumping supersteps), where min-label propagation takes as
//! many rounds as the partitions' diameter.

use super::{KernelContext, LocalOutput, Packet, Payload, Routes};
use crate::mailbox::Traffic;
use crate::partition::IdMap;
use dyngraph_core::{DynamicStore, Graph, OutNeighbors, Result, VertexId};
use dyngraph_kernels::ComponentsOptions;
use std::collections::HashMap;

/// The root of `v`'s tree, halving the path on the way.
#[inline]
fn find(parent: &mut [VertexId], mut v: VertexId) -> VertexId {
    while parent[v as usize] != v {
        let grand = parent[parent[v as usize] as usize];
        parent[v as usize] = grand;
        v = grand;
    }
    v
}

/// Joins the trees of `u` and `v` under the smaller root.
#[inline]
fn union(parent: &mut [VertexId], u: VertexId, v: VertexId) {
    if parent[u as usize] == parent[v as usize] {
        return;
    }
    let (a, b) = (find(parent, u), find(parent, v));
    if a != b {
        parent[a.max(b) as usize] = a.min(b);
    }
}

impl<S: DynamicStore> KernelContext<'_, S> {
    /// Component labels (the smallest vertex id of each weakly connected
    /// component). Values: the label. `iterations`: hooking rounds.
    ///
    /// With in-edges, Afforest's shortcut (GAPBS `cc.cc`), made sound
    /// across workers: the local forest first joins each vertex to its
    /// first `neighbor_rounds` out-neighbours only, the cluster merges
    /// that, and a sample of `samples` owned vertices per worker names the
    /// largest component so far. A vertex in it then skips its remaining
    /// edges: an edge between two of its vertices adds nothing, and an
    /// edge from it to a vertex outside is joined by that vertex's owner,
    /// which links the remaining out-edges *and the in-edges* of every
    /// vertex outside it. The largest component must be the cluster's
    /// (merged) one: a worker's local guess could be split across workers,
    /// and the edges joining its parts skipped on both sides.
    pub(crate) fn components(
        &mut self,
        routes: &Routes,
        options: &ComponentsOptions,
    ) -> Result<LocalOutput> {
        let local_count = self.partition.ids.len();
        let skip = self.partition.incoming().is_some() && options.samples > 0;
        let first = skip.then_some(options.neighbor_rounds);
        let root = self.local_forest(first, None)?;
        // Each local component's smallest id; an owned vertex starts at it.
        let mut smallest = vec![VertexId::MAX; local_count];
        for (x, &r) in root.iter().enumerate().take(local_count) {
            let r = r as usize;
            smallest[r] = smallest[r].min(self.partition.ids.global(x as VertexId));
        }
        // Labels of owned vertices (p), and of ghosts as their owners
        // last told.
        let mut label: Vec<VertexId> = (0..local_count)
            .map(|x| {
                if self.partition.is_owned[x] {
                    smallest[root[x] as usize]
                } else {
                    VertexId::MAX
                }
            })
            .collect();
        drop(smallest);
        let mut told = vec![VertexId::MAX; local_count];
        let mut supersteps = Vec::new();
        let mut rounds = self.merge(routes, &root, &mut label, &mut told, &mut supersteps);
        if skip {
            let largest = self.most_frequent_label(&label, options.samples);
            let remaining = (label.as_slice(), largest, options.neighbor_rounds);
            let root = self.local_forest(None, Some(remaining))?;
            rounds += self.merge(routes, &root, &mut label, &mut told, &mut supersteps);
        }
        Ok(LocalOutput {
            values: self.owned_values(|v| u64::from(label[v as usize])),
            supersteps,
            iterations: rounds,
            last_change: 0.0,
            bottom_up_steps: 0,
        })
    }

    /// Shiloach-Vishkin rounds over `label` (a forest of vertex ids whose
    /// owned entries are kept here) joined by the local components of
    /// `root`, until no round hooks anything. Returns the rounds.
    fn merge(
        &mut self,
        routes: &Routes,
        root: &[VertexId],
        label: &mut [VertexId],
        told: &mut [VertexId],
        supersteps: &mut Vec<Traffic>,
    ) -> usize {
        let local_count = label.len();
        self.jump(label, supersteps);
        let mut rounds = 0;
        loop {
            rounds += 1;
            supersteps.push(self.push_labels(routes, label, told));
            // The smallest label of each local component.
            let mut low = vec![VertexId::MAX; local_count];
            for x in 0..local_count {
                let r = root[x] as usize;
                low[r] = low[r].min(label[x]);
            }
            let mut requests: IdMap<VertexId> = IdMap::default();
            for x in 0..local_count {
                let (mine, target) = (label[x], low[root[x] as usize]);
                if mine > target {
                    let slot = requests.entry(mine).or_insert(target);
                    *slot = (*slot).min(target);
                }
            }
            let sent = requests.len() as u64;
            let (received, traffic) = self.exchange_by_owner(requests.into_iter().collect());
            supersteps.push(traffic);
            let total = self.collective.sum(self.worker, vec![sent])[0];
            if total == 0 {
                return rounds;
            }
            // Each root takes the smallest request made to it.
            let mut smallest_request: IdMap<VertexId> = IdMap::default();
            for (_, target, value) in received {
                let slot = smallest_request.entry(target).or_insert(value);
                *slot = (*slot).min(value);
            }
            for (target, value) in smallest_request {
                if let Some(t) = self.partition.ids.local(target)
                    && label[t as usize] == target
                    && value < target
                {
                    label[t as usize] = value;
                }
            }
            self.jump(label, supersteps);
        }
    }

    /// The most frequent label among up to `samples` owned vertices of
    /// every worker (evenly spaced in local order), the smallest among
    /// equals: the same answer on every worker.
    fn most_frequent_label(&mut self, label: &[VertexId], samples: usize) -> VertexId {
        let owned = &self.partition.owned;
        let stride = owned.len().div_ceil(samples.max(1)).max(1);
        let picked: Vec<u64> = owned
            .iter()
            .step_by(stride)
            .map(|&v| u64::from(label[v as usize]))
            .collect();
        let all = self
            .collective
            .all_gather(self.worker, picked, None)
            .unwrap_or_default();
        let mut counts: HashMap<u64, usize> = HashMap::new();
        for value in all.into_iter().flatten() {
            *counts.entry(value).or_default() += 1;
        }
        counts
            .into_iter()
            .max_by_key(|&(label, count)| (count, std::cmp::Reverse(label)))
            .map_or(VertexId::MAX, |(label, _)| label as VertexId)
    }

    /// Every local id's root in the union-find of this worker's edges.
    ///
    /// - `first: Some(k)`: each owned vertex's first `k` out-neighbours
    ///   only (Afforest's sampling phase);
    /// - `remaining: Some((label, largest, k))`: the out-neighbours after
    ///   the first `k` and the in-neighbours of each owned vertex whose
    ///   label is not `largest`;
    /// - neither: every out-edge, the first two of each vertex first (with
    ///   most vertices then one step from their root, the rest mostly find
    ///   their ends already together: two loads, no walk).
    fn local_forest(
        &self,
        first: Option<usize>,
        remaining: Option<(&[VertexId], VertexId, usize)>,
    ) -> Result<Vec<VertexId>> {
        let local_count = self.partition.ids.len();
        let mut parent: Vec<VertexId> = (0..local_count as VertexId).collect();
        let snapshot = self.partition.out().snapshot();
        let view = self.partition.out().view(&snapshot)?;
        let stored = view.vertex_count();
        let owned = &self.partition.owned;
        let flatten = |parent: &mut Vec<VertexId>| {
            for v in 0..local_count as VertexId {
                let r = find(parent, v);
                parent[v as usize] = r;
            }
        };
        if let Some((label, largest, k)) = remaining {
            let incoming = self.partition.incoming();
            let in_snapshot = incoming.map(|s| s.snapshot());
            let in_view = match (incoming, &in_snapshot) {
                (Some(store), Some(snapshot)) => Some(store.view(snapshot)?),
                _ => None,
            };
            for &u in owned {
                if label[u as usize] == largest {
                    continue;
                }
                if (u as usize) < stored {
                    for v in view.out_neighbors(u).skip(k) {
                        union(&mut parent, u, v);
                    }
                }
                if let Some(in_view) = &in_view
                    && (u as usize) < in_view.vertex_count()
                {
                    for v in in_view.out_neighbors(u) {
                        union(&mut parent, u, v);
                    }
                }
            }
            flatten(&mut parent);
            return Ok(parent);
        }
        let k = first.unwrap_or(2);
        for &u in owned.iter().filter(|&&u| (u as usize) < stored) {
            for v in view.out_neighbors(u).take(k) {
                union(&mut parent, u, v);
            }
        }
        flatten(&mut parent);
        if first.is_none() {
            for &u in owned.iter().filter(|&&u| (u as usize) < stored) {
                for v in view.out_neighbors(u).skip(k) {
                    union(&mut parent, u, v);
                }
            }
            flatten(&mut parent);
        }
        Ok(parent)
    }

    /// Owners send the labels of their ghosted vertices that changed since
    /// last told; holders take them.
    fn push_labels(
        &mut self,
        routes: &Routes,
        label: &mut [VertexId],
        told: &mut [VertexId],
    ) -> Traffic {
        let from = self.index() as u32;
        for (holder, list) in routes.mirrors.iter().enumerate() {
            let pairs: Vec<(u32, u32)> = list
                .iter()
                .enumerate()
                .filter(|&(_, &v)| label[v as usize] != told[v as usize])
                .map(|(position, &v)| (position as u32, label[v as usize]))
                .collect();
            if !pairs.is_empty() {
                self.packets.send(
                    holder,
                    Packet {
                        from,
                        payload: Payload::ToGhostsPairs(pairs),
                    },
                );
            }
        }
        for list in &routes.mirrors {
            for &v in list {
                told[v as usize] = label[v as usize];
            }
        }
        let (received, traffic) = self.round();
        for packet in received {
            if let Payload::ToGhostsPairs(pairs) = packet.payload {
                let ghosts = &routes.ghosts[packet.from as usize];
                for (position, value) in pairs {
                    if let Some(&g) = ghosts.get(position as usize) {
                        label[g as usize] = value;
                    }
                }
            }
        }
        traffic
    }

    /// Pointer jumping on the owned vertices' labels until every tree of
    /// the cluster is a star: local labels directly, remote ones by asking
    /// their owners (one request per distinct label per worker and round).
    fn jump(&mut self, label: &mut [VertexId], supersteps: &mut Vec<Traffic>) {
        let workers = self.workers();
        let me = self.index();
        loop {
            // The distinct labels of the owned vertices (few: most share a
            // root), each with its own label once found.
            let mut next: IdMap<VertexId> = IdMap::default();
            let mut last = VertexId::MAX;
            for &v in &self.partition.owned {
                let q = label[v as usize];
                if q != last {
                    next.entry(q).or_insert(q);
                    last = q;
                }
            }
            // Local labels directly, remote ones asked of their owners.
            let mut asked = Vec::new();
            for (&q, slot) in next.iter_mut() {
                if self.partition.partitioner.owner(q, workers) == me {
                    if let Some(t) = self.partition.ids.local(q) {
                        *slot = label[t as usize];
                    }
                } else {
                    asked.push((q, q));
                }
            }
            let (questions, traffic) = self.exchange_by_owner(asked);
            supersteps.push(traffic);
            // Answer each asker: (asked id, its label).
            let from = me as u32;
            let mut answers: Vec<Vec<(VertexId, VertexId)>> = vec![Vec::new(); workers];
            for (asker, q, _) in questions {
                let value = self.partition.ids.local(q).map_or(q, |t| label[t as usize]);
                answers[asker as usize].push((q, value));
            }
            for (to, pairs) in answers.into_iter().enumerate() {
                if !pairs.is_empty() {
                    self.packets.send(
                        to,
                        Packet {
                            from,
                            payload: Payload::Labels(pairs),
                        },
                    );
                }
            }
            let (received, traffic) = self.round();
            supersteps.push(traffic);
            for packet in received {
                if let Payload::Labels(pairs) = packet.payload {
                    for (q, value) in pairs {
                        next.insert(q, value);
                    }
                }
            }
            let mut changed = 0u64;
            let mut last = (VertexId::MAX, VertexId::MAX);
            for &v in &self.partition.owned {
                let q = label[v as usize];
                let to = if q == last.0 { last.1 } else { next[&q] };
                last = (q, to);
                if to < q {
                    label[v as usize] = to;
                    changed += 1;
                }
            }
            if self.collective.sum(self.worker, vec![changed])[0] == 0 {
                break;
            }
        }
    }

    /// Sends each `(id, value)` pair to the owner of `id`; returns the
    /// pairs this worker received, each with its sender.
    fn exchange_by_owner(
        &mut self,
        pairs: Vec<(VertexId, VertexId)>,
    ) -> (Vec<(u32, VertexId, VertexId)>, Traffic) {
        let workers = self.workers();
        let mut by_owner: Vec<Vec<(VertexId, VertexId)>> = vec![Vec::new(); workers];
        for (id, value) in pairs {
            by_owner[self.partition.partitioner.owner(id, workers)].push((id, value));
        }
        let from = self.index() as u32;
        for (owner, pairs) in by_owner.into_iter().enumerate() {
            if !pairs.is_empty() {
                self.packets.send(
                    owner,
                    Packet {
                        from,
                        payload: Payload::Labels(pairs),
                    },
                );
            }
        }
        let (received, traffic) = self.round();
        let mut all = Vec::new();
        for packet in received {
            if let Payload::Labels(pairs) = packet.payload {
                all.extend(
                    pairs
                        .into_iter()
                        .map(|(id, value)| (packet.from, id, value)),
                );
            }
        }
        (all, traffic)
    }
}
