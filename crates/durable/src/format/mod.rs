//! The on-disk format: file names, slot encoding, and the fixed-layout
//! headers of the superblock, the edge arrays and their page checksums, the
//! edge-log regions and the clean-shutdown state file. The undo log and the
//! write-ahead log have their own modules.
//!
//! Every integer is little-endian. Every durable unit carries a CRC-32:
//! every header (after its bytes), every 4 KiB page of an edge array (in
//! its `.sum` file), every edge-log region (over its header and its
//! acknowledged entries), every write-ahead-log group, the undo record and
//! the state file. A unit that fails its check is refused with the file
//! and the byte offset, never trusted.

pub mod undo;
pub mod wal;

use dyngraph_core::{Error, Result};
use std::path::Path;

pub use undo::{
    UNDO_HEADER_BYTES, UNDO_MAGIC, UNDO_SEGMENT_BYTES, UndoFile, UndoHeader, UndoRange, UndoSegment,
};

/// Format version written into every header; files of another version are
/// refused. Version 2 added the write-ahead log, page checksums, region
/// checksums, in-edge arrays and checkpoint sequence numbers.
pub const FORMAT_VERSION: u32 = 2;

/// Name of the superblock file.
pub const SUPERBLOCK_FILE: &str = "superblock";
/// Name of the (out-)edge array file.
pub const EDGES_FILE: &str = "edges.dat";
/// Name of the per-section edge log file of the out-edges.
pub const EDGE_LOG_FILE: &str = "edgelog.dat";
/// Name of the in-edge array file (stores built with in-edges).
pub const IN_EDGES_FILE: &str = "in-edges.dat";
/// Name of the per-section edge log file of the in-edges.
pub const IN_EDGE_LOG_FILE: &str = "in-edgelog.dat";
/// Name of the write-ahead log.
pub const WAL_FILE: &str = "wal.log";
/// Name of the clean-shutdown vertex-array file.
pub const STATE_FILE: &str = "vertices.dat";
/// Name of the writer's lock file (an exclusive `flock` while a writer has
/// the store open; it holds the writer's process id and command).
pub const LOCK_FILE: &str = "LOCK";
/// Name of the readers' lock file (a shared `flock` per read-only open; a
/// writer takes it exclusively around in-place writes of the arrays).
pub const READERS_FILE: &str = "READERS";
/// Suffix of files being written before their atomic rename.
pub const TEMP_SUFFIX: &str = ".tmp";

/// The undo log of writer thread `thread` (one undo log serves the store:
/// checkpoints run one at a time).
pub fn undo_file(thread: usize) -> String {
    format!("undo-{thread}.log")
}

/// The page-checksum file of an edge array of `generation`: one per
/// generation, so that a rewrite's new array and its checksums appear
/// together (the new `.sum` is durable before the array is renamed into
/// place, the old one is removed after).
pub fn sums_file(side: Side, generation: u64) -> String {
    format!("{}-{generation}.sum", side.stem())
}

/// The sidecar blob written with the checkpoint at `lsn` (see
/// `DurableVcsr::stage_sidecar`).
pub fn sidecar_file(lsn: u64) -> String {
    format!("sidecar-{lsn}.bin")
}

/// Which adjacency an edge array holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Out-edges: `src`'s run lists its destinations.
    Out,
    /// In-edges: `dst`'s run lists its sources.
    In,
}

impl Side {
    /// The edge array's file name.
    pub fn edges_file(self) -> &'static str {
        match self {
            Side::Out => EDGES_FILE,
            Side::In => IN_EDGES_FILE,
        }
    }

    /// The edge-log file's name.
    pub fn log_file(self) -> &'static str {
        match self {
            Side::Out => EDGE_LOG_FILE,
            Side::In => IN_EDGE_LOG_FILE,
        }
    }

    fn stem(self) -> &'static str {
        match self {
            Side::Out => "edges",
            Side::In => "in-edges",
        }
    }

    fn code(self) -> u32 {
        match self {
            Side::Out => 0,
            Side::In => 1,
        }
    }
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

/// Bytes of a checksummed page of an edge array.
pub const PAGE_BYTES: usize = 4096;

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
        let at = self.at;
        let stored = self.u32()?;
        let computed = crc32fast::hash(covered);
        if stored != computed {
            return Err(invalid(
                self.path,
                format!(
                    "{what} checksum mismatch at byte {at} (stored {stored:#010x}, computed \
                     {computed:#010x}): the file is torn or corrupted"
                ),
            ));
        }
        Ok(())
    }
}

