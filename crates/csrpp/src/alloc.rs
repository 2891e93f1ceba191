//! Where edge arrays come from: the global allocator, or a concurrent
//! power-of-two arena after Sahu's CP2AA (paper 002, Appendix A.1.3-A.1.4).
//!
//! Every edge array of a [`crate::CsrPP`] has a power-of-two capacity, so
//! its size in bytes is a power of two too. The arena keeps one free list
//! per size class (16 B … 8 KiB) and one bump pointer (shared by the
//! classes, see [`Shard`]) in each of several shards; a thread always uses
//! "its" shard (picked once per thread), so the shard's mutex is
//! uncontended on the hot path and there is no global lock. A block freed
//! by another thread simply joins that thread's free list, as in CP2AA.
//! Requests above 8 KiB go to the system allocator. The shards' memory is
//! regions that grow geometrically (64 KiB … 4 MiB); those of 2 MiB and
//! more are anonymous maps advised to use transparent huge pages, and are
//! kept for the next arena when a store is dropped (up to 128 MiB per
//! process).

use crossbeam::utils::CachePadded;
use memmap2::MmapMut;
use parking_lot::{Mutex, MutexGuard};
use std::alloc::{Layout, alloc, dealloc, handle_alloc_error};
use std::cell::RefCell;
use std::ptr::NonNull;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which allocator a [`crate::CsrPP`] carves its edge arrays from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AllocatorKind {
    /// The global allocator (`std::alloc`), one call per array.
    System,
    /// The sharded power-of-two arena, the default: size classes 16 B …
    /// 8 KiB, per-class free lists, larger arrays from the system
    /// allocator. Memory of freed small arrays is reused for arrays of the
    /// same class but only returned to the system when the store is
    /// dropped (its huge-page maps, up to 128 MiB per process, are kept
    /// for the next store's arena instead). Chosen as default because it was as fast or faster in most
    /// of the insert benchmarks (`BENCHMARKS.md`, issue 6), not all.
    #[default]
    Arena,
}

/// Smallest arena class: 16 bytes (`2^4`).
const MIN_CLASS_SHIFT: u32 = 4;
/// Largest arena class: 8 KiB (`2^13`), the paper's empirically best limit.
const MAX_CLASS_SHIFT: u32 = 13;
const CLASS_COUNT: usize = (MAX_CLASS_SHIFT - MIN_CLASS_SHIFT + 1) as usize;
/// Largest request the arena serves itself.
pub(crate) const MAX_ARENA_BLOCK: usize = 1 << MAX_CLASS_SHIFT;
/// Bytes of a shard's first region; each further region doubles, up to
/// [`MAX_REGION_BYTES`]. Small stores (the many of a test suite, a clone
/// of a small graph per benchmark iteration) so reserve little, while a
/// large store soon gets regions big enough for huge pages.
const MIN_REGION_BYTES: usize = 64 * 1024;
/// Largest region: two 2 MiB huge pages.
const MAX_REGION_BYTES: usize = 4 * 1024 * 1024;
/// Regions of at least this size are advised to use transparent huge pages
/// (`MADV_HUGEPAGE`; Linux only, a hint the kernel may ignore).
const HUGE_PAGE_BYTES: usize = 2 * 1024 * 1024;
/// Bytes of a cache line: arena blocks up to this size are aligned to their
/// size.
const CACHE_LINE: usize = 64;
/// Alignment of every block (arena and system): enough for `u32`/`f32`
/// and keeps 16-byte blocks from straddling cache lines.
const BLOCK_ALIGN: usize = 16;
/// Byte written over freed arena blocks in debug builds, and checked when
/// a block is handed out again: a write through a dangling pointer shows up
/// as a failed assertion instead of silent corruption.
#[cfg(debug_assertions)]
const POISON: u8 = 0xA5;

