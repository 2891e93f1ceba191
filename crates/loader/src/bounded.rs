//! Reading a stream whose end is not known in advance (a pipe, a file
//! that reports no size, a gzip member's output) without letting garbage
//! take the machine's memory: the text is read a chunk at a time, and it
//! stops with an error as soon as it cannot be a text graph — a line past
//! [`MAX_LINE_BYTES`] (`/dev/zero` has no newline at all), or bytes that are
//! not text at its start (`/dev/urandom`) — instead of after the stream
//! ends, which for a device is never.

use crate::parse::MAX_LINE_BYTES;
use dyngraph_core::{Error, Location, ParseErrorKind};
use std::io::Read;
use std::path::{Path, PathBuf};

const CHUNK: usize = 1 << 20;

/// Bytes at the start of a stream checked for being text: as many as the
/// whole-file readers check (`prepare`'s `TEXT_CHECK_BYTES`).
const TEXT_CHECK: usize = 4096;

/// Why reading stopped before the end.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The reader failed (for a gzip decoder: the compressed data broke).
    Io(std::io::Error),
    /// The bytes cannot be a text graph: an overlong line, or not text.
    Text(Error),
}

/// Whether `head` starts a binary input the loader reads (gzip, a binary
/// `Csr` file, a binary edge stream): no line structure to bound.
fn is_binary_input(head: &[u8]) -> bool {
    crate::format::is_gzip(head)
        || crate::csr_file::has_magic(head)
        || crate::edge_stream_file::has_magic(head)
}

/// Text read so far from one or more readers in turn (the members of a
/// gzip file), with where its current line starts.
#[derive(Debug)]
pub(crate) struct TextReader<'p> {
    path: &'p Path,
    pub(crate) bytes: Vec<u8>,
    checked_head: bool,
    binary: bool,
    line_start: usize,
    lines: u64,
}

impl<'p> TextReader<'p> {
    pub(crate) fn new(path: &'p Path) -> Self {
        Self {
            path,
            bytes: Vec::new(),
            checked_head: false,
            binary: false,
            line_start: 0,
            lines: 0,
        }
    }

    fn refuse(&self, line: u64, column: u64, kind: ParseErrorKind) -> Refused {
        Refused::Text(Error::Parse {
            location: Location::new(Some(PathBuf::from(self.path)), line, column),
            kind,
        })
    }

    /// Appends `reader`'s bytes to its end, refusing a line longer than
    /// [`MAX_LINE_BYTES`] and a NUL byte near the start of the text (a
    /// binary stream that is none of the loader's formats) as soon as they
    /// arrive.
    pub(crate) fn read_from(&mut self, mut reader: impl Read) -> Result<(), Refused> {
        loop {
            let filled = self.bytes.len();
            self.bytes.resize(filled + CHUNK, 0);
            let read = match reader.read(&mut self.bytes[filled..]) {
                Ok(read) => read,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    self.bytes.truncate(filled);
                    continue;
                }
                Err(e) => {
                    self.bytes.truncate(filled);
                    return Err(Refused::Io(e));
                }
            };
            self.bytes.truncate(filled + read);
            self.check(filled, read == 0)?;
            if read == 0 {
                return Ok(());
            }
        }
    }

    /// Checks the bytes from `filled` on; `done` when the reader ended.
    fn check(&mut self, filled: usize, done: bool) -> Result<(), Refused> {
        if !self.checked_head && (self.bytes.len() >= TEXT_CHECK || done) {
            self.checked_head = true;
            self.binary = is_binary_input(&self.bytes);
            // Positions count from after a byte-order mark, as the parse's
            // do (`prepare` strips it): the same NUL is at the same column
            // whether the text came whole or through a stream.
            let head = &self.bytes[..self.bytes.len().min(TEXT_CHECK)];
            let head = head
                .strip_prefix(crate::prepare::BYTE_ORDER_MARK)
                .unwrap_or(head);
            if !self.binary
                && let Some(at) = memchr::memchr(0, head)
            {
                let line = memchr::memchr_iter(b'\n', &head[..at]).count() as u64;
                let column = at - memchr::memrchr(b'\n', &head[..at]).map_or(0, |n| n + 1);
                return Err(self.refuse(
                    line + 1,
                    column as u64 + 1,
                    ParseErrorKind::NotText { byte: 0 },
                ));
            }
        }
        if self.binary {
            return Ok(());
        }
        for at in memchr::memchr_iter(b'\n', &self.bytes[filled..]) {
            self.line_start = filled + at + 1;
            self.lines += 1;
        }
        if self.bytes.len() - self.line_start > MAX_LINE_BYTES {
            return Err(self.refuse(
                self.lines + 1,
                MAX_LINE_BYTES as u64 + 1,
                ParseErrorKind::LineTooLong {
                    limit: MAX_LINE_BYTES as u64,
                },
            ));
        }
        Ok(())
    }

    pub(crate) fn into_bytes(mut self) -> Vec<u8> {
        self.bytes.shrink_to_fit();
        self.bytes
    }
}

