//! The ids users have: sparse 64-bit integers and strings, mapped to dense
//! vertex ids in parallel, with the [`IdMap`] kept for both directions.
//!
//! - [`IdMode::Dense`]: ids are vertex ids (today's fast path; the vertex
//!   count is the largest id + 1).
//! - [`IdMode::Integers`] / [`IdMode::Strings`]: every id is a label; the
//!   distinct labels are sorted (numerically or bytewise) and vertex `v` is
//!   the `v`-th of them.
//! - [`IdMode::Auto`] (the default): Matrix Market files are dense (their
//!   ids index a declared matrix). In an edge list, a first data line whose
//!   ids are not numbers means string ids; ids past 32 bits mean integer
//!   labels; numeric ids that are *sparse* — the largest id + 1 more than
//!   four times the distinct ids, and at least [`SPARSE_FLOOR`] — are
//!   relabelled. So a file holding the one edge `1 50000000` loads as two
//!   vertices, not fifty million, while a file of fewer than 2^20 vertex
//!   ids keeps them as written (a dense vertex array that small costs a
//!   few megabytes at most).
//!
//! Relabelling is per input: two files of one graph (a base and a dynamic
//! part, as the VCSR authors split sx-mathoverflow) relabelled apart would
//! disagree on ids. Read such parts with [`IdMode::Dense`], or as one
//! stream.
//!
//! Cost of relabelling: a parallel sort of the distinct ids and a binary
//! search per endpoint (`O(E log V)`), 8 bytes per vertex for the map
//! (plus the names' bytes for strings). Nothing depends on the largest id.

use crate::number::{parse_f32, parse_u64, quote};
use crate::parse::{Third, is_skippable, line_aligned_blocks, next_token, split_line};
use crate::stream::{EdgeStream, EdgeValues};
use dyngraph_core::{Error, IdKind, IdMap, Location, ParseErrorKind, Result, VertexId, Weight};
use rayon::prelude::*;
use std::path::Path;

/// How the ids of an edge-list file are read (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IdMode {
    /// Dense for dense numeric ids, relabelled for sparse, 64-bit or string
    /// ids.
    #[default]
    Auto,
    /// Ids are vertex ids.
    Dense,
    /// Ids are 64-bit integer labels.
    Integers,
    /// Ids are string labels (any token without blanks).
    Strings,
}

/// Below this many vertices (largest id + 1, about a million) numeric ids
/// stay dense in the automatic mode, however sparse.
pub const SPARSE_FLOOR: u64 = 1 << 20;

/// Whether the ids of the first data line are both numbers.
pub(crate) fn first_line_is_numeric(text: &[u8]) -> bool {
    let mut rest = text;
    while !rest.is_empty() {
        let (line, tail, _) = split_line(rest);
        if !is_skippable(line) {
            let mut pos = 0;
            let numeric = |token: Option<(usize, &[u8])>| {
                token.is_some_and(|(_, t)| !t.is_empty() && t.iter().all(u8::is_ascii_digit))
            };
            return numeric(next_token(line, &mut pos)) && numeric(next_token(line, &mut pos));
        }
        rest = tail;
    }
    true
}

