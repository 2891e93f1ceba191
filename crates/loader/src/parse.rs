//! The parallel text parser: header, blocks aligned on line starts, output
//! slots per block, and error locations resolved after the fact.
//!
//! A block knows nothing of the lines before it, so it records errors as
//! "the n-th line of this block, byte column c"; once every block is done,
//! the newline counts of the blocks before the first error turn that into
//! a file line number. A first pass counts every block's lines, which sizes
//! the output arrays and gives each block its own slots (GVEL's per-thread
//! edge lists, without the concatenation afterwards).

use crate::fields::{Delimiter, next_field};
use crate::number::{parse_f32, parse_u64, parse_vertex, quote};
use crate::progress::ParseProgress;
use dyngraph_core::hint::prefetch;
use dyngraph_core::{ParseErrorKind, Timestamp, VertexId, Weight};
use memchr::memchr;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the third field of a data line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Third {
    /// No third field; one is an error.
    Absent,
    /// An `f32` weight.
    Weight,
    /// A `u64` timestamp.
    Timestamp,
    /// A `u64` timestamp, checked but not stored (for a CSR, which has no
    /// place for it).
    TimestampChecked,
    /// Required but skipped.
    Ignore,
}

impl Third {
    /// What the field holds, for messages.
    pub(crate) fn expected(self) -> &'static str {
        match self {
            Third::Weight => "weight",
            Third::Timestamp | Third::TimestampChecked => "timestamp",
            Third::Absent | Third::Ignore => "third column",
        }
    }
}

/// Reads a third field as `third` says (not [`Third::Absent`]): a weight
/// (a whole number when `integer_values`; never NaN; not negative when
/// `nonnegative_weights`), a timestamp, or anything non-empty.
#[inline]
pub(crate) fn third_value(
    third: Third,
    token: &[u8],
    integer_values: bool,
    nonnegative_weights: bool,
) -> Result<(Weight, Timestamp), ParseErrorKind> {
    match third {
        Third::Weight => {
            if integer_values && !is_integer(token) {
                return Err(ParseErrorKind::ValueNotInteger {
                    token: quote(token),
                });
            }
            let weight = parse_f32(token, "weight")?;
            if weight.is_nan() {
                return Err(ParseErrorKind::NanWeight {
                    token: quote(token),
                });
            }
            if nonnegative_weights && weight < 0.0 {
                return Err(ParseErrorKind::NegativeWeight {
                    token: quote(token),
                });
            }
            Ok((weight, 0))
        }
        Third::Timestamp | Third::TimestampChecked => {
            let timestamp = parse_u64(token, "timestamp").map_err(|kind| match kind {
                // A fraction: a weight column read as timestamps.
                ParseErrorKind::NonNumeric { .. } if parse_f32(token, "").is_ok() => {
                    ParseErrorKind::TimestampNotInteger {
                        token: quote(token),
                    }
                }
                kind => kind,
            })?;
            Ok((0.0, timestamp))
        }
        Third::Ignore if token.is_empty() => Err(ParseErrorKind::EmptyField {
            expected: "third column",
        }),
        Third::Ignore | Third::Absent => Ok((0.0, 0)),
    }
}

/// How to read and post-process every data line.
#[derive(Clone, Debug)]
pub(crate) struct Syntax {
    /// Ids start at 1 (Matrix Market); stored ids are one less.
    pub(crate) one_based: bool,
    /// Matrix Market rows and columns: source ids must be `<= rows`,
    /// destination ids `<= cols` (1-based).
    pub(crate) bounds: Option<(u64, u64)>,
    pub(crate) third: Third,
    /// Also emit `dst -> src` right after `src -> dst` (symmetric Matrix
    /// Market, or the symmetrize option); a self-loop is emitted once.
    pub(crate) expand_reverse: bool,
    pub(crate) drop_self_loops: bool,
    /// Ids at or past this are refused.
    pub(crate) max_vertices: usize,
    /// A weight must be a whole number (Matrix Market field `integer`).
    pub(crate) integer_values: bool,
    /// A negative weight is an error.
    pub(crate) nonnegative_weights: bool,
    /// What separates fields.
    pub(crate) delimiter: Delimiter,
}

/// An error inside a buffer, before the file line is known.
#[derive(Clone, Debug)]
pub(crate) struct LocalError {
    /// Newlines between the buffer's start and the error's line.
    pub(crate) lines_before: u64,
    /// 1-based byte column.
    pub(crate) column: u64,
    pub(crate) kind: ParseErrorKind,
}

/// The parsed edges of a whole input, struct of arrays. Every block owns a
/// run of slots, as many as it has lines (twice that when lines are
/// expanded to both directions), and fills a prefix of them; for a file of
/// plain edge lines the slots are exactly filled and the arrays are the
/// result as they stand, with no concatenation copy.
#[derive(Debug, Default)]
pub(crate) struct Columns {
    pub(crate) src: Vec<VertexId>,
    pub(crate) dst: Vec<VertexId>,
    /// Empty unless the third field is a weight.
    pub(crate) weights: Vec<Weight>,
    /// Empty unless the third field is a stored timestamp.
    pub(crate) timestamps: Vec<Timestamp>,
}

/// A block's slots while it is parsed: disjoint pieces of the [`Columns`].
#[derive(Debug, Default)]
pub(crate) struct Buffer<'a> {
    pub(crate) src: &'a mut [VertexId],
    pub(crate) dst: &'a mut [VertexId],
    pub(crate) weights: &'a mut [Weight],
    pub(crate) timestamps: &'a mut [Timestamp],
    /// Slots written so far.
    pub(crate) filled: usize,
    pub(crate) summary: BlockSummary,
}

/// What a block's parse found.
#[derive(Clone, Debug, Default)]
pub(crate) struct BlockSummary {
    /// Index of the block's first slot in the [`Columns`].
    pub(crate) slot_start: usize,
    /// Slots the block filled (a prefix of its own).
    pub(crate) filled: usize,
    /// Newlines consumed (valid up to the error, if any).
    pub(crate) lines: u64,
    /// Data lines read (before symmetric expansion or dropping).
    pub(crate) entries: u64,
    /// Largest id read (stored, 0-based), including dropped self-loops;
    /// meaningful only when `entries > 0` (see [`BlockSummary::max_id`]).
    largest_id: VertexId,
    pub(crate) error: Option<LocalError>,
}

impl BlockSummary {
    /// Largest id read (stored, 0-based), including dropped self-loops.
    pub(crate) fn max_id(&self) -> Option<VertexId> {
        (self.entries > 0).then_some(self.largest_id)
    }
}

/// The output of [`Syntax::parse_parallel`]: the arrays, and per block (in
/// file order) where its edges are.
#[derive(Debug, Default)]
pub(crate) struct ParsedBlocks {
    pub(crate) columns: Columns,
    pub(crate) blocks: Vec<BlockSummary>,
}

impl ParsedBlocks {
    /// The filled slots as maximal contiguous runs, in file order: one run
    /// for a file of plain edge lines.
    pub(crate) fn runs(&self) -> Vec<Range<usize>> {
        let mut runs: Vec<Range<usize>> = Vec::new();
        for block in self.blocks.iter().filter(|b| b.filled > 0) {
            let range = block.slot_start..block.slot_start + block.filled;
            match runs.last_mut() {
                Some(last) if last.end == range.start => last.end = range.end,
                _ => runs.push(range),
            }
        }
        runs
    }

    /// Moves every filled slot down to close the gaps (comments, dropped
    /// self-loops, a self-loop in a symmetric file) and drops the unused
    /// tail, leaving the edges contiguous in file order. Costs nothing
    /// when there are no gaps.
    pub(crate) fn into_compact_columns(self) -> Columns {
        let runs = self.runs();
        let mut columns = self.columns;
        fn compact<T: Copy>(column: &mut Vec<T>, runs: &[Range<usize>]) {
            if column.is_empty() {
                return;
            }
            let mut written = 0;
            for run in runs {
                if run.start != written {
                    column.copy_within(run.clone(), written);
                }
                written += run.len();
            }
            column.truncate(written);
            if column.capacity() - written > written / 8 {
                column.shrink_to_fit();
            }
        }
        compact(&mut columns.src, &runs);
        compact(&mut columns.dst, &runs);
        compact(&mut columns.weights, &runs);
        compact(&mut columns.timestamps, &runs);
        columns
    }
}

/// A field error: 0-based byte offset in the line and what went wrong.
pub(crate) struct FieldError {
    pub(crate) offset: usize,
    pub(crate) kind: ParseErrorKind,
}

