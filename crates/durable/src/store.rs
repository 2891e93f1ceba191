//! The durable store: layout, insert path, edge logs, undo-logged
//! rebalances, rewrites, sync, open and close.

use crate::files::{self, MappedFile, allocate, fail_point, no_space, sync_dir, write_atomic};
use crate::format::{
    self, EDGE_LOG_FILE, EDGES_FILE, EDGES_HEADER_BYTES, EdgesHeader, ID_MASK, LIVE, LOCK_FILE,
    LOG_ENTRY_WORDS, LOG_HEADER_WORDS, PIVOT, SUPERBLOCK_FILE, Superblock, TAG_MASK, TEMP_SUFFIX,
    TOMBSTONE, UNDO_HEADER_BYTES, UndoHeader, UndoSegment, invalid, io, log_capacity,
    log_entry_check, log_header, undo_file,
};
use crate::options::{DurableOptions, SyncPolicy};
use crate::stats::{DurableStats, RecoveryReport};
use dyngraph_core::cow::SnapshotRegistry;
use dyngraph_core::{Error, Result, Semantics, VertexId};
use dyngraph_pma::{DegreeProportional, DensityTree, GapPolicy, Thresholds, Window};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// One vertex of the DRAM vertex array (DGAP §3, "vertex array").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct VertexEntry {
    /// Slot of the vertex's pivot; its edges follow.
    pub(crate) start: u64,
    /// Edge slots (live and tombstones) after the pivot.
    pub(crate) array_len: u32,
    /// Live edges, in the array and the log.
    pub(crate) live: u32,
    /// Entries (live and tombstones) in its section's edge log.
    pub(crate) log_count: u32,
    /// Index + 1 of its newest edge-log entry (0: none): the head of the
    /// back-pointer chain (DGAP's `el_v`).
    pub(crate) log_head: u32,
}

/// Target root density of a rewrite (the middle of the default root
/// bounds `[0.5, 0.75]`).
const REWRITE_DENSITY: f64 = 0.6;

/// The undo log of the (single) writer.
#[derive(Debug)]
pub(crate) struct UndoLog {
    pub(crate) path: PathBuf,
    pub(crate) file: File,
}

/// A durable, crash-consistent mutable CSR after DGAP. See the crate docs.
pub struct DurableVcsr {
    pub(crate) dir: PathBuf,
    /// Created by `Default` options: removed on drop.
    remove_on_drop: bool,
    /// Held (exclusively locked) while the store is open.
    _lock: File,
    pub(crate) superblock: Superblock,
    pub(crate) semantics: Semantics,
    pub(crate) stride: usize,
    pub(crate) vertex_limit: usize,
    pub(crate) edges: MappedFile,
    pub(crate) header: EdgesHeader,
    pub(crate) log: MappedFile,
    pub(crate) undo: UndoLog,
    pub(crate) vertices: Vec<VertexEntry>,
    /// Entries written in each section's log region (current generation).
    pub(crate) log_used: Vec<u32>,
    /// Whether each section's region header carries the current generation.
    pub(crate) log_fresh: Vec<bool>,
    /// Sections with log entries appended since the last sync: their
    /// headers' synced counts are raised after it.
    log_touched: Vec<usize>,
    /// Windows rebalanced since the last sync (in the private mapping
    /// only); the next sync saves their on-disk bytes in the undo log
    /// before writing them.
    pending_windows: Vec<UndoSegment>,
    /// Vertices whose pivots are on disk as of the last completed sync (or
    /// open, or rewrite).
    pub(crate) synced_vertex_count: usize,
    pub(crate) tree: DensityTree,
    pub(crate) edge_count: u64,
    pub(crate) sync_policy: SyncPolicy,
    pub(crate) edge_log: bool,
    log_merge_at: u32,
    max_undo_bytes: u64,
    space_limit: Option<u64>,
    /// Updates applied since the last completed sync.
    pending: u64,
    pub(crate) stats: DurableStats,
    pub(crate) snapshots: SnapshotRegistry,
    pub(crate) recovery: RecoveryReport,
    /// Set when a write failed half-way; every later call refuses.
    poisoned: Option<String>,
    closed: bool,
}

impl std::fmt::Debug for DurableVcsr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DurableVcsr")
            .field("dir", &self.dir)
            .field("vertices", &self.vertices.len())
            .field("edges", &self.edge_count)
            .field("capacity", &self.header.capacity)
            .field("generation", &self.header.generation)
            .field("sync", &self.sync_policy)
            .finish_non_exhaustive()
    }
}

/// A fresh directory for a store built with `Default` options.
fn temporary_dir() -> Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!(
        "dyngraph-durable-{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    Ok(dir)
}

fn lock_dir(dir: &Path) -> Result<File> {
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io(&path, e))?;
    use std::os::fd::AsRawFd;
    // SAFETY: flock only acts on the open descriptor, which `file` keeps
    // alive for the call; the lock is released when `file` is closed.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(file);
    }
    let error = std::io::Error::last_os_error();
    if error.kind() == std::io::ErrorKind::WouldBlock {
        return Err(io(
            &path,
            std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                "the store is open in another process (or another handle of this one)",
            ),
        ));
    }
    Err(io(&path, error))
}

impl DurableVcsr {
    // -----------------------------------------------------------------
    // Create, open, close.
    // -----------------------------------------------------------------

    /// Creates an empty store in `dir` (created if missing). Fails if `dir`
    /// already holds a store. `options.dir` is ignored in favour of `dir`.
    pub fn create(dir: impl AsRef<Path>, options: DurableOptions) -> Result<Self> {
        Self::create_in(dir.as_ref().to_path_buf(), false, options)
    }

    /// Creates a store where `options.dir` says, or in a fresh temporary
    /// directory (removed on drop) when it says nothing.
    pub fn create_with(options: DurableOptions) -> Result<Self> {
        // Refuse bad options before making a temporary directory for them.
        options.check()?;
        match options.dir.clone() {
            Some(dir) => Self::create_in(dir, false, options),
            None => Self::create_in(temporary_dir()?, true, options),
        }
    }

    fn create_in(dir: PathBuf, remove_on_drop: bool, options: DurableOptions) -> Result<Self> {
        options.check()?;
        std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
        let lock = lock_dir(&dir)?;
        let sb_path = dir.join(SUPERBLOCK_FILE);
        if sb_path.exists() {
            return Err(Error::InvalidArgument(format!(
                "{} already holds a durable store; open it instead",
                dir.display()
            )));
        }
        let superblock = Superblock {
            simple: options.store.semantics == Semantics::Simple,
            weighted: options.store.weighted,
            vertices_per_section: options.vertices_per_section,
            log_region_bytes: options.log_region_bytes,
            vertex_limit: options.store.vertex_limit.min(format::MAX_VERTICES) as u64,
            normal_shutdown: false,
            state_generation: 0,
        };
        superblock.check(&sb_path)?;
        let stride = if options.store.weighted { 2 } else { 1 };
        let header = EdgesHeader {
            stride,
            generation: 1,
            capacity: options.initial_capacity.max(16),
        };
        let mut meta_bytes = 0u64;
        // The array, log and undo files exist before the superblock: a
        // directory with a superblock is a complete store.
        let edges_path = dir.join(EDGES_FILE);
        check_space(options.space_limit, &edges_path, header.file_len())?;
        write_new_file(&edges_path, &header.encode(), header.file_len())?;
        let log_path = dir.join(EDGE_LOG_FILE);
        write_new_file(&log_path, &[], 0)?;
        let undo_path = dir.join(undo_file(0));
        write_new_file(&undo_path, &[], 0)?;
        let sb_bytes = superblock.encode();
        meta_bytes += sb_bytes.len() as u64 + EDGES_HEADER_BYTES as u64;
        write_atomic(&dir, SUPERBLOCK_FILE, &sb_bytes)?;
        let mut store = Self::assemble(dir, remove_on_drop, lock, superblock, &options)?;
        store.closed = false;
        store.stats.meta_bytes_written += meta_bytes;
        store.stats.syncs += 4;
        Ok(store)
    }

