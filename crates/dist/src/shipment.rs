//! Arrivals on their way to their owners, in columns.
//!
//! A reader sends each arrival to the owner of its source (and, with
//! in-edges, to the owner of its destination). One message per arrival
//! would cost timely a record each (routing, buffering, and between
//! processes an encoding each); a [`Courier`] instead fills one bucket of
//! columns per addressee and kind and ships it as one [`Shipment`] of up
//! to [`CHUNK`] arrivals: between processes that is a few memory copies
//! per arrival.
//!
//! Order without sorting: a reader's arrivals are a contiguous run of the
//! global stream, and readers are numbered in stream order, so an owner
//! that sorts a round's shipments by `(from, seq)` and concatenates them
//! has its inserts in global arrival order, and its deletes too.

use crate::mailbox::{Mailbox, WireSize};
use dyngraph_core::{VertexId, Weight};
use serde::{Deserialize, Serialize};
use timely::worker::Worker;

/// Arrivals per shipment: large enough that a shipment's fixed costs
/// vanish, small enough that sending overlaps filling.
pub(crate) const CHUNK: usize = 1 << 16;

/// What a shipment's edges do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Op {
    /// Insert into the out store (`reversed: false`) or the in store.
    Insert,
    /// Delete from it.
    Delete,
}

/// Edges for one store of the addressee, or ghosts to register.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Shipment {
    /// The sending worker.
    pub(crate) from: u32,
    /// The sender's count of shipments in this round, to keep its order.
    pub(crate) seq: u32,
    /// `None`: `src` lists vertices the sender's edges reach, owned by the
    /// addressee (it must know them: kernels send them messages).
    pub(crate) op: Option<Op>,
    /// The copy for the in store at the owner of `dst`.
    pub(crate) reversed: bool,
    /// Sources, global ids (the edge's own direction, also when reversed).
    pub(crate) src: Vec<VertexId>,
    /// Destinations, global ids.
    pub(crate) dst: Vec<VertexId>,
    /// Weights of inserts, when the run keeps them.
    pub(crate) weights: Option<Vec<Weight>>,
    /// Global arrival indices, when the owner tracks which arrival
    /// inserted an edge (simple semantics under a window).
    pub(crate) indices: Option<Vec<u64>>,
}

impl WireSize for Shipment {
    fn wire_bytes(&self) -> u64 {
        // from, seq, op (tag + value), reversed, then each vector's
        // length and elements (options: a tag).
        let columns = 8 + 4 * self.src.len() + 8 + 4 * self.dst.len();
        let weights = 1 + self.weights.as_ref().map_or(0, |w| 8 + 4 * w.len());
        let indices = 1 + self.indices.as_ref().map_or(0, |i| 8 + 8 * i.len());
        (4 + 4 + 2 + 1 + columns + weights + indices) as u64
    }
}

impl Shipment {
    /// Arrivals (or vertices) it carries.
    pub(crate) fn len(&self) -> usize {
        self.src.len()
    }
}

/// Buckets per addressee: out inserts, out deletes, in inserts, in deletes,
/// announcements.
const KINDS: usize = 5;

fn kind_index(op: Option<Op>, reversed: bool) -> usize {
    match (op, reversed) {
        (Some(Op::Insert), false) => 0,
        (Some(Op::Delete), false) => 1,
        (Some(Op::Insert), true) => 2,
        (Some(Op::Delete), true) => 3,
        (None, _) => 4,
    }
}

/// A worker's outgoing arrivals: buckets filled per addressee and kind,
/// shipped when full and at the end of the round.
pub(crate) struct Courier {
    mailbox: Mailbox<Shipment>,
    from: u32,
    seq: u32,
    buckets: Vec<Shipment>,
    weighted: bool,
    indexed: bool,
}

impl Courier {
    /// A courier over `mailbox` for worker `from`; `weighted` ships insert
    /// weights, `indexed` arrival indices.
    pub(crate) fn new(mailbox: Mailbox<Shipment>, from: usize, peers: usize) -> Self {
        Self {
            mailbox,
            from: from as u32,
            seq: 0,
            buckets: vec![Shipment::default(); peers * KINDS],
            weighted: false,
            indexed: false,
        }
    }

    /// Sets what the shipments carry besides the ids.
    pub(crate) fn carry(&mut self, weights: bool, indices: bool) {
        self.weighted = weights;
        self.indexed = indices;
    }

    /// Queues arrival `index` (`src -> dst`) for worker `to`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn edge(
        &mut self,
        to: usize,
        op: Op,
        reversed: bool,
        index: u64,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) {
        let slot = to * KINDS + kind_index(Some(op), reversed);
        let bucket = &mut self.buckets[slot];
        bucket.src.push(src);
        bucket.dst.push(dst);
        if self.weighted && op == Op::Insert {
            bucket.weights.get_or_insert_with(Vec::new).push(weight);
        }
        if self.indexed {
            bucket.indices.get_or_insert_with(Vec::new).push(index);
        }
        if bucket.len() >= CHUNK {
            self.ship(slot);
        }
    }

    /// Queues the news that worker `to` owns `vertex`, which this worker's
    /// edges reach.
    #[inline]
    pub(crate) fn announce(&mut self, to: usize, vertex: VertexId) {
        let slot = to * KINDS + kind_index(None, false);
        self.buckets[slot].src.push(vertex);
        if self.buckets[slot].len() >= CHUNK {
            self.ship(slot);
        }
    }

    fn ship(&mut self, slot: usize) {
        let to = slot / KINDS;
        let kind = slot % KINDS;
        let bucket = &mut self.buckets[slot];
        if bucket.src.is_empty() {
            return;
        }
        let mut shipment = std::mem::take(bucket);
        shipment.from = self.from;
        shipment.seq = self.seq;
        self.seq += 1;
        shipment.op = match kind {
            0 | 2 => Some(Op::Insert),
            1 | 3 => Some(Op::Delete),
            _ => None,
        };
        shipment.reversed = kind == 2 || kind == 3;
        self.mailbox.send(to, shipment);
    }

    /// Ships what is queued, closes the round, and returns this worker's
    /// shipments of the round in `(from, seq)` order: inserts and deletes
    /// each in global arrival order.
    pub(crate) fn finish_round(&mut self, worker: &mut Worker) -> Vec<Shipment> {
        for slot in 0..self.buckets.len() {
            self.ship(slot);
        }
        self.seq = 0;
        let mut received = self.mailbox.finish_round(worker);
        received.sort_unstable_by_key(|s| (s.from, s.seq));
        received
    }

    /// Bytes sent since the last call.
    pub(crate) fn take_traffic(&mut self) -> crate::mailbox::Traffic {
        self.mailbox.take_traffic()
    }
}
