//! The byte layout of a binary edge-stream file: the header, the sections,
//! and the checks made on open, each failure naming its byte offset.

use super::{EDGE_STREAM_MAGIC, EDGE_STREAM_VERSION};
use crate::csr_file::crc_of;
use dyngraph_core::{Error, IdMap, Result, VertexId};
use rayon::prelude::*;
use std::ops::Range;
use std::path::Path;

pub(super) const HEADER_BYTES: usize = 80;
pub(super) const ENDIAN_MARKER: u32 = 0x0102_0304;
pub(super) const CHECKSUM_RANGE: Range<usize> = 40..48;
pub(super) const FLAG_WEIGHTS: u32 = 1;
pub(super) const FLAG_TIMESTAMPS: u32 = 2;
pub(super) const FLAG_IDS: u32 = 4;
/// Bytes per vertex id this build reads and writes.
pub(super) const ID_BYTES: u32 = std::mem::size_of::<VertexId>() as u32;
/// Sources, destinations, values, ids.
pub(super) const SECTIONS: usize = 4;
const SECTION_NAMES: [&str; SECTIONS] = ["sources", "destinations", "values", "ids"];
/// Where the section lengths start in the header.
const LENGTHS_AT: usize = 48;

/// Where each section of a checked file lies, and its original ids.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    pub(super) vertex_count: usize,
    pub(super) flags: u32,
    pub(super) sections: [Range<usize>; SECTIONS],
    pub(super) ids: Option<IdMap>,
}

/// The error for a fault at byte `offset` of `path`.
pub(super) fn invalid(path: &Path, offset: u64, reason: String) -> Error {
    Error::InvalidEdgeStreamFile {
        path: path.to_path_buf(),
        offset,
        reason,
    }
}

/// Bytes per value for `flags`: 4 for weights, 8 for timestamps, else 0.
pub(super) fn value_bytes(flags: u32) -> u64 {
    if flags & FLAG_WEIGHTS != 0 {
        4
    } else if flags & FLAG_TIMESTAMPS != 0 {
        8
    } else {
        0
    }
}

/// Where the sections of a file with these byte lengths lie: each starts
/// at a multiple of 8 after the header. `None` when they overflow.
pub(super) fn place(lengths: &[u64; SECTIONS]) -> Option<([Range<u64>; SECTIONS], u64)> {
    let mut at = HEADER_BYTES as u64;
    let mut sections: [Range<u64>; SECTIONS] = Default::default();
    for (section, &length) in sections.iter_mut().zip(lengths) {
        let end = at.checked_add(length)?;
        *section = at..end;
        at = end.checked_next_multiple_of(8)?;
    }
    Some((sections, at))
}

/// The header of a file; the checksum field is zero.
pub(super) fn header(
    flags: u32,
    vertex_count: u64,
    edge_count: u64,
    lengths: &[u64; SECTIONS],
) -> [u8; HEADER_BYTES] {
    let mut header = [0u8; HEADER_BYTES];
    header[0..8].copy_from_slice(&EDGE_STREAM_MAGIC);
    header[8..12].copy_from_slice(&EDGE_STREAM_VERSION.to_ne_bytes());
    header[12..16].copy_from_slice(&ENDIAN_MARKER.to_ne_bytes());
    header[16..20].copy_from_slice(&flags.to_ne_bytes());
    header[20..24].copy_from_slice(&ID_BYTES.to_ne_bytes());
    header[24..32].copy_from_slice(&vertex_count.to_ne_bytes());
    header[32..40].copy_from_slice(&edge_count.to_ne_bytes());
    for (i, length) in lengths.iter().enumerate() {
        let at = LENGTHS_AT + 8 * i;
        header[at..at + 8].copy_from_slice(&length.to_ne_bytes());
    }
    header
}

