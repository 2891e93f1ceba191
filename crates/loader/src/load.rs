//! The top-level readers: file or bytes in, [`EdgeStream`] or [`Csr`] out.

use crate::format::{Format, ThirdColumn, is_gzip};
use crate::ids::{LabelSyntax, distinct_ids, is_sparse, parse_labelled, relabel_columns};
use crate::mtx::{MtxField, parse_header};
use crate::options::LoadOptions;
use crate::parse::{
    BlockSummary, ParsedBlocks, Syntax, Third, end_position, first_error, nth_data_line,
};
use crate::prepare::{IdPlan, Prepared, explain, first_line_fields, prepare};
use crate::stream::EdgeStream;
use dyngraph_core::{Csr, EdgeColumns, Error, IdKind, ParseErrorKind, Result};
use std::path::{Path, PathBuf};

/// Reads a graph file into an [`EdgeStream`] in file order.
///
/// The file is memory-mapped (gzip input is decompressed into memory first)
/// and parsed in parallel blocks; see the crate docs for the accepted
/// syntax. A binary `Csr` file ([`crate::csr_file`]), recognised by its
/// magic bytes whatever its name, is read instead of parsed: its edges
/// grouped by source (it keeps no arrival order), its weights if it has
/// them, every vertex it holds; the line-level options (`symmetrize`,
/// `drop_self_loops`, `dedupe`, `max_vertices`, a third column of `Ignore`)
/// apply to it as to text. The map lives only for the duration of the call, but the file
/// must not be modified or truncated by anyone while the call runs (the
/// usual condition of every memory-mapped reader: a shrinking file can
/// crash the process with `SIGBUS`).
///
/// A binary edge stream ([`crate::edge_stream_file`]), recognised by its
/// magic bytes, is checked and its columns copied (the options apply as
/// to text); [`crate::map_edge_stream`] reads one in place instead.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read or decompressed (a directory
/// says so; a gzip error gives the compressed byte offset where the data
/// broke off); [`Error::Parse`] with file, line and byte column for
/// malformed text and for an id at or past [`LoadOptions::max_vertices`]
/// (kind [`ParseErrorKind::Other`], naming the id and the limit);
/// [`Error::InvalidCsrFile`] for a truncated or corrupted binary `Csr`
/// file, saying which; [`Error::InvalidEdgeStreamFile`] for a truncated
/// or corrupted binary edge stream, with the byte offset.
pub fn load_edge_stream(path: impl AsRef<Path>, options: &LoadOptions) -> Result<EdgeStream> {
    let path = path.as_ref();
    let input = Input::open(path)?;
    with_pool(options, || {
        let bytes = input.text(Some(path))?;
        stream_from_bytes(&bytes, Some(path), options)
    })
}

/// Reads a text graph straight into a [`Csr`]: the parsed edges stay where
/// the parse put them and [`Csr::from_columns`] builds from them in place
/// (a radix scatter through buckets of vertices), reusing the parsed
/// destinations' memory for the in-edges when [`LoadOptions::in_edges`]
/// is set; no globally sorted edge list is assembled. Within each
/// vertex, edges keep file order unless [`LoadOptions::sort`] or
/// [`LoadOptions::dedupe`] is set. Weights are kept; timestamps are not
/// CSR data and are dropped.
///
/// A binary `Csr` file is recognised by its magic bytes and copied from
/// its map (in-edges from the file with [`LoadOptions::in_edges`], built
/// when it has none); with `symmetrize`, `drop_self_loops`, `sort` or
/// `dedupe` (of a multigraph) it is rebuilt from its edges. To use one
/// without any copy, map it with [`crate::CsrFile::open`]. A binary edge
/// stream is built from its mapped columns, without a copy of the stream.
///
/// # Errors
/// As [`load_edge_stream`].
pub fn load_csr(path: impl AsRef<Path>, options: &LoadOptions) -> Result<Csr> {
    let path = path.as_ref();
    let input = Input::open(path)?;
    if let Input::Mapped(map) = input {
        let map = std::sync::Arc::new(map);
        if crate::edge_stream_file::has_magic(&map) {
            // Built straight from the map's columns: no copy of the stream.
            return with_pool(options, || {
                crate::edge_stream_file::csr_from_map(&map, path, options)
            });
        }
        let input = Input::Shared(map);
        return with_pool(options, || {
            let bytes = input.text(Some(path))?;
            csr_from_bytes(&bytes, Some(path), options)
        });
    }
    with_pool(options, || {
        let bytes = input.text(Some(path))?;
        csr_from_bytes(&bytes, Some(path), options)
    })
}

