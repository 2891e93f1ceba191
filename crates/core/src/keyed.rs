//! [`Keyed`]: any store, held by its users' own ids (its docs say how).

use crate::ids::{IdKey, IdKind, IdMap, OriginalId};
use crate::source::{EdgeChunk, EdgeSource};
use crate::store::{FromEdges, Snapshots};
use crate::traits::{EdgeWeights, Graph, GraphUpdate, InEdges, OutNeighbors};
use crate::{Edge, Error, Result, Semantics, UpdateReport, VertexId, Weight};
use rayon::prelude::*;
use std::cmp::Ordering;

/// Any store, held by its users' own ids.
///
/// A store numbers its vertices `0..n`; people name theirs by user ids,
/// account numbers, URLs. `Keyed<S>` pairs a store with a growing
/// [`IdMap`] and takes and gives keys: edges are inserted and deleted by
/// key (one at a time or in batches), a key never seen before becomes a new
/// vertex at once, and results come back by key ([`Keyed::by_key`]).
/// Reads, kernels and snapshots go to the store as they are: `Keyed<S>`
/// implements the read traits and [`Snapshots`] by passing them on, so a
/// kernel runs on it directly and its per-vertex result is then read by
/// key.
///
/// Every vertex has a key: the store's vertex count equals the map's
/// length after every call (checked on [`Keyed::new`]). Keys are only ever
/// appended, so vertex ids already handed out (in a result, a snapshot)
/// keep naming the same keys.
///
/// # Cost model
///
/// On top of the store's own cost: a single insert looks up (and, when
/// new, appends) two keys, `O(log V)` or `O(1)` each (see [`IdMap`]); a
/// batch looks its keys up in parallel, appends the new ones serially in
/// key order, and hands the store one batch of vertex ids (two `u32`
/// columns, plus weights). Deleting looks keys up only: a key the map does
/// not hold has no edge to delete. Memory: the map (8 bytes per integer
/// key, the bytes plus 8 per string key, more for keys added out of order)
/// and a batch's vertex columns while it is applied.
///
/// ```
/// use dyngraph_core::testing::ReferenceGraph;
/// use dyngraph_core::{IdKind, IdMap, Keyed, OutNeighbors, Semantics};
///
/// // Any dynamic store of the contract (the reference model here).
/// let store = ReferenceGraph::new(Semantics::Multigraph);
/// let mut g = Keyed::new(store, IdMap::new(IdKind::Strings))?;
/// g.insert_edges(&[("alice", "bob"), ("bob", "carol")])?;
/// g.insert_edge("carol", "dave")?; // a new key, a new vertex
/// assert!(g.delete_edge("alice", "bob")?);
/// assert!(!g.delete_edge("alice", "zoe")?); // an unknown key has no edges
///
/// let bob = g.vertex("bob").unwrap();
/// let named: Vec<String> = g
///     .out_neighbors(bob)
///     .map(|v| g.key(v).unwrap().to_string())
///     .collect();
/// assert_eq!(named, ["carol"]);
///
/// // A per-vertex result (a degree here; PageRank scores alike) by key.
/// let degrees: Vec<u64> = (0..g.ids().len() as u32).map(|v| g.out_degree(v)).collect();
/// let by_key = g.by_key(&degrees);
/// assert_eq!(by_key.get("carol"), Some(&1));
/// assert_eq!(by_key.top(1)[0].0.to_string(), "bob");
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Keyed<S> {
    store: S,
    ids: IdMap,
}

impl<S: Graph> Keyed<S> {
    /// `store`, its vertex `v` named by `ids.original(v)`.
    ///
    /// # Errors
    /// [`Error::InvalidStructure`] unless `ids` names exactly the store's
    /// vertices.
    pub fn new(store: S, ids: IdMap) -> Result<Self> {
        if ids.len() != store.vertex_count() {
            return Err(Error::InvalidStructure(format!(
                "{} keys for a store of {} vertices: every vertex needs one key",
                ids.len(),
                store.vertex_count()
            )));
        }
        Ok(Keyed { store, ids })
    }

