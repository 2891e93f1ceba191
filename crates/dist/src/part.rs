//! One worker's partition: the out-edges of the vertices it owns (and the
//! in-edges, reversed, when asked), in stores of the store contract, under
//! the worker's local ids.

use crate::partition::{LocalIds, Partitioner};
use dyngraph_core::StoreConfig;
use dyngraph_core::{
    DynamicStore, EdgeColumns, OutNeighbors, Result, Semantics, StoreOptions, UpdateReport,
    VertexId, Weight,
};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// What the readers send to an owner, and owners to each other.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum Update {
    /// Arrival `index` inserts `src -> dst` (global ids). `reversed`: the
    /// copy for the in-edges at the owner of `dst`.
    Insert {
        index: u64,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
        reversed: bool,
    },
    /// Arrival `index` leaves the window: delete its `src -> dst`.
    Delete {
        index: u64,
        src: VertexId,
        dst: VertexId,
        reversed: bool,
    },
    /// This worker's edges reach `vertex`, which the addressee owns: the
    /// owner must count it among its vertices (kernels send it messages).
    Announce(VertexId),
}

impl crate::mailbox::WireSize for Update {
    fn wire_bytes(&self) -> u64 {
        // bincode: a 4-byte variant tag, then the fields at fixed width.
        match self {
            Update::Insert { .. } => 4 + 8 + 4 + 4 + 4 + 1,
            Update::Delete { .. } => 4 + 8 + 4 + 4 + 1,
            Update::Announce(_) => 4 + 4,
        }
    }
}

/// Under simple semantics with a window, which arrivals inserted their
/// edge (a repeat of a present edge inserts nothing, so its expiry deletes
/// nothing): the single-machine engine's rule, kept per store by the
/// owner, which sees every arrival of each of its edges.
#[derive(Debug, Default)]
struct EffectiveArrivals {
    present: HashSet<(VertexId, VertexId)>,
    inserted: HashSet<u64>,
}

/// One direction's store and bookkeeping.
#[derive(Debug)]
struct Side<S> {
    store: S,
    tracking: Option<EffectiveArrivals>,
}

/// The partition a worker owns.
#[derive(Debug)]
pub(crate) struct Partition<S> {
    pub(crate) index: usize,
    pub(crate) workers: usize,
    pub(crate) partitioner: Partitioner,
    pub(crate) ids: LocalIds,
    /// Local ids of the vertices this worker owns, in first-seen order.
    pub(crate) owned: Vec<VertexId>,
    /// Whether each local id is owned here.
    pub(crate) is_owned: Vec<bool>,
    out: Side<S>,
    incoming: Option<Side<S>>,
    /// Ghosts first seen since the last flush, to announce to their owners.
    pending_announcements: Vec<VertexId>,
    options: StoreOptions,
    /// Edges inserted into the out store over the run (base included).
    pub(crate) edges_inserted: u64,
    /// Edges deleted from the out store over the run.
    pub(crate) edges_deleted: u64,
}

/// The edges of one store for one batch, in local ids.
#[derive(Default)]
struct Columns {
    inserts: EdgeColumns,
    deletes: EdgeColumns,
}

impl<S: DynamicStore> Partition<S> {
    /// Builds the partition from the base arrivals it received. `options`
    /// are the run's: `in_edges` asks for the reversed copies, which live
    /// in a second store (each store itself is built without in-edges).
    pub(crate) fn build(
        index: usize,
        workers: usize,
        partitioner: Partitioner,
        options: StoreOptions,
        windowed: bool,
        mut updates: Vec<Update>,
    ) -> Result<Self> {
        let store_options = options.in_edges(false);
        let tracking = || {
            (windowed && options.semantics == Semantics::Simple).then(EffectiveArrivals::default)
        };
        let mut partition = Partition {
            index,
            workers,
            partitioner,
            ids: LocalIds::default(),
            owned: Vec::new(),
            is_owned: Vec::new(),
            out: Side {
                store: S::from_edges(
                    &EdgeColumns::default(),
                    S::Options::from_shared(store_options),
                )?,
                tracking: tracking(),
            },
            incoming: None,
            pending_announcements: Vec::new(),
            options,
            edges_inserted: 0,
            edges_deleted: 0,
        };
        sort_by_arrival(&mut updates);
        let (out, incoming) = partition.columns(&updates, options.weighted);
        partition.out.store = S::from_edges(&out.inserts, S::Options::from_shared(store_options))?;
        partition.out.store.end_batch()?;
        partition.edges_inserted = partition.out.store.edge_count();
        if options.in_edges {
            let mut store =
                S::from_edges(&incoming.inserts, S::Options::from_shared(store_options))?;
            store.end_batch()?;
            partition.incoming = Some(Side {
                store,
                tracking: tracking(),
            });
        }
        Ok(partition)
    }