/// [`load_edge_stream`] on bytes in memory (gzip, text or a binary `Csr`
/// file). Error locations carry no path.
///
/// ```
/// use dyngraph_loader::{LoadOptions, parse_edge_stream};
/// let stream = parse_edge_stream(b"# two edges\n0 1 100\n1 2 105\n", &LoadOptions::default())?;
/// assert_eq!(stream.src(), [0, 1]);
/// assert_eq!(stream.timestamps(), Some(&[100, 105][..]));
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn parse_edge_stream(bytes: &[u8], options: &LoadOptions) -> Result<EdgeStream> {
    with_pool(options, || {
        let text = decompressed(bytes, None)?;
        stream_from_bytes(&text, None, options)
    })
}

/// [`load_csr`] on bytes in memory (gzip, text or a binary `Csr` file).
///
/// ```
/// use dyngraph_loader::{LoadOptions, parse_csr};
/// let mtx = b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n";
/// let csr = parse_csr(mtx, &LoadOptions::default())?;
/// assert_eq!(csr.offsets(), [0, 1, 2, 3]);
/// assert_eq!(csr.targets(), [1, 0, 2]);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
pub fn parse_csr(bytes: &[u8], options: &LoadOptions) -> Result<Csr> {
    with_pool(options, || {
        let text = decompressed(bytes, None)?;
        csr_from_bytes(&text, None, options)
    })
}

fn with_pool<T: Send>(options: &LoadOptions, work: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    match options.threads {
        None => work(),
        Some(threads) => rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| Error::InvalidArgument(format!("cannot start {threads} threads: {e}")))?
            .install(work),
    }
}

/// An opened input: a read-only map of a file, or the bytes of a pipe (a
/// pipe, `/dev/stdin` or a process substitution has no size to map, and can
/// be read only once).
enum Input {
    Mapped(memmap2::Mmap),
    Shared(std::sync::Arc<memmap2::Mmap>),
    Read(Vec<u8>),
    Empty,
}

impl Input {
    fn open(path: &Path) -> Result<Input> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = open_file(path)?;
        let metadata = file.metadata().map_err(io)?;
        {
            use std::os::unix::fs::FileTypeExt;
            let kind = metadata.file_type();
            if kind.is_char_device() || kind.is_block_device() {
                return Err(io(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    if kind.is_char_device() && is_terminal(&file) {
                        "is a terminal: give a graph file, or pipe one in (`dyngraph load - < FILE`)"
                    } else {
                        "is a device, not a graph file or a pipe (a device such as /dev/zero \
                         may never end): give a file, or pipe the data in"
                    },
                )));
            }
        }
        if !metadata.is_file() || metadata.len() == 0 {
            // A pipe has no size to map; a file that reports none (under
            // /proc) may still hold text. Read to the end, bounded.
            let bytes = crate::bounded::read_text(file, path)?;
            return Ok(if bytes.is_empty() {
                Input::Empty
            } else {
                Input::Read(bytes)
            });
        }
        // SAFETY: the map is read-only, private to this call and dropped
        // before `load_edge_stream`/`load_csr` return, and no reference into
        // it escapes (every output is copied into owned vectors). Its
        // soundness rests on the file not being modified or truncated while
        // the call runs, the condition those functions' docs state for their
        // callers.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        // Advice is a hint; a kernel that ignores it changes nothing.
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Input::Mapped(map))
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Input::Mapped(map) => map,
            Input::Shared(map) => map,
            Input::Read(bytes) => bytes,
            Input::Empty => &[],
        }
    }

    fn text(&self, path: Option<&Path>) -> Result<std::borrow::Cow<'_, [u8]>> {
        decompressed(self.bytes(), path)
    }
}

