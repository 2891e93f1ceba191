//! Checkpoints: the arrays written out so that the write-ahead log can
//! start afresh, either in place (the changed pages, behind an undo record
//! of their old bytes: one atomic switch for every file) or by rewriting
//! each array into a new file; the clean-shutdown state file; the sidecar.

use super::DurableVcsr;
use crate::failpoint::fail_point;
use crate::files::{allocate, write_atomic};
use crate::format::{
    self, Mark, Reader, STATE_FILE, UNDO_HEADER_BYTES, UndoFile, UndoHeader, UndoRange, Writer,
    invalid, io, sidecar_file, state_body,
};
use crate::side::Side;
use crate::wal::LogPoint;
use dyngraph_core::Result;
use std::os::unix::fs::FileExt;

impl DurableVcsr {
    /// Makes every applied update durable **and checkpoints**: the arrays
    /// and edge logs on disk then hold everything, and the write-ahead log
    /// starts afresh. Its cost is that of the pages changed since the last
    /// checkpoint (written in place behind an undo record) or of the arrays
    /// (rewritten into new files, when most pages changed or a read-only
    /// open maps them). For the cheap sync point, proportional to the
    /// bytes of the updates, use [`DurableVcsr::commit`]; checkpoints also
    /// run by themselves when the log passes
    /// [`DurableOptions::checkpoint_bytes`](crate::DurableOptions::checkpoint_bytes),
    /// and at close. On an error the store stops taking updates.
    pub fn sync(&mut self) -> Result<()> {
        self.check_writable()?;
        self.checkpoint_inner(false)
    }

    /// Stages `bytes` to be written with the next checkpoint ([`DurableVcsr::sync`],
    /// the size threshold, or close) atomically with it: after a crash the
    /// store has the blob of the last completed checkpoint, which is named
    /// by the out-edge array's header (`sidecar-LSN.bin`, length and CRC-32
    /// checked at open). A place for data that must stay consistent with a
    /// checkpointed graph (an id map). Updates after that checkpoint are
    /// replayed from the log onto the arrays; a blob that must follow them
    /// too needs its own log records (see the crate README).
    pub fn stage_sidecar(&mut self, bytes: Vec<u8>) {
        self.staged_sidecar = Some(bytes);
    }

    /// The sidecar blob of the last checkpoint, if one was written.
    pub fn sidecar(&self) -> Option<&[u8]> {
        self.sidecar.as_deref()
    }

    /// Checkpoints when the log has passed its threshold, when the changed
    /// pages held in memory pass [`DurableOptions::max_changed_bytes`](crate::DurableOptions::max_changed_bytes)
    /// (or, under an injected space limit, when the next checkpoint's undo
    /// record would no longer fit).
    pub(crate) fn maybe_checkpoint(&mut self) -> Result<()> {
        if self.read_only {
            return Ok(());
        }
        let mut due =
            self.wal.file_bytes() >= self.checkpoint_threshold() || self.over_changed_bound();
        if let Some(limit) = self.out.layout.space_limit {
            let used = crate::side::dir_bytes(&self.dir);
            let dirty: u64 = self.sides().map(Side::dirty_bytes).sum();
            due |= 2 * dirty + self.wal.file_bytes() > limit.saturating_sub(used) / 2;
        }
        if due {
            self.checkpoint_inner(false)?;
        }
        Ok(())
    }

    /// Checkpoints when the changed pages held in memory pass
    /// [`DurableOptions::max_changed_bytes`](crate::DurableOptions::max_changed_bytes):
    /// within a large batch, between two of its edges (the updates applied
    /// so far reach the log first, as at any checkpoint).
    pub(crate) fn release_changed_pages(&mut self) -> Result<()> {
        if !self.read_only && self.over_changed_bound() {
            self.checkpoint_inner(false)?;
        }
        Ok(())
    }

