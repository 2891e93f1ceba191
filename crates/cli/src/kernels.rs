//! Kernel names on the command line: the kernels crate's names (GAPBS's
//! short names, `rw` for reverse walks), with `cc-sv` and `walk` accepted
//! as aliases.

use dyngraph_kernels::KernelName;

/// `--kernel` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub(crate) enum KernelArg {
    /// PageRank, 20 iterations.
    Pr,
    /// Direction-optimizing BFS.
    Bfs,
    /// Delta-stepping single-source shortest paths.
    Sssp,
    /// Connected components (Afforest).
    Cc,
    /// Connected components (Shiloach-Vishkin).
    #[value(name = "cc_sv", alias = "cc-sv")]
    CcSv,
    /// Betweenness centrality (Brandes from sampled sources).
    Bc,
    /// Triangle counting.
    Tc,
    /// k-step reverse walks.
    #[value(name = "rw", alias = "walk")]
    Walk,
}

impl KernelArg {
    pub(crate) fn kernel(self) -> KernelName {
        match self {
            KernelArg::Pr => KernelName::PageRank,
            KernelArg::Bfs => KernelName::Bfs,
            KernelArg::Sssp => KernelName::Sssp,
            KernelArg::Cc => KernelName::Afforest,
            KernelArg::CcSv => KernelName::ShiloachVishkin,
            KernelArg::Bc => KernelName::Bc,
            KernelArg::Tc => KernelName::Triangles,
            KernelArg::Walk => KernelName::ReverseWalks,
        }
    }
}
