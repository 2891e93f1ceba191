//! Reading one adjacency back from its files: checksum verification of
//! every page and edge-log region, and the scan that rebuilds the DRAM
//! vertex array from the pivots and the log chains (DGAP §3.1.5).

use super::{Side, VertexEntry};
use crate::format::{
    EMPTY, ID_MASK, LIVE, LOG_ENTRY_WORDS, PAGE_BYTES, PIVOT, RegionHeader, SUMS_HEADER_BYTES,
    TAG_MASK, TOMBSTONE, invalid, log_entry_check, page_checksum, read_region_header,
};
use dyngraph_core::Result;
use dyngraph_pma::{DensityTree, Thresholds};

/// What a scan of a side's files finds.
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    pub(crate) vertices: Vec<VertexEntry>,
    pub(crate) log_used: Vec<u32>,
    pub(crate) log_fresh: Vec<bool>,
    pub(crate) edge_count: u64,
    pub(crate) log_entries: u64,
    /// `(section, index)`: entries from `index` on lie past the region's
    /// acknowledged count (never acknowledged by a checkpoint): cut.
    pub(crate) torn_entries: Vec<(usize, usize)>,
    /// Non-blank entries in those tails.
    pub(crate) torn_entry_count: u64,
}

/// Checksums verified.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Verified {
    pub(crate) pages: u64,
    pub(crate) regions: u64,
}

impl Side {
    /// Checks every page of the edge array against its checksum, and every
    /// edge-log region's header against its entries: the mapping as it is
    /// (at open, before anything changed it, that is the files).
    pub(crate) fn verify_mapped(&self) -> Result<Verified> {
        let edges = self.edges.bytes();
        self.verify(edges, &self.sums.values, self.log_words())
    }

    /// [`Side::verify_mapped`] on the bytes on disk (the last checkpoint),
    /// for a store that has changed since it was opened.
    pub(crate) fn verify_disk(&self) -> Result<Verified> {
        let edges =
            std::fs::read(&self.edges.path).map_err(|e| crate::format::io(&self.edges.path, e))?;
        let header = crate::format::EdgesHeader::decode(&edges, &self.edges.path)?;
        // The checksums of the array on disk (a read-only open may hold an
        // array rewritten in memory, a writer may have moved on).
        let sums_path = self
            .dir
            .join(crate::format::sums_file(self.kind, header.generation));
        let sums = std::fs::read(&sums_path).map_err(|e| crate::format::io(&sums_path, e))?;
        let pages = header.pages();
        if sums.len() < SUMS_HEADER_BYTES + pages * 4 {
            return Err(invalid(&sums_path, "truncated: fewer checksums than pages"));
        }
        let values: Vec<u32> = sums[SUMS_HEADER_BYTES..SUMS_HEADER_BYTES + pages * 4]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let log =
            std::fs::read(&self.log.path).map_err(|e| crate::format::io(&self.log.path, e))?;
        let log: Vec<u32> = bytemuck::pod_collect_to_vec(&log[..log.len() / 4 * 4]);
        self.verify_bytes(
            &edges,
            header.file_len() as usize,
            &values,
            &sums_path,
            &log,
        )
    }

    fn verify(&self, edges: &[u8], sums: &[u32], log: &[u32]) -> Result<Verified> {
        let header = crate::format::EdgesHeader::decode(edges, &self.edges.path)?;
        self.verify_bytes(
            edges,
            header.file_len() as usize,
            sums,
            &self.sums.path,
            log,
        )
    }

