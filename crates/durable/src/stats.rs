//! Counters and reports: what the store wrote and flushed, what a commit
//! acknowledged, and what opening found and repaired.

use crate::format::Mark;
use serde::Serialize;
use std::fmt;
use std::time::Duration;

/// What the store did since it was opened: operations, maintenance, and
/// the bytes it wrote into its files (write amplification) and flushed.
///
/// "Written" counts bytes the store stored into its files, through the
/// mappings or by `write`: slot words, edge-log entries, write-ahead-log
/// groups, undo records, rewritten arrays, superblocks and state files.
/// "Flushed" counts the bytes that reached the files at barriers: log
/// groups, the pages checkpoints wrote back (by 4 KiB page: one edge
/// changed alone costs a page), undo records and whole files fsynced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DurableStats {
    /// Edges inserted.
    pub inserts: u64,
    /// Edges deleted (tombstoned).
    pub deletes: u64,
    /// Inserts written straight into the free slot after their run (per
    /// edge array: an edge with in-edges counts twice).
    pub in_place_inserts: u64,
    /// Inserts appended to their section's edge log.
    pub log_appends: u64,
    /// Edge-log merges (a log passed its fill threshold).
    pub log_merges: u64,
    /// Windows rebalanced in place.
    pub rebalances: u64,
    /// Whole-array rewrites into a new file (growth past the root's
    /// density, checkpoints too large for the undo log, bulk builds).
    pub rewrites: u64,
    /// Growths of an edge array (by rewrite or by extending its file).
    pub resizes: u64,
    /// Slots (pivots and edges) moved by rebalances and rewrites.
    pub elements_moved: u64,
    /// Bytes of slots written in place (inserts, deletes, pivots) and by
    /// rebalances, in the mappings.
    pub array_bytes_written: u64,
    /// Bytes of edge-log entries and region headers written, in the
    /// mappings.
    pub log_bytes_written: u64,
    /// Bytes of write-ahead-log groups written.
    pub wal_bytes_written: u64,
    /// Bytes written to the undo log (saved pages and headers).
    pub undo_bytes_written: u64,
    /// Bytes of rewritten edge arrays.
    pub rewrite_bytes_written: u64,
    /// Bytes of superblocks, state files, checksum files and log headers.
    pub meta_bytes_written: u64,
    /// Bytes made durable by barriers (log groups, checkpoint pages, undo
    /// records, rewritten files).
    pub bytes_flushed: u64,
    /// Sync barriers issued (fdatasync or fsync calls made for durability).
    pub syncs: u64,
    /// Write-ahead-log commits (one `fdatasync` each, however many updates).
    pub commits: u64,
    /// Checkpoints: the arrays written (in place, or rewritten) and the log
    /// emptied.
    pub checkpoints: u64,
}

impl DurableStats {
    /// All bytes written to the store's files.
    pub fn bytes_written(&self) -> u64 {
        self.array_bytes_written
            + self.log_bytes_written
            + self.wal_bytes_written
            + self.undo_bytes_written
            + self.rewrite_bytes_written
            + self.meta_bytes_written
    }

    /// Bytes written per inserted edge (0 when nothing was inserted).
    pub fn bytes_written_per_insert(&self) -> f64 {
        if self.inserts == 0 {
            0.0
        } else {
            self.bytes_written() as f64 / self.inserts as f64
        }
    }

    /// Adds `other`'s counts (a concurrent writer's per-thread tallies).
    pub(crate) fn add(&mut self, other: &DurableStats) {
        macro_rules! sum {
            ($($f:ident),*) => { $(self.$f += other.$f;)* };
        }
        sum!(
            inserts,
            deletes,
            in_place_inserts,
            log_appends,
            log_merges,
            rebalances,
            rewrites,
            resizes,
            elements_moved,
            array_bytes_written,
            log_bytes_written,
            wal_bytes_written,
            undo_bytes_written,
            rewrite_bytes_written,
            meta_bytes_written,
            bytes_flushed,
            syncs,
            commits,
            checkpoints
        );
    }
}

/// One completed commit: what it made durable. Returned by
/// [`DurableVcsr::commit`](crate::DurableVcsr::commit) and kept as
/// [`DurableVcsr::last_commit`](crate::DurableVcsr::last_commit), so a
/// replay can report the edges acknowledged as of each sync point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Commit {
    /// Everything up to here is acknowledged.
    pub acknowledged: Mark,
    /// Updates this commit acknowledged (0: nothing was pending).
    pub updates: u64,
    /// Bytes of log it wrote.
    pub bytes: u64,
}

