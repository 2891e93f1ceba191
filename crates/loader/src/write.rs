//! Writing an [`EdgeStream`] as text, in order.

use crate::atomic::AtomicFile;
use crate::fields::Delimiter;
use crate::format::Format;
use crate::stream::{EdgeStream, ValueKind};
use dyngraph_core::{Error, IdMap, OriginalId, Result, VertexId};
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;

/// Edges formatted per parallel task.
const EDGES_PER_TASK: usize = 1 << 16;
/// Tasks formatted before their text is written out (bounds the memory
/// held at once to a few tens of megabytes).
const TASKS_PER_ROUND: usize = 64;

/// Writes `stream` to `path` in `format`, in stream order; gzip-compressed
/// when the path ends in `.gz`.
///
/// What each format holds:
/// - [`Format::MatrixMarket`]: `coordinate general`, 1-based; `pattern`
///   without weights, `real` with them; the size line is
///   `n n edges` with `n` the stream's vertex count.
/// - [`Format::EdgeList`]: `src dst`; values are left out.
/// - [`Format::WeightedEdgeList`]: `src dst weight` (weight 1 when the
///   stream has none).
/// - [`Format::Snap`]: `src dst` plus the timestamp or weight, if any.
/// - [`Format::Csv`]: the same, comma-separated (tab-separated when the
///   path ends in `.tsv` or `.tsv.gz`).
///
/// A line holds one value, so a stream with both weights and timestamps
/// is refused by every format but [`Format::EdgeList`] (which holds none),
/// rather than written with a column dropped: drop one first
/// ([`EdgeStream::without_weights`], [`EdgeStream::without_timestamps`]).
///
/// A stream with original ids ([`EdgeStream::ids`]: its file's ids were
/// relabelled) is written with them, so a file read and written back says
/// what it said: the edge lists write each original id (a CSV file quotes
/// one that holds its delimiter); Matrix Market, which numbers vertices
/// `1..=n`, refuses such a stream, and so does a blank-separated format
/// for a name it cannot hold (a blank, a comment sign first, an empty
/// name).
///
/// Weights are written in the shortest form that reads back to the same
/// `f32`, so a round trip is exact. The file is written atomically
/// ([`AtomicFile`]): `path` holds the previous file until the new one is
/// complete and synced.
///
/// ```
/// use dyngraph_loader::{EdgeStream, Format, LoadOptions, load_edge_stream, write_edges};
/// use dyngraph_core::WeightedEdge;
///
/// let stream = EdgeStream::from_weighted_edges(&[WeightedEdge::new(0, 1, 0.5), WeightedEdge::new(1, 0, 2.0)]);
/// let path = std::env::temp_dir().join(format!("dyngraph-doc-{}.wel.gz", std::process::id()));
/// write_edges(&path, &stream, Format::WeightedEdgeList)?;
/// assert_eq!(load_edge_stream(&path, &LoadOptions::default())?, stream);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::Io`] on a write failure (`path` then holds what it held
/// before); [`Error::InvalidArgument`] for
/// timestamps in a format that cannot hold them (Matrix Market and `.wel`
/// store `f32` values only), weights and timestamps both in a format
/// other than `.el`, and for original ids a format cannot hold (saying
/// which and what to write instead).
pub fn write_edges(path: impl AsRef<Path>, stream: &EdgeStream, format: Format) -> Result<()> {
    let path = path.as_ref();
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let delimiter = delimiter_for(path, format);
    check_representable(stream, format, delimiter)?;
    let mut file = AtomicFile::create(path)?;
    let gzip = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    if gzip {
        let mut encoder = flate2::write::GzEncoder::new(&mut file, flate2::Compression::fast());
        write_text(&mut encoder, stream, format, delimiter).map_err(io)?;
        encoder.finish().map_err(io)?;
    } else {
        write_text(&mut file, stream, format, delimiter).map_err(io)?;
    }
    file.commit()
}

