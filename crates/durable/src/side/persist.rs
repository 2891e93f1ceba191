//! What a checkpoint writes for one adjacency: its header page, the headers
//! of the edge-log regions that changed, the changed pages and their
//! checksums; and the side's part of the clean-shutdown state file.

use super::{Side, VertexEntry};
use crate::files::allocate;
use crate::format::{
    self, EDGES_HEADER_BYTES, EdgesHeader, LOG_ENTRY_WORDS, LOG_HEADER_WORDS, Mark, PAGE_BYTES,
    Reader, SUMS_HEADER_BYTES, SumsHeader, UndoFile, Writer, invalid, io, log_header,
    page_checksum, sums_file,
};
use dyngraph_core::Result;
use dyngraph_pma::{DensityTree, Thresholds};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The page checksums of an edge array (its `.sum` file): loaded whole,
/// changed entries written back by the checkpoint that made them.
#[derive(Debug)]
pub(crate) struct Sums {
    pub(crate) path: PathBuf,
    /// `None` for the checksums of an array a read-only open rewrote in
    /// memory.
    file: Option<File>,
    header: SumsHeader,
    /// One CRC per page of the edge array, as the next checkpoint writes it.
    pub(crate) values: Vec<u32>,
    /// One bit per entry changed since the last checkpoint.
    dirty: Vec<u64>,
    header_dirty: bool,
    /// Opened for reading only (a read-only open): the file is never
    /// written or extended, whatever the replay does in memory.
    read_only: bool,
}

impl Sums {
    /// Loads the checksums of the edge array with `header`.
    pub(crate) fn open(
        dir: &Path,
        side: format::Side,
        header: &EdgesHeader,
        read_only: bool,
    ) -> Result<Self> {
        let path = dir.join(sums_file(side, header.generation));
        if !path.exists() {
            return Err(invalid(
                &path,
                format!(
                    "missing: the page checksums of {} (generation {}) are gone",
                    side.edges_file(),
                    header.generation
                ),
            ));
        }
        let file = OpenOptions::new()
            .read(true)
            .write(!read_only)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
        let sums_header = SumsHeader::decode(&bytes, &path)?;
        // The page counts are compared by the checksum verification, after
        // recovery's undo restore (a checkpoint cut short may have written
        // the array's header and not yet this one's).
        let pages = sums_header.pages as usize;
        if sums_header.side != side
            || sums_header.generation != header.generation
            || bytes.len() < SUMS_HEADER_BYTES + pages * 4
        {
            return Err(invalid(
                &path,
                format!(
                    "describes {pages} pages of {:?} generation {} ({} bytes), the array is \
                     {side:?} generation {}",
                    sums_header.side,
                    sums_header.generation,
                    bytes.len(),
                    header.generation
                ),
            ));
        }
        let values = bytes[SUMS_HEADER_BYTES..SUMS_HEADER_BYTES + pages * 4]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect::<Vec<_>>();
        Ok(Self {
            path,
            file: Some(file),
            header: sums_header,
            dirty: vec![0; values.len().div_ceil(64)],
            values,
            header_dirty: false,
            read_only,
        })
    }

    /// The checksums of an array rewritten in memory by a read-only open.
    pub(crate) fn in_memory(
        dir: &Path,
        side: format::Side,
        header: &EdgesHeader,
        values: Vec<u32>,
    ) -> Self {
        Self {
            path: dir.join(sums_file(side, header.generation)),
            file: None,
            header: SumsHeader {
                side,
                generation: header.generation,
                pages: values.len() as u64,
            },
            dirty: vec![0; values.len().div_ceil(64)],
            values,
            header_dirty: false,
            read_only: true,
        }
    }

    /// Writes a new checksum file for the array with `header` (a new
    /// generation), durably.
    pub(crate) fn create(
        dir: &Path,
        side: format::Side,
        header: &EdgesHeader,
        values: Vec<u32>,
    ) -> Result<Self> {
        let path = dir.join(sums_file(side, header.generation));
        let sums_header = SumsHeader {
            side,
            generation: header.generation,
            pages: values.len() as u64,
        };
        let mut bytes = sums_header.encode();
        for v in &values {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        let write = || -> std::io::Result<File> {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)?;
            file.write_all(&bytes)?;
            file.sync_all()?;
            Ok(file)
        };
        let file = write().map_err(|e| io(&path, e))?;
        Ok(Self {
            path,
            file: Some(file),
            header: sums_header,
            dirty: vec![0; values.len().div_ceil(64)],
            values,
            header_dirty: false,
            read_only: false,
        })
    }

