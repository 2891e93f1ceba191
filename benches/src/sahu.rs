//! Sahu's comparison of graph libraries (`../shared/papers/002_…`), in
//! Rust: the inputs, the update batches and the peers' side of the
//! `sahu` criterion bench (`benches/benches/sahu.rs`).
//!
//! The tasks: load from text; clone; batch inserts and batch deletes, in
//! place and into a new instance, with batch sizes from `10^-7 |E|` to
//! `10^-1 |E|` in powers of ten; and 42-step reverse walks and PageRank on
//! the updated graph. dyngraph's stores are driven through the store
//! contract (`dyngraph-core`) and its kernels (`dyngraph-kernels`); the
//! peers (petgraph's `StableGraph`, `GraphMap` and `Csr`, graph_builder's
//! `DirectedCsrGraph`) through their own APIs, used as their docs show.

use crate::replay::{bundled_sample, read_edges, shared_data};
use crate::uniform_edges;
use dyngraph::core::{Edge, VertexId};
use dyngraph::loader::{EdgeStream, Format, Generator, Order, write_edges};
use graph_builder::prelude::{CsrLayout, DirectedCsrGraph, DirectedNeighbors, GraphBuilder};
use petgraph::graph::NodeIndex;
use petgraph::prelude::{DiGraphMap, StableDiGraph};
use rand::seq::index;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::path::PathBuf;

/// Reverse-walk length of Sahu's comparison.
pub const WALK_STEPS: usize = 42;

/// One input graph of the comparison.
#[derive(Clone, Debug)]
pub struct SahuInput {
    /// Name for groups and tables (`kron20`, `uniform20`, ...).
    pub name: String,
    /// Edges in arrival order.
    pub edges: Vec<Edge>,
    /// Vertices: one past the largest id.
    pub vertex_count: usize,
}

impl SahuInput {
    fn new(name: &str, edges: Vec<Edge>) -> Self {
        let vertex_count = edges
            .par_iter()
            .map(|e| e.src.max(e.dst) as usize + 1)
            .max()
            .unwrap_or(0);
        SahuInput {
            name: name.into(),
            edges,
            vertex_count,
        }
    }

    /// The batch sizes of the comparison: `10^-7 |E|` to `10^-1 |E|` in
    /// powers of ten, each at least one edge, without repeats.
    pub fn batch_sizes(&self) -> Vec<usize> {
        let mut sizes: Vec<usize> = (1..=7)
            .rev()
            .map(|exponent| ((self.edges.len() as f64) / 10f64.powi(exponent)).round() as usize)
            .map(|size| size.max(1))
            .collect();
        sizes.dedup();
        sizes
    }

    /// `size` new edges with endpoints drawn uniformly from the input's
    /// vertices (seeded by the size, so every structure gets the same
    /// batch).
    pub fn insert_batch(&self, size: usize) -> Vec<Edge> {
        self.insert_batches(size, 1).remove(0)
    }

