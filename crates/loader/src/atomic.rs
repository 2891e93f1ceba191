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
    path: PathBuf,
    temp: PathBuf,
    writer: Option<BufWriter<File>>,
}

/// The directory a file named `path` goes into (`.` for a bare name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
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
        let directory = directory_of(path);
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
        if let Ok(metadata) = std::fs::metadata(path) {
            let _ = file.set_permissions(metadata.permissions());
        }
        Ok(AtomicFile {
            path: path.to_path_buf(),
            temp,
            writer: Some(BufWriter::with_capacity(BUFFER_BYTES, file)),
        })
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
    /// and survives a power cut.
    ///
    /// # Errors
    /// [`Error::Io`] on the destination; the destination then holds what it
    /// held before (unless only the final directory sync failed), and the
    /// temporary file is removed.
    pub fn commit(mut self) -> Result<()> {
        let writer = self.writer.take().expect("present until commit or drop");
        let result = self.finish(writer);
        if result.is_err() {
            let _ = std::fs::remove_file(&self.temp);
        }
        result.map_err(|source| Error::Io {
            path: self.path.clone(),
            source,
        })
    }

    fn finish(&self, writer: BufWriter<File>) -> std::io::Result<()> {
        let file = writer.into_inner().map_err(|error| error.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.temp, &self.path)?;
        // The rename is in the directory: sync it so the new name is
        // durable. Some file systems cannot sync a directory; the rename
        // stands either way.
        if let Ok(directory) = File::open(directory_of(&self.path)) {
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
        if self.writer.take().is_some() {
            // Not committed: the temporary file goes, unflushed.
            let _ = std::fs::remove_file(&self.temp);
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
