//! [`EdgeStream`]: edges as parallel arrays in arrival order.

use crate::column::Column;
use dyngraph_core::{
    Csr, CsrOptions, Edge, EdgeChunk, EdgeSource, Error, IdMap, Result, Timestamp, TimestampedEdge,
    VertexId, Weight, WeightedEdge,
};
use rayon::prelude::*;
use std::ops::Range;

/// The optional third column of an [`EdgeStream`].
#[derive(Clone, Debug, Default, PartialEq)]
pub enum EdgeValues {
    /// Endpoints only.
    #[default]
    None,
    /// One `f32` weight per edge (`.wel`, Matrix Market `real`/`integer`).
    Weights(Column<Weight>),
    /// One `u64` timestamp per edge (SNAP temporal graphs).
    Timestamps(Column<Timestamp>),
}

impl EdgeValues {
    /// Number of values held (0 for [`EdgeValues::None`]).
    pub fn len(&self) -> usize {
        match self {
            Self::None => 0,
            Self::Weights(w) => w.len(),
            Self::Timestamps(t) => t.len(),
        }
    }

    /// `true` when no values are held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Weights from a vector.
    pub fn weights(weights: Vec<Weight>) -> Self {
        Self::Weights(weights.into())
    }

    /// Timestamps from a vector.
    pub fn timestamps(timestamps: Vec<Timestamp>) -> Self {
        Self::Timestamps(timestamps.into())
    }

    /// Which kind of values these are.
    pub fn kind(&self) -> ValueKind {
        match self {
            Self::None => ValueKind::None,
            Self::Weights(_) => ValueKind::Weight,
            Self::Timestamps(_) => ValueKind::Timestamp,
        }
    }
}

/// What the third column of an edge holds, without the data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// No third column.
    #[default]
    None,
    /// An `f32` weight.
    Weight,
    /// A `u64` timestamp.
    Timestamp,
}

/// A sequence of directed edges in arrival order, stored as a struct of
/// arrays: `src[i] -> dst[i]`, with an optional weight or timestamp per edge.
///
/// This is what the loader reads from a text file (in file order: the order
/// a temporal replay needs) and what the generators produce. Build a
/// [`Csr`] from it with [`EdgeStream::to_csr`].
///
/// # Cost model
/// - Memory: 8 bytes per edge for the endpoints, plus 4 per edge with
///   weights or 8 per edge with timestamps.
/// - Scan: three contiguous arrays, read front to back.
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
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EdgeStream {
    src: Column<VertexId>,
    dst: Column<VertexId>,
    values: EdgeValues,
    vertex_count: usize,
    /// The original ids, when the input's ids were relabelled.
    ids: Option<IdMap>,
}

impl EdgeStream {
    /// An empty stream without values.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty stream that will hold values of `kind`.
    pub fn with_value_kind(kind: ValueKind) -> Self {
        Self {
            values: match kind {
                ValueKind::None => EdgeValues::None,
                ValueKind::Weight => EdgeValues::Weights(Column::default()),
                ValueKind::Timestamp => EdgeValues::Timestamps(Column::default()),
            },
            ..Self::default()
        }
    }

    /// A stream of `edges` in the order given; vertex count = largest id + 1.
    pub fn from_edges(edges: &[Edge]) -> Self {
        let (src, dst) = edges.par_iter().map(|e| (e.src, e.dst)).unzip();
        Self::from_columns_unchecked(src, dst, EdgeValues::None)
    }

    /// A weighted stream of `edges` in the order given.
    pub fn from_weighted_edges(edges: &[WeightedEdge]) -> Self {
        let (src, dst) = edges.par_iter().map(|e| (e.src, e.dst)).unzip();
        let weights = edges.par_iter().map(|e| e.weight).collect();
        Self::from_columns_unchecked(src, dst, EdgeValues::weights(weights))
    }

