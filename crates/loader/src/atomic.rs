//! Files that appear whole or not at all.

use dyngraph_core::{Error, Result};
use std::fs::File;
use std::io::{BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Buffer of the writer behind an [`AtomicFile`].
const BUFFER_BYTES: usize = 1 << 20;

/// Distinguishes the temporary files of one process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A file written under a temporary name in its destination's directory
/// and renamed over the destination only once it is complete: flushed,
/// synced to disk ([`File::sync_all`]), renamed, and the directory synced
/// too. Until [`AtomicFile::commit`] returns `Ok`, the destination holds
/// what it held before (or does not exist), whatever happens: a write
/// error, a full disk, a crash, a kill. An `AtomicFile` dropped without a
/// commit removes its temporary file; a crash can leave one behind, named
/// `.NAME.PID.N.tmp` beside the destination.
///
/// Every file dyngraph writes goes through one: [`crate::write_edges`],
/// [`crate::write_csr_file`], and the CLI's JSON, CSV and SVG reports.
///
/// A symbolic link is followed: the file it points at is replaced and the
/// link stays. A destination that exists and is not a regular file (a
/// device such as `/dev/null`, a named pipe, a socket) is written in
/// place: it cannot be replaced whole, and renaming a file over it would
/// destroy it (run as root, `-o /dev/null` would leave a regular file in
/// its stead that every later reader of `/dev/null` reads).
///
/// ```
/// use dyngraph_loader::AtomicFile;
/// use std::io::Write;
///
/// let path = std::env::temp_dir().join(format!("dyngraph-doc-atomic-{}.txt", std::process::id()));
/// std::fs::write(&path, "old\n").unwrap();
/// let mut file = AtomicFile::create(&path)?;
/// file.write_all(b"new\n").unwrap();
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n"); // not yet
/// file.commit()?;
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Debug)]
pub struct AtomicFile {
    /// The destination as given, for messages.
    path: PathBuf,
    /// Where the bytes go.
    target: Target,
    writer: Option<BufWriter<File>>,
}

#[derive(Debug)]
enum Target {
    /// A temporary file renamed over `destination` (the given path with
    /// its symbolic links followed) at commit.
    Replace { temp: PathBuf, destination: PathBuf },
    /// A device, pipe or socket, opened and written where it is.
    InPlace,
}

/// The directory a file named `path` goes into (`.` for a bare name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Links followed at most before `path` is taken as it is (the kernel's
/// own limit, `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// `path` with its symbolic links followed, also a dangling one's (whose
/// target is the file to create); in a loop of links the following stops
/// after [`MAX_LINKS`], and the link reached then is replaced as a file.
fn follow_links(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        match std::fs::read_link(&path) {
            // A relative target is relative to the link's directory; an
            // absolute one replaces the whole path.
            Ok(target) if is_link => path = directory_of(&path).join(target),
            _ => break,
        }
    }
    path
}

/// Whether `path` exists and is something other than a regular file or
/// a directory: a device, a named pipe, a socket.
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