    /// Maps the files of a store whose superblock is `superblock`, with an
    /// empty DRAM state (the caller fills it).
    fn assemble(
        dir: PathBuf,
        remove_on_drop: bool,
        lock: File,
        superblock: Superblock,
        options: &DurableOptions,
    ) -> Result<Self> {
        let edges = MappedFile::open(dir.join(EDGES_FILE))?;
        let mut header = EdgesHeader::decode(edges.bytes(), &edges.path)?;
        if edges.len() < header.file_len() {
            return Err(invalid(
                &edges.path,
                format!(
                    "truncated: {} bytes, but its header declares {} slots needing {} bytes",
                    edges.len(),
                    header.capacity,
                    header.file_len()
                ),
            ));
        }
        let expected_stride = if superblock.weighted { 2 } else { 1 };
        if header.stride != expected_stride {
            return Err(invalid(
                &edges.path,
                format!(
                    "slots of {} words, but the superblock says the store is {}weighted",
                    header.stride,
                    if superblock.weighted { "" } else { "un" }
                ),
            ));
        }
        // Capacity grows by extending the file (see `extend_capacity`):
        // the file's length says it, the header holds a lower bound.
        header.capacity =
            (edges.len() - EDGES_HEADER_BYTES as u64) / (u64::from(header.stride) * 4);
        let log = MappedFile::open(dir.join(EDGE_LOG_FILE))?;
        if log.len() % u64::from(superblock.log_region_bytes) != 0 {
            return Err(invalid(
                &log.path,
                format!(
                    "{} bytes is not a whole number of {}-byte section regions: the file was \
                     truncated or extended by something else",
                    log.len(),
                    superblock.log_region_bytes
                ),
            ));
        }
        let undo_path = dir.join(undo_file(0));
        let undo_file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&undo_path)
            .map_err(|e| io(&undo_path, e))?;
        let log_capacity = log_capacity(superblock.log_region_bytes) as u32;
        let merge_at = ((f64::from(log_capacity) * options.log_merge_fill).ceil() as u32)
            .clamp(1, log_capacity);
        Ok(Self {
            dir,
            remove_on_drop,
            _lock: lock,
            superblock,
            semantics: if superblock.simple {
                Semantics::Simple
            } else {
                Semantics::Multigraph
            },
            stride: header.stride as usize,
            vertex_limit: superblock.vertex_limit as usize,
            edges,
            header,
            log,
            undo: UndoLog {
                path: undo_path,
                file: undo_file,
            },
            vertices: Vec::new(),
            log_used: Vec::new(),
            log_fresh: Vec::new(),
            log_touched: Vec::new(),
            pending_windows: Vec::new(),
            synced_vertex_count: 0,
            tree: DensityTree::new(1, Thresholds::default()),
            edge_count: 0,
            sync_policy: options.sync,
            edge_log: options.edge_log,
            log_merge_at: merge_at,
            max_undo_bytes: options.max_undo_bytes,
            space_limit: options.space_limit,
            pending: 0,
            stats: DurableStats::default(),
            snapshots: SnapshotRegistry::default(),
            recovery: RecoveryReport::default(),
            poisoned: None,
            // Not open yet: if opening fails half-way, dropping this must
            // not "close cleanly" a store whose DRAM state is not built.
            closed: true,
        })
    }

    /// Opens the store in `dir` with the default runtime options
    /// ([`SyncPolicy::EveryBatch`], edge logs on). A clean previous close
    /// loads the vertex array from the state file; otherwise the store is
    /// recovered (undo log, pivot scan, edge logs) before this returns.
    /// [`DurableVcsr::recovery_report`] tells which, what was repaired and
    /// how long it took.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(dir, &DurableOptions::default())
    }

    /// [`DurableVcsr::open`] with the runtime knobs of `options` (sync
    /// policy, edge log on/off, merge fill, undo window limit, space
    /// limit). The layout (semantics, weights, section size, log region
    /// size) comes from the superblock; `options.store` and `options.dir`
    /// are ignored.
    pub fn open_with(dir: impl AsRef<Path>, options: &DurableOptions) -> Result<Self> {
        let started = Instant::now();
        let dir = dir.as_ref().to_path_buf();
        if !dir.is_dir() {
            return Err(io(
                &dir,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"),
            ));
        }
        let lock = lock_dir(&dir)?;
        let sb_path = dir.join(SUPERBLOCK_FILE);
        if !sb_path.exists() {
            return Err(invalid(
                &sb_path,
                "missing: the directory holds no durable store (or its creation never finished)",
            ));
        }
        let superblock = Superblock::decode(&files::read_file(&sb_path)?, &sb_path)?;
        let temp_files_removed = remove_temp_files(&dir)?;
        let mut store = Self::assemble(dir, false, lock, superblock, options)?;
        store.recovery.temp_files_removed = temp_files_removed;
        let loaded = if superblock.normal_shutdown {
            match store.load_state() {
                Ok(()) => true,
                Err(e) => {
                    store.recovery.state_file_rejected = Some(e.to_string());
                    false
                }
            }
        } else {
            false
        };
        if !loaded {
            store.recover()?;
        }
        store.recovery.clean = loaded;
        // From here on the store may change: clear NORMAL_SHUTDOWN first.
        store.superblock.normal_shutdown = false;
        store.write_superblock()?;
        store.closed = false;
        store.synced_vertex_count = store.vertices.len();
        store.recovery.vertices = store.vertices.len();
        store.recovery.edges = store.edge_count;
        store.recovery.elapsed = started.elapsed();
        Ok(store)
    }

    /// Opens the store in `dir`, recovering it if needed, closes it
    /// cleanly and returns what opening it did (`dyngraph recover PATH`).
    pub fn recover_dir(dir: impl AsRef<Path>) -> Result<RecoveryReport> {
        let store = Self::open(dir)?;
        let report = store.recovery.clone();
        store.close()?;
        Ok(report)
    }

    /// Makes every applied update durable, writes the DRAM vertex array to
    /// the state file and sets NORMAL_SHUTDOWN, so the next open is fast.
    /// Dropping the store does the same but cannot report errors.
    pub fn close(mut self) -> Result<()> {
        self.close_inner()
    }

    fn close_inner(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.check_usable()?;
        self.sync()?;
        let state = self.encode_state();
        write_atomic(&self.dir, format::STATE_FILE, &state)?;
        self.stats.meta_bytes_written += state.len() as u64;
        fail_point("close-state-written");
        // The undo log is idle: give back the space its largest record took.
        if self.undo_len() > UNDO_HEADER_BYTES as u64 {
            let path = &self.undo.path;
            self.undo
                .file
                .set_len(UNDO_HEADER_BYTES as u64)
                .and_then(|()| self.undo.file.sync_all())
                .map_err(|e| io(path, e))?;
        }
        self.superblock.normal_shutdown = true;
        self.superblock.state_generation = self.header.generation;
        self.write_superblock()?;
        self.closed = true;
        Ok(())
    }

    /// Drops the store the way a crash of the process would: no sync, no
    /// state file, NORMAL_SHUTDOWN left clear, so the next open recovers.
    /// What was written to the mappings stays in the page cache (as after
    /// a `SIGKILL`); updates not yet synced are not durable against a
    /// power failure. For tests and tools that exercise recovery.
    pub fn drop_without_close(mut self) {
        self.closed = true;
    }

    pub(crate) fn write_superblock(&mut self) -> Result<()> {
        let bytes = self.superblock.encode();
        write_atomic(&self.dir, SUPERBLOCK_FILE, &bytes)?;
        self.stats.meta_bytes_written += bytes.len() as u64;
        self.stats.syncs += 2;
        self.stats.bytes_flushed += bytes.len() as u64;
        Ok(())
    }

    // -----------------------------------------------------------------
    // Public accessors.
    // -----------------------------------------------------------------

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// What opening the store found and did (clean for a created store).
    pub fn recovery_report(&self) -> &RecoveryReport {
        &self.recovery
    }

    /// Counters since the store was opened.
    pub fn stats(&self) -> DurableStats {
        self.stats
    }

    /// The sync policy in force.
    pub fn sync_policy(&self) -> SyncPolicy {
        self.sync_policy
    }

    /// Changes the sync policy (pending updates stay pending until the
    /// next sync point of the new policy).
    pub fn set_sync_policy(&mut self, policy: SyncPolicy) {
        self.sync_policy = policy;
    }

    /// Updates applied but not yet acknowledged (not made durable by a
    /// sync). After a crash, the most recent `pending_updates()` updates
    /// may be lost; the earlier ones are not.
    pub fn pending_updates(&self) -> u64 {
        self.pending
    }

    /// Slots of the edge array.
    pub fn capacity(&self) -> u64 {
        self.header.capacity
    }

    /// The edge array's generation (bumped by every rewrite).
    pub fn generation(&self) -> u64 {
        self.header.generation
    }

    /// Bytes of the store's files on disk (edge array, edge logs, undo log).
    pub fn file_bytes(&self) -> u64 {
        self.edges.len() + self.log.len() + self.undo_len()
    }

    fn undo_len(&self) -> u64 {
        self.undo.file.metadata().map_or(0, |m| m.len())
    }

    /// Sections (leaves of the density tree).
    pub fn section_count(&self) -> usize {
        self.vertices
            .len()
            .div_ceil(self.superblock.vertices_per_section as usize)
    }

    pub(crate) fn check_usable(&self) -> Result<()> {
        match &self.poisoned {
            Some(why) => Err(Error::InvalidArgument(format!(
                "{}: the store stopped after a failed write ({why}); reopen it to recover",
                self.dir.display()
            ))),
            None => Ok(()),
        }
    }

    fn poison<T>(&mut self, e: Error) -> Result<T> {
        self.poisoned = Some(e.to_string());
        Err(e)
    }

    // -----------------------------------------------------------------
    // Words and slots.
    // -----------------------------------------------------------------

    /// The edge array's slot words.
    #[inline]
    pub(crate) fn words(&self) -> &[u32] {
        let bytes = self.edges.bytes();
        if bytes.len() <= EDGES_HEADER_BYTES {
            return &[];
        }
        let len = (bytes.len() - EDGES_HEADER_BYTES) / 4 * 4;
        bytemuck::cast_slice(&bytes[EDGES_HEADER_BYTES..EDGES_HEADER_BYTES + len])
    }

    /// The edge-log file's words.
    #[inline]
    pub(crate) fn log_words(&self) -> &[u32] {
        let bytes = self.log.bytes();
        if bytes.is_empty() {
            return &[];
        }
        bytemuck::cast_slice(bytes)
    }

    pub(crate) fn region_words(&self) -> usize {
        self.superblock.log_region_bytes as usize / 4
    }

    pub(crate) fn log_entry_capacity(&self) -> usize {
        log_capacity(self.superblock.log_region_bytes)
    }

    /// Word offset of entry `index` of section `section`'s log.
    #[inline]
    pub(crate) fn log_entry_at(&self, section: usize, index: usize) -> usize {
        section * self.region_words() + LOG_HEADER_WORDS + index * LOG_ENTRY_WORDS
    }

    #[inline]
    pub(crate) fn section_of(&self, v: VertexId) -> usize {
        v as usize / self.superblock.vertices_per_section as usize
    }

    /// The slot after the last slot vertex `v` may use.
    #[inline]
    fn run_limit(&self, v: usize) -> u64 {
        self.vertices
            .get(v + 1)
            .map_or(self.header.capacity, |next| next.start)
    }

    /// Writes slot `slot` (weight word first, so the slot never shows a
    /// destination with a weight that is not there yet).
    fn write_slot(&mut self, slot: u64, word: u32, weight_bits: u32) {
        let stride = self.stride;
        let at = slot as usize * stride;
        let words: &mut [u32] =
            bytemuck::cast_slice_mut(&mut self.edges.bytes_mut()[EDGES_HEADER_BYTES..]);
        if stride == 2 {
            words[at + 1] = weight_bits;
        }
        words[at] = word;
        let offset = (EDGES_HEADER_BYTES + at * 4) as u64;
        self.edges.mark(offset, 4 * stride as u64);
        self.stats.array_bytes_written += 4 * stride as u64;
    }

    /// Rewrites only the tag of slot `slot` (a delete).
    fn write_slot_word(&mut self, slot: u64, word: u32) {
        let at = slot as usize * self.stride;
        let words: &mut [u32] =
            bytemuck::cast_slice_mut(&mut self.edges.bytes_mut()[EDGES_HEADER_BYTES..]);
        words[at] = word;
        self.edges.mark((EDGES_HEADER_BYTES + at * 4) as u64, 4);
        self.stats.array_bytes_written += 4;
    }

    fn write_log_words(&mut self, at: usize, values: &[u32]) {
        let words: &mut [u32] = bytemuck::cast_slice_mut(self.log.bytes_mut());
        words[at..at + values.len()].copy_from_slice(values);
        self.log.mark(at as u64 * 4, values.len() as u64 * 4);
        self.stats.log_bytes_written += values.len() as u64 * 4;
    }

    // -----------------------------------------------------------------
    // Reading a vertex's edges (used by updates and rebalances).
    // -----------------------------------------------------------------

    /// The edge-log entry indices of `v`, oldest first.
    pub(crate) fn log_chain(&self, v: VertexId) -> Vec<u32> {
        let entry = self.vertices[v as usize];
        if entry.log_count == 0 {
            return Vec::new();
        }
        let section = self.section_of(v);
        let log = self.log_words();
        let mut chain = Vec::with_capacity(entry.log_count as usize);
        let mut next = entry.log_head;
        while next != 0 && chain.len() < entry.log_count as usize {
            let index = next - 1;
            chain.push(index);
            next = log[self.log_entry_at(section, index as usize) + 3] & 0xFFFF;
        }
        chain.reverse();
        chain
    }

    /// Calls `f(dst, weight_bits)` for every live edge of `v`, in order
    /// (the array part, then the log part).
    pub(crate) fn for_each_live(&self, v: VertexId, mut f: impl FnMut(u32, u32)) {
        let entry = self.vertices[v as usize];
        let words = self.words();
        let stride = self.stride;
        let first = (entry.start as usize + 1) * stride;
        let end = first + entry.array_len as usize * stride;
        let mut at = first;
        while at < end {
            let word = words[at];
            if word & TAG_MASK == LIVE {
                f(word & ID_MASK, if stride == 2 { words[at + 1] } else { 0 });
            }
            at += stride;
        }
        if entry.log_count > 0 {
            let section = self.section_of(v);
            let log = self.log_words();
            for index in self.log_chain(v) {
                let e = self.log_entry_at(section, index as usize);
                if log[e + 1] & TAG_MASK == LIVE {
                    f(log[e + 1] & ID_MASK, log[e + 2]);
                }
            }
        }
    }

    /// Whether `src -> dst` is present.
    pub fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        if src as usize >= self.vertices.len() {
            return false;
        }
        let mut found = false;
        self.for_each_live(src, |d, _| found |= d == dst);
        found
    }

    // -----------------------------------------------------------------
    // Updates.
    // -----------------------------------------------------------------

    /// Inserts one edge after the limit check; the caller counts the sync.
    pub(crate) fn insert_one(&mut self, src: VertexId, dst: VertexId, weight: f32) -> Result<bool> {
        self.ensure_vertices(src.max(dst) as usize + 1)?;
        if self.semantics == Semantics::Simple && self.has_edge(src, dst) {
            return Ok(false);
        }
        self.snapshots.before_out_change(&*self, src);
        let weight_bits = if self.stride == 2 {
            weight.to_bits()
        } else {
            0
        };
        self.place(src, dst, weight_bits)?;
        self.stats.inserts += 1;
        self.pending += 1;
        Ok(true)
    }

    /// DGAP §3.1.2: in place when the slot after the run is free and the
    /// vertex has nothing in the log, else into the section's edge log;
    /// when the log is full (or off), rebalance first.
    fn place(&mut self, u: VertexId, dst: VertexId, weight_bits: u32) -> Result<()> {
        let v = u as usize;
        for _attempt in 0..3 {
            let entry = self.vertices[v];
            if entry.log_count == 0 {
                let slot = entry.start + 1 + u64::from(entry.array_len);
                if slot < self.run_limit(v) {
                    self.write_slot(slot, LIVE | dst, weight_bits);
                    self.vertices[v].array_len += 1;
                    self.vertices[v].live += 1;
                    self.edge_count += 1;
                    self.stats.in_place_inserts += 1;
                    return Ok(());
                }
            }
            let section = self.section_of(u);
            if self.edge_log && (self.log_used[section] as usize) < self.log_entry_capacity() {
                self.append_log(section, u, dst, weight_bits)?;
                // The edge is in (and counts from here: a merge lays it out).
                self.vertices[v].live += 1;
                self.edge_count += 1;
                if self.log_used[section] >= self.log_merge_at {
                    self.stats.log_merges += 1;
                    // The insert is done; a merge that fails before moving
                    // anything (a full disk) is retried when the log is
                    // full, where its error fails that insert instead.
                    if let Err(e) = self.make_room(section, 0)
                        && self.poisoned.is_some()
                    {
                        return Err(e);
                    }
                }
                return Ok(());
            }
            self.make_room(section, 1)?;
        }
        Err(Error::InvalidStructure(format!(
            "vertex {u}: no free slot after three rebalances (a bug in the layout)"
        )))
    }

    fn append_log(
        &mut self,
        section: usize,
        src: VertexId,
        dst: VertexId,
        weight_bits: u32,
    ) -> Result<()> {
        if !self.log_fresh[section] {
            // A region left from an older generation: clear its entries,
            // then stamp it (an unstamped region is ignored by recovery,
            // so a crash in between loses nothing current).
            let base = section * self.region_words();
            let zeros = vec![0u32; self.region_words() - LOG_HEADER_WORDS];
            self.write_log_words(base + LOG_HEADER_WORDS, &zeros);
            self.write_log_words(base, &log_header(self.header.generation, 0));
            self.log_fresh[section] = true;
            self.log_used[section] = 0;
        }
        let index = self.log_used[section] as usize;
        let prev = self.vertices[src as usize].log_head as u16;
        let dst_word = LIVE | dst;
        let check = log_entry_check(
            section,
            index,
            self.header.generation,
            src,
            dst_word,
            weight_bits,
            prev,
        );
        let at = self.log_entry_at(section, index);
        self.write_log_words(
            at,
            &[
                src,
                dst_word,
                weight_bits,
                u32::from(prev) | (u32::from(check) << 16),
            ],
        );
        self.log_used[section] += 1;
        if self.log_touched.last() != Some(&section) {
            self.log_touched.push(section);
        }
        let entry = &mut self.vertices[src as usize];
        entry.log_count += 1;
        entry.log_head = index as u32 + 1;
        self.stats.log_appends += 1;
        Ok(())
    }

    /// Deletes the oldest live `src -> dst`: a tombstone, one word.
    pub(crate) fn delete_one(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        let v = src as usize;
        if v >= self.vertices.len() || dst & !ID_MASK != 0 {
            return Ok(false);
        }
        let entry = self.vertices[v];
        let stride = self.stride;
        let target = LIVE | dst;
        let mut found_slot = None;
        {
            let words = self.words();
            for i in 0..u64::from(entry.array_len) {
                let slot = entry.start + 1 + i;
                if words[slot as usize * stride] == target {
                    found_slot = Some(slot);
                    break;
                }
            }
        }
        let mut found_log = None;
        if found_slot.is_none() && entry.log_count > 0 {
            let section = self.section_of(src);
            let log = self.log_words();
            found_log = self
                .log_chain(src)
                .into_iter()
                .map(|index| self.log_entry_at(section, index as usize))
                .find(|&at| log[at + 1] == target);
        }
        if found_slot.is_none() && found_log.is_none() {
            return Ok(false);
        }
        self.snapshots.before_out_change(&*self, src);
        match (found_slot, found_log) {
            (Some(slot), _) => self.write_slot_word(slot, TOMBSTONE | dst),
            (None, Some(at)) => self.write_log_words(at + 1, &[TOMBSTONE | dst]),
            (None, None) => unreachable!("checked above"),
        }
        self.vertices[v].live -= 1;
        self.edge_count -= 1;
        self.stats.deletes += 1;
        self.pending += 1;
        Ok(true)
    }

    /// Counts one applied update against the sync policy (every-edge and
    /// every-N policies sync here).
    pub(crate) fn after_update(&mut self) -> Result<()> {
        match self.sync_policy {
            SyncPolicy::EveryEdge => self.sync(),
            SyncPolicy::EveryN(n) if self.pending >= n => self.sync(),
            _ => Ok(()),
        }
    }

    /// The end of an update call: the every-batch policy syncs here.
    pub(crate) fn after_batch(&mut self) -> Result<()> {
        if self.sync_policy == SyncPolicy::EveryBatch && self.pending > 0 {
            self.sync()?;
        }
        Ok(())
    }

    /// Makes every applied update durable (group commit):
    /// 1. when rebalances moved windows since the last sync, their on-disk
    ///    bytes go to the undo log, armed and fdatasynced;
    /// 2. the changed pages of the edge array are written (`pwrite`) and
    ///    fdatasynced, then those of the edge logs (array first, so a log
    ///    entry never reaches the disk before its vertex's pivot);
    /// 3. the undo log is disarmed and fdatasynced.
    ///
    /// A crash before 3 completes is undone by recovery (the windows are
    /// restored to the last sync and the rebalances redone); after it, the
    /// sync is complete. On an error the store stops taking updates.
    pub fn sync(&mut self) -> Result<()> {
        self.check_usable()?;
        if !self.edges.is_dirty() && !self.log.is_dirty() {
            self.pending = 0;
            return Ok(());
        }
        if let Err(e) = self.sync_steps() {
            return self.poison(e);
        }
        self.pending = 0;
        // The entries are durable now: say so in their sections' headers
        // (one word each, made durable by the next sync), so that recovery
        // never cuts an acknowledged entry as a torn one.
        let mut touched = std::mem::take(&mut self.log_touched);
        touched.sort_unstable();
        touched.dedup();
        let generation = self.header.generation;
        for section in touched.drain(..) {
            if section < self.log_used.len() && self.log_fresh[section] {
                let base = section * self.region_words();
                let header = log_header(generation, self.log_used[section] as u16);
                self.write_log_words(base + 3, &header[3..]);
            }
        }
        self.log_touched = touched;
        Ok(())
    }

    fn sync_steps(&mut self) -> Result<()> {
        let windows = !self.pending_windows.is_empty();
        if windows {
            let (header, body) = self.undo_record()?;
            self.arm_undo(&header, &body)?;
            self.stats.syncs += 1;
        }
        fail_point("sync-armed");
        // A barrier only for a file that was written to: a sync of in-place
        // inserts alone costs one fdatasync.
        let array = self.edges.write_back()?;
        fail_point("sync-array-written");
        if array > 0 {
            self.edges.barrier()?;
            self.stats.syncs += 1;
        }
        let log = self.log.write_back()?;
        if log > 0 {
            self.log.barrier()?;
            self.stats.syncs += 1;
        }
        self.stats.bytes_flushed += array + log;
        fail_point("sync-written");
        if windows {
            self.disarm_undo()?;
            self.pending_windows.clear();
            self.stats.syncs += 1;
        }
        fail_point("sync-done");
        self.synced_vertex_count = self.vertices.len();
        Ok(())
    }

    // -----------------------------------------------------------------
    // Vertices.
    // -----------------------------------------------------------------

    /// Grows the vertex array to `count` vertices: new pivots go into the
    /// free tail after the last run, each written as one word in id order
    /// (a crash leaves a prefix of them), or the array is rewritten larger.
    pub(crate) fn ensure_vertices(&mut self, count: usize) -> Result<()> {
        let n = self.vertices.len();
        if count <= n {
            return Ok(());
        }
        let added = (count - n) as u64;
        let tail = self
            .vertices
            .last()
            .map_or(0, |last| last.start + 1 + u64::from(last.array_len));
        let free = self.header.capacity - tail;
        let spacing = (free / (added + 1)).min(16);
        self.ensure_log_sections(count)?;
        if spacing >= 2 {
            for i in 0..added {
                let slot = if n == 0 {
                    i * spacing
                } else {
                    tail + (i + 1) * spacing - 1
                };
                let v = (n as u64 + i) as u32;
                self.write_slot(slot, PIVOT | v, 0);
                self.vertices.push(VertexEntry {
                    start: slot,
                    ..VertexEntry::default()
                });
            }
            self.pending += 1;
            self.resize_sections();
            return Ok(());
        }

        // No room in the tail: extend the file (new slots are free, nothing
        // moves) and place the pivots there.
        let extra = (self.header.capacity / 4).max(4 * added + 64);
        self.extend_capacity(extra)?;
        self.ensure_vertices(count)
    }

    /// Grows the edge array by `extra` free slots at its end, without
    /// moving anything: the file is extended (allocated, zero-filled,
    /// fsynced) and mapped again. The capacity is the file's length; the
    /// header keeps the capacity of the last rewrite, a lower bound.
    fn extend_capacity(&mut self, extra: u64) -> Result<()> {
        let capacity = self.header.capacity + extra;
        let len = EDGES_HEADER_BYTES as u64 + capacity * self.stride as u64 * 4;
        self.check_space_for(&self.edges.path.clone(), len - self.edges.len())?;
        // A new mapping drops the private pages: make them durable first.
        self.sync()?;
        self.edges.grow(len)?;
        self.header.capacity = capacity;
        self.stats.resizes += 1;
        self.stats.syncs += 1;
        Ok(())
    }

    /// Slots every vertex needs now: a pivot and its live edges.
    fn slots_needed(&self) -> u64 {
        self.vertices.len() as u64 + self.edge_count
    }

    /// Makes the edge-log file hold a region for every section of `count`
    /// vertices.
    fn ensure_log_sections(&mut self, count: usize) -> Result<()> {
        let sections = count.div_ceil(self.superblock.vertices_per_section as usize);
        let needed = sections as u64 * u64::from(self.superblock.log_region_bytes);
        if needed > self.log.len() {
            // Grow ahead (by half again) so that growth stays rare.
            let region = u64::from(self.superblock.log_region_bytes);
            let target = (needed + needed / 2).div_ceil(region) * region;
            self.check_space_for(&self.log.path.clone(), target - self.log.len())?;
            self.sync()?;
            self.log.grow(target)?;
            self.stats.syncs += 1;
        }
        Ok(())
    }

    /// Brings the per-section arrays and the density tree to the vertex
    /// count.
    pub(crate) fn resize_sections(&mut self) {
        let sections = self.section_count();
        self.log_used.resize(sections, 0);
        self.log_fresh.resize(sections, false);
        self.tree = DensityTree::new(sections.max(1), Thresholds::default());
    }

    fn check_space_for(&self, path: &Path, extra: u64) -> Result<()> {
        if let Some(limit) = self.space_limit {
            let needed = self.file_bytes() + extra;
            if needed > limit {
                return Err(no_space(path, needed, limit));
            }
        }
        Ok(())
    }

    // -----------------------------------------------------------------
    // Rebalancing.
    // -----------------------------------------------------------------

    /// Finds the smallest window around `section` whose density, with
    /// `extra` more slots and its logs merged, is within the tree's bound
    /// for its level, and redistributes it (DGAP §3.1.4); grows the array
    /// when even the root is too dense.
    pub(crate) fn make_room(&mut self, section: usize, extra: u64) -> Result<()> {
        let height = self.tree.height();
        let vps = self.superblock.vertices_per_section as usize;
        let n = self.vertices.len();
        for level in 0..=height {
            let leaves = self.tree.window(section, level);
            let (first, end) = (leaves.start * vps, (leaves.end * vps).min(n));
            let lo = if first == 0 {
                0
            } else {
                self.vertices[first].start
            };
            let hi = self.run_limit(end - 1);
            let need: u64 = (first..end)
                .map(|v| 1 + u64::from(self.vertices[v].live))
                .sum::<u64>()
                + extra;
            let slots = hi - lo;
            let (_, upper) = self.tree.bounds(level);
            let runs = (end - first) as u64;
            if need as f64 <= upper * slots as f64 && slots >= need + runs {
                let bytes = slots * self.stride as u64 * 4;
                if bytes > self.max_undo_bytes {
                    let needed = self.slots_needed();
                    return self.rewrite(self.header.capacity.max(grown_capacity(0, needed)), n);
                }
                return self.rebalance_window(leaves, first, end, lo, hi, level);
            }
        }
        let needed = self.slots_needed() + extra;
        self.rewrite(grown_capacity(self.header.capacity, needed), n)
    }

    /// The new layout of vertices `first..end` over slots `lo..hi`: every
    /// run's new start, and the window's new content.
    fn layout_window(
        &self,
        first: usize,
        end: usize,
        lo: u64,
        hi: u64,
        level: u32,
    ) -> (Vec<u64>, Vec<u32>) {
        let stride = self.stride;
        let lengths: Vec<u32> = (first..end).map(|v| self.vertices[v].live).collect();
        let used: u64 = lengths.iter().map(|&l| 1 + u64::from(l)).sum();
        let free = (hi - lo - used) as usize;
        let gaps = gaps_for(first, &lengths, free, level);
        let mut content = vec![0u32; (hi - lo) as usize * stride];
        let mut starts = Vec::with_capacity(end - first);
        let mut at = 0usize;
        for (i, v) in (first..end).enumerate() {
            starts.push(lo + at as u64);
            content[at * stride] = PIVOT | v as u32;
            at += 1;
            self.for_each_live(v as VertexId, |dst, weight_bits| {
                content[at * stride] = LIVE | dst;
                if stride == 2 {
                    content[at * stride + 1] = weight_bits;
                }
                at += 1;
            });
            at += gaps[i];
        }
        debug_assert_eq!(at as u64, hi - lo);
        (starts, content)
    }

    /// Redistributes vertices `first..end` over slots `lo..hi` in place,
    /// merging the edge logs of sections `leaves` (DGAP §3.1.4).
    ///
    /// The mapping is private, so the moves stay in memory: the file keeps
    /// the window as of the last sync. The window is queued for the next
    /// sync, which saves its on-disk bytes in the undo log and makes them
    /// durable *before* writing any of the window's new pages (group
    /// commit: one undo barrier per sync, however many rebalances).
    fn rebalance_window(
        &mut self,
        leaves: std::ops::Range<usize>,
        first: usize,
        end: usize,
        lo: u64,
        hi: u64,
        level: u32,
    ) -> Result<()> {
        let (starts, content) = self.layout_window(first, end, lo, hi, level);
        let stride = self.stride as u64;
        let array_offset = EDGES_HEADER_BYTES as u64 + lo * stride * 4;
        let array_len = (hi - lo) * stride * 4;
        let region = u64::from(self.superblock.log_region_bytes);
        let log_offset = leaves.start as u64 * region;
        let log_len = (leaves.end - leaves.start) as u64 * region;
        self.edges.bytes_mut()[array_offset as usize..(array_offset + array_len) as usize]
            .copy_from_slice(bytemuck::cast_slice(&content));
        self.edges.mark(array_offset, array_len);
        let generation = self.header.generation;
        let region_words = self.region_words();
        {
            let words: &mut [u32] = bytemuck::cast_slice_mut(self.log.bytes_mut());
            for section in leaves.clone() {
                let base = section * region_words;
                words[base..base + LOG_HEADER_WORDS].copy_from_slice(&log_header(generation, 0));
                words[base + LOG_HEADER_WORDS..base + region_words].fill(0);
            }
        }
        self.log.mark(log_offset, log_len);
        // A window holding vertices created since the last sync holds
        // pivots written since then; the vertices after it are newer still.
        // Undoing the window alone would leave those later pivots after a
        // gap in the ids, so its undo segment runs to the end of the array
        // and of the logs: undoing it removes every vertex created since
        // the last sync, all of them unacknowledged.
        let (undo_hi, undo_end) = if end > self.synced_vertex_count {
            (
                self.header.capacity,
                self.section_count().max(leaves.end) as u64,
            )
        } else {
            (hi, leaves.end as u64)
        };
        self.pending_windows.push(UndoSegment {
            lo,
            hi: undo_hi,
            first_section: leaves.start as u64,
            end_section: undo_end,
        });

        let mut moved = 0u64;
        for (v, &start) in (first..end).zip(&starts) {
            let entry = &mut self.vertices[v];
            entry.start = start;
            entry.array_len = entry.live;
            entry.log_count = 0;
            entry.log_head = 0;
            moved += 1 + u64::from(entry.live);
        }
        for section in leaves {
            self.log_used[section] = 0;
            self.log_fresh[section] = true;
        }
        self.stats.rebalances += 1;
        self.stats.elements_moved += moved;
        self.stats.array_bytes_written += array_len;
        self.stats.log_bytes_written += log_len;
        fail_point("rebalance-done");
        // Bound the undo record: past the limit, sync now.
        if self.pending_windows.len() > 64 {
            self.pending_windows = merged_windows(&self.pending_windows);
        }
        let queued: u64 = self
            .pending_windows
            .iter()
            .map(|w| (w.hi - w.lo) * stride * 4 + (w.end_section - w.first_section) * region)
            .sum();
        if queued > self.max_undo_bytes {
            self.sync()?;
        }
        Ok(())
    }

    /// The undo record of the queued windows: their on-disk bytes (the
    /// file has not changed there since the last sync).
    fn undo_record(&self) -> Result<(UndoHeader, Vec<u8>)> {
        let stride = self.stride as u64;
        let region = u64::from(self.superblock.log_region_bytes);
        let mut body = Vec::new();
        let merged = merged_windows(&self.pending_windows);
        for window in &merged {
            body.extend_from_slice(&window.encode());
            let array_offset = EDGES_HEADER_BYTES as u64 + window.lo * stride * 4;
            body.extend_from_slice(
                &self
                    .edges
                    .read_disk(array_offset, (window.hi - window.lo) * stride * 4)?,
            );
            body.extend_from_slice(&self.log.read_disk(
                window.first_section * region,
                (window.end_section - window.first_section) * region,
            )?);
        }
        let header = UndoHeader {
            armed: true,
            generation: self.header.generation,
            segments: merged.len() as u64,
            body_len: body.len() as u64,
            body_crc: crc32fast::hash(&body),
        };
        Ok((header, body))
    }

    /// Writes the undo record's body, then its armed header, and makes both
    /// durable with one fdatasync. The header's checksum covers the body,
    /// so a record torn by a crash before the fdatasync completed is
    /// recognised (and nothing had been written over yet).
    pub(crate) fn arm_undo(&mut self, header: &UndoHeader, body: &[u8]) -> Result<()> {
        let needed = UNDO_HEADER_BYTES as u64 + body.len() as u64;
        let current = self.undo_len();
        if needed > current {
            self.check_space_for(&self.undo.path.clone(), needed - current)?;
            allocate(&self.undo.file, &self.undo.path, needed)?;
        }
        let path = &self.undo.path;
        self.undo
            .file
            .write_all_at(body, UNDO_HEADER_BYTES as u64)
            .map_err(|e| io(path, e))?;
        let encoded = header.encode();
        self.undo
            .file
            .write_all_at(&encoded, 0)
            .map_err(|e| io(path, e))?;
        self.undo.file.sync_data().map_err(|e| io(path, e))?;
        self.stats.undo_bytes_written += (body.len() + encoded.len()) as u64;
        self.stats.bytes_flushed += (body.len() + encoded.len()) as u64;
        Ok(())
    }

    /// Marks the undo log idle, durably: the windows it saved are written.
    pub(crate) fn disarm_undo(&mut self) -> Result<()> {
        let idle = UndoHeader {
            armed: false,
            generation: 0,
            segments: 0,
            body_len: 0,
            body_crc: 0,
        }
        .encode();
        let path = &self.undo.path;
        self.undo
            .file
            .write_all_at(&idle, 0)
            .map_err(|e| io(path, e))?;
        self.undo.file.sync_data().map_err(|e| io(path, e))?;
        self.stats.undo_bytes_written += idle.len() as u64;
        self.stats.bytes_flushed += idle.len() as u64;
        Ok(())
    }

    /// Rewrites the whole array into a new file of `capacity` slots for
    /// `vertex_count` vertices (the new ones empty), every vertex's logged
    /// edges merged, tombstones dropped: written to `edges.dat.tmp`,
    /// fsynced, renamed over `edges.dat`, directory fsynced. The new file
    /// carries the next generation, which makes every edge-log region
    /// stale at once. A crash before the rename leaves the old array and
    /// its logs; after it, the new array.
    pub(crate) fn rewrite(&mut self, capacity: u64, vertex_count: usize) -> Result<()> {
        let n = self.vertices.len();
        let before = self.header.capacity;
        let lengths: Vec<u32> = (0..vertex_count)
            .map(|v| self.vertices.get(v).map_or(0, |e| e.live))
            .collect();
        self.rewrite_from(capacity, &lengths, |store, v, out| {
            if v < n {
                store.for_each_live(v as VertexId, |d, w| out.push((d, w)));
            }
        })?;
        self.stats.resizes += u64::from(self.header.capacity > before);
        Ok(())
    }

    /// The rewrite of [`DurableVcsr::rewrite`] with each vertex's edges
    /// from `edges_of` (also the bulk build's path).
    pub(crate) fn rewrite_from(
        &mut self,
        capacity: u64,
        lengths: &[u32],
        mut edges_of: impl FnMut(&Self, usize, &mut Vec<(u32, u32)>),
    ) -> Result<()> {
        self.check_usable()?;
        let vertex_count = lengths.len();
        let used: u64 = lengths.iter().map(|&l| 1 + u64::from(l)).sum();
        // Room for every run and one free slot each; never more than four
        // times what is needed (a guard against a runaway growth policy).
        let capacity = capacity
            .min((used * 4).max(1 << 12))
            .max(used + vertex_count as u64)
            .max(16);
        let new_header = EdgesHeader {
            stride: self.stride as u32,
            generation: self.header.generation + 1,
            capacity,
        };
        let gaps = gaps_for(0, lengths, (capacity - used) as usize, self.tree.height());
        let temp = self.dir.join(format!("{EDGES_FILE}{TEMP_SUFFIX}"));
        // Writing the new file needs room for both copies at once.
        self.check_space_for(&temp, new_header.file_len())?;
        let mut starts = Vec::with_capacity(vertex_count);
        let written = (|| -> Result<()> {
            let file = File::create(&temp).map_err(|e| io(&temp, e))?;
            allocate(&file, &temp, new_header.file_len())?;
            let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
            out.write_all(&new_header.encode())
                .map_err(|e| io(&temp, e))?;
            let mut slot = 0u64;
            let mut edges = Vec::new();
            let mut words: Vec<u32> = Vec::with_capacity(1 << 16);
            for v in 0..vertex_count {
                starts.push(slot);
                edges.clear();
                edges_of(self, v, &mut edges);
                debug_assert_eq!(edges.len(), lengths[v] as usize);
                words.push(PIVOT | v as u32);
                if self.stride == 2 {
                    words.push(0);
                }
                for &(dst, weight_bits) in &edges {
                    words.push(LIVE | dst);
                    if self.stride == 2 {
                        words.push(weight_bits);
                    }
                }
                words.resize(words.len() + gaps[v] * self.stride, 0);
                slot += 1 + edges.len() as u64 + gaps[v] as u64;
                if words.len() >= 1 << 16 {
                    out.write_all(bytemuck::cast_slice(&words))
                        .map_err(|e| io(&temp, e))?;
                    words.clear();
                }
            }
            out.write_all(bytemuck::cast_slice(&words))
                .map_err(|e| io(&temp, e))?;
            debug_assert_eq!(slot, capacity);
            let file = out.into_inner().map_err(|e| io(&temp, e.into_error()))?;
            file.sync_all().map_err(|e| io(&temp, e))?;
            Ok(())
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(e);
        }
        fail_point("rewrite-written");
        if let Err(e) = self.edges.replace_with(&temp) {
            return self.poison(e);
        }
        fail_point("rewrite-renamed");
        if let Err(e) = sync_dir(&self.dir) {
            return self.poison(e);
        }
        self.header = new_header;
        // The new file holds everything: the queued windows are moot.
        self.pending_windows.clear();
        self.synced_vertex_count = vertex_count;
        self.vertices.resize(vertex_count, VertexEntry::default());
        let mut edge_count = 0u64;
        for (v, (&start, &length)) in starts.iter().zip(lengths).enumerate() {
            self.vertices[v] = VertexEntry {
                start,
                array_len: length,
                live: length,
                log_count: 0,
                log_head: 0,
            };
            edge_count += u64::from(length);
        }
        self.edge_count = edge_count;
        self.log_used.clear();
        self.log_fresh.clear();
        self.resize_sections();
        if let Err(e) = self.ensure_log_sections(vertex_count) {
            return self.poison(e);
        }
        self.stats.rewrites += 1;
        self.stats.elements_moved += used;
        self.stats.rewrite_bytes_written += new_header.file_len();
        self.stats.bytes_flushed += new_header.file_len();
        self.stats.syncs += 2;
        Ok(())
    }

    // -----------------------------------------------------------------
    // Clean-shutdown state.
    // -----------------------------------------------------------------

    fn encode_state(&self) -> Vec<u8> {
        let mut w = format::Writer::default();
        w.bytes(format::STATE_MAGIC)
            .u32(format::FORMAT_VERSION)
            .u64(self.header.generation)
            .u64(self.vertices.len() as u64)
            .u64(self.edge_count)
            .u64(self.log_used.len() as u64);
        w.0.reserve(self.vertices.len() * 24 + self.log_used.len() * 8 + 4);
        for e in &self.vertices {
            w.u64(e.start)
                .u32(e.array_len)
                .u32(e.live)
                .u32(e.log_count)
                .u32(e.log_head);
        }
        for (&used, &fresh) in self.log_used.iter().zip(&self.log_fresh) {
            w.u32(used).u32(u32::from(fresh));
        }
        w.sealed()
    }

    /// Loads the DRAM state written by a clean close, if it describes this
    /// edge array.
    fn load_state(&mut self) -> Result<()> {
        let path = self.dir.join(format::STATE_FILE);
        let bytes = files::read_file(&path)?;
        if bytes.len() < 4 {
            return Err(invalid(&path, "truncated"));
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
            return Err(invalid(
                &path,
                "checksum mismatch: the file is torn or corrupted",
            ));
        }
        let mut r = format::Reader::new(body, &path);
        if r.bytes(8)? != format::STATE_MAGIC {
            return Err(invalid(&path, "bad magic"));
        }
        let version = r.u32()?;
        let generation = r.u64()?;
        if version != format::FORMAT_VERSION
            || generation != self.header.generation
            || generation != self.superblock.state_generation
        {
            return Err(invalid(
                &path,
                format!(
                    "describes edge-array generation {generation}, the array is generation {}",
                    self.header.generation
                ),
            ));
        }
        let n = r.u64()? as usize;
        let edge_count = r.u64()?;
        let sections = r.u64()? as usize;
        if n > format::MAX_VERTICES
            || sections != n.div_ceil(self.superblock.vertices_per_section as usize)
            || body.len() != 44 + n * 24 + sections * 8
        {
            return Err(invalid(&path, "inconsistent vertex or section count"));
        }
        let mut vertices = Vec::with_capacity(n);
        for _ in 0..n {
            vertices.push(VertexEntry {
                start: r.u64()?,
                array_len: r.u32()?,
                live: r.u32()?,
                log_count: r.u32()?,
                log_head: r.u32()?,
            });
        }
        let mut log_used = Vec::with_capacity(sections);
        let mut log_fresh = Vec::with_capacity(sections);
        for _ in 0..sections {
            log_used.push(r.u32()?);
            log_fresh.push(r.u32()? != 0);
        }
        if let Some(armed) = self.read_undo_header()? {
            return Err(invalid(
                &self.undo.path,
                format!("armed at a clean shutdown ({armed:?})"),
            ));
        }
        // Cheap sanity: pivots where the state says.
        let words = self.words();
        let stride = self.stride;
        let ok = vertices.iter().enumerate().all(|(v, e)| {
            e.start < self.header.capacity && words[e.start as usize * stride] == PIVOT | v as u32
        });
        if !ok
            || (sections > 0
                && self.log.len() < sections as u64 * u64::from(self.superblock.log_region_bytes))
        {
            return Err(invalid(&path, "does not match the edge array"));
        }
        self.vertices = vertices;
        self.edge_count = edge_count;
        self.log_used = log_used;
        self.log_fresh = log_fresh;
        self.tree = DensityTree::new(self.section_count().max(1), Thresholds::default());
        Ok(())
    }

    pub(crate) fn read_undo_header(&self) -> Result<Option<UndoHeader>> {
        let mut bytes = vec![0u8; 128];
        let read = self
            .undo
            .file
            .read_at(&mut bytes, 0)
            .map_err(|e| io(&self.undo.path, e))?;
        bytes.truncate(read);
        UndoHeader::decode(&bytes, &self.undo.path)
    }
}

