//! `Csr` construction against the reference model, for random edge lists,
//! with and without sort, dedupe and transpose, on 1 and 2 threads.

use dyngraph_core::StoreConfig;
use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
use dyngraph_core::{
    Csr, CsrOptions, Edge, EdgeChunk, EdgeChunks, EdgeColumns, EdgeWeights, Error, Graph,
    GraphUpdate, InEdges, OutNeighbors, Semantics, WeightedEdge, WeightedNeighbors,
};
use proptest::prelude::*;

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool")
        .install(f)
}

fn weighted_edges(max_vertex: u32, max_len: usize) -> impl Strategy<Value = Vec<WeightedEdge>> {
    prop::collection::vec(
        (0..max_vertex, 0..max_vertex, 0u8..8)
            .prop_map(|(s, d, w)| WeightedEdge::new(s, d, f32::from(w))),
        0..max_len,
    )
}

fn model_of(edges: &[WeightedEdge], semantics: Semantics) -> ReferenceGraph {
    let mut model = ReferenceGraph::new(semantics);
    model.insert_edges(edges).expect("ids within the limit");
    model
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn csr_matches_model(
        edges in weighted_edges(40, 300),
        dedupe in any::<bool>(),
        sort in any::<bool>(),
        transpose in any::<bool>(),
        threads in 1usize..=2,
    ) {
        let options = CsrOptions::default().semantics(if dedupe { Semantics::Simple } else { Semantics::Multigraph }).sort(sort).in_edges(transpose);
        let csr = in_pool(threads, || Csr::from_edges(&edges, options)).unwrap();
        let semantics = if dedupe { Semantics::Simple } else { Semantics::Multigraph };
        prop_assert_eq!(csr.semantics(), semantics);
        prop_assert_eq!(csr.has_in_edges(), transpose);
        let model = model_of(&edges, semantics);
        compare_with_model(&csr, &model).map_err(TestCaseError::fail)?;
        for v in 0..csr.vertex_count() as u32 {
            let list: Vec<u32> = csr.out_neighbors(v).collect();
            if sort || dedupe {
                prop_assert!(list.windows(2).all(|w| w[0] <= w[1]), "vertex {} not sorted", v);
            } else {
                // Unsorted builds keep input order within every vertex.
                let expected: Vec<u32> = model.out_neighbors(v).collect();
                prop_assert_eq!(list, expected);
            }
        }
    }

    #[test]
    fn chunks_build_the_same_graph_as_one_slice(
        edges in weighted_edges(30, 200),
        cuts in prop::collection::vec(0usize..200, 0..6),
        threads in 1usize..=2,
    ) {
        let src: Vec<u32> = edges.iter().map(|e| e.src).collect();
        let dst: Vec<u32> = edges.iter().map(|e| e.dst).collect();
        let weights: Vec<f32> = edges.iter().map(|e| e.weight).collect();
        let mut bounds: Vec<usize> = cuts.into_iter().map(|c| c.min(edges.len())).collect();
        bounds.push(0);
        bounds.push(edges.len());
        bounds.sort_unstable();
        let chunks: Vec<EdgeChunk<'_>> = bounds
            .windows(2)
            .map(|w| EdgeChunk { src: &src[w[0]..w[1]], dst: &dst[w[0]..w[1]], weights: Some(&weights[w[0]..w[1]]) })
            .collect();
        let options = CsrOptions::default().in_edges(true);
        let from_chunks = in_pool(threads, || Csr::from_edges(&EdgeChunks::new(&chunks).unwrap(), options.clone())).unwrap();
        let from_slice = Csr::from_edges(&edges, options).unwrap();
        prop_assert_eq!(from_chunks, from_slice);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    /// Handing the columns over (with gaps between runs, whose slots hold
    /// junk) builds what borrowing the same runs builds, with every option.
    #[test]
    fn owned_columns_build_what_borrowed_chunks_build(
        edges in weighted_edges(600, 400),
        cuts in prop::collection::vec(0usize..400, 0..6),
        gap in 0usize..4,
        weighted in any::<bool>(),
        dedupe in any::<bool>(),
        sort in any::<bool>(),
        transpose in any::<bool>(),
        threads in 1usize..=2,
    ) {
        let mut bounds: Vec<usize> = cuts.into_iter().map(|c| c.min(edges.len())).collect();
        bounds.push(0);
        bounds.push(edges.len());
        bounds.sort_unstable();
        // Lay the pieces out with `gap` junk slots before each.
        let (mut src, mut dst, mut weights, mut runs) = (vec![], vec![], vec![], vec![]);
        for w in bounds.windows(2) {
            for _ in 0..gap {
                src.push(u32::MAX);
                dst.push(u32::MAX);
                weights.push(-1.0);
            }
            let start = src.len();
            for e in &edges[w[0]..w[1]] {
                src.push(e.src);
                dst.push(e.dst);
                weights.push(e.weight);
            }
            runs.push(start..src.len());
        }
        let chunks: Vec<EdgeChunk<'_>> = runs
            .iter()
            .map(|r| EdgeChunk {
                src: &src[r.clone()],
                dst: &dst[r.clone()],
                weights: weighted.then(|| &weights[r.clone()]),
            })
            .collect();
        let options = CsrOptions::default().semantics(if dedupe { Semantics::Simple } else { Semantics::Multigraph }).sort(sort).in_edges(transpose);
        let borrowed = in_pool(threads, || Csr::from_edges(&EdgeChunks::new(&chunks).unwrap(), options.clone())).unwrap();
        let columns = EdgeColumns {
            src: src.clone(),
            dst: dst.clone(),
            weights: weighted.then(|| weights.clone()),
        };
        let owned = in_pool(threads, || Csr::from_columns(columns, &runs, options)).unwrap();
        prop_assert_eq!(owned, borrowed);
    }
}

#[test]
// `&[a..b]` here is a list of one run of slots, not a range of values.
#[allow(clippy::single_range_in_vec_init)]
fn owned_columns_out_of_shape_are_errors() {
    let columns = || EdgeColumns {
        src: vec![0, 1],
        dst: vec![1, 0],
        weights: None,
    };
    let options = CsrOptions::default().in_edges(true);
    let error = Csr::from_columns(columns(), &[1..3], options.clone()).unwrap_err();
    assert!(matches!(error, Error::InvalidStructure(_)), "{error}");
    let short = EdgeColumns {
        dst: vec![1],
        ..columns()
    };
    let error = Csr::from_columns(short, &[0..1], options.clone()).unwrap_err();
    assert!(matches!(error, Error::InvalidStructure(_)), "{error}");
    let weights = EdgeColumns {
        weights: Some(vec![1.0]),
        ..columns()
    };
    let error = Csr::from_columns(weights, &[0..1], options.clone()).unwrap_err();
    assert!(matches!(error, Error::InvalidStructure(_)), "{error}");
    let limited = options.clone().vertex_limit(1);
    let error = Csr::from_columns(columns(), &[0..2], limited).unwrap_err();
    assert!(matches!(error, Error::VertexLimit { .. }), "{error}");
}

#[test]
fn dedupe_keeps_the_first_weight() {
    let edges = [
        WeightedEdge::new(0, 2, 5.0),
        WeightedEdge::new(0, 1, 1.0),
        WeightedEdge::new(0, 2, 9.0),
    ];
    let csr = Csr::from_edges(&edges, CsrOptions::default().semantics(Semantics::Simple)).unwrap();
    assert_eq!(
        csr.edge_weights()
            .unwrap()
            .out_neighbors_weighted(0)
            .collect::<Vec<_>>(),
        [(1, 1.0), (2, 5.0)]
    );
    assert_eq!(csr.edge_count(), 2);
}

#[test]
fn declared_vertex_count_keeps_isolated_vertices_and_rejects_ids_beyond_it() {
    let edges = [Edge::new(0, 1)];
    let csr = Csr::from_edges(&edges, CsrOptions::default().vertex_count(10)).unwrap();
    assert_eq!(csr.vertex_count(), 10);
    assert_eq!(csr.out_degree(9), 0);
    let error =
        Csr::from_edges(&[Edge::new(0, 10)], CsrOptions::default().vertex_count(10)).unwrap_err();
    assert!(
        matches!(
            error,
            Error::VertexOutOfRange {
                vertex: 10,
                vertex_count: 10
            }
        ),
        "{error}"
    );
}

#[test]
fn vertex_limit_refuses_absurd_ids_instead_of_allocating() {
    let options = CsrOptions::default().vertex_limit(1000);
    let error = Csr::from_edges(&[Edge::new(0, u32::MAX - 1)], options).unwrap_err();
    assert!(
        matches!(error, Error::VertexLimit { limit: 1000, .. }),
        "{error}"
    );
}

#[test]
fn empty_input_builds_an_empty_graph() {
    let csr = Csr::from_edges::<[Edge]>(&[], CsrOptions::default().in_edges(true)).unwrap();
    assert_eq!((csr.vertex_count(), csr.edge_count()), (0, 0));
    assert_eq!(csr.offsets(), &[0]);
}

#[test]
fn mixed_weighted_and_unweighted_chunks_are_an_error() {
    let (a, b, w) = ([0u32], [1u32], [1.0f32]);
    let chunks = [
        EdgeChunk {
            src: &a,
            dst: &b,
            weights: Some(&w),
        },
        EdgeChunk {
            src: &a,
            dst: &b,
            weights: None,
        },
    ];
    assert!(matches!(
        EdgeChunks::new(&chunks),
        Err(Error::InvalidStructure(_))
    ));
}

#[test]
fn from_parts_rejects_inconsistent_arrays() {
    let bad = [
        (vec![1, 1], vec![0]),    // does not start at 0
        (vec![0, 2], vec![0]),    // last offset != targets
        (vec![0, 1, 0], vec![0]), // decreasing
        (vec![0, 1], vec![5]),    // target out of range
        (vec![], vec![]),         // no offsets at all
    ];
    for (offsets, targets) in bad {
        let result = Csr::from_parts(
            offsets.clone(),
            targets.clone(),
            None,
            Semantics::Multigraph,
        );
        assert!(
            matches!(result, Err(Error::InvalidStructure(_))),
            "{offsets:?} {targets:?} accepted"
        );
    }
    let csr = Csr::from_parts(vec![0, 1, 1], vec![1], Some(vec![2.5]), Semantics::Simple).unwrap();
    assert_eq!(
        csr.edge_weights()
            .unwrap()
            .out_neighbors_weighted(0)
            .collect::<Vec<_>>(),
        [(1, 2.5)]
    );
}

#[test]
fn view_answers_like_the_owned_csr() {
    let edges = [Edge::new(2, 0), Edge::new(0, 1), Edge::new(0, 2)];
    let csr = Csr::from_edges(&edges, CsrOptions::default().in_edges(true)).unwrap();
    let view = csr.view();
    let model = {
        let mut m = ReferenceGraph::new(Semantics::Multigraph);
        m.insert_edges(&edges).unwrap();
        m
    };
    compare_with_model(&view, &model).unwrap();
    assert_eq!(view.to_csr(), csr);
}

#[test]
fn reference_model_follows_both_semantics() {
    let mut multi = ReferenceGraph::new(Semantics::Multigraph);
    let mut simple = ReferenceGraph::new(Semantics::Simple);
    for graph in [&mut multi, &mut simple] {
        graph.insert_edge(0, 1).unwrap();
        graph.insert_edge(0, 1).unwrap();
    }
    assert_eq!((multi.edge_count(), simple.edge_count()), (2, 1));
    assert!(multi.delete_edge(0, 1).unwrap());
    assert!(simple.delete_edge(0, 1).unwrap());
    assert!(
        !simple.delete_edge(0, 1).unwrap(),
        "deleting a missing edge is a no-op"
    );
    assert_eq!((multi.edge_count(), simple.edge_count()), (1, 0));
    assert!(
        !multi.delete_edge(7, 1).unwrap(),
        "deleting from an unknown vertex does not grow"
    );
    assert_eq!(multi.vertex_count(), 2);
}

/// The parallel scatter gives every (partition, vertex) pair its own run of
/// slots; with more partitions than edges per vertex the runs interleave
/// finely, and input order within every vertex must still hold, out and in.
#[test]
fn many_partitions_keep_input_order_within_every_vertex() {
    // Enough edges for several partitions of the build (at least 64 Ki
    // edges each); low ids take most edges and ids cycle, so every
    // partition writes to every bucket and to the hubs.
    let edges: Vec<Edge> = (0..400_000u32)
        .map(|i| {
            Edge::new(
                (i % 3 % 2 * (i % 7) + i % 293 / 290 * (i % 300)) % 300,
                (i * 7919) % 300,
            )
        })
        .collect();
    let expected = in_pool(1, || {
        Csr::from_edges(&edges, CsrOptions::default().in_edges(true)).unwrap()
    });
    for v in 0..300u32 {
        let in_order: Vec<u32> = edges.iter().filter(|e| e.src == v).map(|e| e.dst).collect();
        assert_eq!(expected.out_slice(v), &in_order[..], "vertex {v}");
    }
    for threads in [2, 3, 5, 8] {
        let csr = in_pool(threads, || {
            Csr::from_edges(&edges, CsrOptions::default().in_edges(true)).unwrap()
        });
        assert_eq!(csr, expected, "{threads} threads");
        let declared = in_pool(threads, || {
            Csr::from_edges(
                &edges,
                CsrOptions::default().in_edges(true).vertex_count(300),
            )
            .unwrap()
        });
        assert_eq!(declared, expected, "{threads} threads, declared count");
    }
}

/// An id beyond a declared vertex count in the last partition (where the
/// degree count, not a separate pass, meets it first) is still refused with
/// the largest id.
#[test]
fn an_id_beyond_the_declared_count_is_refused_in_any_partition() {
    let mut edges: Vec<Edge> = (0..1000u32).map(|i| Edge::new(i % 50, i % 40)).collect();
    edges.push(Edge::new(3, 77));
    edges.push(Edge::new(60, 2));
    for threads in [1, 2, 3] {
        let error = in_pool(threads, || {
            Csr::from_edges(&edges, CsrOptions::default().vertex_count(50)).unwrap_err()
        });
        assert!(
            matches!(
                error,
                Error::VertexOutOfRange {
                    vertex: 77,
                    vertex_count: 50
                }
            ),
            "{threads} threads: {error}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// `Csr` answers the build part of the store contract.
    #[test]
    fn csr_answers_the_build_contract(
        edges in dyngraph_core::testing::weighted_edges(30, 0..200),
        simple in any::<bool>(),
        in_edges in any::<bool>(),
    ) {
        let semantics = if simple { Semantics::Simple } else { Semantics::Multigraph };
        // A Csr keeps weights when its input has them.
        let options = dyngraph_core::StoreOptions::new(semantics).in_edges(in_edges).weighted(true);
        dyngraph_core::testing::check_build_contract::<Csr>(options, &edges)
            .map_err(TestCaseError::fail)?;
    }
}

#[test]
fn missing_in_edges_and_weights_are_errors_not_empty_lists() {
    let csr = Csr::from_edges(&[Edge::new(0, 1)], CsrOptions::default()).unwrap();
    let error = csr.in_edges().unwrap_err();
    assert!(matches!(
        error,
        Error::MissingCapability {
            capability: dyngraph_core::Capability::InEdges,
            ..
        }
    ));
    assert!(
        error.to_string().contains("Csr was built without in-edges"),
        "{error}"
    );
    assert!(matches!(
        csr.edge_weights(),
        Err(Error::MissingCapability { .. })
    ));
}
