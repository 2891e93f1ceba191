//! The on-disk format: file names, slot encoding, and the fixed-layout
//! headers of the superblock, the edge array, the edge-log regions, the
//! undo log and the clean-shutdown state file.
//!
//! Every integer is little-endian. Every header ends with a CRC-32 of the
//! bytes before it, so a torn or foreign header is recognised and named in
//! the error instead of being trusted.

use dyngraph_core::{Error, Result};
use std::path::Path;

/// Format version written into every header; files of another version are
/// refused.
pub const FORMAT_VERSION: u32 = 1;

/// Name of the superblock file.
pub const SUPERBLOCK_FILE: &str = "superblock";
/// Name of the edge array file.
pub const EDGES_FILE: &str = "edges.dat";
/// Name of the per-section edge log file.
pub const EDGE_LOG_FILE: &str = "edgelog.dat";
/// Name of the clean-shutdown vertex-array file.
pub const STATE_FILE: &str = "vertices.dat";
/// Name of the lock file held while the store is open.
pub const LOCK_FILE: &str = "LOCK";
/// Suffix of files being written before their atomic rename.
pub const TEMP_SUFFIX: &str = ".tmp";

/// The undo log of writer thread `thread`.
pub fn undo_file(thread: usize) -> String {
    format!("undo-{thread}.log")
}

// ---------------------------------------------------------------------------
// Slot words.
// ---------------------------------------------------------------------------

/// The top two bits of a slot word say what it holds.
pub const TAG_MASK: u32 = 0xC000_0000;
/// The low 30 bits hold a vertex id.
pub const ID_MASK: u32 = 0x3FFF_FFFF;
/// An all-zero word is a free slot (a fresh or grown file is zero-filled,
/// so new space is free without being written).
pub const EMPTY: u32 = 0;
/// A live edge to `word & ID_MASK`.
pub const LIVE: u32 = 0x4000_0000;
/// A deleted edge (a tombstone) to `word & ID_MASK`, reclaimed by the next
/// rebalance of its window.
pub const TOMBSTONE: u32 = 0x8000_0000;
/// A pivot: the first slot of vertex `word & ID_MASK`'s run (DGAP's
/// "-vertex-id" element, §3.1.1): recovery rebuilds the vertex array from
/// the pivots.
pub const PIVOT: u32 = 0xC000_0000;
/// Vertex ids must fit the 30 id bits.
pub const MAX_VERTICES: usize = 1 << 30;

/// A slot word's tag.
#[inline]
pub fn tag(word: u32) -> u32 {
    word & TAG_MASK
}

// ---------------------------------------------------------------------------
// Byte helpers.
// ---------------------------------------------------------------------------

/// Appends little-endian integers to a header being built.
#[derive(Default)]
pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }
    /// Appends the CRC-32 of everything so far and returns the bytes.
    pub(crate) fn sealed(mut self) -> Vec<u8> {
        let crc = crc32fast::hash(&self.0);
        self.0.extend_from_slice(&crc.to_le_bytes());
        self.0
    }
}

/// Reads little-endian integers from a header, naming the file in errors.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8], path: &'a Path) -> Self {
        Self { bytes, at: 0, path }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let piece = self.bytes.get(self.at..self.at + n).ok_or_else(|| {
            invalid(
                self.path,
                format!("truncated: header ends at byte {}", self.bytes.len()),
            )
        })?;
        self.at += n;
        Ok(piece)
    }
    pub(crate) fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    pub(crate) fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        self.take(n)
    }
    /// Checks the CRC-32 that follows the bytes read so far.
    pub(crate) fn check_crc(&mut self, what: &str) -> Result<()> {
        let covered = &self.bytes[..self.at];
        let stored = self.u32()?;
        let computed = crc32fast::hash(covered);
        if stored != computed {
            return Err(invalid(
                self.path,
                format!(
                    "{what} checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): \
                     the file is torn or corrupted"
                ),
            ));
        }
        Ok(())
    }
}

