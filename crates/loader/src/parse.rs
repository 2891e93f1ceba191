//! The parallel text parser: header, blocks aligned on line starts,
//! per-thread buffers, and error locations resolved after the fact.
//!
//! A block knows nothing of the lines before it, so it records errors as
//! "the n-th line of this buffer, byte column c"; once every buffer is done,
//! the newline counts of the buffers before the first error turn that into
//! a file line number. Buffers are rayon `fold` accumulators over
//! consecutive blocks, collected in file order: one growing buffer per
//! thread's share of the file, GVEL's per-thread edge lists.

use crate::number::{parse_f32, parse_u64, parse_vertex, quote};
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

/// One thread's edges for a run of consecutive blocks.
#[derive(Debug, Default)]
pub(crate) struct Buffer {
    pub(crate) src: Vec<VertexId>,
    pub(crate) dst: Vec<VertexId>,
    pub(crate) weights: Vec<Weight>,
    pub(crate) timestamps: Vec<Timestamp>,
    /// Newlines consumed (valid up to the error, if any).
    pub(crate) lines: u64,
    /// Data lines read (before symmetric expansion or dropping).
    pub(crate) entries: u64,
    /// Largest id read (stored, 0-based), including dropped self-loops.
    pub(crate) max_id: Option<VertexId>,
    pub(crate) error: Option<LocalError>,
}

