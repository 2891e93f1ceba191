//! The ids users have: numbers kept as vertex ids, or sparse 64-bit
//! integers and strings relabelled to dense vertex ids in parallel, with
//! the [`IdMap`] kept for both directions. [`IdMode`] documents the policy.

use crate::fields::{Delimiter, next_field};
use crate::number::{parse_u64, quote};
use crate::parse::{
    Third, count_lines, is_skippable, line_aligned_blocks, overlong_line, split_line, third_value,
};
use crate::progress::ParseProgress;
use crate::stream::EdgeStream;
use dyngraph_core::{Error, IdKind, IdMap, Location, ParseErrorKind, Result, VertexId, Weight};
use rayon::prelude::*;
use std::path::Path;

/// How the vertex ids of an edge-list file are read. Relabelling is never
/// silent: by default numbers are kept as they are, and a file whose
/// numbers cannot be kept is refused with an error that names the mode to
/// use.
///
/// | mode | numeric ids | ids past 32 bits | names (`alice`) |
/// |---|---|---|---|
/// | [`IdMode::Keep`] (default) | vertex ids as written; **refused** ([`Error::SparseIds`]) when sparse | **refused** ([`ParseErrorKind::WideId`], at the id) | relabelled (a name cannot be a vertex id) |
/// | [`IdMode::Auto`] | kept when dense, **relabelled** when sparse | relabelled | relabelled |
/// | [`IdMode::Dense`] | vertex ids as written, however sparse (up to [`crate::LoadOptions::max_vertices`]) | refused | refused |
/// | [`IdMode::Integers`] | relabelled | relabelled | refused |
/// | [`IdMode::Strings`] | relabelled as names (`"10"` sorts before `"9"`) | as names | relabelled |
///
/// *Sparse* means the largest id + 1 is at least [`SPARSE_FLOOR`] (about a
/// million: a dense vertex array that small costs a few megabytes at most)
/// and more than four times the distinct ids. So `1 50000000` is refused
/// by default and loads as two vertices under `Auto`, while a file of ids
/// below 2^20 keeps them as written in every numeric mode.
///
/// *Relabelled* means the distinct ids, sorted (numerically or bytewise),
/// become vertices `0..n` in that order, and the originals are kept:
/// [`EdgeStream::ids`](crate::EdgeStream::ids) and
/// [`Csr::ids`](dyngraph_core::Csr::ids) give the
/// [`IdMap`](dyngraph_core::IdMap), and
/// [`IdMap::relabel_note`](dyngraph_core::IdMap::relabel_note) a line to
/// tell the user. Whether a file's ids are names is decided by its first
/// data line (after a header row, if any; a first line of names followed
/// by numbers is taken for an undeclared header and refused, naming
/// [`crate::LoadOptions::header`]).
///
/// Matrix Market ids index a declared matrix: they are always read as they
/// are (`Integers` and `Strings` are refused for them).
///
/// Relabelling is per input: two files of one graph (a base and a dynamic
/// part, as the VCSR authors split sx-mathoverflow) relabelled apart would
/// disagree on ids. Read such parts with [`IdMode::Dense`], or as one
/// stream, or grow one map over both
/// ([`IdMap::intern_all`](dyngraph_core::IdMap::intern_all)).
///
/// Cost of relabelling: a parallel sort of the distinct ids and a binary
/// search per endpoint (`O(E log V)`), 8 bytes per vertex for the map
/// (plus the names' bytes for strings). Nothing depends on the largest id.
/// Checking sparseness (`Keep`, `Auto`) costs a parallel pass with a
/// bitmap of the id range when the largest id is at least
/// [`SPARSE_FLOOR`], nothing below it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum IdMode {
    /// Numbers are vertex ids, refused when too sparse or wider than 32
    /// bits; names are relabelled.
    #[default]
    Keep,
    /// Numbers are vertex ids when dense, relabelled when sparse or wider
    /// than 32 bits; names are relabelled.
    Auto,
    /// Ids are vertex ids, however sparse.
    Dense,
    /// Ids are 64-bit integer labels, always relabelled.
    Integers,
    /// Ids are string labels (any field), always relabelled.
    Strings,
}

/// Below this many vertices (largest id + 1, about a million) numeric ids
/// are never sparse: [`IdMode::Keep`] and [`IdMode::Auto`] keep them.
pub const SPARSE_FLOOR: u64 = 1 << 20;

