//! What is decided about a text before its lines are parsed: the byte-order
//! mark, whether it is text at all, the format, the delimiter, a header
//! row, and how ids are read. And, once a parse has failed, what the error
//! means for the user (binary data, a separator the file is not read
//! with).

use crate::fields::{Delimiter, next_field};
use crate::format::Format;
use crate::ids::{IdMode, ids_look_numeric};
use crate::number::quote;
use crate::options::LoadOptions;
use crate::parse::{is_skippable, split_line};
use dyngraph_core::{Error, IdKind, Location, ParseErrorKind, Result};
use std::path::Path;

/// The UTF-8 byte-order mark some editors write first: not data.
pub(crate) const BYTE_ORDER_MARK: &[u8] = b"\xef\xbb\xbf";

/// How far into a text the binary check looks: a NUL byte there means it
/// is not text.
const TEXT_CHECK_BYTES: usize = 64 << 10;

/// How a parse reads ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdPlan {
    /// As vertex ids, however sparse.
    Dense,
    /// As labels of this kind, relabelled.
    Relabel(IdKind),
    /// As vertex ids when dense; when sparse or wider than 32 bits,
    /// relabelled (`relabel`) or refused.
    Numeric { relabel: bool },
}

/// A text ready to parse.
#[derive(Debug)]
pub(crate) struct Prepared<'a> {
    /// The text, without a byte-order mark.
    pub(crate) text: &'a [u8],
    pub(crate) path: Option<&'a Path>,
    pub(crate) format: Format,
    pub(crate) delimiter: Delimiter,
    /// Where the edge lines start (after a header row skipped on request),
    /// and that line's number. Matrix Market files start at 0: their
    /// header is read by the parse.
    pub(crate) body: usize,
    pub(crate) body_line: u64,
    pub(crate) plan: IdPlan,
}

impl Prepared<'_> {
    /// The edge lines (see [`Prepared::body`]).
    pub(crate) fn body_text(&self) -> &[u8] {
        &self.text[self.body..]
    }

    /// A parse error at `line`, `column`.
    pub(crate) fn error(&self, line: u64, column: u64, kind: ParseErrorKind) -> Error {
        Error::Parse {
            location: Location::new(self.path.map(Path::to_path_buf), line, column),
            kind,
        }
    }
}

/// One data line: its 1-based number, bytes, and the offset just past it.
struct DataLine<'a> {
    number: u64,
    bytes: &'a [u8],
    end: usize,
}

/// The data lines (neither blank nor comments) of `text` from `offset`,
/// the first numbered `line`.
fn data_lines(text: &[u8], mut offset: usize, mut line: u64) -> impl Iterator<Item = DataLine<'_>> {
    std::iter::from_fn(move || {
        while offset < text.len() {
            let (bytes, rest, _) = split_line(&text[offset..]);
            let end = text.len() - rest.len();
            let number = line;
            offset = end;
            line += 1;
            if !is_skippable(bytes) {
                return Some(DataLine { number, bytes, end });
            }
        }
        None
    })
}

/// Line and column (1-based) of byte `at` of `text`.
fn position(text: &[u8], at: usize) -> (u64, u64) {
    let before = &text[..at];
    let line = memchr::memchr_iter(b'\n', before).count() as u64 + 1;
    let start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    (line, (at - start) as u64 + 1)
}

/// Decides everything about `text` that comes before parsing its lines.
///
/// # Errors
/// An empty (or blank) text; a NUL byte near the start (not text); a
/// delimiter for Matrix Market; an undeclared header row; an id mode
/// Matrix Market does not take.
pub(crate) fn prepare<'a>(
    text: &'a [u8],
    path: Option<&'a Path>,
    options: &LoadOptions,
) -> Result<Prepared<'a>> {
    let text = text.strip_prefix(BYTE_ORDER_MARK).unwrap_or(text);
    let mut prepared = Prepared {
        text,
        path,
        format: options.format.unwrap_or_else(|| Format::detect(path, text)),
        delimiter: Delimiter::Blanks,
        body: 0,
        body_line: 1,
        plan: IdPlan::Dense,
    };
    if text.iter().all(u8::is_ascii_whitespace) {
        return Err(prepared.error(1, 1, ParseErrorKind::EmptyInput));
    }
    if let Some(at) = memchr::memchr(0, &text[..text.len().min(TEXT_CHECK_BYTES)]) {
        let (line, column) = position(text, at);
        return Err(prepared.error(line, column, ParseErrorKind::NotText { byte: 0 }));
    }
    if prepared.format == Format::MatrixMarket {
        if options.delimiter.is_some_and(|d| d != Delimiter::Blanks) {
            return Err(Error::InvalidArgument(
                "Matrix Market fields are separated by blanks; a delimiter applies to edge \
                 lists only"
                    .into(),
            ));
        }
        prepared.plan = match options.ids {
            IdMode::Integers | IdMode::Strings => {
                return Err(Error::InvalidArgument(
                    "Matrix Market ids index the declared matrix and are read as they are: \
                     use the keep, automatic or dense id mode"
                        .into(),
                ));
            }
            _ => IdPlan::Dense,
        };
        return Ok(prepared);
    }
    prepared.delimiter = options.delimiter.unwrap_or(match prepared.format {
        Format::Csv => Delimiter::detect(path, text),
        _ => Delimiter::Blanks,
    });
    let delimiter = prepared.delimiter;
    let mut lines = data_lines(text, 0, 1);
    let first = lines.next();
    if options.header {
        if let Some(header) = &first {
            prepared.body = header.end;
            prepared.body_line = header.number + 1;
        }
    } else if let Some(first) = &first
        && options.ids != IdMode::Strings
        && !ids_look_numeric(first.bytes, delimiter)
        && names_two_columns(first.bytes, delimiter)
        && lines
            .next()
            .is_some_and(|second| ids_look_numeric(second.bytes, delimiter))
    {
        return Err(prepared.error(
            first.number,
            1,
            ParseErrorKind::Header {
                line: quote(first.bytes),
            },
        ));
    }
    let names = || {
        data_lines(text, prepared.body, prepared.body_line)
            .next()
            .is_some_and(|line| !ids_look_numeric(line.bytes, delimiter))
    };
    prepared.plan = match options.ids {
        IdMode::Dense => IdPlan::Dense,
        IdMode::Integers => IdPlan::Relabel(IdKind::Integers),
        IdMode::Strings => IdPlan::Relabel(IdKind::Strings),
        IdMode::Keep | IdMode::Auto if names() => IdPlan::Relabel(IdKind::Strings),
        IdMode::Keep => IdPlan::Numeric { relabel: false },
        IdMode::Auto => IdPlan::Numeric { relabel: true },
    };
    Ok(prepared)
}