    /// A timestamped stream of `edges` in the order given.
    pub fn from_timestamped_edges(edges: &[TimestampedEdge]) -> Self {
        let (src, dst) = edges.par_iter().map(|e| (e.src, e.dst)).unzip();
        let timestamps = edges.par_iter().map(|e| e.timestamp).collect();
        Self::from_columns_unchecked(src, dst, EdgeValues::timestamps(timestamps))
    }

    /// A stream from its columns. The vertex count is the largest id + 1, or
    /// `vertex_count` when given (then every id must be below it).
    ///
    /// # Errors
    /// [`Error::InvalidStructure`] when the columns differ in length;
    /// [`Error::VertexOutOfRange`] when an id is not below `vertex_count`.
    pub fn from_columns(
        src: Vec<VertexId>,
        dst: Vec<VertexId>,
        values: EdgeValues,
        vertex_count: Option<usize>,
    ) -> Result<Self> {
        if src.len() != dst.len() || (values.kind() != ValueKind::None && values.len() != src.len())
        {
            return Err(Error::InvalidStructure(format!(
                "edge stream columns differ in length: {} sources, {} destinations, {} values",
                src.len(),
                dst.len(),
                values.len()
            )));
        }
        let mut stream = Self::from_columns_unchecked(src, dst, values);
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

    /// Columns already known to agree in length.
    pub(crate) fn from_columns_unchecked(
        src: Vec<VertexId>,
        dst: Vec<VertexId>,
        values: EdgeValues,
    ) -> Self {
        debug_assert_eq!(src.len(), dst.len());
        let vertex_count = max_id_plus_one(&src, &dst);
        Self {
            src: src.into(),
            dst: dst.into(),
            values,
            vertex_count,
            ids: None,
        }
    }

    /// Columns and a vertex count the caller has already checked.
    pub(crate) fn from_parts_unchecked(
        src: Vec<VertexId>,
        dst: Vec<VertexId>,
        values: EdgeValues,
        vertex_count: usize,
    ) -> Self {
        Self::from_column_parts(src.into(), dst.into(), values, vertex_count)
    }

    /// Columns (owned or mapped) and a vertex count the caller has already
    /// checked: every id below it.
    pub(crate) fn from_column_parts(
        src: Column<VertexId>,
        dst: Column<VertexId>,
        values: EdgeValues,
        vertex_count: usize,
    ) -> Self {
        debug_assert_eq!(src.len(), dst.len());
        Self {
            src,
            dst,
            values,
            vertex_count,
            ids: None,
        }
    }

    /// Whether the columns are read in place from a mapped binary
    /// edge-stream file ([`crate::map_edge_stream`]) rather than held in
    /// memory.
    pub fn is_mapped(&self) -> bool {
        self.src.is_mapped()
    }

    /// The original ids of the vertices, when the input's ids were sparse
    /// integers or strings and were relabelled densely
    /// ([`crate::IdMode`]); `None` when the ids are the vertex ids.
    pub fn ids(&self) -> Option<&IdMap> {
        self.ids.as_ref()
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
        self.ids.as_ref().map(IdMap::relabel_note)
    }

    /// Takes the original ids out of the stream (see [`EdgeStream::ids`]).
    pub fn take_ids(&mut self) -> Option<IdMap> {
        self.ids.take()
    }

    pub(crate) fn set_ids(&mut self, ids: IdMap) {
        debug_assert_eq!(ids.len(), self.vertex_count);
        self.ids = Some(ids);
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
        self.ids = Some(ids);
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
    /// Matrix Market size line, a generator's `2^scale`).
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Raises the vertex count to at least `vertex_count` (isolated vertices
    /// at the end). Never lowers it below largest id + 1.
    pub fn extend_vertex_count(&mut self, vertex_count: usize) {
        self.vertex_count = self.vertex_count.max(vertex_count);
    }

    /// Sources, in arrival order.
    pub fn src(&self) -> &[VertexId] {
        &self.src
    }

    /// Destinations, parallel to [`EdgeStream::src`].
    pub fn dst(&self) -> &[VertexId] {
        &self.dst
    }

    /// The third column.
    pub fn values(&self) -> &EdgeValues {
        &self.values
    }

    /// Weights, when the stream has them.
    pub fn weights(&self) -> Option<&[Weight]> {
        match &self.values {
            EdgeValues::Weights(w) => Some(w),
            _ => None,
        }
    }

    /// Timestamps, when the stream has them.
    pub fn timestamps(&self) -> Option<&[Timestamp]> {
        match &self.values {
            EdgeValues::Timestamps(t) => Some(t),
            _ => None,
        }
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
        assert!(
            matches!(self.values, EdgeValues::None),
            "push on a stream with values"
        );
        self.push_endpoints(edge.src, edge.dst);
    }

    /// Appends a weighted edge. Panics unless the stream holds weights.
    pub fn push_weighted(&mut self, edge: WeightedEdge) {
        match &mut self.values {
            EdgeValues::Weights(w) => w.make_mut().push(edge.weight),
            _ => panic!("push_weighted on a stream without weights"),
        }
        self.push_endpoints(edge.src, edge.dst);
    }

    /// Appends a timestamped edge. Panics unless the stream holds timestamps.
    pub fn push_timestamped(&mut self, edge: TimestampedEdge) {
        match &mut self.values {
            EdgeValues::Timestamps(t) => t.make_mut().push(edge.timestamp),
            _ => panic!("push_timestamped on a stream without timestamps"),
        }
        self.push_endpoints(edge.src, edge.dst);
    }

    fn push_endpoints(&mut self, src: VertexId, dst: VertexId) {
        self.src.make_mut().push(src);
        self.dst.make_mut().push(dst);
        self.vertex_count = self.vertex_count.max(src.max(dst) as usize + 1);
    }

    /// Splits into `(src, dst, values, vertex_count)`; the columns of a
    /// mapped stream ([`EdgeStream::is_mapped`]) are copied out.
    pub fn into_parts(self) -> (Vec<VertexId>, Vec<VertexId>, EdgeValues, usize) {
        (
            self.src.into_vec(),
            self.dst.into_vec(),
            self.values,
            self.vertex_count,
        )
    }

    /// Splits into `(src, dst, values, vertex_count)` as they are: the
    /// columns of a mapped stream stay read in place from the map.
    pub fn into_columns(self) -> (Column<VertexId>, Column<VertexId>, EdgeValues, usize) {
        (self.src, self.dst, self.values, self.vertex_count)
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
        let src = order.par_iter().map(|&i| self.src[i]).collect::<Vec<_>>();
        let dst = order.par_iter().map(|&i| self.dst[i]).collect::<Vec<_>>();
        let values = match &self.values {
            EdgeValues::None => EdgeValues::None,
            EdgeValues::Weights(w) => {
                EdgeValues::weights(order.par_iter().map(|&i| w[i]).collect())
            }
            EdgeValues::Timestamps(t) => {
                EdgeValues::timestamps(order.par_iter().map(|&i| t[i]).collect())
            }
        };
        Self {
            src: src.into(),
            dst: dst.into(),
            values,
            vertex_count: self.vertex_count,
            ids: self.ids.clone(),
        }
    }

    /// The stream without its third column.
    pub(crate) fn without_values(mut self) -> Self {
        self.values = EdgeValues::None;
        self
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
    /// order, with its value. `O(E log E)` work (a parallel sort of indices).
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
        self.ids.as_ref()
    }

    #[inline]
    fn edge(&self, i: usize) -> WeightedEdge {
        self.as_chunk().edge(i)
    }

    fn for_each_in(&self, range: Range<usize>, f: impl FnMut(VertexId, VertexId, Weight)) {
        self.as_chunk().for_each_in(range, f)
    }
}