/// Whether a field reads as a number (an optional sign, digits, an
/// optional fraction and exponent): a header's names do not.
pub(crate) fn looks_numeric(token: &[u8]) -> bool {
    let digits = token
        .strip_prefix(b"-")
        .or_else(|| token.strip_prefix(b"+"))
        .unwrap_or(token);
    digits.first().is_some_and(u8::is_ascii_digit)
        && digits
            .iter()
            .all(|&b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
}

/// Whether the two ids of a data line read as numbers (a line of fewer
/// fields does not).
pub(crate) fn ids_look_numeric(line: &[u8], delimiter: Delimiter) -> bool {
    let mut pos = 0;
    let mut numeric =
        || next_field(line, &mut pos, delimiter).is_some_and(|(_, t)| looks_numeric(t));
    numeric() && numeric()
}

/// Whether the ids in `0..=max_id` held by `runs` of these columns are
/// sparse: the largest id + 1 is at least [`SPARSE_FLOOR`] and more than
/// four times the distinct ids. (Slots outside the runs are not edges:
/// a parse's gaps.)
pub(crate) fn is_sparse(
    src: &[VertexId],
    dst: &[VertexId],
    runs: &[std::ops::Range<usize>],
    max_id: VertexId,
) -> bool {
    let bound = max_id as u64 + 1;
    if bound < SPARSE_FLOOR {
        return false;
    }
    let occurrences = 2 * runs.iter().map(|run| run.len() as u64).sum::<u64>();
    if bound > 4 * occurrences {
        // Distinct ids are at most the occurrences.
        return true;
    }
    // A bitmap of `bound` bits: at most one bit per occurrence times four.
    let words = bound.div_ceil(64) as usize;
    let seen: Vec<std::sync::atomic::AtomicU64> = (0..words)
        .into_par_iter()
        .map(|_| std::sync::atomic::AtomicU64::new(0))
        .collect();
    let mark = |id: &VertexId| {
        seen[*id as usize / 64].fetch_or(1 << (id % 64), std::sync::atomic::Ordering::Relaxed);
    };
    for run in runs {
        src[run.clone()].par_iter().for_each(mark);
        dst[run.clone()].par_iter().for_each(mark);
    }
    let distinct: u64 = seen
        .par_iter()
        .map(|w| u64::from(w.load(std::sync::atomic::Ordering::Relaxed).count_ones()))
        .sum();
    bound > 4 * distinct
}

/// How many distinct ids these columns hold (a parallel sort of a copy:
/// for messages, not for the load's hot path).
pub(crate) fn distinct_ids(src: &[VertexId], dst: &[VertexId]) -> usize {
    let mut ids: Vec<VertexId> = src.par_iter().chain(dst.par_iter()).copied().collect();
    ids.par_sort_unstable();
    ids.dedup();
    ids.len()
}

/// Relabels dense-parsed columns in place: the distinct ids, sorted, become
/// `0..n`.
pub(crate) fn relabel_columns(src: &mut [VertexId], dst: &mut [VertexId]) -> Result<IdMap> {
    let mut ids: Vec<u64> = src
        .par_iter()
        .chain(dst.par_iter())
        .map(|&id| u64::from(id))
        .collect();
    ids.par_sort_unstable();
    ids.dedup();
    ids.shrink_to_fit();
    let relabel = |id: &mut VertexId| {
        *id = ids.binary_search(&u64::from(*id)).unwrap_or_default() as VertexId;
    };
    src.par_iter_mut().for_each(relabel);
    dst.par_iter_mut().for_each(relabel);
    IdMap::from_integers(ids)
}

/// One parsed data line of a labelled file.
struct Row<'a> {
    src: &'a [u8],
    dst: &'a [u8],
    value: Value,
}

#[derive(Clone, Copy)]
enum Value {
    None,
    Weight(Weight),
    Timestamp(u64),
}

/// A block's rows, or its first error as (line within the block, 1-based
/// column, kind).
type BlockRows<'a> = std::result::Result<Vec<Row<'a>>, (u64, u64, ParseErrorKind)>;

/// How a labelled file's lines are read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LabelSyntax {
    pub(crate) kind: IdKind,
    pub(crate) third: Third,
    pub(crate) delimiter: Delimiter,
    pub(crate) nonnegative_weights: bool,
    pub(crate) drop_self_loops: bool,
    pub(crate) symmetrize: bool,
}

