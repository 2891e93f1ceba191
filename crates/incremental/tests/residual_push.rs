//! Residual push PageRank ([`PageRankStrategy::ResidualPush`]): within its
//! L1 bound of a converged static run after every batch of random insert
//! and delete sequences (checked against the reference model of
//! `dyngraph-core`, not the store), with and without in-edges; and one
//! test per edge case the invariant has to survive (dangling vertices,
//! new vertices, the last out-edge deleted, ambiguous multiplicities, a
//! batch too large to push).

mod common;

use common::*;
use dyngraph_core::testing::ReferenceGraph;
use dyngraph_core::{
    Edge, FromEdges, Graph, GraphUpdate, OutNeighbors, Semantics, StoreOptions, VertexId,
};
use dyngraph_incremental::*;
use dyngraph_vcsr::Vcsr;
use proptest::prelude::*;

fn store(edges: &[Edge], semantics: Semantics, in_edges: bool) -> Vcsr {
    let options = StoreOptions::new(semantics).in_edges(in_edges);
    Vcsr::from_edges(edges, options.into()).expect("vcsr")
}

fn model(edges: &[Edge], semantics: Semantics) -> ReferenceGraph {
    let mut model = ReferenceGraph::new(semantics);
    model.insert_edges(edges).expect("model");
    model
}

/// The normalised ranks' L1 distance to the exact ranks of `graph` (the
/// static kernel's serial `f64` power iteration, converged to `1e-15`).
fn l1_to_exact<G: dyngraph_core::OutNeighbors>(graph: &G, ranks: &DynamicPageRank) -> f64 {
    let exact = reference_pagerank(graph, ranks.options().damping);
    pagerank_error(&ranks.scores(), &exact).l1
}

/// Residual push to `bound` that never hands an update to sweeps (the push
/// priced at nothing), so the tests exercise the push itself.
fn pushing(bound: f64) -> DynamicPageRankOptions {
    DynamicPageRankOptions {
        push_edge_cost: 1e-12,
        ..DynamicPageRankOptions::to_l1_bound(bound)
    }
}

/// Applies one batch to the store and the model and tells the kernel.
fn apply(
    store: &mut Vcsr,
    model: &mut ReferenceGraph,
    ranks: &mut Maintained<DynamicPageRank>,
    inserted: &[Edge],
    deleted: &[Edge],
) -> UpdateStats {
    store.insert_edges(inserted).unwrap();
    store.delete_edges(deleted).unwrap();
    model.insert_edges(inserted).unwrap();
    model.delete_edges(deleted).unwrap();
    ranks.record_batch(inserted, deleted);
    ranks.update(&*store).unwrap()
}

#[derive(Clone, Debug)]
struct Batch {
    inserts: Vec<(VertexId, VertexId)>,
    /// Indices into the current edges (present), or any pair (mostly
    /// absent).
    deletes: Vec<Result<usize, (VertexId, VertexId)>>,
}

const VERTICES: u32 = 40;
const NEW: u32 = 10;

