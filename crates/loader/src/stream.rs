//! [`EdgeStream`]: edges as parallel arrays in arrival order.

use crate::column::Column;
use dyngraph_core::{
    Csr, CsrOptions, Edge, EdgeChunk, EdgeColumns, EdgeSource, Error, IdMap, Result, Timestamp,
    TimestampedEdge, VertexId, Weight, WeightedEdge,
};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;

/// Which value columns an [`EdgeStream`] holds beside its endpoints,
/// without the data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// Endpoints only.
    #[default]
    None,
    /// One `f32` weight per edge (`.wel`, Matrix Market `real`/`integer`).
    Weight,
    /// One `u64` timestamp per edge (SNAP temporal graphs).
    Timestamp,
    /// A weight and a timestamp per edge: a weighted temporal stream (no
    /// text format or binary edge-stream file holds both; a program builds
    /// one with [`EdgeStream::with_weights`] and
    /// [`EdgeStream::with_timestamps`]).
    WeightAndTimestamp,
}

impl ValueKind {
    /// The kind of a stream with weights or not, and timestamps or not.
    pub const fn of(weights: bool, timestamps: bool) -> Self {
        match (weights, timestamps) {
            (false, false) => Self::None,
            (true, false) => Self::Weight,
            (false, true) => Self::Timestamp,
            (true, true) => Self::WeightAndTimestamp,
        }
    }

    /// Whether the edges carry weights.
    pub const fn has_weights(self) -> bool {
        matches!(self, Self::Weight | Self::WeightAndTimestamp)
    }

    /// Whether the edges carry timestamps.
    pub const fn has_timestamps(self) -> bool {
        matches!(self, Self::Timestamp | Self::WeightAndTimestamp)
    }
}

/// A sequence of directed edges in arrival order, stored as a struct of
/// arrays: `src[i] -> dst[i]`, with an optional weight and an optional
/// timestamp per edge (either, both or neither), and the original ids of
/// the vertices when the input's were relabelled. The one owned edge
/// stream of dyngraph: what the loader reads from a file (in file order:
/// the order a temporal replay needs), what the generators produce, what
/// the replay reorders ([`EdgeStream::reorder`],
/// [`EdgeStream::symmetrized`]) and hands to stores a batch at a time as
/// borrowed [`EdgeChunk`]s ([`EdgeStream::chunk`]), and what a distributed
/// replay cuts into its workers' shares. Build a [`Csr`] from it with
/// [`EdgeStream::to_csr`].
///
/// Each column is a [`Column`]: a vector the stream owns, or a range of a
/// mapped binary edge-stream file ([`crate::map_edge_stream`]) read in
/// place. A stream read by map stays mapped through everything that does
/// not change it (a replay in file order, [`EdgeStream::chunk`],
/// [`EdgeStream::sub_stream`]); what changes it (a reordering, an append)
/// copies first.
///
/// # Cost model
/// - Memory: 8 bytes per edge for the endpoints, plus 4 per edge with
///   weights and 8 per edge with timestamps; the original ids are shared
///   between clones.
/// - Scan: contiguous arrays, read front to back.
/// - Append ([`EdgeStream::push`] and friends): amortised `O(1)`.
/// - Insert/delete in the middle: not supported; a stream is a log.
///
/// ```
/// use dyngraph_loader::EdgeStream;
/// use dyngraph_core::Edge;
///
/// let stream = EdgeStream::from_edges(&[Edge::new(0, 1), Edge::new(2, 0)]);
/// assert_eq!(stream.len(), 2);
/// assert_eq!(stream.vertex_count(), 3);
/// assert_eq!(stream.edge(1), Edge::new(2, 0));
///
/// // A weighted temporal stream: both value columns at once.
/// let stream = EdgeStream::from_pairs([(0, 1), (1, 2)])
///     .with_weights(vec![0.5, 2.0])?
///     .with_timestamps(vec![10, 11])?;
/// assert_eq!(stream.weights(), Some(&[0.5, 2.0][..]));
/// assert_eq!(stream.timestamps(), Some(&[10, 11][..]));
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EdgeStream {
    src: Column<VertexId>,
    dst: Column<VertexId>,
    weights: Option<Column<Weight>>,
    timestamps: Option<Column<Timestamp>>,
    /// Every id is below it; the ids' count when there are original ids.
    vertex_count: usize,
    /// The original ids, when the input's ids were relabelled; shared, so
    /// a clone or a reordering does not copy them.
    ids: Option<Arc<IdMap>>,
}

