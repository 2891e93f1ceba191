//! Where the workers run: threads of this process, or a cluster of
//! processes from a host file (timely's conventions), and the watchdog
//! that turns a dead peer into an error instead of a hang.

use crate::connect::{Links, PeerStream, Startup};
use crate::hosts::{Host, HostSource, parse_hosts, read_hostfile};
use crate::input::{DistInput, SharedGenerated};
use crate::mailbox::{Heartbeat, Place};
use crate::run::{DistOptions, DistReport, run_worker};
use crate::spec::Fingerprint;
use dyngraph_core::{DynamicStore, Error, Result, StoreConfig};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use timely::communication::allocator::zero_copy::initialize::{
    CommsGuard, initialize_networking_from_sockets,
};
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};

/// The workers of a run: `threads` in this process, times the processes of
/// the host file when there is one.
///
/// A host file is timely's: one `host:port` per line, line `i` the address
/// process `i` listens on; every process is started with the same file and
/// its own index (`--hostfile FILE --process I` on the command line), and
/// all use the same number of threads. Worker `w` of the cluster is thread
/// `w % threads` of process `w / threads`.
///
/// Every process reads and checks the whole file before it connects (an
/// address and a port in 1..=65535 per line, that resolves, no address
/// twice), so a bad line fails every process at once, naming the line.
///
/// ```
/// use dyngraph_dist::Cluster;
/// let local = Cluster::threads(2);
/// assert_eq!((local.workers(), local.process(), local.processes()), (2, 0, 1));
/// let cluster = Cluster::from_addresses(vec!["127.0.0.1:7001".into(), "127.0.0.1:7002".into()], 1, 2)?;
/// assert_eq!((cluster.workers(), cluster.process()), (4, 1));
/// let bad = Cluster::from_addresses(vec!["127.0.0.1:7001".into(), "127.0.0.1:99999".into()], 0, 1);
/// assert!(bad.unwrap_err().to_string().contains("address 2: port 99999"));
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    threads: usize,
    process: usize,
    hosts: Vec<Host>,
    source: HostSource,
}

impl Cluster {
    /// `threads` workers in this process (`--workers W`).
    pub fn threads(threads: usize) -> Self {
        Self {
            threads: threads.max(1),
            process: 0,
            hosts: Vec::new(),
            source: HostSource::List,
        }
    }

    /// Process `process` of the cluster in `hostfile` (timely's `-h FILE
    /// -p I`), each process with `threads` workers. Blank lines and `#`
    /// comments are skipped; every other line must be a `host:port`
    /// ([`Error::Parse`] naming the line otherwise).
    pub fn from_hostfile(hostfile: &Path, process: usize, threads: usize) -> Result<Self> {
        let hosts = read_hostfile(hostfile)?;
        Self::new(
            hosts,
            HostSource::File(hostfile.to_path_buf()),
            process,
            threads,
        )
    }

    /// Process `process` of a cluster listening at `addresses`
    /// (`host:port` each, checked as a host file's lines are).
    pub fn from_addresses(addresses: Vec<String>, process: usize, threads: usize) -> Result<Self> {
        if addresses.is_empty() {
            return Err(Error::InvalidArgument(
                "a cluster needs at least one address (one `host:port` per process)".into(),
            ));
        }
        let hosts = parse_hosts(
            addresses
                .iter()
                .enumerate()
                .map(|(i, a)| (i as u64 + 1, a.as_str())),
            &HostSource::List,
        )?;
        Self::new(hosts, HostSource::List, process, threads)
    }

    fn new(hosts: Vec<Host>, source: HostSource, process: usize, threads: usize) -> Result<Self> {
        if process >= hosts.len() {
            let place = match &source {
                HostSource::File(path) => format!("the host file {}", path.display()),
                HostSource::List => "the address list".into(),
            };
            return Err(Error::InvalidArgument(format!(
                "process index {process} is not below the {} addresses of {place} (processes \
                 are numbered from 0)",
                hosts.len()
            )));
        }
        Ok(Self {
            threads: threads.max(1),
            process,
            hosts,
            source,
        })
    }

    /// All workers of the cluster.
    pub fn workers(&self) -> usize {
        self.threads * self.processes()
    }

    /// Processes in the cluster.
    pub fn processes(&self) -> usize {
        self.hosts.len().max(1)
    }

    /// This process's index.
    pub fn process(&self) -> usize {
        self.process
    }

    /// Workers in this process.
    pub fn threads_per_process(&self) -> usize {
        self.threads
    }

