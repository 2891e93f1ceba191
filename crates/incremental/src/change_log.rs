//! What the batches applied to a store changed, as the store was told.

use dyngraph_core::{Edge, EdgeSource, VertexId};

/// The edges the batches applied since the last update inserted and
/// deleted, in the order they were told.
///
/// A maintained kernel is told about each batch the store applied (the
/// inserted edges and the deleted ones, as handed to the store's batch
/// calls) and reads the store itself wherever the difference matters: a
/// delete of an edge that is not there removes nothing, a simple-graph
/// insert of an edge that is there adds nothing, and an edge inserted and
/// deleted again within the log may or may not be in the store at the end.
/// So the log keeps only the endpoints, never weights (a kernel that needs
/// a weight reads the stored one) and never whether an update took effect.
///
/// One log may serve several maintained kernels
/// ([`crate::Maintained::update_with`]); a [`crate::Maintained`] also keeps
/// its own. With a limit ([`ChangeLog::with_limit`]), a log that grows past
/// it drops its edges and remembers only that it overflowed: the next
/// update then recomputes from scratch, which a batch that large costs
/// anyway, instead of holding an unbounded list.
///
/// ```
/// use dyngraph_core::Edge;
/// use dyngraph_incremental::ChangeLog;
///
/// let mut log = ChangeLog::new();
/// log.record_batch(&[Edge::new(0, 1), Edge::new(1, 2)], &[Edge::new(2, 0)]);
/// log.record_batch(&[Edge::new(3, 0)], &[] as &[Edge]);
/// assert_eq!((log.inserted().len(), log.deleted().len(), log.batches()), (3, 1, 2));
/// assert_eq!(log.max_vertex(), Some(3));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeLog {
    inserted: Vec<Edge>,
    deleted: Vec<Edge>,
    batches: usize,
    max_vertex: Option<VertexId>,
    limit: Option<usize>,
    overflowed: bool,
    inserted_told: u64,
    deleted_told: u64,
}

impl ChangeLog {
    /// An empty log without a limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty log that keeps at most `limit` edges (inserted and deleted
    /// together); past it, it overflows (see the type's docs).
    pub fn with_limit(limit: usize) -> Self {
        Self {
            limit: Some(limit),
            ..Self::default()
        }
    }

    /// Sets or clears the limit; a log already past the new limit
    /// overflows now.
    pub fn set_limit(&mut self, limit: Option<usize>) {
        self.limit = limit;
        self.check_limit();
    }

    /// Records one applied batch: the edges handed to the store's insert
    /// call and those handed to its delete call.
    pub fn record_batch<I, D>(&mut self, inserted: &I, deleted: &D)
    where
        I: EdgeSource + ?Sized,
        D: EdgeSource + ?Sized,
    {
        self.record_inserted(inserted);
        self.record_deleted(deleted);
        self.end_batch();
    }

    /// Records edges handed to the store's insert call (part of a batch
    /// that [`ChangeLog::end_batch`] closes).
    pub fn record_inserted<I: EdgeSource + ?Sized>(&mut self, inserted: &I) {
        Self::append(
            inserted,
            &mut self.inserted,
            &mut self.max_vertex,
            self.overflowed,
        );
        self.inserted_told += inserted.len() as u64;
        self.check_limit();
    }

    /// Records edges handed to the store's delete call (part of a batch
    /// that [`ChangeLog::end_batch`] closes).
    pub fn record_deleted<D: EdgeSource + ?Sized>(&mut self, deleted: &D) {
        Self::append(
            deleted,
            &mut self.deleted,
            &mut self.max_vertex,
            self.overflowed,
        );
        self.deleted_told += deleted.len() as u64;
        self.check_limit();
    }

    /// Records one edge handed to the store's single-edge insert.
    pub fn record_insert(&mut self, src: VertexId, dst: VertexId) {
        self.record_inserted(&[Edge::new(src, dst)]);
    }

    /// Records one edge handed to the store's single-edge delete.
    pub fn record_delete(&mut self, src: VertexId, dst: VertexId) {
        self.record_deleted(&[Edge::new(src, dst)]);
    }

    /// Closes a batch recorded in parts (counted in [`ChangeLog::batches`]).
    pub fn end_batch(&mut self) {
        self.batches += 1;
    }

    fn append<S: EdgeSource + ?Sized>(
        source: &S,
        into: &mut Vec<Edge>,
        max_vertex: &mut Option<VertexId>,
        overflowed: bool,
    ) {
        let mut max = *max_vertex;
        if overflowed {
            source.for_each_in(0..source.len(), |s, d, _| {
                max = Some(max.unwrap_or(0).max(s).max(d));
            });
        } else {
            into.reserve(source.len());
            source.for_each_in(0..source.len(), |s, d, _| {
                max = Some(max.unwrap_or(0).max(s).max(d));
                into.push(Edge::new(s, d));
            });
        }
        *max_vertex = max;
    }

