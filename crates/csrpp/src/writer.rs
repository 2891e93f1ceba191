//! Concurrent single-edge updates: the update phase of a [`CsrPP`].

use crate::alloc::EdgeAllocator;
use crate::options::CsrPPOptions;
use crate::segment::{Editor, Segment, SegmentData};
use crate::snapshot::SegmentSnapshots;
use crate::store::{CsrPP, VertexPropertyId, grow_segments};
use crossbeam::sync::{ShardedLock, ShardedLockReadGuard};
use dyngraph_core::{Error, Result, Semantics, VertexId, Weight, check_limit};
use parking_lot::MutexGuard;

/// The segment directory while a writer is alive: the only part of the
/// store that changes shape (when an update names a new vertex).
struct Directory<'a> {
    segments: &'a mut Vec<Segment>,
    vertex_count: &'a mut usize,
}

/// A handle for updating a [`CsrPP`] from many threads at once.
///
/// Obtained with [`CsrPP::concurrent_writer`], which borrows the store
/// mutably: while a writer lives, nothing can read the store, and dropping
/// the writer ends the update phase (it then publishes the new edge count).
/// This is the paper's "scans do not run concurrently with updates",
/// enforced by the borrow checker rather than by convention:
///
/// ```compile_fail
/// use dyngraph_core::Graph;
/// use dyngraph_csrpp::{CsrPP, CsrPPOptions};
/// let mut graph = CsrPP::new(CsrPPOptions::default()).unwrap();
/// let writer = graph.concurrent_writer();
/// writer.insert_edge(0, 1).unwrap();
/// let _ = graph.edge_count(); // error: `graph` is borrowed by `writer`
/// writer.insert_edge(1, 2).unwrap();
/// ```
///
/// # Cost model
/// An update takes the directory's reader-sharded read lock (only its own
/// thread's shard is touched; the write lock only
/// when the graph must grow), then the source segment's mutex, and does
/// the serial edit (`O(log d + d)`). With in-edges it takes the source
/// and target segments' mutexes in index order (no deadlock) and edits both
/// lists under them, so an edge and its in-entry change atomically.
/// Threads updating different segments never wait for each other.
///
/// # Snapshots
/// Snapshots taken before the writer stay exact: before an update changes
/// a segment's lists, the writer lets the live snapshots copy the segment
/// under its lock (the source's segment for the out-list, the target's
/// for the in-list), so no other thread changes or copies it meanwhile.
/// With no snapshot alive this costs one atomic load per update; while one
/// is, the first change of each segment copies it, and each update reads
/// the registry's list of snapshots (a shared read lock).
///
/// ```
/// use dyngraph_core::{FromEdges, Graph, OutNeighbors, Snapshots};
/// use dyngraph_csrpp::{CsrPP, CsrPPOptions};
///
/// let mut graph = CsrPP::from_edges(&[(0, 1)], CsrPPOptions::default())?;
/// let before = graph.snapshot();
/// {
///     let writer = graph.concurrent_writer();
///     std::thread::scope(|scope| {
///         for t in 0..2u32 {
///             let writer = &writer;
///             scope.spawn(move || writer.insert_edge(0, 2 + t).unwrap());
///         }
///     });
/// }
/// assert_eq!(graph.out_neighbors(0).collect::<Vec<_>>(), [1, 2, 3]);
/// assert_eq!(graph.view(&before)?.out_neighbors(0).collect::<Vec<_>>(), [1]);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
///
/// ```
/// use dyngraph_core::{Graph, OutNeighbors};
/// use dyngraph_csrpp::{CsrPP, CsrPPOptions};
///
/// let mut graph = CsrPP::new(CsrPPOptions::default())?;
/// {
///     let writer = graph.concurrent_writer();
///     std::thread::scope(|scope| {
///         for t in 0..4u32 {
///             let writer = &writer;
///             scope.spawn(move || {
///                 for i in 0..100 {
///                     writer.insert_edge(t, i).unwrap();
///                 }
///             });
///         }
///     });
/// } // the writer is dropped: scans may start
/// assert_eq!(graph.edge_count(), 400);
/// assert_eq!(graph.out_degree(3), 100);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub struct ConcurrentWriter<'a> {
    /// Reader-sharded: every update takes a read lock, and a plain
    /// reader/writer lock would bounce one cache line between all updating
    /// threads; `ShardedLock` readers touch only their own shard.
    directory: ShardedLock<Directory<'a>>,
    options: &'a CsrPPOptions,
    allocator: &'a EdgeAllocator,
    snapshots: &'a SegmentSnapshots,
    property_defaults: &'a [f64],
    edge_count: &'a mut u64,
    deleted_vertices: &'a mut u64,
    shift: u32,
    /// Whether any vertex was flagged deleted when the writer started; if
    /// not, inserts need not visit the target's segment to clear a flag.
    any_deleted: bool,
}

