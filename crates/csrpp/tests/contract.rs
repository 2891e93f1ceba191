//! `CsrPP` on the store contract: `dyngraph_core::testing::check_contract`
//! (bulk build, single and batch updates from slices and columns,
//! snapshots taken mid-stream, `edges()`, `to_csr()`, capabilities) over
//! every combination of semantics × in-edges × weights, with the default
//! segments and with segments of one and two vertices (so segments are
//! added while snapshots are alive); the capability errors of a store
//! built without in-edges or weights; and snapshots over real data.

mod common;

use dyngraph_core::StoreConfig;
use dyngraph_core::testing::{Op, check_contract, ops, weighted_edges};
use dyngraph_core::{
    Capability, Csr, CsrOptions, Edge, EdgeChunk, EdgeSource, EdgeWeights, Error, FromEdges, Graph,
    GraphStore, GraphUpdate, InEdges, OutNeighbors, Result, Semantics, Snapshots, StoreOptions,
    UpdateReport, VertexId, Weight, WeightedEdge, WeightedNeighbors,
};
use dyngraph_csrpp::{CsrPP, CsrPPOptions, CsrPPSnapshot, CsrPPView, DeleteMode};
use proptest::prelude::*;
use std::ops::Range;

/// Every combination of semantics, in-edges and weights.
fn every_store_options() -> Vec<StoreOptions> {
    let mut all = Vec::new();
    for semantics in [Semantics::Multigraph, Semantics::Simple] {
        for in_edges in [false, true] {
            for weighted in [false, true] {
                all.push(
                    StoreOptions::new(semantics)
                        .in_edges(in_edges)
                        .weighted(weighted),
                );
            }
        }
    }
    all
}

/// A `CsrPP` whose options, made from `StoreOptions` as the contract check
/// makes them, have segments of `SEGMENT` vertices: everything else is the
/// store itself.
#[derive(Debug)]
struct Segmented<const SEGMENT: usize>(CsrPP);

#[derive(Clone, Debug)]
struct SegmentedOptions<const SEGMENT: usize>(CsrPPOptions);

impl<const SEGMENT: usize> StoreConfig for SegmentedOptions<SEGMENT> {
    fn from_shared(options: StoreOptions) -> Self {
        Self(CsrPPOptions::from(options).segment_size(SEGMENT))
    }
    fn shared(&self) -> &StoreOptions {
        &self.0.store
    }
    fn shared_mut(&mut self) -> &mut StoreOptions {
        &mut self.0.store
    }
}

impl<const SEGMENT: usize> Graph for Segmented<SEGMENT> {
    fn vertex_count(&self) -> usize {
        self.0.vertex_count()
    }
    fn edge_count(&self) -> u64 {
        self.0.edge_count()
    }
    fn semantics(&self) -> Semantics {
        self.0.semantics()
    }
}

impl<const SEGMENT: usize> OutNeighbors for Segmented<SEGMENT> {
    type OutIter<'a> = <CsrPP as OutNeighbors>::OutIter<'a>;
    fn out_degree(&self, v: VertexId) -> u64 {
        self.0.out_degree(v)
    }
    fn out_neighbors(&self, v: VertexId) -> Self::OutIter<'_> {
        self.0.out_neighbors(v)
    }
}

impl<const SEGMENT: usize> InEdges for Segmented<SEGMENT> {
    type InHandle<'a> = <CsrPP as InEdges>::InHandle<'a>;
    fn in_edges(&self) -> Result<Self::InHandle<'_>> {
        self.0.in_edges()
    }
}

impl<const SEGMENT: usize> EdgeWeights for Segmented<SEGMENT> {
    type WeightHandle<'a> = <CsrPP as EdgeWeights>::WeightHandle<'a>;
    fn edge_weights(&self) -> Result<Self::WeightHandle<'_>> {
        self.0.edge_weights()
    }
}

