//! `dyngraph-durable`: a durable, crash-consistent mutable CSR after DGAP
//! (Islam and Dai, "DGAP: Efficient Dynamic Graph Analysis on Persistent
//! Memory"), on a memory-mapped file instead of Optane.
//!
//! [`DurableVcsr`] is one structure that is both the durable copy of a
//! streamed graph and the structure kernels read: a VCSR edge array (a
//! vertex-centric packed-memory array, each vertex's edges one run in
//! insertion order, gaps shared by degree) living in a mapped file, with
//! DGAP's per-section edge logs, an undo log for rebalances, and a DRAM
//! vertex array rebuilt from pivot elements after a crash. It implements
//! the whole store contract of `dyngraph-core` ([`GraphStore`],
//! [`GraphUpdate`], [`Snapshots`], [`FromEdges`]), so every kernel runs on
//! it.
//!
//! # Example
//!
//! ```
//! use dyngraph_core::{Graph, GraphUpdate, OutNeighbors, StoreOptions};
//! use dyngraph_durable::{DurableOptions, DurableVcsr, SyncPolicy};
//!
//! let dir = std::env::temp_dir().join(format!("durable-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! let options = DurableOptions::default().sync(SyncPolicy::EveryBatch);
//! let mut store = DurableVcsr::create(&dir, options)?;
//! store.insert_edges(&[(0, 1), (0, 2), (2, 0)])?; // acknowledged on return
//! store.insert_edge(1, 2)?;
//! assert!(store.delete_edge(0, 1)?);
//! store.close()?; // writes the vertex array, sets NORMAL_SHUTDOWN
//!
//! let store = DurableVcsr::open(&dir)?;
//! assert!(store.recovery_report().clean);
//! assert_eq!(store.out_neighbors(0).collect::<Vec<_>>(), [2]);
//! assert_eq!(store.edge_count(), 3);
//! store.validate()?;
//! drop(store);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! # Layout (DGAP §3, §3.1.1)
//!
//! A store is a directory:
//!
//! | file | what | written how |
//! |---|---|---|
//! | `superblock` | magic, format version, semantics, weights, vertices per section, edge-log region size, vertex limit, NORMAL_SHUTDOWN, CRC-32 | whole, by temp file + fsync + rename + directory fsync |
//! | `edges.dat` | a 4 KiB header (magic, version, slot stride, generation, capacity, CRC) then the edge array: `capacity` slots of one `u32` word (two with an `f32` weight) | its changed pages at each sync, behind the undo record of any rebalanced window; or whole by temp + rename (rewrites) |
//! | `edgelog.dat` | one region per section (default 2 KiB, DGAP's ELOG_SZ): a 16-byte header (magic, array generation, check, synced count), then 16-byte entries `src, dst, weight, back-pointer + check` | its changed pages at each sync, after the array's |
//! | `undo-0.log` | the writer's undo log: a 4 KiB header (armed flag, generation, segment count, body CRC) and the saved windows | `pwrite` + fdatasync at a sync |
//! | `vertices.dat` | the DRAM vertex array at a clean close (start, run length, degree, log chain head per vertex) | temp + fsync + rename, then the superblock's flag |
//! | `LOCK` | held with an exclusive `flock` while open | |
//!
//! A slot word's top two bits say what it is: `00` free (a zero-filled file
//! is all free), `01` a live edge, `10` a tombstone, `11` a **pivot**, the
//! first slot of vertex `id`'s run (DGAP's `-vertex-id`). Vertex ids have
//! 30 bits. Sections hold a fixed number of consecutive vertices
//! ([`DurableOptions::vertices_per_section`], default 64); a section's
//! slots run from its first vertex's pivot to the next section's. The
//! density tree ([`dyngraph_pma::DensityTree`], default thresholds) and
//! the gap policy ([`dyngraph_pma::DegreeProportional`]) are
//! `dyngraph-pma`'s.
//!
//! # Insert path (DGAP §3.1.2)
//!
//! An insert into `u` goes into the slot after `u`'s run when that slot is
//! free and `u` has nothing in the edge log (one word: weight first, then
//! the tagged destination). Otherwise it is appended to the edge log of
//! `u`'s section, linked to `u`'s previous log entry by a back-pointer;
//! each entry carries a 16-bit check binding it to its section, index and
//! the array generation. When a log reaches [`DurableOptions::log_merge_fill`]
//! (90%) of its entries, or an insert finds neither a free slot nor log
//! room, the smallest window of sections around it whose density is within
//! the tree's bound is **rebalanced**: runs and logged edges are laid out
//! afresh with degree-proportional gaps, tombstones dropped, logs emptied.
//! When even the whole array is too dense, it is **rewritten** 1.5× larger.
//! A delete turns the oldest matching edge (array first, then log) into a
//! tombstone: one word.
//!
//! # Crash consistency (DGAP §3.1.4, §3.1.5)
//!
//! The files are mapped **copy-on-write** (`MAP_PRIVATE`): every change
//! lands in private pages that the kernel never writes back by itself, and
//! the file changes only when [`DurableVcsr::sync`] writes those pages out
//! (`pwrite`). That puts the store, not the kernel's writeback, in charge
//! of the order in which bytes reach the disk, which is what an SSD needs
//! and what DGAP gets on Optane from `clwb` + `sfence`:
//!
//! - Every in-place change is a single aligned word (a slot, a tombstone,
//!   a pivot of a new vertex in the free tail) or a checksummed log entry:
//!   a crash leaves it whole or absent.
//! - A **rebalance** (a log merge, or an insert with no room) lays its
//!   window out afresh in memory and queues the window. The next sync
//!   first saves, in the undo log, the on-disk bytes of every window
//!   queued since the last sync (and their sections' log regions), arms
//!   the record and makes it durable (fdatasync) — before any byte of them
//!   is written; then writes the array's pages, fdatasync, the logs'
//!   pages, fdatasync; then disarms the record durably. Recovery writes an
//!   armed record's bytes back (the windows return to the last completed
//!   sync) and redoes the rebalances. This is DGAP's per-thread undo log
//!   with group commit: one undo barrier per sync however many rebalances
//!   ran, instead of one per 2 KiB chunk. (DGAP backs up one chunk at a
//!   time; restoring only the last chunk cannot in general rebuild a window
//!   whose earlier chunks already moved — an edge moved right across a
//!   chunk boundary would be lost — so the whole window is saved.) The
//!   queued windows are bounded by [`DurableOptions::max_undo_bytes`]
//!   (a sync is forced past it); a single window larger than that takes
//!   the rewrite path.
//! - A **rewrite** (resize) writes a new array file with the next
//!   generation, fsyncs it, renames it over `edges.dat` and fsyncs the
//!   directory. Edge-log regions stamped with an older generation are then
//!   stale by construction: their edges are in the new array.
//! - A **clean close** syncs, writes `vertices.dat` and sets NORMAL_SHUTDOWN;
//!   **open** clears the flag (durably) before changing anything. An
//!   unclean open recovers: undo log, then a scan of the pivots rebuilding
//!   the vertex array, then the edge logs (entries checked, chains
//!   relinked), then the redo, then a sync. Torn unacknowledged tails (a
//!   log entry failing its check past its section's synced count with
//!   nothing after it, an edge after a hole in its run) are cut and
//!   reported; anything else that does not check out — an acknowledged
//!   entry that fails its check, a truncated file, a bad superblock — is
//!   refused with an [`Error`](dyngraph_core::Error) naming the file and
//!   the offset, never a panic, never a silent drop.
//!   [`DurableVcsr::recovery_report`] says what was found and done, and
//!   how long it took.
//!
//! # Durability contract
//!
//! See [`SyncPolicy`]. An update is **acknowledged** once a sync completed
//! after it; the barrier is `pwrite` of the changed pages then
//! `fdatasync` of `edges.dat`, then of `edgelog.dat` (the kernel writes
//! them and flushes the device's cache), fdatasync for the undo log, fsync
//! of file and directory for renames and growth. Acknowledged updates
//! survive a process crash or a power failure (on a device that honours
//! flushes). Unacknowledged ones may survive or not, each whole or absent:
//! a crash between syncs loses them all (they live in private pages), a
//! crash in the middle of a sync may keep any subset of them (pages are
//! written in file order, not update order).
//! [`DurableVcsr::pending_updates`] counts them.
//!
//! DAX: the store does not detect a DAX mount and does not map with
//! `MAP_SYNC`; on a DAX file system the same `pwrite` + fdatasync path is
//! correct but slower than user-space cache-line write-back would be.
//!
//! # Testing and measurements
//!
//! `crates/durable/README.md` has the crash campaign (a child process
//! killed with `SIGKILL` 1,000 times at random points and fail points, 0
//! acknowledged edges lost), the torn-write and full-disk tests, and the
//! comparison with SQLite (`examples/compare.rs`), with the commands.
//!
//! # Concurrency
//!
//! One writer: updates take `&mut self`, reads take `&self`, snapshots
//! ([`Snapshots`], copy-before-write from [`dyngraph_core::cow`]) give
//! views that stay as they were while the store keeps changing. DGAP's
//! several writer threads with per-section locks (§3.2) are **not
//! implemented**: the undo log is per writer (`undo-0.log`) so that the
//! format has room for them.
//!
//! # In-edges
//!
//! Not kept: [`InEdges::in_edges`] is [`Error::MissingCapability`] and
//! creating with `in_edges(true)` is refused. Pull kernels (PageRank, BFS
//! bottom-up) fall back to their push forms and say so in their results.
//!
//! [`GraphStore`]: dyngraph_core::GraphStore
//! [`GraphUpdate`]: dyngraph_core::GraphUpdate
//! [`Snapshots`]: dyngraph_core::Snapshots
//! [`FromEdges`]: dyngraph_core::FromEdges
//! [`InEdges::in_edges`]: dyngraph_core::InEdges::in_edges
//! [`Error::MissingCapability`]: dyngraph_core::Error::MissingCapability
#![deny(missing_docs)]

mod concurrent;
mod failpoint;
mod files;
pub mod format;
mod lock;
mod options;
mod read;
mod side;
mod stats;
mod store;
mod wal;

pub use concurrent::ConcurrentWriter;
pub use format::Mark;
pub use options::{DurableOptions, GroupCommit, SyncPolicy};
pub use read::{
    DurableInEdges, DurableNeighbors, DurableWeightedNeighbors, DurableWeights,
};
pub use stats::{Commit, DurableStats, RecoveryReport};
pub use store::DurableVcsr;
