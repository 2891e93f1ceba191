//! Synthetic graph generators: Kronecker (R-MAT with the Graph500
//! parameters) and uniform random, as GAPBS's `-g` and `-u`.
//!
//! Both are deterministic from a seed *and independent of the thread count*:
//! edges are generated in fixed blocks of [`BLOCK_EDGES`], and block `i`
//! draws from the seed's random stream jumped ahead `i` times (xoshiro256++
//! `jump`, 2^128 draws apart), so blocks never overlap and any thread may
//! generate any block.
//!
//! ```
//! use dyngraph_loader::Order;
//! use dyngraph_loader::generate::Generator;
//!
//! // GAPBS `-g 10 -k 16`: 1,024 vertices, 16,384 directed edges.
//! let stream = Generator::kronecker(10, 16).seed(7).order(Order::Shuffle).generate()?;
//! assert_eq!(stream.len(), 16 * 1024);
//! assert_eq!(stream.vertex_count(), 1024);
//! // Same seed, same stream.
//! let again = Generator::kronecker(10, 16).seed(7).order(Order::Shuffle).generate()?;
//! assert_eq!(stream, again);
//! # Ok::<(), dyngraph_core::Error>(())
//! ```

use crate::order::Order;
use crate::stream::EdgeStream;
use dyngraph_core::{Error, Result, VertexId, Weight};
use rand::seq::SliceRandom;
use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

/// Edges generated per block, each block from its own random stream. Fixed,
/// so the output does not depend on how many threads run.
pub const BLOCK_EDGES: usize = 1 << 16;

/// Graph500's Kronecker initiator probabilities (the fourth, D, is
/// `1 - A - B - C = 0.05`).
pub const KRONECKER_A: f64 = 0.57;
/// See [`KRONECKER_A`].
pub const KRONECKER_B: f64 = 0.19;
/// See [`KRONECKER_A`].
pub const KRONECKER_C: f64 = 0.19;

/// Largest accepted scale: vertex ids are `u32`, and `2^31` vertices already
/// need 16 GiB of CSR offsets.
pub const MAX_SCALE: u32 = 31;

/// Which random graph to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GraphKind {
    /// Kronecker / R-MAT with `A = 0.57, B = 0.19, C = 0.19` (Graph500 and
    /// GAPBS `-g`): a skewed, power-law-like degree distribution. Vertex ids
    /// are then randomly permuted, as GAPBS does, so hubs are not all at
    /// low ids.
    Kronecker,
    /// Endpoints drawn uniformly from `0..2^scale` (GAPBS `-u`, Erdős–Rényi
    /// like): no hubs.
    Uniform,
}

/// A configured generator. Build with [`Generator::kronecker`] or
/// [`Generator::uniform`], adjust with the builder methods, then call
/// [`Generator::generate`].
///
/// # Cost model
/// `O(E · scale)` random draws for Kronecker, `O(E)` for uniform, spread
/// over the rayon pool; [`Order::Shuffle`] and
/// [`Order::Source`] add a parallel `O(E log E)` sort of
/// indices and a gather. Memory: the stream (8 bytes per edge, 12 with
/// weights) plus 16 bytes per edge transiently while reordering;
/// [`Generator::generate_chunks`] draws it a chunk at a time instead.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Generator {
    kind: GraphKind,
    scale: u32,
    edge_factor: u32,
    seed: u64,
    order: Order,
    weighted: bool,
}

impl Generator {
    /// Kronecker graph with `2^scale` vertices and `edge_factor · 2^scale`
    /// directed edges (GAPBS `-g scale -k edge_factor`; Graph500 uses
    /// edge factor 16).
    pub fn kronecker(scale: u32, edge_factor: u32) -> Self {
        Self::new(GraphKind::Kronecker, scale, edge_factor)
    }

    /// Uniform random graph with `2^scale` vertices and `edge_factor ·
    /// 2^scale` directed edges (GAPBS `-u scale -k edge_factor`).
    pub fn uniform(scale: u32, edge_factor: u32) -> Self {
        Self::new(GraphKind::Uniform, scale, edge_factor)
    }

    /// A generator of `kind`.
    pub fn new(kind: GraphKind, scale: u32, edge_factor: u32) -> Self {
        Self {
            kind,
            scale,
            edge_factor,
            seed: 27491095, // GAPBS's default seed (kRandSeed).
            order: Order::File,
            weighted: false,
        }
    }

