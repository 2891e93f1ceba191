//! `Bal`: the blocked adjacency list baseline of the VCSR paper (§V-A).
//!
//! Each vertex owns a chain of blocks. Every block of a chain except the
//! last is full, so a vertex's edges are its blocks read in chain order, in
//! insertion order. Blocks grow with the chain, from [`FIRST_BLOCK_EDGES`]
//! to the paper's [`BLOCK_EDGES`]: a new block holds as many edges as the
//! vertex already has (within those bounds).

use crate::batch::{add_vertices_end, batch_vertex_count, insert_each};
use crate::cow_registry::CowRegistry;
use dyngraph_core::{
    Capability, EdgeSource, EdgeWeights, Error, Graph, GraphStore, GraphUpdate, InEdges,
    InNeighbors, Result, Semantics, StoreOptions, UpdateReport, VertexId, Weight,
    WeightedNeighbors, check_limit,
};
use std::ops::Range;

/// Edges per block once a chain is long, the paper's value.
pub const BLOCK_EDGES: usize = 512;

/// Edges in a vertex's first block. Blocks double from here to
/// [`BLOCK_EDGES`]: a whole 512-edge block per vertex made most of the
/// memory of a sparse graph empty slots (360 bytes per edge on
/// sx-mathoverflow, weighted), and writing and faulting in those pages was
/// half of the insert time.
pub const FIRST_BLOCK_EDGES: usize = 8;

/// Block sizes: `FIRST_BLOCK_EDGES << class` for `class < SIZE_CLASSES`.
const SIZE_CLASSES: usize = (BLOCK_EDGES / FIRST_BLOCK_EDGES).trailing_zeros() as usize + 1;

/// "No block" in a chain link.
const NO_BLOCK: u32 = u32::MAX;

/// The size class of the block that follows a chain of `degree` edges:
/// as many edges as the chain holds, between the first and the largest
/// block size.
#[inline]
fn class_after(degree: usize) -> u8 {
    let edges = degree
        .clamp(FIRST_BLOCK_EDGES, BLOCK_EDGES)
        .next_power_of_two();
    (edges / FIRST_BLOCK_EDGES).trailing_zeros() as u8
}

/// Per-vertex chains of blocks, for one direction of the edges.
///
/// Blocks live in one arena (`targets`, and `weights` when kept), block `b`
/// at `start[b]..start[b] + capacity`; freed blocks are reused (by size
/// class) before the arena grows.
#[derive(Clone, Debug, Default)]
struct BlockChains {
    head: Vec<u32>,
    tail: Vec<u32>,
    degree: Vec<u32>,
    targets: Vec<VertexId>,
    weights: Option<Vec<Weight>>,
    start: Vec<usize>,
    class: Vec<u8>,
    fill: Vec<u16>,
    next: Vec<u32>,
    free: [Vec<u32>; SIZE_CLASSES],
}

impl BlockChains {
    fn new(weighted: bool) -> Self {
        Self {
            weights: weighted.then(Vec::new),
            ..Self::default()
        }
    }

    fn grow(&mut self, vertex_count: usize) {
        if vertex_count > self.head.len() {
            self.head.resize(vertex_count, NO_BLOCK);
            self.tail.resize(vertex_count, NO_BLOCK);
            self.degree.resize(vertex_count, 0);
        }
    }

    #[inline]
    fn capacity(&self, block: u32) -> usize {
        FIRST_BLOCK_EDGES << self.class[block as usize]
    }

    fn allocate_block(&mut self, class: u8) -> u32 {
        if let Some(block) = self.free[class as usize].pop() {
            self.fill[block as usize] = 0;
            self.next[block as usize] = NO_BLOCK;
            return block;
        }
        let block = self.fill.len() as u32;
        let start = self.targets.len();
        self.start.push(start);
        self.class.push(class);
        self.fill.push(0);
        self.next.push(NO_BLOCK);
        let arena_len = start + (FIRST_BLOCK_EDGES << class);
        self.targets.resize(arena_len, 0);
        if let Some(weights) = &mut self.weights {
            weights.resize(arena_len, 0.0);
        }
        block
    }

