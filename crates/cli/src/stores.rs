//! The stores `replay` can drive, behind one adapter trait that adds what
//! the core traits leave to each store: bulk loading, memory, and counters.

use anyhow::Result;
use dyngraph_core::{
    Csr, CsrOptions, Edge, EdgeChunk, Graph, GraphUpdate, InNeighbors, OutNeighbors, Semantics,
    VertexId, Weight, WeightedEdge, WeightedOutNeighbors,
};
use std::collections::{HashSet, VecDeque};
use std::ops::Range;

/// A store selectable with `--store`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub(crate) enum StoreKind {
    /// VCSR: CSR on a vertex-centric packed-memory array (`--gap-policy`).
    Vcsr,
    /// PCSR: edges in one packed-memory array with even gaps.
    Pcsr,
    /// Blocked adjacency list, 512-edge blocks.
    Bal,
    /// CSR++: segments of vertices with their own sorted edge arrays.
    Csrpp,
    /// `Csr` rebuilt from scratch after every batch: the cost dynamic stores
    /// exist to avoid.
    CsrRebuild,
}

impl StoreKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            StoreKind::Vcsr => "vcsr",
            StoreKind::Pcsr => "pcsr",
            StoreKind::Bal => "bal",
            StoreKind::Csrpp => "csrpp",
            StoreKind::CsrRebuild => "csr-rebuild",
        }
    }
}

/// How the base graph got into a store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum BaseLoad {
    /// Built in bulk from the base edges.
    BulkBuilt,
    /// Inserted edge by edge (as one batch).
    Inserted,
}

/// Counters a store keeps about its own maintenance work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Maintenance {
    pub(crate) rebalances: u64,
    pub(crate) elements_moved: u64,
}

