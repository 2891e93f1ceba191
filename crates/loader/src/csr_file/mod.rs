//! Binary `Csr` files (`.dgcsr`): write a [`Csr`] to one file, open it
//! again by memory map without copying, or read it wherever a graph file is
//! read.
//!
//! [`load_csr`](crate::load_csr), [`load_edge_stream`](crate::load_edge_stream)
//! and their in-memory twins recognise a binary `Csr` file by its magic
//! bytes ([`CSR_FILE_MAGIC`]), whatever its name, and read it instead of
//! parsing text; [`CsrFile::open`] maps it and [`CsrFile::view`] borrows the
//! graph from the map. ("Snapshot" in dyngraph means a store's consistent
//! read view, not this file.)
//!
//! # Layout (version 2)
//!
//! All integers are in the writing machine's byte order, recorded by the
//! endianness marker; a file is refused on a machine of the other order.
//! Every section starts at a multiple of 8 bytes (zero padding), so once
//! mapped at a page boundary each is a properly aligned slice.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `b"DYNGCSR\0"` |
//! | 8 | 4 | version (`u32`, 2) |
//! | 12 | 4 | endianness marker `0x0102_0304` (`u32`) |
//! | 16 | 4 | flags: bit 0 weights, bit 1 in-edges, bit 2 simple semantics, bit 3 original ids |
//! | 20 | 4 | reserved, 0 |
//! | 24 | 8 | vertex count `V` (`u64`) |
//! | 32 | 8 | edge count `E` (`u64`) |
//! | 40 | 8 | checksum: CRC-32 (in the low 32 bits) of the whole file with this field zeroed |
//! | 48 | 48 | section byte lengths (`u64` each): offsets, targets, weights, in-offsets, in-sources, ids |
//! | 96 | … | the sections in that order: offsets `(V+1) × u64`, targets `E × u32`, weights `E × f32` (or empty), in-offsets `(V+1) × u64` and in-sources `E × u32` (or empty), the original ids (or empty), each padded to 8 bytes |
//!
//! The ids section holds the graph's [`IdMap`](dyngraph_core::IdMap) when
//! its file's ids were relabelled ([`Csr::ids`]), as
//! [`IdMap::to_bytes`](dyngraph_core::IdMap::to_bytes) writes it (one
//! record, little-endian), so a graph read from strings or sparse ids and
//! saved keeps its names. Version 1 (88-byte header, the first five
//! sections, no ids) is still read; this build writes version 2.
//!
//! Opening checks the magic, version, byte order, that the section lengths
//! match `V` and `E` and add up to the file size, the checksum (unless told
//! not to), that the ids decode and name `V` vertices, and, when a view is
//! taken, the CSR invariants ([`CsrView::new`]), so a truncated, corrupted
//! or foreign file is an [`Error::InvalidCsrFile`] (saying which check
//! failed) or [`Error::InvalidStructure`], never undefined behaviour.
//!
//! Writing goes through [`AtomicFile`]: the bytes go to a temporary file in
//! the destination's directory, which is flushed, synced and renamed over
//! the destination, so a crash or a full disk never leaves a half-written
//! file under the final name, and a process that has the previous file
//! mapped keeps reading the previous file.

use crate::ThirdColumn;
use crate::atomic::AtomicFile;
use crate::options::LoadOptions;
use crate::stream::EdgeStream;
use dyngraph_core::{Csr, CsrView, EdgeColumns, Error, Graph, Result, Semantics, VertexId};
use layout::{FLAG_IDS, FLAG_IN_EDGES, FLAG_WEIGHTS, Layout, SECTIONS, check, view_of};
use rayon::prelude::*;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The first eight bytes of every binary `Csr` file.
pub const CSR_FILE_MAGIC: [u8; 8] = *b"DYNGCSR\0";
/// The layout version this crate writes; it reads this one and every
/// earlier one.
pub const CSR_FILE_VERSION: u32 = 2;
/// Bytes checksummed per parallel task.
const CHECKSUM_CHUNK: usize = 4 << 20;

