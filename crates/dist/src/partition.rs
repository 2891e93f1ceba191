//! Which worker owns which vertex, and each worker's dense renumbering of
//! the vertices it sees.

use dyngraph_core::VertexId;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Assigns every vertex to the worker that owns it: the owner keeps the
/// vertex's out-edges (and, with in-edges, its in-edges), receives the
/// messages addressed to it, and reports its kernel results.
///
/// The choice is visible because it decides the balance and the traffic:
///
/// | partitioner | owner of `v` among `W` workers | when |
/// |---|---|---|
/// | [`Partitioner::Hash`] (default) | a 64-bit mix of `v`, scaled to `0..W` | any id layout: hubs and id ranges spread evenly |
/// | [`Partitioner::Modulo`] | `v % W` | ids already random (Kronecker graphs permute them); easy to reason about in tests |
///
/// Neither looks at the graph, so every worker and every reader computes
/// the owner of any id on its own, with no directory to consult or keep in
/// sync. The price is the edge cut: a hash partition cuts about
/// `(W - 1) / W` of the edges, each of which costs one message per kernel
/// iteration (combined per destination vertex, see the kernels).
///
/// ```
/// use dyngraph_dist::Partitioner;
/// let workers = 4;
/// let owners: Vec<usize> = (0..8).map(|v| Partitioner::Modulo.owner(v, workers)).collect();
/// assert_eq!(owners, [0, 1, 2, 3, 0, 1, 2, 3]);
/// assert!((0..1000).all(|v| Partitioner::Hash.owner(v, workers) < workers));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Partitioner {
    /// Owner by a hash of the vertex id (the default).
    #[default]
    Hash,
    /// Owner `v % workers`.
    Modulo,
}

impl Partitioner {
    /// The worker (`0..workers`) that owns `vertex`. `workers` must be
    /// positive.
    #[inline]
    pub fn owner(self, vertex: VertexId, workers: usize) -> usize {
        match self {
            Partitioner::Hash => {
                // Fast range reduction of a well-mixed 64-bit value.
                ((u128::from(mix(vertex)) * workers as u128) >> 64) as usize
            }
            Partitioner::Modulo => vertex as usize % workers,
        }
    }
}

impl std::str::FromStr for Partitioner {
    type Err = dyngraph_core::Error;

    fn from_str(text: &str) -> dyngraph_core::Result<Self> {
        match text {
            "hash" => Ok(Partitioner::Hash),
            "modulo" => Ok(Partitioner::Modulo),
            _ => Err(dyngraph_core::Error::InvalidArgument(format!(
                "unknown partitioner {text:?} (known: hash, modulo)"
            ))),
        }
    }
}

/// SplitMix64's finaliser on a vertex id: every input bit moves every
/// output bit.
#[inline]
pub(crate) fn mix(vertex: VertexId) -> u64 {
    let mut x = u64::from(vertex).wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A hasher for `u32` keys: [`mix`], without SipHash's cost. Only for ids,
/// which no adversary chooses against a worker's table.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix((self.0 as u32) ^ u32::from(b));
        }
    }

    fn write_u32(&mut self, value: u32) {
        self.0 = mix(value);
    }
}

pub(crate) type IdMap<V> = HashMap<VertexId, V, BuildHasherDefault<IdHasher>>;

/// One worker's dense renumbering: the global ids it has seen (the
/// vertices it owns and the "ghosts" at the other end of its edges) get
/// local ids `0..len()` in the order first seen, and its stores hold local
/// ids only.
///
/// # Cost
///
/// A store indexed by global ids would cost every worker `O(global V)`
/// (offsets, degree arrays) however few vertices it owns. With local ids a
/// worker's stores see `len()` vertices, and the map costs 4 bytes per
/// local vertex (local → global) plus the smaller of two global → local
/// lookups, chosen as the ids arrive:
///
/// - a hash table, 10 to 21 bytes per local vertex (hashbrown's buckets
///   of 9 bytes, a power of two filled to at most 7/8): for sparse id
///   spaces, where a worker sees few of the ids up to the largest;
/// - a dense array of 4 bytes per global id up to the largest seen, once
///   that is smaller than the table (a worker that sees more than about a
///   third of the id range, as every worker does on a hash-partitioned
///   power-law graph with few workers): one load per lookup instead of a
///   probe. It turns back into a table if a far id would make the array
///   more than three times the table's size.
///
/// Summed over the workers the stores hold `V + ghosts` vertices, where
/// ghosts are at most the cut edges' far ends. A lookup costs one probe or
/// one load per edge end during replay; kernels never look up: they work
/// on local ids and route messages through per-neighbour lists built once
/// per run.
#[derive(Debug, Default)]
pub(crate) struct LocalIds {
    /// Local → global (empty under [`Lookup::Identity`]).
    global_of: Vec<VertexId>,
    local_of: Lookup,
    /// Largest global id seen + 1 (0 when none).
    max_plus_one: u64,
    /// Distinct ids seen.
    count: usize,
}

