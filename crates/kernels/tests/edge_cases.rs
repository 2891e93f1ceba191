//! Edge cases from the issue (empty graph, isolated vertices, self-loops,
//! multi-edges, a source with no out-edges, ids that skip values), bad
//! arguments as errors, verifiers that reject wrong results, and random
//! small graphs through every kernel on both stores.

mod common;

use common::*;
use dyngraph_core::{Csr, CsrOptions, Error, WeightedEdge};
use dyngraph_kernels::*;
use proptest::prelude::*;

fn edges(list: &[(u32, u32)]) -> Vec<WeightedEdge> {
    list.iter()
        .map(|&(s, d)| WeightedEdge::new(s, d, 1.0))
        .collect()
}

#[test]
fn empty_graph() {
    let stores = stores(&[], 0);
    let g = &stores.csr;
    assert!(matches!(
        bfs(g, &BfsOptions::default()),
        Err(Error::VertexOutOfRange {
            vertex: 0,
            vertex_count: 0
        })
    ));
    assert!(matches!(
        sssp(g, &SsspOptions::default()),
        Err(Error::VertexOutOfRange { .. })
    ));
    let pr = pagerank(g, &PageRankOptions::default()).unwrap();
    assert!(pr.scores.is_empty());
    verify_pagerank(g, &pr).unwrap();
    let cc = connected_components(g, &ComponentsOptions::default()).unwrap();
    assert!(cc.labels.is_empty());
    assert_eq!(cc.component_count(), 0);
    verify_components(g, &cc).unwrap();
    assert!(matches!(
        betweenness_centrality(g, &BcOptions::default()),
        Err(Error::InvalidArgument(_))
    ));
    let tc = triangle_count(g).unwrap();
    assert_eq!((tc.triangles, tc.symmetrized), (0, false));
    assert!(
        reverse_walks(g, &ReverseWalkOptions::default())
            .unwrap()
            .visits
            .is_empty()
    );
    let stats = degree_stats(g, DegreeKind::Out).unwrap();
    assert_eq!(
        (stats.vertex_count, stats.max, stats.max_vertex),
        (0, 0, None)
    );
    assert!(degree_distribution(g, DegreeKind::In).unwrap().is_empty());
}

#[test]
fn isolated_vertices_and_skipped_ids() {
    // Ids 0, 2, 4, 6 unused; 9 is isolated; 1-3-5 and 7-8.
    let list = edges(&[(1, 3), (3, 5), (5, 1), (7, 8)]);
    let stores = stores(&list, 10);
    for threads in [1, 2] {
        let out = run_and_verify(&stores.csr, 1, threads, "skipped ids");
        assert_eq!(out.afforest.labels, [0, 1, 2, 1, 4, 1, 6, 7, 7, 9]);
        assert_eq!(out.afforest.component_count(), 7);
        assert_eq!(out.bfs.reached(), 3);
        assert_eq!(out.bfs.parents[0], NO_PARENT);
        assert_eq!(out.sssp.distances[9], f32::INFINITY);
        assert_eq!(out.triangles.triangles, 1);
        // Isolated vertices keep only the teleport share (1 - d) / n.
        assert!((out.pagerank.scores[9] - 0.15 / 10.0).abs() < 1e-7);
        // 1-step walks from an isolated vertex: none after a step.
        assert_eq!(out.walks.visits[9], 0.0);
        let model = run_and_verify(&stores.model, 1, threads, "skipped ids model");
        assert_same_results(&out, &model, "skipped ids csr vs model", false);
    }
    let stats = degree_stats(&stores.csr, DegreeKind::Out).unwrap();
    assert_eq!((stats.zero_degree, stats.max, stats.edge_count), (6, 1, 4));
    assert_eq!(
        degree_distribution(&stores.csr, DegreeKind::In).unwrap(),
        [(0, 6), (1, 4)]
    );
}