impl FieldError {
    /// The error of a line after `lines_before` others, `newline` telling
    /// whether the line ended with one. Only the input's last line can
    /// lack a newline (blocks end after one), so a field missing there
    /// means the file was cut off mid-line.
    fn at_line(self, lines_before: u64, newline: bool) -> LocalError {
        let kind = match self.kind {
            ParseErrorKind::MissingField { .. } if !newline => ParseErrorKind::UnexpectedEof {
                context: "an edge line",
            },
            kind => kind,
        };
        LocalError {
            lines_before,
            column: self.offset as u64 + 1,
            kind,
        }
    }
}

/// The decimal number spelled by the leading digits of `word` (eight input
/// bytes, the first in the lowest byte) and how many digits there are, when
/// there are between one and seven (so the byte after them is in `word`
/// too and is known not to be a digit); `None` otherwise.
///
/// SWAR ("SIMD within a register"): every byte is tested for `0..=9` at
/// once, without carries between bytes, and the digits are combined by
/// three multiply-and-add rounds (pairs, quads, the whole) instead of one
/// multiply per digit.
#[inline(always)]
fn leading_digits(word: u64) -> Option<(u64, usize)> {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A digit byte becomes its value 0..=9; every other byte something else.
    let values = word ^ 0x3030_3030_3030_3030;
    // The high bit of each byte is set where the value is not below 10:
    // the low seven bits plus 0x76 reach 0x80 exactly from 10 up (and
    // cannot carry out of the byte), and a set high bit stays set.
    let not_digit = (((values & LOW7) + 0x7676_7676_7676_7676) | values) & HIGH;
    let count = (not_digit.trailing_zeros() / 8) as usize;
    if count == 0 || count == 8 {
        return None;
    }
    // Keep the digits only, moved to the top so they read as an
    // eight-digit number with leading zeros.
    let mut chunk = values << (8 * (8 - count));
    chunk = ((chunk & 0x0f00_0f00_0f00_0f00) >> 8) + (chunk & 0x000f_000f_000f_000f) * 10;
    chunk = ((chunk & 0x00ff_0000_00ff_0000) >> 16) + (chunk & 0x0000_00ff_0000_00ff) * 100;
    chunk = ((chunk & 0x0000_ffff_0000_0000) >> 32) + (chunk & 0x0000_0000_0000_ffff) * 10000;
    Some((chunk, count))
}

/// The newline bytes of a 64-byte chunk as a bit mask (bit `i` for byte `i`).
///
/// On x86-64 four SSE2 compares (SSE2 is part of the x86-64 baseline, so no
/// runtime detection is needed); elsewhere eight SWAR words.
#[inline(always)]
fn newline_mask(chunk: &[u8; 64]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `newline_mask_sse2` needs only SSE2, which every x86-64
        // CPU has (it is enabled in the default x86-64 target), and it
        // touches no memory but the borrowed chunk.
        unsafe { newline_mask_sse2(chunk) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        newline_mask_swar(chunk)
    }
}

/// [`newline_mask`] with SSE2: four 16-byte compares and byte masks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn newline_mask_sse2(chunk: &[u8; 64]) -> u64 {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set_epi64x, _mm_set1_epi8};
    let newline = _mm_set1_epi8(b'\n' as i8);
    let mut mask = 0;
    for (i, part) in chunk.chunks_exact(16).enumerate() {
        // Two little-endian words make one unaligned 16-byte load.
        let word = |at: usize| u64::from_le_bytes(part[at..at + 8].try_into().unwrap_or_default());
        let bytes = _mm_set_epi64x(word(8) as i64, word(0) as i64);
        let hits = _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, newline)) as u16;
        mask |= u64::from(hits) << (16 * i);
    }
    mask
}

/// [`newline_mask`] eight bytes at a time in plain integer arithmetic.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn newline_mask_swar(chunk: &[u8; 64]) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut mask = 0;
    for (i, word) in chunk.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        // Newline bytes become zero; the high bit of `low7 + 0x7f | byte`
        // is clear exactly for a zero byte (no carry leaves a byte).
        let zeroed = word ^ 0x0a0a_0a0a_0a0a_0a0a;
        let high = !(((zeroed & LOW7) + LOW7) | zeroed) & !LOW7;
        // Gather the eight high bits into one byte.
        let bits = ((high >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
        mask |= bits << (8 * i);
    }
    mask
}

/// How far ahead of the newline scan the input is prefetched. Reading a
/// page-cache map, the hardware prefetcher stops at every 4 KiB page (the
/// next page is elsewhere in physical memory), and profiles show the parse
/// waiting on those first loads; asking for the bytes a few hundred lines
/// early hides that wait.
const PREFETCH_DISTANCE: usize = 2048;

/// The positions of the newlines in a block, found 64 bytes at a time
/// inline (a `memchr` call per line costs more than the line's parse).
struct Newlines<'a> {
    bytes: &'a [u8],
    /// Start of the chunk `mask` describes.
    chunk_start: usize,
    /// Bit `i` set where byte `chunk_start + i` is a newline not returned
    /// yet.
    mask: u64,
}

impl<'a> Newlines<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            chunk_start: 0,
            mask: Self::mask_at(bytes, 0),
        }
    }

    /// The newlines of the 64 bytes at `at` (fewer at the end, padded).
    #[inline(always)]
    fn mask_at(bytes: &[u8], at: usize) -> u64 {
        match bytes.get(at..at.wrapping_add(64)) {
            Some(chunk) => newline_mask(chunk.try_into().unwrap_or(&[0; 64])),
            None => {
                let mut padded = [0u8; 64];
                let tail = bytes.get(at..).unwrap_or_default();
                padded[..tail.len()].copy_from_slice(tail);
                newline_mask(&padded)
            }
        }
    }

    /// The next newline's position, in increasing order.
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.chunk_start += 64;
            if self.chunk_start >= self.bytes.len() {
                return None;
            }
            prefetch(self.bytes, self.chunk_start + PREFETCH_DISTANCE);
            self.mask = Self::mask_at(self.bytes, self.chunk_start);
        }
        let position = self.chunk_start + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(position)
    }
}

#[inline]
fn is_blank(byte: u8) -> bool {
    byte == b' ' || byte == b'\t'
}

#[inline]
fn skip_blanks(line: &[u8], mut pos: usize) -> usize {
    while pos < line.len() && is_blank(line[pos]) {
        pos += 1;
    }
    pos
}

/// The next whitespace-delimited token at or after `pos`, with its offset;
/// `None` at the end of the line.
#[inline]
pub(crate) fn next_token<'a>(line: &'a [u8], pos: &mut usize) -> Option<(usize, &'a [u8])> {
    let start = skip_blanks(line, *pos);
    if start == line.len() {
        *pos = start;
        return None;
    }
    let mut end = start;
    while end < line.len() && !is_blank(line[end]) {
        end += 1;
    }
    *pos = end;
    Some((start, &line[start..end]))
}

/// `true` for a whole number: an optional sign, then decimal digits only.
#[inline]
fn is_integer(token: &[u8]) -> bool {
    let digits = match token.first() {
        Some(b'+' | b'-') => &token[1..],
        _ => token,
    };
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// `true` for a line with no data: blank, or a `#`/`%` comment.
#[inline]
pub(crate) fn is_skippable(line: &[u8]) -> bool {
    let pos = skip_blanks(line, 0);
    pos == line.len() || line[pos] == b'#' || line[pos] == b'%'
}

/// Splits off the first line: `(line without "\n" or "\r\n", rest, had a
/// newline)`.
#[inline]
pub(crate) fn split_line(bytes: &[u8]) -> (&[u8], &[u8], bool) {
    let (line, rest, newline) = match memchr(b'\n', bytes) {
        Some(i) => (&bytes[..i], &bytes[i + 1..], true),
        None => (bytes, &bytes[bytes.len()..], false),
    };
    (line.strip_suffix(b"\r").unwrap_or(line), rest, newline)
}

/// How runs of plain pair lines are read: [`Syntax::plain_pair`] (SWAR, any
/// CPU) or, on x86-64 CPUs with SSSE3, [`Syntax::plain_pair_ssse3`]. Both
/// store the same edges; tests compare them.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PairReader {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Ssse3,
}

impl PairReader {
    /// The fastest reader this CPU runs (the check is cached by `std`).
    fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("ssse3") {
            return PairReader::Ssse3;
        }
        PairReader::Scalar
    }
}