/// The field separator `format` is written with at `path`.
fn delimiter_for(path: &Path, format: Format) -> Delimiter {
    if format != Format::Csv {
        return Delimiter::Blanks;
    }
    let name = path.to_string_lossy().to_ascii_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    if name.ends_with(".tsv") {
        Delimiter::Tab
    } else {
        Delimiter::Comma
    }
}

fn check_representable(stream: &EdgeStream, format: Format, delimiter: Delimiter) -> Result<()> {
    if stream.value_kind() == ValueKind::WeightAndTimestamp && format != Format::EdgeList {
        return Err(Error::InvalidArgument(format!(
            "a {format} line holds one value, and this stream has weights and timestamps; \
             drop one first (EdgeStream::without_weights or EdgeStream::without_timestamps)"
        )));
    }
    if stream.timestamps().is_some()
        && matches!(format, Format::MatrixMarket | Format::WeightedEdgeList)
    {
        return Err(Error::InvalidArgument(format!(
            "{format} cannot hold timestamps; write the stream as a SNAP edge list (.txt) \
             to keep them"
        )));
    }
    let Some(ids) = stream.ids() else {
        return Ok(());
    };
    if format == Format::MatrixMarket {
        return Err(Error::InvalidArgument(format!(
            "Matrix Market numbers vertices 1..=n, so the original ids of this graph \
             ({}) cannot be kept in it; write an edge list (.el, .wel, .txt, .csv) to keep \
             them, or drop them first (EdgeStream::take_ids) to write the vertex ids",
            ids.relabel_note()
        )));
    }
    if let Some(v) = (0..ids.len() as VertexId)
        .into_par_iter()
        .find_first(|&v| !writable(ids.original(v), delimiter))
    {
        let advice = match delimiter {
            Delimiter::Blanks => "write a .csv or .tsv file, which can hold it",
            _ => "the delimited reader takes no quote or line break inside a field",
        };
        return Err(Error::InvalidArgument(format!(
            "the original id {:?} of vertex {v} cannot be written as a field of a {format}: {advice}",
            ids.original(v).to_string()
        )));
    }
    Ok(())
}

/// Whether `id` reads back as itself from a field written with
/// `delimiter` (quoted, for a delimiter, when it holds one).
fn writable(id: OriginalId<'_>, delimiter: Delimiter) -> bool {
    let OriginalId::String(name) = id else {
        return true;
    };
    let breaks = |b: &u8| matches!(b, b'\n' | b'\r');
    match delimiter {
        Delimiter::Blanks => {
            !name.is_empty()
                && !matches!(name[0], b'#' | b'%')
                && !name.iter().any(|b| breaks(b) || matches!(b, b' ' | b'\t'))
        }
        _ => !name.is_empty() && !name.iter().any(|b| breaks(b) || *b == b'"'),
    }
}

/// [`write_edges`] to any writer (no compression; [`Format::Csv`] with
/// commas). Text is formatted in parallel chunks and written in order.
///
/// # Errors
/// The writer's errors; [`std::io::ErrorKind::InvalidInput`] for what
/// [`write_edges`] refuses (timestamps in Matrix Market or `.wel`, weights
/// and timestamps both, original ids a format cannot hold).
pub fn write_edges_to(
    writer: &mut impl Write,
    stream: &EdgeStream,
    format: Format,
) -> std::io::Result<()> {
    write_text(writer, stream, format, delimiter_for(Path::new(""), format))
}

/// [`write_edges_to`] with the fields separated by `delimiter`.
fn write_text(
    writer: &mut impl Write,
    stream: &EdgeStream,
    format: Format,
    delimiter: Delimiter,
) -> std::io::Result<()> {
    check_representable(stream, format, delimiter)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    if format == Format::MatrixMarket {
        let weighted = stream.weights().is_some();
        write_matrix_market_header(writer, weighted, stream.vertex_count(), stream.len())?;
    }
    write_body(writer, stream, format, delimiter)
}

/// The banner and size line of a Matrix Market file of `edges` edges over
/// `n` vertices.
fn write_matrix_market_header(
    writer: &mut impl Write,
    weighted: bool,
    n: usize,
    edges: usize,
) -> std::io::Result<()> {
    let field = if weighted { "real" } else { "pattern" };
    writeln!(writer, "%%MatrixMarket matrix coordinate {field} general")?;
    writeln!(writer, "{n} {n} {edges}")
}