    /// Deletes the file (its array was replaced); a leftover is removed by
    /// the next writable open.
    pub(crate) fn remove(self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.path);
        }
    }

    fn file(&self) -> Result<&File> {
        self.file
            .as_ref()
            .ok_or_else(|| invalid(&self.path, "held in memory only (a read-only open)"))
    }

    /// The file's length.
    pub(crate) fn file_len(&self) -> u64 {
        (SUMS_HEADER_BYTES + self.header.pages as usize * 4) as u64
    }

    /// Makes room for `pages` checksums (an array extended to `file_len`
    /// bytes): the new pages are zero, their checksums are set now; the
    /// file is extended at once so the undo record can save its old bytes.
    pub(crate) fn resize(&mut self, pages: usize, file_len: u64) -> Result<()> {
        let old = self.values.len();
        if pages > old {
            let zeros = [0u8; PAGE_BYTES];
            self.values.resize(pages, 0);
            self.dirty.resize(pages.div_ceil(64), 0);
            for page in old..pages {
                let len = (file_len - (page * PAGE_BYTES) as u64).min(PAGE_BYTES as u64) as usize;
                self.set(page, page_checksum(page, &zeros[..len]));
            }
        }
        // The file may already describe more pages (a growth whose
        // checkpoint was undone): its header stays, the entries above are
        // rewritten.
        if pages as u64 > self.header.pages {
            self.header.pages = pages as u64;
            self.header_dirty = true;
            // A read-only open replaying a growth from the log extends
            // nothing on disk (its file was opened for reading: extending
            // it failed with EBADF, and `recover --check` called a sound
            // store damaged).
            if let Some(file) = self.file.as_ref().filter(|_| !self.read_only) {
                allocate(file, &self.path, self.file_len())?;
            }
        }
        Ok(())
    }

    /// Forgets the checksums of pages past `pages` (an undo restore took
    /// the array back to fewer pages; a growth will set them anew).
    pub(crate) fn truncate(&mut self, pages: usize) {
        self.values.truncate(pages);
        self.dirty.truncate(pages.div_ceil(64));
        if let Some(last) = self.dirty.last_mut()
            && !pages.is_multiple_of(64)
        {
            *last &= (1u64 << (pages % 64)) - 1;
        }
    }

    /// Sets page `page`'s checksum.
    #[inline]
    pub(crate) fn set(&mut self, page: usize, value: u32) {
        if self.values[page] != value {
            self.values[page] = value;
            self.dirty[page / 64] |= 1 << (page % 64);
        }
    }

    /// Byte ranges of the file the next write-back changes.
    pub(crate) fn dirty_ranges(&self) -> Vec<(u64, u64)> {
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        if self.header_dirty {
            ranges.push((0, SUMS_HEADER_BYTES as u64));
        }
        for (w, &bits) in self.dirty.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let page = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let offset = (SUMS_HEADER_BYTES + page * 4) as u64;
                match ranges.last_mut() {
                    // Runs of entries only: the header is its own range.
                    Some((start, len)) if *start > 0 && *start + *len == offset => *len += 4,
                    _ => ranges.push((offset, 4)),
                }
            }
        }
        ranges
    }

    /// The on-disk bytes of `offset..offset + len`.
    pub(crate) fn read_disk(&self, offset: u64, len: u64) -> Result<Vec<u8>> {
        let mut bytes = vec![0u8; len as usize];
        self.file()?
            .read_exact_at(&mut bytes, offset)
            .map_err(|e| io(&self.path, e))?;
        Ok(bytes)
    }

    /// Writes the changed entries (and header); returns the bytes.
    pub(crate) fn write_back(&mut self) -> Result<u64> {
        let mut written = 0;
        let header = self.header.encode();
        for (offset, len) in self.dirty_ranges() {
            let bytes: Vec<u8> = if offset == 0 {
                header.clone()
            } else {
                let first = (offset as usize - SUMS_HEADER_BYTES) / 4;
                self.values[first..first + len as usize / 4]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect()
            };
            self.file()?
                .write_all_at(&bytes, offset)
                .map_err(|e| io(&self.path, e))?;
            written += bytes.len() as u64;
        }
        self.dirty.fill(0);
        self.header_dirty = false;
        Ok(written)
    }

    /// fdatasync.
    pub(crate) fn barrier(&self) -> Result<()> {
        self.file()?.sync_data().map_err(|e| io(&self.path, e))
    }

    /// Restores bytes saved by an undo record, durably, and reloads.
    pub(crate) fn restore(&mut self, offset: u64, bytes: &[u8], read_only: bool) -> Result<()> {
        if !read_only {
            self.file()?
                .write_all_at(bytes, offset)
                .map_err(|e| io(&self.path, e))?;
            self.barrier()?;
        }
        if offset == 0 {
            self.header = SumsHeader::decode(bytes, &self.path)?;
            return Ok(());
        }
        let first = (offset as usize - SUMS_HEADER_BYTES) / 4;
        for (i, c) in bytes.chunks_exact(4).enumerate() {
            if let Some(v) = self.values.get_mut(first + i) {
                *v = u32::from_le_bytes(c.try_into().expect("4 bytes"));
            }
        }
        Ok(())
    }
}

