//! The byte layout of a binary `Csr` file, both versions: the header, the
//! sections, the checks made on open, and the view of the checked bytes.

use super::{CSR_FILE_MAGIC, CSR_FILE_VERSION, CsrFileOptions, crc32};
use dyngraph_core::{CsrView, Error, Graph, IdMap, Result, Semantics, VertexId, Weight};
use std::path::Path;

pub(super) const ENDIAN_MARKER: u32 = 0x0102_0304;
pub(super) const CHECKSUM_RANGE: std::ops::Range<usize> = 40..48;
pub(super) const FLAG_WEIGHTS: u32 = 1;
pub(super) const FLAG_IN_EDGES: u32 = 2;
pub(super) const FLAG_SIMPLE: u32 = 4;
/// Version 2: the file holds the original ids of its vertices.
pub(super) const FLAG_IDS: u32 = 8;
/// Sections of a version-2 file: offsets, targets, weights, in-offsets,
/// in-sources, ids. Version 1 has the first five.
pub(super) const SECTIONS: usize = 6;
const SECTION_NAMES: [&str; SECTIONS] = [
    "offsets",
    "targets",
    "weights",
    "in-offsets",
    "in-sources",
    "ids",
];

/// The header's size in a file of `version`: 48 bytes, then a `u64` length
/// per section.
pub(super) fn header_bytes(version: u32) -> usize {
    48 + 8 * sections_of(version)
}

fn sections_of(version: u32) -> usize {
    if version == 1 { SECTIONS - 1 } else { SECTIONS }
}

/// Where each section lies in a checked file, and its original ids.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    pub(super) vertex_count: usize,
    pub(super) edge_count: usize,
    pub(super) flags: u32,
    pub(super) sections: [std::ops::Range<usize>; SECTIONS],
    pub(super) ids: Option<IdMap>,
}

/// The header of a version-[`CSR_FILE_VERSION`] file for `graph`, whose
/// sections have these byte lengths; the checksum field is zero.
pub(super) fn header(graph: &CsrView<'_>, lengths: &[usize; SECTIONS]) -> Vec<u8> {
    let mut flags = 0;
    if graph.weights().is_some() {
        flags |= FLAG_WEIGHTS;
    }
    if graph.in_offsets().is_some() {
        flags |= FLAG_IN_EDGES;
    }
    if graph.semantics() == Semantics::Simple {
        flags |= FLAG_SIMPLE;
    }
    if graph.ids().is_some() {
        flags |= FLAG_IDS;
    }
    let mut header = vec![0u8; header_bytes(CSR_FILE_VERSION)];
    header[0..8].copy_from_slice(&CSR_FILE_MAGIC);
    header[8..12].copy_from_slice(&CSR_FILE_VERSION.to_ne_bytes());
    header[12..16].copy_from_slice(&ENDIAN_MARKER.to_ne_bytes());
    header[16..20].copy_from_slice(&flags.to_ne_bytes());
    header[24..32].copy_from_slice(&(graph.vertex_count() as u64).to_ne_bytes());
    header[32..40].copy_from_slice(&graph.edge_count().to_ne_bytes());
    for (i, length) in lengths.iter().enumerate() {
        let at = 48 + 8 * i;
        header[at..at + 8].copy_from_slice(&(*length as u64).to_ne_bytes());
    }
    header
}

