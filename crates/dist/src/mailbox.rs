//! Supersteps on timely: a worker sends messages addressed to workers, the
//! exchange channel routes them, and timely's progress tracking tells every
//! worker when all messages of the round have arrived.
//!
//! A [`Mailbox`] is one small dataflow: an input, an exchange by the
//! addressed worker, and an operator that files what it receives under its
//! timestamp (the round). [`Mailbox::finish_round`] closes the round on the
//! input and steps the worker until the probe after that operator has
//! passed it: then, and only then, every worker's messages of the round are
//! in this worker's inbox. That is the barrier of a bulk-synchronous step,
//! done by timely's progress protocol, not by a protocol of ours. Messages
//! of a later round that arrive early (a faster peer is already ahead)
//! wait under their own timestamp.

use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use timely::ExchangeData;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::Operator;
use timely::dataflow::operators::core::Probe;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::{InputHandleVec, ProbeHandle};
use timely::worker::Worker;

/// The bytes a message takes on the wire (bincode's fixed-width encoding,
/// which timely uses between processes), without timely's own framing.
pub(crate) trait WireSize {
    /// Encoded bytes.
    fn wire_bytes(&self) -> u64;
}

/// Where a worker sits in the cluster, for the traffic counters and the
/// heartbeat.
#[derive(Clone, Debug)]
pub(crate) struct Place {
    /// This worker's index, `0..peers`.
    pub(crate) index: usize,
    /// All workers.
    pub(crate) peers: usize,
    /// Workers per process (timely numbers a process's workers
    /// consecutively).
    pub(crate) threads: usize,
    /// Beats at every finished round of any worker of this process.
    pub(crate) heartbeat: Heartbeat,
}

impl Place {
    /// The process of worker `worker`.
    pub(crate) fn process_of(&self, worker: usize) -> usize {
        worker / self.threads.max(1)
    }
}

/// The time of the last finished round, shared by a process's workers and
/// its watchdog: a round finishes only when every worker of the cluster has
/// closed it, so a stale heartbeat means the cluster stopped moving.
#[derive(Clone, Debug)]
pub(crate) struct Heartbeat {
    start: Instant,
    last_millis: Arc<AtomicU64>,
}

impl Heartbeat {
    pub(crate) fn new() -> Self {
        Self {
            start: Instant::now(),
            last_millis: Arc::new(AtomicU64::new(0)),
        }
    }

    pub(crate) fn beat(&self) {
        let now = self.start.elapsed().as_millis() as u64;
        self.last_millis.fetch_max(now, Ordering::Relaxed);
    }

    /// Time since the last beat (or since the start).
    pub(crate) fn silence(&self) -> Duration {
        let last = Duration::from_millis(self.last_millis.load(Ordering::Relaxed));
        self.start.elapsed().saturating_sub(last)
    }
}

/// Bytes a worker handed to the exchange, split by where they went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Traffic {
    /// Messages to other workers.
    pub messages: u64,
    /// Their bytes (see the crate docs for what is counted).
    pub bytes: u64,
    /// The part of `bytes` that went to workers of other processes (over
    /// TCP); the rest crossed threads of this process.
    pub remote_bytes: u64,
}

impl Traffic {
    /// Adds another count.
    pub fn add(&mut self, other: Traffic) {
        self.messages += other.messages;
        self.bytes += other.bytes;
        self.remote_bytes += other.remote_bytes;
    }
}

/// One superstep channel carrying `D`.
pub(crate) struct Mailbox<D: ExchangeData + Clone> {
    input: InputHandleVec<u64, (u32, D)>,
    probe: ProbeHandle<u64>,
    inbox: Rc<RefCell<BTreeMap<u64, Vec<D>>>>,
    place: Place,
    /// Bytes sent since the counter was last taken.
    pub(crate) traffic: Traffic,
}

