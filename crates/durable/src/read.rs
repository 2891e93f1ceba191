//! The store contract: read traits over the mapped edge arrays and their
//! edge logs, updates with the sync policy, bulk build, snapshots.

use crate::format::{ID_MASK, LIVE, TAG_MASK};
use crate::side::Side;
use crate::{DurableOptions, DurableVcsr};
use dyngraph_core::cow::{CowSnapshot, CowView};
use dyngraph_core::{
    Capability, EdgeSource, EdgeWeights, Error, FromEdges, Graph, GraphStore, GraphUpdate, InEdges,
    InNeighbors, MaintenanceStats, OutNeighbors, Result, Semantics, Snapshots, UpdateReport,
    VertexId, Weight, WeightedNeighbors, check_limit,
};
use std::ops::Range;

/// The neighbours of one vertex in one edge array: its run in the mapped
/// array, then its edge-log entries in insertion order (DGAP §3.1.3).
#[derive(Clone, Debug)]
pub struct DurableNeighbors<'a> {
    /// The run's slot words (one per slot, or slot and weight with
    /// stride 2).
    run: std::slice::Iter<'a, u32>,
    stride: usize,
    log: &'a [u32],
    /// The vertex's log entries.
    chain: Chain,
}

/// A vertex's log chain, newest first (taken from the back: oldest first):
/// none for most vertices of a kept store, inline when short (a region
/// holds a few dozen entries for a whole section), so reading a vertex
/// allocates nothing.
#[derive(Clone, Debug)]
enum Chain {
    Empty,
    Inline([u32; 14], u8),
    Heap(Vec<usize>),
}

impl Chain {
    #[inline]
    fn pop(&mut self) -> Option<usize> {
        match self {
            Chain::Empty => None,
            Chain::Inline(at, len) => {
                if *len == 0 {
                    return None;
                }
                *len -= 1;
                Some(at[*len as usize] as usize)
            }
            Chain::Heap(at) => at.pop(),
        }
    }

    /// The chain of `v` (whose entry says it has log entries).
    fn of(side: &Side, v: VertexId, log: &[u32]) -> Self {
        let entry = side.vertices[v as usize];
        let section = side.section_of(v);
        let mut chain = Chain::Inline([0; 14], 0);
        let mut next = entry.log_head;
        let mut n = 0;
        while next != 0 && n < entry.log_count as usize {
            let offset = side.log_entry_at(section, next as usize - 1);
            match &mut chain {
                Chain::Inline(inline, len) if n < inline.len() && offset <= u32::MAX as usize => {
                    inline[n] = offset as u32;
                    *len += 1;
                }
                Chain::Inline(inline, len) => {
                    let mut heap: Vec<usize> = inline[..*len as usize]
                        .iter()
                        .map(|&o| o as usize)
                        .collect();
                    heap.push(offset);
                    chain = Chain::Heap(heap);
                }
                Chain::Heap(heap) => heap.push(offset),
                Chain::Empty => unreachable!("built from Inline"),
            }
            n += 1;
            next = log[offset + 3] & 0xFFFF;
        }
        chain
    }
}

impl<'a> DurableNeighbors<'a> {
    /// A vertex outside the graph: isolated, as the contract reads it.
    fn outside(stride: usize) -> Self {
        Self {
            run: [].iter(),
            stride,
            log: &[],
            chain: Chain::Empty,
        }
    }

    #[inline]
    fn new(side: &'a Side, v: VertexId) -> Self {
        let stride = side.stride;
        let Some(&entry) = side.vertices.get(v as usize) else {
            return Self::outside(stride);
        };
        let from = (entry.start as usize + 1) * stride;
        let run = side.words()[from..from + entry.array_len as usize * stride].iter();
        if entry.log_count == 0 {
            // Most vertices of a kept store: the run alone.
            return Self {
                run,
                stride,
                log: &[],
                chain: Chain::Empty,
            };
        }
        let log = side.log_words();
        Self {
            run,
            stride,
            log,
            chain: Chain::of(side, v, log),
        }
    }

