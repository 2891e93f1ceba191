//! The undo log's format: a header (armed flag, generation, segment count,
//! body length and CRC) and a body of saved byte ranges.
//!
//! An in-place checkpoint saves, before it writes a byte of the arrays, the
//! on-disk bytes of every range it is about to overwrite: each as a
//! [`UndoRange`] (a file and a byte range). DGAP's per-rebalance record, a
//! window of slots with its sections' edge-log regions ([`UndoSegment`]),
//! is the other kind of segment the body may hold; recovery restores both
//! and redoes the rebalance of a restored window.

use super::{FORMAT_VERSION, Reader, Side, Writer, invalid};
use dyngraph_core::Result;
use std::path::Path;

/// Magic of the undo log header.
pub const UNDO_MAGIC: &[u8; 8] = b"DGUNDO01";
/// Bytes before the undo log's body (the saved window).
pub const UNDO_HEADER_BYTES: usize = 4096;

/// An undo record: byte ranges that a checkpoint is about to overwrite,
/// saved (as they are on disk) in the body before any byte of them is
/// written.
///
/// The body is a sequence of segments, each a 32-byte descriptor followed
/// by the saved bytes: an [`UndoSegment`] (slots `lo..hi` of the out-edge
/// array, then the log regions of sections `first_section..end_section`)
/// or an [`UndoRange`] (a byte range of one file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UndoHeader {
    /// Whether the record is armed (data may have moved) or idle.
    pub armed: bool,
    /// The out-edge array generation the record applies to.
    pub generation: u64,
    /// Segments in the body.
    pub segments: u64,
    /// Bytes of the body.
    pub body_len: u64,
    /// CRC-32 of the body.
    pub body_crc: u32,
}

/// One saved window of an undo record (DGAP's rebalance record).
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

/// Bytes of an encoded segment descriptor.
pub const UNDO_SEGMENT_BYTES: usize = 32;

/// The `lo` of a descriptor that is an [`UndoRange`] (no window starts at
/// slot `u64::MAX`).
const RANGE_MARK: u64 = u64::MAX;

impl UndoSegment {
    /// The 32 bytes that precede the segment's saved bytes in the body.
    pub fn encode(&self) -> [u8; UNDO_SEGMENT_BYTES] {
        encode4([self.lo, self.hi, self.first_section, self.end_section])
    }
}

fn encode4(values: [u64; 4]) -> [u8; UNDO_SEGMENT_BYTES] {
    let mut out = [0u8; UNDO_SEGMENT_BYTES];
    for (i, v) in values.into_iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// A file of the store an [`UndoRange`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UndoFile {
    /// A side's edge array.
    Edges(Side),
    /// A side's edge log.
    Log(Side),
    /// A side's page-checksum file (of its current generation).
    Sums(Side),
}

impl UndoFile {
    fn code(self) -> u64 {
        match self {
            UndoFile::Edges(Side::Out) => 0,
            UndoFile::Log(Side::Out) => 1,
            UndoFile::Sums(Side::Out) => 2,
            UndoFile::Edges(Side::In) => 3,
            UndoFile::Log(Side::In) => 4,
            UndoFile::Sums(Side::In) => 5,
        }
    }

    fn from_code(code: u64) -> Option<Self> {
        Some(match code {
            0 => UndoFile::Edges(Side::Out),
            1 => UndoFile::Log(Side::Out),
            2 => UndoFile::Sums(Side::Out),
            3 => UndoFile::Edges(Side::In),
            4 => UndoFile::Log(Side::In),
            5 => UndoFile::Sums(Side::In),
            _ => return None,
        })
    }
}

/// A saved byte range of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UndoRange {
    /// The file.
    pub file: UndoFile,
    /// First byte.
    pub offset: u64,
    /// Bytes saved.
    pub len: u64,
}

impl UndoRange {
    /// The 32-byte descriptor that precedes the saved bytes.
    pub fn encode(&self) -> [u8; UNDO_SEGMENT_BYTES] {
        encode4([RANGE_MARK, self.file.code(), self.offset, self.len])
    }
}

/// A decoded segment descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UndoPart {
    Window(UndoSegment),
    Range(UndoRange),
}

/// Decodes a 32-byte descriptor; `None` for a range naming no known file.
pub(crate) fn decode_part(bytes: &[u8]) -> Option<UndoPart> {
    let at = |i: usize| u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("8"));
    if at(0) == RANGE_MARK {
        Some(UndoPart::Range(UndoRange {
            file: UndoFile::from_code(at(1))?,
            offset: at(2),
            len: at(3),
        }))
    } else {
        Some(UndoPart::Window(UndoSegment {
            lo: at(0),
            hi: at(1),
            first_section: at(2),
            end_section: at(3),
        }))
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

    /// The header of an idle log.
    pub(crate) fn idle() -> Self {
        Self {
            armed: false,
            generation: 0,
            segments: 0,
            body_len: 0,
            body_crc: 0,
        }
    }

    /// Parses a header: `Ok(None)` for a blank one (an all-zero or empty
    /// file: nothing was ever armed) or an idle one, the record when armed.
    /// A header that is neither is refused: the headers are written in one
    /// sector, so a mismatch is damage, and guessing "idle" could skip a
    /// restore that is needed.
    pub(crate) fn decode(bytes: &[u8], path: &Path) -> Result<Option<Self>> {
        if bytes.iter().all(|&b| b == 0) {
            return Ok(None);
        }
        let mut r = Reader::new(bytes, path);
        if r.bytes(8)? != UNDO_MAGIC {
            return Err(invalid(path, "byte 0: bad magic in the undo log header"));
        }
        let version = r.u32()?;
        let armed = r.u32()? != 0;
        let header = UndoHeader {
            armed,
            generation: r.u64()?,
            segments: r.u64()?,
            body_len: r.u64()?,
            body_crc: r.u32()?,
        };
        r.check_crc("undo header")?;
        if version != FORMAT_VERSION {
            return Err(invalid(
                path,
                format!("format version {version}; this build reads version {FORMAT_VERSION}"),
            ));
        }
        Ok(armed.then_some(header))
    }
}
