//! Opening's second half (DGAP §3.1.5): a clean reopen from the state
//! file, or a recovery: the undo record of a checkpoint cut short is
//! restored, every checksum verified, the vertex arrays rebuilt from the
//! pivots and the edge-log chains, and the write-ahead log replayed onto
//! whichever array is behind. A read-only open does the same in memory.

use super::DurableVcsr;
use crate::format::undo::{UndoPart, decode_part};
use crate::format::wal::Record;
use crate::format::{
    EDGES_HEADER_BYTES, Side as SideKind, UNDO_HEADER_BYTES, UNDO_SEGMENT_BYTES, UndoFile,
    UndoHeader, invalid, io, undo_file,
};
use crate::wal::{LogPoint, WalContents};
use dyngraph_core::{Error, Result};
use std::os::unix::fs::FileExt;

impl DurableVcsr {
    /// Loads the state a clean close left, or recovers; then the log is
    /// positioned after what was replayed.
    pub(crate) fn load_or_recover(&mut self, contents: WalContents, verify: bool) -> Result<()> {
        let log_idle = contents.groups.is_empty()
            && contents.torn_bytes == 0
            && self
                .sides()
                .all(|s| s.header.checkpoint == contents.header.base);
        let mut loaded = false;
        if self.superblock.normal_shutdown {
            if !log_idle {
                self.recovery.state_file_rejected =
                    Some("the write-ahead log holds updates past the last checkpoint".into());
            } else if let Err(e) = self.read_undo_header().and_then(|armed| match armed {
                Some(record) => Err(invalid(
                    &self.dir.join(undo_file(0)),
                    format!("armed at a clean shutdown ({record:?})"),
                )),
                None => self.load_state(),
            }) {
                self.recovery.state_file_rejected = Some(e.to_string());
            } else {
                loaded = true;
            }
        }
        if loaded {
            for side in self.sides_mut() {
                side.settle_length()?;
            }
            if verify {
                self.verify_sides()?;
            }
            self.recovery.torn_log_entries = self.out.cut_log_tails();
            if let Some(inc) = &mut self.inc {
                inc.cut_log_tails();
            }
            self.recovery.checkpoint = self.out.header.checkpoint;
        } else {
            self.recover(contents)?;
        }
        self.load_sidecar()?;
        self.wal.resume(self.applied);
        self.recovery.clean = loaded;
        self.recovery.vertices = self.out.vertices.len();
        self.recovery.edges = self.applied.edges;
        self.recovery.acknowledged = self.applied;
        Ok(())
    }

    fn verify_sides(&mut self) -> Result<()> {
        let mut pages = 0;
        let mut regions = 0;
        for side in self.sides() {
            let verified = side.verify_mapped()?;
            pages += verified.pages;
            regions += verified.regions;
        }
        self.recovery.pages_verified += pages;
        self.recovery.regions_verified += regions;
        Ok(())
    }

    /// Rebuilds the DRAM state from the files after an unclean shutdown
    /// (or while a writer holds the store, for a read-only open).
    fn recover(&mut self, contents: WalContents) -> Result<()> {
        // 1. The undo log: put back what a checkpoint cut short had
        // started to overwrite.
        let redo = self.restore_undo()?;
        for side in self.sides_mut() {
            side.settle_length()?;
        }
        // 2. Every page and region against its checksum, then the scan.
        self.verify_sides()?;
        for side in [Some(&mut self.out), self.inc.as_mut()]
            .into_iter()
            .flatten()
        {
            let scanned = side.scan()?;
            let (linked, torn) = (scanned.log_entries, scanned.torn_entry_count);
            side.install(scanned);
            if side.kind == SideKind::Out {
                // Counted once (the in-edges mirror them).
                self.recovery.log_entries_linked += linked;
                self.recovery.torn_log_entries += torn;
            }
        }
        self.recovery.checkpoint = self.out.header.checkpoint;
        // 3. Redo the interrupted rebalances of restored windows (DGAP
        // reissues them).
        let at = self.out.header.checkpoint;
        for section in redo {
            if section < self.out.section_count() {
                self.out
                    .make_room(section, 0, &mut LogPoint::replaying(&at))?;
                self.recovery.rebalance_redone = true;
            }
        }
        // 4. The write-ahead log, onto whichever side is behind.
        self.replay(contents)
    }

    /// Restores an armed, intact undo record (the files return to the last
    /// checkpoint); discards one that never became durable. Returns the
    /// first sections of restored windows, whose rebalance is redone.
    fn restore_undo(&mut self) -> Result<Vec<usize>> {
        let mut redo = Vec::new();
        let Some(record) = self.read_undo_header()? else {
            return Ok(redo);
        };
        let path = self.dir.join(undo_file(0));
        if record.generation != self.out.header.generation {
            self.recovery.undo_discarded = Some(format!(
                "it names edge-array generation {}, the array is generation {}",
                record.generation, self.out.header.generation
            ));
        } else {
            let file = std::fs::File::open(&path).map_err(|e| io(&path, e))?;
            let mut body = vec![0u8; record.body_len as usize];
            let mut read = 0;
            while read < body.len() {
                let n = file
                    .read_at(&mut body[read..], UNDO_HEADER_BYTES as u64 + read as u64)
                    .map_err(|e| io(&path, e))?;
                if n == 0 {
                    break;
                }
                read += n;
            }
            if read != body.len() || crc32fast::hash(&body) != record.body_crc {
                self.recovery.undo_discarded = Some(
                    "its saved bytes are short or fail their checksum: the crash came before \
                     the record was durable, so nothing had been written over"
                        .into(),
                );
            } else {
                redo = self.apply_undo(&record, &body)?;
            }
        }
        if !self.read_only {
            self.disarm_undo()?;
        }
        Ok(redo)
    }