    /// [`DurableNeighbors::new`] with the side's word slices taken once by
    /// a handle.
    #[inline]
    fn of(side: &'a Side, words: &'a [u32], log: &'a [u32], v: VertexId) -> Self {
        let stride = side.stride;
        let Some(&entry) = side.vertices.get(v as usize) else {
            return Self::outside(stride);
        };
        let from = (entry.start as usize + 1) * stride;
        let run = words[from..from + entry.array_len as usize * stride].iter();
        let chain = if entry.log_count == 0 {
            Chain::Empty
        } else {
            Chain::of(side, v, log)
        };
        Self {
            run,
            stride,
            log,
            chain,
        }
    }

    /// The next live edge as `(neighbour, weight bits)`.
    #[inline]
    fn next_raw(&mut self) -> Option<(VertexId, u32)> {
        while let Some(&word) = self.run.next() {
            let weight = if self.stride == 2 {
                self.run.next().copied().unwrap_or(0)
            } else {
                0
            };
            if word & TAG_MASK == LIVE {
                return Some((word & ID_MASK, weight));
            }
        }
        self.next_logged()
    }

    #[inline]
    fn next_logged(&mut self) -> Option<(VertexId, u32)> {
        while let Some(at) = self.chain.pop() {
            let word = self.log[at + 1];
            if word & TAG_MASK == LIVE {
                return Some((word & ID_MASK, self.log[at + 2]));
            }
        }
        None
    }
}

impl Iterator for DurableNeighbors<'_> {
    type Item = VertexId;

    #[inline]
    fn next(&mut self) -> Option<VertexId> {
        if self.stride == 1 {
            // The common, unweighted case: a tight walk over the run.
            for &word in &mut self.run {
                if word & TAG_MASK == LIVE {
                    return Some(word & ID_MASK);
                }
            }
            return self.next_logged().map(|(d, _)| d);
        }
        self.next_raw().map(|(d, _)| d)
    }

    /// A tight loop over the run, then the log chain: what `sum`,
    /// `for_each` and the kernels' folds compile to.
    #[inline]
    fn fold<B, F: FnMut(B, VertexId) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        if self.stride == 1 {
            for &word in self.run.by_ref() {
                if word & TAG_MASK == LIVE {
                    acc = f(acc, word & ID_MASK);
                }
            }
        } else {
            for pair in self.run.as_slice().chunks_exact(2) {
                if pair[0] & TAG_MASK == LIVE {
                    acc = f(acc, pair[0] & ID_MASK);
                }
            }
            self.run = [].iter();
        }
        while let Some((d, _)) = self.next_logged() {
            acc = f(acc, d);
        }
        acc
    }
}

/// The weighted out-edges of one vertex.
#[derive(Clone, Debug)]
pub struct DurableWeightedNeighbors<'a>(DurableNeighbors<'a>);

impl Iterator for DurableWeightedNeighbors<'_> {
    type Item = (VertexId, Weight);

    #[inline]
    fn next(&mut self) -> Option<(VertexId, Weight)> {
        self.0.next_raw().map(|(d, w)| (d, f32::from_bits(w)))
    }
}

/// The weights handle of a weighted [`DurableVcsr`].
#[derive(Clone, Copy, Debug)]
pub struct DurableWeights<'a>(&'a Side);

impl<'a> WeightedNeighbors for DurableWeights<'a> {
    type WeightedIter = DurableWeightedNeighbors<'a>;

    #[inline]
    fn out_neighbors_weighted(self, v: VertexId) -> Self::WeightedIter {
        DurableWeightedNeighbors(DurableNeighbors::new(self.0, v))
    }
}

/// The in-edges handle of a [`DurableVcsr`] built with in-edges: reads the
/// transposed edge array (`in-edges.dat`), kept in step with the out-edges
/// by every update and by recovery.
#[derive(Clone, Copy, Debug)]
pub struct DurableInEdges<'a> {
    side: &'a Side,
    words: &'a [u32],
    log: &'a [u32],
}

impl<'a> InNeighbors for DurableInEdges<'a> {
    type InIter = DurableNeighbors<'a>;

    #[inline]
    fn in_degree(self, v: VertexId) -> u64 {
        self.side
            .vertices
            .get(v as usize)
            .map_or(0, |entry| u64::from(entry.live))
    }

