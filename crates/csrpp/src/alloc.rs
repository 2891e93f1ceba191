//! Where edge arrays come from: the global allocator, or a concurrent
//! power-of-two arena after Sahu's CP2AA (paper 002, Appendix A.1.3-A.1.4).
//!
//! Every edge array of a [`crate::CsrPP`] has a power-of-two capacity, so
//! its size in bytes is a power of two too. The arena keeps one bump-pointer
//! pool and one free list per size class (16 B … 8 KiB) in each of several
//! shards; a thread always uses "its" shard (picked once per thread), so the
//! shard's mutex is uncontended on the hot path and there is no global lock.
//! A block freed by another thread simply joins that thread's free list, as
//! in CP2AA. Requests above 8 KiB go to the system allocator.

use crossbeam::utils::CachePadded;
use parking_lot::Mutex;
use std::alloc::{Layout, alloc, dealloc, handle_alloc_error};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which allocator a [`crate::CsrPP`] carves its edge arrays from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AllocatorKind {
    /// The global allocator (`std::alloc`), one call per array.
    #[default]
    System,
    /// The sharded power-of-two arena ([`crate::CsrPPConfig::allocator`]):
    /// size classes 16 B … 8 KiB, per-class free lists, larger arrays from
    /// the system allocator. Memory of freed small arrays is reused but only
    /// returned to the system when the store is dropped.
    Arena,
}

/// Smallest arena class: 16 bytes (`2^4`).
const MIN_CLASS_SHIFT: u32 = 4;
/// Largest arena class: 8 KiB (`2^13`), the paper's empirically best limit.
const MAX_CLASS_SHIFT: u32 = 13;
const CLASS_COUNT: usize = (MAX_CLASS_SHIFT - MIN_CLASS_SHIFT + 1) as usize;
/// Largest request the arena serves itself.
pub(crate) const MAX_ARENA_BLOCK: usize = 1 << MAX_CLASS_SHIFT;
/// Bytes of one pool chunk that a size class carves blocks from.
const CHUNK_BYTES: usize = 256 * 1024;
/// Alignment of every block (arena and system): enough for `u32`/`f32`
/// and keeps 16-byte blocks from straddling cache lines.
const BLOCK_ALIGN: usize = 16;
/// Byte written over freed arena blocks in debug builds, and checked when
/// a block is handed out again: a write through a dangling pointer shows up
/// as a failed assertion instead of silent corruption.
#[cfg(debug_assertions)]
const POISON: u8 = 0xA5;

/// The allocator of one store.
#[derive(Debug)]
pub(crate) enum EdgeAllocator {
    System,
    Arena(Arena),
}

impl EdgeAllocator {
    pub(crate) fn new(kind: AllocatorKind) -> Self {
        match kind {
            AllocatorKind::System => Self::System,
            AllocatorKind::Arena => Self::Arena(Arena::new()),
        }
    }

    pub(crate) fn kind(&self) -> AllocatorKind {
        match self {
            Self::System => AllocatorKind::System,
            Self::Arena(_) => AllocatorKind::Arena,
        }
    }

    /// The bytes a request of `bytes` really occupies (its size class in the
    /// arena).
    pub(crate) fn footprint(&self, bytes: usize) -> usize {
        match self {
            Self::System => bytes,
            Self::Arena(_) if bytes <= MAX_ARENA_BLOCK => class_bytes(class_of(bytes)),
            Self::Arena(_) => bytes,
        }
    }

    /// Whether dropping the store must hand a block of `bytes` back one by
    /// one (system blocks), or whether dropping the arena releases it.
    pub(crate) fn needs_individual_free(&self, bytes: usize) -> bool {
        match self {
            Self::System => true,
            Self::Arena(_) => bytes > MAX_ARENA_BLOCK,
        }
    }

