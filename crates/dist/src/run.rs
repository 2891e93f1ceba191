//! One worker's part of a distributed replay: read its range, exchange the
//! arrivals to their owners epoch by epoch, apply them, and run the
//! kernels at the checkpoints.

use crate::input::{DistInput, LocalArrivals, SharedGenerated, read_range};
use crate::kernels::{self, KernelContext, Packet, Payload};
use crate::mailbox::{Collective, Mailbox, Place, Traffic};
use crate::part::Partition;
use crate::partition::Partitioner;
use crate::shipment::{Courier, Op};
use dyngraph_core::{
    Csr, CsrOptions, DynamicStore, Edge, Error, Graph, OutNeighbors, Result, StoreOptions, VertexId,
};
use dyngraph_kernels::{KernelName, KernelOutput};
use dyngraph_loader::LoadOptions;
use dyngraph_replay::{
    GroupRecord, KernelPoint, KernelSummary, Latency, ReplayOptions, StoreSummary, Window,
    kernel_options,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use timely::worker::Worker;

/// How a distributed replay runs. The replay fields mean what they mean on
/// one machine, so the same arguments give the same graph.
#[derive(Clone, Debug)]
pub struct DistOptions {
    /// Base percentage, batch size, window, semantics, timed group: as
    /// [`dyngraph_replay::replay`] reads them. A batch is one epoch of the
    /// dataflow, so batches of thousands of arrivals amortise the
    /// per-epoch barrier (see the crate docs).
    pub replay: ReplayOptions,
    /// The stores' options. `in_edges` keeps a reversed copy of every edge
    /// at the owner of its destination (a second store per worker); each
    /// store is built without in-edges of its own. `weighted` keeps
    /// weights when the input has them.
    pub store: StoreOptions,
    /// Which worker owns which vertex.
    pub partitioner: Partitioner,
    /// How to read the file (format, third column); parsing is
    /// single-threaded per worker, since the workers are the parallelism.
    pub load: LoadOptions,
    /// Kernels to run at each checkpoint (`bfs`, `pr`, `cc`, `cc_sv`,
    /// `rw`), with their default options and BFS from `source`.
    pub kernels: Vec<KernelName>,
    /// Checkpoint every this many batches (and at the end). `None`: at the
    /// end only.
    pub every: Option<usize>,
    /// The BFS source; `None`: the source of the stream's first arrival,
    /// as the single-machine replay picks it.
    pub source: Option<VertexId>,
    /// Gather each checkpoint's graph and kernel results at worker 0 and
    /// check them with the single-machine verifiers (and time the
    /// single-machine kernel on the gathered graph as `csr_seconds`).
    pub verify: bool,
    /// Gather the last checkpoint's kernel results at worker 0 into
    /// [`DistReport::outputs`]. Implied by `verify`.
    pub gather: bool,
    /// Give up when no epoch or superstep of the cluster has finished for
    /// this long (a dead or hung peer). It must exceed the longest local
    /// phase (parsing a range, building the base, a verification).
    pub stall_timeout: Duration,
    /// Sleep this long in every epoch (for demonstrations and the tests
    /// that kill a process mid-run); `None` in real runs.
    pub throttle: Option<Duration>,
    /// Arrivals each worker sends per round of the base (the base is
    /// still one epoch, built at once). Between processes timely keeps
    /// the largest backlog its network buffers ever held, so this bounds
    /// that memory: 8 to 16 bytes per arrival.
    pub base_round: usize,
}

impl Default for DistOptions {
    fn default() -> Self {
        Self {
            replay: ReplayOptions {
                batch: 1024,
                ..ReplayOptions::default()
            },
            store: StoreOptions::default(),
            partitioner: Partitioner::Hash,
            load: LoadOptions::default(),
            kernels: Vec::new(),
            every: None,
            source: None,
            verify: false,
            gather: false,
            stall_timeout: Duration::from_secs(120),
            throttle: None,
            base_round: 1 << 22,
        }
    }
}

/// The traffic and time of one kernel run on one worker.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelTraffic {
    /// The kernel's short name.
    pub kernel: String,
    /// The checkpoint's batch (0-based; `None` for a checkpoint right
    /// after the base).
    pub batch: Option<usize>,
    /// Iterations (PageRank), levels (BFS), rounds (components) or steps
    /// (walks).
    pub iterations: usize,
    /// What the worker sent in each of the kernel's supersteps (its
    /// collectives excluded: they are in `collectives`).
    pub supersteps: Vec<Traffic>,
    /// The kernel's all-reduces (convergence, frontier sizes).
    pub collectives: Traffic,
}