impl EdgeStream {
    /// An empty stream without values.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty stream that will hold values of `kind`.
    pub fn with_value_kind(kind: ValueKind) -> Self {
        Self {
            weights: kind.has_weights().then(Column::default),
            timestamps: kind.has_timestamps().then(Column::default),
            ..Self::default()
        }
    }

    /// A stream of `edges` in the order given; vertex count = largest id + 1.
    pub fn from_edges(edges: &[Edge]) -> Self {
        let (src, dst) = edges.par_iter().map(|e| (e.src, e.dst)).unzip();
        Self::from_id_columns(src, dst)
    }

    /// A stream of `(src, dst)` pairs in the order given, without values;
    /// vertex count = largest id + 1.
    ///
    /// ```
    /// use dyngraph_loader::EdgeStream;
    /// let ring = EdgeStream::from_pairs((0..100u32).map(|i| (i, (i + 1) % 100)));
    /// assert_eq!((ring.len(), ring.vertex_count()), (100, 100));
    /// ```
    pub fn from_pairs(pairs: impl IntoIterator<Item = (VertexId, VertexId)>) -> Self {
        let (src, dst) = pairs.into_iter().unzip();
        Self::from_id_columns(src, dst)
    }

    /// A weighted stream of `edges` in the order given.
    pub fn from_weighted_edges(edges: &[WeightedEdge]) -> Self {
        let (src, dst) = edges.par_iter().map(|e| (e.src, e.dst)).unzip();
        let mut stream = Self::from_id_columns(src, dst);
        stream.weights = Some(
            edges
                .par_iter()
                .map(|e| e.weight)
                .collect::<Vec<_>>()
                .into(),
        );
        stream
    }

    /// A timestamped stream of `edges` in the order given.
    pub fn from_timestamped_edges(edges: &[TimestampedEdge]) -> Self {
        let (src, dst) = edges.par_iter().map(|e| (e.src, e.dst)).unzip();
        let mut stream = Self::from_id_columns(src, dst);
        stream.timestamps = Some(
            edges
                .par_iter()
                .map(|e| e.timestamp)
                .collect::<Vec<_>>()
                .into(),
        );
        stream
    }

    /// A stream from its endpoint columns, without values (add them with
    /// [`EdgeStream::with_weights`] and [`EdgeStream::with_timestamps`]).
    /// The vertex count is the largest id + 1, or `vertex_count` when given
    /// (then every id must be below it).
    ///
    /// # Errors
    /// [`Error::InvalidStructure`] when the columns differ in length;
    /// [`Error::VertexOutOfRange`] when an id is not below `vertex_count`.
    pub fn from_columns(
        src: Vec<VertexId>,
        dst: Vec<VertexId>,
        vertex_count: Option<usize>,
    ) -> Result<Self> {
        if src.len() != dst.len() {
            return Err(Error::InvalidStructure(format!(
                "edge stream columns differ in length: {} sources, {} destinations",
                src.len(),
                dst.len(),
            )));
        }
        let mut stream = Self::from_id_columns(src, dst);
        if let Some(count) = vertex_count {
            if stream.vertex_count > count {
                return Err(Error::VertexOutOfRange {
                    vertex: stream.vertex_count as u64 - 1,
                    vertex_count: count as u64,
                });
            }
            stream.vertex_count = count;
        }
        Ok(stream)
    }

    /// The stream with one weight per edge (replacing any it had).
    ///
    /// # Errors
    /// [`Error::InvalidStructure`] when there are not as many weights as
    /// edges.
    pub fn with_weights(mut self, weights: impl Into<Column<Weight>>) -> Result<Self> {
        let weights = weights.into();
        self.check_values_len(weights.len(), "weights")?;
        self.weights = Some(weights);
        Ok(self)
    }

