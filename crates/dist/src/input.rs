//! Reading the stream in parallel: each worker parses its own byte range of
//! the file, cut at line starts, with the loader.

use dyngraph_core::{Error, ParseErrorKind, Result};
use dyngraph_loader::{EdgeStream, Format, Generator, LoadOptions, ThirdColumn, parse_edge_stream};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Where a distributed replay's stream comes from.
#[derive(Clone, Debug)]
pub enum DistInput {
    /// A text edge list (SNAP, `.el`, `.wel`; not gzip, not Matrix
    /// Market), read by every worker at its own byte range. Every process
    /// must see the file at this path (a shared or copied file).
    File(PathBuf),
    /// A generated graph: each process draws the stream once (the
    /// generator is deterministic in its seed) and each worker keeps its
    /// contiguous share of the arrivals. For benchmarks and tests.
    Generated(Generator),
}

/// One worker's arrivals: a contiguous run of the global stream.
#[derive(Debug)]
pub(crate) struct LocalArrivals {
    /// Global arrival index of `stream`'s first edge (known once every
    /// worker has counted its lines).
    pub(crate) first: u64,
    /// The arrivals, with timestamps or weights when the input has them.
    pub(crate) stream: EdgeStream,
}

/// Cuts `bytes` into `parts` ranges of about equal size, each starting at
/// a line start (after a `\n`) and together covering every byte once.
pub(crate) fn line_ranges(bytes: &[u8], parts: usize) -> Vec<Range<usize>> {
    let parts = parts.max(1);
    let len = bytes.len();
    let mut starts = Vec::with_capacity(parts + 1);
    starts.push(0);
    for part in 1..parts {
        let nominal = (len as u128 * part as u128 / parts as u128) as usize;
        let from = nominal.max(*starts.last().unwrap_or(&0));
        let start = match bytes[from.min(len)..].iter().position(|&b| b == b'\n') {
            // A cut that falls on a line start stays there.
            _ if from > 0 && from < len && bytes[from - 1] == b'\n' => from,
            Some(offset) => from + offset + 1,
            None => len,
        };
        starts.push(start.min(len));
    }
    starts.push(len);
    starts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// The loader options every range is parsed with: the format and the
/// meaning of the third column fixed once from the whole file, so a range
/// whose first line differs from the file's first line reads the same way.
fn range_options(path: &Path, bytes: &[u8], base: &LoadOptions) -> Result<LoadOptions> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Err(Error::InvalidArgument(format!(
            "{}: a distributed replay reads each process's byte range of an uncompressed \
             file; decompress it first (gzip has no random access)",
            path.display()
        )));
    }
    let format = base
        .format
        .unwrap_or_else(|| Format::detect(Some(path), &bytes[..bytes.len().min(64)]));
    if format == Format::MatrixMarket {
        return Err(Error::InvalidArgument(format!(
            "{}: a distributed replay reads line-per-edge formats (SNAP, .el, .wel); \
             convert Matrix Market first (`dyngraph convert`)",
            path.display()
        )));
    }
    let third = match (base.third_column, format) {
        (Some(third), _) => Some(third),
        (None, Format::Snap) => first_data_line_fields(bytes)
            .filter(|&fields| fields >= 3)
            .map(|_| ThirdColumn::Timestamp),
        _ => None,
    };
    // Ids are read as they are: relabelling each range on its own would
    // give every process a different numbering of the same vertices.
    let mut options = base
        .clone()
        .format(format)
        .threads(1)
        .ids(dyngraph_loader::IdMode::Dense);
    options.third_column = third;
    Ok(options)
}

/// Fields on the first line that is not blank or a comment.
fn first_data_line_fields(bytes: &[u8]) -> Option<usize> {
    bytes
        .split(|&b| b == b'\n')
        .map(|line| line.trim_ascii())
        .find(|line| !line.is_empty() && !line.starts_with(b"#") && !line.starts_with(b"%"))
        .map(|line| {
            line.split(|b| b.is_ascii_whitespace())
                .filter(|field| !field.is_empty())
                .count()
        })
}