/// One worker's counters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkerCounters {
    /// The worker's index.
    pub worker: usize,
    /// Its process.
    pub process: usize,
    /// Arrivals this worker read from the input.
    pub arrivals_read: u64,
    /// Vertices it owns.
    pub owned_vertices: u64,
    /// Vertices it knows: owned plus ghosts (the far ends of its edges).
    pub local_vertices: u64,
    /// Out-edges in its store at the end: the edges it owns.
    pub edges_owned: u64,
    /// In-edge copies in its reversed store at the end.
    pub in_edges_owned: u64,
    /// Heap bytes of its stores and id maps at the end.
    pub memory_bytes: u64,
    /// What it sent during the replay (updates, announcements, window
    /// collectives).
    pub replay_traffic: Traffic,
    /// The routing lists' exchange (each worker's ghost ids to their
    /// owners, once per checkpoint), summed over the checkpoints.
    pub routing_traffic: Traffic,
    /// Every kernel run.
    pub kernels: Vec<KernelTraffic>,
}

/// The cluster that ran.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClusterShape {
    /// Processes.
    pub processes: usize,
    /// Workers per process.
    pub threads: usize,
    /// All workers.
    pub workers: usize,
    /// The partitioner.
    pub partitioner: String,
}

/// What a distributed replay reports: the single-machine summary, summed
/// over the workers, and per-worker counters.
#[derive(Clone, Debug, Serialize)]
pub struct DistReport {
    /// As a single-machine replay reports it: edge counts summed over the
    /// workers' out stores, vertices as the global largest id + 1, memory
    /// summed, times measured on worker 0 around whole epochs (so they
    /// include the exchange and the barrier). Kernel `csr_seconds` is the
    /// single-machine kernel on the gathered graph when verifying, else
    /// NaN.
    pub summary: StoreSummary,
    /// The cluster.
    pub cluster: ClusterShape,
    /// Each worker's counters, by worker index.
    pub workers: Vec<WorkerCounters>,
    /// Largest worker's edges over the mean (1.0 is perfect balance).
    pub imbalance: f64,
    /// Seconds worker 0 spent building the routing lists at each
    /// checkpoint (shared by that checkpoint's kernels, not in their
    /// times).
    pub routing_seconds: Vec<f64>,
    /// Verifier rejections, as messages (empty when all passed or when not
    /// verifying).
    pub verify_failures: Vec<String>,
    /// The last checkpoint's gathered kernel results, by short name, when
    /// gathering or verifying.
    #[serde(skip)]
    pub outputs: BTreeMap<String, KernelOutput>,
}

impl DistReport {
    /// Bytes sent per stored edge in each superstep of the last run of
    /// `kernel`, summed over the workers (`None` if it did not run).
    pub fn bytes_per_edge_per_superstep(&self, kernel: &str) -> Option<Vec<f64>> {
        let edges = self.summary.edges.max(1) as f64;
        let runs: Vec<&KernelTraffic> = self
            .workers
            .iter()
            .filter_map(|w| w.kernels.iter().rev().find(|k| k.kernel == kernel))
            .collect();
        let steps = runs.iter().map(|k| k.supersteps.len()).max()?;
        Some(
            (0..steps)
                .map(|i| {
                    runs.iter()
                        .filter_map(|k| k.supersteps.get(i))
                        .map(|t| t.bytes as f64)
                        .sum::<f64>()
                        / edges
                })
                .collect(),
        )
    }
}