    /// The stream with one timestamp per edge (replacing any it had).
    ///
    /// # Errors
    /// [`Error::InvalidStructure`] when there are not as many timestamps as
    /// edges.
    pub fn with_timestamps(mut self, timestamps: impl Into<Column<Timestamp>>) -> Result<Self> {
        let timestamps = timestamps.into();
        self.check_values_len(timestamps.len(), "timestamps")?;
        self.timestamps = Some(timestamps);
        Ok(self)
    }

    fn check_values_len(&self, len: usize, what: &str) -> Result<()> {
        if len != self.len() {
            return Err(Error::InvalidStructure(format!(
                "edge stream columns differ in length: {} edges, {len} {what}",
                self.len()
            )));
        }
        Ok(())
    }

    /// The stream without its weights (its timestamps kept).
    pub fn without_weights(mut self) -> Self {
        self.weights = None;
        self
    }

    /// The stream without its timestamps (its weights kept).
    pub fn without_timestamps(mut self) -> Self {
        self.timestamps = None;
        self
    }

    /// Endpoint columns already known to agree in length, without values;
    /// vertex count = largest id + 1.
    fn from_id_columns(src: Vec<VertexId>, dst: Vec<VertexId>) -> Self {
        debug_assert_eq!(src.len(), dst.len());
        let vertex_count = max_id_plus_one(&src, &dst);
        Self::from_parts(src.into(), dst.into(), None, None, vertex_count)
    }

    /// Columns (owned or mapped) of one length and a vertex count the
    /// caller has already checked: every id below it.
    pub(crate) fn from_parts(
        src: Column<VertexId>,
        dst: Column<VertexId>,
        weights: Option<Column<Weight>>,
        timestamps: Option<Column<Timestamp>>,
        vertex_count: usize,
    ) -> Self {
        debug_assert_eq!(src.len(), dst.len());
        debug_assert!(weights.as_ref().is_none_or(|w| w.len() == src.len()));
        debug_assert!(timestamps.as_ref().is_none_or(|t| t.len() == src.len()));
        Self {
            src,
            dst,
            weights,
            timestamps,
            vertex_count,
            ids: None,
        }
    }

    /// Whether every column (endpoints, weights, timestamps) is read in
    /// place from a mapped binary edge-stream file
    /// ([`crate::map_edge_stream`]) rather than held in memory.
    pub fn is_mapped(&self) -> bool {
        self.src.is_mapped()
            && self.dst.is_mapped()
            && self.weights.as_ref().is_none_or(Column::is_mapped)
            && self.timestamps.as_ref().is_none_or(Column::is_mapped)
    }

    /// The original ids of the vertices, when the input's ids were sparse
    /// integers or strings and were relabelled densely
    /// ([`crate::IdMode`]); `None` when the ids are the vertex ids.
    pub fn ids(&self) -> Option<&IdMap> {
        self.ids.as_deref()
    }

    /// The original ids as the stream shares them (see [`EdgeStream::ids`]):
    /// cloning the `Arc` keeps them without copying the map.
    pub fn shared_ids(&self) -> Option<&Arc<IdMap>> {
        self.ids.as_ref()
    }

    /// The name of vertex `v` for people: its original id when the input
    /// was relabelled, else the vertex id itself.
    ///
    /// ```
    /// use dyngraph_loader::{IdMode, LoadOptions, parse_edge_stream};
    /// let stream = parse_edge_stream(b"alice bob\n", &LoadOptions::default().ids(IdMode::Auto))?;
    /// assert_eq!((stream.name(0), stream.name(1)), ("alice".to_string(), "bob".to_string()));
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn name(&self, v: VertexId) -> String {
        match self.ids() {
            Some(ids) if (v as usize) < ids.len() => ids.original(v).to_string(),
            _ => v.to_string(),
        }
    }

