//! The store contract: what every store in dyngraph answers beyond the read
//! and update traits — bulk build, snapshots, memory, freezing into a
//! [`Csr`] — so that tests, the replay engine, the CLI, the benches and the
//! distributed crate drive every store through one interface.
//!
//! | need | trait / method |
//! |---|---|
//! | build in bulk from any [`EdgeSource`] (the loader's columns, `&[Edge]`, ...) | [`FromEdges::from_edges`] |
//! | read out-edges, in-edges and weights behind capability checks | [`ReadGraph`] |
//! | every edge, weighted or not | [`OutNeighbors::edges`](crate::OutNeighbors::edges), [`EdgeWeights::weighted_edges`](crate::EdgeWeights::weighted_edges) |
//! | a read view that stays as it was while the store keeps changing | [`Snapshots::snapshot`], [`Snapshots::view`] |
//! | heap bytes held | [`GraphStore::memory_bytes`] |
//! | what it can do (in-edges, weights, durable, distributable, concurrent writers) | [`GraphStore::CAPABILITIES`] |
//! | its options, built one way around [`StoreOptions`] | [`StoreConfig`] |
//! | freeze into the immutable [`Csr`], in parallel | [`GraphStore::to_csr`] |
//! | insert and delete, one edge or a batch | [`GraphUpdate`](crate::GraphUpdate) ([`DynamicStore`]) |
//!
//! ```
//! use dyngraph_core::{Csr, CsrOptions, Edge, GraphStore, Snapshots, OutNeighbors, FromEdges};
//!
//! // Any store: written once against the contract.
//! fn describe<S: GraphStore>(edges: &[Edge], options: S::Options) -> dyngraph_core::Result<String> {
//!     let store = S::from_edges(edges, options)?;
//!     let snapshot = store.snapshot();
//!     let view = store.view(&snapshot)?;
//!     let frozen = store.to_csr()?;
//!     Ok(format!("{}: {} edges, {} in the view, {} frozen, {} bytes",
//!         S::NAME, store.edge_count(), view.edges().count(), frozen.edge_count(), store.memory_bytes()))
//! }
//! let text = describe::<Csr>(&[Edge::new(0, 1), Edge::new(1, 2)], CsrOptions::default())?;
//! assert!(text.starts_with("Csr: 2 edges, 2 in the view, 2 frozen"));
//! # use dyngraph_core::Graph;
//! # Ok::<(), dyngraph_core::Error>(())
//! ```

use crate::source::EdgeSource;
use crate::traits::{GraphUpdate, ReadGraph};
use crate::{Csr, DEFAULT_VERTEX_LIMIT, Graph, Result, Semantics};
use std::fmt;

/// What every store is built with: semantics, which capabilities to keep,
/// and the vertex limit. Each store's own options type converts from it
/// (`From<StoreOptions>`) and adds that store's knobs.
///
/// ```
/// use dyngraph_core::{Semantics, StoreOptions};
/// let options = StoreOptions::new(Semantics::Simple).in_edges(true).weighted(true);
/// assert!(options.in_edges && options.weighted);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StoreOptions {
    /// Multigraph or simple graph.
    pub semantics: Semantics,
    /// Keep an `f32` weight per edge (4 more bytes per edge in most stores).
    pub weighted: bool,
    /// Keep in-edges, for pull kernels (roughly doubles the edge memory).
    pub in_edges: bool,
    /// The largest vertex count accepted; an id past it is refused with
    /// [`crate::Error::VertexLimit`] instead of allocating for it.
    pub vertex_limit: usize,
}

impl Default for StoreOptions {
    /// A multigraph, no weights, no in-edges, [`DEFAULT_VERTEX_LIMIT`].
    fn default() -> Self {
        Self::new(Semantics::Multigraph)
    }
}

impl StoreOptions {
    /// Options with `semantics` and everything else at its default.
    pub const fn new(semantics: Semantics) -> Self {
        Self {
            semantics,
            weighted: false,
            in_edges: false,
            vertex_limit: DEFAULT_VERTEX_LIMIT,
        }
    }

    /// Sets [`StoreOptions::semantics`].
    pub const fn semantics(mut self, semantics: Semantics) -> Self {
        self.semantics = semantics;
        self
    }

    /// Sets [`StoreOptions::weighted`].
    pub const fn weighted(mut self, weighted: bool) -> Self {
        self.weighted = weighted;
        self
    }

    /// Sets [`StoreOptions::in_edges`].
    pub const fn in_edges(mut self, in_edges: bool) -> Self {
        self.in_edges = in_edges;
        self
    }

    /// Sets [`StoreOptions::vertex_limit`].
    pub const fn vertex_limit(mut self, vertex_limit: usize) -> Self {
        self.vertex_limit = vertex_limit;
        self
    }
}

