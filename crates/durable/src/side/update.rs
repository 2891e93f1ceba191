//! The insert and delete paths of one adjacency (DGAP §3.1.2) and vertex
//! growth. Everything here changes the mapping only; a checkpoint writes it.

use super::{Side, VertexEntry};
use crate::format::{EDGES_HEADER_BYTES, ID_MASK, LIVE, PIVOT, TOMBSTONE, log_entry_check};
use crate::wal::LogPoint;
use dyngraph_core::{Error, Result, VertexId};

impl Side {
    /// DGAP §3.1.2: in place when the slot after the run is free and the
    /// vertex has nothing in the log, else into the section's edge log;
    /// when the log is full (or off), rebalance first (before placing: the
    /// side then holds exactly what `wal` logged). Returns the section whose
    /// log passed its merge threshold: the caller merges it once the update
    /// is logged.
    pub(crate) fn place(
        &mut self,
        u: VertexId,
        dst: VertexId,
        weight_bits: u32,
        log: &mut LogPoint<'_>,
    ) -> Result<Option<usize>> {
        let v = u as usize;
        for _attempt in 0..3 {
            let entry = self.vertices[v];
            if entry.log_count == 0 {
                let slot = entry.start + 1 + u64::from(entry.array_len);
                if slot < self.run_limit(v) {
                    self.write_slot(slot, LIVE | dst, weight_bits);
                    let e = &mut self.vertices[v];
                    e.array_len += 1;
                    e.live += 1;
                    self.stats.in_place_inserts += 1;
                    return Ok(None);
                }
            }
            let section = self.section_of(u);
            if self.layout.edge_log && (self.log_used[section] as usize) < self.log_entry_capacity()
            {
                self.append_log(section, u, dst, weight_bits);
                // The edge is in (and counts from here: a merge lays it out).
                self.vertices[v].live += 1;
                let merge = self.log_used[section] >= self.layout.merge_at;
                return Ok(merge.then_some(section));
            }
            self.make_room(section, 1, log)?;
        }
        Err(Error::InvalidStructure(format!(
            "vertex {u}: no free slot after three rebalances (a bug in the layout)"
        )))
    }

    /// Appends `src -> dst` to section `section`'s edge log, linked to
    /// `src`'s previous entry.
    pub(crate) fn append_log(
        &mut self,
        section: usize,
        src: VertexId,
        dst: VertexId,
        weight_bits: u32,
    ) {
        if !self.log_fresh[section] {
            // A region left from an older generation: clear it (a
            // checkpoint stamps its header with the current generation).
            let base = section * self.region_words();
            let zeros = vec![0u32; self.region_words()];
            self.write_log_words(base, &zeros);
            self.log_fresh[section] = true;
            self.log_used[section] = 0;
        }
        let index = self.log_used[section] as usize;
        let prev = self.vertices[src as usize].log_head as u16;
        let dst_word = LIVE | dst;
        let check = log_entry_check(
            section,
            index,
            self.header.generation,
            src,
            dst_word,
            weight_bits,
            prev,
        );
        let at = self.log_entry_at(section, index);
        self.write_log_words(
            at,
            &[
                src,
                dst_word,
                weight_bits,
                u32::from(prev) | (u32::from(check) << 16),
            ],
        );
        self.log_used[section] += 1;
        self.touch_section(section);
        let entry = &mut self.vertices[src as usize];
        entry.log_count += 1;
        entry.log_head = index as u32 + 1;
        self.stats.log_appends += 1;
    }

