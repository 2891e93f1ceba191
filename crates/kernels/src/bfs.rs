//! Direction-optimizing breadth-first search (Beamer, Asanović, Patterson,
//! SC 2012), as in GAPBS `bfs.cc`.
//!
//! Top-down steps expand a frontier queue: every frontier vertex claims its
//! unvisited out-neighbours with a compare-and-swap on their parent. When
//! the edges leaving the frontier (`scout_count`) exceed the edges left to
//! check divided by `alpha`, the search switches to bottom-up steps: every
//! unvisited vertex scans its in-neighbours for one in the frontier bitmap
//! and stops at the first. It switches back when the frontier shrinks below
//! `vertex_count / beta` vertices and is no longer growing.
//!
//! # Cost model
//! `O(V + E)` work; a top-down step costs the frontier's out-edges, a
//! bottom-up step at most the in-edges of the unvisited vertices (usually
//! far fewer, which is the point). Memory: 4 bytes per vertex of parents,
//! 4 more with depths, two bitmaps of `V / 8` bytes, and the frontier queue.

use crate::VerifyError;
use crate::util::{Bitmap, atomic_u32_vec, check_vertex, into_plain_u32};
use dyngraph_core::{InEdges, InNeighbors, OutNeighbors, Result, VertexId};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Fewest frontier vertices a top-down task takes.
const FRONTIER_GRAIN: usize = 256;

/// Fewest bitmap words (64 vertices each) a bottom-up task takes: a graph
/// below 4,096 vertices runs its bottom-up steps on one thread.
const WORD_GRAIN: usize = 64;

/// The parent of a vertex the search did not reach.
pub const NO_PARENT: VertexId = VertexId::MAX;

/// The depth of a vertex the search did not reach.
pub const UNREACHED: u32 = u32::MAX;

/// Which steps a BFS may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BfsDirection {
    /// Direction-optimizing: bottom-up steps when the frontier is large and
    /// the store keeps in-edges, top-down otherwise.
    #[default]
    Auto,
    /// Top-down steps only.
    TopDownOnly,
}

/// Options of [`bfs`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BfsOptions {
    /// Where the search starts.
    pub source: VertexId,
    /// Also return each vertex's depth.
    pub depths: bool,
    /// Allowed step directions.
    pub direction: BfsDirection,
    /// Switch to bottom-up when the frontier's out-edges exceed the
    /// unexplored edges divided by `alpha` (GAPBS: 15).
    pub alpha: u64,
    /// Switch back to top-down when the frontier holds fewer than
    /// `vertex_count / beta` vertices and shrinks (GAPBS: 18).
    pub beta: u64,
}

impl Default for BfsOptions {
    fn default() -> Self {
        Self {
            source: 0,
            depths: false,
            direction: BfsDirection::Auto,
            alpha: 15,
            beta: 18,
        }
    }
}

impl BfsOptions {
    /// Default options from `source`.
    pub fn from_source(source: VertexId) -> Self {
        Self {
            source,
            ..Self::default()
        }
    }

    /// Sets [`BfsOptions::depths`].
    pub fn with_depths(mut self, depths: bool) -> Self {
        self.depths = depths;
        self
    }

    /// Sets [`BfsOptions::direction`].
    pub fn with_direction(mut self, direction: BfsDirection) -> Self {
        self.direction = direction;
        self
    }
}

/// How a BFS actually ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BfsStrategy {
    /// Direction-optimizing, over out- and in-edges.
    DirectionOptimizing,
    /// Top-down only because [`BfsDirection::TopDownOnly`] was asked for.
    TopDownRequested,
    /// Top-down only because the store keeps no in-edges
    /// ([`InEdges::in_edges`] refused), so bottom-up steps are impossible.
    TopDownNoInEdges,
}

/// The BFS tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BfsResult {
    /// The source.
    pub source: VertexId,
    /// `parents[v]`: the vertex `v` was reached from, `source` for the
    /// source, [`NO_PARENT`] if unreached. Any valid BFS tree may come out;
    /// which one depends on thread timing.
    pub parents: Vec<VertexId>,
    /// `depths[v]`: hops from the source ([`UNREACHED`] if unreached), when
    /// requested. Deterministic.
    pub depths: Option<Vec<u32>>,
    /// How the search ran.
    pub strategy: BfsStrategy,
    /// Top-down steps taken.
    pub top_down_steps: u32,
    /// Bottom-up steps taken.
    pub bottom_up_steps: u32,
}

impl BfsResult {
    /// Number of vertices reached, the source included.
    pub fn reached(&self) -> usize {
        self.parents.par_iter().filter(|&&p| p != NO_PARENT).count()
    }
}

