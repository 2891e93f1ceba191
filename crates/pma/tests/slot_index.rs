//! An owner can index every element by slot through `take_changed`, and
//! `iter_at_slot` and `Iter::next_slice` read from such an index: checked
//! after every insert and remove through shifts, rebalances, growth and
//! shrinking (what PCSR's per-vertex sentinel index relies on).

use dyngraph_pma::PackedSet;
use std::collections::BTreeMap;

fn refresh(set: &mut PackedSet<u64>, index: &mut BTreeMap<u64, usize>) {
    if let Some(changed) = set.take_changed() {
        for (first, elements) in set.slices_in(changed) {
            for (i, &x) in elements.iter().enumerate() {
                index.insert(x, first + i);
            }
        }
    }
}

fn check(set: &PackedSet<u64>, index: &BTreeMap<u64, usize>) {
    let all: Vec<u64> = set.iter().collect();
    for (i, &x) in all.iter().enumerate() {
        let slot = index[&x];
        let mut from = set.iter_at_slot(slot);
        assert_eq!(from.next(), Some(x), "element {x} indexed at slot {slot}");
        // The rest, read a leaf slice at a time, is the set's tail.
        let mut tail = Vec::new();
        while let Some(slice) = from.next_slice() {
            tail.extend_from_slice(slice);
        }
        assert_eq!(tail, all[i + 1..], "the slices after {x}");
    }
}

#[test]
fn slot_index_follows_every_move() {
    let mut set = PackedSet::new();
    let mut index = BTreeMap::new();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut present = Vec::new();
    for step in 0..3000 {
        let x = next() % 5000;
        if step % 4 == 3 && !present.is_empty() {
            let victim = present.swap_remove((next() % present.len() as u64) as usize);
            assert!(set.remove(&victim));
            index.remove(&victim);
        } else if set.insert(x) {
            present.push(x);
        }
        refresh(&mut set, &mut index);
        if step % 97 == 0 {
            check(&set, &index);
        }
    }
    check(&set, &index);
    // Shrinking: remove almost everything.
    for x in present.drain(..).skip(10) {
        assert!(set.remove(&x));
        index.remove(&x);
        refresh(&mut set, &mut index);
    }
    check(&set, &index);
    set.validate().unwrap();
}

/// An index kept by following `last_insert_moves` after every insert (no
/// re-reading of changed slots) stays exact through shifts, rebalances and
/// growth; `insert_before` with the true successor's slot puts elements
/// where `insert` would, and a wrong hint still keeps the set ordered.
#[test]
fn last_insert_moves_follow_every_element() {
    let mut set: PackedSet<u64> = PackedSet::new();
    let mut index: BTreeMap<u64, usize> = BTreeMap::new();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for step in 0..4000u64 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let x = state % 100_000;
        if index.contains_key(&x) {
            continue;
        }
        // Every third insert with a wrong hint (the first element's slot,
        // or past the end); the rest with the successor's slot.
        let successor = index.range(x..).next().map(|(_, &slot)| slot);
        let hint = match step % 3 {
            0 => index.values().next().copied(),
            1 => Some(usize::MAX),
            _ => successor,
        };
        assert!(set.insert_before(hint, x));
        let (moves, at) = set.last_insert_moves();
        let moves: Vec<_> = moves.collect();
        for slot in index.values_mut() {
            if let Some(new) = moves.iter().find_map(|m| m.follow(*slot)) {
                *slot = new;
            }
        }
        index.insert(x, at);
        set.take_changed();
        if step % 101 == 0 {
            check(&set, &index);
            set.validate().unwrap();
        }
    }
    check(&set, &index);
    set.validate().unwrap();
    assert!(!set.insert_before(None, *index.keys().next().unwrap()));
}