/// Where list operations get blocks from and return them to: a store's
/// [`EdgeAllocator`] itself (each call takes the thread's arena shard
/// lock), or a [`LocalBlocks`] holding that lock for a whole run of
/// operations on one thread.
pub(crate) trait BlockSource {
    /// A block of at least `bytes` bytes (`bytes > 0`), aligned to 16.
    fn allocate(&self, bytes: usize) -> NonNull<u32>;

    /// Returns a block to where it came from.
    ///
    /// # Safety
    /// `block` came from `allocate(bytes)` on this source or on another
    /// source of the same [`EdgeAllocator`], and is not used afterwards.
    unsafe fn deallocate(&self, block: NonNull<u32>, bytes: usize);
}

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

    /// A source that holds the current thread's arena shard locked until
    /// it is dropped, so a run of list operations (a batch's merges into
    /// one segment) takes the lock once instead of twice per array. The
    /// lock's atomic read-modify-write also waits for the thread's pending
    /// stores, which in a batch are copies into cold memory, so taking it
    /// per array cost about a tenth of a 1 % batch (`perf`, issue 6 third
    /// pass). Do not use the allocator itself on this thread while the
    /// source lives: the shard lock is not re-entrant.
    pub(crate) fn local(&self) -> LocalBlocks<'_> {
        LocalBlocks {
            allocator: self,
            shard: match self {
                Self::System => None,
                Self::Arena(arena) => Some(RefCell::new(arena.shard().lock())),
            },
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

impl BlockSource for EdgeAllocator {
    /// Aborts via [`handle_alloc_error`] when memory is exhausted, like
    /// `Vec`.
    fn allocate(&self, bytes: usize) -> NonNull<u32> {
        debug_assert!(bytes > 0);
        match self {
            Self::Arena(arena) if bytes <= MAX_ARENA_BLOCK => {
                arena.shard().lock().allocate(class_of(bytes))
            }
            _ => system_allocate(bytes),
        }
    }

    unsafe fn deallocate(&self, block: NonNull<u32>, bytes: usize) {
        match self {
            Self::Arena(arena) if bytes <= MAX_ARENA_BLOCK => {
                // SAFETY: forwarded contract: `block` is a live block of
                // this arena of `bytes`' class.
                unsafe {
                    arena
                        .shard()
                        .lock()
                        .deallocate(block.cast(), class_of(bytes))
                }
            }
            // SAFETY: forwarded contract: `block` came from
            // `system_allocate(bytes)`.
            _ => unsafe { system_deallocate(block, bytes) },
        }
    }
}

/// An [`EdgeAllocator`] with the current thread's arena shard locked (see
/// [`EdgeAllocator::local`]).
pub(crate) struct LocalBlocks<'a> {
    allocator: &'a EdgeAllocator,
    /// The locked shard; `None` for the system allocator.
    shard: Option<RefCell<MutexGuard<'a, Shard>>>,
}

