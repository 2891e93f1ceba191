//! The one error type of the workspace.

use std::fmt;
use std::path::PathBuf;

/// Where in an input something went wrong: file, 1-based line and 1-based
/// byte column. Displayed as `path:line:column`, the form editors and
/// terminals turn into a link.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// The file, when the input came from one.
    pub path: Option<PathBuf>,
    /// 1-based line number.
    pub line: u64,
    /// 1-based byte column within the line.
    pub column: u64,
}

impl Location {
    /// A location in `path`.
    pub fn new(path: Option<PathBuf>, line: u64, column: u64) -> Self {
        Self { path, line, column }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{}:{}:{}", path.display(), self.line, self.column),
            None => write!(f, "<input>:{}:{}", self.line, self.column),
        }
    }
}

/// What a parser expected and found instead.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A token that should be a number is not one.
    NonNumeric {
        /// The offending token (truncated to a readable length).
        token: String,
        /// What the field should hold, e.g. "source vertex id".
        expected: &'static str,
    },
    /// A line ended before a required field.
    MissingField {
        /// The field that is missing.
        expected: &'static str,
    },
    /// A line has more fields than the format allows.
    ExtraField {
        /// The unexpected token.
        token: String,
    },
    /// A vertex id of 0 in a 1-based format (Matrix Market).
    ZeroId,
    /// A negative vertex id.
    NegativeId,
    /// A vertex id that does not fit a [`crate::VertexId`].
    IdTooLarge {
        /// The id as read (truncated text).
        token: String,
    },
    /// A vertex id beyond the size declared by the header.
    IdBeyondSize {
        /// The id as read.
        id: u64,
        /// The declared vertex count.
        size: u64,
    },
    /// The number of entries differs from the header's count.
    EntryCountMismatch {
        /// Entries the header declared.
        declared: u64,
        /// Entries found.
        found: u64,
    },
    /// The input ended in the middle of a line or a header.
    UnexpectedEof {
        /// What was being read.
        context: &'static str,
    },
    /// The input holds no data at all.
    EmptyInput,
    /// The first line is not a Matrix Market banner.
    NotMatrixMarket,
    /// A Matrix Market kind dyngraph does not read (array, complex,
    /// hermitian, ...).
    UnsupportedMatrixMarket {
        /// The kind named in the banner.
        kind: String,
    },
    /// A value that is not a whole number in a Matrix Market file whose
    /// header declares the field `integer`.
    ValueNotInteger {
        /// The offending value (truncated to a readable length).
        token: String,
    },
    /// Bytes that are not text (a NUL or another control byte): a binary
    /// or compressed file that is not gzip, or garbage.
    NotText {
        /// The offending byte.
        byte: u8,
    },
    /// A first line of names in an otherwise numeric file: a header row,
    /// not an edge.
    Header {
        /// The line (truncated to a readable length).
        line: String,
    },
    /// A vertex id wider than 32 bits where ids are kept as they are (the
    /// loader's `IdMode::Keep`); only a relabelling mode reads it.
    WideId {
        /// The id as read (truncated text).
        token: String,
    },
    /// A negative number where only whole numbers from 0 are allowed (a
    /// timestamp).
    NegativeValue {
        /// The offending value.
        token: String,
        /// What the field holds, e.g. "timestamp".
        expected: &'static str,
    },
    /// A third column of fractions where a timestamp (a whole number) is
    /// read: a weight column read with the wrong option.
    TimestampNotInteger {
        /// The offending value (truncated to a readable length).
        token: String,
    },
    /// A weight that is not a number (`NaN`).
    NanWeight {
        /// The offending value.
        token: String,
    },
    /// A negative weight where weights must be 0 or more (shortest paths).
    NegativeWeight {
        /// The offending value.
        token: String,
    },
    /// A line that ends before a field, holding a separator the file is
    /// not read with (`alice,bob` read as blank-separated).
    FieldsNotSeparated {
        /// The field that is missing.
        expected: &'static str,
        /// The separator found in the line.
        found: char,
    },
    /// A number too large for its type: a weight past `f32`'s range, which
    /// would be stored as infinity.
    ValueOutOfRange {
        /// The offending value (truncated to a readable length).
        token: String,
        /// What the field holds, e.g. "weight".
        expected: &'static str,
    },
    /// Lines that end with a lone carriage return (old Mac line endings),
    /// which the reader does not split on.
    CrLineEndings,
    /// A line of a delimited file without its delimiter but with blanks:
    /// the file's fields are separated by blanks.
    DelimiterNotFound {
        /// The delimiter the file is read with.
        delimiter: char,
    },
    /// A non-numeric token on the first data line where a number belongs:
    /// most often a header row (column names).
    FirstLineNotNumeric {
        /// The offending token (truncated to a readable length).
        token: String,
        /// What the field should hold.
        expected: &'static str,
    },
    /// A line longer than a text graph's lines can be (the loader's bound):
    /// not an edge list, or line endings the reader does not split on.
    LineTooLong {
        /// The bound, in bytes.
        limit: u64,
    },
    /// An empty field between two delimiters.
    EmptyField {
        /// What the field should hold.
        expected: &'static str,
    },
    /// Anything else, described in words.
    Other(String),
}

