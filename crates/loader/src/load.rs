//! The top-level readers: file or bytes in, [`EdgeStream`] or [`Csr`] out.

use crate::format::{Format, ThirdColumn, is_gzip};
use crate::ids::{IdMode, first_line_is_numeric, is_sparse, parse_labelled, relabel_columns};
use crate::mtx::{MtxField, parse_header};
use crate::parse::{
    BlockSummary, ParsedBlocks, Syntax, Third, end_position, first_error, is_skippable,
    nth_data_line, split_line,
};
use crate::stream::{EdgeStream, EdgeValues};
use dyngraph_core::{
    Csr, CsrOptions, DEFAULT_VERTEX_LIMIT, EdgeColumns, Error, IdKind, Location, ParseErrorKind,
    Result, Semantics, StoreConfig,
};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Default [`LoadOptions::block_size`]: 1 MiB, large enough that per-block
/// overhead vanishes and small enough to balance two to hundreds of threads
/// on files of a few hundred megabytes.
pub const DEFAULT_BLOCK_SIZE: usize = 1 << 20;

/// How to read a text graph. `LoadOptions::default()` detects the format,
/// keeps every edge, and uses rayon's global pool.
///
/// ```
/// use dyngraph_loader::{Format, LoadOptions, ThirdColumn};
/// let options = LoadOptions::default()
///     .format(Format::Snap)
///     .third_column(ThirdColumn::Ignore)
///     .drop_self_loops(true)
///     .threads(2);
/// assert_eq!(options.threads, Some(2));
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LoadOptions {
    /// The format; `None` detects it ([`Format::detect`]: the Matrix Market
    /// banner, else the extension, else SNAP).
    pub format: Option<Format>,
    /// How to read a third column; `None` follows the format (see
    /// [`Format`]). Setting it on [`Format::Snap`] or [`Format::EdgeList`]
    /// makes the third column required. Ignored for a Matrix Market
    /// `pattern` file, which has none.
    pub third_column: Option<ThirdColumn>,
    /// Drop `v -> v` edges. The vertex count still covers their ids.
    pub drop_self_loops: bool,
    /// Keep only the first arrival of every `(src, dst)` pair, with its
    /// value. A stream keeps file order; a [`Csr`] gets sorted neighbour
    /// lists and [`dyngraph_core::Semantics::Simple`].
    pub dedupe: bool,
    /// Emit `dst -> src` right after every `src -> dst` (a self-loop once).
    /// A symmetric Matrix Market file is always expanded this way.
    pub symmetrize: bool,
    /// Threads to parse and build with; `None` uses rayon's global pool.
    pub threads: Option<usize>,
    /// Target block size in bytes; blocks are extended to the next line
    /// start. Small values only matter for testing.
    pub block_size: usize,
    /// Refuse (with the offending line and column) any id at or past this,
    /// and a Matrix Market size line declaring more, instead of allocating
    /// for it. Default [`DEFAULT_VERTEX_LIMIT`].
    pub max_vertices: usize,
    /// [`load_csr`] only: also build the in-edges.
    pub in_edges: bool,
    /// [`load_csr`] only: sort each neighbour list (stable).
    pub sort: bool,
    /// How vertex ids are read: dense, or relabelled from sparse integers
    /// or strings ([`IdMode`]; `Auto` by default). The original ids are
    /// kept ([`EdgeStream::ids`], [`Csr::ids`]).
    pub ids: IdMode,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            format: None,
            third_column: None,
            drop_self_loops: false,
            dedupe: false,
            symmetrize: false,
            threads: None,
            block_size: DEFAULT_BLOCK_SIZE,
            max_vertices: DEFAULT_VERTEX_LIMIT,
            in_edges: false,
            sort: false,
            ids: IdMode::Auto,
        }
    }
}

macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty => $value:expr;)*) => {
        impl LoadOptions {
    /// The [`CsrOptions`] of a load into `vertex_count` vertices: the
    /// in-edges, sorting, deduplication (simple semantics) and vertex
    /// limit asked for; the input's weights are kept.
    pub(crate) fn csr_options(&self, vertex_count: usize) -> CsrOptions {
        let semantics = if self.dedupe {
            Semantics::Simple
        } else {
            Semantics::Multigraph
        };
        CsrOptions::default()
            .semantics(semantics)
            .in_edges(self.in_edges)
            .vertex_limit(self.max_vertices)
            .sort(self.sort)
            .vertex_count(vertex_count)
    }
}

impl LoadOptions {
            $(
                $(#[$doc])*
                pub fn $name(mut self, $name: $ty) -> Self {
                    self.$name = $value;
                    self
                }
            )*
        }
    };
}