    /// A block of at least `bytes` bytes (`bytes > 0`), aligned to 16.
    /// Aborts via [`handle_alloc_error`] when memory is exhausted, like
    /// `Vec`.
    pub(crate) fn allocate(&self, bytes: usize) -> NonNull<u32> {
        debug_assert!(bytes > 0);
        match self {
            Self::Arena(arena) if bytes <= MAX_ARENA_BLOCK => arena.allocate(class_of(bytes)),
            _ => system_allocate(bytes),
        }
    }

    /// Returns a block to where it came from.
    ///
    /// # Safety
    /// `block` must have come from [`EdgeAllocator::allocate`] on this very
    /// allocator with the same `bytes`, and must not be used afterwards.
    pub(crate) unsafe fn deallocate(&self, block: NonNull<u32>, bytes: usize) {
        match self {
            Self::Arena(arena) if bytes <= MAX_ARENA_BLOCK => {
                // SAFETY: forwarded contract: `block` is a live block of
                // this arena of `bytes`' class.
                unsafe { arena.deallocate(block.cast(), class_of(bytes)) }
            }
            // SAFETY: forwarded contract: `block` came from
            // `system_allocate(bytes)`.
            _ => unsafe { system_deallocate(block, bytes) },
        }
    }

    /// Bytes the allocator holds from the system for small blocks (arena
    /// chunks, used or not); 0 for the system allocator.
    pub(crate) fn reserved_bytes(&self) -> usize {
        match self {
            Self::System => 0,
            Self::Arena(arena) => arena.reserved_bytes(),
        }
    }
}

fn block_layout(bytes: usize) -> Layout {
    match Layout::from_size_align(bytes, BLOCK_ALIGN) {
        Ok(layout) => layout,
        // Only reachable for sizes near `isize::MAX`, which no edge array
        // of `u32` ids can request before the vertex limit refuses it.
        Err(_) => panic!("edge array of {bytes} bytes exceeds the address space"),
    }
}

fn system_allocate(bytes: usize) -> NonNull<u32> {
    let layout = block_layout(bytes);
    // SAFETY: `layout` has a non-zero size (callers never ask for 0 bytes,
    // checked in debug builds by `allocate`).
    let raw = unsafe { alloc(layout) };
    match NonNull::new(raw) {
        Some(block) => block.cast(),
        None => handle_alloc_error(layout),
    }
}

/// # Safety
/// `block` came from `system_allocate(bytes)` and is not used afterwards.
unsafe fn system_deallocate(block: NonNull<u32>, bytes: usize) {
    // SAFETY: same pointer and layout as the allocation (caller's contract).
    unsafe { dealloc(block.as_ptr().cast(), block_layout(bytes)) }
}

/// Size class of a request of `bytes <= MAX_ARENA_BLOCK`: the index of the
/// smallest power of two `>= max(bytes, 16)`.
fn class_of(bytes: usize) -> usize {
    let shift = bytes
        .max(1 << MIN_CLASS_SHIFT)
        .next_power_of_two()
        .trailing_zeros();
    (shift - MIN_CLASS_SHIFT) as usize
}

fn class_bytes(class: usize) -> usize {
    1 << (class as u32 + MIN_CLASS_SHIFT)
}

/// The sharded power-of-two arena.
pub(crate) struct Arena {
    shards: Box<[CachePadded<Mutex<Shard>>]>,
}

impl std::fmt::Debug for Arena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arena")
            .field("shards", &self.shards.len())
            .field("reserved_bytes", &self.reserved_bytes())
            .finish()
    }
}

/// One shard: a pool and a free list per class, and the chunks it owns.
#[derive(Default)]
struct Shard {
    classes: [SizeClass; CLASS_COUNT],
    chunks: Vec<NonNull<u8>>,
}

/// Blocks of one size in one shard: freed blocks first, then the unused
/// tail `[next, end)` of the class's current chunk.
#[derive(Default)]
struct SizeClass {
    free: Vec<NonNull<u8>>,
    next: usize,
    end: usize,
}

