//! Copies of large arrays into fresh memory at copy speed.
//!
//! A clone's arrays are new memory: glibc maps every block past its mmap
//! threshold (which never exceeds 32 MiB) afresh, and the kernel backs each
//! 4 KiB page of it on first touch with a fault and a zeroed page. On a
//! Kronecker-20 `Csr` (84 MB with in-edges) those faults were two thirds
//! of a clone (41 ms, against 13 ms for the same copy into memory already
//! touched). Advising transparent huge pages before the first touch makes
//! it one fault per 2 MiB: the copy then costs the kernel's zeroing plus
//! the memcpy (20 ms). CSR++'s arena does the same for its regions.

use std::mem::MaybeUninit;

/// Arrays smaller than this are copied without advice: they hold at most
/// one whole huge page, and are usually served from memory the allocator
/// has already touched.
const ADVISED_BYTES: usize = 4 << 20;

/// A copy of `source` in a new vector of exactly its length; when large,
/// its memory is advised for huge pages before it is written.
pub(crate) fn copy_of<T: Copy>(source: &[T]) -> Vec<T> {
    let mut copy = Vec::with_capacity(source.len());
    if size_of_val(source) >= ADVISED_BYTES {
        advise_huge_pages(&mut copy.spare_capacity_mut()[..source.len()]);
    }
    copy.extend_from_slice(source);
    copy
}

/// Asks the kernel to back the whole 2 MiB pages inside `memory` with
/// huge pages when they are first touched. Only advice: the memory works
/// the same when it is refused (no transparent huge pages, or not enough
/// free), so the result is ignored.
#[cfg(target_os = "linux")]
fn advise_huge_pages<T>(memory: &mut [MaybeUninit<T>]) {
    const HUGE_PAGE: usize = 2 << 20;
    let start = memory.as_mut_ptr() as usize;
    let end = start + size_of_val(memory);
    // 2 MiB boundaries are page boundaries for every page size Linux uses
    // under huge pages, as `madvise` requires of its start.
    let (first, last) = (
        start.next_multiple_of(HUGE_PAGE),
        end / HUGE_PAGE * HUGE_PAGE,
    );
    if last > first {
        // SAFETY: `first..last` lies inside `memory`, which is borrowed
        // mutably here and holds no values yet. `MADV_HUGEPAGE` changes
        // only how the kernel backs those pages, never their contents or
        // the mapping's protection, and fails without effect on memory
        // that cannot take it.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages<T>(_memory: &mut [MaybeUninit<T>]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_copy_through_advised_memory_equals_its_source() {
        let source: Vec<u32> = (0..3 << 20)
            .map(|i: u32| i.wrapping_mul(2_654_435_761))
            .collect();
        assert!(size_of_val(&source[..]) >= ADVISED_BYTES);
        let copy = copy_of(&source);
        assert_eq!(copy, source);
        assert_eq!(copy.capacity(), source.len());
    }

    #[test]
    fn a_csr_clone_with_advised_arrays_equals_the_original() {
        use crate::store::StoreConfig;
        use crate::{Csr, CsrOptions, InEdges, WeightedEdge};
        // 1.2 M targets: 4.8 MB, past `ADVISED_BYTES`, in both directions.
        let edges: Vec<WeightedEdge> = (0..1_200_000u32)
            .map(|i| WeightedEdge::new(i % 5_000, (i / 5_000 + i) % 5_000, i as f32))
            .collect();
        let csr = Csr::from_edges(&edges[..], CsrOptions::default().in_edges(true)).unwrap();
        assert!(size_of_val(csr.targets()) >= ADVISED_BYTES);
        let clone = csr.clone();
        assert_eq!(clone, csr);
        assert_eq!(
            clone.in_edges().unwrap().in_slice(42),
            csr.in_edges().unwrap().in_slice(42)
        );
        drop(csr);
        assert_eq!(clone.out_slice(7).len(), 240);
    }

    #[test]
    fn a_small_or_empty_copy_equals_its_source() {
        assert_eq!(copy_of::<u64>(&[]), Vec::<u64>::new());
        assert_eq!(copy_of(&[1u64, 2, 3]), [1, 2, 3]);
    }
}
