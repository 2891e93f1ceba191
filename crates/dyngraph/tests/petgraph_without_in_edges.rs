//! Issue 35: `petgraph::algo::kosaraju_scc(&g)` on a `Vcsr` built with
//! `VcsrOptions::default()` (no in-edges) panicked inside
//! `neighbors_directed` ("petgraph asked for incoming neighbours"): the
//! first thing a new program with petgraph's prelude did. Incoming
//! neighbours are now found by a scan of the out-lists on such a store;
//! the answers equal those on the same graph with in-edges and on
//! petgraph's own graph.

#![cfg(feature = "petgraph")]

use dyngraph::core::StoreOptions;
use dyngraph::csrpp::CsrPPOptions;
use dyngraph::prelude::*;
use dyngraph::vcsr::VcsrOptions;
use petgraph::algo::{has_path_connecting, kosaraju_scc, tarjan_scc, toposort};
use petgraph::visit::Reversed;

fn sorted(mut sccs: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    sccs.iter_mut().for_each(|scc| scc.sort_unstable());
    sccs.sort();
    sccs
}

fn cyclic() -> Vec<Edge> {
    // Two cycles joined by a bridge, a tail, and a repeated edge.
    [
        (0, 1),
        (1, 2),
        (2, 0),
        (2, 3),
        (3, 4),
        (4, 3),
        (4, 5),
        (5, 6),
        (1, 2),
    ]
    .into_iter()
    .map(|(s, d)| Edge::new(s, d))
    .collect()
}

#[test]
fn kosaraju_toposort_and_reversed_paths_run_on_a_store_without_in_edges() -> dyngraph::Result<()> {
    let without = Vcsr::from_edges(&cyclic(), VcsrOptions::default())?;
    assert!(without.in_edges().is_err(), "the default keeps no in-edges");
    let with = Vcsr::from_edges(&cyclic(), VcsrOptions::default().in_edges(true))?;

    let expected = vec![vec![0, 1, 2], vec![3, 4], vec![5], vec![6]];
    assert_eq!(sorted(kosaraju_scc(&without)), expected);
    assert_eq!(sorted(kosaraju_scc(&with)), expected);
    assert_eq!(sorted(tarjan_scc(&without)), expected);

    // A cycle: toposort names a vertex on one, with in-edges or without.
    assert!(toposort(&without, None).is_err());
    let dag = Vcsr::from_edges(
        &[Edge::new(0, 1), Edge::new(1, 2), Edge::new(0, 2)],
        VcsrOptions::default(),
    )?;
    assert_eq!(toposort(&dag, None).unwrap(), vec![0, 1, 2]);

    // Paths backwards: over the reversed graph 6 reaches 0, 0 reaches nothing.
    assert!(has_path_connecting(Reversed(&without), 6, 0, None));
    assert!(!has_path_connecting(Reversed(&without), 0, 6, None));
    assert!(has_path_connecting(&without, 0, 6, None));

    // On every store type of the prelude too, their defaults without in-edges.
    let csrpp = CsrPP::from_edges(&cyclic(), CsrPPOptions::default())?;
    assert_eq!(sorted(kosaraju_scc(&csrpp)), expected);
    let pcsr = Pcsr::from_edges(&cyclic(), StoreOptions::default())?;
    assert_eq!(sorted(kosaraju_scc(&pcsr)), expected);
    Ok(())
}