impl<const SEGMENT: usize> GraphUpdate for Segmented<SEGMENT> {
    fn insert_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.0.insert_edge(src, dst)
    }
    fn insert_weighted_edge(&mut self, src: VertexId, dst: VertexId, w: Weight) -> Result<bool> {
        self.0.insert_weighted_edge(src, dst, w)
    }
    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.0.delete_edge(src, dst)
    }
    fn insert_edges<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<UpdateReport> {
        self.0.insert_edges(edges)
    }
    fn delete_edges<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<UpdateReport> {
        self.0.delete_edges(edges)
    }
    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        self.0.add_vertices(count)
    }
    fn vertex_limit(&self) -> usize {
        self.0.vertex_limit()
    }
}

impl<const SEGMENT: usize> FromEdges for Segmented<SEGMENT> {
    type Options = SegmentedOptions<SEGMENT>;
    fn from_edges<S: EdgeSource + ?Sized>(edges: &S, options: Self::Options) -> Result<Self> {
        CsrPP::from_edges(edges, options.0).map(Self)
    }
}

impl<const SEGMENT: usize> Snapshots for Segmented<SEGMENT> {
    type Snapshot = CsrPPSnapshot;
    type View<'a> = CsrPPView<'a>;
    fn snapshot(&self) -> CsrPPSnapshot {
        self.0.snapshot()
    }
    fn view<'a>(&'a self, snapshot: &'a CsrPPSnapshot) -> Result<Self::View<'a>> {
        self.0.view(snapshot)
    }
}

impl<const SEGMENT: usize> GraphStore for Segmented<SEGMENT> {
    const NAME: &'static str = "CsrPP";
    const CAPABILITIES: dyngraph_core::Capabilities = <CsrPP as GraphStore>::CAPABILITIES;
    fn memory_bytes(&self) -> usize {
        GraphStore::memory_bytes(&self.0)
    }
}