/// Global → local.
#[derive(Debug)]
enum Lookup {
    Hash(IdMap<VertexId>),
    /// `dense[g]` is `g`'s local id, or `ABSENT`.
    Dense(Vec<VertexId>),
    /// Local ids are the global ids; the bitmap marks those seen. For a
    /// worker that sees at least half the id range (hash-partitioned
    /// power-law graphs on few workers): no lookup at all, for holes of
    /// at most as many unseen ids in the arrays indexed by local id.
    Identity(Vec<u64>),
}

impl Default for Lookup {
    fn default() -> Self {
        Lookup::Hash(IdMap::default())
    }
}

const ABSENT: VertexId = VertexId::MAX;

/// Bytes a hash table of `u32 -> u32` holds: its buckets (a power of two,
/// filled to at most 7/8) of 8 bytes plus a control byte each.
fn hash_bytes(map: &IdMap<VertexId>) -> usize {
    (map.capacity() * 8 / 7 + 1).next_power_of_two() * 9
}

/// Below this many local vertices the hash table stays (small either way).
const DENSE_AFTER: usize = 1 << 12;

impl LocalIds {
    /// The local id of `global`, assigning the next one if it is new;
    /// `true` when it was new.
    #[inline]
    pub(crate) fn intern(&mut self, global: VertexId) -> (VertexId, bool) {
        if let Lookup::Identity(seen) = &mut self.local_of {
            let (word, bit) = (global as usize / 64, 1u64 << (global % 64));
            if word >= seen.len() {
                seen.resize((word + 1).max(seen.len() + seen.len() / 2), 0);
            }
            if seen[word] & bit != 0 {
                return (global, false);
            }
            seen[word] |= bit;
            self.count += 1;
            self.max_plus_one = self.max_plus_one.max(u64::from(global) + 1);
            return (global, true);
        }
        let next = self.global_of.len() as VertexId;
        let new = match &mut self.local_of {
            Lookup::Dense(dense) => match dense.get(global as usize) {
                Some(&ABSENT) => {
                    dense[global as usize] = next;
                    true
                }
                Some(&local) => return (local, false),
                None => {
                    // Past the array: grow it if dense still pays, else
                    // go back to hashing.
                    let wanted = (global as usize + 1).max(dense.len() + dense.len() / 2);
                    // Hysteresis: grow while the array stays within 3x
                    // the hash table's bytes at this size.
                    if (wanted as u64) * 4 <= (self.global_of.len() as u64 + 1) * 9 * 3 {
                        dense.resize(wanted, ABSENT);
                        dense[global as usize] = next;
                    } else {
                        let mut map = IdMap::default();
                        map.reserve(self.global_of.len() + 1);
                        for (local, &g) in self.global_of.iter().enumerate() {
                            map.insert(g, local as VertexId);
                        }
                        map.insert(global, next);
                        self.local_of = Lookup::Hash(map);
                    }
                    true
                }
            },
            Lookup::Hash(map) => match map.entry(global) {
                std::collections::hash_map::Entry::Occupied(entry) => {
                    return (*entry.get(), false);
                }
                std::collections::hash_map::Entry::Vacant(entry) => {
                    entry.insert(next);
                    true
                }
            },
            Lookup::Identity(_) => unreachable!("handled above"),
        };
        debug_assert!(new);
        self.count += 1;
        self.global_of.push(global);
        self.max_plus_one = self.max_plus_one.max(u64::from(global) + 1);
        if let Lookup::Hash(map) = &self.local_of
            && self.global_of.len() >= DENSE_AFTER
            && self.global_of.len().is_multiple_of(1024)
            && self.max_plus_one * 4 <= hash_bytes(map) as u64
        {
            let mut dense = vec![ABSENT; self.max_plus_one as usize];
            for (local, &g) in self.global_of.iter().enumerate() {
                dense[g as usize] = local as VertexId;
            }
            self.local_of = Lookup::Dense(dense);
        }
        (next, true)
    }

