//! PMA maintenance of one adjacency (DGAP §3.1.4): window rebalances in
//! the mapping, and whole-array rewrites into a new file.

use super::{Side, VertexEntry};
use crate::failpoint::fail_point;
use crate::files::{allocate, sync_dir};
use crate::format::{
    EDGES_HEADER_BYTES, EdgesHeader, LIVE, Mark, PAGE_BYTES, PIVOT, TEMP_SUFFIX, io, page_checksum,
};
use crate::wal::LogPoint;
use dyngraph_core::{Result, VertexId};
use dyngraph_pma::{DegreeProportional, GapPolicy, Window};
use std::fs::File;
use std::io::Write;

/// Target root density of a rewrite (the middle of the default root
/// bounds `[0.5, 0.75]`).
pub(crate) const REWRITE_DENSITY: f64 = 0.6;

impl Side {
    /// Finds the smallest window around `section` whose density, with
    /// `extra` more slots and its logs merged, is within the tree's bound
    /// for its level, and redistributes it (DGAP §3.1.4); grows the array
    /// (a rewrite) when even the root is too dense.
    ///
    /// Call it only where the side holds exactly the updates logged in
    /// `wal` so far (before an update is placed, or after it is logged): a
    /// rewrite writes that state out as of the log's last record.
    pub(crate) fn make_room(
        &mut self,
        section: usize,
        extra: u64,
        log: &mut LogPoint<'_>,
    ) -> Result<()> {
        let height = self.tree.height();
        let vps = self.layout.vertices_per_section;
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
                if self.dirty_bytes() + bytes > self.undo_budget() {
                    // The next checkpoint could not save this window in its
                    // undo record: lay the array out anew in a new file.
                    let needed = self.slots_needed() + extra;
                    let capacity = self.header.capacity.max(grown_capacity(0, needed));
                    return self.rewrite(capacity, n, log);
                }
                self.rebalance_window(leaves, first, end, lo, hi, level);
                return Ok(());
            }
        }
        // Even the root is too dense: grow. In place (the file extended,
        // the whole array rebalanced in the mapping, written by the next
        // checkpoint) while the next checkpoint can still save it in its
        // undo record; else into a new file.
        let needed = self.slots_needed() + extra;
        let capacity = grown_capacity(self.header.capacity, needed);
        let grown_bytes = capacity * self.stride as u64 * 4;
        if grown_bytes + self.log.len() <= self.undo_budget() && !self.edges.is_read_only() {
            self.extend_capacity(capacity - self.header.capacity)?;
            let lo = 0;
            let hi = self.header.capacity;
            let root = self.tree.window(section, height);
            self.rebalance_window(root, 0, n, lo, hi, height);
            return Ok(());
        }
        self.rewrite(capacity, n, log)
    }

    /// The most bytes of changed pages an in-place checkpoint may save:
    /// [`Layout::max_undo_bytes`](super::Layout), and under an injected
    /// space limit half of what is left (the undo record must fit beside
    /// the files).
    pub(crate) fn undo_budget(&self) -> u64 {
        match self.layout.space_limit {
            Some(limit) => self
                .layout
                .max_undo_bytes
                .min(limit.saturating_sub(super::dir_bytes(&self.dir)) / 2),
            None => self.layout.max_undo_bytes,
        }
    }

    /// Slots every vertex needs now: a pivot and its live edges.
    pub(crate) fn slots_needed(&self) -> u64 {
        self.vertices.iter().map(|e| 1 + u64::from(e.live)).sum()
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
    /// The mapping is private, so the moves stay in memory; the next
    /// checkpoint saves the window's on-disk bytes in the undo log before
    /// writing it (or rewrites the array). Until then the write-ahead log
    /// holds the updates that led here, and recovery replays them onto the
    /// last checkpoint.
    fn rebalance_window(
        &mut self,
        leaves: std::ops::Range<usize>,
        first: usize,
        end: usize,
        lo: u64,
        hi: u64,
        level: u32,
    ) {
        let (starts, content) = self.layout_window(first, end, lo, hi, level);
        let stride = self.stride as u64;
        let array_offset = EDGES_HEADER_BYTES as u64 + lo * stride * 4;
        let array_len = (hi - lo) * stride * 4;
        self.edges.bytes_mut()[array_offset as usize..(array_offset + array_len) as usize]
            .copy_from_slice(bytemuck::cast_slice(&content));
        self.edges.mark(array_offset, array_len);
        let region_words = self.region_words();
        for section in leaves.clone() {
            let zeros = vec![0u32; region_words];
            self.write_log_words(section * region_words, &zeros);
            self.log_used[section] = 0;
            self.log_fresh[section] = true;
            self.touch_section(section);
        }
        let mut moved = 0u64;
        for (v, &start) in (first..end).zip(&starts) {
            let entry = &mut self.vertices[v];
            entry.start = start;
            entry.array_len = entry.live;
            entry.log_count = 0;
            entry.log_head = 0;
            moved += 1 + u64::from(entry.live);
        }
        self.stats.rebalances += 1;
        self.stats.elements_moved += moved;
        self.stats.array_bytes_written += array_len;
        fail_point("rebalance-done");
    }

    /// Rewrites the whole array into a new file of `capacity` slots for
    /// `vertex_count` vertices (the new ones empty), every vertex's logged
    /// edges merged, tombstones dropped (see [`Side::rewrite_from`]).
    pub(crate) fn rewrite(
        &mut self,
        capacity: u64,
        vertex_count: usize,
        log: &mut LogPoint<'_>,
    ) -> Result<()> {
        let n = self.vertices.len();
        let before = self.header.capacity;
        let lengths: Vec<u32> = (0..vertex_count)
            .map(|v| self.vertices.get(v).map_or(0, |e| e.live))
            .collect();
        let mark = *log.applied;
        self.rewrite_from(capacity, &lengths, mark, Some(log), |side, v, out| {
            if v < n {
                side.for_each_live(v as VertexId, |d, w| out.push((d, w)));
            }
        })?;
        self.stats.resizes += u64::from(self.header.capacity > before);
        Ok(())
    }

    /// Writes a new array file holding `lengths[v]` edges of each vertex
    /// from `edges_of`, laid out with degree-proportional gaps, as the next
    /// generation with checkpoint `mark`: into `edges.dat.tmp` with its page
    /// checksums into the new generation's `.sum` file, both fsynced, then
    /// renamed over the array and the directory fsynced. The new generation
    /// makes every edge-log region stale at once. A crash before the rename
    /// leaves the old array, its logs and its checksums; after it, the new
    /// ones. With `log`, the log is made durable through `mark` before the
    /// rename (log before data: recovery can then bring the other side to
    /// the same point); without, the caller sees to it (a bulk build before
    /// the store exists).
    pub(crate) fn rewrite_from(
        &mut self,
        capacity: u64,
        lengths: &[u32],
        mark: Mark,
        log: Option<&mut LogPoint<'_>>,
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
            generation: self.header.generation + 1,
            capacity,
            checkpoint: mark,
            ..self.header
        };
        let gaps = gaps_for(0, lengths, (capacity - used) as usize, self.tree.height());
        let mut starts = Vec::with_capacity(vertex_count);
        let mut layout = |side: &Self, out: &mut dyn FnMut(&[u32]) -> std::io::Result<()>| {
            let mut slot = 0u64;
            let mut edges = Vec::new();
            let mut words: Vec<u32> = Vec::with_capacity(1 << 16);
            for v in 0..vertex_count {
                starts.push(slot);
                edges.clear();
                edges_of(side, v, &mut edges);
                debug_assert_eq!(edges.len(), lengths[v] as usize);
                words.push(PIVOT | v as u32);
                if side.stride == 2 {
                    words.push(0);
                }
                for &(dst, weight_bits) in &edges {
                    words.push(LIVE | dst);
                    if side.stride == 2 {
                        words.push(weight_bits);
                    }
                }
                words.resize(words.len() + gaps[v] * side.stride, 0);
                slot += 1 + edges.len() as u64 + gaps[v] as u64;
                if words.len() >= 1 << 16 {
                    out(&words)?;
                    words.clear();
                }
            }
            debug_assert_eq!(slot, capacity);
            out(&words)
        };
        if self.edges.is_read_only() {
            // A read-only open recovering in memory: the new array lives in
            // anonymous memory, the files stay as they are.
            let mut out = PageWriter::new(Vec::with_capacity(new_header.file_len() as usize));
            let path = self.edges.path.clone();
            out.write(&new_header.encode()).map_err(|e| io(&path, e))?;
            layout(self, &mut |words| out.write(bytemuck::cast_slice(words)))
                .map_err(|e| io(&path, e))?;
            let (bytes, sums) = out.finish();
            self.edges.replace_with_bytes(&bytes)?;
            self.sums = super::Sums::in_memory(&self.dir, self.kind, &new_header, sums);
        } else {
            let name = self.kind.edges_file();
            let temp = self.dir.join(format!("{name}{TEMP_SUFFIX}"));
            // Writing the new file needs room for both copies at once.
            self.check_space(&temp, new_header.file_len() + new_header.file_len() / 1024)?;
            let written = (|| -> Result<Vec<u32>> {
                let file = File::create(&temp).map_err(|e| io(&temp, e))?;
                allocate(&file, &temp, new_header.file_len())?;
                let mut out = PageWriter::new(std::io::BufWriter::with_capacity(1 << 20, file));
                out.write(&new_header.encode()).map_err(|e| io(&temp, e))?;
                layout(self, &mut |words| out.write(bytemuck::cast_slice(words)))
                    .map_err(|e| io(&temp, e))?;
                let (writer, sums) = out.finish();
                let file = writer.into_inner().map_err(|e| io(&temp, e.into_error()))?;
                file.sync_all().map_err(|e| io(&temp, e))?;
                Ok(sums)
            })();
            let sums = match written {
                Ok(sums) => sums,
                Err(e) => {
                    let _ = std::fs::remove_file(&temp);
                    return Err(e);
                }
            };
            let new_sums = match super::Sums::create(&self.dir, self.kind, &new_header, sums) {
                Ok(sums) => sums,
                Err(e) => {
                    let _ = std::fs::remove_file(&temp);
                    return Err(e);
                }
            };
            if let Some(log) = log
                && let Err(e) = log.make_durable()
            {
                let _ = std::fs::remove_file(&temp);
                new_sums.remove();
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
            let old_sums = std::mem::replace(&mut self.sums, new_sums);
            old_sums.remove();
            self.stats.rewrite_bytes_written += new_header.file_len();
            self.stats.bytes_flushed += new_header.file_len();
            self.stats.syncs += 3;
        }
        self.header = new_header;
        self.vertices.resize(vertex_count, VertexEntry::default());
        for (v, (&start, &length)) in starts.iter().zip(lengths).enumerate() {
            self.vertices[v] = VertexEntry {
                start,
                array_len: length,
                live: length,
                log_count: 0,
                log_head: 0,
            };
        }
        // Every region is stale now: drop the log's private pages (their
        // entries are in the new array), so that no stale byte is ever
        // written back beside a fresh region.
        if !self.log.is_read_only()
            && let Err(e) = self.log.reload()
        {
            return self.poison(e);
        }
        self.log_used.clear();
        self.log_fresh.clear();
        self.log_dirty.clear();
        self.resize_sections();
        if let Err(e) = self.ensure_log_sections(vertex_count) {
            return self.poison(e);
        }
        self.stats.rewrites += 1;
        self.stats.elements_moved += used;
        Ok(())
    }
}