    fn check_limit(&mut self) {
        if let Some(limit) = self.limit
            && !self.overflowed
            && self.inserted.len() + self.deleted.len() > limit
        {
            self.overflowed = true;
            self.inserted = Vec::new();
            self.deleted = Vec::new();
        }
    }

    /// The inserted edges, in order (empty once overflowed).
    pub fn inserted(&self) -> &[Edge] {
        &self.inserted
    }

    /// The deleted edges, in order (empty once overflowed).
    pub fn deleted(&self) -> &[Edge] {
        &self.deleted
    }

    /// Batches recorded.
    pub fn batches(&self) -> usize {
        self.batches
    }

    /// Edges told, inserted and deleted, overflowed or not.
    pub fn edges_told(&self) -> u64 {
        self.inserted_told + self.deleted_told
    }

    /// Edges told inserted, overflowed or not.
    pub fn inserted_told(&self) -> u64 {
        self.inserted_told
    }

    /// Edges told deleted, overflowed or not.
    pub fn deleted_told(&self) -> u64 {
        self.deleted_told
    }

    /// The largest vertex id told (kept after an overflow too).
    pub fn max_vertex(&self) -> Option<VertexId> {
        self.max_vertex
    }

    /// Whether the log passed its limit and dropped its edges.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Whether nothing was told since the last clear.
    pub fn is_empty(&self) -> bool {
        self.edges_told() == 0
    }

    /// Forgets everything told, keeping the limit and the memory.
    pub fn clear(&mut self) {
        self.inserted.clear();
        self.deleted.clear();
        self.batches = 0;
        self.max_vertex = None;
        self.overflowed = false;
        self.inserted_told = 0;
        self.deleted_told = 0;
    }

    /// Appends everything `other` was told, after this log's own.
    pub fn extend(&mut self, other: &ChangeLog) {
        self.batches += other.batches;
        self.inserted_told += other.inserted_told;
        self.deleted_told += other.deleted_told;
        self.max_vertex = match (self.max_vertex, other.max_vertex) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        if other.overflowed {
            self.overflowed = true;
            self.inserted = Vec::new();
            self.deleted = Vec::new();
        } else if !self.overflowed {
            self.inserted.extend_from_slice(&other.inserted);
            self.deleted.extend_from_slice(&other.deleted);
        }
        self.check_limit();
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        (self.inserted.capacity() + self.deleted.capacity()) * std::mem::size_of::<Edge>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyngraph_core::{EdgeChunk, WeightedEdge};

    #[test]
    fn records_every_source_kind_and_single_edges() {
        let mut log = ChangeLog::new();
        let (src, dst) = ([4u32, 5], [6u32, 7]);
        log.record_inserted(&EdgeChunk::new(&src, &dst, None).unwrap());
        log.record_deleted(&[WeightedEdge::new(1, 2, 9.0)]);
        log.end_batch();
        log.record_insert(8, 0);
        log.record_delete(0, 8);
        log.end_batch();
        assert_eq!(
            log.inserted(),
            [Edge::new(4, 6), Edge::new(5, 7), Edge::new(8, 0)]
        );
        assert_eq!(log.deleted(), [Edge::new(1, 2), Edge::new(0, 8)]);
        assert_eq!(
            (log.batches(), log.edges_told(), log.max_vertex()),
            (2, 5, Some(8))
        );
        log.clear();
        assert!(log.is_empty() && log.max_vertex().is_none());
    }

    #[test]
    fn a_log_past_its_limit_keeps_only_the_count() {
        let mut log = ChangeLog::with_limit(2);
        log.record_batch(&[Edge::new(0, 1)], &[Edge::new(1, 0)]);
        assert!(!log.overflowed());
        log.record_batch(&[Edge::new(0, 9)], &[] as &[Edge]);
        assert!(log.overflowed());
        assert!(log.inserted().is_empty() && log.deleted().is_empty());
        assert_eq!((log.edges_told(), log.max_vertex()), (3, Some(9)));
        let mut other = ChangeLog::new();
        other.record_batch(&[Edge::new(2, 3)], &[] as &[Edge]);
        other.extend(&log);
        assert!(other.overflowed() && other.batches() == 3);
        let mut unlimited = ChangeLog::new();
        unlimited.record_batch(&[Edge::new(0, 1), Edge::new(1, 2)], &[] as &[Edge]);
        unlimited.set_limit(Some(1));
        assert!(unlimited.overflowed());
    }
}