/// The error for a file that is not what the store wrote.
pub(crate) fn invalid(path: &Path, reason: impl Into<String>) -> Error {
    Error::InvalidStoreFile {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// The error for an I/O failure on `path`.
pub(crate) fn io(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

// ---------------------------------------------------------------------------
// Superblock.
// ---------------------------------------------------------------------------

/// Magic of the superblock.
pub const SUPERBLOCK_MAGIC: &[u8; 8] = b"DGDURSB1";

/// The superblock: what the store is, its fixed layout parameters and the
/// NORMAL_SHUTDOWN flag. Rewritten whole (temp file, fsync, rename) at open
/// and at clean close, never in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Superblock {
    /// Simple-graph semantics (else a multigraph).
    pub simple: bool,
    /// Whether slots carry an `f32` weight (8-byte slots instead of 4).
    pub weighted: bool,
    /// Vertices per PMA section (a leaf of the density tree).
    pub vertices_per_section: u32,
    /// Bytes of each section's edge-log region (header included).
    pub log_region_bytes: u32,
    /// The vertex limit the store was created with.
    pub vertex_limit: u64,
    /// DGAP's NORMAL_SHUTDOWN: set by a clean close, cleared by open.
    pub normal_shutdown: bool,
    /// The edge-array generation the state file describes (meaningful only
    /// when `normal_shutdown`).
    pub state_generation: u64,
}

impl Superblock {
    /// Serialises the superblock (with its checksum).
    /// The bytes of this header, checksum included.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(SUPERBLOCK_MAGIC)
            .u32(FORMAT_VERSION)
            .u32(u32::from(self.simple) | (u32::from(self.weighted) << 1))
            .u32(self.vertices_per_section)
            .u32(self.log_region_bytes)
            .u64(self.vertex_limit)
            .u32(u32::from(self.normal_shutdown))
            .u64(self.state_generation);
        w.sealed()
    }

    /// Parses and checks a superblock read from `path`.
    pub(crate) fn decode(bytes: &[u8], path: &Path) -> Result<Self> {
        let mut r = Reader::new(bytes, path);
        if r.bytes(8)? != SUPERBLOCK_MAGIC {
            return Err(invalid(
                path,
                "bad magic: not a dyngraph durable store superblock",
            ));
        }
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(invalid(
                path,
                format!("format version {version}; this build reads version {FORMAT_VERSION}"),
            ));
        }
        let flags = r.u32()?;
        let vertices_per_section = r.u32()?;
        let log_region_bytes = r.u32()?;
        let vertex_limit = r.u64()?;
        let normal_shutdown = r.u32()? != 0;
        let state_generation = r.u64()?;
        r.check_crc("superblock")?;
        let sb = Superblock {
            simple: flags & 1 != 0,
            weighted: flags & 2 != 0,
            vertices_per_section,
            log_region_bytes,
            vertex_limit,
            normal_shutdown,
            state_generation,
        };
        sb.check(path)?;
        Ok(sb)
    }

    /// Checks the layout parameters (also used for options at create).
    pub(crate) fn check(&self, path: &Path) -> Result<()> {
        if self.vertices_per_section == 0 || self.vertices_per_section > 1 << 20 {
            return Err(invalid(
                path,
                format!(
                    "vertices per section {} is outside 1..=2^20",
                    self.vertices_per_section
                ),
            ));
        }
        let entries = log_capacity(self.log_region_bytes);
        if !self.log_region_bytes.is_multiple_of(16) || !(4..=65_535).contains(&entries) {
            return Err(invalid(
                path,
                format!(
                    "edge-log region of {} bytes: must be a multiple of 16 holding 4..=65535 entries",
                    self.log_region_bytes
                ),
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Edge array.
// ---------------------------------------------------------------------------

/// Magic of the edge array file.
pub const EDGES_MAGIC: &[u8; 8] = b"DGEDGES1";
/// Bytes before slot 0 of the edge array (one page, so slots stay page
/// aligned for page-wise write-back).
pub const EDGES_HEADER_BYTES: usize = 4096;

/// The edge array's header: its generation (bumped by every rewrite, which
/// replaces the whole file by rename) and its capacity in slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgesHeader {
    /// 4-byte words per slot: 1, or 2 with weights.
    pub stride: u32,
    /// Bumped by every whole-file rewrite; edge-log regions stamped with
    /// another generation are stale (already merged into this array).
    pub generation: u64,
    /// Slots in the array.
    pub capacity: u64,
}

impl EdgesHeader {
    /// The bytes of this header, checksum included.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(EDGES_MAGIC)
            .u32(FORMAT_VERSION)
            .u32(self.stride)
            .u64(self.generation)
            .u64(self.capacity);
        let mut bytes = w.sealed();
        bytes.resize(EDGES_HEADER_BYTES, 0);
        bytes
    }

    pub(crate) fn decode(bytes: &[u8], path: &Path) -> Result<Self> {
        let mut r = Reader::new(bytes, path);
        if r.bytes(8)? != EDGES_MAGIC {
            return Err(invalid(path, "bad magic: not a dyngraph edge array"));
        }
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(invalid(
                path,
                format!("format version {version}; this build reads version {FORMAT_VERSION}"),
            ));
        }
        let stride = r.u32()?;
        let generation = r.u64()?;
        let capacity = r.u64()?;
        r.check_crc("edge array header")?;
        if stride != 1 && stride != 2 {
            return Err(invalid(path, format!("slot stride {stride} is not 1 or 2")));
        }
        Ok(Self {
            stride,
            generation,
            capacity,
        })
    }

    /// File length this header needs.
    pub(crate) fn file_len(&self) -> u64 {
        EDGES_HEADER_BYTES as u64 + self.capacity * u64::from(self.stride) * 4
    }
}

// ---------------------------------------------------------------------------
// Edge log.
// ---------------------------------------------------------------------------

/// Magic word of an edge-log region header.
pub const LOG_MAGIC: u32 = u32::from_le_bytes(*b"ELOG");
/// Words in a region header: magic, checksum, generation (2 words).
pub const LOG_HEADER_WORDS: usize = 4;
/// Words per edge-log entry: source, tagged destination, weight bits,
/// back-pointer (low 16 bits) and check (high 16 bits).
pub const LOG_ENTRY_WORDS: usize = 4;

/// Entries a region of `region_bytes` holds.
pub fn log_capacity(region_bytes: u32) -> usize {
    (region_bytes as usize / 4).saturating_sub(LOG_HEADER_WORDS) / LOG_ENTRY_WORDS
}

/// The region header words for `generation` with `synced` entries known
/// durable: `magic, generation low, generation high, check | synced << 16`.
/// The synced count is rewritten (one word) after each sync that covered
/// new entries of the section: an entry below it was acknowledged, so
/// recovery refuses to cut it even if it looks torn.
pub(crate) fn log_header(generation: u64, synced: u16) -> [u32; LOG_HEADER_WORDS] {
    let (lo, hi) = (generation as u32, (generation >> 32) as u32);
    [
        LOG_MAGIC,
        lo,
        hi,
        u32::from(log_header_check(generation)) | (u32::from(synced) << 16),
    ]
}

fn log_header_check(generation: u64) -> u16 {
    let c = crc32fast::hash(
        &[
            LOG_MAGIC.to_le_bytes(),
            generation.to_le_bytes()[..4].try_into().unwrap(),
            generation.to_le_bytes()[4..].try_into().unwrap(),
        ]
        .concat(),
    );
    (c ^ (c >> 16)) as u16
}

/// The generation and synced count a region header names, or `None` for a
/// header that is blank, torn or foreign (the region then holds nothing
/// current).
pub(crate) fn log_header_generation(words: &[u32]) -> Option<(u64, u16)> {
    let generation = u64::from(words[1]) | (u64::from(words[2]) << 32);
    let ok = words[0] == LOG_MAGIC && (words[3] & 0xFFFF) as u16 == log_header_check(generation);
    ok.then_some((generation, (words[3] >> 16) as u16))
}

/// The 16-bit check of a log entry: binds the entry's source, destination
/// id (not its live/deleted tag, so a delete is one atomic word write),
/// weight and back-pointer to its section, index and the array generation,
/// so a torn entry or one left from an older generation is recognised.
pub(crate) fn log_entry_check(
    section: usize,
    index: usize,
    generation: u64,
    src: u32,
    dst_word: u32,
    weight: u32,
    prev: u16,
) -> u16 {
    let mut h = crc32fast::Hasher::new();
    h.update(&(section as u64).to_le_bytes());
    h.update(&(index as u32).to_le_bytes());
    h.update(&generation.to_le_bytes());
    h.update(&src.to_le_bytes());
    h.update(&(dst_word & ID_MASK).to_le_bytes());
    h.update(&weight.to_le_bytes());
    h.update(&prev.to_le_bytes());
    let c = h.finalize();
    // Never 0, so a zero word is never a valid back-pointer/check pair of
    // a written entry with prev 0.
    ((c ^ (c >> 16)) as u16).max(1)
}

// ---------------------------------------------------------------------------
// Undo log.
// ---------------------------------------------------------------------------

/// Magic of the undo log header.
pub const UNDO_MAGIC: &[u8; 8] = b"DGUNDO01";
/// Bytes before the undo log's body (the saved window).
pub const UNDO_HEADER_BYTES: usize = 4096;

/// An undo record: the windows of the edge array and the edge-log regions
/// that a sync is about to overwrite, saved (as they are on disk) in the
/// body before any byte of them is written.
///
/// The body is a sequence of segments, each an [`UndoSegment`] (32 bytes)
/// followed by the saved bytes of slots `lo..hi` and then of the log
/// regions of sections `first_section..end_section`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UndoHeader {
    /// Whether the record is armed (data may have moved) or idle.
    pub armed: bool,
    /// The edge-array generation the record applies to.
    pub generation: u64,
    /// Segments in the body.
    pub segments: u64,
    /// Bytes of the body.
    pub body_len: u64,
    /// CRC-32 of the body.
    pub body_crc: u32,
}

/// One saved window of an undo record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UndoSegment {
    /// First slot of the saved window.
    pub lo: u64,
    /// One past its last slot.
    pub hi: u64,
    /// First section whose log region is saved.
    pub first_section: u64,
    /// One past the last section.
    pub end_section: u64,
}