fn parse_block<'a>(block: &'a [u8], syntax: LabelSyntax) -> BlockRows<'a> {
    let mut rows = Vec::new();
    let mut rest = block;
    let mut line_index = 0u64;
    while !rest.is_empty() {
        let (line, tail, newline) = split_line(rest);
        rest = tail;
        let this_line = line_index;
        line_index += 1;
        if is_skippable(line) {
            continue;
        }
        let fail = |offset: usize, kind: ParseErrorKind| {
            // Only the input's last line can lack a newline: a field
            // missing there means the file was cut off.
            let kind = match kind {
                ParseErrorKind::MissingField { .. } if !newline => ParseErrorKind::UnexpectedEof {
                    context: "an edge line",
                },
                kind => kind,
            };
            (this_line, offset as u64 + 1, kind)
        };
        let mut pos = 0;
        let mut field = |expected: &'static str| -> std::result::Result<(usize, &'a [u8]), _> {
            let (offset, token) = next_field(line, &mut pos, syntax.delimiter)
                .ok_or_else(|| fail(line.len(), ParseErrorKind::MissingField { expected }))?;
            if token.is_empty() {
                return Err(fail(offset, ParseErrorKind::EmptyField { expected }));
            }
            Ok((offset, token))
        };
        let mut id = |expected: &'static str| {
            let (offset, token) = field(expected)?;
            if syntax.kind == IdKind::Integers {
                parse_u64(token, expected).map_err(|e| fail(offset, e))?;
            }
            Ok(token)
        };
        let src = id("source vertex id")?;
        let dst = id("destination vertex id")?;
        let value = match syntax.third {
            Third::Absent => Value::None,
            third => {
                let (offset, token) = field(third.expected())?;
                let (weight, timestamp) =
                    third_value(third, token, false, syntax.nonnegative_weights)
                        .map_err(|e| fail(offset, e))?;
                match third {
                    Third::Weight => Value::Weight(weight),
                    Third::Timestamp => Value::Timestamp(timestamp),
                    _ => Value::None,
                }
            }
        };
        if let Some((offset, token)) = next_field(line, &mut pos, syntax.delimiter) {
            return Err(fail(
                offset,
                ParseErrorKind::ExtraField {
                    token: quote(token),
                },
            ));
        }
        rows.push(Row { src, dst, value });
    }
    Ok(rows)
}

/// Parses an edge list whose ids are labels of `syntax.kind`, in parallel
/// blocks, and relabels them densely. `drop_self_loops` and `symmetrize`
/// apply after relabelling, as on dense ids. `text` starts at line
/// `first_line` of the input.
pub(crate) fn parse_labelled(
    text: &[u8],
    first_line: u64,
    path: Option<&Path>,
    block_size: usize,
    max_vertices: usize,
    syntax: LabelSyntax,
    progress: Option<&ParseProgress>,
) -> Result<EdgeStream> {
    let LabelSyntax {
        kind,
        third,
        drop_self_loops,
        symmetrize,
        ..
    } = syntax;
    if let Some(progress) = progress {
        progress.start(text.len());
    }
    let blocks = line_aligned_blocks(text, block_size);
    let parsed: Vec<BlockRows<'_>> = blocks
        .par_iter()
        .map(|range| {
            let block = &text[range.clone()];
            let rows = match count_lines(block) {
                // A line past the bound is the error, unless the block
                // fails before it.
                (_, Some(long)) => match parse_block(block, syntax) {
                    Err(error) if error.0 < long => Err(error),
                    _ => {
                        let error = overlong_line(long);
                        Err((error.lines_before, error.column, error.kind))
                    }
                },
                (_, None) => parse_block(block, syntax),
            };
            if let Some(progress) = progress {
                progress.add(range.len());
            }
            rows
        })
        .collect();
    if let Some((index, (line, column, kind))) = parsed
        .iter()
        .enumerate()
        .find_map(|(i, rows)| rows.as_ref().err().map(|e| (i, e.clone())))
    {
        let lines_before = memchr::memchr_iter(b'\n', &text[..blocks[index].start]).count() as u64;
        return Err(Error::Parse {
            location: Location::new(
                path.map(Path::to_path_buf),
                first_line + lines_before + line,
                column,
            ),
            kind,
        });
    }
    let rows: Vec<Vec<Row<'_>>> = parsed.into_iter().map(|r| r.unwrap_or_default()).collect();

    // The distinct labels, sorted: numerically or bytewise.
    let ids = match kind {
        IdKind::Integers => {
            let mut all: Vec<u64> = rows
                .par_iter()
                .flat_map_iter(|block| block.iter().flat_map(|r| [r.src, r.dst]))
                .map(|token| parse_u64(token, "vertex id").unwrap_or_default())
                .collect();
            all.par_sort_unstable();
            all.dedup();
            check_limit(all.len(), max_vertices, path)?;
            IdMap::from_integers(all)?
        }
        IdKind::Strings => {
            let mut all: Vec<&[u8]> = rows
                .par_iter()
                .flat_map_iter(|block| block.iter().flat_map(|r| [r.src, r.dst]))
                .collect();
            all.par_sort_unstable();
            all.dedup();
            check_limit(all.len(), max_vertices, path)?;
            IdMap::from_strings(all)?
        }
    };
    let vertex_of = |token: &[u8]| -> VertexId {
        match kind {
            IdKind::Integers => ids.vertex_of_integer(parse_u64(token, "").unwrap_or_default()),
            IdKind::Strings => ids.vertex_of_str(token),
        }
        .unwrap_or_default()
    };
    let edges: Vec<(VertexId, VertexId, Value)> = rows
        .par_iter()
        .flat_map_iter(|block| {
            block.iter().flat_map(|r| {
                let (s, d) = (vertex_of(r.src), vertex_of(r.dst));
                let keep = !(drop_self_loops && s == d);
                // As the dense parser: the reverse right after, a
                // self-loop once.
                let reverse = symmetrize && keep && s != d;
                [(s, d, r.value)]
                    .into_iter()
                    .filter(move |_| keep)
                    .chain([(d, s, r.value)].into_iter().filter(move |_| reverse))
            })
        })
        .collect();
    let (src, dst): (Vec<VertexId>, Vec<VertexId>) = edges.par_iter().map(|e| (e.0, e.1)).unzip();
    let weights = (third == Third::Weight).then(|| {
        edges
            .par_iter()
            .map(|e| match e.2 {
                Value::Weight(w) => w,
                _ => 1.0,
            })
            .collect::<Vec<_>>()
            .into()
    });
    let timestamps = (third == Third::Timestamp).then(|| {
        edges
            .par_iter()
            .map(|e| match e.2 {
                Value::Timestamp(t) => t,
                _ => 0,
            })
            .collect::<Vec<_>>()
            .into()
    });
    let vertex_count = ids.len();
    let mut stream =
        EdgeStream::from_parts(src.into(), dst.into(), weights, timestamps, vertex_count);
    stream.set_ids(ids);
    Ok(stream)
}

