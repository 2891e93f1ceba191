//! The write-ahead log: every applied update is appended here as a record,
//! and a **commit** writes the records buffered since the last one as a
//! checksummed group at the file's end and `fdatasync`s it, so its cost is
//! proportional to the bytes of the batch, not to the pages the batch
//! touched in the arrays. The arrays are written by checkpoints only (see
//! `store/checkpoint.rs`), after which the log starts afresh.
//!
//! Commits come from the calling thread (the synchronous sync policies),
//! from a background committer thread (group commit, [`GroupCommit`]), or
//! from a rewrite that must not run ahead of the log. Records are encoded
//! under one mutex; a group is written under it; `fdatasync` runs outside
//! it, so updates keep being applied while the disk syncs.

use crate::files::write_atomic;
use crate::format::wal::{
    GROUP_HEADER_BYTES, GroupHeader, Record, WAL_HEADER_BYTES, WalHeader, has_zero_run,
};
use crate::format::{Mark, WAL_FILE, invalid, io};
use crate::options::GroupCommit;
use crate::stats::Commit;
use dyngraph_core::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Instant;

/// Buffered bytes past which a synchronous policy writes the buffer out
/// (without a barrier) to bound its memory.
const WRITE_BEHIND_BYTES: usize = 8 << 20;
/// Zeros written ahead of the log's end at a time: a quarter of the log,
/// within these bounds (so extending the file, the one commit in many that
/// journals a new size, stays rare however long the log grows).
const PREALLOCATE_MIN: u64 = 256 << 10;
const PREALLOCATE_MAX: u64 = 16 << 20;
/// Under group commit, an update call waits once this many groups' worth
/// of updates are buffered: the bound on what a crash may lose.
const GROUPS_IN_FLIGHT: u64 = 16;

/// Counters of the log, folded into the store's stats.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WalStats {
    pub(crate) bytes_written: u64,
    pub(crate) commits: u64,
    pub(crate) syncs: u64,
}

#[derive(Debug)]
struct State {
    file: Arc<File>,
    /// Where the next group goes (the log's logical end).
    end: u64,
    /// Bytes of the file: past `end` it is zeros written ahead, so that a
    /// commit overwrites allocated blocks and its `fdatasync` need not
    /// journal a new file size (3-4 ms on ext4 where the data alone takes
    /// 0.4 ms).
    allocated: u64,
    base: Mark,
    buffer: Vec<u8>,
    buffered: u64,
    first_buffered: Option<Instant>,
    /// After the last record appended / written to the file / made durable.
    appended: Mark,
    written: Mark,
    durable: Mark,
    last_commit: Option<Commit>,
    error: Option<String>,
    stop: bool,
    stats: WalStats,
    /// The group-commit policy while a committer thread runs.
    group: Option<GroupCommit>,
}

#[derive(Debug)]
struct Shared {
    dir: PathBuf,
    path: PathBuf,
    stride: usize,
    read_only: bool,
    space_limit: Option<u64>,
    state: Mutex<State>,
    /// Bytes of the file plus the buffer, as of the last change (read
    /// without the lock by the checkpoint threshold).
    size: AtomicU64,
    /// Wakes the committer (work to do, or stop).
    wake: Condvar,
    /// Wakes callers waiting for durability or for buffer room.
    progress: Condvar,
}

/// The write-ahead log of a store (see the module docs).
#[derive(Debug)]
pub(crate) struct Wal {
    shared: Arc<Shared>,
    committer: Option<JoinHandle<()>>,
}

/// What the log file held at open: its header and the groups to replay.
#[derive(Debug)]
pub(crate) struct WalContents {
    pub(crate) header: WalHeader,
    /// Each valid group with its payload.
    pub(crate) groups: Vec<(GroupHeader, Vec<u32>)>,
    /// Where the valid groups end.
    pub(crate) valid_end: u64,
    /// Bytes after them that a power cut tore (never acknowledged).
    pub(crate) torn_bytes: u64,
}