/// A worker's state in the replay loop.
struct Run<'a, S: DynamicStore> {
    worker: &'a mut Worker,
    place: Place,
    options: &'a DistOptions,
    /// The stores' own options (their shared part is `options.store`'s).
    store_options: &'a S::Options,
    collective: Collective,
    courier: Courier,
    packets: Mailbox<Packet>,
    local: LocalArrivals,
    partition: Option<Partition<S>>,
    /// Arrivals in the whole stream.
    total: u64,
    /// The BFS source, once known.
    source: VertexId,
    weighted: bool,
    counters: WorkerCounters,
    summary: StoreSummary,
    outputs: BTreeMap<String, KernelOutput>,
    verify_failures: Vec<String>,
    routing_seconds: Vec<f64>,
}

/// Runs worker `worker.index()`'s part; `Some(report)` on worker 0.
pub(crate) fn run_worker<S: DynamicStore + 'static>(
    worker: &mut Worker,
    place: Place,
    input: &DistInput,
    generated: &SharedGenerated,
    options: &DistOptions,
    store_options: &S::Options,
) -> Result<Option<DistReport>> {
    let collective = Collective::new(worker, place.clone());
    let courier = Courier::new(
        Mailbox::new(worker, place.clone()),
        place.index,
        place.peers,
    );
    let packets = Mailbox::new(worker, place.clone());
    // Read this worker's arrivals; every worker learns whether all could.
    let read = match input {
        DistInput::File(path) => read_range(path, &options.load, place.index, place.peers),
        DistInput::Generated(generator) => generated.share(generator, place.index, place.peers),
    };
    let mut run = Run::<S> {
        worker,
        place: place.clone(),
        options,
        store_options,
        collective,
        courier,
        packets,
        local: LocalArrivals {
            first: 0,
            stream: Default::default(),
        },
        partition: None,
        total: 0,
        source: 0,
        weighted: false,
        counters: WorkerCounters {
            worker: place.index,
            process: place.process_of(place.index),
            ..WorkerCounters::default()
        },
        summary: empty_summary::<S>(options),
        outputs: BTreeMap::new(),
        verify_failures: Vec::new(),
        routing_seconds: Vec::new(),
    };
    let failure = match &read {
        Ok(_) => options
            .kernels
            .iter()
            .find(|k| !kernels::is_distributed(**k))
            .map(|&k| kernels::unsupported(k).to_string()),
        Err(error) => Some(error.to_string()),
    };
    if let Err(message) = run.collective.agree(run.worker, failure) {
        return Err(match read {
            Err(error) => error,
            Ok(_) => Error::InvalidArgument(message),
        });
    }
    run.local.stream = read?;
    run.replay()
}

fn empty_summary<S: DynamicStore>(options: &DistOptions) -> StoreSummary {
    StoreSummary {
        store: S::NAME.to_string(),
        in_edges: options.store.in_edges,
        weighted: false,
        base_edges: 0,
        base_seconds: 0.0,
        edges_inserted: 0,
        edges_deleted: 0,
        edges: 0,
        vertices: 0,
        batch_count: 0,
        seconds: 0.0,
        meps: 0.0,
        latency_ms: Latency::default(),
        memory_bytes: 0,
        bytes_per_edge: 0.0,
        rebalances: None,
        elements_moved: None,
        kernels: BTreeMap::new(),
        kernel_timeline: Vec::new(),
        maintained: BTreeMap::new(),
        acknowledged_edges: None,
        interrupted: false,
        records: Vec::new(),
    }
}

/// The window as the readers run it: which of this worker's arrivals
/// leave, given the global arrival indices.
struct ReaderWindow {
    window: Window,
    /// Global index of the next arrival that may leave (all before it
    /// left).
    cursor: u64,
    /// Newest timestamp among this worker's arrived arrivals.
    local_newest: u64,
}

impl<S: DynamicStore + 'static> Run<'_, S> {
    fn me(&self) -> usize {
        self.place.index
    }

    /// Local arrival positions of global range `range`.
    fn local_range(&self, start: u64, end: u64) -> std::ops::Range<usize> {
        let first = self.local.first;
        let len = self.local.stream.len() as u64;
        let from = start.clamp(first, first + len) - first;
        let to = end.clamp(first, first + len) - first;
        from as usize..to as usize
    }

