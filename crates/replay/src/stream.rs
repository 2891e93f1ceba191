//! The input stream: edges in arrival order as columns, with their optional
//! timestamp or weight column, and the reorderings a replay offers.

use dyngraph_core::{
    EdgeChunk, EdgeSource, Error, IdMap, Result, Timestamp, VertexId, Weight, WeightedEdge,
};
use dyngraph_loader::{Column, EdgeStream, Order};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::ops::Range;
use std::sync::Arc;

/// Edges as parallel columns, in the order they will be replayed. Batches
/// are handed to stores as [`EdgeChunk`]s of these columns: no copy. The
/// columns of a mapped binary edge stream
/// ([`dyngraph_loader::map_edge_stream`]) stay read in place from the map
/// (a replay in file order copies nothing; a reordering gathers into new
/// columns).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stream {
    /// Sources.
    pub src: Column<VertexId>,
    /// Destinations.
    pub dst: Column<VertexId>,
    /// Arrival times, when the input has them (SNAP temporal files).
    pub timestamps: Option<Column<Timestamp>>,
    /// Weights, when the input has them (`.wel`, weighted Matrix Market).
    pub weights: Option<Column<Weight>>,
    /// The original ids of the vertices, when the input's ids were sparse
    /// integers or strings and the loader relabelled them.
    pub ids: Option<Arc<IdMap>>,
}

impl From<EdgeStream> for Stream {
    /// Takes the loader's columns over without copying them (mapped ones
    /// stay mapped).
    fn from(stream: EdgeStream) -> Self {
        let ids = stream.shared_ids().cloned();
        let (src, dst, weights, timestamps) = stream.into_columns();
        Stream {
            src,
            dst,
            timestamps,
            weights,
            ids,
        }
    }
}

impl Stream {
    /// A stream of `(src, dst)` pairs without timestamps or weights.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (VertexId, VertexId)>) -> Self {
        let (src, dst): (Vec<_>, Vec<_>) = pairs.into_iter().unzip();
        Stream {
            src: src.into(),
            dst: dst.into(),
            ..Stream::default()
        }
    }

    /// Arrivals.
    pub fn len(&self) -> usize {
        self.src.len()
    }

    /// Whether there are no arrivals.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    /// Largest id + 1 (the relabelled ids' count when there are original
    /// ids).
    pub fn vertex_count(&self) -> usize {
        let max = self.src.iter().chain(self.dst.iter()).max();
        let by_ids = max.map_or(0, |&id| id as usize + 1);
        self.ids
            .as_ref()
            .map_or(by_ids, |ids| ids.len().max(by_ids))
    }

    /// The name of vertex `v` for people: its original id when the input
    /// was relabelled, else the vertex id itself.
    pub fn name(&self, v: VertexId) -> String {
        match &self.ids {
            Some(ids) if (v as usize) < ids.len() => ids.original(v).to_string(),
            _ => v.to_string(),
        }
    }

    /// Arrivals `range` as columns, with weights when `weighted` and the
    /// stream has them.
    pub fn chunk(&self, range: Range<usize>, weighted: bool) -> EdgeChunk<'_> {
        EdgeChunk {
            src: &self.src[range.clone()],
            dst: &self.dst[range.clone()],
            weights: self
                .weights
                .as_deref()
                .filter(|_| weighted)
                .map(|w| &w[range]),
        }
    }

    /// Reorders the stream.
    pub fn reorder(&mut self, order: Order, seed: u64) -> Result<()> {
        if order == Order::File {
            // Nothing to allocate: the permutation is 8 bytes per arrival
            // (8 GiB at a billion edges).
            return Ok(());
        }
        let mut permutation: Vec<usize> = (0..self.len()).collect();
        match order {
            Order::File => {}
            Order::Time => {
                let Some(timestamps) = &self.timestamps else {
                    return Err(Error::InvalidArgument(
                        "--order time needs a timestamp column, and this input has none \
                         (use --order file, or a SNAP temporal file with `src dst timestamp` lines)"
                            .into(),
                    ));
                };
                permutation.sort_by_key(|&i| timestamps[i]);
            }
            Order::Shuffle => {
                permutation.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(seed));
            }
            Order::Source => permutation.sort_by_key(|&i| self.src[i]),
        }
        self.src = gather(&self.src, &permutation);
        self.dst = gather(&self.dst, &permutation);
        self.timestamps = self.timestamps.as_deref().map(|t| gather(t, &permutation));
        self.weights = self.weights.as_deref().map(|w| gather(w, &permutation));
        Ok(())
    }

    /// Each edge followed by its reverse (a self-loop once), for undirected
    /// replays. The reverse arrives at the same time with the same weight.
    pub fn symmetrized(&self) -> Stream {
        let doubled = self.len() * 2;
        let mut src = Vec::with_capacity(doubled);
        let mut dst = Vec::with_capacity(doubled);
        let mut timestamps = self
            .timestamps
            .as_ref()
            .map(|_| Vec::with_capacity(doubled));
        let mut weights = self.weights.as_ref().map(|_| Vec::with_capacity(doubled));
        for i in 0..self.len() {
            let copies = if self.src[i] == self.dst[i] { 1 } else { 2 };
            for copy in 0..copies {
                let (s, d) = if copy == 0 {
                    (self.src[i], self.dst[i])
                } else {
                    (self.dst[i], self.src[i])
                };
                src.push(s);
                dst.push(d);
                if let (Some(out_t), Some(t)) = (&mut timestamps, &self.timestamps) {
                    out_t.push(t[i]);
                }
                if let (Some(out_w), Some(w)) = (&mut weights, &self.weights) {
                    out_w.push(w[i]);
                }
            }
        }
        Stream {
            src: src.into(),
            dst: dst.into(),
            timestamps: timestamps.map(Column::from),
            weights: weights.map(Column::from),
            ids: self.ids.clone(),
        }
    }
}

