//! Connected components: Afforest (Sutton, Ben-Nun, Barak, IPDPS 2018) and
//! Shiloach-Vishkin, as in GAPBS `cc.cc` and `cc_sv.cc`.
//!
//! Both compute **weakly** connected components: an edge `u -> v` joins `u`
//! and `v` whatever its direction. Both label each component with its
//! smallest vertex id (a root only ever links to a smaller id, so the
//! minimum of a component is the last root standing), which makes the labels
//! deterministic for any thread count.
//!
//! Afforest first links every vertex to its first `neighbor_rounds`
//! out-neighbours, compresses, samples 1024 vertices to guess the largest
//! component, and then processes the remaining edges of the vertices outside
//! it only. Skipping the giant component is only correct if every edge
//! between it and another vertex is seen from the other side, so on a
//! directed graph the remaining pass also links along in-edges (GAPBS does
//! the same); when the store keeps no in-edges the pass visits every vertex
//! instead of skipping (correct, just slower) and the result says so.
//!
//! # Cost model
//! Afforest: `O(V + E)` link attempts, usually far fewer edges read.
//! Shiloach-Vishkin: `O(E)` per round, `O(log V)` rounds in practice.
//! Memory: 4 bytes per vertex.

use crate::VerifyError;
use crate::util::{into_plain_u32, vertices};
use dyngraph_core::{InEdges, InNeighbors, OutNeighbors, Result, VertexId};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

/// Which connected-components algorithm to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ComponentsAlgorithm {
    /// Afforest with subgraph sampling (GAPBS `cc`).
    #[default]
    Afforest,
    /// Shiloach-Vishkin hooking and pointer jumping (GAPBS `cc_sv`).
    ShiloachVishkin,
}

/// Options of [`connected_components`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentsOptions {
    /// The algorithm.
    pub algorithm: ComponentsAlgorithm,
    /// Afforest: out-neighbours linked per vertex before sampling (GAPBS: 2).
    pub neighbor_rounds: usize,
    /// Afforest: vertices sampled to find the largest component (GAPBS: 1024).
    pub samples: usize,
    /// Afforest: seed of the sampling.
    pub seed: u64,
}

impl Default for ComponentsOptions {
    fn default() -> Self {
        Self {
            algorithm: ComponentsAlgorithm::Afforest,
            neighbor_rounds: 2,
            samples: 1024,
            seed: 27491095,
        }
    }
}

impl ComponentsOptions {
    /// Default options for `algorithm`.
    pub fn with_algorithm(algorithm: ComponentsAlgorithm) -> Self {
        Self {
            algorithm,
            ..Self::default()
        }
    }
}

/// Component labels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentsResult {
    /// `labels[v]`: the smallest vertex id in `v`'s weakly connected
    /// component. Deterministic.
    pub labels: Vec<VertexId>,
    /// The algorithm that ran.
    pub algorithm: ComponentsAlgorithm,
    /// Afforest only: whether the largest sampled component was skipped in
    /// the final pass (needs in-edges). Always `false` for Shiloach-Vishkin.
    pub skipped_largest: bool,
}

impl ComponentsResult {
    /// Number of components (isolated vertices count as one each).
    pub fn component_count(&self) -> usize {
        self.labels
            .par_iter()
            .enumerate()
            .filter(|&(v, &label)| v as VertexId == label)
            .count()
    }

    /// Size of the largest component (0 for an empty graph).
    pub fn largest_component_size(&self) -> usize {
        let mut sizes = vec![0usize; self.labels.len()];
        for &label in &self.labels {
            sizes[label as usize] += 1;
        }
        sizes.into_iter().max().unwrap_or(0)
    }
}

