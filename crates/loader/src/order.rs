//! The order edges arrive in: one enum for a file replayed, a graph
//! generated and a stream partitioned, so every layer names the papers'
//! workloads alike, and [`EdgeStream::reorder`], which puts a stream in
//! it.

use crate::stream::EdgeStream;
use dyngraph_core::{Error, Result};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::fmt;

/// The arrival order of a stream's edges: as read (or drawn), by
/// timestamp, shuffled (the papers' Random workload) or grouped by source
/// (their Hammer workload). `dyngraph replay --order` and `dyngraph gen
/// --order` take it by these names (`generated` is `file` for a
/// generator: as drawn).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Order {
    /// As in the file, or as a generator draws it (block after block).
    #[default]
    #[cfg_attr(feature = "clap", value(alias = "generated"))]
    File,
    /// Sorted by the timestamp column, stable (ties keep file order); a
    /// stream without one is refused.
    Time,
    /// A random permutation from a seed: the papers' "Random" workload.
    Shuffle,
    /// All edges of source 0, then of source 1, ..., arrival order within
    /// a source: the papers' "Hammer" workload, where one vertex takes a
    /// burst of inserts.
    Source,
}

impl Order {
    /// The order's name, as the command line and the reports spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Order::File => "file",
            Order::Time => "time",
            Order::Shuffle => "shuffle",
            Order::Source => "source",
        }
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl EdgeStream {
    /// Puts the edges in `order`, with their values (`seed` draws
    /// [`Order::Shuffle`]'s permutation): what a replay does to its input
    /// before it starts. [`Order::File`] leaves the stream as it is (a
    /// mapped stream stays mapped, and nothing is allocated); the others
    /// gather every column into a new one in the new order, through a
    /// permutation of 8 bytes per edge. [`Order::Time`] and
    /// [`Order::Source`] are stable: ties keep their order.
    ///
    /// [`Order::Shuffle`] here is a Fisher-Yates shuffle with
    /// xoshiro256++; a [`crate::Generator`] draws its own, parallel and
    /// independent of the thread count, so the same seed shuffles a
    /// generated graph and a replayed stream differently.
    ///
    /// ```
    /// use dyngraph_loader::{EdgeStream, Order};
    /// let mut stream = EdgeStream::from_pairs([(3, 0), (1, 1), (2, 3)]).with_timestamps(vec![30, 10, 10])?;
    /// stream.reorder(Order::Time, 0)?;
    /// assert_eq!(stream.src(), [1, 2, 3]);
    /// assert_eq!(stream.timestamps(), Some(&[10, 10, 30][..]));
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for [`Order::Time`] on a stream without
    /// timestamps.
    pub fn reorder(&mut self, order: Order, seed: u64) -> Result<()> {
        let mut permutation: Vec<usize> = match order {
            // Nothing to allocate: the permutation is 8 bytes per arrival
            // (8 GiB at a billion edges).
            Order::File => return Ok(()),
            _ => (0..self.len()).collect(),
        };
        match order {
            Order::File => {}
            Order::Time => {
                let Some(timestamps) = self.timestamps() else {
                    return Err(Error::InvalidArgument(
                        "--order time needs a timestamp column, and this input has none \
                         (use --order file, or a SNAP temporal file with `src dst timestamp` lines)"
                            .into(),
                    ));
                };
                permutation.par_sort_by_key(|&i| timestamps[i]);
            }
            Order::Shuffle => {
                permutation.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(seed));
            }
            Order::Source => {
                let src = self.src();
                permutation.par_sort_by_key(|&i| src[i]);
            }
        }
        *self = self.gather(&permutation);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> EdgeStream {
        EdgeStream::from_pairs([(3, 0), (1, 1), (2, 3), (1, 0)])
            .with_timestamps(vec![30, 10, 10, 5])
            .unwrap()
    }

    #[test]
    fn time_order_is_stable_on_ties() {
        let mut stream = sample();
        stream.reorder(Order::Time, 0).unwrap();
        assert_eq!(stream.src(), [1, 1, 2, 3]);
        assert_eq!(stream.timestamps().unwrap(), [5, 10, 10, 30]);
    }

    #[test]
    fn source_order_groups_sources_keeping_file_order() {
        let mut stream = sample();
        stream.reorder(Order::Source, 0).unwrap();
        assert_eq!(stream.src(), [1, 1, 2, 3]);
        assert_eq!(stream.dst(), [1, 0, 3, 0]);
    }

    #[test]
    fn shuffle_is_a_permutation_and_depends_on_the_seed() {
        let mut a = EdgeStream::from_pairs((0..1000).map(|i| (i, i)));
        let mut b = a.clone();
        a.reorder(Order::Shuffle, 1).unwrap();
        b.reorder(Order::Shuffle, 2).unwrap();
        assert_ne!(a.src(), b.src());
        assert_eq!(a.src(), a.dst(), "columns move together");
        let mut sorted = a.src().to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
        assert_eq!(a.vertex_count(), 1000);
    }

    #[test]
    fn time_order_without_timestamps_is_an_error() {
        let mut stream = EdgeStream::from_pairs([(0, 1)]);
        let error = stream.reorder(Order::Time, 0).unwrap_err();
        assert!(error.to_string().contains("--order time"), "{error}");
    }

    #[test]
    fn every_order_moves_weights_and_timestamps_together() {
        let base = EdgeStream::from_pairs([(3, 0), (1, 1), (2, 3), (1, 0)])
            .with_weights(vec![3.5, 1.5, 2.5, 0.5])
            .unwrap()
            .with_timestamps(vec![30, 10, 10, 5])
            .unwrap();
        for order in [Order::File, Order::Time, Order::Shuffle, Order::Source] {
            let mut stream = base.clone();
            stream.reorder(order, 7).unwrap();
            let (w, t) = (stream.weights().unwrap(), stream.timestamps().unwrap());
            for i in 0..stream.len() {
                let j = (0..base.len())
                    .find(|&j| {
                        base.timestamps().unwrap()[j] == t[i] && base.src()[j] == stream.src()[i]
                    })
                    .unwrap();
                assert_eq!(
                    (base.dst()[j], base.weights().unwrap()[j]),
                    (stream.dst()[i], w[i]),
                    "{order}"
                );
            }
        }
    }

    #[test]
    fn symmetrize_adds_reverses_and_keeps_self_loops_once() {
        let stream = sample().symmetrized();
        assert_eq!(stream.src(), [3, 0, 1, 2, 3, 1, 0]);
        assert_eq!(stream.dst(), [0, 3, 1, 3, 2, 0, 1]);
        assert_eq!(stream.timestamps().unwrap(), [30, 30, 10, 10, 10, 5, 5]);
    }
}
