//! The copy-before-write snapshots of `dyngraph_core::cow`, on the simplest
//! store there is (the reference model's lists with a registry), driven
//! through the whole contract check.

use dyngraph_core::cow::{CowSnapshot, CowView, SnapshotRegistry};
use dyngraph_core::testing::{ReferenceGraph, check_contract, ops, weighted_edges};
use dyngraph_core::{
    Capability, EdgeSource, EdgeWeights, Error, FromEdges, Graph, GraphStore, GraphUpdate, InEdges,
    OutNeighbors, Result, Semantics, Snapshots, StoreOptions, VertexId, Weight,
};
use proptest::prelude::*;
use std::ops::Range;

/// The model's lists, with in-edges and weights behind the options, and a
/// snapshot registry told of every change.
#[derive(Debug)]
struct CowModel {
    lists: ReferenceGraph,
    options: StoreOptions,
    snapshots: SnapshotRegistry,
}

impl Graph for CowModel {
    fn vertex_count(&self) -> usize {
        self.lists.vertex_count()
    }
    fn edge_count(&self) -> u64 {
        self.lists.edge_count()
    }
    fn semantics(&self) -> Semantics {
        self.lists.semantics()
    }
}

impl OutNeighbors for CowModel {
    type OutIter<'a> = <ReferenceGraph as OutNeighbors>::OutIter<'a>;
    fn out_degree(&self, v: VertexId) -> u64 {
        self.lists.out_degree(v)
    }
    fn out_neighbors(&self, v: VertexId) -> Self::OutIter<'_> {
        self.lists.out_neighbors(v)
    }
}

impl InEdges for CowModel {
    type InHandle<'a> = <ReferenceGraph as InEdges>::InHandle<'a>;
    fn in_edges(&self) -> Result<Self::InHandle<'_>> {
        if !self.options.in_edges {
            return Err(Error::missing("CowModel", Capability::InEdges));
        }
        self.lists.in_edges()
    }
}

impl EdgeWeights for CowModel {
    type WeightHandle<'a> = <ReferenceGraph as EdgeWeights>::WeightHandle<'a>;
    fn edge_weights(&self) -> Result<Self::WeightHandle<'_>> {
        if !self.options.weighted {
            return Err(Error::missing("CowModel", Capability::Weights));
        }
        self.lists.edge_weights()
    }
}

impl GraphUpdate for CowModel {
    fn insert_weighted_edge(&mut self, src: VertexId, dst: VertexId, w: Weight) -> Result<bool> {
        let w = if self.options.weighted { w } else { 1.0 };
        if self.options.semantics == Semantics::Simple && self.lists.has_edge(src, dst) {
            return Ok(false);
        }
        // Only vertices the snapshot knows need saving; new ones are
        // skipped by the registry.
        self.snapshots.before_out_change(self, src);
        self.snapshots.before_in_change(self, dst);
        self.lists.insert_weighted_edge(src, dst, w)
    }

    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        if !self.lists.has_edge(src, dst) {
            return Ok(false);
        }
        self.snapshots.before_out_change(self, src);
        self.snapshots.before_in_change(self, dst);
        self.lists.delete_edge(src, dst)
    }

    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        self.lists.add_vertices(count)
    }

    fn vertex_limit(&self) -> usize {
        self.lists.vertex_limit()
    }
}

impl FromEdges for CowModel {
    type Options = StoreOptions;
    fn from_edges<S: EdgeSource + ?Sized>(edges: &S, options: StoreOptions) -> Result<Self> {
        let mut store = CowModel {
            lists: ReferenceGraph::new(options.semantics),
            options,
            snapshots: SnapshotRegistry::default(),
        };
        store.insert_edges(edges)?;
        Ok(store)
    }
}

impl Snapshots for CowModel {
    type Snapshot = CowSnapshot;
    type View<'a> = CowView<'a, CowModel>;
    fn snapshot(&self) -> CowSnapshot {
        self.snapshots.take(self)
    }
    fn view<'a>(&'a self, snapshot: &'a CowSnapshot) -> Result<CowView<'a, CowModel>> {
        self.snapshots.view(self, snapshot)
    }
}

impl GraphStore for CowModel {
    const NAME: &'static str = "CowModel";
    const CAPABILITIES: dyngraph_core::Capabilities = dyngraph_core::Capabilities::IN_MEMORY;
    fn memory_bytes(&self) -> usize {
        0
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn cow_snapshots_keep_their_moment(
        base in weighted_edges(12, 0..30),
        steps in ops(14, 0..60),
        simple in any::<bool>(),
        in_edges in any::<bool>(),
        weighted in any::<bool>(),
    ) {
        let semantics = if simple { Semantics::Simple } else { Semantics::Multigraph };
        let options = StoreOptions::new(semantics).in_edges(in_edges).weighted(weighted);
        check_contract::<CowModel>(options, &base, &steps).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn a_snapshot_of_another_store_is_refused() {
    let a = CowModel::from_edges(&[(0, 1)], StoreOptions::default()).unwrap();
    let b = CowModel::from_edges(&[(0, 1)], StoreOptions::default()).unwrap();
    let snapshot = a.snapshot();
    assert!(b.view(&snapshot).is_err());
    assert_eq!(a.snapshots.live_snapshots(), 1);
    drop(snapshot);
    assert_eq!(a.snapshots.live_snapshots(), 0);
}
