//! `Pcsr`'s in-edges: a packed set of merged in-edges and a log of newer
//! ones, merged into the set in one pass when it fills.
//!
//! Why a log: kept as a second packed set, an in-edge insert costs what an
//! out-edge insert costs, a search-free place plus `O(log² N)` amortized
//! moves (measured on sx-mathoverflow, 184 ns per in-edge against 165 per
//! out-edge; `docs/in-edges.md`). Appending to a per-vertex block chain
//! (`Bal`'s) costs about 20 ns, and rebuilding the set from the set and the
//! log is one sequential pass over the in-edges, done once the log holds a
//! quarter of them: a few element copies per logged edge.

use crate::bal::{BalNeighbors, BlockChains};
use crate::pcsr::{PackedEdges, PcsrNeighbors, Slot};
use dyngraph_core::{Error, InNeighbors, MaintenanceStats, Result, VertexId};
use dyngraph_pma::PackedSet;

/// The log merges once it holds this many edges, or a quarter of the
/// merged in-edges if that is more.
const LOG_MIN: usize = 4096;

/// In-edges of a `Pcsr`: `main` holds every in-edge up to the last merge,
/// `log` the newer ones per vertex, in arrival order. A vertex's in-edges
/// are its `main` run followed by its `log` chain.
#[derive(Clone, Debug)]
pub(crate) struct InEdgeParts {
    pub(crate) main: PackedEdges,
    log: BlockChains,
    /// Edges in `log`.
    logged: usize,
    /// The work of the packed sets merges replaced, and of the merges.
    retired: MaintenanceStats,
}

impl Default for InEdgeParts {
    fn default() -> Self {
        InEdgeParts {
            main: PackedEdges::default(),
            log: BlockChains::new(false),
            logged: 0,
            retired: MaintenanceStats::default(),
        }
    }
}

impl InEdgeParts {
    pub(crate) fn grow(&mut self, vertex_count: usize) {
        self.main.grow(vertex_count);
        self.log.grow(vertex_count);
    }

    /// `v`'s in-degree, both parts.
    #[inline]
    fn degree(&self, v: VertexId) -> u32 {
        crate::vcsr::degree_or_zero(&self.main.degree, v) + self.log.degree_of(v)
    }

    /// Logs the in-edge `v <- src`, merging the log when it is full.
    /// Fails, changing nothing, when `v` has had `2^32` in-edges.
    pub(crate) fn push(&mut self, v: VertexId, src: VertexId) -> Result<()> {
        let pending = u64::from(self.main.next_seq[v as usize]) + u64::from(self.log.degree_of(v));
        if pending >= u64::from(u32::MAX) {
            return Err(Error::InvalidStructure(format!(
                "vertex {v} has had 2^32 in-edge inserts"
            )));
        }
        self.log.push(v, src, 1.0);
        self.logged += 1;
        if self.logged >= LOG_MIN.max(self.main.set.len() / 4) {
            self.merge();
        }
        Ok(())
    }

    /// Rebuilds the packed set from its elements and the log's, vertex by
    /// vertex (the log's after the set's: they are newer), then empties
    /// the log. One pass: the elements come out sorted, so the set's
    /// sort is a check, and it lays them out at the middle of its
    /// density bounds.
    pub(crate) fn merge(&mut self) {
        if self.logged == 0 {
            return;
        }
        let main = &mut self.main;
        let mut elements: Vec<Slot> = Vec::with_capacity(main.set.len() + self.logged);
        for v in 0..main.degree.len() as VertexId {
            elements.push(Slot::sentinel(v));
            elements.extend(main.edges(v));
            let first = main.next_seq[v as usize];
            let logged = self.log.neighbors(v);
            let count = logged.len() as u32;
            // `push` keeps `first + count` below `u32::MAX`.
            elements.extend(logged.zip(first..).map(|(src, seq)| Slot {
                src: v,
                seq,
                dst: src,
                weight: 1.0f32.to_bits(),
            }));
            main.next_seq[v as usize] = first + count;
            main.degree[v as usize] += count;
        }
        let before = main.maintenance();
        self.retired.rebalances += before.rebalances;
        self.retired.resizes += before.resizes + 1;
        self.retired.elements_moved += before.elements_moved + elements.len() as u64;
        main.set = match PackedSet::from_iter_with(*main.set.config(), elements) {
            Ok(set) => set,
            Err(_) => unreachable!("the configuration was valid when the set was built"),
        };
        main.reindex();
        self.log.clear();
        self.logged = 0;
    }