    /// Whether the changed pages held in memory pass
    /// [`DurableOptions::max_changed_bytes`](crate::DurableOptions::max_changed_bytes).
    fn over_changed_bound(&self) -> bool {
        self.max_changed_bytes > 0
            && self.sides().map(Side::dirty_bytes).sum::<u64>() > self.max_changed_bytes
    }

    /// Bytes of log after which a checkpoint is due:
    /// [`DurableOptions::checkpoint_bytes`](crate::DurableOptions::checkpoint_bytes),
    /// or the edge arrays' bytes over
    /// [`DurableOptions::checkpoint_array_divisor`](crate::DurableOptions::checkpoint_array_divisor)
    /// when that is more.
    pub(crate) fn checkpoint_threshold(&self) -> u64 {
        let arrays: u64 = self.sides().map(|s| s.edges.len()).sum();
        let scaled = arrays
            .checked_div(self.checkpoint_array_divisor)
            .unwrap_or(0);
        self.checkpoint_bytes.max(scaled)
    }

    /// The checkpoint (see [`DurableVcsr::sync`]). With `closing`, the log
    /// has been committed and its committer stopped.
    pub(crate) fn checkpoint_inner(&mut self, closing: bool) -> Result<()> {
        self.check_usable()?;
        self.flush_pending()?;
        let mark = self.applied;
        let dirty: u64 = self.sides().map(Side::dirty_bytes).sum();
        let settled = self.sides().all(|s| s.header.checkpoint == mark);
        if settled && dirty == 0 && self.wal.base() == mark && self.staged_sidecar.is_none() {
            return Ok(());
        }
        let old_sidecar = self.out.header.sidecar;
        if let Some(bytes) = self.staged_sidecar.take() {
            let name = sidecar_file(mark.lsn);
            write_atomic(&self.dir, &name, &bytes)?;
            self.out.header.sidecar = Some((mark.lsn, bytes.len() as u64, crc32fast::hash(&bytes)));
            self.stats.meta_bytes_written += bytes.len() as u64;
            self.sidecar = Some(bytes);
        }
        // In place only while no read-only open maps the files (the guard
        // keeps new ones waiting), and only when the pages changed are few.
        let guard = if dirty <= self.out.undo_budget() {
            self.readers.try_exclusive()?
        } else {
            None
        };
        let reset = match guard {
            Some(guard) => {
                self.checkpoint_in_place(mark)?;
                // No reader is opening the log: it may be cut in place.
                let reset = self.wal.reset_in_place(mark);
                drop(guard);
                reset
            }
            None => {
                self.checkpoint_by_rewrite(mark)?;
                self.wal.reset(mark)
            }
        };
        if let Err(e) = reset {
            return self.poison(e);
        }
        fail_point("checkpoint-done");
        if old_sidecar != self.out.header.sidecar
            && let Some((lsn, ..)) = old_sidecar
        {
            let _ = std::fs::remove_file(self.dir.join(sidecar_file(lsn)));
        }
        self.stats.checkpoints += 1;
        self.since_commit = 0;
        let _ = closing;
        Ok(())
    }

