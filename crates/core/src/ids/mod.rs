//! The ids users have, mapped to vertex ids: [`IdMap`] (its docs hold
//! the cost model).

mod bytes;
mod index;

use crate::{Error, Result, VertexId};
use index::TailIndex;
use rayon::prelude::*;
use std::cmp::Ordering;
use std::fmt;

/// The ids users have: 64-bit integers or strings ("keys"), mapped to the
/// dense `u32` vertex ids every store uses, in a map that grows.
///
/// An [`IdMap`] holds one key per vertex, in vertex order, and answers both
/// directions: vertex → key is an index, key → vertex a lookup. It only
/// ever grows, by appending: a key once given a vertex keeps it, so a
/// result computed earlier (a PageRank vector, a BFS tree) still names the
/// right keys after more keys arrive, and a log of the keys appended since
/// some point is enough to persist it ([`IdMap::encode_from`],
/// [`IdMap::extend_from_bytes`]).
///
/// # Cost model
///
/// The keys are stored as they are: 8 bytes per integer key; for strings,
/// their bytes plus an 8-byte end offset each. On top of that:
///
/// - The longest prefix of keys in strictly increasing order (numeric for
///   integers, bytewise for strings) is looked up by binary search and costs
///   nothing more. A map the loader builds is sorted through and through,
///   and so is a map grown by batches whose new keys all come after the
///   ones before (increasing user ids, say): for those a lookup is
///   `O(log V)` and the map is the keys alone.
/// - Keys after that prefix are also in a hash index (`std`'s `HashMap`
///   from the integer, or from a 64-bit fingerprint of the string, to the
///   vertex): `O(1)` expected per lookup, about 16 to 32 bytes more per
///   such key. Memory stays proportional to the distinct keys; nothing
///   depends on the largest integer key.
/// - [`IdMap::intern_all`] takes a batch: every key is looked up in
///   parallel (rayon), the missing ones are sorted and deduplicated in
///   parallel, then appended (a serial `O(new keys)` step: one append and,
///   past the sorted prefix, one hash insert each), and their vertices
///   looked up again in parallel. A batch's new keys get the next vertex
///   ids in key order, so the result is the same whatever the thread
///   count, and a first batch into an empty map gives the map the loader
///   would build from the same keys.
///
/// ```
/// use dyngraph_core::{IdKind, IdMap, OriginalId};
/// let ids = IdMap::from_integers(vec![7, 50_000_000, 1 << 40])?;
/// assert_eq!(ids.len(), 3);
/// assert_eq!(ids.original(1), OriginalId::Integer(50_000_000));
/// assert_eq!(ids.vertex_of(1u64 << 40), Some(2));
/// assert_eq!(ids.vertex_of(8u64), None);
///
/// // A map grows: new keys get the next vertices, old ones keep theirs.
/// let mut names = IdMap::new(IdKind::Strings);
/// assert_eq!(names.intern_all(&["bob", "alice", "bob"])?, [1, 0, 1]);
/// assert_eq!(names.intern("carol")?, 2);
/// assert_eq!(names.intern("alice")?, 0);
/// assert_eq!(names.original(2).to_string(), "carol");
/// assert_eq!(names.vertex_of("bob"), Some(1));
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone)]
pub struct IdMap {
    keys: Keys,
    /// `keys[..sorted]` are strictly increasing: found by binary search.
    sorted: usize,
    /// `keys[sorted..]`, found by hash.
    tail: TailIndex,
}

/// The keys in vertex order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Keys {
    Integers(Vec<u64>),
    /// Key `v` is `bytes[ends[v-1]..ends[v]]`.
    Strings {
        bytes: Vec<u8>,
        ends: Vec<u64>,
    },
}

/// One original id (a key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OriginalId<'a> {
    /// An integer id.
    Integer(u64),
    /// A string id, as the bytes read (shown lossily if not UTF-8).
    String(&'a [u8]),
}

impl OriginalId<'_> {
    /// Whether this is an integer or a string.
    pub fn kind(&self) -> IdKind {
        match self {
            OriginalId::Integer(_) => IdKind::Integers,
            OriginalId::String(_) => IdKind::Strings,
        }
    }
}