    /// `store`, recovered past its keys: vertices `0..ids.len()` named by
    /// `ids`, and any vertices after them (created by updates whose keys
    /// were never saved, such as a durable store's after a crash) isolated
    /// and unnamed until the next new keys take them, in order.
    ///
    /// # Errors
    /// [`Error::InvalidStructure`] if `ids` names more vertices than the
    /// store has, or an unnamed vertex has an edge.
    pub fn resume(store: S, ids: IdMap) -> Result<Self>
    where
        S: OutNeighbors,
    {
        let named = ids.len();
        if named > store.vertex_count() {
            return Self::new(store, ids);
        }
        if let Some(v) = (named..store.vertex_count())
            .map(|v| v as VertexId)
            .find(|&v| store.out_degree(v) > 0)
        {
            return Err(Error::InvalidStructure(format!(
                "vertex {v} has edges but no key ({named} keys for {} vertices)",
                store.vertex_count()
            )));
        }
        Ok(Keyed { store, ids })
    }

    /// The store, for anything read by vertex id.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Runs `work` on the store and the keys together: for an operation of
    /// the store's own that must see both (a durable store writing its keys
    /// before its edges). `work` must not add or remove vertices.
    ///
    /// # Errors
    /// `work`'s; [`Error::InvalidStructure`] if it changed the store's
    /// vertex count (the graph is then unusable by key: rebuild it from
    /// [`Keyed::into_parts`]).
    pub fn with_parts_mut<R>(
        &mut self,
        work: impl FnOnce(&mut S, &IdMap) -> Result<R>,
    ) -> Result<R> {
        let before = self.store.vertex_count();
        let result = work(&mut self.store, &self.ids)?;
        if self.store.vertex_count() != before {
            return Err(Error::InvalidStructure(format!(
                "an operation on the store and its keys changed its vertices ({before} -> {})",
                self.store.vertex_count()
            )));
        }
        Ok(result)
    }

    /// The keys, vertex `v` being `ids().original(v)`.
    pub fn ids(&self) -> &IdMap {
        &self.ids
    }

    /// The store and its keys.
    pub fn into_parts(self) -> (S, IdMap) {
        (self.store, self.ids)
    }

    /// The key of vertex `v`, or `None` for a vertex the graph lacks.
    pub fn key(&self, v: VertexId) -> Option<OriginalId<'_>> {
        self.ids.get(v)
    }

    /// The vertex of `key`, or `None` for a key never inserted.
    pub fn vertex(&self, key: impl IdKey) -> Option<VertexId> {
        self.ids.vertex_of(key)
    }

    /// The vertex pairs of `edges` given by key, in order, leaving out a
    /// pair with a key the graph lacks: what a kernel maintained across
    /// batches (`dyngraph-incremental`'s `Maintained::record_batch`) is
    /// told, after [`Keyed::insert_edges`] (every key then has a vertex)
    /// or before [`Keyed::delete_edges`] (unknown pairs delete nothing).
    ///
    /// ```
    /// use dyngraph_core::{CsrRebuild, Edge, IdKind, Keyed, StoreOptions};
    /// let mut graph: Keyed<CsrRebuild> = Keyed::with_kind(IdKind::Strings, StoreOptions::default())?;
    /// let batch = [("alice", "bob"), ("bob", "carol")];
    /// graph.insert_edges(&batch)?;
    /// assert_eq!(graph.edges_of(&batch), [Edge::new(0, 1), Edge::new(1, 2)]);
    /// assert_eq!(graph.edges_of(&[("alice", "zoe")]), []);
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn edges_of<K: IdKey>(&self, edges: &[(K, K)]) -> Vec<Edge> {
        edges
            .iter()
            .filter_map(|(src, dst)| {
                Some(Edge::new(
                    self.ids.vertex_of(src)?,
                    self.ids.vertex_of(dst)?,
                ))
            })
            .collect()
    }

    /// A per-vertex result (`values[v]` for vertex `v`: PageRank scores,
    /// BFS depths, component labels, ...) read by key. A result computed
    /// before later keys arrived still reads right: keys keep their
    /// vertices.
    pub fn by_key<'a, T>(&'a self, values: &'a [T]) -> ByKey<'a, T> {
        ByKey {
            ids: &self.ids,
            values,
        }
    }
}