#[test]
fn self_loops_and_multi_edges() {
    // 0 -> 1 three times, a self-loop on 1, 1 -> 2, 2 -> 0, self-loop on 3.
    let list = edges(&[(0, 1), (0, 1), (1, 1), (0, 1), (1, 2), (2, 0), (3, 3)]);
    let stores = stores(&list, 4);
    for threads in [1, 2] {
        let out = run_and_verify(&stores.csr, 0, threads, "loops");
        // Loops and repeats do not make triangles; 0-1-2 is one.
        assert_eq!(out.triangles.triangles, 1);
        assert_eq!(out.triangles.undirected_edges, 3);
        assert!(out.triangles.symmetrized);
        assert_eq!(out.bfs.depths.as_deref(), Some(&[0, 1, 2, UNREACHED][..]));
        assert_eq!(out.afforest.labels, [0, 0, 0, 3]);
        // Each parallel edge is its own walk: from 0, 3 one-step walks.
        let one_step = reverse_walks(&stores.csr, &ReverseWalkOptions { steps: 1 }).unwrap();
        assert_eq!(one_step.visits, [3.0, 2.0, 1.0, 1.0]);
        let model = run_and_verify(&stores.model, 0, threads, "loops model");
        assert_same_results(&out, &model, "loops csr vs model", false);
    }
}

#[test]
fn source_without_out_edges() {
    let list = edges(&[(0, 1), (1, 2), (3, 0)]);
    let stores = stores(&list, 4);
    for threads in [1, 2] {
        let out = run_and_verify(&stores.csr, 2, threads, "sink source");
        assert_eq!(out.bfs.reached(), 1);
        assert_eq!(out.bfs.parents, [NO_PARENT, NO_PARENT, 2, NO_PARENT]);
        assert_eq!(out.sssp.distances[2], 0.0);
        assert_eq!(out.sssp.reached(), 1);
        assert!(out.bc.scores.iter().all(|&s| s == 0.0));
    }
}

