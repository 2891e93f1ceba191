//! `Pcsr`: packed CSR after Wheatman and Xu, the edge-centric baseline.

use crate::StoreOptions;
use crate::bal::add_vertices_end;
use dyngraph_core::{
    Edge, Error, Graph, GraphUpdate, InNeighbors, OutNeighbors, Result, Semantics, UpdateReport,
    VertexId, Weight, WeightedEdge, WeightedOutNeighbors, check_limit,
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

/// Edges of one direction: the packed set, per-vertex degrees and the next
/// insertion number of each vertex.
#[derive(Clone, Debug, Default)]
struct PackedEdges {
    set: PackedSet<Slot>,
    degree: Vec<u32>,
    next_seq: Vec<u32>,
}

impl PackedEdges {
    fn grow(&mut self, vertex_count: usize) {
        if vertex_count <= self.degree.len() {
            return;
        }
        for v in self.degree.len()..vertex_count {
            self.set.insert(Slot::sentinel(v as VertexId));
        }
        self.degree.resize(vertex_count, 0);
        self.next_seq.resize(vertex_count, 1);
    }

    fn edges(&self, v: VertexId) -> dyngraph_pma::Range<'_, Slot> {
        self.set.range(Slot::edges_of(v))
    }

    fn find(&self, v: VertexId, dst: VertexId) -> Option<Slot> {
        self.edges(v).find(|slot| slot.dst == dst)
    }

    fn push(&mut self, v: VertexId, dst: VertexId, weight: Weight) -> Result<()> {
        let seq = self.next_seq[v as usize];
        self.next_seq[v as usize] = seq
            .checked_add(1)
            .ok_or_else(|| Error::InvalidStructure(format!("vertex {v} has had 2^32 inserts")))?;
        let inserted = self.set.insert(Slot {
            src: v,
            seq,
            dst,
            weight: weight.to_bits(),
        });
        debug_assert!(inserted, "(src, seq) keys are unique");
        self.degree[v as usize] += 1;
        Ok(())
    }

    fn remove_first(&mut self, v: VertexId, dst: VertexId) -> bool {
        match self.find(v, dst) {
            Some(slot) => {
                self.set.remove(&slot);
                self.degree[v as usize] -= 1;
                true
            }
            None => false,
        }
    }

    fn memory_bytes(&self) -> usize {
        self.set.memory_bytes() + (self.degree.capacity() + self.next_seq.capacity()) * 4
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
/// destination-sorted place. Locating that place is still a binary search
/// over the leaves; there is no separate vertex array of slot pointers,
/// since the generic set moves elements without telling its owner.
///
/// # Cost model
/// - Insert: `O(log N)` search plus at most a leaf of moves, or a
///   redistribution of the smallest window within its (even) density
///   bounds, amortized `O(log² N)` moves. Under [`Semantics::Simple`] the
///   duplicate check walks the source's edges first.
/// - Delete: `O(log N + degree)` to find the oldest occurrence, then a
///   physical removal (no tombstones).
/// - Scan: `O(log N)` to find a vertex's first edge, then a walk over
///   packed leaf prefixes; a high-degree vertex's edges span leaves, and
///   each element carries its source, so a scan reads 4× the bytes of CSR.
/// - Memory: 16 bytes per element (source, sequence number, destination,
///   weight), one sentinel element per vertex, at a density between the
///   pma's root bounds; plus 8 bytes per vertex. Doubled by in-edges.
///
/// ```
/// use dyngraph_core::{GraphUpdate, OutNeighbors, Semantics};
/// use dyngraph_vcsr::{Pcsr, StoreOptions};
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

    /// Heap bytes held, capacity included.
    pub fn memory_bytes(&self) -> usize {
        self.out.memory_bytes() + self.incoming.as_ref().map_or(0, PackedEdges::memory_bytes)
    }

    /// Checks the pma invariants and that degrees, sentinels and the edge
    /// count agree with the set. For tests; `O(N)`.
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
                let count = edges.edges(v).count() as u64;
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

    fn insert_checked(&mut self, src: VertexId, dst: VertexId, weight: Weight) -> Result<bool> {
        if self.semantics == Semantics::Simple && self.out.find(src, dst).is_some() {
            return Ok(false);
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
pub struct PcsrNeighbors<'a>(dyngraph_pma::Range<'a, Slot>);

impl Iterator for PcsrNeighbors<'_> {
    type Item = VertexId;

    #[inline]
    fn next(&mut self) -> Option<VertexId> {
        self.0.next().map(|slot| slot.dst)
    }
}

/// `(neighbour, weight)` of one vertex of a [`Pcsr`].
#[derive(Clone, Debug)]
pub struct PcsrWeightedNeighbors<'a>(dyngraph_pma::Range<'a, Slot>);

impl Iterator for PcsrWeightedNeighbors<'_> {
    type Item = (VertexId, Weight);

    #[inline]
    fn next(&mut self) -> Option<(VertexId, Weight)> {
        self.0
            .next()
            .map(|slot| (slot.dst, Weight::from_bits(slot.weight)))
    }
}

