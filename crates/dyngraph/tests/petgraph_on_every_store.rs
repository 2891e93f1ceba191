//! Issue 25: petgraph's algorithms take every store and snapshot view
//! directly (`tarjan_scc(&vcsr)`, `Dot::new(&view)`), and each answers as
//! petgraph's own algorithm does on a `petgraph::Graph` of the same edges:
//! `Dot` (parsed back to the same edges), `min_spanning_tree`,
//! `tarjan_scc`, `kosaraju_scc`, `dijkstra` and `toposort`, on the bundled
//! CollegeMsg and on sx-mathoverflow when `../shared/data` has it.

use dyngraph::core::cow::CowView;
use dyngraph::core::{CsrRebuild, CsrView, Semantics, StoreConfig, StoreOptions};
use dyngraph::durable::DurableVcsr;
use dyngraph::loader::{LoadOptions, load_edge_stream};
use dyngraph::prelude::*;
use dyngraph::stores::StoreKind;
use dyngraph::{csrpp::CsrPPView, vcsr::VcsrView};
use petgraph::algo::{dijkstra, kosaraju_scc, min_spanning_tree, tarjan_scc, toposort};
use petgraph::data::Element;
use petgraph::dot::Dot;
use petgraph::visit::{
    Data, EdgeCount, EdgeRef, GetAdjacencyMatrix, GraphBase, GraphProp, IntoEdges,
    IntoNeighborsDirected, IntoNodeIdentifiers, IntoNodeReferences, NodeCount, NodeIndexable,
    Visitable,
};
use std::collections::HashMap;
use std::path::PathBuf;

type Reference = petgraph::Graph<(), f32, petgraph::Directed, u32>;

/// petgraph's answers on its own `Graph`, computed once per file.
struct Expected {
    edges: Vec<WeightedEdge>,
    vertex_count: usize,
    source: u32,
    sccs: Vec<Vec<u32>>,
    distances: HashMap<u32, f64>,
    /// Edges and total weight of a minimum spanning forest.
    forest: (usize, f64),
    /// Whether petgraph's `toposort` finds an order (no cycle).
    acyclic: bool,
}

fn reference_of(edges: &[WeightedEdge], n: usize) -> Reference {
    let mut graph = Reference::with_capacity(n, edges.len());
    for _ in 0..n {
        graph.add_node(());
    }
    for e in edges {
        graph.add_edge(e.src.into(), e.dst.into(), e.weight);
    }
    graph
}

fn normalized(mut sccs: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    sccs.iter_mut().for_each(|scc| scc.sort_unstable());
    sccs.sort();
    sccs
}

/// Edge count and total weight of the forest in `elements`, after checking
/// it is a forest (no edge closes a cycle).
fn forest_of(elements: impl Iterator<Item = Element<impl Sized, f32>>, n: usize) -> (usize, f64) {
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut v: usize) -> usize {
        while parent[v] != v {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        v
    }
    let (mut count, mut total) = (0, 0.0);
    for element in elements {
        if let Element::Edge {
            source,
            target,
            weight,
        } = element
        {
            let (a, b) = (root(&mut parent, source), root(&mut parent, target));
            assert_ne!(
                a, b,
                "the spanning forest has a cycle through {source}-{target}"
            );
            parent[a] = b;
            count += 1;
            total += f64::from(weight);
        }
    }
    (count, total)
}

impl Expected {
    fn new(edges: Vec<WeightedEdge>) -> Self {
        let n = edges
            .iter()
            .map(|e| e.src.max(e.dst) as usize + 1)
            .max()
            .unwrap_or(0);
        let graph = reference_of(&edges, n);
        let source = edges[0].src;
        let sccs = normalized(
            tarjan_scc(&graph)
                .into_iter()
                .map(|scc| scc.into_iter().map(|v| v.index() as u32).collect())
                .collect(),
        );
        let distances = dijkstra(&graph, source.into(), None, |e| f64::from(*e.weight()))
            .into_iter()
            .map(|(v, d)| (v.index() as u32, d))
            .collect();
        let forest = forest_of(min_spanning_tree(&graph), n);
        let acyclic = toposort(&graph, None).is_ok();
        Expected {
            edges,
            vertex_count: n,
            source,
            sccs,
            distances,
            forest,
            acyclic,
        }
    }

    fn sorted_edges(&self) -> Vec<(u32, u32, u32)> {
        let mut edges: Vec<_> = self
            .edges
            .iter()
            .map(|e| (e.src, e.dst, e.weight.to_bits()))
            .collect();
        edges.sort_unstable();
        edges
    }
}