/// The union of queued windows: windows whose slot ranges overlap become
/// one (nested windows, and a window run to the end of the array, cover
/// others), so the undo record saves each byte once.
fn merged_windows(windows: &[UndoSegment]) -> Vec<UndoSegment> {
    let mut sorted = windows.to_vec();
    sorted.sort_unstable_by_key(|w| (w.lo, std::cmp::Reverse(w.hi)));
    let mut merged: Vec<UndoSegment> = Vec::with_capacity(sorted.len());
    for w in sorted {
        match merged.last_mut() {
            Some(last) if w.lo < last.hi || w.first_section < last.end_section => {
                last.hi = last.hi.max(w.hi);
                last.first_section = last.first_section.min(w.first_section);
                last.end_section = last.end_section.max(w.end_section);
            }
            _ => merged.push(w),
        }
    }
    merged
}

/// Each run's free slots after it, by VCSR's degree-proportional policy
/// (every run at least one when there is room, the rest by length).
fn gaps_for(first_run: usize, lengths: &[u32], free: usize, level: u32) -> Vec<usize> {
    let mut gaps = vec![0usize; lengths.len()];
    let mut policy = DegreeProportional::default();
    policy.distribute(
        &Window {
            first_run,
            lengths,
            free_slots: free,
            level,
        },
        &mut gaps,
    );
    gaps
}

