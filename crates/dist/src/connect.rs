//! The cluster's connections, made by this crate and handed to timely.
//!
//! Timely's own start-up (`timely::execute` with a cluster configuration)
//! prints "awaiting connections" and connection retries on stdout, retries
//! forever, and takes any program that accepts a connection on a peer's port
//! for that peer. Here every process connects to the lower-numbered
//! processes and accepts the higher-numbered ones, as timely does, but:
//!
//! - nothing is printed on stdout (stdout belongs to the caller's report);
//!   a process still waiting after [`STATUS_AFTER`] says once, on stderr,
//!   whom it waits for;
//! - both ends exchange a handshake naming the cluster (a digest of the
//!   addresses, the process count, the workers per process) and their
//!   index, so a port held by another program, or a process started with
//!   another host file or another `--workers`, is an error naming the line
//!   within [`HANDSHAKE_TIMEOUT`], not a hang;
//! - the whole start-up is bounded by the run's stall timeout.
//!
//! The sockets then go to timely's own networking
//! (`initialize_networking_from_sockets`), wrapped in a [`PeerStream`] that
//! notes which peer's connection broke first, so that a lost peer is named.

use crate::hosts::{Host, HostSource};
use crate::spec::Fingerprint;
use dyngraph_core::{Error, Result};
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a peer has to answer the handshake once its port accepted the
/// connection: a dyngraph process answers at once, so silence means
/// another program holds the port.
pub(crate) const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(3);

/// A process still waiting for a peer after this long says so on stderr.
pub(crate) const STATUS_AFTER: Duration = Duration::from_secs(5);

/// Between connection attempts to a peer that is not listening yet.
const RETRY: Duration = Duration::from_millis(50);

const MAGIC: [u8; 8] = *b"DGDIST01";
const HELLO_BYTES: usize = 8 + 4 * 3 + 8;

/// What both ends of a connection say first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hello {
    process: u32,
    processes: u32,
    threads: u32,
    digest: u64,
}

impl Hello {
    fn encode(&self) -> [u8; HELLO_BYTES] {
        let mut bytes = [0u8; HELLO_BYTES];
        bytes[..8].copy_from_slice(&MAGIC);
        bytes[8..12].copy_from_slice(&self.process.to_le_bytes());
        bytes[12..16].copy_from_slice(&self.processes.to_le_bytes());
        bytes[16..20].copy_from_slice(&self.threads.to_le_bytes());
        bytes[20..28].copy_from_slice(&self.digest.to_le_bytes());
        bytes
    }