impl AtomicFile {
    /// Creates the temporary file for `path` beside it. This is also the
    /// check that `path` can be written: its directory exists and takes new
    /// files, and `path` is not a directory.
    ///
    /// # Errors
    /// [`Error::Io`] on `path`, saying what is wrong: the directory does
    /// not exist, `path` is a directory, permission denied, ...
    pub fn create(path: impl AsRef<Path>) -> Result<AtomicFile> {
        let path = path.as_ref();
        let fail = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let Some(name) = path.file_name() else {
            return Err(fail(std::io::Error::new(
                ErrorKind::InvalidInput,
                "names no file (give a file name, not a directory)",
            )));
        };
        if path.is_dir() {
            return Err(fail(std::io::Error::new(
                ErrorKind::IsADirectory,
                "is a directory",
            )));
        }
        let destination = follow_links(path);
        if is_special(&destination) {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&destination)
                .map_err(fail)?;
            return Ok(AtomicFile {
                path: path.to_path_buf(),
                target: Target::InPlace,
                writer: Some(BufWriter::with_capacity(BUFFER_BYTES, file)),
            });
        }
        let name = destination.file_name().unwrap_or(name);
        let directory = directory_of(&destination);
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(
            ".{}.{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let temp = directory.join(temp_name);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|error| {
                fail(match error.kind() {
                    ErrorKind::NotFound => std::io::Error::new(
                        ErrorKind::NotFound,
                        format!(
                            "cannot create a file there: the directory {} does not exist",
                            directory.display()
                        ),
                    ),
                    ErrorKind::NotADirectory => std::io::Error::new(
                        ErrorKind::NotADirectory,
                        format!(
                            "cannot create a file there: {} is not a directory",
                            directory.display()
                        ),
                    ),
                    ErrorKind::PermissionDenied => std::io::Error::new(
                        ErrorKind::PermissionDenied,
                        format!(
                            "cannot create a file there: permission denied in {}",
                            directory.display()
                        ),
                    ),
                    _ => error,
                })
            })?;
        // A replaced file keeps its permissions.
        if let Ok(metadata) = std::fs::metadata(&destination) {
            let _ = file.set_permissions(metadata.permissions());
        }
        Ok(AtomicFile {
            path: path.to_path_buf(),
            target: Target::Replace { temp, destination },
            writer: Some(BufWriter::with_capacity(BUFFER_BYTES, file)),
        })
    }

    /// Checks that `path` can be written, as [`AtomicFile::create`] does,
    /// without writing anything: a temporary file is created beside it and
    /// removed. A device or named pipe is not opened (opening a pipe waits
    /// for its reader); its write reports its own errors.
    ///
    /// # Errors
    /// As [`AtomicFile::create`].
    pub fn check(path: impl AsRef<Path>) -> Result<()> {
        if is_special(&follow_links(path.as_ref())) {
            return Ok(());
        }
        drop(AtomicFile::create(path)?);
        Ok(())
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn writer(&mut self) -> &mut BufWriter<File> {
        self.writer.as_mut().expect("present until commit or drop")
    }

    /// Flushes and syncs the temporary file, renames it over the
    /// destination and syncs the directory, so the new file is there whole
    /// and survives a power cut. A device or pipe written in place is only
    /// flushed.
    ///
    /// # Errors
    /// [`Error::Io`] on the destination; the destination then holds what it
    /// held before (unless only the final directory sync failed), and the
    /// temporary file is removed.
    pub fn commit(mut self) -> Result<()> {
        let writer = self.writer.take().expect("present until commit or drop");
        let result = match &self.target {
            Target::Replace { temp, destination } => {
                let result = replace(writer, temp, destination);
                if result.is_err() {
                    let _ = std::fs::remove_file(temp);
                }
                result
            }
            // A device or pipe has nothing to sync or rename.
            Target::InPlace => writer
                .into_inner()
                .map(drop)
                .map_err(|error| error.into_error()),
        };
        result.map_err(|source| Error::Io {
            path: self.path.clone(),
            source,
        })
    }
}

/// Flushes and syncs `temp`, renames it over `destination` and syncs the
/// directory.
fn replace(writer: BufWriter<File>, temp: &Path, destination: &Path) -> std::io::Result<()> {
    let file = writer.into_inner().map_err(|error| error.into_error())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(temp, destination)?;
    // The rename is in the directory: sync it so the new name is durable.
    // Some file systems cannot sync a directory; the rename stands either
    // way.
    if let Ok(directory) = File::open(directory_of(destination)) {
        match directory.sync_all() {
            Err(error)
                if !matches!(
                    error.kind(),
                    ErrorKind::InvalidInput | ErrorKind::Unsupported
                ) =>
            {
                return Err(error);
            }
            _ => {}
        }
    }
    Ok(())
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer().flush()
    }
}

