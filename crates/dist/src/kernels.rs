//! Kernels over the partitions, as supersteps of timely dataflows.
//!
//! Every kernel reads its worker's out store through a snapshot view (the
//! epoch's graph, consistent across workers because all of them applied
//! the same epochs), keeps its values per local id, and talks to the other
//! workers only through [`Routes`]: for each pair of workers, the ghosts
//! one holds of the other's vertices, listed once per run in an agreed
//! order, so that a value travels as a position in that list (dense
//! vectors for PageRank and walks, `(position, value)` pairs for BFS and
//! components) instead of a global id that the receiver would look up.
//!
//! | kernel | per superstep | combining | supersteps |
//! |---|---|---|---|
//! | PageRank | each worker sums its edges' contributions per destination, then sends one `f32` per ghost to its owner | by destination | one per iteration, plus one all-reduce of the change |
//! | BFS | frontier vertices claim owned neighbours directly and send `(ghost, parent)` to the owner, once per ghost per search | one message per ghost per search | two per level (exchange, frontier size) |
//! | components | min-label propagation: each worker joins its local edges by union-find, then ghosts send lowered labels to owners and owners to their ghosts | only lowered labels | two per round, rounds ≈ hops between partitions |
//! | reverse walks | owners send each step's counts of their vertices to the workers holding them as ghosts; each owner sums its out-neighbours in store order | one `f64` per ghost | one per step |
//!
//! BFS is **top-down only**: a bottom-up step would have every worker test
//! its unvisited owned vertices' in-neighbours against the frontier, which
//! needs the frontier's membership replicated to every worker holding
//! those in-neighbours (a bitmap broadcast per level). On the graphs this
//! crate was measured on, the top-down exchange already sends each ghost
//! at most once per search, so the bottom-up step would save local edge
//! reads but not messages; it is left out and the mode says so.

use crate::mailbox::{Collective, Mailbox, Traffic, WireSize};
use crate::part::{Partition, out_degree};
use dyngraph_core::{DynamicStore, Error, Graph, OutNeighbors, Result, VertexId};
use dyngraph_kernels::{
    BfsResult, BfsStrategy, ComponentsAlgorithm, ComponentsResult, KernelName, KernelOptions,
    KernelOutput, NO_PARENT, PageRankMethod, PageRankResult, ReverseWalkResult, UNREACHED,
};
use serde::{Deserialize, Serialize};
use timely::worker::Worker;

/// A kernel message between two workers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Packet {
    pub(crate) from: u32,
    pub(crate) payload: Payload,
}

/// What a [`Packet`] carries.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Payload {
    /// The global ids of the sender's ghosts that the addressee owns.
    Ghosts(Vec<VertexId>),
    /// One value per ghost of the sender owned by the addressee, in the
    /// order of the sender's [`Payload::Ghosts`] list.
    ToOwnerF32(Vec<f32>),
    /// One value per vertex of the sender held as a ghost by the
    /// addressee, in the addressee's list order.
    ToGhostsF64(Vec<f64>),
    /// `(position in the sender's ghost list, value)`.
    ToOwnerPairs(Vec<(u32, u32)>),
    /// `(position in the addressee's ghost list, value)`.
    ToGhostsPairs(Vec<(u32, u32)>),
    /// `(global id, value)` for gathering results at worker 0.
    Gather(Vec<(VertexId, u64)>),
    /// Edges `(src, dst)` in global ids, for gathering the graph.
    Edges(Vec<(VertexId, VertexId)>),
    /// A serialised report part.
    Text(String),
}

impl WireSize for Packet {
    fn wire_bytes(&self) -> u64 {
        // from, variant tag, vector length, elements.
        let body = match &self.payload {
            Payload::Ghosts(v) => 4 * v.len(),
            Payload::ToOwnerF32(v) => 4 * v.len(),
            Payload::ToGhostsF64(v) => 8 * v.len(),
            Payload::ToOwnerPairs(v) | Payload::ToGhostsPairs(v) => 8 * v.len(),
            Payload::Gather(v) => 12 * v.len(),
            Payload::Edges(v) => 8 * v.len(),
            Payload::Text(s) => s.len(),
        };
        4 + 4 + 8 + body as u64
    }
}