    /// Applies one epoch's updates: inserts in arrival order, then deletes
    /// in arrival order, then `end_batch`, as the single-machine engine
    /// does with a batch. Returns what the out store reported.
    pub(crate) fn apply(&mut self, mut updates: Vec<Update>) -> Result<UpdateReport> {
        sort_by_arrival(&mut updates);
        let (out, incoming) = self.columns(&updates, self.options.weighted);
        let report = apply_side(&mut self.out.store, &out)?;
        self.edges_inserted += report.edges_added;
        self.edges_deleted += report.edges_removed;
        if let Some(side) = &mut self.incoming {
            apply_side(&mut side.store, &incoming)?;
        }
        Ok(report)
    }

    /// Interns every id of `updates` (announcing new ghosts), applies the
    /// effective-arrival rule, and splits them into the two stores'
    /// columns in local ids.
    fn columns(&mut self, updates: &[Update], weighted: bool) -> (Columns, Columns) {
        let mut out = Columns::default();
        let mut incoming = Columns::default();
        if weighted {
            out.inserts.weights = Some(Vec::new());
            incoming.inserts.weights = Some(Vec::new());
        }
        for update in updates {
            match *update {
                Update::Announce(vertex) => {
                    self.intern(vertex);
                }
                Update::Insert {
                    index,
                    src,
                    dst,
                    weight,
                    reversed,
                } => {
                    let (from, to) = if reversed { (dst, src) } else { (src, dst) };
                    let side = if reversed {
                        self.incoming.as_mut()
                    } else {
                        Some(&mut self.out)
                    };
                    if let Some(Side {
                        tracking: Some(tracking),
                        ..
                    }) = side
                        && tracking.present.insert((src, dst))
                    {
                        tracking.inserted.insert(index);
                    }
                    let (from, to) = (self.intern(from), self.intern(to));
                    let columns = if reversed { &mut incoming } else { &mut out };
                    columns.inserts.src.push(from);
                    columns.inserts.dst.push(to);
                    if let Some(weights) = &mut columns.inserts.weights {
                        weights.push(weight);
                    }
                }
                Update::Delete {
                    index,
                    src,
                    dst,
                    reversed,
                } => {
                    let side = if reversed {
                        self.incoming.as_mut()
                    } else {
                        Some(&mut self.out)
                    };
                    if let Some(Side {
                        tracking: Some(tracking),
                        ..
                    }) = side
                    {
                        if !tracking.inserted.remove(&index) {
                            continue;
                        }
                        tracking.present.remove(&(src, dst));
                    }
                    let (from, to) = if reversed { (dst, src) } else { (src, dst) };
                    // Deleted edges were inserted here, so both ends are known.
                    let (Some(from), Some(to)) = (self.ids.local(from), self.ids.local(to)) else {
                        continue;
                    };
                    let columns = if reversed { &mut incoming } else { &mut out };
                    columns.deletes.src.push(from);
                    columns.deletes.dst.push(to);
                }
            }
        }
        (out, incoming)
    }

    /// The local id of `global`, registering it (owned, or a ghost to
    /// announce to its owner) when new.
    fn intern(&mut self, global: VertexId) -> VertexId {
        let (local, new) = self.ids.intern(global);
        if new {
            let owner = self.partitioner.owner(global, self.workers);
            let owned = owner == self.index;
            self.is_owned.push(owned);
            if owned {
                self.owned.push(local);
            } else {
                self.pending_announcements.push(global);
            }
        }
        local
    }

    /// Ghosts to announce to their owners since the last call.
    pub(crate) fn take_announcements(&mut self) -> Vec<VertexId> {
        std::mem::take(&mut self.pending_announcements)
    }

    /// The out store (local ids).
    pub(crate) fn out(&self) -> &S {
        &self.out.store
    }

    /// The reversed in-edge store (local ids), when kept.
    #[cfg(test)]
    pub(crate) fn incoming(&self) -> Option<&S> {
        self.incoming.as_ref().map(|side| &side.store)
    }

    /// Heap bytes: stores, id maps and bookkeeping.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.out.store.memory_bytes()
            + self.incoming.as_ref().map_or(0, |s| s.store.memory_bytes())
            + self.ids.memory_bytes()
            + self.owned.capacity() * 4
            + self.is_owned.capacity()
    }

    /// Out-edges held (the edges this worker owns).
    pub(crate) fn out_edges(&self) -> u64 {
        self.out.store.edge_count()
    }

    /// In-edge copies held.
    pub(crate) fn in_edges(&self) -> u64 {
        self.incoming.as_ref().map_or(0, |s| s.store.edge_count())
    }

    /// Stores' maintenance counters, summed.
    pub(crate) fn maintenance(&self) -> Option<dyngraph_core::MaintenanceStats> {
        self.out.store.maintenance()
    }
}

