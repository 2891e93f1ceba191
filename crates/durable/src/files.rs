//! Files: copy-on-write mapped files with dirty-page tracking, written back
//! with pwrite + fdatasync at a checkpoint; atomic whole-file replacement
//! (temp + fsync + rename + directory fsync); preallocation that reports a
//! full disk as an error.

use crate::format::io;
use dyngraph_core::{Error, Result};
use memmap2::MmapMut;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Page size assumed for dirty tracking and flush accounting.
pub(crate) const PAGE: u64 = 4096;

/// Maps the whole of `file` copy-on-write (`MAP_PRIVATE`): writes go to
/// private pages the kernel never writes back on its own, so the file
/// changes only when the store writes those pages out with `pwrite` at a
/// checkpoint, after the undo record protecting them is durable.
///
/// # Safety
///
/// The caller must guarantee that, for as long as the mapping lives, no
/// process truncates the file below the mapped length (reads past the end
/// of a file are `SIGBUS`) and that pages of the file that this mapping
/// has not copied are changed only in ways its owner tolerates. The store
/// guarantees it: files are never shortened while mapped; a writer changes
/// a mapped file in place only at a checkpoint, holding the readers' lock
/// exclusively (so no read-only open maps it meanwhile), and writes there
/// only pages it changed in its own mapping (so file and mapping agree);
/// arrays are otherwise replaced by rename, which leaves existing mappings
/// on the old file.
unsafe fn map_file(file: &File) -> std::io::Result<MmapMut> {
    // SAFETY: the caller upholds this function's contract (above).
    unsafe { memmap2::MmapOptions::new().map_copy(file) }
}

/// A file mapped copy-on-write, with the pages written since the last
/// write-back.
#[derive(Debug)]
pub(crate) struct MappedFile {
    pub(crate) path: PathBuf,
    file: File,
    map: Option<MmapMut>,
    /// One bit per page written since the last write-back: constant memory
    /// per page of file (a 1 GiB file needs 32 KiB), however many writes.
    /// Sized to the mapping, so marking never allocates (the concurrent
    /// writer marks through atomics).
    pub(crate) dirty: Vec<u64>,
    /// Opened without write access: nothing is ever written back.
    read_only: bool,
}

impl MappedFile {
    /// Opens and maps an existing file (for writing back unless
    /// `read_only`; a read-only file is still mapped privately writable, so
    /// that an in-memory recovery can patch its pages).
    pub(crate) fn open(path: PathBuf, read_only: bool) -> Result<Self> {
        let file = OpenOptions::new()
            .read(true)
            .write(!read_only)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        let mut mapped = Self {
            path,
            file,
            map: None,
            dirty: Vec::new(),
            read_only,
        };
        mapped.remap()?;
        Ok(mapped)
    }

    fn remap(&mut self) -> Result<()> {
        self.map = None;
        let len = self.file.metadata().map_err(|e| io(&self.path, e))?.len();
        if len > 0 {
            // SAFETY: the store upholds `map_file`'s contract (see there):
            // it never shortens a mapped file and writes mapped files in
            // place only under the readers' lock.
            self.map = Some(unsafe { map_file(&self.file) }.map_err(|e| io(&self.path, e))?);
        }
        self.dirty = vec![0; self.pages().div_ceil(64)];
        Ok(())
    }

    /// Maps the file again, dropping the private pages (their changes are
    /// moot: a rewrite made them stale).
    pub(crate) fn reload(&mut self) -> Result<()> {
        self.remap()
    }

    /// The file's (mapped) length.
    pub(crate) fn len(&self) -> u64 {
        self.map.as_ref().map_or(0, |m| m.len() as u64)
    }