impl Graph for Pcsr {
    fn vertex_count(&self) -> usize {
        self.out.degree.len()
    }

    fn edge_count(&self) -> u64 {
        self.edge_count
    }

    fn semantics(&self) -> Semantics {
        self.semantics
    }
}

impl OutNeighbors for Pcsr {
    type OutNeighbors<'a> = PcsrNeighbors<'a>;

    #[inline]
    fn out_degree(&self, v: VertexId) -> u64 {
        u64::from(self.out.degree[v as usize])
    }

    #[inline]
    fn out_neighbors(&self, v: VertexId) -> PcsrNeighbors<'_> {
        assert!(
            (v as usize) < self.vertex_count(),
            "vertex {v} out of range"
        );
        PcsrNeighbors(self.out.edges(v))
    }
}

impl WeightedOutNeighbors for Pcsr {
    type WeightedOutNeighbors<'a> = PcsrWeightedNeighbors<'a>;

    fn has_weights(&self) -> bool {
        self.weighted
    }

    fn out_neighbors_weighted(&self, v: VertexId) -> PcsrWeightedNeighbors<'_> {
        assert!(
            (v as usize) < self.vertex_count(),
            "vertex {v} out of range"
        );
        PcsrWeightedNeighbors(self.out.edges(v))
    }
}

impl InNeighbors for Pcsr {
    type InNeighbors<'a> = PcsrNeighbors<'a>;

    fn has_in_edges(&self) -> bool {
        self.incoming.is_some()
    }

    #[inline]
    fn in_degree(&self, v: VertexId) -> u64 {
        assert!(
            (v as usize) < self.vertex_count(),
            "vertex {v} out of range"
        );
        self.incoming
            .as_ref()
            .map_or(0, |edges| u64::from(edges.degree[v as usize]))
    }

    #[inline]
    fn in_neighbors(&self, v: VertexId) -> PcsrNeighbors<'_> {
        assert!(
            (v as usize) < self.vertex_count(),
            "vertex {v} out of range"
        );
        // Without in-edges: an empty range of the out-edge set.
        let edges = self.incoming.as_ref().unwrap_or(&self.out);
        let range = if self.incoming.is_some() {
            Slot::edges_of(v)
        } else {
            Slot::sentinel(v)..Slot::sentinel(v)
        };
        PcsrNeighbors(edges.set.range(range))
    }
}

impl GraphUpdate for Pcsr {
    fn insert_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.insert_weighted_edge(src, dst, 1.0)
    }

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
        if src as usize >= n || dst as usize >= n || !self.out.remove_first(src, dst) {
            return Ok(false);
        }
        if let Some(incoming) = &mut self.incoming {
            let removed = incoming.remove_first(dst, src);
            debug_assert!(removed, "in-edges out of step with out-edges");
        }
        self.edge_count -= 1;
        Ok(true)
    }

    fn insert_edges(&mut self, edges: &[Edge]) -> Result<UpdateReport> {
        let weighted: Vec<WeightedEdge> = edges
            .iter()
            .map(|e| WeightedEdge::new(e.src, e.dst, 1.0))
            .collect();
        self.insert_weighted_edges(&weighted)
    }

    fn insert_weighted_edges(&mut self, edges: &[WeightedEdge]) -> Result<UpdateReport> {
        let Some(max) = edges.iter().map(|e| e.src.max(e.dst)).max() else {
            return Ok(UpdateReport::default());
        };
        check_limit(self.vertex_limit, [max])?;
        self.grow(max as usize + 1);
        let mut report = UpdateReport::default();
        for edge in edges {
            report.edges_added +=
                u64::from(self.insert_checked(edge.src, edge.dst, edge.weight)?);
        }
        Ok(report)
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