    /// Before any id is interned, knowing that `count` distinct ids up to
    /// `max_plus_one` come first: the global ids themselves as local ids
    /// when they fill at least half the range, else the dense array when
    /// it is no larger than three hash tables of them, else the table.
    /// Returns whether local ids will be ranks: assigned in increasing
    /// global order from 0 (dense array), so that the caller may translate
    /// the ids it interns in order by their rank.
    pub(crate) fn prepare(&mut self, count: usize, max_plus_one: u64) -> bool {
        if self.count > 0 || count < DENSE_AFTER {
            return false;
        }
        if max_plus_one <= 2 * count as u64 {
            self.local_of = Lookup::Identity(vec![0; (max_plus_one as usize).div_ceil(64)]);
            return false;
        }
        let dense = max_plus_one * 4 <= (count as u64 + 1) * 9 * 3;
        if dense {
            self.local_of = Lookup::Dense(vec![ABSENT; max_plus_one as usize]);
            self.global_of.reserve_exact(count);
        }
        dense
    }

    /// Asks the processor to bring `global`'s entry of the dense lookup
    /// into cache ahead of its [`Self::intern`]: a batch's ids hit the
    /// array (4 bytes per id of the range, far larger than the cache) at
    /// random, and interning them one after the other waits for each miss
    /// in turn.
    #[inline]
    pub(crate) fn prefetch(&self, global: VertexId) {
        #[cfg(target_arch = "x86_64")]
        if let Lookup::Dense(dense) = &self.local_of {
            let entry = dense.as_ptr().wrapping_add(global as usize);
            // SAFETY: a prefetch is a hint: it reads nothing the program
            // sees and cannot fault, whatever the address (here one inside
            // or just past the array); SSE, which provides it, is part of
            // every x86_64 target.
            unsafe {
                core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                    entry.cast(),
                );
            }
        }
    }

    /// The local id of `global`, if seen.
    #[inline]
    pub(crate) fn local(&self, global: VertexId) -> Option<VertexId> {
        match &self.local_of {
            Lookup::Hash(map) => map.get(&global).copied(),
            Lookup::Dense(dense) => dense.get(global as usize).copied().filter(|&l| l != ABSENT),
            Lookup::Identity(_) => self.is_known(global).then_some(global),
        }
    }

    /// The global id of `local`.
    #[inline]
    pub(crate) fn global(&self, local: VertexId) -> VertexId {
        match &self.local_of {
            Lookup::Identity(_) => local,
            _ => self.global_of[local as usize],
        }
    }

    /// Whether local id `local` stands for a vertex seen (every id below
    /// [`Self::len`] does, except the holes of the identity mapping).
    #[inline]
    pub(crate) fn is_known(&self, local: VertexId) -> bool {
        match &self.local_of {
            Lookup::Identity(seen) => seen
                .get(local as usize / 64)
                .is_some_and(|w| w & (1 << (local % 64)) != 0),
            _ => (local as usize) < self.global_of.len(),
        }
    }

    /// The largest global id seen, plus one (0 when none): this worker's
    /// share of the global vertex count.
    pub(crate) fn max_global_plus_one(&self) -> u64 {
        self.max_plus_one
    }

    /// Local ids in use: every one below this is a vertex seen, or a hole
    /// of the identity mapping (arrays indexed by local id have this
    /// length).
    pub(crate) fn len(&self) -> usize {
        match &self.local_of {
            Lookup::Identity(_) => self.max_plus_one as usize,
            _ => self.global_of.len(),
        }
    }

    /// Distinct vertices seen.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Whether local ids are the global ids.
    pub(crate) fn is_identity(&self) -> bool {
        matches!(self.local_of, Lookup::Identity(_))
    }

    /// Whether the global → local lookup is the dense array.
    #[cfg(test)]
    fn is_dense(&self) -> bool {
        matches!(self.local_of, Lookup::Dense(_))
    }

    /// Heap bytes of both directions of the map.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.global_of.capacity() * 4
            + match &self.local_of {
                Lookup::Hash(map) => hash_bytes(map),
                Lookup::Dense(dense) => dense.capacity() * 4,
                Lookup::Identity(seen) => seen.capacity() * 8,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_partition_is_balanced_on_consecutive_ids() {
        let workers = 7;
        let mut counts = vec![0usize; workers];
        for v in 0..70_000 {
            counts[Partitioner::Hash.owner(v, workers)] += 1;
        }
        let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(*max - *min < 600, "{counts:?}");
    }

    #[test]
    fn local_ids_are_dense_in_first_seen_order() {
        let mut ids = LocalIds::default();
        assert_eq!(ids.intern(900), (0, true));
        assert_eq!(ids.intern(5), (1, true));
        assert_eq!(ids.intern(900), (0, false));
        assert_eq!((ids.local(5), ids.local(6)), (Some(1), None));
        assert_eq!((ids.global(0), ids.len()), (900, 2));
    }

    #[test]
    fn lookup_turns_dense_when_ids_are_dense_and_back_when_they_spread() {
        let mut ids = LocalIds::default();
        for g in 0..20_000 {
            ids.intern(g * 2);
        }
        assert!(
            ids.is_dense(),
            "half the id range seen: the array is smaller"
        );
        assert_eq!(ids.local(39_998), Some(19_999));
        assert_eq!((ids.local(1), ids.local(40_000)), (None, None));
        assert_eq!(ids.intern(39_998), (19_999, false));
        // One far id makes the array too large: back to hashing, same ids.
        assert_eq!(ids.intern(3_000_000_000), (20_000, true));
        assert!(!ids.is_dense());
        assert_eq!(
            (ids.local(39_998), ids.local(3_000_000_000)),
            (Some(19_999), Some(20_000))
        );
        assert_eq!(ids.max_global_plus_one(), 3_000_000_001);
        for g in 0..20_000 {
            assert_eq!(ids.local(g * 2), Some(g));
        }
    }

    #[test]
    fn prepare_picks_identity_dense_or_table_by_how_much_of_the_range_is_seen() {
        // Half the range or more: the ids themselves.
        let mut ids = LocalIds::default();
        assert!(!ids.prepare(6_000, 10_000));
        assert!(ids.is_identity());
        assert_eq!(ids.intern(9_998), (9_998, true));
        assert_eq!(ids.intern(17), (17, true));
        assert_eq!(ids.intern(9_998), (9_998, false));
        assert_eq!((ids.local(17), ids.local(18)), (Some(17), None));
        assert!(ids.is_known(17) && !ids.is_known(18));
        assert_eq!((ids.len(), ids.count(), ids.global(17)), (9_999, 2, 17));
        // Past the bitmap: it grows.
        assert_eq!(ids.intern(1_000_000), (1_000_000, true));
        assert_eq!(ids.len(), 1_000_001);
        // A fifth of the range: the dense array, local ids by rank.
        let mut ids = LocalIds::default();
        assert!(ids.prepare(10_000, 50_000));
        assert!(!ids.is_identity());
        assert_eq!(ids.intern(40_000), (0, true));
        // Sparse: the table.
        let mut ids = LocalIds::default();
        assert!(!ids.prepare(10_000, 1 << 30));
        assert!(!ids.is_identity() && !ids.is_dense());
        // Too few to bother, or after the first id: nothing changes.
        let mut ids = LocalIds::default();
        assert!(!ids.prepare(100, 150));
        assert!(!ids.is_identity());
    }

    #[test]
    fn partitioner_parses_its_names() {
        assert_eq!("hash".parse::<Partitioner>().unwrap(), Partitioner::Hash);
        assert!("range".parse::<Partitioner>().is_err());
    }
}