/// A side's part of a checkpoint: the ranges it will write.
pub(crate) struct PreparedSide {
    pub(crate) ranges: Vec<(UndoFile, u64, u64)>,
}

impl Side {
    /// Stamps what an in-place checkpoint at `mark` writes into the mapping
    /// (the header page; the headers of the regions changed since the last
    /// checkpoint, each with the CRC of its entries; the checksums of the
    /// changed pages) and returns the byte ranges the checkpoint will
    /// write, for the undo record.
    pub(crate) fn prepare_checkpoint(&mut self, mark: Mark) -> PreparedSide {
        self.header.checkpoint = mark;
        let header = self.header.encode();
        self.edges.bytes_mut()[..EDGES_HEADER_BYTES].copy_from_slice(&header);
        self.edges.mark(0, EDGES_HEADER_BYTES as u64);
        let region_words = self.region_words();
        let generation = self.header.generation;
        for word in 0..self.log_dirty.len() {
            let mut bits = std::mem::take(&mut self.log_dirty[word]);
            while bits != 0 {
                let section = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if section >= self.log_used.len() || !self.log_fresh[section] {
                    continue;
                }
                let base = section * region_words;
                let used = self.log_used[section];
                let end = base + LOG_HEADER_WORDS + used as usize * LOG_ENTRY_WORDS;
                let head = {
                    let log = self.log_words();
                    log_header(
                        section,
                        generation,
                        used,
                        &log[base + LOG_HEADER_WORDS..end],
                    )
                };
                self.write_log_words(base, &head);
                self.stats.meta_bytes_written += 16;
            }
        }
        let len = self.header.file_len() as usize;
        let pages = self.header.pages();
        for page in 0..pages.min(self.edges.pages()) {
            if self.edges.is_page_dirty(page) {
                let from = page * PAGE_BYTES;
                let to = (from + PAGE_BYTES).min(len);
                let sum = page_checksum(page, &self.edges.bytes()[from..to]);
                self.sums.set(page, sum);
            }
        }
        let kind = self.kind;
        let mut ranges = Vec::new();
        for (offset, n) in self.edges.dirty_ranges() {
            let n = n.min((len as u64).saturating_sub(offset));
            if n > 0 {
                ranges.push((UndoFile::Edges(kind), offset, n));
            }
        }
        // Pages past the header's length (grown, not yet covered) are zero
        // on disk and in memory: nothing to write.
        for (offset, n) in self.log.dirty_ranges() {
            ranges.push((UndoFile::Log(kind), offset, n));
        }
        for (offset, n) in self.sums.dirty_ranges() {
            ranges.push((UndoFile::Sums(kind), offset, n));
        }
        PreparedSide { ranges }
    }

    /// The on-disk bytes of one range named by [`Side::prepare_checkpoint`].
    pub(crate) fn read_range(&self, file: UndoFile, offset: u64, len: u64) -> Result<Vec<u8>> {
        match file {
            UndoFile::Edges(_) => self.edges.read_disk(offset, len),
            UndoFile::Log(_) => self.log.read_disk(offset, len),
            UndoFile::Sums(_) => self.sums.read_disk(offset, len),
        }
    }