/// Parses worker `index`'s range of the file (of `workers` ranges). An
/// empty or comment-only range is an empty stream; a parse error carries
/// the file's line number, not the range's.
pub(crate) fn read_range(
    path: &Path,
    load: &LoadOptions,
    index: usize,
    workers: usize,
) -> Result<EdgeStream> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let length = file.metadata().map_err(io)?.len();
    if length == 0 {
        return Err(Error::Parse {
            location: dyngraph_core::Location::new(Some(path.to_path_buf()), 1, 1),
            kind: ParseErrorKind::EmptyInput,
        });
    }
    // SAFETY: the map is read-only and private to this function, every
    // edge parsed from it is copied into owned columns before it is
    // dropped, and (as for every memory-mapped reader, and as the loader
    // documents for its own maps) the file must not be truncated or
    // modified while the replay reads it.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    let bytes: &[u8] = &map;
    let mut options = range_options(path, bytes, load)?;
    let range = line_ranges(bytes, workers)[index].clone();
    // The header row is the file's first line: only the range that starts
    // the file has it (every worker skipping its first line lost an edge
    // per range).
    options.header &= range.start == 0;
    let text = &bytes[range.clone()];
    if text.iter().all(u8::is_ascii_whitespace) {
        return Ok(EdgeStream::default());
    }
    match parse_edge_stream(text, &options) {
        Ok(stream) => Ok(stream),
        // A range of only comments is no edges, not an empty file.
        Err(Error::Parse {
            kind: ParseErrorKind::EmptyInput,
            ..
        }) => Ok(EdgeStream::default()),
        Err(Error::Parse { location, kind }) => {
            let lines_before = bytes[..range.start].iter().filter(|&&b| b == b'\n').count();
            Err(Error::Parse {
                location: dyngraph_core::Location::new(
                    Some(path.to_path_buf()),
                    location.line + lines_before as u64,
                    location.column,
                ),
                kind,
            })
        }
        Err(other) => Err(other),
    }
}

/// A generated stream drawn once per process and shared by its workers.
#[derive(Clone, Debug, Default)]
pub(crate) struct SharedGenerated {
    stream: Arc<Mutex<Option<Arc<EdgeStream>>>>,
}

impl SharedGenerated {
    /// Worker `index`'s contiguous share of the generated arrivals.
    pub(crate) fn share(
        &self,
        generator: &Generator,
        index: usize,
        workers: usize,
    ) -> Result<EdgeStream> {
        let whole = {
            let mut slot = self
                .stream
                .lock()
                .map_err(|_| Error::InvalidArgument("a worker panicked while generating".into()))?;
            match &*slot {
                Some(stream) => Arc::clone(stream),
                None => {
                    let stream = Arc::new(generator.generate()?);
                    *slot = Some(Arc::clone(&stream));
                    stream
                }
            }
        };
        let len = whole.len();
        let range = len * index / workers..len * (index + 1) / workers;
        Ok(whole.sub_stream(range))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_start_at_lines_and_cover_everything() {
        let text = b"1 2\n33 44\n5 6\n777 888\n9 10\n";
        for parts in 1..12 {
            let ranges = line_ranges(text, parts);
            assert_eq!(ranges.len(), parts);
            assert_eq!(ranges[0].start, 0);
            assert_eq!(ranges.last().unwrap().end, text.len());
            for pair in ranges.windows(2) {
                assert_eq!(pair[0].end, pair[1].start);
            }
            for range in &ranges {
                assert!(
                    range.start == 0 || range.start == text.len() || text[range.start - 1] == b'\n'
                );
            }
        }
    }

    #[test]
    fn third_column_is_decided_by_the_files_first_data_line() {
        assert_eq!(first_data_line_fields(b"# c\n\n1 2 3\n4 5\n"), Some(3));
        assert_eq!(first_data_line_fields(b"% only comments\n"), None);
    }
}
