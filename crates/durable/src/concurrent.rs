//! Several writer threads at once (DGAP §3.1.6): per-section locks.
//!
//! A [`ConcurrentWriter`] borrows the store mutably (nothing reads it while
//! the writer lives, as with CSR++'s writer) and lets any number of threads
//! insert and delete through `&self`:
//!
//! - The common updates — an edge into the free slot after its vertex's
//!   run, into its section's edge log, or a tombstone — take a shared lock
//!   on the store's shape (a reader-sharded lock: each thread touches its
//!   own shard) and the lock of the source's section (and, with in-edges,
//!   of the destination's in-edge section; out-edge locks before in-edge
//!   locks, so no two threads wait for each other in a cycle). Under them
//!   the thread writes the slot words and the vertex entry through atomic
//!   views of the mapped arrays, and appends the update's record to the
//!   write-ahead log before releasing the section: the log's order is then
//!   the order each vertex's list changed in, so a replay rebuilds the same
//!   lists.
//! - Whatever changes the shape — new vertices, a log merge or rebalance,
//!   growth, a rewrite, a checkpoint — takes the lock exclusively and runs
//!   the single-writer code. DGAP locks a rebalance's window section by
//!   section; here a rebalance stops every writer for its (short) duration,
//!   the degenerate window of all sections. Rebalances are rare next to
//!   inserts (one per thousands of edges on the measured graphs).
//!
//! Crash consistency is the single writer's: every record is logged before
//! its call returns, a commit acknowledges every record logged before it
//! (whichever thread logged it), and recovery replays the log in order.

use crate::DurableVcsr;
use crate::format::wal::Record;
use crate::format::{
    EDGES_HEADER_BYTES, LIVE, LOG_ENTRY_WORDS, LOG_HEADER_WORDS, Mark, TOMBSTONE, log_entry_check,
};
use crate::options::SyncPolicy;
use crate::side::{Side, VertexEntry};
use crate::stats::{Commit, DurableStats};
use crossbeam::sync::ShardedLock;
use dyngraph_core::{
    EdgeSource, Error, Result, Semantics, UpdateReport, VertexId, Weight, check_limit,
};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

/// [`VertexEntry`] as atomics: the same layout, field for field.
#[repr(C)]
struct AtomicEntry {
    start: AtomicU64,
    array_len: AtomicU32,
    live: AtomicU32,
    log_count: AtomicU32,
    log_head: AtomicU32,
}

const _: () = {
    assert!(std::mem::size_of::<AtomicEntry>() == std::mem::size_of::<VertexEntry>());
    assert!(std::mem::align_of::<AtomicEntry>() == std::mem::align_of::<VertexEntry>());
    assert!(std::mem::size_of::<AtomicBool>() == std::mem::size_of::<bool>());
};

/// Raw parts of one side, taken from the exclusively borrowed store after
/// every change of shape; read through atomics under the shared lock.
#[derive(Clone, Copy)]
struct SideParts {
    words: *const AtomicU32,
    words_len: usize,
    log: *const AtomicU32,
    log_len: usize,
    entries: *const AtomicEntry,
    vertices: usize,
    log_used: *const AtomicU32,
    log_fresh: *const AtomicBool,
    log_dirty: *const AtomicU64,
    sections: usize,
    edges_dirty: *const AtomicU64,
    edges_dirty_len: usize,
    log_file_dirty: *const AtomicU64,
    log_file_dirty_len: usize,
    stride: usize,
    vertices_per_section: usize,
    region_words: usize,
    log_capacity: usize,
    merge_at: u32,
    edge_log: bool,
    generation: u64,
    capacity: u64,
}