    fn verify_bytes(
        &self,
        edges: &[u8],
        len: usize,
        sums: &[u32],
        sums_path: &std::path::Path,
        words: &[u32],
    ) -> Result<Verified> {
        let mut verified = Verified::default();
        if edges.len() < len {
            return Err(invalid(
                &self.edges.path,
                format!(
                    "truncated: {} bytes, its header declares {len}",
                    edges.len()
                ),
            ));
        }
        let pages = len.div_ceil(PAGE_BYTES);
        if sums.len() < pages {
            return Err(invalid(
                sums_path,
                format!(
                    "holds the checksums of {} pages, {} has {pages}: the files disagree",
                    sums.len(),
                    self.edges.path.display()
                ),
            ));
        }
        for (page, &stored) in sums.iter().enumerate().take(pages) {
            let from = page * PAGE_BYTES;
            let to = (from + PAGE_BYTES).min(len);
            let computed = page_checksum(page, &edges[from..to]);
            if computed != stored {
                return Err(invalid(
                    &self.edges.path,
                    format!(
                        "page {page} (bytes {from}..{to}) fails its checksum (stored \
                         {stored:#010x} at byte {} of {}, computed {computed:#010x}): the \
                         array is damaged",
                        SUMS_HEADER_BYTES + page * 4,
                        sums_path.display()
                    ),
                ));
            }
            verified.pages += 1;
        }
        let region_bytes = self.layout.log_region_bytes as usize;
        let capacity = self.log_entry_capacity();
        for (section, region) in words.chunks_exact(region_bytes / 4).enumerate() {
            match read_region_header(section, region, capacity) {
                RegionHeader::Corrupt(why) => {
                    return Err(invalid(
                        &self.log.path,
                        format!(
                            "section {section}'s region (byte {}): {why}: the edge log is damaged",
                            section * region_bytes
                        ),
                    ));
                }
                RegionHeader::Blank => {
                    if let Some(at) = region.iter().position(|&w| w != 0) {
                        return Err(invalid(
                            &self.log.path,
                            format!(
                                "section {section}'s region (byte {}): a blank header over \
                                 written entries (first at byte {}): the header was wiped",
                                section * region_bytes,
                                section * region_bytes + at * 4
                            ),
                        ));
                    }
                }
                RegionHeader::Stamped { .. } => {}
            }
            verified.regions += 1;
        }
        Ok(verified)
    }

    /// Rebuilds the DRAM state from the files (the mapping) without
    /// changing anything. Anything that a checkpoint cannot have written is
    /// refused with the file and offset: pivots out of order, an edge
    /// before the first pivot or after a hole in its run, an edge to a
    /// vertex that does not exist, an acknowledged log entry that does not
    /// check or link.
    pub(crate) fn scan(&self) -> Result<Scanned> {
        self.scan_with(false)
    }

    /// [`Side::scan`] of the live mapping, bounding each edge log by the
    /// DRAM fill instead of its region header (headers are stamped by
    /// checkpoints, entries are appended between them): what
    /// [`DurableVcsr::validate`](crate::DurableVcsr::validate) compares the
    /// DRAM state with.
    pub(crate) fn scan_live(&self) -> Result<Scanned> {
        self.scan_with(true)
    }