    fn decode(bytes: &[u8; HELLO_BYTES]) -> Option<Self> {
        if bytes[..8] != MAGIC {
            return None;
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        Some(Self {
            process: u32_at(8),
            processes: u32_at(12),
            threads: u32_at(16),
            digest: u64::from_le_bytes(bytes[20..28].try_into().expect("8 bytes")),
        })
    }

    /// Why `other` (claiming to be a peer) is not of this cluster, if it
    /// is not.
    fn mismatch(&self, other: &Hello) -> Option<String> {
        if other.processes != self.processes || other.digest != self.digest {
            Some(format!(
                "it was started with another host file ({} processes, addresses digest \
                 {:016x}; here {} processes, {:016x})",
                other.processes, other.digest, self.processes, self.digest
            ))
        } else if other.threads != self.threads {
            Some(format!(
                "it runs {} workers per process and this process {}: every process needs the \
                 same --workers",
                other.threads, self.threads
            ))
        } else {
            None
        }
    }
}

/// FNV-1a over the resolved addresses: equal on every process started with
/// the same host file.
fn digest(hosts: &[Host]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for host in hosts {
        for byte in host.address.to_string().bytes().chain([b'\n']) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// The cluster as one process sees it at start-up.
pub(crate) struct Startup<'a> {
    pub(crate) hosts: &'a [Host],
    pub(crate) source: &'a HostSource,
    pub(crate) process: usize,
    pub(crate) threads: usize,
    /// Give up when the cluster is not complete by then.
    pub(crate) timeout: Duration,
    /// Every option that changes the result, and the input: each peer's
    /// must equal this process's.
    pub(crate) spec: &'a Fingerprint,
}

/// Longest fingerprint a handshake takes (a stranger's bytes are not
/// buffered past it).
const MAX_SPEC_BYTES: u32 = 1 << 16;

/// Writes the handshake: the fixed hello, then the fingerprint's length
/// and bytes.
fn send_hello(stream: &mut TcpStream, hello: &Hello, spec: &[u8]) -> io::Result<()> {
    let mut bytes = hello.encode().to_vec();
    bytes.extend_from_slice(&(spec.len() as u32).to_le_bytes());
    bytes.extend_from_slice(spec);
    stream.write_all(&bytes)
}

/// Reads a handshake: `None` when the bytes are not a dyngraph process's.
fn read_hello(stream: &mut TcpStream) -> io::Result<Option<(Hello, Fingerprint)>> {
    let mut bytes = [0u8; HELLO_BYTES];
    stream.read_exact(&mut bytes)?;
    let Some(hello) = Hello::decode(&bytes) else {
        return Ok(None);
    };
    let mut len = [0u8; 4];
    stream.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len);
    if len > MAX_SPEC_BYTES {
        return Ok(None);
    }
    let mut spec = vec![0u8; len as usize];
    stream.read_exact(&mut spec)?;
    Ok(Some((hello, crate::spec::decode(&spec))))
}

impl Startup<'_> {
    fn hello(&self) -> Hello {
        Hello {
            process: self.process as u32,
            processes: self.hosts.len() as u32,
            threads: self.threads as u32,
            digest: digest(self.hosts),
        }
    }

    /// `process 2 (127.0.0.1:7103, hosts:3)`.
    pub(crate) fn describe(&self, process: usize) -> String {
        let host = &self.hosts[process];
        format!(
            "process {process} ({}, {})",
            host.text,
            self.source.name_line(host.line)
        )
    }

    fn failure(&self, process: usize, kind: io::ErrorKind, message: String) -> Error {
        let host = &self.hosts[process];
        Error::Io {
            path: self.source.name_line(host.line).into(),
            source: io::Error::new(kind, message),
        }
    }

    /// Connects to every other process: `sockets[p]` is the connection to
    /// process `p`, `None` at this process's own index.
    pub(crate) fn connect(&self) -> Result<Vec<Option<TcpStream>>> {
        let me = self.process;
        let own = &self.hosts[me];
        let listener = TcpListener::bind(own.address).map_err(|e| {
            self.failure(
                me,
                e.kind(),
                format!(
                    "process {me} cannot listen on {}{}: {e}{}",
                    own.text,
                    if own.text == own.address.to_string() {
                        String::new()
                    } else {
                        format!(" ({})", own.address)
                    },
                    if e.kind() == io::ErrorKind::AddrInUse {
                        " (another program holds it, or two processes were given the same \
                         --process)"
                    } else {
                        ""
                    }
                ),
            )
        })?;
        let deadline = Instant::now() + self.timeout;
        let give_up = AtomicBool::new(false);
        let (lower, higher) = std::thread::scope(|scope| {
            let accepting = scope.spawn(|| {
                let result = self.accept_higher(&listener, deadline, &give_up);
                if result.is_err() {
                    give_up.store(true, Ordering::Relaxed);
                }
                result
            });
            let lower = self.connect_lower(deadline, &give_up);
            if lower.is_err() {
                give_up.store(true, Ordering::Relaxed);
            }
            let higher = accepting.join().unwrap_or_else(|_| {
                Err(Error::InvalidArgument(
                    "the thread accepting connections panicked".into(),
                ))
            });
            (lower, higher)
        });
        // The side that failed first, not the one that saw the start-up
        // given up.
        let (lower, higher) = match (lower, higher) {
            (lower, Err(e)) if given_up(&lower) => return Err(e),
            pair => pair,
        };
        let mut sockets = lower?;
        sockets.push(None);
        sockets.extend(higher?.into_iter().map(Some));
        Ok(sockets)
    }

