//! The hash index of the keys past an [`IdMap`](super::IdMap)'s sorted
//! prefix.
//!
//! It maps a 64-bit fingerprint of each key to its vertex: the integer
//! itself, or a hash of the string's bytes. The string stays in the map's
//! own byte buffer, so the index holds no copy of it; a lookup compares the
//! string at the vertex found. Two distinct strings with the same
//! fingerprint (about one pair in 2^64) are both kept: the second goes to a
//! small map keyed by its bytes.

use super::{Keys, OriginalId};
use crate::VertexId;
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

#[derive(Clone, Debug, Default)]
pub(super) struct TailIndex {
    by_fingerprint: HashMap<u64, VertexId>,
    /// Strings whose fingerprint another string holds in `by_fingerprint`.
    collisions: HashMap<Box<[u8]>, VertexId>,
}

/// The fingerprint of a key. The string hash uses fixed keys, so it is the
/// same in every run (the index is rebuilt on load, never stored).
fn fingerprint(key: OriginalId<'_>) -> u64 {
    match key {
        OriginalId::Integer(id) => id,
        OriginalId::String(bytes) => BuildHasherDefault::<DefaultHasher>::default().hash_one(bytes),
    }
}

impl TailIndex {
    /// The vertex of `key` among the indexed ones.
    #[inline]
    pub(super) fn get(&self, keys: &Keys, key: OriginalId<'_>) -> Option<VertexId> {
        match (self.by_fingerprint.get(&fingerprint(key)), key) {
            (Some(&v), OriginalId::Integer(_)) => Some(v),
            (Some(&v), OriginalId::String(_)) if keys.get(v as usize) == key => Some(v),
            (_, OriginalId::String(bytes)) if !self.collisions.is_empty() => {
                self.collisions.get(bytes).copied()
            }
            _ => None,
        }
    }

    /// Indexes vertex `v`'s key, which is not indexed yet.
    pub(super) fn insert(&mut self, keys: &Keys, v: VertexId) {
        let key = keys.get(v as usize);
        match self.by_fingerprint.entry(fingerprint(key)) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(v);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                let OriginalId::String(bytes) = key else {
                    unreachable!("distinct integers have distinct fingerprints")
                };
                self.collisions.insert(bytes.into(), v);
            }
        }
    }

    /// Forgets vertex `v`'s key (indexed before).
    pub(super) fn remove(&mut self, keys: &Keys, v: VertexId) {
        let key = keys.get(v as usize);
        let fingerprint = fingerprint(key);
        if self.by_fingerprint.get(&fingerprint) == Some(&v) {
            self.by_fingerprint.remove(&fingerprint);
        } else if let OriginalId::String(bytes) = key {
            self.collisions.remove(bytes);
        }
    }

    /// Heap bytes, estimated from the capacities: a key, a value and a
    /// control byte per slot.
    pub(super) fn memory_bytes(&self) -> usize {
        self.by_fingerprint.capacity() * (8 + 4 + 1)
            + self
                .collisions
                .keys()
                .map(|bytes| bytes.len() + 16 + 4 + 1)
                .sum::<usize>()
    }
}