/// The options a store is built with: the shared [`StoreOptions`] plus the
/// store's own knobs. The shared setters are written once, here, for every
/// store's options type; each type is built one way, from a
/// [`StoreOptions`] (`XOptions::from(store)`, or its `Default`, then
/// setters).
///
/// ```
/// use dyngraph_core::{CsrOptions, Semantics, StoreConfig, StoreOptions};
/// let csr = CsrOptions::default().in_edges(true).semantics(Semantics::Simple);
/// assert!(csr.shared().in_edges);
/// let generic = <CsrOptions as StoreConfig>::from_shared(StoreOptions::default().in_edges(true));
/// assert!(generic.shared().in_edges);
/// ```
pub trait StoreConfig: Clone + fmt::Debug + Sized {
    /// Options with `shared` and the store's own knobs at their defaults:
    /// how code written for every store builds one.
    fn from_shared(shared: StoreOptions) -> Self;

    /// The shared options.
    fn shared(&self) -> &StoreOptions;

    /// The shared options, to change.
    fn shared_mut(&mut self) -> &mut StoreOptions;

    /// Sets [`StoreOptions::semantics`].
    fn semantics(mut self, semantics: Semantics) -> Self {
        self.shared_mut().semantics = semantics;
        self
    }

    /// Sets [`StoreOptions::weighted`].
    fn weighted(mut self, weighted: bool) -> Self {
        self.shared_mut().weighted = weighted;
        self
    }

    /// Sets [`StoreOptions::in_edges`].
    fn in_edges(mut self, in_edges: bool) -> Self {
        self.shared_mut().in_edges = in_edges;
        self
    }

    /// Sets [`StoreOptions::vertex_limit`].
    fn vertex_limit(mut self, vertex_limit: usize) -> Self {
        self.shared_mut().vertex_limit = vertex_limit;
        self
    }
}

/// Implements [`StoreConfig`] for an options type whose shared options
/// are its field `$field` and which is built `From<StoreOptions>` (the
/// store's own knobs at their defaults): the three methods every store's
/// options would otherwise write out alike.
///
/// ```
/// use dyngraph_core::{StoreConfig, StoreOptions};
///
/// #[derive(Clone, Debug)]
/// struct MyOptions {
///     store: StoreOptions,
///     fanout: usize,
/// }
/// impl From<StoreOptions> for MyOptions {
///     fn from(store: StoreOptions) -> Self {
///         Self { store, fanout: 8 }
///     }
/// }
/// dyngraph_core::store_config!(MyOptions, store);
///
/// let options = MyOptions::from_shared(StoreOptions::default()).in_edges(true);
/// assert!(options.shared().in_edges && options.fanout == 8);
/// ```
#[macro_export]
macro_rules! store_config {
    ($options:ty, $field:ident) => {
        impl $crate::StoreConfig for $options {
            fn from_shared(shared: $crate::StoreOptions) -> Self {
                Self::from(shared)
            }

            fn shared(&self) -> &$crate::StoreOptions {
                &self.$field
            }

            fn shared_mut(&mut self) -> &mut $crate::StoreOptions {
                &mut self.$field
            }
        }
    };
}

/// Writes a builder-style setter for each named field of a store's
/// options: `pub fn field(mut self, field: Type) -> Self`, documented as
/// setting that field (whose own doc says what it does). Setters that do
/// more than assign (`dir(impl Into<PathBuf>)`) are written by hand.
///
/// ```
/// #[derive(Clone, Debug, Default)]
/// pub struct MyOptions {
///     /// Vertices per segment.
///     pub fanout: usize,
///     /// Whether to compress.
///     pub compress: bool,
/// }
/// dyngraph_core::setters!(MyOptions { fanout: usize, compress: bool });
///
/// let options = MyOptions::default().fanout(8).compress(true);
/// assert!(options.fanout == 8 && options.compress);
/// ```
#[macro_export]
macro_rules! setters {
    ($options:ident { $($field:ident: $ty:ty),* $(,)? }) => {
        impl $options {
            $(
                #[doc = concat!("Sets [`", stringify!($options), "::", stringify!($field), "`].")]
                pub fn $field(mut self, $field: $ty) -> Self {
                    self.$field = $field;
                    self
                }
            )*
        }
    };
}

/// The stores whose only options are the shared ones (`Pcsr`, `Bal`,
/// `CsrRebuild`).
impl StoreConfig for StoreOptions {
    fn from_shared(shared: StoreOptions) -> Self {
        shared
    }

    fn shared(&self) -> &StoreOptions {
        self
    }

    fn shared_mut(&mut self) -> &mut StoreOptions {
        self
    }
}

