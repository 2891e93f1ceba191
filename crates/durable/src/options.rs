//! Options of the durable store: the common [`StoreOptions`], the
//! directory, the [`SyncPolicy`] and the layout knobs.

use dyngraph_core::{Error, IdMap, Result, StoreOptions};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// When updates are made durable, i.e. when they are *acknowledged*.
///
/// An update (one inserted or deleted edge, or vertices added) is
/// **acknowledged** once a commit has completed after it: its record is in
/// the write-ahead log and the log was `fdatasync`ed (or a checkpoint wrote
/// it into the arrays). From then on it survives a crash of the process or
/// of the machine (given a device that honours flushes). After a crash, the
/// store holds every acknowledged update and, of the others, a prefix in
/// the order they were applied (never a later one without an earlier one,
/// never half an update).
/// [`DurableVcsr::acknowledged`](crate::DurableVcsr::acknowledged) says how
/// far acknowledgement has reached, in updates and edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SyncPolicy {
    /// Commit before every update call returns: each edge is acknowledged
    /// when `insert_edge` returns. One `fdatasync` per edge.
    EveryEdge,
    /// Commit after every `n` updates (counted across calls), and on
    /// [`DurableVcsr::commit`](crate::DurableVcsr::commit) and close.
    EveryN(u64),
    /// Commit at the end of every call: a batch (`insert_edges`,
    /// `delete_edges`) is acknowledged when it returns, and so is a single
    /// `insert_edge`/`delete_edge` (a batch of one).
    #[default]
    EveryBatch,
    /// Group commit in the background (see [`GroupCommit`]): calls return
    /// at once, a committer thread writes and syncs what they applied at
    /// most [`GroupCommit::window`] later (or as soon as
    /// [`GroupCommit::max_updates`] are waiting). The policy for streams
    /// of single-edge calls.
    Group(GroupCommit),
    /// Commit only on [`DurableVcsr::commit`](crate::DurableVcsr::commit),
    /// [`DurableVcsr::sync`](crate::DurableVcsr::sync) and close.
    Explicit,
}

/// The window of [`SyncPolicy::Group`].
///
/// What "acknowledged" means under it: an update call returns as soon as
/// the update is applied (and readable); it is acknowledged when the
/// committer thread has written a log group holding it and `fdatasync` has
/// returned. The committer closes a group `window` after its first update
/// was applied, or as soon as `max_updates` updates are waiting, whichever
/// comes first, without waiting for another call. So an update is durable
/// at most `window` plus one `fdatasync` (0.1-5 ms on the measured
/// machine) after its call returned, unless the disk is slower than the
/// stream; a call blocks once 16 groups' worth of updates wait for the
/// disk, which bounds what a crash can lose. After a crash every
/// acknowledged update is there, and of the rest a prefix in call order.
/// [`DurableVcsr::acknowledged`](crate::DurableVcsr::acknowledged) tells
/// how far it has got; [`DurableVcsr::commit`](crate::DurableVcsr::commit)
/// waits for everything applied so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupCommit {
    /// Close a group once this many updates wait (default 4,096).
    pub max_updates: u64,
    /// Close a group this long after its first update (default 1 ms).
    pub window: Duration,
}

impl Default for GroupCommit {
    fn default() -> Self {
        Self {
            max_updates: 4096,
            window: Duration::from_millis(1),
        }
    }
}

impl fmt::Display for SyncPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyncPolicy::EveryEdge => f.write_str("edge"),
            SyncPolicy::EveryN(n) => write!(f, "{n}"),
            SyncPolicy::EveryBatch => f.write_str("batch"),
            SyncPolicy::Group(g) if *g == GroupCommit::default() => f.write_str("group"),
            SyncPolicy::Group(g) => write!(f, "group:{}:{}us", g.max_updates, g.window.as_micros()),
            SyncPolicy::Explicit => f.write_str("none"),
        }
    }
}

fn parse_window(s: &str) -> Option<Duration> {
    let (number, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit())?);
    let n: u64 = number.parse().ok()?;
    match unit {
        "us" => Some(Duration::from_micros(n)),
        "ms" => Some(Duration::from_millis(n)),
        "s" => Some(Duration::from_secs(n)),
        _ => None,
    }
}

impl FromStr for SyncPolicy {
    type Err = Error;