impl SideParts {
    /// Takes the parts of `side`.
    fn of(side: &mut Side) -> Self {
        let (edges_ptr, edges_len) = side.edges.raw_parts();
        let (log_ptr, log_len) = side.log.raw_parts();
        let slot_bytes = side.header.capacity as usize * side.stride * 4;
        debug_assert!(EDGES_HEADER_BYTES + slot_bytes <= edges_len);
        Self {
            // The slots start one header page in: a page-aligned offset of
            // a page-aligned mapping, so aligned for u32.
            words: edges_ptr.wrapping_add(EDGES_HEADER_BYTES).cast(),
            words_len: slot_bytes / 4,
            log: log_ptr.cast(),
            log_len: log_len / 4,
            entries: side.vertices.as_mut_ptr().cast(),
            vertices: side.vertices.len(),
            log_used: side.log_used.as_mut_ptr().cast(),
            log_fresh: side.log_fresh.as_mut_ptr().cast(),
            log_dirty: side.log_dirty.as_mut_ptr().cast(),
            sections: side.log_used.len(),
            edges_dirty: side.edges.dirty.as_mut_ptr().cast(),
            edges_dirty_len: side.edges.dirty.len(),
            log_file_dirty: side.log.dirty.as_mut_ptr().cast(),
            log_file_dirty_len: side.log.dirty.len(),
            stride: side.stride,
            vertices_per_section: side.layout.vertices_per_section,
            region_words: side.region_words(),
            log_capacity: side.log_entry_capacity(),
            merge_at: side.layout.merge_at,
            edge_log: side.layout.edge_log,
            generation: side.header.generation,
            capacity: side.header.capacity,
        }
    }
}

/// The atomic views of one side's arrays, alive while the shared lock is
/// held.
struct SideView<'g> {
    words: &'g [AtomicU32],
    log: &'g [AtomicU32],
    entries: &'g [AtomicEntry],
    log_used: &'g [AtomicU32],
    log_fresh: &'g [AtomicBool],
    log_dirty: &'g [AtomicU64],
    edges_dirty: &'g [AtomicU64],
    log_file_dirty: &'g [AtomicU64],
    parts: SideParts,
}

