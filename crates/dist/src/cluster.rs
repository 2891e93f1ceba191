//! Where the workers run: threads of this process, or a cluster of
//! processes from a host file (timely's conventions), and the watchdog
//! that turns a dead peer into an error instead of a hang.

use crate::input::{DistInput, SharedGenerated};
use crate::mailbox::{Heartbeat, Place};
use crate::run::{DistOptions, DistReport, run_worker};
use dyngraph_core::{DynamicStore, Error, Result};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// The workers of a run: `threads` in this process, times the processes of
/// the host file when there is one.
///
/// A host file is timely's: one `host:port` per line, line `i` the address
/// process `i` listens on; every process is started with the same file and
/// its own index (`--hostfile FILE --process I` on the command line), and
/// all use the same number of threads. Worker `w` of the cluster is thread
/// `w % threads` of process `w / threads`.
///
/// ```
/// use dyngraph_dist::Cluster;
/// let local = Cluster::threads(2);
/// assert_eq!((local.workers(), local.process(), local.processes()), (2, 0, 1));
/// let cluster = Cluster::from_addresses(vec!["127.0.0.1:7001".into(), "127.0.0.1:7002".into()], 1, 2)?;
/// assert_eq!((cluster.workers(), cluster.process()), (4, 1));
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    threads: usize,
    process: usize,
    addresses: Vec<String>,
    hostfile: Option<PathBuf>,
}

impl Cluster {
    /// `threads` workers in this process (`--workers W`).
    pub fn threads(threads: usize) -> Self {
        Self {
            threads: threads.max(1),
            process: 0,
            addresses: Vec::new(),
            hostfile: None,
        }
    }

    /// Process `process` of the cluster in `hostfile` (timely's `-h FILE
    /// -p I`), each process with `threads` workers. Blank lines and `#`
    /// comments are skipped.
    pub fn from_hostfile(hostfile: &Path, process: usize, threads: usize) -> Result<Self> {
        let text = std::fs::read_to_string(hostfile).map_err(|source| Error::Io {
            path: hostfile.to_path_buf(),
            source,
        })?;
        let addresses = text
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(str::to_string)
            .collect();
        let mut cluster = Self::from_addresses(addresses, process, threads)
            .map_err(|e| Error::InvalidArgument(format!("{}: {e}", hostfile.display())))?;
        cluster.hostfile = Some(hostfile.to_path_buf());
        Ok(cluster)
    }

    /// Process `process` of a cluster listening at `addresses`.
    pub fn from_addresses(addresses: Vec<String>, process: usize, threads: usize) -> Result<Self> {
        if addresses.is_empty() {
            return Err(Error::InvalidArgument(
                "a cluster needs at least one address (one `host:port` per process)".into(),
            ));
        }
        if process >= addresses.len() {
            return Err(Error::InvalidArgument(format!(
                "process index {process} is not below the {} addresses of the cluster",
                addresses.len()
            )));
        }
        Ok(Self {
            threads: threads.max(1),
            process,
            addresses,
            hostfile: None,
        })
    }

    /// All workers of the cluster.
    pub fn workers(&self) -> usize {
        self.threads * self.processes()
    }

    /// Processes in the cluster.
    pub fn processes(&self) -> usize {
        self.addresses.len().max(1)
    }

    /// This process's index.
    pub fn process(&self) -> usize {
        self.process
    }

    /// Workers in this process.
    pub fn threads_per_process(&self) -> usize {
        self.threads
    }

    fn timely_config(&self) -> timely::Config {
        let communication = if self.addresses.len() > 1 {
            timely::CommunicationConfig::Cluster {
                threads: self.threads,
                process: self.process,
                addresses: self.addresses.clone(),
                report: false,
                zerocopy: false,
            }
        } else if self.threads > 1 {
            timely::CommunicationConfig::Process(self.threads)
        } else {
            timely::CommunicationConfig::Thread
        };
        timely::Config {
            communication,
            worker: timely::WorkerConfig::default(),
        }
    }

    /// What errors name: the host file, or this process.
    fn label(&self) -> PathBuf {
        match &self.hostfile {
            Some(path) => PathBuf::from(format!(
                "{} (process {} of {})",
                path.display(),
                self.process,
                self.processes()
            )),
            None => PathBuf::from(format!("process {} of {}", self.process, self.processes())),
        }
    }
}

