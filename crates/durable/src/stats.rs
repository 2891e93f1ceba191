//! Counters and reports: what the store wrote and flushed, and what a
//! recovery found and repaired.

use std::fmt;
use std::time::Duration;

/// What the store did since it was opened: operations, maintenance, and
/// the bytes it wrote into its files (write amplification) and flushed.
///
/// "Written" counts bytes the store stored into its files, through the
/// mappings or by `write`: slot words, log entries, undo records, rewritten
/// arrays, superblocks and state files. "Flushed" counts the bytes of the
/// pages that syncs wrote back (write-back works by 4 KiB page: one edge synced
/// alone costs a page) plus fsynced whole files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DurableStats {
    /// Edges inserted.
    pub inserts: u64,
    /// Edges deleted (tombstoned).
    pub deletes: u64,
    /// Inserts written straight into the free slot after their run.
    pub in_place_inserts: u64,
    /// Inserts appended to their section's edge log.
    pub log_appends: u64,
    /// Edge-log merges (a log passed its fill threshold).
    pub log_merges: u64,
    /// Windows rebalanced in place under the undo log.
    pub rebalances: u64,
    /// Whole-array rewrites into a new file (resizes, windows too large
    /// for the undo log, bulk builds).
    pub rewrites: u64,
    /// Of the rewrites, those that grew the array.
    pub resizes: u64,
    /// Slots (pivots and edges) moved by rebalances and rewrites.
    pub elements_moved: u64,
    /// Bytes of slots written in place (inserts, deletes, pivots) and by
    /// rebalances.
    pub array_bytes_written: u64,
    /// Bytes of edge-log entries and region headers written.
    pub log_bytes_written: u64,
    /// Bytes written to the undo log (saved windows and headers).
    pub undo_bytes_written: u64,
    /// Bytes of rewritten edge arrays.
    pub rewrite_bytes_written: u64,
    /// Bytes of superblocks and state files written.
    pub meta_bytes_written: u64,
    /// Bytes of pages written back by syncs and of files fsynced.
    pub bytes_flushed: u64,
    /// Sync barriers issued (fdatasync or fsync calls made for durability).
    pub syncs: u64,
}

impl DurableStats {
    /// All bytes written to the store's files.
    pub fn bytes_written(&self) -> u64 {
        self.array_bytes_written
            + self.log_bytes_written
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
}

/// What opening a store found and did: a clean reopen from the state file,
/// or a recovery after a crash. Printed by `dyngraph recover`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecoveryReport {
    /// The previous session closed cleanly (NORMAL_SHUTDOWN was set) and
    /// the vertex array was loaded from the state file.
    pub clean: bool,
    /// Why a clean-looking store was scanned anyway (stale or unreadable
    /// state file), if it was.
    pub state_file_rejected: Option<String>,
    /// Vertices after opening.
    pub vertices: usize,
    /// Edges after opening.
    pub edges: u64,
    /// Windows of an armed undo record (a sync cut short) that were
    /// restored: `(first slot, end slot, first section, end section)`.
    pub undo_restored: Vec<(u64, u64, u64, u64)>,
    /// An undo record that was incomplete (torn before it was made durable,
    /// so no data had moved) and was discarded.
    pub undo_discarded: Option<String>,
    /// The interrupted rebalance was redone after the restore.
    pub rebalance_redone: bool,
    /// Edge-log entries found and linked back to their vertices.
    pub log_entries_replayed: u64,
    /// Edge-log entries torn at a section's tail (unacknowledged writes cut
    /// by the crash), discarded.
    pub torn_log_entries: u64,
    /// In-place edge slots after a hole in their run (unacknowledged
    /// writes whose predecessor never reached the disk), discarded.
    pub torn_array_slots: u64,
    /// Live edges to vertices whose pivot never reached the disk
    /// (unacknowledged inserts cut by the crash), deleted.
    pub dangling_edges: u64,
    /// Temporary files of interrupted atomic writes, removed.
    pub temp_files_removed: u64,
    /// Time taken to open.
    pub elapsed: Duration,
}

impl RecoveryReport {
    /// Whether recovery changed anything on disk.
    pub fn repaired(&self) -> bool {
        !self.undo_restored.is_empty()
            || self.undo_discarded.is_some()
            || self.torn_log_entries > 0
            || self.torn_array_slots > 0
            || self.dangling_edges > 0
            || self.temp_files_removed > 0
    }
}

impl fmt::Display for RecoveryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = if self.clean {
            "clean shutdown: vertex array loaded from the state file"
        } else {
            "crash recovery: vertex array rebuilt from the pivots"
        };
        writeln!(f, "{how}")?;
        if let Some(why) = &self.state_file_rejected {
            writeln!(f, "  state file not used: {why}")?;
        }
        writeln!(f, "  vertices: {}", self.vertices)?;
        writeln!(f, "  edges: {}", self.edges)?;
        writeln!(
            f,
            "  edge-log entries linked: {}",
            self.log_entries_replayed
        )?;
        if self.undo_restored.is_empty() {
            writeln!(f, "  undo log: nothing to restore")?;
        }
        for &(lo, hi, s0, s1) in &self.undo_restored {
            writeln!(
                f,
                "  undo log: restored slots {lo}..{hi} and the edge logs of sections {s0}..{s1} \
                 from a sync cut short{}",
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
        if self.torn_array_slots > 0 {
            writeln!(
                f,
                "  discarded {} torn in-place edge slots (unacknowledged writes)",
                self.torn_array_slots
            )?;
        }
        if self.dangling_edges > 0 {
            writeln!(
                f,
                "  deleted {} edges to vertices that never reached the disk (unacknowledged writes)",
                self.dangling_edges
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