fn batch() -> impl Strategy<Value = Batch> {
    let pair = || (0..VERTICES + NEW, 0..VERTICES + NEW);
    let delete = prop_oneof![
        4 => any::<usize>().prop_map(Ok),
        1 => pair().prop_map(Err),
    ];
    (
        prop::collection::vec(pair(), 0..12),
        prop::collection::vec(delete, 0..12),
    )
        .prop_map(|(inserts, deletes)| Batch { inserts, deletes })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// After every batch: the maintained ranks within the bound of the
    /// exact ranks of the model's graph, the residuals proving it, and a
    /// static run at the same bound within it too (so the two are within
    /// twice the bound of each other).
    #[test]
    fn stays_within_the_bound_across_random_batches(
        simple in any::<bool>(),
        in_edges in any::<bool>(),
        bound_exponent in prop::sample::select(vec![3i32, 6, 9]),
        may_sweep in any::<bool>(),
        base in prop::collection::vec((0..VERTICES, 0..VERTICES), 0..120),
        batches in prop::collection::vec(batch(), 1..8),
    ) {
        let semantics = if simple { Semantics::Simple } else { Semantics::Multigraph };
        let bound = 10f64.powi(-bound_exponent);
        let base: Vec<Edge> = base.into_iter().map(|(s, d)| Edge::new(s, d)).collect();
        let mut store = store(&base, semantics, in_edges);
        let mut model = model(&base, semantics);
        // The default pricing (updates may sweep), or the push alone.
        let options = if may_sweep {
            DynamicPageRankOptions::to_l1_bound(bound)
        } else {
            pushing(bound)
        };
        let mut ranks = Maintained::<DynamicPageRank>::new(&store, options.clone()).unwrap();
        for (step, batch) in batches.iter().enumerate() {
            let current: Vec<Edge> = model.edges().collect();
            let inserted: Vec<Edge> = batch.inserts.iter().map(|&(s, d)| Edge::new(s, d)).collect();
            let deleted: Vec<Edge> = batch
                .deletes
                .iter()
                .map(|d| match *d {
                    Ok(i) if !current.is_empty() => current[i % current.len()],
                    Ok(_) => Edge::new(0, 1),
                    Err((s, d)) => Edge::new(s, d),
                })
                .collect();
            let stats = apply(&mut store, &mut model, &mut ranks, &inserted, &deleted);
            prop_assert_eq!(ranks.kernel().vertex_count(), model.vertex_count());
            if !may_sweep {
                prop_assert!(
                    !stats.fell_back() || stats.fallback == Some(FallbackReason::NoInEdges),
                    "{}", stats
                );
            }
            // Touched counts distinct vertices: a share, never more than
            // the work done.
            // (None: nothing was pushed or swept.)
            if let Some(touched) = stats.vertices_touched {
                prop_assert!(touched <= stats.vertices_processed.max(stats.vertex_count as u64), "{}", stats);
            }
            prop_assert!(stats.touched_share() <= 1.0, "{}", stats);
            let proven = ranks.kernel().proven_l1().unwrap();
            prop_assert!(proven <= bound, "batch {}: residuals prove {:e} > {:e}; {}", step, proven, bound, stats);
            let error = l1_to_exact(&model, ranks.kernel());
            prop_assert!(error <= bound, "batch {}: L1 {:e} > {:e}; {}", step, error, bound, stats);
            let fresh = Maintained::<DynamicPageRank>::new(&store, DynamicPageRankOptions {
                strategy: PageRankStrategy::Static,
                ..options.clone()
            }).unwrap();
            let static_error = l1_to_exact(&model, fresh.kernel());
            prop_assert!(static_error <= bound, "static at the bound: L1 {:e} > {:e}", static_error, bound);
            let apart = pagerank_error(&ranks.kernel().scores(), &fresh.kernel().scores()).l1;
            prop_assert!(apart <= 2.0 * bound);
        }
    }
}

/// A graph with dangling vertices: their rank leaks, as in the static
/// kernel (GAPBS), so the ranks sum to less than 1, and residual push
/// agrees with the static kernel's reference on the same graph.
#[test]
fn dangling_vertices_leak_as_in_the_static_kernel() {
    // 0 -> 1 -> 2 -> 0, and 3, 4 dangling (4 reached from 2, 3 from 0).
    let edges = [
        Edge::new(0, 1),
        Edge::new(1, 2),
        Edge::new(2, 0),
        Edge::new(0, 3),
        Edge::new(2, 4),
    ];
    let mut store = store(&edges, Semantics::Multigraph, true);
    let mut model = model(&edges, Semantics::Multigraph);
    let bound = 1e-10;
    let mut ranks = Maintained::<DynamicPageRank>::new(&store, pushing(bound)).unwrap();
    assert!(l1_to_exact(&model, ranks.kernel()) <= bound);
    let total: f64 = ranks.kernel().scores().iter().sum();
    assert!(total < 0.9, "dangling rank leaks: total {total}");
    // An edge out of a dangling vertex, and one into another.
    apply(
        &mut store,
        &mut model,
        &mut ranks,
        &[Edge::new(3, 1), Edge::new(1, 4)],
        &[],
    );
    assert!(l1_to_exact(&model, ranks.kernel()) <= bound);
    // The static f32 kernel (GAPBS, 100 iterations) on the same graph.
    let gapbs = dyngraph_kernels::pagerank(
        &store,
        &dyngraph_kernels::PageRankOptions {
            max_iterations: 100,
            ..Default::default()
        },
    )
    .unwrap();
    let gapbs: Vec<f64> = gapbs.scores.iter().map(|&s| f64::from(s)).collect();
    assert!(pagerank_error(&ranks.kernel().scores(), &gapbs).l1 < 1e-6);
}

/// Deleting a vertex's last out-edge makes it dangling: its share stops
/// reaching the old neighbour, and nothing else receives it.
#[test]
fn deleting_the_last_out_edge_makes_a_vertex_dangling() {
    let edges: Vec<Edge> = (0..20).map(|v| Edge::new(v, (v + 1) % 20)).collect();
    let mut store = store(&edges, Semantics::Multigraph, true);
    let mut model = model(&edges, Semantics::Multigraph);
    let bound = 1e-9;
    let mut ranks = Maintained::<DynamicPageRank>::new(&store, pushing(bound)).unwrap();
    let stats = apply(&mut store, &mut model, &mut ranks, &[], &[Edge::new(7, 8)]);
    assert_eq!(store.out_degree(7), 0);
    assert!(l1_to_exact(&model, ranks.kernel()) <= bound, "{stats}");
    // The path 8 -> ... -> 7 now: 8 has only the teleport, 7 the most.
    let scores = ranks.kernel().scores();
    assert!(scores[8] < scores[9] && scores[9] < scores[7]);
    // And back: the edge returns.
    apply(&mut store, &mut model, &mut ranks, &[Edge::new(7, 8)], &[]);
    assert!(l1_to_exact(&model, ranks.kernel()) <= bound);
}