    /// Every side's changed pages, header page, region headers and page
    /// checksums, written in place behind one undo record:
    /// 1. the on-disk bytes of every range about to be written are saved in
    ///    the undo log, armed and fdatasynced;
    /// 2. the ranges are written (`pwrite`) and each file fdatasynced;
    /// 3. the undo log is disarmed and fdatasynced: the switch.
    ///
    /// A crash before 3 completes is undone by recovery (every file returns
    /// to the previous checkpoint, and the log, which still holds everything
    /// since, is replayed); after it, the checkpoint is complete.
    fn checkpoint_in_place(&mut self, mark: Mark) -> Result<()> {
        let mut ranges = Vec::new();
        for side in self.sides_mut() {
            ranges.extend(side.prepare_checkpoint(mark).ranges);
        }
        let mut body = Vec::new();
        for &(file, offset, len) in &ranges {
            body.extend_from_slice(&UndoRange { file, offset, len }.encode());
            let side = self.side_of(file);
            body.extend_from_slice(&side.read_range(file, offset, len)?);
        }
        let header = UndoHeader {
            armed: true,
            generation: self.out.header.generation,
            segments: ranges.len() as u64,
            body_len: body.len() as u64,
            body_crc: crc32fast::hash(&body),
        };
        self.arm_undo(&header, &body)?;
        fail_point("sync-armed");
        let written = (|| -> Result<u64> {
            let (mut written, files) = self.out.write_checkpoint()?;
            fail_point("sync-array-written");
            let in_files = match &mut self.inc {
                Some(inc) => {
                    let (bytes, files) = inc.write_checkpoint()?;
                    written += bytes;
                    files
                }
                None => [false; 3],
            };
            self.out.checkpoint_barriers(files)?;
            if let Some(inc) = &mut self.inc {
                inc.checkpoint_barriers(in_files)?;
            }
            Ok(written)
        })();
        let written = match written {
            Ok(written) => written,
            Err(e) => return self.poison(e),
        };
        self.stats.bytes_flushed += written;
        fail_point("sync-written");
        if let Err(e) = self.disarm_undo() {
            return self.poison(e);
        }
        fail_point("sync-done");
        Ok(())
    }

    /// Rewrites each side into a new file holding `mark`, after making the
    /// log durable through it (the sides are renamed one after the other;
    /// recovery replays the log onto whichever is behind).
    fn checkpoint_by_rewrite(&mut self, mark: Mark) -> Result<()> {
        let n = self.out.vertices.len();
        let mut log = LogPoint::new(&self.wal, &mut self.pending, &mark);
        log.make_durable()?;
        for side in [Some(&mut self.out), self.inc.as_mut()]
            .into_iter()
            .flatten()
        {
            let capacity = side.capacity();
            side.rewrite(capacity, n, &mut log)?;
        }
        Ok(())
    }

    /// The side an undo range belongs to.
    fn side_of(&self, file: UndoFile) -> &Side {
        match file {
            UndoFile::Edges(format::Side::In)
            | UndoFile::Log(format::Side::In)
            | UndoFile::Sums(format::Side::In) => self.inc.as_ref().unwrap_or(&self.out),
            _ => &self.out,
        }
    }

    pub(crate) fn side_of_mut(&mut self, file: UndoFile) -> Option<&mut Side> {
        match file {
            UndoFile::Edges(format::Side::In)
            | UndoFile::Log(format::Side::In)
            | UndoFile::Sums(format::Side::In) => self.inc.as_mut(),
            _ => Some(&mut self.out),
        }
    }

    // -----------------------------------------------------------------
    // The undo log.
    // -----------------------------------------------------------------

    /// Writes the undo record's body, then its armed header, and makes both
    /// durable with one fdatasync. The header's checksum covers the body's,
    /// so a record torn by a crash before the fdatasync completed is
    /// recognised (and nothing had been written over yet).
    fn arm_undo(&mut self, header: &UndoHeader, body: &[u8]) -> Result<()> {
        let needed = UNDO_HEADER_BYTES as u64 + body.len() as u64;
        let current = self.undo_len();
        let undo = self
            .undo
            .as_ref()
            .expect("a writable store has an undo log");
        if needed > current {
            crate::side::check_space(
                &self.dir,
                self.out.layout.space_limit,
                &undo.path,
                needed - current,
            )?;
            allocate(&undo.file, &undo.path, needed)?;
        }
        undo.file
            .write_all_at(body, UNDO_HEADER_BYTES as u64)
            .map_err(|e| io(&undo.path, e))?;
        let encoded = header.encode();
        undo.file
            .write_all_at(&encoded, 0)
            .map_err(|e| io(&undo.path, e))?;
        undo.file.sync_data().map_err(|e| io(&undo.path, e))?;
        self.stats.undo_bytes_written += (body.len() + encoded.len()) as u64;
        self.stats.bytes_flushed += (body.len() + encoded.len()) as u64;
        self.stats.syncs += 1;
        Ok(())
    }