/// A field error: 0-based byte offset in the line and what went wrong.
struct FieldError {
    offset: usize,
    kind: ParseErrorKind,
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

#[inline]
fn required<'a>(
    line: &'a [u8],
    pos: &mut usize,
    expected: &'static str,
) -> Result<(usize, &'a [u8]), FieldError> {
    next_token(line, pos).ok_or(FieldError {
        offset: line.len(),
        kind: ParseErrorKind::MissingField { expected },
    })
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
    fn parse_line(&self, line: &[u8], buffer: &mut Buffer) -> Result<(), FieldError> {
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
        let at = |offset| move |kind| FieldError { offset, kind };
        let mut weight: Weight = 0.0;
        let mut timestamp: Timestamp = 0;
        match self.third {
            Third::Absent => {}
            Third::Weight => {
                let (offset, token) = required(line, &mut pos, "weight")?;
                weight = parse_f32(token, "weight").map_err(at(offset))?;
            }
            Third::Timestamp | Third::TimestampChecked => {
                let (offset, token) = required(line, &mut pos, "timestamp")?;
                timestamp = parse_u64(token, "timestamp").map_err(at(offset))?;
            }
            Third::Ignore => {
                required(line, &mut pos, "third column")?;
            }
        }
        if let Some((offset, token)) = next_token(line, &mut pos) {
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

    /// Records one well-formed data line.
    #[inline(always)]
    fn accept(
        &self,
        buffer: &mut Buffer,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
        timestamp: Timestamp,
    ) {
        buffer.entries += 1;
        buffer.max_id = buffer.max_id.max(Some(src.max(dst)));
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
        for &byte in rest[start..].iter().take(10) {
            let digit = byte.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            value = value * 10 + u64::from(digit);
            *i += 1;
        }
        if *i == start || value > u64::from(u32::MAX) {
            return None;
        }
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

    /// Parses a well-formed data line at the start of `rest` in one pass,
    /// without looking for its end first. Returns the bytes consumed
    /// (newline included) and whether a newline ended it; `None`, with
    /// nothing recorded, for anything else (comments, blank lines, CRs in
    /// odd places, errors), which the line-at-a-time path then handles.
    #[inline(always)]
    fn fast_line(&self, rest: &[u8], buffer: &mut Buffer) -> Option<(usize, bool)> {
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
                Third::Weight => weight = parse_f32(token, "weight").ok()?,
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
        buffer: &mut Buffer,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
        timestamp: Timestamp,
    ) {
        buffer.src.push(src);
        buffer.dst.push(dst);
        match self.third {
            Third::Weight => buffer.weights.push(weight),
            Third::Timestamp => buffer.timestamps.push(timestamp),
            Third::Absent | Third::Ignore | Third::TimestampChecked => {}
        }
    }

    /// Parses every line of `block` (which starts at a line start and ends
    /// after a newline or at the end of the input) into `buffer`.
    fn parse_block(&self, block: &[u8], buffer: &mut Buffer) {
        if buffer.src.capacity() == 0 {
            // A guess of ~16 bytes a line saves the first few regrowths.
            let guess = block.len() / 16;
            buffer.src.reserve(guess);
            buffer.dst.reserve(guess);
        }
        let mut rest = block;
        while !rest.is_empty() {
            if let Some((consumed, newline)) = self.fast_line(rest, buffer) {
                buffer.lines += u64::from(newline);
                rest = &rest[consumed..];
                continue;
            }
            let (line, tail, newline) = split_line(rest);
            if let Err(error) = self.parse_line(line, buffer) {
                // Only the input's last line can lack a newline (blocks end
                // after one), so a field missing there means the file was
                // cut off mid-line.
                let kind = match error.kind {
                    ParseErrorKind::MissingField { .. } if !newline => {
                        ParseErrorKind::UnexpectedEof {
                            context: "an edge line",
                        }
                    }
                    kind => kind,
                };
                buffer.error = Some(LocalError {
                    lines_before: buffer.lines,
                    column: error.offset as u64 + 1,
                    kind,
                });
                return;
            }
            buffer.lines += u64::from(newline);
            rest = tail;
        }
    }

    /// Parses `data` in parallel blocks of about `block_size` bytes; the
    /// buffers come back in file order.
    pub(crate) fn parse_parallel(&self, data: &[u8], block_size: usize) -> Vec<Buffer> {
        let blocks = line_aligned_blocks(data, block_size);
        // Blocks after one that failed need not be parsed: only the lines
        // before the first error matter.
        let first_failed = AtomicUsize::new(usize::MAX);
        blocks
            .par_iter()
            .enumerate()
            .fold(Buffer::default, |mut buffer, (index, range)| {
                if buffer.error.is_none() && index < first_failed.load(Ordering::Relaxed) {
                    self.parse_block(&data[range.clone()], &mut buffer);
                    if buffer.error.is_some() {
                        first_failed.fetch_min(index, Ordering::Relaxed);
                    }
                }
                buffer
            })
            .collect()
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
    buffers: &[Buffer],
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

    /// The line-at-a-time path alone, for comparison with `parse_block`'s
    /// fast path.
    fn slow_only(syntax: &Syntax, block: &[u8]) -> Buffer {
        let mut buffer = Buffer::default();
        let mut rest = block;
        while !rest.is_empty() {
            let (line, tail, newline) = split_line(rest);
            if let Err(error) = syntax.parse_line(line, &mut buffer) {
                buffer.error = Some(LocalError {
                    lines_before: buffer.lines,
                    column: error.offset as u64 + 1,
                    kind: error.kind,
                });
                break;
            }
            buffer.lines += u64::from(newline);
            rest = tail;
        }
        buffer
    }

    fn summary(buffer: &Buffer) -> impl PartialEq + std::fmt::Debug {
        (
            buffer.src.clone(),
            buffer.dst.clone(),
            buffer
                .weights
                .iter()
                .map(|w| w.to_bits())
                .collect::<Vec<_>>(),
            buffer.timestamps.clone(),
            buffer.entries,
            buffer.max_id,
            buffer
                .error
                .as_ref()
                .map(|e| (e.lines_before, e.column, e.kind.clone())),
            // Lines only count up to an error.
            buffer.error.is_none().then_some(buffer.lines),
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
                proptest::sample::select(b"0123456789 \t\r\n#.-e".to_vec()), 0..120),
            third in proptest::sample::select(vec![Third::Absent, Third::Weight, Third::Timestamp, Third::Ignore]),
            one_based in proptest::bool::ANY,
            expand_reverse in proptest::bool::ANY,
            drop_self_loops in proptest::bool::ANY,
        ) {
            let syntax = Syntax {
                one_based,
                bounds: one_based.then_some((500, 40)),
                third,
                expand_reverse,
                drop_self_loops,
                max_vertices: 1000,
            };
            let mut fast = Buffer::default();
            syntax.parse_block(&text, &mut fast);
            // parse_block turns a missing field on an unterminated last
            // line into UnexpectedEof; do the same for the comparison.
            let mut slow = slow_only(&syntax, &text);
            if let Some(error) = &mut slow.error
                && matches!(error.kind, ParseErrorKind::MissingField { .. })
                && fast.error.as_ref().is_some_and(|e| matches!(e.kind, ParseErrorKind::UnexpectedEof { .. }))
            {
                error.kind = ParseErrorKind::UnexpectedEof { context: "an edge line" };
            }
            proptest::prop_assert_eq!(summary(&fast), summary(&slow));
        }
    }

    #[test]
    fn end_position_points_past_the_last_byte() {
        assert_eq!(end_position(b"1 2\n", 1), (2, 1));
        assert_eq!(end_position(b"1 2\n3", 1), (2, 2));
        assert_eq!(end_position(b"", 5), (5, 1));
    }
}
