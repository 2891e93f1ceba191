//! Files: copy-on-write mapped files with dirty-page tracking, written back
//! with pwrite + fdatasync at a sync; atomic whole-file replacement (temp + fsync + rename + directory fsync),
//! preallocation that reports a full disk as an error, and the fail points
//! the crash tests use.

use crate::format::io;
use dyngraph_core::{Error, Result};
use memmap2::MmapMut;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Page size assumed for dirty tracking and flush accounting.
pub(crate) const PAGE: u64 = 4096;

/// Maps the whole of `file` copy-on-write (`MAP_PRIVATE`): writes go to
/// private pages the kernel never writes back on its own, so the file
/// changes only when the store writes those pages out with `pwrite` at a
/// sync, after the undo record protecting them is durable.
///
/// # Safety
///
/// The caller must guarantee that, for as long as the mapping lives, no
/// other process truncates the file or changes it behind the store's back:
/// memmap2 hands out the bytes as a plain `&mut [u8]`, a page not yet
/// copied reads the file's page cache, and a truncation would turn reads
/// into `SIGBUS`. The store guarantees it by holding an exclusive lock on
/// the directory's `LOCK` file while it is open, by writing to a mapped
/// file only pages it has itself changed in the mapping (so the file and
/// the mapping agree on every page), and by growing or replacing a file
/// only with no private page pending and then mapping it again.
unsafe fn map_file(file: &File) -> std::io::Result<MmapMut> {
    // SAFETY: the caller upholds this function's contract (above).
    unsafe { memmap2::MmapOptions::new().map_copy(file) }
}

/// A file mapped read-write, with the pages written since the last flush.
#[derive(Debug)]
pub(crate) struct MappedFile {
    pub(crate) path: PathBuf,
    file: File,
    map: Option<MmapMut>,
    /// One bit per page written since the last flush: constant memory per
    /// page of file (a 1 GiB file needs 32 KiB), however many writes.
    dirty: Vec<u64>,
    dirty_pages: u64,
}

