//! Creating, opening (writable or read-only) and closing a store.

use super::{DurableVcsr, StoreDir, UndoLog};
use crate::files::{read_file, write_atomic, write_new_file};
use crate::format::wal::record_stride;
use crate::format::{
    EDGES_HEADER_BYTES, EdgesHeader, Mark, PAGE_BYTES, SUPERBLOCK_FILE, Side as SideKind,
    Superblock, TEMP_SUFFIX, invalid, io, page_checksum, undo_file,
};
use crate::lock::{ReadersLock, WriterLock};
use crate::options::{DurableOptions, SyncPolicy};
use crate::side::{Layout, Side, Sums};
use crate::stats::RecoveryReport;
use crate::wal::{Wal, WalContents};
use dyngraph_core::cow::SnapshotRegistry;
use dyngraph_core::{EdgeSource, Error, Result, Semantics, check_limit};
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

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

/// Refuses a path that is not a directory holding a store, saying what
/// it holds instead.
fn check_store_dir(dir: &Path) -> Result<()> {
    match DurableVcsr::inspect_dir(dir)? {
        StoreDir::Store { .. } => Ok(()),
        StoreDir::Vacant if !dir.exists() => Err(io(
            dir,
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"),
        )),
        StoreDir::Vacant => Err(invalid(
            &dir.join(SUPERBLOCK_FILE),
            "missing: the directory is empty, it holds no durable store",
        )),
        StoreDir::NotADirectory => Err(invalid(
            dir,
            "a file, not a durable store directory (a store is the directory given to \
             `replay --store durable --dir`)",
        )),
        StoreDir::Damaged { reason } => Err(invalid(dir, reason)),
        StoreDir::Foreign { entries } => Err(invalid(
            dir,
            format!(
                "holds no durable store: its files ({}) are not a store's",
                entries.join(", ")
            ),
        )),
    }
}

/// Writes the files of a new, empty side: the array (header and free
/// slots), its checksums, an empty edge log.
fn create_side_files(
    dir: &Path,
    kind: SideKind,
    stride: u32,
    capacity: u64,
    space: Option<u64>,
) -> Result<()> {
    let header = EdgesHeader {
        side: kind,
        stride,
        generation: 1,
        capacity,
        checkpoint: Mark::default(),
        sidecar: None,
    };
    let path = dir.join(kind.edges_file());
    crate::side::check_space(dir, space, &path, header.file_len())?;
    let head = header.encode();
    write_new_file(&path, &head, header.file_len())?;
    let len = header.file_len() as usize;
    let zeros = [0u8; PAGE_BYTES];
    let sums: Vec<u32> = (0..header.pages())
        .map(|page| {
            let bytes = if page == 0 {
                &head[..]
            } else {
                &zeros[..(len - page * PAGE_BYTES).min(PAGE_BYTES)]
            };
            page_checksum(page, bytes)
        })
        .collect();
    Sums::create(dir, kind, &header, sums)?;
    write_new_file(&dir.join(kind.log_file()), &[], 0)
}

/// Removes leftovers: temporary files of interrupted atomic writes, and
/// checksum and sidecar files of other generations than `keep`.
fn remove_leftovers(dir: &Path, keep: &[String]) -> Result<(u64, u64)> {
    let (mut temps, mut stale) = (0, 0);
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let entry = entry.map_err(|e| io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_temp = name.ends_with(TEMP_SUFFIX);
        let is_generation_file = (name.ends_with(".sum") && name.contains("edges-"))
            || (name.starts_with("sidecar-") && name.ends_with(".bin"));
        if is_temp || (is_generation_file && !keep.contains(&name)) {
            std::fs::remove_file(entry.path()).map_err(|e| io(&entry.path(), e))?;
            if is_temp {
                temps += 1;
            } else {
                stale += 1;
            }
        }
    }
    Ok((temps, stale))
}

impl DurableVcsr {
    // -----------------------------------------------------------------
    // Create.
    // -----------------------------------------------------------------

    /// Creates an empty store in `dir` (created if missing). Fails if `dir`
    /// already holds a store. `options.dir` is ignored in favour of `dir`.
    pub fn create(dir: impl AsRef<Path>, options: DurableOptions) -> Result<Self> {
        Self::create_in::<[dyngraph_core::Edge]>(dir.as_ref().to_path_buf(), false, options, None)
    }

    /// Creates a store where `options.dir` says, or in a fresh temporary
    /// directory (removed on drop) when it says nothing.
    pub fn create_with(options: DurableOptions) -> Result<Self> {
        Self::create_from::<[dyngraph_core::Edge]>(options, None)
    }