/// Replays `input` on `cluster` into stores of type `S`, one partition per
/// worker, and runs the kernels at the checkpoints. Returns the report on
/// the process that hosts worker 0, `None` on the others.
///
/// # Errors
///
/// The input's and the stores' errors (a bad line, with the file's line
/// number, fails every worker together); [`Error::InvalidArgument`] for a
/// kernel without a distributed version; [`Error::Io`] naming the cluster
/// when a peer is lost (its connection closed: kind `ConnectionAborted`)
/// or nothing finished for [`DistOptions::stall_timeout`] (kind
/// `TimedOut`: a peer hangs, died before connecting, or the timeout is
/// shorter than a local phase). In those two cases timely's threads may
/// still be blocked on the dead peer: this function returns without them,
/// and the caller should end the process (the `dyngraph-dist-node` binary
/// does).
pub fn replay<S: DynamicStore + 'static>(
    cluster: &Cluster,
    input: DistInput,
    options: DistOptions,
) -> Result<Option<DistReport>> {
    let heartbeat = Heartbeat::new();
    let stall_timeout = options.stall_timeout;
    let (sender, receiver) = mpsc::channel();
    let config = cluster.timely_config();
    let threads = cluster.threads;
    let beat = heartbeat.clone();
    let generated = SharedGenerated::default();
    std::thread::Builder::new()
        .name("dyngraph-dist-driver".into())
        .spawn(move || {
            // Timely's threads panic when a peer's connection closes, and
            // joining them passes the panic on: catch it here, with its
            // message, so that the caller gets an error, not a panic.
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                timely::execute(config, move |worker| {
                    let place = Place {
                        index: worker.index(),
                        peers: worker.peers(),
                        threads,
                        heartbeat: beat.clone(),
                    };
                    run_worker::<S>(worker, place, &input, &generated, &options)
                })
                .map(|guards| guards.join())
            }))
            .map_err(|panic| {
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "a timely thread panicked".into())
            });
            // The receiver may have given up already.
            let _ = sender.send(outcome);
        })
        .map_err(|source| Error::Io {
            path: cluster.label(),
            source,
        })?;
    let lost = |message: String, kind: io::ErrorKind| Error::Io {
        path: cluster.label(),
        source: io::Error::new(kind, message),
    };
    loop {
        match receiver.recv_timeout(Duration::from_millis(200)) {
            Ok(Err(panic)) => {
                return Err(lost(
                    format!(
                        "a peer process died or closed its connection (timely stopped: {panic})"
                    ),
                    io::ErrorKind::ConnectionAborted,
                ));
            }
            Ok(Ok(Err(message))) => {
                return Err(lost(
                    format!("timely could not start the cluster: {message}"),
                    io::ErrorKind::ConnectionRefused,
                ));
            }
            Ok(Ok(Ok(results))) => {
                let mut report = None;
                let mut first_error = None;
                for result in results {
                    match result {
                        Ok(Ok(Some(r))) => report = Some(r),
                        Ok(Ok(None)) => {}
                        Ok(Err(error)) => {
                            // Prefer the failing worker's own error to the
                            // others' report of it.
                            let replace = match &first_error {
                                None => true,
                                Some(current) => is_relayed(current) && !is_relayed(&error),
                            };
                            if replace {
                                first_error = Some(error);
                            }
                        }
                        Err(panic) => {
                            first_error.get_or_insert(lost(
                                format!(
                                    "a worker stopped ({panic}); a peer process died or \
                                     closed its connection"
                                ),
                                io::ErrorKind::ConnectionAborted,
                            ));
                        }
                    }
                }
                return match first_error {
                    Some(error) => Err(error),
                    None => Ok(report),
                };
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(lost(
                    "the timely driver thread ended without a result".into(),
                    io::ErrorKind::ConnectionAborted,
                ));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let silence = heartbeat.silence();
                if silence > stall_timeout {
                    return Err(lost(
                        format!(
                            "no progress for {:.1} s (stall timeout {:.1} s): a peer process \
                             died, hangs, or never connected; giving up",
                            silence.as_secs_f64(),
                            stall_timeout.as_secs_f64()
                        ),
                        io::ErrorKind::TimedOut,
                    ));
                }
            }
        }
    }
}

/// Whether `error` is a worker's report of another worker's failure
/// (`worker N failed: ...`, from the collectives) rather than the failure
/// itself.
fn is_relayed(error: &Error) -> bool {
    matches!(error, Error::InvalidArgument(message)
        if message.starts_with("worker ") && message.contains(" failed: "))
}