/// How a delimiter is named in a message.
fn delimiter_name(delimiter: char) -> &'static str {
    match delimiter {
        '\t' => "tab",
        ',' => "comma",
        ';' => "semicolon",
        _ => "delimiter",
    }
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NonNumeric { token, expected } => {
                write!(f, "expected {expected}, found non-numeric token {token:?}")
            }
            Self::MissingField { expected } => write!(f, "line ends before the {expected}"),
            Self::ExtraField { token } => write!(f, "unexpected extra field {token:?}"),
            Self::ZeroId => write!(f, "vertex id 0 in a 1-based file (ids start at 1)"),
            Self::NegativeId => write!(f, "negative vertex id"),
            Self::IdTooLarge { token } => {
                write!(f, "vertex id {token} does not fit in 32 bits")
            }
            Self::IdBeyondSize { id, size } => {
                write!(f, "vertex id {id} is beyond the declared size {size}")
            }
            Self::EntryCountMismatch { declared, found } => {
                write!(
                    f,
                    "header declares {declared} entries but the file has {found}"
                )
            }
            Self::UnexpectedEof { context } => write!(f, "file ends in the middle of {context}"),
            Self::EmptyInput => write!(
                f,
                "the input is empty: a graph file holds one edge per line, such as `0 1`"
            ),
            Self::NotMatrixMarket => {
                write!(
                    f,
                    "not a Matrix Market file (expected a '%%MatrixMarket' banner)"
                )
            }
            Self::UnsupportedMatrixMarket { kind } => write!(
                f,
                "unsupported Matrix Market kind '{kind}' (dyngraph reads coordinate \
                 pattern/integer/real, general/symmetric)"
            ),
            Self::ValueNotInteger { token } => write!(
                f,
                "value {token} is not an integer, but the Matrix Market header declares the \
                 field 'integer' (fix the value, or declare the field 'real')"
            ),
            Self::NotText { byte } => write!(
                f,
                "not a text graph file (byte {byte:#04x} is not text): give a text edge list, \
                 a Matrix Market file or a binary Csr file (.dgcsr), each optionally gzipped"
            ),
            Self::Header { line } => write!(
                f,
                "the first line {line:?} is not numeric but the lines after it are: it looks \
                 like a header row; skip it with LoadOptions::header(true) (`--header` on the \
                 command line)"
            ),
            Self::WideId { token } => write!(
                f,
                "vertex id {token} does not fit in 32 bits: relabel the ids with IdMode::Auto \
                 or IdMode::Integers, which keep the originals (`--ids auto` on the command line)"
            ),
            Self::NegativeValue { token, expected } => write!(
                f,
                "{expected} {token} is negative; a {expected} is a whole number from 0 up"
            ),
            Self::TimestampNotInteger { token } => write!(
                f,
                "expected a timestamp (a whole number), found {token:?}: to read the third \
                 column as weights, use LoadOptions::third_column(ThirdColumn::Weight) \
                 (`--third-column weight` on the command line)"
            ),
            Self::NanWeight { token } => {
                write!(
                    f,
                    "weight {token} is not a number; every weight must be one"
                )
            }
            Self::NegativeWeight { token } => write!(
                f,
                "weight {token} is negative, but shortest paths need weights of 0 or more"
            ),
            Self::FieldsNotSeparated { expected, found } => write!(
                f,
                "line ends before the {expected}: fields are separated by blanks (spaces or \
                 tabs), and this line has none but a {found:?}; for {found}-separated values \
                 name the file .csv, or set the delimiter (LoadOptions::delimiter, \
                 `--delimiter '{found}'` on the command line)"
            ),
            Self::ValueOutOfRange { token, expected } => write!(
                f,
                "{expected} {token} is too large for a 32-bit float (at most about 3.4e38): it \
                 would be stored as infinity; write `inf` if infinity is meant"
            ),
            Self::CrLineEndings => write!(
                f,
                "the lines end with a lone carriage return (CR, old Mac line endings), which \
                 the reader does not split on: convert them to LF, e.g. `tr '\\r' '\\n' < FILE > \
                 FILE.el`"
            ),
            Self::DelimiterNotFound { delimiter } => write!(
                f,
                "the line holds no {} but spaces: the file is read as {}-separated (its name \
                 or --delimiter says so) but its fields are separated by blanks; set the \
                 delimiter to blanks (LoadOptions::delimiter(Delimiter::Blanks), `--delimiter \
                 blanks` on the command line)",
                delimiter_name(*delimiter),
                delimiter_name(*delimiter)
            ),
            Self::FirstLineNotNumeric { token, expected } => write!(
                f,
                "expected {expected}, found non-numeric token {token:?} on the first data \
                 line: if that line is a header row (column names), skip it with \
                 LoadOptions::header(true) (`--header` on the command line)"
            ),
            Self::LineTooLong { limit } => write!(
                f,
                "the line is longer than {} MiB: an edge line is tens of bytes, so this is not \
                 an edge list (binary data, or no line endings the reader splits on)",
                limit >> 20
            ),
            Self::EmptyField { expected } => {
                write!(f, "empty field where the {expected} should be")
            }
            Self::Other(message) => f.write_str(message),
        }
    }
}