/// Writes `csr` as a binary `Csr` file (layout in the [module docs](self)),
/// atomically: to a temporary file in the same directory, flushed and
/// synced, then renamed over `path` (see [`AtomicFile`]).
///
/// Cost: one sequential write of `88 + 8 (V + 1) + 4 E` bytes (plus 4 E
/// with weights, `8 (V + 1) + 4 E` more with in-edges) and a parallel
/// CRC-32 pass over the same bytes.
///
/// # Errors
/// [`Error::Io`] when the file cannot be written; `path` then holds what it
/// held before.
pub fn write_csr_file(path: impl AsRef<Path>, csr: &Csr) -> Result<()> {
    write_csr_file_view(path, csr.view())
}

/// [`write_csr_file`] for a borrowed graph (for example the view of a
/// mapped [`CsrFile`]).
///
/// # Errors
/// As [`write_csr_file`].
pub fn write_csr_file_view(path: impl AsRef<Path>, graph: CsrView<'_>) -> Result<()> {
    let path = path.as_ref();
    let mut file = AtomicFile::create(path)?;
    write_csr_file_to(&mut file, graph).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    file.commit()
}

/// Writes `graph` in the binary `Csr` layout to any writer (a buffer in
/// memory, a socket, ...). [`write_csr_file`] is this into an
/// [`AtomicFile`].
///
/// # Errors
/// The writer's errors.
pub fn write_csr_file_to(mut writer: impl Write, graph: CsrView<'_>) -> std::io::Result<()> {
    let ids = graph.ids().map(dyngraph_core::IdMap::to_bytes);
    let sections: [&[u8]; SECTIONS] = [
        bytemuck::cast_slice(graph.offsets()),
        bytemuck::cast_slice(graph.targets()),
        graph.weights().map_or(&[][..], bytemuck::cast_slice),
        graph.in_offsets().map_or(&[][..], bytemuck::cast_slice),
        graph.in_sources().map_or(&[][..], bytemuck::cast_slice),
        ids.as_deref().unwrap_or_default(),
    ];
    let mut header = layout::header(&graph, &sections.map(<[u8]>::len));

    // The checksum covers the header (checksum zeroed), sections and
    // padding, in file order.
    let padding = |len: usize| &[0u8; 8][..len.next_multiple_of(8) - len];
    let mut body: Vec<&[u8]> = Vec::with_capacity(2 * SECTIONS);
    for section in sections {
        body.push(section);
        body.push(padding(section.len()));
    }
    let mut pieces: Vec<&[u8]> = vec![&header];
    pieces.extend(&body);
    let checksum = u64::from(crc32(&pieces));
    header[layout::CHECKSUM_RANGE].copy_from_slice(&checksum.to_ne_bytes());
    writer.write_all(&header)?;
    for piece in body {
        writer.write_all(piece)?;
    }
    writer.flush()
}

/// CRC-32 of the concatenation of `pieces`, computed in parallel chunks and
/// combined.
fn crc32(pieces: &[&[u8]]) -> u32 {
    crc_of(pieces).sum()
}

/// The running CRC-32 of the concatenation of `pieces` (to combine with
/// others), computed in parallel chunks.
pub(crate) fn crc_of(pieces: &[&[u8]]) -> flate2::Crc {
    let chunks: Vec<&[u8]> = pieces
        .iter()
        .flat_map(|piece| piece.chunks(CHECKSUM_CHUNK))
        .collect();
    let partial: Vec<flate2::Crc> = chunks
        .par_iter()
        .map(|chunk| {
            let mut crc = flate2::Crc::new();
            crc.update(chunk);
            crc
        })
        .collect();
    let mut total = flate2::Crc::new();
    for crc in &partial {
        total.combine(crc);
    }
    total
}

/// How to open a binary `Csr` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CsrFileOptions {
    /// Recompute and compare the checksum (one parallel pass over the
    /// file). Default `true`; turn off only for files you just wrote
    /// yourself. The structural checks run either way.
    pub verify_checksum: bool,
}

impl Default for CsrFileOptions {
    fn default() -> Self {
        Self {
            verify_checksum: true,
        }
    }
}

/// A memory-mapped binary `Csr` file. [`CsrFile::view`] borrows a [`CsrView`]
/// straight from the map: no copy, pages are read on first touch.
///
/// # Cost model
/// Open: header checks plus, by default, one parallel CRC pass over the
/// file, and a copy of the original ids, when the file has them, into an
/// [`IdMap`](dyngraph_core::IdMap) (8 bytes per vertex, or the names'
/// bytes plus 8). [`CsrFile::view`]: the CSR invariant checks of [`CsrView::new`]
/// (a parallel pass over offsets and targets) on every call, so take the
/// view once and keep it. Memory: the page cache only.
#[derive(Debug)]
pub struct CsrFile {
    map: memmap2::Mmap,
    layout: Layout,
    path: PathBuf,
}