    #[inline]
    fn in_neighbors(self, v: VertexId) -> Self::InIter {
        DurableNeighbors::of(self.side, self.words, self.log, v)
    }
}

impl Graph for DurableVcsr {
    fn vertex_count(&self) -> usize {
        self.out.vertices.len()
    }

    fn edge_count(&self) -> u64 {
        self.applied.edges
    }

    fn semantics(&self) -> Semantics {
        self.semantics
    }
}

impl OutNeighbors for DurableVcsr {
    type OutIter<'a> = DurableNeighbors<'a>;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        self.out
            .vertices
            .get(v as usize)
            .map_or(0, |entry| u64::from(entry.live))
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> DurableNeighbors<'_> {
        DurableNeighbors::new(&self.out, v)
    }
}

impl InEdges for DurableVcsr {
    type InHandle<'a> = DurableInEdges<'a>;

    /// The in-edges when the store was created with
    /// `StoreOptions::in_edges(true)`, else [`Error::MissingCapability`]
    /// (pull kernels push instead, and say so).
    fn in_edges(&self) -> Result<DurableInEdges<'_>> {
        match &self.inc {
            Some(inc) => Ok(DurableInEdges {
                side: inc,
                words: inc.words(),
                log: inc.log_words(),
            }),
            None => Err(Error::missing(
                <Self as GraphStore>::NAME,
                Capability::InEdges,
            )),
        }
    }
}

impl EdgeWeights for DurableVcsr {
    type WeightHandle<'a> = DurableWeights<'a>;

    fn edge_weights(&self) -> Result<DurableWeights<'_>> {
        if self.out.stride == 2 {
            Ok(DurableWeights(&self.out))
        } else {
            Err(Error::missing(
                <Self as GraphStore>::NAME,
                Capability::Weights,
            ))
        }
    }
}

impl GraphUpdate for DurableVcsr {
    fn insert_weighted_edge(
        &mut self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) -> Result<bool> {
        self.check_writable()?;
        check_limit(self.vertex_limit, [src, dst])?;
        let added = self.insert_one(src, dst, weight);
        self.finish_call(added)
    }

    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.check_writable()?;
        let removed = self.delete_one(src, dst);
        self.finish_call(removed)
    }

    /// Inserts in order; under [`SyncPolicy::EveryBatch`](crate::SyncPolicy)
    /// the whole batch is acknowledged when this returns. An error part-way
    /// (a full disk) leaves the edges before it inserted.
    fn insert_edges<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<UpdateReport> {
        self.check_writable()?;
        let Some(max) = edges.max_vertex() else {
            return Ok(UpdateReport::default());
        };
        check_limit(self.vertex_limit, [max])?;
        let weighted = edges.is_weighted();
        let result = self.grow_vertices(max as usize + 1).and_then(|()| {
            let mut report = UpdateReport::default();
            let mut insert = |store: &mut Self, s, d, w: Weight| -> Result<()> {
                let w = if weighted { w } else { 1.0 };
                let added = store.insert_one(s, d, w)?;
                store.after_update()?;
                report.edges_added += u64::from(added);
                Ok(())
            };
            if edges.len() >= GROUPED_BATCH {
                // The grouping buffers are the store's, reused batch after
                // batch (a fresh 64K batch would fault in new pages).
                let mut scratch = std::mem::take(&mut self.batch_scratch);
                by_section(
                    edges,
                    max,
                    self.out.layout.vertices_per_section,
                    &mut scratch,
                );
                let batch = &scratch.0;
                let mut result = Ok(());
                for (i, &(s, d, w)) in batch.iter().enumerate() {
                    // Look ahead: the entries of later edges' vertices, then
                    // the slots they will take, so that the cache misses of
                    // several edges overlap.
                    if let Some(&(later, to, _)) = batch.get(i + 40) {
                        self.out.prefetch_vertex(later);
                        if let Some(inc) = &self.inc {
                            inc.prefetch_vertex(to);
                        }
                    }
                    if let Some(&(later, to, _)) = batch.get(i + 12) {
                        self.out.prefetch_slot(later);
                        if let Some(inc) = &self.inc {
                            inc.prefetch_slot(to);
                        }
                    }
                    if let Err(e) = insert(self, s, d, w) {
                        result = Err(e);
                        break;
                    }
                    // A batch applied in source order sweeps the arrays:
                    // past the changed-page bound, the pages behind the
                    // sweep are written out and let go mid-batch, so one
                    // large batch does not hold the whole array in memory.
                    if i % CHANGED_CHECK_EDGES == CHANGED_CHECK_EDGES - 1
                        && let Err(e) = self.release_changed_pages()
                    {
                        result = Err(e);
                        break;
                    }
                }
                self.batch_scratch = scratch;
                result?;
            } else {
                let mut failure = None;
                edges.for_each_in(0..edges.len(), |s, d, w| {
                    if failure.is_none()
                        && let Err(e) = insert(self, s, d, w)
                    {
                        failure = Some(e);
                    }
                });
                if let Some(e) = failure {
                    return Err(e);
                }
            }
            Ok(report)
        });
        self.finish_call(result)
    }

    fn delete_edges<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<UpdateReport> {
        self.check_writable()?;
        let mut report = UpdateReport::default();
        let mut result = Ok(());
        for i in 0..edges.len() {
            let e = edges.edge(i);
            match self
                .delete_one(e.src, e.dst)
                .and_then(|removed| self.after_update().map(|()| removed))
            {
                Ok(removed) => report.edges_removed += u64::from(removed),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.finish_call(result.map(|()| report))
    }

    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        self.check_writable()?;
        let start = self.out.vertices.len();
        let end = start + count;
        if end > self.vertex_limit {
            return Err(Error::VertexLimit {
                vertex: end as u64 - 1,
                needed: end as u64,
                limit: self.vertex_limit as u64,
            });
        }
        let result = self.grow_vertices(end);
        self.finish_call(result.map(|()| start as VertexId..end as VertexId))
    }

    fn vertex_limit(&self) -> usize {
        self.vertex_limit
    }
}