/// The lines of `stream`'s edges, formatted in parallel.
fn write_body(
    writer: &mut impl Write,
    stream: &EdgeStream,
    format: Format,
    delimiter: Delimiter,
) -> std::io::Result<()> {
    let one_based = format == Format::MatrixMarket;
    // Both value columns (outside .el), and timestamps in Matrix Market
    // or .wel, were refused above.
    let third = match (format, stream.weights(), stream.timestamps()) {
        (Format::EdgeList, _, _) => Third::None,
        (_, Some(w), _) => Third::Weights(w),
        (_, None, Some(t)) => Third::Timestamps(t),
        (Format::WeightedEdgeList, None, None) => Third::One,
        (_, None, None) => Third::None,
    };
    let tasks: Vec<std::ops::Range<usize>> = (0..stream.len())
        .step_by(EDGES_PER_TASK)
        .map(|start| start..(start + EDGES_PER_TASK).min(stream.len()))
        .collect();
    for round in tasks.chunks(TASKS_PER_ROUND) {
        let texts: Vec<Vec<u8>> = round
            .par_iter()
            .map(|range| format_edges(stream, range.clone(), one_based, &third, delimiter))
            .collect();
        for text in texts {
            writer.write_all(&text)?;
        }
    }
    Ok(())
}

/// A text file written a chunk of edges at a time, for streams that do
/// not fit in memory (`dyngraph gen` at a billion edges): what
/// [`write_edges`] writes for the concatenation of the chunks, the counts
/// of a Matrix Market size line declared up front. Memory: the chunk
/// being appended and its text.
///
/// Nothing appears under the final name until [`TextEdgeWriter::finish`]
/// succeeds; dropping the writer before removes the temporary file.
///
/// ```
/// use dyngraph_loader::{EdgeStream, Format, LoadOptions, TextEdgeWriter, load_edge_stream};
/// use dyngraph_core::Edge;
///
/// let path = std::env::temp_dir().join(format!("dyngraph-doc-text-{}.el", std::process::id()));
/// let mut writer = TextEdgeWriter::create(&path, Format::EdgeList, 3, 2, false)?;
/// writer.append(&EdgeStream::from_edges(&[Edge::new(0, 1)]))?;
/// writer.append(&EdgeStream::from_edges(&[Edge::new(1, 2)]))?;
/// writer.finish()?;
/// assert_eq!(load_edge_stream(&path, &LoadOptions::default())?.dst(), [1, 2]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub struct TextEdgeWriter {
    sink: TextSink,
    path: std::path::PathBuf,
    format: Format,
    delimiter: Delimiter,
    declared: usize,
    written: usize,
}

enum TextSink {
    Plain(AtomicFile),
    Gzip(flate2::write::GzEncoder<AtomicFile>),
}

impl TextSink {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            TextSink::Plain(file) => file,
            TextSink::Gzip(encoder) => encoder,
        }
    }
}

impl std::fmt::Debug for TextEdgeWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextEdgeWriter")
            .field("path", &self.path)
            .field("format", &self.format)
            .field("written", &self.written)
            .finish()
    }
}