/// What `replay` needs from a store beyond the core traits.
pub(crate) trait ReplayStore:
    GraphUpdate + OutNeighbors + InNeighbors + WeightedOutNeighbors + Sync
{
    /// A read view kernels run on: the store's snapshot where it has one.
    type Snapshot<'a>: OutNeighbors + InNeighbors + WeightedOutNeighbors + Sync
    where
        Self: 'a;

    /// Takes a snapshot, hands its view to `visit`, and releases it.
    fn with_snapshot<R>(&self, visit: impl FnOnce(&Self::Snapshot<'_>) -> R) -> Result<R>;

    /// Loads the base graph into an empty store.
    fn load_base(&mut self, base: &[WeightedEdge]) -> Result<BaseLoad> {
        self.insert_weighted_edges(base)?;
        Ok(BaseLoad::Inserted)
    }

    /// Called after each batch's inserts and deletes; timed with the batch.
    fn end_batch(&mut self) -> Result<()> {
        Ok(())
    }

    /// Heap bytes the store holds.
    fn memory_bytes(&self) -> usize;

    /// Rebalance and move counters, where the store has them.
    fn maintenance(&self) -> Option<Maintenance> {
        None
    }
}

/// `Csr` rebuilt from its edge list after every batch.
///
/// Inserts and deletes only edit the edge list; `end_batch` rebuilds the
/// whole `Csr` (with in-edges, for pull kernels), which is what a static
/// store must do to show the graph after a batch.
#[derive(Debug)]
pub(crate) struct CsrRebuild {
    semantics: Semantics,
    /// Edges in arrival order as columns (deletes remove the oldest
    /// occurrence), handed to `Csr::from_chunks` without a copy.
    src: VecDeque<VertexId>,
    dst: VecDeque<VertexId>,
    weights: Option<VecDeque<Weight>>,
    /// Present edges, for simple semantics.
    present: HashSet<(VertexId, VertexId)>,
    vertex_count: usize,
    csr: Csr,
}

impl CsrRebuild {
    pub(crate) fn new(semantics: Semantics, weighted: bool) -> Self {
        let csr = Csr::from_edges(&[], CsrOptions::default().transpose(true))
            .expect("an empty graph is valid");
        Self {
            semantics,
            src: VecDeque::new(),
            dst: VecDeque::new(),
            weights: weighted.then(VecDeque::new),
            present: HashSet::new(),
            vertex_count: 0,
            csr,
        }
    }

    fn rebuild(&mut self) -> Result<()> {
        let chunk = EdgeChunk {
            src: self.src.make_contiguous(),
            dst: self.dst.make_contiguous(),
            weights: self.weights.as_mut().map(|w| &*w.make_contiguous()),
        };
        let options = CsrOptions::default()
            .transpose(true)
            .vertex_count(self.vertex_count);
        self.csr = Csr::from_chunks(&[chunk], options)?;
        Ok(())
    }
}

impl ReplayStore for CsrRebuild {
    type Snapshot<'a> = dyngraph_core::CsrView<'a>;

    fn with_snapshot<R>(&self, visit: impl FnOnce(&Self::Snapshot<'_>) -> R) -> Result<R> {
        Ok(visit(&self.csr.view()))
    }

    fn load_base(&mut self, base: &[WeightedEdge]) -> Result<BaseLoad> {
        self.insert_weighted_edges(base)?;
        self.rebuild()?;
        Ok(BaseLoad::BulkBuilt)
    }

    fn end_batch(&mut self) -> Result<()> {
        self.rebuild()
    }

    fn memory_bytes(&self) -> usize {
        self.csr.memory_bytes()
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
        self.semantics
    }
}

impl OutNeighbors for CsrRebuild {
    type OutNeighbors<'a> = <Csr as OutNeighbors>::OutNeighbors<'a>;

    fn out_degree(&self, v: VertexId) -> u64 {
        self.csr.out_degree(v)
    }

    fn out_neighbors(&self, v: VertexId) -> Self::OutNeighbors<'_> {
        self.csr.out_neighbors(v)
    }
}

impl InNeighbors for CsrRebuild {
    type InNeighbors<'a> = <Csr as InNeighbors>::InNeighbors<'a>;

    fn has_in_edges(&self) -> bool {
        self.csr.has_in_edges()
    }

    fn in_degree(&self, v: VertexId) -> u64 {
        self.csr.in_degree(v)
    }

    fn in_neighbors(&self, v: VertexId) -> Self::InNeighbors<'_> {
        self.csr.in_neighbors(v)
    }
}

impl WeightedOutNeighbors for CsrRebuild {
    type WeightedOutNeighbors<'a> = <Csr as WeightedOutNeighbors>::WeightedOutNeighbors<'a>;

    fn has_weights(&self) -> bool {
        self.csr.has_weights()
    }

    fn out_neighbors_weighted(&self, v: VertexId) -> Self::WeightedOutNeighbors<'_> {
        self.csr.out_neighbors_weighted(v)
    }
}

impl GraphUpdate for CsrRebuild {
    fn insert_edge(&mut self, src: VertexId, dst: VertexId) -> dyngraph_core::Result<bool> {
        self.insert_weighted_edge(src, dst, 1.0)
    }

    fn insert_weighted_edge(
        &mut self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) -> dyngraph_core::Result<bool> {
        dyngraph_core::check_limit(self.vertex_limit(), [src, dst])?;
        if self.semantics == Semantics::Simple && !self.present.insert((src, dst)) {
            return Ok(false);
        }
        self.vertex_count = self.vertex_count.max(src.max(dst) as usize + 1);
        self.src.push_back(src);
        self.dst.push_back(dst);
        if let Some(weights) = &mut self.weights {
            weights.push_back(weight);
        }
        Ok(true)
    }

    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> dyngraph_core::Result<bool> {
        // Windows expire the oldest edges, so the search from the front is short.
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
        if self.semantics == Semantics::Simple {
            self.present.remove(&(src, dst));
        }
        Ok(true)
    }

    fn add_vertices(&mut self, count: usize) -> dyngraph_core::Result<Range<VertexId>> {
        let start = self.vertex_count;
        dyngraph_core::check_limit(
            self.vertex_limit(),
            (start + count).checked_sub(1).map(|v| v as VertexId),
        )?;
        self.vertex_count += count;
        Ok(start as VertexId..self.vertex_count as VertexId)
    }