/// Whether the line's first two fields are both there and not empty: a
/// header row names its columns (`1,,5` is an edge line with a field
/// missing, not a header).
fn names_two_columns(line: &[u8], delimiter: Delimiter) -> bool {
    let mut pos = 0;
    let mut named = || next_field(line, &mut pos, delimiter).is_some_and(|(_, t)| !t.is_empty());
    named() && named()
}

/// Fields on the first edge line (after the header row, if any).
pub(crate) fn first_line_fields(prepared: &Prepared<'_>) -> usize {
    data_lines(prepared.text, prepared.body, prepared.body_line)
        .next()
        .map_or(0, |line| {
            let mut pos = 0;
            std::iter::from_fn(|| next_field(line.bytes, &mut pos, prepared.delimiter)).count()
        })
}

/// Says more about a parse error where the line tells why it failed: bytes
/// that are not text (a binary file), or a separator the file is not read
/// with (`alice,bob` read as blank-separated).
pub(crate) fn explain(error: Error, prepared: &Prepared<'_>) -> Error {
    let Error::Parse { mut location, kind } = error else {
        return error;
    };
    let line = location
        .line
        .checked_sub(1)
        .and_then(|n| prepared.text.split(|&b| b == b'\n').nth(n as usize))
        .unwrap_or_default();
    let not_text = |b: u8| (b < b' ' && b != b'\t' && b != b'\r') || b == 0x7f;
    if let Some(at) = line.iter().position(|&b| not_text(b)) {
        location.column = at as u64 + 1;
        return Error::Parse {
            location,
            kind: ParseErrorKind::NotText { byte: line[at] },
        };
    }
    // A carriage return inside the line, not just before its newline: the
    // file's lines end with CR alone (`3\r3` read as one field).
    let body = line.strip_suffix(b"\r").unwrap_or(line);
    if let Some(at) = memchr::memchr(b'\r', body) {
        location.column = at as u64 + 1;
        return Error::Parse {
            location,
            kind: ParseErrorKind::CrLineEndings,
        };
    }
    // A delimited file whose line has no delimiter but blanks (a `.tsv` of
    // spaces, `--delimiter tab` on a blank-separated file).
    if let Some(delimiter) = prepared.delimiter.char()
        && prepared.format != Format::MatrixMarket
        && !body.contains(&(delimiter as u8))
        && body.iter().any(|&b| b == b' ' || b == b'\t')
        && matches!(
            kind,
            ParseErrorKind::NonNumeric { .. }
                | ParseErrorKind::MissingField { .. }
                | ParseErrorKind::UnexpectedEof { .. }
        )
    {
        return Error::Parse {
            location,
            kind: ParseErrorKind::DelimiterNotFound { delimiter },
        };
    }
    let reads_blanks =
        prepared.delimiter == Delimiter::Blanks && prepared.format != Format::MatrixMarket;
    let separator = line
        .iter()
        .find(|&&b| b == b',' || b == b';')
        .filter(|_| reads_blanks)
        .map(|&b| char::from(b));
    // A word on the first data line where a number belongs, no header row
    // skipped: say what `--header` does.
    let first_data_line = data_lines(prepared.text, prepared.body, prepared.body_line)
        .next()
        .map(|l| l.number);
    let kind = match kind {
        ParseErrorKind::NonNumeric { token, expected }
            if prepared.body == 0
                && first_data_line == Some(location.line)
                && prepared.format != Format::MatrixMarket =>
        {
            ParseErrorKind::FirstLineNotNumeric { token, expected }
        }
        kind => kind,
    };
    let kind = match (kind, separator) {
        (ParseErrorKind::MissingField { expected }, Some(found)) => {
            ParseErrorKind::FieldsNotSeparated { expected, found }
        }
        (
            ParseErrorKind::UnexpectedEof {
                context: "an edge line",
            },
            Some(found),
        ) => ParseErrorKind::FieldsNotSeparated {
            expected: "destination vertex id",
            found,
        },
        (kind, _) => kind,
    };
    Error::Parse { location, kind }
}
