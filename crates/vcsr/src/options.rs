//! Construction options shared by every store of this crate.

use dyngraph_core::{DEFAULT_VERTEX_LIMIT, Semantics};

/// How to build a store: semantics, whether weights and in-edges are kept,
/// and the vertex limit.
///
/// ```
/// use dyngraph_core::Semantics;
/// use dyngraph_vcsr::StoreOptions;
/// let options = StoreOptions::new(Semantics::Simple).weighted(true).in_edges(true);
/// assert!(options.weighted && options.in_edges);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreOptions {
    /// Multigraph or simple graph (see [`dyngraph_core::GraphUpdate`]).
    pub semantics: Semantics,
    /// Keep an `f32` weight with every edge.
    pub weighted: bool,
    /// Maintain the reversed edges too, for pull kernels.
    pub in_edges: bool,
    /// The largest vertex count accepted; an id at or past it is refused
    /// with [`dyngraph_core::Error::VertexLimit`].
    pub vertex_limit: usize,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self::new(Semantics::Multigraph)
    }
}

impl StoreOptions {
    /// Unweighted, out-edges only, [`DEFAULT_VERTEX_LIMIT`].
    pub fn new(semantics: Semantics) -> Self {
        Self {
            semantics,
            weighted: false,
            in_edges: false,
            vertex_limit: DEFAULT_VERTEX_LIMIT,
        }
    }

    /// Sets [`StoreOptions::weighted`].
    pub fn weighted(mut self, weighted: bool) -> Self {
        self.weighted = weighted;
        self
    }

    /// Sets [`StoreOptions::in_edges`].
    pub fn in_edges(mut self, in_edges: bool) -> Self {
        self.in_edges = in_edges;
        self
    }

    /// Sets [`StoreOptions::vertex_limit`].
    pub fn vertex_limit(mut self, vertex_limit: usize) -> Self {
        self.vertex_limit = vertex_limit;
        self
    }
}
