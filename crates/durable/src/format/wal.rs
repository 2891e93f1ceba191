//! The write-ahead log's format: a header naming the checkpoint it
//! continues from, then groups of update records, each group checksummed.
//!
//! ```text
//! header   "DGWAL002" version stride base(Mark) crc            (64 bytes)
//! group    "WGRP" first_lsn records payload_len after(Mark) payload_crc header_crc
//!          payload: records of `stride` words each
//! record   word 0: op << 30 | src    (op 1 insert, 2 delete, 3 vertices)
//!          word 1: dst (for op 3: the vertex count grown to)
//!          word 2: weight bits (weighted stores only)
//! ```
//!
//! Groups follow each other without padding. Every record's first word is
//! non-zero (its op), and so is every group header's, so a fully written
//! log never holds 32 zero bytes in a row: recovery tells a group torn by a
//! power cut (a run of zeros where sectors were not written, or a payload
//! past the end of the file, and nothing valid after it) from a damaged
//! one (refused with the byte offset).

use super::{FORMAT_VERSION, Mark, Reader, Writer, invalid};
use dyngraph_core::Result;
use std::path::Path;

/// Magic of the write-ahead log header.
pub const WAL_MAGIC: &[u8; 8] = b"DGWAL002";
/// Bytes of the write-ahead log header.
pub const WAL_HEADER_BYTES: usize = 64;
/// Magic word of a group header.
pub const GROUP_MAGIC: u32 = u32::from_le_bytes(*b"WGRP");
/// Bytes of a group header.
pub const GROUP_HEADER_BYTES: usize = 4 + 8 + 4 + 4 + Mark::BYTES + 4 + 4;

/// Record op: an inserted edge.
pub const OP_INSERT: u32 = 1;
/// Record op: a deleted edge.
pub const OP_DELETE: u32 = 2;
/// Record op: the vertex count grown.
pub const OP_VERTICES: u32 = 3;

/// One logged update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Record {
    /// `src -> dst` inserted with these weight bits (0 on an unweighted
    /// store).
    Insert(u32, u32, u32),
    /// One occurrence of `src -> dst` deleted (the oldest).
    Delete(u32, u32),
    /// The vertex count grown to this (isolated vertices added). Absolute,
    /// so that replaying it onto an array that already holds some of the
    /// vertices gives the same count.
    Vertices(u32),
}

impl Record {
    /// Appends the record's `stride` words to `out`.
    #[inline]
    pub(crate) fn encode(self, stride: usize, out: &mut Vec<u8>) {
        let (w0, w1, w2) = match self {
            Record::Insert(s, d, w) => (OP_INSERT << 30 | s, d, w),
            Record::Delete(s, d) => (OP_DELETE << 30 | s, d, 0),
            Record::Vertices(n) => (OP_VERTICES << 30, n, 0),
        };
        out.extend_from_slice(&w0.to_le_bytes());
        out.extend_from_slice(&w1.to_le_bytes());
        if stride == 3 {
            out.extend_from_slice(&w2.to_le_bytes());
        }
    }

    /// Decodes one record from `stride` words.
    pub(crate) fn decode(words: &[u32]) -> Option<Self> {
        let (op, src) = (words[0] >> 30, words[0] & super::ID_MASK);
        let weight = words.get(2).copied().unwrap_or(0);
        match op {
            OP_INSERT => Some(Record::Insert(src, words[1], weight)),
            OP_DELETE => Some(Record::Delete(src, words[1])),
            OP_VERTICES if src == 0 => Some(Record::Vertices(words[1])),
            _ => None,
        }
    }
}

/// The header of the write-ahead log file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalHeader {
    /// Words per record: 2, or 3 with weights.
    pub stride: u32,
    /// The state the log continues from: its first record is `base.lsn + 1`.
    pub base: Mark,
}

impl WalHeader {
    /// The header bytes, checksum included, padded to [`WAL_HEADER_BYTES`].
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(WAL_MAGIC).u32(FORMAT_VERSION).u32(self.stride);
        self.base.write(&mut w);
        let mut bytes = w.sealed();
        bytes.resize(WAL_HEADER_BYTES, 0);
        bytes
    }

    pub(crate) fn decode(bytes: &[u8], path: &Path) -> Result<Self> {
        let mut r = Reader::new(bytes, path);
        if r.bytes(8)? != WAL_MAGIC {
            return Err(invalid(
                path,
                "byte 0: bad magic: not a dyngraph write-ahead log",
            ));
        }
        super::check_version(&mut r, path)?;
        let stride = r.u32()?;
        let base = Mark::read(&mut r)?;
        r.check_crc("write-ahead log header")?;
        if stride != 2 && stride != 3 {
            return Err(invalid(
                path,
                format!("record stride {stride} is not 2 or 3"),
            ));
        }
        Ok(Self { stride, base })
    }
}

/// The header of one group of records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupHeader {
    /// Sequence number of the group's first record.
    pub first_lsn: u64,
    /// Records in the group.
    pub records: u32,
    /// Bytes of the payload (`records * stride * 4`).
    pub payload_len: u32,
    /// The state after the group's last record.
    pub after: Mark,
    /// CRC-32 of the payload.
    pub payload_crc: u32,
}

impl GroupHeader {
    /// The header bytes, its checksum last.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u32(GROUP_MAGIC)
            .u64(self.first_lsn)
            .u32(self.records)
            .u32(self.payload_len);
        self.after.write(&mut w);
        w.u32(self.payload_crc);
        w.sealed()
    }

    /// Parses a group header at the start of `bytes`; `None` if it is not a
    /// whole, valid one.
    pub(crate) fn decode(bytes: &[u8]) -> Option<Self> {
        let bytes = bytes.get(..GROUP_HEADER_BYTES)?;
        let path = Path::new("");
        let mut r = Reader::new(bytes, path);
        if r.u32().ok()? != GROUP_MAGIC {
            return None;
        }
        let first_lsn = r.u64().ok()?;
        let records = r.u32().ok()?;
        let payload_len = r.u32().ok()?;
        let after = Mark::read(&mut r).ok()?;
        let payload_crc = r.u32().ok()?;
        r.check_crc("group").ok()?;
        Some(Self {
            first_lsn,
            records,
            payload_len,
            after,
            payload_crc,
        })
    }
}

/// Bytes of one record of a store with `weighted` slots.
pub(crate) fn record_stride(weighted: bool) -> usize {
    if weighted { 3 } else { 2 }
}

/// Zero bytes in a row that no group holds: the longest run a valid group
/// can have is under 32 (a header's small counters, a record's zero
/// destination and weight), so 32 zeros in a row mark bytes a write never
/// reached.
pub(crate) const TORN_ZERO_RUN: usize = 32;

/// Whether `bytes` holds [`TORN_ZERO_RUN`] zero bytes in a row: the mark
/// of a group a power cut tore (its sectors not all written).
pub(crate) fn has_zero_run(bytes: &[u8]) -> bool {
    let mut run = 0;
    for &b in bytes {
        run = if b == 0 { run + 1 } else { 0 };
        if run >= TORN_ZERO_RUN {
            return true;
        }
    }
    false
}
