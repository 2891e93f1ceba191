//! Shared test support: the real data files, and a set of maintained
//! kernels updated after every batch and checked against the static
//! kernels on the same graph.
#![allow(dead_code, unreachable_pub)]

use dyngraph_core::{Edge, ReadGraph, VertexId, WeightedEdge};
use dyngraph_incremental::*;
use dyngraph_kernels::{
    BfsOptions, ComponentsOptions, SsspOptions, bfs, connected_components, sssp, verify_bfs,
    verify_components, verify_sssp,
};
use std::path::{Path, PathBuf};

/// `../shared/data`, the repository's sibling data directory (one level
/// further up from a worktree under `wt/`).
pub fn shared_data() -> PathBuf {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let main = crate_dir.join("../../../shared/data");
    let worktree = crate_dir.join("../../../../shared/data");
    if !main.exists() && worktree.exists() {
        worktree
    } else {
        main
    }
}

/// The bundled sample, always present.
pub fn bundled_college_msg() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/CollegeMsg.txt"
    ))
}

/// Reads `src dst [third]` lines (skipping blank and `#`/`%` lines); the
/// third column is the weight when `weighted`. Test-only: panics on bad
/// input.
pub fn read_edges(path: &Path, weighted: bool) -> Vec<WeightedEdge> {
    let text = std::fs::read_to_string(path).expect("readable edge list");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#') && !line.starts_with('%'))
        .map(|line| {
            let mut fields = line.split_whitespace();
            let mut next = || fields.next().expect("field");
            let src: VertexId = next().parse().expect("source id");
            let dst: VertexId = next().parse().expect("destination id");
            let weight = if weighted {
                next().parse().expect("weight")
            } else {
                1.0
            };
            WeightedEdge::new(src, dst, weight)
        })
        .collect()
}

/// A file of `../shared/data`, or `None` with a printed note when absent.
pub fn shared_file(relative: &str, weighted: bool) -> Option<Vec<WeightedEdge>> {
    let path = shared_data().join(relative);
    if !path.exists() {
        eprintln!("skipping: {} not found", path.display());
        return None;
    }
    Some(read_edges(&path, weighted))
}

/// PageRank options for small graphs, where ranks are large (`1/n` with
/// `n` in the tens) and the default relative tolerances would allow
/// absolute errors past `1e-9`; a frontier share that never falls back,
/// so the frontier paths run.
/// Residual push gets an L1 bound of `1e-12` (so also within `1e-9` in
/// L∞).
pub fn tight_pagerank(strategy: PageRankStrategy) -> DynamicPageRankOptions {
    DynamicPageRankOptions {
        strategy,
        tolerance: 1e-13,
        frontier_tolerance: 1e-10,
        prune_tolerance: 1e-10,
        full_sweep_share: f64::INFINITY,
        l1_bound: (strategy == PageRankStrategy::ResidualPush).then_some(1e-12),
        ..DynamicPageRankOptions::default()
    }
}

/// Components options whose thresholds never hand a batch to Afforest,
/// so small test graphs run the incremental paths.
pub fn always_incremental_components() -> DynamicComponentsOptions {
    DynamicComponentsOptions {
        large_insert_share: f64::INFINITY,
        large_delete_share: f64::INFINITY,
        search_budget_share: f64::INFINITY,
        ..DynamicComponentsOptions::default()
    }
}

/// BFS/SSSP thresholds that never hand a batch to the static kernel.
pub fn never_fall_back() -> PathThresholds {
    PathThresholds {
        large_batch_share: f64::INFINITY,
        invalidated_share: f64::INFINITY,
    }
}

/// Every maintained kernel, told about batches through one shared log.
pub struct Analytics {
    pub log: ChangeLog,
    pub pagerank: Vec<Maintained<DynamicPageRank>>,
    pub components: Maintained<DynamicComponents>,
    pub bfs: Maintained<DynamicBfs>,
    pub sssp: Maintained<DynamicSssp>,
}

impl Analytics {
    /// Everything computed from scratch on `graph`; BFS and SSSP from
    /// `source`.
    pub fn new<G: ReadGraph>(
        graph: &G,
        source: VertexId,
        pagerank: &[DynamicPageRankOptions],
    ) -> Self {
        Self {
            log: ChangeLog::new(),
            pagerank: pagerank
                .iter()
                .map(|options| Maintained::new(graph, options.clone()).expect("pagerank"))
                .collect(),
            components: Maintained::new(graph, always_incremental_components())
                .expect("components"),
            bfs: Maintained::new(
                graph,
                DynamicBfsOptions {
                    thresholds: never_fall_back(),
                    ..DynamicBfsOptions::from_source(source)
                },
            )
            .expect("bfs"),
            sssp: Maintained::new(
                graph,
                DynamicSsspOptions {
                    thresholds: never_fall_back(),
                    ..DynamicSsspOptions::from_source(source).with_delta(4.0)
                },
            )
            .expect("sssp"),
        }
    }

    /// Records one applied batch.
    pub fn record(&mut self, inserted: &[WeightedEdge], deleted: &[Edge]) {
        self.log.record_batch(inserted, deleted);
    }