/// Checks a file's bytes: magic, version (1 or 2), byte order, flags,
/// section lengths against `V` and `E` and the file size, the checksum
/// (unless `options` say not to), and the ids section, decoded.
pub(super) fn check(bytes: &[u8], path: &Path, options: CsrFileOptions) -> Result<Layout> {
    let invalid = |reason: String| Error::InvalidCsrFile {
        path: path.to_path_buf(),
        reason,
    };
    let u32_at = |at: usize| u32::from_ne_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_ne_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let version_one = header_bytes(1);
    if bytes.len() < version_one {
        return Err(invalid(format!(
            "it is {} bytes, shorter than the {version_one}-byte header (the file is \
             truncated; write it again)",
            bytes.len()
        )));
    }
    if bytes[0..8] != CSR_FILE_MAGIC {
        return Err(invalid(
            "it does not start with the magic bytes DYNGCSR (a foreign file)".into(),
        ));
    }
    let marker = u32_at(12);
    if marker == ENDIAN_MARKER.swap_bytes() {
        return Err(invalid(
            "written on a machine of the other byte order; convert it there".into(),
        ));
    }
    if marker != ENDIAN_MARKER {
        return Err(invalid(format!("bad byte-order marker {marker:#010x}")));
    }
    let version = u32_at(8);
    if !(1..=CSR_FILE_VERSION).contains(&version) {
        return Err(invalid(format!(
            "version {version}, but this build reads versions 1 to {CSR_FILE_VERSION}"
        )));
    }
    let header = header_bytes(version);
    if bytes.len() < header {
        return Err(invalid(format!(
            "it is {} bytes, shorter than the {header}-byte header of version {version} (the \
             file is truncated; write it again)",
            bytes.len()
        )));
    }
    let flags = u32_at(16);
    let known = match version {
        1 => FLAG_WEIGHTS | FLAG_IN_EDGES | FLAG_SIMPLE,
        _ => FLAG_WEIGHTS | FLAG_IN_EDGES | FLAG_SIMPLE | FLAG_IDS,
    };
    if flags & !known != 0 || u32_at(20) != 0 {
        return Err(invalid(format!("unknown flags {flags:#x}")));
    }
    let (vertices, edges) = (u64_at(24), u64_at(32));
    let count = sections_of(version);
    let lengths: [u64; SECTIONS] =
        std::array::from_fn(|i| if i < count { u64_at(48 + 8 * i) } else { 0 });
    // Expected byte lengths, in u128 so a hostile header cannot overflow.
    // The ids section's length is its own (the keys' sizes vary).
    let (v1, e) = (u128::from(vertices) + 1, u128::from(edges));
    let with = |flag: u32, len: u128| if flags & flag != 0 { len } else { 0 };
    let ids_length = u128::from(lengths[5]);
    let expected: [u128; SECTIONS] = [
        8 * v1,
        4 * e,
        with(FLAG_WEIGHTS, 4 * e),
        with(FLAG_IN_EDGES, 8 * v1),
        with(FLAG_IN_EDGES, 4 * e),
        if flags & FLAG_IDS != 0 { ids_length } else { 0 },
    ];
    let mut sections: [std::ops::Range<usize>; SECTIONS] = Default::default();
    let mut at: u128 = header as u128;
    for i in 0..SECTIONS {
        if u128::from(lengths[i]) != expected[i] {
            return Err(invalid(format!(
                "{} section is {} bytes, expected {} for {vertices} vertices and {edges} edges",
                SECTION_NAMES[i], lengths[i], expected[i]
            )));
        }
        let end = at + expected[i];
        if end > bytes.len() as u128 {
            return Err(invalid(format!(
                "it is {} bytes, too short for its {} section (the file is truncated; write it \
                 again)",
                bytes.len(),
                SECTION_NAMES[i]
            )));
        }
        sections[i] = at as usize..end as usize;
        at = end.next_multiple_of(8);
    }
    if at != bytes.len() as u128 {
        return Err(invalid(format!(
            "it is {} bytes, but its sections end at byte {at} (the file is damaged; write \
             it again)",
            bytes.len()
        )));
    }
    if options.verify_checksum {
        let stored = u64_at(CHECKSUM_RANGE.start);
        let zeros = [0u8; 8];
        let computed = u64::from(crc32(&[
            &bytes[..CHECKSUM_RANGE.start],
            &zeros,
            &bytes[CHECKSUM_RANGE.end..],
        ]));
        if stored != computed {
            return Err(invalid(format!(
                "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): \
                 the file is corrupted; write it again"
            )));
        }
    }
    let ids = if flags & FLAG_IDS != 0 {
        let ids = IdMap::from_bytes(&bytes[sections[5].clone()])
            .map_err(|error| invalid(format!("its ids section is damaged ({error})")))?;
        if ids.len() as u64 != vertices {
            return Err(invalid(format!(
                "its ids section names {} vertices, but the file has {vertices}",
                ids.len()
            )));
        }
        Some(ids)
    } else {
        None
    };
    Ok(Layout {
        vertex_count: vertices as usize,
        edge_count: edges as usize,
        flags,
        sections,
        ids,
    })
}

/// The graph of checked `bytes` (with its ids), borrowed from them.
pub(super) fn view_of<'a>(bytes: &'a [u8], layout: &'a Layout) -> Result<CsrView<'a>> {
    let section = |i: usize| &bytes[layout.sections[i].clone()];
    let cast_error = |e: bytemuck::PodCastError| {
        Error::InvalidStructure(format!("a section cannot be viewed in place: {e}"))
    };
    let offsets: &[u64] = bytemuck::try_cast_slice(section(0)).map_err(cast_error)?;
    let targets: &[VertexId] = bytemuck::try_cast_slice(section(1)).map_err(cast_error)?;
    let weights: Option<&[Weight]> = if layout.flags & FLAG_WEIGHTS != 0 {
        Some(bytemuck::try_cast_slice(section(2)).map_err(cast_error)?)
    } else {
        None
    };
    let in_edges = if layout.flags & FLAG_IN_EDGES != 0 {
        Some((
            bytemuck::try_cast_slice(section(3)).map_err(cast_error)?,
            bytemuck::try_cast_slice(section(4)).map_err(cast_error)?,
        ))
    } else {
        None
    };
    let semantics = if layout.flags & FLAG_SIMPLE != 0 {
        Semantics::Simple
    } else {
        Semantics::Multigraph
    };
    let view = CsrView::new(offsets, targets, weights, in_edges, semantics)?;
    match &layout.ids {
        Some(ids) => view.with_ids(ids),
        None => Ok(view),
    }
}
