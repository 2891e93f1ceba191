//! Copy-before-write snapshots for stores that change lists in place.
//!
//! A store keeps a [`SnapshotRegistry`]. [`SnapshotRegistry::take`] returns
//! a [`CowSnapshot`]: the vertex and edge counts of the moment, and an empty
//! table of saved lists. From then on, before the store changes a vertex's
//! out-list or in-list (an insert, a delete, a vertex deletion — not a
//! rebalance or compaction, which move edges without changing any list's
//! contents), it calls [`SnapshotRegistry::before_out_change`] or
//! [`SnapshotRegistry::before_in_change`], which copies that list into
//! every live snapshot that has not saved it yet. A [`CowView`] reads a
//! saved list where there is one and the store's live list otherwise:
//! exactly the graph at the time of the snapshot.
//!
//! Why this is sound: a view borrows the store, and changes need `&mut`
//! (or, for CSR++'s concurrent writer, a writer that itself holds
//! `&mut`), so no list changes while a view reads; a list unchanged since
//! the snapshot is still the snapshot's list.
//!
//! # Cost
//! - No live snapshot: one relaxed atomic load per change.
//! - Taking a snapshot: two bitmaps of `V / 8` bytes.
//! - While snapshots live: the first change of each list after a snapshot
//!   copies that list once (shared by all snapshots that need it) and
//!   takes a lock; later changes to it test one bit per snapshot.
//! - Reading a view: one bit test per vertex read, plus a hash lookup for
//!   a saved list.
//!
//! ```
//! use dyngraph_core::cow::SnapshotRegistry;
//! use dyngraph_core::testing::ReferenceGraph;
//! use dyngraph_core::{GraphUpdate, OutNeighbors, Semantics};
//!
//! let mut graph = ReferenceGraph::new(Semantics::Multigraph);
//! let registry = SnapshotRegistry::default();
//! graph.insert_edge(0, 1)?;
//! let snapshot = registry.take(&graph);
//! registry.before_out_change(&graph, 0); // what a store does before changing 0's list
//! graph.insert_edge(0, 2)?;
//! let view = registry.view(&graph, &snapshot)?;
//! assert_eq!(view.out_neighbors(0).collect::<Vec<_>>(), [1]);
//! assert_eq!(graph.out_neighbors(0).collect::<Vec<_>>(), [1, 2]);
//! # Ok::<(), dyngraph_core::Error>(())
//! ```

use crate::traits::{
    EdgeWeights, Graph, InEdges, InNeighbors, OutNeighbors, ReadGraph, WeightedNeighbors,
};
use crate::{Capability, Error, Result, Semantics, VertexId, Weight};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, Weak};

/// A saved out-list: targets and, in a weighted store, their weights.
#[derive(Debug)]
struct SavedOut {
    targets: Box<[VertexId]>,
    weights: Option<Box<[Weight]>>,
}

#[derive(Debug, Default)]
struct SavedMaps {
    out: HashMap<VertexId, Arc<SavedOut>>,
    incoming: HashMap<VertexId, Arc<[VertexId]>>,
}

/// One snapshot's state, shared by its token and the registry.
struct Saved {
    vertex_count: usize,
    edge_count: u64,
    semantics: Semantics,
    weighted: bool,
    in_edges: bool,
    out_marks: Box<[AtomicU64]>,
    in_marks: Box<[AtomicU64]>,
    maps: RwLock<SavedMaps>,
}

impl Saved {
    #[inline]
    fn marked(marks: &[AtomicU64], v: VertexId) -> bool {
        marks
            .get(v as usize / 64)
            .is_some_and(|word| word.load(Ordering::Relaxed) & (1 << (v % 64)) != 0)
    }

    fn mark(marks: &[AtomicU64], v: VertexId) {
        marks[v as usize / 64].fetch_or(1 << (v % 64), Ordering::Relaxed);
    }

    fn memory_bytes(&self) -> usize {
        let maps = self.maps.read().unwrap_or_else(PoisonError::into_inner);
        let out: usize = maps
            .out
            .values()
            .map(|s| s.targets.len() * 4 + s.weights.as_ref().map_or(0, |w| w.len() * 4) + 48)
            .sum();
        let incoming: usize = maps.incoming.values().map(|s| s.len() * 4 + 32).sum();
        (self.out_marks.len() + self.in_marks.len()) * 8 + out + incoming
    }
}

#[derive(Default)]
struct Shared {
    /// Live snapshots; changes skip all work while it is 0.
    live: AtomicUsize,
    snapshots: Mutex<Vec<Weak<Saved>>>,
}

