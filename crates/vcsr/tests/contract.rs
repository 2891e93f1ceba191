//! Every store of the crate through `dyngraph_core::testing::check_contract`
//! (bulk build, single and batch updates from slices and columns,
//! snapshots checked after every later step, `edges()`, `to_csr()`,
//! capabilities), for every combination of semantics, in-edges and
//! weights; plus deterministic checks that a snapshot outlives rebalances
//! and resizes, and that a missing capability is an error.

use dyngraph_core::StoreConfig;
use dyngraph_core::testing::{
    Op, ReferenceGraph, check_contract, compare_with_model, ops, weighted_edges,
};
use dyngraph_core::{
    Capability, DynamicStore, Edge, EdgeWeights, Error, FromEdges, Graph, GraphStore, GraphUpdate,
    InEdges, OutNeighbors, Semantics, StoreOptions, VertexId, WeightedEdge,
};
use dyngraph_vcsr::{Bal, Even, HistoryAdaptive, Pcsr, Vcsr};
use proptest::prelude::*;
use std::ops::Range;

/// Vertices the base graph uses; the steps reach a few past them, so the
/// vertex array grows while snapshots live.
const BASE_VERTICES: VertexId = 40;
const STEP_VERTICES: VertexId = 44;

/// Every combination of semantics × in-edges × weights.
fn every_option() -> impl Iterator<Item = StoreOptions> {
    [Semantics::Multigraph, Semantics::Simple]
        .into_iter()
        .flat_map(|semantics| {
            [(false, false), (false, true), (true, false), (true, true)].map(
                |(in_edges, weighted)| {
                    StoreOptions::new(semantics)
                        .in_edges(in_edges)
                        .weighted(weighted)
                },
            )
        })
}

/// The contract for one store under every option combination, on the same
/// base and steps.
fn check_every_option<S: DynamicStore>(
    base: &[WeightedEdge],
    steps: &[Op],
) -> Result<(), TestCaseError> {
    for options in every_option() {
        check_contract::<S>(options, base, steps)
            .map_err(|e| TestCaseError::fail(format!("{} with {options:?}: {e}", S::NAME)))?;
    }
    Ok(())
}

proptest! {
    // A base of up to a few hundred edges over 40 vertices and up to 150
    // steps (about 4 edges inserted per step on average) take every edge
    // array through resizes from its 64-slot start, and through
    // rebalances, with snapshots alive across them: measured over 64
    // generated cases, a snapshot outlived a resize in about 70 % of them
    // and a rebalance in 30-50 % for `Vcsr` (whose degree-proportional
    // gaps absorb uniform inserts; `snapshots_outlive_rebalances_and_resizes`
    // pins both down deterministically), 80 % for `Pcsr`.
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn vcsr_keeps_the_contract(
        base in weighted_edges(BASE_VERTICES, 0..300),
        steps in ops(STEP_VERTICES, 0..150),
    ) {
        check_every_option::<Vcsr>(&base, &steps)?;
    }

    #[test]
    fn vcsr_with_even_gaps_keeps_the_contract(
        base in weighted_edges(BASE_VERTICES, 0..300),
        steps in ops(STEP_VERTICES, 0..150),
    ) {
        check_every_option::<Vcsr<Even>>(&base, &steps)?;
    }

    #[test]
    fn vcsr_with_history_adaptive_gaps_keeps_the_contract(
        base in weighted_edges(BASE_VERTICES, 0..300),
        steps in ops(STEP_VERTICES, 0..150),
    ) {
        check_every_option::<Vcsr<HistoryAdaptive>>(&base, &steps)?;
    }

    #[test]
    fn pcsr_keeps_the_contract(
        base in weighted_edges(BASE_VERTICES, 0..300),
        steps in ops(STEP_VERTICES, 0..150),
    ) {
        check_every_option::<Pcsr>(&base, &steps)?;
    }

    #[test]
    fn bal_keeps_the_contract(
        base in weighted_edges(BASE_VERTICES, 0..300),
        steps in ops(STEP_VERTICES, 0..150),
    ) {
        check_every_option::<Bal>(&base, &steps)?;
    }
}

