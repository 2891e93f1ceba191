//! `dyngraph-dist`: partitioned replay and kernels on [timely dataflow],
//! in threads of one process or in a cluster of processes.
//!
//! Each timely worker owns the vertices a [`Partitioner`] gives it (a hash
//! of the id by default) and keeps their out-edges in a store of the store
//! contract (`S: DynamicStore`: `Vcsr`, `CsrPP`, the durable store, or the
//! rebuild baseline [`dyngraph_core::CsrRebuild`]), under its own dense
//! renumbering of the vertices it sees, so a worker's memory follows its
//! share of the graph, not the global vertex count. With
//! [`StoreOptions::in_edges`](dyngraph_core::StoreOptions) a reversed copy
//! of each edge also lives at the owner of its destination.
//!
//! [`run_spec`] runs the replay job of `dyngraph-replay`
//! ([`ReplaySpec`](dyngraph_replay::ReplaySpec), what `dyngraph replay`
//! parses its flags into) over a [`Cluster`]: every store the spec names,
//! through the store registry, into a [`DistributedReport`] (the
//! single-machine report plus per-worker counters). [`replay`] is the layer
//! under it: one store type, one input (a file or a generated graph), every
//! knob of [`DistOptions`].
//!
//! # A replay
//!
//! 1. **Read**: every worker parses its own byte range of the file (cut at
//!    line starts) with the loader; one all-gather of the line counts gives
//!    every arrival its global index.
//! 2. **Epochs**: epoch 0 is the base (the first
//!    [`ReplayOptions::base_percent`](dyngraph_replay::ReplayOptions) of
//!    the arrivals, bulk-built by each owner with `from_edges`); then each
//!    batch of [`ReplayOptions::batch`](dyngraph_replay::ReplayOptions)
//!    arrivals is one epoch: readers send each arrival to the owner of its
//!    source (and of its destination, for in-edges), owners apply the
//!    epoch's inserts in arrival order, then its deletes, then `end_batch`,
//!    exactly as the single-machine engine applies a batch.
//! 3. **Windows**: an edge-count window needs only global arrival indices
//!    (arrival `i` leaves once `i < arrived - keep`), so each reader expires
//!    its own arrivals with no communication. A time window needs the
//!    newest timestamp of the whole stream so far (an all-reduce max per
//!    epoch) and, because the single-machine engine expires in arrival
//!    order and stops at the first arrival still inside the window, the
//!    smallest global index still inside (an all-reduce min). Under simple
//!    semantics an owner also keeps the engine's rule that only an arrival
//!    that inserted its edge deletes it. The counts equal the engine's
//!    (tested on the real files).
//! 4. **Kernels** run at checkpoints on the epoch every worker has
//!    applied: PageRank, BFS (top-down), weakly connected components and
//!    reverse walks, as supersteps ([`kernels` module docs](crate#kernels)),
//!    gathered at worker 0 and checked with the single-machine verifiers
//!    when asked.
//!
//! # Supersteps on timely
//!
//! Every exchange is a small timely dataflow: an input, an exchange
//! channel routing each message to the worker it is addressed to, and an
//! operator filing what arrives under its timestamp. A worker sends, closes
//! the timestamp, and steps timely until the probe after that operator has
//! passed it: timely's progress tracking is the barrier. No thread pool,
//! socket or protocol of this crate's own: the cluster is timely's
//! (`timely::Config`, threads, processes, host file).
//!
//! # Kernels
//!
//! | kernel | distributed as | result |
//! |---|---|---|
//! | `pr` | push along out-edges, contributions summed per destination on the sending worker, one `f32` per ghost per iteration to its owner | within [`dyngraph_kernels::PAGERANK_RELATIVE_TOLERANCE`] of the serial power iteration |
//! | `bfs` | top-down frontier exchange, one message per ghost per search (no bottom-up steps: see the kernels module) | depths exact |
//! | `cc`, `cc_sv` | local union-find per worker, then min-label propagation between owners and ghosts | min-id labels, exact |
//! | `rw` | owners send each step's counts to the workers holding their vertices as ghosts; sums in store order | exact (same sums in the same order) |
//!
//! # What the counters count
//!
//! Bytes are the messages' encoded sizes (bincode's fixed width, as timely
//! encodes them between processes) of everything a worker hands to an
//! exchange addressed to another worker, without timely's framing and
//! progress messages; [`Traffic::remote_bytes`] is the part that crossed
//! processes. Times are wall-clock on worker 0 around whole epochs and
//! kernels, barriers included.
//!
//! # Failure
//!
//! A worker that fails (a bad line, a store error) tells the others at the
//! next collective, and all return the error. A peer that dies is noticed
//! by timely's network thread (its connection closes) or, if the cluster
//! simply stops moving, by a watchdog in [`replay`] that gives up after
//! [`DistOptions::stall_timeout`] without a finished superstep; either way
//! [`replay`] returns an [`Error::Io`](dyngraph_core::Error::Io) that names
//! the cluster and says what happened.
//!
//! # Example
//!
//! ```
//! use dyngraph_core::{Semantics, StoreOptions};
//! use dyngraph_dist::{Cluster, DistInput, DistOptions, replay};
//! use dyngraph_kernels::{KernelName, KernelOutput, verify};
//! use dyngraph_core::CsrRebuild;
//! use dyngraph_replay::{ReplayOptions};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
//! let options = DistOptions {
//!     replay: ReplayOptions { batch: 20_000, semantics: Semantics::Multigraph, ..ReplayOptions::default() },
//!     store: StoreOptions::new(Semantics::Multigraph),
//!     kernels: vec![KernelName::Afforest, KernelName::Bfs],
//!     source: Some(1),
//!     verify: true, // gather at worker 0 and check with the serial verifiers
//!     ..DistOptions::default()
//! };
//! // Two workers in this process; a cluster would be Cluster::from_hostfile(..).
//! let report = replay::<CsrRebuild>(&Cluster::threads(2), DistInput::File(path.into()), options)?
//!     .expect("this process hosts worker 0");
//! assert_eq!(report.summary.edges, 59_835);
//! assert_eq!(report.workers.len(), 2);
//! assert!(report.verify_failures.is_empty(), "{:?}", report.verify_failures);
//! assert_eq!(report.summary.kernels["bfs"].verified, Some(true));
//! let KernelOutput::Components(cc) = &report.outputs["cc"] else { unreachable!() };
//! assert_eq!(cc.labels[0], 0); // vertex 0 never occurs: its own component
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! [timely dataflow]: https://docs.rs/timely
#![deny(missing_docs)]

mod cluster;
mod connect;
mod hosts;
mod input;
mod job;
mod kernels;
mod mailbox;
mod memory;
mod part;
mod partition;
mod quiet;
mod run;
mod shipment;
mod spec;

pub use cluster::{Cluster, replay, replay_with};
pub use input::DistInput;
pub use job::{DistSettings, DistributedReport, DistributedRun, run_spec};
pub use kernels::is_distributed;
pub use mailbox::Traffic;
pub use partition::Partitioner;
pub use run::{ClusterShape, DistOptions, DistReport, KernelTraffic, WorkerCounters};