#[test]
fn bad_arguments_are_errors() {
    let stores = stores(&edges(&[(0, 1)]), 2);
    let g = &stores.csr;
    assert!(matches!(
        bfs(g, &BfsOptions::from_source(2)),
        Err(Error::VertexOutOfRange {
            vertex: 2,
            vertex_count: 2
        })
    ));
    let zero_alpha = BfsOptions {
        alpha: 0,
        ..BfsOptions::default()
    };
    assert!(matches!(
        bfs(g, &zero_alpha),
        Err(Error::InvalidArgument(_))
    ));
    for damping in [-0.1, 1.5, f32::NAN] {
        let options = PageRankOptions {
            damping,
            ..PageRankOptions::default()
        };
        assert!(matches!(
            pagerank(g, &options),
            Err(Error::InvalidArgument(_))
        ));
    }
    let options = PageRankOptions {
        tolerance: f64::NAN,
        ..PageRankOptions::default()
    };
    assert!(matches!(
        pagerank(g, &options),
        Err(Error::InvalidArgument(_))
    ));
    for delta in [0.0, -1.0, f32::INFINITY, f32::NAN] {
        let options = SsspOptions::from_source(0).with_delta(delta);
        assert!(matches!(sssp(g, &options), Err(Error::InvalidArgument(_))));
    }
    let bc = BcOptions {
        sources: BcSources::Given(vec![0, 7]),
        normalize: true,
    };
    assert!(matches!(
        betweenness_centrality(g, &bc),
        Err(Error::VertexOutOfRange { vertex: 7, .. })
    ));
    assert!(matches!(
        "nope".parse::<KernelName>(),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn negative_and_nan_weights_are_refused_by_sssp() {
    for bad in [-1.0, f32::NAN] {
        let list = [WeightedEdge::new(0, 1, 2.0), WeightedEdge::new(1, 2, bad)];
        let csr = Csr::from_edges(&list, CsrOptions::default()).unwrap();
        assert!(matches!(
            sssp(&csr, &SsspOptions::from_source(0)),
            Err(Error::InvalidArgument(_))
        ));
    }
}

#[test]
fn pagerank_tolerance_stops_early() {
    let edges = rmat(8, 8, 3);
    let stores = stores(&edges, 256);
    let options = PageRankOptions {
        max_iterations: 100,
        tolerance: 1e-4,
        ..PageRankOptions::default()
    };
    let pr = pagerank(&stores.csr, &options).unwrap();
    assert!(
        pr.iterations < 100 && pr.last_change < 1e-4,
        "{} iterations",
        pr.iterations
    );
    verify_pagerank(&stores.csr, &pr).unwrap();
}

#[test]
fn bfs_top_down_only_on_request() {
    let edges = rmat(10, 16, 5);
    let stores = stores(&edges, 1024);
    let options = BfsOptions::from_source(0)
        .with_depths(true)
        .with_direction(BfsDirection::TopDownOnly);
    let tree = bfs(&stores.csr, &options).unwrap();
    assert_eq!(tree.strategy, BfsStrategy::TopDownRequested);
    assert_eq!(tree.bottom_up_steps, 0);
    verify_bfs(&stores.csr, &tree).unwrap();
    let auto = bfs(&stores.csr, &BfsOptions::from_source(0).with_depths(true)).unwrap();
    assert!(auto.bottom_up_steps > 0, "a Kronecker graph goes bottom-up");
    assert_eq!(auto.depths, tree.depths);
}

#[test]
fn verifiers_reject_wrong_results() {
    let edges = rmat(9, 8, 21);
    let stores = stores(&edges, 512);
    let g = &stores.csr;
    let source = busiest_vertex(&edges, 512);
    let out = run_and_verify(g, source, 2, "corruption");

    let mut tree = out.bfs.clone();
    let reached = (0..512)
        .find(|&v| v != source as usize && tree.parents[v] != NO_PARENT)
        .unwrap();
    tree.parents[reached] = NO_PARENT;
    assert!(verify_bfs(g, &tree).is_err());
    let mut tree = out.bfs.clone();
    tree.depths.as_mut().unwrap()[reached] += 1;
    assert!(verify_bfs(g, &tree).is_err());
    let mut tree = out.bfs.clone();
    // A parent that is not an in-neighbour one level up.
    tree.parents[reached] = reached as u32;
    assert!(verify_bfs(g, &tree).is_err());

    let mut pr = out.pagerank.clone();
    pr.scores[3] *= 1.01;
    let err = verify_pagerank(g, &pr).unwrap_err();
    assert_eq!((err.kernel, err.vertex), ("pagerank", Some(3)));

    let mut paths = out.sssp.clone();
    paths.distances[reached] += 1.0;
    assert!(verify_sssp(g, &paths).is_err());

    let mut cc = out.afforest.clone();
    let other = (0..512)
        .find(|&v| cc.labels[v] != cc.labels[reached])
        .unwrap();
    cc.labels[other] = cc.labels[reached];
    assert!(verify_components(g, &cc).is_err());
    let mut cc = out.afforest.clone();
    let unused = (0..512u32).find(|l| !cc.labels.contains(l)).unwrap();
    cc.labels[reached] = unused; // splits a component
    assert!(verify_components(g, &cc).is_err());

    let mut bc = out.bc.clone();
    let top = (0..512)
        .max_by(|&a, &b| bc.scores[a].total_cmp(&bc.scores[b]))
        .unwrap();
    bc.scores[top] *= 0.99;
    assert!(verify_bc(g, &bc).is_err());

    let mut tc = out.triangles;
    tc.triangles += 1;
    assert!(verify_triangles(g, &tc).is_err());

    let mut walks = out.walks.clone();
    walks.visits[reached] = walks.visits[reached] * 1.001 + 1.0;
    assert!(verify_reverse_walks(g, &walks).is_err());
}

#[test]
fn dispatch_runs_every_kernel_by_name() {
    let edges = symmetrize(&rmat(8, 8, 13));
    let stores = stores(&edges, 256);
    for name in KernelName::ALL {
        assert_eq!(name.as_str().parse::<KernelName>().unwrap(), name);
        for threads in [1, 2] {
            let output = in_pool(threads, || run(&stores.csr, &name.default_options())).unwrap();
            verify(&stores.csr, &output).unwrap();
            let model_output = run(&stores.model, &name.default_options()).unwrap();
            verify(&stores.model, &model_output).unwrap();
            assert!(!output.summary().is_empty());
        }
    }
}

#[test]
fn degree_stats_match_a_direct_count() {
    let edges = rmat(10, 8, 17);
    let stores = stores(&edges, 1024);
    for kind in [DegreeKind::Out, DegreeKind::In] {
        let mut degree = vec![0u64; 1024];
        for e in &edges {
            degree[match kind {
                DegreeKind::Out => e.src,
                DegreeKind::In => e.dst,
            } as usize] += 1;
        }
        for stats in [
            degree_stats(&stores.csr, kind).unwrap(),
            degree_stats(&stores.model, kind).unwrap(),
        ] {
            assert_eq!(stats.edge_count, edges.len() as u64);
            assert_eq!(stats.max, *degree.iter().max().unwrap());
            assert_eq!(stats.min, *degree.iter().min().unwrap());
            assert_eq!(degree[stats.max_vertex.unwrap() as usize], stats.max);
            assert_eq!(
                stats.zero_degree,
                degree.iter().filter(|&&d| d == 0).count()
            );
            let mut sorted = degree.clone();
            sorted.sort_unstable();
            assert_eq!(stats.median, sorted[511]);
            assert!((stats.mean - edges.len() as f64 / 1024.0).abs() < 1e-12);
        }
        let distribution = degree_distribution(&stores.csr, kind).unwrap();
        assert_eq!(distribution.iter().map(|&(_, c)| c).sum::<u64>(), 1024);
        for (d, c) in distribution {
            assert_eq!(degree.iter().filter(|&&x| x == d).count() as u64, c);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random small multigraphs with loops and gaps: every kernel verifies
    /// on every store at 1 and 2 threads and agrees across them.
    #[test]
    fn random_graphs(
        list in prop::collection::vec((0u32..24, 0u32..24, 0u8..6), 0..120),
        extra in 0usize..4,
        source_pick in 0usize..1000,
    ) {
        let edges: Vec<WeightedEdge> = list
            .iter()
            .map(|&(s, d, w)| WeightedEdge::new(s, d, f32::from(w)))
            .collect();
        let n = vertex_count_of(&edges) + extra;
        prop_assume!(n > 0);
        let source = (source_pick % n) as u32;
        let stores = stores(&edges, n);
        let a = run_and_verify(&stores.csr, source, 1, "random");
        let b = run_and_verify(&stores.csr, source, 2, "random");
        assert_same_results(&a, &b, "random 1 vs 2", true);
        let c = run_and_verify(&stores.csr_out_only, source, 2, "random out-only");
        assert_same_results(&a, &c, "random csr vs out-only", false);
        let m = run_and_verify(&stores.model, source, 2, "random model");
        assert_same_results(&a, &m, "random csr vs model", false);
    }
}

/// Delta-stepping's per-thread bins (issue 17): a frontier of 1,024 or more
/// goes through the pool (rounds alternate between the pool and the calling
/// thread), a tiny delta files most entries in the
/// overflow list past the directly indexed bins, a huge delta puts every
/// vertex in bucket 0 (fusion and re-relaxation), and all of them agree
/// with Dijkstra at 1 and 2 threads.
#[test]
fn sssp_bins_agree_with_dijkstra_for_any_delta() {
    let mut edges = rmat(14, 8, 17);
    for (i, e) in edges.iter_mut().enumerate() {
        e.weight = (i % 251) as f32 * 0.37 + 0.01;
    }
    let n = vertex_count_of(&edges);
    let csr = Csr::from_edges(&edges, CsrOptions::default().vertex_count(n)).unwrap();
    let source = busiest_vertex(&edges, n);
    let expected = serial_dijkstra(&csr, source);
    for delta in [1e-4, 0.5, 1.0, 25.0, 1e9] {
        for threads in [1, 2] {
            let options = SsspOptions::from_source(source).with_delta(delta);
            let paths = in_pool(threads, || sssp(&csr, &options)).unwrap();
            verify_sssp(&csr, &paths)
                .unwrap_or_else(|e| panic!("delta {delta}, {threads} threads: {e}"));
            assert_eq!(paths.distances.len(), expected.len());
            assert!(paths.rounds >= 1);
        }
    }
    // With delta far below the smallest weight, each bucket holds one
    // distance: the rounds count the distinct distances, most of them past
    // the directly indexed bins.
    let paths = in_pool(2, || {
        sssp(&csr, &SsspOptions::from_source(source).with_delta(1e-4))
    })
    .unwrap();
    let mut distinct: Vec<u32> = expected
        .iter()
        .filter(|d| d.is_finite())
        .map(|d| d.to_bits())
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(
        paths.rounds >= distinct.len() / 2,
        "{} rounds",
        paths.rounds
    );
}