    /// Pages of the mapping (the last may be partial).
    pub(crate) fn pages(&self) -> usize {
        self.len().div_ceil(PAGE) as usize
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
            self.dirty[(page / 64) as usize] |= 1 << (page % 64);
        }
    }

    /// Pages waiting for a write-back.
    pub(crate) fn dirty_pages(&self) -> u64 {
        self.dirty.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Whether page `page` waits for a write-back.
    #[inline]
    pub(crate) fn is_page_dirty(&self, page: usize) -> bool {
        self.dirty[page / 64] & (1 << (page % 64)) != 0
    }

    /// The runs of dirty pages, `(first, end)`, in order.
    pub(crate) fn dirty_runs(&self) -> Vec<(u64, u64)> {
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

    /// The dirty byte ranges `(offset, len)`, clipped to the file.
    pub(crate) fn dirty_ranges(&self) -> Vec<(u64, u64)> {
        let len = self.len();
        self.dirty_runs()
            .into_iter()
            .map(|(first, end)| (first * PAGE, (end * PAGE).min(len) - first * PAGE))
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    /// Forgets the dirty pages without writing them (a read-only open's
    /// in-memory repairs, or pages a rewrite made moot).
    pub(crate) fn clear_dirty(&mut self) {
        self.dirty.fill(0);
    }

    /// Writes the dirty pages to the file (`pwrite`, no barrier) in file
    /// order; returns their bytes.
    pub(crate) fn write_back(&mut self) -> Result<u64> {
        let ranges = self.dirty_ranges();
        let mut written = 0;
        if let Some(map) = self.map.as_ref() {
            for &(offset, len) in &ranges {
                self.file
                    .write_all_at(&map[offset as usize..(offset + len) as usize], offset)
                    .map_err(|e| io(&self.path, e))?;
                written += len;
            }
            // The file now holds what the private pages hold: let them go,
            // so that the pages come back from the page cache when next
            // touched (and can be evicted), instead of every page the store
            // ever changed staying in anonymous memory until a rewrite.
            for &(offset, len) in &ranges {
                // SAFETY: `&mut self` means no reference into the mapping
                // is alive (the concurrent writer's atomic views are used
                // only under the store's shared lock, and a checkpoint holds
                // it exclusively), and the range lies within the mapping.
                // Dropping the private pages changes no value a later read
                // sees: the file's pages in the page cache hold exactly the
                // bytes just written from them, and a read-only open never
                // writes back. A refusal (a page size the offsets are not
                // aligned to) only keeps the pages.
                let _ = unsafe {
                    map.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        offset as usize,
                        len as usize,
                    )
                };
            }
        }
        self.clear_dirty();
        Ok(written)
    }

    /// Waits until everything written to the file is on the device
    /// (fdatasync).
    pub(crate) fn barrier(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| io(&self.path, e))
    }

    /// The file's bytes `offset..offset + len` as they are on disk (the
    /// last checkpoint's state: private pages are not in the file yet).
    pub(crate) fn read_disk(&self, offset: u64, len: u64) -> Result<Vec<u8>> {
        let mut bytes = vec![0u8; len as usize];
        self.file
            .read_exact_at(&mut bytes, offset)
            .map_err(|e| io(&self.path, e))?;
        Ok(bytes)
    }

    /// Puts `bytes` back at `offset` (recovery's undo restore): written to
    /// the file and made durable, then mapped again; in a read-only file,
    /// patched into the private mapping only.
    pub(crate) fn restore(&mut self, offset: u64, bytes: &[u8]) -> Result<()> {
        if self.read_only {
            let end = offset as usize + bytes.len();
            self.bytes_mut()[offset as usize..end].copy_from_slice(bytes);
            return Ok(());
        }
        self.map = None;
        self.file
            .write_all_at(bytes, offset)
            .map_err(|e| io(&self.path, e))?;
        self.barrier()?;
        self.remap()
    }

    /// Grows the file to `new_len` bytes, zero-filled and allocated on the
    /// device (so a full disk is an error here, not a `SIGBUS` on a later
    /// write through the mapping), and grows the mapping with `mremap`,
    /// which keeps the private pages: nothing needs to be written first. A
    /// crash before the next checkpoint leaves the file longer than its
    /// header says, which is ignored.
    pub(crate) fn grow(&mut self, new_len: u64) -> Result<()> {
        if new_len <= self.len() {
            return Ok(());
        }
        if self.read_only {
            // The file is not ours to extend: grow a private copy instead.
            let mut bytes = self.bytes().to_vec();
            bytes.resize(new_len as usize, 0);
            return self.replace_with_bytes(&bytes);
        }
        // No barrier: the new length reaches the disk with the first
        // checkpoint that writes into it (fdatasync covers the size).
        allocate(&self.file, &self.path, new_len)?;
        match self.map.as_mut() {
            // SAFETY: the file was just extended to `new_len` bytes, so the
            // grown mapping lies within the file (`remap`'s requirement),
            // and `&mut self` guarantees no reference into the old mapping
            // is alive while it may move.
            Some(map) => unsafe {
                map.remap(
                    new_len as usize,
                    memmap2::RemapOptions::new().may_move(true),
                )
            }
            .map_err(|e| io(&self.path, e))?,
            None => return self.remap(),
        }
        self.dirty.resize(self.pages().div_ceil(64), 0);
        Ok(())
    }

    /// Cuts the file to `len` bytes (durably, and maps it again); a
    /// read-only file keeps its length and zeroes the bytes past `len` in
    /// its private mapping instead.
    pub(crate) fn cut(&mut self, len: u64) -> Result<()> {
        if self.len() <= len {
            return Ok(());
        }
        if self.read_only {
            self.bytes_mut()[len as usize..].fill(0);
            return Ok(());
        }
        self.map = None;
        self.file
            .set_len(len)
            .and_then(|()| self.file.sync_all())
            .map_err(|e| io(&self.path, e))?;
        self.remap()
    }

    /// Replaces this file by the (already durable) file at `from`, by
    /// rename; the directory is made durable by the caller.
    pub(crate) fn replace_with(&mut self, from: &Path) -> Result<()> {
        self.map = None;
        std::fs::rename(from, &self.path).map_err(|e| io(&self.path, e))?;
        self.file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.path)
            .map_err(|e| io(&self.path, e))?;
        self.remap()
    }

    /// Replaces the mapping by anonymous memory holding `bytes` (a
    /// read-only open that must rewrite or grow an array during its
    /// in-memory recovery: the file stays as it is).
    pub(crate) fn replace_with_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let mut map = MmapMut::map_anon(bytes.len().max(1)).map_err(|e| io(&self.path, e))?;
        map[..bytes.len()].copy_from_slice(bytes);
        self.map = Some(map);
        self.dirty = vec![0; self.pages().div_ceil(64)];
        Ok(())
    }

    /// Whether the file was opened read-only.
    pub(crate) fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The mapping's base pointer and length, for the concurrent writer's
    /// atomic views (see `concurrent.rs`).
    pub(crate) fn raw_parts(&mut self) -> (*mut u8, usize) {
        let bytes = self.bytes_mut();
        (bytes.as_mut_ptr(), bytes.len())
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
    crate::failpoint::fail_point("atomic-before-rename");
    std::fs::rename(&temp, &path).map_err(|e| io(&path, e))?;
    sync_dir(dir)
}

