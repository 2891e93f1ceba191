//! Every kernel on every store that has landed (`Csr` with and without
//! in-edges, and the reference model), on every graph in `../shared/data`,
//! the bundled sample and generated Kronecker and uniform graphs, at 1 and
//! 2 threads: each result checked by its verifier, deterministic results
//! compared across thread counts and stores.

mod common;

use common::*;

#[test]
fn bundled_college_msg() {
    let edges = read_edges(&common::bundled_college_msg(), false);
    assert_eq!(edges.len(), 59_835);
    check_graph("CollegeMsg (bundled)", &edges, vertex_count_of(&edges));
}

#[test]
fn shared_email_eu_core() {
    if let Some(edges) = shared_file("email-Eu-core-temporal-part.txt", false) {
        assert_eq!(edges.len(), 83_083);
        check_graph("email-Eu-core part", &edges, vertex_count_of(&edges));
    }
}

#[test]
fn shared_dnc_with_self_loops() {
    if let Some(edges) = shared_file("dnc-temporal.txt", false) {
        assert_eq!(edges.len(), 39_264);
        check_graph("dnc-temporal", &edges, vertex_count_of(&edges));
    }
}

#[test]
fn shared_college_msg() {
    if let Some(edges) = shared_file("CollegeMsg.txt", false) {
        assert_eq!(edges.len(), 59_835);
        check_graph("CollegeMsg (shared)", &edges, vertex_count_of(&edges));
    }
}

#[test]
fn shared_sx_mathoverflow_base_and_dynamic() {
    let Some(mut edges) = shared_file("sx-mathoverflow/b30/base.wel", true) else {
        return;
    };
    let Some(dynamic) = shared_file("sx-mathoverflow/b30/dynamic.wel", true) else {
        return;
    };
    edges.extend(dynamic);
    assert_eq!(edges.len(), 375_972);
    assert_eq!(vertex_count_of(&edges), 88_581);
    check_graph("sx-mathoverflow b30 base+dynamic", &edges, 88_581);
}

#[test]
fn shared_sx_mathoverflow_b10_base() {
    if let Some(edges) = shared_file("sx-mathoverflow/b10/base.wel", true) {
        assert_eq!(edges.len(), 37_598);
        check_graph("sx-mathoverflow b10 base", &edges, vertex_count_of(&edges));
    }
}

#[test]
fn generated_kronecker() {
    let edges = rmat(12, 16, 7);
    check_graph("kronecker scale 12", &edges, 1 << 12);
}

#[test]
fn generated_kronecker_undirected() {
    let edges = symmetrize(&rmat(10, 8, 11));
    check_graph("kronecker scale 10 symmetric", &edges, 1 << 10);
}

#[test]
fn generated_uniform() {
    let edges = uniform(12, 16, 9);
    check_graph("uniform scale 12", &edges, 1 << 12);
}
