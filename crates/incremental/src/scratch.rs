//! Per-vertex scratch that is never cleared between updates: epoch stamps
//! and `f64` cells readable and writable from many threads.
//!
//! An update touching a hundred vertices must not pay `O(V)` to reset a
//! visited array. A [`Stamps`] array marks a vertex by writing the current
//! epoch into its slot, so "forgetting" every mark is one increment of the
//! epoch; the slots are rewritten only when the 32-bit epoch wraps (once in
//! four billion epochs).

use dyngraph_core::VertexId;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Vertices at or above which a growth or reset of a per-vertex array runs
/// in parallel.
const PARALLEL_FILL: usize = 1 << 16;

/// One epoch stamp per vertex, settable from many threads.
///
/// Relaxed ordering is enough: a stamp is read either by the thread that
/// wrote it or in a later rayon step, and the end of a rayon call orders
/// every write before what follows.
#[derive(Debug, Default)]
pub(crate) struct Stamps {
    slots: Vec<AtomicU32>,
    epoch: u32,
}

impl Clone for Stamps {
    fn clone(&self) -> Self {
        Self {
            slots: self
                .slots
                .par_iter()
                .with_min_len(4096)
                .map(|s| AtomicU32::new(s.load(Relaxed)))
                .collect(),
            epoch: self.epoch,
        }
    }
}

impl Stamps {
    /// Slots for `n` vertices, none marked.
    pub(crate) fn new(n: usize) -> Self {
        let mut stamps = Self {
            slots: Vec::new(),
            epoch: 0,
        };
        stamps.grow(n);
        stamps
    }

    /// Room for `n` vertices; new slots carry no mark.
    pub(crate) fn grow(&mut self, n: usize) {
        if n > self.slots.len() {
            let extra = n - self.slots.len();
            if extra >= PARALLEL_FILL {
                self.slots
                    .par_extend((0..extra).into_par_iter().map(|_| AtomicU32::new(0)));
            } else {
                self.slots.extend((0..extra).map(|_| AtomicU32::new(0)));
            }
        }
    }

    /// A new epoch: every earlier mark is forgotten, in `O(1)` (`O(V)` once
    /// in 2^32 epochs, when the counter wraps).
    pub(crate) fn next_epoch(&mut self) -> u32 {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.slots.par_iter().for_each(|s| s.store(0, Relaxed));
            self.epoch = 1;
        }
        self.epoch
    }

    /// Marks `v` in `epoch`; `true` if it was not marked in it before (one
    /// caller wins when several threads mark the same vertex).
    #[inline]
    pub(crate) fn mark(&self, v: VertexId, epoch: u32) -> bool {
        let slot = &self.slots[v as usize];
        slot.load(Relaxed) != epoch && slot.swap(epoch, Relaxed) != epoch
    }

    /// Whether `v` is marked in `epoch`.
    #[inline]
    pub(crate) fn is_marked(&self, v: VertexId, epoch: u32) -> bool {
        self.slots[v as usize].load(Relaxed) == epoch
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.slots.capacity() * 4
    }
}

/// `f64` values, one per vertex, read and written from many threads (the
/// bits in an `AtomicU64`; a relaxed load or store is a plain move on
/// x86-64 and AArch64, so the serial paths pay nothing for it).
#[derive(Debug, Default)]
pub(crate) struct F64Cells {
    cells: Vec<AtomicU64>,
}

impl Clone for F64Cells {
    fn clone(&self) -> Self {
        Self {
            cells: self
                .cells
                .par_iter()
                .with_min_len(4096)
                .map(|c| AtomicU64::new(c.load(Relaxed)))
                .collect(),
        }
    }
}

impl F64Cells {
    /// Room for `n` values; new cells hold `value`.
    pub(crate) fn grow(&mut self, n: usize, value: f64) {
        if n > self.cells.len() {
            let extra = n - self.cells.len();
            let bits = value.to_bits();
            if extra >= PARALLEL_FILL {
                self.cells
                    .par_extend((0..extra).into_par_iter().map(|_| AtomicU64::new(bits)));
            } else {
                self.cells.extend((0..extra).map(|_| AtomicU64::new(bits)));
            }
        }
    }

    /// Number of cells.
    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }

    #[inline]
    pub(crate) fn get(&self, v: VertexId) -> f64 {
        f64::from_bits(self.cells[v as usize].load(Relaxed))
    }

    #[inline]
    pub(crate) fn set(&self, v: VertexId, value: f64) {
        self.cells[v as usize].store(value.to_bits(), Relaxed);
    }

    /// Adds `value` to cell `v` atomically (the push sweeps' accumulator).
    #[inline]
    pub(crate) fn add(&self, v: VertexId, value: f64) {
        let cell = &self.cells[v as usize];
        let mut current = cell.load(Relaxed);
        loop {
            let next = (f64::from_bits(current) + value).to_bits();
            match cell.compare_exchange_weak(current, next, Relaxed, Relaxed) {
                Ok(_) => return,
                Err(actual) => current = actual,
            }
        }
    }

    /// Sets every cell to `value`, in parallel.
    pub(crate) fn fill(&self, value: f64) {
        let bits = value.to_bits();
        self.cells
            .par_iter()
            .with_min_len(4096)
            .for_each(|c| c.store(bits, Relaxed));
    }

    /// The values as a plain vector.
    pub(crate) fn to_vec(&self) -> Vec<f64> {
        self.cells
            .par_iter()
            .with_min_len(4096)
            .map(|c| f64::from_bits(c.load(Relaxed)))
            .collect()
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.cells.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_forget_marks_with_each_epoch() {
        let mut stamps = Stamps::new(4);
        let first = stamps.next_epoch();
        assert!(stamps.mark(2, first));
        assert!(!stamps.mark(2, first));
        assert!(stamps.is_marked(2, first));
        let second = stamps.next_epoch();
        assert!(!stamps.is_marked(2, second));
        stamps.grow(10);
        assert!(stamps.mark(9, second));
    }

    #[test]
    fn stamps_survive_the_epoch_wrapping() {
        let mut stamps = Stamps::new(3);
        stamps.epoch = u32::MAX - 1;
        let last = stamps.next_epoch();
        assert_eq!(last, u32::MAX);
        assert!(stamps.mark(1, last));
        let wrapped = stamps.next_epoch();
        assert_eq!(wrapped, 1);
        assert!(!stamps.is_marked(1, wrapped));
        assert!(stamps.mark(1, wrapped));
    }

    #[test]
    fn cells_add_from_many_threads() {
        let mut cells = F64Cells::default();
        cells.grow(2, 0.5);
        (0..1000).into_par_iter().for_each(|_| cells.add(1, 1.0));
        assert_eq!(cells.get(1), 1000.5);
        cells.grow(3, 2.0);
        assert_eq!(cells.to_vec(), [0.5, 1000.5, 2.0]);
        cells.fill(0.0);
        assert_eq!(cells.to_vec(), [0.0; 3]);
    }
}
