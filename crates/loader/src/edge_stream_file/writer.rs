//! Writing binary edge-stream files: whole, or chunk by chunk in bounded
//! memory.

use super::layout::{
    CHECKSUM_RANGE, FLAG_IDS, FLAG_TIMESTAMPS, FLAG_WEIGHTS, HEADER_BYTES, ID_BYTES, SECTIONS,
    header, place, value_bytes,
};
use crate::atomic::AtomicFile;
use crate::csr_file::crc_of;
use crate::stream::{EdgeStream, ValueKind};
use dyngraph_core::{Error, IdMap, Result, VertexId};
use rayon::prelude::*;
use std::io::{Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Edges written per step by [`write_edge_stream_file`].
const EDGES_PER_WRITE: usize = 1 << 22;

/// Writes `stream` as a binary edge-stream file (layout in the
/// [module docs](super)), atomically: to a temporary file in the same
/// directory, synced, then renamed over `path`. Its original ids
/// ([`EdgeStream::ids`]) are kept.
///
/// Cost: one sequential write of `80 + 8 E` bytes (plus `4 E` with
/// weights or `8 E` with timestamps, and the ids) and a parallel CRC-32
/// pass over the same bytes; no copy of the stream.
///
/// # Errors
/// [`Error::Io`] when the file cannot be written (a full disk included);
/// `path` then holds what it held before. [`Error::InvalidArgument`] for a
/// stream with both weights and timestamps, which the file's one values
/// section cannot hold (nothing is written: drop one first).
///
/// ```
/// use dyngraph_loader::{EdgeStream, write_edge_stream_file};
/// let both = EdgeStream::from_pairs([(0, 1)]).with_weights(vec![0.5])?.with_timestamps(vec![7])?;
/// let path = std::env::temp_dir().join(format!("dyngraph-doc-both-{}.dges", std::process::id()));
/// let refused = write_edge_stream_file(&path, &both).unwrap_err();
/// assert!(refused.to_string().contains("weights and timestamps"), "{refused}");
/// assert!(!path.exists());
/// write_edge_stream_file(&path, &both.without_timestamps())?;
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn write_edge_stream_file(path: impl AsRef<Path>, stream: &EdgeStream) -> Result<()> {
    let mut writer = EdgeStreamWriter::create(
        path,
        stream.vertex_count(),
        stream.len(),
        stream.value_kind(),
        stream.ids(),
    )?;
    for start in (0..stream.len()).step_by(EDGES_PER_WRITE) {
        writer.append(stream, start..(start + EDGES_PER_WRITE).min(stream.len()))?;
    }
    writer.finish()
}

/// A binary edge-stream file written a chunk at a time, for streams that
/// do not fit in memory (`dyngraph gen` at a billion edges): the counts
/// are declared up front, each column's chunk is written at its place in
/// the file, and the checksum is combined from the chunks' as they pass.
/// Memory: the chunk being appended.
///
/// Nothing appears under the final name until [`EdgeStreamWriter::finish`]
/// succeeds; dropping the writer before (or a failed write) removes the
/// temporary file.
///
/// ```
/// use dyngraph_loader::{EdgeStream, EdgeStreamWriter, LoadOptions, ValueKind, load_edge_stream};
/// use dyngraph_core::Edge;
///
/// let path = std::env::temp_dir().join(format!("dyngraph-doc-writer-{}.dges", std::process::id()));
/// let mut writer = EdgeStreamWriter::create(&path, 4, 3, ValueKind::None, None)?;
/// let first = EdgeStream::from_edges(&[Edge::new(0, 1), Edge::new(1, 2)]);
/// writer.append(&first, 0..2)?;
/// let second = EdgeStream::from_edges(&[Edge::new(3, 0)]);
/// writer.append(&second, 0..1)?;
/// writer.finish()?;
/// let back = load_edge_stream(&path, &LoadOptions::default())?;
/// assert_eq!(back.src(), [0, 1, 3]);
/// assert_eq!(back.vertex_count(), 4);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Debug)]
pub struct EdgeStreamWriter {
    file: AtomicFile,
    path: PathBuf,
    flags: u32,
    kind: ValueKind,
    vertex_count: u64,
    edge_count: u64,
    written: u64,
    lengths: [u64; SECTIONS],
    sections: [Range<u64>; SECTIONS],
    ids: Option<Vec<u8>>,
    /// The running CRCs of the sources, destinations and values written so
    /// far.
    crcs: [flate2::Crc; 3],
}

impl EdgeStreamWriter {
    /// Starts a file at `path` (a temporary file until
    /// [`EdgeStreamWriter::finish`]) for `edge_count` edges over
    /// `vertex_count` vertices, each with a value of `kind`, and the
    /// original ids `ids` when the vertices were relabelled.
    ///
    /// # Errors
    /// [`Error::Io`] when the temporary file cannot be created;
    /// [`Error::InvalidArgument`] for more vertices than 32-bit ids number,
    /// ids that do not name `vertex_count` vertices, or
    /// [`ValueKind::WeightAndTimestamp`] (a file holds one kind of value).
    pub fn create(
        path: impl AsRef<Path>,
        vertex_count: usize,
        edge_count: usize,
        kind: ValueKind,
        ids: Option<&IdMap>,
    ) -> Result<EdgeStreamWriter> {
        let path = path.as_ref();
        if vertex_count as u64 > u64::from(VertexId::MAX) + 1 {
            return Err(Error::InvalidArgument(format!(
                "{}: {vertex_count} vertices, more than 32-bit vertex ids can number",
                path.display()
            )));
        }
        if let Some(ids) = ids
            && ids.len() != vertex_count
        {
            return Err(Error::InvalidArgument(format!(
                "{}: the original ids name {} vertices, not {vertex_count}",
                path.display(),
                ids.len()
            )));
        }
        let mut flags = match kind {
            ValueKind::None => 0,
            ValueKind::Weight => FLAG_WEIGHTS,
            ValueKind::Timestamp => FLAG_TIMESTAMPS,
            ValueKind::WeightAndTimestamp => {
                return Err(Error::InvalidArgument(format!(
                    "{}: a binary edge-stream file holds one value column, and this stream \
                     has weights and timestamps; drop one first \
                     (EdgeStream::without_weights or EdgeStream::without_timestamps)",
                    path.display()
                )));
            }
        };
        let ids = ids.map(IdMap::to_bytes);
        if ids.is_some() {
            flags |= FLAG_IDS;
        }
        let edges = edge_count as u64;
        let too_big = || {
            Error::InvalidArgument(format!(
                "{}: {edge_count} edges are too many for one file",
                path.display()
            ))
        };
        let lengths = [
            edges.checked_mul(u64::from(ID_BYTES)).ok_or_else(too_big)?,
            edges.checked_mul(u64::from(ID_BYTES)).ok_or_else(too_big)?,
            edges.checked_mul(value_bytes(flags)).ok_or_else(too_big)?,
            ids.as_ref().map_or(0, |ids| ids.len() as u64),
        ];
        let (sections, _) = place(&lengths).ok_or_else(too_big)?;
        let mut file = AtomicFile::create(path)?;
        // The header's place, filled in by `finish`.
        file.write_all(&[0u8; HEADER_BYTES])
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(EdgeStreamWriter {
            file,
            path: path.to_path_buf(),
            flags,
            kind,
            vertex_count: vertex_count as u64,
            edge_count: edges,
            written: 0,
            lengths,
            sections,
            ids,
            crcs: [flate2::Crc::new(), flate2::Crc::new(), flate2::Crc::new()],
        })
    }

    /// Edges appended so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Appends the edges `range` of `chunk` after those already appended.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the chunk's values are not of the
    /// declared kind, an id is not below the declared vertex count, or the
    /// edges would pass the declared count; [`Error::Io`] when the write
    /// fails (the temporary file is removed when the writer is dropped).
    pub fn append(&mut self, chunk: &EdgeStream, range: Range<usize>) -> Result<()> {
        let invalid =
            |reason: String| Error::InvalidArgument(format!("{}: {reason}", self.path.display()));
        if chunk.value_kind() != self.kind {
            return Err(invalid(format!(
                "a chunk with {:?} values, but the file was started for {:?} values",
                chunk.value_kind(),
                self.kind
            )));
        }
        let (src, dst) = (&chunk.src()[range.clone()], &chunk.dst()[range.clone()]);
        if self.written + src.len() as u64 > self.edge_count {
            return Err(invalid(format!(
                "{} edges appended after {}, past the declared {}",
                src.len(),
                self.written,
                self.edge_count
            )));
        }
        let limit = self.vertex_count;
        if let Some(&id) = src
            .par_iter()
            .chain(dst.par_iter())
            .find_any(|&&id| u64::from(id) >= limit)
        {
            return Err(invalid(format!(
                "vertex id {id} is not below the declared {limit} vertices"
            )));
        }
        // The kind was checked against the file's: one value column at most.
        let values: &[u8] = match (chunk.weights(), chunk.timestamps()) {
            (Some(w), _) => bytemuck::cast_slice(&w[range.clone()]),
            (None, Some(t)) => bytemuck::cast_slice(&t[range.clone()]),
            (None, None) => &[],
        };
        let columns: [&[u8]; 3] = [bytemuck::cast_slice(src), bytemuck::cast_slice(dst), values];
        let width = [
            u64::from(ID_BYTES),
            u64::from(ID_BYTES),
            value_bytes(self.flags),
        ];
        for (i, bytes) in columns.into_iter().enumerate() {
            if bytes.is_empty() {
                continue;
            }
            let at = self.sections[i].start + self.written * width[i];
            self.write_at(at, bytes)?;
            self.crcs[i].combine(&crc_of(&[bytes]));
        }
        self.written += src.len() as u64;
        Ok(())
    }

    fn write_at(&mut self, at: u64, bytes: &[u8]) -> Result<()> {
        let io = |source| Error::Io {
            path: self.path.clone(),
            source,
        };
        self.file.seek(SeekFrom::Start(at)).map_err(io)?;
        self.file.write_all(bytes).map_err(io)
    }

    /// Writes the padding, the ids and the header (with the checksum), and
    /// renames the file to its final name.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when fewer edges were appended than
    /// declared (nothing is left under the final name); [`Error::Io`] when
    /// a write, the sync or the rename fails.
    pub fn finish(mut self) -> Result<()> {
        if self.written != self.edge_count {
            return Err(Error::InvalidArgument(format!(
                "{}: {} edges appended, but {} were declared; nothing was written",
                self.path.display(),
                self.written,
                self.edge_count
            )));
        }
        let zeros = [0u8; 8];
        let padding = |end: u64| &zeros[..(end.next_multiple_of(8) - end) as usize];
        let ids = self.ids.take().unwrap_or_default();
        let mut total = crc_of(&[&header(
            self.flags,
            self.vertex_count,
            self.edge_count,
            &self.lengths,
        )]);
        for i in 0..SECTIONS {
            let section = self.sections[i].clone();
            if i == 3 {
                self.write_at(section.start, &ids)?;
                total.combine(&crc_of(&[&ids]));
            } else {
                total.combine(&self.crcs[i]);
            }
            let pad = padding(section.end);
            self.write_at(section.end, pad)?;
            total.combine(&crc_of(&[pad]));
        }
        let mut header = header(
            self.flags,
            self.vertex_count,
            self.edge_count,
            &self.lengths,
        );
        header[CHECKSUM_RANGE].copy_from_slice(&u64::from(total.sum()).to_ne_bytes());
        self.write_at(0, &header)?;
        self.file.commit()
    }
}
