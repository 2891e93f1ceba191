//! An [`IdMap`] as bytes: whole, or as a log of the keys appended since a
//! point (layout in [`IdMap::to_bytes`]).

use super::{IdKind, IdMap, Keys, OriginalId};
use crate::{Error, Result, VertexId};

const MAGIC: &[u8; 4] = b"DGID";
const HEADER: usize = 24;

fn kind_byte(kind: IdKind) -> u8 {
    match kind {
        IdKind::Integers => 1,
        IdKind::Strings => 2,
    }
}

fn invalid(reason: String) -> Error {
    Error::InvalidStructure(format!("id map bytes: {reason}"))
}

impl IdMap {
    /// The whole map as bytes (one record). [`IdMap::from_bytes`] reads it
    /// back.
    ///
    /// The encoding is a sequence of records, each the keys of the vertices
    /// `first..first + count`, all integers little-endian:
    ///
    /// | offset | size | field |
    /// |---|---|---|
    /// | 0 | 4 | magic `b"DGID"` |
    /// | 4 | 1 | kind: 1 integers, 2 strings |
    /// | 5 | 3 | zero |
    /// | 8 | 8 | `first`: the vertex of the record's first key |
    /// | 16 | 8 | `count`: keys in the record |
    /// | 24 | `8 count` | integers: the keys; strings: each key's end offset in the bytes that follow |
    /// | … | … | strings only: the keys' bytes, concatenated |
    ///
    /// Records carry no checksum: the file or log that holds them checks its
    /// own bytes (the binary `Csr` file's CRC-32 covers them).
    ///
    /// ```
    /// use dyngraph_core::{IdKind, IdMap};
    /// let mut names = IdMap::new(IdKind::Strings);
    /// names.intern_all(&["carol", "alice"])?;
    /// let saved = names.to_bytes();
    /// // Later keys are a log: only what was appended since.
    /// names.intern("bob")?;
    /// let log = names.encode_from(2);
    /// let mut back = IdMap::from_bytes(&saved)?;
    /// back.extend_from_bytes(&log)?;
    /// assert_eq!(back, names);
    /// // Replaying a record already applied changes nothing.
    /// back.extend_from_bytes(&log)?;
    /// assert_eq!(back, names);
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        self.encode_from(0)
    }

    /// The keys of vertices `first..len()` as one record: what to append
    /// to a log after a batch that grew the map from `first` keys. No bytes
    /// when nothing was appended (`first == len() > 0`; an empty map's
    /// [`IdMap::to_bytes`] is still a record, which names the kind).
    /// Panics if `first > len()`.
    pub fn encode_from(&self, first: VertexId) -> Vec<u8> {
        let first = first as usize;
        assert!(first <= self.len(), "encode_from past the map's end");
        if first == self.len() && first != 0 {
            return Vec::new();
        }
        let count = self.len() - first;
        let mut out = Vec::with_capacity(HEADER + 8 * count);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[kind_byte(self.kind()), 0, 0, 0]);
        out.extend_from_slice(&(first as u64).to_le_bytes());
        out.extend_from_slice(&(count as u64).to_le_bytes());
        match &self.keys {
            Keys::Integers(keys) => {
                for key in &keys[first..] {
                    out.extend_from_slice(&key.to_le_bytes());
                }
            }
            Keys::Strings { bytes, ends } => {
                let base = if first == 0 { 0 } else { ends[first - 1] };
                for end in &ends[first..] {
                    out.extend_from_slice(&(end - base).to_le_bytes());
                }
                out.extend_from_slice(&bytes[base as usize..]);
            }
        }
        out
    }

    /// A map from [`IdMap::to_bytes`], followed by any records of
    /// [`IdMap::encode_from`].
    ///
    /// # Errors
    /// [`Error::InvalidStructure`] for bytes that are not such records
    /// (truncated, of mixed kinds, with a gap, or repeating a key).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let kind = match bytes.get(..5) {
            Some([b'D', b'G', b'I', b'D', 1]) => IdKind::Integers,
            Some([b'D', b'G', b'I', b'D', 2]) => IdKind::Strings,
            _ => return Err(invalid("they do not start with an id record".into())),
        };
        let mut map = IdMap::new(kind);
        map.extend_from_bytes(bytes)?;
        Ok(map)
    }

    /// Applies records of [`IdMap::encode_from`] in order. A record may
    /// overlap the keys the map already has (a log replayed after a
    /// checkpoint): those keys must be the ones it holds, and only the rest
    /// is appended. All or nothing: on an error the map is as it was.
    ///
    /// # Errors
    /// [`Error::InvalidStructure`] for a malformed record, a record of the
    /// other kind, one starting past the map's end (a record is missing),
    /// one that disagrees with a key the map holds, or one repeating a key.
    pub fn extend_from_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let before = self.len();
        let result = self.apply_records(bytes);
        if result.is_err() {
            self.truncate(before);
        }
        result
    }

    fn apply_records(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            bytes = self.apply_record(bytes)?;
        }
        Ok(())
    }

    /// Applies the record at the start of `bytes`; returns what follows it.
    fn apply_record<'b>(&mut self, bytes: &'b [u8]) -> Result<&'b [u8]> {
        let header = bytes.get(..HEADER).ok_or_else(|| {
            invalid(format!(
                "{} bytes, shorter than a record header",
                bytes.len()
            ))
        })?;
        let word =
            |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().unwrap_or_default());
        if &header[..4] != MAGIC || header[5..8] != [0, 0, 0] {
            return Err(invalid(
                "a record does not start with its magic bytes".into(),
            ));
        }
        if header[4] != kind_byte(self.kind()) {
            return Err(invalid(format!(
                "a record of kind {} in a map of {} ids",
                header[4],
                self.kind()
            )));
        }
        let (first, count) = (word(8), word(16));
        if first > self.len() as u64 {
            return Err(invalid(format!(
                "a record starts at vertex {first}, but the map has {} keys (a record is \
                 missing)",
                self.len()
            )));
        }
        let rest = &bytes[HEADER..];
        let words = count
            .checked_mul(8)
            .filter(|&length| length <= rest.len() as u64)
            .ok_or_else(|| {
                invalid(format!(
                    "a record of {count} keys is cut off after {} bytes",
                    rest.len()
                ))
            })? as usize;
        let (table, rest) = rest.split_at(words);
        let value =
            |i: usize| u64::from_le_bytes(table[8 * i..8 * i + 8].try_into().unwrap_or_default());
        let (strings, rest) = match self.kind() {
            IdKind::Integers => (&[][..], rest),
            IdKind::Strings => {
                let length = if count == 0 {
                    0
                } else {
                    value(count as usize - 1)
                };
                if length > rest.len() as u64 {
                    return Err(invalid(format!(
                        "a record's strings need {length} bytes, {} are left",
                        rest.len()
                    )));
                }
                rest.split_at(length as usize)
            }
        };
        let mut start = 0u64;
        for i in 0..count as usize {
            let key = match self.kind() {
                IdKind::Integers => OriginalId::Integer(value(i)),
                IdKind::Strings => {
                    let end = value(i);
                    if end < start || end > strings.len() as u64 {
                        return Err(invalid(format!("string {i} of a record ends out of order")));
                    }
                    let key = OriginalId::String(&strings[start as usize..end as usize]);
                    start = end;
                    key
                }
            };
            self.apply_key(first + i as u64, key)?;
        }
        Ok(rest)
    }

    /// Vertex `v`'s key from a record: checked against the map, or
    /// appended as the next vertex.
    fn apply_key(&mut self, v: u64, key: OriginalId<'_>) -> Result<()> {
        if v < self.len() as u64 {
            let held = self.original(v as VertexId);
            if held != key {
                return Err(invalid(format!(
                    "a record gives vertex {v} the key {key}, but the map holds {held}"
                )));
            }
            return Ok(());
        }
        if let Some(other) = self.lookup(key) {
            return Err(invalid(format!(
                "a record repeats the key {key} of vertex {other}"
            )));
        }
        self.check_room(1, super::MAX_KEYS)?;
        self.push(key);
        Ok(())
    }
}
