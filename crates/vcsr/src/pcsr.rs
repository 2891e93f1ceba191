//! `Pcsr`: packed CSR after Wheatman and Xu, the edge-centric baseline.

use crate::batch::{add_vertices_end, batch_vertex_count, insert_each};
use crate::cow_registry::CowRegistry;
use dyngraph_core::{
    Capability, EdgeSource, EdgeWeights, Error, Graph, GraphStore, GraphUpdate, InEdges,
    InNeighbors, MaintenanceStats, Result, Semantics, StoreOptions, UpdateReport, VertexId, Weight,
    WeightedNeighbors, check_limit,
};
use dyngraph_pma::{PackedSet, PmaStats};
use std::ops::Range;

/// The sentinel's `dst`: it is never an edge's destination because it is
/// never a valid id (ids are below the vertex limit, at most `u32::MAX`).
const SENTINEL: VertexId = VertexId::MAX;

/// One element of the packed set: an edge keyed by `(src, seq)`, where
/// `seq` is the edge's insertion number within its source (from 1; 0 is
/// the vertex's sentinel). Ordering by it keeps each vertex's edges in
/// insertion order, and a new edge's key is the largest of its vertex, so
/// it lands right after the vertex's last edge (the VCSR authors' variant
/// of PCSR, which appends instead of keeping destinations sorted). The
/// weight rides along as bits (`f32` is not `Ord`); it never decides the
/// order because `(src, seq)` is unique.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Slot {
    src: VertexId,
    seq: u32,
    dst: VertexId,
    weight: u32,
}

impl Slot {
    fn sentinel(v: VertexId) -> Self {
        Slot {
            src: v,
            seq: 0,
            dst: SENTINEL,
            weight: 0,
        }
    }

    /// The key range of `v`'s edges (its sentinel excluded).
    fn edges_of(v: VertexId) -> std::ops::Range<Slot> {
        Slot {
            src: v,
            seq: 1,
            dst: 0,
            weight: 0,
        }..Slot::sentinel(v + 1)
    }
}

/// Edges of one direction: the packed set, per-vertex degrees, the next
/// insertion number of each vertex, and the slot of each vertex's
/// sentinel (C++ PCSR's vertex array): kept up to date after every change
/// from the slots the set reports as changed, so a scan starts at its
/// vertex without a search.
#[derive(Clone, Debug, Default)]
struct PackedEdges {
    set: PackedSet<Slot>,
    degree: Vec<u32>,
    next_seq: Vec<u32>,
    sentinel_slot: Vec<usize>,
}

impl PackedEdges {
    fn grow(&mut self, vertex_count: usize) {
        if vertex_count <= self.degree.len() {
            return;
        }
        let first_new = self.degree.len();
        self.degree.resize(vertex_count, 0);
        self.next_seq.resize(vertex_count, 1);
        self.sentinel_slot.resize(vertex_count, 0);
        for v in first_new..vertex_count {
            // The largest element yet: it goes after every other.
            self.set.insert_before(None, Slot::sentinel(v as VertexId));
            self.set.take_changed();
            // Each appended sentinel may move the others (vertices below
            // `v`): follow them, then index the new one.
            self.follow_moves(v, v);
            self.sentinel_slot[v] = self.set.last_insert_moves().1;
        }
    }

    /// Re-reads the sentinel positions in the slots the set changed.
    #[inline]
    fn reindex(&mut self) {
        if let Some(changed) = self.set.take_changed() {
            for (first, elements) in self.set.slices_in(changed) {
                for (i, element) in elements.iter().enumerate() {
                    if element.seq == 0 {
                        self.sentinel_slot[element.src as usize] = first + i;
                    }
                }
            }
        }
    }