/// Weakly connected components in the caller's rayon pool.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge};
/// use dyngraph_core::StoreConfig;
/// use dyngraph_kernels::{ComponentsAlgorithm, ComponentsOptions, connected_components,
///     verify_components};
///
/// let edges = [Edge::new(1, 0), Edge::new(2, 3), Edge::new(4, 3)];
/// let graph = Csr::from_edges(&edges, CsrOptions::default().in_edges(true))?;
/// for algorithm in [ComponentsAlgorithm::Afforest, ComponentsAlgorithm::ShiloachVishkin] {
///     let cc = connected_components(&graph, &ComponentsOptions::with_algorithm(algorithm))?;
///     assert_eq!(cc.labels, [0, 0, 2, 2, 2]);
///     verify_components(&graph, &cc).unwrap();
/// }
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn connected_components<G>(graph: &G, options: &ComponentsOptions) -> Result<ComponentsResult>
where
    G: OutNeighbors + InEdges + Sync,
{
    Ok(crate::util::on_pool(|| match options.algorithm {
        ComponentsAlgorithm::Afforest => afforest(graph, options),
        ComponentsAlgorithm::ShiloachVishkin => ComponentsResult {
            labels: shiloach_vishkin(graph),
            algorithm: ComponentsAlgorithm::ShiloachVishkin,
            skipped_largest: false,
        },
    }))
}

/// Joins the trees of `u` and `v`, always hanging the larger root under the
/// smaller (GAPBS `Link`).
#[inline]
fn link(u: VertexId, v: VertexId, comp: &[AtomicU32]) {
    let mut p1 = comp[u as usize].load(Relaxed);
    let mut p2 = comp[v as usize].load(Relaxed);
    while p1 != p2 {
        let (high, low) = if p1 > p2 { (p1, p2) } else { (p2, p1) };
        let p_high = comp[high as usize].load(Relaxed);
        if p_high == low
            || (p_high == high
                && comp[high as usize]
                    .compare_exchange(high, low, Relaxed, Relaxed)
                    .is_ok())
        {
            break;
        }
        p1 = comp[comp[high as usize].load(Relaxed) as usize].load(Relaxed);
        p2 = comp[low as usize].load(Relaxed);
    }
}

/// Pointer jumping until every vertex points at its root.
fn compress(comp: &[AtomicU32]) {
    comp.par_iter().for_each(|slot| {
        loop {
            let parent = slot.load(Relaxed);
            let grandparent = comp[parent as usize].load(Relaxed);
            if parent == grandparent {
                break;
            }
            slot.store(grandparent, Relaxed);
        }
    });
}

/// The most frequent label among `samples` random vertices.
fn sample_frequent_label(comp: &[AtomicU32], samples: usize, seed: u64) -> VertexId {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut counts: HashMap<VertexId, usize> = HashMap::new();
    for _ in 0..samples {
        let v = rng.random_range(0..comp.len());
        *counts.entry(comp[v].load(Relaxed)).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|&(label, count)| (count, std::cmp::Reverse(label)))
        .map_or(0, |(label, _)| label)
}

fn afforest<G>(graph: &G, options: &ComponentsOptions) -> ComponentsResult
where
    G: OutNeighbors + InEdges + Sync,
{
    let n = graph.vertex_count();
    let comp: Vec<AtomicU32> = vertices(n).map(AtomicU32::new).collect();
    let rounds = options.neighbor_rounds;
    for round in 0..rounds {
        vertices(n).for_each(|u| {
            if let Some(v) = graph.out_neighbors(u).nth(round) {
                link(u, v, &comp);
            }
        });
        compress(&comp);
    }
    // Skipping the largest component is only sound when the skipped
    // vertices' in-edges are linked from the other side: it needs them.
    let incoming = graph
        .in_edges()
        .ok()
        .filter(|_| n > 0 && options.samples > 0);
    let skip_largest = incoming.is_some();
    let largest = if skip_largest {
        sample_frequent_label(&comp, options.samples, options.seed)
    } else {
        VertexId::MAX
    };
    vertices(n).for_each(|u| {
        if skip_largest && comp[u as usize].load(Relaxed) == largest {
            return;
        }
        for v in graph.out_neighbors(u).skip(rounds) {
            link(u, v, &comp);
        }
        if let Some(incoming) = incoming {
            for v in incoming.in_neighbors(u) {
                link(u, v, &comp);
            }
        }
    });
    compress(&comp);
    ComponentsResult {
        labels: into_plain_u32(comp),
        algorithm: ComponentsAlgorithm::Afforest,
        skipped_largest: skip_largest,
    }
}