/// Batches at least this long are applied grouped by section (see
/// [`by_section`]).
const GROUPED_BATCH: usize = 1024;

/// Edges of a grouped batch between two checks of the changed pages
/// against [`DurableOptions::max_changed_bytes`](crate::DurableOptions::max_changed_bytes)
/// (a check counts the dirty bitmap's bits: a page in 32 K of array).
const CHANGED_CHECK_EDGES: usize = 4096;

/// The edges of `edges` grouped by the section of their source, in input
/// order within a section (a stable counting sort): a large batch then
/// visits each section's vertices and runs together instead of jumping
/// across the arrays at every edge, and each vertex's edges keep their
/// order. (The log records them in this order, so a crash in the middle of
/// a batch keeps a prefix of it in this order.)
fn by_section<S: EdgeSource + ?Sized>(
    edges: &S,
    max: VertexId,
    vertices_per_section: usize,
    (out, next): &mut BatchScratch,
) {
    let n = edges.len();
    let sections = max as usize / vertices_per_section + 1;
    out.clear();
    if sections > 4 * n {
        edges.for_each_in(0..n, |s, d, w| out.push((s, d, w)));
        out.sort_by_key(|&(s, _, _)| s as usize / vertices_per_section);
        return;
    }
    next.clear();
    next.resize(sections + 1, 0);
    edges.for_each_in(0..n, |s, _, _| {
        next[s as usize / vertices_per_section + 1] += 1
    });
    for i in 0..sections {
        next[i + 1] += next[i];
    }
    out.resize(n, (0, 0, 0.0));
    edges.for_each_in(0..n, |s, d, w| {
        let at = &mut next[s as usize / vertices_per_section];
        out[*at] = (s, d, w);
        *at += 1;
    });
}

/// The buffers [`by_section`] fills, kept by the store from batch to batch:
/// the grouped edges, and one counter per section.
pub(crate) type BatchScratch = (Vec<(VertexId, VertexId, Weight)>, Vec<usize>);