    /// Marks the undo log idle, durably: the ranges it saved are written.
    /// The saved bytes are dropped too (the space goes back to the disk).
    pub(crate) fn disarm_undo(&mut self) -> Result<()> {
        let Some(undo) = &self.undo else {
            return Ok(());
        };
        let idle = UndoHeader::idle().encode();
        undo.file
            .write_all_at(&idle, 0)
            .map_err(|e| io(&undo.path, e))?;
        undo.file.sync_data().map_err(|e| io(&undo.path, e))?;
        let len = undo.file.metadata().map_err(|e| io(&undo.path, e))?.len();
        if len > UNDO_HEADER_BYTES as u64 {
            undo.file
                .set_len(UNDO_HEADER_BYTES as u64)
                .map_err(|e| io(&undo.path, e))?;
        }
        self.stats.undo_bytes_written += idle.len() as u64;
        self.stats.bytes_flushed += idle.len() as u64;
        self.stats.syncs += 1;
        Ok(())
    }

    /// The undo log's header: `None` when idle or blank.
    pub(crate) fn read_undo_header(&self) -> Result<Option<UndoHeader>> {
        let path = self.dir.join(format::undo_file(0));
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path, e)),
        };
        let mut bytes = vec![0u8; 128];
        let read = file.read_at(&mut bytes, 0).map_err(|e| io(&path, e))?;
        bytes.truncate(read);
        UndoHeader::decode(&bytes, &path)
    }

    // -----------------------------------------------------------------
    // Clean-shutdown state.
    // -----------------------------------------------------------------

    pub(crate) fn encode_state(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(format::STATE_MAGIC).u32(format::FORMAT_VERSION);
        self.applied.write(&mut w);
        w.u32(if self.inc.is_some() { 2 } else { 1 });
        for side in self.sides() {
            side.encode_state(&mut w);
        }
        w.sealed()
    }

    /// Loads the DRAM state written by a clean close, if it describes these
    /// arrays.
    pub(crate) fn load_state(&mut self) -> Result<()> {
        let path = self.dir.join(STATE_FILE);
        let bytes = crate::files::read_file(&path)?;
        let body = state_body(&bytes, &path)?;
        let mut r = Reader::new(body, &path);
        let mark = Mark::read(&mut r)?;
        if mark.lsn != self.superblock.state_lsn
            || self.sides().any(|s| s.header.checkpoint != mark)
        {
            return Err(invalid(
                &path,
                format!(
                    "describes update {}, the arrays hold update {}",
                    mark.lsn, self.out.header.checkpoint.lsn
                ),
            ));
        }
        let sides = r.u32()?;
        if sides != if self.inc.is_some() { 2 } else { 1 } {
            return Err(invalid(&path, format!("{sides} edge arrays described")));
        }
        self.out.load_state(&mut r, &path)?;
        if let Some(inc) = &mut self.inc {
            inc.load_state(&mut r, &path)?;
        }
        self.applied = mark;
        Ok(())
    }

    /// Reads the sidecar the out-edge array's header names, checking its
    /// length and checksum.
    pub(crate) fn load_sidecar(&mut self) -> Result<()> {
        let Some((lsn, len, crc)) = self.out.header.sidecar else {
            return Ok(());
        };
        let path = self.dir.join(sidecar_file(lsn));
        let bytes = crate::files::read_file(&path)?;
        if bytes.len() as u64 != len || crc32fast::hash(&bytes) != crc {
            return Err(invalid(
                &path,
                format!(
                    "{} bytes with CRC-32 {:#010x}, the checkpoint names {len} bytes with \
                     {crc:#010x}: the sidecar is damaged",
                    bytes.len(),
                    crc32fast::hash(&bytes)
                ),
            ));
        }
        self.sidecar = Some(bytes);
        Ok(())
    }
}