    /// `edge`, `batch`, `none` (or `explicit`), `group` (4,096 updates or
    /// 1 ms), `group:N:T` (`T` like `500us`, `2ms`), or a number `N` of
    /// updates (`1` is `edge`), as the command line writes them.
    fn from_str(s: &str) -> Result<Self> {
        let bad = || {
            Error::InvalidArgument(format!(
                "sync policy {s:?}: expected edge, batch, none, group, group:UPDATES:WINDOW \
                 (e.g. group:4096:1ms) or a number of updates >= 1"
            ))
        };
        match s {
            "edge" => Ok(SyncPolicy::EveryEdge),
            "batch" => Ok(SyncPolicy::EveryBatch),
            "none" | "explicit" => Ok(SyncPolicy::Explicit),
            "group" => Ok(SyncPolicy::Group(GroupCommit::default())),
            _ if s.starts_with("group:") => {
                let mut parts = s["group:".len()..].split(':');
                let max_updates: u64 = parts.next().and_then(|n| n.parse().ok()).ok_or_else(bad)?;
                let window = parts.next().and_then(parse_window).ok_or_else(bad)?;
                if max_updates == 0 || window.is_zero() || parts.next().is_some() {
                    return Err(bad());
                }
                Ok(SyncPolicy::Group(GroupCommit {
                    max_updates,
                    window,
                }))
            }
            _ => match s.parse::<u64>() {
                Ok(1) => Ok(SyncPolicy::EveryEdge),
                Ok(n) if n > 1 => Ok(SyncPolicy::EveryN(n)),
                _ => Err(bad()),
            },
        }
    }
}

/// Everything a [`DurableVcsr`](crate::DurableVcsr) is created with.
///
/// `Default` (what [`FromEdges`](dyngraph_core::FromEdges) and the
/// contract tests use) creates the store in a **fresh temporary
/// directory** under [`std::env::temp_dir`], removed when the store is
/// dropped; give [`DurableOptions::dir`] to keep it.
#[derive(Clone, Debug, PartialEq)]
pub struct DurableOptions {
    /// Semantics, weights, in-edges, vertex limit. With `in_edges` the
    /// store keeps a second, transposed edge array (`in-edges.dat`): every
    /// update writes both, pull kernels read it.
    pub store: StoreOptions,
    /// The store's directory (created if missing; must not hold a store
    /// unless [`DurableOptions::append`]). `None`: a fresh temporary
    /// directory, deleted on drop.
    pub dir: Option<PathBuf>,
    /// When `dir` already holds a store, `from_edges` opens it (recovering
    /// it if the last run crashed) and appends the edges to it as one
    /// batch, instead of refusing the directory. Its layout (semantics,
    /// weights, in-edges) must agree with `store`. Default off.
    pub append: bool,
    /// The keys of the vertices, for a keyed store: kept in the directory
    /// ([`KEYS_FILE`](crate::KEYS_FILE)) and written before the edges they
    /// name are acknowledged (at creation before the superblock, on an
    /// append before the batch), so a crash never leaves an edge on an
    /// unnamed vertex. On an append the map must extend the kept one (the
    /// same keys for the vertices it names, new keys after), and a store
    /// kept without keys refuses one, and the reverse. `None`: vertex ids
    /// are the graph's own (default).
    pub keys: Option<Arc<IdMap>>,
    /// When updates become durable.
    pub sync: SyncPolicy,
    /// DGAP's per-section edge logs (default on). Off is the "No EL"
    /// ablation of DGAP's Table 5: an insert that finds no free slot after
    /// its vertex's run rebalances instead of logging.
    pub edge_log: bool,
    /// Vertices per PMA section (leaf of the density tree); default 64.
    pub vertices_per_section: u32,
    /// Bytes of each section's edge-log region; default 2048 (DGAP's
    /// ELOG_SZ), 127 entries of 16 bytes after a 16-byte header.
    pub log_region_bytes: u32,
    /// Fill of a section's edge log (fraction of its entries) that merges
    /// it into the array; default 0.9 (DGAP).
    pub log_merge_fill: f64,
    /// Slots the edge array starts with; default 4096.
    pub initial_capacity: u64,
    /// The largest in-place checkpoint: when the pages changed since the
    /// last checkpoint exceed it, the checkpoint rewrites the arrays into
    /// new files (sequential, no undo record) instead of saving those pages
    /// in the undo log and writing them in place. Default 64 MiB.
    pub max_undo_bytes: u64,
    /// Bytes of write-ahead log after which the arrays are checkpointed
    /// (and the log emptied); bounds recovery's replay. Default 64 MiB.
    /// A store whose edge arrays are larger waits longer: see
    /// [`DurableOptions::checkpoint_array_divisor`].
    pub checkpoint_bytes: u64,
    /// A checkpoint also waits for the edge arrays' bytes divided by this
    /// of log (default 8; 0 keeps `checkpoint_bytes` alone). Scattered
    /// inserts dirty most pages of the arrays between checkpoints, and a
    /// checkpoint then rewrites them whole: at a fixed 64 MiB a store of a
    /// billion edges rewrote its 3.3 GB array for every 64 MiB of log.
    /// With the divisor a checkpoint writes at most that many bytes per
    /// byte logged, and recovery replays a log of at most that share of
    /// the arrays.
    pub checkpoint_array_divisor: u64,
    /// Bytes of changed array pages held in memory before a checkpoint
    /// writes them to the files (0: no bound but the log thresholds).
    /// The arrays are mapped copy-on-write, so a changed page is a private
    /// copy in anonymous memory, which the kernel cannot page out to the
    /// file, until a checkpoint writes it and lets it go; the bound keeps
    /// the store's own memory at this plus the vertex arrays, and lets its
    /// files grow past the memory the process may use (the rest of the
    /// arrays is page cache, read back when touched). A large batch is
    /// checked as it goes, every few thousand edges. Such a checkpoint
    /// goes in place when the pages are at most
    /// [`DurableOptions::max_undo_bytes`], so set that above this bound to
    /// write only the changed pages rather than rewrite the arrays. Default:
    /// half the machine's physical memory.
    pub max_changed_bytes: u64,
    /// Check every page and edge-log region against its checksum when the
    /// store is opened (default on). Off, a clean open of a large store is
    /// faster, and damage is found by [`DurableVcsr::validate`](crate::DurableVcsr::validate)
    /// or a read-only open only.
    pub verify_on_open: bool,
    /// A cap on the bytes of all the store's files together, checked
    /// before every growth: going past it fails with an `ENOSPC` error as
    /// a full disk would. For tests of the full-disk path; default `None`.
    pub space_limit: Option<u64>,
}

