//! Edge sequences stores are built from and updated with, read in place.
//!
//! A user writes `&[Edge]`; the loader produces columns (one array of
//! sources, one of destinations, optional weights); a parser has one such
//! run per thread. [`EdgeSource`] lets every store's bulk build
//! ([`crate::FromEdges`]) and batch update ([`crate::GraphUpdate`]) take
//! any of them as it is, with no copy into another edge type first.

use crate::hint::prefetch;
use crate::{Edge, Error, Result, TimestampedEdge, VertexId, Weight, WeightedEdge};
use rayon::prelude::*;
use std::ops::Range;

/// A sequence of edges, in order, readable by index and by range.
///
/// Weighted or not as a whole: [`EdgeSource::is_weighted`] says whether the
/// weights [`EdgeSource::edge`] reports are data or the unit default.
pub trait EdgeSource: Sync {
    /// Number of edges.
    fn len(&self) -> usize;

    /// Whether there are no edges.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the edges carry weights.
    fn is_weighted(&self) -> bool;

    /// A vertex count the input declares (a Matrix Market header, a
    /// generator, an id map), which may exceed the largest id + 1 when
    /// there are isolated vertices. `None` when it declares none.
    fn declared_vertex_count(&self) -> Option<usize> {
        None
    }

    /// The keys of the vertices, when the edges come with them (a file
    /// whose ids the loader relabelled): vertex `v` was
    /// `ids.original(v)`. [`crate::Csr`] keeps them and
    /// [`crate::Keyed::from_edges`] takes them. `None` (the default) when
    /// the ids are the vertex ids.
    fn ids(&self) -> Option<&crate::IdMap> {
        None
    }

    /// Edge `i` (weight `1.0` when unweighted). Panics when `i >= len()`.
    fn edge(&self, i: usize) -> WeightedEdge;

    /// Calls `f(src, dst, weight)` for the edges in `range`, in order.
    /// Sources with contiguous storage override this with a tight loop.
    fn for_each_in(&self, range: Range<usize>, mut f: impl FnMut(VertexId, VertexId, Weight)) {
        for i in range {
            let e = self.edge(i);
            f(e.src, e.dst, e.weight);
        }
    }

    /// The largest vertex id met, in parallel; `None` for no edges.
    fn max_vertex(&self) -> Option<VertexId> {
        const GRAIN: usize = 1 << 16;
        let len = self.len();
        if len == 1 {
            let edge = self.edge(0);
            return Some(edge.src.max(edge.dst));
        }
        if len <= GRAIN {
            // One chunk: no trip through the pool (a replay's small
            // batches call this per batch).
            let mut max = None;
            self.for_each_in(0..len, |s, d, _| {
                max = Some(max.unwrap_or(0).max(s).max(d));
            });
            return max;
        }
        (0..len.div_ceil(GRAIN))
            .into_par_iter()
            .filter_map(|chunk| {
                let mut max = None;
                self.for_each_in(chunk * GRAIN..((chunk + 1) * GRAIN).min(len), |s, d, _| {
                    max = Some(max.unwrap_or(0).max(s).max(d));
                });
                max
            })
            .max()
    }

    /// The vertex count a graph of these edges needs: the declared count,
    /// or the largest id + 1 if that is more.
    fn vertex_bound(&self) -> usize {
        let by_ids = self.max_vertex().map_or(0, |m| m as usize + 1);
        self.declared_vertex_count().unwrap_or(0).max(by_ids)
    }
}

/// One edge record of an array-of-structs input: [`Edge`],
/// [`WeightedEdge`], [`TimestampedEdge`] or a `(src, dst)` pair.
pub trait EdgeRecord: Copy + Sync {
    /// Whether records of this type carry a weight.
    const WEIGHTED: bool;

    /// The record as a weighted edge (weight `1.0` when it has none).
    fn weighted_edge(self) -> WeightedEdge;
}

impl EdgeRecord for Edge {
    const WEIGHTED: bool = false;
    #[inline]
    fn weighted_edge(self) -> WeightedEdge {
        WeightedEdge::new(self.src, self.dst, 1.0)
    }
}