/// # Safety
///
/// `ptr` must point to `len` initialised values of `T`'s layout that no
/// one reads or writes other than through atomics while the slice lives.
unsafe fn atomics<'g, T>(ptr: *const T, len: usize) -> &'g [T] {
    if len == 0 {
        return &[];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { std::slice::from_raw_parts(ptr, len) }
}

impl<'g> SideView<'g> {
    /// # Safety
    ///
    /// `parts` must come from [`SideParts::of`] of the store this writer
    /// borrows, taken after its last change of shape, and the caller must
    /// hold the writer's shared lock for `'g` (so no one changes the shape
    /// or touches the arrays other than through these atomics meanwhile).
    unsafe fn new(parts: SideParts) -> Self {
        // SAFETY: the parts point into the store's mapping (page aligned,
        // at least `words_len`/`log_len` words long), its vertex array, its
        // section tables and its dirty bitmaps, all initialised, with the
        // layouts of the atomic types (`AtomicU32`/`AtomicU64`/`AtomicBool`
        // have those of `u32`/`u64`/`bool`, `AtomicEntry` that of
        // `VertexEntry`, checked above). The caller holds the shared lock:
        // the single-writer code, which uses plain accesses, runs only
        // under the exclusive lock, so while these views live every access
        // is atomic; and nothing reallocates or remaps them meanwhile.
        unsafe {
            Self {
                words: atomics(parts.words, parts.words_len),
                log: atomics(parts.log, parts.log_len),
                entries: atomics(parts.entries, parts.vertices),
                log_used: atomics(parts.log_used, parts.sections),
                log_fresh: atomics(parts.log_fresh, parts.sections),
                log_dirty: atomics(parts.log_dirty, parts.sections.div_ceil(64)),
                edges_dirty: atomics(parts.edges_dirty, parts.edges_dirty_len),
                log_file_dirty: atomics(parts.log_file_dirty, parts.log_file_dirty_len),
                parts,
            }
        }
    }

    fn section_of(&self, v: VertexId) -> usize {
        v as usize / self.parts.vertices_per_section
    }

    fn entry(&self, v: usize) -> VertexEntry {
        let e = &self.entries[v];
        VertexEntry {
            start: e.start.load(Relaxed),
            array_len: e.array_len.load(Relaxed),
            live: e.live.load(Relaxed),
            log_count: e.log_count.load(Relaxed),
            log_head: e.log_head.load(Relaxed),
        }
    }

    /// The slot after `v`'s run, if it is free (the next vertex's start
    /// moves only under the exclusive lock).
    fn free_slot(&self, v: usize, e: &VertexEntry) -> Option<u64> {
        if e.log_count != 0 {
            return None;
        }
        let slot = e.start + 1 + u64::from(e.array_len);
        let limit = self
            .entries
            .get(v + 1)
            .map_or(self.parts.capacity, |next| next.start.load(Relaxed));
        (slot < limit).then_some(slot)
    }

    fn log_entry_at(&self, section: usize, index: usize) -> usize {
        section * self.parts.region_words + LOG_HEADER_WORDS + index * LOG_ENTRY_WORDS
    }

    /// Whether an edge of `v` can be placed without changing the shape.
    fn has_room(&self, v: VertexId) -> bool {
        let e = self.entry(v as usize);
        self.free_slot(v as usize, &e).is_some()
            || (self.parts.edge_log
                && (self.log_used[self.section_of(v)].load(Relaxed) as usize)
                    < self.parts.log_capacity)
    }

    fn mark(bits: &[AtomicU64], offset: usize, len: usize) {
        for page in offset / 4096..=(offset + len - 1) / 4096 {
            let (word, bit) = (&bits[page / 64], 1u64 << (page % 64));
            if word.load(Relaxed) & bit == 0 {
                word.fetch_or(bit, Relaxed);
            }
        }
    }

    fn touch(&self, section: usize) {
        let (word, bit) = (&self.log_dirty[section / 64], 1u64 << (section % 64));
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    fn write_log(&self, at: usize, values: &[u32], stats: &mut DurableStats) {
        for (i, &v) in values.iter().enumerate() {
            self.log[at + i].store(v, Relaxed);
        }
        Self::mark(self.log_file_dirty, at * 4, values.len() * 4);
        stats.log_bytes_written += values.len() as u64 * 4;
    }

    /// Places `v -> dst` (the caller checked [`SideView::has_room`] under
    /// the section lock); returns whether the section's log is due for a
    /// merge.
    fn place(
        &self,
        v: VertexId,
        dst: VertexId,
        weight_bits: u32,
        stats: &mut DurableStats,
    ) -> bool {
        let u = v as usize;
        let e = self.entry(u);
        let stride = self.parts.stride;
        if let Some(slot) = self.free_slot(u, &e) {
            let at = slot as usize * stride;
            if stride == 2 {
                self.words[at + 1].store(weight_bits, Relaxed);
            }
            self.words[at].store(LIVE | dst, Relaxed);
            Self::mark(self.edges_dirty, EDGES_HEADER_BYTES + at * 4, stride * 4);
            self.entries[u].array_len.store(e.array_len + 1, Relaxed);
            self.entries[u].live.store(e.live + 1, Relaxed);
            stats.in_place_inserts += 1;
            stats.array_bytes_written += 4 * stride as u64;
            return false;
        }
        let section = self.section_of(v);
        if !self.log_fresh[section].load(Relaxed) {
            let base = section * self.parts.region_words;
            let zeros = vec![0u32; self.parts.region_words];
            self.write_log(base, &zeros, stats);
            self.log_fresh[section].store(true, Relaxed);
            self.log_used[section].store(0, Relaxed);
        }
        let index = self.log_used[section].load(Relaxed) as usize;
        let prev = e.log_head as u16;
        let dst_word = LIVE | dst;
        let check = log_entry_check(
            section,
            index,
            self.parts.generation,
            v,
            dst_word,
            weight_bits,
            prev,
        );
        let at = self.log_entry_at(section, index);
        self.write_log(
            at,
            &[
                v,
                dst_word,
                weight_bits,
                u32::from(prev) | (u32::from(check) << 16),
            ],
            stats,
        );
        self.log_used[section].store(index as u32 + 1, Relaxed);
        self.touch(section);
        self.entries[u].log_count.store(e.log_count + 1, Relaxed);
        self.entries[u].log_head.store(index as u32 + 1, Relaxed);
        self.entries[u].live.store(e.live + 1, Relaxed);
        stats.log_appends += 1;
        index as u32 + 1 >= self.parts.merge_at
    }

    /// Word offsets of `v`'s log entries, oldest first.
    fn chain(&self, v: VertexId, e: &VertexEntry) -> Vec<usize> {
        let section = self.section_of(v);
        let mut chain = Vec::with_capacity(e.log_count as usize);
        let mut next = e.log_head;
        while next != 0 && chain.len() < e.log_count as usize {
            let at = self.log_entry_at(section, next as usize - 1);
            chain.push(at);
            next = self.log[at + 3].load(Relaxed) & 0xFFFF;
        }
        chain.reverse();
        chain
    }

    /// Whether `v -> dst` is live.
    fn has_edge(&self, v: VertexId, dst: VertexId) -> bool {
        self.find(v, dst).is_some()
    }

    /// The oldest live `v -> dst`: `Ok(slot)` in the array or `Err(word
    /// offset)` in the log.
    fn find(&self, v: VertexId, dst: VertexId) -> Option<std::result::Result<u64, usize>> {
        let e = self.entry(v as usize);
        let target = LIVE | dst;
        let stride = self.parts.stride;
        for i in 0..u64::from(e.array_len) {
            let slot = e.start + 1 + i;
            if self.words[slot as usize * stride].load(Relaxed) == target {
                return Some(Ok(slot));
            }
        }
        if e.log_count > 0 {
            for at in self.chain(v, &e) {
                if self.log[at + 1].load(Relaxed) == target {
                    return Some(Err(at));
                }
            }
        }
        None
    }

    /// Tombstones the oldest live `v -> dst`; `false` if there is none.
    fn delete(&self, v: VertexId, dst: VertexId, stats: &mut DurableStats) -> bool {
        let Some(found) = self.find(v, dst) else {
            return false;
        };
        match found {
            Ok(slot) => {
                let at = slot as usize * self.parts.stride;
                self.words[at].store(TOMBSTONE | dst, Relaxed);
                Self::mark(self.edges_dirty, EDGES_HEADER_BYTES + at * 4, 4);
                stats.array_bytes_written += 4;
            }
            Err(at) => {
                self.write_log(at + 1, &[TOMBSTONE | dst], stats);
                self.touch(self.section_of(v));
            }
        }
        let live = &self.entries[v as usize].live;
        live.store(live.load(Relaxed) - 1, Relaxed);
        stats.deletes += 1;
        true
    }
}

/// The store's shape, behind the writer's reader-sharded lock.
struct Shape<'a> {
    store: &'a mut DurableVcsr,
    out: SideParts,
    inc: Option<SideParts>,
    out_locks: Vec<Mutex<()>>,
    in_locks: Vec<Mutex<()>>,
}

// SAFETY: the raw parts are pointers into the store this struct borrows
// mutably; they are dereferenced only through `SideView`, under the
// writer's shared lock, by atomics (see `SideView::new`).
unsafe impl Send for Shape<'_> {}
// SAFETY: as above: shared access goes through atomics only.
unsafe impl Sync for Shape<'_> {}

impl Shape<'_> {
    /// Takes the parts again after the store changed shape, and sizes the
    /// section locks.
    fn refresh(&mut self) {
        self.out = SideParts::of(&mut self.store.out);
        self.inc = self.store.inc.as_mut().map(SideParts::of);
        let sections = self.out.sections;
        self.out_locks.resize_with(sections, || Mutex::new(()));
        if let Some(inc) = &self.inc {
            self.in_locks.resize_with(inc.sections, || Mutex::new(()));
        }
    }
}

