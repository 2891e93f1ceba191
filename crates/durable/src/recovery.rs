//! Recovery (DGAP §3.1.5) and structural validation: the undo log is
//! replayed, the vertex array is rebuilt from the pivots, the edge logs
//! are linked back to their vertices, torn unacknowledged tails are cut,
//! and the interrupted rebalance is redone.

use crate::DurableVcsr;
use crate::format::{
    EDGES_HEADER_BYTES, EMPTY, ID_MASK, LIVE, LOG_ENTRY_WORDS, PIVOT, TAG_MASK, TOMBSTONE,
    UNDO_HEADER_BYTES, UNDO_SEGMENT_BYTES, UndoHeader, UndoSegment, invalid, io, log_entry_check,
    log_header_generation,
};
use crate::store::VertexEntry;
use dyngraph_core::{Error, Result};
use dyngraph_pma::{DensityTree, Thresholds};
use std::os::unix::fs::FileExt;

/// One segment of an undo record: the window and its saved array and log
/// bytes.
type SavedWindow<'b> = (UndoSegment, &'b [u8], &'b [u8]);

/// What a scan of the files finds.
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    pub(crate) vertices: Vec<VertexEntry>,
    pub(crate) log_used: Vec<u32>,
    pub(crate) log_fresh: Vec<bool>,
    pub(crate) edge_count: u64,
    pub(crate) log_entries: u64,
    /// Edge slots after a hole in their run: unacknowledged in-place
    /// writes whose predecessor never reached the disk.
    pub(crate) torn_slots: Vec<u64>,
    /// `(section, index)`: entries from `index` on are a torn tail.
    pub(crate) torn_entries: Vec<(usize, usize)>,
    /// Non-blank entries in those torn tails.
    pub(crate) torn_entry_count: u64,
    /// Array slots of live edges whose destination does not exist.
    pub(crate) dangling_slots: Vec<u64>,
    /// Word offsets of log entries of live edges whose destination does
    /// not exist.
    pub(crate) dangling_entries: Vec<usize>,
}