/// Whether `file` is a terminal (standard input left at the keyboard).
fn is_terminal(file: &std::fs::File) -> bool {
    std::io::IsTerminal::is_terminal(file)
}

/// Opens `path` for reading, refusing a directory by name (on Linux
/// opening one succeeds and only the map fails, with "No such device").
pub(crate) fn open_file(path: &Path) -> Result<std::fs::File> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    if file.metadata().map_err(io)?.is_dir() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory, not a graph file",
        )));
    }
    Ok(file)
}

/// `bytes` themselves, or their gzip decompression (all members, as SNAP's
/// `.txt.gz` files may hold several). A gzip error names the compressed
/// byte offset where the data broke off; bytes after the last complete
/// member that do not start another are called what they are (trailing
/// garbage, not a truncation); the text is bounded as
/// [`crate::bounded`] bounds a stream (a gzip of zeros stops at the first
/// overlong line, not when memory runs out).
fn decompressed<'a>(bytes: &'a [u8], path: Option<&Path>) -> Result<std::borrow::Cow<'a, [u8]>> {
    if !is_gzip(bytes) {
        return Ok(std::borrow::Cow::Borrowed(bytes));
    }
    let shown = path.map_or_else(|| PathBuf::from("<input>"), Path::to_path_buf);
    let mut text = crate::bounded::TextReader::new(&shown);
    text.bytes.reserve(bytes.len().saturating_mul(4));
    let mut rest = bytes;
    let mut members = 0u64;
    while !rest.is_empty() {
        let start = bytes.len() - rest.len();
        if members > 0 && !is_gzip(rest) {
            return Err(Error::Io {
                path: shown.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "the gzip data is whole up to compressed byte {start} ({members} \
                         member{}, {} bytes of text), then {} bytes follow that are not gzip: \
                         something was appended to the file; cut them off (`head -c {start}`) or \
                         compress the text again",
                        if members == 1 { "" } else { "s" },
                        text.bytes.len(),
                        rest.len()
                    ),
                ),
            });
        }
        // The buffered decoder reads the slice in place, so what is left of
        // it tells how far decompression got.
        let mut decoder = flate2::bufread::GzDecoder::new(rest);
        match text.read_from(&mut decoder) {
            Ok(()) => {}
            Err(crate::bounded::Refused::Text(error)) => return Err(error),
            Err(crate::bounded::Refused::Io(error)) => {
                let offset = bytes.len() - decoder.get_ref().len();
                return Err(Error::Io {
                    path: shown.clone(),
                    source: gzip_error(&error, offset, bytes.len(), text.bytes.len()),
                });
            }
        }
        rest = decoder.into_inner();
        members += 1;
    }
    Ok(std::borrow::Cow::Owned(text.into_bytes()))
}

/// A gzip error that says where the compressed data broke off and what to
/// do.
fn gzip_error(error: &std::io::Error, offset: usize, total: usize, text: usize) -> std::io::Error {
    let message = if error.kind() == std::io::ErrorKind::UnexpectedEof {
        format!(
            "gzip data ends early, at compressed byte {offset} of {total} (after {text} bytes \
             of text): the file is truncated; download or compress it again"
        )
    } else {
        format!(
            "gzip data is corrupt at compressed byte {offset} of {total} (after {text} bytes \
             of text: {error}); download or compress it again"
        )
    };
    std::io::Error::new(error.kind(), message)
}

/// What a parse produced, before it becomes a stream or a CSR.
struct Parsed {
    blocks: ParsedBlocks,
    vertex_count: usize,
    third: Third,
}

/// The third column as [`LoadOptions::third_column`] asks for it.
fn requested_third(options: &LoadOptions) -> Option<Third> {
    options.third_column.map(|third| match third {
        ThirdColumn::Weight => Third::Weight,
        ThirdColumn::Timestamp => Third::Timestamp,
        ThirdColumn::Ignore => Third::Ignore,
    })
}