/// A handle for updating a [`DurableVcsr`] from several threads at once,
/// with per-section locks (see the module docs). Obtained with
/// [`DurableVcsr::concurrent_writer`], which borrows the store mutably:
/// while a writer lives nothing else reads or writes the store.
///
/// Its sync policy is the store's: under [`SyncPolicy::EveryEdge`] and
/// [`SyncPolicy::EveryBatch`] each call commits before it returns (the
/// commits of several threads share their `fdatasync`s); under
/// [`SyncPolicy::EveryN`] a commit runs every `n` updates across threads;
/// group commit runs in the background; [`ConcurrentWriter::commit`]
/// acknowledges everything applied so far.
///
/// ```
/// use dyngraph_core::{Graph, OutNeighbors};
/// use dyngraph_durable::{DurableOptions, DurableVcsr};
///
/// let mut store = DurableVcsr::create_with(DurableOptions::default())?;
/// {
///     let writer = store.concurrent_writer()?;
///     std::thread::scope(|scope| {
///         for t in 0..2u32 {
///             let writer = &writer;
///             scope.spawn(move || {
///                 for i in 0..100 {
///                     writer.insert_edge(t, i).unwrap();
///                 }
///             });
///         }
///     });
///     writer.commit()?;
/// }
/// assert_eq!(store.edge_count(), 200);
/// assert_eq!(store.out_degree(1), 100);
/// store.validate()?;
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub struct ConcurrentWriter<'a> {
    shape: ShardedLock<Shape<'a>>,
    stats: Mutex<DurableStats>,
    semantics: Semantics,
    weighted: bool,
    vertex_limit: usize,
    policy: SyncPolicy,
    /// Updates since the last commit (for `EveryN`).
    since_commit: AtomicU64,
    /// Snapshots were live when the writer started: every update then
    /// runs under the exclusive lock, so that copy-before-write sees a
    /// quiescent list.
    serial: bool,
}