/// Whether ids in `0..=max_id` over these columns are sparse: the largest
/// id + 1 is at least [`SPARSE_FLOOR`] and more than four times the
/// distinct ids.
pub(crate) fn is_sparse(src: &[VertexId], dst: &[VertexId], max_id: VertexId) -> bool {
    let bound = max_id as u64 + 1;
    if bound < SPARSE_FLOOR {
        return false;
    }
    let occurrences = (src.len() + dst.len()) as u64;
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
    src.par_iter().for_each(mark);
    dst.par_iter().for_each(mark);
    let distinct: u64 = seen
        .par_iter()
        .map(|w| u64::from(w.load(std::sync::atomic::Ordering::Relaxed).count_ones()))
        .sum();
    bound > 4 * distinct
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

fn parse_block<'a>(block: &'a [u8], kind: IdKind, third: Third) -> BlockRows<'a> {
    let mut rows = Vec::new();
    let mut rest = block;
    let mut line_index = 0u64;
    while !rest.is_empty() {
        let (line, tail, _) = split_line(rest);
        rest = tail;
        let this_line = line_index;
        line_index += 1;
        if is_skippable(line) {
            continue;
        }
        let fail = |offset: usize, kind: ParseErrorKind| (this_line, offset as u64 + 1, kind);
        let mut pos = 0;
        let mut id = |expected: &'static str| -> std::result::Result<&'a [u8], _> {
            let (offset, token) = next_token(line, &mut pos)
                .ok_or_else(|| fail(line.len(), ParseErrorKind::MissingField { expected }))?;
            if kind == IdKind::Integers {
                parse_u64(token, expected).map_err(|e| fail(offset, e))?;
            }
            Ok(token)
        };
        let src = id("source vertex id")?;
        let dst = id("destination vertex id")?;
        let value = match third {
            Third::Absent => Value::None,
            Third::Weight => {
                let (offset, token) = next_token(line, &mut pos).ok_or_else(|| {
                    fail(
                        line.len(),
                        ParseErrorKind::MissingField { expected: "weight" },
                    )
                })?;
                Value::Weight(parse_f32(token, "weight").map_err(|e| fail(offset, e))?)
            }
            Third::Timestamp | Third::TimestampChecked => {
                let (offset, token) = next_token(line, &mut pos).ok_or_else(|| {
                    fail(
                        line.len(),
                        ParseErrorKind::MissingField {
                            expected: "timestamp",
                        },
                    )
                })?;
                let t = parse_u64(token, "timestamp").map_err(|e| fail(offset, e))?;
                if third == Third::Timestamp {
                    Value::Timestamp(t)
                } else {
                    Value::None
                }
            }
            Third::Ignore => {
                next_token(line, &mut pos).ok_or_else(|| {
                    fail(
                        line.len(),
                        ParseErrorKind::MissingField {
                            expected: "third field",
                        },
                    )
                })?;
                Value::None
            }
        };
        if let Some((offset, token)) = next_token(line, &mut pos) {
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

/// Parses an edge list whose ids are labels of `kind`, in parallel blocks,
/// and relabels them densely. `drop_self_loops`, `symmetrize` and `dedupe`
/// apply after relabelling, as on dense ids.
#[allow(clippy::too_many_arguments)]
pub(crate) fn parse_labelled(
    text: &[u8],
    path: Option<&Path>,
    block_size: usize,
    max_vertices: usize,
    kind: IdKind,
    third: Third,
    drop_self_loops: bool,
    symmetrize: bool,
) -> Result<EdgeStream> {
    let blocks = line_aligned_blocks(text, block_size);
    let parsed: Vec<BlockRows<'_>> = blocks
        .par_iter()
        .map(|range| parse_block(&text[range.clone()], kind, third))
        .collect();
    if let Some((index, (line, column, kind))) = parsed
        .iter()
        .enumerate()
        .find_map(|(i, rows)| rows.as_ref().err().map(|e| (i, e.clone())))
    {
        let lines_before = memchr::memchr_iter(b'\n', &text[..blocks[index].start]).count() as u64;
        return Err(Error::Parse {
            location: Location::new(path.map(Path::to_path_buf), lines_before + line + 1, column),
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
    let values = match third {
        Third::Weight => EdgeValues::Weights(
            edges
                .par_iter()
                .map(|e| match e.2 {
                    Value::Weight(w) => w,
                    _ => 1.0,
                })
                .collect(),
        ),
        Third::Timestamp => EdgeValues::Timestamps(
            edges
                .par_iter()
                .map(|e| match e.2 {
                    Value::Timestamp(t) => t,
                    _ => 0,
                })
                .collect(),
        ),
        _ => EdgeValues::None,
    };
    let vertex_count = ids.len();
    let mut stream = EdgeStream::from_parts_unchecked(src, dst, values, vertex_count);
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
        assert!(is_sparse(&[1], &[50_000_000], 50_000_000));
        assert!(!is_sparse(&[0, 1, 2], &[3, 4, 5], 5));
        // Below the floor, nothing is sparse.
        assert!(!is_sparse(&[0], &[8], 8));
        assert!(!is_sparse(&[0], &[88_580], 88_580));
        // Distinct ids counted exactly: every other id below 2^21 is dense;
        // every fifth is not.
        let even: Vec<u32> = (0..1 << 21).step_by(2).collect();
        assert!(!is_sparse(&even, &even, (1 << 21) - 2));
        let fifth: Vec<u32> = (0..1 << 21).step_by(5).collect();
        assert!(is_sparse(&fifth, &fifth, *fifth.last().unwrap()));
    }

    #[test]
    fn relabelling_keeps_the_order_of_the_ids() {
        let (mut src, mut dst) = (vec![40, 7, 40], vec![7, 1_000_000, 3]);
        let ids = relabel_columns(&mut src, &mut dst).unwrap();
        assert_eq!(ids.integers(), Some(&[3, 7, 40, 1_000_000][..]));
        assert_eq!((src, dst), (vec![2, 1, 2], vec![1, 3, 0]));
    }

    #[test]
    fn first_line_decides_numeric_or_not() {
        assert!(first_line_is_numeric(b"# c\n1 2\nalice bob\n"));
        assert!(!first_line_is_numeric(b"% c\nalice 2\n"));
    }
}