/// Direction-optimizing BFS from `options.source`, in the caller's rayon
/// pool.
///
/// Errors with [`dyngraph_core::Error::VertexOutOfRange`] for a source
/// outside the graph and [`dyngraph_core::Error::InvalidArgument`] for
/// `alpha` or `beta` of 0.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge};
/// use dyngraph_core::StoreConfig;
/// use dyngraph_kernels::{BfsOptions, bfs, verify_bfs};
///
/// let edges = [Edge::new(0, 1), Edge::new(1, 2), Edge::new(0, 3)];
/// let graph = Csr::from_edges(&edges, CsrOptions::default().in_edges(true))?;
/// let tree = bfs(&graph, &BfsOptions::from_source(0).with_depths(true))?;
/// assert_eq!(tree.parents, [0, 0, 1, 0]);
/// assert_eq!(tree.depths.as_deref(), Some(&[0, 1, 2, 1][..]));
/// verify_bfs(&graph, &tree).unwrap();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn bfs<G>(graph: &G, options: &BfsOptions) -> Result<BfsResult>
where
    G: OutNeighbors + InEdges + Sync,
{
    crate::util::on_pool(|| {
        let n = graph.vertex_count();
        check_vertex(options.source, n)?;
        if options.alpha == 0 || options.beta == 0 {
            return Err(dyngraph_core::Error::InvalidArgument(
                "BFS alpha and beta must be positive".into(),
            ));
        }
        // Bottom-up steps need the in-edges: asked for once, here.
        let incoming = match options.direction {
            BfsDirection::TopDownOnly => None,
            BfsDirection::Auto => graph.in_edges().ok(),
        };
        let strategy = match (options.direction, incoming.is_some()) {
            (BfsDirection::TopDownOnly, _) => BfsStrategy::TopDownRequested,
            (BfsDirection::Auto, false) => BfsStrategy::TopDownNoInEdges,
            (BfsDirection::Auto, true) => BfsStrategy::DirectionOptimizing,
        };
        let source = options.source;
        let parents = atomic_u32_vec(n, NO_PARENT);
        let depths = options.depths.then(|| atomic_u32_vec(n, UNREACHED));
        parents[source as usize].store(source, Relaxed);
        if let Some(depths) = &depths {
            depths[source as usize].store(0, Relaxed);
        }
        let state = Search {
            graph,
            parents: &parents,
            depths: depths.as_deref(),
        };

        let mut frontier = vec![source];
        let mut edges_to_check = graph.edge_count();
        let mut scout_count = graph.out_degree(source);
        let mut level = 0u32;
        let (mut top_down_steps, mut bottom_up_steps) = (0, 0);
        let mut front = None;
        while !frontier.is_empty() {
            if let Some(incoming) = incoming
                && scout_count > edges_to_check / options.alpha
            {
                let front = front.get_or_insert_with(|| (Bitmap::new(n), Bitmap::new(n)));
                let (current, next) = (&mut front.0, &mut front.1);
                current.clear();
                frontier.par_iter().for_each(|&v| current.set(v as usize));
                let mut awake = frontier.len();
                loop {
                    let old_awake = awake;
                    level += 1;
                    next.clear();
                    awake = state.bottom_up_step(incoming, current, next, level);
                    bottom_up_steps += 1;
                    std::mem::swap(current, next);
                    let keep_going =
                        awake > 0 && (awake >= old_awake || awake as u64 > n as u64 / options.beta);
                    if !keep_going {
                        break;
                    }
                }
                frontier = current.to_sorted_vec();
                scout_count = 1;
            } else {
                edges_to_check = edges_to_check.saturating_sub(scout_count);
                level += 1;
                let (next, scouts) = state.top_down_step(&frontier, level);
                top_down_steps += 1;
                frontier = next;
                scout_count = scouts;
            }
        }
        Ok(BfsResult {
            source,
            parents: into_plain_u32(parents),
            depths: depths.map(into_plain_u32),
            strategy,
            top_down_steps,
            bottom_up_steps,
        })
    })
}

/// The shared state of one search.
struct Search<'a, G> {
    graph: &'a G,
    parents: &'a [AtomicU32],
    depths: Option<&'a [AtomicU32]>,
}

