//! One adjacency of the store (DGAP §3): an edge array in a mapped file,
//! its per-section edge logs, its page checksums and the DRAM vertex array
//! and density tree over it. The store keeps one for the out-edges and, when
//! built with in-edges, one for the transposed graph.
//!
//! This module holds the layout and the reads; `update` the insert and
//! delete paths and vertex growth, `rebalance` the PMA maintenance and
//! rewrites, `scan` the checks and rebuilds from the files, `persist` what
//! a checkpoint writes.

mod persist;
mod rebalance;
mod scan;
mod update;

pub(crate) use persist::Sums;
pub(crate) use rebalance::REWRITE_DENSITY;

use crate::files::{MappedFile, no_space};
use crate::format::{
    self, EDGES_HEADER_BYTES, EdgesHeader, ID_MASK, LIVE, LOG_ENTRY_WORDS, LOG_HEADER_WORDS,
    Superblock, TAG_MASK, invalid, log_capacity,
};
use crate::stats::DurableStats;
use dyngraph_core::{Result, VertexId};
use dyngraph_pma::{DensityTree, Thresholds};
use std::path::{Path, PathBuf};

pub(crate) use format::Side as SideKind;

/// One vertex of a DRAM vertex array (DGAP §3, "vertex array").
/// `repr(C)`: the concurrent writer views the array as atomics of the same
/// layout (see `concurrent.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct VertexEntry {
    /// Slot of the vertex's pivot; its edges follow.
    pub(crate) start: u64,
    /// Edge slots (live and tombstones) after the pivot.
    pub(crate) array_len: u32,
    /// Live edges, in the array and the log.
    pub(crate) live: u32,
    /// Entries (live and tombstones) in its section's edge log.
    pub(crate) log_count: u32,
    /// Index + 1 of its newest edge-log entry (0: none): the head of the
    /// back-pointer chain (DGAP's `el_v`).
    pub(crate) log_head: u32,
}

/// The layout knobs a side works with (from the superblock and the open
/// options).
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub(crate) vertices_per_section: usize,
    pub(crate) log_region_bytes: u32,
    /// DGAP's per-section edge logs on (off: the "No EL" ablation).
    pub(crate) edge_log: bool,
    /// Entries of a section's log that trigger its merge.
    pub(crate) merge_at: u32,
    /// The largest in-place checkpoint, in bytes of changed pages.
    pub(crate) max_undo_bytes: u64,
    /// The injected space limit of the whole directory, if any.
    pub(crate) space_limit: Option<u64>,
}

impl Layout {
    pub(crate) fn new(superblock: &Superblock, options: &crate::DurableOptions) -> Self {
        let capacity = log_capacity(superblock.log_region_bytes) as u32;
        Self {
            vertices_per_section: superblock.vertices_per_section as usize,
            log_region_bytes: superblock.log_region_bytes,
            edge_log: options.edge_log,
            merge_at: ((f64::from(capacity) * options.log_merge_fill).ceil() as u32)
                .clamp(1, capacity),
            max_undo_bytes: options.max_undo_bytes,
            space_limit: options.space_limit,
        }
    }
}

/// One adjacency: see the module docs.
#[derive(Debug)]
pub(crate) struct Side {
    pub(crate) kind: SideKind,
    pub(crate) dir: PathBuf,
    pub(crate) edges: MappedFile,
    /// The header as the next checkpoint will write it (capacity and mark
    /// run ahead of the file's page 0 between checkpoints).
    pub(crate) header: EdgesHeader,
    pub(crate) log: MappedFile,
    pub(crate) sums: Sums,
    pub(crate) vertices: Vec<VertexEntry>,
    /// Entries written in each section's log region (current generation).
    pub(crate) log_used: Vec<u32>,
    /// Whether each section's region header carries the current generation.
    pub(crate) log_fresh: Vec<bool>,
    /// Sections whose region changed since the last checkpoint (one bit
    /// each): the checkpoint restamps their headers.
    pub(crate) log_dirty: Vec<u64>,
    pub(crate) tree: DensityTree,
    pub(crate) stride: usize,
    pub(crate) layout: Layout,
    pub(crate) stats: DurableStats,
    /// Set when a write failed half-way; the store refuses every later call.
    pub(crate) poisoned: Option<String>,
}