/// The error type of every dyngraph library crate.
///
/// Each variant's message is complete on its own: it names the file (and
/// line and column where they apply), says what went wrong and, where there
/// is one, what to do about it. [`std::error::Error::source`] never returns
/// an error whose text the message already holds, so a printer that walks
/// the chain (`anyhow`'s `{:#}`, for one) prints every cause once. For
/// [`Error::Io`] it returns the I/O error's own source, if any; the I/O
/// error itself is the variant's `source` field.
///
/// `Debug` prints the same text as `Display`, so that a `main` returning
/// [`Result`] (`fn main() -> dyngraph_core::Result<()>`) and `unwrap`
/// print a readable message; the alternate form `{:#?}` prints the
/// structure (variant and fields).
///
/// ```
/// use dyngraph_core::{Error, Location, ParseErrorKind};
/// let error = Error::Parse {
///     location: Location::new(None, 1, 10),
///     kind: ParseErrorKind::MissingField { expected: "destination vertex id" },
/// };
/// assert_eq!(format!("{error:?}"), "<input>:1:10: line ends before the destination vertex id");
/// assert!(format!("{error:#?}").starts_with("Parse {"));
/// ```
#[non_exhaustive]
pub enum Error {
    /// Malformed input text, with where it is and what was expected.
    Parse {
        /// File, line and column.
        location: Location,
        /// What went wrong.
        kind: ParseErrorKind,
    },
    /// An I/O error on a named file. Displayed as `path: the I/O error`,
    /// followed by what to do for the kinds that have an obvious remedy (a
    /// missing file, a directory given as a file, a full disk, ...).
    Io {
        /// The file being read or written.
        path: PathBuf,
        /// The underlying error (its text is part of this error's message,
        /// so it is not returned by `source()`).
        source: std::io::Error,
    },
    /// A file that starts like a binary `Csr` file (`dyngraph convert
    /// in.txt g.dgcsr`) but is not a valid one: truncated, corrupted, of
    /// another version or byte order.
    InvalidCsrFile {
        /// The file.
        path: PathBuf,
        /// Why it was rejected, and what to do.
        reason: String,
    },
    /// A file that starts like a binary edge-stream file (`dyngraph gen
    /// ... -o g.dges`, `dyngraph convert in.txt g.dges`) but is not a valid
    /// one: truncated, corrupted, of another version or byte order, or
    /// with counts that disagree with its size.
    InvalidEdgeStreamFile {
        /// The file.
        path: PathBuf,
        /// The byte offset in the file where the fault lies.
        offset: u64,
        /// Why it was rejected, and what to do.
        reason: String,
    },
    /// A file of a durable store that is not what the store wrote (torn,
    /// truncated, corrupted, of another version) and cannot be repaired.
    InvalidStoreFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, and what to do.
        reason: String,
    },
    /// Numeric ids kept as they are (the loader's default) that are too
    /// sparse to be vertex ids: the largest would size the graph far past
    /// the ids that occur.
    SparseIds {
        /// The file, when the input came from one.
        path: Option<PathBuf>,
        /// The largest id.
        largest: u64,
        /// Distinct ids that occur.
        distinct: u64,
    },
    /// A vertex id that would take the graph past its vertex limit.
    VertexLimit {
        /// The offending id.
        vertex: u64,
        /// Vertices it would need (`vertex + 1`).
        needed: u64,
        /// The configured limit.
        limit: u64,
    },
    /// A vertex id outside a graph whose vertex count is fixed.
    VertexOutOfRange {
        /// The offending id.
        vertex: u64,
        /// The graph's vertex count.
        vertex_count: u64,
    },
    /// Inconsistent arrays handed to a constructor.
    InvalidStructure(String),
    /// An argument outside its domain.
    InvalidArgument(String),
    /// An input with no edges where a job needs some (a replay, a
    /// kernel run): only comments, blank lines or a header.
    NoEdges {
        /// The input.
        path: PathBuf,
        /// What needed them, as a verb (`"replay"`, `"load"`).
        job: &'static str,
    },
    /// A read of a capability the store was built without (in-edges,
    /// weights): never answered with an empty list or a default weight.
    MissingCapability {
        /// The store asked (`"Csr"`, `"Vcsr"`, ...).
        store: &'static str,
        /// What it lacks.
        capability: Capability,
    },
}