impl CsrFile {
    /// Maps `path` and checks it, verifying the checksum.
    ///
    /// # Safety
    /// The file must not be modified or truncated, by this process or any
    /// other, while the returned `CsrFile` or any view borrowed from it is
    /// alive. The map shows such changes as they happen: they would
    /// invalidate the checks made here and in [`CsrFile::view`] (a
    /// truncation can also kill the process with `SIGBUS`), and writes to
    /// memory behind a shared reference are undefined behaviour.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be opened or mapped;
    /// [`Error::InvalidCsrFile`] for a foreign, truncated, corrupted or
    /// other-version file, saying which; [`Error::Io`] with
    /// [`std::io::ErrorKind::IsADirectory`] for a directory.
    pub unsafe fn open(path: impl AsRef<Path>) -> Result<CsrFile> {
        // SAFETY: the caller upholds `open_with`'s contract, which is ours.
        unsafe { Self::open_with(path, CsrFileOptions::default()) }
    }

    /// [`CsrFile::open`] with options.
    ///
    /// # Safety
    /// As [`CsrFile::open`].
    ///
    /// # Errors
    /// As [`CsrFile::open`].
    pub unsafe fn open_with(path: impl AsRef<Path>, options: CsrFileOptions) -> Result<CsrFile> {
        let path = path.as_ref();
        let file = crate::load::open_file(path)?;
        // SAFETY: our caller promises the file is not modified or truncated
        // while the map (owned by the returned `CsrFile`) is alive.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let layout = check(&map, path, options)?;
        Ok(CsrFile {
            map,
            layout,
            path: path.to_path_buf(),
        })
    }

    /// The graph as a [`CsrView`] borrowed from the map.
    ///
    /// # Errors
    /// [`Error::InvalidStructure`] when the arrays break a CSR invariant
    /// (possible only for a file written by something else with a valid
    /// checksum, or when the checksum was not verified).
    pub fn view(&self) -> Result<CsrView<'_>> {
        view_of(&self.map, &self.layout)
    }

    /// Copies the graph into an owned [`Csr`].
    ///
    /// # Errors
    /// As [`CsrFile::view`].
    pub fn to_csr(&self) -> Result<Csr> {
        Ok(self.view()?.to_csr())
    }

    /// Vertices, from the header.
    pub fn vertex_count(&self) -> usize {
        self.layout.vertex_count
    }

    /// Edges, from the header.
    pub fn edge_count(&self) -> usize {
        self.layout.edge_count
    }

    /// Whether the file holds weights, from the header.
    pub fn has_weights(&self) -> bool {
        self.layout.flags & FLAG_WEIGHTS != 0
    }

    /// Whether the file holds the in-edges, from the header.
    pub fn has_in_edges(&self) -> bool {
        self.layout.flags & FLAG_IN_EDGES != 0
    }

    /// Whether the file holds the original ids of its vertices, from the
    /// header (then [`CsrFile::view`] has them: [`CsrView::ids`]).
    pub fn has_ids(&self) -> bool {
        self.layout.flags & FLAG_IDS != 0
    }

    /// The original ids of the vertices, decoded from the file when it
    /// was opened, or `None` when its ids are the vertex ids.
    pub fn ids(&self) -> Option<&dyngraph_core::IdMap> {
        self.layout.ids.as_ref()
    }

    /// The mapped file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Reads a binary `Csr` file into an owned [`Csr`] with ordinary reads (no map, so
/// no safety condition): the checksum is always verified.
///
/// # Errors
/// As [`CsrFile::open`] and [`CsrFile::view`].
pub fn read_csr_file(path: impl AsRef<Path>) -> Result<Csr> {
    let path = path.as_ref();
    let mut file = crate::load::open_file(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    with_aligned(&bytes, |aligned| {
        let layout = check(aligned, path, CsrFileOptions::default())?;
        Ok(view_of(aligned, &layout)?.to_csr())
    })
}

/// `true` when `bytes` start with [`CSR_FILE_MAGIC`]: a binary `Csr` file
/// (perhaps a broken one), not text.
pub(crate) fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(&CSR_FILE_MAGIC)
}

