//! Advisory locks on a store directory (`flock`):
//!
//! - `LOCK`: one writer. Taken exclusively by a writable open; a second
//!   writer fails at once with an error naming the directory and the holder
//!   (its process id and command, which the holder writes into the file).
//! - `READERS`: any number of read-only opens hold it shared for their
//!   lifetime. A writer takes it exclusively, without waiting, around the
//!   only thing that changes a mapped file in place (an in-place
//!   checkpoint); when readers hold it the writer checkpoints by rewriting
//!   the arrays into new files instead, which leaves the readers' mappings
//!   on the old ones. A read-only open waits for an in-place checkpoint in
//!   progress to finish.
//!
//! Both are released when the file is closed, so a crashed process never
//! leaves a stale lock behind.

use crate::format::{LOCK_FILE, READERS_FILE, io};
use dyngraph_core::Result;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::Path;

/// `flock(fd, op)`; `Ok(false)` when a non-blocking request would block.
fn flock(file: &File, op: libc::c_int) -> std::io::Result<bool> {
    loop {
        // SAFETY: flock only acts on the open descriptor, which `file`
        // keeps alive for the call; the lock is released when it closes.
        let rc = unsafe { libc::flock(file.as_raw_fd(), op) };
        if rc == 0 {
            return Ok(true);
        }
        let error = std::io::Error::last_os_error();
        match error.kind() {
            std::io::ErrorKind::WouldBlock => return Ok(false),
            std::io::ErrorKind::Interrupted => continue,
            _ => return Err(error),
        }
    }
}

fn open_lock_file(path: &Path) -> Result<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| io(path, e))
}

/// The writer's lock: held (exclusively) while a writable handle is open.
#[derive(Debug)]
pub(crate) struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Takes the writer lock of `dir`, or fails naming the holder.
    pub(crate) fn acquire(dir: &Path) -> Result<Self> {
        let path = dir.join(LOCK_FILE);
        let mut file = open_lock_file(&path)?;
        if !flock(&file, libc::LOCK_EX | libc::LOCK_NB).map_err(|e| io(&path, e))? {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let who = if holder.is_empty() {
                "another process (or another handle of this one)".to_string()
            } else {
                holder.to_string()
            };
            return Err(io(
                &path,
                std::io::Error::new(
                    std::io::ErrorKind::WouldBlock,
                    format!(
                        "the store in {} is open in another process for writing: held by {who}; \
                         a second writer is refused (read-only opens are allowed alongside)",
                        dir.display()
                    ),
                ),
            ));
        }
        // Say who holds it, for the next writer's error. Advisory: a torn
        // or stale text here is harmless.
        let me = format!(
            "pid {} ({})\n",
            std::process::id(),
            std::env::args().next().unwrap_or_default()
        );
        let _ = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(me.as_bytes()));
        Ok(Self { _file: file })
    }
}

/// The readers' lock file: shared by read-only opens, exclusive (briefly,
/// never waiting) around a writer's in-place checkpoint.
#[derive(Debug)]
pub(crate) struct ReadersLock {
    file: File,
}

impl ReadersLock {
    /// Opens `READERS` in `dir` (creating it).
    pub(crate) fn open(dir: &Path) -> Result<Self> {
        let path = dir.join(READERS_FILE);
        Ok(Self {
            file: open_lock_file(&path)?,
        })
    }

    /// A read-only open's shared hold: waits while a writer checkpoints in
    /// place.
    pub(crate) fn share(dir: &Path) -> Result<Self> {
        let lock = Self::open(dir)?;
        let path = dir.join(READERS_FILE);
        flock(&lock.file, libc::LOCK_SH).map_err(|e| io(&path, e))?;
        Ok(lock)
    }

    /// Tries to take it exclusively without waiting: `Ok(Some(guard))` when
    /// no read-only open holds the store, `Ok(None)` when one does.
    pub(crate) fn try_exclusive(&self) -> Result<Option<ExclusiveReaders>> {
        let path = Path::new(READERS_FILE);
        let held = flock(&self.file, libc::LOCK_EX | libc::LOCK_NB).map_err(|e| io(path, e))?;
        if !held {
            return Ok(None);
        }
        // The same open file description: unlocking through it releases
        // this lock, and the guard borrows nothing.
        let file = self.file.try_clone().map_err(|e| io(path, e))?;
        Ok(Some(ExclusiveReaders(file)))
    }
}

/// Proof that no read-only open maps the store; released on drop.
#[derive(Debug)]
pub(crate) struct ExclusiveReaders(File);

impl Drop for ExclusiveReaders {
    fn drop(&mut self) {
        let _ = flock(&self.0, libc::LOCK_UN);
    }
}