/// The contract check for `S` under every combination of options.
fn check_every_combination<S: dyngraph_core::DynamicStore>(
    base: &[WeightedEdge],
    steps: &[Op],
) -> std::result::Result<(), TestCaseError> {
    for options in every_store_options() {
        check_contract::<S>(options, base, steps)
            .map_err(|e| TestCaseError::fail(format!("{options:?}: {e}")))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Default segments (128 vertices: one segment for these ids).
    #[test]
    fn csrpp_keeps_the_store_contract(
        base in weighted_edges(12, 0..80),
        steps in ops(14, 0..60),
    ) {
        check_every_combination::<CsrPP>(&base, &steps)?;
    }

    /// Segments of one and two vertices: a vertex or two per lock, and new
    /// segments appended while snapshots of fewer vertices are alive. Base
    /// loads past 64 edges take the parallel batch path.
    #[test]
    fn csrpp_keeps_the_store_contract_in_tiny_segments(
        base in weighted_edges(12, 0..80),
        steps in ops(20, 0..60),
    ) {
        check_every_combination::<Segmented<1>>(&base, &steps)?;
        check_every_combination::<Segmented<2>>(&base, &steps)?;
    }
}

/// Batches of more than 64 edges, the parallel path, in and out of a
/// contract check: `ops` draws batches of at most 40, so this drives big
/// batches (as slices and as columns) and big deletes past live snapshots
/// explicitly.
#[test]
fn big_batches_keep_the_contract() {
    let edge = |i: u32| WeightedEdge::new(i * 7 % 50, i * 13 % 47, (i % 9) as Weight);
    let batch = |from: u32, len: u32| (from..from + len).map(edge).collect::<Vec<_>>();
    let steps = vec![
        Op::Snapshot,
        Op::InsertBatch(batch(0, 200)),
        Op::Snapshot,
        Op::InsertColumns(batch(300, 150).iter().map(|e| e.edge()).collect()),
        Op::DeleteBatch(batch(0, 120).iter().map(|e| e.edge()).collect()),
        Op::AddVertices(2),
        Op::Snapshot,
        Op::InsertBatch(batch(1000, 90)),
        Op::DropSnapshot,
        Op::DeleteBatch(batch(290, 170).iter().map(|e| e.edge()).collect()),
    ];
    for options in every_store_options() {
        check_contract::<CsrPP>(options, &batch(5000, 300), &steps)
            .unwrap_or_else(|e| panic!("{options:?}: {e}"));
        check_contract::<Segmented<2>>(options, &batch(5000, 300), &steps)
            .unwrap_or_else(|e| panic!("{options:?}, segments of 2: {e}"));
    }
}

/// A store built without in-edges or weights refuses them — the store, a
/// snapshot's view and the frozen `Csr` — with `Error::MissingCapability`
/// naming the store, never with empty in-lists or unit weights; built with
/// them it answers.
#[test]
fn missing_in_edges_and_weights_are_errors() {
    let edges = [WeightedEdge::new(0, 1, 2.5), WeightedEdge::new(1, 2, 0.5)];
    let bare = CsrPP::from_edges(&edges, CsrPPOptions::default()).unwrap();
    assert_eq!(<CsrPP as GraphStore>::NAME, "CsrPP");
    assert!(matches!(
        bare.in_edges(),
        Err(Error::MissingCapability {
            store: "CsrPP",
            capability: Capability::InEdges
        })
    ));
    assert!(matches!(
        bare.edge_weights(),
        Err(Error::MissingCapability {
            store: "CsrPP",
            capability: Capability::Weights
        })
    ));
    assert!(bare.weighted_edges().is_err());
    assert!(!bare.has_in_edges() && !bare.has_weights());
    let message = bare.in_edges().unwrap_err().to_string();
    assert!(message.contains("CsrPP"), "{message}");

    let snapshot = bare.snapshot();
    let view = bare.view(&snapshot).unwrap();
    assert!(matches!(
        view.in_edges(),
        Err(Error::MissingCapability {
            capability: Capability::InEdges,
            ..
        })
    ));
    assert!(matches!(
        view.edge_weights(),
        Err(Error::MissingCapability {
            capability: Capability::Weights,
            ..
        })
    ));
    let frozen = bare.to_csr().unwrap();
    assert!(frozen.in_edges().is_err() && frozen.edge_weights().is_err());

    let full = CsrPP::from_edges(
        &edges,
        CsrPPOptions::default().in_edges(true).weighted(true),
    )
    .unwrap();
    let weights = full.edge_weights().unwrap();
    assert_eq!(
        weights.out_neighbors_weighted(0).collect::<Vec<_>>(),
        [(1, 2.5)]
    );
    assert!(full.in_edges().is_ok());
    let frozen = full.to_csr().unwrap();
    assert!(frozen.in_edges().is_ok() && frozen.edge_weights().is_ok());
}

/// `from_edges` honours a vertex count the source declares (isolated
/// vertices past the largest id), and refuses one past the limit.
#[test]
fn a_declared_vertex_count_is_honoured() {
    let src = [0, 1];
    let dst = [1, 2];
    let pieces = [EdgeChunk::new(&src, &dst, None).unwrap()];
    let chunks = dyngraph_core::EdgeChunks::new(&pieces).unwrap();
    let graph = CsrPP::from_edges(
        &chunks.clone().with_vertex_count(10),
        CsrPPOptions::default(),
    )
    .unwrap();
    assert_eq!((graph.vertex_count(), graph.edge_count()), (10, 2));
    let refused = CsrPP::from_edges(
        &chunks.with_vertex_count(11),
        CsrPPOptions::default().vertex_limit(10),
    );
    assert!(matches!(refused, Err(Error::VertexLimit { .. })));
}

/// Reads a `src dst weight` file.
fn read_wel(path: &std::path::Path) -> Vec<WeightedEdge> {
    let text = std::fs::read_to_string(path).expect("a readable file");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.split_whitespace();
            let mut next = || fields.next().expect("three fields");
            let src = next().parse().expect("a source id");
            let dst = next().parse().expect("a destination id");
            let weight = next().parse().expect("a weight");
            WeightedEdge::new(src, dst, weight)
        })
        .collect()
}