    /// Moves the sentinel index along with the last insert of an edge (not
    /// a sentinel). `near` is a vertex whose sentinel was at or after the
    /// insert's place (the next vertex of the edge's source), and the
    /// sentinels of vertices `0..indexed` are in the index.
    ///
    /// Sentinel slots increase with the vertex, so the sentinels the
    /// insert moved are those of a run of vertices: found by walking back
    /// from `near` to the first moved slot, then followed move by move.
    /// This costs one step per sentinel in the moved slots and one per
    /// move, where re-reading every moved element for sentinels
    /// ([`PackedEdges::reindex`]) cost one per element, a third of the
    /// insert time at a few edges per vertex (perf, sx-mathoverflow).
    #[inline]
    fn follow_moves(&mut self, near: usize, indexed: usize) {
        let (moves, _) = self.set.last_insert_moves();
        let mut moves = moves.peekable();
        let Some(first) = moves.peek().map(|m| m.src) else {
            return;
        };
        let index = &mut self.sentinel_slot;
        let n = indexed;
        let mut v = near.min(n);
        while v > 0 && index[v - 1] >= first {
            v -= 1;
        }
        while v < n {
            let old = index[v];
            // Skip the moves that end before this sentinel.
            while let Some(m) = moves.peek() {
                if m.src + m.len > old {
                    break;
                }
                moves.next();
            }
            let Some(m) = moves.peek() else {
                break;
            };
            if let Some(new) = m.follow(old) {
                index[v] = new;
            }
            v += 1;
        }
    }

    /// `v`'s edges: from the slot after its sentinel, `degree` elements
    /// over packed leaf prefixes.
    #[inline]
    fn edges(&self, v: VertexId) -> PackedRun<'_> {
        PackedRun {
            iter: self.set.iter_at_slot(self.sentinel_slot[v as usize] + 1),
            remaining: self.degree[v as usize],
        }
    }

    /// The oldest edge `v -> dst`.
    fn find(&self, v: VertexId, dst: VertexId) -> Option<Slot> {
        self.edges(v).find(|slot| slot.dst == dst)
    }

    /// `v`'s edges, for the read traits: none for an id outside the graph
    /// (the contract reads it as isolated).
    #[inline]
    fn checked_edges(&self, v: VertexId) -> PackedRun<'_> {
        if v as usize >= self.degree.len() {
            return PackedRun {
                iter: self.set.iter_at_slot(0),
                remaining: 0,
            };
        }
        self.edges(v)
    }

    fn push(&mut self, v: VertexId, dst: VertexId, weight: Weight) -> Result<()> {
        let seq = self.next_seq[v as usize];
        self.next_seq[v as usize] = seq
            .checked_add(1)
            .ok_or_else(|| Error::InvalidStructure(format!("vertex {v} has had 2^32 inserts")))?;
        // The largest key of `v`: it goes right before the next vertex's
        // sentinel (after every element for the last vertex), a place the
        // sentinel index gives without a search.
        let next = self.sentinel_slot.get(v as usize + 1).copied();
        let inserted = self.set.insert_before(
            next,
            Slot {
                src: v,
                seq,
                dst,
                weight: weight.to_bits(),
            },
        );
        debug_assert!(inserted, "(src, seq) keys are unique");
        // The moves say which sentinels moved; the changed range is not
        // needed (taking it resets it for the next remove).
        self.set.take_changed();
        self.follow_moves(v as usize + 1, self.degree.len());
        self.degree[v as usize] += 1;
        Ok(())
    }

    /// Removes `slot`, an edge of `v` found by [`PackedEdges::find`].
    fn remove(&mut self, v: VertexId, slot: &Slot) {
        let removed = self.set.remove(slot);
        debug_assert!(removed, "the slot was just found");
        self.reindex();
        self.degree[v as usize] -= 1;
    }

    /// The pma's work, for [`GraphStore::maintenance`].
    fn maintenance(&self) -> MaintenanceStats {
        let stats = self.set.stats();
        MaintenanceStats {
            rebalances: stats.rebalances(),
            elements_moved: stats.elements_moved,
            resizes: stats.resizes(),
        }
    }

    fn memory_bytes(&self) -> usize {
        self.set.memory_bytes()
            + (self.degree.capacity() + self.next_seq.capacity()) * 4
            + self.sentinel_slot.capacity() * std::mem::size_of::<usize>()
    }
}

