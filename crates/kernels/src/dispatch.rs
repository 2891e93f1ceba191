//! Running and verifying any kernel by name, for the CLI and benchmarks.

use crate::{
    BcOptions, BcResult, BfsOptions, BfsResult, ComponentsAlgorithm, ComponentsOptions,
    ComponentsResult, PageRankOptions, PageRankResult, ReverseWalkOptions, ReverseWalkResult,
    SsspOptions, SsspResult, TriangleResult, VerifyError,
};
use dyngraph_core::{EdgeWeights, Error, ReadGraph, Result};
use std::fmt;
use std::str::FromStr;

/// Every kernel, by its GAPBS short name (`bfs`, `pr`, `sssp`, `cc`,
/// `cc_sv`, `bc`, `tc`) plus `rw` for reverse walks.
///
/// With the `clap` feature it is a `clap::ValueEnum` under the same names
/// (plus the aliases `cc-sv` and `walk`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum KernelName {
    /// Direction-optimizing BFS.
    #[cfg_attr(feature = "clap", value(name = "bfs"))]
    Bfs,
    /// PageRank, 20 iterations.
    #[cfg_attr(feature = "clap", value(name = "pr"))]
    PageRank,
    /// Delta-stepping SSSP.
    #[cfg_attr(feature = "clap", value(name = "sssp"))]
    Sssp,
    /// Afforest connected components.
    #[cfg_attr(feature = "clap", value(name = "cc"))]
    Afforest,
    /// Shiloach-Vishkin connected components.
    #[cfg_attr(feature = "clap", value(name = "cc_sv", alias = "cc-sv"))]
    ShiloachVishkin,
    /// Brandes betweenness centrality (sampled sources).
    #[cfg_attr(feature = "clap", value(name = "bc"))]
    Bc,
    /// Ordered triangle counting.
    #[cfg_attr(feature = "clap", value(name = "tc"))]
    Triangles,
    /// k-step reverse walks.
    #[cfg_attr(feature = "clap", value(name = "rw", alias = "walk"))]
    ReverseWalks,
}

impl KernelName {
    /// All kernels, in the order GAPBS lists them (reverse walks last).
    pub const ALL: [KernelName; 8] = [
        KernelName::Bfs,
        KernelName::Sssp,
        KernelName::PageRank,
        KernelName::Afforest,
        KernelName::ShiloachVishkin,
        KernelName::Bc,
        KernelName::Triangles,
        KernelName::ReverseWalks,
    ];

    /// The short name, as accepted by [`str::parse`].
    pub fn as_str(self) -> &'static str {
        match self {
            KernelName::Bfs => "bfs",
            KernelName::PageRank => "pr",
            KernelName::Sssp => "sssp",
            KernelName::Afforest => "cc",
            KernelName::ShiloachVishkin => "cc_sv",
            KernelName::Bc => "bc",
            KernelName::Triangles => "tc",
            KernelName::ReverseWalks => "rw",
        }
    }

    /// What the kernel reads beyond out-edges, and what it does without it.
    /// The replay engine keeps in-edges only when a requested kernel
    /// [`Need::UsesIfPresent`] or [`Need::Required`] them.
    ///
    /// ```
    /// use dyngraph_kernels::{KernelName, Need};
    /// assert_eq!(KernelName::PageRank.needs().in_edges, Need::UsesIfPresent);
    /// assert_eq!(KernelName::Triangles.needs().in_edges, Need::Unused);
    /// ```
    pub fn needs(self) -> Needs {
        use Need::{Unused, UsesIfPresent};
        let (in_edges, weights) = match self {
            // Bottom-up steps read in-edges; without them BFS is top-down only.
            KernelName::Bfs => (UsesIfPresent, Unused),
            // Pull over in-edges; push over out-edges without them.
            KernelName::PageRank => (UsesIfPresent, Unused),
            // Without weights the distances are hop counts.
            KernelName::Sssp => (Unused, UsesIfPresent),
            // Skipping the largest component needs in-edges; without them
            // every vertex is visited.
            KernelName::Afforest => (UsesIfPresent, Unused),
            KernelName::ShiloachVishkin
            | KernelName::Bc
            | KernelName::Triangles
            | KernelName::ReverseWalks => (Unused, Unused),
        };
        Needs { in_edges, weights }
    }

    /// The kernel with its default options (BFS and SSSP from vertex 0).
    pub fn default_options(self) -> KernelOptions {
        match self {
            KernelName::Bfs => KernelOptions::Bfs(BfsOptions::default()),
            KernelName::PageRank => KernelOptions::PageRank(PageRankOptions::default()),
            KernelName::Sssp => KernelOptions::Sssp(SsspOptions::default()),
            KernelName::Afforest => KernelOptions::Components(ComponentsOptions::default()),
            KernelName::ShiloachVishkin => KernelOptions::Components(
                ComponentsOptions::with_algorithm(ComponentsAlgorithm::ShiloachVishkin),
            ),
            KernelName::Bc => KernelOptions::Bc(BcOptions::default()),
            KernelName::Triangles => KernelOptions::Triangles,
            KernelName::ReverseWalks => KernelOptions::ReverseWalks(ReverseWalkOptions::default()),
        }
    }
}

