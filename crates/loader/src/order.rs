//! The order edges arrive in: one enum for a file replayed, a graph
//! generated and a stream partitioned, so every layer names the papers'
//! workloads alike.

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