impl EdgeRecord for WeightedEdge {
    const WEIGHTED: bool = true;
    #[inline]
    fn weighted_edge(self) -> WeightedEdge {
        self
    }
}

impl EdgeRecord for TimestampedEdge {
    const WEIGHTED: bool = false;
    #[inline]
    fn weighted_edge(self) -> WeightedEdge {
        WeightedEdge::new(self.src, self.dst, 1.0)
    }
}

impl EdgeRecord for (VertexId, VertexId) {
    const WEIGHTED: bool = false;
    #[inline]
    fn weighted_edge(self) -> WeightedEdge {
        WeightedEdge::new(self.0, self.1, 1.0)
    }
}

impl<E: EdgeRecord> EdgeSource for [E] {
    fn len(&self) -> usize {
        <[E]>::len(self)
    }

    fn is_weighted(&self) -> bool {
        E::WEIGHTED
    }

    #[inline]
    fn edge(&self, i: usize) -> WeightedEdge {
        self[i].weighted_edge()
    }

    #[inline]
    fn for_each_in(&self, range: Range<usize>, mut f: impl FnMut(VertexId, VertexId, Weight)) {
        for record in &self[range] {
            let e = record.weighted_edge();
            f(e.src, e.dst, e.weight);
        }
    }
}

/// Forwards to the slice, so `&vec` and `&array` work where a source is
/// taken.
macro_rules! forward_to_slice {
    ($($ty:ty => [$($generics:tt)*]),*) => {$(
        impl<$($generics)*> EdgeSource for $ty {
            fn len(&self) -> usize {
                self[..].len()
            }

            fn is_weighted(&self) -> bool {
                E::WEIGHTED
            }

            #[inline]
            fn edge(&self, i: usize) -> WeightedEdge {
                self[i].weighted_edge()
            }

            #[inline]
            fn for_each_in(&self, range: Range<usize>, f: impl FnMut(VertexId, VertexId, Weight)) {
                self[..].for_each_in(range, f)
            }
        }
    )*};
}

forward_to_slice!(Vec<E> => [E: EdgeRecord], [E; N] => [E: EdgeRecord, const N: usize]);

/// A run of edges as parallel arrays (struct of arrays), the shape a
/// parser's per-thread buffer or the loader's stream has.
#[derive(Clone, Copy, Debug)]
pub struct EdgeChunk<'a> {
    /// Sources.
    pub src: &'a [VertexId],
    /// Destinations, as long as `src`.
    pub dst: &'a [VertexId],
    /// Weights, as long as `src`, or `None`.
    pub weights: Option<&'a [Weight]>,
}

impl<'a> EdgeChunk<'a> {
    /// Columns of equal length, checked.
    pub fn new(
        src: &'a [VertexId],
        dst: &'a [VertexId],
        weights: Option<&'a [Weight]>,
    ) -> Result<Self> {
        if src.len() != dst.len() || weights.is_some_and(|w| w.len() != src.len()) {
            return Err(Error::InvalidStructure(format!(
                "edge columns of different lengths: {} sources, {} destinations, {} weights",
                src.len(),
                dst.len(),
                weights.map_or("no".to_string(), |w| w.len().to_string())
            )));
        }
        Ok(Self { src, dst, weights })
    }

    /// Edges `range` of the chunk, borrowed. Panics if `range` is out of
    /// bounds, like slicing.
    pub fn slice(&self, range: Range<usize>) -> EdgeChunk<'a> {
        EdgeChunk {
            src: &self.src[range.clone()],
            dst: &self.dst[range.clone()],
            weights: self.weights.map(|w| &w[range]),
        }
    }
}

/// How far ahead (in elements of 4 bytes, so 2 KiB) a walk asks for the
/// arrays it reads sequentially: edge columns here, and each bucket's slots
/// in stage 3 of the `Csr` build. The hardware prefetcher stops at every
/// 4 KiB page; asking early hides the wait at each page start (measured on
/// the `Csr` build: 5-7% less CPU for the chunk walk, 4-6% less for stage
/// 3). The walk over a built CSR (the transpose's input) showed no gain
/// and has none.
pub(crate) const PREFETCH_AHEAD: usize = 512;

