//! Cache hints shared by the crates that stream large arrays (the `Csr`
//! build, the loader's parse, CSR++'s batch merges and its in-entry scans).
//!
//! The hardware prefetcher stops at every 4 KiB page, and a store whose
//! lists live at scattered addresses gives it nothing to follow; asking for
//! a line some distance ahead hides those waits. A prefetch is only a hint:
//! it never faults and changes nothing the program can observe, whatever
//! the address, so these functions are safe for any input.

/// Asks the CPU to start loading the cache line holding `address` into
/// every cache level (`prefetcht0`). Any address is allowed, dangling or
/// null included: nothing is read into the program. A no-op except on
/// x86-64.
#[inline(always)]
pub fn prefetch_address<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `prefetch_sse` needs only SSE, which every x86-64 CPU has
        // (it is enabled in the default x86-64 target). A prefetch reads
        // nothing into the program and never faults, whatever the address.
        unsafe { prefetch_sse(address.cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = address;
    }
}

/// [`prefetch_address`] of `items[at]`, for any `at`: past the end is
/// still only a hint (the address is formed with `wrapping_add`, so no
/// out-of-bounds pointer arithmetic happens either).
#[inline(always)]
pub fn prefetch<T>(items: &[T], at: usize) {
    prefetch_address(items.as_ptr().wrapping_add(at));
}

/// `prefetcht0` on `address`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse")]
fn prefetch_sse(address: *const u8) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    _mm_prefetch::<_MM_HINT_T0>(address.cast());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetching_any_position_is_harmless() {
        let items = [7u32; 3];
        for at in [0, 2, 3, 512, usize::MAX / 8, usize::MAX] {
            prefetch(&items, at);
        }
        prefetch::<u64>(&[], 0);
        prefetch::<u8>(&[], usize::MAX);
        prefetch_address(std::ptr::null::<u32>());
        prefetch_address(std::ptr::dangling::<u64>());
    }
}