/// A fixed stream shaped like the proptests' (destinations below 44,
/// weights 1 to 7): `count` edges from sources in `sources`, drawn by a
/// small linear congruential generator.
fn fixed_stream(count: usize, seed: u64, sources: Range<VertexId>) -> Vec<WeightedEdge> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as u32
    };
    (0..count)
        .map(|_| {
            let src = sources.start + next() % (sources.end - sources.start);
            WeightedEdge::new(src, next() % STEP_VERTICES, (next() % 7 + 1) as f32)
        })
        .collect()
}

/// The view of `snapshot` equals `model`, order of each out-list included.
fn assert_view_is<S: GraphStore>(store: &S, snapshot: &S::Snapshot, model: &ReferenceGraph) {
    let view = store.view(snapshot).unwrap();
    compare_with_model(&view, model).unwrap_or_else(|e| panic!("{}: {e}", S::NAME));
    for v in 0..model.vertex_count() as VertexId {
        assert!(
            view.out_neighbors(v).eq(model.out_neighbors(v)),
            "{}: order of vertex {v}",
            S::NAME
        );
    }
}

/// A snapshot taken right after the bulk build outlives at least one
/// rebalance and one resize of the edge arrays (counted by the store's own
/// maintenance counters) while single inserts, deletes and batches go on,
/// and its view still equals the graph of its moment; so does a second
/// snapshot taken halfway.
///
/// The graph is the proptests' size. Its base leaves vertices 0 to 7 (the
/// first pma section of `Vcsr`) without edges, so when they become active
/// their section, holding one free slot per vertex, fills up and is
/// redistributed with its neighbours' gaps, before the whole array grows:
/// with uniform ids `Vcsr`'s degree-proportional gaps would absorb every
/// insert until a resize.
fn snapshots_outlive_maintenance<S: DynamicStore>(options: S::Options) {
    let base = fixed_stream(250, 7, 8..BASE_VERTICES);
    let mut model = ReferenceGraph::new(Semantics::Multigraph);
    model.insert_edges(&base).unwrap();
    let mut store = S::from_edges(&base, options).unwrap();
    let first = store.snapshot();
    let first_model = model.clone();
    let at_first = store.maintenance().expect("a store that rebalances");

    let mut stream = fixed_stream(60, 11, 0..8);
    stream.extend(fixed_stream(500, 13, 0..STEP_VERTICES));
    let mut second = None;
    for (i, edge) in stream.iter().enumerate() {
        if i % 50 == 25 {
            // The next edges again, as an unweighted batch.
            let batch: Vec<Edge> = stream[i..(i + 10).min(stream.len())]
                .iter()
                .map(|e| e.edge())
                .collect();
            assert_eq!(
                store.insert_edges(&batch).unwrap(),
                model.insert_edges(&batch).unwrap()
            );
        }
        store
            .insert_weighted_edge(edge.src, edge.dst, edge.weight)
            .unwrap();
        model
            .insert_weighted_edge(edge.src, edge.dst, edge.weight)
            .unwrap();
        if i % 3 == 0 {
            let old = base[i % base.len()];
            assert_eq!(
                store.delete_edge(old.src, old.dst).unwrap(),
                model.delete_edge(old.src, old.dst).unwrap()
            );
        }
        if i == stream.len() / 2 {
            second = Some((store.snapshot(), model.clone()));
        }
    }
    let now = store.maintenance().expect("a store that rebalances");
    assert!(
        now.rebalances > at_first.rebalances,
        "{}: no rebalance while the snapshot lived: {at_first:?} -> {now:?}",
        S::NAME
    );
    assert!(
        now.resizes > at_first.resizes,
        "{}: no resize while the snapshot lived: {at_first:?} -> {now:?}",
        S::NAME
    );
    assert_view_is(&store, &first, &first_model);
    let (second, second_model) = second.expect("taken halfway");
    assert_view_is(&store, &second, &second_model);
    compare_with_model(&store, &model).unwrap();
}

#[test]
fn snapshots_outlive_rebalances_and_resizes() {
    let options = StoreOptions::new(Semantics::Multigraph)
        .in_edges(true)
        .weighted(true);
    snapshots_outlive_maintenance::<Vcsr>(StoreConfig::from_shared(options));
    snapshots_outlive_maintenance::<Vcsr<Even>>(StoreConfig::from_shared(options));
    snapshots_outlive_maintenance::<Vcsr<HistoryAdaptive>>(StoreConfig::from_shared(options));
    snapshots_outlive_maintenance::<Pcsr>(options);
    // Bal does no maintenance (`maintenance()` is `None`): nothing to count.
    let bal = Bal::from_edges(&fixed_stream(10, 3, 0..4), options).unwrap();
    assert_eq!(bal.maintenance(), None);
}

