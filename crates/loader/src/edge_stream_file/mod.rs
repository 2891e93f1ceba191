//! Binary edge-stream files (`.dges`): an [`EdgeStream`] in arrival order
//! as columns, written whole ([`write_edge_stream_file`]) or chunk by chunk
//! in bounded memory ([`EdgeStreamWriter`]), and read back by memory map
//! without a copy ([`map_edge_stream`]) or wherever a graph file is read.
//!
//! Text parsing dominates loading at a billion edges; this file is the
//! stream's own arrays, so reading it is mapping it and checking it.
//! [`load_edge_stream`](crate::load_edge_stream),
//! [`load_csr`](crate::load_csr) and their in-memory twins recognise it by
//! its magic bytes ([`EDGE_STREAM_MAGIC`]), whatever its name.
//!
//! # Layout (version 1)
//!
//! All integers are in the writing machine's byte order, recorded by the
//! endianness marker; a file is refused on a machine of the other order.
//! Every section starts at a multiple of 8 bytes (zero padding), so once
//! mapped at a page boundary each is a properly aligned slice.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `b"DYNGEDGS"` |
//! | 8 | 4 | version (`u32`, 1) |
//! | 12 | 4 | endianness marker `0x0102_0304` (`u32`) |
//! | 16 | 4 | flags: bit 0 weights, bit 1 timestamps (not both: there is one values section), bit 2 original ids |
//! | 20 | 4 | bytes per vertex id (`u32`, 4) |
//! | 24 | 8 | vertex count `V` (`u64`) |
//! | 32 | 8 | edge count `E` (`u64`) |
//! | 40 | 8 | checksum: CRC-32 (in the low 32 bits) of the whole file with this field zeroed |
//! | 48 | 32 | section byte lengths (`u64` each): sources, destinations, values, ids |
//! | 80 | … | sources `E × u32`, destinations `E × u32`, values (`E × f32` weights, `E × u64` timestamps, or empty), the original ids (or empty), each padded to 8 bytes |
//!
//! One values section holds one kind of value: a stream with weights and
//! timestamps both ([`ValueKind::WeightAndTimestamp`](crate::ValueKind))
//! is refused by the writers, never written with a column dropped; drop
//! one first ([`EdgeStream::without_weights`],
//! [`EdgeStream::without_timestamps`]).
//!
//! Vertex ids are `u32` ([`VertexId`]); a file whose input had wider or
//! named ids keeps those in the ids section, as
//! [`IdMap::to_bytes`](dyngraph_core::IdMap::to_bytes) writes them, and the
//! columns hold the dense ids they were relabelled to. The id width field
//! is there so a future build with 64-bit vertex ids can tell its files
//! from these.
//!
//! Opening checks the magic, version, byte order, flags, id width, that
//! the section lengths match `E` and add up to the file size, the checksum,
//! that the ids decode and name `V` vertices, and that every id is below
//! `V`, so a truncated, corrupted, lying or foreign file is an
//! [`Error::InvalidEdgeStreamFile`] naming the byte offset of the fault,
//! never undefined behaviour or a panic.
//!
//! Writing goes through [`AtomicFile`](crate::AtomicFile): the bytes go to a temporary file in
//! the destination's directory, which is synced and renamed over the
//! destination, so a crash or a full disk never leaves a half-written file
//! under the final name.
//!
//! ```
//! use dyngraph_loader::{EdgeStream, LoadOptions, load_edge_stream, map_edge_stream, write_edge_stream_file};
//! use dyngraph_core::TimestampedEdge;
//!
//! let stream = EdgeStream::from_timestamped_edges(&[
//!     TimestampedEdge::new(0, 1, 10),
//!     TimestampedEdge::new(2, 0, 11),
//! ]);
//! let path = std::env::temp_dir().join(format!("dyngraph-doc-{}.dges", std::process::id()));
//! write_edge_stream_file(&path, &stream)?;
//! // SAFETY: the file was just written by this program into a fresh path,
//! // and nothing modifies it while `mapped` is alive.
//! let mapped = unsafe { map_edge_stream(&path, &LoadOptions::default())? };
//! assert!(mapped.is_mapped()); // the columns are read from the map
//! assert_eq!(mapped, stream);
//! // The loader's entry points take it wherever they take text (copying).
//! assert_eq!(load_edge_stream(&path, &LoadOptions::default())?, stream);
//! # drop(mapped);
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), dyngraph_core::Error>(())
//! ```