    /// Queues the inserts of this worker's arrivals `range` for their
    /// owners (and the reversed copies for the owners of the
    /// destinations).
    fn send_inserts(&mut self, range: std::ops::Range<usize>) {
        self.send(range, Op::Insert);
    }

    /// Queues the deletes of this worker's arrivals `range`.
    fn send_deletes(&mut self, range: std::ops::Range<usize>) {
        self.send(range, Op::Delete);
    }

    fn send(&mut self, range: std::ops::Range<usize>, op: Op) {
        let stream = &self.local.stream;
        let (sources, destinations) = (stream.src(), stream.dst());
        let weights = stream.weights().filter(|_| self.weighted);
        let (partitioner, peers) = (self.options.partitioner, self.place.peers);
        let in_edges = self.options.store.in_edges;
        for i in range {
            if i % crate::shipment::CHUNK == 0 {
                // Take in what the peers sent meanwhile: timely's network
                // buffers keep the largest backlog they ever held.
                self.worker.step();
            }
            let (src, dst) = (sources[i], destinations[i]);
            let index = self.local.first + i as u64;
            let weight = weights.map_or(1.0, |w| w[i]);
            self.courier.edge(
                partitioner.owner(src, peers),
                op,
                false,
                index,
                src,
                dst,
                weight,
            );
            if in_edges {
                self.courier.edge(
                    partitioner.owner(dst, peers),
                    op,
                    true,
                    index,
                    src,
                    dst,
                    weight,
                );
            }
        }
    }

    fn send_announcements(&mut self) {
        let Some(partition) = &mut self.partition else {
            return;
        };
        for vertex in partition.take_announcements() {
            let owner = self.options.partitioner.owner(vertex, self.place.peers);
            self.courier.announce(owner, vertex);
        }
    }

    /// Without a window an arrival is read once, when its epoch is sent:
    /// once every arrival of this worker before global index `sent` is
    /// sent and none is left, its columns go (a load keeps only the
    /// stores).
    fn release_sent(&mut self, sent: u64) {
        let end = self.local.first + self.local.stream.len() as u64;
        if self.options.replay.window.is_none() && sent >= end {
            self.local.stream = Default::default();
        }
    }

    fn throttle(&self) {
        if let Some(pause) = self.options.throttle {
            std::thread::sleep(pause);
        }
    }