    /// Connections to processes `0..me`, in order.
    fn connect_lower(
        &self,
        deadline: Instant,
        give_up: &AtomicBool,
    ) -> Result<Vec<Option<TcpStream>>> {
        let started = Instant::now();
        let hello = self.hello();
        let spec = crate::spec::encode(self.spec);
        let mut sockets = Vec::with_capacity(self.process);
        for peer in 0..self.process {
            let address = self.hosts[peer].address;
            let mut said = false;
            let mut stream = loop {
                match TcpStream::connect_timeout(&address, HANDSHAKE_TIMEOUT) {
                    Ok(stream) => break stream,
                    Err(error) => {
                        if give_up.load(Ordering::Relaxed) {
                            return Err(self.failure(
                                self.process,
                                io::ErrorKind::Interrupted,
                                "start-up given up".into(),
                            ));
                        }
                        if Instant::now() >= deadline {
                            return Err(self.failure(
                                peer,
                                io::ErrorKind::TimedOut,
                                format!(
                                    "{} did not accept a connection within {:.1} s (last \
                                     attempt: {error}): it was not started, or failed",
                                    self.describe(peer),
                                    self.timeout.as_secs_f64()
                                ),
                            ));
                        }
                        if !said && started.elapsed() >= STATUS_AFTER {
                            said = true;
                            eprintln!(
                                "dyngraph-dist: process {} is waiting for {} to listen \
                                 (gives up after {:.0} s)",
                                self.process,
                                self.describe(peer),
                                self.timeout.as_secs_f64()
                            );
                        }
                        std::thread::sleep(RETRY);
                    }
                }
            };
            let answer = (|| -> io::Result<Option<(Hello, Fingerprint)>> {
                stream.set_read_timeout(Some(HANDSHAKE_TIMEOUT))?;
                send_hello(&mut stream, &hello, &spec)?;
                read_hello(&mut stream)
            })();
            let reason = match answer {
                Ok(Some((theirs, their_spec))) if theirs.process as usize == peer => hello
                    .mismatch(&theirs)
                    .or_else(|| {
                        crate::spec::first_difference(self.spec, &their_spec, self.process, peer)
                    })
                    .map(|why| (io::ErrorKind::InvalidData, why)),
                Ok(Some((theirs, _))) => Some((
                    io::ErrorKind::InvalidData,
                    format!(
                        "it answered as process {} (the host files differ)",
                        theirs.process
                    ),
                )),
                Ok(None) => Some((
                    io::ErrorKind::InvalidData,
                    "it answered, but not as a dyngraph process: another program holds \
                     that address"
                        .to_string(),
                )),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    Some((
                        io::ErrorKind::TimedOut,
                        format!(
                            "it accepted the connection but gave no dyngraph handshake within \
                             {:.0} s: another program holds that address, or the process is \
                             stopped",
                            HANDSHAKE_TIMEOUT.as_secs_f64()
                        ),
                    ))
                }
                Err(e) => Some((
                    e.kind(),
                    format!(
                        "the connection failed during the handshake ({e}): another program \
                         holds that address, or the process failed"
                    ),
                )),
            };
            if let Some((kind, why)) = reason {
                return Err(self.failure(
                    peer,
                    kind,
                    format!("cannot join {}: {why}", self.describe(peer)),
                ));
            }
            configure(&stream)?;
            sockets.push(Some(stream));
        }
        Ok(sockets)
    }

    /// Connections from processes `me+1..`, in order. A connection that
    /// does not start with the handshake (a stray client) is dropped and
    /// the wait goes on.
    fn accept_higher(
        &self,
        listener: &TcpListener,
        deadline: Instant,
        give_up: &AtomicBool,
    ) -> Result<Vec<TcpStream>> {
        let me = self.process;
        let expected = self.hosts.len() - me - 1;
        let mut accepted: Vec<Option<TcpStream>> = (0..expected).map(|_| None).collect();
        if expected == 0 {
            return Ok(Vec::new());
        }
        let started = Instant::now();
        let hello = self.hello();
        let spec = crate::spec::encode(self.spec);
        let mut said = false;
        let io_error = |e: io::Error| self.failure(me, e.kind(), format!("accepting peers: {e}"));
        listener.set_nonblocking(true).map_err(io_error)?;
        while accepted.iter().any(Option::is_none) {
            if give_up.load(Ordering::Relaxed) {
                return Err(self.failure(
                    me,
                    io::ErrorKind::Interrupted,
                    "start-up given up".into(),
                ));
            }
            let missing = || {
                accepted
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.is_none())
                    .map(|(i, _)| self.describe(me + 1 + i))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if Instant::now() >= deadline {
                return Err(self.failure(
                    me,
                    io::ErrorKind::TimedOut,
                    format!(
                        "no connection within {:.1} s from {}: not started, or failed",
                        self.timeout.as_secs_f64(),
                        missing()
                    ),
                ));
            }
            if !said && started.elapsed() >= STATUS_AFTER {
                said = true;
                eprintln!(
                    "dyngraph-dist: process {me} is waiting for {} to connect (gives up after \
                     {:.0} s)",
                    missing(),
                    self.timeout.as_secs_f64()
                );
            }
            let mut stream = match listener.accept() {
                Ok((stream, _)) => stream,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(RETRY);
                    continue;
                }
                Err(e) => return Err(io_error(e)),
            };
            let theirs = (|| -> io::Result<Option<(Hello, Fingerprint)>> {
                stream.set_nonblocking(false)?;
                stream.set_read_timeout(Some(HANDSHAKE_TIMEOUT))?;
                read_hello(&mut stream)
            })();
            let Ok(Some((theirs, their_spec))) = theirs else {
                // Not a peer: a port scanner, a health check.
                let _ = stream.shutdown(Shutdown::Both);
                continue;
            };
            let from = theirs.process as usize;
            if let Some(why) = hello.mismatch(&theirs) {
                return Err(self.failure(
                    from.min(self.hosts.len() - 1),
                    io::ErrorKind::InvalidData,
                    format!("process {from} connected, but {why}"),
                ));
            }
            if let Some(why) = crate::spec::first_difference(self.spec, &their_spec, me, from) {
                // Answer first, so the peer reads the same verdict from
                // its side instead of a closed connection.
                let _ = send_hello(&mut stream, &hello, &spec);
                return Err(self.failure(
                    from.min(self.hosts.len() - 1),
                    io::ErrorKind::InvalidData,
                    format!("process {from} connected, but {why}"),
                ));
            }
            if from <= me || from >= self.hosts.len() || accepted[from - me - 1].is_some() {
                return Err(self.failure(
                    me,
                    io::ErrorKind::InvalidData,
                    format!(
                        "a peer connected as process {from}, which process {me} does not \
                         expect: two processes were started with the same --process?"
                    ),
                ));
            }
            send_hello(&mut stream, &hello, &spec).map_err(|e| {
                self.failure(from, e.kind(), format!("answering process {from}: {e}"))
            })?;
            configure(&stream)?;
            accepted[from - me - 1] = Some(stream);
        }
        Ok(accepted.into_iter().flatten().collect())
    }
}