    /// One line to tell a user that the ids were relabelled (see
    /// [`IdMap::relabel_note`]), or `None` when they were read as they are:
    /// what a program prints after a load that relabelled.
    ///
    /// ```
    /// use dyngraph_loader::{IdMode, LoadOptions, parse_edge_stream};
    /// let text = b"1 2000000\n2000000 3\n";
    /// let stream = parse_edge_stream(text, &LoadOptions::default().ids(IdMode::Auto))?;
    /// assert_eq!(
    ///     stream.relabel_note().unwrap(),
    ///     "3 integer ids (up to 2000000) relabelled as vertices 0..=2, in id order; \
    ///      results name the original ids"
    /// );
    /// // By default such ids are refused, with the mode to use.
    /// let refused = parse_edge_stream(text, &LoadOptions::default()).unwrap_err();
    /// assert!(refused.to_string().contains("IdMode::Auto"));
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn relabel_note(&self) -> Option<String> {
        self.ids().map(IdMap::relabel_note)
    }

    /// Takes the original ids out of the stream (see [`EdgeStream::ids`]);
    /// copied only when a clone of the stream still shares them.
    pub fn take_ids(&mut self) -> Option<IdMap> {
        self.ids.take().map(Arc::unwrap_or_clone)
    }

    pub(crate) fn set_ids(&mut self, ids: IdMap) {
        debug_assert_eq!(ids.len(), self.vertex_count);
        self.ids = Some(Arc::new(ids));
    }

    /// Renames every vertex `v` to `to[v]`, vertices of a larger id map
    /// `ids` the stream's were interned into (a kept store's keys, which
    /// the stream's original ids are added to), and names the vertices by
    /// `ids` from then on; the vertex count becomes `ids.len()`. One
    /// parallel pass over the endpoints (a mapped stream's are copied).
    ///
    /// ```
    /// use dyngraph_core::IdMap;
    /// use dyngraph_loader::EdgeStream;
    /// use std::sync::Arc;
    ///
    /// let keys = IdMap::from_strings(["carol", "alice", "bob"])?;
    /// // Local vertices 0 and 1 are alice and bob: 1 and 2 in `keys`.
    /// let mut stream = EdgeStream::from_pairs([(0, 1)]);
    /// stream.relabel_onto(&[1, 2], Arc::new(keys))?;
    /// assert_eq!((stream.src(), stream.dst()), (&[1][..], &[2][..]));
    /// assert_eq!((stream.vertex_count(), stream.name(2)), (3, "bob".to_string()));
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `to` names fewer vertices than the
    /// stream has, or a vertex `ids` does not.
    pub fn relabel_onto(&mut self, to: &[VertexId], ids: Arc<IdMap>) -> Result<()> {
        if to.len() < self.vertex_count {
            return Err(Error::InvalidArgument(format!(
                "a relabelling of {} vertices for a stream of {}",
                to.len(),
                self.vertex_count
            )));
        }
        if let Some(&v) = to.par_iter().find_any(|&&v| v as usize >= ids.len()) {
            return Err(Error::InvalidArgument(format!(
                "a relabelling onto vertex {v}, past the {} the ids name",
                ids.len()
            )));
        }
        let map = |column: &[VertexId]| -> Vec<VertexId> {
            column.par_iter().map(|&v| to[v as usize]).collect()
        };
        self.src = map(&self.src).into();
        self.dst = map(&self.dst).into();
        self.vertex_count = ids.len();
        self.ids = Some(ids);
        Ok(())
    }

    /// The id columns, for relabelling in place.
    pub(crate) fn columns_mut(&mut self) -> (&mut [VertexId], &mut [VertexId]) {
        (self.src.make_mut(), self.dst.make_mut())
    }

    /// After [`EdgeStream::columns_mut`] relabelled the ids: the vertex
    /// count becomes the distinct ids', checked against `max_vertices`.
    pub(crate) fn relabelled(
        &mut self,
        ids: IdMap,
        max_vertices: usize,
        path: Option<&std::path::Path>,
    ) -> Result<()> {
        if ids.len() > max_vertices {
            return Err(Error::InvalidArgument(format!(
                "{}: {} distinct vertex ids, more than the limit of {max_vertices} \
                 (raise it with LoadOptions::max_vertices)",
                path.map_or_else(|| "<input>".into(), |p| p.display().to_string()),
                ids.len()
            )));
        }
        self.vertex_count = ids.len();
        self.ids = Some(Arc::new(ids));
        Ok(())
    }