/// Reads the format version and refuses any other.
fn check_version(r: &mut Reader<'_>, path: &Path) -> Result<()> {
    let version = r.u32()?;
    if version != FORMAT_VERSION {
        return Err(invalid(
            path,
            format!("format version {version}; this build reads version {FORMAT_VERSION}"),
        ));
    }
    Ok(())
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
    /// Whether the store keeps an in-edge array (`in-edges.dat`).
    pub in_edges: bool,
    /// Vertices per PMA section (a leaf of the density tree).
    pub vertices_per_section: u32,
    /// Bytes of each section's edge-log region (header included).
    pub log_region_bytes: u32,
    /// The vertex limit the store was created with.
    pub vertex_limit: u64,
    /// DGAP's NORMAL_SHUTDOWN: set by a clean close, cleared by open.
    pub normal_shutdown: bool,
    /// The checkpoint sequence number the state file describes
    /// (meaningful only when `normal_shutdown`).
    pub state_lsn: u64,
}

impl Superblock {
    /// The bytes of this superblock, checksum included.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(SUPERBLOCK_MAGIC)
            .u32(FORMAT_VERSION)
            .u32(
                u32::from(self.simple)
                    | (u32::from(self.weighted) << 1)
                    | (u32::from(self.in_edges) << 2),
            )
            .u32(self.vertices_per_section)
            .u32(self.log_region_bytes)
            .u64(self.vertex_limit)
            .u32(u32::from(self.normal_shutdown))
            .u64(self.state_lsn);
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
        check_version(&mut r, path)?;
        let flags = r.u32()?;
        let vertices_per_section = r.u32()?;
        let log_region_bytes = r.u32()?;
        let vertex_limit = r.u64()?;
        let normal_shutdown = r.u32()? != 0;
        let state_lsn = r.u64()?;
        r.check_crc("superblock")?;
        let sb = Superblock {
            simple: flags & 1 != 0,
            weighted: flags & 2 != 0,
            in_edges: flags & 4 != 0,
            vertices_per_section,
            log_region_bytes,
            vertex_limit,
            normal_shutdown,
            state_lsn,
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
// Checkpoint marks.
// ---------------------------------------------------------------------------

/// Where the durable state stands: the log sequence number of the last
/// update it contains (updates are numbered from 1 in the order they were
/// applied) and the counts after it. Carried by every edge-array header (the
/// checkpoint that array holds), by the write-ahead log's header (the state
/// it continues from) and by every log group (the state after it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Mark {
    /// Updates applied, in total, since the store was created (inserts,
    /// deletes and vertex additions that changed the graph).
    pub lsn: u64,
    /// Edges in the graph.
    pub edges: u64,
    /// Vertices in the graph.
    pub vertices: u64,
    /// Edges inserted since the store was created.
    pub inserted: u64,
    /// Edges deleted since the store was created.
    pub deleted: u64,
}

impl Mark {
    pub(crate) fn write(&self, w: &mut Writer) {
        w.u64(self.lsn)
            .u64(self.edges)
            .u64(self.vertices)
            .u64(self.inserted)
            .u64(self.deleted);
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self> {
        Ok(Self {
            lsn: r.u64()?,
            edges: r.u64()?,
            vertices: r.u64()?,
            inserted: r.u64()?,
            deleted: r.u64()?,
        })
    }

    /// Bytes of an encoded mark.
    pub(crate) const BYTES: usize = 40;

    /// The mark after `record` is applied to this state.
    #[inline]
    pub(crate) fn advance(&mut self, record: wal::Record) {
        self.lsn += 1;
        match record {
            wal::Record::Insert(src, dst, _) => {
                self.edges += 1;
                self.inserted += 1;
                self.vertices = self.vertices.max(u64::from(src.max(dst)) + 1);
            }
            wal::Record::Delete(..) => {
                self.edges -= 1;
                self.deleted += 1;
            }
            wal::Record::Vertices(n) => self.vertices = self.vertices.max(u64::from(n)),
        }
    }
}

// ---------------------------------------------------------------------------
// Edge array.
// ---------------------------------------------------------------------------

/// Magic of an edge array file.
pub const EDGES_MAGIC: &[u8; 8] = b"DGEDGES1";
/// Bytes before slot 0 of the edge array (one page, so slots stay page
/// aligned for page-wise write-back).
pub const EDGES_HEADER_BYTES: usize = 4096;

/// An edge array's header (page 0 of its file): its generation (bumped by
/// every rewrite, which replaces the whole file by rename), its capacity in
/// slots, and the checkpoint it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgesHeader {
    /// Out- or in-edges.
    pub side: Side,
    /// 4-byte words per slot: 1, or 2 with weights.
    pub stride: u32,
    /// Bumped by every whole-file rewrite; edge-log regions stamped with
    /// another generation are stale (already merged into this array).
    pub generation: u64,
    /// Slots in the array.
    pub capacity: u64,
    /// The updates this array (with its edge log) holds: write-ahead-log
    /// records past `checkpoint.lsn` are replayed onto it by recovery.
    pub checkpoint: Mark,
    /// The sidecar blob of this checkpoint: `(lsn it was written at, length,
    /// CRC-32)`, or `None` (see `DurableVcsr::stage_sidecar`). Only the
    /// out-edge array names one.
    pub sidecar: Option<(u64, u64, u32)>,
}

impl EdgesHeader {
    /// The bytes of this header, checksum included, padded to a page.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(EDGES_MAGIC)
            .u32(FORMAT_VERSION)
            .u32(self.side.code())
            .u32(self.stride)
            .u64(self.generation)
            .u64(self.capacity);
        self.checkpoint.write(&mut w);
        let (lsn, len, crc) = self.sidecar.unwrap_or((0, 0, 0));
        w.u32(u32::from(self.sidecar.is_some()))
            .u64(lsn)
            .u64(len)
            .u32(crc);
        let mut bytes = w.sealed();
        bytes.resize(EDGES_HEADER_BYTES, 0);
        bytes
    }