impl Default for DurableOptions {
    fn default() -> Self {
        Self::from(StoreOptions::default())
    }
}

impl From<StoreOptions> for DurableOptions {
    fn from(store: StoreOptions) -> Self {
        Self {
            store,
            dir: None,
            append: false,
            keys: None,
            sync: SyncPolicy::EveryBatch,
            edge_log: true,
            vertices_per_section: 64,
            log_region_bytes: 2048,
            log_merge_fill: 0.9,
            initial_capacity: 4096,
            max_undo_bytes: 64 << 20,
            checkpoint_bytes: 64 << 20,
            checkpoint_array_divisor: 8,
            max_changed_bytes: physical_memory() / 2,
            verify_on_open: true,
            space_limit: None,
        }
    }
}

dyngraph_core::store_config!(DurableOptions, store);

dyngraph_core::setters!(DurableOptions {
    store: StoreOptions,
    append: bool,
    keys: Option<Arc<IdMap>>,
    sync: SyncPolicy,
    edge_log: bool,
    vertices_per_section: u32,
    log_region_bytes: u32,
    initial_capacity: u64,
    max_undo_bytes: u64,
    checkpoint_bytes: u64,
    max_changed_bytes: u64,
    checkpoint_array_divisor: u64,
    verify_on_open: bool,
    space_limit: Option<u64>,
});

impl DurableOptions {
    /// Options for a store in `dir`.
    pub fn in_dir(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: Some(dir.into()),
            ..Self::default()
        }
    }

    /// Sets [`DurableOptions::dir`].
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    pub(crate) fn check(&self) -> Result<()> {
        if !(self.log_merge_fill > 0.0 && self.log_merge_fill <= 1.0) {
            return Err(Error::InvalidArgument(format!(
                "log_merge_fill {} is outside (0, 1]",
                self.log_merge_fill
            )));
        }
        if let SyncPolicy::Group(g) = self.sync
            && (g.max_updates == 0 || g.window.is_zero())
        {
            return Err(Error::InvalidArgument(format!(
                "group commit of {} updates or {:?}: both must be positive",
                g.max_updates, g.window
            )));
        }
        Ok(())
    }
}

/// The machine's physical memory in bytes (0 if the system does not say).
fn physical_memory() -> u64 {
    // SAFETY: sysconf only reads its integer argument; it returns -1 for a
    // name the system does not know, handled below.
    let (pages, page_size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    u64::try_from(pages)
        .ok()
        .zip(u64::try_from(page_size).ok())
        .map_or(0, |(pages, size)| pages.saturating_mul(size))
}