    /// Number of edges.
    pub fn len(&self) -> usize {
        self.src.len()
    }

    /// `true` when there are no edges.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    /// The vertex count: largest id + 1 unless the source declared more (a
    /// Matrix Market size line, a generator's `2^scale`, a binary file's
    /// header), or the original ids' count when they were relabelled.
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Raises the vertex count to at least `vertex_count` (isolated vertices
    /// at the end). Never lowers it below largest id + 1.
    pub fn extend_vertex_count(&mut self, vertex_count: usize) {
        self.vertex_count = self.vertex_count.max(vertex_count);
    }

    /// Lowers the vertex count to the vertices the edges name: largest id +
    /// 1, leaving out isolated vertices a source declared past it (a
    /// stream with original ids keeps their count). What a replay counts:
    /// its stores hold the vertices their edges name. One parallel pass
    /// over the endpoints.
    pub fn shrink_vertex_count(&mut self) {
        if self.ids.is_none() {
            self.vertex_count = max_id_plus_one(&self.src, &self.dst);
        }
    }

    /// Sources, in arrival order.
    pub fn src(&self) -> &[VertexId] {
        &self.src
    }

    /// Destinations, parallel to [`EdgeStream::src`].
    pub fn dst(&self) -> &[VertexId] {
        &self.dst
    }

    /// Which value columns the stream holds.
    pub fn value_kind(&self) -> ValueKind {
        ValueKind::of(self.weights.is_some(), self.timestamps.is_some())
    }

    /// Weights, when the stream has them.
    pub fn weights(&self) -> Option<&[Weight]> {
        self.weights.as_deref()
    }

    /// Timestamps, when the stream has them.
    pub fn timestamps(&self) -> Option<&[Timestamp]> {
        self.timestamps.as_deref()
    }

    /// The `i`-th edge's endpoints. Panics if `i >= len()`.
    pub fn edge(&self, i: usize) -> Edge {
        Edge::new(self.src[i], self.dst[i])
    }

    /// The endpoints in order.
    pub fn edges(&self) -> impl ExactSizeIterator<Item = Edge> + '_ {
        self.src
            .iter()
            .zip(self.dst.iter())
            .map(|(&s, &d)| Edge::new(s, d))
    }