impl fmt::Display for OriginalId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OriginalId::Integer(id) => write!(f, "{id}"),
            OriginalId::String(name) => f.write_str(&String::from_utf8_lossy(name)),
        }
    }
}

/// Whether an [`IdMap`] holds integers or strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdKind {
    /// 64-bit integers.
    Integers,
    /// Strings (any bytes).
    Strings,
}

impl fmt::Display for IdKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IdKind::Integers => "integer",
            IdKind::Strings => "string",
        })
    }
}

/// A value that can be a key: `u64` for integer keys; `str`, `String`,
/// `[u8]` or `Vec<u8>` for string keys; an [`OriginalId`]; or a reference
/// to any of these. (An integer literal needs its type spelled, `7u64`,
/// since strings are keys too.)
pub trait IdKey: Sync {
    /// The key as an [`OriginalId`].
    fn as_original(&self) -> OriginalId<'_>;
}

impl IdKey for u64 {
    fn as_original(&self) -> OriginalId<'_> {
        OriginalId::Integer(*self)
    }
}

impl IdKey for str {
    fn as_original(&self) -> OriginalId<'_> {
        OriginalId::String(self.as_bytes())
    }
}

impl IdKey for String {
    fn as_original(&self) -> OriginalId<'_> {
        OriginalId::String(self.as_bytes())
    }
}

impl IdKey for [u8] {
    fn as_original(&self) -> OriginalId<'_> {
        OriginalId::String(self)
    }
}

impl IdKey for Vec<u8> {
    fn as_original(&self) -> OriginalId<'_> {
        OriginalId::String(self)
    }
}

impl IdKey for OriginalId<'_> {
    fn as_original(&self) -> OriginalId<'_> {
        *self
    }
}

impl<T: IdKey + ?Sized> IdKey for &T {
    fn as_original(&self) -> OriginalId<'_> {
        (**self).as_original()
    }
}

impl Keys {
    fn empty(kind: IdKind) -> Keys {
        match kind {
            IdKind::Integers => Keys::Integers(Vec::new()),
            IdKind::Strings => Keys::Strings {
                bytes: Vec::new(),
                ends: Vec::new(),
            },
        }
    }

    fn kind(&self) -> IdKind {
        match self {
            Keys::Integers(_) => IdKind::Integers,
            Keys::Strings { .. } => IdKind::Strings,
        }
    }

    fn len(&self) -> usize {
        match self {
            Keys::Integers(keys) => keys.len(),
            Keys::Strings { ends, .. } => ends.len(),
        }
    }

    /// Key `v`; panics when `v >= len()`.
    #[inline]
    fn get(&self, v: usize) -> OriginalId<'_> {
        match self {
            Keys::Integers(keys) => OriginalId::Integer(keys[v]),
            Keys::Strings { bytes, ends } => {
                let start = if v == 0 { 0 } else { ends[v - 1] as usize };
                OriginalId::String(&bytes[start..ends[v] as usize])
            }
        }
    }

    /// Appends `key`, which must be of this kind.
    fn push(&mut self, key: OriginalId<'_>) {
        match (self, key) {
            (Keys::Integers(keys), OriginalId::Integer(key)) => keys.push(key),
            (Keys::Strings { bytes, ends }, OriginalId::String(key)) => {
                bytes.extend_from_slice(key);
                ends.push(bytes.len() as u64);
            }
            _ => unreachable!("kinds are checked before a push"),
        }
    }

    /// Drops the keys from `len` on.
    fn truncate(&mut self, len: usize) {
        match self {
            Keys::Integers(keys) => keys.truncate(len),
            Keys::Strings { bytes, ends } => {
                ends.truncate(len);
                bytes.truncate(ends.last().map_or(0, |&end| end as usize));
            }
        }
    }

    /// The length of the longest strictly increasing prefix.
    fn sorted_prefix(&self) -> usize {
        let len = self.len();
        (1..len)
            .into_par_iter()
            .with_min_len(1 << 12)
            .position_first(|v| self.get(v - 1) >= self.get(v))
            .map_or(len, |break_at| break_at + 1)
    }

    fn memory_bytes(&self) -> usize {
        match self {
            Keys::Integers(keys) => keys.capacity() * 8,
            Keys::Strings { bytes, ends } => bytes.capacity() + ends.capacity() * 8,
        }
    }
}