/// Who holds whose vertices: built once per kernel run.
#[derive(Debug, Default)]
pub(crate) struct Routes {
    /// `ghosts[r]`: local ids of the ghosts owned by worker `r`, sorted by
    /// global id (the order `r` was told).
    ghosts: Vec<Vec<VertexId>>,
    /// `mirrors[r]`: local ids of this worker's vertices that `r` holds as
    /// ghosts, in `r`'s order.
    mirrors: Vec<Vec<VertexId>>,
    /// For each local ghost, its position in its owner's list.
    ghost_position: Vec<u32>,
}

/// A kernel's run on one worker: the partition, the channels, and the
/// traffic of each superstep.
pub(crate) struct KernelContext<'a, S> {
    pub(crate) worker: &'a mut Worker,
    pub(crate) partition: &'a mut Partition<S>,
    pub(crate) packets: &'a mut Mailbox<Packet>,
    pub(crate) collective: &'a mut Collective,
    /// Global vertex count of the epoch.
    pub(crate) vertex_count: usize,
}

/// One kernel's result on one worker: values of its owned vertices, and
/// the traffic of each superstep (messages of the kernel's own exchange,
/// collectives excluded).
pub(crate) struct LocalOutput {
    /// `(global id, value)` of each owned vertex, the value packed in 64
    /// bits as the kernel's gather documents.
    pub(crate) values: Vec<(VertexId, u64)>,
    pub(crate) supersteps: Vec<Traffic>,
    pub(crate) iterations: usize,
    pub(crate) last_change: f64,
}