/// One vertex's edges in the packed set: `remaining` elements from a
/// position, walked a packed leaf prefix at a time.
#[derive(Clone, Debug)]
struct PackedRun<'a> {
    iter: dyngraph_pma::Iter<'a, Slot>,
    remaining: u32,
}

impl Iterator for PackedRun<'_> {
    type Item = Slot;

    #[inline]
    fn next(&mut self) -> Option<Slot> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        self.iter.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }

    /// Whole leaf prefixes at a time: a tight loop per slice, gaps skipped
    /// per leaf, not tested per slot.
    #[inline]
    fn fold<B, F: FnMut(B, Slot) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        while self.remaining > 0 {
            let Some(slice) = self.iter.next_slice() else {
                break;
            };
            let take = slice.len().min(self.remaining as usize);
            for &slot in &slice[..take] {
                acc = f(acc, slot);
            }
            self.remaining -= take as u32;
        }
        acc
    }
}

/// PCSR (Wheatman and Xu, HPEC 2018) as described in the VCSR paper
/// §II-B/C: every edge is an element of one packed-memory array ordered by
/// source, with a sentinel element per vertex, fixed-size leaf sections
/// and gaps spread evenly ([`dyngraph_pma::PackedSet`]).
///
/// This is the VCSR authors' improved variant: edges of a vertex are kept
/// in insertion order (keyed by a per-vertex sequence number), so a new
/// edge goes right after the vertex's last edge instead of into its
/// destination-sorted place. That place is right before the next
/// vertex's sentinel, so no search finds it (C++ PCSR's `nodes[src].end`):
/// the slot of every vertex's sentinel is kept per vertex, from the slots
/// the set reports as changed, and reads start there too.
///
/// In-edges and weights are options ([`StoreOptions`]), read through
/// [`InEdges::in_edges`] ([`PcsrInEdges`]) and [`EdgeWeights::edge_weights`]
/// ([`PcsrWeights`]), which fail with [`Error::MissingCapability`] on a
/// graph built without them.
///
/// # Cost model
/// - Insert: `O(1)` to find the place plus at most a leaf of moves, or a
///   redistribution of the smallest window within its (even) density
///   bounds, amortized `O(log² N)` moves. Under [`Semantics::Simple`] the
///   duplicate check walks the source's edges first. A batch (and
///   [`FromEdges::from_edges`](dyngraph_core::FromEdges::from_edges)) inserts its edges one by one, read in
///   place.
/// - Delete: `O(log N + degree)` to find the oldest occurrence, then a
///   physical removal (no tombstones).
/// - Scan: `O(1)` to find a vertex's first edge (the slot of its
///   sentinel is kept per vertex, as C++ PCSR's vertex array: after each
///   change the slots the pma moved are re-read for sentinels, which costs
///   no more than the moves), then `degree` elements over packed leaf
///   prefixes, each leaf's gap skipped in one step. Each element carries
///   its source and sequence number, so a scan reads 4× the bytes of CSR.
/// - Memory: 16 bytes per element (source, sequence number, destination,
///   weight), one sentinel element per vertex, at a density between the
///   pma's root bounds; plus 16 bytes per vertex. Doubled by in-edges.
/// - Snapshot: copy-before-write ([`dyngraph_core::cow`]). Taking one is
///   two bitmaps of `V / 8` bytes; afterwards the first change of each
///   vertex's out-list (and, with in-edges, in-list) copies that list once
///   into the snapshot (`O(degree)`, 4 bytes per edge, 8 with weights),
///   later changes to it cost a bit test. Rebalances and resizes move
///   elements without changing any list, so they copy nothing. A view
///   reads saved lists where there are some and the live graph elsewhere.
///   With no snapshot alive a change pays one atomic load.
///
/// ```
/// use dyngraph_core::{GraphUpdate, OutNeighbors, Semantics, StoreOptions};
/// use dyngraph_vcsr::Pcsr;
/// let mut pcsr = Pcsr::new(StoreOptions::new(Semantics::Simple))?;
/// assert!(pcsr.insert_edge(2, 7)?);
/// assert!(!pcsr.insert_edge(2, 7)?); // simple graph: already there
/// pcsr.insert_edge(2, 1)?;
/// assert_eq!(pcsr.out_neighbors(2).collect::<Vec<_>>(), [7, 1]); // insertion order
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Pcsr {
    out: PackedEdges,
    incoming: Option<PackedEdges>,
    weighted: bool,
    semantics: Semantics,
    edge_count: u64,
    vertex_limit: usize,
    /// Told of every list change before it happens; a clone starts a
    /// fresh one.
    snapshots: CowRegistry,
}