/// Out-degree of `local` in `graph`, 0 for a local id the store has not
/// grown to (a vertex seen only through the other store or an announce).
#[inline]
pub(crate) fn out_degree<G: OutNeighbors>(graph: &G, local: VertexId) -> u64 {
    if (local as usize) < graph.vertex_count() {
        graph.out_degree(local)
    } else {
        0
    }
}

fn apply_side<S: DynamicStore>(store: &mut S, columns: &Columns) -> Result<UpdateReport> {
    let mut report = UpdateReport::default();
    if columns.inserts.src.is_empty() && columns.deletes.src.is_empty() {
        // Nothing for this store in this epoch (or only announcements).
        return Ok(report);
    }
    if !columns.inserts.src.is_empty() {
        report += store.insert_edges(&columns.inserts)?;
    }
    if !columns.deletes.src.is_empty() {
        report += store.delete_edges(&columns.deletes)?;
    }
    store.end_batch()?;
    Ok(report)
}

/// Announcements first, then inserts by arrival, then deletes by arrival.
fn sort_by_arrival(updates: &mut [Update]) {
    updates.sort_unstable_by_key(|update| match *update {
        Update::Announce(vertex) => (0, u64::from(vertex), false),
        Update::Insert {
            index, reversed, ..
        } => (1, index, reversed),
        Update::Delete {
            index, reversed, ..
        } => (2, index, reversed),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyngraph_core::CsrRebuild;
    use dyngraph_core::{Graph, OutNeighbors};

    fn insert(index: u64, src: VertexId, dst: VertexId, reversed: bool) -> Update {
        Update::Insert {
            index,
            src,
            dst,
            weight: 1.0,
            reversed,
        }
    }

    fn delete(index: u64, src: VertexId, dst: VertexId, reversed: bool) -> Update {
        Update::Delete {
            index,
            src,
            dst,
            reversed,
        }
    }

    #[test]
    fn stores_hold_local_ids_and_reversed_copies() {
        // Worker 0 of 2 by modulo owns the even ids.
        let options = StoreOptions::default().in_edges(true);
        let updates = vec![
            insert(1, 4, 7, false),
            insert(0, 2, 4, false),
            insert(2, 9, 6, true),
        ];
        let partition =
            Partition::<CsrRebuild>::build(0, 2, Partitioner::Modulo, options, false, updates)
                .unwrap();
        // First seen in arrival order: 2, 4, 7, then 6 and 9 from the reversed copy.
        let globals: Vec<VertexId> = (0..5).map(|l| partition.ids.global(l)).collect();
        assert_eq!(globals, [2, 4, 7, 6, 9]);
        assert_eq!(partition.owned, [0, 1, 3]);
        assert_eq!(partition.out().out_neighbors(0).collect::<Vec<_>>(), [1]);
        assert_eq!(partition.out().out_neighbors(1).collect::<Vec<_>>(), [2]);
        let incoming = partition.incoming().unwrap();
        assert_eq!(incoming.edge_count(), 1);
        assert_eq!(incoming.out_neighbors(3).collect::<Vec<_>>(), [4]);
        // 7 and 9 are ghosts: their owner must hear of them.
        let mut partition = partition;
        let mut announced = partition.take_announcements();
        announced.sort_unstable();
        assert_eq!(announced, [7, 9]);
    }

    #[test]
    fn under_simple_semantics_only_the_inserting_arrival_deletes() {
        let options = StoreOptions::new(Semantics::Simple);
        let mut partition = Partition::<CsrRebuild>::build(
            0,
            1,
            Partitioner::Hash,
            options,
            true,
            vec![insert(0, 1, 2, false), insert(1, 1, 2, false)],
        )
        .unwrap();
        assert_eq!(partition.out_edges(), 1);
        // Arrival 1 repeated a present edge: its expiry deletes nothing.
        let report = partition.apply(vec![delete(1, 1, 2, false)]).unwrap();
        assert_eq!((report.edges_removed, partition.out_edges()), (0, 1));
        let report = partition.apply(vec![delete(0, 1, 2, false)]).unwrap();
        assert_eq!((report.edges_removed, partition.out_edges()), (1, 0));
        // Inserted again, it is effective again.
        partition.apply(vec![insert(2, 1, 2, false)]).unwrap();
        let report = partition.apply(vec![delete(2, 1, 2, false)]).unwrap();
        assert_eq!(report.edges_removed, 1);
        assert_eq!(partition.edges_deleted, 2);
    }
}