/// `pshufb` controls for [`Syntax::plain_pair_ssse3`], by source and
/// destination digit counts (1..=8 each, less one): byte `j < 8` of the
/// result takes the source's digit `j - (8 - src)` (zero before it: a
/// control byte with the high bit set writes zero), byte `8 + j` the
/// destination's digit `j - (8 - dst)`, which sits after the source and its
/// blank in the line.
#[cfg(target_arch = "x86_64")]
static PAIR_SHUFFLES: [[[u8; 16]; 8]; 8] = {
    let mut table = [[[0x80u8; 16]; 8]; 8];
    let mut src = 1;
    while src <= 8 {
        let mut dst = 1;
        while dst <= 8 {
            let mut j = 0;
            while j < 8 {
                if j >= 8 - src {
                    table[src - 1][dst - 1][j] = (j - (8 - src)) as u8;
                }
                if j >= 8 - dst {
                    table[src - 1][dst - 1][8 + j] = (src + 1 + j - (8 - dst)) as u8;
                }
                j += 1;
            }
            dst += 1;
        }
        src += 1;
    }
    table
};

impl Syntax {
    /// Applies the 1-based shift, the size-line bound and the vertex limit.
    #[inline]
    fn check_vertex(
        &self,
        mut id: VertexId,
        token: &[u8],
        offset: usize,
        bound: Option<u64>,
    ) -> Result<VertexId, FieldError> {
        let at = |kind| FieldError { offset, kind };
        if self.one_based {
            if id == 0 {
                return Err(at(ParseErrorKind::ZeroId));
            }
            if let Some(size) = bound
                && u64::from(id) > size
            {
                return Err(at(ParseErrorKind::IdBeyondSize {
                    id: id.into(),
                    size,
                }));
            }
            id -= 1;
        }
        if id as usize >= self.max_vertices {
            return Err(at(ParseErrorKind::Other(format!(
                "vertex id {} needs {} vertices, more than the limit of {} (raise the \
                 maximum vertex count if the id is intended)",
                quote(token),
                id as u64 + 1,
                self.max_vertices
            ))));
        }
        Ok(id)
    }

    /// Reads the vertex id starting at `line[*pos]` (not a blank): digits
    /// are accumulated as they are scanned, so a well-formed id is read in
    /// one pass; anything else is re-read as a token for the error.
    #[inline(always)]
    fn vertex_at(
        &self,
        line: &[u8],
        pos: &mut usize,
        expected: &'static str,
        bound: Option<u64>,
    ) -> Result<VertexId, FieldError> {
        let start = *pos;
        // Ten digits cannot overflow a u64; an eleventh (or any other byte
        // that is not a blank) sends the token down the slow path.
        let mut value: u64 = 0;
        let mut digits = 0;
        for &byte in line[start..].iter().take(10) {
            let digit = byte.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            value = value * 10 + u64::from(digit);
            digits += 1;
        }
        let end = start + digits;
        let plain = end > start
            && (end == line.len() || is_blank(line[end]))
            && value <= u64::from(u32::MAX);
        if plain {
            // The common case, kept small enough to inline: an id within
            // the bounds needs no further checks.
            let in_bounds = !self.one_based || (value >= 1 && bound.is_none_or(|b| value <= b));
            let id = value - u64::from(self.one_based && in_bounds);
            if in_bounds && (id as usize) < self.max_vertices {
                *pos = end;
                return Ok(id as VertexId);
            }
        }
        self.vertex_slow(line, pos, expected, bound, plain.then_some((value, end)))
    }

    /// Everything but the common case: 1-based ids, ids past the limit,
    /// and malformed tokens, re-read whole for the exact error.
    #[cold]
    #[inline(never)]
    fn vertex_slow(
        &self,
        line: &[u8],
        pos: &mut usize,
        expected: &'static str,
        bound: Option<u64>,
        plain: Option<(u64, usize)>,
    ) -> Result<VertexId, FieldError> {
        let start = *pos;
        if let Some((value, end)) = plain {
            *pos = end;
            return self.check_vertex(value as VertexId, &line[start..end], start, bound);
        }
        let (offset, token) = next_token(line, pos).expect("called on a non-blank byte");
        let id = parse_vertex(token, expected).map_err(|kind| FieldError { offset, kind })?;
        self.check_vertex(id, token, offset, bound)
    }

    /// Moves `pos` to the next field, or reports it missing.
    #[inline]
    fn field_start(line: &[u8], pos: &mut usize, expected: &'static str) -> Result<(), FieldError> {
        *pos = skip_blanks(line, *pos);
        if *pos == line.len() {
            return Err(FieldError {
                offset: line.len(),
                kind: ParseErrorKind::MissingField { expected },
            });
        }
        Ok(())
    }

    /// Parses one line (without its newline) into `buffer`.
    #[inline]
    fn parse_line(&self, line: &[u8], buffer: &mut Buffer<'_>) -> Result<(), FieldError> {
        let mut pos = skip_blanks(line, 0);
        if pos == line.len() || line[pos] == b'#' || line[pos] == b'%' {
            return Ok(()); // Blank line or comment.
        }
        let (rows, cols) = match self.bounds {
            Some((rows, cols)) => (Some(rows), Some(cols)),
            None => (None, None),
        };
        let src = self.vertex_at(line, &mut pos, "source vertex id", rows)?;
        Self::field_start(line, &mut pos, "destination vertex id")?;
        let dst = self.vertex_at(line, &mut pos, "destination vertex id", cols)?;
        self.finish_line(line, &mut pos, buffer, src, dst)
    }

    /// After a line's two ids: reads the third field (as [`third_value`]
    /// does, when there is one to read), refuses any field after it, and
    /// records the edge.
    #[inline]
    fn finish_line(
        &self,
        line: &[u8],
        pos: &mut usize,
        buffer: &mut Buffer<'_>,
        src: VertexId,
        dst: VertexId,
    ) -> Result<(), FieldError> {
        let (weight, timestamp) = if self.third == Third::Absent {
            (0.0, 0)
        } else {
            let (offset, token) = next_field(line, pos, self.delimiter).ok_or(FieldError {
                offset: line.len(),
                kind: ParseErrorKind::MissingField {
                    expected: self.third.expected(),
                },
            })?;
            third_value(
                self.third,
                token,
                self.integer_values,
                self.nonnegative_weights,
            )
            .map_err(|kind| FieldError { offset, kind })?
        };
        if let Some((offset, token)) = next_field(line, pos, self.delimiter) {
            return Err(FieldError {
                offset,
                kind: ParseErrorKind::ExtraField {
                    token: quote(token),
                },
            });
        }
        self.accept(buffer, src, dst, weight, timestamp);
        Ok(())
    }