/// Reads `reader` to its end through a [`TextReader`].
///
/// # Errors
/// [`Error::Io`] naming `path` for a read error; [`Error::Parse`] with
/// the line and column of an overlong line or of a NUL byte.
pub(crate) fn read_text(reader: impl Read, path: &Path) -> dyngraph_core::Result<Vec<u8>> {
    let mut text = TextReader::new(path);
    match text.read_from(reader) {
        Ok(()) => Ok(text.into_bytes()),
        Err(Refused::Text(error)) => Err(error),
        Err(Refused::Io(source)) => Err(Error::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_line_is_refused_after_the_bound_not_at_the_end() {
        // An endless stream of one byte, like /dev/zero without the NULs.
        let endless = std::io::repeat(b'7');
        let error = read_text(endless, Path::new("/dev/sevens")).unwrap_err();
        assert!(
            matches!(&error, Error::Parse { kind: ParseErrorKind::LineTooLong { .. }, location }
                if location.line == 1),
            "{error}"
        );
    }

    #[test]
    fn zeros_and_noise_are_refused_before_the_end() {
        let error = read_text(std::io::repeat(0), Path::new("/dev/zero")).unwrap_err();
        assert!(error.to_string().contains("/dev/zero:1:1"), "{error}");
        // Bytes without a NUL, newlines rare: refused at the first long line.
        let noise = (0..u32::MAX).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 | 1);
        let noise: Vec<u8> = noise.take(4 << 20).collect();
        assert!(read_text(&noise[..], Path::new("noise")).is_err());
    }

    /// Found by the gzip fuzz target: a NUL after a byte-order mark was
    /// named at column 2 in the text itself and at column 5 through the
    /// gzip stream, which counted the mark's three bytes.
    #[test]
    fn a_nul_after_a_byte_order_mark_is_placed_as_the_parse_places_it() {
        let text = b"\xef\xbb\xbf\x1f\x00 1\n";
        let streamed = read_text(&text[..], Path::new("t")).unwrap_err();
        let whole = crate::parse_edge_stream(text, &crate::LoadOptions::default()).unwrap_err();
        let at = |e: &Error| match e {
            Error::Parse { location, .. } => (location.line, location.column),
            other => panic!("{other}"),
        };
        assert_eq!(at(&streamed), (1, 2));
        assert_eq!(at(&streamed), at(&whole));
    }

    #[test]
    fn text_and_gzip_pass_whole() {
        let text = b"0 1\n1 2\n".repeat(300_000);
        assert_eq!(read_text(&text[..], Path::new("t")).unwrap(), text);
        let gzip = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0].repeat(300_000);
        assert_eq!(read_text(&gzip[..], Path::new("g")).unwrap(), gzip);
    }
}