impl Error {
    /// [`Error::MissingCapability`] for `store`.
    pub fn missing(store: &'static str, capability: Capability) -> Self {
        Error::MissingCapability { store, capability }
    }
}

/// A capability a store may be built with or without.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Capability {
    /// In-edges (the transpose), for pull kernels.
    InEdges,
    /// Edge weights.
    Weights,
}

impl Capability {
    /// What a user does to have it.
    pub fn remedy(self) -> &'static str {
        match self {
            Capability::InEdges => {
                "build it with in-edges (`StoreOptions::in_edges(true)`, \
                 `CsrOptions::in_edges(true)`, or `--in-edges on` on the command line)"
            }
            Capability::Weights => {
                "build it with weights (`StoreOptions::weighted(true)`) from a weighted input"
            }
        }
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Capability::InEdges => "in-edges",
            Capability::Weights => "weights",
        })
    }
}

/// What a user can do about an I/O error of this kind, if anything obvious.
fn io_remedy(kind: std::io::ErrorKind) -> Option<&'static str> {
    use std::io::ErrorKind as Kind;
    Some(match kind {
        Kind::NotFound => "check the path",
        Kind::PermissionDenied => "check the file's permissions",
        Kind::IsADirectory => "give the path of a file, not a directory",
        Kind::NotADirectory => "a component of the path is a file, not a directory",
        Kind::StorageFull => "free some space or write elsewhere",
        Kind::FileTooLarge => "the file-size limit was reached (see `ulimit -f`)",
        Kind::ReadOnlyFilesystem => "write to another file system",
        Kind::QuotaExceeded => "the disk quota is used up; free some space",
        _ => return None,
    })
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Parse { location, kind } => write!(f, "{location}: {kind}"),
            Self::Io { path, source } => {
                write!(f, "{}: {source}", path.display())?;
                match io_remedy(source.kind()) {
                    Some(remedy) => write!(f, " ({remedy})"),
                    None => Ok(()),
                }
            }
            Self::InvalidCsrFile { path, reason } => {
                write!(
                    f,
                    "{}: not a valid binary Csr file: {reason}",
                    path.display()
                )
            }
            Self::InvalidEdgeStreamFile {
                path,
                offset,
                reason,
            } => write!(
                f,
                "{}: not a valid binary edge stream file (at byte {offset}): {reason}",
                path.display()
            ),
            Self::InvalidStoreFile { path, reason } => {
                write!(f, "{}: not a valid store file: {reason}", path.display())
            }
            Self::VertexLimit {
                vertex,
                needed,
                limit,
            } => write!(
                f,
                "vertex id {vertex} would need {needed} vertices, more than the limit of {limit} \
                 (raise the limit if the id is intended)"
            ),
            Self::VertexOutOfRange {
                vertex,
                vertex_count,
            } => write!(
                f,
                "vertex id {vertex} is out of range for a graph of {vertex_count} vertices"
            ),
            Self::SparseIds {
                path,
                largest,
                distinct,
            } => write!(
                f,
                "{}: vertex ids go up to {largest} but only {distinct} distinct ids occur; kept \
                 as vertex ids they would take {} vertices. Relabel them with IdMode::Auto, \
                 which keeps the originals in ids() (`--ids auto` on the command line), or keep \
                 them anyway with IdMode::Dense (`--ids dense`)",
                path.as_ref()
                    .map_or_else(|| "<input>".into(), |p| p.display().to_string()),
                u128::from(*largest) + 1
            ),
            Self::InvalidStructure(message) => write!(f, "invalid graph structure: {message}"),
            Self::InvalidArgument(message) => write!(f, "invalid argument: {message}"),
            Self::NoEdges { path, job } => write!(
                f,
                "nothing to {job}: {} has no edges (only comments, blank lines or a header); \
                 give a file with at least one edge",
                path.display()
            ),
            Self::MissingCapability { store, capability } => write!(
                f,
                "{store} was built without {capability}; {}",
                capability.remedy()
            ),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return fmt::Display::fmt(self, f);
        }
        match self {
            Self::Parse { location, kind } => f
                .debug_struct("Parse")
                .field("location", location)
                .field("kind", kind)
                .finish(),
            Self::Io { path, source } => f
                .debug_struct("Io")
                .field("path", path)
                .field("source", source)
                .finish(),
            Self::InvalidCsrFile { path, reason } => f
                .debug_struct("InvalidCsrFile")
                .field("path", path)
                .field("reason", reason)
                .finish(),
            Self::InvalidEdgeStreamFile {
                path,
                offset,
                reason,
            } => f
                .debug_struct("InvalidEdgeStreamFile")
                .field("path", path)
                .field("offset", offset)
                .field("reason", reason)
                .finish(),
            Self::InvalidStoreFile { path, reason } => f
                .debug_struct("InvalidStoreFile")
                .field("path", path)
                .field("reason", reason)
                .finish(),
            Self::SparseIds {
                path,
                largest,
                distinct,
            } => f
                .debug_struct("SparseIds")
                .field("path", path)
                .field("largest", largest)
                .field("distinct", distinct)
                .finish(),
            Self::VertexLimit {
                vertex,
                needed,
                limit,
            } => f
                .debug_struct("VertexLimit")
                .field("vertex", vertex)
                .field("needed", needed)
                .field("limit", limit)
                .finish(),
            Self::VertexOutOfRange {
                vertex,
                vertex_count,
            } => f
                .debug_struct("VertexOutOfRange")
                .field("vertex", vertex)
                .field("vertex_count", vertex_count)
                .finish(),
            Self::NoEdges { path, job } => f
                .debug_struct("NoEdges")
                .field("path", path)
                .field("job", job)
                .finish(),
            Self::InvalidStructure(message) => {
                f.debug_tuple("InvalidStructure").field(message).finish()
            }
            Self::InvalidArgument(message) => {
                f.debug_tuple("InvalidArgument").field(message).finish()
            }
            Self::MissingCapability { store, capability } => f
                .debug_struct("MissingCapability")
                .field("store", store)
                .field("capability", capability)
                .finish(),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // The I/O error's text is already in the message: hand on only
            // what lies behind it.
            Self::Io { source, .. } => source.source(),
            _ => None,
        }
    }
}