    /// The endpoints with weights in order (weight 1 when the stream has no
    /// weights, as [`dyngraph_core::WeightedNeighbors`] does).
    pub fn weighted_edges(&self) -> impl ExactSizeIterator<Item = WeightedEdge> + '_ {
        let weights = self.weights();
        (0..self.len()).map(move |i| {
            WeightedEdge::new(self.src[i], self.dst[i], weights.map_or(1.0, |w| w[i]))
        })
    }

    /// Appends an edge to a stream without values. Panics if the stream has
    /// values (use [`EdgeStream::push_weighted`] or
    /// [`EdgeStream::push_timestamped`]).
    pub fn push(&mut self, edge: Edge) {
        assert_eq!(
            self.value_kind(),
            ValueKind::None,
            "push on a stream with values"
        );
        self.push_endpoints(edge.src, edge.dst);
    }

    /// Appends a weighted edge. Panics unless the stream holds weights and
    /// no timestamps.
    pub fn push_weighted(&mut self, edge: WeightedEdge) {
        match (&mut self.weights, &self.timestamps) {
            (Some(w), None) => w.make_mut().push(edge.weight),
            _ => panic!("push_weighted on a stream without weights, or with timestamps"),
        }
        self.push_endpoints(edge.src, edge.dst);
    }

    /// Appends a timestamped edge. Panics unless the stream holds
    /// timestamps and no weights.
    pub fn push_timestamped(&mut self, edge: TimestampedEdge) {
        match (&mut self.timestamps, &self.weights) {
            (Some(t), None) => t.make_mut().push(edge.timestamp),
            _ => panic!("push_timestamped on a stream without timestamps, or with weights"),
        }
        self.push_endpoints(edge.src, edge.dst);
    }

    fn push_endpoints(&mut self, src: VertexId, dst: VertexId) {
        self.src.make_mut().push(src);
        self.dst.make_mut().push(dst);
        self.vertex_count = self.vertex_count.max(src.max(dst) as usize + 1);
    }

    /// The endpoints and weights as core's owned [`EdgeColumns`], for
    /// [`Csr::from_columns`], which reuses their memory: an owned stream's
    /// vectors are moved over without a copy, a mapped stream's
    /// ([`EdgeStream::is_mapped`]) are copied out of the map. The
    /// timestamps, the vertex count and the original ids are left out
    /// (they are not CSR data; read them first).
    pub fn into_edge_columns(self) -> EdgeColumns {
        EdgeColumns {
            src: self.src.into_vec(),
            dst: self.dst.into_vec(),
            weights: self.weights.map(Column::into_vec),
        }
    }

    /// The whole stream as one [`EdgeChunk`] (weights included when the
    /// stream has them; timestamps are not CSR data and are left out).
    pub fn as_chunk(&self) -> EdgeChunk<'_> {
        EdgeChunk {
            src: &self.src,
            dst: &self.dst,
            weights: self.weights(),
        }
    }

    /// Edges `range` as borrowed columns (no copy), with their weights when
    /// `weighted` and the stream has them: a replay's batch, handed to a
    /// store. Panics if `range` is out of bounds, like slicing.
    ///
    /// ```
    /// use dyngraph_loader::EdgeStream;
    /// let stream = EdgeStream::from_pairs([(0, 1), (1, 2), (2, 3)]).with_weights(vec![1.0, 2.0, 3.0])?;
    /// let chunk = stream.chunk(1..3, true);
    /// assert_eq!((chunk.src, chunk.weights), (&[1, 2][..], Some(&[2.0, 3.0][..])));
    /// assert!(stream.chunk(1..3, false).weights.is_none());
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn chunk(&self, range: Range<usize>, weighted: bool) -> EdgeChunk<'_> {
        EdgeChunk {
            src: &self.src[range.clone()],
            dst: &self.dst[range.clone()],
            weights: self.weights().filter(|_| weighted).map(|w| &w[range]),
        }
    }

    /// Edges `range` as a stream of their own, with their values, the
    /// whole stream's vertex count and its original ids (shared): a
    /// worker's share of the arrivals. A mapped stream's columns are
    /// narrowed in place, an owned stream's copied. Panics if `range` is
    /// out of bounds, like slicing.
    pub fn sub_stream(&self, range: Range<usize>) -> Self {
        Self {
            src: self.src.range(range.clone()),
            dst: self.dst.range(range.clone()),
            weights: self.weights.as_ref().map(|w| w.range(range.clone())),
            timestamps: self.timestamps.as_ref().map(|t| t.range(range)),
            vertex_count: self.vertex_count,
            ids: self.ids.clone(),
        }
    }

    /// Builds a [`Csr`] (parallel degree count, prefix sum, scatter; input
    /// order kept within each vertex unless `options` sort or dedupe). The
    /// vertex count is this stream's unless `options` set one.
    ///
    /// # Errors
    /// As [`Csr::from_edges`]: a vertex count past `options.vertex_limit`,
    /// or an id beyond an explicit `options.vertex_count`.
    pub fn to_csr(&self, options: &CsrOptions) -> Result<Csr> {
        let mut options = options.clone();
        if options.vertex_count.is_none() {
            options.vertex_count = Some(self.vertex_count);
        }
        // The build keeps the original ids (`EdgeSource::ids`).
        Csr::from_edges(self, options)
    }

    /// A new stream holding the edges at `order[0], order[1], ...` (a
    /// permutation or any selection of indices), with their values.
    pub(crate) fn gather(&self, order: &[usize]) -> Self {
        fn column<T: bytemuck::Pod + Send + Sync>(values: &[T], order: &[usize]) -> Column<T> {
            order
                .par_iter()
                .map(|&i| values[i])
                .collect::<Vec<_>>()
                .into()
        }
        Self {
            src: column(&self.src, order),
            dst: column(&self.dst, order),
            weights: self.weights().map(|w| column(w, order)),
            timestamps: self.timestamps().map(|t| column(t, order)),
            vertex_count: self.vertex_count,
            ids: self.ids.clone(),
        }
    }

    /// Each edge followed by its reverse (a self-loop once), for undirected
    /// replays; the reverse has the edge's weight and timestamp. The
    /// vertex count and original ids are kept.
    ///
    /// ```
    /// use dyngraph_loader::EdgeStream;
    /// let stream = EdgeStream::from_pairs([(0, 1), (2, 2)]).with_timestamps(vec![5, 6])?;
    /// let both = stream.symmetrized();
    /// assert_eq!((both.src(), both.dst()), (&[0, 1, 2][..], &[1, 0, 2][..]));
    /// assert_eq!(both.timestamps(), Some(&[5, 5, 6][..]));
    /// # Ok::<(), dyngraph_core::Error>(())
    /// ```
    pub fn symmetrized(&self) -> Self {
        self.with_line_options(true, false)
    }

    /// A new stream after the line-level options of a reader: each edge's
    /// reverse right after it with `symmetrize` (a self-loop once),
    /// self-loops left out with `drop_self_loops`; values go with their
    /// edges.
    pub(crate) fn with_line_options(&self, symmetrize: bool, drop_self_loops: bool) -> Self {
        let mut order = Vec::with_capacity(if symmetrize {
            2 * self.len()
        } else {
            self.len()
        });
        let mut reversed = Vec::with_capacity(order.capacity());
        for (i, edge) in self.edges().enumerate() {
            if edge.src == edge.dst && drop_self_loops {
                continue;
            }
            order.push(i);
            reversed.push(false);
            if symmetrize && edge.src != edge.dst {
                order.push(i);
                reversed.push(true);
            }
        }
        let mut stream = self.gather(&order);
        let (src, dst) = stream.columns_mut();
        for (k, _) in reversed.iter().enumerate().filter(|(_, r)| **r) {
            std::mem::swap(&mut src[k], &mut dst[k]);
        }
        stream
    }

    /// Keeps the first occurrence of every `(src, dst)` pair, in arrival
    /// order, with its values. `O(E log E)` work (a parallel sort of indices).
    pub fn dedup_pairs(&self) -> Self {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.par_sort_unstable_by_key(|&i| (self.src[i], self.dst[i], i));
        let mut first = vec![false; self.len()];
        // The first index of each run of equal pairs is that pair's first
        // arrival, since ties sort by index.
        for (k, &i) in order.iter().enumerate() {
            let is_first = k == 0 || {
                let p = order[k - 1];
                (self.src[p], self.dst[p]) != (self.src[i], self.dst[i])
            };
            first[i] = is_first;
        }
        let keep: Vec<usize> = (0..self.len()).filter(|&i| first[i]).collect();
        self.gather(&keep)
    }
}