    #[inline]
    fn block_range(&self, block: u32) -> Range<usize> {
        let base = self.start[block as usize];
        base..base + self.fill[block as usize] as usize
    }

    fn push(&mut self, v: VertexId, target: VertexId, weight: Weight) {
        let v = v as usize;
        let mut block = self.tail[v];
        if block == NO_BLOCK {
            block = self.allocate_block(class_after(0));
            self.head[v] = block;
            self.tail[v] = block;
        } else if self.fill[block as usize] as usize == self.capacity(block) {
            let fresh = self.allocate_block(class_after(self.degree[v] as usize));
            self.next[block as usize] = fresh;
            self.tail[v] = fresh;
            block = fresh;
        }
        let slot = self.start[block as usize] + self.fill[block as usize] as usize;
        self.targets[slot] = target;
        if let Some(weights) = &mut self.weights {
            weights[slot] = weight;
        }
        self.fill[block as usize] += 1;
        self.degree[v] += 1;
    }

    fn contains(&self, v: VertexId, target: VertexId) -> bool {
        self.find(v, target).is_some()
    }

    /// Where the oldest occurrence of `target` in `v`'s chain is.
    fn find(&self, v: VertexId, target: VertexId) -> Option<Found> {
        let mut previous = NO_BLOCK;
        let mut block = self.head[v as usize];
        while block != NO_BLOCK {
            let range = self.block_range(block);
            if let Some(i) = self.targets[range.clone()]
                .iter()
                .position(|&t| t == target)
            {
                return Some(Found {
                    block,
                    previous,
                    slot: range.start + i,
                });
            }
            previous = block;
            block = self.next[block as usize];
        }
        None
    }

    /// Removes the edge `find` located in `v`'s chain, shifting the later
    /// edges down by one so order is kept and only the last block may be
    /// partly filled. `O(degree)`.
    fn remove(&mut self, v: VertexId, found: Found) {
        let v = v as usize;
        let Found {
            mut block,
            mut previous,
            slot: mut hole,
        } = found;
        loop {
            let range = self.block_range(block);
            self.targets.copy_within(hole + 1..range.end, hole);
            if let Some(weights) = &mut self.weights {
                weights.copy_within(hole + 1..range.end, hole);
            }
            let following = self.next[block as usize];
            if following == NO_BLOCK {
                self.fill[block as usize] -= 1;
                if self.fill[block as usize] == 0 {
                    self.free[self.class[block as usize] as usize].push(block);
                    if previous == NO_BLOCK {
                        self.head[v] = NO_BLOCK;
                        self.tail[v] = NO_BLOCK;
                    } else {
                        self.next[previous as usize] = NO_BLOCK;
                        self.tail[v] = previous;
                    }
                }
                break;
            }
            // Pull the first edge of the following block into this full one.
            let first = self.start[following as usize];
            self.targets[range.end - 1] = self.targets[first];
            if let Some(weights) = &mut self.weights {
                weights[range.end - 1] = weights[first];
            }
            previous = block;
            block = following;
            hole = first;
        }
        self.degree[v] -= 1;
    }

    /// The head block of `v`'s chain and its degree; no chain for an id
    /// outside the graph (the contract reads it as isolated).
    #[inline]
    fn head_of(&self, v: VertexId) -> (u32, usize) {
        match (self.head.get(v as usize), self.degree.get(v as usize)) {
            (Some(&head), Some(&degree)) => (head, degree as usize),
            _ => (NO_BLOCK, 0),
        }
    }