// SAFETY: a `Shard` owns its chunks (raw pointers to memory nobody else
// frees) and the pointers in its free lists point into chunks of the same
// arena; moving it to another thread moves that ownership, nothing is
// thread-bound.
unsafe impl Send for Shard {}

/// Shard picked by the current thread, assigned round-robin at its first
/// allocation so the threads of a rayon pool land on distinct shards.
fn thread_shard_seed() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SEED: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    SEED.with(|seed| *seed)
}

impl Arena {
    fn new() -> Self {
        let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
        let shard_count = (threads * 2).next_power_of_two().max(4);
        Self {
            shards: (0..shard_count)
                .map(|_| CachePadded::new(Mutex::default()))
                .collect(),
        }
    }

    fn shard(&self) -> &Mutex<Shard> {
        &self.shards[thread_shard_seed() & (self.shards.len() - 1)]
    }

    fn allocate(&self, class: usize) -> NonNull<u32> {
        let size = class_bytes(class);
        let mut shard = self.shard().lock();
        let shard = &mut *shard;
        let pool = &mut shard.classes[class];
        if let Some(block) = pool.free.pop() {
            #[cfg(debug_assertions)]
            {
                // SAFETY: `block` is a freed block of `size` bytes inside a
                // chunk this arena owns; nobody holds it now.
                let bytes = unsafe { std::slice::from_raw_parts(block.as_ptr(), size) };
                assert!(
                    bytes.iter().all(|&b| b == POISON),
                    "arena block {block:p} of {size} B was written after it was freed"
                );
            }
            return block.cast();
        }
        if pool.next + size > pool.end {
            let layout = block_layout(CHUNK_BYTES);
            // SAFETY: `CHUNK_BYTES` is non-zero.
            let raw = unsafe { alloc(layout) };
            let Some(chunk) = NonNull::new(raw) else {
                handle_alloc_error(layout)
            };
            shard.chunks.push(chunk);
            pool.next = chunk.as_ptr() as usize;
            pool.end = pool.next + CHUNK_BYTES;
        }
        let block = pool.next as *mut u8;
        pool.next += size;
        // SAFETY: `block` lies in `[chunk, chunk + CHUNK_BYTES)` of a live
        // chunk (non-null); classes are powers of two dividing CHUNK_BYTES,
        // so it is 16-aligned and the block fits the chunk.
        unsafe { NonNull::new_unchecked(block) }.cast()
    }

    /// # Safety
    /// `block` is a live block of this arena of class `class`, not used
    /// afterwards.
    unsafe fn deallocate(&self, block: NonNull<u8>, class: usize) {
        #[cfg(debug_assertions)]
        // SAFETY: the caller gives us the block back; it is `class_bytes`
        // long and nobody reads it any more.
        unsafe {
            std::ptr::write_bytes(block.as_ptr(), POISON, class_bytes(class));
        }
        self.shard().lock().classes[class].free.push(block);
    }