fn check_limit(distinct: usize, max_vertices: usize, path: Option<&Path>) -> Result<()> {
    if distinct > max_vertices {
        return Err(Error::InvalidArgument(format!(
            "{}: {distinct} distinct vertex ids, more than the limit of {max_vertices} \
             (raise it with LoadOptions::max_vertices)",
            path.map_or_else(|| "<input>".into(), |p| p.display().to_string())
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_means_the_bound_exceeds_four_times_the_distinct_ids() {
        let sparse = |src: &[u32], dst: &[u32], max| {
            let all = 0..src.len();
            is_sparse(src, dst, std::slice::from_ref(&all), max)
        };
        assert!(sparse(&[1], &[50_000_000], 50_000_000));
        assert!(!sparse(&[0, 1, 2], &[3, 4, 5], 5));
        // Below the floor, nothing is sparse.
        assert!(!sparse(&[0], &[8], 8));
        assert!(!sparse(&[0], &[88_580], 88_580));
        // Distinct ids counted exactly: every other id below 2^21 is dense;
        // every fifth is not.
        let even: Vec<u32> = (0..1 << 21).step_by(2).collect();
        assert!(!sparse(&even, &even, (1 << 21) - 2));
        let fifth: Vec<u32> = (0..1 << 21).step_by(5).collect();
        assert!(sparse(&fifth, &fifth, *fifth.last().unwrap()));
        // Only the runs count: the ids in a gap are not edges.
        let half = fifth.len() / 2;
        let gapped: Vec<u32> = fifth[..half]
            .iter()
            .copied()
            .chain(even.iter().copied())
            .collect();
        assert!(!sparse(&gapped, &gapped, (1 << 21) - 2));
        let first_half = 0..half;
        let runs = std::slice::from_ref(&first_half);
        assert!(is_sparse(&gapped, &gapped, runs, *fifth.last().unwrap()));
    }

    #[test]
    fn relabelling_keeps_the_order_of_the_ids() {
        let (mut src, mut dst) = (vec![40, 7, 40], vec![7, 1_000_000, 3]);
        let ids = relabel_columns(&mut src, &mut dst).unwrap();
        assert_eq!(ids.integers(), Some(&[3, 7, 40, 1_000_000][..]));
        assert_eq!((src, dst), (vec![2, 1, 2], vec![1, 3, 0]));
    }

    #[test]
    fn names_are_not_numbers_but_signed_and_fractional_numbers_are() {
        for numeric in ["0", "17", "-3", "+4", "1.5", "2e9"] {
            assert!(looks_numeric(numeric.as_bytes()), "{numeric}");
        }
        for name in ["alice", "src", "", "-", "x1", "e5"] {
            assert!(!looks_numeric(name.as_bytes()), "{name}");
        }
        assert!(ids_look_numeric(b"1 2", Delimiter::Blanks));
        assert!(!ids_look_numeric(b"1", Delimiter::Blanks));
        assert!(!ids_look_numeric(b"1,2", Delimiter::Blanks));
        assert!(ids_look_numeric(b"1,2", Delimiter::Comma));
        assert!(!ids_look_numeric(b"src dst", Delimiter::Blanks));
    }
}
