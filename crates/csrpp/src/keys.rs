//! Optional map from external `u64` keys to internal vertex ids, for inputs
//! whose ids are sparse or do not fit 31 bits.

use crate::store::CsrPP;
use dyngraph_core::{Error, GraphUpdate, Result, VertexId, Weight, check_limit};
use std::collections::HashMap;

/// Both directions of the key map. Internal ids are handed out densely in
/// first-seen order.
#[derive(Clone, Debug, Default)]
pub(crate) struct KeyMap {
    to_internal: HashMap<u64, VertexId>,
    to_external: HashMap<VertexId, u64>,
}

impl CsrPP {
    fn keys_or_error(&self) -> Result<&KeyMap> {
        self.keys.as_ref().ok_or_else(|| {
            Error::InvalidArgument(
                "external keys are off for this store (enable CsrPPOptions::external_keys)".into(),
            )
        })
    }

    /// The internal id of `key`, if it has one.
    pub fn vertex_of_key(&self, key: u64) -> Option<VertexId> {
        self.keys.as_ref()?.to_internal.get(&key).copied()
    }

    /// The external key of vertex `v`, if it was created through one.
    pub fn key_of_vertex(&self, v: VertexId) -> Option<u64> {
        self.keys.as_ref()?.to_external.get(&v).copied()
    }

    /// The internal ids of `keys`, creating a new vertex (the next id) for
    /// each key not seen before. All-or-nothing: if the new vertices would
    /// pass the vertex limit, nothing changes.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the store keeps no key map;
    /// [`Error::VertexLimit`] past the limit.
    pub fn intern_keys<const N: usize>(&mut self, keys: [u64; N]) -> Result<[VertexId; N]> {
        let map = self.keys_or_error()?;
        let mut fresh: Vec<u64> = keys
            .iter()
            .copied()
            .filter(|k| !map.to_internal.contains_key(k))
            .collect();
        fresh.sort_unstable();
        fresh.dedup();
        if let Some(last) = (self.vertex_count + fresh.len()).checked_sub(1)
            && !fresh.is_empty()
        {
            let last = u32::try_from(last).unwrap_or(u32::MAX);
            check_limit(self.options.store.vertex_limit, [last])?;
        }
        for key in keys {
            let next = self.vertex_count as VertexId;
            let map = self.keys.as_mut().expect("checked above");
            if let std::collections::hash_map::Entry::Vacant(entry) = map.to_internal.entry(key) {
                entry.insert(next);
                map.to_external.insert(next, key);
                self.grow_to(next as usize + 1);
            }
        }
        let map = self.keys_or_error()?;
        Ok(keys.map(|k| map.to_internal[&k]))
    }

    /// Inserts the edge between two external keys (interning them).
    ///
    /// # Errors
    /// As [`CsrPP::intern_keys`].
    pub fn insert_edge_by_key(&mut self, src: u64, dst: u64) -> Result<bool> {
        self.insert_weighted_edge_by_key(src, dst, 1.0)
    }

    /// Inserts a weighted edge between two external keys.
    ///
    /// # Errors
    /// As [`CsrPP::intern_keys`].
    pub fn insert_weighted_edge_by_key(
        &mut self,
        src: u64,
        dst: u64,
        weight: Weight,
    ) -> Result<bool> {
        let [s, d] = self.intern_keys([src, dst])?;
        self.insert_weighted_edge(s, d, weight)
    }

    /// Deletes one occurrence of the edge between two keys; unknown keys
    /// remove nothing.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the store keeps no key map.
    pub fn delete_edge_by_key(&mut self, src: u64, dst: u64) -> Result<bool> {
        let map = self.keys_or_error()?;
        match (map.to_internal.get(&src), map.to_internal.get(&dst)) {
            (Some(&s), Some(&d)) => self.delete_edge(s, d),
            _ => Ok(false),
        }
    }
}