impl<D: ExchangeData + Clone + WireSize> Mailbox<D> {
    /// Builds the mailbox's dataflow on `worker`. Every worker must build
    /// its mailboxes in the same order (timely matches dataflows by
    /// creation order).
    pub(crate) fn new(worker: &mut Worker, place: Place) -> Self {
        let mut input = InputHandleVec::new();
        let inbox: Rc<RefCell<BTreeMap<u64, Vec<D>>>> = Rc::default();
        let filed = Rc::clone(&inbox);
        let probe = worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Exchange::new(|message: &(u32, D)| u64::from(message.0)),
                    "Deliver",
                    move |_, _| {
                        move |input, _output| {
                            input.for_each(|capability, data| {
                                // A round's messages travel under that one time.
                                if let Some(&time) = capability.least() {
                                    let mut inbox = filed.borrow_mut();
                                    let round = inbox.entry(time).or_default();
                                    round.extend(data.drain(..).map(|(_, message)| message));
                                }
                            });
                        }
                    },
                )
                .probe()
                .0
        });
        Self {
            input,
            probe,
            inbox,
            place,
            traffic: Traffic::default(),
        }
    }

    /// Sends `message` to worker `to` in the current round.
    #[inline]
    pub(crate) fn send(&mut self, to: usize, message: D) {
        if to != self.place.index {
            let bytes = message.wire_bytes();
            self.traffic.messages += 1;
            self.traffic.bytes += bytes;
            if self.place.process_of(to) != self.place.process_of(self.place.index) {
                self.traffic.remote_bytes += bytes;
            }
        }
        self.input.send((to as u32, message));
    }

    /// Sends `message` to every worker (itself included).
    pub(crate) fn broadcast(&mut self, message: D) {
        for to in 0..self.place.peers {
            self.send(to, message.clone());
        }
    }

    /// Closes the current round and returns every message sent to this
    /// worker in it, once all workers have closed it.
    pub(crate) fn finish_round(&mut self, worker: &mut Worker) -> Vec<D> {
        let round = *self.input.time();
        self.input.advance_to(round + 1);
        while self.probe.less_than(self.input.time()) {
            worker.step_or_park(Some(Duration::from_millis(1)));
        }
        self.place.heartbeat.beat();
        self.inbox.borrow_mut().remove(&round).unwrap_or_default()
    }

    /// The counter since the last call, reset.
    pub(crate) fn take_traffic(&mut self) -> Traffic {
        std::mem::take(&mut self.traffic)
    }
}

/// A value every worker contributes to a collective: numbers, and a
/// message when the worker failed (so that all workers stop together
/// instead of waiting on the one that left).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Contribution {
    pub(crate) from: u32,
    pub(crate) values: Vec<u64>,
    pub(crate) failure: Option<String>,
}

impl WireSize for Contribution {
    fn wire_bytes(&self) -> u64 {
        4 + 8
            + 8 * self.values.len() as u64
            + 1
            + self.failure.as_ref().map_or(0, |f| 8 + f.len() as u64)
    }
}

/// All-gather and all-reduce of small vectors, one superstep each.
pub(crate) struct Collective {
    mailbox: Mailbox<Contribution>,
}

impl Collective {
    pub(crate) fn new(worker: &mut Worker, place: Place) -> Self {
        Self {
            mailbox: Mailbox::new(worker, place),
        }
    }

    /// Every worker's `values`, by worker index; an error naming the first
    /// worker that reported a failure (its own message for itself).
    pub(crate) fn all_gather(
        &mut self,
        worker: &mut Worker,
        values: Vec<u64>,
        failure: Option<String>,
    ) -> Result<Vec<Vec<u64>>, String> {
        let from = self.mailbox.place.index as u32;
        self.mailbox.broadcast(Contribution {
            from,
            values,
            failure,
        });
        let mut received = self.mailbox.finish_round(worker);
        received.sort_by_key(|c| c.from);
        if let Some(failed) = received.iter().find(|c| c.failure.is_some()) {
            let message = failed.failure.clone().unwrap_or_default();
            return Err(if failed.from == from {
                message
            } else {
                format!("worker {} failed: {message}", failed.from)
            });
        }
        Ok(received.into_iter().map(|c| c.values).collect())
    }

    /// Element-wise sums.
    pub(crate) fn sum(&mut self, worker: &mut Worker, values: Vec<u64>) -> Vec<u64> {
        let len = values.len();
        let all = self.all_gather(worker, values, None).unwrap_or_default();
        (0..len).map(|i| all.iter().map(|v| v[i]).sum()).collect()
    }

    /// Element-wise maxima.
    pub(crate) fn max(&mut self, worker: &mut Worker, values: Vec<u64>) -> Vec<u64> {
        let len = values.len();
        let all = self.all_gather(worker, values, None).unwrap_or_default();
        (0..len)
            .map(|i| all.iter().map(|v| v[i]).max().unwrap_or(0))
            .collect()
    }

    /// Element-wise minima.
    pub(crate) fn min(&mut self, worker: &mut Worker, values: Vec<u64>) -> Vec<u64> {
        let len = values.len();
        let all = self.all_gather(worker, values, None).unwrap_or_default();
        (0..len)
            .map(|i| all.iter().map(|v| v[i]).min().unwrap_or(u64::MAX))
            .collect()
    }

    /// Sum of one `f64` per worker, added in worker order (so every worker
    /// gets the same bits).
    pub(crate) fn sum_f64(&mut self, worker: &mut Worker, value: f64) -> f64 {
        let all = self
            .all_gather(worker, vec![value.to_bits()], None)
            .unwrap_or_default();
        all.iter().map(|v| f64::from_bits(v[0])).sum()
    }

    /// Fails every worker together when any worker has a failure: `Ok`
    /// when none has.
    pub(crate) fn agree(
        &mut self,
        worker: &mut Worker,
        failure: Option<String>,
    ) -> Result<(), String> {
        self.all_gather(worker, Vec::new(), failure).map(|_| ())
    }

    pub(crate) fn take_traffic(&mut self) -> Traffic {
        self.mailbox.take_traffic()
    }
}