setters! {
    /// Sets [`LoadOptions::format`].
    format: Format => Some(format);
    /// Sets [`LoadOptions::third_column`].
    third_column: ThirdColumn => Some(third_column);
    /// Sets [`LoadOptions::drop_self_loops`].
    drop_self_loops: bool => drop_self_loops;
    /// Sets [`LoadOptions::dedupe`].
    dedupe: bool => dedupe;
    /// Sets [`LoadOptions::symmetrize`].
    symmetrize: bool => symmetrize;
    /// Sets [`LoadOptions::threads`].
    threads: usize => Some(threads);
    /// Sets [`LoadOptions::block_size`].
    block_size: usize => block_size;
    /// Sets [`LoadOptions::max_vertices`].
    max_vertices: usize => max_vertices;
    /// Sets [`LoadOptions::in_edges`].
    in_edges: bool => in_edges;
    /// Sets [`LoadOptions::sort`].
    sort: bool => sort;
    /// Sets [`LoadOptions::ids`].
    ids: IdMode => ids;
}

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
/// # Errors
/// [`Error::Io`] when the file cannot be read or decompressed (a directory
/// says so; a gzip error gives the compressed byte offset where the data
/// broke off); [`Error::Parse`] with file, line and byte column for
/// malformed text and for an id at or past [`LoadOptions::max_vertices`]
/// (kind [`ParseErrorKind::Other`], naming the id and the limit);
/// [`Error::InvalidCsrFile`] for a truncated or corrupted binary `Csr`
/// file, saying which.
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
/// without any copy, map it with [`crate::CsrFile::open`].
///
/// # Errors
/// As [`load_edge_stream`].
pub fn load_csr(path: impl AsRef<Path>, options: &LoadOptions) -> Result<Csr> {
    let path = path.as_ref();
    let input = Input::open(path)?;
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

/// An opened input: a read-only map of the file.
struct Input {
    map: Option<memmap2::Mmap>,
}

impl Input {
    fn open(path: &Path) -> Result<Input> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = open_file(path)?;
        let length = file.metadata().map_err(io)?.len();
        if length == 0 {
            return Ok(Input { map: None });
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
        Ok(Input { map: Some(map) })
    }

    fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    fn text(&self, path: Option<&Path>) -> Result<std::borrow::Cow<'_, [u8]>> {
        decompressed(self.bytes(), path)
    }
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
/// byte offset where the data broke off.
fn decompressed<'a>(bytes: &'a [u8], path: Option<&Path>) -> Result<std::borrow::Cow<'a, [u8]>> {
    if !is_gzip(bytes) {
        return Ok(std::borrow::Cow::Borrowed(bytes));
    }
    let mut text = Vec::with_capacity(bytes.len().saturating_mul(4));
    // The buffered decoder reads the slice in place, so what is left of it
    // tells how far decompression got.
    let mut decoder = flate2::bufread::MultiGzDecoder::new(bytes);
    if let Err(error) = decoder.read_to_end(&mut text) {
        let offset = bytes.len() - decoder.get_ref().len();
        return Err(Error::Io {
            path: path.map_or_else(|| PathBuf::from("<input>"), Path::to_path_buf),
            source: gzip_error(&error, offset, bytes.len(), text.len()),
        });
    }
    Ok(std::borrow::Cow::Owned(text))
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

fn parse_error(path: Option<&Path>, line: u64, column: u64, kind: ParseErrorKind) -> Error {
    Error::Parse {
        location: Location::new(path.map(Path::to_path_buf), line, column),
        kind,
    }
}