/// The edges in `Dot`'s output, parsed back: every line is a node
/// `i [ label = "i" ]` or an edge `s -> t [ label = "w" ]`.
fn parse_dot(text: &str, n: usize) -> Vec<(u32, u32, u32)> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("digraph {"));
    assert_eq!(text.lines().last(), Some("}"));
    let (mut nodes, mut edges) = (0, Vec::new());
    for line in lines.filter(|line| *line != "}") {
        let (head, label) = line
            .trim()
            .strip_suffix("\" ]")
            .and_then(|l| l.split_once(" [ label = \""))
            .unwrap_or_else(|| panic!("not a Dot node or edge line: {line:?}"));
        match head.split_once(" -> ") {
            Some((s, t)) => {
                let weight: f32 = label.parse().expect("an f32 label");
                edges.push((s.parse().unwrap(), t.parse().unwrap(), weight.to_bits()));
            }
            None => {
                assert_eq!(head, label, "a node's label is its id");
                assert_eq!(head.parse::<usize>().unwrap(), nodes, "nodes in order");
                nodes += 1;
            }
        }
    }
    assert_eq!(nodes, n, "Dot node count");
    edges.sort_unstable();
    edges
}

/// Graphs up to this many vertices also run what walks edges backwards on
/// stores without in-edges (Kosaraju, toposort), which then scan.
const SCAN_VERTICES: usize = 5_000;

/// Every algorithm on `g` against petgraph's on its `Graph`.
fn check<G>(name: &str, g: G, expected: &Expected)
where
    G: IntoNeighborsDirected
        + IntoEdges
        + IntoNodeReferences
        + GraphBase<NodeId = u32>
        + Data<NodeWeight = u32, EdgeWeight = f32>
        + NodeIndexable
        + NodeCount
        + EdgeCount
        + GraphProp
        + Visitable
        + GetAdjacencyMatrix
        + ReadGraph,
{
    let n = expected.vertex_count;
    assert_eq!(NodeCount::node_count(&g), n, "{name}: node_count");
    assert_eq!(NodeIndexable::node_bound(&g), n, "{name}: node_bound");
    assert_eq!(
        EdgeCount::edge_count(&g),
        expected.edges.len(),
        "{name}: edge_count"
    );
    assert!(g.is_directed());

    let dot = format!("{}", Dot::new(g));
    assert_eq!(parse_dot(&dot, n), expected.sorted_edges(), "{name}: Dot");

    assert_eq!(
        normalized(tarjan_scc(g)),
        expected.sccs,
        "{name}: tarjan_scc"
    );
    // Without in-edges each in-neighbour list is a scan of the out-lists
    // (O(V + E) per vertex): on the small file only.
    if g.has_in_edges() || n <= SCAN_VERTICES {
        assert_eq!(
            normalized(kosaraju_scc(g)),
            expected.sccs,
            "{name}: kosaraju_scc"
        );
        assert_eq!(
            toposort(g, None).is_ok(),
            expected.acyclic,
            "{name}: toposort"
        );
    }

    let distances: HashMap<u32, f64> =
        dijkstra(g, expected.source, None, |e| f64::from(*e.weight()))
            .into_iter()
            .collect();
    assert_eq!(distances, expected.distances, "{name}: dijkstra");

    let elements: Vec<_> = min_spanning_tree(g).collect();
    let nodes = elements
        .iter()
        .filter(|e| matches!(e, Element::Node { .. }));
    assert_eq!(nodes.count(), n, "{name}: min_spanning_tree nodes");
    assert_eq!(
        forest_of(elements.into_iter(), n),
        expected.forest,
        "{name}: min_spanning_tree (edges, weight)"
    );

    let matrix = g.adjacency_matrix();
    let e = expected.edges[expected.edges.len() / 2];
    assert!(g.is_adjacent(&matrix, e.src, e.dst), "{name}: is_adjacent");
}

/// `toposort` on `dag` (a DAG) gives an order of every vertex that every
/// edge follows, and finds no cycle, as petgraph's on its `Graph`.
fn check_toposort<G>(name: &str, dag: G, dag_edges: &[WeightedEdge])
where
    G: IntoNeighborsDirected
        + IntoNodeIdentifiers
        + GraphBase<NodeId = u32>
        + NodeCount
        + Visitable,
{
    let n = NodeCount::node_count(&dag);
    let order = toposort(dag, None).unwrap_or_else(|c| panic!("{name}: a cycle at {c:?}"));
    assert!(toposort(&reference_of(dag_edges, n), None).is_ok());
    assert_eq!(order.len(), n, "{name}: toposort covers every vertex");
    let mut position = vec![usize::MAX; n];
    for (i, &v) in order.iter().enumerate() {
        position[v as usize] = i;
    }
    for e in dag_edges {
        assert!(
            position[e.src as usize] < position[e.dst as usize],
            "{name}: toposort puts {} after {}",
            e.src,
            e.dst
        );
    }
}