/// New vertices: with edges (out of them, into them, between two new
/// ones), and without (from `add_vertices`, nothing recorded).
#[test]
fn new_vertices_join_at_their_exact_rank() {
    let edges: Vec<Edge> = (0..10).map(|v| Edge::new(v, (v + 3) % 10)).collect();
    let mut store = store(&edges, Semantics::Multigraph, true);
    let mut model = model(&edges, Semantics::Multigraph);
    let bound = 1e-9;
    let mut ranks = Maintained::<DynamicPageRank>::new(&store, pushing(bound)).unwrap();
    let inserted = [
        Edge::new(12, 0),
        Edge::new(4, 15),
        Edge::new(15, 16),
        Edge::new(16, 15),
    ];
    let stats = apply(&mut store, &mut model, &mut ranks, &inserted, &[]);
    assert_eq!(ranks.kernel().vertex_count(), 17);
    assert!(!stats.fell_back(), "{stats}");
    assert!(l1_to_exact(&model, ranks.kernel()) <= bound);
    // Isolated vertices 10, 11, 13 and 14 sit at the teleport share.
    let teleport = (1.0 - 0.85) / 17.0;
    assert!((ranks.kernel().score(13) - teleport).abs() < 1e-15);
    store.add_vertices(3).unwrap();
    model.add_vertices(3).unwrap();
    let stats = ranks.update(&store).unwrap();
    assert_eq!(stats.vertex_count, 20);
    assert!(l1_to_exact(&model, ranks.kernel()) <= bound, "{stats}");
}

/// A simple graph told an insert of an edge that is there (a no-op) and a
/// delete of one that is not (a no-op), from the same source in one log:
/// the multiplicities before the log cannot be read off the degrees, so
/// the targets' residuals are recomputed from their in-edges, or, without
/// in-edges, every residual is recounted (and the update says why).
#[test]
fn ambiguous_multiplicities_are_settled_exactly() {
    let edges: Vec<Edge> = (0..30)
        .flat_map(|v| [Edge::new(v, (v + 1) % 30), Edge::new(v, (v + 7) % 30)])
        .collect();
    for in_edges in [true, false] {
        let mut store = store(&edges, Semantics::Simple, in_edges);
        let mut model = model(&edges, Semantics::Simple);
        let bound = 1e-9;
        let mut ranks = Maintained::<DynamicPageRank>::new(&store, pushing(bound)).unwrap();
        // 5 -> 6 is there (no-op insert), 5 -> 20 is new, 5 -> 9 is not
        // there (no-op delete), 5 -> 12 is deleted.
        let stats = apply(
            &mut store,
            &mut model,
            &mut ranks,
            &[Edge::new(5, 6), Edge::new(5, 20)],
            &[Edge::new(5, 9), Edge::new(5, 12)],
        );
        assert!(
            l1_to_exact(&model, ranks.kernel()) <= bound,
            "in-edges {in_edges}: {stats}"
        );
        assert_eq!(
            stats.fallback,
            (!in_edges).then_some(FallbackReason::NoInEdges),
            "{stats}"
        );
        // Unambiguous batches never need the in-edges.
        let stats = apply(
            &mut store,
            &mut model,
            &mut ranks,
            &[Edge::new(8, 22), Edge::new(9, 9)],
            &[Edge::new(3, 4)],
        );
        assert!(!stats.fell_back(), "in-edges {in_edges}: {stats}");
        assert!(l1_to_exact(&model, ranks.kernel()) <= bound);
    }
}