    #[inline]
    fn neighbors(&self, v: VertexId) -> BalNeighbors<'_> {
        let (head, remaining) = self.head_of(v);
        let (current, next_block) = if head == NO_BLOCK {
            ([].iter(), NO_BLOCK)
        } else {
            (
                self.targets[self.block_range(head)].iter(),
                self.next[head as usize],
            )
        };
        BalNeighbors {
            chains: self,
            current,
            next_block,
            remaining,
        }
    }

    /// `v`'s edges with their weights (`weights` is this chain's weight
    /// arena).
    #[inline]
    fn weighted_neighbors<'a>(
        &'a self,
        weights: &'a [Weight],
        v: VertexId,
    ) -> BalWeightedNeighbors<'a> {
        let (head, remaining) = self.head_of(v);
        let (current, next_block) = if head == NO_BLOCK {
            (0..0, NO_BLOCK)
        } else {
            (self.block_range(head), self.next[head as usize])
        };
        BalWeightedNeighbors {
            chains: self,
            weights,
            current,
            next_block,
            remaining,
        }
    }

    fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        (self.head.capacity() + self.tail.capacity() + self.degree.capacity()) * size_of::<u32>()
            + self.targets.capacity() * size_of::<VertexId>()
            + self
                .weights
                .as_ref()
                .map_or(0, |w| w.capacity() * size_of::<Weight>())
            + self.start.capacity() * size_of::<usize>()
            + self.class.capacity()
            + self.fill.capacity() * size_of::<u16>()
            + (self.next.capacity() + self.free.iter().map(Vec::capacity).sum::<usize>())
                * size_of::<u32>()
    }
}

/// An edge located in a chain: its block, the block before it (or
/// [`NO_BLOCK`]) and its slot in the arena.
#[derive(Clone, Copy, Debug)]
struct Found {
    block: u32,
    previous: u32,
    slot: usize,
}

/// Neighbours of one vertex of a [`Bal`]: a slice walk per block.
#[derive(Clone, Debug)]
pub struct BalNeighbors<'a> {
    chains: &'a BlockChains,
    current: std::slice::Iter<'a, VertexId>,
    next_block: u32,
    remaining: usize,
}

impl Iterator for BalNeighbors<'_> {
    type Item = VertexId;

    #[inline]
    fn next(&mut self) -> Option<VertexId> {
        loop {
            if let Some(&target) = self.current.next() {
                self.remaining -= 1;
                return Some(target);
            }
            if self.next_block == NO_BLOCK {
                return None;
            }
            let block = self.next_block;
            self.current = self.chains.targets[self.chains.block_range(block)].iter();
            self.next_block = self.chains.next[block as usize];
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for BalNeighbors<'_> {}

/// `(neighbour, weight)` of one vertex of a weighted [`Bal`].
#[derive(Clone, Debug)]
pub struct BalWeightedNeighbors<'a> {
    chains: &'a BlockChains,
    weights: &'a [Weight],
    current: Range<usize>,
    next_block: u32,
    remaining: usize,
}

impl Iterator for BalWeightedNeighbors<'_> {
    type Item = (VertexId, Weight);

    #[inline]
    fn next(&mut self) -> Option<(VertexId, Weight)> {
        loop {
            if let Some(slot) = self.current.next() {
                self.remaining -= 1;
                return Some((self.chains.targets[slot], self.weights[slot]));
            }
            if self.next_block == NO_BLOCK {
                return None;
            }
            let block = self.next_block;
            self.current = self.chains.block_range(block);
            self.next_block = self.chains.next[block as usize];
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for BalWeightedNeighbors<'_> {}

/// The in-edges of a [`Bal`] built with them: what [`InEdges::in_edges`]
/// returns, a `Copy` handle.
#[derive(Clone, Copy, Debug)]
pub struct BalInEdges<'a>(&'a BlockChains);

impl<'a> InNeighbors for BalInEdges<'a> {
    type InIter = BalNeighbors<'a>;

    #[inline]
    fn in_degree(self, v: VertexId) -> u64 {
        u64::from(crate::vcsr::degree_or_zero(&self.0.degree, v))
    }

    #[inline]
    fn in_neighbors(self, v: VertexId) -> BalNeighbors<'a> {
        self.0.neighbors(v)
    }
}

/// The weighted out-edges of a weighted [`Bal`]: what
/// [`EdgeWeights::edge_weights`] returns, a `Copy` handle.
#[derive(Clone, Copy, Debug)]
pub struct BalWeights<'a> {
    chains: &'a BlockChains,
    weights: &'a [Weight],
}

impl<'a> WeightedNeighbors for BalWeights<'a> {
    type WeightedIter = BalWeightedNeighbors<'a>;

    #[inline]
    fn out_neighbors_weighted(self, v: VertexId) -> BalWeightedNeighbors<'a> {
        self.chains.weighted_neighbors(self.weights, v)
    }
}