fn max_id_plus_one(src: &[VertexId], dst: &[VertexId]) -> usize {
    let max = |ids: &[VertexId]| ids.par_iter().copied().max();
    match (max(src), max(dst)) {
        (None, None) => 0,
        (a, b) => a.max(b).map_or(0, |m| m as usize + 1),
    }
}

/// A stream is a source every store builds from and takes batches from in
/// place: its columns are read, never copied into `Edge`s. Weights count
/// when the stream has them; timestamps are not edge data. Its original
/// ids come along ([`EdgeSource::ids`]): a [`Csr`] built from it keeps them,
/// and [`dyngraph_core::Keyed::from_edges`] takes them as keys.
impl EdgeSource for EdgeStream {
    fn len(&self) -> usize {
        self.src.len()
    }

    fn is_weighted(&self) -> bool {
        self.weights().is_some()
    }

    fn declared_vertex_count(&self) -> Option<usize> {
        Some(self.vertex_count)
    }

    fn ids(&self) -> Option<&IdMap> {
        self.ids.as_deref()
    }

    #[inline]
    fn edge(&self, i: usize) -> WeightedEdge {
        self.as_chunk().edge(i)
    }

    fn for_each_in(&self, range: Range<usize>, f: impl FnMut(VertexId, VertexId, Weight)) {
        self.as_chunk().for_each_in(range, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_columns_are_checked_and_dropped_one_at_a_time() {
        let stream = EdgeStream::from_pairs([(0, 1), (2, 0)]);
        assert!(stream.clone().with_weights(vec![1.0]).is_err());
        assert!(stream.clone().with_timestamps(vec![1, 2, 3]).is_err());
        let both = stream
            .with_weights(vec![0.5, 1.5])
            .unwrap()
            .with_timestamps(vec![3, 4])
            .unwrap();
        assert_eq!(both.value_kind(), ValueKind::WeightAndTimestamp);
        assert!(both.is_weighted(), "weights are edge data");
        let weighted = both.clone().without_timestamps();
        assert_eq!(weighted.value_kind(), ValueKind::Weight);
        assert_eq!(weighted.weights(), both.weights());
        let temporal = both.without_weights();
        assert_eq!(temporal.value_kind(), ValueKind::Timestamp);
        assert_eq!(temporal.timestamps(), Some(&[3, 4][..]));
        for kind in [
            ValueKind::None,
            ValueKind::Weight,
            ValueKind::Timestamp,
            ValueKind::WeightAndTimestamp,
        ] {
            assert_eq!(EdgeStream::with_value_kind(kind).value_kind(), kind);
            assert_eq!(
                ValueKind::of(kind.has_weights(), kind.has_timestamps()),
                kind
            );
        }
    }

    #[test]
    fn edge_columns_take_the_vectors_over() {
        let stream = EdgeStream::from_pairs([(0, 1), (2, 0)])
            .with_weights(vec![0.5, 1.5])
            .unwrap();
        let src = stream.src().as_ptr();
        let columns = stream.into_edge_columns();
        assert_eq!(columns.src.as_ptr(), src, "moved, not copied");
        assert_eq!(
            (columns.dst, columns.weights),
            (vec![1, 0], Some(vec![0.5, 1.5]))
        );
    }

    #[test]
    fn the_vertex_count_shrinks_to_the_edges_unless_ids_name_more() {
        let mut stream = EdgeStream::from_columns(vec![0, 1], vec![1, 2], Some(10)).unwrap();
        assert_eq!(stream.vertex_count(), 10);
        stream.shrink_vertex_count();
        assert_eq!(stream.vertex_count(), 3);

        let keys = Arc::new(IdMap::from_strings(["a", "b", "c", "d", "e"]).unwrap());
        let mut named = EdgeStream::from_pairs([(0, 1)]);
        assert!(named.relabel_onto(&[4], Arc::clone(&keys)).is_err());
        assert!(named.relabel_onto(&[4, 5], Arc::clone(&keys)).is_err());
        named.relabel_onto(&[4, 0], Arc::clone(&keys)).unwrap();
        assert_eq!((named.src(), named.dst()), (&[4][..], &[0][..]));
        named.shrink_vertex_count();
        assert_eq!(named.vertex_count(), 5);
        assert_eq!(named.name(4), "e");
        assert_eq!(named.name(9), "9");
        let clone = named.clone();
        assert!(Arc::ptr_eq(
            clone.shared_ids().unwrap(),
            named.shared_ids().unwrap()
        ));
        assert_eq!(named.take_ids().unwrap().len(), 5);
    }

    #[test]
    fn a_sub_stream_keeps_its_values_vertex_count_and_ids() {
        let stream = EdgeStream::from_pairs([(0, 1), (1, 2), (2, 3)])
            .with_timestamps(vec![1, 2, 3])
            .unwrap();
        let share = stream.sub_stream(1..3);
        assert_eq!((share.src(), share.dst()), (&[1, 2][..], &[2, 3][..]));
        assert_eq!(share.timestamps(), Some(&[2, 3][..]));
        assert_eq!(share.vertex_count(), 4);
        assert!(stream.sub_stream(3..3).is_empty());
    }
}