impl DurableVcsr {
    /// Rebuilds the DRAM state from the files after an unclean shutdown.
    pub(crate) fn recover(&mut self) -> Result<()> {
        // 1. The undo log: put back the windows of a cut sync.
        let mut redo_sections = Vec::new();
        if let Some(record) = self.read_undo_header()? {
            if record.generation != self.header.generation {
                self.recovery.undo_discarded = Some(format!(
                    "it names edge-array generation {}, the array is generation {}",
                    record.generation, self.header.generation
                ));
            } else {
                let mut body = vec![0u8; record.body_len as usize];
                let read = self
                    .undo
                    .file
                    .read_at(&mut body, UNDO_HEADER_BYTES as u64)
                    .map_err(|e| io(&self.undo.path, e))?;
                if read != body.len() || crc32fast::hash(&body) != record.body_crc {
                    self.recovery.undo_discarded = Some(
                        "its saved bytes are short or fail their checksum: the crash came \
                         before the record was durable, so nothing had been written over"
                            .into(),
                    );
                } else {
                    let segments = self.parse_undo_body(&record, &body)?;
                    for (segment, array_part, log_part) in segments {
                        let stride = self.stride as u64;
                        let region = u64::from(self.superblock.log_region_bytes);
                        self.edges.write_disk(
                            EDGES_HEADER_BYTES as u64 + segment.lo * stride * 4,
                            array_part,
                        )?;
                        self.log
                            .write_disk(segment.first_section * region, log_part)?;
                        self.recovery.undo_restored.push((
                            segment.lo,
                            segment.hi,
                            segment.first_section,
                            segment.end_section,
                        ));
                        redo_sections.push(segment.first_section as usize);
                    }
                }
            }
            self.disarm_undo()?;
        }

        // 2. The pivots and the edge logs.
        let scanned = self.scan()?;
        let stride = self.stride;
        for &slot in &scanned.torn_slots {
            let at = EDGES_HEADER_BYTES + slot as usize * stride * 4;
            self.edges.bytes_mut()[at..at + stride * 4].fill(0);
            self.edges.mark(at as u64, stride as u64 * 4);
        }
        let region_words = self.region_words();
        for &(section, index) in &scanned.torn_entries {
            let from = self.log_entry_at(section, index) * 4;
            let to = (section + 1) * region_words * 4;
            self.log.bytes_mut()[from..to].fill(0);
            self.log.mark(from as u64, (to - from) as u64);
        }
        for &slot in &scanned.dangling_slots {
            let at = EDGES_HEADER_BYTES + slot as usize * stride * 4;
            let word = u32::from_le_bytes(self.edges.bytes()[at..at + 4].try_into().expect("4"));
            let tombstone = TOMBSTONE | (word & ID_MASK);
            self.edges.bytes_mut()[at..at + 4].copy_from_slice(&tombstone.to_le_bytes());
            self.edges.mark(at as u64, 4);
        }
        for &at in &scanned.dangling_entries {
            let byte = (at + 1) * 4;
            let word = u32::from_le_bytes(self.log.bytes()[byte..byte + 4].try_into().expect("4"));
            let tombstone = TOMBSTONE | (word & ID_MASK);
            self.log.bytes_mut()[byte..byte + 4].copy_from_slice(&tombstone.to_le_bytes());
            self.log.mark(byte as u64, 4);
        }
        self.recovery.dangling_edges =
            (scanned.dangling_slots.len() + scanned.dangling_entries.len()) as u64;
        self.edges.flush()?;
        self.log.flush()?;
        self.recovery.torn_array_slots = scanned.torn_slots.len() as u64;
        self.recovery.torn_log_entries = scanned.torn_entry_count;
        self.recovery.log_entries_replayed = scanned.log_entries;
        self.vertices = scanned.vertices;
        self.log_used = scanned.log_used;
        self.log_fresh = scanned.log_fresh;
        self.edge_count = scanned.edge_count;
        self.synced_vertex_count = self.vertices.len();
        self.tree = DensityTree::new(self.section_count().max(1), Thresholds::default());

        // 3. Redo the interrupted rebalances (DGAP reissues them), and make
        // the repaired state durable before anything else happens.
        for section in redo_sections {
            if section < self.section_count() {
                self.make_room(section, 0)?;
                self.recovery.rebalance_redone = true;
            }
        }
        self.sync()?;
        Ok(())
    }