impl DurableVcsr {
    /// The end of an update call, whatever its outcome: what it applied is
    /// logged (an error part-way keeps the prefix it applied, and that
    /// prefix must reach the log before anything later), and the policy's
    /// commit runs when the call succeeded.
    fn finish_call<T>(&mut self, result: Result<T>) -> Result<T> {
        match result {
            Ok(value) => {
                self.end_call()?;
                Ok(value)
            }
            Err(e) => {
                // Keep the store able to close under a space limit: the
                // prefix applied may have changed pages a checkpoint must
                // save.
                let _ = self.flush_pending().and_then(|()| self.maybe_checkpoint());
                Err(e)
            }
        }
    }
}

impl FromEdges for DurableVcsr {
    type Options = DurableOptions;

    /// Creates the store ([`DurableVcsr::create_with`]: in `options.dir`,
    /// or a fresh temporary directory) with `edges` laid out in one pass
    /// (a single rewrite of each array at the rewrite density), durable
    /// when this returns; a crash before then leaves no store.
    ///
    /// With [`DurableOptions::append`] and a `dir` that holds a store, opens
    /// it instead ([`DurableVcsr::open_or_create`]) and inserts `edges` as
    /// one batch, committed to the write-ahead log (durable) when this
    /// returns; [`DurableOptions::keys`] are saved first.
    fn from_edges<S: EdgeSource + ?Sized>(edges: &S, options: DurableOptions) -> Result<Self> {
        if options.append
            && let Some(dir) = &options.dir
            && DurableVcsr::is_store_dir(dir)
        {
            let kept = DurableVcsr::read_keys(dir)?;
            let (mut store, _) = DurableVcsr::open_or_create(dir, &options)?;
            if let Some(keys) = &options.keys {
                // Before the batch: every edge it acknowledges is named.
                crate::keys::save_keys(dir, keys, kept.as_ref())?;
            }
            store.insert_edges(edges)?;
            // The cheap sync point (one log flush): a checkpoint here would
            // rewrite every page the base touched, and the size threshold
            // or close will take one anyway.
            store.commit()?;
            return Ok(store);
        }
        DurableVcsr::create_from(options, Some(edges))
    }
}

impl Snapshots for DurableVcsr {
    type Snapshot = CowSnapshot;
    type View<'a> = CowView<'a, DurableVcsr>;

    /// A copy-before-write snapshot ([`dyngraph_core::cow`]): nearly free
    /// to take; the first change of a vertex's list after it saves that
    /// list in DRAM. Snapshots are not durable: they do not survive a
    /// close or a crash.
    fn snapshot(&self) -> CowSnapshot {
        self.snapshots.take(self)
    }

    fn view<'a>(&'a self, snapshot: &'a CowSnapshot) -> Result<CowView<'a, DurableVcsr>> {
        self.snapshots.view(self, snapshot)
    }
}

impl GraphStore for DurableVcsr {
    const NAME: &'static str = "DurableVcsr";
    const CAPABILITIES: dyngraph_core::Capabilities = dyngraph_core::Capabilities {
        in_edges: true,
        weights: true,
        durable: true,
        distributable: false,
        concurrent_writers: false,
    };

    /// [`DurableVcsr::acknowledged`]'s edges.
    fn acknowledged_edges(&self) -> Option<u64> {
        Some(self.acknowledged().edges)
    }

    /// [`DurableVcsr::commit`].
    fn persist(&mut self) -> Result<()> {
        self.commit().map(|_| ())
    }

    /// The DRAM vertex arrays and section tables plus the mapped lengths of
    /// the edge arrays and the edge logs.
    fn memory_bytes(&self) -> usize {
        self.sides()
            .map(|s| {
                s.vertices.capacity() * std::mem::size_of::<crate::side::VertexEntry>()
                    + s.log_used.capacity() * 4
                    + s.log_fresh.capacity()
                    + s.sums.values.capacity() * 4
                    + (s.edges.len() + s.log.len()) as usize
            })
            .sum()
    }

    fn maintenance(&self) -> Option<MaintenanceStats> {
        let stats = self.stats();
        Some(MaintenanceStats {
            rebalances: stats.rebalances + stats.rewrites,
            elements_moved: stats.elements_moved,
            resizes: stats.resizes,
        })
    }
}
