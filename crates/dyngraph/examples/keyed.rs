//! A graph held by its own ids, as a new user writes it with one
//! dependency and one `use`: CollegeMsg keyed by its user ids, new users
//! streaming in by `u64` key, a delete by key, a snapshot read while
//! updates go on, PageRank, BFS and a petgraph algorithm on the store, and
//! a string-keyed durable store persisted, reopened and read by key, with
//! PageRank and components maintained across the second day's batches.
//!
//! ```sh
//! cargo run --release -p dyngraph --example keyed [CollegeMsg.txt]
//! ```
//!
//! The test `keyed_example_runs` runs this program on the bundled sample.

use dyngraph::core::IdKind;
use dyngraph::durable::{DurableOptions, SyncPolicy};
use dyngraph::incremental::{
    DynamicComponents, DynamicPageRank, DynamicPageRankOptions, Maintained, verify_pagerank_l1,
};
use dyngraph::kernels::{BfsOptions, PageRankOptions, bfs, pagerank, verify_pagerank};
use dyngraph::loader::{IdMode, LoadOptions, load_edge_stream};
use dyngraph::petgraph::algo::tarjan_scc;
use dyngraph::prelude::*;
use dyngraph::vcsr::VcsrOptions;

/// The bundled sample.
pub(crate) const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");

fn main() -> dyngraph::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| SAMPLE.to_string());
    run(&path)
}

/// The program on the graph file at `path`.
pub(crate) fn run(path: &str) -> dyngraph::Result<()> {
    // CollegeMsg's user ids are the keys: the map comes with the edges.
    let stream = load_edge_stream(path, &LoadOptions::default().ids(IdMode::Integers))?;
    let options = VcsrOptions::default().in_edges(true);
    let mut graph: Keyed<Vcsr> = Keyed::from_edges(&stream, options)?;
    let name = std::path::Path::new(path).file_name().unwrap_or_default();
    println!(
        "{}: {} users, {} messages",
        name.display(),
        graph.vertex_count(),
        graph.edge_count()
    );

    // A snapshot: what a reader sees while the writer goes on.
    let snapshot = graph.snapshot();

    // New users arrive by their own (64-bit) ids; old ones by theirs.
    let newcomer = 10_000_000_001_u64;
    graph.insert_edge(newcomer, 1u64)?;
    graph.insert_edges(&[(newcomer, 9u64), (9u64, newcomer), (1u64, newcomer)])?;
    // And a message is taken back, by key.
    assert!(graph.delete_edge(newcomer, 9u64)?);
    graph.end_batch()?;
    let v = graph.vertex(newcomer).expect("the newcomer has a vertex");
    println!(
        "user {newcomer} is vertex {v}: {} out, {} in",
        graph.out_degree(v),
        graph.in_degree(v)?
    );

    // The snapshot still reads the graph as it was.
    let before = graph.view(&snapshot)?;
    assert_eq!(before.vertex_count() + 1, graph.vertex_count());
    assert_eq!(before.edge_count() + 3, graph.edge_count());

    // Kernels run on the store directly; results read by key.
    let ranks = pagerank(graph.store(), &PageRankOptions::default())?;
    verify_pagerank(graph.store(), &ranks).expect("PageRank verified");
    let top: Vec<String> = graph
        .by_key(&ranks.scores)
        .top(3)
        .into_iter()
        .map(|(key, score)| format!("{key} ({score:.2e})"))
        .collect();
    println!("top users by PageRank: {}", top.join(", "));

    let source = graph.vertex(1u64).expect("user 1");
    let tree = bfs(
        graph.store(),
        &BfsOptions::from_source(source).with_depths(true),
    )?;
    let depths = tree.depths.expect("depths were asked for");
    println!(
        "user {newcomer} is {} hop(s) from user 1",
        graph.by_key(&depths).get(newcomer).expect("a depth")
    );

    // petgraph's algorithms take the store as it is.
    let components = tarjan_scc(graph.store());
    println!(
        "{} strongly connected components, the largest of {} users",
        components.len(),
        components.iter().map(Vec::len).max().unwrap_or(0)
    );

    // A durable store keyed by names: kept in a directory, reopened.
    let dir = std::env::temp_dir().join(format!("dyngraph-keyed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Explicit sync: the keys are written before the edges they name are
    // made durable (`sync_keyed`), so a crash never finds a vertex without
    // its key.
    let durable = DurableOptions::in_dir(&dir)
        .sync(SyncPolicy::Explicit)
        .in_edges(true);
    let mut names: Keyed<DurableVcsr> = Keyed::with_kind(IdKind::Strings, durable.clone())?;
    names.insert_edges(&[("alice", "bob"), ("bob", "carol"), ("carol", "alice")])?;
    names.insert_edge("dave", "alice")?;
    assert!(names.delete_edge("bob", "carol")?);
    DurableVcsr::sync_keyed(&mut names)?;
    drop(names);

    let reopened = DurableVcsr::open_keyed(&dir, &durable)?;
    let alice = reopened.vertex("alice").expect("alice is kept");
    let followers: Vec<String> = reopened
        .in_neighbors(alice)?
        .map(|v| reopened.key(v).expect("a key").to_string())
        .collect();
    println!(
        "a keyed durable store, reopened: {} users, {} edges; alice hears from {}",
        reopened.vertex_count(),
        reopened.edge_count(),
        followers.join(" and ")
    );
    assert_eq!(reopened.edge_count(), 3);

    // Day 2: PageRank (to an L1 error of 1e-6) and components maintained
    // across the day's batches. What they keep lives in memory: a reopened
    // store computes them once from scratch (one static run), then each
    // batch costs what it changes. The maintained kernels are told the
    // vertex pairs of each keyed batch (`edges_of`).
    let mut day2 = reopened;
    let bound = 1e-6;
    let mut ranks: Maintained<DynamicPageRank> = Maintained::new(
        day2.store(),
        DynamicPageRankOptions {
            l1_bound: Some(bound),
            ..Default::default()
        },
    )?;
    let mut parts: Maintained<DynamicComponents> =
        Maintained::new(day2.store(), Default::default())?;
    for batch in [
        &[("erin", "frank"), ("frank", "erin")][..],
        &[("erin", "alice"), ("grace", "heidi")][..],
    ] {
        day2.insert_edges(batch)?;
        let (told, deleted) = (day2.edges_of(batch), Vec::<Edge>::new());
        ranks.record_batch(&told, &deleted);
        parts.record_batch(&told, &deleted);
        ranks.update(day2.store())?;
        parts.update(day2.store())?;
    }
    let error = verify_pagerank_l1(day2.store(), ranks.kernel(), bound)
        .expect("maintained PageRank within its bound");
    let (erin, grace) = (
        day2.vertex("erin").expect("erin"),
        day2.vertex("grace").expect("grace"),
    );
    println!(
        "day 2: {} users in {} components (erin with alice: {}, grace apart: {}); \
         PageRank within L1 {:.1e} of the converged ranks, best {}",
        day2.vertex_count(),
        parts.kernel().component_count(),
        parts.kernel().same_component(erin, alice),
        !parts.kernel().same_component(grace, alice),
        error.l1,
        day2.key(ranks.kernel().top(1)[0].0).expect("a key"),
    );
    assert!(parts.kernel().same_component(erin, alice));
    assert_eq!(parts.kernel().component_count(), 2);
    drop(day2);
    std::fs::remove_dir_all(&dir).map_err(|e| dyngraph::Error::Io {
        path: dir.clone(),
        source: e,
    })?;
    Ok(())
}