impl MappedFile {
    /// Opens and maps an existing file.
    pub(crate) fn open(path: PathBuf) -> Result<Self> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        let mut mapped = Self {
            path,
            file,
            map: None,
            dirty: Vec::new(),
            dirty_pages: 0,
        };
        mapped.remap()?;
        Ok(mapped)
    }

    fn remap(&mut self) -> Result<()> {
        self.map = None;
        let len = self.file.metadata().map_err(|e| io(&self.path, e))?.len();
        if len > 0 {
            // SAFETY: the store holds the directory lock, so no other
            // process maps or changes this file; this struct is the only
            // mapping of it, and it changes the file's length only in
            // `grow`, which drops the mapping first.
            self.map = Some(unsafe { map_file(&self.file) }.map_err(|e| io(&self.path, e))?);
        }
        Ok(())
    }

    /// The file's length.
    pub(crate) fn len(&self) -> u64 {
        self.map.as_ref().map_or(0, |m| m.len() as u64)
    }

    /// The mapped bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    /// The mapped bytes, for writing; the caller marks what it wrote with
    /// [`MappedFile::mark`].
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        self.map.as_deref_mut().unwrap_or(&mut [])
    }

    /// Records that bytes `offset..offset + len` were written.
    #[inline]
    pub(crate) fn mark(&mut self, offset: u64, len: u64) {
        if len == 0 {
            return;
        }
        for page in offset / PAGE..=(offset + len - 1) / PAGE {
            let (word, bit) = ((page / 64) as usize, page % 64);
            if word >= self.dirty.len() {
                self.dirty.resize(word + 1, 0);
            }
            if self.dirty[word] & (1 << bit) == 0 {
                self.dirty[word] |= 1 << bit;
                self.dirty_pages += 1;
            }
        }
    }

    /// Whether anything is waiting for a flush.
    pub(crate) fn is_dirty(&self) -> bool {
        self.dirty_pages > 0
    }

    /// The runs of dirty pages, `(first, end)`, in order.
    fn dirty_runs(&self) -> Vec<(u64, u64)> {
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for (w, &bits) in self.dirty.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let page = w as u64 * 64 + u64::from(bits.trailing_zeros());
                bits &= bits - 1;
                match runs.last_mut() {
                    Some((_, end)) if *end == page => *end = page + 1,
                    _ => runs.push((page, page + 1)),
                }
            }
        }
        runs
    }

    /// Writes the dirty pages to the file (`pwrite`, no barrier) in file
    /// order; returns their bytes.
    pub(crate) fn write_back(&mut self) -> Result<u64> {
        if self.dirty_pages == 0 {
            return Ok(0);
        }
        let runs = self.dirty_runs();
        let mut written = 0;
        if let Some(map) = self.map.as_ref() {
            let len = map.len() as u64;
            for (first, end) in runs {
                let offset = first * PAGE;
                let end = (end * PAGE).min(len);
                if offset < end {
                    self.file
                        .write_all_at(&map[offset as usize..end as usize], offset)
                        .map_err(|e| io(&self.path, e))?;
                    written += end - offset;
                }
            }
        }
        self.dirty.fill(0);
        self.dirty_pages = 0;
        Ok(written)
    }

    /// Waits until everything written to the file is on the device
    /// (fdatasync).
    pub(crate) fn barrier(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| io(&self.path, e))
    }

    /// [`MappedFile::write_back`] then [`MappedFile::barrier`].
    pub(crate) fn flush(&mut self) -> Result<u64> {
        let written = self.write_back()?;
        self.barrier()?;
        Ok(written)
    }

    /// The file's bytes `offset..offset + len` as they are on disk (the
    /// last synced state: private pages are not in the file yet).
    pub(crate) fn read_disk(&self, offset: u64, len: u64) -> Result<Vec<u8>> {
        let mut bytes = vec![0u8; len as usize];
        self.file
            .read_exact_at(&mut bytes, offset)
            .map_err(|e| io(&self.path, e))?;
        Ok(bytes)
    }

    /// Writes `bytes` at `offset` straight to the file and makes them
    /// durable, then maps the file again (recovery's undo restore).
    pub(crate) fn write_disk(&mut self, offset: u64, bytes: &[u8]) -> Result<()> {
        self.map = None;
        self.file
            .write_all_at(bytes, offset)
            .map_err(|e| io(&self.path, e))?;
        self.barrier()?;
        self.remap()
    }

    /// Grows the file to `new_len` bytes, zero-filled and allocated on the
    /// device (so a full disk is an error here, not a `SIGBUS` on a later
    /// write through the mapping), made durable, and maps it again.
    /// The caller syncs first (the store's sync orders the pages it writes
    /// behind the undo log); what is still pending here (the synced-count
    /// words a sync leaves) is written before the old mapping goes.
    pub(crate) fn grow(&mut self, new_len: u64) -> Result<()> {
        if new_len <= self.len() {
            return Ok(());
        }
        self.flush()?;
        self.map = None;
        allocate(&self.file, &self.path, new_len)?;
        self.file.sync_all().map_err(|e| io(&self.path, e))?;
        self.remap()
    }

    /// Replaces this file by the (already durable) file at `from`, by
    /// rename; the directory is made durable by the caller.
    pub(crate) fn replace_with(&mut self, from: &Path) -> Result<()> {
        self.map = None;
        self.dirty.clear();
        self.dirty_pages = 0;
        std::fs::rename(from, &self.path).map_err(|e| io(&self.path, e))?;
        self.file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.path)
            .map_err(|e| io(&self.path, e))?;
        self.remap()
    }
}

/// Extends `file` to `len` bytes with blocks allocated on the device
/// (`posix_fallocate`); `ENOSPC` comes back as an error naming the file.
pub(crate) fn allocate(file: &File, path: &Path, len: u64) -> Result<()> {
    use std::os::fd::AsRawFd;
    let current = file.metadata().map_err(|e| io(path, e))?.len();
    if len <= current {
        return Ok(());
    }
    // SAFETY: posix_fallocate only reads its integer arguments and acts on
    // the open descriptor, which `file` keeps alive for the call.
    let rc = unsafe {
        libc::posix_fallocate(
            file.as_raw_fd(),
            current as libc::off_t,
            (len - current) as libc::off_t,
        )
    };
    match rc {
        0 => Ok(()),
        // File systems without fallocate: extend the length instead.
        libc::EOPNOTSUPP | libc::EINVAL => file.set_len(len).map_err(|e| io(path, e)),
        errno => Err(io(path, std::io::Error::from_raw_os_error(errno))),
    }
}