    /// Updates every kernel with the shared log, then clears it.
    pub fn update<G: ReadGraph>(&mut self, graph: &G) -> Vec<UpdateStats> {
        let mut stats = Vec::new();
        for pagerank in &mut self.pagerank {
            stats.push(
                pagerank
                    .update_with(graph, &self.log)
                    .expect("pagerank update"),
            );
        }
        stats.push(
            self.components
                .update_with(graph, &self.log)
                .expect("cc update"),
        );
        stats.push(self.bfs.update_with(graph, &self.log).expect("bfs update"));
        stats.push(
            self.sssp
                .update_with(graph, &self.log)
                .expect("sssp update"),
        );
        self.log.clear();
        stats
    }

    /// Checks every kernel against the static kernels on `graph`.
    pub fn check<G: ReadGraph>(&self, graph: &G, pagerank_linf: f64) -> Result<(), String> {
        for pagerank in &self.pagerank {
            check_pagerank(graph, pagerank.kernel(), pagerank_linf)?;
        }
        check_components(graph, self.components.kernel())?;
        check_bfs(graph, self.bfs.kernel())?;
        check_sssp(graph, self.sssp.kernel())
    }
}

/// Within `linf` of the exact ranks (the static kernel's serial `f64`
/// reference, converged); a state with an L1 bound
/// ([`DynamicPageRank::sweep_bound`]) within that bound in L1 instead, and
/// residual push also proving it by its residuals.
pub fn check_pagerank<G: ReadGraph>(
    graph: &G,
    ranks: &DynamicPageRank,
    linf: f64,
) -> Result<(), String> {
    let name = ranks.options().strategy.as_str();
    match ranks.sweep_bound() {
        Some(bound) => {
            if let Some(proven) = ranks.proven_l1()
                && proven > bound
            {
                return Err(format!(
                    "{name}: residuals prove only {proven:e}, over the bound {bound:e}"
                ));
            }
            verify_pagerank_l1(graph, ranks, bound)
                .map(|_| ())
                .map_err(|e| format!("{name} (L1 bound {bound:e}): {e}"))
        }
        None => verify_pagerank(graph, ranks, linf)
            .map(|_| ())
            .map_err(|e| format!("{name}: {e}")),
    }
}

/// The same labels as static Afforest (both label a component by its
/// smallest vertex), and the kernels' verifier agrees.
pub fn check_components<G: ReadGraph>(graph: &G, cc: &DynamicComponents) -> Result<(), String> {
    let result = cc.to_components_result();
    verify_components(graph, &result).map_err(|e| e.to_string())?;
    let want = connected_components(graph, &ComponentsOptions::default())
        .map_err(|e| e.to_string())?
        .labels;
    if result.labels != want {
        let v = (0..want.len())
            .find(|&v| result.labels[v] != want[v])
            .unwrap_or(0);
        return Err(format!(
            "components: vertex {v} labelled {}, Afforest says {}",
            result.labels[v], want[v]
        ));
    }
    Ok(())
}

/// The same depths as the static BFS, and a valid tree.
pub fn check_bfs<G: ReadGraph>(graph: &G, tree: &DynamicBfs) -> Result<(), String> {
    verify_bfs(graph, &tree.to_bfs_result()).map_err(|e| e.to_string())?;
    let want = bfs(
        graph,
        &BfsOptions::from_source(tree.source()).with_depths(true),
    )
    .map_err(|e| e.to_string())?
    .depths
    .expect("depths");
    if tree.depths() != want {
        let v = (0..want.len())
            .find(|&v| tree.depths()[v] != want[v])
            .unwrap_or(0);
        return Err(format!(
            "bfs: vertex {v} at depth {}, static BFS says {}",
            tree.depths()[v],
            want[v]
        ));
    }
    Ok(())
}

/// The same distances as the static SSSP (to the bit: integer weights sum
/// exactly in `f32`), and its verifier agrees.
pub fn check_sssp<G: ReadGraph>(graph: &G, paths: &DynamicSssp) -> Result<(), String> {
    verify_sssp(graph, &paths.to_sssp_result()).map_err(|e| e.to_string())?;
    let want = sssp(
        graph,
        &SsspOptions::from_source(paths.source()).with_delta(4.0),
    )
    .map_err(|e| e.to_string())?
    .distances;
    if paths.distances() != want {
        let v = (0..want.len())
            .find(|&v| paths.distances()[v] != want[v])
            .unwrap_or(0);
        return Err(format!(
            "sssp: vertex {v} at {}, static SSSP says {}",
            paths.distances()[v],
            want[v]
        ));
    }
    check_tree(paths.parents(), paths.source())
}

/// Parent pointers form a tree rooted at the source: following them from
/// any reached vertex ends at the source without a cycle.
pub fn check_tree(parents: &[VertexId], source: VertexId) -> Result<(), String> {
    let n = parents.len();
    for start in 0..n {
        let mut v = start as VertexId;
        let mut steps = 0;
        while parents[v as usize] != dyngraph_kernels::NO_PARENT && v != source {
            v = parents[v as usize];
            steps += 1;
            if steps > n {
                return Err(format!("parent pointers from {start} cycle"));
            }
        }
    }
    Ok(())
}