/// sx-mathoverflow (shared data): the 30 % base loaded with weights and
/// in-edges, a snapshot taken, the other 70 % inserted in 1 % batches as
/// columns (every tenth batch deleted again) with a second snapshot half
/// way, then the store and both views compared with `Csr`s built from the
/// edges of each moment: out-lists, in-lists and weights.
#[test]
fn snapshots_of_sx_mathoverflow_keep_their_moment() {
    let (Some(base), Some(dynamic)) = (
        common::shared_data("sx-mathoverflow/b30/base.wel"),
        common::shared_data("sx-mathoverflow/b30/dynamic.wel"),
    ) else {
        return;
    };
    let (base, dynamic) = (read_wel(&base), read_wel(&dynamic));
    assert_eq!((base.len(), dynamic.len()), (112_792, 263_180));
    let options = CsrPPOptions::default().in_edges(true).weighted(true);
    let mut graph = CsrPP::from_edges(&base, options).unwrap();
    let first = graph.snapshot();
    let mut second = None;
    let mut present: Vec<WeightedEdge> = base.clone();
    let mut at_second = Vec::new();
    let batch_len = (base.len() + dynamic.len()) / 100;
    for (k, batch) in dynamic.chunks(batch_len).enumerate() {
        let src: Vec<VertexId> = batch.iter().map(|e| e.src).collect();
        let dst: Vec<VertexId> = batch.iter().map(|e| e.dst).collect();
        let weights: Vec<Weight> = batch.iter().map(|e| e.weight).collect();
        let columns = EdgeChunk::new(&src, &dst, Some(&weights)).unwrap();
        assert_eq!(
            graph.insert_edges(&columns).unwrap().edges_added,
            batch.len() as u64
        );
        if k % 10 == 9 {
            assert_eq!(
                graph.delete_edges(&columns).unwrap().edges_removed,
                batch.len() as u64
            );
        } else {
            present.extend_from_slice(batch);
        }
        if k == 35 {
            second = Some(graph.snapshot());
            at_second = present.clone();
        }
    }
    let second = second.expect("more than 35 batches");
    let first_view = graph.view(&first).unwrap();
    same_graph(&first_view, &sorted_csr(&base, first_view.vertex_count()))
        .unwrap_or_else(|e| panic!("first snapshot: {e}"));
    let second_view = graph.view(&second).unwrap();
    same_graph(
        &second_view,
        &sorted_csr(&at_second, second_view.vertex_count()),
    )
    .unwrap_or_else(|e| panic!("second snapshot: {e}"));
    same_graph(&graph, &sorted_csr(&present, graph.vertex_count()))
        .unwrap_or_else(|e| panic!("store: {e}"));
}

/// Multigraph batches too big to go one edge at a time into a store that
/// keeps in-edges: their in-lists are grouped from the batch itself, not
/// from what the out-lists took. Repeated edges, a live snapshot, a
/// delete batch between (tombstones under logical deletes), and the
/// defragment maintenance on and off: the store equals `Csr`s of its
/// edges, the view the base.
#[test]
fn big_multigraph_batches_keep_in_lists_the_transpose() {
    let mut state = 7u64;
    let mut edges = |count: usize| -> Vec<WeightedEdge> {
        (0..count)
            .map(|i| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let (a, b) = ((state >> 33) as u32, (state >> 13) as u32);
                // Skewed sources and targets, and repeats.
                WeightedEdge::new(a % 3000 % (1 + b % 400), b % 2500, (i % 7) as Weight)
            })
            .collect()
    };
    let base = edges(20_000);
    let batches: Vec<Vec<WeightedEdge>> = (0..4).map(|_| edges(20_000)).collect();
    for weighted in [false, true] {
        for delete_mode in [DeleteMode::Physical, DeleteMode::Logical] {
            for defragment_after in [None, Some(50)] {
                let options = CsrPPOptions::default()
                    .in_edges(true)
                    .weighted(weighted)
                    .delete_mode(delete_mode)
                    .defragment_after(defragment_after);
                let name = format!("{options:?}");
                let unit = |edges: &[WeightedEdge]| -> Vec<WeightedEdge> {
                    edges
                        .iter()
                        .map(|e| {
                            WeightedEdge::new(e.src, e.dst, if weighted { e.weight } else { 1.0 })
                        })
                        .collect()
                };
                let mut graph = CsrPP::from_edges(&base, options).unwrap();
                let snapshot = graph.snapshot();
                let mut present = unit(&base);
                for (k, batch) in batches.iter().enumerate() {
                    let report = graph.insert_edges(batch).unwrap();
                    assert_eq!(report.edges_added, batch.len() as u64, "{name}");
                    present.extend(unit(batch));
                    if k == 1 {
                        // The oldest occurrence of each goes: the base's.
                        let gone: Vec<Edge> = base[..6_000].iter().map(|e| e.edge()).collect();
                        let removed = graph.delete_edges(&gone).unwrap().edges_removed;
                        assert_eq!(removed, 6_000, "{name}");
                        for e in &gone {
                            let at = present
                                .iter()
                                .position(|p| (p.src, p.dst) == (e.src, e.dst))
                                .expect("present");
                            present.remove(at);
                        }
                    }
                }
                common::check_invariants(&graph).unwrap_or_else(|e| panic!("{name}: {e}"));
                let view = graph.view(&snapshot).unwrap();
                if weighted {
                    same_graph(&graph, &sorted_csr(&present, graph.vertex_count()))
                        .unwrap_or_else(|e| panic!("{name}, store: {e}"));
                    same_graph(&view, &sorted_csr(&base, view.vertex_count()))
                        .unwrap_or_else(|e| panic!("{name}, view: {e}"));
                } else {
                    same_lists(&graph, &sorted_csr(&present, graph.vertex_count()))
                        .unwrap_or_else(|e| panic!("{name}, store: {e}"));
                    same_lists(&view, &sorted_csr(&base, view.vertex_count()))
                        .unwrap_or_else(|e| panic!("{name}, view: {e}"));
                }
            }
        }
    }
}