impl<S: DynamicStore> KernelContext<'_, S> {
    fn index(&self) -> usize {
        self.partition.index
    }

    fn workers(&self) -> usize {
        self.partition.workers
    }

    fn round(&mut self) -> (Vec<Packet>, Traffic) {
        let mut received = self.packets.finish_round(self.worker);
        // Apply in sender order: the same sums in the same order on every run.
        received.sort_by_key(|p| p.from);
        (received, self.packets.take_traffic())
    }

    /// Builds the routing lists: one superstep, 4 bytes per ghost.
    pub(crate) fn routes(&mut self) -> Routes {
        let workers = self.workers();
        let partition = &*self.partition;
        let mut by_owner: Vec<Vec<(VertexId, VertexId)>> = vec![Vec::new(); workers];
        for local in 0..partition.ids.len() as VertexId {
            if !partition.is_owned[local as usize] {
                let global = partition.ids.global(local);
                let owner = partition.partitioner.owner(global, workers);
                by_owner[owner].push((global, local));
            }
        }
        let mut ghost_position = vec![u32::MAX; partition.ids.len()];
        let mut ghosts = vec![Vec::new(); workers];
        for (owner, mut list) in by_owner.into_iter().enumerate() {
            list.sort_unstable();
            for (position, &(_, local)) in list.iter().enumerate() {
                ghost_position[local as usize] = position as u32;
            }
            if !list.is_empty() {
                let from = self.index() as u32;
                self.packets.send(
                    owner,
                    Packet {
                        from,
                        payload: Payload::Ghosts(list.iter().map(|&(g, _)| g).collect()),
                    },
                );
            }
            ghosts[owner] = list.into_iter().map(|(_, l)| l).collect();
        }
        let (received, _) = self.round();
        let mut mirrors = vec![Vec::new(); workers];
        for packet in received {
            if let Payload::Ghosts(globals) = packet.payload {
                // Every ghost was announced to its owner before a kernel
                // runs, so each is known here.
                mirrors[packet.from as usize] = globals
                    .iter()
                    .filter_map(|&g| self.partition.ids.local(g))
                    .collect();
            }
        }
        Routes {
            ghosts,
            mirrors,
            ghost_position,
        }
    }

    /// PageRank, pushing contributions along out-edges and combining them
    /// per destination before they leave the worker. Values: the `f32`
    /// score's bits.
    pub(crate) fn pagerank(
        &mut self,
        routes: &Routes,
        damping: f32,
        max_iterations: usize,
        tolerance: f64,
    ) -> Result<LocalOutput> {
        let n = self.vertex_count;
        let seen = self
            .collective
            .sum(self.worker, vec![self.partition.owned.len() as u64])[0];
        let unseen = (n as u64).saturating_sub(seen);
        let base = (1.0 - damping) / n.max(1) as f32;
        let local_count = self.partition.ids.len();
        let mut scores = vec![1.0 / n.max(1) as f32; local_count];
        let mut sums = vec![0.0f32; local_count];
        let mut supersteps = Vec::new();
        let (mut iterations, mut last_change) = (0, 0.0);
        let snapshot = self.partition.out().snapshot();
        for iteration in 0..max_iterations {
            sums.iter_mut().for_each(|s| *s = 0.0);
            {
                let view = self.partition.out().view(&snapshot)?;
                for &u in &self.partition.owned {
                    let degree = out_degree(&view, u);
                    if degree > 0 {
                        let contribution = scores[u as usize] / degree as f32;
                        for d in view.out_neighbors(u) {
                            sums[d as usize] += contribution;
                        }
                    }
                }
            }
            let from = self.index() as u32;
            for (owner, list) in routes.ghosts.iter().enumerate() {
                if !list.is_empty() {
                    let values = list.iter().map(|&g| sums[g as usize]).collect();
                    self.packets.send(
                        owner,
                        Packet {
                            from,
                            payload: Payload::ToOwnerF32(values),
                        },
                    );
                }
            }
            let (received, traffic) = self.round();
            supersteps.push(traffic);
            for packet in received {
                if let Payload::ToOwnerF32(values) = packet.payload {
                    for (&v, value) in routes.mirrors[packet.from as usize].iter().zip(values) {
                        sums[v as usize] += value;
                    }
                }
            }
            let mut change = 0.0f64;
            for &v in &self.partition.owned {
                let new = base + damping * sums[v as usize];
                change += f64::from((new - scores[v as usize]).abs());
                scores[v as usize] = new;
            }
            if iteration == 0 && self.index() == 0 {
                // Vertices no worker has seen go from 1/n to the base score.
                change += unseen as f64 * f64::from((base - 1.0 / n.max(1) as f32).abs());
            }
            last_change = self.collective.sum_f64(self.worker, change);
            iterations += 1;
            if last_change < tolerance {
                break;
            }
        }
        Ok(LocalOutput {
            values: self.owned_values(|v| u64::from(scores[v as usize].to_bits())),
            supersteps,
            iterations,
            last_change,
        })
    }

    /// Top-down BFS from global `source`. Values: parent (high 32 bits)
    /// and depth (low 32 bits).
    pub(crate) fn bfs(&mut self, routes: &Routes, source: VertexId) -> Result<LocalOutput> {
        let local_count = self.partition.ids.len();
        let mut parents = vec![NO_PARENT; local_count];
        let mut depths = vec![UNREACHED; local_count];
        let mut sent = vec![false; local_count];
        let mut frontier = Vec::new();
        if self.partition.partitioner.owner(source, self.workers()) == self.index()
            && let Some(local) = self.partition.ids.local(source)
        {
            parents[local as usize] = source;
            depths[local as usize] = 0;
            frontier.push(local);
        }
        let snapshot = self.partition.out().snapshot();
        let mut supersteps = Vec::new();
        let mut level = 0u32;
        loop {
            level += 1;
            let mut next = Vec::new();
            let mut claims: Vec<Vec<(u32, u32)>> = vec![Vec::new(); self.workers()];
            {
                let view = self.partition.out().view(&snapshot)?;
                let partition = &*self.partition;
                for &u in &frontier {
                    if u as usize >= view.vertex_count() {
                        continue;
                    }
                    let parent = partition.ids.global(u);
                    for d in view.out_neighbors(u) {
                        let slot = d as usize;
                        if partition.is_owned[slot] {
                            if parents[slot] == NO_PARENT {
                                parents[slot] = parent;
                                depths[slot] = level;
                                next.push(d);
                            }
                        } else if !sent[slot] {
                            sent[slot] = true;
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
            supersteps.push(traffic);
            for packet in received {
                if let Payload::ToOwnerPairs(pairs) = packet.payload {
                    let mirrors = &routes.mirrors[packet.from as usize];
                    for (position, parent) in pairs {
                        let Some(&v) = mirrors.get(position as usize) else {
                            continue;
                        };
                        if parents[v as usize] == NO_PARENT {
                            parents[v as usize] = parent;
                            depths[v as usize] = level;
                            next.push(v);
                        }
                    }
                }
            }
            frontier = next;
            let total = self
                .collective
                .sum(self.worker, vec![frontier.len() as u64])[0];
            if total == 0 {
                break;
            }
        }
        Ok(LocalOutput {
            values: self.owned_values(|v| {
                (u64::from(parents[v as usize]) << 32) | u64::from(depths[v as usize])
            }),
            iterations: supersteps.len(),
            supersteps,
            last_change: 0.0,
        })
    }

    /// Weakly connected components by min-label propagation. Values: the
    /// label.
    pub(crate) fn components(&mut self, routes: &Routes) -> Result<LocalOutput> {
        let local_count = self.partition.ids.len();
        // Local union-find over this worker's edges (both directions are
        // one edge for weak connectivity).
        let mut parent: Vec<VertexId> = (0..local_count as VertexId).collect();
        fn find(parent: &mut [VertexId], mut v: VertexId) -> VertexId {
            while parent[v as usize] != v {
                let grand = parent[parent[v as usize] as usize];
                parent[v as usize] = grand;
                v = grand;
            }
            v
        }
        let snapshot = self.partition.out().snapshot();
        {
            let view = self.partition.out().view(&snapshot)?;
            for &u in &self.partition.owned {
                if (u as usize) < view.vertex_count() {
                    for d in view.out_neighbors(u) {
                        let (a, b) = (find(&mut parent, u), find(&mut parent, d));
                        if a != b {
                            parent[a.max(b) as usize] = a.min(b);
                        }
                    }
                }
            }
        }
        let root: Vec<VertexId> = (0..local_count as VertexId)
            .map(|v| find(&mut parent, v))
            .collect();
        let mut labels: Vec<VertexId> = (0..local_count as VertexId)
            .map(|v| self.partition.ids.global(v))
            .collect();
        // What the other side last heard.
        let mut told_owner = labels.clone();
        let mut told_ghosts = labels.clone();
        let mut supersteps = Vec::new();
        let mut rounds = 0;
        loop {
            rounds += 1;
            // Within this worker, a component takes its smallest label.
            let mut smallest = vec![VertexId::MAX; local_count];
            for v in 0..local_count {
                let r = root[v] as usize;
                smallest[r] = smallest[r].min(labels[v]);
            }
            for v in 0..local_count {
                labels[v] = smallest[root[v] as usize];
            }
            let from = self.index() as u32;
            let mut sent_any = 0u64;
            for (owner, list) in routes.ghosts.iter().enumerate() {
                let mut pairs: Vec<(u32, u32)> = Vec::new();
                for (position, &g) in list.iter().enumerate() {
                    let label = labels[g as usize];
                    if label < told_owner[g as usize] {
                        told_owner[g as usize] = label;
                        pairs.push((position as u32, label));
                    }
                }
                if !pairs.is_empty() {
                    sent_any += pairs.len() as u64;
                    self.packets.send(
                        owner,
                        Packet {
                            from,
                            payload: Payload::ToOwnerPairs(pairs),
                        },
                    );
                }
            }
            for (holder, list) in routes.mirrors.iter().enumerate() {
                let pairs: Vec<(u32, u32)> = list
                    .iter()
                    .enumerate()
                    .filter(|&(_, &v)| labels[v as usize] < told_ghosts[v as usize])
                    .map(|(position, &v)| (position as u32, labels[v as usize]))
                    .collect();
                if !pairs.is_empty() {
                    sent_any += pairs.len() as u64;
                    self.packets.send(
                        holder,
                        Packet {
                            from,
                            payload: Payload::ToGhostsPairs(pairs),
                        },
                    );
                }
            }
            // Every mirror of a vertex has now heard its label.
            for list in &routes.mirrors {
                for &v in list {
                    told_ghosts[v as usize] = told_ghosts[v as usize].min(labels[v as usize]);
                }
            }
            let (received, traffic) = self.round();
            supersteps.push(traffic);
            for packet in received {
                match packet.payload {
                    Payload::ToOwnerPairs(pairs) => {
                        let mirrors = &routes.mirrors[packet.from as usize];
                        for (position, label) in pairs {
                            if let Some(&v) = mirrors.get(position as usize) {
                                labels[v as usize] = labels[v as usize].min(label);
                            }
                        }
                    }
                    Payload::ToGhostsPairs(pairs) => {
                        let ghosts = &routes.ghosts[packet.from as usize];
                        for (position, label) in pairs {
                            if let Some(&g) = ghosts.get(position as usize) {
                                labels[g as usize] = labels[g as usize].min(label);
                                told_owner[g as usize] = told_owner[g as usize].min(label);
                            }
                        }
                    }
                    _ => {}
                }
            }
            let active = self.collective.sum(self.worker, vec![sent_any])[0];
            if active == 0 {
                break;
            }
        }
        Ok(LocalOutput {
            values: self.owned_values(|v| u64::from(labels[v as usize])),
            supersteps,
            iterations: rounds,
            last_change: 0.0,
        })
    }

    /// k-step reverse walks (`A^k · 1`). Values: the `f64` count's bits.
    pub(crate) fn reverse_walks(&mut self, routes: &Routes, steps: usize) -> Result<LocalOutput> {
        let local_count = self.partition.ids.len();
        let mut current = vec![1.0f64; local_count];
        let mut next = vec![0.0f64; local_count];
        let snapshot = self.partition.out().snapshot();
        let mut supersteps = Vec::new();
        for _ in 0..steps {
            {
                let view = self.partition.out().view(&snapshot)?;
                for &u in &self.partition.owned {
                    // An empty sum is -0.0, as in the single-machine kernel.
                    next[u as usize] = if (u as usize) < view.vertex_count() {
                        view.out_neighbors(u).map(|v| current[v as usize]).sum()
                    } else {
                        std::iter::empty::<f64>().sum()
                    };
                }
            }
            for &u in &self.partition.owned {
                current[u as usize] = next[u as usize];
            }
            let from = self.index() as u32;
            for (holder, list) in routes.mirrors.iter().enumerate() {
                if !list.is_empty() {
                    let values = list.iter().map(|&v| current[v as usize]).collect();
                    self.packets.send(
                        holder,
                        Packet {
                            from,
                            payload: Payload::ToGhostsF64(values),
                        },
                    );
                }
            }
            let (received, traffic) = self.round();
            supersteps.push(traffic);
            for packet in received {
                if let Payload::ToGhostsF64(values) = packet.payload {
                    for (&g, value) in routes.ghosts[packet.from as usize].iter().zip(values) {
                        current[g as usize] = value;
                    }
                }
            }
        }
        Ok(LocalOutput {
            values: self.owned_values(|v| current[v as usize].to_bits()),
            iterations: steps,
            supersteps,
            last_change: 0.0,
        })
    }

    fn owned_values(&self, value: impl Fn(VertexId) -> u64) -> Vec<(VertexId, u64)> {
        self.partition
            .owned
            .iter()
            .map(|&v| (self.partition.ids.global(v), value(v)))
            .collect()
    }

    /// Runs `kernel` with `options`.
    pub(crate) fn run(
        &mut self,
        routes: &Routes,
        kernel: KernelName,
        options: &KernelOptions,
    ) -> Result<LocalOutput> {
        match (kernel, options) {
            (KernelName::PageRank, KernelOptions::PageRank(o)) => {
                self.pagerank(routes, o.damping, o.max_iterations, o.tolerance)
            }
            (KernelName::Bfs, KernelOptions::Bfs(o)) => self.bfs(routes, o.source),
            (KernelName::Afforest | KernelName::ShiloachVishkin, KernelOptions::Components(_)) => {
                self.components(routes)
            }
            (KernelName::ReverseWalks, KernelOptions::ReverseWalks(o)) => {
                self.reverse_walks(routes, o.steps)
            }
            _ => Err(unsupported(kernel)),
        }
    }
}

/// The error for a kernel this crate does not distribute.
pub(crate) fn unsupported(kernel: KernelName) -> Error {
    Error::InvalidArgument(format!(
        "kernel {kernel} has no distributed version (distributed kernels: bfs, pr, cc, cc_sv, rw)"
    ))
}

/// Whether `kernel` runs distributed.
pub fn is_distributed(kernel: KernelName) -> bool {
    matches!(
        kernel,
        KernelName::Bfs
            | KernelName::PageRank
            | KernelName::Afforest
            | KernelName::ShiloachVishkin
            | KernelName::ReverseWalks
    )
}

/// Assembles the gathered `(global id, value)` pairs of every worker into
/// the single-machine kernel's output over `vertex_count` vertices;
/// vertices no worker saw are isolated and get what the kernel gives an
/// isolated vertex.
pub(crate) fn assemble(
    kernel: KernelName,
    options: &KernelOptions,
    vertex_count: usize,
    values: &[(VertexId, u64)],
    iterations: usize,
    last_change: f64,
) -> Result<KernelOutput> {
    let n = vertex_count;
    Ok(match (kernel, options) {
        (KernelName::PageRank, KernelOptions::PageRank(o)) => {
            let isolated = if iterations == 0 {
                1.0 / n.max(1) as f32
            } else {
                (1.0 - o.damping) / n.max(1) as f32
            };
            let mut scores = vec![isolated; n];
            for &(v, bits) in values {
                scores[v as usize] = f32::from_bits(bits as u32);
            }
            KernelOutput::PageRank(PageRankResult {
                scores,
                iterations,
                last_change,
                method: PageRankMethod::Push,
                damping: o.damping,
            })
        }
        (KernelName::Bfs, KernelOptions::Bfs(o)) => {
            let mut parents = vec![NO_PARENT; n];
            let mut depths = vec![UNREACHED; n];
            if (o.source as usize) < n {
                parents[o.source as usize] = o.source;
                depths[o.source as usize] = 0;
            }
            for &(v, packed) in values {
                parents[v as usize] = (packed >> 32) as u32;
                depths[v as usize] = packed as u32;
            }
            KernelOutput::Bfs(BfsResult {
                source: o.source,
                parents,
                depths: Some(depths),
                strategy: BfsStrategy::TopDownRequested,
                top_down_steps: iterations as u32,
                bottom_up_steps: 0,
            })
        }
        (KernelName::Afforest | KernelName::ShiloachVishkin, KernelOptions::Components(o)) => {
            let mut labels: Vec<VertexId> = (0..n as VertexId).collect();
            for &(v, label) in values {
                labels[v as usize] = label as VertexId;
            }
            KernelOutput::Components(ComponentsResult {
                labels,
                algorithm: match o.algorithm {
                    ComponentsAlgorithm::Afforest => ComponentsAlgorithm::Afforest,
                    _ => ComponentsAlgorithm::ShiloachVishkin,
                },
                skipped_largest: false,
            })
        }
        (KernelName::ReverseWalks, KernelOptions::ReverseWalks(o)) => {
            // An isolated vertex's count is an empty sum after a step: -0.0,
            // bit for bit what the single-machine kernel gives.
            let isolated = if o.steps == 0 {
                1.0
            } else {
                std::iter::empty::<f64>().sum()
            };
            let mut visits = vec![isolated; n];
            for &(v, bits) in values {
                visits[v as usize] = f64::from_bits(bits);
            }
            KernelOutput::ReverseWalks(ReverseWalkResult {
                visits,
                steps: o.steps,
            })
        }
        _ => return Err(unsupported(kernel)),
    })
}

/// How the distributed kernel ran, for the summary's `mode`.
pub(crate) fn mode(kernel: KernelName) -> &'static str {
    match kernel {
        KernelName::PageRank => "push, combined per destination owner",
        KernelName::Bfs => "top-down, frontier exchange",
        KernelName::ReverseWalks => "owner-to-ghost value exchange",
        _ => "min-label propagation over partitions",
    }
}