impl fmt::Display for KernelName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for KernelName {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self> {
        KernelName::ALL
            .into_iter()
            .find(|k| k.as_str() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = KernelName::ALL.iter().map(|k| k.as_str()).collect();
                Error::InvalidArgument(format!(
                    "unknown kernel {name:?} (known: {})",
                    known.join(", ")
                ))
            })
    }
}

/// How a kernel uses a capability a store may lack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Need {
    /// Not read.
    Unused,
    /// Read when the store has it; without it the kernel runs another way,
    /// which its result reports ([`KernelOutput::mode`]).
    UsesIfPresent,
    /// The kernel cannot run without it (no kernel here needs this yet;
    /// user kernels may).
    Required,
}

/// What a kernel reads beyond out-edges: [`KernelName::needs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Needs {
    /// In-edges.
    pub in_edges: Need,
    /// Edge weights.
    pub weights: Need,
}

/// A kernel and its options.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelOptions {
    /// [`crate::bfs`].
    Bfs(BfsOptions),
    /// [`crate::pagerank`].
    PageRank(PageRankOptions),
    /// [`crate::sssp`].
    Sssp(SsspOptions),
    /// [`crate::connected_components`].
    Components(ComponentsOptions),
    /// [`crate::betweenness_centrality`].
    Bc(BcOptions),
    /// [`crate::triangle_count`] (no options).
    Triangles,
    /// [`crate::reverse_walks`].
    ReverseWalks(ReverseWalkOptions),
}

/// What a kernel returned.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelOutput {
    /// BFS tree.
    Bfs(BfsResult),
    /// PageRank scores.
    PageRank(PageRankResult),
    /// Distances.
    Sssp(SsspResult),
    /// Component labels.
    Components(ComponentsResult),
    /// Betweenness scores.
    Bc(BcResult),
    /// Triangle count.
    Triangles(TriangleResult),
    /// Walk counts.
    ReverseWalks(ReverseWalkResult),
}

