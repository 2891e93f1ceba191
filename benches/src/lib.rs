//! Inputs shared by the criterion benches in `benches/benches/`.
//!
//! Generated inputs are deterministic (seeded), so two runs of a bench time
//! the same graph.
#![deny(missing_docs)]

pub mod replay;

use dyngraph_core::{Edge, VertexId};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

/// `vertex_count * degree` edges with endpoints drawn uniformly at random
/// (the shape of GAPBS `-u`), generated in parallel blocks each seeded from
/// `seed` and its block number.
pub fn uniform_edges(vertex_count: u32, degree: u32, seed: u64) -> Vec<Edge> {
    const BLOCK: usize = 1 << 16;
    let total = vertex_count as usize * degree as usize;
    let mut edges = vec![Edge::default(); total];
    edges
        .par_chunks_mut(BLOCK)
        .enumerate()
        .for_each(|(block, chunk)| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(
                seed ^ (block as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
            for edge in chunk {
                let src: VertexId = rng.random_range(0..vertex_count);
                let dst: VertexId = rng.random_range(0..vertex_count);
                *edge = Edge::new(src, dst);
            }
        });
    edges
}

/// Splits edges into struct-of-arrays form, the shape loaders produce.
pub fn to_columns(edges: &[Edge]) -> (Vec<VertexId>, Vec<VertexId>) {
    edges.par_iter().map(|e| (e.src, e.dst)).unzip()
}