/// What opening a store found and did: a clean reopen from the state file,
/// or a recovery after a crash. Printed by `dyngraph recover`; serialises
/// to JSON (`serde`) for `recover --json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RecoveryReport {
    /// The previous session closed cleanly (NORMAL_SHUTDOWN was set) and
    /// the vertex array was loaded from the state file.
    pub clean: bool,
    /// Opened read-only: repairs were made in memory, the files untouched.
    pub read_only: bool,
    /// Why a clean-looking store was scanned anyway (stale or unreadable
    /// state file), if it was.
    pub state_file_rejected: Option<String>,
    /// Vertices after opening.
    pub vertices: usize,
    /// Edges after opening.
    pub edges: u64,
    /// The state after opening: every update up to `acknowledged.lsn` is
    /// there (all acknowledged ones, and any later ones that reached the
    /// log before the crash).
    pub acknowledged: Mark,
    /// The checkpoint the out-edge array held before the log was replayed.
    pub checkpoint: Mark,
    /// Windows of an armed undo record (a checkpoint cut short) that were
    /// restored: `(first slot, end slot, first section, end section)`.
    pub undo_restored: Vec<(u64, u64, u64, u64)>,
    /// Byte ranges of an armed undo record that were restored (a checkpoint
    /// cut short: the arrays returned to the previous checkpoint).
    pub undo_ranges_restored: u64,
    /// An undo record that was incomplete (torn before it was made durable,
    /// so no data had moved) and was discarded.
    pub undo_discarded: Option<String>,
    /// The interrupted rebalance of a restored window was redone.
    pub rebalance_redone: bool,
    /// Edge-log entries found and linked back to their vertices.
    pub log_entries_linked: u64,
    /// Edge-log entries past their region's acknowledged count (never
    /// acknowledged by a checkpoint; a write torn, or leftovers), cut.
    pub torn_log_entries: u64,
    /// Write-ahead-log groups replayed onto the arrays.
    pub wal_groups_replayed: u64,
    /// Updates those groups held.
    pub wal_updates_replayed: u64,
    /// Bytes of a log group torn by the crash (never acknowledged: its
    /// `fdatasync` had not returned), cut.
    pub wal_torn_bytes: u64,
    /// The log held only updates a checkpoint had already written (a crash
    /// between a checkpoint and the log's reset), and was reset.
    pub wal_obsolete: bool,
    /// Edge-array pages whose checksums were verified.
    pub pages_verified: u64,
    /// Edge-log regions whose checksums were verified.
    pub regions_verified: u64,
    /// Temporary files of interrupted atomic writes, removed.
    pub temp_files_removed: u64,
    /// Files of older generations (checksums, sidecars) removed.
    pub stale_files_removed: u64,
    /// Time taken to open.
    #[serde(serialize_with = "seconds")]
    pub elapsed: Duration,
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl RecoveryReport {
    /// Whether recovery changed anything (on disk, or in memory for a
    /// read-only open).
    pub fn repaired(&self) -> bool {
        !self.undo_restored.is_empty()
            || self.undo_ranges_restored > 0
            || self.undo_discarded.is_some()
            || self.torn_log_entries > 0
            || self.wal_torn_bytes > 0
            || self.wal_obsolete
            || self.temp_files_removed > 0
    }
}

impl fmt::Display for RecoveryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = if self.clean {
            "clean shutdown: vertex array loaded from the state file"
        } else {
            "crash recovery: vertex array rebuilt from the pivots, write-ahead log replayed"
        };
        writeln!(
            f,
            "{how}{}",
            if self.read_only {
                " (read-only, in memory)"
            } else {
                ""
            }
        )?;
        if let Some(why) = &self.state_file_rejected {
            writeln!(f, "  state file not used: {why}")?;
        }
        writeln!(f, "  vertices: {}", self.vertices)?;
        writeln!(f, "  edges: {}", self.edges)?;
        writeln!(
            f,
            "  updates: {} ({} inserted, {} deleted), {} of them from the write-ahead log \
             ({} groups)",
            self.acknowledged.lsn,
            self.acknowledged.inserted,
            self.acknowledged.deleted,
            self.wal_updates_replayed,
            self.wal_groups_replayed
        )?;
        writeln!(
            f,
            "  checksums verified: {} pages, {} edge-log regions",
            self.pages_verified, self.regions_verified
        )?;
        writeln!(f, "  edge-log entries linked: {}", self.log_entries_linked)?;
        if self.undo_restored.is_empty() && self.undo_ranges_restored == 0 {
            writeln!(f, "  undo log: nothing to restore")?;
        }
        if self.undo_ranges_restored > 0 {
            writeln!(
                f,
                "  undo log: restored {} byte ranges of a checkpoint cut short",
                self.undo_ranges_restored
            )?;
        }
        for &(lo, hi, s0, s1) in &self.undo_restored {
            writeln!(
                f,
                "  undo log: restored slots {lo}..{hi} and the edge logs of sections {s0}..{s1} \
                 from a checkpoint cut short{}",
                if self.rebalance_redone {
                    ", then redid the rebalance"
                } else {
                    ""
                }
            )?;
        }
        if let Some(why) = &self.undo_discarded {
            writeln!(f, "  undo log: discarded an incomplete record ({why})")?;
        }
        if self.torn_log_entries > 0 {
            writeln!(
                f,
                "  discarded {} torn edge-log entries (unacknowledged writes)",
                self.torn_log_entries
            )?;
        }
        if self.wal_torn_bytes > 0 {
            writeln!(
                f,
                "  cut {} bytes of a torn write-ahead-log group (unacknowledged)",
                self.wal_torn_bytes
            )?;
        }
        if self.wal_obsolete {
            writeln!(
                f,
                "  write-ahead log: held only checkpointed updates (a reset cut short), reset"
            )?;
        }
        if self.temp_files_removed > 0 {
            writeln!(
                f,
                "  removed {} temporary files of interrupted writes",
                self.temp_files_removed
            )?;
        }
        write!(f, "  time: {:.3} ms", self.elapsed.as_secs_f64() * 1e3)
    }
}