/// Checks a file's bytes: magic, version, byte order, flags, id width,
/// section lengths against `E` and the file size, the checksum, the ids
/// section, and that every id is below `V`.
pub(super) fn check(bytes: &[u8], path: &Path) -> Result<Layout> {
    let fail = |offset: usize, reason: String| invalid(path, offset as u64, reason);
    let u32_at = |at: usize| u32::from_ne_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_ne_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    if bytes.len() < HEADER_BYTES {
        return Err(fail(
            bytes.len(),
            format!(
                "it ends at byte {}, inside the {HEADER_BYTES}-byte header (the file is \
                 truncated; write it again)",
                bytes.len()
            ),
        ));
    }
    if bytes[0..8] != EDGE_STREAM_MAGIC {
        return Err(fail(
            0,
            "it does not start with the magic bytes DYNGEDGS (a foreign file)".into(),
        ));
    }
    let marker = u32_at(12);
    if marker == ENDIAN_MARKER.swap_bytes() {
        return Err(fail(
            12,
            "written on a machine of the other byte order; convert it there".into(),
        ));
    }
    if marker != ENDIAN_MARKER {
        return Err(fail(12, format!("bad byte-order marker {marker:#010x}")));
    }
    let version = u32_at(8);
    if version != EDGE_STREAM_VERSION {
        return Err(fail(
            8,
            format!("version {version}, but this build reads version {EDGE_STREAM_VERSION}"),
        ));
    }
    let flags = u32_at(16);
    if flags & !(FLAG_WEIGHTS | FLAG_TIMESTAMPS | FLAG_IDS) != 0
        || flags & (FLAG_WEIGHTS | FLAG_TIMESTAMPS) == FLAG_WEIGHTS | FLAG_TIMESTAMPS
    {
        return Err(fail(16, format!("unknown flags {flags:#x}")));
    }
    let id_bytes = u32_at(20);
    if id_bytes != ID_BYTES {
        return Err(fail(
            20,
            format!(
                "vertex ids of {id_bytes} bytes, but this build reads {ID_BYTES}-byte ids \
                 (wider ids are kept in the ids section)"
            ),
        ));
    }
    let (vertices, edges) = (u64_at(24), u64_at(32));
    if vertices > u64::from(VertexId::MAX) + 1 {
        return Err(fail(
            24,
            format!("{vertices} vertices, more than 32-bit vertex ids can number"),
        ));
    }
    let lengths: [u64; SECTIONS] = std::array::from_fn(|i| u64_at(LENGTHS_AT + 8 * i));
    let e = u128::from(edges);
    let expected: [Option<u128>; SECTIONS] = [
        Some(e * u128::from(ID_BYTES)),
        Some(e * u128::from(ID_BYTES)),
        Some(e * u128::from(value_bytes(flags))),
        // The ids section's length is its own (names vary in size).
        None,
    ];
    for (i, (&length, expected)) in lengths.iter().zip(expected).enumerate() {
        let wrong = match expected {
            Some(expected) => u128::from(length) != expected,
            None => (flags & FLAG_IDS != 0) != (length != 0),
        };
        if wrong {
            return Err(fail(
                LENGTHS_AT + 8 * i,
                format!(
                    "the {} section is {length} bytes, which disagrees with the header's \
                     {edges} edges and flags {flags:#x} (the counts lie; write the file again)",
                    SECTION_NAMES[i]
                ),
            ));
        }
    }
    let Some((sections, end)) = place(&lengths) else {
        return Err(fail(
            LENGTHS_AT,
            "its section lengths overflow a file size".into(),
        ));
    };
    let len = bytes.len() as u64;
    if end > len {
        let section = sections.iter().position(|s| s.end > len).unwrap_or(0);
        return Err(fail(
            bytes.len(),
            format!(
                "it ends at byte {len}, inside its {} section, but its counts need {end} bytes \
                 (the file is truncated; write it again)",
                SECTION_NAMES[section]
            ),
        ));
    }
    if end < len {
        return Err(fail(
            end as usize,
            format!(
                "{} bytes follow its last section, which ends at byte {end} (the file is \
                 damaged; write it again)",
                len - end
            ),
        ));
    }
    let stored = u64_at(CHECKSUM_RANGE.start);
    let computed = u64::from(checksum(bytes));
    if stored != computed {
        return Err(fail(
            CHECKSUM_RANGE.start,
            format!(
                "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the \
                 file is corrupted; write it again"
            ),
        ));
    }
    let sections: [Range<usize>; SECTIONS] = sections.map(|s| s.start as usize..s.end as usize);
    let ids = if flags & FLAG_IDS != 0 {
        let ids = IdMap::from_bytes(&bytes[sections[3].clone()]).map_err(|error| {
            fail(
                sections[3].start,
                format!("its ids section is damaged ({error})"),
            )
        })?;
        if ids.len() as u64 != vertices {
            return Err(fail(
                sections[3].start,
                format!(
                    "its ids section names {} vertices, but the header says {vertices}",
                    ids.len()
                ),
            ));
        }
        Some(ids)
    } else {
        None
    };
    for (column, range) in sections[..2].iter().cloned().enumerate() {
        if let Some((index, id)) = first_id_at_or_past(&bytes[range.clone()], vertices) {
            return Err(fail(
                range.start + index * ID_BYTES as usize,
                format!(
                    "edge {index} has {} id {id}, not below the header's {vertices} vertices \
                     (the counts lie; write the file again)",
                    if column == 0 { "source" } else { "destination" }
                ),
            ));
        }
    }
    Ok(Layout {
        vertex_count: vertices as usize,
        flags,
        sections,
        ids,
    })
}

/// The CRC-32 of a whole file with its checksum field read as zero.
pub(super) fn checksum(bytes: &[u8]) -> u32 {
    crc_of(&[
        &bytes[..CHECKSUM_RANGE.start],
        &[0u8; 8],
        &bytes[CHECKSUM_RANGE.end..],
    ])
    .sum()
}

/// The first id (index, value) in a column's bytes that is not below
/// `vertices`. Blocks are scanned in parallel for their largest id (a loop
/// the compiler vectorises; rayon's per-item `position_first` checks a
/// shared atomic per id and took a second per hundred million ids), and
/// the first block with one too large is searched serially.
fn first_id_at_or_past(column: &[u8], vertices: u64) -> Option<(usize, u64)> {
    const BLOCK_BYTES: usize = 1 << 18;
    let largest = |block: &[u8]| -> u64 {
        match bytemuck::try_cast_slice::<u8, VertexId>(block) {
            Ok(ids) => ids.iter().copied().max().map_or(0, u64::from),
            // A copy at an odd address: the same on bytes.
            Err(_) => block
                .chunks_exact(4)
                .map(|id| u32::from_ne_bytes(id.try_into().expect("4 bytes")))
                .max()
                .map_or(0, u64::from),
        }
    };
    let block = column
        .par_chunks(BLOCK_BYTES)
        .position_first(|block| !block.is_empty() && largest(block) >= vertices)?;
    let start = block * BLOCK_BYTES;
    let end = (start + BLOCK_BYTES).min(column.len());
    column[start..end]
        .chunks_exact(4)
        .map(|id| u64::from(u32::from_ne_bytes(id.try_into().expect("4 bytes"))))
        .enumerate()
        .find(|&(_, id)| id >= vertices)
        .map(|(i, id)| (start / 4 + i, id))
}