    /// What errors name: the host file, or this process.
    fn label(&self) -> PathBuf {
        match &self.source {
            HostSource::File(path) => PathBuf::from(format!(
                "{} (process {} of {})",
                path.display(),
                self.process,
                self.processes()
            )),
            HostSource::List => {
                PathBuf::from(format!("process {} of {}", self.process, self.processes()))
            }
        }
    }

    fn startup<'a>(&'a self, timeout: Duration, spec: &'a Fingerprint) -> Startup<'a> {
        Startup {
            hosts: &self.hosts,
            source: &self.source,
            process: self.process,
            threads: self.threads,
            timeout,
            spec,
        }
    }

    /// Timely's allocators for this process's workers; in a cluster, after
    /// connecting to every peer (bounded by `timeout`).
    fn allocators(
        &self,
        timeout: Duration,
        spec: &Fingerprint,
    ) -> Result<(Vec<AllocatorBuilder>, Option<Network>)> {
        if self.hosts.len() <= 1 {
            let config = if self.threads > 1 {
                timely::CommunicationConfig::Process(self.threads)
            } else {
                timely::CommunicationConfig::Thread
            };
            let (builders, _) = config.try_build().map_err(|message| Error::Io {
                path: self.label(),
                source: io::Error::other(message),
            })?;
            return Ok((builders, None));
        }
        let sockets = self.startup(timeout, spec).connect()?;
        let links = Arc::new(Links::default());
        let sockets: Vec<Option<PeerStream>> = sockets
            .into_iter()
            .enumerate()
            .map(|(peer, s)| s.map(|s| PeerStream::new(s, self.process, peer, Arc::clone(&links))))
            .collect();
        let hooks = timely::communication::Hooks::default();
        let local = ProcessBuilder::new_typed_vector(
            self.threads,
            hooks.refill.clone(),
            hooks.spill.clone(),
        );
        let (builders, guard) =
            initialize_networking_from_sockets(local, sockets, self.process, self.threads, hooks)
                .map_err(|source| Error::Io {
                path: self.label(),
                source,
            })?;
        let network = Network {
            guard,
            links,
            peers: self.hosts.len() - 1,
        };
        Ok((
            builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
            Some(network),
        ))
    }
}

/// Timely's networking threads for a cluster run, and what their
/// connections saw.
struct Network {
    guard: CommsGuard,
    links: Arc<Links>,
    peers: usize,
}

impl Network {
    /// After the workers finished: waits (at most `limit`) until every
    /// connection has been closed for writing, that is until the peers
    /// have everything this process sent, then lets the networking threads
    /// finish in the background. Their receiving side waits for each peer
    /// to close its end, which a peer stopped after the last round never
    /// does: the run is complete, so that wait is not this run's.
    fn finish(self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while self.links.writes_closed() < self.peers && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        self.abandon();
    }

    /// Leaves the networking threads to end (or block) on their own: a
    /// thread joins them, and the process's exit ends it if they never
    /// end.
    fn abandon(self) {
        let guard = self.guard;
        let _ = std::thread::Builder::new()
            .name("dyngraph-dist-comms".into())
            .spawn(move || drop(guard));
    }
}

/// Replays `input` on `cluster` into stores of type `S`, one partition per
/// worker, and runs the kernels at the checkpoints. Returns the report on
/// the process that hosts worker 0, `None` on the others.
///
/// In a cluster, this process first connects to every other one (see
/// [`Cluster`]); nothing is printed on stdout, and a process still waiting
/// for a peer after a few seconds says so once on stderr.
///
/// # Errors
///
/// The input's and the stores' errors (a bad line, with the file's line
/// number, fails every worker together); [`Error::InvalidArgument`] for a
/// kernel without a distributed version; [`Error::Parse`] for a bad line
/// of the host file; [`Error::Io`] naming the host-file line of the peer
/// when the cluster cannot start (this process cannot listen on its
/// address, or a peer's address answers but not as a process of this
/// cluster: kind `AddrInUse`, `InvalidData`, `TimedOut`...); [`Error::Io`]
/// naming the cluster when a peer is lost during the run (its connection
/// closed: kind `ConnectionAborted`, the message names the process) or
/// nothing finished for [`DistOptions::stall_timeout`] (kind `TimedOut`: a
/// peer hangs or is stopped, or the timeout is shorter than a local phase).
/// In those last two cases timely's threads may still be blocked on the
/// peer: this function returns without them, and the caller should end the
/// process (the `dyngraph` CLI does: it returns from `main`).
pub fn replay<S: DynamicStore + 'static>(
    cluster: &Cluster,
    input: DistInput,
    options: DistOptions,
) -> Result<Option<DistReport>>
where
    S::Options: Send + Sync,
{
    let store = S::Options::from_shared(options.store);
    replay_with::<S>(cluster, input, options, store)
}