    /// [`Self::parse_line`] for fields separated by a delimiter: each
    /// field read whole, then checked.
    fn parse_delimited_line(&self, line: &[u8], buffer: &mut Buffer<'_>) -> Result<(), FieldError> {
        if is_skippable(line) {
            return Ok(());
        }
        let (rows, cols) = match self.bounds {
            Some((rows, cols)) => (Some(rows), Some(cols)),
            None => (None, None),
        };
        let mut pos = 0;
        let mut id = |expected: &'static str, bound| {
            let (offset, token) = next_field(line, &mut pos, self.delimiter).ok_or(FieldError {
                offset: line.len(),
                kind: ParseErrorKind::MissingField { expected },
            })?;
            let at = |kind| FieldError { offset, kind };
            if token.is_empty() {
                return Err(at(ParseErrorKind::EmptyField { expected }));
            }
            let id = parse_vertex(token, expected).map_err(at)?;
            self.check_vertex(id, token, offset, bound)
        };
        let src = id("source vertex id", rows)?;
        let dst = id("destination vertex id", cols)?;
        self.finish_line(line, &mut pos, buffer, src, dst)
    }

    /// Records one well-formed data line.
    #[inline(always)]
    fn accept(
        &self,
        buffer: &mut Buffer<'_>,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
        timestamp: Timestamp,
    ) {
        buffer.summary.entries += 1;
        // A plain maximum (no `Option`) on this hot path; `entries` says
        // whether it holds anything.
        buffer.summary.largest_id = buffer.summary.largest_id.max(src.max(dst));
        if self.drop_self_loops && src == dst {
            return;
        }
        self.push(buffer, src, dst, weight, timestamp);
        if self.expand_reverse && src != dst {
            self.push(buffer, dst, src, weight, timestamp);
        }
    }

    /// An id of at most ten digits at `rest[*i]` that passes every check,
    /// or `None` (the caller then takes the slow path, which reports).
    #[inline(always)]
    fn fast_id(&self, rest: &[u8], i: &mut usize, bound: Option<u64>) -> Option<VertexId> {
        let start = *i;
        let mut value: u64 = 0;
        // Up to seven digits (ids below ten million, the common case) are
        // read eight bytes at a time; longer ids and a block's last few
        // bytes take the byte loop.
        let swar = rest
            .get(start..start + 8)
            .and_then(|word| leading_digits(u64::from_le_bytes(word.try_into().ok()?)));
        if let Some((digits, count)) = swar {
            value = digits;
            *i += count;
        } else {
            for &byte in rest[start..].iter().take(10) {
                let digit = byte.wrapping_sub(b'0');
                if digit > 9 {
                    break;
                }
                value = value * 10 + u64::from(digit);
                *i += 1;
            }
        }
        if *i == start || value > u64::from(u32::MAX) {
            return None;
        }
        self.checked_id(value, bound)
    }

    /// Parses a well-formed data line at the start of `rest` in one pass,
    /// without looking for its end first. Returns the bytes consumed
    /// (newline included) and whether a newline ended it; `None`, with
    /// nothing recorded, for anything else (comments, blank lines, CRs in
    /// odd places, errors), which the line-at-a-time path then handles.
    #[inline(always)]
    fn fast_line(&self, rest: &[u8], buffer: &mut Buffer<'_>) -> Option<(usize, bool)> {
        let blank_run = |i: &mut usize| {
            let start = *i;
            while *i < rest.len() && is_blank(rest[*i]) {
                *i += 1;
            }
            *i > start
        };
        let (rows, cols) = match self.bounds {
            Some((rows, cols)) => (Some(rows), Some(cols)),
            None => (None, None),
        };
        let mut i = 0;
        let src = self.fast_id(rest, &mut i, rows)?;
        if !blank_run(&mut i) {
            return None;
        }
        let dst = self.fast_id(rest, &mut i, cols)?;
        let mut weight: Weight = 0.0;
        let mut timestamp: Timestamp = 0;
        if self.third != Third::Absent {
            if !blank_run(&mut i) {
                return None;
            }
            let start = i;
            while i < rest.len() && !is_blank(rest[i]) && rest[i] != b'\n' && rest[i] != b'\r' {
                i += 1;
            }
            let token = &rest[start..i];
            match self.third {
                Third::Weight if self.integer_values && !is_integer(token) => return None,
                Third::Weight => {
                    weight = parse_f32(token, "weight").ok()?;
                    // NaN, and a negative weight when refused, go to the
                    // line parser, which reports them.
                    if weight.is_nan() || (self.nonnegative_weights && weight < 0.0) {
                        return None;
                    }
                }
                Third::Timestamp | Third::TimestampChecked => {
                    timestamp = parse_u64(token, "timestamp").ok()?;
                }
                Third::Ignore if token.is_empty() => return None,
                Third::Ignore | Third::Absent => {}
            }
        }
        blank_run(&mut i);
        let end = match rest.get(i) {
            None => (i, false),
            Some(b'\n') => (i + 1, true),
            Some(b'\r') if rest.get(i + 1) == Some(&b'\n') => (i + 2, true),
            Some(_) => return None,
        };
        self.accept(buffer, src, dst, weight, timestamp);
        Some(end)
    }

    #[inline]
    fn push(
        &self,
        buffer: &mut Buffer<'_>,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
        timestamp: Timestamp,
    ) {
        // A block has a slot for every line it holds (two with expansion),
        // so these never run out.
        let slot = buffer.filled;
        buffer.src[slot] = src;
        buffer.dst[slot] = dst;
        match self.third {
            Third::Weight => buffer.weights[slot] = weight,
            Third::Timestamp => buffer.timestamps[slot] = timestamp,
            Third::Absent | Third::Ignore | Third::TimestampChecked => {}
        }
        buffer.filled = slot + 1;
    }

    /// An id value (known to fit `u32`) that passes the base, bound and
    /// vertex-limit checks, or `None`.
    #[inline(always)]
    fn checked_id(&self, value: u64, bound: Option<u64>) -> Option<VertexId> {
        let id = if self.one_based {
            if value == 0 || bound.is_some_and(|b| value > b) {
                return None;
            }
            value - 1
        } else {
            value
        };
        ((id as usize) < self.max_vertices).then_some(id as VertexId)
    }

    /// The commonest line, `digits blank digits` right up to the newline at
    /// `end`, read eight bytes at a time: its two checked ids, or `None`
    /// for anything else. The line's end is already known (from the
    /// block's newline scan), so consecutive lines do not wait for each
    /// other.
    #[inline(always)]
    fn plain_pair(&self, block: &[u8], start: usize, end: usize) -> Option<(VertexId, VertexId)> {
        let word = |at: usize| {
            block
                .get(at..at.wrapping_add(8))
                .map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default()))
        };
        let (rows, cols) = match self.bounds {
            Some((rows, cols)) => (Some(rows), Some(cols)),
            None => (None, None),
        };
        let (src, src_digits) = word(start).and_then(leading_digits)?;
        // The byte after the digits is in the word just read, so inside
        // `block`; it is the newline itself when the line ends there.
        let blank = start + src_digits;
        if !is_blank(block[blank]) {
            return None;
        }
        let (dst, dst_digits) = word(blank + 1).and_then(leading_digits)?;
        if blank + 1 + dst_digits != end {
            return None;
        }
        Some((self.checked_id(src, rows)?, self.checked_id(dst, cols)?))
    }

    /// [`Self::plain_pair`] with SSSE3: the line's first 16 bytes are
    /// classified at once (digit or not), and when they are `digits blank
    /// digits` with at most 8 digits each and the newline within the 16
    /// bytes, one shuffle puts each id's digits right-aligned into its own
    /// 8-byte half and three multiply-adds turn both halves into numbers
    /// together. Any other line (and a line too near the block's end for a
    /// 16-byte load) goes to [`Self::plain_pair`], so the ids returned are
    /// the ones the scalar tiers would read, and a line neither accepts goes
    /// on to the tiers that report errors.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "ssse3")]
    fn plain_pair_ssse3(
        &self,
        block: &[u8],
        start: usize,
        end: usize,
    ) -> Option<(VertexId, VertexId)> {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_madd_epi16,
            _mm_maddubs_epi16, _mm_min_epu8, _mm_movemask_epi8, _mm_packs_epi32, _mm_set1_epi8,
            _mm_set1_epi16, _mm_set1_epi32, _mm_shuffle_epi8, _mm_sub_epi8,
        };
        let length = end - start;
        let window: &[u8; 16] = match block.get(start..start.wrapping_add(16)) {
            Some(window) if length < 16 => window.try_into().ok()?,
            _ => return self.plain_pair(block, start, end),
        };
        // SAFETY: `window` is 16 readable bytes; the load has no alignment
        // requirement.
        let bytes = unsafe { _mm_loadu_si128(window.as_ptr().cast::<__m128i>()) };
        // Digit bytes become 0..=9, and only they stay at most 9.
        let values = _mm_sub_epi8(bytes, _mm_set1_epi8(b'0' as i8));
        let is_digit = _mm_cmpeq_epi8(_mm_min_epu8(values, _mm_set1_epi8(9)), values);
        let digit_mask = _mm_movemask_epi8(is_digit) as u32;
        let src_digits = (!digit_mask).trailing_zeros() as usize;
        let dst_digits = length.checked_sub(src_digits + 1)?;
        let line_mask = (1u32 << length) - 1;
        if !(1..=8).contains(&src_digits)
            || !(1..=8).contains(&dst_digits)
            || digit_mask & line_mask != line_mask & !(1 << src_digits)
            || !is_blank(window[src_digits])
        {
            return self.plain_pair(block, start, end);
        }
        let control = &PAIR_SHUFFLES[src_digits - 1][dst_digits - 1];
        // SAFETY: `control` is 16 readable bytes; no alignment needed.
        let control = unsafe { _mm_loadu_si128(control.as_ptr().cast::<__m128i>()) };
        // Bytes 0..8: the source's digits, most significant first, after
        // leading zeros; bytes 8..16 the destination's.
        let digits = _mm_shuffle_epi8(values, control);
        // Pairs of digits (x10 + x1), then quads (x100 + x1), then the
        // eight digits of each half (x10_000 + x1).
        let pairs = _mm_maddubs_epi16(digits, _mm_set1_epi16(0x010a));
        let quads = _mm_madd_epi16(pairs, _mm_set1_epi32(0x0001_0064));
        let ids = _mm_madd_epi16(_mm_packs_epi32(quads, quads), _mm_set1_epi32(0x0001_2710));
        let both = _mm_cvtsi128_si64(ids) as u64;
        let (rows, cols) = match self.bounds {
            Some((rows, cols)) => (Some(rows), Some(cols)),
            None => (None, None),
        };
        Some((
            self.checked_id(both & 0xffff_ffff, rows)?,
            self.checked_id(both >> 32, cols)?,
        ))
    }

    /// Stores the plain pairs (see [`Self::plain_pair`]) from the line at
    /// `start` on, for as long as lines are plain and nothing is dropped
    /// or expanded, with the block's counters and output slices held in
    /// locals (so the stores into the slices need not be ordered against
    /// them). Returns where it stopped and, when a line there was not
    /// plain, its end as taken from `newlines`.
    #[inline(always)]
    fn plain_pair_run(
        &self,
        block: &[u8],
        start: usize,
        newlines: &mut Newlines<'_>,
        buffer: &mut Buffer<'_>,
        reader: PairReader,
    ) -> (usize, Option<(usize, bool)>) {
        match reader {
            PairReader::Scalar => {
                self.plain_pair_run_with(block, start, newlines, buffer, Self::plain_pair)
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `PairReader::Ssse3` is only chosen where the CPU has
            // SSSE3 (`PairReader::detect`), all `plain_pair_run_ssse3` needs.
            PairReader::Ssse3 => unsafe {
                self.plain_pair_run_ssse3(block, start, newlines, buffer)
            },
        }
    }

    /// [`Self::plain_pair_run`] reading each line with
    /// [`Self::plain_pair_ssse3`], compiled for SSSE3 so that it inlines.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "ssse3")]
    fn plain_pair_run_ssse3(
        &self,
        block: &[u8],
        start: usize,
        newlines: &mut Newlines<'_>,
        buffer: &mut Buffer<'_>,
    ) -> (usize, Option<(usize, bool)>) {
        self.plain_pair_run_with(
            block,
            start,
            newlines,
            buffer,
            |syntax, block, start, end| syntax.plain_pair_ssse3(block, start, end),
        )
    }

    /// The loop of [`Self::plain_pair_run`], with `read_pair` for one line
    /// (its block, start and end).
    #[inline(always)]
    fn plain_pair_run_with(
        &self,
        block: &[u8],
        mut start: usize,
        newlines: &mut Newlines<'_>,
        buffer: &mut Buffer<'_>,
        read_pair: impl Fn(&Self, &[u8], usize, usize) -> Option<(VertexId, VertexId)>,
    ) -> (usize, Option<(usize, bool)>) {
        let src_out = std::mem::take(&mut buffer.src);
        let dst_out = std::mem::take(&mut buffer.dst);
        let mut filled = buffer.filled;
        let mut largest = buffer.summary.largest_id;
        let mut lines = 0u64;
        let mut pending = None;
        while start < block.len() {
            let (end, newline) = match newlines.next() {
                Some(end) => (end, true),
                None => (block.len(), false),
            };
            let Some((src, dst)) = read_pair(self, block, start, end) else {
                pending = Some((end, newline));
                break;
            };
            // A block has a slot for every line it holds.
            src_out[filled] = src;
            dst_out[filled] = dst;
            filled += 1;
            largest = largest.max(src.max(dst));
            lines += u64::from(newline);
            start = end + 1;
        }
        buffer.summary.entries += (filled - buffer.filled) as u64;
        buffer.summary.lines += lines;
        buffer.summary.largest_id = largest;
        buffer.filled = filled;
        buffer.src = src_out;
        buffer.dst = dst_out;
        (start, pending)
    }

    /// Parses every line of `block` (which starts at a line start and ends
    /// after a newline or at the end of the input) into `buffer`.
    ///
    /// Three tiers, each taking only lines it reads exactly as the next:
    /// [`Self::plain_pair`] for two short ids (in a run of such lines,
    /// [`Self::plain_pair_run`], when nothing is dropped or expanded),
    /// [`Self::fast_line`] for other well-formed data lines, and the
    /// line-at-a-time [`Self::parse_line`] for everything else, which alone
    /// reports errors.
    fn parse_block(&self, block: &[u8], buffer: &mut Buffer<'_>) {
        self.parse_block_with(block, buffer, PairReader::detect());
    }

    /// [`Self::parse_block`] with runs of plain pairs read by `reader`.
    fn parse_block_with(&self, block: &[u8], buffer: &mut Buffer<'_>, reader: PairReader) {
        if self.delimiter != Delimiter::Blanks {
            return self.parse_block_delimited(block, buffer);
        }
        let mut newlines = Newlines::new(block);
        let mut start = 0;
        let pairs_only = self.third == Third::Absent;
        let runs = pairs_only && !self.drop_self_loops && !self.expand_reverse;
        while start < block.len() {
            let pending = if runs {
                let (stopped, pending) =
                    self.plain_pair_run(block, start, &mut newlines, buffer, reader);
                start = stopped;
                pending
            } else {
                None
            };
            let (end, newline) = match pending.or_else(|| newlines.next().map(|end| (end, true))) {
                Some(line_end) => line_end,
                None if start < block.len() => (block.len(), false),
                None => break,
            };
            let fast = match pairs_only
                .then(|| self.plain_pair(block, start, end))
                .flatten()
            {
                Some((src, dst)) => {
                    self.accept(buffer, src, dst, 0.0, 0);
                    true
                }
                None => false,
            } || self
                .fast_line(&block[start..], buffer)
                .inspect(|&(consumed, _)| {
                    debug_assert_eq!(start + consumed, end + usize::from(newline))
                })
                .is_some();
            if !fast {
                let line = &block[start..end];
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if let Err(error) = self.parse_line(line, buffer) {
                    buffer.summary.error = Some(error.at_line(buffer.summary.lines, newline));
                    return;
                }
            }
            buffer.summary.lines += u64::from(newline);
            start = end + 1;
        }
    }

    /// [`Self::parse_block`] for delimited lines: one line at a time (the
    /// fast tiers read blank-separated lines only).
    fn parse_block_delimited(&self, block: &[u8], buffer: &mut Buffer<'_>) {
        let mut rest = block;
        while !rest.is_empty() {
            let (line, tail, newline) = split_line(rest);
            if let Err(error) = self.parse_delimited_line(line, buffer) {
                buffer.summary.error = Some(error.at_line(buffer.summary.lines, newline));
                return;
            }
            buffer.summary.lines += u64::from(newline);
            rest = tail;
        }
    }

    /// Slots a block of `lines` lines needs.
    fn slots_for(&self, lines: usize) -> usize {
        lines * if self.expand_reverse { 2 } else { 1 }
    }

    /// Parses `data` in parallel blocks of about `block_size` bytes.
    ///
    /// A first parallel pass counts each block's lines, which sizes the
    /// output arrays once and gives every block its own slots; the second
    /// parses every block straight into them, adding each to `progress`.
    pub(crate) fn parse_parallel(
        &self,
        data: &[u8],
        block_size: usize,
        progress: Option<&ParseProgress>,
    ) -> ParsedBlocks {
        if let Some(progress) = progress {
            progress.start(data.len());
        }
        let blocks = line_aligned_blocks(data, block_size);
        let (slot_counts, overlong): (Vec<usize>, Vec<Option<u64>>) = blocks
            .par_iter()
            .map(|range| {
                let block = &data[range.clone()];
                let (newlines, overlong) = count_lines(block);
                // Only the input's last block can end without a newline.
                let unterminated = block.last().is_some_and(|&b| b != b'\n');
                (
                    self.slots_for(newlines + usize::from(unterminated)),
                    overlong,
                )
            })
            .unzip();
        let total: usize = slot_counts.iter().sum();
        // Zeroed allocations of this size come straight from the kernel as
        // untouched pages: nothing is written twice.
        let column = |wanted: bool| if wanted { total } else { 0 };
        let mut columns = Columns {
            src: vec![0; total],
            dst: vec![0; total],
            weights: vec![0.0; column(self.third == Third::Weight)],
            timestamps: vec![0; column(self.third == Third::Timestamp)],
        };
        let third_lengths = |wanted: bool| {
            slot_counts
                .iter()
                .map(move |&count| if wanted { count } else { 0 })
        };
        let buffers: Vec<Buffer<'_>> =
            split_by_lengths(&mut columns.src, slot_counts.iter().copied())
                .into_iter()
                .zip(split_by_lengths(
                    &mut columns.dst,
                    slot_counts.iter().copied(),
                ))
                .zip(split_by_lengths(
                    &mut columns.weights,
                    third_lengths(self.third == Third::Weight),
                ))
                .zip(split_by_lengths(
                    &mut columns.timestamps,
                    third_lengths(self.third == Third::Timestamp),
                ))
                .scan(0, |slot_start, (((src, dst), weights), timestamps)| {
                    let buffer = Buffer {
                        summary: BlockSummary {
                            slot_start: *slot_start,
                            ..BlockSummary::default()
                        },
                        filled: 0,
                        src,
                        dst,
                        weights,
                        timestamps,
                    };
                    *slot_start += buffer.src.len();
                    Some(buffer)
                })
                .collect();
        // Blocks after one that failed need not be parsed: only the lines
        // before the first error matter.
        let first_failed = AtomicUsize::new(usize::MAX);
        let summaries = buffers
            .into_par_iter()
            .zip(blocks.par_iter())
            .enumerate()
            .map(|(index, (mut buffer, range))| {
                if index < first_failed.load(Ordering::Relaxed) {
                    self.parse_block(&data[range.clone()], &mut buffer);
                    // A line past the bound is the error, unless the block
                    // failed before it.
                    if let Some(line) = overlong[index]
                        && buffer
                            .summary
                            .error
                            .as_ref()
                            .is_none_or(|e| e.lines_before >= line)
                    {
                        buffer.summary.error = Some(overlong_line(line));
                    }
                    if buffer.summary.error.is_some() {
                        first_failed.fetch_min(index, Ordering::Relaxed);
                    }
                }
                if let Some(progress) = progress {
                    progress.add(range.len());
                }
                BlockSummary {
                    filled: buffer.filled,
                    ..buffer.summary
                }
            })
            .collect();
        ParsedBlocks {
            columns,
            blocks: summaries,
        }
    }
}