    /// Writes what [`Side::prepare_checkpoint`] stamped (pwrite, no
    /// barrier); returns the bytes, and which files were written.
    pub(crate) fn write_checkpoint(&mut self) -> Result<(u64, [bool; 3])> {
        let edges = self.edges.write_back()?;
        let log = self.log.write_back()?;
        // A kill here leaves new pages beside their old checksums: the
        // undo record is what makes the store whole again.
        crate::failpoint::fail_point("checkpoint-pages-written");
        let sums = self.sums.write_back()?;
        Ok((edges + log + sums, [edges > 0, log > 0, sums > 0]))
    }

    /// fdatasync of the side's files that a checkpoint wrote.
    pub(crate) fn checkpoint_barriers(&mut self, written: [bool; 3]) -> Result<()> {
        if written[0] {
            self.edges.barrier()?;
        }
        if written[1] {
            self.log.barrier()?;
        }
        if written[2] {
            self.sums.barrier()?;
        }
        self.stats.syncs += written.iter().filter(|&&w| w).count() as u64;
        Ok(())
    }

    /// Bytes an in-place checkpoint would write now (for choosing it over a
    /// rewrite).
    pub(crate) fn dirty_bytes(&self) -> u64 {
        (self.edges.dirty_pages() + self.log.dirty_pages()) * crate::files::PAGE
    }

    /// Puts back bytes an undo record saved, on disk (or, read-only, in
    /// the mapping only).
    pub(crate) fn restore_range(
        &mut self,
        file: UndoFile,
        offset: u64,
        bytes: &[u8],
        read_only: bool,
    ) -> Result<()> {
        let fits = |len: u64| offset + bytes.len() as u64 <= len;
        match file {
            UndoFile::Edges(_) if fits(self.edges.len()) => {
                self.edges.restore(offset, bytes)?;
                if offset == 0 {
                    self.header = EdgesHeader::decode(self.edges.bytes(), &self.edges.path)?;
                }
                Ok(())
            }
            UndoFile::Log(_) if fits(self.log.len()) => self.log.restore(offset, bytes),
            UndoFile::Sums(_) if fits(self.sums.file_len().max(offset + bytes.len() as u64)) => {
                self.sums.restore(offset, bytes, read_only)
            }
            _ => Err(invalid(
                &self.edges.path,
                format!(
                    "the undo record restores {} bytes at byte {offset} of {file:?}, past its end",
                    bytes.len()
                ),
            )),
        }
    }

    // -----------------------------------------------------------------
    // Clean-shutdown state.
    // -----------------------------------------------------------------

    /// Appends the side's DRAM state to a state file being built.
    pub(crate) fn encode_state(&self, w: &mut Writer) {
        w.u64(self.header.generation)
            .u64(self.vertices.len() as u64)
            .u64(self.log_used.len() as u64);
        w.0.reserve(self.vertices.len() * 24 + self.log_used.len() * 8);
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
    }

    /// Loads the side's DRAM state from a state file, if it describes this
    /// edge array; checks that the pivots are where it says.
    pub(crate) fn load_state(&mut self, r: &mut Reader<'_>, path: &Path) -> Result<()> {
        let generation = r.u64()?;
        if generation != self.header.generation {
            return Err(invalid(
                path,
                format!(
                    "describes {} generation {generation}, the array is generation {}",
                    self.kind.edges_file(),
                    self.header.generation
                ),
            ));
        }
        let n = r.u64()? as usize;
        let sections = r.u64()? as usize;
        if n > format::MAX_VERTICES || sections != n.div_ceil(self.layout.vertices_per_section) {
            return Err(invalid(path, "inconsistent vertex or section count"));
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
        let words = self.words();
        let stride = self.stride;
        let ok = vertices.iter().enumerate().all(|(v, e)| {
            e.start < self.header.capacity
                && words[e.start as usize * stride] == format::PIVOT | v as u32
        });
        if !ok
            || (sections > 0
                && self.log.len() < sections as u64 * u64::from(self.layout.log_region_bytes))
        {
            return Err(invalid(path, "does not match the edge array"));
        }
        self.vertices = vertices;
        self.log_used = log_used;
        self.log_fresh = log_fresh;
        self.log_dirty = vec![0; sections.div_ceil(64)];
        self.tree = DensityTree::new(self.section_count().max(1), Thresholds::default());
        Ok(())
    }
}
