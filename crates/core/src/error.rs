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
            Self::ValueNotInteger { token } => write!(
                f,
                "value {token} is not an integer, but the Matrix Market header declares the \
                 field 'integer' (fix the value, or declare the field 'real')"
            ),
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
#[derive(Debug)]
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
    /// A file of a durable store that is not what the store wrote (torn,
    /// truncated, corrupted, of another version) and cannot be repaired.
    InvalidStoreFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, and what to do.
        reason: String,
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
            Self::InvalidStructure(message) => write!(f, "invalid graph structure: {message}"),
            Self::InvalidArgument(message) => write!(f, "invalid argument: {message}"),
            Self::NoEdges { path } => write!(
                f,
                "nothing to do: {} has no edges (only comments, blank lines or a header); \
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