impl std::fmt::Debug for ConcurrentWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConcurrentWriter")
            .field("policy", &self.policy)
            .field("serial", &self.serial)
            .finish_non_exhaustive()
    }
}

impl DurableVcsr {
    /// Starts an update phase in which several threads may insert and
    /// delete at once (see [`ConcurrentWriter`]). Fails on a read-only or
    /// stopped store.
    pub fn concurrent_writer(&mut self) -> Result<ConcurrentWriter<'_>> {
        self.check_writable()?;
        self.flush_pending()?;
        let serial = self.snapshots.is_active();
        let (semantics, weighted, vertex_limit, policy) = (
            self.semantics,
            self.out.stride == 2,
            self.vertex_limit,
            self.sync_policy,
        );
        let mut shape = Shape {
            out: SideParts::of(&mut self.out),
            inc: None,
            store: self,
            out_locks: Vec::new(),
            in_locks: Vec::new(),
        };
        shape.refresh();
        Ok(ConcurrentWriter {
            shape: ShardedLock::new(shape),
            stats: Mutex::new(DurableStats::default()),
            semantics,
            weighted,
            vertex_limit,
            policy,
            since_commit: AtomicU64::new(0),
            serial,
        })
    }
}

/// What a shared-lock attempt at an update found.
enum Attempt<T> {
    Done(T),
    /// The shape must change first (vertices, room, a merge after).
    Exclusive(Structural),
}

#[derive(Clone, Copy)]
enum Structural {
    /// Vertices up to this count.
    Grow(usize),
    /// Room in the out-edges (`false`) or in-edges (`true`) of a vertex.
    Room(bool, VertexId),
}