/// A writer that checksums the pages of what it writes (page 0 first).
struct PageWriter<W: Write> {
    out: W,
    page: Vec<u8>,
    pages: Vec<u32>,
}

impl<W: Write> PageWriter<W> {
    fn new(out: W) -> Self {
        Self {
            out,
            page: Vec::with_capacity(PAGE_BYTES),
            pages: Vec::new(),
        }
    }

    fn write(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)?;
        while !bytes.is_empty() {
            let take = (PAGE_BYTES - self.page.len()).min(bytes.len());
            self.page.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.page.len() == PAGE_BYTES {
                self.pages.push(page_checksum(self.pages.len(), &self.page));
                self.page.clear();
            }
        }
        Ok(())
    }

    /// Hands back the inner writer and the page checksums (a last partial
    /// page included).
    fn finish(mut self) -> (W, Vec<u32>) {
        if !self.page.is_empty() {
            self.pages.push(page_checksum(self.pages.len(), &self.page));
        }
        (self.out, self.pages)
    }
}

/// Each run's free slots after it, by VCSR's degree-proportional policy
/// (every run at least one when there is room, the rest by length).
pub(crate) fn gaps_for(first_run: usize, lengths: &[u32], free: usize, level: u32) -> Vec<usize> {
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
pub(crate) fn grown_capacity(current: u64, needed: u64) -> u64 {
    (current + current / 2).max((needed as f64 / REWRITE_DENSITY).ceil() as u64)
}