impl<S: FromEdges + Graph> Keyed<S> {
    /// Builds the store from `edges` with their keys: the source's
    /// [`EdgeSource::ids`] (a loaded file whose ids were relabelled), or
    /// else the vertex ids themselves as integer keys `0..n`.
    ///
    /// # Errors
    /// The store's build errors, and [`Error::InvalidStructure`] when the
    /// keys do not name exactly the built store's vertices.
    pub fn from_edges<E: EdgeSource + ?Sized>(edges: &E, options: S::Options) -> Result<Self> {
        let store = S::from_edges(edges, options)?;
        let ids = match edges.ids() {
            Some(ids) => ids.clone(),
            None => IdMap::from_integers((0..store.vertex_count() as u64).collect())?,
        };
        Self::new(store, ids)
    }

    /// An empty store taking keys of `kind`.
    ///
    /// # Errors
    /// The store's build errors.
    pub fn with_kind(kind: IdKind, options: S::Options) -> Result<Self> {
        let no_edges: &[Edge] = &[];
        Self::new(S::from_edges(no_edges, options)?, IdMap::new(kind))
    }
}

impl<S: GraphUpdate> Keyed<S> {
    /// Inserts `src -> dst`, giving a new key the next vertex; `Ok(true)`
    /// if an edge was added (as [`GraphUpdate::insert_edge`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a key of the other kind;
    /// [`Error::VertexLimit`] when new keys would take the store past its
    /// vertex limit; the store's errors. The graph and the keys are then
    /// as they were.
    pub fn insert_edge(&mut self, src: impl IdKey, dst: impl IdKey) -> Result<bool> {
        let pair = [src.as_original(), dst.as_original()];
        let before = self.ids.len();
        let v = self
            .ids
            .intern_with(2, |i| pair[i], self.store.vertex_limit())?;
        let result = self.store.insert_edge(v[0], v[1]);
        self.settle(before, result)
    }

    /// [`Keyed::insert_edge`] with a weight (dropped by a store built
    /// without weights).
    ///
    /// # Errors
    /// As [`Keyed::insert_edge`].
    pub fn insert_weighted_edge(
        &mut self,
        src: impl IdKey,
        dst: impl IdKey,
        weight: Weight,
    ) -> Result<bool> {
        let pair = [src.as_original(), dst.as_original()];
        let before = self.ids.len();
        let v = self
            .ids
            .intern_with(2, |i| pair[i], self.store.vertex_limit())?;
        let result = self.store.insert_weighted_edge(v[0], v[1], weight);
        self.settle(before, result)
    }

    /// Deletes one `src -> dst` (as [`GraphUpdate::delete_edge`]);
    /// `Ok(false)` when there is none, an unknown key included.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a key of the other kind; the store's
    /// errors.
    pub fn delete_edge(&mut self, src: impl IdKey, dst: impl IdKey) -> Result<bool> {
        let (src, dst) = (src.as_original(), dst.as_original());
        self.ids.check_kind(src)?;
        self.ids.check_kind(dst)?;
        match (self.ids.vertex_of(src), self.ids.vertex_of(dst)) {
            (Some(s), Some(d)) => self.store.delete_edge(s, d),
            _ => Ok(false),
        }
    }

    /// Inserts a batch of `(src, dst)` keys, in order; new keys get the
    /// next vertices in key order (see [`IdMap::intern_all`]).
    ///
    /// # Errors
    /// As [`Keyed::insert_edge`], for the whole batch: on an error nothing
    /// of it is kept.
    pub fn insert_edges<K: IdKey>(&mut self, edges: &[(K, K)]) -> Result<UpdateReport> {
        let key_at = |i: usize| endpoint(&edges[i / 2].0, &edges[i / 2].1, i);
        self.insert_batch(edges.len(), key_at, None)
    }

