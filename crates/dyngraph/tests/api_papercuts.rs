//! The API papercuts a new user hit (issue 25), each pinned: these must
//! keep compiling and answering as written, with `dyngraph::prelude::*`
//! as the only import.

use dyngraph::core::{CsrOptions, StoreOptions};
use dyngraph::csrpp::CsrPPOptions;
use dyngraph::durable::DurableOptions;
use dyngraph::prelude::*;
use dyngraph::stores::{StoreKind, StoreSettings, StoreVisitor};
use dyngraph::vcsr::VcsrOptions;

fn ring(n: u32) -> Vec<Edge> {
    (0..n).map(|v| Edge::new(v, (v + 1) % n)).collect()
}

#[test]
fn vcsr_builds_from_default_options_without_a_type_annotation() {
    let edges = ring(50);
    // E0283 before: the gap policy could not be inferred.
    let vcsr = Vcsr::from_edges(&edges[..], VcsrOptions::default()).unwrap();
    assert_eq!(vcsr.edge_count(), 50);
    let mut empty = Vcsr::default();
    empty.insert_edge(3, 4).unwrap();
    assert_eq!(empty.vertex_count(), 5);
    assert_eq!(
        Pcsr::default().edge_count() + Bal::default().edge_count(),
        0
    );
    assert_eq!(CsrPP::default().vertex_count(), 0);
}

#[test]
fn every_options_type_takes_the_same_setters() {
    let vcsr = VcsrOptions::default().in_edges(true).weighted(true);
    let csrpp = CsrPPOptions::default().in_edges(true).weighted(true);
    let csr = CsrOptions::default().in_edges(true).weighted(true);
    let durable = DurableOptions::default().in_edges(true).weighted(true);
    for shared in [
        vcsr.shared(),
        csrpp.shared(),
        csr.shared(),
        durable.shared(),
    ] {
        assert!(shared.in_edges && shared.weighted);
    }
}

#[test]
fn in_neighbors_and_weights_are_on_the_store() {
    let edges = ring(10);
    let vcsr = Vcsr::from_edges(&edges[..], VcsrOptions::default().in_edges(true)).unwrap();
    assert_eq!(vcsr.in_neighbors(1).unwrap().collect::<Vec<_>>(), [0]);
    assert_eq!(vcsr.in_degree(1).unwrap(), 1);
    let out_only = Vcsr::from_edges(&edges[..], VcsrOptions::default()).unwrap();
    let Err(error) = out_only.in_neighbors(1) else {
        panic!("no in-edges kept, so no in-neighbours");
    };
    assert!(error.to_string().contains("without in-edges"), "{error}");
    let weighted = [WeightedEdge::new(0, 1, 2.5)];
    let csrpp = CsrPP::from_edges(&weighted[..], CsrPPOptions::default().weighted(true)).unwrap();
    assert_eq!(
        csrpp.weighted_out_neighbors(0).unwrap().collect::<Vec<_>>(),
        [(1, 2.5)]
    );
}

/// Reads a few vertices past the end through the contract.
struct ReadsOutside;

impl StoreVisitor for ReadsOutside {
    type Output = ();

    fn visit<S: DynamicStore + 'static>(self, options: S::Options) {
        let options = options.in_edges(S::CAPABILITIES.in_edges).weighted(true);
        let store = S::from_edges(&ring(50)[..], options).unwrap();
        let snapshot = store.snapshot();
        let view = store.view(&snapshot).unwrap();
        for v in [50, 51, 99, u32::MAX] {
            assert_eq!(store.out_degree(v), 0, "{} out_degree({v})", S::NAME);
            assert_eq!(store.out_neighbors(v).count(), 0, "{}", S::NAME);
            assert_eq!(view.out_degree(v), 0, "{} view", S::NAME);
            assert_eq!(store.weighted_out_neighbors(v).unwrap().count(), 0);
            if S::CAPABILITIES.in_edges {
                assert_eq!(store.in_degree(v).unwrap(), 0, "{} in_degree({v})", S::NAME);
                assert_eq!(view.in_neighbors(v).unwrap().count(), 0, "{} view", S::NAME);
            }
        }
    }
}

#[test]
fn reads_outside_the_graph_are_isolated_vertices_in_every_store() {
    for &kind in StoreKind::ALL {
        kind.visit(
            &StoreSettings::default(),
            StoreOptions::default(),
            ReadsOutside,
        );
    }
    let csr = Csr::from_edges(&ring(50)[..], CsrOptions::default().in_edges(true)).unwrap();
    assert_eq!(csr.out_degree(50) + csr.in_degree(u32::MAX).unwrap(), 0);
}