/// The store's side of copy-before-write snapshots (see the module docs).
/// Cloning a store must give the clone a fresh registry
/// ([`SnapshotRegistry::default`]): snapshots of the original do not apply
/// to the clone.
#[derive(Default)]
pub struct SnapshotRegistry {
    shared: Arc<Shared>,
}

impl fmt::Debug for SnapshotRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SnapshotRegistry")
            .field("live", &self.live_snapshots())
            .finish()
    }
}

/// A detached snapshot of a store using [`SnapshotRegistry`]; read it with
/// the store's `view`. Dropping it releases its saved lists.
pub struct CowSnapshot {
    saved: Arc<Saved>,
    shared: Arc<Shared>,
}

impl fmt::Debug for CowSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CowSnapshot")
            .field("vertex_count", &self.saved.vertex_count)
            .field("edge_count", &self.saved.edge_count)
            .finish_non_exhaustive()
    }
}

impl CowSnapshot {
    /// Vertices when the snapshot was taken.
    pub fn vertex_count(&self) -> usize {
        self.saved.vertex_count
    }

    /// Edges when the snapshot was taken.
    pub fn edge_count(&self) -> u64 {
        self.saved.edge_count
    }

    /// Heap bytes this snapshot holds: its bitmaps and the lists it saved.
    pub fn memory_bytes(&self) -> usize {
        self.saved.memory_bytes()
    }
}

impl Drop for CowSnapshot {
    fn drop(&mut self) {
        self.shared.live.fetch_sub(1, Ordering::Release);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding the lock leaves the list of weak pointers
    // intact; nothing to repair.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SnapshotRegistry {
    /// Live snapshots of this store.
    pub fn live_snapshots(&self) -> usize {
        self.shared.live.load(Ordering::Acquire)
    }

    /// Whether any snapshot is alive (changes must then be announced).
    #[inline]
    pub fn is_active(&self) -> bool {
        self.shared.live.load(Ordering::Acquire) != 0
    }

    /// Takes a snapshot of `graph` as it is now.
    pub fn take<G: ReadGraph + ?Sized>(&self, graph: &G) -> CowSnapshot {
        let n = graph.vertex_count();
        let words = n.div_ceil(64);
        let in_edges = graph.has_in_edges();
        let saved = Arc::new(Saved {
            vertex_count: n,
            edge_count: graph.edge_count(),
            semantics: graph.semantics(),
            weighted: graph.has_weights(),
            in_edges,
            out_marks: (0..words).map(|_| AtomicU64::new(0)).collect(),
            in_marks: (0..if in_edges { words } else { 0 })
                .map(|_| AtomicU64::new(0))
                .collect(),
            maps: RwLock::new(SavedMaps::default()),
        });
        let mut snapshots = lock(&self.shared.snapshots);
        snapshots.retain(|weak| weak.strong_count() > 0);
        snapshots.push(Arc::downgrade(&saved));
        self.shared.live.fetch_add(1, Ordering::Release);
        CowSnapshot {
            saved,
            shared: Arc::clone(&self.shared),
        }
    }

    /// The live snapshots that have not saved `v`'s list yet.
    fn needing(&self, v: VertexId, incoming: bool) -> Vec<Arc<Saved>> {
        lock(&self.shared.snapshots)
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|saved| {
                (v as usize) < saved.vertex_count
                    && !Saved::marked(
                        if incoming {
                            &saved.in_marks
                        } else {
                            &saved.out_marks
                        },
                        v,
                    )
            })
            .collect()
    }

    /// Call before changing `v`'s out-list: saves the list, as `graph`
    /// reads it now, into every live snapshot that has not saved it.
    /// Nearly free when no snapshot is alive.
    #[inline]
    pub fn before_out_change<G: ReadGraph + ?Sized>(&self, graph: &G, v: VertexId) {
        if self.is_active() {
            self.save_out(graph, v);
        }
    }

    /// Call before changing `v`'s in-list (see
    /// [`SnapshotRegistry::before_out_change`]).
    #[inline]
    pub fn before_in_change<G: ReadGraph + ?Sized>(&self, graph: &G, v: VertexId) {
        if self.is_active() {
            self.save_in(graph, v);
        }
    }

    #[cold]
    fn save_out<G: ReadGraph + ?Sized>(&self, graph: &G, v: VertexId) {
        let needing = self.needing(v, false);
        if needing.is_empty() {
            return;
        }
        let list = Arc::new(match graph.edge_weights() {
            Ok(handle) => {
                let (targets, weights): (Vec<VertexId>, Vec<Weight>) =
                    handle.out_neighbors_weighted(v).unzip();
                SavedOut {
                    targets: targets.into(),
                    weights: Some(weights.into()),
                }
            }
            Err(_) => SavedOut {
                targets: graph.out_neighbors(v).collect(),
                weights: None,
            },
        });
        for saved in needing {
            let mut maps = saved.maps.write().unwrap_or_else(PoisonError::into_inner);
            maps.out.insert(v, Arc::clone(&list));
            Saved::mark(&saved.out_marks, v);
        }
    }

