//! Sequences of batches (inserts, deletes, both, new vertices, deletes of
//! edges that are not there, repeated inserts) on every store of the
//! registry (`StoreKind::ALL`), each kernel compared with the static
//! kernels after every batch.

mod common;

use common::*;
use dyngraph_core::StoreConfig;
use dyngraph_core::testing::ReferenceGraph;
use dyngraph_core::{
    DynamicStore, Edge, GraphUpdate, OutNeighbors, Semantics, StoreOptions, VertexId, WeightedEdge,
};
use dyngraph_incremental::{DynamicPageRankOptions, PageRankStrategy};
use dyngraph_stores::{StoreKind, StoreSettings, StoreVisitor};
use proptest::prelude::*;

/// Vertices of the base graph; batches name up to this many more.
const BASE_VERTICES: u32 = 14;
const NEW_VERTICES: u32 = 6;

/// One delete: an edge that is there (by index into the current edges), or
/// any pair (usually not there).
#[derive(Clone, Debug)]
enum Delete {
    Existing(usize),
    Any(VertexId, VertexId),
}

#[derive(Clone, Debug)]
struct Batch {
    inserts: Vec<(VertexId, VertexId, u8)>,
    deletes: Vec<Delete>,
}

fn edge(max: u32) -> impl Strategy<Value = (VertexId, VertexId, u8)> {
    (0..max, 0..max, 1u8..=8)
}

fn batch() -> impl Strategy<Value = Batch> {
    let delete = prop_oneof![
        4 => any::<usize>().prop_map(Delete::Existing),
        1 => (0..BASE_VERTICES + NEW_VERTICES, 0..BASE_VERTICES + NEW_VERTICES)
            .prop_map(|(s, d)| Delete::Any(s, d)),
    ];
    (
        prop::collection::vec(edge(BASE_VERTICES + NEW_VERTICES), 0..8),
        prop::collection::vec(delete, 0..7),
    )
        .prop_map(|(inserts, deletes)| Batch { inserts, deletes })
}

fn scenario() -> impl Strategy<Value = (bool, Vec<(VertexId, VertexId, u8)>, Vec<Batch>)> {
    (
        any::<bool>(),
        prop::collection::vec(edge(BASE_VERTICES), 0..50),
        prop::collection::vec(batch(), 1..7),
    )
}

fn weighted(edges: &[(VertexId, VertexId, u8)]) -> Vec<WeightedEdge> {
    edges
        .iter()
        .map(|&(s, d, w)| WeightedEdge::new(s, d, f32::from(w)))
        .collect()
}

fn pagerank_options() -> Vec<DynamicPageRankOptions> {
    PageRankStrategy::ALL
        .into_iter()
        .map(tight_pagerank)
        .collect()
}

/// One scenario, run on the store type a [`StoreKind`] names.
struct Scenario<'a> {
    simple: bool,
    base: &'a [(VertexId, VertexId, u8)],
    batches: &'a [Batch],
}

impl StoreVisitor for Scenario<'_> {
    type Output = Result<(), TestCaseError>;

    fn visit<S: DynamicStore + 'static>(self, options: S::Options) -> Self::Output {
        run::<S>(self.simple, self.base, self.batches, options)
    }
}

/// Runs the scenario on every store of the registry: a store added to it
/// is tested here without a line of this file changing.
fn on_every_store(
    simple: bool,
    base: &[(VertexId, VertexId, u8)],
    batches: &[Batch],
) -> Result<(), TestCaseError> {
    let semantics = if simple {
        Semantics::Simple
    } else {
        Semantics::Multigraph
    };
    let shared = StoreOptions::new(semantics).in_edges(true).weighted(true);
    for &kind in StoreKind::ALL {
        let (shared, _) = kind.fit(shared);
        let scenario = Scenario {
            simple,
            base,
            batches,
        };
        kind.visit(&StoreSettings::default(), shared, scenario)?;
    }
    Ok(())
}

/// Replays `batches` into a store of type `S` and a model, checking every
/// maintained kernel after each.
fn run<S: DynamicStore>(
    simple: bool,
    base: &[(VertexId, VertexId, u8)],
    batches: &[Batch],
    options: S::Options,
) -> Result<(), TestCaseError> {
    let semantics = options.shared().semantics;
    debug_assert_eq!(semantics == Semantics::Simple, simple);
    // Vertex 0 (the BFS/SSSP source) always exists.
    let mut base = weighted(base);
    base.insert(0, WeightedEdge::new(0, 1, 1.0));
    let mut store = S::from_edges(&base, options).map_err(fail)?;
    store.end_batch().map_err(fail)?;
    let mut model = ReferenceGraph::new(semantics);
    model.insert_edges(&base).map_err(fail)?;
    let mut analytics = Analytics::new(&store, 0, &pagerank_options());
    // The default options: relative tolerances of 1e-6 on ranks near 1/n
    // (here about 0.05), and a sweep share small graphs pass, so the
    // fallback runs.
    let mut loose = Analytics::new(
        &store,
        0,
        &[
            DynamicPageRankOptions::default(),
            DynamicPageRankOptions::to_l1_bound(1e-6),
        ],
    );
    for (step, batch) in batches.iter().enumerate() {
        let inserted = weighted(&batch.inserts);
        let current: Vec<Edge> = model.edges().collect();
        let deleted: Vec<Edge> = batch
            .deletes
            .iter()
            .map(|d| match *d {
                Delete::Existing(i) if !current.is_empty() => current[i % current.len()],
                Delete::Existing(_) => Edge::new(0, 2),
                Delete::Any(s, d) => Edge::new(s, d),
            })
            .collect();
        store.insert_edges(&inserted).map_err(fail)?;
        store.delete_edges(&deleted).map_err(fail)?;
        store.end_batch().map_err(fail)?;
        model.insert_edges(&inserted).map_err(fail)?;
        model.delete_edges(&deleted).map_err(fail)?;
        analytics.record(&inserted, &deleted);
        loose.record(&inserted, &deleted);
        analytics.update(&store);
        loose.update(&store);
        let context = |e: String| {
            TestCaseError::fail(format!(
                "{} ({semantics:?}) after batch {step}: {e}",
                S::NAME
            ))
        };
        analytics.check(&store, 1e-9).map_err(context)?;
        for pagerank in &loose.pagerank {
            check_pagerank(&store, pagerank.kernel(), 1e-6).map_err(context)?;
        }
    }
    Ok(())
}

fn fail(e: dyngraph_core::Error) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_store_of_the_registry((simple, base, batches) in scenario()) {
        on_every_store(simple, &base, &batches)?;
    }
}