    /// Writes back every segment of an intact undo record.
    fn apply_undo(&mut self, record: &UndoHeader, body: &[u8]) -> Result<Vec<usize>> {
        let path = self.dir.join(undo_file(0));
        let read_only = self.read_only;
        let mut redo = Vec::new();
        let mut rest = body;
        for index in 0..record.segments {
            let bad = |why: String| invalid(&path, format!("armed record, segment {index}: {why}"));
            if rest.len() < UNDO_SEGMENT_BYTES {
                return Err(bad("the body ends inside its descriptor".into()));
            }
            let part = decode_part(&rest[..UNDO_SEGMENT_BYTES])
                .ok_or_else(|| bad("an unknown file".into()))?;
            rest = &rest[UNDO_SEGMENT_BYTES..];
            match part {
                UndoPart::Range(range) => {
                    let len = range.len as usize;
                    if rest.len() < len {
                        return Err(bad(format!("{len} bytes, past the body's end")));
                    }
                    let side = self.side_of_mut(range.file).ok_or_else(|| {
                        bad(format!("{:?}: this store has no in-edges", range.file))
                    })?;
                    side.restore_range(range.file, range.offset, &rest[..len], read_only)?;
                    rest = &rest[len..];
                    self.recovery.undo_ranges_restored += 1;
                }
                UndoPart::Window(segment) => {
                    let stride = self.out.stride as u64;
                    let region = u64::from(self.out.layout.log_region_bytes);
                    let fits = segment.lo <= segment.hi
                        && segment.hi <= self.out.header.capacity
                        && segment.first_section <= segment.end_section
                        && segment.end_section * region <= self.out.log.len();
                    let array_len = (segment.hi.saturating_sub(segment.lo) * stride * 4) as usize;
                    let log_len = (segment.end_section.saturating_sub(segment.first_section)
                        * region) as usize;
                    if !fits || rest.len() < array_len + log_len {
                        return Err(bad(format!(
                            "slots {}..{} and sections {}..{} do not fit the edge array ({} \
                             slots), the edge log ({} bytes) or the body",
                            segment.lo,
                            segment.hi,
                            segment.first_section,
                            segment.end_section,
                            self.out.header.capacity,
                            self.out.log.len()
                        )));
                    }
                    let (array_part, after) = rest.split_at(array_len);
                    let (log_part, after) = after.split_at(log_len);
                    rest = after;
                    let offset = EDGES_HEADER_BYTES as u64 + segment.lo * stride * 4;
                    self.out.restore_range(
                        UndoFile::Edges(SideKind::Out),
                        offset,
                        array_part,
                        read_only,
                    )?;
                    self.out.restore_range(
                        UndoFile::Log(SideKind::Out),
                        segment.first_section * region,
                        log_part,
                        read_only,
                    )?;
                    self.recovery.undo_restored.push((
                        segment.lo,
                        segment.hi,
                        segment.first_section,
                        segment.end_section,
                    ));
                    redo.push(segment.first_section as usize);
                }
            }
        }
        Ok(redo)
    }

    /// Replays the log's records past each side's checkpoint. The log
    /// starts at or before the side furthest behind (the log is reset only
    /// once every side is checkpointed) and ends at or after the one
    /// furthest ahead (a rewrite makes the log durable first), or it is
    /// obsolete: a checkpoint completed and the reset after it was cut
    /// short.
    fn replay(&mut self, contents: WalContents) -> Result<()> {
        let marks: Vec<_> = self.sides().map(|s| s.header.checkpoint).collect();
        let behind = [marks[0].lsn, marks.get(1).map_or(u64::MAX, |m| m.lsn)];
        let start = *marks.iter().min_by_key(|m| m.lsn).expect("a side");
        let furthest = marks.iter().map(|m| m.lsn).max().expect("a side");
        let base = contents.header.base;
        let last = contents.groups.last().map_or(base, |(g, _)| g.after);
        let wal_path = self.dir.join(crate::format::WAL_FILE);
        self.recovery.wal_torn_bytes = contents.torn_bytes;
        if last.lsn < furthest {
            if marks.iter().all(|m| *m == start) {
                self.applied = start;
                self.recovery.wal_obsolete = true;
                if !self.read_only {
                    self.wal.reset(start)?;
                }
                return Ok(());
            }
            return Err(invalid(
                &wal_path,
                format!(
                    "ends at update {}, but an edge array holds update {furthest}: the log \
                     lost updates a rewrite had made durable",
                    last.lsn
                ),
            ));
        }
        if base.lsn > start.lsn {
            return Err(invalid(
                &wal_path,
                format!(
                    "starts after update {}, but an edge array holds only up to update {}: \
                     the updates between are lost",
                    base.lsn, start.lsn
                ),
            ));
        }
        self.applied = start;
        for (group, payload) in &contents.groups {
            let mut replayed = false;
            for (i, words) in payload.chunks_exact(self.wal_stride()).enumerate() {
                let lsn = group.first_lsn + i as u64;
                if lsn <= start.lsn {
                    continue;
                }
                let record = Record::decode(words).ok_or_else(|| {
                    invalid(
                        &wal_path,
                        format!("update {lsn}: an unknown record {words:?}"),
                    )
                })?;
                self.replay_one(record, lsn, behind)?;
                self.recovery.wal_updates_replayed += 1;
                replayed = true;
            }
            self.recovery.wal_groups_replayed += u64::from(replayed);
        }
        if self.applied != last {
            return Err(Error::InvalidStructure(format!(
                "{}: replaying the log reached {:?}, its last group says {last:?}",
                wal_path.display(),
                self.applied
            )));
        }
        Ok(())
    }

    fn wal_stride(&self) -> usize {
        crate::format::wal::record_stride(self.superblock.weighted)
    }
}