/// Parses a prepared text with dense ids; with `for_csr`, timestamps (not
/// CSR data) are checked but not stored.
fn parse(prepared: &Prepared<'_>, options: &LoadOptions, for_csr: bool) -> Result<Parsed> {
    let text = prepared.text;
    let mut syntax = Syntax {
        one_based: false,
        bounds: None,
        third: Third::Absent,
        expand_reverse: options.symmetrize,
        drop_self_loops: options.drop_self_loops,
        max_vertices: options.max_vertices,
        integer_values: false,
        nonnegative_weights: options.nonnegative_weights,
        delimiter: prepared.delimiter,
    };
    let (data_offset, first_line, header) = match prepared.format {
        Format::MatrixMarket => {
            let header = parse_header(text, options.max_vertices)
                .map_err(|(line, column, kind)| prepared.error(line, column, kind))?;
            syntax.one_based = true;
            syntax.bounds = Some((header.rows, header.cols));
            syntax.expand_reverse |= header.symmetric;
            syntax.third = match header.field {
                MtxField::Pattern => Third::Absent,
                MtxField::Integer | MtxField::Real => {
                    requested_third(options).unwrap_or(Third::Weight)
                }
            };
            // The header's field is a promise about every value: an
            // `integer` file's values are whole numbers (a `real` file's
            // may be too; a `pattern` file has none, so a value column is
            // an extra field).
            syntax.integer_values =
                header.field == MtxField::Integer && syntax.third == Third::Weight;
            (header.data_offset, header.data_first_line, Some(header))
        }
        _ => {
            syntax.third = edge_list_third(prepared, options);
            (prepared.body, prepared.body_line, None)
        }
    };

    if for_csr && syntax.third == Third::Timestamp {
        syntax.third = Third::TimestampChecked;
    }
    let data = &text[data_offset..];
    let blocks = syntax.parse_parallel(data, options.block_size, options.progress.as_ref());
    let buffers = &blocks.blocks;
    if let Some((line, column, kind)) = first_error(buffers, first_line) {
        return Err(prepared.error(line, column, kind));
    }
    let max_id = buffers.iter().filter_map(BlockSummary::max_id).max();
    let mut vertex_count = max_id.map_or(0, |id| id as usize + 1);
    if let Some(header) = header {
        let found: u64 = buffers.iter().map(|b| b.entries).sum();
        if found != header.entries {
            let (line, column) = if found > header.entries {
                let line = nth_data_line(data, first_line, header.entries);
                (line.unwrap_or(first_line), 1)
            } else {
                end_position(data, first_line)
            };
            return Err(prepared.error(
                line,
                column,
                ParseErrorKind::EntryCountMismatch {
                    declared: header.entries,
                    found,
                },
            ));
        }
        // Ids were checked against the size line, which was checked
        // against the limit, so this cannot exceed it.
        vertex_count = header.rows.max(header.cols) as usize;
    }
    Ok(Parsed {
        blocks,
        vertex_count,
        third: syntax.third,
    })
}

/// The third column of an edge-list format: as requested, else as the
/// format says (SNAP and delimited files: the first edge line fixes the
/// column count, and a third column is a timestamp, as in SNAP's temporal
/// graphs).
fn edge_list_third(prepared: &Prepared<'_>, options: &LoadOptions) -> Third {
    if let Some(third) = requested_third(options) {
        return third;
    }
    match prepared.format {
        Format::WeightedEdgeList => Third::Weight,
        Format::Snap | Format::Csv if first_line_fields(prepared) >= 3 => Third::Timestamp,
        _ => Third::Absent,
    }
}