    /// `count` insert batches of `size` new edges each (the first is
    /// [`SahuInput::insert_batch`]).
    pub fn insert_batches(&self, size: usize, count: usize) -> Vec<Vec<Edge>> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5A40 ^ size as u64);
        let n = self.vertex_count.max(1) as VertexId;
        (0..count.max(1))
            .map(|_| {
                (0..size)
                    .map(|_| Edge::new(rng.random_range(0..n), rng.random_range(0..n)))
                    .collect()
            })
            .collect()
    }

    /// `size` distinct edges of the input (by position), in random order:
    /// every delete hits an edge that is there.
    pub fn delete_batch(&self, size: usize) -> Vec<Edge> {
        self.delete_batches(size, 1).remove(0)
    }

    /// `count` disjoint delete batches of `size` edges of the input each
    /// (fewer batches when the input runs out).
    pub fn delete_batches(&self, size: usize, count: usize) -> Vec<Vec<Edge>> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xDE1E ^ size as u64);
        let size = size.clamp(1, self.edges.len().max(1));
        let count = count.clamp(1, (self.edges.len() / size).max(1));
        let picked = index::sample(
            &mut rng,
            self.edges.len(),
            (size * count).min(self.edges.len()),
        );
        let picked: Vec<Edge> = picked.into_iter().map(|i| self.edges[i]).collect();
        picked.chunks(size).map(<[Edge]>::to_vec).collect()
    }

    /// How many distinct batches of `size` one in-place measurement
    /// applies in turn to one copy of the input: as many as keep the
    /// graph within 1 % of its size (at least one). The `sahu` bench's
    /// in-place protocol.
    pub fn batches_within_one_percent(&self, size: usize) -> usize {
        (self.edges.len() / 100 / size.max(1)).max(1)
    }

    /// [`SahuInput::batches_within_one_percent`], at most 1,000: the
    /// `clone_cost` example's batch rows.
    pub fn batches_per_copy(&self, size: usize) -> usize {
        self.batches_within_one_percent(size).min(1_000)
    }

    /// The input written as a whitespace edge list and as Matrix Market
    /// (`coordinate pattern general`, 1-based) under
    /// `target/bench-data/`, written once and reused; the load task reads
    /// them.
    pub fn text_files(&self) -> (PathBuf, PathBuf) {
        let dir = bench_data_dir();
        let stream = EdgeStream::from_edges(&self.edges);
        let mut paths = [Format::EdgeList, Format::MatrixMarket].map(|format| {
            let path = dir.join(format!("sahu-{}.{}", self.name, format.extension()));
            if !path.exists() {
                // A temporary name first, so an interrupted run never leaves
                // a truncated file to be reused.
                let partial = path.with_extension("partial");
                write_edges(&partial, &stream, format).expect("write bench file");
                std::fs::rename(&partial, &path).expect("rename bench file");
            }
            path
        });
        let mtx = std::mem::take(&mut paths[1]);
        let el = std::mem::take(&mut paths[0]);
        (el, mtx)
    }
}

/// `target/bench-data/` (or under `CARGO_TARGET_DIR`), created.
pub fn bench_data_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../target").into());
    let dir = target.join("bench-data");
    std::fs::create_dir_all(&dir).expect("create target/bench-data");
    dir
}

/// The inputs: a Kronecker graph (Graph500 initiator, GAPBS `-g`) at
/// `scale`, a uniform one (GAPBS `-u`) at `uniform_scale`, both with
/// `edge_factor` edges per vertex, and the real streams of `../shared/data`
/// when present (else the bundled CollegeMsg). `names` filters them by name
/// (comma-separated prefixes, e.g. `kron,mathoverflow`).
pub fn sahu_inputs(
    scale: u32,
    uniform_scale: u32,
    edge_factor: u32,
    names: Option<&str>,
) -> Vec<SahuInput> {
    let wanted =
        |name: &str| names.is_none_or(|list| list.split(',').any(|w| name.starts_with(w.trim())));
    let mut inputs = Vec::new();
    let kron = format!("kron{scale}");
    if wanted(&kron) {
        let edges = Generator::kronecker(scale, edge_factor)
            .seed(1)
            .order(Order::Shuffle)
            .generate()
            .expect("a Kronecker scale the generator accepts")
            .edges()
            .collect();
        inputs.push(SahuInput::new(&kron, edges));
    }
    let uniform = format!("uniform{uniform_scale}");
    if wanted(&uniform) {
        let edges = uniform_edges(1 << uniform_scale, edge_factor, 7);
        inputs.push(SahuInput::new(&uniform, edges));
    }
    match shared_data() {
        Some(dir) => {
            if wanted("mathoverflow") {
                let math = dir.join("sx-mathoverflow/b30");
                let mut edges = read_edges(&math.join("base.wel"));
                edges.extend(read_edges(&math.join("dynamic.wel")));
                inputs.push(SahuInput::new("mathoverflow", edges));
            }
            if wanted("college") {
                inputs.push(SahuInput::new(
                    "college",
                    read_edges(&dir.join("CollegeMsg.txt")),
                ));
            }
        }
        None => {
            if wanted("college") {
                println!(
                    "note: ../shared/data is absent; the real streams are the bundled CollegeMsg only"
                );
                inputs.push(SahuInput::new("college", read_edges(&bundled_sample())));
            }
        }
    }
    inputs
}