fn shiloach_vishkin<G: OutNeighbors + Sync>(graph: &G) -> Vec<VertexId> {
    let n = graph.vertex_count();
    let comp: Vec<AtomicU32> = vertices(n).map(AtomicU32::new).collect();
    let changed = AtomicBool::new(true);
    while changed.swap(false, Relaxed) {
        // Hooking: a root adopts a smaller neighbouring label. The racy
        // read-then-store is GAPBS's; a lost update is redone next round.
        vertices(n).for_each(|u| {
            for v in graph.out_neighbors(u) {
                let comp_u = comp[u as usize].load(Relaxed);
                let comp_v = comp[v as usize].load(Relaxed);
                if comp_u == comp_v {
                    continue;
                }
                let (high, low) = if comp_u > comp_v {
                    (comp_u, comp_v)
                } else {
                    (comp_v, comp_u)
                };
                if comp[high as usize].load(Relaxed) == high {
                    changed.store(true, Relaxed);
                    comp[high as usize].store(low, Relaxed);
                }
            }
        });
        compress(&comp);
    }
    into_plain_u32(comp)
}

/// Serial union-find over every out-edge: the partition
/// [`verify_components`] compares against. Returns each vertex's root.
pub fn serial_union_find<G: OutNeighbors>(graph: &G) -> Vec<VertexId> {
    let n = graph.vertex_count();
    let mut parent: Vec<VertexId> = (0..n as VertexId).collect();
    fn find(parent: &mut [VertexId], mut v: VertexId) -> VertexId {
        while parent[v as usize] != v {
            let grandparent = parent[parent[v as usize] as usize];
            parent[v as usize] = grandparent;
            v = grandparent;
        }
        v
    }
    for u in 0..n as VertexId {
        for v in graph.out_neighbors(u) {
            let (a, b) = (find(&mut parent, u), find(&mut parent, v));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        }
    }
    (0..n as VertexId).map(|v| find(&mut parent, v)).collect()
}

/// Checks component labels against [`serial_union_find`]: two vertices
/// share a label exactly when union-find puts them in one set, and every
/// label is a vertex id.
pub fn verify_components<G: OutNeighbors>(
    graph: &G,
    result: &ComponentsResult,
) -> Result<(), VerifyError> {
    const K: &str = "components";
    let n = graph.vertex_count();
    if result.labels.len() != n {
        return Err(VerifyError::new(
            K,
            format!("{} labels for {n} vertices", result.labels.len()),
        ));
    }
    let roots = serial_union_find(graph);
    // label -> root and root -> label must both be functions.
    let mut root_of_label = vec![VertexId::MAX; n];
    let mut label_of_root = vec![VertexId::MAX; n];
    for (v, (&label, &root)) in result.labels.iter().zip(&roots).enumerate() {
        if label as usize >= n {
            return Err(VerifyError::at(
                K,
                v as VertexId,
                format!("label {label} is not a vertex"),
            ));
        }
        if root_of_label[label as usize] == VertexId::MAX {
            root_of_label[label as usize] = root;
        } else if root_of_label[label as usize] != root {
            return Err(VerifyError::at(
                K,
                v as VertexId,
                format!("label {label} is shared by two union-find components"),
            ));
        }
        if label_of_root[root as usize] == VertexId::MAX {
            label_of_root[root as usize] = label;
        } else if label_of_root[root as usize] != label {
            return Err(VerifyError::at(
                K,
                v as VertexId,
                format!(
                    "its union-find component has labels {} and {label}",
                    label_of_root[root as usize]
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::atomic_u32_vec;

    #[test]
    fn link_and_compress_join_chains() {
        let comp = atomic_u32_vec(6, 0);
        for (v, slot) in comp.iter().enumerate() {
            slot.store(v as u32, Relaxed);
        }
        link(5, 4, &comp);
        link(4, 1, &comp);
        link(3, 2, &comp);
        compress(&comp);
        assert_eq!(into_plain_u32(comp), [0, 1, 2, 2, 1, 1]);
    }
}