    /// The whole replay on this worker.
    fn replay(mut self) -> Result<Option<DistReport>> {
        let options = self.options;
        // Global arrival indices: each worker's count, in worker order.
        let stream = &self.local.stream;
        let shape = vec![
            stream.len() as u64,
            u64::from(stream.timestamps().is_some()),
            u64::from(stream.weights().is_some()),
            stream.src().first().map_or(u64::MAX, |&v| u64::from(v)),
        ];
        let all = self
            .collective
            .all_gather(self.worker, shape, None)
            .map_err(Error::InvalidArgument)?;
        self.local.first = all[..self.me()].iter().map(|v| v[0]).sum();
        self.total = all.iter().map(|v| v[0]).sum();
        let first_source = all
            .iter()
            .find(|v| v[0] > 0)
            .map_or(0, |v| v[3] as VertexId);
        self.source = options.source.unwrap_or(first_source);
        let input_weighted = all.iter().any(|v| v[0] > 0 && v[2] == 1);
        self.weighted = options.store.weighted && input_weighted;
        // Owners track which arrival inserted an edge only under simple
        // semantics with a window: then they need the arrival indices.
        let tracking = options.replay.window.is_some()
            && options.store.semantics == dyngraph_core::Semantics::Simple;
        self.courier.carry(self.weighted, tracking);
        self.summary.weighted = self.weighted;
        self.counters.arrivals_read = self.local.stream.len() as u64;
        // The arrival indices that decide windows are global, so the
        // window's deletes are the single-machine engine's.
        let total = self.total;
        let base_len = ((total as f64) * options.replay.base_percent / 100.0).floor() as u64;
        let batch = options.replay.batch.max(1) as u64;
        let batch_count = (total - base_len).div_ceil(batch) as usize;
        let arrival = |b: usize| {
            base_len
                .saturating_add((b as u64).saturating_mul(batch))
                .min(total)
        };
        // Decided for the whole stream: a worker with an empty range has no
        // timestamp column, but must take part in the window's collectives.
        let has_timestamps = all.iter().any(|v| v[0] > 0 && v[1] == 1);
        let mut window = options.replay.window.map(|window| ReaderWindow {
            window,
            cursor: 0,
            local_newest: 0,
        });

        // Epoch 0: the base, bulk-built by each owner.
        let started = Instant::now();
        let range = self.local_range(0, base_len);
        if let (Some(window), Some(t)) = (&mut window, self.local.stream.timestamps()) {
            window.local_newest = t[range.clone()].iter().copied().fold(0, u64::max);
        }
        // In rounds of at most `base_round` arrivals per worker: timely's
        // network buffers keep the largest backlog they ever held, and a
        // whole base in one round would be all of it.
        let mut first = 0u64;
        let largest_base = all
            .iter()
            .map(|v| {
                let part = base_len.clamp(first, first + v[0]) - first;
                first += v[0];
                part
            })
            .max()
            .unwrap_or(0);
        let per_round = options.base_round.max(1);
        let rounds = largest_base.div_ceil(per_round as u64).max(1) as usize;
        let mut received = Vec::new();
        for round in 0..rounds {
            let start = (range.start + round * per_round).min(range.end);
            let end = (start + per_round).min(range.end);
            self.send_inserts(start..end);
            if round + 1 == rounds {
                self.release_sent(base_len);
            }
            received.extend(self.courier.finish_round(self.worker));
        }
        // Each round's shipments came in `(from, seq)` order; by sender
        // across the rounds, they are in arrival order again.
        received.sort_by_key(|s| s.from);
        let built = Partition::<S>::build(
            self.me(),
            self.place.peers,
            options.partitioner,
            options.store.weighted(self.weighted),
            window.is_some(),
            received,
            self.store_options,
        );
        let failure = built.as_ref().err().map(ToString::to_string);
        self.collective
            .agree(self.worker, failure)
            .map_err(Error::InvalidArgument)?;
        self.partition = Some(built?);
        self.summary.base_seconds = started.elapsed().as_secs_f64();
        self.summary.base_edges = self.collective.sum(self.worker, vec![self.out_edges()])[0];
        if batch_count == 0 {
            self.checkpoint(None)?;
        }

        let group_batches = options.replay.timed_group.div_ceil(batch as usize).max(1);
        let every = options.every.filter(|_| !options.kernels.is_empty());
        let mut samples = Vec::new();
        let mut next_batch = 0usize;
        while next_batch < batch_count {
            let mut group_end = (next_batch + group_batches).min(batch_count);
            if let Some(every) = every {
                group_end = group_end.min((next_batch / every + 1).saturating_mul(every));
            }
            let timer = Instant::now();
            let mut first_batch_seconds = None;
            let (mut added, mut removed) = (0u64, 0u64);
            for b in next_batch..group_end {
                let (start, end) = (arrival(b), arrival(b + 1));
                let range = self.local_range(start, end);
                if let (Some(window), Some(t)) = (&mut window, self.local.stream.timestamps()) {
                    window.local_newest = t[range.clone()]
                        .iter()
                        .copied()
                        .fold(window.local_newest, u64::max);
                }
                self.send_inserts(range);
                self.release_sent(end);
                if let Some(window) = &mut window {
                    let expire_before = match window.window {
                        Window::Edges(keep) => end.saturating_sub(keep).max(window.cursor),
                        Window::Time(_) if !has_timestamps => window.cursor,
                        Window::Time(span) => {
                            let newest =
                                self.collective.max(self.worker, vec![window.local_newest])[0];
                            // The first of this worker's arrivals still in
                            // the window; the smallest over all workers is
                            // where the single-machine cursor stops.
                            let local = self.local_range(window.cursor, end);
                            let timestamps = self.local.stream.timestamps().unwrap_or(&[]);
                            let first_kept = local
                                .clone()
                                .find(|&i| newest.saturating_sub(timestamps[i]) <= span)
                                .map_or(end, |i| self.local.first + i as u64);
                            self.collective.min(self.worker, vec![first_kept])[0]
                        }
                    };
                    let leaving = self.local_range(window.cursor, expire_before);
                    window.cursor = expire_before;
                    self.send_deletes(leaving);
                }
                self.send_announcements();
                self.throttle();
                let received = self.courier.finish_round(self.worker);
                let applied = self.partition_mut().apply(received);
                let failure = applied.as_ref().err().map(ToString::to_string);
                if let Err(message) = self.collective.agree(self.worker, failure) {
                    return Err(applied.err().unwrap_or(Error::InvalidArgument(message)));
                }
                let report = applied?;
                added += report.edges_added;
                removed += report.edges_removed;
                if b == next_batch {
                    first_batch_seconds = Some(timer.elapsed().as_secs_f64());
                }
            }
            let seconds = timer.elapsed().as_secs_f64();
            samples.extend(first_batch_seconds.map(|s| s * 1e3));
            let totals = self
                .collective
                .sum(self.worker, vec![added, removed, self.out_edges()]);
            self.summary.records.push(GroupRecord {
                batch: next_batch,
                batches: group_end - next_batch,
                edges_inserted: totals[0],
                edges_deleted: totals[1],
                seconds,
                edges: totals[2],
            });
            let last_batch = group_end - 1;
            next_batch = group_end;
            let due = every.is_some_and(|every| (last_batch + 1).is_multiple_of(every));
            if due || next_batch == batch_count {
                self.checkpoint(Some(last_batch))?;
            }
        }
        self.summary.latency_ms = latency(samples);
        self.finish()
    }

