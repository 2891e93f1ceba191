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
//! | PageRank | with in-edges (pull): owners send each ghosted vertex's contribution to its holders, then each owned vertex sums its in-neighbours'; without (push): each worker sums its edges' contributions per destination, then sends one `f32` per ghost to its owner | one `f32` per ghost | one per iteration, plus one all-reduce of the change |
//! | BFS | direction-optimizing ([`bfs`](self::bfs)): top-down steps send `(ghost, parent)` to the owner once per ghost per search; bottom-up steps (with in-edges) send each holder a bitmap of its ghosts in the frontier, then scan in-edges locally | one claim per ghost per search; one bit per ghost per bottom-up step | two per level (exchange, one all-reduce of frontier size and scout count) |
//! | components | local union-find, then Shiloach-Vishkin hooking and pointer jumping over vertex ids ([`components`](self::components)) | one request per distinct root per worker | O(log n) rounds of a push, a hooking exchange and a few jumps |
//! | reverse walks | owners send each step's counts of their vertices to the workers holding them as ghosts; each owner sums its out-neighbours in store order | one `f64` per ghost | one per step |

mod bfs;
mod components;
mod pagerank;

use crate::mailbox::{Collective, Mailbox, Traffic, WireSize};
use crate::part::Partition;
use dyngraph_core::{DynamicStore, Error, Result, VertexId};
use dyngraph_kernels::{
    BfsDirection, BfsResult, BfsStrategy, ComponentsAlgorithm, ComponentsResult, KernelName,
    KernelOptions, KernelOutput, NO_PARENT, PageRankMethod, PageRankResult, ReverseWalkResult,
    UNREACHED,
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
    /// As [`Payload::ToGhostsF64`], in `f32`.
    ToGhostsF32(Vec<f32>),
    /// `(position in the sender's ghost list, value)`.
    ToOwnerPairs(Vec<(u32, u32)>),
    /// `(position in the addressee's ghost list, value)`.
    ToGhostsPairs(Vec<(u32, u32)>),
    /// `(global id, value)` for gathering results at worker 0.
    Gather(Vec<(VertexId, u64)>),
    /// Edges `(src, dst)` in global ids, for gathering the graph.
    Edges(Vec<(VertexId, VertexId)>),
    /// BFS: which of the addressee's ghosts owned by the sender are in the
    /// frontier, a bit per position of the addressee's list.
    Frontier(Vec<u64>),
    /// Components: `(vertex id, label)` pairs addressed by vertex owner
    /// (hooking requests, jump questions and answers).
    Labels(Vec<(VertexId, VertexId)>),
    /// A serialised report part.
    Text(String),
}

impl WireSize for Packet {
    fn wire_bytes(&self) -> u64 {
        // from, variant tag, vector length, elements.
        let body = match &self.payload {
            Payload::Ghosts(v) => 4 * v.len(),
            Payload::ToOwnerF32(v) | Payload::ToGhostsF32(v) => 4 * v.len(),
            Payload::ToGhostsF64(v) => 8 * v.len(),
            Payload::ToOwnerPairs(v) | Payload::ToGhostsPairs(v) => 8 * v.len(),
            Payload::Gather(v) => 12 * v.len(),
            Payload::Edges(v) | Payload::Labels(v) => 8 * v.len(),
            Payload::Frontier(v) => 8 * v.len(),
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
    /// BFS: how many of the iterations were bottom-up steps.
    pub(crate) bottom_up_steps: usize,
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
            if !partition.is_owned[local as usize] && partition.ids.is_known(local) {
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
            (KernelName::Bfs, KernelOptions::Bfs(o)) => self.bfs(routes, o),
            (KernelName::Afforest | KernelName::ShiloachVishkin, KernelOptions::Components(o)) => {
                self.components(routes, o)
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
/// `output` is worker 0's (its counts are the cluster's) and `in_edges`
/// whether the run kept them.
pub(crate) fn assemble(
    kernel: KernelName,
    options: &KernelOptions,
    vertex_count: usize,
    values: &[(VertexId, u64)],
    output: &LocalOutput,
    in_edges: bool,
) -> Result<KernelOutput> {
    let n = vertex_count;
    let (iterations, last_change) = (output.iterations, output.last_change);
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
                method: if in_edges {
                    PageRankMethod::Pull
                } else {
                    PageRankMethod::Push
                },
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
                strategy: bfs_strategy(o.direction, in_edges),
                top_down_steps: (iterations - output.bottom_up_steps) as u32,
                bottom_up_steps: output.bottom_up_steps as u32,
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

/// How a distributed BFS runs: bottom-up steps need the in-edges.
fn bfs_strategy(direction: BfsDirection, in_edges: bool) -> BfsStrategy {
    match (direction, in_edges) {
        (BfsDirection::TopDownOnly, _) => BfsStrategy::TopDownRequested,
        (BfsDirection::Auto, false) => BfsStrategy::TopDownNoInEdges,
        (BfsDirection::Auto, true) => BfsStrategy::DirectionOptimizing,
    }
}

/// How the distributed kernel ran, for the summary's `mode`.
pub(crate) fn mode(kernel: KernelName, in_edges: bool) -> &'static str {
    match kernel {
        KernelName::PageRank if in_edges => "pull over in-edges, contributions sent to ghosts",
        KernelName::PageRank => "push, combined per destination owner",
        KernelName::Bfs if in_edges => {
            "direction-optimizing: top-down claims, bottom-up over in-edges with a frontier \
             bitmap per step"
        }
        KernelName::Bfs => "top-down only (no in-edges: bottom-up steps need them), claims",
        KernelName::ReverseWalks => "owner-to-ghost value exchange",
        _ => "local union-find, then Shiloach-Vishkin hooking and pointer jumping",
    }
}