    /// Deletes the oldest live `v -> dst`: a tombstone, one word. `false`
    /// when there is none.
    pub(crate) fn delete(&mut self, v: VertexId, dst: VertexId) -> bool {
        let u = v as usize;
        if u >= self.vertices.len() || dst & !ID_MASK != 0 {
            return false;
        }
        let entry = self.vertices[u];
        let stride = self.stride;
        let target = LIVE | dst;
        let mut found_slot = None;
        {
            let words = self.words();
            for i in 0..u64::from(entry.array_len) {
                let slot = entry.start + 1 + i;
                if words[slot as usize * stride] == target {
                    found_slot = Some(slot);
                    break;
                }
            }
        }
        let mut found_log = None;
        if found_slot.is_none() && entry.log_count > 0 {
            let section = self.section_of(v);
            let log = self.log_words();
            found_log = self
                .log_chain(v)
                .into_iter()
                .map(|index| self.log_entry_at(section, index as usize))
                .find(|&at| log[at + 1] == target);
        }
        match (found_slot, found_log) {
            (Some(slot), _) => self.write_slot_word(slot, TOMBSTONE | dst),
            (None, Some(at)) => {
                self.write_log_words(at + 1, &[TOMBSTONE | dst]);
                let section = self.section_of(v);
                self.touch_section(section);
            }
            (None, None) => return false,
        }
        self.vertices[u].live -= 1;
        self.stats.deletes += 1;
        true
    }

    // -----------------------------------------------------------------
    // Vertices.
    // -----------------------------------------------------------------

    /// Grows the vertex array to `count` vertices: new pivots go into the
    /// free tail after the last run, each one word in id order, or the file
    /// is extended first.
    pub(crate) fn ensure_vertices(&mut self, count: usize) -> Result<()> {
        let n = self.vertices.len();
        if count <= n {
            return Ok(());
        }
        let added = (count - n) as u64;
        let tail = self
            .vertices
            .last()
            .map_or(0, |last| last.start + 1 + u64::from(last.array_len));
        let free = self.header.capacity - tail;
        let spacing = (free / (added + 1)).min(16);
        self.ensure_log_sections(count)?;
        if spacing >= 2 {
            self.vertices.reserve(added as usize);
            for i in 0..added {
                let slot = if n == 0 {
                    i * spacing
                } else {
                    tail + (i + 1) * spacing - 1
                };
                let v = (n as u64 + i) as u32;
                self.write_slot(slot, PIVOT | v, 0);
                self.vertices.push(VertexEntry {
                    start: slot,
                    ..VertexEntry::default()
                });
            }
            self.resize_sections();
            return Ok(());
        }
        // No room in the tail: extend the file (new slots are free, nothing
        // moves) and place the pivots there.
        let extra = (self.header.capacity / 4).max(4 * added + 64);
        self.extend_capacity(extra)?;
        self.ensure_vertices(count)
    }

    /// Grows the edge array by `extra` free slots at its end, without
    /// moving anything: the file is extended (allocated, zero-filled) and
    /// the mapping grown in place. The header (page 0, written by the next
    /// checkpoint) says the new capacity; until then the file is longer
    /// than its header says, which recovery ignores.
    pub(crate) fn extend_capacity(&mut self, extra: u64) -> Result<()> {
        let capacity = self.header.capacity + extra;
        let len = EDGES_HEADER_BYTES as u64 + capacity * self.stride as u64 * 4;
        let path = self.edges.path.clone();
        self.check_space(&path, len.saturating_sub(self.edges.len()) + len / 1024)?;
        let old_len = self.header.file_len();
        self.edges.grow(len)?;
        self.header.capacity = capacity;
        // The page the array used to end in now covers more bytes: its
        // checksum is recomputed by the next checkpoint; the new pages are
        // zero, their checksums set now.
        self.edges.mark(old_len - 1, 1);
        self.sums
            .resize(self.header.pages(), self.header.file_len())?;
        self.stats.resizes += 1;
        Ok(())
    }

    /// Makes the edge-log file hold a region for every section of `count`
    /// vertices (new regions are blank: zero-filled).
    pub(crate) fn ensure_log_sections(&mut self, count: usize) -> Result<()> {
        let sections = count.div_ceil(self.layout.vertices_per_section);
        let region = u64::from(self.layout.log_region_bytes);
        let needed = sections as u64 * region;
        if needed > self.log.len() {
            // Grow ahead (by half again) so that growth stays rare.
            let target = (needed + needed / 2).div_ceil(region) * region;
            let path = self.log.path.clone();
            self.check_space(&path, target - self.log.len())?;
            self.log.grow(target)?;
        }
        Ok(())
    }
}