/// A store built without in-edges or weights refuses to read them, naming
/// itself and the capability, instead of answering empty lists or weight
/// 1.0; so do its snapshot views. Built with them, both answer.
fn missing_capabilities_are_errors<S: DynamicStore>() {
    let edges = [WeightedEdge::new(0, 1, 2.5), WeightedEdge::new(1, 0, 4.0)];
    let bare = S::from_edges(&edges[..], S::Options::from_shared(StoreOptions::default())).unwrap();
    let snapshot = bare.snapshot();
    let view = bare.view(&snapshot).unwrap();
    // The store names itself; a view may name itself (a copy-before-write
    // view says "snapshot"); both name the capability.
    for (what, name, in_edges, weights) in [
        (
            "store",
            Some(S::NAME),
            bare.in_edges().err(),
            bare.edge_weights().err(),
        ),
        (
            "view",
            None,
            view.in_edges().err(),
            view.edge_weights().err(),
        ),
    ] {
        for (error, wanted) in [
            (in_edges, Capability::InEdges),
            (weights, Capability::Weights),
        ] {
            match error {
                Some(Error::MissingCapability { store, capability }) if capability == wanted => {
                    assert!(name.is_none_or(|name| name == store), "{what}: {store}");
                }
                other => panic!("{} {what}: asking for {wanted} gave {other:?}", S::NAME),
            }
        }
    }
    assert!(bare.weighted_edges().is_err());
    // The freeze keeps exactly what the store has.
    let frozen = bare.to_csr().unwrap();
    assert!(frozen.in_edges().is_err() && frozen.edge_weights().is_err());

    let full = S::from_edges(
        &edges[..],
        S::Options::from_shared(StoreOptions::default().in_edges(true).weighted(true)),
    )
    .unwrap();
    let snapshot = full.snapshot();
    let view = full.view(&snapshot).unwrap();
    for graph in [&full as &dyn HasBoth, &view as &dyn HasBoth] {
        assert_eq!(graph.in_list(0), [1]);
        assert_eq!(graph.weighted_list(0), [(1, 2.5)]);
    }
}

/// Reads through both capability handles, object-safe so a store and its
/// view fit one list.
trait HasBoth {
    fn in_list(&self, v: VertexId) -> Vec<VertexId>;
    fn weighted_list(&self, v: VertexId) -> Vec<(VertexId, f32)>;
}

impl<G: InEdges + EdgeWeights> HasBoth for G {
    fn in_list(&self, v: VertexId) -> Vec<VertexId> {
        use dyngraph_core::InNeighbors;
        self.in_edges().unwrap().in_neighbors(v).collect()
    }

    fn weighted_list(&self, v: VertexId) -> Vec<(VertexId, f32)> {
        use dyngraph_core::WeightedNeighbors;
        self.edge_weights()
            .unwrap()
            .out_neighbors_weighted(v)
            .collect()
    }
}

#[test]
fn a_store_built_without_a_capability_refuses_to_read_it() {
    missing_capabilities_are_errors::<Vcsr>();
    missing_capabilities_are_errors::<Vcsr<Even>>();
    missing_capabilities_are_errors::<Pcsr>();
    missing_capabilities_are_errors::<Bal>();
}

/// A snapshot from one store (or from a clone of it, which starts its own
/// snapshot family) is refused by another.
fn foreign_snapshots_are_refused<S: DynamicStore + Clone>() {
    let store = S::from_edges(
        &[(0u32, 1u32)][..],
        S::Options::from_shared(StoreOptions::default()),
    )
    .unwrap();
    let clone = store.clone();
    let snapshot = store.snapshot();
    assert!(store.view(&snapshot).is_ok());
    assert!(clone.view(&snapshot).is_err(), "{}", S::NAME);
}

#[test]
fn a_snapshot_is_read_only_through_its_own_store() {
    foreign_snapshots_are_refused::<Vcsr>();
    foreign_snapshots_are_refused::<Pcsr>();
    foreign_snapshots_are_refused::<Bal>();
}

#[test]
fn store_names() {
    assert_eq!(
        [<Vcsr as GraphStore>::NAME, Pcsr::NAME, Bal::NAME],
        ["Vcsr", "Pcsr", "Bal"]
    );
}