    fn partition_mut(&mut self) -> &mut Partition<S> {
        self.partition
            .as_mut()
            .expect("the partition is built before the first batch")
    }

    fn out_edges(&self) -> u64 {
        self.partition.as_ref().map_or(0, Partition::out_edges)
    }

    /// Runs the kernels on the current epoch.
    fn checkpoint(&mut self, batch: Option<usize>) -> Result<()> {
        if self.options.kernels.is_empty() {
            return Ok(());
        }
        // Every ghost's owner must know it before routes are built.
        self.send_announcements();
        let received = self.courier.finish_round(self.worker);
        self.partition_mut().apply(received)?;
        let traffic = self.courier.take_traffic();
        self.counters.replay_traffic.add(traffic);
        let largest = self
            .partition
            .as_ref()
            .map_or(0, |p| p.ids.max_global_plus_one());
        let vertex_count = self.collective.max(self.worker, vec![largest])[0] as usize;
        if self.source as usize >= vertex_count {
            // As on one machine: no kernel runs before the source exists.
            return Ok(());
        }
        let gather = self.options.gather || self.options.verify;
        let graph = if self.options.verify {
            self.gather_graph(vertex_count)?
        } else {
            None
        };
        // The routing lists, once per checkpoint for every kernel.
        let unrelated = self.collective.take_traffic();
        self.counters.replay_traffic.add(unrelated);
        let routing_started = Instant::now();
        let routes = KernelContext {
            worker: self.worker,
            partition: self.partition.as_mut().expect("built"),
            packets: &mut self.packets,
            collective: &mut self.collective,
            vertex_count,
        }
        .routes();
        self.routing_seconds
            .push(routing_started.elapsed().as_secs_f64());
        let routing = self.packets.take_traffic();
        self.counters.routing_traffic.add(routing);
        let kernels = self.options.kernels.clone();
        let mut failures = Vec::new();
        for kernel in kernels {
            let options = kernel_options(kernel, self.source);
            let started = Instant::now();
            let mut context = KernelContext {
                worker: self.worker,
                partition: self.partition.as_mut().expect("built"),
                packets: &mut self.packets,
                collective: &mut self.collective,
                vertex_count,
            };
            let mut output = context.run(&routes, kernel, &options)?;
            let seconds = started.elapsed().as_secs_f64();
            self.counters.kernels.push(KernelTraffic {
                kernel: kernel.as_str().to_string(),
                batch,
                iterations: output.iterations,
                supersteps: output.supersteps.clone(),
                collectives: self.collective.take_traffic(),
            });
            let mut csr_seconds = f64::NAN;
            let mut verified = None;
            let mut top = Vec::new();
            if gather {
                let values = self.gather_values(std::mem::take(&mut output.values))?;
                if let Some(values) = values {
                    let assembled = kernels::assemble(
                        kernel,
                        &options,
                        vertex_count,
                        &values,
                        &output,
                        self.options.store.in_edges,
                    )?;
                    if let dyngraph_kernels::KernelOutput::PageRank(ranks) = &assembled {
                        top = ranks
                            .top(10)
                            .into_iter()
                            .map(|(vertex, score)| dyngraph_replay::RankedVertex {
                                id: vertex.to_string(),
                                vertex,
                                score,
                            })
                            .collect();
                    }
                    if let Some(graph) = &graph {
                        let timer = Instant::now();
                        dyngraph_kernels::run(graph, &options)?;
                        csr_seconds = timer.elapsed().as_secs_f64();
                        let check = dyngraph_kernels::verify(graph, &assembled);
                        if let Err(error) = &check {
                            failures.push(format!(
                                "{kernel} after batch {}: {error}",
                                batch.map_or("base".to_string(), |b| b.to_string())
                            ));
                        }
                        verified = Some(check.is_ok());
                    }
                    self.outputs.insert(kernel.as_str().to_string(), assembled);
                }
            }
            let ratio = seconds / csr_seconds;
            self.summary.kernels.insert(
                kernel.as_str().to_string(),
                KernelSummary {
                    seconds,
                    csr_seconds,
                    ratio,
                    mode: kernels::mode(kernel, self.options.store.in_edges).to_string(),
                    top,
                    verified,
                },
            );
            self.summary.kernel_timeline.push(KernelPoint {
                batch: batch.unwrap_or(0),
                kernel: kernel.as_str().to_string(),
                seconds,
                csr_seconds,
            });
        }
        self.verify_failures.extend(failures);
        Ok(())
    }