/// The capacity after a growth: half again, and at least enough for
/// `needed` slots at the rewrite density.
fn grown_capacity(current: u64, needed: u64) -> u64 {
    (current + current / 2).max((needed as f64 / REWRITE_DENSITY).ceil() as u64)
}

fn check_space(limit: Option<u64>, path: &Path, bytes: u64) -> Result<()> {
    match limit {
        Some(limit) if bytes > limit => Err(no_space(path, bytes, limit)),
        _ => Ok(()),
    }
}

/// Creates `path` holding `prefix` and zero-filled to `len` bytes, durably.
fn write_new_file(path: &Path, prefix: &[u8], len: u64) -> Result<()> {
    let mut file = File::create(path).map_err(|e| io(path, e))?;
    allocate(&file, path, len.max(prefix.len() as u64))?;
    file.write_all(prefix).map_err(|e| io(path, e))?;
    file.sync_all().map_err(|e| io(path, e))
}

/// Removes leftovers of interrupted atomic writes.
fn remove_temp_files(dir: &Path) -> Result<u64> {
    let mut removed = 0;
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let entry = entry.map_err(|e| io(dir, e))?;
        if entry.file_name().to_string_lossy().ends_with(TEMP_SUFFIX) {
            std::fs::remove_file(entry.path()).map_err(|e| io(&entry.path(), e))?;
            removed += 1;
        }
    }
    Ok(removed)
}

impl Drop for DurableVcsr {
    /// Closes cleanly (errors are lost: call [`DurableVcsr::close`] to see
    /// them), and removes a temporary directory.
    fn drop(&mut self) {
        if self.remove_on_drop {
            let _ = std::fs::remove_dir_all(&self.dir);
        } else if self.poisoned.is_none() {
            let _ = self.close_inner();
        }
    }
}
