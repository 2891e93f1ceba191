//! One worker's partition: the out-edges of the vertices it owns (and the
//! in-edges, reversed, when asked), in stores of the store contract, under
//! the worker's local ids.

use crate::partition::{LocalIds, Partitioner};
use crate::shipment::{Op, Shipment};
use dyngraph_core::StoreConfig;
use dyngraph_core::{
    DynamicStore, EdgeColumns, OutNeighbors, Result, Semantics, StoreOptions, UpdateReport,
    VertexId,
};
use std::collections::HashSet;

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
        shipments: Vec<Shipment>,
        store: &S::Options,
    ) -> Result<Self> {
        // The store's own knobs as given (a gap policy, a sync policy),
        // the shared ones the run's, without in-edges: the reversed copies
        // live in a second store.
        let own = || {
            let mut own = store.clone();
            *own.shared_mut() = options.in_edges(false);
            own
        };
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
                store: S::from_edges(&EdgeColumns::default(), own())?,
                tracking: tracking(),
            },
            // Present from the start, so that the base's reversed copies
            // are tracked like the out store's edges (a window under simple
            // semantics deletes a copy only if its arrival inserted it).
            incoming: match options.in_edges {
                true => Some(Side {
                    store: S::from_edges(&EdgeColumns::default(), own())?,
                    tracking: tracking(),
                }),
                false => None,
            },
            pending_announcements: Vec::new(),
            options,
            edges_inserted: 0,
            edges_deleted: 0,
        };
        let rank = partition.intern_base(&shipments);
        let (out, incoming) = partition.columns(shipments, options.weighted, rank.as_ref());
        drop(rank);
        // The base's shipments are gone; their memory goes back before the
        // stores are built (the peak of a load).
        crate::memory::release_freed();
        partition.out.store = S::from_edges(&out.inserts, own())?;
        partition.out.store.end_batch()?;
        partition.edges_inserted = partition.out.store.edge_count();
        drop(out);
        crate::memory::release_freed();
        if let Some(side) = &mut partition.incoming {
            side.store = S::from_edges(&incoming.inserts, own())?;
            side.store.end_batch()?;
        }
        drop(incoming);
        crate::memory::release_freed();
        Ok(partition)
    }

    /// Applies one epoch's shipments (in `(from, seq)` order): inserts in
    /// arrival order, then deletes in arrival order, then `end_batch`, as
    /// the single-machine engine does with a batch. Returns what the out
    /// store reported.
    pub(crate) fn apply(&mut self, shipments: Vec<Shipment>) -> Result<UpdateReport> {
        let (out, incoming) = self.columns(shipments, self.options.weighted, None);
        let report = apply_side(&mut self.out.store, &out)?;
        self.edges_inserted += report.edges_added;
        self.edges_deleted += report.edges_removed;
        if let Some(side) = &mut self.incoming {
            apply_side(&mut side.store, &incoming)?;
        }
        Ok(report)
    }

    /// Interns every id of `shipments` (announcing new ghosts), applies
    /// the effective-arrival rule, and splits them into the two stores'
    /// columns in local ids: announcements first, then inserts, then
    /// deletes, each in the shipments' order. With `rank`, every id of the
    /// inserts is already interned in increasing order: its local id is
    /// its rank.
    fn columns(
        &mut self,
        shipments: Vec<Shipment>,
        weighted: bool,
        rank: Option<&Rank>,
    ) -> (Columns, Columns) {
        let mut out = Columns::default();
        let mut incoming = Columns::default();
        if weighted {
            out.inserts.weights = Some(Vec::new());
            incoming.inserts.weights = Some(Vec::new());
        }
        let (mut inserts, mut deletes) = (Vec::new(), Vec::new());
        for shipment in shipments {
            match shipment.op {
                None => {
                    for &vertex in &shipment.src {
                        self.intern(vertex);
                    }
                }
                Some(Op::Insert) => inserts.push(shipment),
                Some(Op::Delete) => deletes.push(shipment),
            }
        }
        let reserve = |columns: &mut Columns, shipments: &[Shipment], reversed: bool| {
            let count = shipments
                .iter()
                .filter(|s| s.reversed == reversed)
                .map(Shipment::len)
                .sum();
            columns.inserts.src.reserve_exact(count);
            columns.inserts.dst.reserve_exact(count);
            if let Some(weights) = &mut columns.inserts.weights {
                weights.reserve_exact(count);
            }
        };
        reserve(&mut out, &inserts, false);
        reserve(&mut incoming, &inserts, true);
        for shipment in inserts {
            let reversed = shipment.reversed;
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
                // Only the arrival that inserted an edge deletes it.
                let indices = shipment.indices.as_deref().unwrap_or(&[]);
                for (i, (&src, &dst)) in shipment.src.iter().zip(&shipment.dst).enumerate() {
                    if tracking.present.insert((src, dst))
                        && let Some(&index) = indices.get(i)
                    {
                        tracking.inserted.insert(index);
                    }
                }
            }
            let columns = if reversed {
                &mut incoming.inserts
            } else {
                &mut out.inserts
            };
            let (from, to) = if reversed {
                (&shipment.dst, &shipment.src)
            } else {
                (&shipment.src, &shipment.dst)
            };
            match rank {
                Some(rank) => {
                    columns.src.extend(from.iter().map(|&a| rank.get(a)));
                    columns.dst.extend(to.iter().map(|&b| rank.get(b)));
                }
                None => {
                    // Misses of the id lookup overlap when its entries are
                    // asked for a few edges ahead.
                    const AHEAD: usize = 16;
                    for (i, (&a, &b)) in from.iter().zip(to).enumerate() {
                        if let (Some(&c), Some(&d)) = (from.get(i + AHEAD), to.get(i + AHEAD)) {
                            self.ids.prefetch(c);
                            self.ids.prefetch(d);
                        }
                        let a = self.intern(a);
                        let b = self.intern(b);
                        columns.src.push(a);
                        columns.dst.push(b);
                    }
                }
            }
            if let Some(weights) = &mut columns.weights {
                match &shipment.weights {
                    Some(w) => weights.extend_from_slice(w),
                    None => weights.resize(columns.src.len(), 1.0),
                }
            }
        }
        for shipment in deletes {
            let reversed = shipment.reversed;
            let indices = shipment.indices.as_deref().unwrap_or(&[]);
            for (i, (&src, &dst)) in shipment.src.iter().zip(&shipment.dst).enumerate() {
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
                    if !indices
                        .get(i)
                        .is_some_and(|index| tracking.inserted.remove(index))
                    {
                        continue;
                    }
                    tracking.present.remove(&(src, dst));
                }
                let (from, to) = if reversed { (dst, src) } else { (src, dst) };
                // Deleted edges were inserted here, so both ends are known.
                let (Some(from), Some(to)) = (self.ids.local(from), self.ids.local(to)) else {
                    continue;
                };
                let columns = if reversed {
                    &mut incoming.deletes
                } else {
                    &mut out.deletes
                };
                columns.src.push(from);
                columns.dst.push(to);
            }
        }
        (out, incoming)
    }

    /// Interns every id of the base at once, in increasing global order,
    /// when the ids are dense enough for the dense lookup or the identity
    /// mapping ([`LocalIds::prepare`]): one pass over a bitmap of the id
    /// range instead of a growing hash table met in arrival order (the
    /// base is most of the ids a worker will see). Returns, for the dense
    /// lookup, the ranks that translate the base's ids to local ids
    /// without touching the lookup array.
    fn intern_base(&mut self, shipments: &[Shipment]) -> Option<Rank> {
        let ids = || shipments.iter().flat_map(|s| s.src.iter().chain(&s.dst));
        let max = *ids().max()?;
        let rank = Rank::of(ids(), max);
        let ranked = self.ids.prepare(rank.count(), u64::from(max) + 1);
        if !ranked && !self.ids.is_identity() {
            // Sparse ids: the table, in arrival order.
            return None;
        }
        self.is_owned.reserve_exact(rank.count());
        for (w, &word) in rank.bits.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let v = (w * 64) as VertexId + bits.trailing_zeros();
                bits &= bits - 1;
                self.intern(v);
            }
        }
        ranked.then_some(rank)
    }

    /// The local id of `global`, registering it (owned, or a ghost to
    /// announce to its owner) when new.
    fn intern(&mut self, global: VertexId) -> VertexId {
        let (local, new) = self.ids.intern(global);
        if new {
            let owner = self.partitioner.owner(global, self.workers);
            let owned = owner == self.index;
            // Local ids come in order, or with holes under the identity
            // mapping.
            if self.is_owned.len() <= local as usize {
                self.is_owned.resize(local as usize + 1, false);
            }
            self.is_owned[local as usize] = owned;
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

/// Which ids of `0..=max` occur, with the count of those below each
/// 64-bit word: the rank of an id (its index among the ids that occur) in
/// two reads of arrays of an eighth and a sixteenth of a byte per id, small
/// enough to stay in cache where a 4-byte-per-id lookup array does not.
pub(crate) struct Rank {
    bits: Vec<u64>,
    below: Vec<u32>,
}

impl Rank {
    fn of<'a>(ids: impl Iterator<Item = &'a VertexId>, max: VertexId) -> Self {
        let words = (max as usize + 1).div_ceil(64);
        let mut bits = vec![0u64; words];
        for &v in ids {
            bits[v as usize / 64] |= 1 << (v % 64);
        }
        let mut below = Vec::with_capacity(words + 1);
        let mut count = 0u32;
        for word in &bits {
            below.push(count);
            count += word.count_ones();
        }
        below.push(count);
        Self { bits, below }
    }

    fn count(&self) -> usize {
        self.below.last().copied().unwrap_or(0) as usize
    }

    /// The rank of `v`, which occurs.
    #[inline]
    fn get(&self, v: VertexId) -> VertexId {
        let word = v as usize / 64;
        let mask = (1u64 << (v % 64)) - 1;
        self.below[word] + (self.bits[word] & mask).count_ones()
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

#[cfg(test)]
mod tests {
    use super::*;
    use dyngraph_core::CsrRebuild;
    use dyngraph_core::{Graph, OutNeighbors};

    /// A shipment of `edges` (`(index, src, dst)`).
    fn shipment(seq: u32, op: Op, reversed: bool, edges: &[(u64, VertexId, VertexId)]) -> Shipment {
        Shipment {
            from: 0,
            seq,
            op: Some(op),
            reversed,
            src: edges.iter().map(|e| e.1).collect(),
            dst: edges.iter().map(|e| e.2).collect(),
            weights: None,
            indices: Some(edges.iter().map(|e| e.0).collect()),
        }
    }

    #[test]
    fn stores_hold_local_ids_and_reversed_copies() {
        // Worker 0 of 2 by modulo owns the even ids.
        let options = StoreOptions::default().in_edges(true);
        let shipments = vec![
            shipment(0, Op::Insert, false, &[(0, 2, 4), (1, 4, 7)]),
            shipment(1, Op::Insert, true, &[(2, 9, 6)]),
        ];
        let partition = Partition::<CsrRebuild>::build(
            0,
            2,
            Partitioner::Modulo,
            options,
            false,
            shipments,
            &options,
        )
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
            vec![shipment(0, Op::Insert, false, &[(0, 1, 2), (1, 1, 2)])],
            &options,
        )
        .unwrap();
        assert_eq!(partition.out_edges(), 1);
        // Arrival 1 repeated a present edge: its expiry deletes nothing.
        let report = partition
            .apply(vec![shipment(0, Op::Delete, false, &[(1, 1, 2)])])
            .unwrap();
        assert_eq!((report.edges_removed, partition.out_edges()), (0, 1));
        let report = partition
            .apply(vec![shipment(0, Op::Delete, false, &[(0, 1, 2)])])
            .unwrap();
        assert_eq!((report.edges_removed, partition.out_edges()), (1, 0));
        // Inserted again, it is effective again.
        partition
            .apply(vec![shipment(0, Op::Insert, false, &[(2, 1, 2)])])
            .unwrap();
        let report = partition
            .apply(vec![shipment(0, Op::Delete, false, &[(2, 1, 2)])])
            .unwrap();
        assert_eq!(report.edges_removed, 1);
        assert_eq!(partition.edges_deleted, 2);
    }
}