mod layout;
mod writer;

use crate::column::Column;
use crate::format::ThirdColumn;
use crate::options::LoadOptions;
use crate::stream::{EdgeStream, ValueKind};
use dyngraph_core::{Error, Result, VertexId};
use layout::{FLAG_TIMESTAMPS, FLAG_WEIGHTS, Layout, check};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use writer::{EdgeStreamWriter, write_edge_stream_file};

/// The first eight bytes of every binary edge-stream file.
pub const EDGE_STREAM_MAGIC: [u8; 8] = *b"DYNGEDGS";
/// The layout version this crate writes and reads.
pub const EDGE_STREAM_VERSION: u32 = 1;
/// The extension `dyngraph gen` and `dyngraph convert` write binary edge
/// streams under (they are recognised on input by their magic, whatever
/// their name).
pub const EDGE_STREAM_EXTENSION: &str = "dges";

/// Whether the file at `path` is a binary edge-stream file, judged by its
/// first eight bytes ([`EDGE_STREAM_MAGIC`]) whatever its name. A file that
/// starts with the magic but is broken still answers `true`: reading it
/// then says what is wrong. A pipe answers `false` without being read.
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or read.
pub fn is_edge_stream_file(path: impl AsRef<Path>) -> Result<bool> {
    crate::csr_file::starts_with_magic(path.as_ref(), &EDGE_STREAM_MAGIC)
}

/// `true` when `bytes` start with [`EDGE_STREAM_MAGIC`].
pub(crate) fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(&EDGE_STREAM_MAGIC)
}

/// Maps the binary edge-stream file at `path` and returns its stream with
/// the columns read in place from the map ([`EdgeStream::is_mapped`]): no
/// copy, pages read on first touch, memory in the page cache only. The
/// file is checked first (layout in the [module docs](self)), including
/// its checksum and that every id is below its vertex count: two parallel
/// passes over the file.
///
/// `options` apply as to text: `max_vertices`, a third column of
/// `Ignore` (drops the values) or one the file must hold, and
/// `symmetrize`, `drop_self_loops` and `dedupe`, which build a new
/// (owned) stream.
///
/// # Safety
/// The file must not be modified or truncated, by this process or any
/// other, while the returned stream (or any clone of it, or of its
/// columns) is alive: the map shows such changes as they happen, which
/// would invalidate the checks made here (a truncation can also kill the
/// process with `SIGBUS`). dyngraph never writes a file in place (it
/// renames a new file over the old name), which leaves a mapped file as
/// it was.
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or mapped;
/// [`Error::InvalidEdgeStreamFile`] for a foreign, truncated, corrupted or
/// other-version file, naming the byte offset and what is wrong;
/// [`Error::InvalidArgument`] when `options` ask for a column the file does
/// not hold or for fewer vertices than it has.
pub unsafe fn map_edge_stream(path: impl AsRef<Path>, options: &LoadOptions) -> Result<EdgeStream> {
    let path = path.as_ref();
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = crate::load::open_file(path)?;
    if file.metadata().map_err(io)?.len() == 0 {
        return Err(layout::invalid(path, 0, "the file is empty".into()));
    }
    // SAFETY: our caller promises the file is not modified or truncated
    // while the map (owned by the returned stream's columns) is alive.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    let _ = map.advise(memmap2::Advice::Sequential);
    let map = Arc::new(map);
    let layout = check(&map, path)?;
    let stream = mapped_stream(&map, &layout, path)?;
    with_options(stream, path, options)
}

/// A [`Csr`](dyngraph_core::Csr) under `options` built straight from the
/// columns of a mapped binary edge-stream file: what
/// [`crate::load_csr`] gives, without a copy of the stream. The map is the
/// caller's, alive for the call.
pub(crate) fn csr_from_map(
    map: &Arc<memmap2::Mmap>,
    path: &Path,
    options: &LoadOptions,
) -> Result<dyngraph_core::Csr> {
    let layout = check(map, path)?;
    let stream = with_options(mapped_stream(map, &layout, path)?, path, options)?;
    stream.to_csr(&options.csr_options(stream.vertex_count()))
}