    pub(crate) fn decode(bytes: &[u8], path: &Path) -> Result<Self> {
        let mut r = Reader::new(bytes, path);
        if r.bytes(8)? != EDGES_MAGIC {
            return Err(invalid(path, "bad magic: not a dyngraph edge array"));
        }
        check_version(&mut r, path)?;
        let side = match r.u32()? {
            0 => Side::Out,
            1 => Side::In,
            other => return Err(invalid(path, format!("unknown side {other}"))),
        };
        let stride = r.u32()?;
        let generation = r.u64()?;
        let capacity = r.u64()?;
        let checkpoint = Mark::read(&mut r)?;
        let has_sidecar = r.u32()? != 0;
        let sidecar = (r.u64()?, r.u64()?, r.u32()?);
        r.check_crc("edge array header")?;
        if stride != 1 && stride != 2 {
            return Err(invalid(path, format!("slot stride {stride} is not 1 or 2")));
        }
        Ok(Self {
            side,
            stride,
            generation,
            capacity,
            checkpoint,
            sidecar: has_sidecar.then_some(sidecar),
        })
    }

    /// Bytes of the file this header describes (header + slots).
    pub(crate) fn file_len(&self) -> u64 {
        EDGES_HEADER_BYTES as u64 + self.capacity * u64::from(self.stride) * 4
    }

    /// Checksummed pages of the file (the last one may be partial).
    pub(crate) fn pages(&self) -> usize {
        self.file_len().div_ceil(PAGE_BYTES as u64) as usize
    }
}

// ---------------------------------------------------------------------------
// Page checksums.
// ---------------------------------------------------------------------------

/// Magic of a page-checksum file.
pub const SUMS_MAGIC: &[u8; 8] = b"DGSUMS02";
/// Bytes before the first page checksum of a `.sum` file.
pub const SUMS_HEADER_BYTES: usize = 64;

/// The header of a page-checksum file: the edge array (side and
/// generation) it describes and how many pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SumsHeader {
    /// The edge array's side.
    pub side: Side,
    /// The edge array's generation.
    pub generation: u64,
    /// Pages described (one CRC-32 each, after the header).
    pub pages: u64,
}

impl SumsHeader {
    /// The header bytes, checksum included, padded to
    /// [`SUMS_HEADER_BYTES`].
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(SUMS_MAGIC)
            .u32(FORMAT_VERSION)
            .u32(self.side.code())
            .u64(self.generation)
            .u64(self.pages);
        let mut bytes = w.sealed();
        bytes.resize(SUMS_HEADER_BYTES, 0);
        bytes
    }

    pub(crate) fn decode(bytes: &[u8], path: &Path) -> Result<Self> {
        let mut r = Reader::new(bytes, path);
        if r.bytes(8)? != SUMS_MAGIC {
            return Err(invalid(
                path,
                "bad magic: not a dyngraph page-checksum file",
            ));
        }
        check_version(&mut r, path)?;
        let side = match r.u32()? {
            0 => Side::Out,
            1 => Side::In,
            other => return Err(invalid(path, format!("unknown side {other}"))),
        };
        let generation = r.u64()?;
        let pages = r.u64()?;
        r.check_crc("page-checksum header")?;
        Ok(Self {
            side,
            generation,
            pages,
        })
    }
}