fn lock(mutex: &Mutex<State>) -> MutexGuard<'_, State> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Wal {
    /// Writes a fresh log continuing from `base` (at creation, and at each
    /// checkpoint): into a temporary file, renamed over the old log.
    pub(crate) fn write_fresh(dir: &Path, stride: usize, base: Mark) -> Result<()> {
        let header = WalHeader {
            stride: stride as u32,
            base,
        };
        write_atomic(dir, WAL_FILE, &header.encode())
    }

    /// The header of the log in `dir`, if it reads back.
    pub(crate) fn read_header(dir: &Path) -> Option<WalHeader> {
        let path = dir.join(WAL_FILE);
        let mut head = vec![0u8; WAL_HEADER_BYTES];
        let mut file = std::fs::File::open(&path).ok()?;
        std::io::Read::read_exact(&mut file, &mut head).ok()?;
        WalHeader::decode(&head, &path).ok()
    }

    /// Reads the log in `dir`: the groups that check out, in order, from
    /// its base. A tail that fails its checks is a torn write (cut) when it
    /// has the marks of one — a payload past the end of the file, or a run
    /// of zero bytes no group holds — and nothing valid follows it; anything
    /// else is damage, refused with the byte offset.
    pub(crate) fn read(dir: &Path, stride: usize) -> Result<WalContents> {
        let path = dir.join(WAL_FILE);
        let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
        let header = WalHeader::decode(&bytes, &path)?;
        if header.stride as usize != stride {
            return Err(invalid(
                &path,
                format!(
                    "records of {} words, but this store's are {stride} words",
                    header.stride
                ),
            ));
        }
        let len = bytes.len() as u64;
        let mut at = WAL_HEADER_BYTES as u64;
        let mut expected = header.base.lsn + 1;
        let mut groups = Vec::new();
        let group_at = |at: u64, expected: u64| -> Option<(GroupHeader, u64)> {
            let g = GroupHeader::decode(&bytes[at as usize..])?;
            let start = at + GROUP_HEADER_BYTES as u64;
            let end = start + u64::from(g.payload_len);
            let ok = g.first_lsn == expected
                && g.records > 0
                && g.payload_len as usize == g.records as usize * stride * 4
                && end <= len
                && crc32fast::hash(&bytes[start as usize..end as usize]) == g.payload_crc
                && g.after.lsn == g.first_lsn + u64::from(g.records) - 1;
            ok.then_some((g, end))
        };
        while at < len {
            let Some((g, end)) = group_at(at, expected) else {
                break;
            };
            let payload = &bytes[at as usize + GROUP_HEADER_BYTES..end as usize];
            groups.push((g, bytemuck::pod_collect_to_vec(payload)));
            expected += u64::from(g.records);
            at = end;
        }
        let valid_end = at;
        let tail = &bytes[at as usize..];
        // The file is preallocated with zeros: the log ends where they
        // begin. What lies between is a group that failed its checks.
        let written = tail.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        let torn_bytes = written as u64;
        if written > 0 {
            // Torn by a power cut: within the group's span (its header
            // says it, or, if the header itself is gone, its first 64
            // bytes) some sectors were never written (a run of zeros no
            // group holds), or the span runs past the end of the file.
            // Damage leaves the span whole.
            let torn = match GroupHeader::decode(tail) {
                Some(g) => {
                    let span = GROUP_HEADER_BYTES + g.payload_len as usize;
                    span > tail.len() || has_zero_run(&tail[..span])
                }
                None => {
                    tail.len() < GROUP_HEADER_BYTES
                        || has_zero_run(&tail[..tail.len().min(2 * GROUP_HEADER_BYTES)])
                }
            };
            let later_valid = (at + 1..len).any(|from| {
                bytes[from as usize..].starts_with(&crate::format::wal::GROUP_MAGIC.to_le_bytes())
                    && GroupHeader::decode(&bytes[from as usize..])
                        .is_some_and(|g| g.first_lsn >= expected)
            });
            if !torn || later_valid {
                return Err(invalid(
                    &path,
                    format!(
                        "byte {at}: the group of update {expected} fails its checks{}: the log is \
                         damaged, not torn; refusing to replay past it (it may hold acknowledged \
                         updates)",
                        if later_valid {
                            " and valid groups follow it"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
        Ok(WalContents {
            header,
            groups,
            valid_end,
            torn_bytes,
        })
    }

    /// Opens the log for appending after its valid groups (`valid_end`,
    /// from [`Wal::read`]), cutting a torn tail and making what remains
    /// durable (recovery may write arrays holding it); its marks start at
    /// `base` until [`Wal::resume`]. A read-only log appends to memory
    /// only.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn open(
        dir: &Path,
        stride: usize,
        valid_end: u64,
        torn_bytes: u64,
        base: Mark,
        read_only: bool,
        space_limit: Option<u64>,
    ) -> Result<Self> {
        let path = dir.join(WAL_FILE);
        let file = OpenOptions::new()
            .read(true)
            .write(!read_only)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        if !read_only {
            let len = file.metadata().map_err(|e| io(&path, e))?.len();
            if torn_bytes > 0 {
                // Cut the torn group (and the zeros ahead of it).
                file.set_len(valid_end).map_err(|e| io(&path, e))?;
            }
            if valid_end > WAL_HEADER_BYTES as u64 || torn_bytes > 0 {
                file.sync_all().map_err(|e| io(&path, e))?;
            }
            let _ = len;
        }
        let allocated = file.metadata().map_err(|e| io(&path, e))?.len();
        let shared = Arc::new(Shared {
            dir: dir.to_path_buf(),
            path,
            stride,
            read_only,
            space_limit,
            state: Mutex::new(State {
                file: Arc::new(file),
                end: valid_end,
                allocated,
                base,
                buffer: Vec::new(),
                buffered: 0,
                first_buffered: None,
                appended: base,
                written: base,
                durable: base,
                last_commit: None,
                error: None,
                stop: false,
                stats: WalStats::default(),
                group: None,
            }),
            size: AtomicU64::new(valid_end),
            wake: Condvar::new(),
            progress: Condvar::new(),
        });
        Ok(Self {
            shared,
            committer: None,
        })
    }

    /// Sets where the log stands after recovery replayed it: every record
    /// in the file is durable (see [`Wal::open`]).
    pub(crate) fn resume(&self, state: Mark) {
        let mut st = lock(&self.shared.state);
        st.appended = state;
        st.written = state;
        st.durable = state;
    }

    /// Starts the group-commit thread.
    pub(crate) fn start_committer(&mut self, policy: GroupCommit) -> Result<()> {
        if self.committer.is_some() || self.shared.read_only {
            return Ok(());
        }
        {
            let mut st = lock(&self.shared.state);
            st.group = Some(policy);
            st.stop = false;
        }
        let shared = Arc::clone(&self.shared);
        self.committer = Some(
            std::thread::Builder::new()
                .name("durable-wal-commit".into())
                .spawn(move || committer(&shared, policy))
                .map_err(|e| io(Path::new("durable-wal-commit thread"), e))?,
        );
        Ok(())
    }

    /// Appends records (already applied to the arrays). One lock for the
    /// whole slice.
    pub(crate) fn append(&self, records: &[Record]) -> Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        let shared = &*self.shared;
        let mut st = lock(&shared.state);
        if let Some(e) = &st.error {
            return Err(failed(&shared.path, e));
        }
        for &record in records {
            record.encode(shared.stride, &mut st.buffer);
            st.appended.advance(record);
        }
        let before = st.buffered;
        st.buffered += records.len() as u64;
        shared
            .size
            .store(st.end + st.buffer.len() as u64, Ordering::Relaxed);
        let opens_group = st.first_buffered.is_none();
        if opens_group {
            st.first_buffered = Some(Instant::now());
        }
        if shared.read_only {
            // Nothing is ever written: the records only advance the mark.
            shared.size.store(st.end, Ordering::Relaxed);
            st.buffer.clear();
            st.buffered = 0;
            st.written = st.appended;
            st.durable = st.appended;
            return Ok(());
        }
        match st.group {
            Some(policy) => {
                // Wake the committer when a group opens (an idle committer
                // waits without a timeout: without this wake-up a group
                // below `max_updates` waited for the next call to fill it,
                // acknowledged late or never) and when it fills (once: it
                // takes the whole buffer when it wakes).
                if opens_group || (before < policy.max_updates && st.buffered >= policy.max_updates)
                {
                    shared.wake.notify_one();
                }
                while st.buffered >= GROUPS_IN_FLIGHT * policy.max_updates && st.error.is_none() {
                    shared.wake.notify_one();
                    st = shared.progress.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            }
            None if st.buffer.len() >= WRITE_BEHIND_BYTES => write_group(shared, &mut st)?,
            None => {}
        }
        Ok(())
    }

    /// The mark after the last appended record.
    pub(crate) fn appended(&self) -> Mark {
        lock(&self.shared.state).appended
    }

    /// The mark after the last record made durable.
    pub(crate) fn durable(&self) -> Mark {
        lock(&self.shared.state).durable
    }

    /// The last commit that acknowledged something.
    pub(crate) fn last_commit(&self) -> Option<Commit> {
        lock(&self.shared.state).last_commit
    }

    /// Bytes in the log file and its buffer (for the checkpoint
    /// threshold; no lock).
    pub(crate) fn file_bytes(&self) -> u64 {
        self.shared.size.load(Ordering::Relaxed)
    }

    /// The counters so far.
    pub(crate) fn stats(&self) -> WalStats {
        lock(&self.shared.state).stats
    }

    /// Writes every buffered record as a group and makes the log durable
    /// through it (group commit: one `fdatasync` for all of them, from
    /// whichever thread). Returns what it acknowledged.
    pub(crate) fn commit(&self) -> Result<Commit> {
        commit(&self.shared)
    }

    /// Starts the log afresh from `base` (a checkpoint wrote everything up
    /// to it into the arrays): a new file renamed over the old one, so a
    /// read-only open that read the old one keeps a consistent view.
    pub(crate) fn reset(&self, base: Mark) -> Result<()> {
        let shared = &*self.shared;
        if shared.read_only {
            return Ok(());
        }
        let mut st = lock(&shared.state);
        Self::write_fresh(&shared.dir, shared.stride, base)?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&shared.path)
            .map_err(|e| io(&shared.path, e))?;
        st.file = Arc::new(file);
        st.end = WAL_HEADER_BYTES as u64;
        st.allocated = WAL_HEADER_BYTES as u64;
        shared.size.store(st.end, Ordering::Relaxed);
        st.base = base;
        // Whatever was buffered is in the checkpoint.
        st.buffer.clear();
        st.buffered = 0;
        st.first_buffered = None;
        st.appended = base;
        st.written = base;
        st.durable = base;
        st.stats.syncs += 2;
        Ok(())
    }

    /// [`Wal::reset`] in place, when no read-only open can be reading the
    /// log (the caller holds the readers' lock exclusively): the file is cut
    /// back to its header, then the header says `base`, then one fdatasync.
    /// A crash after the cut leaves a log of no group whose header names an
    /// older state than the arrays hold: obsolete, which recovery knows.
    pub(crate) fn reset_in_place(&self, base: Mark) -> Result<()> {
        let shared = &*self.shared;
        if shared.read_only {
            return Ok(());
        }
        let mut st = lock(&shared.state);
        let header = WalHeader {
            stride: shared.stride as u32,
            base,
        }
        .encode();
        let start = WAL_HEADER_BYTES as u64;
        // A short log is zeroed in place, from its end backwards (a crash
        // part-way leaves a valid prefix of groups the arrays already
        // hold, and zeros): its zeros ahead stay allocated. A long one is
        // cut. Either way the header comes last. Each write stays within
        // one page: a kill can cut a longer write after any page (the
        // kernel checks for a fatal signal between pages), which left
        // zeros, then old groups, then zeros, a log recovery must refuse
        // as damaged (the crash campaign found it once in 300 kills).
        let keep = st.end - start <= PREALLOCATE_MAX;
        let write = |st: &State| -> std::io::Result<()> {
            if keep {
                static ZEROS: [u8; crate::files::PAGE as usize] = [0; crate::files::PAGE as usize];
                let mut end = st.end;
                while end > start {
                    let from = ((end - 1) / crate::files::PAGE * crate::files::PAGE).max(start);
                    st.file
                        .write_all_at(&ZEROS[..(end - from) as usize], from)?;
                    end = from;
                }
            } else {
                st.file.set_len(start)?;
            }
            crate::failpoint::fail_point("wal-cut");
            st.file.write_all_at(&header, 0)?;
            st.file.sync_data()
        };
        write(&st).map_err(|e| io(&shared.path, e))?;
        st.end = start;
        if !keep {
            st.allocated = start;
        }
        shared.size.store(st.end, Ordering::Relaxed);
        st.base = base;
        st.buffer.clear();
        st.buffered = 0;
        st.first_buffered = None;
        st.appended = base;
        st.written = base;
        st.durable = base;
        st.stats.syncs += 1;
        Ok(())
    }

    /// The state the current log continues from.
    pub(crate) fn base(&self) -> Mark {
        lock(&self.shared.state).base
    }

    /// Stops the committer thread; with `flush`, commits what is buffered
    /// first (a clean close), else drops it (as a crash would).
    pub(crate) fn stop(&mut self, flush: bool) -> Result<()> {
        let result = if flush && !self.shared.read_only {
            commit(&self.shared).map(|_| ())
        } else {
            let mut st = lock(&self.shared.state);
            st.buffer.clear();
            st.buffered = 0;
            Ok(())
        };
        if let Some(handle) = self.committer.take() {
            {
                let mut st = lock(&self.shared.state);
                st.stop = true;
                st.group = None;
            }
            self.shared.wake.notify_all();
            let _ = handle.join();
        }
        result
    }
}

impl Drop for Wal {
    fn drop(&mut self) {
        if let Some(handle) = self.committer.take() {
            lock(&self.shared.state).stop = true;
            self.shared.wake.notify_all();
            let _ = handle.join();
        }
    }
}

fn failed(path: &Path, why: &str) -> Error {
    io(
        path,
        std::io::Error::other(format!(
            "an earlier log write failed ({why}); reopen the store"
        )),
    )
}

/// Writes the buffered records as one group at the end of the file (no
/// barrier). On failure the records stay buffered.
fn write_group(shared: &Shared, st: &mut State) -> Result<()> {
    if st.buffered == 0 {
        return Ok(());
    }
    let payload_len = st.buffer.len();
    let header = GroupHeader {
        first_lsn: st.written.lsn + 1,
        records: st.buffered as u32,
        payload_len: payload_len as u32,
        after: st.appended,
        payload_crc: crc32fast::hash(&st.buffer),
    };
    let mut bytes = header.encode();
    bytes.extend_from_slice(&st.buffer);
    let need = st.end + bytes.len() as u64;
    if need > st.allocated {
        preallocate(shared, st, need)?;
    }
    st.file
        .write_all_at(&bytes, st.end)
        .map_err(|e| io(&shared.path, e))?;
    crate::failpoint::fail_point("wal-written");
    st.end += bytes.len() as u64;
    shared.size.store(st.end, Ordering::Relaxed);
    st.written = st.appended;
    st.buffer.clear();
    st.buffered = 0;
    st.first_buffered = None;
    st.stats.bytes_written += bytes.len() as u64;
    shared.progress.notify_all();
    Ok(())
}

/// Writes zeros ahead of the log's end, past `need`: a chunk when there is
/// room, else exactly what the next group needs (a full disk, or an
/// injected space limit).
fn preallocate(shared: &Shared, st: &mut State, need: u64) -> Result<()> {
    static ZEROS: [u8; 64 << 10] = [0; 64 << 10];
    let chunk = (st.end / 4)
        .clamp(PREALLOCATE_MIN, PREALLOCATE_MAX)
        .max(need - st.allocated);
    let fits = |extra: u64| {
        crate::side::check_space(&shared.dir, shared.space_limit, &shared.path, extra).is_ok()
    };
    let target = if fits(chunk) {
        st.allocated + chunk
    } else {
        need
    };
    crate::side::check_space(
        &shared.dir,
        shared.space_limit,
        &shared.path,
        target - st.allocated,
    )?;
    let mut at = st.allocated;
    while at < target {
        let n = (target - at).min(ZEROS.len() as u64) as usize;
        if let Err(e) = st.file.write_all_at(&ZEROS[..n], at) {
            // Keep what was written; the next group will need less.
            st.allocated = at;
            return Err(io(&shared.path, e));
        }
        at += n as u64;
    }
    st.allocated = target;
    Ok(())
}

fn commit(shared: &Shared) -> Result<Commit> {
    let (file, target, bytes, from) = {
        let mut st = lock(&shared.state);
        if let Some(e) = &st.error {
            return Err(failed(&shared.path, e));
        }
        let before = st.stats.bytes_written;
        write_group(shared, &mut st)?;
        if st.durable.lsn >= st.written.lsn {
            return Ok(Commit {
                acknowledged: st.durable,
                updates: 0,
                bytes: 0,
            });
        }
        (
            Arc::clone(&st.file),
            st.written,
            st.stats.bytes_written - before,
            st.durable.lsn,
        )
    };
    if let Err(e) = file.sync_data() {
        let mut st = lock(&shared.state);
        st.error = Some(e.to_string());
        shared.progress.notify_all();
        return Err(io(&shared.path, e));
    }
    crate::failpoint::fail_point("wal-synced");
    let mut st = lock(&shared.state);
    st.stats.syncs += 1;
    st.stats.commits += 1;
    let commit = Commit {
        acknowledged: target,
        updates: target.lsn.saturating_sub(from.max(st.durable.lsn)),
        bytes,
    };
    if target.lsn > st.durable.lsn {
        st.durable = target;
        st.last_commit = Some(commit);
    }
    shared.progress.notify_all();
    Ok(commit)
}

/// The group-commit thread: closes a group when `policy.max_updates`
/// updates wait or `policy.window` has passed since the first of them, and
/// commits it.
fn committer(shared: &Shared, policy: GroupCommit) {
    loop {
        {
            let mut st = lock(&shared.state);
            loop {
                if st.stop {
                    return;
                }
                if st.error.is_none()
                    && let Some(first) = st.first_buffered
                {
                    let age = first.elapsed();
                    if st.buffered >= policy.max_updates || age >= policy.window {
                        break;
                    }
                    st = shared
                        .wake
                        .wait_timeout(st, policy.window - age)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                } else {
                    st = shared.wake.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
        if let Err(e) = commit(shared) {
            let mut st = lock(&shared.state);
            st.error.get_or_insert_with(|| e.to_string());
            shared.progress.notify_all();
        }
    }
}

/// Where the update stream stands when maintenance writes a side out (a
/// rewrite): the mark of the state the sides hold, and how to make the log
/// durable through it first (log before data). During recovery's replay
/// the records are already in the log: nothing to make durable.
#[derive(Debug)]
pub(crate) struct LogPoint<'a> {
    wal: Option<(&'a Wal, &'a mut Vec<Record>)>,
    /// The mark of the state the sides hold (borrowed: read only when a
    /// rewrite needs it, so the update path never reloads it).
    pub(crate) applied: &'a Mark,
}

impl<'a> LogPoint<'a> {
    /// A writer's point: `pending` holds the applied updates not yet handed
    /// to `wal`.
    pub(crate) fn new(wal: &'a Wal, pending: &'a mut Vec<Record>, applied: &'a Mark) -> Self {
        Self {
            wal: Some((wal, pending)),
            applied,
        }
    }

    /// Recovery's point at `applied` (replaying records the log holds).
    pub(crate) fn replaying(applied: &'a Mark) -> Self {
        Self { wal: None, applied }
    }

    /// Makes every update up to `applied` durable in the log.
    pub(crate) fn make_durable(&mut self) -> Result<()> {
        if let Some((wal, pending)) = &mut self.wal {
            wal.append(pending)?;
            pending.clear();
            wal.commit()?;
        }
        Ok(())
    }
}
