//! Identifiers, edge records and graph semantics.

/// A vertex identifier. Vertices are dense integers `0..vertex_count`.
///
/// `u32` keeps neighbour arrays at 4 bytes per edge, which is what makes CSR
/// scans memory-bandwidth friendly; graphs with more than `u32::MAX` vertices
/// are out of scope for dyngraph.
pub type VertexId = u32;

/// An edge weight. `f32` halves the weight array against `f64`, and every
/// weighted format dyngraph reads (Matrix Market `real`/`integer`, `.wel`)
/// fits it.
pub type Weight = f32;

/// A timestamp from a temporal edge stream (for SNAP data, Unix seconds).
pub type Timestamp = u64;

/// A directed edge `src -> dst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Edge {
    /// Source vertex.
    pub src: VertexId,
    /// Destination vertex.
    pub dst: VertexId,
}

impl Edge {
    /// Creates the edge `src -> dst`.
    pub const fn new(src: VertexId, dst: VertexId) -> Self {
        Self { src, dst }
    }

    /// The same edge with its direction flipped.
    pub const fn reversed(self) -> Self {
        Self {
            src: self.dst,
            dst: self.src,
        }
    }
}

/// A directed edge with an `f32` weight.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Default)]
pub struct WeightedEdge {
    /// Source vertex.
    pub src: VertexId,
    /// Destination vertex.
    pub dst: VertexId,
    /// The edge's weight.
    pub weight: Weight,
}

impl WeightedEdge {
    /// Creates the edge `src -> dst` with `weight`.
    pub const fn new(src: VertexId, dst: VertexId, weight: Weight) -> Self {
        Self { src, dst, weight }
    }

    /// The endpoints without the weight.
    pub const fn edge(self) -> Edge {
        Edge {
            src: self.src,
            dst: self.dst,
        }
    }
}

/// A directed edge with the time it arrived, as in a SNAP temporal graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TimestampedEdge {
    /// Source vertex.
    pub src: VertexId,
    /// Destination vertex.
    pub dst: VertexId,
    /// Arrival time.
    pub timestamp: Timestamp,
}

impl TimestampedEdge {
    /// Creates the edge `src -> dst` that arrived at `timestamp`.
    pub const fn new(src: VertexId, dst: VertexId, timestamp: Timestamp) -> Self {
        Self {
            src,
            dst,
            timestamp,
        }
    }

    /// The endpoints without the timestamp.
    pub const fn edge(self) -> Edge {
        Edge {
            src: self.src,
            dst: self.dst,
        }
    }
}

/// What an inserted or deleted edge means. Chosen when a store is built and
/// fixed for its lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Semantics {
    /// Every arrival is an edge: inserting `u -> v` twice stores two edges
    /// (a temporal message stream, where each message counts). Deleting
    /// `u -> v` removes one occurrence, the oldest one.
    #[default]
    Multigraph,
    /// Set semantics: inserting an edge that exists is a no-op that reports
    /// nothing added; deleting an edge that does not exist is a no-op that
    /// reports nothing removed. The first insert's weight is kept.
    Simple,
}

/// What an update actually changed. Batches add up the edges that were
/// really added or removed, so under [`Semantics::Simple`] a batch of
/// duplicates reports fewer edges than it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct UpdateReport {
    /// Edges that were inserted.
    pub edges_added: u64,
    /// Edges that were deleted.
    pub edges_removed: u64,
}

impl UpdateReport {
    /// Adds another report's counts to this one.
    pub fn merge(&mut self, other: UpdateReport) {
        self.edges_added += other.edges_added;
        self.edges_removed += other.edges_removed;
    }
}

impl std::ops::Add for UpdateReport {
    type Output = UpdateReport;

    fn add(mut self, other: UpdateReport) -> UpdateReport {
        self.merge(other);
        self
    }
}

impl std::ops::AddAssign for UpdateReport {
    fn add_assign(&mut self, other: UpdateReport) {
        self.merge(other);
    }
}

/// The largest vertex count a store accepts unless told otherwise. An id that
/// would take a graph past it is refused with [`crate::Error::VertexLimit`]
/// instead of allocating gigabytes for one stray large id.
pub const DEFAULT_VERTEX_LIMIT: usize = 1 << 28;