impl EdgeSource for EdgeChunk<'_> {
    fn len(&self) -> usize {
        self.src.len()
    }

    fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    #[inline]
    fn edge(&self, i: usize) -> WeightedEdge {
        WeightedEdge::new(self.src[i], self.dst[i], self.weights.map_or(1.0, |w| w[i]))
    }

    fn for_each_in(&self, range: Range<usize>, mut f: impl FnMut(VertexId, VertexId, Weight)) {
        let (src, dst) = (&self.src[range.clone()], &self.dst[range.clone()]);
        // Sixteen edges (one cache line of each column) per prefetch.
        const LINE: usize = 16;
        match self.weights {
            Some(all_weights) => {
                let weights = &all_weights[range.clone()];
                for (line, ((src, dst), weights)) in src
                    .chunks(LINE)
                    .zip(dst.chunks(LINE))
                    .zip(weights.chunks(LINE))
                    .enumerate()
                {
                    let ahead = range.start + line * LINE + PREFETCH_AHEAD;
                    prefetch(self.src, ahead);
                    prefetch(self.dst, ahead);
                    prefetch(all_weights, ahead);
                    for ((&s, &d), &w) in src.iter().zip(dst).zip(weights) {
                        f(s, d, w);
                    }
                }
            }
            None => {
                for (line, (src, dst)) in src.chunks(LINE).zip(dst.chunks(LINE)).enumerate() {
                    let ahead = range.start + line * LINE + PREFETCH_AHEAD;
                    prefetch(self.src, ahead);
                    prefetch(self.dst, ahead);
                    for (&s, &d) in src.iter().zip(dst) {
                        f(s, d, 1.0);
                    }
                }
            }
        }
    }
}

/// Edge columns (struct of arrays) owned by the caller; a source in place,
/// or handed over whole to [`crate::Csr::from_columns`], which reuses their
/// memory.
///
/// Why this exists beside the loader's `dyngraph_loader::EdgeStream`, the
/// one owned edge stream: core cannot depend on the loader, and the `Csr`
/// build needs owned vectors to reuse (an `EdgeStream`'s columns may be
/// read in place from a mapped file, and it carries timestamps and
/// original ids, which are not CSR data). So this holds only what a build
/// consumes: plain vectors of endpoints and weights. An `EdgeStream`
/// converts into it with `EdgeStream::into_edge_columns`, which moves its
/// vectors over without a copy (a mapped stream's columns are copied out
/// of the map). To hand a store edges without giving them up, borrow an
/// [`EdgeChunk`] instead.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EdgeColumns {
    /// Sources.
    pub src: Vec<VertexId>,
    /// Destinations, as long as `src`.
    pub dst: Vec<VertexId>,
    /// Weights, as long as `src`, or `None`.
    pub weights: Option<Vec<Weight>>,
}

impl EdgeColumns {
    /// The columns as a borrowed chunk (panics if their lengths differ,
    /// which the public fields allow a caller to make).
    pub fn as_chunk(&self) -> EdgeChunk<'_> {
        EdgeChunk::new(&self.src, &self.dst, self.weights.as_deref())
            .expect("edge columns of equal length")
    }
}

impl EdgeSource for EdgeColumns {
    fn len(&self) -> usize {
        self.src.len()
    }

    fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    #[inline]
    fn edge(&self, i: usize) -> WeightedEdge {
        self.as_chunk().edge(i)
    }

    fn for_each_in(&self, range: Range<usize>, f: impl FnMut(VertexId, VertexId, Weight)) {
        self.as_chunk().for_each_in(range, f)
    }
}

/// Several [`EdgeChunk`]s read as one sequence in the order given (a
/// parser's per-thread buffers), without concatenating them.
#[derive(Clone, Debug)]
pub struct EdgeChunks<'a> {
    chunks: &'a [EdgeChunk<'a>],
    /// `starts[i]` is the global index of chunk `i`'s first edge; one extra
    /// entry holds the total.
    starts: Vec<usize>,
    weighted: bool,
    declared_vertex_count: Option<usize>,
}

