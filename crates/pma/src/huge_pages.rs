//! Slot arrays in memory advised for transparent huge pages.
//!
//! A large layout's slots are hundreds of megabytes, written at scattered
//! runs by every batch: with 4 KiB pages nearly each of those writes also
//! misses the TLB. This system leaves huge pages to `madvise`, so a slot
//! array laid out in bulk asks for them before its first touch (as
//! `dyngraph-core`'s `Csr` copies do for theirs). Kronecker 20 batches of
//! 10^4-10^5 edges, one thread: with in-edges 25-35 % faster, out-edges
//! alone up to 10 %. A rebuild inside a batch does not ask: faulting huge
//! pages in on fragmented memory stalled the batch (`rebuild_with`).

/// Arrays smaller than this are left alone: they hold at most one whole
/// huge page.
const ADVISED_BYTES: usize = 4 << 20;

/// An empty vector with room for `capacity` items, its memory advised for
/// huge pages when large. Only advice: the memory works the same when the
/// kernel refuses it.
pub(crate) fn vec_with_capacity<T>(capacity: usize) -> Vec<T> {
    let mut items = Vec::with_capacity(capacity);
    if capacity.saturating_mul(size_of::<T>()) >= ADVISED_BYTES {
        advise(&mut items);
    }
    items
}

/// `items` filled up to `len` with copies of `fill`, in an allocation of
/// exactly `len`: advised for huge pages when large (a copy into fresh
/// memory), resized in place otherwise.
pub(crate) fn filled_to<T: Copy>(mut items: Vec<T>, len: usize, fill: T) -> Vec<T> {
    if len.saturating_mul(size_of::<T>()) < ADVISED_BYTES {
        items.resize(len, fill);
        items.shrink_to_fit();
        return items;
    }
    let mut advised = vec_with_capacity(len);
    advised.extend_from_slice(&items);
    drop(items);
    advised.resize(len, fill);
    advised
}

#[cfg(target_os = "linux")]
fn advise<T>(items: &mut Vec<T>) {
    const HUGE_PAGE: usize = 2 << 20;
    let spare = items.spare_capacity_mut();
    let start = spare.as_mut_ptr() as usize;
    let end = start + size_of_val(spare);
    let (first, last) = (
        start.next_multiple_of(HUGE_PAGE),
        end / HUGE_PAGE * HUGE_PAGE,
    );
    if last > first {
        // SAFETY: `first..last` lies inside the vector's spare capacity,
        // borrowed mutably here and holding no values. `MADV_HUGEPAGE`
        // changes only how the kernel backs those pages, never their
        // contents or protection, and fails without effect on memory that
        // cannot take it.
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
fn advise<T>(_items: &mut Vec<T>) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advised_vectors_hold_what_is_put_in_them() {
        let mut large: Vec<u32> = vec_with_capacity(3 << 20);
        assert!(large.capacity() >= 3 << 20);
        large.extend(0..3 << 20);
        assert!(large.iter().enumerate().all(|(i, &x)| x == i as u32));
        let small: Vec<u64> = vec_with_capacity(10);
        assert!(small.capacity() >= 10 && small.is_empty());
        for (len, used) in [(5, 3), (3 << 20, 1000)] {
            let items: Vec<u32> = (0..used).collect();
            let filled = filled_to(items, len, 7);
            assert_eq!((filled.len(), filled.capacity()), (len, len));
            assert!(
                filled[..used as usize]
                    .iter()
                    .enumerate()
                    .all(|(i, &x)| x == i as u32)
            );
            assert!(filled[used as usize..].iter().all(|&x| x == 7));
        }
    }
}