impl Side {
    /// Maps the files of side `kind` of the store in `dir` (empty DRAM
    /// state: the caller loads or scans it).
    pub(crate) fn open(
        dir: &Path,
        kind: SideKind,
        superblock: &Superblock,
        layout: Layout,
        read_only: bool,
    ) -> Result<Self> {
        let edges = MappedFile::open(dir.join(kind.edges_file()), read_only)?;
        let header = EdgesHeader::decode(edges.bytes(), &edges.path)?;
        let stride = if superblock.weighted && kind == SideKind::Out {
            2
        } else {
            1
        };
        if header.side != kind || header.stride as usize != stride {
            return Err(invalid(
                &edges.path,
                format!(
                    "an edge array of side {:?} with {}-word slots, where this store keeps side \
                     {kind:?} with {stride}-word slots",
                    header.side, header.stride
                ),
            ));
        }
        if edges.len() < header.file_len() {
            return Err(invalid(
                &edges.path,
                format!(
                    "truncated: {} bytes, but its header declares {} slots needing {} bytes",
                    edges.len(),
                    header.capacity,
                    header.file_len()
                ),
            ));
        }
        let log = MappedFile::open(dir.join(kind.log_file()), read_only)?;
        if log.len() % u64::from(superblock.log_region_bytes) != 0 {
            return Err(invalid(
                &log.path,
                format!(
                    "{} bytes is not a whole number of {}-byte section regions: the file was \
                     truncated or extended by something else",
                    log.len(),
                    superblock.log_region_bytes
                ),
            ));
        }
        let sums = Sums::open(dir, kind, &header, read_only)?;
        Ok(Self {
            kind,
            dir: dir.to_path_buf(),
            edges,
            header,
            log,
            sums,
            vertices: Vec::new(),
            log_used: Vec::new(),
            log_fresh: Vec::new(),
            log_dirty: Vec::new(),
            tree: DensityTree::new(1, Thresholds::default()),
            stride,
            layout,
            stats: DurableStats::default(),
            poisoned: None,
        })
    }

    // -----------------------------------------------------------------
    // Layout.
    // -----------------------------------------------------------------

    /// Slots of the edge array.
    #[inline]
    pub(crate) fn capacity(&self) -> u64 {
        self.header.capacity
    }

    /// The edge array's slot words.
    #[inline]
    pub(crate) fn words(&self) -> &[u32] {
        let bytes = self.edges.bytes();
        let end = self.header.file_len() as usize;
        if end <= EDGES_HEADER_BYTES {
            return &[];
        }
        bytemuck::cast_slice(&bytes[EDGES_HEADER_BYTES..end])
    }

    /// The edge-log file's words.
    #[inline]
    pub(crate) fn log_words(&self) -> &[u32] {
        let bytes = self.log.bytes();
        if bytes.is_empty() {
            return &[];
        }
        bytemuck::cast_slice(bytes)
    }

    pub(crate) fn region_words(&self) -> usize {
        self.layout.log_region_bytes as usize / 4
    }

    pub(crate) fn log_entry_capacity(&self) -> usize {
        log_capacity(self.layout.log_region_bytes)
    }

    /// Word offset of entry `index` of section `section`'s log.
    #[inline]
    pub(crate) fn log_entry_at(&self, section: usize, index: usize) -> usize {
        section * self.region_words() + LOG_HEADER_WORDS + index * LOG_ENTRY_WORDS
    }

    #[inline]
    pub(crate) fn section_of(&self, v: VertexId) -> usize {
        v as usize / self.layout.vertices_per_section
    }

    /// Sections (leaves of the density tree).
    pub(crate) fn section_count(&self) -> usize {
        self.vertices
            .len()
            .div_ceil(self.layout.vertices_per_section)
    }

    /// The slot after the last slot vertex `v` may use.
    #[inline]
    pub(crate) fn run_limit(&self, v: usize) -> u64 {
        self.vertices
            .get(v + 1)
            .map_or(self.header.capacity, |next| next.start)
    }

