//! `dyngraph-durable`: a durable, crash-consistent mutable CSR after DGAP
//! (Islam and Dai, "DGAP: Efficient Dynamic Graph Analysis on Persistent
//! Memory"), on memory-mapped files instead of Optane.
//!
//! [`DurableVcsr`] is one structure that is both the durable copy of a
//! streamed graph and the structure kernels read: a VCSR edge array (a
//! vertex-centric packed-memory array, each vertex's edges one run in
//! insertion order, gaps shared by degree) living in a mapped file, with
//! DGAP's per-section edge logs and a DRAM vertex array rebuilt from pivot
//! elements after a crash; optionally a second, transposed array for the
//! in-edges. Updates are made durable by a sequential **write-ahead log**
//! (group commit: one `fdatasync` per sync point, its cost that of the
//! bytes of the batch), and the arrays are **checkpointed** from time to
//! time under an undo log. It implements the whole store contract of
//! `dyngraph-core` ([`GraphStore`], [`GraphUpdate`], [`Snapshots`],
//! [`FromEdges`]), so every kernel runs on it.
//!
//! # Example
//!
//! ```
//! use dyngraph_core::{Graph, GraphUpdate, OutNeighbors, StoreOptions};
//! use dyngraph_durable::{DurableOptions, DurableVcsr, SyncPolicy};
//!
//! let dir = std::env::temp_dir().join(format!("durable-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! let options = DurableOptions::default()
//!     .store(StoreOptions::default().in_edges(true))
//!     .sync(SyncPolicy::EveryBatch);
//! let mut store = DurableVcsr::create(&dir, options)?;
//! store.insert_edges(&[(0, 1), (0, 2), (2, 0)])?; // acknowledged on return
//! assert_eq!(store.acknowledged().edges, 3);
//! store.close()?; // checkpoint, vertex array saved, NORMAL_SHUTDOWN set
//!
//! // Tomorrow: reopen and extend (after a crash, this recovers first).
//! let mut store = DurableVcsr::open(&dir)?;
//! store.insert_edge(1, 2)?;
//! assert!(store.delete_edge(0, 1)?);
//! store.close()?;
//!
//! // Analyse in place: mapped, not copied; writers may run alongside.
//! let view = DurableVcsr::open_read_only(&dir)?;
//! assert_eq!(view.out_neighbors(0).collect::<Vec<_>>(), [2]);
//! assert_eq!(view.edge_count(), 3);
//! view.validate()?;
//! drop(view);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! # Layout (DGAP §3, §3.1.1)
//!
//! A store is a directory (format version 2; `format` has the byte
//! layouts):
//!
//! | file | what | written how |
//! |---|---|---|
//! | `superblock` | magic, version, semantics, weights, in-edges, section size, edge-log region size, vertex limit, NORMAL_SHUTDOWN, CRC-32 | whole, by temp file + fsync + rename + directory fsync |
//! | `edges.dat` | a 4 KiB header (magic, version, side, slot stride, generation, capacity, the checkpoint it holds, the sidecar it names, CRC) then the out-edge array: slots of one `u32` word (two with an `f32` weight) | its changed pages at an in-place checkpoint, behind the undo record; or whole, by temp + rename (rewrites) |
//! | `edges-G.sum` | one CRC-32 per 4 KiB page of `edges.dat` generation `G` | with the pages it covers |
//! | `edgelog.dat` | one region per section (default 2 KiB, DGAP's ELOG_SZ): a 16-byte header (CRC-32 over it and its acknowledged entries, generation, acknowledged count), then 16-byte entries `src, dst, weight, back-pointer + check` | its changed pages at an in-place checkpoint |
//! | `in-edges.dat`, `in-edges-G.sum`, `in-edgelog.dat` | the same for the transposed graph (stores with in-edges) | the same |
//! | `wal.log` | the write-ahead log: a header (the checkpoint it continues from, CRC) and groups of update records, each group with its CRCs and the counts after it | appended and fdatasynced at each commit; started afresh at each checkpoint |
//! | `undo-0.log` | a 4 KiB header (armed flag, generation, segment count, body length and CRC, CRC) and the saved byte ranges | `pwrite` + fdatasync, around an in-place checkpoint |
//! | `vertices.dat` | the DRAM vertex arrays at a clean close, CRC | temp + fsync + rename |
//! | `sidecar-L.bin` | a blob written with the checkpoint at update `L` ([`DurableVcsr::stage_sidecar`]) | temp + fsync + rename, before the checkpoint names it |
//! | `keys.dgid` | a keyed store's key map ([`DurableOptions::keys`], [`DurableVcsr::sync_keyed`]): vertex `v`'s original id or string | whole, by temp + fsync + rename, before the edges it names are acknowledged |
//! | `LOCK`, `READERS` | `flock`s: one writer (it writes its pid here), readers shared | |
//!
//! A store is created only in a missing or empty directory, and opened
//! only where a superblock reads back: [`DurableVcsr::inspect_dir`] tells
//! a store from somebody else's files and from a store's files without a
//! superblock (damaged, or a creation that never finished), and neither
//! is ever written over.
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
//! `u`'s section, linked to `u`'s previous log entry by a back-pointer.
//! When a log reaches [`DurableOptions::log_merge_fill`] (90%) of its
//! entries, or an insert finds neither a free slot nor log room, the
//! smallest window of sections around it whose density is within the
//! tree's bound is **rebalanced**: runs and logged edges are laid out
//! afresh with degree-proportional gaps, tombstones dropped, logs emptied.
//! When even the whole array is too dense, it **grows**: the file is
//! extended and the whole array rebalanced in the mapping, or (past the
//! undo bound) rewritten 1.5x larger into a new file. A delete turns the
//! oldest matching edge (array first, then log) into a tombstone. With
//! in-edges every update does the same on the transposed array. Large
//! batches are applied grouped by section, with the vertex entries and
//! slots of later edges prefetched.
//!
//! All of that happens in the mapping, which is **copy-on-write**
//! (`MAP_PRIVATE`): the files change only when the store writes them, in
//! the order it chooses.
//!
//! # Durability: write-ahead log, commits, checkpoints
//!
//! Every applied update is appended to the write-ahead log as a record
//! (inserted edge with its weight, deleted edge, vertex growth). A
//! **commit** writes the records buffered since the last one as one group
//! (with its CRC-32 and the counts after it) and `fdatasync`s the log: the
//! updates are then **acknowledged**. When a commit happens is the
//! [`SyncPolicy`]: per edge, every `n` updates, per call (the default),
//! in the background under group commit ([`GroupCommit`]: within 1 ms or
//! 4,096 updates), or only when asked ([`DurableVcsr::commit`]).
//! [`DurableVcsr::acknowledged`] returns the update count, edge count and
//! insert and delete totals as of the last commit; [`Commit`] is what one
//! commit acknowledged.
//!
//! A **checkpoint** writes the arrays, so that the log can start afresh:
//! when the log passes [`DurableOptions::checkpoint_bytes`] (64 MiB, or an
//! eighth of the edge arrays' bytes when that is more:
//! [`DurableOptions::checkpoint_array_divisor`]), on
//! [`DurableVcsr::sync`], and at close. In place when the pages changed
//! since the last one are fewer than [`DurableOptions::max_undo_bytes`]
//! and no read-only open maps the files: the on-disk bytes of every range
//! it will overwrite (changed pages, the header page holding the
//! checkpoint's update count, the headers of the changed edge-log regions
//! with their new CRCs, the changed page checksums) are saved in the undo
//! log and fdatasynced, the ranges written and fdatasynced, the undo log
//! disarmed (the atomic switch), the log cut back to its header. Otherwise
//! each array is rewritten into a new file (sequential, no undo record)
//! after the log was made durable, and renamed into place.
//!
//! A rewrite outside a checkpoint (growth past the undo bound) also makes
//! the log durable first (log before data): each array's header says which
//! update it holds, and recovery replays the log onto each array from its
//! own point, so the two arrays of a store with in-edges always meet.
//!
//! # Recovery (DGAP §3.1.5)
//!
//! Open checks NORMAL_SHUTDOWN. Clean (and the log empty): the vertex
//! arrays come from `vertices.dat`. Otherwise: (1) an armed, intact undo
//! record is written back (the arrays return to the last completed
//! checkpoint); a torn one is discarded (the crash came before it was
//! durable: nothing had been overwritten); (2) every page and edge-log
//! region is checked against its checksum; (3) the pivots are scanned to
//! rebuild the vertex arrays and density trees, the log chains relinked;
//! (4) the write-ahead log is replayed onto each array past its checkpoint.
//! A torn last log group (a power cut inside a commit, never acknowledged)
//! is cut; entries past a region's acknowledged count are cut. Anything
//! else that does not check out is refused with an
//! [`Error`](dyngraph_core::Error) naming the file and the byte offset,
//! never served and never a panic: see `tests/corruption.rs`, which damages
//! every file of a clean and of a crashed store.
//! [`DurableVcsr::recovery_report`] says what was found and done
//! (`serde`-serialisable for JSON); [`DurableVcsr::check_dir`] checks a
//! store without changing it.
//!
//! # Readers and writers
//!
//! One writable handle per directory: a second writer is refused with the
//! holder named. [`DurableVcsr::open_read_only`] maps the files without
//! copying the edges (a store not closed cleanly is recovered in private
//! pages) and may run while a writer holds the store: it sees the graph as
//! of its open. Within a writable handle, [`DurableVcsr::concurrent_writer`]
//! lets several threads update at once with per-section locks (DGAP
//! §3.1.6), and [`Snapshots`] give copy-before-write views
//! ([`dyngraph_core::cow`]; not durable).
//!
//! # In-edges
//!
//! Created with `StoreOptions::in_edges(true)`, the store keeps a
//! transposed array with its own logs and checksums ([`InEdges::in_edges`]
//! answers it), written by every update, checkpointed and recovered with
//! the out-edges: pull PageRank and direction-optimizing BFS run on it.
//!
//! # Testing and measurements
//!
//! `crates/durable/README.md` has the crash campaigns (a child process
//! killed with `SIGKILL` at random points and fail points, one writer and
//! two writer threads), the corruption sweep, the torn-write and full-disk
//! tests, and the comparison with `Vcsr` and SQLite (`benches/examples/durable_compare.rs`),
//! with the commands and the figures.
//!
//! [`GraphStore`]: dyngraph_core::GraphStore
//! [`GraphUpdate`]: dyngraph_core::GraphUpdate
//! [`Snapshots`]: dyngraph_core::Snapshots
//! [`FromEdges`]: dyngraph_core::FromEdges
//! [`InEdges::in_edges`]: dyngraph_core::InEdges::in_edges
#![deny(missing_docs)]

mod concurrent;
mod failpoint;
mod files;
pub mod format;
mod keys;
mod lock;
mod options;
mod read;
mod side;
mod stats;
mod store;
mod wal;

pub use concurrent::ConcurrentWriter;
pub use format::Mark;
pub use keys::KEYS_FILE;
pub use options::{DurableOptions, GroupCommit, SyncPolicy};
pub use read::{DurableInEdges, DurableNeighbors, DurableWeightedNeighbors, DurableWeights};
pub use stats::{Commit, DurableStats, RecoveryReport};
pub use store::{DurableVcsr, StoreDir};

// petgraph's visit traits; the snapshot view is core's `CowView`, which
// has them from core.
#[cfg(feature = "petgraph")]
dyngraph_core::impl_petgraph_traits!(DurableVcsr);