    /// Removes the oldest in-edge `v <- src`: in the merged set if it is
    /// there (older than anything logged), else in the log.
    pub(crate) fn remove(&mut self, v: VertexId, src: VertexId) -> bool {
        if let Some(slot) = self.main.find(v, src) {
            self.main.remove(v, &slot);
            true
        } else if let Some(found) = self.log.find(v, src) {
            self.log.remove(v, found);
            self.logged -= 1;
            true
        } else {
            false
        }
    }

    /// Both parts' work, and the merges'.
    pub(crate) fn maintenance(&self) -> MaintenanceStats {
        let now = self.main.maintenance();
        MaintenanceStats {
            rebalances: self.retired.rebalances + now.rebalances,
            elements_moved: self.retired.elements_moved + now.elements_moved,
            resizes: self.retired.resizes + now.resizes,
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.main.memory_bytes() + self.log.memory_bytes()
    }

    /// Checks the log against its count and returns its edges (the packed
    /// set is checked by `Pcsr::validate`).
    pub(crate) fn validate_log(&self) -> Result<u64> {
        let mut total = 0u64;
        for v in 0..self.main.degree.len() as VertexId {
            let listed = self.log.neighbors(v).count() as u64;
            if listed != u64::from(self.log.degree_of(v)) {
                return Err(Error::InvalidStructure(format!(
                    "in-edge log: vertex {v} lists {listed} edges, degree {}",
                    self.log.degree_of(v)
                )));
            }
            total += listed;
        }
        if total != self.logged as u64 {
            return Err(Error::InvalidStructure(format!(
                "in-edge log holds {total} edges, counted {}",
                self.logged
            )));
        }
        Ok(total)
    }
}

/// The in-edges of a [`Pcsr`](crate::Pcsr) built with them: what
/// [`InEdges::in_edges`](dyngraph_core::InEdges::in_edges) returns, a `Copy`
/// handle.
#[derive(Clone, Copy, Debug)]
pub struct PcsrInEdges<'a>(pub(crate) &'a InEdgeParts);

impl<'a> InNeighbors for PcsrInEdges<'a> {
    type InIter = PcsrInNeighbors<'a>;

    #[inline]
    fn in_degree(self, v: VertexId) -> u64 {
        u64::from(self.0.degree(v))
    }

    #[inline]
    fn in_neighbors(self, v: VertexId) -> PcsrInNeighbors<'a> {
        PcsrInNeighbors {
            merged: PcsrNeighbors(self.0.main.checked_edges(v)),
            logged: self.0.log.neighbors(v),
        }
    }
}

/// In-neighbours of one vertex of a [`Pcsr`](crate::Pcsr), in insertion
/// order: those merged into the packed set, then those still in the log.
#[derive(Clone, Debug)]
pub struct PcsrInNeighbors<'a> {
    merged: PcsrNeighbors<'a>,
    logged: BalNeighbors<'a>,
}

impl Iterator for PcsrInNeighbors<'_> {
    type Item = VertexId;

    #[inline]
    fn next(&mut self) -> Option<VertexId> {
        self.merged.next().or_else(|| self.logged.next())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (merged, _) = self.merged.size_hint();
        let logged = self.logged.len();
        (merged + logged, Some(merged + logged))
    }

    #[inline]
    fn fold<B, F: FnMut(B, VertexId) -> B>(self, init: B, mut f: F) -> B {
        let acc = self.merged.fold(init, &mut f);
        self.logged.fold(acc, f)
    }
}