/// Bytes of an encoded [`UndoSegment`].
pub const UNDO_SEGMENT_BYTES: usize = 32;

impl UndoSegment {
    /// The 32 bytes that precede the segment's saved bytes in the body.
    pub fn encode(&self) -> [u8; UNDO_SEGMENT_BYTES] {
        let mut out = [0u8; UNDO_SEGMENT_BYTES];
        for (i, v) in [self.lo, self.hi, self.first_section, self.end_section]
            .into_iter()
            .enumerate()
        {
            out[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    pub(crate) fn decode(bytes: &[u8]) -> Self {
        let at = |i: usize| u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("8"));
        Self {
            lo: at(0),
            hi: at(1),
            first_section: at(2),
            end_section: at(3),
        }
    }
}

impl UndoHeader {
    /// The bytes of this header, checksum included.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(UNDO_MAGIC)
            .u32(FORMAT_VERSION)
            .u32(u32::from(self.armed))
            .u64(self.generation)
            .u64(self.segments)
            .u64(self.body_len)
            .u32(self.body_crc);
        w.sealed()
    }

    /// Parses a header; `Ok(None)` when the header is torn, blank or idle
    /// (nothing to undo).
    pub(crate) fn decode(bytes: &[u8], path: &Path) -> Result<Option<Self>> {
        if bytes.len() < 8 || &bytes[..8] != UNDO_MAGIC {
            return Ok(None);
        }
        let mut r = Reader::new(bytes, path);
        r.bytes(8)?;
        let version = r.u32()?;
        let armed = r.u32()? != 0;
        let header = UndoHeader {
            armed,
            generation: r.u64()?,
            segments: r.u64()?,
            body_len: r.u64()?,
            body_crc: r.u32()?,
        };
        if r.check_crc("undo header").is_err() {
            return Ok(None);
        }
        if version != FORMAT_VERSION {
            return Err(invalid(
                path,
                format!("format version {version}; this build reads version {FORMAT_VERSION}"),
            ));
        }
        Ok(armed.then_some(header))
    }
}

// ---------------------------------------------------------------------------
// State file.
// ---------------------------------------------------------------------------

/// Magic of the clean-shutdown state file.
pub const STATE_MAGIC: &[u8; 8] = b"DGSTATE1";