/// Bulk build from any [`EdgeSource`], read in place: the loader's columns,
/// a slice of [`crate::Edge`] or [`crate::WeightedEdge`], parser chunks.
///
/// The result equals inserting the edges one at a time, in order, into an
/// empty store with the same options (a store may lay each vertex's edges
/// out in its own order, as its reads document). Weights are kept when the
/// source has them and the options ask for them.
pub trait FromEdges: Sized {
    /// The store's options: [`StoreOptions`] plus its own knobs.
    type Options: StoreConfig;

    /// Builds the store from `edges`.
    fn from_edges<S: EdgeSource + ?Sized>(edges: &S, options: Self::Options) -> Result<Self>;
}

/// Read views that stay consistent while the store keeps taking updates.
///
/// [`Snapshots::snapshot`] returns a detached token that does not borrow
/// the store, so the store goes on inserting and deleting; [`Snapshots::view`]
/// turns the token into a read view (borrowing the store only while it is
/// read) that shows exactly the graph as it was when the token was taken.
/// How each store keeps old versions — and what a snapshot costs — is in
/// its docs: `Csr` never changes; VCSR copies its degree array (DGAP's
/// degree cache); PCSR, BAL and CSR++ save each vertex's list the first
/// time it changes after the snapshot ([`crate::cow`]).
pub trait Snapshots: Graph {
    /// The detached token.
    type Snapshot: Send + Sync;

    /// The read view of a token.
    type View<'a>: ReadGraph
    where
        Self: 'a;

    /// Takes a snapshot of the graph as it is now.
    fn snapshot(&self) -> Self::Snapshot;

    /// A read view of `snapshot`; an error if the token came from another
    /// store.
    fn view<'a>(&'a self, snapshot: &'a Self::Snapshot) -> Result<Self::View<'a>>;
}

/// What a store can do, stated by the contract ([`GraphStore::CAPABILITIES`])
/// rather than found out by trying: the registry, the replay engine and the
/// CLI read it to choose options and to refuse what a store cannot do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Capabilities {
    /// Can keep in-edges ([`StoreOptions::in_edges`]) for pull kernels.
    pub in_edges: bool,
    /// Can keep a weight per edge ([`StoreOptions::weighted`]).
    pub weights: bool,
    /// Keeps its edges in files that survive a crash.
    pub durable: bool,
    /// Runs partitioned over timely workers (`dyngraph-dist`): one
    /// instance per worker, each in memory.
    pub distributable: bool,
    /// Takes inserts from several threads at once.
    pub concurrent_writers: bool,
}

impl Capabilities {
    /// In-edges and weights, in memory, one writer, distributable: what
    /// most stores of the contract can do.
    pub const IN_MEMORY: Capabilities = Capabilities {
        in_edges: true,
        weights: true,
        durable: false,
        distributable: true,
        concurrent_writers: false,
    };
}

/// The store contract: every store implements it, so code written against
/// it runs on all of them.
pub trait GraphStore: ReadGraph + FromEdges + Snapshots + Send {
    /// The store's name, for tables and errors (`"Vcsr"`, `"CsrPP"`, ...).
    const NAME: &'static str;

    /// What the store can do.
    const CAPABILITIES: Capabilities;

    /// Heap bytes the store holds (capacity, not just length; mapped files
    /// count their mapped length).
    fn memory_bytes(&self) -> usize;

    /// Counters of the store's own maintenance work since it was built
    /// (rebalances, elements moved, resizes), for stores that do such work;
    /// `None` for the others.
    fn maintenance(&self) -> Option<MaintenanceStats> {
        None
    }

    /// For a durable store, the edges in the graph as of its last sync
    /// point: what a crash now would keep (a recovery reopens this many).
    /// `None` for stores that live in memory.
    fn acknowledged_edges(&self) -> Option<u64> {
        None
    }

    /// Makes every update applied so far durable: a durable store commits
    /// (one sync of its log), a store in memory has nothing to do. A
    /// replay calls it once after its last batch, outside the timed work,
    /// so that the edges it reports acknowledged are all of them.
    ///
    /// # Errors
    /// The durable store's I/O errors.
    fn persist(&mut self) -> Result<()> {
        Ok(())
    }

    /// Freezes the graph into an immutable [`Csr`], in parallel, with the
    /// same edges in each vertex's order, and in-edges and weights when the
    /// store keeps them.
    fn to_csr(&self) -> Result<Csr> {
        Csr::from_graph(self)
    }
}

/// What a store spent on keeping its layout: [`GraphStore::maintenance`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MaintenanceStats {
    /// Rebalances (redistributions of a window of slots), all levels.
    pub rebalances: u64,
    /// Elements moved by rebalances, shifts and resizes.
    pub elements_moved: u64,
    /// Resizes of the edge arrays.
    pub resizes: u64,
}

/// A store that takes updates: the contract plus [`GraphUpdate`].
pub trait DynamicStore: GraphStore + GraphUpdate {}

impl<S: GraphStore + GraphUpdate> DynamicStore for S {}