impl BlockSource for LocalBlocks<'_> {
    fn allocate(&self, bytes: usize) -> NonNull<u32> {
        debug_assert!(bytes > 0);
        match &self.shard {
            Some(shard) if bytes <= MAX_ARENA_BLOCK => shard.borrow_mut().allocate(class_of(bytes)),
            _ => system_allocate(bytes),
        }
    }

    unsafe fn deallocate(&self, block: NonNull<u32>, bytes: usize) {
        match &self.shard {
            // SAFETY: forwarded contract: `block` is a live block of this
            // arena (any shard: a freed block joins the freeing thread's
            // lists, as in CP2AA) of `bytes`' class.
            Some(shard) if bytes <= MAX_ARENA_BLOCK => unsafe {
                shard.borrow_mut().deallocate(block.cast(), class_of(bytes))
            },
            // SAFETY: forwarded contract.
            _ => unsafe { self.allocator.deallocate(block, bytes) },
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

/// One shard: a free list per class, and one bump pointer `[next, end)`
/// into its newest region that every class carves fresh blocks from.
///
/// One bump pointer for all classes (CP2AA keeps one pool per class) puts
/// the arrays a thread allocates one after another next to each other
/// whatever their sizes: a batch grows the lists of a segment in vertex
/// order, so their new arrays land in vertex order too, and a later scan
/// over those vertices walks one stream instead of one per size class.
/// Freed blocks still go to their class's free list and are reused first.
#[derive(Default)]
pub(crate) struct Shard {
    free: [Vec<NonNull<u8>>; CLASS_COUNT],
    next: usize,
    end: usize,
    /// The memory the shard carves blocks from.
    regions: Vec<Region>,
}

/// A shard's region: from the global allocator while small (so memory a
/// dropped store gave back is reused without new page faults), an
/// anonymous map advised to use transparent huge pages from
/// [`HUGE_PAGE_BYTES`] on, so the scattered arrays of an updated store
/// cost fewer TLB misses.
enum Region {
    Heap(HeapRegion),
    Map(MmapMut),
}

/// A region from the global allocator, freed on drop.
struct HeapRegion {
    start: NonNull<u8>,
    bytes: usize,
}

impl Drop for HeapRegion {
    fn drop(&mut self) {
        // SAFETY: allocated in `Region::new` with this layout, freed once,
        // here; the arena (and every store using its blocks) is being
        // dropped.
        unsafe { dealloc(self.start.as_ptr(), region_layout(self.bytes)) }
    }
}

/// Huge-page maps of dropped arenas, kept for the next arena (up to
/// [`MAP_CACHE_BYTES`]): a new map's huge pages must be faulted and zeroed
/// (2 MiB at a time) on first touch, a kept one is ready. Without this a
/// store created after another was dropped (a clone per batch, a graph
/// algebra result) paid those faults where the global allocator's heap
/// would have handed back memory it kept. Their contents are stale; arena
/// blocks are always written before they are read.
static MAP_CACHE: std::sync::Mutex<Vec<MmapMut>> = std::sync::Mutex::new(Vec::new());

/// Most bytes of maps [`MAP_CACHE`] keeps once their arenas are gone.
const MAP_CACHE_BYTES: usize = 128 * 1024 * 1024;

impl Region {
    fn new(bytes: usize) -> Self {
        if bytes >= HUGE_PAGE_BYTES {
            let cached = {
                let mut cache = MAP_CACHE.lock().unwrap_or_else(|e| e.into_inner());
                let position = cache.iter().position(|map| map.len() == bytes);
                position.map(|i| cache.swap_remove(i))
            };
            if let Some(map) = cached {
                return Self::Map(map);
            }
            let Ok(map) = MmapMut::map_anon(bytes) else {
                handle_alloc_error(block_layout(bytes))
            };
            #[cfg(target_os = "linux")]
            {
                // Only advice: without huge pages the region works the same.
                let _ = map.advise(memmap2::Advice::HugePage);
            }
            return Self::Map(map);
        }
        let layout = region_layout(bytes);
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe { alloc(layout) };
        match NonNull::new(raw) {
            Some(start) => Self::Heap(HeapRegion { start, bytes }),
            None => handle_alloc_error(layout),
        }
    }

    fn start(&mut self) -> usize {
        match self {
            Self::Heap(heap) => heap.start.as_ptr() as usize,
            Self::Map(map) => map.as_mut_ptr() as usize,
        }
    }

    fn len(&self) -> usize {
        match self {
            Self::Heap(heap) => heap.bytes,
            Self::Map(map) => map.len(),
        }
    }
}

impl Drop for Shard {
    fn drop(&mut self) {
        let mut cache = MAP_CACHE.lock().unwrap_or_else(|e| e.into_inner());
        let mut kept: usize = cache.iter().map(|map| map.len()).sum();
        for region in self.regions.drain(..) {
            if let Region::Map(map) = region
                && kept + map.len() <= MAP_CACHE_BYTES
            {
                kept += map.len();
                cache.push(map);
            }
        }
    }
}

/// Regions are page-aligned (as maps are), so blocks can be aligned to
/// their size within them.
fn region_layout(bytes: usize) -> Layout {
    Layout::from_size_align(bytes, 4096).expect("region sizes are small powers of two")
}

// SAFETY: a `Shard` owns its regions (memory nobody else frees)
// and the pointers in its free lists point into regions of the same
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

impl Shard {
    fn allocate(&mut self, class: usize) -> NonNull<u32> {
        let size = class_bytes(class);
        if let Some(block) = self.free[class].pop() {
            #[cfg(debug_assertions)]
            {
                // SAFETY: `block` is a freed block of `size` bytes inside a
                // region this arena owns; nobody holds it now.
                let bytes = unsafe { std::slice::from_raw_parts(block.as_ptr(), size) };
                assert!(
                    bytes.iter().all(|&b| b == POISON),
                    "arena block {block:p} of {size} B was written after it was freed"
                );
            }
            return block.cast();
        }
        // Blocks of up to a cache line never straddle two (as in a pool
        // per class), so a short array costs one miss, not two.
        let align = size.min(CACHE_LINE);
        let mut start = self.next.next_multiple_of(align);
        if start + size > self.end {
            self.add_region();
            start = self.next;
        }
        self.next = start + size;
        // SAFETY: `start` lies in `[region, region + len)` of a live
        // region (non-null, as `end > start >= region start > 0`); regions
        // are page-aligned and `start` a multiple of `min(size, 64)`, at
        // least 16, and the block fits the region (checked above).
        unsafe { NonNull::new_unchecked(start as *mut u8) }.cast()
    }

    /// Maps the next region (twice the last one, within the limits) and
    /// points the bump pointer at it. The unused tail of the last region
    /// (less than one 8 KiB block) is abandoned.
    fn add_region(&mut self) {
        let bytes = self.regions.last().map_or(MIN_REGION_BYTES, |last| {
            (2 * last.len()).min(MAX_REGION_BYTES)
        });
        let mut region = Region::new(bytes);
        self.next = region.start();
        self.end = self.next + bytes;
        self.regions.push(region);
    }

    /// # Safety
    /// `block` is a live block of this arena (any shard) of class `class`,
    /// not used afterwards.
    unsafe fn deallocate(&mut self, block: NonNull<u8>, class: usize) {
        #[cfg(debug_assertions)]
        // SAFETY: the caller gives us the block back; it is `class_bytes`
        // long and nobody reads it any more.
        unsafe {
            std::ptr::write_bytes(block.as_ptr(), POISON, class_bytes(class));
        }
        self.free[class].push(block);
    }
}

impl Arena {
    fn new() -> Self {
        // Asked once per process: `available_parallelism` reads the
        // cgroup files on Linux (10–18 µs a call here), which was most of
        // the fixed cost of cloning a small store.
        static THREADS: OnceLock<usize> = OnceLock::new();
        let threads =
            *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(4, |n| n.get()));
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

    fn reserved_bytes(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| shard.lock().regions.iter().map(Region::len).sum::<usize>())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tests whose arenas grow to map-sized regions run one at a time, so
    /// the kept-map checks below see no other test's maps come and go.
    static MAP_TESTS: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

    #[test]
    fn classes_round_up_to_powers_of_two() {
        assert_eq!(class_bytes(class_of(1)), 16);
        assert_eq!(class_bytes(class_of(16)), 16);
        assert_eq!(class_bytes(class_of(17)), 32);
        assert_eq!(class_bytes(class_of(8192)), 8192);
        assert_eq!(class_of(8192), CLASS_COUNT - 1);
    }

    fn fill_and_check(allocator: &impl BlockSource, sizes: &[usize]) {
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
        let _maps = MAP_TESTS.lock();
        let sizes: Vec<usize> = (0..3000).map(|i| 8 << (i % 12)).collect();
        for kind in [AllocatorKind::Arena, AllocatorKind::System] {
            let allocator = EdgeAllocator::new(kind);
            fill_and_check(&allocator, &sizes);
            // The same through a source holding the shard lock, mixing in
            // blocks the allocator itself handed out and takes back.
            let outside = allocator.allocate(64);
            {
                let local = allocator.local();
                fill_and_check(&local, &sizes);
                // SAFETY: `outside` is live, 64 bytes, from this allocator.
                unsafe { local.deallocate(outside, 64) };
            }
            let again = allocator.allocate(64);
            // SAFETY: `again` is live, 64 bytes, freed once.
            unsafe { allocator.deallocate(again, 64) };
        }
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
        let _maps = MAP_TESTS.lock();
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
        assert!(allocator.reserved_bytes() >= MIN_REGION_BYTES);
    }

    #[test]
    fn arena_regions_grow_to_huge_page_maps_and_align_short_blocks() {
        let _maps = MAP_TESTS.lock();
        let allocator = EdgeAllocator::new(AllocatorKind::Arena);
        let local = allocator.local();
        // Mixed sizes from one thread: 2,000 rounds of 16 B … 8 KiB, about
        // 32 MiB, so the regions grow to their largest size.
        let mut blocks = Vec::new();
        for round in 0..2000usize {
            for shift in 4..=13 {
                let bytes = 1usize << shift;
                let block = local.allocate(bytes);
                let address = block.as_ptr() as usize;
                assert_eq!(address % bytes.min(CACHE_LINE), 0, "{bytes} B block");
                // SAFETY: a fresh block of `bytes` bytes.
                unsafe { block.as_ptr().cast::<u8>().write_bytes(round as u8, bytes) };
                blocks.push((block, bytes, round as u8));
            }
        }
        for &(block, bytes, tag) in &blocks {
            // SAFETY: live, written above.
            let data = unsafe { std::slice::from_raw_parts(block.as_ptr().cast::<u8>(), bytes) };
            assert!(data.iter().all(|&b| b == tag), "block overwritten");
        }
        {
            let shard = local.shard.as_ref().unwrap().borrow();
            assert!(
                shard
                    .regions
                    .iter()
                    .any(|r| matches!(r, Region::Map(m) if m.len() == MAX_REGION_BYTES))
            );
            assert!(shard.regions.iter().all(|r| r.len() <= MAX_REGION_BYTES));
        }
        for (block, bytes, _) in blocks {
            // SAFETY: each live block is freed once.
            unsafe { local.deallocate(block, bytes) };
        }
        drop(local);
        assert!(allocator.reserved_bytes() >= 30 << 20);
        // Dropping the arena keeps its maps for the next one (no other test
        // grows an arena to map size, so nobody takes them in between).
        let maps: Vec<usize> = {
            let mut shard = allocator_shard(&allocator);
            shard
                .regions
                .iter_mut()
                .filter(|r| matches!(r, Region::Map(_)))
                .map(Region::start)
                .collect()
        };
        drop(allocator);
        let cached: Vec<usize> = MAP_CACHE
            .lock()
            .unwrap()
            .iter_mut()
            .map(|map| map.as_mut_ptr() as usize)
            .collect();
        assert!(cached.iter().map(|_| MAX_REGION_BYTES).sum::<usize>() <= MAP_CACHE_BYTES);
        assert!(cached.iter().any(|start| maps.contains(start)));
        let again = EdgeAllocator::new(AllocatorKind::Arena);
        {
            let local = again.local();
            // Enough for the regions to reach map size again.
            for _ in 0..1000 {
                local.allocate(MAX_ARENA_BLOCK);
            }
        }
        let mut shard = allocator_shard(&again);
        assert!(
            shard
                .regions
                .iter_mut()
                .any(|r| matches!(r, Region::Map(_)) && cached.contains(&r.start())),
            "a new arena reuses a kept map"
        );
    }

    /// The current thread's shard of an arena allocator, locked.
    fn allocator_shard(allocator: &EdgeAllocator) -> parking_lot::MutexGuard<'_, Shard> {
        match allocator {
            EdgeAllocator::Arena(arena) => arena.shard().lock(),
            EdgeAllocator::System => unreachable!("an arena allocator"),
        }
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