/// petgraph's `StableGraph` (edge removals keep indices stable: the type
/// Sahu's comparison used for updates), `vertex_count` nodes.
pub fn stable_graph(vertex_count: usize, edges: &[Edge]) -> StableDiGraph<(), (), u32> {
    let mut graph = StableDiGraph::with_capacity(vertex_count, edges.len());
    for _ in 0..vertex_count {
        graph.add_node(());
    }
    for e in edges {
        graph.add_edge(
            NodeIndex::new(e.src as usize),
            NodeIndex::new(e.dst as usize),
            (),
        );
    }
    graph
}

/// Inserts a batch into a `StableGraph`, one `add_edge` at a time.
pub fn stable_graph_insert(graph: &mut StableDiGraph<(), (), u32>, batch: &[Edge]) {
    for e in batch {
        graph.add_edge(
            NodeIndex::new(e.src as usize),
            NodeIndex::new(e.dst as usize),
            (),
        );
    }
}

/// Deletes a batch from a `StableGraph`: `find_edge` then `remove_edge`,
/// one occurrence per entry.
pub fn stable_graph_delete(graph: &mut StableDiGraph<(), (), u32>, batch: &[Edge]) {
    for e in batch {
        if let Some(edge) = graph.find_edge(
            NodeIndex::new(e.src as usize),
            NodeIndex::new(e.dst as usize),
        ) {
            graph.remove_edge(edge);
        }
    }
}

/// petgraph's `GraphMap` (a simple graph: repeated pairs collapse).
pub fn graph_map(vertex_count: usize, edges: &[Edge]) -> DiGraphMap<u32, ()> {
    let mut graph = DiGraphMap::with_capacity(vertex_count, edges.len());
    for v in 0..vertex_count as u32 {
        graph.add_node(v);
    }
    for e in edges {
        graph.add_edge(e.src, e.dst, ());
    }
    graph
}

/// petgraph's `Csr`, built from sorted edges as its docs show. It is a
/// simple graph (`from_sorted_edges` wants each pair once, `add_edge`
/// refuses a repeat), so repeated pairs collapse.
pub fn petgraph_csr(
    vertex_count: usize,
    edges: &[Edge],
) -> petgraph::csr::Csr<(), (), petgraph::Directed, u32> {
    let mut sorted: Vec<(u32, u32)> = edges.par_iter().map(|e| (e.src, e.dst)).collect();
    sorted.par_sort_unstable();
    sorted.dedup();
    let mut graph = petgraph::csr::Csr::from_sorted_edges(&sorted).expect("sorted edges");
    while graph.node_count() < vertex_count {
        graph.add_node(());
    }
    graph
}

/// graph_builder's `DirectedCsrGraph` (out- and in-edges) from an edge
/// list, as its builder is used to rebuild after a batch. It sizes the
/// graph by the largest id it sees, so isolated vertices past it are not
/// there.
pub fn graph_builder_graph(edges: &[Edge]) -> DirectedCsrGraph<u32> {
    let pairs: Vec<(u32, u32)> = edges.par_iter().map(|e| (e.src, e.dst)).collect();
    GraphBuilder::new()
        .csr_layout(CsrLayout::Unsorted)
        .edges(pairs)
        .build()
}

/// `steps`-step reverse walks on any graph whose out-neighbours `out(u)`
/// yields, parallel over vertices as dyngraph's kernel: the peers' side of
/// the walk task (petgraph and graph_builder ship no such kernel).
pub fn reverse_walks_with<I>(
    vertex_count: usize,
    steps: usize,
    out: impl Fn(usize) -> I + Sync,
) -> Vec<f64>
where
    I: Iterator<Item = usize>,
{
    let mut current = vec![1.0f64; vertex_count];
    let mut next = vec![0.0f64; vertex_count];
    for _ in 0..steps {
        next.par_iter_mut().enumerate().for_each(|(u, visits)| {
            *visits = out(u).map(|v| current[v]).sum();
        });
        std::mem::swap(&mut current, &mut next);
    }
    current
}

