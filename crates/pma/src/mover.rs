//! In-place redistribution: moving order-preserving blocks inside one
//! array without a scratch copy.
//!
//! A redistribution maps the elements of a window, in order, from their old
//! slots to new ones. Both the old and the new placement list the elements
//! in the same order, so the map can be cut into *blocks*: maximal runs of
//! elements that are contiguous both before and after, each moving by one
//! fixed shift `dst - src`. Blocks are given in element order, so their
//! source ranges are disjoint and increasing, and so are their destination
//! ranges.
//!
//! **Why no element is overwritten before it has moved.** Move, left to
//! right, every block whose shift is `<= 0`; then, right to left, every
//! block whose shift is `> 0`. Take a block `B` moved in the first pass.
//! Its destination lies at or left of its source, so it can only hit
//! elements to its left that are still in place; those are the blocks
//! with a positive shift, which end before their own destination, which
//! ends before `B`'s destination starts. Blocks to its right have not
//! moved and start after `B`'s source ends, which is at or after `B`'s
//! destination end. In the second pass the argument is mirrored: a block
//! with a positive shift can only reach elements to its right; those have
//! already moved (second pass runs right to left) or moved in the first
//! pass, and in both cases they sit in their destinations, which lie past
//! `B`'s. Within one block, `copy_within` is a `memmove`, which is correct
//! for overlapping ranges.

/// A slot position as a [`Block`] stores it: `usize`, or `u32` where the
/// layout's capacity fits (the runs layout, whose redistributions list a
/// block slot per run: half the scratch).
pub(crate) trait SlotIndex: Copy {
    fn slot(self) -> usize;
}

impl SlotIndex for usize {
    #[inline]
    fn slot(self) -> usize {
        self
    }
}

impl SlotIndex for u32 {
    #[inline]
    fn slot(self) -> usize {
        self as usize
    }
}

/// One order-preserving piece of a redistribution: `len` elements from
/// `src..src + len` to `dst..dst + len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block<I = usize> {
    pub(crate) src: I,
    pub(crate) dst: I,
    pub(crate) len: I,
}

/// Appends `block` to `blocks`, merging it into the previous one when both
/// its source and destination continue it.
pub(crate) fn push_block(blocks: &mut Vec<Block>, block: Block) {
    if block.len == 0 {
        return;
    }
    if let Some(last) = blocks.last_mut()
        && last.src + last.len == block.src
        && last.dst + last.len == block.dst
    {
        last.len += block.len;
        return;
    }
    blocks.push(block);
}

/// Performs the moves of `blocks` (in element order, see the module docs)
/// in place and returns how many elements changed slot.
pub(crate) fn move_blocks<T: Copy, I: SlotIndex>(slots: &mut [T], blocks: &[Block<I>]) -> u64 {
    let mut moved = 0u64;
    let slots_of = |b: &Block<I>| (b.src.slot(), b.dst.slot(), b.len.slot());
    for (src, dst, len) in blocks.iter().map(slots_of).filter(|&(s, d, _)| d < s) {
        slots.copy_within(src..src + len, dst);
        moved += len as u64;
    }
    for (src, dst, len) in blocks.iter().rev().map(slots_of).filter(|&(s, d, _)| d > s) {
        slots.copy_within(src..src + len, dst);
        moved += len as u64;
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Random old and new placements of the same sequence: the in-place
        /// mover must produce exactly what a copy through scratch would.
        #[test]
        fn in_place_moves_match_a_scratch_copy(
            gaps_old in proptest::collection::vec(0usize..4, 1..40),
            gaps_new_seed in proptest::collection::vec(0usize..4, 1..40),
        ) {
            let n = gaps_old.len();
            let mut old_pos = Vec::with_capacity(n);
            let mut p = 0;
            for g in &gaps_old { p += g; old_pos.push(p); p += 1; }
            let mut new_pos = Vec::with_capacity(n);
            let mut q = 0;
            for i in 0..n { q += gaps_new_seed[i % gaps_new_seed.len()]; new_pos.push(q); q += 1; }
            let cap = p.max(q);
            let mut slots = vec![u32::MAX; cap];
            for (i, &pos) in old_pos.iter().enumerate() { slots[pos] = i as u32; }
            let mut blocks = Vec::new();
            for i in 0..n {
                push_block(&mut blocks, Block { src: old_pos[i], dst: new_pos[i], len: 1 });
            }
            move_blocks(&mut slots, &blocks);
            for (i, &pos) in new_pos.iter().enumerate() {
                prop_assert_eq!(slots[pos], i as u32);
            }
        }
    }
}