/// Shorthand for results carrying [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// What `anyhow`'s `{:#}` prints: the message, then each source's.
    fn chain(error: &dyn std::error::Error) -> String {
        let mut text = error.to_string();
        let mut next = error.source();
        while let Some(source) = next {
            text.push_str(": ");
            text.push_str(&source.to_string());
            next = source.source();
        }
        text
    }

    #[test]
    fn io_error_chain_names_the_os_error_once() {
        let error = Error::Io {
            path: "nonexist.el".into(),
            source: std::io::Error::from_raw_os_error(2),
        };
        let text = chain(&error);
        assert_eq!(
            text,
            "nonexist.el: No such file or directory (os error 2) (check the path)"
        );
        assert_eq!(text.matches("os error 2").count(), 1, "{text}");
    }

    #[test]
    fn custom_io_error_chain_is_printed_once() {
        let error = Error::Io {
            path: "trunc.el.gz".into(),
            source: std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "unexpected end of file",
            ),
        };
        let text = chain(&error);
        assert_eq!(text, "trunc.el.gz: unexpected end of file");
    }

    /// Issue 25: `fn main() -> Result<()>` printed `Error: Parse {
    /// location: .. }`; what `main` and `unwrap` print is the `Debug` form.
    #[test]
    fn debug_prints_the_readable_message_and_alternate_debug_the_structure() {
        let error = Error::Parse {
            location: Location::new(Some("g.el".into()), 1, 10),
            kind: ParseErrorKind::MissingField {
                expected: "destination vertex id",
            },
        };
        let readable = "g.el:1:10: line ends before the destination vertex id";
        assert_eq!(format!("{error:?}"), readable);
        assert_eq!(
            format!("{:?}", Err::<(), _>(error.to_string())),
            format!("Err({readable:?})")
        );
        let structured = format!("{error:#?}");
        assert!(structured.starts_with("Parse {"), "{structured}");
        assert!(structured.contains("MissingField"), "{structured}");
        let io = Error::Io {
            path: "x".into(),
            source: std::io::Error::from_raw_os_error(2),
        };
        assert_eq!(format!("{io:?}"), io.to_string());
        assert!(format!("{io:#?}").starts_with("Io {"));
    }

    #[test]
    fn directory_error_says_what_to_do() {
        let error = Error::Io {
            path: "data".into(),
            source: std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory"),
        };
        assert_eq!(
            error.to_string(),
            "data: is a directory (give the path of a file, not a directory)"
        );
    }
}
