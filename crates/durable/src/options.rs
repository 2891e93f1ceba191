//! Options of the durable store: the common [`StoreOptions`], the
//! directory, the [`SyncPolicy`] and the layout knobs.

use dyngraph_core::{Error, Result, StoreConfig, StoreOptions};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// When updates are made durable, i.e. when they are *acknowledged*.
///
/// An update (one inserted or deleted edge) is **acknowledged** once a
/// sync has completed after it: from then on it survives a crash of the
/// process or of the machine (given a device that honours `fsync`). The
/// Updates not
/// yet acknowledged may survive a crash or not; each one is all-or-nothing
/// (a slot word or a checksummed log entry), never half-present. The sync
/// is a `pwrite` of the changed pages of the (privately) mapped files and
/// an `fdatasync` of each, after the undo record of any rebalanced window
/// (see the crate docs).
/// [`DurableVcsr::pending_updates`](crate::DurableVcsr::pending_updates)
/// tells how many applied updates are not acknowledged yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SyncPolicy {
    /// Sync before every update call returns: each edge is acknowledged
    /// when `insert_edge` returns. Slowest: one fdatasync (or two) per edge.
    EveryEdge,
    /// Sync after every `n` updates (counted across calls), and on
    /// [`DurableVcsr::sync`](crate::DurableVcsr::sync) and close.
    EveryN(u64),
    /// Sync at the end of every call: a batch (`insert_edges`,
    /// `delete_edges`) is acknowledged when it returns, and so is a single
    /// `insert_edge`/`delete_edge` (a batch of one).
    #[default]
    EveryBatch,
    /// Sync only on [`DurableVcsr::sync`](crate::DurableVcsr::sync) and
    /// close; rebalances and rewrites still keep the files consistent.
    Explicit,
}

impl fmt::Display for SyncPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyncPolicy::EveryEdge => f.write_str("edge"),
            SyncPolicy::EveryN(n) => write!(f, "{n}"),
            SyncPolicy::EveryBatch => f.write_str("batch"),
            SyncPolicy::Explicit => f.write_str("none"),
        }
    }
}

impl FromStr for SyncPolicy {
    type Err = Error;

    /// `edge`, `batch`, `none` (or `explicit`), or a number `N` of updates
    /// (`1` is `edge`), as the command line writes them.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "edge" => Ok(SyncPolicy::EveryEdge),
            "batch" => Ok(SyncPolicy::EveryBatch),
            "none" | "explicit" => Ok(SyncPolicy::Explicit),
            _ => match s.parse::<u64>() {
                Ok(1) => Ok(SyncPolicy::EveryEdge),
                Ok(n) if n > 1 => Ok(SyncPolicy::EveryN(n)),
                _ => Err(Error::InvalidArgument(format!(
                    "sync policy {s:?}: expected edge, batch, none or a number of edges >= 1"
                ))),
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
    /// Semantics, weights, vertex limit. In-edges are not kept by this
    /// store: asking for them is refused at creation.
    pub store: StoreOptions,
    /// The store's directory (created if missing; must not hold a store).
    /// `None`: a fresh temporary directory, deleted on drop.
    pub dir: Option<PathBuf>,
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
    /// Bound on the bytes of the windows rebalanced since the last sync
    /// (what the next sync saves in the undo log): past it a sync is
    /// forced; a single window larger than it rewrites the array into a
    /// new file renamed over the old one instead. Default 64 MiB.
    pub max_undo_bytes: u64,
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
            sync: SyncPolicy::EveryBatch,
            edge_log: true,
            vertices_per_section: 64,
            log_region_bytes: 2048,
            log_merge_fill: 0.9,
            initial_capacity: 4096,
            max_undo_bytes: 64 << 20,
            space_limit: None,
        }
    }
}

impl StoreConfig for DurableOptions {
    fn from_shared(shared: StoreOptions) -> Self {
        Self::from(shared)
    }

    fn shared(&self) -> &StoreOptions {
        &self.store
    }

    fn shared_mut(&mut self) -> &mut StoreOptions {
        &mut self.store
    }
}

impl DurableOptions {
    /// Options for a store in `dir`.
    pub fn in_dir(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: Some(dir.into()),
            ..Self::default()
        }
    }

    /// Sets [`DurableOptions::store`].
    pub fn store(mut self, store: StoreOptions) -> Self {
        self.store = store;
        self
    }

    /// Sets [`DurableOptions::dir`].
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    /// Sets [`DurableOptions::sync`].
    pub fn sync(mut self, sync: SyncPolicy) -> Self {
        self.sync = sync;
        self
    }

    /// Sets [`DurableOptions::edge_log`].
    pub fn edge_log(mut self, on: bool) -> Self {
        self.edge_log = on;
        self
    }

    /// Sets [`DurableOptions::vertices_per_section`].
    pub fn vertices_per_section(mut self, vertices: u32) -> Self {
        self.vertices_per_section = vertices;
        self
    }

    /// Sets [`DurableOptions::log_region_bytes`].
    pub fn log_region_bytes(mut self, bytes: u32) -> Self {
        self.log_region_bytes = bytes;
        self
    }

    /// Sets [`DurableOptions::initial_capacity`].
    pub fn initial_capacity(mut self, slots: u64) -> Self {
        self.initial_capacity = slots;
        self
    }

    /// Sets [`DurableOptions::max_undo_bytes`].
    pub fn max_undo_bytes(mut self, bytes: u64) -> Self {
        self.max_undo_bytes = bytes;
        self
    }

    /// Sets [`DurableOptions::space_limit`].
    pub fn space_limit(mut self, bytes: Option<u64>) -> Self {
        self.space_limit = bytes;
        self
    }

    pub(crate) fn check(&self) -> Result<()> {
        if self.store.in_edges {
            return Err(Error::InvalidArgument(
                "DurableVcsr keeps no in-edges (pull kernels fall back to push on it); \
                 build it with StoreOptions::in_edges(false)"
                    .into(),
            ));
        }
        if !(self.log_merge_fill > 0.0 && self.log_merge_fill <= 1.0) {
            return Err(Error::InvalidArgument(format!(
                "log_merge_fill {} is outside (0, 1]",
                self.log_merge_fill
            )));
        }
        Ok(())
    }
}