/// Whether `result` is only the news that the other side gave up.
fn given_up<T>(result: &Result<T>) -> bool {
    matches!(result, Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::Interrupted)
}

/// Blocking, no read timeout, no Nagle: what timely's networking expects.
fn configure(stream: &TcpStream) -> Result<()> {
    let io = |source| Error::Io {
        path: "cluster connection".into(),
        source,
    };
    stream.set_read_timeout(None).map_err(io)?;
    stream.set_nonblocking(false).map_err(io)?;
    stream.set_nodelay(true).map_err(io)
}

/// What the connections saw: the first one that broke (and how), and how
/// many this process has closed for writing (timely's send threads close a
/// connection once they have sent everything, the last progress message
/// included).
#[derive(Debug, Default)]
pub(crate) struct Links {
    first_loss: Mutex<Option<(usize, String)>>,
    writes_closed: AtomicUsize,
}

impl Links {
    fn note(&self, peer: usize, what: String) {
        let mut first = self.first_loss.lock().unwrap_or_else(|p| p.into_inner());
        first.get_or_insert((peer, what));
    }

    /// The peer whose connection broke first, and how.
    pub(crate) fn first_loss(&self) -> Option<(usize, String)> {
        self.first_loss
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Connections this process has finished sending on.
    pub(crate) fn writes_closed(&self) -> usize {
        self.writes_closed.load(Ordering::Acquire)
    }
}

/// A connection to one peer as timely's networking threads use it, noting
/// in [`Links`] the first end of stream or error (a clean shutdown ends in
/// an end of stream too: the note only matters when the run fails) and
/// the end of sending.
#[derive(Debug)]
pub(crate) struct PeerStream {
    stream: TcpStream,
    /// This process.
    process: usize,
    /// The process at the other end.
    peer: usize,
    links: Arc<Links>,
}

impl PeerStream {
    pub(crate) fn new(stream: TcpStream, process: usize, peer: usize, links: Arc<Links>) -> Self {
        Self {
            stream,
            process,
            peer,
            links,
        }
    }
}

/// Tests only: process `.0` pauses this long before closing a connection
/// for writing, as a process stopped between its last message and the
/// end of its connections would.
#[cfg(test)]
pub(crate) static LINGER: Mutex<Option<(usize, Duration)>> = Mutex::new(None);

impl Read for PeerStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.stream.read(buf) {
            Ok(0) if !buf.is_empty() => {
                self.links.note(self.peer, "its connection closed".into());
                Ok(0)
            }
            Err(e) => {
                self.links
                    .note(self.peer, format!("reading from it failed ({e})"));
                Err(e)
            }
            read => read,
        }
    }
}

