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
    /// Anything else, described in words.
    Other(String),
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
            Self::EmptyInput => write!(f, "the input is empty"),
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
            Self::Other(message) => f.write_str(message),
        }
    }
}

/// The error type of every dyngraph library crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Malformed input text, with where it is and what was expected.
    #[error("{location}: {kind}")]
    Parse {
        /// File, line and column.
        location: Location,
        /// What went wrong.
        kind: ParseErrorKind,
    },
    /// An I/O error on a named file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file being read or written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A binary file that is not a valid dyngraph snapshot (foreign,
    /// truncated, corrupted, or of an unknown version).
    #[error("{}: invalid snapshot: {reason}", path.display())]
    InvalidSnapshot {
        /// The snapshot file.
        path: PathBuf,
        /// Why it was rejected.
        reason: String,
    },
    /// A vertex id that would take the graph past its vertex limit.
    #[error(
        "vertex id {vertex} would need {needed} vertices, more than the limit of {limit} \
         (raise the limit if the id is intended)"
    )]
    VertexLimit {
        /// The offending id.
        vertex: u64,
        /// Vertices it would need (`vertex + 1`).
        needed: u64,
        /// The configured limit.
        limit: u64,
    },
    /// A vertex id outside a graph whose vertex count is fixed.
    #[error("vertex id {vertex} is out of range for a graph of {vertex_count} vertices")]
    VertexOutOfRange {
        /// The offending id.
        vertex: u64,
        /// The graph's vertex count.
        vertex_count: u64,
    },
    /// Inconsistent arrays handed to a constructor.
    #[error("invalid graph structure: {0}")]
    InvalidStructure(String),
    /// An argument outside its domain.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// Shorthand for results carrying [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