    /// Bytes of the side's files on disk.
    pub(crate) fn file_bytes(&self) -> u64 {
        self.edges.len() + self.log.len() + self.sums.file_len()
    }

    /// Drops what lies past the length the header declares: a growth that
    /// no checkpoint covered (the header is that of the last checkpoint,
    /// after any undo restore). Those bytes are zero unless damaged, and no
    /// checksum covers them: a writer cuts the file, a reader zeroes its
    /// view, so that a later growth starts from zeros either way.
    pub(crate) fn settle_length(&mut self) -> Result<()> {
        self.sums.truncate(self.header.pages());
        self.edges.cut(self.header.file_len())
    }

    /// Fails as a full disk would when growing a file by `extra` bytes
    /// would take the directory past the injected space limit.
    pub(crate) fn check_space(&self, path: &Path, extra: u64) -> Result<()> {
        check_space(&self.dir, self.layout.space_limit, path, extra)
    }

    pub(crate) fn check_usable(&self) -> Result<()> {
        match &self.poisoned {
            Some(why) => Err(dyngraph_core::Error::InvalidArgument(format!(
                "{}: the store stopped after a failed write ({why}); reopen it to recover",
                self.dir.display()
            ))),
            None => Ok(()),
        }
    }

    pub(crate) fn poison<T>(&mut self, e: dyngraph_core::Error) -> Result<T> {
        self.poisoned = Some(e.to_string());
        Err(e)
    }

    /// Marks section `section`'s region as changed since the checkpoint.
    #[inline]
    pub(crate) fn touch_section(&mut self, section: usize) {
        self.log_dirty[section / 64] |= 1 << (section % 64);
    }

    /// Brings the per-section arrays and the density tree to the vertex
    /// count.
    pub(crate) fn resize_sections(&mut self) {
        let sections = self.section_count();
        self.log_used.resize(sections, 0);
        self.log_fresh.resize(sections, false);
        self.log_dirty.resize(sections.div_ceil(64), 0);
        self.tree = DensityTree::new(sections.max(1), Thresholds::default());
    }

    // -----------------------------------------------------------------
    // Writing words through the mapping.
    // -----------------------------------------------------------------

    /// Writes slot `slot` (weight word first, so the slot never shows a
    /// destination with a weight that is not there yet).
    pub(crate) fn write_slot(&mut self, slot: u64, word: u32, weight_bits: u32) {
        let stride = self.stride;
        let at = slot as usize * stride;
        let words: &mut [u32] =
            bytemuck::cast_slice_mut(&mut self.edges.bytes_mut()[EDGES_HEADER_BYTES..]);
        if stride == 2 {
            words[at + 1] = weight_bits;
        }
        words[at] = word;
        let offset = (EDGES_HEADER_BYTES + at * 4) as u64;
        self.edges.mark(offset, 4 * stride as u64);
        self.stats.array_bytes_written += 4 * stride as u64;
    }

    /// Rewrites only the tag word of slot `slot` (a delete).
    pub(crate) fn write_slot_word(&mut self, slot: u64, word: u32) {
        let at = slot as usize * self.stride;
        let words: &mut [u32] =
            bytemuck::cast_slice_mut(&mut self.edges.bytes_mut()[EDGES_HEADER_BYTES..]);
        words[at] = word;
        self.edges.mark((EDGES_HEADER_BYTES + at * 4) as u64, 4);
        self.stats.array_bytes_written += 4;
    }

    pub(crate) fn write_log_words(&mut self, at: usize, values: &[u32]) {
        let words: &mut [u32] = bytemuck::cast_slice_mut(self.log.bytes_mut());
        words[at..at + values.len()].copy_from_slice(values);
        self.log.mark(at as u64 * 4, values.len() as u64 * 4);
        self.stats.log_bytes_written += values.len() as u64 * 4;
    }

    // -----------------------------------------------------------------
    // Reading a vertex's edges.
    // -----------------------------------------------------------------