/// Block counts of a [`Bal`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BalStats {
    /// Blocks in the out-edge arena (in use or free).
    pub blocks: usize,
    /// Of those, blocks on the free list.
    pub free_blocks: usize,
}

/// Blocked adjacency list: per vertex a chain of blocks of up to
/// [`BLOCK_EDGES`] edges, the mutation-friendly baseline the VCSR paper
/// compares against. The paper's blocks are all 512 edges; here a chain's
/// blocks double from [`FIRST_BLOCK_EDGES`] up to that size, so a vertex
/// with few edges holds a small block (measured on sx-mathoverflow: 360
/// bytes per edge with whole blocks, and half the insert time went to
/// zeroing and faulting in their pages).
///
/// In-edges and weights are options ([`StoreOptions`]), read through
/// [`InEdges::in_edges`] ([`BalInEdges`]) and [`EdgeWeights::edge_weights`]
/// ([`BalWeights`]), which fail with [`Error::MissingCapability`] on a graph
/// built without them.
///
/// # Cost model
/// - Insert: `O(1)` — append to the vertex's last block, or link a new
///   block. Under [`Semantics::Simple`] the duplicate check scans the
///   vertex's edges first, `O(degree)`. A batch (and
///   [`FromEdges::from_edges`](dyngraph_core::FromEdges::from_edges)) inserts its edges one by one, read in
///   place.
/// - Delete: `O(degree)` — find the oldest occurrence, shift the later edges
///   down so order is kept and only the last block is partial.
/// - Scan: a slice walk per block plus one pointer chase per block (per
///   512 edges once a chain is long, about `log2(degree / 8)` before);
///   blocks of different vertices are scattered in the arena, so a full
///   scan has worse locality than CSR.
/// - Memory: a chain that grew to `d` edges holds at most `max(2d, 8)` slots
///   (4 bytes each, 8 with weights) and at most 511 empty ones; plus 12
///   bytes per vertex (head, tail, degree) and 15 per block. Doubled when
///   in-edges are kept.
/// - Snapshot: copy-before-write ([`dyngraph_core::cow`]). Taking one is
///   two bitmaps of `V / 8` bytes; afterwards the first change of each
///   vertex's out-list (and, with in-edges, in-list) copies that list once
///   into the snapshot (`O(degree)`, 4 bytes per edge, 8 with weights),
///   later changes to it cost a bit test. A view reads saved lists where
///   there are some and the live chains elsewhere. With no snapshot alive
///   a change pays one atomic load.
/// - Maintenance: none ([`GraphStore::maintenance`] is `None`): nothing is
///   ever redistributed or resized beyond appending blocks.
///
/// ```
/// use dyngraph_core::{GraphUpdate, OutNeighbors, Semantics, StoreOptions};
/// use dyngraph_vcsr::Bal;
/// let mut bal = Bal::new(StoreOptions::new(Semantics::Multigraph))?;
/// bal.insert_edge(0, 1)?;
/// bal.insert_edge(0, 2)?;
/// bal.insert_edge(0, 1)?;
/// assert!(bal.delete_edge(0, 1)?); // the oldest 0 -> 1
/// assert_eq!(bal.out_neighbors(0).collect::<Vec<_>>(), [2, 1]);
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Bal {
    out: BlockChains,
    incoming: Option<BlockChains>,
    semantics: Semantics,
    edge_count: u64,
    vertex_limit: usize,
    /// Told of every list change before it happens; a clone starts a
    /// fresh one.
    snapshots: CowRegistry,
}

impl Bal {
    /// An empty graph. Fails only on a vertex limit beyond `u32` ids.
    pub fn new(options: StoreOptions) -> Result<Self> {
        if options.vertex_limit as u64 > u64::from(u32::MAX) {
            return Err(Error::InvalidArgument(format!(
                "vertex limit {} exceeds the u32 id space",
                options.vertex_limit
            )));
        }
        Ok(Self {
            out: BlockChains::new(options.weighted),
            incoming: options.in_edges.then(|| BlockChains::new(false)),
            semantics: options.semantics,
            edge_count: 0,
            vertex_limit: options.vertex_limit,
            snapshots: CowRegistry::default(),
        })
    }