    fn scan_with(&self, live: bool) -> Result<Scanned> {
        let mut scanned = Scanned::default();
        let words = self.words();
        let stride = self.stride;
        let path = &self.edges.path;
        let byte = |slot: u64| crate::format::EDGES_HEADER_BYTES as u64 + slot * stride as u64 * 4;
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
                                "slot {slot} (byte {}): pivot of vertex {id} where vertex {} was \
                                 expected (pivots must come in id order)",
                                byte(slot),
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
                            format!(
                                "slot {slot} (byte {}): word {word:#010x} is neither free nor \
                                 tagged",
                                byte(slot)
                            ),
                        ));
                    }
                    in_run = false;
                }
                tag => {
                    let Some(vertex) = scanned.vertices.last_mut() else {
                        return Err(invalid(
                            path,
                            format!(
                                "slot {slot} (byte {}): an edge before the first pivot",
                                byte(slot)
                            ),
                        ));
                    };
                    if !in_run {
                        return Err(invalid(
                            path,
                            format!(
                                "slot {slot} (byte {}): an edge after a free slot in its run",
                                byte(slot)
                            ),
                        ));
                    }
                    vertex.array_len += 1;
                    if tag == LIVE {
                        vertex.live += 1;
                        scanned.edge_count += 1;
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
        for vertex in &scanned.vertices {
            for i in 0..u64::from(vertex.array_len) {
                let slot = vertex.start + 1 + i;
                let word = words[slot as usize * stride];
                if (word & ID_MASK) as usize >= n {
                    return Err(invalid(
                        path,
                        format!(
                            "slot {slot} (byte {}): an edge to vertex {}, of {n}",
                            byte(slot),
                            word & ID_MASK
                        ),
                    ));
                }
            }
        }
        self.scan_logs(&mut scanned, live)?;
        Ok(scanned)
    }

    fn scan_logs(&self, scanned: &mut Scanned, live: bool) -> Result<()> {
        let n = scanned.vertices.len();
        let vps = self.layout.vertices_per_section;
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
            let region = &log[base..base + region_words];
            let header = if live {
                match (self.log_fresh.get(section), self.log_used.get(section)) {
                    (Some(true), Some(&used)) => RegionHeader::Stamped {
                        generation: self.header.generation,
                        synced: used,
                    },
                    _ => RegionHeader::Blank,
                }
            } else {
                read_region_header(section, region, capacity)
            };
            let synced = match header {
                RegionHeader::Stamped { generation, synced }
                    if generation == self.header.generation =>
                {
                    synced as usize
                }
                RegionHeader::Corrupt(why) => {
                    return Err(invalid(
                        log_path,
                        format!("section {section}'s region (byte {}): {why}", base * 4),
                    ));
                }
                // Blank, or merged by a rewrite since: nothing current.
                _ => continue,
            };
            scanned.log_fresh[section] = true;
            let first = section * vps;
            let end = (first + vps).min(n);
            last_of.fill(0);
            for index in 0..synced {
                let at = self.log_entry_at(section, index);
                let entry = &log[at..at + LOG_ENTRY_WORDS];
                if let Some(problem) =
                    self.entry_problem(section, index, entry, first, end, n, &last_of)
                {
                    return Err(invalid(
                        log_path,
                        format!(
                            "section {section}, entry {index} (byte {}): {problem}; the entry \
                             was acknowledged (the section's synced count is {synced}): refusing \
                             to drop it",
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
            }
            // Entries past the acknowledged count: a checkpoint writes the
            // count with them, so they are leftovers of a torn write;
            // whatever they held was never acknowledged through the array
            // (the write-ahead log has it if it was acknowledged).
            let torn = (synced..capacity)
                .filter(|&i| {
                    let at = self.log_entry_at(section, i);
                    log[at..at + LOG_ENTRY_WORDS].iter().any(|&w| w != 0)
                })
                .count() as u64;
            if torn > 0 && live {
                return Err(invalid(
                    log_path,
                    format!(
                        "section {section}: {torn} entries past the {synced} the vertex array                          counts"
                    ),
                ));
            }
            if torn > 0 {
                scanned.torn_entries.push((section, synced));
                scanned.torn_entry_count += torn;
            }
            scanned.log_used[section] = synced as u32;
        }
        Ok(())
    }

    /// Why a log entry is not a valid one, if it is not.
    #[allow(clippy::too_many_arguments)]
    fn entry_problem(
        &self,
        section: usize,
        index: usize,
        entry: &[u32],
        first: usize,
        end: usize,
        n: usize,
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
            return Some(format!("check {check:#06x}, computed {computed:#06x}"));
        }
        let tag = dst_word & TAG_MASK;
        if tag != LIVE && tag != TOMBSTONE {
            return Some(format!("destination word {dst_word:#010x} is not an edge"));
        }
        if (dst_word & ID_MASK) as usize >= n {
            return Some(format!("an edge to vertex {}, of {n}", dst_word & ID_MASK));
        }
        let src = src as usize;
        if !(first..end).contains(&src) {
            return Some(format!(
                "source {src} outside the section's vertices {first}..{end}"
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

    /// Cuts entries past each fresh region's count (what a clean open
    /// loaded from the state file): written by no checkpoint, they are
    /// damage or leftovers of a torn write, never an acknowledged edge.
    /// Returns the non-blank entries cut.
    pub(crate) fn cut_log_tails(&mut self) -> u64 {
        let capacity = self.log_entry_capacity();
        let region_words = self.region_words();
        let mut cut = 0;
        for section in 0..self.log_used.len() {
            let used = self.log_used[section] as usize;
            let from = self.log_entry_at(section, used);
            let to = (section + 1) * region_words;
            let tail = &self.log_words()[from..to];
            if self.log_fresh[section] && used < capacity && tail.iter().any(|&w| w != 0) {
                cut += tail
                    .chunks(LOG_ENTRY_WORDS)
                    .filter(|e| e.iter().any(|&w| w != 0))
                    .count() as u64;
                let zeros = vec![0u32; to - from];
                self.write_log_words(from, &zeros);
            }
        }
        cut
    }

    /// Installs a scan's result as the DRAM state, cutting the torn log
    /// tails in the mapping (written by the next checkpoint).
    pub(crate) fn install(&mut self, scanned: Scanned) {
        let region_words = self.region_words();
        for &(section, index) in &scanned.torn_entries {
            let from = self.log_entry_at(section, index);
            let to = (section + 1) * region_words;
            let zeros = vec![0u32; to - from];
            self.write_log_words(from, &zeros);
        }
        self.vertices = scanned.vertices;
        self.log_used = scanned.log_used;
        self.log_fresh = scanned.log_fresh;
        self.log_dirty = vec![0; self.log_used.len().div_ceil(64)];
        self.tree = DensityTree::new(self.section_count().max(1), Thresholds::default());
    }
}