    fn vertex_limit(&self) -> usize {
        dyngraph_core::DEFAULT_VERTEX_LIMIT
    }
}

impl ReplayStore for dyngraph_csrpp::CsrPP {
    type Snapshot<'a> = &'a dyngraph_csrpp::CsrPP;

    /// CSR++ has no snapshots: updates and scans are separate phases, and
    /// replay runs kernels between batches.
    fn with_snapshot<R>(&self, visit: impl FnOnce(&Self::Snapshot<'_>) -> R) -> Result<R> {
        Ok(visit(&self))
    }

    fn load_base(&mut self, base: &[WeightedEdge]) -> Result<BaseLoad> {
        // The batch-insert protocol into an empty store: a bulk build.
        if self.config().weighted {
            self.insert_weighted_edges(base)?;
        } else {
            let plain: Vec<Edge> = base.iter().map(|e| e.edge()).collect();
            self.insert_edges(&plain)?;
        }
        Ok(BaseLoad::BulkBuilt)
    }

    fn memory_bytes(&self) -> usize {
        dyngraph_csrpp::CsrPP::memory_bytes(self)
    }
}

/// Sum of rebalances over all tree levels, and elements moved.
fn pma_maintenance<'a>(
    stats: impl IntoIterator<Item = &'a dyngraph_vcsr::PmaStats>,
) -> Maintenance {
    let mut total = Maintenance::default();
    for stats in stats {
        total.rebalances += stats.rebalances_per_level.iter().sum::<u64>();
        total.elements_moved += stats.elements_moved;
    }
    total
}

impl<P: dyngraph_vcsr::GapPolicy + Clone + Sync + 'static> ReplayStore for dyngraph_vcsr::Vcsr<P> {
    type Snapshot<'a> = dyngraph_vcsr::SnapshotView<'a, P>;

    /// A detached degree-cache snapshot and its view.
    fn with_snapshot<R>(&self, visit: impl FnOnce(&Self::Snapshot<'_>) -> R) -> Result<R> {
        let snapshot = self.snapshot();
        let view = self.view(&snapshot)?;
        Ok(visit(&view))
    }

    fn load_base(&mut self, base: &[WeightedEdge]) -> Result<BaseLoad> {
        // A batch into an empty Vcsr is built in one pass (PackedRuns::from_runs).
        let bulk = self.edge_count() == 0;
        self.insert_weighted_edges(base)?;
        Ok(if bulk {
            BaseLoad::BulkBuilt
        } else {
            BaseLoad::Inserted
        })
    }

    fn memory_bytes(&self) -> usize {
        dyngraph_vcsr::Vcsr::memory_bytes(self)
    }

    fn maintenance(&self) -> Option<Maintenance> {
        let stats = self.stats();
        Some(pma_maintenance(
            std::iter::once(&stats.out_edges).chain(stats.in_edges.as_ref()),
        ))
    }
}

impl ReplayStore for dyngraph_vcsr::Pcsr {
    type Snapshot<'a> = &'a dyngraph_vcsr::Pcsr;

    /// PCSR has no snapshots; replay runs kernels between batches.
    fn with_snapshot<R>(&self, visit: impl FnOnce(&Self::Snapshot<'_>) -> R) -> Result<R> {
        Ok(visit(&self))
    }

    fn memory_bytes(&self) -> usize {
        dyngraph_vcsr::Pcsr::memory_bytes(self)
    }

    fn maintenance(&self) -> Option<Maintenance> {
        Some(pma_maintenance(
            std::iter::once(self.stats()).chain(self.in_edge_stats()),
        ))
    }
}

impl ReplayStore for dyngraph_vcsr::Bal {
    type Snapshot<'a> = &'a dyngraph_vcsr::Bal;

    /// BAL has no snapshots; replay runs kernels between batches.
    fn with_snapshot<R>(&self, visit: impl FnOnce(&Self::Snapshot<'_>) -> R) -> Result<R> {
        Ok(visit(&self))
    }

    fn memory_bytes(&self) -> usize {
        dyngraph_vcsr::Bal::memory_bytes(self)
    }
}
