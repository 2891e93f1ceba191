//! The copy-before-write snapshot registry `Pcsr` and `Bal` keep
//! ([`dyngraph_core::cow`]).

use dyngraph_core::cow::SnapshotRegistry;
use std::ops::Deref;

/// A store's [`SnapshotRegistry`], which a clone of the store does not
/// share: snapshots of the original describe the original only, so the
/// clone starts with a fresh registry (deriving `Clone` on the store then
/// does the right thing).
#[derive(Debug, Default)]
pub(crate) struct CowRegistry(SnapshotRegistry);

impl Clone for CowRegistry {
    fn clone(&self) -> Self {
        CowRegistry::default()
    }
}

impl Deref for CowRegistry {
    type Target = SnapshotRegistry;

    #[inline]
    fn deref(&self) -> &SnapshotRegistry {
        &self.0
    }
}

/// The scaffolding `Pcsr` and `Bal` share, written once: `Graph` and
/// `OutNeighbors` (sizes from the out-edges' degree array, the
/// `edge_count` and `semantics` fields; the neighbours by the expression
/// given), `FromEdges` (an empty store sized for the source's vertex bound,
/// then the edges inserted as one batch) and `Snapshots` by
/// copy-before-write through the store's `snapshots` registry. The store
/// provides `new(StoreOptions)` and `grow(vertex_count)`.
macro_rules! cow_store {
    ($store:ident, $neighbors:ident, |$graph:ident, $v:ident| $walk:expr) => {
        impl dyngraph_core::Graph for $store {
            #[inline]
            fn vertex_count(&self) -> usize {
                self.out.degree.len()
            }

            #[inline]
            fn edge_count(&self) -> u64 {
                self.edge_count
            }

            fn semantics(&self) -> dyngraph_core::Semantics {
                self.semantics
            }
        }

        impl dyngraph_core::OutNeighbors for $store {
            type OutIter<'a> = $neighbors<'a>;

            #[inline]
            fn out_degree(&self, v: dyngraph_core::VertexId) -> u64 {
                u64::from(crate::vcsr::degree_or_zero(&self.out.degree, v))
            }

            #[inline]
            fn out_neighbors(&self, $v: dyngraph_core::VertexId) -> $neighbors<'_> {
                let $graph = self;
                $walk
            }
        }

        impl dyngraph_core::FromEdges for $store {
            type Options = dyngraph_core::StoreOptions;

            /// An empty graph sized for the source's vertex bound, then the
            /// edges inserted as one batch.
            fn from_edges<E: dyngraph_core::EdgeSource + ?Sized>(
                edges: &E,
                options: dyngraph_core::StoreOptions,
            ) -> dyngraph_core::Result<Self> {
                let mut graph = $store::new(options)?;
                graph.grow(crate::batch::checked_vertex_bound(
                    edges,
                    options.vertex_limit,
                )?);
                dyngraph_core::GraphUpdate::insert_edges(&mut graph, edges)?;
                Ok(graph)
            }
        }

        #[doc = concat!("Copy-before-write (see the cost model on [`", stringify!($store), "`]).")]
        impl dyngraph_core::Snapshots for $store {
            type Snapshot = dyngraph_core::cow::CowSnapshot;
            type View<'a> = dyngraph_core::cow::CowView<'a, $store>;

            fn snapshot(&self) -> dyngraph_core::cow::CowSnapshot {
                self.snapshots.take(self)
            }

            fn view<'a>(
                &'a self,
                snapshot: &'a dyngraph_core::cow::CowSnapshot,
            ) -> dyngraph_core::Result<dyngraph_core::cow::CowView<'a, $store>> {
                self.snapshots.view(self, snapshot)
            }
        }
    };
}
pub(crate) use cow_store;