    /// The edge-log entry indices of `v`, oldest first.
    pub(crate) fn log_chain(&self, v: VertexId) -> Vec<u32> {
        let entry = self.vertices[v as usize];
        if entry.log_count == 0 {
            return Vec::new();
        }
        let section = self.section_of(v);
        let log = self.log_words();
        let mut chain = Vec::with_capacity(entry.log_count as usize);
        let mut next = entry.log_head;
        while next != 0 && chain.len() < entry.log_count as usize {
            let index = next - 1;
            chain.push(index);
            next = log[self.log_entry_at(section, index as usize) + 3] & 0xFFFF;
        }
        chain.reverse();
        chain
    }

    /// Calls `f(dst, weight_bits)` for every live edge of `v`, in order
    /// (the array part, then the log part).
    pub(crate) fn for_each_live(&self, v: VertexId, mut f: impl FnMut(u32, u32)) {
        let entry = self.vertices[v as usize];
        let words = self.words();
        let stride = self.stride;
        let first = (entry.start as usize + 1) * stride;
        let end = first + entry.array_len as usize * stride;
        let mut at = first;
        while at < end {
            let word = words[at];
            if word & TAG_MASK == LIVE {
                f(word & ID_MASK, if stride == 2 { words[at + 1] } else { 0 });
            }
            at += stride;
        }
        if entry.log_count > 0 {
            // The chain runs newest first; walk it into a small buffer on
            // the stack (a rebalance calls this for every vertex of its
            // window: no allocation for the common short chains).
            let section = self.section_of(v);
            let log = self.log_words();
            let mut short = [0usize; 64];
            let mut long = Vec::new();
            let mut n = 0;
            let mut next = entry.log_head;
            while next != 0 && n < entry.log_count as usize {
                let at = self.log_entry_at(section, next as usize - 1);
                if n < short.len() {
                    short[n] = at;
                } else {
                    if long.is_empty() {
                        long.extend_from_slice(&short);
                    }
                    long.push(at);
                }
                n += 1;
                next = log[at + 3] & 0xFFFF;
            }
            let chain = if n <= short.len() {
                &short[..n]
            } else {
                &long[..]
            };
            for &e in chain.iter().rev() {
                if log[e + 1] & TAG_MASK == LIVE {
                    f(log[e + 1] & ID_MASK, log[e + 2]);
                }
            }
        }
    }

    /// Asks the cache for vertex `v`'s entry (a batch looks ahead: the
    /// vertex array is too large to stay cached, and its misses otherwise
    /// come one after the other).
    #[inline]
    pub(crate) fn prefetch_vertex(&self, v: VertexId) {
        if let Some(entry) = self.vertices.get(v as usize) {
            prefetch(std::ptr::from_ref(entry).cast());
        }
    }

    /// Asks the cache for the slot after vertex `v`'s run, where its next
    /// edge goes (its entry is cached by [`Side::prefetch_vertex`] by then).
    #[inline]
    pub(crate) fn prefetch_slot(&self, v: VertexId) {
        if let Some(entry) = self.vertices.get(v as usize) {
            let at = (entry.start + 1 + u64::from(entry.array_len)) as usize * self.stride;
            if let Some(word) = self.words().get(at) {
                prefetch(std::ptr::from_ref(word).cast());
            }
        }
    }

    /// Whether `v -> dst` is present.
    pub(crate) fn has_edge(&self, v: VertexId, dst: VertexId) -> bool {
        if v as usize >= self.vertices.len() {
            return false;
        }
        let mut found = false;
        self.for_each_live(v, |d, _| found |= d == dst);
        found
    }
}

/// Fails as a full disk would when growing a file of `dir` by `extra`
/// bytes would take the directory past `limit`.
pub(crate) fn check_space(dir: &Path, limit: Option<u64>, path: &Path, extra: u64) -> Result<()> {
    let Some(limit) = limit else {
        return Ok(());
    };
    let used = dir_bytes(dir);
    if used + extra > limit {
        return Err(no_space(path, used + extra, limit));
    }
    Ok(())
}

/// Bytes of the files in `dir` (for the injected space limit).
pub(crate) fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// A cache prefetch of the line at `p` (a hint: no effect on memory).
#[inline]
fn prefetch(p: *const i8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` never faults and changes no memory, whatever the
    // address; SSE, which it needs, is part of every x86_64 target.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