impl Write for PeerStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stream.write(buf).inspect_err(|e| {
            self.links
                .note(self.peer, format!("writing to it failed ({e})"));
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

impl timely::communication::allocator::zero_copy::stream::Stream for PeerStream {
    fn try_clone(&self) -> io::Result<Self> {
        Ok(Self {
            stream: self.stream.try_clone()?,
            process: self.process,
            peer: self.peer,
            links: Arc::clone(&self.links),
        })
    }

    fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        self.stream.set_nonblocking(nonblocking)
    }

    fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        #[cfg(test)]
        if let Some((process, pause)) = *LINGER.lock().unwrap_or_else(|p| p.into_inner())
            && process == self.process
        {
            std::thread::sleep(pause);
        }
        let result = self.stream.shutdown(how);
        if how == Shutdown::Write && result.is_ok() {
            self.links.writes_closed.fetch_add(1, Ordering::Release);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_round_trips_and_rejects_strangers() {
        let hello = Hello {
            process: 2,
            processes: 3,
            threads: 1,
            digest: 0xdead_beef,
        };
        assert_eq!(Hello::decode(&hello.encode()), Some(hello));
        let mut http = [0u8; HELLO_BYTES];
        http[..8].copy_from_slice(b"GET / HT");
        assert_eq!(Hello::decode(&http), None);
        let other_file = Hello { digest: 1, ..hello };
        assert!(hello.mismatch(&other_file).unwrap().contains("host file"));
        let other_workers = Hello {
            threads: 2,
            ..hello
        };
        assert!(
            hello
                .mismatch(&other_workers)
                .unwrap()
                .contains("--workers")
        );
        assert_eq!(hello.mismatch(&hello), None);
    }
}