    fn reserved_bytes(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| shard.lock().chunks.len() * CHUNK_BYTES)
            .sum()
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for shard in self.shards.iter_mut() {
            for chunk in shard.get_mut().chunks.drain(..) {
                // SAFETY: every chunk came from `alloc(block_layout(CHUNK_BYTES))`
                // and is freed once, here; the store that used its blocks
                // is gone (the arena is dropped with it).
                unsafe { dealloc(chunk.as_ptr(), block_layout(CHUNK_BYTES)) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_round_up_to_powers_of_two() {
        assert_eq!(class_bytes(class_of(1)), 16);
        assert_eq!(class_bytes(class_of(16)), 16);
        assert_eq!(class_bytes(class_of(17)), 32);
        assert_eq!(class_bytes(class_of(8192)), 8192);
        assert_eq!(class_of(8192), CLASS_COUNT - 1);
    }

    fn fill_and_check(allocator: &EdgeAllocator, sizes: &[usize]) {
        // Allocate, fill each block with its own pattern, check nothing
        // overlaps, free half, reallocate, check again.
        let mut blocks: Vec<(NonNull<u32>, usize, u32)> = Vec::new();
        for (i, &bytes) in sizes.iter().enumerate() {
            let block = allocator.allocate(bytes);
            assert_eq!(block.as_ptr() as usize % BLOCK_ALIGN, 0);
            let words = bytes / 4;
            // SAFETY: the block holds at least `bytes` bytes.
            unsafe { std::slice::from_raw_parts_mut(block.as_ptr(), words).fill(i as u32) };
            blocks.push((block, bytes, i as u32));
        }
        let check = |blocks: &[(NonNull<u32>, usize, u32)]| {
            for &(block, bytes, tag) in blocks {
                // SAFETY: live block of `bytes` bytes, filled above.
                let words = unsafe { std::slice::from_raw_parts(block.as_ptr(), bytes / 4) };
                assert!(words.iter().all(|&w| w == tag), "block {tag} overwritten");
            }
        };
        check(&blocks);
        let mut kept = Vec::new();
        for (i, entry) in blocks.into_iter().enumerate() {
            if i % 2 == 0 {
                // SAFETY: allocated above with these bytes, freed once.
                unsafe { allocator.deallocate(entry.0, entry.1) };
            } else {
                kept.push(entry);
            }
        }
        for (i, &bytes) in sizes.iter().enumerate().step_by(2) {
            let block = allocator.allocate(bytes);
            let tag = 1_000_000 + i as u32;
            // SAFETY: fresh block of at least `bytes` bytes.
            unsafe { std::slice::from_raw_parts_mut(block.as_ptr(), bytes / 4).fill(tag) };
            kept.push((block, bytes, tag));
        }
        check(&kept);
        for (block, bytes, _) in kept {
            // SAFETY: each live block is freed once.
            unsafe { allocator.deallocate(block, bytes) };
        }
    }

    #[test]
    fn arena_blocks_do_not_overlap_and_are_reused() {
        let sizes: Vec<usize> = (0..3000).map(|i| 8 << (i % 12)).collect();
        fill_and_check(&EdgeAllocator::new(AllocatorKind::Arena), &sizes);
        fill_and_check(&EdgeAllocator::new(AllocatorKind::System), &sizes);
    }

    #[test]
    fn arena_reuses_freed_blocks() {
        let allocator = EdgeAllocator::new(AllocatorKind::Arena);
        let a = allocator.allocate(64);
        // SAFETY: `a` is live, 64 bytes, freed once.
        unsafe { allocator.deallocate(a, 64) };
        let b = allocator.allocate(64);
        assert_eq!(a, b, "the free list hands the block back first");
        // SAFETY: `b` is live, 64 bytes, freed once.
        unsafe { allocator.deallocate(b, 64) };
    }

    #[test]
    fn arena_is_usable_from_many_threads() {
        let allocator = EdgeAllocator::new(AllocatorKind::Arena);
        std::thread::scope(|scope| {
            for t in 0..8u32 {
                let allocator = &allocator;
                scope.spawn(move || {
                    let sizes: Vec<usize> =
                        (0..500).map(|i| 16 << ((i + t as usize) % 9)).collect();
                    fill_and_check(allocator, &sizes);
                });
            }
        });
        assert!(allocator.reserved_bytes() >= CHUNK_BYTES);
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "written after it was freed")]
    fn poisoning_catches_writes_after_free() {
        let allocator = EdgeAllocator::new(AllocatorKind::Arena);
        let block = allocator.allocate(32);
        // SAFETY: `block` is live, 32 bytes, freed once.
        unsafe { allocator.deallocate(block, 32) };
        // Deliberately write through the dangling pointer: the memory is
        // still a mapped arena chunk, so this is a logic error the poison
        // check must report, not a fault.
        // SAFETY: the chunk stays allocated while `allocator` lives; this
        // write models a use-after-free bug in a caller.
        unsafe { block.as_ptr().write(7) };
        let _again = allocator.allocate(32);
    }
}