impl std::fmt::Debug for ConcurrentWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConcurrentWriter")
            .field("options", self.options)
            .finish_non_exhaustive()
    }
}

/// The locks an update holds: the source segment's and, when different,
/// the target segment's.
struct Locked<'g> {
    source: MutexGuard<'g, SegmentData>,
    target: Option<MutexGuard<'g, SegmentData>>,
}

impl Locked<'_> {
    fn target(&mut self) -> &mut SegmentData {
        match &mut self.target {
            Some(target) => target,
            None => &mut self.source,
        }
    }
}

impl CsrPP {
    /// Starts an update phase in which many threads may insert and delete
    /// edges at once (see [`ConcurrentWriter`]).
    pub fn concurrent_writer(&mut self) -> ConcurrentWriter<'_> {
        ConcurrentWriter {
            any_deleted: self.deleted_vertices > 0,
            directory: ShardedLock::new(Directory {
                segments: &mut self.segments,
                vertex_count: &mut self.vertex_count,
            }),
            options: &self.options,
            allocator: &self.allocator,
            snapshots: &self.snapshots,
            property_defaults: &self.property_defaults,
            edge_count: &mut self.edge_count,
            deleted_vertices: &mut self.deleted_vertices,
            shift: self.shift,
        }
    }
}

impl<'a> ConcurrentWriter<'a> {
    fn locate(&self, v: VertexId) -> (usize, usize) {
        let v = v as usize;
        (v >> self.shift, v & ((1 << self.shift) - 1))
    }