    /// Inserts a batch of `(src, dst, weight)`, as
    /// [`Keyed::insert_edges`].
    ///
    /// # Errors
    /// As [`Keyed::insert_edges`].
    pub fn insert_weighted_edges<K: IdKey>(
        &mut self,
        edges: &[(K, K, Weight)],
    ) -> Result<UpdateReport> {
        let key_at = |i: usize| endpoint(&edges[i / 2].0, &edges[i / 2].1, i);
        let weights: Vec<Weight> = edges.par_iter().map(|e| e.2).collect();
        self.insert_batch(edges.len(), key_at, Some(&weights))
    }

    /// Interns the `2 * count` keys of a batch (source, destination, ...)
    /// and inserts the edges.
    fn insert_batch<'k>(
        &mut self,
        count: usize,
        key_at: impl Fn(usize) -> OriginalId<'k> + Sync,
        weights: Option<&[Weight]>,
    ) -> Result<UpdateReport> {
        let before = self.ids.len();
        let vertices = self
            .ids
            .intern_with(2 * count, key_at, self.store.vertex_limit())?;
        let (src, dst): (Vec<VertexId>, Vec<VertexId>) = vertices
            .par_chunks(2)
            .map(|pair| (pair[0], pair[1]))
            .unzip();
        let batch = EdgeChunk {
            src: &src,
            dst: &dst,
            weights,
        };
        let result = self.store.insert_edges(&batch);
        self.settle(before, result)
    }

    /// Deletes a batch of `(src, dst)` keys, in order, each removing at
    /// most one edge; pairs with an unknown key remove nothing.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a key of the other kind (before
    /// anything is deleted); the store's errors.
    pub fn delete_edges<K: IdKey>(&mut self, edges: &[(K, K)]) -> Result<UpdateReport> {
        if let Some((src, dst)) = edges.par_iter().find_first(|(src, dst)| {
            src.as_original().kind() != self.ids.kind()
                || dst.as_original().kind() != self.ids.kind()
        }) {
            self.ids.check_kind(src.as_original())?;
            self.ids.check_kind(dst.as_original())?;
        }
        let known: Vec<(VertexId, VertexId)> = edges
            .par_iter()
            .filter_map(|(src, dst)| Some((self.ids.vertex_of(src)?, self.ids.vertex_of(dst)?)))
            .collect();
        self.store.delete_edges(&known[..])
    }

    /// The vertex of `key`, adding it as an isolated vertex when it is new.
    ///
    /// # Errors
    /// As [`Keyed::insert_edge`].
    pub fn add_key(&mut self, key: impl IdKey) -> Result<VertexId> {
        let key = [key.as_original()];
        let before = self.ids.len();
        let v = self
            .ids
            .intern_with(1, |i| key[i], self.store.vertex_limit())?;
        self.settle(before, Ok(v[0]))
    }

    /// Ends a batch of updates ([`GraphUpdate::end_batch`]).
    ///
    /// # Errors
    /// The store's.
    pub fn end_batch(&mut self) -> Result<()> {
        self.store.end_batch()
    }

    /// After an update that appended keys from `before` on: on success,
    /// gives the store a vertex for every key (those that came with edges
    /// have one already); on failure, forgets the keys the store did not
    /// take.
    fn settle<T>(&mut self, before: usize, result: Result<T>) -> Result<T> {
        match result {
            Ok(value) => {
                let missing = self.ids.len().saturating_sub(self.store.vertex_count());
                if missing > 0
                    && let Err(error) = self.store.add_vertices(missing)
                {
                    self.ids.truncate(self.store.vertex_count().max(before));
                    return Err(error);
                }
                Ok(value)
            }
            Err(error) => {
                self.ids.truncate(self.store.vertex_count().max(before));
                Err(error)
            }
        }
    }
}

/// Key `i` of a batch laid out as source, destination, source, ...: the
/// source of pair `i / 2` for even `i`, else its destination.
fn endpoint<'k, K: IdKey>(src: &'k K, dst: &'k K, i: usize) -> OriginalId<'k> {
    if i.is_multiple_of(2) {
        src.as_original()
    } else {
        dst.as_original()
    }
}

