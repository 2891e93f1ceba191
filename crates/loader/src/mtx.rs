//! The Matrix Market header: banner, comments, size line.

use crate::format::MATRIX_MARKET_BANNER;
use crate::number::{parse_u64, quote};
use crate::parse::{end_position, is_skippable, next_token, split_line};
use dyngraph_core::ParseErrorKind;

/// The value field of a Matrix Market coordinate file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MtxField {
    /// No value: `row col`.
    Pattern,
    /// `row col value`, the value read as an `f32` weight.
    Integer,
    /// `row col value`, the value read as an `f32` weight.
    Real,
}

/// What the header says, and where the entries start.
#[derive(Clone, Debug)]
pub(crate) struct MtxHeader {
    pub(crate) field: MtxField,
    pub(crate) symmetric: bool,
    pub(crate) rows: u64,
    pub(crate) cols: u64,
    pub(crate) entries: u64,
    /// Byte offset of the first line after the size line.
    pub(crate) data_offset: usize,
    /// Line number of that line.
    pub(crate) data_first_line: u64,
}

/// A header error: `(line, column, kind)`.
pub(crate) type HeaderError = (u64, u64, ParseErrorKind);

const HEADER_CONTEXT: &str = "the Matrix Market header";

/// Reads the header of `data`, which must start with the banner.
pub(crate) fn parse_header(data: &[u8], max_vertices: usize) -> Result<MtxHeader, HeaderError> {
    let (banner, mut rest, newline) = split_line(data);
    // A field missing from a header line is a cut-off file when the line
    // is the input's last and has no newline.
    let missing = |line, column, expected, newline: bool| {
        let kind = if newline {
            ParseErrorKind::MissingField { expected }
        } else {
            ParseErrorKind::UnexpectedEof {
                context: HEADER_CONTEXT,
            }
        };
        (line, column, kind)
    };

    let mut pos = 0;
    match next_token(banner, &mut pos) {
        Some((0, token)) if token.eq_ignore_ascii_case(MATRIX_MARKET_BANNER) => {}
        _ => return Err((1, 1, ParseErrorKind::NotMatrixMarket)),
    }
    let mut words = [&b""[..]; 4];
    let expected = [
        "object (matrix)",
        "format (coordinate)",
        "field (pattern, integer or real)",
        "symmetry (general or symmetric)",
    ];
    let mut columns = [0u64; 4];
    for (i, word) in words.iter_mut().enumerate() {
        let Some((offset, token)) = next_token(banner, &mut pos) else {
            return Err(missing(1, banner.len() as u64 + 1, expected[i], newline));
        };
        *word = token;
        columns[i] = offset as u64 + 1;
    }
    if let Some((offset, token)) = next_token(banner, &mut pos) {
        return Err((
            1,
            offset as u64 + 1,
            ParseErrorKind::ExtraField {
                token: quote(token),
            },
        ));
    }
    let unsupported = |i: usize| {
        Err((
            1,
            columns[i],
            ParseErrorKind::UnsupportedMatrixMarket {
                kind: quote(words[i]).to_ascii_lowercase(),
            },
        ))
    };
    let is = |i: usize, name: &str| words[i].eq_ignore_ascii_case(name.as_bytes());
    if !is(0, "matrix") {
        return unsupported(0);
    }
    if !is(1, "coordinate") {
        return unsupported(1);
    }
    let field = if is(2, "pattern") {
        MtxField::Pattern
    } else if is(2, "integer") {
        MtxField::Integer
    } else if is(2, "real") || is(2, "double") {
        MtxField::Real
    } else {
        return unsupported(2);
    };
    let symmetric = if is(3, "general") {
        false
    } else if is(3, "symmetric") {
        true
    } else {
        return unsupported(3);
    };

    // Comments and blank lines, then the size line.
    let mut line_number = 1;
    loop {
        if rest.is_empty() {
            let (line, column) = end_position(data, 1);
            return Err((
                line,
                column,
                ParseErrorKind::UnexpectedEof {
                    context: HEADER_CONTEXT,
                },
            ));
        }
        line_number += 1;
        let (line, tail, newline) = split_line(rest);
        if is_skippable(line) {
            rest = tail;
            continue;
        }
        let mut pos = 0;
        let mut sizes = [0u64; 3];
        let names = ["number of rows", "number of columns", "number of entries"];
        for (i, size) in sizes.iter_mut().enumerate() {
            let Some((start, token)) = next_token(line, &mut pos) else {
                return Err(missing(
                    line_number,
                    line.len() as u64 + 1,
                    names[i],
                    newline,
                ));
            };
            *size =
                parse_u64(token, names[i]).map_err(|kind| (line_number, start as u64 + 1, kind))?;
        }
        if let Some((start, token)) = next_token(line, &mut pos) {
            return Err((
                line_number,
                start as u64 + 1,
                ParseErrorKind::ExtraField {
                    token: quote(token),
                },
            ));
        }
        let [rows, cols, entries] = sizes;
        let vertex_count = rows.max(cols);
        if vertex_count > max_vertices as u64 {
            return Err((
                line_number,
                1,
                ParseErrorKind::Other(format!(
                    "the size line declares {vertex_count} vertices, more than the limit of \
                     {max_vertices} (raise the maximum vertex count if this is intended)"
                )),
            ));
        }
        return Ok(MtxHeader {
            field,
            symmetric,
            rows,
            cols,
            entries,
            data_offset: data.len() - tail.len(),
            data_first_line: line_number + 1,
        });
    }
}