impl Pcsr {
    /// An empty graph. Refuses a vertex limit past `u32::MAX` (the
    /// sentinel's destination).
    pub fn new(options: StoreOptions) -> Result<Self> {
        if options.vertex_limit as u64 > u64::from(SENTINEL) {
            return Err(Error::InvalidArgument(format!(
                "vertex limit {} exceeds PCSR's {}",
                options.vertex_limit, SENTINEL
            )));
        }
        Ok(Pcsr {
            out: PackedEdges::default(),
            incoming: options.in_edges.then(PackedEdges::default),
            weighted: options.weighted,
            semantics: options.semantics,
            edge_count: 0,
            vertex_limit: options.vertex_limit,
            snapshots: CowRegistry::default(),
        })
    }

    /// Whether `src -> dst` exists. `O(log N + degree(src))`.
    pub fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        (src as usize) < self.vertex_count() && self.out.find(src, dst).is_some()
    }

    /// The out-edge array's pma counters.
    pub fn stats(&self) -> &PmaStats {
        self.out.set.stats()
    }

    /// The in-edge array's pma counters, when kept.
    pub fn in_edge_stats(&self) -> Option<&PmaStats> {
        self.incoming.as_ref().map(|edges| edges.set.stats())
    }

    /// Elements in the out-edge array over its slots.
    pub fn density(&self) -> f64 {
        self.out.set.density()
    }

    /// Snapshots of this graph alive now.
    pub fn live_snapshots(&self) -> usize {
        self.snapshots.live_snapshots()
    }

    /// Heap bytes held, capacity included (the lists saved by snapshots
    /// are the snapshots' memory: [`CowSnapshot::memory_bytes`](dyngraph_core::cow::CowSnapshot::memory_bytes)).
    pub fn memory_bytes(&self) -> usize {
        self.out.memory_bytes() + self.incoming.as_ref().map_or(0, PackedEdges::memory_bytes)
    }

    /// Checks the pma invariants and that degrees, sentinels, the sentinel
    /// index and the edge count agree with the set. For tests; `O(N)`.
    pub fn validate(&self) -> Result<()> {
        fn check(edges: &PackedEdges, what: &str) -> Result<u64> {
            edges
                .set
                .validate()
                .map_err(|e| Error::InvalidStructure(format!("{what}: {e}")))?;
            let mut total = 0;
            for v in 0..edges.degree.len() as VertexId {
                if !edges.set.contains(&Slot::sentinel(v)) {
                    return Err(Error::InvalidStructure(format!(
                        "{what}: no sentinel for {v}"
                    )));
                }
                // Counted by a search, independently of the sentinel index.
                let count = edges.set.range(Slot::edges_of(v)).count() as u64;
                let slot = edges.sentinel_slot[v as usize];
                let indexed = edges.set.iter_at_slot(slot).next();
                if indexed != Some(Slot::sentinel(v)) {
                    return Err(Error::InvalidStructure(format!(
                        "{what}: the sentinel index of {v} points at {indexed:?}"
                    )));
                }
                if !edges.edges(v).eq(edges.set.range(Slot::edges_of(v))) {
                    return Err(Error::InvalidStructure(format!(
                        "{what}: vertex {v}'s indexed edges differ from its range"
                    )));
                }
                if count != u64::from(edges.degree[v as usize]) {
                    return Err(Error::InvalidStructure(format!(
                        "{what}: vertex {v} has {count} edges, degree {}",
                        edges.degree[v as usize]
                    )));
                }
                total += count;
            }
            if edges.set.len() as u64 != total + edges.degree.len() as u64 {
                return Err(Error::InvalidStructure(format!(
                    "{what}: elements outside every vertex"
                )));
            }
            Ok(total)
        }
        let total = check(&self.out, "out-edges")?;
        let in_total = match &self.incoming {
            Some(incoming) => check(incoming, "in-edges")?,
            None => total,
        };
        if total != self.edge_count || in_total != self.edge_count {
            return Err(Error::InvalidStructure(format!(
                "edge count {} but {total} out-edges and {in_total} in-edges",
                self.edge_count
            )));
        }
        Ok(())
    }

    fn grow(&mut self, vertex_count: usize) {
        self.out.grow(vertex_count);
        if let Some(incoming) = &mut self.incoming {
            incoming.grow(vertex_count);
        }
    }

    /// Inserts after the limit check and growth.
    fn insert_checked(&mut self, src: VertexId, dst: VertexId, weight: Weight) -> Result<bool> {
        if self.semantics == Semantics::Simple && self.out.find(src, dst).is_some() {
            return Ok(false);
        }
        self.snapshots.before_out_change(&*self, src);
        if self.incoming.is_some() {
            self.snapshots.before_in_change(&*self, dst);
        }
        let weight = if self.weighted { weight } else { 1.0 };
        self.out.push(src, dst, weight)?;
        if let Some(incoming) = &mut self.incoming {
            incoming.push(dst, src, 1.0)?;
        }
        self.edge_count += 1;
        Ok(true)
    }
}

