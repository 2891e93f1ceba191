//! The durable store: its state, accessors, and the update core that
//! applies an update to the edge arrays and logs it.
//!
//! `lifecycle` creates, opens and closes; `checkpoint` writes the arrays
//! (in place under the undo log, or by rewrite) and keeps the state file;
//! `recovery` restores, verifies, scans and replays; `validate` checks a
//! live store against its files.

mod checkpoint;
mod inspect;
mod lifecycle;
mod recovery;
mod validate;

pub use inspect::StoreDir;

use crate::format::wal::Record;
use crate::format::{Mark, Superblock};
use crate::lock::{ReadersLock, WriterLock};
use crate::options::SyncPolicy;
use crate::side::Side;
use crate::stats::{Commit, DurableStats, RecoveryReport};
use crate::wal::{LogPoint, Wal};
use dyngraph_core::cow::SnapshotRegistry;
use dyngraph_core::{Error, Result, Semantics, VertexId};
use std::fs::File;
use std::path::{Path, PathBuf};

/// The undo log of the (single) checkpointing writer.
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
    /// Held while a writable handle is open (`None`: read-only).
    _writer: Option<WriterLock>,
    /// The readers' lock file: held shared by a read-only open; taken
    /// exclusively by a writer around an in-place checkpoint.
    readers: ReadersLock,
    pub(crate) read_only: bool,
    pub(crate) superblock: Superblock,
    pub(crate) semantics: Semantics,
    pub(crate) vertex_limit: usize,
    /// The out-edges.
    pub(crate) out: Side,
    /// The in-edges, when the store keeps them.
    pub(crate) inc: Option<Side>,
    pub(crate) wal: Wal,
    pub(crate) undo: Option<UndoLog>,
    /// Applied updates not yet handed to the log (appended at the end of
    /// each call, and before anything writes the arrays).
    pub(crate) pending: Vec<Record>,
    /// The mark of the state the arrays hold in memory.
    pub(crate) applied: Mark,
    pub(crate) sync_policy: SyncPolicy,
    /// Updates applied since the last commit the policy made.
    since_commit: u64,
    pub(crate) checkpoint_bytes: u64,
    pub(crate) checkpoint_array_divisor: u64,
    pub(crate) max_changed_bytes: u64,
    /// Store-level counters (commits, checkpoints, undo, metadata); the
    /// sides and the log keep their own, summed by [`DurableVcsr::stats`].
    pub(crate) stats: DurableStats,
    pub(crate) snapshots: SnapshotRegistry,
    pub(crate) recovery: RecoveryReport,
    /// Buffers a large batch is grouped in, kept from call to call.
    pub(crate) batch_scratch: crate::read::BatchScratch,
    /// The sidecar blob of the last checkpoint, and one staged for the next.
    pub(crate) sidecar: Option<Vec<u8>>,
    pub(crate) staged_sidecar: Option<Vec<u8>>,
    /// Set when a write failed half-way; every later call refuses.
    poisoned: Option<String>,
    closed: bool,
}

impl std::fmt::Debug for DurableVcsr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DurableVcsr")
            .field("dir", &self.dir)
            .field("read_only", &self.read_only)
            .field("vertices", &self.out.vertices.len())
            .field("edges", &self.applied.edges)
            .field("capacity", &self.out.header.capacity)
            .field("generation", &self.out.header.generation)
            .field("in_edges", &self.inc.is_some())
            .field("sync", &self.sync_policy)
            .finish_non_exhaustive()
    }
}