/// [`replay`] with the stores' own options (a gap policy, a sync policy),
/// as the registry builds them; their shared part is `options.store`'s.
pub fn replay_with<S: DynamicStore + 'static>(
    cluster: &Cluster,
    input: DistInput,
    options: DistOptions,
    store: S::Options,
) -> Result<Option<DistReport>>
where
    S::Options: Send + Sync,
{
    crate::quiet::install();
    let stall_timeout = options.stall_timeout;
    let spec = crate::spec::fingerprint(S::NAME, &input, &options);
    let (builders, network) = cluster.allocators(stall_timeout, &spec)?;
    let heartbeat = Heartbeat::new();
    let (sender, receiver) = mpsc::channel();
    let threads = cluster.threads;
    let beat = heartbeat.clone();
    let generated = SharedGenerated::default();
    let results = sender.clone();
    std::thread::Builder::new()
        .name("dyngraph-dist-driver".into())
        .spawn(move || {
            let joined = timely::execute::execute_from(
                builders,
                Box::new(()),
                timely::WorkerConfig::default(),
                move |worker| {
                    let place = Place {
                        index: worker.index(),
                        peers: worker.peers(),
                        threads,
                        heartbeat: beat.clone(),
                    };
                    let result =
                        run_worker::<S>(worker, place, &input, &generated, &options, &store);
                    // The result is final here; timely then waits for
                    // every peer's last progress message before the thread
                    // ends, which a stopped peer never sends.
                    let _ = results.send(Event::Worker(result));
                },
            )
            .map(|guards| guards.join());
            // The receiver may have given up already.
            let _ = sender.send(Event::Joined(joined));
        })
        .map_err(|source| Error::Io {
            path: cluster.label(),
            source,
        })?;
    let error = |message: String, kind: io::ErrorKind| Error::Io {
        path: cluster.label(),
        source: io::Error::new(kind, message),
    };
    let links = network.as_ref().map(|n| Arc::clone(&n.links));
    let stalled = |silence: Duration, also: &str| {
        error(
            format!(
                "no progress for {:.1} s (stall timeout {:.1} s): a peer process hangs, is \
                 stopped, or never started{also}; giving up",
                silence.as_secs_f64(),
                stall_timeout.as_secs_f64()
            ),
            io::ErrorKind::TimedOut,
        )
    };
    // The peer whose connection broke first, as the error says it; when
    // the cluster had already stalled for a while, that peer most likely
    // gave up on the same stall, which is what this process reports.
    let lost = || {
        let (peer, how) = links.as_ref()?.first_loss()?;
        let peer = cluster.startup(stall_timeout, &spec).describe(peer);
        let silence = heartbeat.silence();
        Some(if silence > stall_timeout / 2 {
            stalled(
                silence,
                &format!(" (then {peer} closed its connection: it gave up too, or died)"),
            )
        } else {
            error(
                format!(
                    "lost {peer}: {how}; the process died, was killed, or closed its \
                     connection, and the run cannot go on without it"
                ),
                io::ErrorKind::ConnectionAborted,
            )
        })
    };
    let mut reported = Vec::with_capacity(threads);
    let mut loss_seen: Option<Instant> = None;
    let outcome = loop {
        match receiver.recv_timeout(Duration::from_millis(50)) {
            Ok(Event::Worker(result)) => {
                reported.push(result);
                if reported.len() == threads {
                    break gather(reported, false, &lost, &error);
                }
            }
            Ok(Event::Joined(Err(message))) => {
                break Err(error(
                    format!("timely could not start the workers: {message}"),
                    io::ErrorKind::Other,
                ));
            }
            Ok(Event::Joined(Ok(_))) => {
                // Every worker thread ended, some without a result: they
                // panicked.
                break gather(reported, true, &lost, &error);
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err(error(
                    "the timely driver thread ended without a result".into(),
                    io::ErrorKind::Other,
                ));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // A lost peer normally ends every worker at once (timely's
                // queues are poisoned); a worker parked on the dead
                // connection is not woken, so the loss ends the wait too.
                if let Some(loss) = lost() {
                    let seen = *loss_seen.get_or_insert_with(Instant::now);
                    if seen.elapsed() > LOSS_GRACE {
                        break Err(loss);
                    }
                }
                let silence = heartbeat.silence();
                if silence > stall_timeout {
                    break Err(stalled(silence, ""));
                }
            }
        }
    };
    if let Some(network) = network {
        if outcome.is_ok() {
            network.finish(FINISH_GRACE);
        } else {
            network.abandon();
        }
    }
    outcome
}