/// A small batch on a larger graph stays local; a batch that rewires a
/// large part of the graph costs the push more than sweeps would, so it
/// sweeps, says why, and still meets the bound.
#[test]
fn small_batches_push_and_large_ones_sweep_and_say_why() {
    let n: u32 = 4000;
    // Skewed in-degrees (every vertex also points at one of ten hubs, and
    // a tenth of the vertices at one of a hundred), so the ranks are far
    // from uniform and a static run has work to do.
    let edges: Vec<Edge> = (0..n)
        .flat_map(|v| {
            let spread = (1..=4).map(move |k| Edge::new(v, (v * 13 + k * 101) % n));
            let hubs = [Edge::new(v, v % 10), Edge::new(v / 10, 100 + v % 100)];
            spread.chain(hubs)
        })
        .collect();
    let mut store = store(&edges, Semantics::Multigraph, true);
    let mut model = model(&edges, Semantics::Multigraph);
    let bound = 1e-6;
    let mut ranks = Maintained::<DynamicPageRank>::new(&store, pushing(bound)).unwrap();
    let stats = apply(
        &mut store,
        &mut model,
        &mut ranks,
        &[Edge::new(17, 3000)],
        &[],
    );
    assert_eq!(stats.ran, Ran::Incremental, "{stats}");
    // A static run to the same bound reads the edges many times over.
    let fresh = Maintained::<DynamicPageRank>::new(
        &store,
        DynamicPageRankOptions {
            strategy: PageRankStrategy::Static,
            ..DynamicPageRankOptions::to_l1_bound(bound)
        },
    )
    .unwrap();
    let static_reads = fresh.last_update().edges_scanned;
    assert!(
        stats.edges_scanned * 5 < static_reads,
        "{stats}; static: {}",
        fresh.last_update()
    );
    assert!(l1_to_exact(&model, ranks.kernel()) <= bound);
    // Every vertex's edges moved to new targets, with the push priced
    // at 20 sweep reads per entry read (the default is measured).
    let mut priced = Maintained::<DynamicPageRank>::new(
        &store,
        DynamicPageRankOptions {
            push_edge_cost: 20.0,
            ..DynamicPageRankOptions::to_l1_bound(bound)
        },
    )
    .unwrap();
    let deleted: Vec<Edge> = (0..n).map(|v| Edge::new(v, (v * 13 + 101) % n)).collect();
    let inserted: Vec<Edge> = (0..n).map(|v| Edge::new(v, (v * 7 + 5) % n)).collect();
    priced.record_batch(&inserted, &deleted);
    let stats = apply(&mut store, &mut model, &mut ranks, &inserted, &deleted);
    assert!(l1_to_exact(&model, ranks.kernel()) <= bound, "{stats}");
    let stats = priced.update(&store).unwrap();
    let ranks = priced;
    assert_eq!(
        stats.fallback,
        Some(FallbackReason::PushCostlierThanSweeps),
        "{stats}"
    );
    assert_eq!(stats.ran, Ran::WarmSweeps);
    assert!(stats.to_string().contains("would cost more than sweeping"));
    assert!(l1_to_exact(&model, ranks.kernel()) <= bound);
}

#[test]
fn an_l1_bound_outside_its_domain_is_an_error() {
    let graph = store(&[Edge::new(0, 1)], Semantics::Multigraph, true);
    for bound in [0.0, -1e-6, f64::NAN, f64::INFINITY] {
        let options = DynamicPageRankOptions::to_l1_bound(bound);
        assert!(Maintained::<DynamicPageRank>::new(&graph, options).is_err());
    }
    let options = DynamicPageRankOptions {
        push_edge_cost: 0.0,
        ..DynamicPageRankOptions::to_l1_bound(1e-6)
    };
    assert!(Maintained::<DynamicPageRank>::new(&graph, options).is_err());
}

/// The bundled CollegeMsg stream in a sliding window, batches of 20
/// arrivals in and 20 out, pushed (never swept): every batch within the
/// default bound of the exact ranks.
#[test]
fn bundled_college_msg_stays_within_the_default_bound() {
    let stream: Vec<Edge> = read_edges(&bundled_college_msg(), false)
        .iter()
        .map(|e| e.edge())
        .collect();
    let base = 40_000;
    let mut store = store(&stream[..base], Semantics::Multigraph, true);
    let mut model = model(&stream[..base], Semantics::Multigraph);
    let mut ranks = Maintained::<DynamicPageRank>::new(&store, pushing(DEFAULT_L1_BOUND)).unwrap();
    let mut pushed = 0;
    for (step, chunk) in stream[base..].chunks(20).take(40).enumerate() {
        // The oldest 20 arrivals leave as the newest 20 come.
        let oldest = &stream[step * 20..(step + 1) * 20];
        let stats = apply(&mut store, &mut model, &mut ranks, chunk, oldest);
        pushed += usize::from(!stats.fell_back());
        assert_eq!(stats.ran, Ran::Incremental, "{stats}");
        if step % 8 == 0 {
            let error = l1_to_exact(&model, ranks.kernel());
            assert!(
                error <= DEFAULT_L1_BOUND,
                "batch {step}: L1 {error:e}; {stats}"
            );
        }
        assert!(ranks.kernel().proven_l1().unwrap() <= DEFAULT_L1_BOUND);
    }
    assert_eq!(pushed, 40, "every batch pushed");
}
