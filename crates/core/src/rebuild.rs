//! The static baseline a dynamic store exists to beat: a `Csr` rebuilt from
//! every edge so far at the end of each batch.

use crate::{
    Capabilities, Capability, Csr, CsrInEdges, CsrOptions, CsrView, CsrWeights, EdgeSource,
    EdgeWeights, Error, FromEdges, Graph, GraphStore, GraphUpdate, InEdges, OutNeighbors, Result,
    Semantics, Snapshots, StoreConfig, StoreOptions, VertexId, Weight, check_limit,
};
use std::collections::{HashSet, VecDeque};
use std::ops::Range;
use std::sync::Arc;

/// `Csr` rebuilt from its edge list at every [`GraphUpdate::end_batch`].
///
/// Inserts and deletes only edit the edge list (kept as columns, handed to
/// the `Csr` build without a copy); `end_batch` rebuilds the whole `Csr`,
/// which is what a static store must do to show the graph after a batch.
/// Its reads show the graph as of the last `end_batch`.
///
/// # Cost model
/// - Insert: `O(1)` append to the columns; delete: a search from the
///   oldest edge (windows expire the oldest first).
/// - End of batch: a full parallel `Csr` build, `O(V + E)`.
/// - Scan: `Csr`'s. Snapshot: an `Arc` of the current `Csr`, `O(1)`.
/// - Memory: the columns (8 bytes per edge, 12 weighted) plus the `Csr`.
#[derive(Debug)]
pub struct CsrRebuild {
    options: StoreOptions,
    /// Edges in arrival order as columns; a delete removes the oldest
    /// occurrence.
    src: VecDeque<VertexId>,
    dst: VecDeque<VertexId>,
    weights: Option<VecDeque<Weight>>,
    /// Present edges, for simple semantics.
    present: HashSet<(VertexId, VertexId)>,
    vertex_count: usize,
    dirty: bool,
    csr: Arc<Csr>,
}

impl CsrRebuild {
    fn rebuild(&mut self) -> Result<()> {
        let src = self.src.make_contiguous();
        let dst = self.dst.make_contiguous();
        let weights = self.weights.as_mut().map(|w| &*w.make_contiguous());
        let chunk = crate::EdgeChunk::new(src, dst, weights)?;
        // The columns already follow the store's semantics (no repeats
        // under simple ones), so the build keeps every edge in arrival
        // order instead of deduping.
        let options = CsrOptions::from(self.options.semantics(Semantics::Multigraph))
            .weighted(true)
            .vertex_count(self.vertex_count);
        self.csr = Arc::new(Csr::from_edges(&chunk, options)?);
        self.dirty = false;
        Ok(())
    }

    fn missing(capability: Capability) -> Error {
        Error::missing("CsrRebuild", capability)
    }
}

impl Graph for CsrRebuild {
    fn vertex_count(&self) -> usize {
        self.csr.vertex_count()
    }

    fn edge_count(&self) -> u64 {
        self.csr.edge_count()
    }

    fn semantics(&self) -> Semantics {
        self.options.semantics
    }
}

impl OutNeighbors for CsrRebuild {
    type OutIter<'a> = <Csr as OutNeighbors>::OutIter<'a>;

    fn out_degree(&self, v: VertexId) -> u64 {
        self.csr.out_degree(v)
    }

    fn out_neighbors(&self, v: VertexId) -> Self::OutIter<'_> {
        self.csr.out_neighbors(v)
    }
}

impl InEdges for CsrRebuild {
    type InHandle<'a> = CsrInEdges<'a>;

    fn in_edges(&self) -> Result<CsrInEdges<'_>> {
        self.csr
            .in_edges()
            .map_err(|_| Self::missing(Capability::InEdges))
    }
}

impl EdgeWeights for CsrRebuild {
    type WeightHandle<'a> = CsrWeights<'a>;

    fn edge_weights(&self) -> Result<CsrWeights<'_>> {
        self.csr
            .edge_weights()
            .map_err(|_| Self::missing(Capability::Weights))
    }
}

impl GraphUpdate for CsrRebuild {
    fn insert_weighted_edge(
        &mut self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) -> Result<bool> {
        check_limit(self.vertex_limit(), [src, dst])?;
        if self.options.semantics == Semantics::Simple && !self.present.insert((src, dst)) {
            return Ok(false);
        }
        self.vertex_count = self.vertex_count.max(src.max(dst) as usize + 1);
        self.src.push_back(src);
        self.dst.push_back(dst);
        if let Some(weights) = &mut self.weights {
            weights.push_back(weight);
        }
        self.dirty = true;
        Ok(true)
    }

    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        let found = self
            .src
            .iter()
            .zip(&self.dst)
            .position(|(&s, &d)| s == src && d == dst);
        let Some(position) = found else {
            return Ok(false);
        };
        self.src.remove(position);
        self.dst.remove(position);
        if let Some(weights) = &mut self.weights {
            weights.remove(position);
        }
        if self.options.semantics == Semantics::Simple {
            self.present.remove(&(src, dst));
        }
        self.dirty = true;
        Ok(true)
    }

    fn end_batch(&mut self) -> Result<()> {
        if self.dirty {
            self.rebuild()?;
        }
        Ok(())
    }

    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        let start = self.vertex_count.max(self.csr.vertex_count());
        check_limit(
            self.vertex_limit(),
            (start + count).checked_sub(1).map(|v| v as VertexId),
        )?;
        self.vertex_count = start + count;
        self.dirty = true;
        Ok(start as VertexId..self.vertex_count as VertexId)
    }

    fn vertex_limit(&self) -> usize {
        self.options.vertex_limit
    }
}

impl FromEdges for CsrRebuild {
    type Options = StoreOptions;

    fn from_edges<S: EdgeSource + ?Sized>(edges: &S, options: StoreOptions) -> Result<Self> {
        let empty = Csr::from_edges::<[(VertexId, VertexId)]>(
            &[],
            CsrOptions::default().in_edges(options.in_edges),
        )?;
        let mut store = CsrRebuild {
            options,
            src: VecDeque::new(),
            dst: VecDeque::new(),
            weights: options.weighted.then(VecDeque::new),
            present: HashSet::new(),
            vertex_count: 0,
            dirty: false,
            csr: Arc::new(empty),
        };
        store.insert_edges(edges)?;
        // Built even when empty, so a weighted store answers weights.
        store.rebuild()?;
        Ok(store)
    }
}

impl Snapshots for CsrRebuild {
    /// The `Csr` of the last rebuild, shared.
    type Snapshot = Arc<Csr>;
    type View<'a> = CsrView<'a>;

    fn snapshot(&self) -> Arc<Csr> {
        Arc::clone(&self.csr)
    }

    fn view<'a>(&'a self, snapshot: &'a Arc<Csr>) -> Result<CsrView<'a>> {
        Ok(snapshot.view())
    }
}

impl GraphStore for CsrRebuild {
    const NAME: &'static str = "CsrRebuild";
    const CAPABILITIES: Capabilities = Capabilities::IN_MEMORY;

    fn memory_bytes(&self) -> usize {
        let per_edge = 8 + if self.weights.is_some() { 4 } else { 0 };
        self.src.capacity() * per_edge + self.csr.memory_bytes()
    }

    fn to_csr(&self) -> Result<Csr> {
        Ok(Csr::clone(&self.csr))
    }
}
