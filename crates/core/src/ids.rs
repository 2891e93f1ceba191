//! The ids users have: sparse 64-bit integers or strings, mapped to the
//! dense `u32` vertex ids every store uses.
//!
//! An [`IdMap`] keeps the original ids sorted, one per dense vertex id, so
//! both directions are cheap without a hash table: vertex → original is an
//! index, original → vertex a binary search. Dense ids follow the order of
//! the originals (numeric for integers, bytewise for strings), which makes
//! the mapping deterministic whatever the thread count or the file order.
//!
//! Memory: 8 bytes per vertex for integer ids; for strings, their bytes
//! plus 8 per vertex. Nothing depends on the largest original id.
//!
//! ```
//! use dyngraph_core::{IdMap, OriginalId};
//! let ids = IdMap::from_integers(vec![7, 50_000_000, 1 << 40])?;
//! assert_eq!(ids.len(), 3);
//! assert_eq!(ids.original(1), OriginalId::Integer(50_000_000));
//! assert_eq!(ids.vertex_of_integer(1 << 40), Some(2));
//! assert_eq!(ids.vertex_of_integer(8), None);
//!
//! let names = IdMap::from_strings(["alice", "bob", "carol"])?;
//! assert_eq!(names.original(2).to_string(), "carol");
//! assert_eq!(names.vertex_of_str("bob"), Some(1));
//! # Ok::<(), dyngraph_core::Error>(())
//! ```

use crate::{Error, Result, VertexId};
use std::fmt;

/// The original ids of a graph's vertices, sorted and distinct.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdMap {
    names: Names,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Names {
    /// Sorted, distinct.
    Integers(Vec<u64>),
    /// Sorted (bytewise), distinct; name `v` is `bytes[ends[v-1]..ends[v]]`.
    Strings { bytes: Vec<u8>, ends: Vec<u64> },
}

/// One original id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OriginalId<'a> {
    /// An integer id.
    Integer(u64),
    /// A string id, as the bytes read (shown lossily if not UTF-8).
    String(&'a [u8]),
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
    /// Strings.
    Strings,
}

impl IdMap {
    /// A map of integer ids, which must be sorted and distinct (vertex `v`
    /// is `ids[v]`). More than `u32::MAX` ids is an error.
    pub fn from_integers(ids: Vec<u64>) -> Result<Self> {
        check_count(ids.len())?;
        if let Some(i) = ids.windows(2).position(|w| w[0] >= w[1]) {
            return Err(Error::InvalidStructure(format!(
                "integer ids must be sorted and distinct: {} then {} at vertex {}",
                ids[i],
                ids[i + 1],
                i + 1
            )));
        }
        Ok(IdMap {
            names: Names::Integers(ids),
        })
    }

    /// A map of string ids, which must be sorted bytewise and distinct.
    pub fn from_strings<S: AsRef<[u8]>>(names: impl IntoIterator<Item = S>) -> Result<Self> {
        let mut bytes = Vec::new();
        let mut ends = Vec::new();
        let mut previous: Option<std::ops::Range<usize>> = None;
        for name in names {
            let name = name.as_ref();
            let start = bytes.len();
            bytes.extend_from_slice(name);
            if let Some(previous) = previous
                && bytes[previous] >= *name
            {
                return Err(Error::InvalidStructure(format!(
                    "string ids must be sorted and distinct: {:?} at vertex {} is not after the one before",
                    String::from_utf8_lossy(name),
                    ends.len()
                )));
            }
            ends.push(bytes.len() as u64);
            previous = Some(start..bytes.len());
        }
        check_count(ends.len())?;
        Ok(IdMap {
            names: Names::Strings { bytes, ends },
        })
    }

    /// Integers or strings.
    pub fn kind(&self) -> IdKind {
        match self.names {
            Names::Integers(_) => IdKind::Integers,
            Names::Strings { .. } => IdKind::Strings,
        }
    }

    /// Vertices mapped.
    pub fn len(&self) -> usize {
        match &self.names {
            Names::Integers(ids) => ids.len(),
            Names::Strings { ends, .. } => ends.len(),
        }
    }