    /// Every worker's owned edges at worker 0, as a `Csr` over
    /// `vertex_count` vertices (each vertex's edges in its store's order).
    fn gather_graph(&mut self, vertex_count: usize) -> Result<Option<Csr>> {
        let partition = self.partition.as_ref().expect("built");
        let store = partition.out();
        let snapshot = store.snapshot();
        let view = store.view(&snapshot)?;
        let mut edges = Vec::with_capacity(partition.out_edges() as usize);
        for &u in &partition.owned {
            if (u as usize) < view.vertex_count() {
                let src = partition.ids.global(u);
                edges.extend(
                    view.out_neighbors(u)
                        .map(|d| (src, partition.ids.global(d))),
                );
            }
        }
        let from = self.me() as u32;
        self.packets.send(
            0,
            Packet {
                from,
                payload: Payload::Edges(edges),
            },
        );
        let mut received = self.packets.finish_round(self.worker);
        self.packets.take_traffic();
        if self.me() != 0 {
            return Ok(None);
        }
        received.sort_by_key(|p| p.from);
        let edges: Vec<Edge> = received
            .into_iter()
            .flat_map(|p| match p.payload {
                Payload::Edges(edges) => edges,
                _ => Vec::new(),
            })
            .map(|(s, d)| Edge::new(s, d))
            .collect();
        let options = CsrOptions::default().vertex_count(vertex_count);
        Csr::from_edges(&edges[..], options).map(Some)
    }

    /// Every worker's values at worker 0.
    fn gather_values(
        &mut self,
        values: Vec<(VertexId, u64)>,
    ) -> Result<Option<Vec<(VertexId, u64)>>> {
        let from = self.me() as u32;
        self.packets.send(
            0,
            Packet {
                from,
                payload: Payload::Gather(values),
            },
        );
        let received = self.packets.finish_round(self.worker);
        self.packets.take_traffic();
        if self.me() != 0 {
            return Ok(None);
        }
        Ok(Some(
            received
                .into_iter()
                .flat_map(|p| match p.payload {
                    Payload::Gather(values) => values,
                    _ => Vec::new(),
                })
                .collect(),
        ))
    }