impl IdMap {
    /// An empty map of `kind`, to grow with [`IdMap::intern`] and
    /// [`IdMap::intern_all`].
    pub fn new(kind: IdKind) -> Self {
        IdMap {
            keys: Keys::empty(kind),
            sorted: 0,
            tail: TailIndex::default(),
        }
    }

    /// A map of integer keys, vertex `v` being `ids[v]`. The keys must be
    /// distinct; sorted ones (what the loader gives) need no index. More
    /// than `u32::MAX` keys is an error.
    pub fn from_integers(ids: Vec<u64>) -> Result<Self> {
        Self::from_keys(Keys::Integers(ids))
    }

    /// A map of string keys, vertex `v` being the `v`-th. The keys must be
    /// distinct; sorted ones (bytewise, what the loader gives) need no
    /// index.
    pub fn from_strings<S: AsRef<[u8]>>(names: impl IntoIterator<Item = S>) -> Result<Self> {
        let mut keys = Keys::empty(IdKind::Strings);
        for name in names {
            keys.push(OriginalId::String(name.as_ref()));
        }
        Self::from_keys(keys)
    }

    /// A map of string keys from [`IdMap::string_parts`], checked.
    pub fn from_string_parts(bytes: Vec<u8>, ends: Vec<u64>) -> Result<Self> {
        let mut start = 0u64;
        for (v, &end) in ends.iter().enumerate() {
            if end < start || end > bytes.len() as u64 {
                return Err(Error::InvalidStructure(format!(
                    "string id {v} ends at {end}, outside {start}..={}",
                    bytes.len()
                )));
            }
            start = end;
        }
        if start != bytes.len() as u64 {
            return Err(Error::InvalidStructure(format!(
                "string ids end at {start} but hold {} bytes",
                bytes.len()
            )));
        }
        Self::from_keys(Keys::Strings { bytes, ends })
    }

    /// Indexes `keys`, refusing a repeated key or more keys than `u32`
    /// vertex ids can name.
    fn from_keys(keys: Keys) -> Result<Self> {
        check_count(keys.len())?;
        let sorted = keys.sorted_prefix();
        let mut map = IdMap {
            keys,
            sorted,
            tail: TailIndex::default(),
        };
        for v in sorted..map.len() {
            let key = map.keys.get(v);
            if let Some(first) = map.lookup(key) {
                return Err(Error::InvalidStructure(format!(
                    "ids must be distinct: {key} is both vertex {first} and vertex {v}"
                )));
            }
            map.tail.insert(&map.keys, v as VertexId);
        }
        Ok(map)
    }

    /// Integers or strings.
    pub fn kind(&self) -> IdKind {
        self.keys.kind()
    }

    /// Vertices mapped.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no vertex is mapped.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether vertex order is key order (numeric or bytewise): true of
    /// every map the loader builds, and of a map grown only by keys past
    /// the ones before.
    pub fn is_sorted(&self) -> bool {
        self.sorted == self.len()
    }