    fn editor(&self) -> Editor<'a> {
        Editor {
            allocator: self.allocator,
            delete_mode: self.options.delete_mode,
        }
    }

    fn read_directory(&self) -> ShardedLockReadGuard<'_, Directory<'a>> {
        self.directory.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The directory, grown first if it has fewer than `needed` vertices.
    fn directory_with(&self, needed: usize) -> ShardedLockReadGuard<'_, Directory<'a>> {
        {
            let directory = self.read_directory();
            if *directory.vertex_count >= needed {
                return directory;
            }
        }
        {
            // A panic while growing (out of memory) poisons the lock; the
            // directory is still consistent (segments are pushed whole).
            let mut directory = self.directory.write().unwrap_or_else(|e| e.into_inner());
            let Directory {
                segments,
                vertex_count,
            } = &mut *directory;
            grow_segments(
                segments,
                vertex_count,
                needed,
                self.options,
                self.property_defaults,
            );
        }
        self.read_directory()
    }

    /// Locks the segments of `s` and `t` in index order.
    fn lock_pair<'g>(directory: &'g Directory<'a>, s: usize, t: usize) -> Locked<'g> {
        let segments = &directory.segments;
        if s == t {
            Locked {
                source: segments[s].lock(),
                target: None,
            }
        } else if s < t {
            let source = segments[s].lock();
            let target = segments[t].lock();
            Locked {
                source,
                target: Some(target),
            }
        } else {
            let target = segments[t].lock();
            let source = segments[s].lock();
            Locked {
                source,
                target: Some(target),
            }
        }
    }

    /// Inserts `src -> dst` (weight 1.0 on a weighted store); `Ok(true)` if
    /// an edge was added. Semantics as [`dyngraph_core::GraphUpdate::insert_edge`].
    ///
    /// # Errors
    /// [`Error::VertexLimit`] for an id past the store's limit (nothing
    /// changes).
    pub fn insert_edge(&self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.insert_weighted_edge(src, dst, 1.0)
    }

    /// Inserts `src -> dst` with `weight` (dropped on an unweighted store).
    ///
    /// # Errors
    /// As [`ConcurrentWriter::insert_edge`].
    pub fn insert_weighted_edge(
        &self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) -> Result<bool> {
        check_limit(self.options.store.vertex_limit, [src, dst])?;
        let directory = self.directory_with(src.max(dst) as usize + 1);
        let (s, i) = self.locate(src);
        let (t, j) = self.locate(dst);
        let editor = self.editor();
        let semantics = self.options.store.semantics;
        // Whether the insert will add an edge, asked only while a snapshot
        // is alive (under the source's lock, so the answer holds).
        let adds = |source: &SegmentData| {
            semantics == Semantics::Multigraph || !source.out[i].contains_live(dst)
        };
        if self.options.store.in_edges {
            let mut locked = Self::lock_pair(&directory, s, t);
            if self.snapshots.is_active() && adds(&locked.source) {
                self.snapshots.before_change(s, &locked.source);
                self.snapshots.before_change(t, locked.target());
            }
            let source = &mut *locked.source;
            // SAFETY: the list lives in this writer's store, whose
            // allocator `editor` holds; the segment's lock is held.
            if !unsafe { source.insert_one(&editor, false, i, dst, weight, semantics) } {
                return Ok(false);
            }
            source.live_edges += 1;
            source.undelete(i);
            let target = locked.target();
            // SAFETY: as above, under the target segment's lock.
            unsafe { target.insert_one(&editor, true, j, src, 0.0, Semantics::Multigraph) };
            target.undelete(j);
        } else {
            {
                let mut source = directory.segments[s].lock();
                if self.snapshots.is_active() && adds(&source) {
                    self.snapshots.before_change(s, &source);
                }
                // SAFETY: as above.
                if !unsafe { source.insert_one(&editor, false, i, dst, weight, semantics) } {
                    return Ok(false);
                }
                source.live_edges += 1;
                source.undelete(i);
            }
            if self.any_deleted {
                directory.segments[t].lock().undelete(j);
            }
        }
        Ok(true)
    }

    /// Deletes one occurrence (the oldest) of `src -> dst`; `Ok(true)` if
    /// one was removed. Ids outside the graph remove nothing.
    ///
    /// # Errors
    /// None today; the `Result` matches [`dyngraph_core::GraphUpdate`].
    pub fn delete_edge(&self, src: VertexId, dst: VertexId) -> Result<bool> {
        let directory = self.read_directory();
        let vertex_count = *directory.vertex_count;
        if src as usize >= vertex_count || dst as usize >= vertex_count {
            return Ok(false);
        }
        let (s, i) = self.locate(src);
        let (t, j) = self.locate(dst);
        let editor = self.editor();
        if self.options.store.in_edges {
            let mut locked = Self::lock_pair(&directory, s, t);
            if self.snapshots.is_active() && locked.source.out[i].contains_live(dst) {
                self.snapshots.before_change(s, &locked.source);
                self.snapshots.before_change(t, locked.target());
            }
            let source = &mut *locked.source;
            // SAFETY: the list lives in this writer's store, whose
            // allocator `editor` holds; the segment's lock is held.
            if !unsafe { editor.delete_one(&mut source.out[i], dst) } {
                return Ok(false);
            }
            source.live_edges -= 1;
            let target = locked.target();
            // SAFETY: as above, under the target segment's lock.
            let found = unsafe { editor.delete_one(&mut target.incoming[j], src) };
            debug_assert!(found, "in-list of {dst} lacks {src}");
        } else {
            let mut source = directory.segments[s].lock();
            if self.snapshots.is_active() && source.out[i].contains_live(dst) {
                self.snapshots.before_change(s, &source);
            }
            // SAFETY: as above.
            if !unsafe { editor.delete_one(&mut source.out[i], dst) } {
                return Ok(false);
            }
            source.live_edges -= 1;
        }
        Ok(true)
    }

    /// Sets a vertex property under the vertex's segment lock.
    ///
    /// # Errors
    /// [`Error::VertexOutOfRange`] for a vertex outside the graph,
    /// [`Error::InvalidArgument`] for a property of another store.
    pub fn set_vertex_property(
        &self,
        property: VertexPropertyId,
        v: VertexId,
        value: f64,
    ) -> Result<()> {
        let directory = self.read_directory();
        if v as usize >= *directory.vertex_count {
            return Err(Error::VertexOutOfRange {
                vertex: v.into(),
                vertex_count: *directory.vertex_count as u64,
            });
        }
        if property.0 >= self.property_defaults.len() {
            return Err(Error::InvalidArgument(format!(
                "vertex property {} does not exist",
                property.0
            )));
        }
        let (s, i) = self.locate(v);
        directory.segments[s].lock().properties[property.0][i] = value;
        Ok(())
    }
}

impl Drop for ConcurrentWriter<'_> {
    /// Ends the update phase: the per-segment counters become the store's.
    fn drop(&mut self) {
        let directory = self.directory.get_mut().unwrap_or_else(|e| e.into_inner());
        let (mut edges, mut deleted) = (0, 0);
        for segment in directory.segments.iter_mut() {
            let data = segment.get_mut();
            edges += data.live_edges;
            deleted += data.deleted_vertices;
        }
        *self.edge_count = edges;
        *self.deleted_vertices = deleted;
    }
}