    /// Splits an undo body into its segments, checking that each fits
    /// the files.
    fn parse_undo_body<'b>(
        &self,
        record: &UndoHeader,
        body: &'b [u8],
    ) -> Result<Vec<SavedWindow<'b>>> {
        let stride = self.stride as u64;
        let region = u64::from(self.superblock.log_region_bytes);
        let mut segments = Vec::new();
        let mut rest = body;
        for index in 0..record.segments {
            let bad = |why: String| {
                invalid(
                    &self.undo.path,
                    format!("armed record, segment {index}: {why}"),
                )
            };
            if rest.len() < UNDO_SEGMENT_BYTES {
                return Err(bad("the body ends inside its descriptor".into()));
            }
            let segment = UndoSegment::decode(&rest[..UNDO_SEGMENT_BYTES]);
            rest = &rest[UNDO_SEGMENT_BYTES..];
            let fits = segment.lo <= segment.hi
                && segment.hi <= self.header.capacity
                && segment.first_section <= segment.end_section
                && segment.end_section * region <= self.log.len();
            let array_len = (segment.hi.saturating_sub(segment.lo) * stride * 4) as usize;
            let log_len =
                (segment.end_section.saturating_sub(segment.first_section) * region) as usize;
            if !fits || rest.len() < array_len + log_len {
                return Err(bad(format!(
                    "slots {}..{} and sections {}..{} do not fit the edge array ({} slots), \
                     the edge log ({} bytes) or the body",
                    segment.lo,
                    segment.hi,
                    segment.first_section,
                    segment.end_section,
                    self.header.capacity,
                    self.log.len()
                )));
            }
            let (array_part, after) = rest.split_at(array_len);
            let (log_part, after) = after.split_at(log_len);
            rest = after;
            segments.push((segment, array_part, log_part));
        }
        Ok(segments)
    }

    /// Scans the edge array and the edge logs without changing anything.
    pub(crate) fn scan(&self) -> Result<Scanned> {
        let mut scanned = Scanned::default();
        let words = self.words();
        let stride = self.stride;
        let path = &self.edges.path;
        let mut in_run = false;
        for slot in 0..self.header.capacity {
            let word = words[slot as usize * stride];
            match word & TAG_MASK {
                PIVOT => {
                    let id = (word & ID_MASK) as usize;
                    if id != scanned.vertices.len() {
                        return Err(invalid(
                            path,
                            format!(
                                "slot {slot}: pivot of vertex {id} where vertex {} was expected \
                                 (pivots must come in id order)",
                                scanned.vertices.len()
                            ),
                        ));
                    }
                    scanned.vertices.push(VertexEntry {
                        start: slot,
                        ..VertexEntry::default()
                    });
                    in_run = true;
                }
                EMPTY => {
                    if word != 0 {
                        return Err(invalid(
                            path,
                            format!("slot {slot}: word {word:#010x} is neither free nor tagged"),
                        ));
                    }
                    in_run = false;
                }
                tag => {
                    let Some(vertex) = scanned.vertices.last_mut() else {
                        return Err(invalid(
                            path,
                            format!("slot {slot}: an edge before the first pivot"),
                        ));
                    };
                    if in_run {
                        vertex.array_len += 1;
                        if tag == LIVE {
                            vertex.live += 1;
                            scanned.edge_count += 1;
                        }
                    } else {
                        scanned.torn_slots.push(slot);
                    }
                }
            }
        }
        if let Some(first) = scanned.vertices.first()
            && first.start != 0
        {
            return Err(invalid(
                path,
                format!("vertex 0's pivot is at slot {}, not 0", first.start),
            ));
        }

        let n = scanned.vertices.len();
        let vps = self.superblock.vertices_per_section as usize;
        let sections = n.div_ceil(vps);
        let region_words = self.region_words();
        let log = self.log_words();
        let log_path = &self.log.path;
        if sections * region_words > log.len() {
            return Err(invalid(
                log_path,
                format!(
                    "{} bytes, but the {n} vertices of the edge array need {sections} section \
                     regions ({} bytes): the file was truncated",
                    log.len() * 4,
                    sections * region_words * 4
                ),
            ));
        }
        let capacity = self.log_entry_capacity();
        scanned.log_used = vec![0; sections];
        scanned.log_fresh = vec![false; sections];
        let mut last_of = vec![0u32; vps];
        for section in 0..sections {
            let base = section * region_words;
            let synced = match log_header_generation(&log[base..base + 4]) {
                Some((generation, synced)) if generation == self.header.generation => {
                    usize::from(synced)
                }
                // Blank, or merged by a rewrite since: nothing current.
                _ => continue,
            };
            scanned.log_fresh[section] = true;
            let first = section * vps;
            let end = (first + vps).min(n);
            last_of.fill(0);
            let mut index = 0;
            while index < capacity {
                let at = self.log_entry_at(section, index);
                let entry = &log[at..at + LOG_ENTRY_WORDS];
                if entry.iter().all(|&w| w == 0) {
                    break;
                }
                let problem = self.entry_problem(section, index, entry, first, end, &last_of);
                if let (Some(problem), true) = (&problem, index < synced) {
                    return Err(invalid(
                        log_path,
                        format!(
                            "section {section}, entry {index} (byte {}): {problem}; the entry \
                             was acknowledged (the section's synced count is {synced}), so the \
                             file is corrupted, not torn: refusing to drop it",
                            at * 4
                        ),
                    ));
                }
                if let Some(problem) = problem {
                    let rest_blank = (index + 1..capacity).all(|i| {
                        let at = self.log_entry_at(section, i);
                        log[at..at + LOG_ENTRY_WORDS].iter().all(|&w| w == 0)
                    });
                    if rest_blank {
                        scanned.torn_entries.push((section, index));
                        scanned.torn_entry_count += 1;
                        break;
                    }
                    return Err(invalid(
                        log_path,
                        format!(
                            "section {section}, entry {index} (byte {}): {problem}; valid \
                             entries follow it, so it is not a torn tail: refusing to guess",
                            at * 4
                        ),
                    ));
                }
                let src = entry[0] as usize;
                let vertex = &mut scanned.vertices[src];
                vertex.log_count += 1;
                vertex.log_head = index as u32 + 1;
                if entry[1] & TAG_MASK == LIVE {
                    vertex.live += 1;
                    scanned.edge_count += 1;
                }
                last_of[src - first] = index as u32 + 1;
                scanned.log_entries += 1;
                index += 1;
            }
            // Entries after the first blank one were written after it: a
            // torn tail too.
            let after_hole = (index + 1..capacity)
                .filter(|&i| {
                    let at = self.log_entry_at(section, i);
                    log[at..at + LOG_ENTRY_WORDS].iter().any(|&w| w != 0)
                })
                .count() as u64;
            if after_hole > 0 && scanned.torn_entries.last() != Some(&(section, index)) {
                scanned.torn_entries.push((section, index));
                scanned.torn_entry_count += after_hole;
            }
            if index < synced {
                return Err(invalid(
                    log_path,
                    format!(
                        "section {section}: {synced} entries were acknowledged but only {index} \
                         are there: the file is corrupted"
                    ),
                ));
            }
            scanned.log_used[section] = index as u32;
        }

        // Live edges to vertices that do not exist: an insert whose edge
        // reached the disk before its destination's pivot (a sync cut in
        // the middle, or a window undone that held the new pivot). Never
        // acknowledged (a completed sync writes both); deleted by recovery.
        for vertex in &mut scanned.vertices {
            for i in 0..u64::from(vertex.array_len) {
                let slot = vertex.start + 1 + i;
                let word = words[slot as usize * stride];
                if word & TAG_MASK == LIVE && (word & ID_MASK) as usize >= n {
                    scanned.dangling_slots.push(slot);
                    vertex.live -= 1;
                    scanned.edge_count -= 1;
                }
            }
        }
        for section in 0..sections {
            if !scanned.log_fresh[section] {
                continue;
            }
            for index in 0..scanned.log_used[section] as usize {
                let at = self.log_entry_at(section, index);
                let (src, word) = (log[at] as usize, log[at + 1]);
                if scanned.torn_entries.contains(&(section, index)) {
                    break;
                }
                if word & TAG_MASK == LIVE && (word & ID_MASK) as usize >= n {
                    scanned.dangling_entries.push(at);
                    scanned.vertices[src].live -= 1;
                    scanned.edge_count -= 1;
                }
            }
        }
        Ok(scanned)
    }

    /// Why a log entry is not a valid one, if it is not.
    fn entry_problem(
        &self,
        section: usize,
        index: usize,
        entry: &[u32],
        first: usize,
        end: usize,
        last_of: &[u32],
    ) -> Option<String> {
        let (src, dst_word, weight, link) = (entry[0], entry[1], entry[2], entry[3]);
        let (prev, check) = ((link & 0xFFFF) as u16, (link >> 16) as u16);
        let computed = log_entry_check(
            section,
            index,
            self.header.generation,
            src,
            dst_word,
            weight,
            prev,
        );
        if check != computed {
            return Some(format!(
                "checksum {check:#06x}, computed {computed:#06x} (torn or corrupted)"
            ));
        }
        let tag = dst_word & TAG_MASK;
        if tag != LIVE && tag != TOMBSTONE {
            return Some(format!("destination word {dst_word:#010x} is not an edge"));
        }
        let src = src as usize;
        if !(first..end).contains(&src) {
            return Some(format!(
                "source {src} outside the section's vertices {first}..{end} (its pivot never \
                 reached the disk)"
            ));
        }
        if u32::from(prev) != last_of[src - first] {
            return Some(format!(
                "back-pointer {prev}, but the previous entry of vertex {src} is {}",
                last_of[src - first]
            ));
        }
        None
    }

    /// Checks the structure against the files: rescans the edge array and
    /// the edge logs (as recovery would) and compares with the DRAM vertex
    /// array, section logs and density tree; checks that every run fits
    /// before the next pivot, that every log chain links, that the edge
    /// count adds up and that the undo log is idle. The crash tests run it
    /// after every recovery.
    pub fn validate(&self) -> Result<()> {
        let fail = |what: String| {
            Err(Error::InvalidStructure(format!(
                "{}: {what}",
                self.dir.display()
            )))
        };
        let scanned = self.scan()?;
        if !scanned.torn_slots.is_empty()
            || !scanned.torn_entries.is_empty()
            || !scanned.dangling_slots.is_empty()
            || !scanned.dangling_entries.is_empty()
        {
            return fail(format!(
                "{} torn slots, {} torn log tails and {} edges to missing vertices in a live store",
                scanned.torn_slots.len(),
                scanned.torn_entries.len(),
                scanned.dangling_slots.len() + scanned.dangling_entries.len()
            ));
        }
        if scanned.vertices.len() != self.vertices.len() {
            return fail(format!(
                "{} pivots in the edge array, {} vertices in DRAM",
                scanned.vertices.len(),
                self.vertices.len()
            ));
        }
        for (v, (disk, dram)) in scanned.vertices.iter().zip(&self.vertices).enumerate() {
            if disk != dram {
                return fail(format!("vertex {v}: {disk:?} on disk, {dram:?} in DRAM"));
            }
            let limit = self
                .vertices
                .get(v + 1)
                .map_or(self.header.capacity, |e| e.start);
            if dram.start + 1 + u64::from(dram.array_len) > limit {
                return fail(format!("vertex {v}: its run overlaps the next pivot"));
            }
            let chain = self.log_chain(v as u32);
            if chain.len() != dram.log_count as usize {
                return fail(format!(
                    "vertex {v}: {} log entries on its chain, {} counted",
                    chain.len(),
                    dram.log_count
                ));
            }
        }
        if scanned.log_used != self.log_used || scanned.log_fresh != self.log_fresh {
            return fail("edge-log fill differs between disk and DRAM".into());
        }
        if scanned.edge_count != self.edge_count {
            return fail(format!(
                "{} live edges on disk, edge count {} in DRAM",
                scanned.edge_count, self.edge_count
            ));
        }
        let live: u64 = self.vertices.iter().map(|e| u64::from(e.live)).sum();
        if live != self.edge_count {
            return fail(format!(
                "degrees add up to {live}, edge count is {}",
                self.edge_count
            ));
        }
        if self.tree.leaf_count() != self.section_count().max(1) {
            return fail(format!(
                "density tree over {} leaves for {} sections",
                self.tree.leaf_count(),
                self.section_count()
            ));
        }
        if self
            .log_used
            .iter()
            .any(|&u| u as usize > self.log_entry_capacity())
        {
            return fail("an edge log holds more entries than its region".into());
        }
        if let Some(record) = self.read_undo_header()? {
            return fail(format!("the undo log is armed: {record:?}"));
        }
        Ok(())
    }
}