/// The error a full disk gives (used by the injected space limit too).
pub(crate) fn no_space(path: &Path, needed: u64, limit: u64) -> Error {
    io(
        path,
        std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            format!(
                "no space left on device: the store's files would need {needed} bytes, \
                 the space limit is {limit}"
            ),
        ),
    )
}

/// Makes the directory's entries (renames, new files) durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io(dir, e))
}

/// Writes `bytes` as `dir/name` atomically: into `name.tmp`, fsync,
/// rename over `name`, fsync the directory. A crash leaves either the old
/// file or the new one under `name`, never a half-written one.
pub(crate) fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let path = dir.join(name);
    let temp = dir.join(format!("{name}{}", crate::format::TEMP_SUFFIX));
    let result = (|| -> Result<()> {
        let mut file = File::create(&temp).map_err(|e| io(&temp, e))?;
        file.write_all(bytes).map_err(|e| io(&temp, e))?;
        file.sync_all().map_err(|e| io(&temp, e))?;
        Ok(())
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&temp);
        return Err(e);
    }
    fail_point("atomic-before-rename");
    std::fs::rename(&temp, &path).map_err(|e| io(&path, e))?;
    sync_dir(dir)
}

/// Reads a whole file, naming it in the error.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| io(path, e))
}

// ---------------------------------------------------------------------------
// Fail points.
// ---------------------------------------------------------------------------

/// The fail point armed by `DYNGRAPH_DURABLE_FAILPOINT=name:count`: the
/// process kills itself with `SIGKILL` the `count`-th time it reaches
/// `name`. Read once; the crash tests set it in the child they kill. The
/// points sit at the steps of rebalances, rewrites and closes, where a
/// random kill would rarely land.
struct FailPoint {
    name: String,
    remaining: std::sync::atomic::AtomicU64,
}

fn armed_fail_point() -> Option<&'static FailPoint> {
    static POINT: OnceLock<Option<FailPoint>> = OnceLock::new();
    POINT
        .get_or_init(|| {
            let spec = std::env::var("DYNGRAPH_DURABLE_FAILPOINT").ok()?;
            let (name, count) = spec.split_once(':')?;
            Some(FailPoint {
                name: name.to_string(),
                remaining: std::sync::atomic::AtomicU64::new(count.parse().ok()?),
            })
        })
        .as_ref()
}

/// Kills the process here if the armed fail point is `name` and its count
/// runs out. Costs one atomic load when no point is armed.
#[inline]
pub(crate) fn fail_point(name: &str) {
    if let Some(point) = armed_fail_point()
        && point.name == name
        && point
            .remaining
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst)
            == 1
    {
        // SAFETY: raising a signal at our own process has no memory
        // safety preconditions.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirty_pages_are_tracked_coalesced_and_flushed() {
        let dir = std::env::temp_dir().join(format!("durable-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, vec![0u8; 64 * PAGE as usize]).unwrap();
        let mut file = MappedFile::open(path).unwrap();
        assert!(!file.is_dirty());
        file.mark(10, 4); // page 0
        file.mark(PAGE - 2, 4); // pages 0 and 1
        file.mark(5 * PAGE, 1); // page 5
        file.mark(63 * PAGE + 7, 1); // page 63
        assert!(file.is_dirty());
        assert_eq!(file.dirty_runs(), [(0, 2), (5, 6), (63, 64)]);
        file.bytes_mut()[5 * PAGE as usize] = 7;
        assert_eq!(
            file.read_disk(5 * PAGE, 1).unwrap(),
            [0],
            "private until written back"
        );
        assert_eq!(file.flush().unwrap(), 4 * PAGE);
        assert_eq!(file.read_disk(5 * PAGE, 1).unwrap(), [7]);
        assert!(!file.is_dirty());
        assert_eq!(file.flush().unwrap(), 0);
        file.grow(128 * PAGE).unwrap();
        file.mark(100 * PAGE, 1);
        assert_eq!(file.dirty_runs(), [(100, 101)]);
        drop(file);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