/// Parses `text`; with `for_csr`, timestamps (not CSR data) are checked but
/// not stored.
fn parse(text: &[u8], path: Option<&Path>, options: &LoadOptions, for_csr: bool) -> Result<Parsed> {
    if text.iter().all(u8::is_ascii_whitespace) {
        return Err(parse_error(path, 1, 1, ParseErrorKind::EmptyInput));
    }
    let format = options.format.unwrap_or_else(|| Format::detect(path, text));
    let mut syntax = Syntax {
        one_based: false,
        bounds: None,
        third: Third::Absent,
        expand_reverse: options.symmetrize,
        drop_self_loops: options.drop_self_loops,
        max_vertices: options.max_vertices,
        integer_values: false,
    };
    let requested = options.third_column.map(|third| match third {
        ThirdColumn::Weight => Third::Weight,
        ThirdColumn::Timestamp => Third::Timestamp,
        ThirdColumn::Ignore => Third::Ignore,
    });
    let (data_offset, first_line, header) = match format {
        Format::MatrixMarket => {
            let header = parse_header(text, options.max_vertices)
                .map_err(|(line, column, kind)| parse_error(path, line, column, kind))?;
            syntax.one_based = true;
            syntax.bounds = Some((header.rows, header.cols));
            syntax.expand_reverse |= header.symmetric;
            syntax.third = match header.field {
                MtxField::Pattern => Third::Absent,
                MtxField::Integer | MtxField::Real => requested.unwrap_or(Third::Weight),
            };
            // The header's field is a promise about every value: an
            // `integer` file's values are whole numbers (a `real` file's
            // may be too; a `pattern` file has none, so a value column is
            // an extra field).
            syntax.integer_values =
                header.field == MtxField::Integer && syntax.third == Third::Weight;
            (header.data_offset, header.data_first_line, Some(header))
        }
        Format::WeightedEdgeList | Format::EdgeList | Format::Snap => {
            syntax.third = edge_list_third(format, options, text);
            (0, 1, None)
        }
    };

    if for_csr && syntax.third == Third::Timestamp {
        syntax.third = Third::TimestampChecked;
    }
    let data = &text[data_offset..];
    let blocks = syntax.parse_parallel(data, options.block_size);
    let buffers = &blocks.blocks;
    if let Some((line, column, kind)) = first_error(buffers, first_line) {
        return Err(parse_error(path, line, column, kind));
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
            return Err(parse_error(
                path,
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
/// format says (SNAP: the first data line fixes the column count, and a
/// third column is a timestamp, as in SNAP's temporal graphs).
fn edge_list_third(format: Format, options: &LoadOptions, text: &[u8]) -> Third {
    if let Some(third) = options.third_column {
        return match third {
            ThirdColumn::Weight => Third::Weight,
            ThirdColumn::Timestamp => Third::Timestamp,
            ThirdColumn::Ignore => Third::Ignore,
        };
    }
    match format {
        Format::WeightedEdgeList => Third::Weight,
        Format::Snap if first_data_line_fields(text) >= 3 => Third::Timestamp,
        _ => Third::Absent,
    }
}

/// How a parse reads ids, from [`LoadOptions::ids`] and the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IdPlan {
    Dense,
    Relabel(IdKind),
    /// Dense, relabelled if they turn out sparse or wider than 32 bits.
    DenseUnlessSparse,
}

fn id_plan(text: &[u8], path: Option<&Path>, options: &LoadOptions) -> Result<IdPlan> {
    let format = options.format.unwrap_or_else(|| Format::detect(path, text));
    Ok(match (format, options.ids) {
        (Format::MatrixMarket, IdMode::Integers | IdMode::Strings) => {
            return Err(Error::InvalidArgument(
                "Matrix Market ids index the declared matrix and are read as they are: \
                 use the dense or automatic id mode"
                    .into(),
            ));
        }
        (Format::MatrixMarket, _) | (_, IdMode::Dense) => IdPlan::Dense,
        (_, IdMode::Integers) => IdPlan::Relabel(IdKind::Integers),
        (_, IdMode::Strings) => IdPlan::Relabel(IdKind::Strings),
        (_, IdMode::Auto) if !first_line_is_numeric(text) => IdPlan::Relabel(IdKind::Strings),
        (_, IdMode::Auto) => IdPlan::DenseUnlessSparse,
    })
}

/// Reads an edge list whose ids are labels, then applies the options that
/// act on edges.
fn labelled_stream(
    text: &[u8],
    path: Option<&Path>,
    options: &LoadOptions,
    kind: IdKind,
    for_csr: bool,
) -> Result<EdgeStream> {
    if text.iter().all(u8::is_ascii_whitespace) {
        return Err(parse_error(path, 1, 1, ParseErrorKind::EmptyInput));
    }
    let format = options.format.unwrap_or_else(|| Format::detect(path, text));
    let mut third = edge_list_third(format, options, text);
    if for_csr && third == Third::Timestamp {
        third = Third::TimestampChecked;
    }
    let stream = parse_labelled(
        text,
        path,
        options.block_size,
        options.max_vertices,
        kind,
        third,
        options.drop_self_loops,
        options.symmetrize,
    )?;
    Ok(if options.dedupe {
        stream.dedup_pairs()
    } else {
        stream
    })
}

/// Whether a parse failed on an id wider than 32 bits (then the ids are
/// read again as 64-bit labels).
fn is_wide_id(error: &Error) -> bool {
    matches!(
        error,
        Error::Parse {
            kind: ParseErrorKind::IdTooLarge { .. },
            ..
        }
    )
}

/// Options for a dense parse that may relabel afterwards: any 32-bit id is
/// accepted, since the limit applies to the vertex count after relabelling.
fn relaxed(options: &LoadOptions) -> LoadOptions {
    let mut relaxed = options.clone();
    relaxed.max_vertices = relaxed.max_vertices.max(u32::MAX as usize + 1);
    relaxed
}

/// Fields on the first line that is neither blank nor a comment.
fn first_data_line_fields(text: &[u8]) -> usize {
    let mut rest = text;
    while !rest.is_empty() {
        let (line, tail, _) = split_line(rest);
        if !is_skippable(line) {
            return line
                .split(|&b| b == b' ' || b == b'\t')
                .filter(|field| !field.is_empty())
                .count();
        }
        rest = tail;
    }
    0
}

fn stream_from_bytes(
    text: &[u8],
    path: Option<&Path>,
    options: &LoadOptions,
) -> Result<EdgeStream> {
    if crate::csr_file::has_magic(text) {
        return crate::csr_file::stream_from_bytes(text, path, options);
    }
    match id_plan(text, path, options)? {
        IdPlan::Dense => dense_stream(text, path, options),
        IdPlan::Relabel(kind) => labelled_stream(text, path, options, kind, false),
        IdPlan::DenseUnlessSparse => {
            let mut stream = match dense_stream(text, path, &relaxed(options)) {
                Err(error) if is_wide_id(&error) => {
                    return labelled_stream(text, path, options, IdKind::Integers, false);
                }
                other => other?,
            };
            let max_id = stream.vertex_count().checked_sub(1);
            match max_id {
                Some(max_id) if is_sparse(stream.src(), stream.dst(), max_id as u32) => {
                    let ids = {
                        let (src, dst) = stream.columns_mut();
                        relabel_columns(src, dst)?
                    };
                    stream.relabelled(ids, options.max_vertices, path)?;
                    Ok(stream)
                }
                // Dense after all: the limit applies as it stands, and the
                // strict parse names the line of the first id past it.
                _ if stream.vertex_count() > options.max_vertices => {
                    dense_stream(text, path, options)
                }
                _ => Ok(stream),
            }
        }
    }
}

fn dense_stream(text: &[u8], path: Option<&Path>, options: &LoadOptions) -> Result<EdgeStream> {
    stream_of_parsed(parse(text, path, options, false)?, options)
}

fn stream_of_parsed(parsed: Parsed, options: &LoadOptions) -> Result<EdgeStream> {
    let Parsed {
        blocks,
        vertex_count,
        third,
    } = parsed;
    let columns = blocks.into_compact_columns();
    let values = match third {
        Third::Weight => EdgeValues::Weights(columns.weights),
        Third::Timestamp => EdgeValues::Timestamps(columns.timestamps),
        Third::Absent | Third::Ignore | Third::TimestampChecked => EdgeValues::None,
    };
    let stream = EdgeStream::from_parts_unchecked(columns.src, columns.dst, values, vertex_count);
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
    let csr_of_stream = |stream: EdgeStream| {
        let csr_options = options.csr_options(stream.vertex_count());
        stream.to_csr(&csr_options)
    };
    let parsed = match id_plan(text, path, options)? {
        IdPlan::Dense => parse(text, path, options, true)?,
        IdPlan::Relabel(kind) => {
            return csr_of_stream(labelled_stream(text, path, options, kind, true)?);
        }
        IdPlan::DenseUnlessSparse => {
            let parsed = match parse(text, path, &relaxed(options), true) {
                Err(error) if is_wide_id(&error) => {
                    let stream = labelled_stream(text, path, options, IdKind::Integers, true)?;
                    return csr_of_stream(stream);
                }
                other => other?,
            };
            let sparse = parsed.vertex_count > 0 && {
                let columns = &parsed.blocks.columns;
                // Slots outside the filled runs hold zeros, which only
                // ever add one id to the count: a safe bias toward dense.
                is_sparse(&columns.src, &columns.dst, parsed.vertex_count as u32 - 1)
            };
            if sparse {
                // The sparse ids of a dense parse: relabel in the stream.
                let mut stream = stream_of_parsed(parsed, options)?;
                let ids = {
                    let (src, dst) = stream.columns_mut();
                    relabel_columns(src, dst)?
                };
                stream.relabelled(ids, options.max_vertices, path)?;
                return csr_of_stream(stream);
            }
            if parsed.vertex_count > options.max_vertices {
                parse(text, path, options, true)?
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