/// What the driver thread and the workers tell [`replay`].
// A handful of events per run (one per worker, then one): their size does
// not matter, and boxing the report would only add an allocation.
#[allow(clippy::large_enum_variant)]
enum Event {
    /// One worker's result, as soon as it has it.
    Worker(Result<Option<DistReport>>),
    /// Every worker thread ended (or timely could not start them).
    Joined(std::result::Result<Vec<std::result::Result<(), String>>, String>),
}

/// How long a noted broken connection may go without the workers ending
/// before it is reported: a peer whose workers failed on their own closes
/// its connections too, and this process's workers then report that
/// failure (the better message) within a collective.
const LOSS_GRACE: Duration = Duration::from_secs(1);

/// How long a finished run waits for this process's connections to close,
/// that is for timely to deliver its last progress messages, which the
/// peers' workers wait for before their threads end (not for their
/// results, which they have). A peer stopped after the last round never
/// lets this process's threads end: the run is complete, so the wait is
/// bounded and the result stands.
const FINISH_GRACE: Duration = Duration::from_secs(5);

/// The report, or the first worker's error (its own error rather than
/// another worker's report of it; a lost peer rather than the panics it
/// caused). `panicked`: some workers ended without a result.
fn gather(
    results: Vec<Result<Option<DistReport>>>,
    panicked: bool,
    lost: &dyn Fn() -> Option<Error>,
    error: &dyn Fn(String, io::ErrorKind) -> Error,
) -> Result<Option<DistReport>> {
    if panicked {
        return Err(lost().unwrap_or_else(|| {
            error(
                format!(
                    "a worker panicked{}",
                    crate::quiet::last_worker_panic()
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default()
                ),
                io::ErrorKind::Other,
            )
        }));
    }
    let mut report = None;
    let mut first_error = None;
    for result in results {
        match result {
            Ok(Some(r)) => report = Some(r),
            Ok(None) => {}
            Err(e) => {
                let replace = match &first_error {
                    None => true,
                    Some(current) => is_relayed(current) && !is_relayed(&e),
                };
                if replace {
                    first_error = Some(e);
                }
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(report),
    }
}

/// Whether `error` is a worker's report of another worker's failure
/// (`worker N failed: ...`, from the collectives) rather than the failure
/// itself.
fn is_relayed(error: &Error) -> bool {
    matches!(error, Error::InvalidArgument(message)
        if message.starts_with("worker ") && message.contains(" failed: "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyngraph_core::CsrRebuild;
    use dyngraph_replay::ReplayOptions;
    use std::net::TcpListener;

    fn free_addresses(count: usize) -> Vec<String> {
        let listeners: Vec<TcpListener> = (0..count)
            .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
            .collect();
        listeners
            .iter()
            .map(|l| l.local_addr().unwrap().to_string())
            .collect()
    }

    /// The run is complete once every worker has passed the last round:
    /// a peer that then stops before its connections end (SIGSTOP at the
    /// wrong moment) must not hold the others until it is killed (a clean
    /// exit 0 much later) or until their stall timeout (an error for a run
    /// that succeeded). Two processes of a cluster in this one, process 1
    /// pausing 30 s before closing its connections: both return their
    /// results within [`FINISH_GRACE`].
    #[test]
    fn a_peer_stopped_after_the_last_round_does_not_hold_the_others() {
        let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
        let addresses = free_addresses(2);
        *crate::connect::LINGER.lock().unwrap() = Some((1, Duration::from_secs(30)));
        let options = DistOptions {
            replay: ReplayOptions {
                batch: 20_000,
                ..ReplayOptions::default()
            },
            stall_timeout: Duration::from_secs(60),
            ..DistOptions::default()
        };
        let (sender, receiver) = mpsc::channel();
        for process in 0..2 {
            let cluster = Cluster::from_addresses(addresses.clone(), process, 1).unwrap();
            let options = options.clone();
            let sender = sender.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                let result = replay::<CsrRebuild>(&cluster, DistInput::File(input.into()), options);
                let _ = sender.send((process, result.map(|r| r.is_some()), started.elapsed()));
            });
        }
        for _ in 0..2 {
            let (process, result, took) = receiver.recv_timeout(Duration::from_secs(25)).unwrap();
            assert_eq!(result.ok(), Some(process == 0), "process {process}");
            assert!(
                took < Duration::from_secs(10),
                "process {process} took {took:?}"
            );
        }
    }
}
