//! Giving freed memory back to the operating system.
//!
//! A load frees, just before the stores are built, as much memory as the
//! stores then take: the base's shipments (hundreds of megabytes, in
//! blocks of a quarter of a megabyte). glibc keeps blocks of that size in
//! its heap once freed (its threshold for mapping a block on its own rises
//! to the largest block freed so far), so the process's resident set would
//! hold them through the store's build, the run's peak. Trimming the heap
//! then returns them.

/// Returns the heap's free memory to the operating system, where the
/// allocator allows it (glibc); a no-op elsewhere.
pub(crate) fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases memory that the allocator holds
    // as free; it takes no pointer and is safe to call from any thread at
    // any time.
    unsafe {
        libc::malloc_trim(0);
    }
}