/// The checksum of one page of an edge array: CRC-32 of its bytes and its
/// page number (a page copied to the wrong place does not check).
#[inline]
pub fn page_checksum(page: usize, bytes: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&(page as u64).to_le_bytes());
    h.update(bytes);
    h.finalize()
}

// ---------------------------------------------------------------------------
// Edge log.
// ---------------------------------------------------------------------------

/// Words in a region header: checksum, generation (2 words), synced count.
pub const LOG_HEADER_WORDS: usize = 4;
/// Words per edge-log entry: source, tagged destination, weight bits,
/// back-pointer (low 16 bits) and check (high 16 bits).
pub const LOG_ENTRY_WORDS: usize = 4;

/// Entries a region of `region_bytes` holds.
pub fn log_capacity(region_bytes: u32) -> usize {
    (region_bytes as usize / 4).saturating_sub(LOG_HEADER_WORDS) / LOG_ENTRY_WORDS
}

/// The region header words for `generation` with its first `synced`
/// entries acknowledged (`entries`, `synced * LOG_ENTRY_WORDS` words):
/// `crc, generation low, generation high, synced`. The CRC-32 covers the
/// section number, the other three words and the acknowledged entries, so
/// a flipped bit anywhere in them is found; entries past `synced` are not
/// covered (a checkpoint writes the count with the entries, so there are
/// none on disk unless a write was torn, and such a tail is cut).
pub(crate) fn log_header(
    section: usize,
    generation: u64,
    synced: u32,
    entries: &[u32],
) -> [u32; LOG_HEADER_WORDS] {
    let words = [generation as u32, (generation >> 32) as u32, synced];
    [
        region_crc(section, &words, entries),
        words[0],
        words[1],
        words[2],
    ]
}

fn region_crc(section: usize, words: &[u32; 3], entries: &[u32]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&(section as u64).to_le_bytes());
    h.update(bytemuck::cast_slice(words));
    h.update(bytemuck::cast_slice(entries));
    h.finalize()
}

/// What a region header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RegionHeader {
    /// All zero: the region was never stamped.
    Blank,
    /// A header whose checksum covers its acknowledged entries.
    Stamped {
        /// The array generation it belongs to.
        generation: u64,
        /// Entries acknowledged by a checkpoint.
        synced: u32,
    },
    /// A header that is neither blank nor consistent: corrupted.
    Corrupt(String),
}

/// Reads the header of section `section`'s region (`region`: the region's
/// words, header first) and checks its checksum.
pub(crate) fn read_region_header(section: usize, region: &[u32], capacity: usize) -> RegionHeader {
    let head = &region[..LOG_HEADER_WORDS];
    if head.iter().all(|&w| w == 0) {
        return RegionHeader::Blank;
    }
    let synced = head[3];
    if synced as usize > capacity {
        return RegionHeader::Corrupt(format!(
            "its header claims {synced} acknowledged entries, the region holds {capacity}"
        ));
    }
    let end = LOG_HEADER_WORDS + synced as usize * LOG_ENTRY_WORDS;
    let computed = region_crc(
        section,
        &[head[1], head[2], head[3]],
        &region[LOG_HEADER_WORDS..end],
    );
    if computed != head[0] {
        return RegionHeader::Corrupt(format!(
            "checksum mismatch over its header and its {synced} acknowledged entries \
             (stored {:#010x}, computed {computed:#010x})",
            head[0]
        ));
    }
    RegionHeader::Stamped {
        generation: u64::from(head[1]) | (u64::from(head[2]) << 32),
        synced,
    }
}

/// The 16-bit check of a log entry: binds the entry's source, destination
/// id (not its live/deleted tag, so a delete is one word), weight and
/// back-pointer to its section, index and the array generation, so an
/// entry torn or left from an older generation past the acknowledged ones
/// is recognised (the acknowledged ones are covered by the region's CRC).
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
// State file.
// ---------------------------------------------------------------------------

/// Magic of the clean-shutdown state file.
pub const STATE_MAGIC: &[u8; 8] = b"DGSTATE2";

/// Reads the magic, version and checksum of a state file; returns its body
/// (after magic and version, before the checksum) or why it is unusable.
pub(crate) fn state_body<'a>(bytes: &'a [u8], path: &Path) -> Result<&'a [u8]> {
    if bytes.len() < 16 {
        return Err(invalid(path, "truncated"));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
        return Err(invalid(
            path,
            "checksum mismatch: the file is torn or corrupted",
        ));
    }
    let mut r = Reader::new(body, path);
    if r.bytes(8)? != STATE_MAGIC {
        return Err(invalid(path, "bad magic"));
    }
    check_version(&mut r, path)?;
    Ok(&body[12..])
}