/// Seeking flushes the buffer first, so a writer may fill a file out of
/// order (a binary edge stream's columns, chunk by chunk).
impl std::io::Seek for AtomicFile {
    fn seek(&mut self, position: std::io::SeekFrom) -> std::io::Result<u64> {
        self.writer().seek(position)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.take().is_some()
            && let Target::Replace { temp, .. } = &self.target
        {
            // Not committed: the temporary file goes, unflushed.
            let _ = std::fs::remove_file(temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("dyngraph-atomic-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn an_uncommitted_file_leaves_the_previous_one_and_no_temporary() {
        let dir = dir("drop");
        let path = dir.join("out.txt");
        std::fs::write(&path, "previous").unwrap();
        {
            let mut file = AtomicFile::create(&path).unwrap();
            file.write_all(&vec![b'x'; 3 << 20]).unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "previous");
        assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
    }

    #[test]
    fn a_committed_file_replaces_the_previous_one() {
        let dir = dir("commit");
        let path = dir.join("out.txt");
        std::fs::write(&path, "previous").unwrap();
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"next").unwrap();
        file.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "next");
        assert!(leftovers(&dir).is_empty());
    }

    #[test]
    fn a_failed_commit_removes_the_temporary() {
        let dir = dir("commit-fails");
        let path = dir.join("out.txt");
        std::fs::write(&path, "previous").unwrap();
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"next").unwrap();
        // The rename cannot happen once the directory is gone; a full disk
        // at the final flush fails at the same place, after the writer is
        // taken (the CLI's size-limit test covers that case).
        std::fs::remove_file(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(file.commit().is_err());
        assert!(!dir.exists());
    }

    fn is_fifo(path: &Path) -> bool {
        use std::os::unix::fs::FileTypeExt;
        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
    }

    /// Run as root, `dyngraph ... -o /dev/null` renamed a regular file over
    /// `/dev/null`, and every later reader of `/dev/null` (cargo hands it to
    /// rustc as stdin) read the report. A named pipe stands in for the
    /// device: the test must not risk the machine's `/dev/null`.
    #[test]
    fn a_named_pipe_is_written_in_place_not_replaced() {
        let dir = dir("fifo");
        let pipe = dir.join("pipe");
        let _ = std::fs::remove_file(&pipe);
        let made = std::process::Command::new("mkfifo").arg(&pipe).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("note: mkfifo is not available here; skipping");
            return;
        }
        AtomicFile::check(&pipe).unwrap(); // must not wait for a reader
        let reader = {
            let pipe = pipe.clone();
            std::thread::spawn(move || std::fs::read(pipe).unwrap())
        };
        let mut file = AtomicFile::create(&pipe).unwrap();
        file.write_all(&vec![b'x'; 3 << 20]).unwrap();
        file.commit().unwrap();
        // Before the join: a replaced pipe leaves its reader waiting.
        assert!(is_fifo(&pipe), "the pipe was replaced");
        assert_eq!(reader.join().unwrap().len(), 3 << 20);
        assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
    }

    #[test]
    fn a_symbolic_link_is_followed_and_stays() {
        let dir = dir("link");
        std::fs::create_dir_all(dir.join("real")).unwrap();
        let target = dir.join("real/out.txt");
        std::fs::write(&target, "previous").unwrap();
        let link = dir.join("out.txt");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("real/out.txt", &link).unwrap();
        // Writes `text` through the link; the link stays a link.
        let write_through = |text: &str| {
            let mut file = AtomicFile::create(&link).unwrap();
            file.write_all(text.as_bytes()).unwrap();
            file.commit().unwrap();
            let metadata = std::fs::symlink_metadata(&link).unwrap();
            assert!(metadata.file_type().is_symlink());
        };
        write_through("next");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "next");
        assert!(leftovers(&dir).is_empty() && leftovers(&dir.join("real")).is_empty());

        // A dangling link: its target is created.
        std::fs::remove_file(&target).unwrap();
        write_through("new");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    }

    #[test]
    fn a_missing_directory_is_named() {
        let error = AtomicFile::create("/nonexistent/dir/x.json").unwrap_err();
        assert_eq!(
            error.to_string(),
            "/nonexistent/dir/x.json: cannot create a file there: the directory \
             /nonexistent/dir does not exist (check the path)"
        );
    }

    #[test]
    fn a_directory_as_output_is_named() {
        let dir = dir("isdir");
        let error = AtomicFile::create(&dir).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with(": is a directory (give the path of a file, not a directory)"),
            "{error}"
        );
    }
}