    /// Totals, counters and the report at worker 0.
    fn finish(mut self) -> Result<Option<DistReport>> {
        self.send_announcements();
        let received = self.courier.finish_round(self.worker);
        self.partition_mut().apply(received)?;
        self.counters
            .replay_traffic
            .add(self.courier.take_traffic());
        self.counters
            .replay_traffic
            .add(self.collective.take_traffic());
        let partition = self.partition.as_ref().expect("built");
        self.counters.owned_vertices = partition.owned.len() as u64;
        self.counters.local_vertices = partition.ids.count() as u64;
        self.counters.edges_owned = partition.out_edges();
        self.counters.in_edges_owned = partition.in_edges();
        self.counters.memory_bytes = partition.memory_bytes() as u64;
        let maintenance = partition.maintenance();
        let totals = self.collective.sum(
            self.worker,
            vec![
                partition.edges_inserted,
                partition.edges_deleted,
                partition.out_edges(),
                partition.memory_bytes() as u64,
                maintenance.map_or(0, |m| m.rebalances),
                maintenance.map_or(0, |m| m.elements_moved),
            ],
        );
        let largest = partition.ids.max_global_plus_one();
        let vertices = self.collective.max(self.worker, vec![largest])[0];
        // Counters travel as JSON to worker 0.
        let text = serde_json::to_string(&self.counters)
            .map_err(|e| Error::InvalidArgument(format!("counters: {e}")))?;
        let from = self.me() as u32;
        self.packets.send(
            0,
            Packet {
                from,
                payload: Payload::Text(text),
            },
        );
        let mut received = self.packets.finish_round(self.worker);
        if self.me() != 0 {
            return Ok(None);
        }
        received.sort_by_key(|p| p.from);
        let mut workers = Vec::with_capacity(received.len());
        for packet in received {
            if let Payload::Text(text) = packet.payload {
                workers.push(
                    serde_json::from_str::<WorkerCounters>(&text)
                        .map_err(|e| Error::InvalidArgument(format!("counters: {e}")))?,
                );
            }
        }
        let summary = &mut self.summary;
        summary.edges_inserted = totals[0];
        summary.edges_deleted = totals[1];
        summary.edges = totals[2];
        summary.memory_bytes = totals[3];
        summary.vertices = vertices;
        summary.bytes_per_edge = totals[3] as f64 / totals[2].max(1) as f64;
        if maintenance.is_some() {
            summary.rebalances = Some(totals[4]);
            summary.elements_moved = Some(totals[5]);
        }
        summary.batch_count = summary.records.iter().map(|r| r.batches).sum();
        summary.seconds = summary.records.iter().map(|r| r.seconds).sum();
        let updates = (summary.edges_inserted - summary.base_edges + summary.edges_deleted) as f64;
        summary.meps = if summary.seconds > 0.0 {
            updates / summary.seconds / 1e6
        } else {
            0.0
        };
        let mean =
            workers.iter().map(|w| w.edges_owned as f64).sum::<f64>() / workers.len().max(1) as f64;
        let max = workers.iter().map(|w| w.edges_owned).max().unwrap_or(0) as f64;
        let imbalance = if mean > 0.0 { max / mean } else { 1.0 };
        let processes = self.place.peers.div_ceil(self.place.threads.max(1));
        Ok(Some(DistReport {
            summary: self.summary,
            cluster: ClusterShape {
                processes,
                threads: self.place.threads,
                workers: self.place.peers,
                partitioner: format!("{:?}", self.options.partitioner).to_lowercase(),
            },
            workers,
            imbalance,
            routing_seconds: self.routing_seconds,
            verify_failures: self.verify_failures,
            outputs: self.outputs,
        }))
    }
}

/// Nearest-rank percentiles, as the single-machine engine computes them.
fn latency(mut times: Vec<f64>) -> Latency {
    if times.is_empty() {
        return Latency::default();
    }
    times.sort_by(f64::total_cmp);
    let rank = |p: f64| times[((p * times.len() as f64).ceil() as usize).clamp(1, times.len()) - 1];
    Latency {
        p50: rank(0.50),
        p99: rank(0.99),
        samples: times.len(),
    }
}