    /// Sets the seed (default: GAPBS's `27491095`).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets the arrival order (default [`Order::File`]).
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// Also draw a weight per edge, a uniform integer in `1..=255` stored as
    /// `f32` (GAPBS's weighted generators use the same range).
    pub fn weighted(mut self, weighted: bool) -> Self {
        self.weighted = weighted;
        self
    }

    /// Vertices the graph will have: `2^scale`.
    pub fn vertex_count(&self) -> usize {
        1usize << self.scale.min(MAX_SCALE)
    }

    /// Edges the graph will have: `edge_factor · 2^scale`.
    pub fn edge_count(&self) -> usize {
        self.vertex_count() * self.edge_factor as usize
    }

    /// Draws the edges.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a scale above [`MAX_SCALE`], an edge
    /// count that does not fit in memory addressing, or [`Order::Time`]
    /// (generated edges have no timestamps).
    pub fn generate(&self) -> Result<EdgeStream> {
        let edge_count = self.checked_edge_count()?;
        let drawer = Drawer::new(self);
        let stream = drawer.draw(0..edge_count);
        reorder(stream, self.order, self.seed)
    }

    /// Draws the edges in arrival order a chunk of about `chunk_edges` at a
    /// time, handing each to `sink` in order, so a graph larger than memory
    /// can go straight to a file ([`crate::EdgeStreamWriter`],
    /// [`crate::TextEdgeWriter`]). The chunks together are
    /// [`Generator::generate`]'s stream, whatever `chunk_edges` and the
    /// thread count; each is drawn in parallel. Stops at the first error
    /// `sink` returns.
    ///
    /// Memory: one chunk (8 bytes per edge, 12 with weights) and, for
    /// Kronecker graphs, the vertex permutation (4 bytes per vertex), under
    /// [`Order::File`]. The other orders need every edge
    /// before the first arrives: they draw the whole stream and hand it
    /// over in chunks (memory as [`Generator::generate`]).
    ///
    /// ```
    /// use dyngraph_loader::generate::Generator;
    ///
    /// let generator = Generator::kronecker(10, 16).seed(7);
    /// let mut sources = Vec::new();
    /// generator.generate_chunks(1000, |chunk| {
    ///     sources.extend_from_slice(chunk.src());
    ///     Ok(())
    /// })?;
    /// assert_eq!(sources, generator.generate()?.src());
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Generator::generate`], and the first error of `sink`.
    pub fn generate_chunks(
        &self,
        chunk_edges: usize,
        mut sink: impl FnMut(&EdgeStream) -> Result<()>,
    ) -> Result<()> {
        let edge_count = self.checked_edge_count()?;
        // Whole blocks per chunk, so each block's stream starts afresh.
        let chunk_edges = chunk_edges.max(1).next_multiple_of(BLOCK_EDGES);
        if self.order != Order::File {
            let stream = self.generate()?;
            for start in (0..edge_count).step_by(chunk_edges) {
                let range = start..(start + chunk_edges).min(edge_count);
                sink(&stream.gather(&range.collect::<Vec<_>>()))?;
            }
            return Ok(());
        }
        let drawer = Drawer::new(self);
        for start in (0..edge_count).step_by(chunk_edges) {
            sink(&drawer.draw(start..(start + chunk_edges).min(edge_count)))?;
        }
        Ok(())
    }

    fn checked_edge_count(&self) -> Result<usize> {
        if self.scale > MAX_SCALE {
            return Err(Error::InvalidArgument(format!(
                "generator scale {} is above the maximum {MAX_SCALE}",
                self.scale
            )));
        }
        let vertex_count = 1usize << self.scale;
        vertex_count
            .checked_mul(self.edge_factor as usize)
            .filter(|&e| e <= isize::MAX as usize / 16)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "2^{} vertices times edge factor {} is too many edges",
                    self.scale, self.edge_factor
                ))
            })
    }
}

/// What every chunk of a generated graph is drawn with: the block streams,
/// the quadrant thresholds and (Kronecker) the vertex permutation.
struct Drawer<'a> {
    generator: &'a Generator,
    vertex_count: usize,
    block_rngs: Vec<Xoshiro256PlusPlus>,
    thresholds: KroneckerThresholds,
    permutation: Option<Vec<VertexId>>,
}

impl<'a> Drawer<'a> {
    /// For a generator whose edge count was checked.
    fn new(generator: &'a Generator) -> Self {
        let vertex_count = generator.vertex_count();
        let edge_count = generator.edge_count();
        Drawer {
            generator,
            vertex_count,
            block_rngs: block_streams(generator.seed, edge_count.div_ceil(BLOCK_EDGES)),
            thresholds: KroneckerThresholds::graph500(),
            permutation: (generator.kind == GraphKind::Kronecker)
                .then(|| permutation(vertex_count, generator.seed)),
        }
    }

    /// The edges `range` (starting at a block boundary) in drawn order,
    /// relabelled by the permutation.
    fn draw(&self, range: std::ops::Range<usize>) -> EdgeStream {
        debug_assert_eq!(range.start % BLOCK_EDGES, 0);
        let Generator {
            kind,
            scale,
            weighted,
            ..
        } = *self.generator;
        let edges = range.len();
        let mut src = vec![0 as VertexId; edges];
        let mut dst = vec![0 as VertexId; edges];
        let mut weights = if weighted {
            vec![0.0 as Weight; edges]
        } else {
            Vec::new()
        };
        let blocks = edges.div_ceil(BLOCK_EDGES);
        let weight_chunks: Vec<&mut [Weight]> = if weighted {
            weights.chunks_mut(BLOCK_EDGES).collect()
        } else {
            (0..blocks).map(|_| &mut [][..]).collect()
        };
        let first_block = range.start / BLOCK_EDGES;
        let rngs = self.block_rngs[first_block..first_block + blocks].to_vec();
        let thresholds = &self.thresholds;
        let permutation = self.permutation.as_deref();
        src.par_chunks_mut(BLOCK_EDGES)
            .zip(dst.par_chunks_mut(BLOCK_EDGES))
            .zip(weight_chunks)
            .zip(rngs)
            .for_each(|(((src, dst), weights), mut rng)| {
                for i in 0..src.len() {
                    let (s, d) = match kind {
                        GraphKind::Kronecker => thresholds.draw(&mut rng, scale),
                        GraphKind::Uniform => uniform_pair(&mut rng, scale),
                    };
                    (src[i], dst[i]) = match permutation {
                        Some(p) => (p[s as usize], p[d as usize]),
                        None => (s, d),
                    };
                }
                // Weights come after the block's endpoints from the same
                // stream, so turning them on leaves the endpoints unchanged.
                for w in weights.iter_mut() {
                    *w = rng.random_range(1..=255u32) as Weight;
                }
            });
        EdgeStream::from_parts(
            src.into(),
            dst.into(),
            weighted.then(|| weights.into()),
            None,
            self.vertex_count,
        )
    }
}

/// One xoshiro256++ stream per block: block `i` starts `i` jumps (of 2^128
/// draws) past the seed's stream.
fn block_streams(seed: u64, blocks: usize) -> Vec<Xoshiro256PlusPlus> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..blocks)
        .map(|_| {
            let current = rng.clone();
            rng.jump();
            current
        })
        .collect()
}

/// R-MAT quadrant thresholds as fractions of `2^32`, so a level costs one
/// `u32` draw and integer compares.
struct KroneckerThresholds {
    a: u32,
    ab: u32,
    abc: u32,
}

impl KroneckerThresholds {
    fn graph500() -> Self {
        let scaled = |p: f64| (p * 4_294_967_296.0) as u32;
        Self {
            a: scaled(KRONECKER_A),
            ab: scaled(KRONECKER_A + KRONECKER_B),
            abc: scaled(KRONECKER_A + KRONECKER_B + KRONECKER_C),
        }
    }

    /// One edge: at each of `scale` levels pick a quadrant of the adjacency
    /// matrix (GAPBS `MakeKronEdgeList`'s rule).
    #[inline]
    fn draw(&self, rng: &mut Xoshiro256PlusPlus, scale: u32) -> (VertexId, VertexId) {
        let (mut src, mut dst) = (0u32, 0u32);
        for _ in 0..scale {
            let point = rng.next_u32();
            src <<= 1;
            dst <<= 1;
            if point < self.ab {
                if point >= self.a {
                    dst |= 1;
                }
            } else {
                src |= 1;
                if point >= self.abc {
                    dst |= 1;
                }
            }
        }
        (src, dst)
    }
}

#[inline]
fn uniform_pair(rng: &mut Xoshiro256PlusPlus, scale: u32) -> (VertexId, VertexId) {
    // The top `scale` bits of each half of one u64: uniform on 0..2^scale.
    let bits = rng.next_u64();
    if scale == 0 {
        return (0, 0);
    }
    let shift = 32 - scale;
    (((bits >> 32) as u32) >> shift, (bits as u32) >> shift)
}

/// A random permutation of `0..vertex_count`, from the seed: Kronecker
/// graphs' vertices are relabelled by it, so hubs are not all at low ids.
fn permutation(vertex_count: usize, seed: u64) -> Vec<VertexId> {
    let mut permutation: Vec<VertexId> = (0..vertex_count).map(|v| v as VertexId).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5EED_F1D5);
    permutation.shuffle(&mut rng);
    permutation
}

/// SplitMix64's finaliser: a cheap, well-mixed 64-bit hash.
#[inline]
fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Puts a generated stream in the requested arrival order.
pub(crate) fn reorder(stream: EdgeStream, order: Order, seed: u64) -> Result<EdgeStream> {
    Ok(match order {
        Order::File => stream,
        Order::Time => {
            return Err(Error::InvalidArgument(
                "a generated graph has no timestamps to order by: use order file (as drawn), \
                 shuffle or source"
                    .into(),
            ));
        }
        Order::Shuffle => {
            // Sort indices by a per-index hash of the seed: a random
            // permutation that is parallel and independent of thread count
            // (ties, vanishingly rare, are broken by index).
            let salt = mix64(seed ^ 0x5348_5546_464C_4521);
            let mut keyed: Vec<(u64, usize)> = (0..stream.len())
                .into_par_iter()
                .map(|i| (mix64(salt.wrapping_add(i as u64)), i))
                .collect();
            keyed.par_sort_unstable();
            let order: Vec<usize> = keyed.into_par_iter().map(|(_, i)| i).collect();
            stream.gather(&order)
        }
        Order::Source => {
            let src = stream.src();
            let mut order: Vec<usize> = (0..stream.len()).collect();
            // Stable: drawn order within a source is kept.
            order.par_sort_by_key(|&i| src[i]);
            stream.gather(&order)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_scale_and_edge_factor() {
        for kind in [GraphKind::Kronecker, GraphKind::Uniform] {
            let stream = Generator::new(kind, 8, 4).generate().unwrap();
            assert_eq!(stream.len(), 1024);
            assert_eq!(stream.vertex_count(), 256);
            assert!(stream.src().iter().chain(stream.dst()).all(|&v| v < 256));
        }
    }

    #[test]
    fn output_is_independent_of_thread_count() {
        let generate = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    Generator::kronecker(12, 40)
                        .seed(3)
                        .weighted(true)
                        .order(Order::Shuffle)
                        .generate()
                        .unwrap()
                })
        };
        let one = generate(1);
        assert!(one.len() > 2 * BLOCK_EDGES, "spans several blocks");
        assert_eq!(one, generate(2));
        assert_eq!(one, generate(3));
    }

    #[test]
    fn chunks_are_the_stream_whatever_their_size_and_order() {
        for order in [Order::File, Order::Shuffle] {
            let generator = Generator::kronecker(12, 40)
                .seed(3)
                .weighted(true)
                .order(order);
            let whole = generator.generate().unwrap();
            for chunk in [1, BLOCK_EDGES, 3 * BLOCK_EDGES + 5, 1 << 30] {
                let mut joined = EdgeStream::with_value_kind(crate::ValueKind::Weight);
                generator
                    .generate_chunks(chunk, |part| {
                        assert!(part.len() <= chunk.next_multiple_of(BLOCK_EDGES));
                        assert_eq!(part.vertex_count(), whole.vertex_count());
                        for e in part.weighted_edges() {
                            joined.push_weighted(e);
                        }
                        Ok(())
                    })
                    .unwrap();
                joined.extend_vertex_count(whole.vertex_count());
                assert_eq!(joined, whole, "{order:?}, chunks of {chunk}");
            }
        }
    }

    #[test]
    fn different_seeds_differ() {
        let a = Generator::uniform(10, 8).seed(1).generate().unwrap();
        let b = Generator::uniform(10, 8).seed(2).generate().unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn orders_are_permutations_of_the_same_edges() {
        let base = Generator::kronecker(9, 8).seed(5).weighted(true);
        let generated = base.clone().generate().unwrap();
        let mut expected: Vec<_> = generated
            .weighted_edges()
            .map(|e| (e.src, e.dst, e.weight.to_bits()))
            .collect();
        expected.sort_unstable();
        for order in [Order::Shuffle, Order::Source] {
            let stream = base.clone().order(order).generate().unwrap();
            assert_ne!(stream, generated, "{order:?} changes the order");
            let mut edges: Vec<_> = stream
                .weighted_edges()
                .map(|e| (e.src, e.dst, e.weight.to_bits()))
                .collect();
            if order == Order::Source {
                assert!(stream.src().windows(2).all(|w| w[0] <= w[1]));
            }
            edges.sort_unstable();
            assert_eq!(edges, expected);
        }
    }

    #[test]
    fn grouped_keeps_generated_order_within_a_source() {
        let generated = Generator::uniform(6, 16).seed(9).generate().unwrap();
        let grouped = Generator::uniform(6, 16)
            .seed(9)
            .order(Order::Source)
            .generate()
            .unwrap();
        for v in 0..64u32 {
            let before: Vec<_> = generated.edges().filter(|e| e.src == v).collect();
            let after: Vec<_> = grouped.edges().filter(|e| e.src == v).collect();
            assert_eq!(before, after);
        }
    }

    #[test]
    fn weights_are_in_range_and_leave_endpoints_alone() {
        let plain = Generator::uniform(8, 8).seed(4).generate().unwrap();
        let weighted = Generator::uniform(8, 8)
            .seed(4)
            .weighted(true)
            .generate()
            .unwrap();
        assert_eq!(plain.src(), weighted.src());
        assert_eq!(plain.dst(), weighted.dst());
        let weights = weighted.weights().unwrap();
        assert!(
            weights
                .iter()
                .all(|&w| (1.0..=255.0).contains(&w) && w.fract() == 0.0)
        );
    }

    #[test]
    fn kronecker_is_skewed_and_uniform_is_not() {
        // Graph500 parameters concentrate edges: the top 1% of vertices by
        // out-degree hold far more than 1% of the edges.
        let top_share = |stream: &EdgeStream| {
            let mut degrees = vec![0u64; stream.vertex_count()];
            for &s in stream.src() {
                degrees[s as usize] += 1;
            }
            degrees.sort_unstable_by(|a, b| b.cmp(a));
            let top: u64 = degrees[..degrees.len() / 100].iter().sum();
            top as f64 / stream.len() as f64
        };
        let kron = Generator::kronecker(14, 16).generate().unwrap();
        let uniform = Generator::uniform(14, 16).generate().unwrap();
        assert!(top_share(&kron) > 0.15, "kronecker {}", top_share(&kron));
        assert!(
            top_share(&uniform) < 0.03,
            "uniform {}",
            top_share(&uniform)
        );
    }

    #[test]
    fn kronecker_quadrant_frequencies_match_the_initiator() {
        // At scale 1 an edge is one quadrant draw: (0,0) with probability A,
        // (0,1) B, (1,0) C, (1,1) D. Ids are permuted, but at scale 1 the
        // permutation either is the identity or swaps 0 and 1, which maps
        // the quadrants (A, B, C, D) to (D, C, B, A).
        let stream = Generator::kronecker(1, 200_000)
            .seed(11)
            .generate()
            .unwrap();
        let mut counts = [0usize; 4];
        for e in stream.edges() {
            counts[(e.src * 2 + e.dst) as usize] += 1;
        }
        let n = stream.len() as f64;
        let mut freq: Vec<f64> = counts.iter().map(|&c| c as f64 / n).collect();
        if freq[0] < freq[3] {
            freq.reverse();
        }
        let expected = [0.57, 0.19, 0.19, 0.05];
        for (f, e) in freq.iter().zip(expected) {
            assert!((f - e).abs() < 0.005, "{freq:?} vs {expected:?}");
        }
    }

    #[test]
    fn scale_limit_is_an_error() {
        assert!(matches!(
            Generator::uniform(MAX_SCALE + 1, 1).generate(),
            Err(Error::InvalidArgument(_))
        ));
        assert_eq!(Generator::uniform(0, 3).generate().unwrap().len(), 3);
    }
}