impl<'a> EdgeChunks<'a> {
    /// Checks that every chunk's columns match in length and that either
    /// every chunk has weights or none does.
    pub fn new(chunks: &'a [EdgeChunk<'a>]) -> Result<Self> {
        let weighted = chunks.first().is_some_and(|c| c.weights.is_some());
        let mut starts = Vec::with_capacity(chunks.len() + 1);
        let mut total = 0usize;
        for (index, chunk) in chunks.iter().enumerate() {
            if chunk.src.len() != chunk.dst.len() {
                return Err(Error::InvalidStructure(format!(
                    "chunk {index}: {} sources but {} destinations",
                    chunk.src.len(),
                    chunk.dst.len()
                )));
            }
            match chunk.weights {
                Some(w) if !weighted || w.len() != chunk.src.len() => {
                    return Err(Error::InvalidStructure(format!(
                        "chunk {index}: weights missing elsewhere or of the wrong length"
                    )));
                }
                None if weighted => {
                    return Err(Error::InvalidStructure(format!(
                        "chunk {index} has no weights but chunk 0 has"
                    )));
                }
                _ => {}
            }
            starts.push(total);
            total += chunk.src.len();
        }
        starts.push(total);
        Ok(Self {
            chunks,
            starts,
            weighted,
            declared_vertex_count: None,
        })
    }

    /// Declares the vertex count (see [`EdgeSource::declared_vertex_count`]).
    pub fn with_vertex_count(mut self, vertex_count: usize) -> Self {
        self.declared_vertex_count = Some(vertex_count);
        self
    }

    /// The chunk holding global index `i` and `i`'s index inside it.
    fn locate(&self, i: usize) -> (usize, usize) {
        let index = self.starts.partition_point(|&s| s <= i) - 1;
        (index, i - self.starts[index])
    }
}

impl EdgeSource for EdgeChunks<'_> {
    fn len(&self) -> usize {
        *self.starts.last().unwrap_or(&0)
    }

    fn is_weighted(&self) -> bool {
        self.weighted
    }

    fn declared_vertex_count(&self) -> Option<usize> {
        self.declared_vertex_count
    }

    fn edge(&self, i: usize) -> WeightedEdge {
        assert!(i < self.len(), "edge {i} of {}", self.len());
        let (chunk, local) = self.locate(i);
        self.chunks[chunk].edge(local)
    }

    fn for_each_in(&self, range: Range<usize>, mut f: impl FnMut(VertexId, VertexId, Weight)) {
        if range.is_empty() {
            return;
        }
        let (mut index, _) = self.locate(range.start);
        let mut position = range.start;
        while position < range.end {
            let chunk = &self.chunks[index];
            let chunk_start = self.starts[index];
            let local = position - chunk_start..(range.end - chunk_start).min(chunk.src.len());
            chunk.for_each_in(local.clone(), &mut f);
            position += local.len();
            index += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_reads_the_same_edges() {
        let edges = [Edge::new(0, 1), Edge::new(2, 0), Edge::new(1, 1)];
        let src = [0, 2, 1];
        let dst = [1, 0, 1];
        let chunk = EdgeChunk::new(&src, &dst, None).unwrap();
        let pieces = [
            EdgeChunk::new(&src[..1], &dst[..1], None).unwrap(),
            EdgeChunk::new(&src[1..], &dst[1..], None).unwrap(),
        ];
        let chunks = EdgeChunks::new(&pieces).unwrap();
        fn collect(source: &impl EdgeSource) -> Vec<(u32, u32)> {
            let mut out = Vec::new();
            source.for_each_in(0..source.len(), |s, d, _| out.push((s, d)));
            let by_index: Vec<(u32, u32)> = (0..source.len())
                .map(|i| (source.edge(i).src, source.edge(i).dst))
                .collect();
            assert_eq!(out, by_index);
            out
        }
        let want = vec![(0, 1), (2, 0), (1, 1)];
        assert_eq!(collect(&edges), want);
        assert_eq!(collect(&edges.to_vec()), want);
        assert_eq!(collect(&chunk), want);
        assert_eq!(collect(&chunks), want);
        assert_eq!(chunks.max_vertex(), Some(2));
        assert_eq!(chunks.with_vertex_count(7).vertex_bound(), 7);
        assert!(!edges.is_weighted());
        assert!(EdgeChunk::new(&src, &dst[..1], None).is_err());
    }
}