    #[cold]
    fn save_in<G: ReadGraph + ?Sized>(&self, graph: &G, v: VertexId) {
        let Ok(handle) = graph.in_edges() else {
            return;
        };
        let needing: Vec<Arc<Saved>> = self
            .needing(v, true)
            .into_iter()
            .filter(|saved| saved.in_edges)
            .collect();
        if needing.is_empty() {
            return;
        }
        let list: Arc<[VertexId]> = handle.in_neighbors(v).collect();
        for saved in needing {
            let mut maps = saved.maps.write().unwrap_or_else(PoisonError::into_inner);
            maps.incoming.insert(v, Arc::clone(&list));
            Saved::mark(&saved.in_marks, v);
        }
    }

    /// Whether `snapshot` was taken from this registry.
    pub fn owns(&self, snapshot: &CowSnapshot) -> bool {
        Arc::ptr_eq(&self.shared, &snapshot.shared)
    }

    /// A view of `snapshot` over `graph`, the store owning this registry;
    /// an error if the snapshot came from another registry.
    pub fn view<'a, G: ReadGraph + ?Sized>(
        &self,
        graph: &'a G,
        snapshot: &'a CowSnapshot,
    ) -> Result<CowView<'a, G>> {
        if !self.owns(snapshot) {
            return Err(Error::InvalidArgument(
                "the snapshot was taken from a different store".into(),
            ));
        }
        Ok(CowView {
            graph,
            saved: &snapshot.saved,
            maps: snapshot
                .saved
                .maps
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        })
    }
}

/// A store as it was when a [`CowSnapshot`] was taken: saved lists where a
/// list changed since, the live store elsewhere.
pub struct CowView<'a, G: ?Sized> {
    graph: &'a G,
    saved: &'a Saved,
    maps: RwLockReadGuard<'a, SavedMaps>,
}

impl<G: ?Sized> fmt::Debug for CowView<'_, G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CowView")
            .field("vertex_count", &self.saved.vertex_count)
            .field("edge_count", &self.saved.edge_count)
            .field("saved_out_lists", &self.maps.out.len())
            .field("saved_in_lists", &self.maps.incoming.len())
            .finish_non_exhaustive()
    }
}

impl<G: ?Sized> CowView<'_, G> {
    /// Whether `v` existed when the snapshot was taken; a later vertex
    /// (or one past the graph) reads as isolated.
    #[inline]
    fn existed(&self, v: VertexId) -> bool {
        (v as usize) < self.saved.vertex_count
    }
}

/// The neighbours of one vertex in a [`CowView`]: a saved list or the live
/// store's iterator.
#[derive(Clone, Debug)]
pub enum CowNeighbors<'a, L> {
    /// The list as saved when it first changed after the snapshot.
    Saved(std::iter::Copied<std::slice::Iter<'a, VertexId>>),
    /// The store's list, unchanged since the snapshot.
    Live(L),
}

impl<L: Iterator<Item = VertexId>> Iterator for CowNeighbors<'_, L> {
    type Item = VertexId;

    #[inline]
    fn next(&mut self) -> Option<VertexId> {
        match self {
            CowNeighbors::Saved(list) => list.next(),
            CowNeighbors::Live(list) => list.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            CowNeighbors::Saved(list) => list.size_hint(),
            CowNeighbors::Live(list) => list.size_hint(),
        }
    }
}

impl<G: Graph + ?Sized> Graph for CowView<'_, G> {
    fn vertex_count(&self) -> usize {
        self.saved.vertex_count
    }

    fn edge_count(&self) -> u64 {
        self.saved.edge_count
    }

    fn semantics(&self) -> Semantics {
        self.saved.semantics
    }
}

impl<G: OutNeighbors + ?Sized> OutNeighbors for CowView<'_, G> {
    type OutIter<'b>
        = CowNeighbors<'b, G::OutIter<'b>>
    where
        Self: 'b;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        if !self.existed(v) {
            return 0;
        }
        if Saved::marked(&self.saved.out_marks, v) {
            self.maps.out[&v].targets.len() as u64
        } else {
            self.graph.out_degree(v)
        }
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> Self::OutIter<'_> {
        if !self.existed(v) {
            return CowNeighbors::Saved([].iter().copied());
        }
        if Saved::marked(&self.saved.out_marks, v) {
            CowNeighbors::Saved(self.maps.out[&v].targets.iter().copied())
        } else {
            CowNeighbors::Live(self.graph.out_neighbors(v))
        }
    }
}