/// Whether `graph` has `csr`'s vertices, out-lists and in-lists (as
/// sorted multisets), weights aside.
fn same_lists<G: dyngraph_core::ReadGraph>(
    graph: &G,
    csr: &Csr,
) -> std::result::Result<(), String> {
    use dyngraph_core::InNeighbors;
    if graph.vertex_count() != csr.vertex_count() || graph.edge_count() != csr.edge_count() {
        return Err(format!(
            "{} vertices and {} edges, expected {} and {}",
            graph.vertex_count(),
            graph.edge_count(),
            csr.vertex_count(),
            csr.edge_count()
        ));
    }
    let incoming = graph.in_edges().map_err(|e| e.to_string())?;
    let csr_incoming = csr.in_edges().unwrap();
    for v in 0..csr.vertex_count() as VertexId {
        let mut got: Vec<VertexId> = graph.out_neighbors(v).collect();
        let mut want: Vec<VertexId> = csr.out_neighbors(v).collect();
        got.sort_unstable();
        want.sort_unstable();
        if got != want {
            return Err(format!("vertex {v}: out-edges {got:?}, expected {want:?}"));
        }
        let mut got: Vec<VertexId> = incoming.in_neighbors(v).collect();
        let mut want: Vec<VertexId> = csr_incoming.in_neighbors(v).collect();
        got.sort_unstable();
        want.sort_unstable();
        if got != want {
            return Err(format!("vertex {v}: in-edges {got:?}, expected {want:?}"));
        }
    }
    Ok(())
}

/// Whether `graph` has `csr`'s vertices, out-lists with weights (as
/// sorted multisets), and in-lists.
fn same_graph<G: dyngraph_core::ReadGraph>(
    graph: &G,
    csr: &Csr,
) -> std::result::Result<(), String> {
    same_lists(graph, csr)?;
    let (weights, csr_weights) = (
        graph.edge_weights().map_err(|e| e.to_string())?,
        csr.edge_weights().unwrap(),
    );
    for v in 0..csr.vertex_count() as VertexId {
        let mut got: Vec<(VertexId, u32)> = weights
            .out_neighbors_weighted(v)
            .map(|(d, w)| (d, w.to_bits()))
            .collect();
        let mut want: Vec<(VertexId, u32)> = csr_weights
            .out_neighbors_weighted(v)
            .map(|(d, w)| (d, w.to_bits()))
            .collect();
        got.sort_unstable();
        want.sort_unstable();
        if got != want {
            return Err(format!("vertex {v}: out-edges {got:?}, expected {want:?}"));
        }
    }
    Ok(())
}

/// A `Csr` of `edges` with in-edges, its lists sorted, over `vertex_count`
/// vertices: what a store's graph (or view) is compared with.
fn sorted_csr(edges: &[WeightedEdge], vertex_count: usize) -> Csr {
    Csr::from_edges(
        edges,
        CsrOptions::default()
            .in_edges(true)
            .sort(true)
            .vertex_count(vertex_count),
    )
    .unwrap()
}