/// Whether the file at `path` is a binary `Csr` file, judged by its first
/// eight bytes ([`CSR_FILE_MAGIC`]) whatever its name. A file that starts
/// with the magic but is broken still answers `true`: opening it then says
/// what is wrong. A pipe (`/dev/stdin`, a process substitution) answers
/// `false` without being read, since what is read from a pipe is gone: the
/// loader's readers read it once, whole, and recognise a binary file in it
/// by the same magic.
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or read (a directory
/// included).
pub fn is_csr_file(path: impl AsRef<Path>) -> Result<bool> {
    starts_with_magic(path.as_ref(), &CSR_FILE_MAGIC)
}

/// Whether the regular file at `path` starts with `magic` (a pipe answers
/// `false` unread).
pub(crate) fn starts_with_magic(path: &Path, magic: &[u8]) -> Result<bool> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(io)?;
    if !metadata.is_file() && !metadata.is_dir() {
        return Ok(false);
    }
    let file = crate::load::open_file(path)?;
    let mut head = Vec::with_capacity(magic.len());
    file.take(magic.len() as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    Ok(head == magic)
}

/// Runs `work` on `bytes` at an 8-byte aligned address (copied there when
/// they are not), so the sections cast in place.
fn with_aligned<R>(bytes: &[u8], work: impl FnOnce(&[u8]) -> R) -> R {
    if bytes.as_ptr().align_offset(8) == 0 {
        return work(bytes);
    }
    let len = bytes.len();
    let mut words = vec![0u64; len.div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..len].copy_from_slice(bytes);
    work(&bytemuck::cast_slice::<u64, u8>(&words)[..len])
}

/// The checked view of a binary `Csr` file's bytes, read under `options`:
/// the vertex limit, and what the third-column option asks of weights.
fn with_checked_view<R>(
    bytes: &[u8],
    path: Option<&Path>,
    options: &LoadOptions,
    work: impl FnOnce(CsrView<'_>) -> Result<R>,
) -> Result<R> {
    with_aligned(bytes, |bytes| {
        let shown = path.map_or_else(|| PathBuf::from("<input>"), Path::to_path_buf);
        let layout = check(bytes, &shown, CsrFileOptions::default())?;
        work(checked_view(bytes, &layout, &shown, options)?)
    })
}

/// The view of a checked file's bytes, refused when `options` ask for what
/// it does not hold or for fewer vertices than it has.
fn checked_view<'a>(
    bytes: &'a [u8],
    layout: &'a Layout,
    shown: &Path,
    options: &LoadOptions,
) -> Result<CsrView<'a>> {
    if layout.vertex_count > options.max_vertices {
        return Err(Error::InvalidCsrFile {
            path: shown.to_path_buf(),
            reason: format!(
                "it holds {} vertices, more than the limit of {} (raise the maximum vertex \
                 count if this is intended)",
                layout.vertex_count, options.max_vertices
            ),
        });
    }
    let view = view_of(bytes, layout).map_err(|error| match error {
        Error::InvalidStructure(reason) => Error::InvalidCsrFile {
            path: shown.to_path_buf(),
            reason: format!("{reason} (the file is corrupted; write it again)"),
        },
        other => other,
    })?;
    match options.third_column {
        Some(ThirdColumn::Timestamp) => Err(Error::InvalidArgument(format!(
            "{}: a binary Csr file holds no timestamps; read it without asking for a \
             timestamp column",
            shown.display()
        ))),
        Some(ThirdColumn::Weight) if view.weights().is_none() => {
            Err(Error::InvalidArgument(format!(
                "{}: this binary Csr file has no weights; read it without asking for a \
                 weight column",
                shown.display()
            )))
        }
        _ => Ok(view),
    }
}

/// Whether the third-column option drops a file's weights.
fn keeps_weights(options: &LoadOptions) -> bool {
    options.third_column != Some(ThirdColumn::Ignore)
}