/// The in-edges of a [`CowView`].
pub struct CowInEdges<'a, H> {
    live: H,
    saved: &'a Saved,
    maps: &'a SavedMaps,
}

impl<H: Copy> Clone for CowInEdges<'_, H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<H: Copy> Copy for CowInEdges<'_, H> {}

impl<H> fmt::Debug for CowInEdges<'_, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CowInEdges").finish_non_exhaustive()
    }
}

impl<'a, H: InNeighbors> InNeighbors for CowInEdges<'a, H> {
    type InIter = CowNeighbors<'a, H::InIter>;

    #[inline]
    fn in_degree(self, v: VertexId) -> u64 {
        if v as usize >= self.saved.vertex_count {
            return 0;
        }
        if Saved::marked(&self.saved.in_marks, v) {
            self.maps.incoming[&v].len() as u64
        } else {
            self.live.in_degree(v)
        }
    }

    #[inline]
    fn in_neighbors(self, v: VertexId) -> Self::InIter {
        if v as usize >= self.saved.vertex_count {
            return CowNeighbors::Saved([].iter().copied());
        }
        if Saved::marked(&self.saved.in_marks, v) {
            CowNeighbors::Saved(self.maps.incoming[&v].iter().copied())
        } else {
            CowNeighbors::Live(self.live.in_neighbors(v))
        }
    }
}

impl<G: InEdges + ?Sized> InEdges for CowView<'_, G> {
    type InHandle<'b>
        = CowInEdges<'b, G::InHandle<'b>>
    where
        Self: 'b;

    fn in_edges(&self) -> Result<Self::InHandle<'_>> {
        if !self.saved.in_edges {
            return Err(Error::missing("snapshot", Capability::InEdges));
        }
        Ok(CowInEdges {
            live: self.graph.in_edges()?,
            saved: self.saved,
            maps: &self.maps,
        })
    }
}

/// The weighted out-edges of a [`CowView`].
pub struct CowWeights<'a, H> {
    live: H,
    saved: &'a Saved,
    maps: &'a SavedMaps,
}

impl<H: Copy> Clone for CowWeights<'_, H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<H: Copy> Copy for CowWeights<'_, H> {}

impl<H> fmt::Debug for CowWeights<'_, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CowWeights").finish_non_exhaustive()
    }
}

/// The weighted out-edges of one vertex in a [`CowView`].
#[derive(Clone, Debug)]
pub enum CowWeightedNeighbors<'a, L> {
    /// The list as saved.
    Saved(
        std::iter::Zip<
            std::iter::Copied<std::slice::Iter<'a, VertexId>>,
            std::iter::Copied<std::slice::Iter<'a, Weight>>,
        >,
    ),
    /// The store's list, unchanged since the snapshot.
    Live(L),
}

impl<L: Iterator<Item = (VertexId, Weight)>> Iterator for CowWeightedNeighbors<'_, L> {
    type Item = (VertexId, Weight);

    #[inline]
    fn next(&mut self) -> Option<(VertexId, Weight)> {
        match self {
            CowWeightedNeighbors::Saved(list) => list.next(),
            CowWeightedNeighbors::Live(list) => list.next(),
        }
    }
}

impl<'a, H: WeightedNeighbors> WeightedNeighbors for CowWeights<'a, H> {
    type WeightedIter = CowWeightedNeighbors<'a, H::WeightedIter>;

    #[inline]
    fn out_neighbors_weighted(self, v: VertexId) -> Self::WeightedIter {
        if v as usize >= self.saved.vertex_count {
            return CowWeightedNeighbors::Saved([].iter().copied().zip([].iter().copied()));
        }
        if Saved::marked(&self.saved.out_marks, v) {
            let list = &self.maps.out[&v];
            let weights = list.weights.as_deref().unwrap_or(&[]);
            CowWeightedNeighbors::Saved(list.targets.iter().copied().zip(weights.iter().copied()))
        } else {
            CowWeightedNeighbors::Live(self.live.out_neighbors_weighted(v))
        }
    }
}

impl<G: EdgeWeights + ?Sized> EdgeWeights for CowView<'_, G> {
    type WeightHandle<'b>
        = CowWeights<'b, G::WeightHandle<'b>>
    where
        Self: 'b;

    fn edge_weights(&self) -> Result<Self::WeightHandle<'_>> {
        if !self.saved.weighted {
            return Err(Error::missing("snapshot", Capability::Weights));
        }
        Ok(CowWeights {
            live: self.graph.edge_weights()?,
            saved: self.saved,
            maps: &self.maps,
        })
    }
}