/// Neighbours of one vertex of a [`Pcsr`], in insertion order.
#[derive(Clone, Debug)]
pub struct PcsrNeighbors<'a>(PackedRun<'a>);

impl Iterator for PcsrNeighbors<'_> {
    type Item = VertexId;

    #[inline]
    fn next(&mut self) -> Option<VertexId> {
        self.0.next().map(|slot| slot.dst)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }

    #[inline]
    fn fold<B, F: FnMut(B, VertexId) -> B>(self, init: B, mut f: F) -> B {
        self.0.fold(init, |acc, slot| f(acc, slot.dst))
    }
}

/// `(neighbour, weight)` of one vertex of a weighted [`Pcsr`].
#[derive(Clone, Debug)]
pub struct PcsrWeightedNeighbors<'a>(PackedRun<'a>);

impl Iterator for PcsrWeightedNeighbors<'_> {
    type Item = (VertexId, Weight);

    #[inline]
    fn next(&mut self) -> Option<(VertexId, Weight)> {
        self.0
            .next()
            .map(|slot| (slot.dst, Weight::from_bits(slot.weight)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }

    #[inline]
    fn fold<B, F: FnMut(B, (VertexId, Weight)) -> B>(self, init: B, mut f: F) -> B {
        self.0.fold(init, |acc, slot| {
            f(acc, (slot.dst, Weight::from_bits(slot.weight)))
        })
    }
}

/// The in-edges of a [`Pcsr`] built with them: what [`InEdges::in_edges`]
/// returns, a `Copy` handle.
#[derive(Clone, Copy, Debug)]
pub struct PcsrInEdges<'a>(&'a PackedEdges);

impl<'a> InNeighbors for PcsrInEdges<'a> {
    type InIter = PcsrNeighbors<'a>;

    #[inline]
    fn in_degree(self, v: VertexId) -> u64 {
        u64::from(crate::vcsr::degree_or_zero(&self.0.degree, v))
    }

    #[inline]
    fn in_neighbors(self, v: VertexId) -> PcsrNeighbors<'a> {
        PcsrNeighbors(self.0.checked_edges(v))
    }
}

/// The weighted out-edges of a weighted [`Pcsr`]: what
/// [`EdgeWeights::edge_weights`] returns, a `Copy` handle.
#[derive(Clone, Copy, Debug)]
pub struct PcsrWeights<'a>(&'a PackedEdges);