/// The edges of `view` as columns grouped by source (a binary `Csr` file
/// keeps no arrival order), after the line-level options: each reverse
/// right after its edge with `symmetrize` (a self-loop once), self-loops
/// left out with `drop_self_loops`.
fn columns_of(view: &CsrView<'_>, options: &LoadOptions) -> EdgeColumns {
    let weights = view.weights().filter(|_| keeps_weights(options));
    let edges = view.targets().len();
    let plain = !options.symmetrize && !options.drop_self_loops;
    let capacity = if options.symmetrize { 2 * edges } else { edges };
    let mut src = Vec::with_capacity(capacity);
    let mut dst = Vec::with_capacity(capacity);
    let mut out_weights = weights.map(|_| Vec::with_capacity(capacity));
    if plain {
        for (v, range) in view.offsets().windows(2).enumerate() {
            src.resize(src.len() + (range[1] - range[0]) as usize, v as VertexId);
        }
        dst.extend_from_slice(view.targets());
        if let (Some(out), Some(weights)) = (&mut out_weights, weights) {
            out.extend_from_slice(weights);
        }
    } else {
        for (v, range) in view.offsets().windows(2).enumerate() {
            let v = v as VertexId;
            for i in range[0] as usize..range[1] as usize {
                let d = view.targets()[i];
                if options.drop_self_loops && v == d {
                    continue;
                }
                let copies: &[(VertexId, VertexId)] = if options.symmetrize && v != d {
                    &[(v, d), (d, v)]
                } else {
                    &[(v, d)]
                };
                for &(s, t) in copies {
                    src.push(s);
                    dst.push(t);
                    if let (Some(out), Some(weights)) = (&mut out_weights, weights) {
                        out.push(weights[i]);
                    }
                }
            }
        }
    }
    EdgeColumns {
        src,
        dst,
        weights: out_weights,
    }
}

/// A binary `Csr` file's bytes (8-byte aligned or not) as a [`Csr`] under
/// `options`, as [`crate::load_csr`] gives it.
pub(crate) fn csr_from_bytes(
    bytes: &[u8],
    path: Option<&Path>,
    options: &LoadOptions,
) -> Result<Csr> {
    with_checked_view(bytes, path, options, |view| csr_from_view(&view, options))
}

/// [`csr_from_bytes`] on a checked view, its original ids kept.
pub(crate) fn csr_from_view(view: &CsrView<'_>, options: &LoadOptions) -> Result<Csr> {
    let csr = csr_of_view(view, options)?;
    match view.ids() {
        Some(ids) => csr.with_ids(ids.clone()),
        None => Ok(csr),
    }
}

/// The arrays of [`csr_from_view`], without the ids.
fn csr_of_view(view: &CsrView<'_>, options: &LoadOptions) -> Result<Csr> {
    let rebuild = options.symmetrize
        || options.drop_self_loops
        || options.sort
        || (options.dedupe && view.semantics() != Semantics::Simple);
    if !rebuild {
        // The arrays as they stand, copied: the in-edges from the file when
        // asked for (built when the file has none), left out when not.
        let weights = view.weights().filter(|_| keeps_weights(options));
        let in_edges = view
            .in_offsets()
            .zip(view.in_sources())
            .filter(|_| options.in_edges);
        let copied = CsrView::new(
            view.offsets(),
            view.targets(),
            weights,
            in_edges,
            view.semantics(),
        )?
        .to_csr();
        return Ok(if options.in_edges {
            copied.with_transpose()
        } else {
            copied
        });
    }
    let columns = columns_of(view, options);
    let edges = columns.src.len();
    let csr_options = options.csr_options(view.vertex_count());
    // One run of slots: all the edges.
    let all = 0..edges;
    Csr::from_columns(columns, std::slice::from_ref(&all), csr_options)
}

/// A binary `Csr` file's bytes as an [`EdgeStream`] under `options`, as
/// [`crate::load_edge_stream`] gives it: the edges grouped by source, in
/// the file's order within each source, and every vertex of the file
/// counted (isolated ones included).
pub(crate) fn stream_from_bytes(
    bytes: &[u8],
    path: Option<&Path>,
    options: &LoadOptions,
) -> Result<EdgeStream> {
    with_checked_view(bytes, path, options, |view| {
        let columns = columns_of(&view, options);
        let mut stream = EdgeStream::from_parts(
            columns.src.into(),
            columns.dst.into(),
            columns.weights.map(Into::into),
            None,
            view.vertex_count(),
        );
        if let Some(ids) = view.ids() {
            stream.set_ids(ids.clone());
        }
        Ok(if options.dedupe {
            stream.dedup_pairs()
        } else {
            stream
        })
    })
}

mod layout;

#[cfg(test)]
mod tests;