/// Reads an edge list whose ids are labels, then applies the options that
/// act on edges.
fn labelled_stream(
    prepared: &Prepared<'_>,
    options: &LoadOptions,
    kind: IdKind,
    for_csr: bool,
) -> Result<EdgeStream> {
    let mut third = edge_list_third(prepared, options);
    if for_csr && third == Third::Timestamp {
        third = Third::TimestampChecked;
    }
    let syntax = LabelSyntax {
        kind,
        third,
        delimiter: prepared.delimiter,
        nonnegative_weights: options.nonnegative_weights,
        drop_self_loops: options.drop_self_loops,
        symmetrize: options.symmetrize,
    };
    let stream = parse_labelled(
        prepared.body_text(),
        prepared.body_line,
        prepared.path,
        options.block_size,
        options.max_vertices,
        syntax,
        options.progress.as_ref(),
    )?;
    Ok(if options.dedupe {
        stream.dedup_pairs()
    } else {
        stream
    })
}

/// Whether a parse failed on an id wider than 32 bits (then the ids are
/// read again as 64-bit labels, or refused as [`ParseErrorKind::WideId`]).
fn wide_id(error: Error) -> std::result::Result<Error, Error> {
    match error {
        Error::Parse {
            location,
            kind: ParseErrorKind::IdTooLarge { token },
        } => Ok(Error::Parse {
            location,
            kind: ParseErrorKind::WideId { token },
        }),
        other => Err(other),
    }
}

/// Options for a dense parse that may relabel afterwards: any 32-bit id is
/// accepted, since the limit applies to the vertex count after relabelling.
fn relaxed(options: &LoadOptions) -> LoadOptions {
    let mut relaxed = options.clone();
    relaxed.max_vertices = relaxed.max_vertices.max(u32::MAX as usize + 1);
    relaxed
}

/// [`Error::SparseIds`] for the ids of these columns.
fn sparse_ids(prepared: &Prepared<'_>, src: &[u32], dst: &[u32], largest: u32) -> Error {
    Error::SparseIds {
        path: prepared.path.map(Path::to_path_buf),
        largest: largest.into(),
        distinct: distinct_ids(src, dst) as u64,
    }
}

fn stream_from_bytes(
    text: &[u8],
    path: Option<&Path>,
    options: &LoadOptions,
) -> Result<EdgeStream> {
    if crate::csr_file::has_magic(text) {
        return crate::csr_file::stream_from_bytes(text, path, options);
    }
    if crate::edge_stream_file::has_magic(text) {
        return crate::edge_stream_file::stream_from_bytes(text, path, options);
    }
    let prepared = prepare(text, path, options)?;
    stream_from_prepared(&prepared, options).map_err(|error| explain(error, &prepared))
}

fn stream_from_prepared(prepared: &Prepared<'_>, options: &LoadOptions) -> Result<EdgeStream> {
    let relabel = match prepared.plan {
        IdPlan::Dense => return dense_stream(prepared, options),
        IdPlan::Relabel(kind) => return labelled_stream(prepared, options, kind, false),
        IdPlan::Numeric { relabel } => relabel,
    };
    let mut stream = match dense_stream(prepared, &relaxed(options)) {
        Err(error) => match wide_id(error) {
            Ok(_) if relabel => {
                return labelled_stream(prepared, options, IdKind::Integers, false);
            }
            Ok(refused) | Err(refused) => return Err(refused),
        },
        Ok(stream) => stream,
    };
    let max_id = stream.vertex_count().checked_sub(1);
    let all = 0..stream.len();
    let runs = std::slice::from_ref(&all);
    match max_id {
        Some(max_id) if is_sparse(stream.src(), stream.dst(), runs, max_id as u32) => {
            if !relabel {
                return Err(sparse_ids(
                    prepared,
                    stream.src(),
                    stream.dst(),
                    max_id as u32,
                ));
            }
            let ids = {
                let (src, dst) = stream.columns_mut();
                relabel_columns(src, dst)?
            };
            stream.relabelled(ids, options.max_vertices, prepared.path)?;
            Ok(stream)
        }
        // Dense after all: the limit applies as it stands, and the strict
        // parse names the line of the first id past it.
        _ if stream.vertex_count() > options.max_vertices => dense_stream(prepared, options),
        _ => Ok(stream),
    }
}

