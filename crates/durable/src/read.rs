//! The store contract: read traits over the mapped edge array and the
//! edge logs, updates with the sync policy, bulk build, snapshots.

use crate::format::{ID_MASK, LIVE, TAG_MASK};
use crate::{DurableOptions, DurableVcsr};
use dyngraph_core::cow::{CowSnapshot, CowView};
use dyngraph_core::{
    Capability, EdgeSource, EdgeWeights, Error, FromEdges, Graph, GraphStore, GraphUpdate, InEdges,
    MaintenanceStats, OutNeighbors, Result, Semantics, Snapshots, UpdateReport, VertexId, Weight,
    WeightedNeighbors, check_limit,
};
use std::ops::Range;

/// The out-neighbours of one vertex: its run in the mapped edge array,
/// then its edge-log entries in insertion order (DGAP §3.1.3).
#[derive(Clone, Debug)]
pub struct DurableNeighbors<'a> {
    words: &'a [u32],
    at: usize,
    end: usize,
    stride: usize,
    log: &'a [u32],
    /// Word offsets of the vertex's log entries, newest first (popped from
    /// the back: oldest first).
    chain: Vec<usize>,
}

impl<'a> DurableNeighbors<'a> {
    fn new(store: &'a DurableVcsr, v: VertexId) -> Self {
        let Some(&entry) = store.vertices.get(v as usize) else {
            // Outside the graph: isolated, as the contract reads it.
            return Self {
                words: store.words(),
                at: 0,
                end: 0,
                stride: store.stride,
                log: store.log_words(),
                chain: Vec::new(),
            };
        };
        let stride = store.stride;
        let at = (entry.start as usize + 1) * stride;
        let chain = if entry.log_count == 0 {
            Vec::new()
        } else {
            let section = store.section_of(v);
            let mut chain: Vec<usize> = store
                .log_chain(v)
                .into_iter()
                .map(|index| store.log_entry_at(section, index as usize))
                .collect();
            chain.reverse();
            chain
        };
        Self {
            words: store.words(),
            at,
            end: at + entry.array_len as usize * stride,
            stride,
            log: store.log_words(),
            chain,
        }
    }

    /// The next live edge as `(destination, weight bits)`.
    #[inline]
    fn next_raw(&mut self) -> Option<(VertexId, u32)> {
        while self.at < self.end {
            let word = self.words[self.at];
            let at = self.at;
            self.at += self.stride;
            if word & TAG_MASK == LIVE {
                let weight = if self.stride == 2 {
                    self.words[at + 1]
                } else {
                    0
                };
                return Some((word & ID_MASK, weight));
            }
        }
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
            while self.at < self.end {
                let word = self.words[self.at];
                self.at += 1;
                if word & TAG_MASK == LIVE {
                    return Some(word & ID_MASK);
                }
            }
        }
        self.next_raw().map(|(d, _)| d)
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
pub struct DurableWeights<'a>(&'a DurableVcsr);

impl<'a> WeightedNeighbors for DurableWeights<'a> {
    type WeightedIter = DurableWeightedNeighbors<'a>;

    #[inline]
    fn out_neighbors_weighted(self, v: VertexId) -> Self::WeightedIter {
        DurableWeightedNeighbors(DurableNeighbors::new(self.0, v))
    }
}

/// The in-edges handle type; never handed out (this store keeps no
/// in-edges), it exists to name the trait's associated type.
#[derive(Clone, Copy, Debug)]
pub struct NoInEdges;

impl dyngraph_core::InNeighbors for NoInEdges {
    type InIter = std::iter::Empty<VertexId>;

    fn in_degree(self, _: VertexId) -> u64 {
        unreachable!("DurableVcsr never hands out in-edges")
    }

    fn in_neighbors(self, _: VertexId) -> Self::InIter {
        unreachable!("DurableVcsr never hands out in-edges")
    }
}

impl Graph for DurableVcsr {
    fn vertex_count(&self) -> usize {
        self.vertices.len()
    }

    fn edge_count(&self) -> u64 {
        self.edge_count
    }

    fn semantics(&self) -> Semantics {
        self.semantics
    }
}

impl OutNeighbors for DurableVcsr {
    type OutIter<'a> = DurableNeighbors<'a>;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        self.vertices
            .get(v as usize)
            .map_or(0, |entry| u64::from(entry.live))
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> DurableNeighbors<'_> {
        DurableNeighbors::new(self, v)
    }
}

impl InEdges for DurableVcsr {
    type InHandle<'a> = NoInEdges;

    /// Always [`Error::MissingCapability`]: the store keeps out-edges only
    /// (pull kernels push on it instead, and say so).
    fn in_edges(&self) -> Result<NoInEdges> {
        Err(Error::missing(
            <Self as GraphStore>::NAME,
            Capability::InEdges,
        ))
    }
}

impl EdgeWeights for DurableVcsr {
    type WeightHandle<'a> = DurableWeights<'a>;