impl DurableVcsr {
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
        let mut stats = self.stats;
        stats.add(&self.out.stats);
        if let Some(inc) = &self.inc {
            stats.add(&inc.stats);
        }
        let wal = self.wal.stats();
        stats.wal_bytes_written += wal.bytes_written;
        stats.bytes_flushed += wal.bytes_written;
        stats.commits += wal.commits;
        stats.syncs += wal.syncs;
        // An insert is counted once, not once per side.
        stats.inserts = self.applied.inserted - self.recovery.acknowledged.inserted;
        stats.deletes = self.applied.deleted - self.recovery.acknowledged.deleted;
        stats
    }

    /// The sync policy in force.
    pub fn sync_policy(&self) -> SyncPolicy {
        self.sync_policy
    }

    /// Changes the sync policy (pending updates stay pending until the
    /// next commit point of the new policy). A change to or from group
    /// commit takes effect at the next open.
    pub fn set_sync_policy(&mut self, policy: SyncPolicy) {
        self.sync_policy = policy;
    }

    /// Updates applied but not yet acknowledged. After a crash, some of the
    /// most recent `pending_updates()` updates may be lost (a suffix, in
    /// the order they were applied); the earlier ones are not.
    pub fn pending_updates(&self) -> u64 {
        self.applied.lsn - self.acknowledged().lsn
    }

    /// How far durability has reached: the update sequence number, edge
    /// count, vertex count and insert and delete totals as of the last
    /// completed commit (or checkpoint). Everything up to
    /// `acknowledged().lsn` survives a crash; under group commit this
    /// advances in the background.
    pub fn acknowledged(&self) -> Mark {
        let durable = self.wal.durable();
        if durable.lsn >= self.out.header.checkpoint.lsn {
            durable
        } else {
            self.out.header.checkpoint
        }
    }

    /// The state the store holds now (applied, acknowledged or not): the
    /// update count and totals of [`DurableVcsr::acknowledged`], for what
    /// has been applied.
    pub fn applied(&self) -> Mark {
        self.applied
    }

    /// The last commit that acknowledged updates (for reporting per sync
    /// point), if any since the store was opened.
    pub fn last_commit(&self) -> Option<Commit> {
        self.wal.last_commit()
    }

    /// Slots of the (out-)edge array.
    pub fn capacity(&self) -> u64 {
        self.out.header.capacity
    }

    /// The (out-)edge array's generation (bumped by every rewrite).
    pub fn generation(&self) -> u64 {
        self.out.header.generation
    }

    /// Bytes of the store's files on disk (edge arrays, edge logs,
    /// checksums, undo log, write-ahead log).
    pub fn file_bytes(&self) -> u64 {
        self.out.file_bytes()
            + self.inc.as_ref().map_or(0, Side::file_bytes)
            + self.undo_len()
            + self.wal.file_bytes()
    }

    pub(crate) fn undo_len(&self) -> u64 {
        self.undo
            .as_ref()
            .and_then(|u| u.file.metadata().ok())
            .map_or(0, |m| m.len())
    }

    /// Sections (leaves of the density tree).
    pub fn section_count(&self) -> usize {
        self.out.section_count()
    }

    /// Whether the store was opened read-only.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Whether the store keeps in-edges (an `in-edges.dat`).
    pub fn keeps_in_edges(&self) -> bool {
        self.inc.is_some()
    }

    /// Whether `src -> dst` is present.
    pub fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        self.out.has_edge(src, dst)
    }

    pub(crate) fn check_usable(&self) -> Result<()> {
        if let Some(why) = &self.poisoned {
            return Err(Error::InvalidArgument(format!(
                "{}: the store stopped after a failed write ({why}); reopen it to recover",
                self.dir.display()
            )));
        }
        self.out.check_usable()?;
        if let Some(inc) = &self.inc {
            inc.check_usable()?;
        }
        Ok(())
    }

    pub(crate) fn check_writable(&self) -> Result<()> {
        if self.read_only {
            return Err(Error::InvalidArgument(format!(
                "{}: the store is open read-only; open it with DurableVcsr::open to change it",
                self.dir.display()
            )));
        }
        self.check_usable()
    }

    pub(crate) fn poison<T>(&mut self, e: Error) -> Result<T> {
        self.poisoned = Some(e.to_string());
        Err(e)
    }

    /// The sides, out first.
    pub(crate) fn sides_mut(&mut self) -> impl Iterator<Item = &mut Side> {
        std::iter::once(&mut self.out).chain(self.inc.as_mut())
    }

    /// The sides, out first.
    pub(crate) fn sides(&self) -> impl Iterator<Item = &Side> {
        std::iter::once(&self.out).chain(self.inc.as_ref())
    }

    // -----------------------------------------------------------------
    // The update core.
    // -----------------------------------------------------------------

    /// Grows both sides to `count` vertices; logs the growth.
    pub(crate) fn grow_vertices(&mut self, count: usize) -> Result<()> {
        let n = self.out.vertices.len();
        if count <= n {
            return Ok(());
        }
        self.out.ensure_vertices(count)?;
        if let Some(inc) = &mut self.inc
            && let Err(e) = inc.ensure_vertices(count)
        {
            return self.poison(e);
        }
        let record = Record::Vertices(count as u32);
        self.applied.advance(record);
        self.pending.push(record);
        self.since_commit += 1;
        Ok(())
    }

    /// Inserts `src -> dst` into both sides and logs it; `Ok(false)` for a
    /// repeat under simple semantics. The caller has checked the limit.
    pub(crate) fn insert_one(&mut self, src: VertexId, dst: VertexId, weight: f32) -> Result<bool> {
        self.grow_vertices(src.max(dst) as usize + 1)?;
        if self.semantics == Semantics::Simple && self.out.has_edge(src, dst) {
            return Ok(false);
        }
        self.snapshots.before_out_change(&*self, src);
        if self.inc.is_some() {
            self.snapshots.before_in_change(&*self, dst);
        }
        let weight_bits = if self.out.stride == 2 {
            weight.to_bits()
        } else {
            0
        };
        let mut log = LogPoint::new(&self.wal, &mut self.pending, &self.applied);
        let merge_out = self.out.place(src, dst, weight_bits, &mut log)?;
        let merge_in = match &mut self.inc {
            Some(inc) => match inc.place(dst, src, 0, &mut log) {
                Ok(merge) => merge,
                // The out-edge is in, the in-edge is not: the two sides
                // disagree in memory. Reopening replays the log onto both.
                Err(e) => return self.poison(e),
            },
            None => None,
        };
        let record = Record::Insert(src, dst, weight_bits);
        self.applied.advance(record);
        self.pending.push(record);
        self.since_commit += 1;
        self.merge(merge_out, merge_in)?;
        Ok(true)
    }

    /// Merges the edge logs that passed their threshold (after the update
    /// that filled them is logged: a merge may rewrite the array).
    fn merge(&mut self, out: Option<usize>, inc: Option<usize>) -> Result<()> {
        if out.is_none() && inc.is_none() {
            return Ok(());
        }
        let mut log = LogPoint::new(&self.wal, &mut self.pending, &self.applied);
        for (side, section) in [(Some(&mut self.out), out), (self.inc.as_mut(), inc)] {
            if let (Some(side), Some(section)) = (side, section) {
                side.stats.log_merges += 1;
                // A merge that fails before moving anything (a full disk)
                // is retried when the log is full, where its error fails
                // that insert instead.
                if let Err(e) = side.make_room(section, 0, &mut log)
                    && side.poisoned.is_some()
                {
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Deletes the oldest `src -> dst` from both sides and logs it.
    pub(crate) fn delete_one(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        if src as usize >= self.out.vertices.len() || !self.out.has_edge(src, dst) {
            return Ok(false);
        }
        self.snapshots.before_out_change(&*self, src);
        if self.inc.is_some() {
            self.snapshots.before_in_change(&*self, dst);
        }
        self.out.delete(src, dst);
        if let Some(inc) = &mut self.inc
            && !inc.delete(dst, src)
        {
            return self.poison(Error::InvalidStructure(format!(
                "in-edge {dst} <- {src} missing for an out-edge that was there"
            )));
        }
        let record = Record::Delete(src, dst);
        self.applied.advance(record);
        self.pending.push(record);
        self.since_commit += 1;
        Ok(true)
    }

    /// Applies one record of the log onto the sides that do not hold it yet
    /// (recovery's replay; `lsn` is the record's number, `behind` each
    /// side's checkpoint).
    pub(crate) fn replay_one(&mut self, record: Record, lsn: u64, behind: [u64; 2]) -> Result<()> {
        let before = self.applied;
        let mut after = before;
        after.advance(record);
        let sides = [Some(&mut self.out), self.inc.as_mut()];
        for (side, checkpoint) in sides.into_iter().zip(behind) {
            let Some(side) = side else { continue };
            if lsn <= checkpoint {
                continue;
            }
            let flip = side.kind == crate::format::Side::In;
            match record {
                Record::Insert(src, dst, weight_bits) => {
                    let (from, to) = if flip { (dst, src) } else { (src, dst) };
                    side.ensure_vertices(src.max(dst) as usize + 1)?;
                    let weight_bits = if flip { 0 } else { weight_bits };
                    let merge =
                        side.place(from, to, weight_bits, &mut LogPoint::replaying(&before))?;
                    if let Some(section) = merge {
                        side.stats.log_merges += 1;
                        side.make_room(section, 0, &mut LogPoint::replaying(&after))?;
                    }
                }
                Record::Delete(src, dst) => {
                    let (from, to) = if flip { (dst, src) } else { (src, dst) };
                    if !side.delete(from, to) {
                        return Err(Error::InvalidStructure(format!(
                            "write-ahead log update {lsn} deletes {src} -> {dst}, which the \
                             {:?} array does not hold",
                            side.kind
                        )));
                    }
                }
                Record::Vertices(count) => side.ensure_vertices(count as usize)?,
            }
        }
        self.applied = after;
        Ok(())
    }

    /// Hands the pending records to the log.
    pub(crate) fn flush_pending(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let result = self.wal.append(&self.pending);
        self.pending.clear();
        result
    }

    /// The end of an update call: the records go to the log, the policy's
    /// commit happens, and a checkpoint when the log is past its threshold.
    pub(crate) fn end_call(&mut self) -> Result<()> {
        self.flush_pending()?;
        let commit = match self.sync_policy {
            SyncPolicy::EveryEdge | SyncPolicy::EveryBatch => self.since_commit > 0,
            SyncPolicy::EveryN(n) => self.since_commit >= n,
            SyncPolicy::Group(_) | SyncPolicy::Explicit => false,
        };
        if commit {
            self.wal.commit()?;
            self.since_commit = 0;
        }
        self.maybe_checkpoint()
    }

    /// Counts one applied update against per-update policies (every-edge
    /// and every-N commit here, inside a batch).
    pub(crate) fn after_update(&mut self) -> Result<()> {
        let commit = match self.sync_policy {
            SyncPolicy::EveryEdge => true,
            SyncPolicy::EveryN(n) => self.since_commit >= n,
            _ => false,
        };
        if commit {
            self.flush_pending()?;
            self.wal.commit()?;
            self.since_commit = 0;
        }
        Ok(())
    }

    /// Makes every applied update durable in the write-ahead log (one
    /// `fdatasync`, group commit): the cheap sync point. Returns what it
    /// acknowledged.
    pub fn commit(&mut self) -> Result<Commit> {
        self.check_writable()?;
        self.flush_pending()?;
        let commit = self.wal.commit()?;
        self.since_commit = 0;
        Ok(commit)
    }
}