    /// Whether `src -> dst` exists. `O(degree(src))`.
    pub fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        (src as usize) < self.out.head.len() && self.out.contains(src, dst)
    }

    /// Block counts.
    pub fn stats(&self) -> BalStats {
        BalStats {
            blocks: self.out.fill.len(),
            free_blocks: self.out.free.iter().map(Vec::len).sum(),
        }
    }

    /// Snapshots of this graph alive now.
    pub fn live_snapshots(&self) -> usize {
        self.snapshots.live_snapshots()
    }

    /// Heap bytes held, capacity included (the lists saved by snapshots
    /// are the snapshots' memory: [`CowSnapshot::memory_bytes`](dyngraph_core::cow::CowSnapshot::memory_bytes)).
    pub fn memory_bytes(&self) -> usize {
        self.out.memory_bytes() + self.incoming.as_ref().map_or(0, BlockChains::memory_bytes)
    }

    fn grow(&mut self, vertex_count: usize) {
        self.out.grow(vertex_count);
        if let Some(incoming) = &mut self.incoming {
            incoming.grow(vertex_count);
        }
    }

    /// Inserts after the limit check and growth.
    fn insert_checked(&mut self, src: VertexId, dst: VertexId, weight: Weight) -> bool {
        if self.semantics == Semantics::Simple && self.out.contains(src, dst) {
            return false;
        }
        self.snapshots.before_out_change(&*self, src);
        if self.incoming.is_some() {
            self.snapshots.before_in_change(&*self, dst);
        }
        self.out.push(src, dst, weight);
        if let Some(incoming) = &mut self.incoming {
            incoming.push(dst, src, 1.0);
        }
        self.edge_count += 1;
        true
    }
}

impl InEdges for Bal {
    type InHandle<'a> = BalInEdges<'a>;

    #[inline]
    fn in_edges(&self) -> Result<BalInEdges<'_>> {
        match &self.incoming {
            Some(incoming) => Ok(BalInEdges(incoming)),
            None => Err(Error::missing("Bal", Capability::InEdges)),
        }
    }
}

impl EdgeWeights for Bal {
    type WeightHandle<'a> = BalWeights<'a>;

    #[inline]
    fn edge_weights(&self) -> Result<BalWeights<'_>> {
        match &self.out.weights {
            Some(weights) => Ok(BalWeights {
                chains: &self.out,
                weights,
            }),
            None => Err(Error::missing("Bal", Capability::Weights)),
        }
    }
}

impl GraphUpdate for Bal {
    fn insert_weighted_edge(
        &mut self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) -> Result<bool> {
        check_limit(self.vertex_limit, [src, dst])?;
        self.grow(src.max(dst) as usize + 1);
        Ok(self.insert_checked(src, dst, weight))
    }

    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        let n = self.vertex_count();
        if src as usize >= n || dst as usize >= n {
            return Ok(false);
        }
        let Some(found) = self.out.find(src, dst) else {
            return Ok(false);
        };
        self.snapshots.before_out_change(&*self, src);
        if self.incoming.is_some() {
            self.snapshots.before_in_change(&*self, dst);
        }
        self.out.remove(src, found);
        if let Some(incoming) = &mut self.incoming {
            let found = incoming.find(dst, src).ok_or_else(|| {
                Error::InvalidStructure(format!("in-edge {dst} <- {src} missing"))
            })?;
            incoming.remove(dst, found);
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
            Ok(self.insert_checked(src, dst, weight))
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

crate::cow_registry::cow_store!(Bal, BalNeighbors, |graph, v| graph.out.neighbors(v));

impl GraphStore for Bal {
    const NAME: &'static str = "Bal";
    const CAPABILITIES: dyngraph_core::Capabilities = dyngraph_core::Capabilities::IN_MEMORY;

    fn memory_bytes(&self) -> usize {
        Bal::memory_bytes(self)
    }
}

/// An empty multigraph with the default options (which always build).
impl Default for Bal {
    fn default() -> Self {
        Self::new(StoreOptions::default()).expect("the default options build an empty Bal")
    }
}