fn dense_stream(prepared: &Prepared<'_>, options: &LoadOptions) -> Result<EdgeStream> {
    stream_of_parsed(parse(prepared, options, false)?, options)
}

fn stream_of_parsed(parsed: Parsed, options: &LoadOptions) -> Result<EdgeStream> {
    let Parsed {
        blocks,
        vertex_count,
        third,
    } = parsed;
    let columns = blocks.into_compact_columns();
    let stream = EdgeStream::from_parts(
        columns.src.into(),
        columns.dst.into(),
        (third == Third::Weight).then(|| columns.weights.into()),
        (third == Third::Timestamp).then(|| columns.timestamps.into()),
        vertex_count,
    );
    Ok(if options.dedupe {
        stream.dedup_pairs()
    } else {
        stream
    })
}

fn csr_from_bytes(text: &[u8], path: Option<&Path>, options: &LoadOptions) -> Result<Csr> {
    if crate::csr_file::has_magic(text) {
        return crate::csr_file::csr_from_bytes(text, path, options);
    }
    if crate::edge_stream_file::has_magic(text) {
        let stream = crate::edge_stream_file::stream_from_bytes(text, path, options)?;
        return stream.to_csr(&options.csr_options(stream.vertex_count()));
    }
    let prepared = prepare(text, path, options)?;
    csr_from_prepared(&prepared, options).map_err(|error| explain(error, &prepared))
}

fn csr_from_prepared(prepared: &Prepared<'_>, options: &LoadOptions) -> Result<Csr> {
    let csr_of_stream = |stream: EdgeStream| {
        let csr_options = options.csr_options(stream.vertex_count());
        stream.to_csr(&csr_options)
    };
    let parsed = match prepared.plan {
        IdPlan::Dense => parse(prepared, options, true)?,
        IdPlan::Relabel(kind) => {
            return csr_of_stream(labelled_stream(prepared, options, kind, true)?);
        }
        IdPlan::Numeric { relabel } => {
            let parsed = match parse(prepared, &relaxed(options), true) {
                Err(error) => match wide_id(error) {
                    Ok(_) if relabel => {
                        let stream = labelled_stream(prepared, options, IdKind::Integers, true)?;
                        return csr_of_stream(stream);
                    }
                    Ok(refused) | Err(refused) => return Err(refused),
                },
                Ok(parsed) => parsed,
            };
            let sparse = parsed.vertex_count > 0 && {
                // The filled runs only, so the stream reader (which reads
                // the same edges compacted) decides the same.
                let columns = &parsed.blocks.columns;
                let runs = parsed.blocks.runs();
                is_sparse(
                    &columns.src,
                    &columns.dst,
                    &runs,
                    parsed.vertex_count as u32 - 1,
                )
            };
            if sparse {
                // The sparse ids of a dense parse: relabel in the stream.
                let mut stream = stream_of_parsed(parsed, options)?;
                let largest = stream.vertex_count() as u32 - 1;
                if !relabel {
                    return Err(sparse_ids(prepared, stream.src(), stream.dst(), largest));
                }
                let ids = {
                    let (src, dst) = stream.columns_mut();
                    relabel_columns(src, dst)?
                };
                stream.relabelled(ids, options.max_vertices, prepared.path)?;
                return csr_of_stream(stream);
            }
            if parsed.vertex_count > options.max_vertices {
                parse(prepared, options, true)?
            } else {
                parsed
            }
        }
    };
    // The filled runs of slots, read in place: a file without gaps (no
    // comment lines, nothing dropped) is a single run. The columns are
    // handed over, so the build reuses their memory for the in-edges.
    let runs = parsed.blocks.runs();
    let columns = parsed.blocks.columns;
    let columns = EdgeColumns {
        src: columns.src,
        dst: columns.dst,
        weights: (parsed.third == Third::Weight).then_some(columns.weights),
    };
    let csr_options = options.csr_options(parsed.vertex_count);
    Csr::from_columns(columns, &runs, csr_options)
}