/// Splits `slice` into consecutive pieces of the given lengths.
fn split_by_lengths<T>(
    mut slice: &mut [T],
    lengths: impl IntoIterator<Item = usize>,
) -> Vec<&mut [T]> {
    let mut pieces = Vec::new();
    for length in lengths {
        let (head, tail) = std::mem::take(&mut slice).split_at_mut(length);
        pieces.push(head);
        slice = tail;
    }
    pieces
}

/// The longest line a text graph may have: an edge line is tens of bytes,
/// and a line of a mebibyte is not one (`/dev/zero`, a binary file, a
/// file with CR line endings read whole as one line).
pub(crate) const MAX_LINE_BYTES: usize = 1 << 20;

/// The newlines in `block` and the 0-based index of its first line longer
/// than [`MAX_LINE_BYTES`] (its newline not counted), if any: one pass of
/// `memchr` over the block, the counting pass the parsers make anyway.
pub(crate) fn count_lines(block: &[u8]) -> (usize, Option<u64>) {
    let mut newlines = 0;
    let mut line_start = 0;
    let mut overlong = None;
    for at in memchr::memchr_iter(b'\n', block) {
        if overlong.is_none() && at - line_start > MAX_LINE_BYTES {
            overlong = Some(newlines as u64);
        }
        newlines += 1;
        line_start = at + 1;
    }
    if overlong.is_none() && block.len() - line_start > MAX_LINE_BYTES {
        overlong = Some(newlines as u64);
    }
    (newlines, overlong)
}