    /// Whether no vertex is mapped.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The original id of vertex `v`. Panics if `v >= len()`, like
    /// indexing.
    pub fn original(&self, v: VertexId) -> OriginalId<'_> {
        match &self.names {
            Names::Integers(ids) => OriginalId::Integer(ids[v as usize]),
            Names::Strings { .. } => OriginalId::String(self.string(v as usize)),
        }
    }

    fn string(&self, v: usize) -> &[u8] {
        let Names::Strings { bytes, ends } = &self.names else {
            unreachable!("called on string ids only")
        };
        let start = if v == 0 { 0 } else { ends[v - 1] as usize };
        &bytes[start..ends[v] as usize]
    }

    /// The vertex of an integer id, if it is one.
    pub fn vertex_of_integer(&self, id: u64) -> Option<VertexId> {
        match &self.names {
            Names::Integers(ids) => ids.binary_search(&id).ok().map(|v| v as VertexId),
            Names::Strings { .. } => None,
        }
    }

    /// The vertex of a string id, if it is one.
    pub fn vertex_of_str(&self, name: impl AsRef<[u8]>) -> Option<VertexId> {
        let name = name.as_ref();
        match &self.names {
            Names::Integers(_) => None,
            Names::Strings { ends, .. } => {
                let (mut low, mut high) = (0usize, ends.len());
                while low < high {
                    let middle = (low + high) / 2;
                    match self.string(middle).cmp(name) {
                        std::cmp::Ordering::Less => low = middle + 1,
                        std::cmp::Ordering::Greater => high = middle,
                        std::cmp::Ordering::Equal => return Some(middle as VertexId),
                    }
                }
                None
            }
        }
    }

    /// The integer ids, when the map holds integers.
    pub fn integers(&self) -> Option<&[u64]> {
        match &self.names {
            Names::Integers(ids) => Some(ids),
            Names::Strings { .. } => None,
        }
    }

    /// The string ids as one byte buffer and each name's end offset, when
    /// the map holds strings (the shape the binary `Csr` file stores).
    pub fn string_parts(&self) -> Option<(&[u8], &[u64])> {
        match &self.names {
            Names::Integers(_) => None,
            Names::Strings { bytes, ends } => Some((bytes, ends)),
        }
    }

    /// A map of string ids from [`IdMap::string_parts`], checked.
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
        let map = IdMap {
            names: Names::Strings { bytes, ends },
        };
        // Sortedness, which the lookups rely on.
        for v in 1..map.len() {
            if map.string(v - 1) >= map.string(v) {
                return Err(Error::InvalidStructure(format!(
                    "string ids must be sorted and distinct: vertex {v} is not after vertex {}",
                    v - 1
                )));
            }
        }
        check_count(map.len())?;
        Ok(map)
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        match &self.names {
            Names::Integers(ids) => ids.capacity() * 8,
            Names::Strings { bytes, ends } => bytes.capacity() + ends.capacity() * 8,
        }
    }
}

fn check_count(count: usize) -> Result<()> {
    if count as u64 > u64::from(u32::MAX) {
        return Err(Error::InvalidStructure(format!(
            "{count} distinct ids do not fit 32-bit vertex ids"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsorted_or_repeated_ids_are_refused() {
        assert!(IdMap::from_integers(vec![1, 1]).is_err());
        assert!(IdMap::from_integers(vec![2, 1]).is_err());
        assert!(IdMap::from_strings(["b", "a"]).is_err());
        assert!(IdMap::from_string_parts(b"ab".to_vec(), vec![1, 3]).is_err());
        assert!(IdMap::from_string_parts(b"ba".to_vec(), vec![1, 2]).is_err());
    }

    #[test]
    fn string_parts_round_trip() {
        let names = IdMap::from_strings(["", "a", "ab", "b"]).unwrap();
        let (bytes, ends) = names.string_parts().unwrap();
        let again = IdMap::from_string_parts(bytes.to_vec(), ends.to_vec()).unwrap();
        assert_eq!(again, names);
        for v in 0..4 {
            let OriginalId::String(name) = names.original(v) else {
                panic!("strings")
            };
            assert_eq!(names.vertex_of_str(name), Some(v));
        }
        assert_eq!(names.vertex_of_str("c"), None);
        assert_eq!(names.vertex_of_integer(0), None);
    }
}
