//! The real temporal streams replayed with a sliding window, so every batch
//! inserts the newest arrivals and deletes those that left the window: each
//! maintained kernel checked against the static kernels after every batch
//! (PageRank against the exact ranks, within the crate's stated bound).

mod common;

use common::*;
use dyngraph_core::StoreConfig;
use dyngraph_core::{DynamicStore, Edge, StoreOptions, WeightedEdge};
use dyngraph_csrpp::CsrPP;
use dyngraph_incremental::{DynamicPageRankOptions, PageRankStrategy};
use dyngraph_vcsr::Vcsr;

/// The L∞ distance to the exact ranks the default tolerances keep to (the
/// crate README: measured on these streams and on Kronecker graphs).
const DEFAULT_LINF: f64 = 1e-9;

struct Replay {
    /// Arrivals bulk-built before the first batch.
    base: usize,
    /// Arrivals per batch.
    batch: usize,
    /// Arrivals kept in the window.
    window: usize,
    /// Batches replayed (at most).
    batches: usize,
    /// Check PageRank after every this many batches (the exact reference
    /// is a serial power iteration, the slowest part of a check).
    pagerank_every: usize,
}

fn replay<S: DynamicStore>(
    name: &str,
    stream: &[WeightedEdge],
    weighted: bool,
    plan: Replay,
    pagerank: &[DynamicPageRankOptions],
) {
    let options = StoreOptions::default().in_edges(true).weighted(weighted);
    let mut store =
        S::from_edges(&stream[..plan.base], S::Options::from_shared(options)).expect("store");
    let source = stream[0].src;
    let mut analytics = Analytics::new(&store, source, pagerank);
    let mut oldest = plan.base.saturating_sub(plan.window);
    // The base's own expired part leaves with the first batch.
    let mut next = plan.base;
    let mut fell_back = std::collections::BTreeMap::new();
    for step in 0..plan.batches {
        if next >= stream.len() {
            break;
        }
        let end = (next + plan.batch).min(stream.len());
        let inserted = &stream[next..end];
        next = end;
        let keep_from = next.saturating_sub(plan.window).max(oldest);
        let deleted: Vec<Edge> = stream[oldest..keep_from].iter().map(|e| e.edge()).collect();
        oldest = keep_from;
        store.insert_edges(inserted).expect("insert");
        let report = store.delete_edges(&deleted).expect("delete");
        assert_eq!(
            report.edges_removed as usize,
            deleted.len(),
            "{name}: window deletes hit"
        );
        store.end_batch().expect("end batch");
        analytics.record(inserted, &deleted);
        for stats in analytics.update(&store) {
            *fell_back.entry(stats.kernel).or_insert(0) += usize::from(stats.fell_back());
        }
        let context = |e: String| format!("{name} ({}) after batch {step}: {e}", S::NAME);
        check_components(&store, analytics.components.kernel())
            .map_err(context)
            .unwrap();
        check_bfs(&store, analytics.bfs.kernel())
            .map_err(context)
            .unwrap();
        check_sssp(&store, analytics.sssp.kernel())
            .map_err(context)
            .unwrap();
        if step % plan.pagerank_every == 0 {
            for pagerank in &analytics.pagerank {
                check_pagerank(&store, pagerank.kernel(), DEFAULT_LINF)
                    .map_err(context)
                    .unwrap();
            }
        }
    }
    eprintln!(
        "{name} on {}: updates that fell back: {fell_back:?}",
        S::NAME
    );
}

/// The defaults (which fall back to warm sweeps on graphs this small),
/// and every incremental strategy with the default tolerances and no
/// fallback, so the frontier paths run on real data.
fn every_strategy() -> Vec<DynamicPageRankOptions> {
    let mut options = vec![
        DynamicPageRankOptions::default(),
        DynamicPageRankOptions::to_l1_bound(dyngraph_incremental::DEFAULT_L1_BOUND),
    ];
    options.extend(
        [
            PageRankStrategy::DynamicFrontierPruned,
            PageRankStrategy::DynamicFrontier,
            PageRankStrategy::DynamicTraversal,
            PageRankStrategy::NaiveDynamic,
        ]
        .map(|strategy| DynamicPageRankOptions {
            full_sweep_share: f64::INFINITY,
            ..DynamicPageRankOptions::with_strategy(strategy)
        }),
    );
    options
}

#[test]
fn bundled_college_msg_in_a_window_on_vcsr_and_csrpp() {
    let stream = read_edges(&bundled_college_msg(), false);
    assert_eq!(stream.len(), 59_835);
    let plan = || Replay {
        base: 20_000,
        batch: 400,
        window: 15_000,
        batches: 60,
        pagerank_every: 1,
    };
    replay::<Vcsr>("CollegeMsg", &stream, false, plan(), &every_strategy());
    replay::<CsrPP>(
        "CollegeMsg",
        &stream,
        false,
        plan(),
        &[DynamicPageRankOptions::default()],
    );
}

#[test]
fn college_msg_one_edge_batches() {
    // Single-edge batches: the smallest updates, where the incremental
    // paths never fall back.
    let stream = read_edges(&bundled_college_msg(), false);
    let plan = Replay {
        base: 30_000,
        batch: 1,
        window: 25_000,
        batches: 150,
        pagerank_every: 10,
    };
    replay::<Vcsr>("CollegeMsg", &stream, false, plan, &every_strategy()[..2]);
}

#[test]
fn shared_sx_mathoverflow_in_a_window() {
    let Some(mut stream) = shared_file("sx-mathoverflow/b30/base.wel", true) else {
        return;
    };
    let Some(dynamic) = shared_file("sx-mathoverflow/b30/dynamic.wel", true) else {
        return;
    };
    stream.extend(dynamic);
    assert_eq!(stream.len(), 375_972);
    let plan = Replay {
        base: 112_792,
        batch: 2_000,
        window: 100_000,
        batches: 24,
        pagerank_every: 6,
    };
    replay::<Vcsr>(
        "sx-mathoverflow",
        &stream,
        true,
        plan,
        &[DynamicPageRankOptions::default()],
    );
}