    /// The original id of vertex `v`. Panics if `v >= len()`, like
    /// indexing ([`IdMap::get`] does not).
    pub fn original(&self, v: VertexId) -> OriginalId<'_> {
        self.keys.get(v as usize)
    }

    /// The original id of vertex `v`, or `None` past the map.
    pub fn get(&self, v: VertexId) -> Option<OriginalId<'_>> {
        ((v as usize) < self.len()).then(|| self.keys.get(v as usize))
    }

    /// Every key in vertex order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = OriginalId<'_>> + '_ {
        (0..self.len()).map(|v| self.keys.get(v))
    }

    /// The vertex of `key`, if it has one (a key of the other kind has
    /// none).
    pub fn vertex_of(&self, key: impl IdKey) -> Option<VertexId> {
        self.lookup(key.as_original())
    }

    /// The vertex of an integer id, if it is one.
    pub fn vertex_of_integer(&self, id: u64) -> Option<VertexId> {
        self.lookup(OriginalId::Integer(id))
    }

    /// The vertex of a string id, if it is one.
    pub fn vertex_of_str(&self, name: impl AsRef<[u8]>) -> Option<VertexId> {
        self.lookup(OriginalId::String(name.as_ref()))
    }

    #[inline]
    fn lookup(&self, key: OriginalId<'_>) -> Option<VertexId> {
        if key.kind() != self.kind() {
            return None;
        }
        // Binary search over the sorted prefix.
        let (mut low, mut high) = (0usize, self.sorted);
        while low < high {
            let middle = low + (high - low) / 2;
            match self.keys.get(middle).cmp(&key) {
                Ordering::Less => low = middle + 1,
                Ordering::Greater => high = middle,
                Ordering::Equal => return Some(middle as VertexId),
            }
        }
        self.tail.get(&self.keys, key)
    }

    /// The vertex of `key`, appending it (as the next vertex) when it is
    /// new.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a key of the other kind;
    /// [`Error::VertexLimit`] when the map already names `u32::MAX`
    /// vertices.
    pub fn intern(&mut self, key: impl IdKey) -> Result<VertexId> {
        let key = key.as_original();
        self.check_kind(key)?;
        if let Some(v) = self.lookup(key) {
            return Ok(v);
        }
        self.check_room(1, MAX_KEYS)?;
        Ok(self.push(key))
    }

    /// The vertices of `keys`, in order, appending the new ones; in
    /// parallel (see [`IdMap`] for the cost and the order new keys are
    /// numbered in).
    ///
    /// # Errors
    /// As [`IdMap::intern`]; nothing is appended then.
    pub fn intern_all<K: IdKey>(&mut self, keys: &[K]) -> Result<Vec<VertexId>> {
        self.intern_with(keys.len(), |i| keys[i].as_original(), MAX_KEYS)
    }

    /// [`IdMap::intern_all`] over `count` keys given by `key_at`, refusing
    /// (before appending any) a batch that would take the map past `limit`
    /// keys.
    pub(crate) fn intern_with<'k>(
        &mut self,
        count: usize,
        key_at: impl Fn(usize) -> OriginalId<'k> + Sync,
        limit: usize,
    ) -> Result<Vec<VertexId>> {
        let kind = self.kind();
        if let Some(wrong) = (0..count)
            .into_par_iter()
            .with_min_len(SERIAL_BATCH)
            .find_first(|&i| key_at(i).kind() != kind)
        {
            self.check_kind(key_at(wrong))?;
        }
        let mut vertices: Vec<Option<VertexId>> = (0..count)
            .into_par_iter()
            .with_min_len(SERIAL_BATCH)
            .map(|i| self.lookup(key_at(i)))
            .collect();
        let missing: Vec<usize> = vertices
            .par_iter()
            .with_min_len(SERIAL_BATCH)
            .enumerate()
            .filter_map(|(i, v)| v.is_none().then_some(i))
            .collect();
        if !missing.is_empty() {
            // The distinct new keys, in key order (ties by position, so
            // the first occurrence leads its run).
            let mut new = missing;
            let order = |&a: &usize, &b: &usize| key_at(a).cmp(&key_at(b)).then(a.cmp(&b));
            if new.len() < SERIAL_BATCH {
                new.sort_unstable_by(order);
            } else {
                new.par_sort_unstable_by(order);
            }
            new.dedup_by(|later, first| key_at(*later) == key_at(*first));
            self.check_room(new.len(), limit)?;
            for &i in &new {
                self.push(key_at(i));
            }
            let map = &*self;
            vertices
                .par_iter_mut()
                .with_min_len(SERIAL_BATCH)
                .enumerate()
                .for_each(|(i, v)| {
                    if v.is_none() {
                        *v = map.lookup(key_at(i));
                    }
                });
        }
        Ok(vertices
            .into_par_iter()
            .with_min_len(SERIAL_BATCH)
            .map(|v| v.unwrap_or_default())
            .collect())
    }

    /// Appends a new key of this map's kind; returns its vertex.
    fn push(&mut self, key: OriginalId<'_>) -> VertexId {
        let v = self.len();
        let extends_sorted = self.sorted == v && (v == 0 || self.keys.get(v - 1) < key);
        self.keys.push(key);
        if extends_sorted {
            self.sorted += 1;
        } else {
            self.tail.insert(&self.keys, v as VertexId);
        }
        v as VertexId
    }

    /// Drops the keys from vertex `len` on (undoing appends).
    pub(crate) fn truncate(&mut self, len: usize) {
        for v in len.max(self.sorted)..self.len() {
            self.tail.remove(&self.keys, v as VertexId);
        }
        self.keys.truncate(len);
        self.sorted = self.sorted.min(len);
    }

    pub(crate) fn check_kind(&self, key: OriginalId<'_>) -> Result<()> {
        if key.kind() == self.kind() {
            return Ok(());
        }
        Err(Error::InvalidArgument(format!(
            "the key {} is {} {}, but this map holds {} ids",
            quoted(key),
            match key.kind() {
                IdKind::Integers => "an",
                IdKind::Strings => "a",
            },
            key.kind(),
            self.kind()
        )))
    }

    /// Refuses `new` more keys past `limit` keys in all.
    fn check_room(&self, new: usize, limit: usize) -> Result<()> {
        let needed = self.len() as u64 + new as u64;
        let limit = limit.min(MAX_KEYS) as u64;
        if needed > limit {
            return Err(Error::VertexLimit {
                vertex: needed - 1,
                needed,
                limit,
            });
        }
        Ok(())
    }

    /// The integer ids in vertex order, when the map holds integers.
    pub fn integers(&self) -> Option<&[u64]> {
        match &self.keys {
            Keys::Integers(ids) => Some(ids),
            Keys::Strings { .. } => None,
        }
    }

    /// The string ids as one byte buffer and each name's end offset, when
    /// the map holds strings.
    pub fn string_parts(&self) -> Option<(&[u8], &[u64])> {
        match &self.keys {
            Keys::Integers(_) => None,
            Keys::Strings { bytes, ends } => Some((bytes, ends)),
        }
    }

    /// Heap bytes held: the keys, and the hash index of the keys past the
    /// sorted prefix (estimated from its capacity).
    pub fn memory_bytes(&self) -> usize {
        self.keys.memory_bytes() + self.tail.memory_bytes()
    }

    /// One line saying that the ids were relabelled, for a program to
    /// print when it loads a file whose ids it relabelled ("1,899 string
    /// ids relabelled as vertices 0..=1898; results name the original
    /// ids").
    pub fn relabel_note(&self) -> String {
        let n = self.len();
        let what = match (&self.keys, n) {
            (_, 0) => return "no ids to relabel".into(),
            (Keys::Integers(keys), _) => {
                let largest = keys.par_iter().max().copied().unwrap_or_default();
                format!("{n} integer ids (up to {largest})")
            }
            (Keys::Strings { .. }, _) => format!("{n} string ids"),
        };
        let order = if self.is_sorted() {
            ", in id order"
        } else {
            ""
        };
        format!(
            "{what} relabelled as vertices 0..={}{order}; results name the original ids",
            n - 1
        )
    }
}