impl ConcurrentWriter<'_> {
    /// Runs `f` on the store under the exclusive lock (the single-writer
    /// code), then takes its parts again.
    fn exclusive<T>(&self, f: impl FnOnce(&mut DurableVcsr) -> Result<T>) -> Result<T> {
        let mut shape = self.shape.write().unwrap_or_else(|e| e.into_inner());
        let store = &mut *shape.store;
        // Every update applied so far is logged: the store's mark is the
        // log's.
        store.applied = store.wal.appended();
        let result = f(store);
        shape.refresh();
        result
    }

    fn structural(&self, change: Structural) -> Result<()> {
        self.exclusive(|store| match change {
            Structural::Grow(count) => {
                store.grow_vertices(count)?;
                store.flush_pending()
            }
            Structural::Room(inc, v) => {
                let side = if inc {
                    store.inc.as_mut().expect("in-edges")
                } else {
                    &mut store.out
                };
                let section = side.section_of(v);
                let mut log =
                    crate::wal::LogPoint::new(&store.wal, &mut store.pending, &store.applied);
                side.make_room(section, 1, &mut log)
            }
        })
    }

    fn merge(&self, out: Option<usize>, inc: Option<usize>) -> Result<()> {
        self.exclusive(|store| {
            let mut log = crate::wal::LogPoint::new(&store.wal, &mut store.pending, &store.applied);
            for (side, section) in [(Some(&mut store.out), out), (store.inc.as_mut(), inc)] {
                if let (Some(side), Some(section)) = (side, section)
                    && side
                        .log_used
                        .get(section)
                        .is_some_and(|&u| u >= side.layout.merge_at)
                {
                    side.stats.log_merges += 1;
                    if let Err(e) = side.make_room(section, 0, &mut log)
                        && side.poisoned.is_some()
                    {
                        return Err(e);
                    }
                }
            }
            Ok(())
        })
    }

    /// Inserts `src -> dst` (weight 1.0 on a weighted store); `Ok(true)` if
    /// an edge was added. Semantics as [`GraphUpdate::insert_edge`](dyngraph_core::GraphUpdate::insert_edge).
    pub fn insert_edge(&self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.insert_weighted_edge(src, dst, 1.0)
    }

    /// Inserts `src -> dst` with `weight` (dropped on an unweighted store).
    pub fn insert_weighted_edge(
        &self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) -> Result<bool> {
        let added = self.insert(src, dst, weight)?;
        self.after_call(u64::from(added))?;
        Ok(added)
    }

    /// Deletes the oldest `src -> dst`; `Ok(true)` if one was removed.
    pub fn delete_edge(&self, src: VertexId, dst: VertexId) -> Result<bool> {
        let removed = self.delete(src, dst)?;
        self.after_call(u64::from(removed))?;
        Ok(removed)
    }

    /// Inserts a batch, in order, then commits under a per-call policy.
    pub fn insert_edges<S: EdgeSource + ?Sized>(&self, edges: &S) -> Result<UpdateReport> {
        check_limit(self.vertex_limit, edges.max_vertex())?;
        let weighted = edges.is_weighted();
        let mut report = UpdateReport::default();
        for i in 0..edges.len() {
            let e = edges.edge(i);
            let w = if weighted { e.weight } else { 1.0 };
            report.edges_added += u64::from(self.insert(e.src, e.dst, w)?);
            if self.policy == SyncPolicy::EveryEdge {
                self.commit()?;
            }
        }
        self.after_call(report.edges_added)?;
        Ok(report)
    }

    /// Makes every update applied so far (by any thread) durable: one
    /// log commit, shared with whatever other thread commits at the time.
    pub fn commit(&self) -> Result<Commit> {
        let shape = self.shape.read().unwrap_or_else(|e| e.into_inner());
        self.since_commit.store(0, Relaxed);
        shape.store.wal.commit()
    }

    /// How far acknowledgement has reached (see
    /// [`DurableVcsr::acknowledged`]).
    pub fn acknowledged(&self) -> Mark {
        let shape = self.shape.read().unwrap_or_else(|e| e.into_inner());
        shape.store.wal.durable()
    }

    fn insert(&self, src: VertexId, dst: VertexId, weight: Weight) -> Result<bool> {
        check_limit(self.vertex_limit, [src, dst])?;
        if self.serial {
            return self.exclusive(|store| {
                store.insert_one(src, dst, weight).and_then(|added| {
                    store.flush_pending()?;
                    Ok(added)
                })
            });
        }
        let weight_bits = if self.weighted { weight.to_bits() } else { 0 };
        loop {
            match self.try_insert(src, dst, weight_bits)? {
                Attempt::Done((added, merge_out, merge_in)) => {
                    if merge_out.is_some() || merge_in.is_some() {
                        self.merge(merge_out, merge_in)?;
                    }
                    return Ok(added);
                }
                Attempt::Exclusive(change) => self.structural(change)?,
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn try_insert(
        &self,
        src: VertexId,
        dst: VertexId,
        weight_bits: u32,
    ) -> Result<Attempt<(bool, Option<usize>, Option<usize>)>> {
        let shape = self.shape.read().unwrap_or_else(|e| e.into_inner());
        shape.store.check_usable()?;
        let needed = src.max(dst) as usize + 1;
        if needed > shape.out.vertices {
            return Ok(Attempt::Exclusive(Structural::Grow(needed)));
        }
        // SAFETY: the parts were taken after the store's last change of
        // shape (every change runs under the exclusive lock and refreshes
        // them), and `shape` holds the shared lock while the views live.
        let out = unsafe { SideView::new(shape.out) };
        // SAFETY: as above.
        let inc = shape.inc.map(|parts| unsafe { SideView::new(parts) });
        let out_section = out.section_of(src);
        let _out_lock = shape.out_locks[out_section].lock();
        let in_section = inc.as_ref().map(|v| v.section_of(dst));
        let _in_lock = in_section.map(|s| shape.in_locks[s].lock());
        if self.semantics == Semantics::Simple && out.has_edge(src, dst) {
            return Ok(Attempt::Done((false, None, None)));
        }
        if !out.has_room(src) {
            return Ok(Attempt::Exclusive(Structural::Room(false, src)));
        }
        if let Some(inc) = &inc
            && !inc.has_room(dst)
        {
            return Ok(Attempt::Exclusive(Structural::Room(true, dst)));
        }
        let mut stats = DurableStats::default();
        let merge_out = out
            .place(src, dst, weight_bits, &mut stats)
            .then_some(out_section);
        let merge_in = match (&inc, in_section) {
            (Some(inc), Some(section)) => inc.place(dst, src, 0, &mut stats).then_some(section),
            _ => None,
        };
        // Logged before the section is released: the log orders each
        // list's changes as they happened.
        shape
            .store
            .wal
            .append(&[Record::Insert(src, dst, weight_bits)])?;
        self.stats.lock().add(&stats);
        Ok(Attempt::Done((true, merge_out, merge_in)))
    }

    fn delete(&self, src: VertexId, dst: VertexId) -> Result<bool> {
        if self.serial {
            return self.exclusive(|store| {
                store.delete_one(src, dst).and_then(|removed| {
                    store.flush_pending()?;
                    Ok(removed)
                })
            });
        }
        let shape = self.shape.read().unwrap_or_else(|e| e.into_inner());
        shape.store.check_usable()?;
        if src as usize >= shape.out.vertices || dst as usize >= shape.out.vertices {
            return Ok(false);
        }
        // SAFETY: as in `try_insert`.
        let out = unsafe { SideView::new(shape.out) };
        // SAFETY: as in `try_insert`.
        let inc = shape.inc.map(|parts| unsafe { SideView::new(parts) });
        let _out_lock = shape.out_locks[out.section_of(src)].lock();
        let _in_lock = inc
            .as_ref()
            .map(|v| shape.in_locks[v.section_of(dst)].lock());
        let mut stats = DurableStats::default();
        if !out.delete(src, dst, &mut stats) {
            return Ok(false);
        }
        if let Some(inc) = &inc
            && !inc.delete(dst, src, &mut stats)
        {
            return Err(Error::InvalidStructure(format!(
                "in-edge {dst} <- {src} missing for an out-edge that was there"
            )));
        }
        shape.store.wal.append(&[Record::Delete(src, dst)])?;
        self.stats.lock().add(&stats);
        Ok(true)
    }

    /// The sync policy's commit at the end of a call, and a checkpoint when
    /// the log is past its threshold.
    fn after_call(&self, updates: u64) -> Result<()> {
        let since = self.since_commit.fetch_add(updates, Relaxed) + updates;
        let commit = match self.policy {
            SyncPolicy::EveryEdge | SyncPolicy::EveryBatch => updates > 0,
            SyncPolicy::EveryN(n) => since >= n,
            SyncPolicy::Group(_) | SyncPolicy::Explicit => false,
        };
        if commit {
            self.commit()?;
        }
        let due = {
            let shape = self.shape.read().unwrap_or_else(|e| e.into_inner());
            shape.store.wal.file_bytes() >= shape.store.checkpoint_threshold()
        };
        if due {
            self.exclusive(|store| store.maybe_checkpoint())?;
        }
        Ok(())
    }
}

impl Drop for ConcurrentWriter<'_> {
    /// Ends the update phase: the store's mark and counters catch up with
    /// what the threads did.
    fn drop(&mut self) {
        let shape = self.shape.get_mut().unwrap_or_else(|e| e.into_inner());
        let store = &mut *shape.store;
        store.applied = store.wal.appended();
        store.stats.add(&self.stats.lock());
    }
}
