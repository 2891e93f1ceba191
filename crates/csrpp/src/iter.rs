//! Neighbour iterators: a walk over one sorted edge array that skips
//! logically deleted slots.

use crate::adjacency::TOMBSTONE;
use dyngraph_core::{VertexId, Weight};

/// The out- or in-neighbours of one vertex of a [`crate::CsrPP`], in
/// increasing id order (repeats adjacent in a multigraph).
///
/// When the list holds no tombstones (the common case, and always under
/// [`crate::DeleteMode::Physical`]) this is a plain slice walk; otherwise
/// each slot's tombstone bit is tested.
#[derive(Clone, Debug)]
pub struct NeighborIter<'a> {
    ids: std::slice::Iter<'a, u32>,
    skip_tombstones: bool,
}

impl<'a> NeighborIter<'a> {
    pub(crate) fn new(ids: &'a [u32], skip_tombstones: bool) -> Self {
        Self {
            ids: ids.iter(),
            skip_tombstones,
        }
    }
}

impl Iterator for NeighborIter<'_> {
    type Item = VertexId;

    #[inline]
    fn next(&mut self) -> Option<VertexId> {
        if self.skip_tombstones {
            self.ids.find(|&&id| id & TOMBSTONE == 0).copied()
        } else {
            self.ids.next().copied()
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let upper = self.ids.len();
        (if self.skip_tombstones { 0 } else { upper }, Some(upper))
    }

    #[inline]
    fn fold<B, F: FnMut(B, VertexId) -> B>(self, init: B, mut f: F) -> B {
        // Internal iteration lets the no-tombstone case compile to a plain
        // slice loop (kernels that use `for_each`/`sum` get it).
        if self.skip_tombstones {
            self.ids
                .filter(|&&id| id & TOMBSTONE == 0)
                .fold(init, |acc, &id| f(acc, id))
        } else {
            self.ids.fold(init, |acc, &id| f(acc, id))
        }
    }
}

/// The out-edges of one vertex with their weights, in the order of
/// [`NeighborIter`]: what [`crate::CsrPPWeights`] reads.
#[derive(Clone, Debug)]
pub struct WeightedNeighborIter<'a> {
    ids: &'a [u32],
    weights: &'a [Weight],
    position: usize,
}

impl<'a> WeightedNeighborIter<'a> {
    pub(crate) fn new(ids: &'a [u32], weights: &'a [Weight]) -> Self {
        Self {
            ids,
            weights,
            position: 0,
        }
    }
}

impl Iterator for WeightedNeighborIter<'_> {
    type Item = (VertexId, Weight);

    #[inline]
    fn next(&mut self) -> Option<(VertexId, Weight)> {
        while let Some(&id) = self.ids.get(self.position) {
            let weight = self.weights.get(self.position).copied().unwrap_or(1.0);
            self.position += 1;
            if id & TOMBSTONE == 0 {
                return Some((id, weight));
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.ids.len() - self.position))
    }
}