/// The whole stream as a source (weights included when it has them).
impl EdgeSource for Stream {
    fn len(&self) -> usize {
        self.src.len()
    }

    fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    fn edge(&self, i: usize) -> WeightedEdge {
        self.chunk(0..self.len(), true).edge(i)
    }

    fn for_each_in(&self, range: Range<usize>, f: impl FnMut(VertexId, VertexId, Weight)) {
        self.chunk(0..self.len(), true).for_each_in(range, f)
    }
}

fn gather<T: Copy>(values: &[T], permutation: &[usize]) -> Column<T> {
    permutation.iter().map(|&i| values[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Stream {
        Stream {
            src: vec![3, 1, 2, 1].into(),
            dst: vec![0, 1, 3, 0].into(),
            timestamps: Some(vec![30, 10, 10, 5].into()),
            weights: None,
            ids: None,
        }
    }

    #[test]
    fn time_order_is_stable_on_ties() {
        let mut stream = sample();
        stream.reorder(Order::Time, 0).unwrap();
        assert_eq!(stream.src[..], [1, 1, 2, 3]);
        assert_eq!(stream.timestamps.unwrap()[..], [5, 10, 10, 30]);
    }

    #[test]
    fn source_order_groups_sources_keeping_file_order() {
        let mut stream = sample();
        stream.reorder(Order::Source, 0).unwrap();
        assert_eq!(stream.src[..], [1, 1, 2, 3]);
        assert_eq!(stream.dst[..], [1, 0, 3, 0]);
    }

    #[test]
    fn shuffle_is_a_permutation_and_depends_on_the_seed() {
        let mut a = Stream {
            src: (0..1000).collect(),
            dst: (0..1000).collect(),
            ..Stream::default()
        };
        let mut b = a.clone();
        a.reorder(Order::Shuffle, 1).unwrap();
        b.reorder(Order::Shuffle, 2).unwrap();
        assert_ne!(a.src, b.src);
        assert_eq!(a.src, a.dst, "columns move together");
        let mut sorted = a.src.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn time_order_without_timestamps_is_an_error() {
        let mut stream = Stream::from_pairs([(0, 1)]);
        let error = stream.reorder(Order::Time, 0).unwrap_err();
        assert!(error.to_string().contains("--order time"), "{error}");
    }

    #[test]
    fn symmetrize_adds_reverses_and_keeps_self_loops_once() {
        let stream = sample().symmetrized();
        assert_eq!(stream.src[..], [3, 0, 1, 2, 3, 1, 0]);
        assert_eq!(stream.dst[..], [0, 3, 1, 3, 2, 0, 1]);
        assert_eq!(stream.timestamps.unwrap()[..], [30, 30, 10, 10, 10, 5, 5]);
    }

    #[test]
    fn chunks_borrow_the_columns_and_drop_weights_on_request() {
        let stream = Stream {
            weights: Some(vec![0.5, 1.5, 2.5, 3.5].into()),
            ..sample()
        };
        let chunk = stream.chunk(1..3, true);
        assert_eq!((chunk.src, chunk.dst), (&[1, 2][..], &[1, 3][..]));
        assert_eq!(chunk.weights, Some(&[1.5, 2.5][..]));
        assert!(stream.chunk(1..3, false).weights.is_none());
    }
}