/// The columns of a checked file, borrowed from its map.
fn mapped_stream(map: &Arc<memmap2::Mmap>, layout: &Layout, path: &Path) -> Result<EdgeStream> {
    let misplaced = |section: usize| {
        layout::invalid(
            path,
            layout.sections[section].start as u64,
            "a section cannot be read in place (not aligned in memory)".into(),
        )
    };
    let column = |section: usize| {
        Column::<VertexId>::mapped(map, layout.sections[section].clone())
            .ok_or_else(|| misplaced(section))
    };
    let (src, dst) = (column(0)?, column(1)?);
    let values = || layout.sections[2].clone();
    let weights = match layout.flags & FLAG_WEIGHTS != 0 {
        true => Some(Column::mapped(map, values()).ok_or_else(|| misplaced(2))?),
        false => None,
    };
    let timestamps = match layout.flags & FLAG_TIMESTAMPS != 0 {
        true => Some(Column::mapped(map, values()).ok_or_else(|| misplaced(2))?),
        false => None,
    };
    let mut stream = EdgeStream::from_parts(src, dst, weights, timestamps, layout.vertex_count);
    if let Some(ids) = &layout.ids {
        stream.set_ids(ids.clone());
    }
    Ok(stream)
}

/// A binary edge-stream file's bytes (aligned or not), checked, as an owned
/// stream under `options`: what [`crate::load_edge_stream`] gives.
pub(crate) fn stream_from_bytes(
    bytes: &[u8],
    path: Option<&Path>,
    options: &LoadOptions,
) -> Result<EdgeStream> {
    let shown = path.map_or_else(|| PathBuf::from("<input>"), Path::to_path_buf);
    // The sections are read by copying, so any alignment will do.
    let layout = check(bytes, &shown)?;
    let section = |i: usize| &bytes[layout.sections[i].clone()];
    let mut stream = EdgeStream::from_parts(
        copied(section(0)).into(),
        copied(section(1)).into(),
        (layout.flags & FLAG_WEIGHTS != 0).then(|| copied(section(2)).into()),
        (layout.flags & FLAG_TIMESTAMPS != 0).then(|| copied(section(2)).into()),
        layout.vertex_count,
    );
    if let Some(ids) = layout.ids {
        stream.set_ids(ids);
    }
    with_options(stream, &shown, options)
}

/// A section's bytes copied into a vector of `T` (the bytes need no
/// alignment; their length is a whole number of `T`s, checked on open).
fn copied<T: bytemuck::Pod>(bytes: &[u8]) -> Vec<T> {
    let mut values = vec![T::zeroed(); bytes.len() / std::mem::size_of::<T>()];
    bytemuck::cast_slice_mut::<T, u8>(&mut values).copy_from_slice(bytes);
    values
}

/// `stream`, read from `path`, under the options that apply to a binary
/// stream (see [`map_edge_stream`]).
fn with_options(stream: EdgeStream, path: &Path, options: &LoadOptions) -> Result<EdgeStream> {
    if stream.vertex_count() > options.max_vertices {
        return Err(Error::InvalidArgument(format!(
            "{}: the binary edge stream holds {} vertices, more than the limit of {} (raise \
             the maximum vertex count if this is intended)",
            path.display(),
            stream.vertex_count(),
            options.max_vertices
        )));
    }
    // A file holds one kind of value (its flags are checked on open).
    let stream = match (options.third_column, stream.value_kind()) {
        (None, _) | (Some(ThirdColumn::Weight), ValueKind::Weight) => stream,
        (Some(ThirdColumn::Timestamp), ValueKind::Timestamp) => stream,
        (Some(ThirdColumn::Ignore), _) => stream.without_weights().without_timestamps(),
        (Some(asked), held) => {
            return Err(Error::InvalidArgument(format!(
                "{}: the binary edge stream holds {}, not the {} column asked for; read it \
                 without --third-column",
                path.display(),
                match held {
                    ValueKind::None => "no third column",
                    ValueKind::Weight => "weights",
                    ValueKind::Timestamp => "timestamps",
                    ValueKind::WeightAndTimestamp => "weights and timestamps",
                },
                match asked {
                    ThirdColumn::Weight => "weight",
                    _ => "timestamp",
                }
            )));
        }
    };
    let stream = if options.symmetrize || options.drop_self_loops {
        stream.with_line_options(options.symmetrize, options.drop_self_loops)
    } else {
        stream
    };
    Ok(if options.dedupe {
        stream.dedup_pairs()
    } else {
        stream
    })
}

#[cfg(test)]
mod tests;