/// A per-vertex result read by key: see [`Keyed::by_key`].
#[derive(Clone, Copy, Debug)]
pub struct ByKey<'a, T> {
    ids: &'a IdMap,
    values: &'a [T],
}

impl<'a, T> ByKey<'a, T> {
    /// The value of `key`'s vertex, or `None` for an unknown key (or one
    /// that came after the result was computed).
    pub fn get(&self, key: impl IdKey) -> Option<&'a T> {
        self.values.get(self.ids.vertex_of(key)? as usize)
    }

    /// Every `(key, value)` in vertex order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (OriginalId<'a>, &'a T)> + 'a {
        let ids = self.ids;
        let count = self.values.len().min(ids.len());
        self.values[..count]
            .iter()
            .enumerate()
            .map(move |(v, value)| (ids.original(v as VertexId), value))
    }

    /// The `k` largest values with their keys, largest first (ties by
    /// vertex; values that compare with nothing, such as NaN, last): the
    /// top-ranked vertices of a PageRank, by key.
    pub fn top(&self, k: usize) -> Vec<(OriginalId<'a>, T)>
    where
        T: PartialOrd + Copy,
    {
        let count = self.values.len().min(self.ids.len());
        let values = &self.values[..count];
        // Descending, comparable values before the rest, then by vertex.
        let order = |&a: &usize, &b: &usize| {
            let (x, y) = (&values[a], &values[b]);
            let comparable = |z: &T| z.partial_cmp(z).is_some();
            comparable(y)
                .cmp(&comparable(x))
                .then_with(|| y.partial_cmp(x).unwrap_or(Ordering::Equal))
                .then(a.cmp(&b))
        };
        let mut vertices: Vec<usize> = (0..count).collect();
        let k = k.min(count);
        if k < count {
            vertices.select_nth_unstable_by(k, order);
            vertices.truncate(k);
        }
        vertices.sort_unstable_by(order);
        vertices
            .into_iter()
            .map(|v| (self.ids.original(v as VertexId), values[v]))
            .collect()
    }
}

// Reads pass through to the store, so kernels and snapshots run on a
// `Keyed` store as on the store itself.

impl<S: Graph> Graph for Keyed<S> {
    #[inline]
    fn vertex_count(&self) -> usize {
        self.store.vertex_count()
    }

    #[inline]
    fn edge_count(&self) -> u64 {
        self.store.edge_count()
    }

    #[inline]
    fn semantics(&self) -> Semantics {
        self.store.semantics()
    }
}

impl<S: OutNeighbors> OutNeighbors for Keyed<S> {
    type OutIter<'a>
        = S::OutIter<'a>
    where
        Self: 'a;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        self.store.out_degree(v)
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> Self::OutIter<'_> {
        self.store.out_neighbors(v)
    }
}

impl<S: InEdges> InEdges for Keyed<S> {
    type InHandle<'a>
        = S::InHandle<'a>
    where
        Self: 'a;

    #[inline]
    fn in_edges(&self) -> Result<Self::InHandle<'_>> {
        self.store.in_edges()
    }
}

impl<S: EdgeWeights> EdgeWeights for Keyed<S> {
    type WeightHandle<'a>
        = S::WeightHandle<'a>
    where
        Self: 'a;

    #[inline]
    fn edge_weights(&self) -> Result<Self::WeightHandle<'_>> {
        self.store.edge_weights()
    }
}

impl<S: Snapshots> Snapshots for Keyed<S> {
    type Snapshot = S::Snapshot;
    type View<'a>
        = S::View<'a>
    where
        Self: 'a;

    fn snapshot(&self) -> Self::Snapshot {
        self.store.snapshot()
    }

    fn view<'a>(&'a self, snapshot: &'a Self::Snapshot) -> Result<Self::View<'a>> {
        self.store.view(snapshot)
    }
}

#[cfg(test)]
mod tests;