/// Creates `path` holding `prefix` and zero-filled to `len` bytes, durably.
pub(crate) fn write_new_file(path: &Path, prefix: &[u8], len: u64) -> Result<()> {
    let mut file = File::create(path).map_err(|e| io(path, e))?;
    allocate(&file, path, len.max(prefix.len() as u64))?;
    file.write_all(prefix).map_err(|e| io(path, e))?;
    file.sync_all().map_err(|e| io(path, e))
}

/// Reads a whole file, naming it in the error.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| io(path, e))
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
        let mut file = MappedFile::open(path, false).unwrap();
        assert_eq!(file.dirty_pages(), 0);
        file.mark(10, 4); // page 0
        file.mark(PAGE - 2, 4); // pages 0 and 1
        file.mark(5 * PAGE, 1); // page 5
        file.mark(63 * PAGE + 7, 1); // page 63
        assert_eq!(file.dirty_pages(), 4);
        assert_eq!(file.dirty_runs(), [(0, 2), (5, 6), (63, 64)]);
        file.bytes_mut()[5 * PAGE as usize] = 7;
        assert_eq!(
            file.read_disk(5 * PAGE, 1).unwrap(),
            [0],
            "private until written back"
        );
        assert_eq!(file.write_back().unwrap(), 4 * PAGE);
        file.barrier().unwrap();
        assert_eq!(file.read_disk(5 * PAGE, 1).unwrap(), [7]);
        assert_eq!(file.dirty_pages(), 0);
        assert_eq!(file.write_back().unwrap(), 0);
        // Growing keeps the private pages (mremap) and the new space is free.
        file.bytes_mut()[9] = 3;
        file.grow(128 * PAGE).unwrap();
        assert_eq!(file.bytes()[9], 3);
        assert_eq!(file.bytes()[100 * PAGE as usize], 0);
        file.mark(100 * PAGE, 1);
        assert_eq!(file.dirty_runs(), [(100, 101)]);
        drop(file);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The anonymous (private, changed) bytes of the mapping that starts
    /// at `start`, from `/proc/self/smaps`; `None` where there is none.
    fn anonymous_bytes(start: *const u8) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let head = format!("{:x}-", start as usize);
        let mut lines = smaps.lines().skip_while(|line| !line.starts_with(&head));
        lines.next()?;
        // The first `Anonymous:` after the mapping's own line is its own:
        // every mapping's block has one.
        lines
            .find_map(|line| line.strip_prefix("Anonymous:"))
            .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    }

    /// A write-back lets the private copies go (the memory a store past
    /// RAM must not keep), and the mapping still reads what was written,
    /// now from the file; a page changed again is private again.
    #[test]
    fn pages_written_back_leave_anonymous_memory_and_read_the_same() {
        let dir = std::env::temp_dir().join(format!("durable-release-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let pages = 256usize;
        std::fs::write(&path, vec![0u8; pages * PAGE as usize]).unwrap();
        let mut file = MappedFile::open(path, false).unwrap();
        let pattern = |i: usize| (i % 251) as u8 + 1;
        for (i, byte) in file.bytes_mut().iter_mut().enumerate() {
            *byte = pattern(i);
        }
        file.mark(0, pages as u64 * PAGE);
        let start = file.bytes().as_ptr();
        let before = anonymous_bytes(start);
        assert_eq!(file.write_back().unwrap(), pages as u64 * PAGE);
        file.barrier().unwrap();
        let after = anonymous_bytes(start);
        assert!(
            file.bytes()
                .iter()
                .enumerate()
                .all(|(i, &b)| b == pattern(i)),
            "the mapping reads what was written back"
        );
        match (before, after) {
            (Some(before), Some(after)) => {
                assert!(
                    before >= pages as u64 * PAGE,
                    "{before} bytes private before"
                );
                assert_eq!(after, 0, "private pages kept after the write-back");
            }
            _ => eprintln!("note: /proc/self/smaps not readable here; memory not checked"),
        }
        file.bytes_mut()[3 * PAGE as usize] = 0;
        file.mark(3 * PAGE, 1);
        assert_eq!(
            file.read_disk(3 * PAGE, 1).unwrap(),
            [pattern(3 * PAGE as usize)]
        );
        assert_eq!(file.bytes()[3 * PAGE as usize], 0);
        drop(file);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