/// The error for a line past [`MAX_LINE_BYTES`], after `lines_before` others.
pub(crate) fn overlong_line(lines_before: u64) -> LocalError {
    LocalError {
        lines_before,
        column: MAX_LINE_BYTES as u64 + 1,
        kind: ParseErrorKind::LineTooLong {
            limit: MAX_LINE_BYTES as u64,
        },
    }
}

/// Splits `data` into ranges of about `block_size` bytes, each starting at a
/// line start (so each ends just after a newline, or at the end).
pub(crate) fn line_aligned_blocks(data: &[u8], block_size: usize) -> Vec<Range<usize>> {
    let block_size = block_size.max(1);
    let mut blocks = Vec::with_capacity(data.len() / block_size + 1);
    let mut start = 0;
    while start < data.len() {
        let target = start.saturating_add(block_size);
        let end = if target >= data.len() {
            data.len()
        } else {
            // The block runs through the newline that ends the line holding
            // byte `target - 1`.
            memchr(b'\n', &data[target - 1..]).map_or(data.len(), |i| target + i)
        };
        blocks.push(start..end);
        start = end;
    }
    blocks
}

/// The first error in file order, as `(line, column, kind)` with `line`
/// 1-based in the whole input, given the line number of `data`'s first line.
pub(crate) fn first_error(
    buffers: &[BlockSummary],
    first_line: u64,
) -> Option<(u64, u64, ParseErrorKind)> {
    let mut lines_before = 0;
    for buffer in buffers {
        if let Some(error) = &buffer.error {
            return Some((
                first_line + lines_before + error.lines_before,
                error.column,
                error.kind.clone(),
            ));
        }
        lines_before += buffer.lines;
    }
    None
}

/// Line and column just past the end of `data` (for "expected more").
pub(crate) fn end_position(data: &[u8], first_line: u64) -> (u64, u64) {
    let newlines = memchr::memchr_iter(b'\n', data).count() as u64;
    let last_line_start = memchr::memrchr(b'\n', data).map_or(0, |i| i + 1);
    (
        first_line + newlines,
        (data.len() - last_line_start) as u64 + 1,
    )
}