impl TextEdgeWriter {
    /// Starts a text file at `path` (a temporary file until
    /// [`TextEdgeWriter::finish`]) in `format`, gzip-compressed when the
    /// path ends in `.gz`, for `edge_count` edges over `vertex_count`
    /// vertices (the Matrix Market size line), `weighted` or not.
    ///
    /// # Errors
    /// [`Error::Io`] when the temporary file cannot be created or written.
    pub fn create(
        path: impl AsRef<Path>,
        format: Format,
        vertex_count: usize,
        edge_count: usize,
        weighted: bool,
    ) -> Result<TextEdgeWriter> {
        let path = path.as_ref();
        let file = AtomicFile::create(path)?;
        let gzip = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
        let mut sink = if gzip {
            TextSink::Gzip(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::fast(),
            ))
        } else {
            TextSink::Plain(file)
        };
        if format == Format::MatrixMarket {
            write_matrix_market_header(&mut sink.writer(), weighted, vertex_count, edge_count)
                .map_err(|source| Error::Io {
                    path: path.to_path_buf(),
                    source,
                })?;
        }
        Ok(TextEdgeWriter {
            sink,
            path: path.to_path_buf(),
            format,
            delimiter: delimiter_for(path, format),
            declared: edge_count,
            written: 0,
        })
    }

    /// Appends `chunk`'s edges after those already appended.
    ///
    /// # Errors
    /// As [`write_edges`] for what the format cannot hold; [`Error::Io`]
    /// when the write fails.
    pub fn append(&mut self, chunk: &EdgeStream) -> Result<()> {
        check_representable(chunk, self.format, self.delimiter)?;
        write_body(&mut self.sink.writer(), chunk, self.format, self.delimiter).map_err(
            |source| Error::Io {
                path: self.path.clone(),
                source,
            },
        )?;
        self.written += chunk.len();
        Ok(())
    }

    /// Completes the file and renames it to its final name.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a Matrix Market file got a different
    /// number of edges than its size line declares; [`Error::Io`] when a
    /// write, the sync or the rename fails.
    pub fn finish(self) -> Result<()> {
        if self.format == Format::MatrixMarket && self.written != self.declared {
            return Err(Error::InvalidArgument(format!(
                "{}: {} edges appended, but the size line declares {}; nothing was written",
                self.path.display(),
                self.written,
                self.declared
            )));
        }
        let file = match self.sink {
            TextSink::Plain(file) => file,
            TextSink::Gzip(encoder) => encoder.finish().map_err(|source| Error::Io {
                path: self.path.clone(),
                source,
            })?,
        };
        file.commit()
    }
}

enum Third<'a> {
    None,
    One,
    Weights(&'a [f32]),
    Timestamps(&'a [u64]),
}

fn format_edges(
    stream: &EdgeStream,
    range: std::ops::Range<usize>,
    one_based: bool,
    third: &Third<'_>,
    delimiter: Delimiter,
) -> Vec<u8> {
    let offset = u64::from(one_based);
    let separator = delimiter.char().map_or(b' ', |c| c as u8);
    let mut text = Vec::with_capacity(range.len() * 24);
    let vertex = |text: &mut Vec<u8>, v: VertexId| match stream.ids() {
        Some(ids) => push_original(text, ids, v, separator),
        None => push_decimal(text, u64::from(v) + offset),
    };
    for i in range {
        vertex(&mut text, stream.src()[i]);
        text.push(separator);
        vertex(&mut text, stream.dst()[i]);
        match third {
            Third::None => {}
            Third::One => text.extend_from_slice(&[separator, b'1']),
            Third::Weights(w) => {
                // `Display` for f32 prints the shortest decimal that reads
                // back to the same value.
                text.push(separator);
                write!(text, "{}", w[i]).expect("writing to a Vec cannot fail");
            }
            Third::Timestamps(t) => {
                text.push(separator);
                push_decimal(&mut text, t[i]);
            }
        }
        text.push(b'\n');
    }
    text
}

/// Appends vertex `v`'s original id, quoted when it holds the separator
/// (of a delimited file: a blank-separated one was checked to hold none).
fn push_original(text: &mut Vec<u8>, ids: &IdMap, v: VertexId, separator: u8) {
    match ids.original(v) {
        OriginalId::Integer(id) => push_decimal(text, id),
        OriginalId::String(name) => {
            let padded = |b: Option<&u8>| matches!(b, Some(b' ' | b'\t'));
            let quote = name.contains(&separator) || padded(name.first()) || padded(name.last());
            if quote {
                text.push(b'"');
            }
            text.extend_from_slice(name);
            if quote {
                text.push(b'"');
            }
        }
    }
}

/// Appends `value` in decimal.
#[inline]
fn push_decimal(text: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    text.extend_from_slice(&digits[start..]);
}