fn options<O: StoreConfig>(in_edges: bool) -> O {
    O::from_shared(
        StoreOptions::new(Semantics::Multigraph)
            .weighted(true)
            .in_edges(in_edges),
    )
}

fn build<S: FromEdges>(edges: &[WeightedEdge], in_edges: bool) -> S {
    S::from_edges(edges, options(in_edges)).expect("a store of the edges")
}

/// Changes `store` after a snapshot: deletes the first 100 edges and
/// inserts a heavy edge that would join components, in one batch.
fn churn<S: DynamicStore>(store: &mut S, expected: &Expected) {
    for e in &expected.edges[..100] {
        assert!(store.delete_edge(e.src, e.dst).unwrap());
    }
    let last = expected.vertex_count as u32 - 1;
    store.insert_weighted_edge(last, 0, 1e6).unwrap();
    store.end_batch().unwrap(); // CsrRebuild's reads change here
    assert_ne!(store.edge_count(), expected.edges.len() as u64);
}

/// Every store of the registry and a snapshot view of each, taken before
/// [`churn`], then `Csr`. The match has no catch-all arm: a store added to
/// the registry does not compile here until it is checked.
fn check_every_store(expected: &Expected) {
    let edges = &expected.edges;
    let dag: Vec<WeightedEdge> = edges.iter().copied().filter(|e| e.src < e.dst).collect();
    let n = expected.vertex_count;

    macro_rules! store {
        ($name:expr, $ty:ty, $view:ty, $in_edges:expr) => {{
            let mut store: $ty = build(edges, $in_edges);
            assert_eq!(store.vertex_count(), n);
            check($name, &store, expected);
            if $in_edges || n <= SCAN_VERTICES {
                check_toposort($name, &build::<$ty>(&dag, $in_edges), &dag);
            }
            let snapshot = store.snapshot();
            churn(&mut store, expected);
            let view: $view = store.view(&snapshot).unwrap();
            check(&format!("{} view", $name), &view, expected);
        }};
    }
    let mut checked = Vec::new();
    for &kind in StoreKind::ALL {
        let name = kind.type_name();
        match kind {
            StoreKind::Vcsr => store!(name, Vcsr, VcsrView<'_>, true),
            StoreKind::Pcsr => store!(name, Pcsr, CowView<'_, Pcsr>, true),
            StoreKind::Bal => store!(name, Bal, CowView<'_, Bal>, true),
            StoreKind::Csrpp => store!(name, CsrPP, CsrPPView<'_>, true),
            StoreKind::CsrRebuild => store!(name, CsrRebuild, CsrView<'_>, true),
            // Without in-edges: Kosaraju and toposort find in-neighbours by
            // a scan of the out-lists.
            StoreKind::Durable => store!(name, DurableVcsr, CowView<'_, DurableVcsr>, false),
        }
        checked.push(name);
    }
    assert_eq!(checked.len(), StoreKind::ALL.len());

    let csr: Csr = build(edges, true);
    check("Csr", &csr, expected);
    check("CsrView", &csr.view(), expected);
    check_toposort("Csr", &build::<Csr>(&dag, true), &dag);
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn petgraph_algorithms_on_every_store_equal_petgraph_on_college_msg() {
    let stream =
        load_edge_stream(root().join("data/CollegeMsg.txt"), &LoadOptions::default()).unwrap();
    // Timestamps are not weights: a small integer weight of each edge's own.
    let edges = (0..stream.len())
        .map(|i| {
            let e = stream.edge(i);
            WeightedEdge::new(e.src, e.dst, (1 + (e.src ^ e.dst) % 7) as f32)
        })
        .collect();
    check_every_store(&Expected::new(edges));
}

#[test]
fn petgraph_algorithms_on_every_store_equal_petgraph_on_sx_mathoverflow() {
    let dir = root().join("../shared/data/sx-mathoverflow/b30");
    if !dir.is_dir() {
        eprintln!("note: {} is absent; skipping", dir.display());
        return;
    }
    let mut edges = Vec::new();
    for part in ["base.wel", "dynamic.wel"] {
        let stream = load_edge_stream(dir.join(part), &LoadOptions::default()).unwrap();
        edges.extend(stream.weighted_edges());
    }
    assert_eq!(edges.len(), 375_972);
    check_every_store(&Expected::new(edges));
}