    /// [`DurableVcsr::create_with`], laying `edges` out first (the bulk
    /// build of `FromEdges`).
    pub(crate) fn create_from<S: EdgeSource + ?Sized>(
        options: DurableOptions,
        edges: Option<&S>,
    ) -> Result<Self> {
        // Refuse bad options before making a temporary directory for them.
        options.check()?;
        match options.dir.clone() {
            Some(dir) => Self::create_in(dir, false, options, edges),
            None => Self::create_in(temporary_dir()?, true, options, edges),
        }
    }

    /// Creates the files, bulk-loads `edges` if given, and writes the
    /// superblock last: a directory with a superblock is a complete store,
    /// so a crash during creation leaves none.
    fn create_in<S: EdgeSource + ?Sized>(
        dir: PathBuf,
        remove_on_drop: bool,
        options: DurableOptions,
        edges: Option<&S>,
    ) -> Result<Self> {
        options.check()?;
        // Nothing that is not ours is written over: only a missing or
        // empty directory takes a new store.
        match Self::inspect_dir(&dir)? {
            StoreDir::Vacant => {}
            StoreDir::NotADirectory => {
                return Err(invalid(
                    &dir,
                    "a file, not a directory: a durable store is a directory",
                ));
            }
            StoreDir::Store { .. } => {
                return Err(Error::InvalidArgument(format!(
                    "{} already holds a durable store; open it instead",
                    dir.display()
                )));
            }
            StoreDir::Damaged { reason } => return Err(invalid(&dir, reason)),
            StoreDir::Foreign { entries } => {
                return Err(Error::InvalidArgument(format!(
                    "{} is not empty ({}): a new durable store goes in an empty or new \
                     directory, and nothing in this one is written over",
                    dir.display(),
                    entries.join(", ")
                )));
            }
        }
        std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
        let writer = WriterLock::acquire(&dir)?;
        let readers = ReadersLock::open(&dir)?;
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
            in_edges: options.store.in_edges,
            vertices_per_section: options.vertices_per_section,
            log_region_bytes: options.log_region_bytes,
            vertex_limit: options.store.vertex_limit.min(crate::format::MAX_VERTICES) as u64,
            normal_shutdown: false,
            state_lsn: 0,
        };
        superblock.check(&sb_path)?;
        remove_leftovers(&dir, &[])?;
        let capacity = options.initial_capacity.max(16);
        let stride = if options.store.weighted { 2 } else { 1 };
        create_side_files(&dir, SideKind::Out, stride, capacity, options.space_limit)?;
        if superblock.in_edges {
            create_side_files(&dir, SideKind::In, 1, capacity, options.space_limit)?;
        }
        write_new_file(&dir.join(undo_file(0)), &[], 0)?;
        let record_words = record_stride(superblock.weighted);
        Wal::write_fresh(&dir, record_words, Mark::default())?;
        let contents = Wal::read(&dir, record_words)?;
        let mut store = Self::assemble(
            dir,
            remove_on_drop,
            Some(writer),
            readers,
            superblock,
            &options,
            &contents,
        )?;
        for side in store.sides_mut() {
            side.resize_sections();
        }
        if let Some(edges) = edges {
            store.bulk_load(edges)?;
        }
        // The keys before the superblock: a store that exists names every
        // vertex of its edges.
        if let Some(keys) = &options.keys {
            crate::keys::save_keys(&store.dir, keys, None)?;
        }
        let bytes = superblock.encode();
        write_atomic(&store.dir, SUPERBLOCK_FILE, &bytes)?;
        store.stats.meta_bytes_written += bytes.len() as u64 + EDGES_HEADER_BYTES as u64;
        store.stats.syncs += 6;
        store.start_committer(&options)?;
        store.closed = false;
        Ok(store)
    }

    /// Maps the files of a store whose superblock is `superblock`, with an
    /// empty DRAM state (the caller loads or recovers it) and the log
    /// positioned after the valid groups of `contents`.
    fn assemble(
        dir: PathBuf,
        remove_on_drop: bool,
        writer: Option<WriterLock>,
        readers: ReadersLock,
        superblock: Superblock,
        options: &DurableOptions,
        contents: &WalContents,
    ) -> Result<Self> {
        let read_only = writer.is_none();
        let layout = Layout::new(&superblock, options);
        let out = Side::open(&dir, SideKind::Out, &superblock, layout.clone(), read_only)?;
        let inc = if superblock.in_edges {
            Some(Side::open(
                &dir,
                SideKind::In,
                &superblock,
                layout,
                read_only,
            )?)
        } else {
            None
        };
        let undo = if read_only {
            None
        } else {
            let path = dir.join(undo_file(0));
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| io(&path, e))?;
            Some(UndoLog { path, file })
        };
        let wal = Wal::open(
            &dir,
            record_stride(superblock.weighted),
            contents.valid_end,
            contents.torn_bytes,
            contents.header.base,
            read_only,
            options.space_limit,
        )?;
        Ok(Self {
            dir,
            remove_on_drop,
            _writer: writer,
            readers,
            read_only,
            superblock,
            semantics: if superblock.simple {
                Semantics::Simple
            } else {
                Semantics::Multigraph
            },
            vertex_limit: superblock.vertex_limit as usize,
            out,
            inc,
            wal,
            undo,
            pending: Vec::new(),
            applied: Mark::default(),
            sync_policy: options.sync,
            since_commit: 0,
            checkpoint_bytes: options.checkpoint_bytes,
            checkpoint_array_divisor: options.checkpoint_array_divisor,
            max_changed_bytes: options.max_changed_bytes,
            stats: Default::default(),
            snapshots: SnapshotRegistry::default(),
            recovery: RecoveryReport::default(),
            batch_scratch: Default::default(),
            sidecar: None,
            staged_sidecar: None,
            poisoned: None,
            // Not open yet: if opening fails half-way, dropping this must
            // not "close cleanly" a store whose DRAM state is not built.
            closed: true,
        })
    }

    /// Starts the group committer when the policy asks for one.
    fn start_committer(&mut self, options: &DurableOptions) -> Result<()> {
        if let SyncPolicy::Group(policy) = options.sync
            && !self.read_only
        {
            self.wal.start_committer(policy)?;
        }
        Ok(())
    }

    /// Lays `edges` out into the empty store being created, both sides in
    /// one rewrite each (grouped by source, input order kept per vertex,
    /// repeats dropped under simple semantics), and starts the log after
    /// them.
    fn bulk_load<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<()> {
        let n = edges.vertex_bound();
        check_limit(self.vertex_limit, edges.max_vertex())?;
        if n == 0 {
            return Ok(());
        }
        if n > self.vertex_limit {
            return Err(Error::VertexLimit {
                vertex: n as u64 - 1,
                needed: n as u64,
                limit: self.vertex_limit as u64,
            });
        }
        let weighted = edges.is_weighted() && self.out.stride == 2;
        // Counting sort by source, keeping input order within a source.
        let mut offsets = vec![0u64; n + 1];
        edges.for_each_in(0..edges.len(), |s, _, _| offsets[s as usize + 1] += 1);
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut next = offsets.clone();
        let mut targets = vec![(0u32, 0u32); edges.len()];
        edges.for_each_in(0..edges.len(), |s, d, w| {
            let at = &mut next[s as usize];
            targets[*at as usize] = (d, if weighted { w.to_bits() } else { 0 });
            *at += 1;
        });
        let mut lengths: Vec<u32> = (0..n)
            .map(|v| (offsets[v + 1] - offsets[v]) as u32)
            .collect();
        if self.semantics == Semantics::Simple {
            // Keep the first arrival of each (src, dst): compact in place.
            let mut seen = std::collections::HashSet::new();
            for v in 0..n {
                seen.clear();
                let (from, to) = (offsets[v] as usize, offsets[v + 1] as usize);
                let mut kept = from;
                for i in from..to {
                    if seen.insert(targets[i].0) {
                        targets[kept] = targets[i];
                        kept += 1;
                    }
                }
                lengths[v] = (kept - from) as u32;
            }
        }
        let kept: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        let mark = Mark {
            lsn: kept,
            edges: kept,
            vertices: n as u64,
            inserted: kept,
            deleted: 0,
        };
        let capacity_for = |used: u64, side: &Side| {
            ((used as f64 / crate::side::REWRITE_DENSITY).ceil() as u64).max(side.capacity())
        };
        let used = n as u64 + kept;
        let capacity = capacity_for(used, &self.out);
        self.out
            .rewrite_from(capacity, &lengths, mark, None, |_, v, out| {
                let from = offsets[v] as usize;
                out.extend_from_slice(&targets[from..from + lengths[v] as usize]);
            })?;
        if let Some(inc) = &mut self.inc {
            // The transposed lists: sources grouped by destination.
            let mut in_offsets = vec![0u64; n + 1];
            for v in 0..n {
                let from = offsets[v] as usize;
                for &(d, _) in &targets[from..from + lengths[v] as usize] {
                    in_offsets[d as usize + 1] += 1;
                }
            }
            for v in 0..n {
                in_offsets[v + 1] += in_offsets[v];
            }
            let mut at = in_offsets.clone();
            let mut sources = vec![0u32; kept as usize];
            for v in 0..n {
                let from = offsets[v] as usize;
                for &(d, _) in &targets[from..from + lengths[v] as usize] {
                    sources[at[d as usize] as usize] = v as u32;
                    at[d as usize] += 1;
                }
            }
            let in_lengths: Vec<u32> = (0..n)
                .map(|v| (in_offsets[v + 1] - in_offsets[v]) as u32)
                .collect();
            let capacity = capacity_for(used, inc);
            inc.rewrite_from(capacity, &in_lengths, mark, None, |_, v, out| {
                let from = in_offsets[v] as usize;
                out.extend(
                    sources[from..from + in_lengths[v] as usize]
                        .iter()
                        .map(|&s| (s, 0)),
                );
            })?;
        }
        self.wal.reset(mark)?;
        self.applied = mark;
        Ok(())
    }

    // -----------------------------------------------------------------
    // Open.
    // -----------------------------------------------------------------

    /// Opens the store in `dir` for writing with the default runtime
    /// options ([`SyncPolicy::EveryBatch`], edge logs on). A clean previous
    /// close loads the vertex array from the state file; otherwise the
    /// store is recovered (undo log, checksums, pivot scan, edge logs,
    /// write-ahead log) before this returns. Either way it then takes more
    /// updates: they append to the graph that was kept.
    /// [`DurableVcsr::recovery_report`] tells what was found and done.
    ///
    /// A second writer of the same directory is refused with an error
    /// naming the directory and the holder; read-only opens
    /// ([`DurableVcsr::open_read_only`]) may run alongside.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(dir, &DurableOptions::default())
    }

    /// [`DurableVcsr::open`] with the runtime knobs of `options` (sync
    /// policy, edge log on/off, merge fill, undo and checkpoint thresholds,
    /// checksum verification, space limit). The layout (semantics, weights,
    /// in-edges, section size, log region size) comes from the superblock;
    /// `options.store` and `options.dir` are ignored.
    pub fn open_with(dir: impl AsRef<Path>, options: &DurableOptions) -> Result<Self> {
        let started = Instant::now();
        let dir = dir.as_ref().to_path_buf();
        options.check()?;
        check_store_dir(&dir)?;
        let writer = WriterLock::acquire(&dir)?;
        let readers = ReadersLock::open(&dir)?;
        let sb_path = dir.join(SUPERBLOCK_FILE);
        let superblock = Superblock::decode(&read_file(&sb_path)?, &sb_path)?;
        let (temps, _) = remove_leftovers(&dir, &Self::generation_files(&dir)?)?;
        let contents = Wal::read(&dir, record_stride(superblock.weighted))?;
        let mut store = Self::assemble(
            dir,
            false,
            Some(writer),
            readers,
            superblock,
            options,
            &contents,
        )?;
        store.recovery.temp_files_removed = temps;
        store.load_or_recover(contents, options.verify_on_open)?;
        // From here on the store may change: clear NORMAL_SHUTDOWN first
        // (after a crash it is clear already).
        if store.superblock.normal_shutdown {
            store.superblock.normal_shutdown = false;
            store.write_superblock()?;
        }
        let (_, stale) = remove_leftovers(&store.dir, &store.current_generation_files())?;
        store.recovery.stale_files_removed = stale;
        store.start_committer(options)?;
        store.closed = false;
        store.recovery.elapsed = started.elapsed();
        Ok(store)
    }

    /// Opens the store in `dir` read-only: the files are mapped, not
    /// copied, and never written; kernels run on it as on any store, and
    /// updates are refused. A writer may hold the store at the same time
    /// (its checkpoints then rewrite the arrays into new files, leaving this
    /// view on the old ones): the view is the graph as of the log's last
    /// complete group when it was opened, and does not follow later
    /// updates. A store that was not closed cleanly is recovered in memory
    /// (the undo record restored and the log replayed into private pages);
    /// [`DurableVcsr::recovery_report`] says so.
    pub fn open_read_only(dir: impl AsRef<Path>) -> Result<Self> {
        Self::open_read_only_with(dir, &DurableOptions::default())
    }

    /// [`DurableVcsr::open_read_only`] with `options.verify_on_open` (and
    /// the layout knobs used by an in-memory replay).
    pub fn open_read_only_with(dir: impl AsRef<Path>, options: &DurableOptions) -> Result<Self> {
        let started = Instant::now();
        let dir = dir.as_ref().to_path_buf();
        check_store_dir(&dir)?;
        // A writer may rewrite files between the reads below: retry when
        // the directory changed under an attempt that failed.
        let mut attempts = 0;
        loop {
            let before = Self::fingerprint(&dir);
            match Self::try_open_read_only(&dir, options) {
                Ok(mut store) => {
                    store.recovery.elapsed = started.elapsed();
                    return Ok(store);
                }
                Err(e) => {
                    attempts += 1;
                    if attempts >= 20 || Self::fingerprint(&dir) == before {
                        return Err(e);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
            }
        }
    }

    fn try_open_read_only(dir: &Path, options: &DurableOptions) -> Result<Self> {
        let readers = ReadersLock::share(dir)?;
        let sb_path = dir.join(SUPERBLOCK_FILE);
        let superblock = Superblock::decode(&read_file(&sb_path)?, &sb_path)?;
        let contents = Wal::read(dir, record_stride(superblock.weighted))?;
        let mut store = Self::assemble(
            dir.to_path_buf(),
            false,
            None,
            readers,
            superblock,
            options,
            &contents,
        )?;
        store.recovery.read_only = true;
        store.load_or_recover(contents, options.verify_on_open)?;
        Ok(store)
    }

    /// What changes when a writer works: the names and sizes of the files.
    fn fingerprint(dir: &Path) -> Vec<(String, u64, u64)> {
        use std::os::unix::fs::MetadataExt;
        let mut files: Vec<(String, u64, u64)> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| {
                        let e = e.ok()?;
                        let m = e.metadata().ok()?;
                        Some((
                            e.file_name().to_string_lossy().into_owned(),
                            m.ino(),
                            m.len(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    }

    /// The generation-named files the superblock's store may need (all the
    /// checksum files that exist for the arrays' current generations, and
    /// every sidecar: decided precisely after the arrays are read).
    fn generation_files(dir: &Path) -> Result<Vec<String>> {
        let mut keep = Vec::new();
        for kind in [SideKind::Out, SideKind::In] {
            let path = dir.join(kind.edges_file());
            if let Ok(bytes) = read_head(&path)
                && let Ok(header) = EdgesHeader::decode(&bytes, &path)
            {
                keep.push(crate::format::sums_file(kind, header.generation));
                if let Some((lsn, ..)) = header.sidecar {
                    keep.push(crate::format::sidecar_file(lsn));
                }
            }
        }
        Ok(keep)
    }

    /// The generation-named files the open store uses.
    fn current_generation_files(&self) -> Vec<String> {
        let mut keep: Vec<String> = self
            .sides()
            .map(|s| crate::format::sums_file(s.kind, s.header.generation))
            .collect();
        if let Some((lsn, ..)) = self.out.header.sidecar {
            keep.push(crate::format::sidecar_file(lsn));
        }
        keep
    }

    /// Whether `path` is a durable store's directory (it holds a
    /// superblock with this store's magic): how a command line tells a
    /// kept store from a graph file, as `.dgcsr` files are told by magic.
    pub fn is_store_dir(path: impl AsRef<Path>) -> bool {
        let sb = path.as_ref().join(SUPERBLOCK_FILE);
        read_head(&sb).is_ok_and(|head| head.starts_with(crate::format::SUPERBLOCK_MAGIC))
    }

    /// Opens the store in `dir` to append to it (recovering it first if
    /// the last run crashed), or creates one there when `dir` holds none:
    /// `replay --store durable --dir D` on today's and tomorrow's edges.
    /// Returns the store and whether it was created. When it is opened,
    /// the layout (semantics, weights, in-edges, sections) is the
    /// existing store's, and `options.store` must agree with it, or this
    /// fails saying which.
    pub fn open_or_create(dir: impl AsRef<Path>, options: &DurableOptions) -> Result<(Self, bool)> {
        let dir = dir.as_ref();
        if !Self::is_store_dir(dir) {
            return Ok((Self::create(dir, options.clone())?, true));
        }
        let store = Self::open_with(dir, options)?;
        let sb = store.superblock;
        let want = options.store;
        let mut differences = Vec::new();
        if sb.simple != (want.semantics == Semantics::Simple) {
            differences.push(format!(
                "semantics {} (asked {:?})",
                if sb.simple { "simple" } else { "multigraph" },
                want.semantics
            ));
        }
        if sb.weighted != want.weighted {
            differences.push(format!(
                "weighted {} (asked {})",
                sb.weighted, want.weighted
            ));
        }
        if sb.in_edges != want.in_edges {
            differences.push(format!(
                "in-edges {} (asked {})",
                sb.in_edges, want.in_edges
            ));
        }
        let keyed = dir.join(crate::KEYS_FILE).exists();
        if keyed != options.keys.is_some() {
            differences.push(if keyed {
                "its vertices named by keys (asked for vertex ids as they are)".to_string()
            } else {
                "vertex ids as they are, no keys (asked for keyed vertices)".to_string()
            });
        }
        if !differences.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "{} holds a durable store with {}: append with the same options, or pick \
                 another directory",
                dir.display(),
                differences.join(", ")
            )));
        }
        Ok((store, false))
    }

    /// Opens the store in `dir` (recovering it if needed), closes it
    /// cleanly and returns what opening it did (`dyngraph recover PATH`).
    pub fn recover_dir(dir: impl AsRef<Path>) -> Result<RecoveryReport> {
        let store = Self::open(dir)?;
        let report = store.recovery.clone();
        store.close()?;
        Ok(report)
    }

    /// Checks the store in `dir` without changing it: a read-only open
    /// (every page and edge-log region against its checksum, the log
    /// groups, a scan of the pivots and chains, and an in-memory recovery if
    /// the store was not closed cleanly) followed by
    /// [`DurableVcsr::validate`]. It judges what a reopen would serve: a
    /// checkpoint cut short by a crash is undone first, in memory, as
    /// recovery undoes it, and the pages are checked after that (the
    /// files' own pages fail their checksums until `recover` writes the
    /// undo record back). Returns what the open found; a damaged store is
    /// an error naming the file and the byte offset.
    pub fn check_dir(dir: impl AsRef<Path>) -> Result<RecoveryReport> {
        let store = Self::open_read_only(dir)?;
        let undone =
            !store.recovery.undo_restored.is_empty() || store.recovery.undo_ranges_restored > 0;
        store.validate_with(!undone)?;
        Ok(store.recovery.clone())
    }

    // -----------------------------------------------------------------
    // Close.
    // -----------------------------------------------------------------

    /// Makes every applied update durable, checkpoints the arrays, writes
    /// the DRAM vertex array to the state file and sets NORMAL_SHUTDOWN, so
    /// the next open is fast. Dropping the store does the same but cannot
    /// report errors. A read-only store just lets go of its files.
    pub fn close(mut self) -> Result<()> {
        self.close_inner()
    }

    pub(crate) fn close_inner(&mut self) -> Result<()> {
        if self.closed || self.read_only {
            self.closed = true;
            return Ok(());
        }
        self.check_usable()?;
        self.flush_pending()?;
        self.wal.stop(true)?;
        self.checkpoint_inner(true)?;
        let state = self.encode_state();
        write_atomic(&self.dir, crate::format::STATE_FILE, &state)?;
        self.stats.meta_bytes_written += state.len() as u64;
        crate::failpoint::fail_point("close-state-written");
        self.superblock.normal_shutdown = true;
        self.superblock.state_lsn = self.applied.lsn;
        self.write_superblock()?;
        self.closed = true;
        Ok(())
    }

    /// Drops the store the way a crash of the process would: no commit, no
    /// checkpoint, no state file, NORMAL_SHUTDOWN left clear, so the next
    /// open recovers. Updates not yet handed to the log are lost; what was
    /// written to the log or the mappings stays in the page cache (as after
    /// a `SIGKILL`). For tests and tools that exercise recovery.
    pub fn drop_without_close(mut self) {
        self.pending.clear();
        let _ = self.wal.stop(false);
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
}

/// The first page of a file (a header), or an error.
fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = vec![0u8; EDGES_HEADER_BYTES];
    let mut file = std::fs::File::open(path)?;
    let n = file.read(&mut bytes)?;
    bytes.truncate(n);
    Ok(bytes)
}

impl Drop for DurableVcsr {
    /// Closes cleanly (errors are lost: call [`DurableVcsr::close`] to see
    /// them), and removes a temporary directory.
    fn drop(&mut self) {
        if self.remove_on_drop {
            let _ = self.wal.stop(false);
            let _ = std::fs::remove_dir_all(&self.dir);
        } else if self.poisoned.is_none() {
            let _ = self.close_inner();
        }
    }
}
