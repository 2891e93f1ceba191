//! The input stream: edges in arrival order, with their optional timestamp
//! or weight column, and the reorderings `replay` offers.

use anyhow::{Result, bail};
use dyngraph_core::{Edge, Timestamp, VertexId, Weight, WeightedEdge};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Edges as parallel columns, in the order they will be replayed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Stream {
    pub(crate) src: Vec<VertexId>,
    pub(crate) dst: Vec<VertexId>,
    pub(crate) timestamps: Option<Vec<Timestamp>>,
    pub(crate) weights: Option<Vec<Weight>>,
}

/// The arrival order of a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Order {
    /// As in the file.
    File,
    /// Sorted by the timestamp column (stable: ties keep file order).
    Time,
    /// Shuffled with `--seed` (the papers' Random workload).
    Shuffle,
    /// Grouped by source vertex, file order within a source (the papers'
    /// Hammer workload).
    Source,
}

impl Stream {
    pub(crate) fn len(&self) -> usize {
        self.src.len()
    }

    pub(crate) fn edge(&self, index: usize) -> Edge {
        Edge::new(self.src[index], self.dst[index])
    }

    pub(crate) fn weighted_edge(&self, index: usize) -> WeightedEdge {
        let weight = self.weights.as_ref().map_or(1.0, |w| w[index]);
        WeightedEdge::new(self.src[index], self.dst[index], weight)
    }

    /// Largest id + 1.
    pub(crate) fn vertex_count(&self) -> usize {
        let max = self.src.iter().chain(&self.dst).max();
        max.map_or(0, |&id| id as usize + 1)
    }

    /// Reorders the stream.
    pub(crate) fn reorder(&mut self, order: Order, seed: u64) -> Result<()> {
        let mut permutation: Vec<usize> = (0..self.len()).collect();
        match order {
            Order::File => return Ok(()),
            Order::Time => {
                let Some(timestamps) = &self.timestamps else {
                    bail!(
                        "--order time needs a timestamp column, and this input has none \
                         (use --order file, or a SNAP temporal file with `src dst timestamp` lines)"
                    );
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
        self.timestamps = self.timestamps.as_ref().map(|t| gather(t, &permutation));
        self.weights = self.weights.as_ref().map(|w| gather(w, &permutation));
        Ok(())
    }

    /// Each edge followed by its reverse (a self-loop once), for
    /// `--undirected`. The reverse arrives at the same time with the same
    /// weight.
    pub(crate) fn symmetrized(&self) -> Stream {
        let mut out = Stream {
            src: Vec::with_capacity(self.len() * 2),
            dst: Vec::with_capacity(self.len() * 2),
            timestamps: self
                .timestamps
                .as_ref()
                .map(|_| Vec::with_capacity(self.len() * 2)),
            weights: self
                .weights
                .as_ref()
                .map(|_| Vec::with_capacity(self.len() * 2)),
        };
        for i in 0..self.len() {
            let copies = if self.src[i] == self.dst[i] { 1 } else { 2 };
            for copy in 0..copies {
                let (s, d) = if copy == 0 {
                    (self.src[i], self.dst[i])
                } else {
                    (self.dst[i], self.src[i])
                };
                out.src.push(s);
                out.dst.push(d);
                if let (Some(out_t), Some(t)) = (&mut out.timestamps, &self.timestamps) {
                    out_t.push(t[i]);
                }
                if let (Some(out_w), Some(w)) = (&mut out.weights, &self.weights) {
                    out_w.push(w[i]);
                }
            }
        }
        out
    }
}

fn gather<T: Copy>(values: &[T], permutation: &[usize]) -> Vec<T> {
    permutation.iter().map(|&i| values[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Stream {
        Stream {
            src: vec![3, 1, 2, 1],
            dst: vec![0, 1, 3, 0],
            timestamps: Some(vec![30, 10, 10, 5]),
            weights: None,
        }
    }

    #[test]
    fn time_order_is_stable_on_ties() {
        let mut stream = sample();
        stream.reorder(Order::Time, 0).unwrap();
        assert_eq!(stream.src, [1, 1, 2, 3]);
        assert_eq!(stream.timestamps.unwrap(), [5, 10, 10, 30]);
    }

    #[test]
    fn source_order_groups_sources_keeping_file_order() {
        let mut stream = sample();
        stream.reorder(Order::Source, 0).unwrap();
        assert_eq!(stream.src, [1, 1, 2, 3]);
        assert_eq!(stream.dst, [1, 0, 3, 0]);
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
        let mut sorted = a.src.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn time_order_without_timestamps_is_an_error() {
        let mut stream = Stream {
            src: vec![0],
            dst: vec![1],
            ..Stream::default()
        };
        let error = stream.reorder(Order::Time, 0).unwrap_err();
        assert!(error.to_string().contains("--order time"), "{error}");
    }

    #[test]
    fn symmetrize_adds_reverses_and_keeps_self_loops_once() {
        let stream = sample().symmetrized();
        assert_eq!(stream.src, [3, 0, 1, 2, 3, 1, 0]);
        assert_eq!(stream.dst, [0, 3, 1, 3, 2, 0, 1]);
        assert_eq!(stream.timestamps.unwrap(), [30, 30, 10, 10, 10, 5, 5]);
    }
}