impl<G: OutNeighbors + Sync> Search<'_, G> {
    /// Expands `frontier` along out-edges; returns the next frontier and the
    /// out-degree sum of its vertices.
    fn top_down_step(&self, frontier: &[VertexId], level: u32) -> (Vec<VertexId>, u64) {
        let pieces: Vec<(Vec<VertexId>, u64)> = frontier
            .par_iter()
            .with_min_len(FRONTIER_GRAIN)
            .fold(
                || (Vec::new(), 0u64),
                |(mut next, mut scouts), &u| {
                    for v in self.graph.out_neighbors(u) {
                        let slot = &self.parents[v as usize];
                        if slot.load(Relaxed) == NO_PARENT
                            && slot
                                .compare_exchange(NO_PARENT, u, Relaxed, Relaxed)
                                .is_ok()
                        {
                            if let Some(depths) = self.depths {
                                depths[v as usize].store(level, Relaxed);
                            }
                            scouts += self.graph.out_degree(v);
                            next.push(v);
                        }
                    }
                    (next, scouts)
                },
            )
            .collect();
        let scouts = pieces.iter().map(|(_, s)| s).sum();
        let next = pieces.into_iter().flat_map(|(next, _)| next).collect();
        (next, scouts)
    }

    /// Every unvisited vertex looks for a parent in `current` among its
    /// in-neighbours; the found ones go to `next`. Returns how many were
    /// found. Each task owns whole 64-vertex words of `next`, so no vertex is
    /// claimed twice and no compare-and-swap is needed.
    fn bottom_up_step<I: InNeighbors + Sync>(
        &self,
        incoming: I,
        current: &Bitmap,
        next: &Bitmap,
        level: u32,
    ) -> usize {
        let n = self.parents.len();
        next.words()
            .par_iter()
            .enumerate()
            .with_min_len(WORD_GRAIN)
            .map(|(word_index, word)| {
                let mut bits = 0u64;
                let mut awake = 0;
                let start = word_index * 64;
                for v in start..(start + 64).min(n) {
                    if self.parents[v].load(Relaxed) != NO_PARENT {
                        continue;
                    }
                    for u in incoming.in_neighbors(v as VertexId) {
                        if current.get(u as usize) {
                            self.parents[v].store(u, Relaxed);
                            if let Some(depths) = self.depths {
                                depths[v].store(level, Relaxed);
                            }
                            bits |= 1 << (v - start);
                            awake += 1;
                            break;
                        }
                    }
                }
                word.store(bits, Relaxed);
                awake
            })
            .sum()
    }
}

/// Serial BFS depths from `source` over out-edges ([`UNREACHED`] where not
/// reached): the reference the verifier checks against.
pub fn serial_bfs_depths<G: OutNeighbors>(graph: &G, source: VertexId) -> Vec<u32> {
    let mut depths = vec![UNREACHED; graph.vertex_count()];
    if (source as usize) >= depths.len() {
        return depths;
    }
    depths[source as usize] = 0;
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        let next = depths[u as usize] + 1;
        for v in graph.out_neighbors(u) {
            if depths[v as usize] == UNREACHED {
                depths[v as usize] = next;
                queue.push_back(v);
            }
        }
    }
    depths
}

/// Checks a BFS result (GAPBS `BFSVerifier`): against a serial BFS, every
/// reached vertex and only those have a parent; the source is its own
/// parent; every other parent `u` of `v` has an edge `u -> v` and is one
/// level closer to the source; depths, when present, equal the serial ones.
pub fn verify_bfs<G: OutNeighbors>(graph: &G, result: &BfsResult) -> Result<(), VerifyError> {
    const K: &str = "bfs";
    let n = graph.vertex_count();
    if result.parents.len() != n {
        return Err(VerifyError::new(
            K,
            format!("{} parents for {n} vertices", result.parents.len()),
        ));
    }
    if result.source as usize >= n {
        return Err(VerifyError::new(K, "source outside the graph"));
    }
    let depths = serial_bfs_depths(graph, result.source);
    // Mark which parents are backed by an edge of the graph.
    let mut parent_edge_seen = vec![false; n];
    for u in 0..n as VertexId {
        for v in graph.out_neighbors(u) {
            if result.parents[v as usize] == u {
                parent_edge_seen[v as usize] = true;
            }
        }
    }
    for v in 0..n {
        let parent = result.parents[v];
        let vid = v as VertexId;
        if depths[v] == UNREACHED {
            if parent != NO_PARENT {
                return Err(VerifyError::at(
                    K,
                    vid,
                    format!("unreachable but has parent {parent}"),
                ));
            }
        } else if vid == result.source {
            if parent != vid {
                return Err(VerifyError::at(
                    K,
                    vid,
                    format!("source has parent {parent}"),
                ));
            }
        } else if parent == NO_PARENT {
            return Err(VerifyError::at(K, vid, "reachable but has no parent"));
        } else if parent as usize >= n || depths[parent as usize] + 1 != depths[v] {
            return Err(VerifyError::at(
                K,
                vid,
                format!("parent {parent} is not one level closer to the source"),
            ));
        } else if !parent_edge_seen[v] {
            return Err(VerifyError::at(
                K,
                vid,
                format!("no edge from parent {parent}"),
            ));
        }
    }
    if let Some(result_depths) = &result.depths
        && *result_depths != depths
    {
        let v = (0..n)
            .find(|&v| result_depths.get(v) != Some(&depths[v]))
            .unwrap_or(0);
        return Err(VerifyError::at(
            K,
            v as VertexId,
            format!(
                "depth {:?}, serial BFS says {}",
                result_depths.get(v),
                depths[v]
            ),
        ));
    }
    Ok(())
}