/// Line (1-based, counting from `first_line`) of the `n`-th data line of
/// `data` (0-based), if there is one.
pub(crate) fn nth_data_line(data: &[u8], first_line: u64, n: u64) -> Option<u64> {
    let mut rest = data;
    let mut line_number = first_line;
    let mut seen = 0;
    while !rest.is_empty() {
        let (line, tail, _) = split_line(rest);
        if !is_skippable(line) {
            if seen == n {
                return Some(line_number);
            }
            seen += 1;
        }
        line_number += 1;
        rest = tail;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_the_input_and_start_at_lines() {
        let data = b"1 2\n33 44\r\n\n# c\n5 6";
        for size in 1..30 {
            let blocks = line_aligned_blocks(data, size);
            assert_eq!(blocks.first().unwrap().start, 0);
            assert_eq!(blocks.last().unwrap().end, data.len());
            for pair in blocks.windows(2) {
                assert_eq!(pair[0].end, pair[1].start);
                assert_eq!(data[pair[1].start - 1], b'\n');
                assert!(!pair[0].is_empty());
            }
        }
        assert!(line_aligned_blocks(b"", 4).is_empty());
    }

    /// Owned slots for one block of `text`: enough for every line twice.
    struct OwnedSlots {
        src: Vec<VertexId>,
        dst: Vec<VertexId>,
        weights: Vec<Weight>,
        timestamps: Vec<Timestamp>,
    }

    impl OwnedSlots {
        fn for_text(text: &[u8]) -> Self {
            let slots = 2 * (text.len() + 1);
            Self {
                src: vec![0; slots],
                dst: vec![0; slots],
                weights: vec![0.0; slots],
                timestamps: vec![0; slots],
            }
        }

        fn buffer(&mut self) -> Buffer<'_> {
            Buffer {
                src: &mut self.src,
                dst: &mut self.dst,
                weights: &mut self.weights,
                timestamps: &mut self.timestamps,
                filled: 0,
                summary: BlockSummary::default(),
            }
        }
    }

    /// `parse_block` (all three tiers) on `text` as one block, checked to
    /// give the same with the scalar pair reader as with the one this CPU
    /// runs (SSSE3 on most x86-64 machines).
    fn tiers(syntax: &Syntax, text: &[u8]) -> Summary {
        let with = |reader| {
            let mut slots = OwnedSlots::for_text(text);
            let mut buffer = slots.buffer();
            syntax.parse_block_with(text, &mut buffer, reader);
            summary(syntax, &buffer)
        };
        let detected = with(PairReader::detect());
        assert_eq!(detected, with(PairReader::Scalar), "pair readers differ");
        detected
    }

    /// What a line `block[start..end]` of `digits blank digits` holds, read
    /// byte by byte and checked as the tiers check ids; `None` for any
    /// other line or an id that fails a check.
    fn plain_pair_by_bytes(
        syntax: &Syntax,
        block: &[u8],
        start: usize,
        end: usize,
    ) -> Option<(VertexId, VertexId)> {
        let line = &block[start..end];
        let blank = line.iter().position(|&b| is_blank(b))?;
        let (src, dst) = (&line[..blank], &line[blank + 1..]);
        let number = |digits: &[u8]| -> Option<u64> {
            if digits.is_empty() || digits.len() > 10 || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let value = digits
                .iter()
                .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'));
            (value <= u64::from(u32::MAX)).then_some(value)
        };
        let (rows, cols) = syntax.bounds.unzip();
        Some((
            syntax.checked_id(number(src)?, rows)?,
            syntax.checked_id(number(dst)?, cols)?,
        ))
    }

    /// Checks the SSSE3 pair reader on one line against the byte-by-byte
    /// reading and the SWAR reader: whatever either fast reader accepts is
    /// the line's true pair, and the SSSE3 one accepts all the SWAR one does.
    #[cfg(target_arch = "x86_64")]
    fn check_ssse3_pair(syntax: &Syntax, block: &[u8], start: usize, end: usize) {
        let truth = plain_pair_by_bytes(syntax, block, start, end);
        // SAFETY: only called after `PairReader::detect` found SSSE3.
        let simd = unsafe { syntax.plain_pair_ssse3(block, start, end) };
        let swar = syntax.plain_pair(block, start, end);
        let line = String::from_utf8_lossy(&block[start..end]);
        assert!(
            simd.is_none() || simd == truth,
            "{line:?}: {simd:?} vs {truth:?}"
        );
        assert!(
            swar.is_none() || swar == simd,
            "{line:?}: {swar:?} vs {simd:?}"
        );
        // Lines of at most 15 bytes with 16 bytes to load: all plain pairs
        // of up to 8-digit ids are taken.
        let short = end - start < 16 && start + 16 <= block.len();
        let digits_ok = block[start..end]
            .split(|&b| is_blank(b))
            .all(|id| id.len() <= 8);
        if short && digits_ok && truth.is_some() {
            assert_eq!(simd, truth, "{line:?}");
        }
    }

    /// Every digit count 0..=10 on each side, every separator and end, at
    /// every offset in a block whose end cuts through the 16-byte window.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn ssse3_pairs_match_the_bytes_at_every_digit_count() {
        if PairReader::detect() != PairReader::Ssse3 {
            eprintln!("skipping: this CPU has no SSSE3");
            return;
        }
        let syntaxes = [
            Syntax {
                one_based: false,
                bounds: None,
                third: Third::Absent,
                expand_reverse: false,
                drop_self_loops: false,
                max_vertices: usize::MAX,
                integer_values: false,
                nonnegative_weights: false,
                delimiter: Delimiter::Blanks,
            },
            Syntax {
                one_based: true,
                bounds: Some((5_000_000, 99_999_999)),
                third: Third::Absent,
                expand_reverse: false,
                drop_self_loops: false,
                max_vertices: 60_000_000,
                integer_values: false,
                nonnegative_weights: false,
                delimiter: Delimiter::Blanks,
            },
        ];
        let digits = b"9081726354";
        for syntax in &syntaxes {
            for src in 0..=10 {
                for dst in 0..=10 {
                    for separator in [&b" "[..], b"\t", b"  ", b",", b""] {
                        for ending in [&b"\n"[..], b"\r\n", b" \n", b"x\n"] {
                            let mut line = digits[..src].to_vec();
                            line.extend_from_slice(separator);
                            line.extend_from_slice(&digits[10 - dst..]);
                            let end =
                                line.len() + ending.iter().take_while(|&&b| b != b'\n').count();
                            line.extend_from_slice(ending);
                            for lead in 0..3 {
                                for tail in 0..18 {
                                    let mut block = b"1 2\n"[..lead.min(4)].to_vec();
                                    let start = block.len();
                                    block.extend_from_slice(&line);
                                    block.extend(std::iter::repeat_n(b'7', tail));
                                    check_ssse3_pair(syntax, &block, start, start + end);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The line-at-a-time path alone, for comparison with `parse_block`'s
    /// fast tiers.
    fn slow_only(syntax: &Syntax, block: &[u8]) -> Summary {
        let mut slots = OwnedSlots::for_text(block);
        let mut buffer = slots.buffer();
        let mut rest = block;
        while !rest.is_empty() {
            let (line, tail, newline) = split_line(rest);
            if let Err(error) = syntax.parse_line(line, &mut buffer) {
                buffer.summary.error = Some(error.at_line(buffer.summary.lines, newline));
                break;
            }
            buffer.summary.lines += u64::from(newline);
            rest = tail;
        }
        summary(syntax, &buffer)
    }

    /// Everything a block's parse produced, comparable.
    type Summary = (
        Vec<VertexId>,
        Vec<VertexId>,
        Option<Vec<u32>>,
        Option<Vec<Timestamp>>,
        u64,
        Option<VertexId>,
        Option<(u64, u64, ParseErrorKind)>,
        Option<u64>,
    );

    fn summary(syntax: &Syntax, buffer: &Buffer<'_>) -> Summary {
        let filled = buffer.filled;
        let summary = &buffer.summary;
        (
            buffer.src[..filled].to_vec(),
            buffer.dst[..filled].to_vec(),
            (syntax.third == Third::Weight).then(|| {
                buffer.weights[..filled]
                    .iter()
                    .map(|w| w.to_bits())
                    .collect::<Vec<_>>()
            }),
            (syntax.third == Third::Timestamp).then(|| buffer.timestamps[..filled].to_vec()),
            summary.entries,
            summary.max_id(),
            summary
                .error
                .as_ref()
                .map(|e| (e.lines_before, e.column, e.kind.clone())),
            // Lines only count up to an error.
            summary.error.is_none().then_some(summary.lines),
        )
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// The one-pass fast path accepts exactly what the line-at-a-time
        /// path accepts, with the same values, and leaves everything else
        /// (errors included) to it.
        #[test]
        fn fast_path_agrees_with_the_line_path(
            text in proptest::collection::vec(
                proptest::sample::select(b"0123456789 \t\r\n#.-eNa".to_vec()), 0..200),
            third in proptest::sample::select(vec![Third::Absent, Third::Weight, Third::Timestamp, Third::Ignore]),
            one_based in proptest::bool::ANY,
            expand_reverse in proptest::bool::ANY,
            drop_self_loops in proptest::bool::ANY,
            nonnegative_weights in proptest::bool::ANY,
        ) {
            let syntax = Syntax {
                one_based,
                bounds: one_based.then_some((500, 40)),
                third,
                expand_reverse,
                drop_self_loops,
                max_vertices: 1000,
                integer_values: false,
                nonnegative_weights,
                delimiter: Delimiter::Blanks,
            };
            proptest::prop_assert_eq!(tiers(&syntax, &text), slow_only(&syntax, &text));
        }

        /// Random lines of digits, blanks and other bytes, with random
        /// bytes after them: the SSSE3 reader agrees with the bytes.
        #[test]
        #[cfg(target_arch = "x86_64")]
        fn ssse3_pairs_match_the_bytes_on_random_lines(
            line in proptest::collection::vec(
                proptest::sample::select(b"0123456789999  \t\r-a".to_vec()), 0..20),
            tail in proptest::collection::vec(proptest::num::u8::ANY, 0..20),
            one_based in proptest::bool::ANY,
        ) {
            if PairReader::detect() == PairReader::Ssse3 {
                let syntax = Syntax {
                    one_based,
                    bounds: one_based.then_some((70_000, 4_000_000)),
                    third: Third::Absent,
                    expand_reverse: false,
                    drop_self_loops: false,
                    max_vertices: 3_000_000,
                    integer_values: false,
                    nonnegative_weights: false,
                    delimiter: Delimiter::Blanks,
                };
                let mut block = line.clone();
                block.push(b'\n');
                block.extend_from_slice(&tail);
                check_ssse3_pair(&syntax, &block, 0, line.len());
            }
        }
    }

    /// The byte-at-a-time reading `leading_digits` must agree with.
    fn leading_digits_scalar(bytes: &[u8; 8]) -> Option<(u64, usize)> {
        let count = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        if count == 0 || count == 8 {
            return None;
        }
        let value = bytes[..count]
            .iter()
            .fold(0, |value, &b| value * 10 + u64::from(b - b'0'));
        Some((value, count))
    }

    /// Bit `i` of the mask is byte `i == b'\n'`, by the byte loop.
    fn newline_mask_by_bytes(chunk: &[u8; 64]) -> u64 {
        (0..64).fold(0, |mask, i| mask | u64::from(chunk[i] == b'\n') << i)
    }

    #[test]
    fn newline_masks_mark_every_newline_position() {
        for position in 0..64 {
            let mut chunk = [b'7'; 64];
            chunk[position] = b'\n';
            assert_eq!(newline_mask(&chunk), 1 << position);
            assert_eq!(newline_mask_swar(&chunk), 1 << position);
            // Bytes that differ from a newline in one bit are not newlines.
            for flipped in (0..8).map(|bit| b'\n' ^ (1 << bit)) {
                chunk[position] = flipped;
                assert_eq!(newline_mask(&chunk), 0);
                assert_eq!(newline_mask_swar(&chunk), 0);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]
        #[test]
        fn newline_masks_agree_with_the_byte_loop(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![proptest::strategy::Just(b'\n'), proptest::strategy::Just(b' '), proptest::strategy::Just(0x8a_u8), proptest::num::u8::ANY],
                64,
            ),
        ) {
            let chunk: [u8; 64] = bytes.try_into().expect("64 bytes");
            proptest::prop_assert_eq!(newline_mask(&chunk), newline_mask_by_bytes(&chunk));
            proptest::prop_assert_eq!(newline_mask_swar(&chunk), newline_mask_by_bytes(&chunk));
        }
    }

    #[test]
    fn newlines_are_found_in_order_at_any_length() {
        for len in 0..300 {
            let bytes: Vec<u8> = (0..len)
                .map(|i| {
                    if i % 7 == 3 || i % 64 == 63 {
                        b'\n'
                    } else {
                        b'5'
                    }
                })
                .collect();
            let mut newlines = Newlines::new(&bytes);
            let found: Vec<usize> = std::iter::from_fn(|| newlines.next()).collect();
            let expected: Vec<usize> = memchr::memchr_iter(b'\n', &bytes).collect();
            assert_eq!(found, expected, "length {len}");
        }
    }

    /// A block much longer than the prefetch distance whose runs of plain
    /// pairs are broken by every kind of other line, at positions that fall
    /// everywhere in the 64-byte chunks: the run must stop, hand the line
    /// to the next tiers, and resume with the same counts and file order.
    #[test]
    fn plain_pair_runs_stop_and_resume_around_other_lines() {
        let others: [&[u8]; 8] = [
            b"# comment\n",
            b"\n",
            b"12 34\r\n",
            b"12\t34\n",
            b"12  34\n",
            b"12 34 \n",
            b"123456789 1\n",
            b"  7 8\n",
        ];
        let mut text = Vec::new();
        for i in 0..6000u32 {
            if i % 37 == 5 {
                text.extend_from_slice(others[(i / 37) as usize % others.len()]);
            }
            text.extend_from_slice(format!("{} {}\n", i * 31 % 100_000, i % 999).as_bytes());
        }
        text.extend_from_slice(b"5 6");
        for (one_based, expand_reverse, drop_self_loops) in [
            (false, false, false),
            (true, false, false),
            (false, true, true),
        ] {
            let syntax = Syntax {
                one_based,
                bounds: one_based.then_some((200_000, 200_000)),
                third: Third::Absent,
                expand_reverse,
                drop_self_loops,
                max_vertices: usize::MAX,
                integer_values: false,
                nonnegative_weights: false,
                delimiter: Delimiter::Blanks,
            };
            let text = if one_based {
                // No id 0 in a 1-based file.
                text.iter()
                    .map(|&b| if b == b'0' { b'1' } else { b })
                    .collect()
            } else {
                text.clone()
            };
            assert_eq!(tiers(&syntax, &text), slow_only(&syntax, &text));
            // A bad line deep inside a run is reported at its own line.
            let mut bad = text.clone();
            let at = bad.len() / 2;
            let line_start = bad[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            bad[line_start] = b'x';
            let found = tiers(&syntax, &bad);
            assert_eq!(found, slow_only(&syntax, &bad));
            assert!(found.6.is_some(), "the bad line is reported");
        }
    }

    #[test]
    fn leading_digits_reads_every_length_and_stops_at_every_byte() {
        // Every digit count 0..=8, followed by every possible byte.
        for count in 0..=8 {
            for stop in 0..=255u8 {
                let mut bytes = [b'7'; 8];
                for (i, b) in bytes.iter_mut().enumerate().take(count) {
                    *b = b'0' + ((i * 3 + 1) % 10) as u8;
                }
                if count < 8 {
                    bytes[count] = stop;
                }
                assert_eq!(
                    leading_digits(u64::from_le_bytes(bytes)),
                    leading_digits_scalar(&bytes),
                    "{bytes:?}"
                );
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

        /// Arbitrary bytes (digits made likely), including the bytes just
        /// outside `0..=9` and ones with the high bit set.
        #[test]
        fn leading_digits_agrees_with_the_byte_loop(
            bytes in proptest::array::uniform8(proptest::prop_oneof![
                b'0'..=b'9', proptest::num::u8::ANY, 0x2fu8..=0x3au8, 0xb0u8..=0xb9u8,
            ]),
        ) {
            proptest::prop_assert_eq!(
                leading_digits(u64::from_le_bytes(bytes)),
                leading_digits_scalar(&bytes)
            );
        }
    }

    /// One line of mostly plausible text: ids of every length (the eight
    /// byte reads see one to ten digits), each error the fast tiers must
    /// hand on (zero, too large, negative, non-numeric), and the benign
    /// variations (tabs, runs of blanks, CRLF, trailing blanks, comments,
    /// blank lines, a missing last newline).
    fn plausible_line() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let id = prop_oneof![
            6 => (0u64..10_000).prop_map(|v| v.to_string()),
            4 => (0u64..100_000_000).prop_map(|v| v.to_string()),
            2 => (0u64..=u64::from(u32::MAX) + 5).prop_map(|v| v.to_string()),
            1 => Just("0".to_string()),
            1 => Just("00000007".to_string()),
            1 => Just("-5".to_string()),
            1 => Just("12a".to_string()),
            1 => Just("99999999999".to_string()),
        ];
        let blank = prop_oneof![6 => Just(" "), 2 => Just("\t"), 1 => Just("  "), 1 => Just(" \t")];
        let third = prop_oneof![
            3 => Just(String::new()),
            2 => (0u64..100_000).prop_map(|v| format!(" {v}")),
            1 => Just(" 2.5".to_string()),
            1 => Just(" -3".to_string()),
            1 => Just(" x".to_string()),
        ];
        let ending = prop_oneof![
            8 => Just("\n"),
            2 => Just("\r\n"),
            1 => Just(" \n"),
            1 => Just("\t\n"),
            1 => Just("\r"),
            1 => Just(""),
        ];
        prop_oneof![
            12 => (id.clone(), blank, id, third, ending)
                .prop_map(|(s, b, d, t, e)| format!("{s}{b}{d}{t}{e}").into_bytes()),
            1 => Just(b"# comment 1 2\n".to_vec()),
            1 => Just(b"\n".to_vec()),
            1 => Just(b"  \r\n".to_vec()),
            1 => Just(b"5\n".to_vec()),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(384))]

        /// The whole parallel parse, at any block size (so blocks end on
        /// every line and the eight-byte reads meet every block end), gives
        /// what the line-at-a-time path gives on the whole text: the same
        /// edges in file order, counts and largest id, or the same first
        /// error at the same line and column.
        #[test]
        fn parallel_tiers_agree_with_the_line_path_at_any_block_size(
            lines in proptest::collection::vec(plausible_line(), 0..40),
            block_size in 1usize..96,
            third in proptest::sample::select(vec![Third::Absent, Third::Weight, Third::Timestamp]),
            one_based in proptest::bool::ANY,
            expand_reverse in proptest::bool::ANY,
            drop_self_loops in proptest::bool::ANY,
            max_vertices in proptest::sample::select(vec![usize::MAX, 50_000_000, 6_000]),
            integer_values in proptest::bool::ANY,
        ) {
            let text = lines.concat();
            let syntax = Syntax {
                one_based,
                bounds: one_based.then_some((90_000_000, 7_000)),
                third,
                expand_reverse,
                drop_self_loops,
                max_vertices,
                integer_values,
                nonnegative_weights: false,
                delimiter: Delimiter::Blanks,
            };
            let parsed = syntax.parse_parallel(&text, block_size, None);
            let slow = slow_only(&syntax, &text);
            let (slow_src, slow_dst, slow_weights, slow_timestamps, entries, max_id, error, lines) = slow;
            match first_error(&parsed.blocks, 0) {
                Some(found) => proptest::prop_assert_eq!(Some(found), error),
                None => {
                    proptest::prop_assert_eq!(error, None);
                    let blocks = &parsed.blocks;
                    proptest::prop_assert_eq!(blocks.iter().map(|b| b.entries).sum::<u64>(), entries);
                    proptest::prop_assert_eq!(blocks.iter().filter_map(BlockSummary::max_id).max(), max_id);
                    proptest::prop_assert_eq!(Some(blocks.iter().map(|b| b.lines).sum::<u64>()), lines);
                    let columns = parsed.into_compact_columns();
                    proptest::prop_assert_eq!(columns.src, slow_src);
                    proptest::prop_assert_eq!(columns.dst, slow_dst);
                    if let Some(weights) = slow_weights {
                        let bits: Vec<u32> = columns.weights.iter().map(|w| w.to_bits()).collect();
                        proptest::prop_assert_eq!(bits, weights);
                    }
                    if let Some(timestamps) = slow_timestamps {
                        proptest::prop_assert_eq!(columns.timestamps, timestamps);
                    }
                }
            }
        }
    }

    #[test]
    fn end_position_points_past_the_last_byte() {
        assert_eq!(end_position(b"1 2\n", 1), (2, 1));
        assert_eq!(end_position(b"1 2\n3", 1), (2, 2));
        assert_eq!(end_position(b"", 5), (5, 1));
    }
}
