//! Small shared pieces: an atomic bitmap, atomic float adds, argument checks.

use dyngraph_core::{Error, Result, VertexId};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// One bit per vertex, settable from many threads.
///
/// Relaxed ordering is enough everywhere it is used: every kernel reads a
/// bitmap only in a parallel step after the one that wrote it, and the end
/// of a rayon parallel call orders all its writes before what follows.
#[derive(Debug)]
pub(crate) struct Bitmap {
    words: Vec<AtomicU64>,
}

impl Bitmap {
    pub(crate) fn new(bits: usize) -> Self {
        Self {
            words: (0..bits.div_ceil(64))
                .into_par_iter()
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }

    #[inline]
    pub(crate) fn get(&self, bit: usize) -> bool {
        self.words[bit / 64].load(Ordering::Relaxed) & (1 << (bit % 64)) != 0
    }

    #[inline]
    pub(crate) fn set(&self, bit: usize) {
        self.words[bit / 64].fetch_or(1 << (bit % 64), Ordering::Relaxed);
    }

    pub(crate) fn clear(&self) {
        self.words
            .par_iter()
            .for_each(|w| w.store(0, Ordering::Relaxed));
    }

    pub(crate) fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// The set bits in increasing order.
    pub(crate) fn to_sorted_vec(&self) -> Vec<VertexId> {
        self.words
            .par_iter()
            .enumerate()
            .flat_map_iter(|(index, word)| {
                let mut bits = word.load(Ordering::Relaxed);
                std::iter::from_fn(move || {
                    (bits != 0).then(|| {
                        let bit = bits.trailing_zeros();
                        bits &= bits - 1;
                        (index * 64) as VertexId + bit
                    })
                })
            })
            .collect()
    }
}

/// Adds `value` to an `f32` stored as bits in `cell`.
#[inline]
pub(crate) fn atomic_add_f32(cell: &AtomicU32, value: f32) {
    let mut current = cell.load(Ordering::Relaxed);
    loop {
        let next = (f32::from_bits(current) + value).to_bits();
        match cell.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(actual) => current = actual,
        }
    }
}

/// Adds `value` to an `f64` stored as bits in `cell`.
#[inline]
pub(crate) fn atomic_add_f64(cell: &AtomicU64, value: f64) {
    let mut current = cell.load(Ordering::Relaxed);
    loop {
        let next = (f64::from_bits(current) + value).to_bits();
        match cell.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(actual) => current = actual,
        }
    }
}

/// `vertex` must name a vertex of a graph with `vertex_count` vertices.
pub(crate) fn check_vertex(vertex: VertexId, vertex_count: usize) -> Result<()> {
    if (vertex as usize) < vertex_count {
        Ok(())
    } else {
        Err(Error::VertexOutOfRange {
            vertex: vertex.into(),
            vertex_count: vertex_count as u64,
        })
    }
}

/// A vector of `n` atomics holding `value`, built in parallel.
pub(crate) fn atomic_u32_vec(n: usize, value: u32) -> Vec<AtomicU32> {
    (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(value))
        .collect()
}

/// Unwraps a vector of atomics once the parallel phase is over, in place:
/// the standard library reuses the buffer (same size and alignment) and the
/// identity loop compiles to nothing, where a parallel collect allocated a
/// second vector and paid a page fault per 4 KiB of it on every call.
pub(crate) fn into_plain_u32(values: Vec<AtomicU32>) -> Vec<u32> {
    values.into_iter().map(AtomicU32::into_inner).collect()
}

/// The vertex ids of a graph with `n` vertices, as a parallel range.
#[inline]
pub(crate) fn vertices(n: usize) -> rayon::range::Iter<VertexId> {
    (0..n as VertexId).into_par_iter()
}

/// Runs a kernel on a thread of the caller's rayon pool (the global one when
/// called from outside any pool).
///
/// A parallel call made from a thread outside the pool is queued and the
/// caller sleeps until a pool thread has finished it: a wake-up of tens of
/// microseconds per call, paid by every step of a BFS and every iteration of
/// PageRank. `dyngraph run bfs` on CollegeMsg took 0.08–0.35 ms that way and
/// takes 0.03–0.05 ms from a pool thread (GAPBS: 0.03 ms). From a pool
/// thread this runs `kernel` in place.
pub(crate) fn on_pool<R: Send>(kernel: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| kernel())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmap_round_trip() {
        let bitmap = Bitmap::new(200);
        for bit in [0, 63, 64, 130, 199] {
            bitmap.set(bit);
        }
        assert!(bitmap.get(64) && !bitmap.get(65));
        assert_eq!(bitmap.to_sorted_vec(), [0, 63, 64, 130, 199]);
        bitmap.clear();
        assert!(bitmap.to_sorted_vec().is_empty());
    }

    #[test]
    fn atomic_float_adds() {
        let a = AtomicU32::new(1.5f32.to_bits());
        atomic_add_f32(&a, 2.25);
        assert_eq!(f32::from_bits(a.into_inner()), 3.75);
        let b = AtomicU64::new(0f64.to_bits());
        (0..1000)
            .into_par_iter()
            .for_each(|_| atomic_add_f64(&b, 1.0));
        assert_eq!(f64::from_bits(b.into_inner()), 1000.0);
    }
}