    fn edge_weights(&self) -> Result<DurableWeights<'_>> {
        if self.stride == 2 {
            Ok(DurableWeights(self))
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
        self.check_usable()?;
        check_limit(self.vertex_limit, [src, dst])?;
        let added = self.insert_one(src, dst, weight)?;
        if added {
            self.after_update()?;
        }
        self.after_batch()?;
        Ok(added)
    }

    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.check_usable()?;
        let removed = self.delete_one(src, dst)?;
        if removed {
            self.after_update()?;
        }
        self.after_batch()?;
        Ok(removed)
    }

    /// Inserts in order; under [`SyncPolicy::EveryBatch`](crate::SyncPolicy)
    /// the whole batch is acknowledged when this returns. An error part-way
    /// (a full disk) leaves the edges before it inserted.
    fn insert_edges<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<UpdateReport> {
        self.check_usable()?;
        let Some(max) = edges.max_vertex() else {
            return Ok(UpdateReport::default());
        };
        check_limit(self.vertex_limit, [max])?;
        self.ensure_vertices(max as usize + 1)?;
        let weighted = edges.is_weighted();
        let mut report = UpdateReport::default();
        let mut failure = None;
        edges.for_each_in(0..edges.len(), |s, d, w| {
            if failure.is_some() {
                return;
            }
            let w = if weighted { w } else { 1.0 };
            match self.insert_one(s, d, w).and_then(|added| {
                if added {
                    self.after_update()?;
                }
                Ok(added)
            }) {
                Ok(added) => report.edges_added += u64::from(added),
                Err(e) => failure = Some(e),
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        self.after_batch()?;
        Ok(report)
    }

    fn delete_edges<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<UpdateReport> {
        self.check_usable()?;
        let mut report = UpdateReport::default();
        for i in 0..edges.len() {
            let e = edges.edge(i);
            if self.delete_one(e.src, e.dst)? {
                report.edges_removed += 1;
                self.after_update()?;
            }
        }
        self.after_batch()?;
        Ok(report)
    }

    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        self.check_usable()?;
        let start = self.vertices.len();
        let end = start + count;
        if end > self.vertex_limit {
            return Err(Error::VertexLimit {
                vertex: end as u64 - 1,
                needed: end as u64,
                limit: self.vertex_limit as u64,
            });
        }
        self.ensure_vertices(end)?;
        if count > 0 {
            self.after_update()?;
            self.after_batch()?;
        }
        Ok(start as VertexId..end as VertexId)
    }

    fn vertex_limit(&self) -> usize {
        self.vertex_limit
    }
}

impl FromEdges for DurableVcsr {
    type Options = DurableOptions;

    /// Creates the store ([`DurableVcsr::create_with`]: in `options.dir`,
    /// or a fresh temporary directory) and lays `edges` out in one pass: a
    /// single rewrite at the rewrite density, durable when this returns.
    fn from_edges<S: EdgeSource + ?Sized>(edges: &S, options: DurableOptions) -> Result<Self> {
        let mut store = DurableVcsr::create_with(options)?;
        store.bulk_load(edges)?;
        Ok(store)
    }
}

impl DurableVcsr {
    /// Lays `edges` out into an empty store in one rewrite (grouped by
    /// source, input order kept per vertex, repeats dropped under simple
    /// semantics).
    fn bulk_load<S: EdgeSource + ?Sized>(&mut self, edges: &S) -> Result<()> {
        let n = edges.vertex_bound();
        check_limit(self.vertex_limit, edges.max_vertex())?;
        if n == 0 {
            return Ok(());
        }
        let weighted = edges.is_weighted() && self.stride == 2;
        // Counting sort by source, keeping input order within a source.
        let mut offsets = vec![0u64; n + 1];
        edges.for_each_in(0..edges.len(), |s, _, _| offsets[s as usize + 1] += 1);
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut next = offsets.clone();
        let mut targets = vec![(0u32, 0u32); edges.len()];
        edges.for_each_in(0..edges.len(), |s, d, w| {
            let at = &mut next[s as usize];
            targets[*at as usize] = (
                d,
                if weighted {
                    w.to_bits()
                } else {
                    1f32.to_bits()
                },
            );
            *at += 1;
        });
        let mut lengths: Vec<u32> = (0..n)
            .map(|v| (offsets[v + 1] - offsets[v]) as u32)
            .collect();
        if self.semantics == Semantics::Simple {
            // Keep the first arrival of each (src, dst): compact in place.
            let mut seen = std::collections::HashSet::new();
            for v in 0..n {
                seen.clear();
                let (from, to) = (offsets[v] as usize, offsets[v + 1] as usize);
                let mut kept = from;
                for i in from..to {
                    if seen.insert(targets[i].0) {
                        targets[kept] = targets[i];
                        kept += 1;
                    }
                }
                lengths[v] = (kept - from) as u32;
            }
        }
        let used: u64 = n as u64 + lengths.iter().map(|&l| u64::from(l)).sum::<u64>();
        let capacity = ((used as f64 / 0.6).ceil() as u64).max(self.capacity());
        self.rewrite_from(capacity, &lengths, |_, v, out| {
            let from = offsets[v] as usize;
            out.extend_from_slice(&targets[from..from + lengths[v] as usize]);
        })?;
        self.stats.inserts += self.edge_count;
        Ok(())
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
        in_edges: false,
        weights: true,
        durable: true,
        distributable: false,
        concurrent_writers: false,
    };

    /// The DRAM vertex array and section tables plus the mapped lengths of
    /// the edge array and the edge logs.
    fn memory_bytes(&self) -> usize {
        self.vertices.capacity() * std::mem::size_of::<crate::store::VertexEntry>()
            + self.log_used.capacity() * 4
            + self.log_fresh.capacity()
            + (self.edges.len() + self.log.len()) as usize
    }

    fn maintenance(&self) -> Option<MaintenanceStats> {
        Some(MaintenanceStats {
            rebalances: self.stats.rebalances + self.stats.rewrites,
            elements_moved: self.stats.elements_moved,
            resizes: self.stats.resizes,
        })
    }
}