/// Reverse walks on graph_builder's graph.
pub fn graph_builder_walks(graph: &DirectedCsrGraph<u32>, steps: usize) -> Vec<f64> {
    use graph_builder::prelude::Graph as _;
    reverse_walks_with(graph.node_count() as usize, steps, |u| {
        graph.out_neighbors(u as u32).map(|&v| v as usize)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyngraph::core::{Csr, CsrOptions};
    use dyngraph::kernels::{ReverseWalkOptions, reverse_walks};

    fn small() -> SahuInput {
        SahuInput::new("small", uniform_edges(64, 4, 3))
    }

    #[test]
    fn batch_sizes_are_powers_of_ten_of_the_edges_at_least_one() {
        let input = SahuInput::new("ten-million", vec![Edge::new(0, 1); 10_000_000]);
        assert_eq!(
            input.batch_sizes(),
            [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]
        );
        assert_eq!(small().batch_sizes(), [1, 3, 26]);
    }

    #[test]
    fn in_place_copies_take_batches_up_to_one_percent_growth() {
        let input = SahuInput::new("ten-million", vec![Edge::new(0, 1); 10_000_000]);
        assert_eq!(input.batches_within_one_percent(1), 100_000);
        assert_eq!(input.batches_within_one_percent(1_000), 100);
        assert_eq!(input.batches_within_one_percent(1_000_000), 1);
        assert_eq!(input.batches_per_copy(1), 1_000);
        assert_eq!(input.batches_per_copy(1_000), 100);
        assert_eq!(small().batches_within_one_percent(26), 1);
    }

    #[test]
    fn delete_batches_name_edges_that_are_there_and_are_repeatable() {
        let input = small();
        let batch = input.delete_batch(26);
        assert_eq!(batch.len(), 26);
        assert!(batch.iter().all(|e| input.edges.contains(e)));
        assert_eq!(batch, input.delete_batch(26));
        let batches = input.delete_batches(5, 4);
        assert_eq!(batches.iter().map(Vec::len).sum::<usize>(), 20);
        // Disjoint positions: no pair is deleted more often than it occurs.
        for e in batches.iter().flatten() {
            let wanted = batches.iter().flatten().filter(|x| *x == e).count();
            assert!(wanted <= input.edges.iter().filter(|x| *x == e).count());
        }
        assert_eq!(input.insert_batches(3, 2)[0], input.insert_batch(3));
        let inserts = input.insert_batch(10);
        assert!(
            inserts
                .iter()
                .all(|e| (e.src.max(e.dst) as usize) < input.vertex_count)
        );
    }

    #[test]
    fn peers_walks_equal_dyngraphs_kernel() {
        let input = small();
        let csr = Csr::from_edges(
            &input.edges,
            CsrOptions::default().vertex_count(input.vertex_count),
        )
        .unwrap();
        let ours = reverse_walks(&csr, &ReverseWalkOptions { steps: 5 })
            .expect("walks")
            .visits;
        let stable = stable_graph(input.vertex_count, &input.edges);
        let theirs = reverse_walks_with(input.vertex_count, 5, |u| {
            stable.neighbors(NodeIndex::new(u)).map(|v| v.index())
        });
        assert_eq!(ours, theirs);
        let builder = graph_builder_graph(&input.edges);
        let walks = graph_builder_walks(&builder, 5);
        assert_eq!(&ours[..walks.len()], &walks[..]);
    }

    #[test]
    fn stable_graph_updates_match_the_batches() {
        let input = small();
        let mut graph = stable_graph(input.vertex_count, &input.edges);
        stable_graph_delete(&mut graph, &input.delete_batch(26));
        assert_eq!(graph.edge_count(), input.edges.len() - 26);
        stable_graph_insert(&mut graph, &input.insert_batch(10));
        assert_eq!(graph.edge_count(), input.edges.len() - 16);
    }
}