impl KernelOutput {
    /// How the kernel ran, given the capabilities the graph had: pull or
    /// push, direction-optimizing or top-down, stored or unit weights.
    pub fn mode(&self) -> &'static str {
        match self {
            KernelOutput::Bfs(r) => match r.strategy {
                crate::BfsStrategy::DirectionOptimizing => "direction-optimizing (in-edges)",
                crate::BfsStrategy::TopDownNoInEdges => "top-down only (no in-edges)",
                crate::BfsStrategy::TopDownRequested => "top-down only (requested)",
            },
            KernelOutput::PageRank(r) => match r.method {
                crate::PageRankMethod::Pull => "pull (in-edges)",
                crate::PageRankMethod::Push => "push (no in-edges)",
            },
            KernelOutput::Sssp(r) => match r.weights {
                crate::SsspWeights::Stored => "stored weights",
                crate::SsspWeights::Unit => "unit weights (no weights stored): hop counts",
            },
            KernelOutput::Components(r) => match (r.algorithm, r.skipped_largest) {
                (ComponentsAlgorithm::Afforest, true) => {
                    "afforest, largest component skipped (in-edges)"
                }
                (ComponentsAlgorithm::Afforest, false) => "afforest, every vertex visited",
                (ComponentsAlgorithm::ShiloachVishkin, _) => "shiloach-vishkin",
            },
            KernelOutput::Bc(_) => "brandes over out-edges",
            KernelOutput::Triangles(_) => "ordered counting over out-edges",
            KernelOutput::ReverseWalks(_) => "over out-edges",
        }
    }

    /// One line describing the result, for logs and the CLI.
    pub fn summary(&self) -> String {
        match self {
            KernelOutput::Bfs(r) => format!(
                "bfs from {}: {} vertices reached ({:?}, {} top-down and {} bottom-up steps)",
                r.source,
                r.reached(),
                r.strategy,
                r.top_down_steps,
                r.bottom_up_steps
            ),
            KernelOutput::PageRank(r) => format!(
                "pr: {} iterations ({:?}), last L1 change {:.3e}, score sum {:.6}",
                r.iterations,
                r.method,
                r.last_change,
                r.scores.iter().map(|&s| f64::from(s)).sum::<f64>()
            ),
            KernelOutput::Sssp(r) => format!(
                "sssp from {}: {} vertices reached in {} rounds ({})",
                r.source,
                r.reached(),
                r.rounds,
                self.mode()
            ),
            KernelOutput::Components(r) => format!(
                "{:?}: {} components, the largest has {} vertices",
                r.algorithm,
                r.component_count(),
                r.largest_component_size()
            ),
            KernelOutput::Bc(r) => format!(
                "bc from {} sources{}",
                r.sources.len(),
                if r.normalized {
                    " (normalised by the maximum)"
                } else {
                    ""
                }
            ),
            KernelOutput::Triangles(r) => format!(
                "tc: {} triangles over {} undirected edges{}",
                r.triangles,
                r.undirected_edges,
                if r.symmetrized {
                    " (directed input symmetrized)"
                } else {
                    ""
                }
            ),
            KernelOutput::ReverseWalks(r) => format!(
                "rw: {}-step reverse walks, total {:.6e}",
                r.steps,
                r.visits.iter().sum::<f64>()
            ),
        }
    }
}

/// Runs the kernel `options` names on `graph`, in the caller's rayon pool.
///
/// ```
/// use dyngraph_core::{Csr, CsrOptions, Edge};
/// use dyngraph_core::StoreConfig;
/// use dyngraph_kernels::{KernelName, run, verify};
///
/// let edges = [Edge::new(0, 1), Edge::new(1, 2), Edge::new(2, 0)];
/// let graph = Csr::from_edges(&edges, CsrOptions::default().in_edges(true))?;
/// for name in KernelName::ALL {
///     let output = run(&graph, &name.default_options())?;
///     verify(&graph, &output).unwrap();
///     println!("{}", output.summary());
/// }
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn run<G: ReadGraph>(graph: &G, options: &KernelOptions) -> Result<KernelOutput> {
    Ok(match options {
        KernelOptions::Bfs(o) => KernelOutput::Bfs(crate::bfs(graph, o)?),
        KernelOptions::PageRank(o) => KernelOutput::PageRank(crate::pagerank(graph, o)?),
        KernelOptions::Sssp(o) => KernelOutput::Sssp(crate::sssp(graph, o)?),
        KernelOptions::Components(o) => {
            KernelOutput::Components(crate::connected_components(graph, o)?)
        }
        KernelOptions::Bc(o) => KernelOutput::Bc(crate::betweenness_centrality(graph, o)?),
        KernelOptions::Triangles => KernelOutput::Triangles(crate::triangle_count(graph)?),
        KernelOptions::ReverseWalks(o) => {
            KernelOutput::ReverseWalks(crate::reverse_walks(graph, o)?)
        }
    })
}

/// Checks any kernel's output with its serial verifier.
pub fn verify<G>(graph: &G, output: &KernelOutput) -> Result<(), VerifyError>
where
    G: EdgeWeights + Sync,
{
    match output {
        KernelOutput::Bfs(r) => crate::verify_bfs(graph, r),
        KernelOutput::PageRank(r) => crate::verify_pagerank(graph, r),
        KernelOutput::Sssp(r) => crate::verify_sssp(graph, r),
        KernelOutput::Components(r) => crate::verify_components(graph, r),
        KernelOutput::Bc(r) => crate::verify_bc(graph, r),
        KernelOutput::Triangles(r) => crate::verify_triangles(graph, r),
        KernelOutput::ReverseWalks(r) => crate::verify_reverse_walks(graph, r),
    }
}