impl<'a> WeightedNeighbors for PcsrWeights<'a> {
    type WeightedIter = PcsrWeightedNeighbors<'a>;

    #[inline]
    fn out_neighbors_weighted(self, v: VertexId) -> PcsrWeightedNeighbors<'a> {
        PcsrWeightedNeighbors(self.0.checked_edges(v))
    }
}

impl InEdges for Pcsr {
    type InHandle<'a> = PcsrInEdges<'a>;

    #[inline]
    fn in_edges(&self) -> Result<PcsrInEdges<'_>> {
        match &self.incoming {
            Some(incoming) => Ok(PcsrInEdges(incoming)),
            None => Err(Error::missing("Pcsr", Capability::InEdges)),
        }
    }
}

impl EdgeWeights for Pcsr {
    type WeightHandle<'a> = PcsrWeights<'a>;

    #[inline]
    fn edge_weights(&self) -> Result<PcsrWeights<'_>> {
        if self.weighted {
            Ok(PcsrWeights(&self.out))
        } else {
            Err(Error::missing("Pcsr", Capability::Weights))
        }
    }
}

impl GraphUpdate for Pcsr {
    fn insert_weighted_edge(
        &mut self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) -> Result<bool> {
        check_limit(self.vertex_limit, [src, dst])?;
        self.grow(src.max(dst) as usize + 1);
        self.insert_checked(src, dst, weight)
    }

    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        let n = self.vertex_count();
        if src as usize >= n || dst as usize >= n {
            return Ok(false);
        }
        let Some(slot) = self.out.find(src, dst) else {
            return Ok(false);
        };
        self.snapshots.before_out_change(&*self, src);
        if self.incoming.is_some() {
            self.snapshots.before_in_change(&*self, dst);
        }
        self.out.remove(src, &slot);
        if let Some(incoming) = &mut self.incoming {
            let slot = incoming.find(dst, src).ok_or_else(|| {
                Error::InvalidStructure(format!("in-edge {dst} <- {src} missing"))
            })?;
            incoming.remove(dst, &slot);
        }
        self.edge_count -= 1;
        Ok(true)
    }

    /// One edge at a time, in order, read in place; every id is checked
    /// before anything changes.
    fn insert_edges<E: EdgeSource + ?Sized>(&mut self, edges: &E) -> Result<UpdateReport> {
        let Some(vertex_count) = batch_vertex_count(edges, self.vertex_limit)? else {
            return Ok(UpdateReport::default());
        };
        self.grow(vertex_count);
        insert_each(edges, |src, dst, weight| {
            self.insert_checked(src, dst, weight)
        })
    }

    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        let start = self.vertex_count();
        let end = add_vertices_end(start, count, self.vertex_limit)?;
        self.grow(end);
        Ok(start as VertexId..end as VertexId)
    }

    fn vertex_limit(&self) -> usize {
        self.vertex_limit
    }
}

crate::cow_registry::cow_store!(Pcsr, PcsrNeighbors, |graph, v| PcsrNeighbors(
    graph.out.checked_edges(v)
));

impl GraphStore for Pcsr {
    const NAME: &'static str = "Pcsr";
    const CAPABILITIES: dyngraph_core::Capabilities = dyngraph_core::Capabilities::IN_MEMORY;

    fn memory_bytes(&self) -> usize {
        Pcsr::memory_bytes(self)
    }

    /// Both packed sets' rebalances (all levels), elements moved (shifts
    /// inside a leaf included) and resizes.
    fn maintenance(&self) -> Option<MaintenanceStats> {
        let mut total = self.out.maintenance();
        if let Some(incoming) = &self.incoming {
            let more = incoming.maintenance();
            total.rebalances += more.rebalances;
            total.elements_moved += more.elements_moved;
            total.resizes += more.resizes;
        }
        Some(total)
    }
}

/// An empty multigraph with the default options (which always build).
impl Default for Pcsr {
    fn default() -> Self {
        Self::new(StoreOptions::default()).expect("the default options build an empty Pcsr")
    }
}
