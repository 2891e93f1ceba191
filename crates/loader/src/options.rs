//! [`LoadOptions`]: how a text graph is read.

use crate::fields::Delimiter;
use crate::format::{Format, ThirdColumn};
use crate::ids::IdMode;
use crate::progress::ParseProgress;
use dyngraph_core::{CsrOptions, DEFAULT_VERTEX_LIMIT, Semantics, StoreConfig};

/// Default [`LoadOptions::block_size`]: 1 MiB, large enough that per-block
/// overhead vanishes and small enough to balance two to hundreds of threads
/// on files of a few hundred megabytes.
pub const DEFAULT_BLOCK_SIZE: usize = 1 << 20;

/// How to read a text graph. `LoadOptions::default()` detects the format
/// (and a `.csv`/`.tsv` file's delimiter), keeps every edge and the file's
/// numeric ids ([`IdMode::Keep`]), and uses rayon's global pool.
///
/// ```
/// use dyngraph_loader::{Format, LoadOptions, ThirdColumn};
/// let options = LoadOptions::default()
///     .format(Format::Snap)
///     .third_column(ThirdColumn::Ignore)
///     .drop_self_loops(true)
///     .threads(2);
/// assert_eq!(options.threads, Some(2));
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LoadOptions {
    /// The format; `None` detects it ([`Format::detect`]: the Matrix Market
    /// banner, else the extension, else SNAP).
    pub format: Option<Format>,
    /// How to read a third column; `None` follows the format (see
    /// [`Format`]). Setting it on [`Format::Snap`] or [`Format::EdgeList`]
    /// makes the third column required. Ignored for a Matrix Market
    /// `pattern` file, which has none.
    pub third_column: Option<ThirdColumn>,
    /// Drop `v -> v` edges. The vertex count still covers their ids.
    pub drop_self_loops: bool,
    /// Keep only the first arrival of every `(src, dst)` pair, with its
    /// value. A stream keeps file order; a [`Csr`](dyngraph_core::Csr) gets sorted neighbour
    /// lists and [`dyngraph_core::Semantics::Simple`].
    pub dedupe: bool,
    /// Emit `dst -> src` right after every `src -> dst` (a self-loop once).
    /// A symmetric Matrix Market file is always expanded this way.
    pub symmetrize: bool,
    /// Threads to parse and build with; `None` uses rayon's global pool.
    pub threads: Option<usize>,
    /// Target block size in bytes; blocks are extended to the next line
    /// start. Small values only matter for testing.
    pub block_size: usize,
    /// Refuse (with the offending line and column) any id at or past this,
    /// and a Matrix Market size line declaring more, instead of allocating
    /// for it. Default [`DEFAULT_VERTEX_LIMIT`].
    pub max_vertices: usize,
    /// [`crate::load_csr`] only: also build the in-edges.
    pub in_edges: bool,
    /// [`crate::load_csr`] only: sort each neighbour list (stable).
    pub sort: bool,
    /// How vertex ids are read ([`IdMode`]: kept as they are by default,
    /// a file whose numeric ids cannot be kept refused with the mode to
    /// use). Relabelled ids keep their originals
    /// ([`EdgeStream::ids`](crate::EdgeStream::ids),
    /// [`Csr::ids`](dyngraph_core::Csr::ids)).
    pub ids: IdMode,
    /// What separates an edge list's fields; `None` detects it: tabs for a
    /// `.tsv` file, the delimiter a `.csv` file's first data line holds
    /// most of, blanks for every other format ([`Delimiter`]). Matrix Market files
    /// are always blank-separated.
    pub delimiter: Option<Delimiter>,
    /// The first data line of an edge list is a header row: skip it. A
    /// first line of names followed by numeric lines is refused without
    /// this (never read as an edge), naming this option.
    pub header: bool,
    /// Refuse a negative weight at its line and column (shortest paths
    /// need weights of 0 or more). A weight that is not a number (NaN) is
    /// refused always.
    pub nonnegative_weights: bool,
    /// Counts the text's bytes as they are parsed, for a progress display
    /// ([`ParseProgress`]); `None` counts nothing.
    pub progress: Option<ParseProgress>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            format: None,
            third_column: None,
            drop_self_loops: false,
            dedupe: false,
            symmetrize: false,
            threads: None,
            block_size: DEFAULT_BLOCK_SIZE,
            max_vertices: DEFAULT_VERTEX_LIMIT,
            in_edges: false,
            sort: false,
            ids: IdMode::Keep,
            delimiter: None,
            header: false,
            nonnegative_weights: false,
            progress: None,
        }
    }
}

macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty => $value:expr;)*) => {
        impl LoadOptions {
    /// The [`CsrOptions`] of a load into `vertex_count` vertices: the
    /// in-edges, sorting, deduplication (simple semantics) and vertex
    /// limit asked for; the input's weights are kept.
    pub(crate) fn csr_options(&self, vertex_count: usize) -> CsrOptions {
        let semantics = if self.dedupe {
            Semantics::Simple
        } else {
            Semantics::Multigraph
        };
        CsrOptions::default()
            .semantics(semantics)
            .in_edges(self.in_edges)
            .vertex_limit(self.max_vertices)
            .sort(self.sort)
            .vertex_count(vertex_count)
    }
}

impl LoadOptions {
            $(
                $(#[$doc])*
                pub fn $name(mut self, $name: $ty) -> Self {
                    self.$name = $value;
                    self
                }
            )*
        }
    };
}

setters! {
    /// Sets [`LoadOptions::format`].
    format: Format => Some(format);
    /// Sets [`LoadOptions::third_column`].
    third_column: ThirdColumn => Some(third_column);
    /// Sets [`LoadOptions::drop_self_loops`].
    drop_self_loops: bool => drop_self_loops;
    /// Sets [`LoadOptions::dedupe`].
    dedupe: bool => dedupe;
    /// Sets [`LoadOptions::symmetrize`].
    symmetrize: bool => symmetrize;
    /// Sets [`LoadOptions::threads`].
    threads: usize => Some(threads);
    /// Sets [`LoadOptions::block_size`].
    block_size: usize => block_size;
    /// Sets [`LoadOptions::max_vertices`].
    max_vertices: usize => max_vertices;
    /// Sets [`LoadOptions::in_edges`].
    in_edges: bool => in_edges;
    /// Sets [`LoadOptions::sort`].
    sort: bool => sort;
    /// Sets [`LoadOptions::ids`].
    ids: IdMode => ids;
    /// Sets [`LoadOptions::delimiter`].
    delimiter: Delimiter => Some(delimiter);
    /// Sets [`LoadOptions::header`].
    header: bool => header;
    /// Sets [`LoadOptions::nonnegative_weights`].
    nonnegative_weights: bool => nonnegative_weights;
    /// Sets [`LoadOptions::progress`].
    progress: ParseProgress => Some(progress);
}