/// Batches smaller than this are interned on the calling thread: a trip
/// through the pool costs more than looking up a few hundred keys.
const SERIAL_BATCH: usize = 1 << 10;

/// Most keys a map holds: as many as `u32` vertex ids name.
const MAX_KEYS: usize = u32::MAX as usize;

fn check_count(count: usize) -> Result<()> {
    if count > MAX_KEYS {
        return Err(Error::InvalidStructure(format!(
            "{count} distinct ids do not fit 32-bit vertex ids"
        )));
    }
    Ok(())
}

/// A key for a message: integers as they are, strings quoted.
fn quoted(key: OriginalId<'_>) -> String {
    match key {
        OriginalId::Integer(id) => id.to_string(),
        OriginalId::String(_) => format!("{:?}", key.to_string()),
    }
}

/// Two maps are equal when they hold the same keys for the same vertices.
impl PartialEq for IdMap {
    fn eq(&self, other: &Self) -> bool {
        self.keys == other.keys
    }
}

impl Eq for IdMap {}

impl std::hash::Hash for IdMap {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.keys.hash(state);
    }
}

/// The kind, the count and the first few keys (a map can hold millions).
impl fmt::Debug for IdMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 8;
        let mut first: Vec<String> = self.iter().take(SHOWN).map(quoted).collect();
        if self.len() > SHOWN {
            first.push("…".into());
        }
        f.debug_struct("IdMap")
            .field("kind", &self.kind())
            .field("len", &self.len())
            .field("sorted", &self.sorted)
            .field("keys", &first)
            .finish()
    }
}

#[cfg(test)]
mod tests;
