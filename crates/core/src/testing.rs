//! Test support: a reference adjacency model, a store-vs-model comparison,
//! and the store-contract check every store's tests run. Enabled by the
//! `testing` feature.
//!
//! ```
//! use dyngraph_core::testing::{ReferenceGraph, compare_with_model};
//! use dyngraph_core::{Csr, CsrOptions, Edge, GraphUpdate, Semantics};
//!
//! let mut model = ReferenceGraph::new(Semantics::Multigraph);
//! let edges = [Edge::new(0, 1), Edge::new(0, 1), Edge::new(3, 2)];
//! model.insert_edges(&edges).unwrap();
//! let csr = Csr::from_edges(&edges, CsrOptions::default()).unwrap();
//! compare_with_model(&csr, &model).unwrap();
//! ```

use crate::store::StoreConfig;
use crate::traits::{
    EdgeWeights, Graph, GraphUpdate, InEdges, InNeighbors, OutNeighbors, ReadGraph,
    WeightedNeighbors,
};
use crate::{
    Capability, DEFAULT_VERTEX_LIMIT, DynamicStore, Edge, Error, Result, Semantics, StoreOptions,
    VertexId, Weight, WeightedEdge, check_limit,
};
use proptest::prelude::*;
use std::ops::Range;

/// The obviously-correct model: per vertex, its out-edges in insertion order
/// and its in-neighbours, in plain `Vec`s. Keeps in-edges and weights.
#[derive(Clone, Debug, Default)]
pub struct ReferenceGraph {
    semantics: Semantics,
    out: Vec<Vec<(VertexId, Weight)>>,
    incoming: Vec<Vec<VertexId>>,
    edge_count: u64,
}

impl ReferenceGraph {
    /// An empty model with the given semantics.
    pub fn new(semantics: Semantics) -> Self {
        Self {
            semantics,
            ..Self::default()
        }
    }

    fn grow(&mut self, vertex_count: usize) {
        if vertex_count > self.out.len() {
            self.out.resize_with(vertex_count, Vec::new);
            self.incoming.resize_with(vertex_count, Vec::new);
        }
    }

    /// Whether `src -> dst` exists.
    pub fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        self.out
            .get(src as usize)
            .is_some_and(|list| list.iter().any(|&(d, _)| d == dst))
    }
}

impl Graph for ReferenceGraph {
    fn vertex_count(&self) -> usize {
        self.out.len()
    }

    fn edge_count(&self) -> u64 {
        self.edge_count
    }

    fn semantics(&self) -> Semantics {
        self.semantics
    }
}

type Targets<'a> =
    std::iter::Map<std::slice::Iter<'a, (VertexId, Weight)>, fn(&(VertexId, Weight)) -> VertexId>;

impl OutNeighbors for ReferenceGraph {
    type OutIter<'a> = Targets<'a>;

    fn out_degree(&self, v: VertexId) -> u64 {
        self.out.get(v as usize).map_or(0, |list| list.len() as u64)
    }

    fn out_neighbors(&self, v: VertexId) -> Targets<'_> {
        let list = self.out.get(v as usize).map_or(&[][..], Vec::as_slice);
        list.iter().map(|&(d, _)| d)
    }
}

/// The model's in-edges and weights: a reference to it.
#[derive(Clone, Copy, Debug)]
pub struct ModelLists<'a>(&'a ReferenceGraph);

impl<'a> InNeighbors for ModelLists<'a> {
    type InIter = std::iter::Copied<std::slice::Iter<'a, VertexId>>;

    fn in_degree(self, v: VertexId) -> u64 {
        self.in_neighbors(v).len() as u64
    }

    fn in_neighbors(self, v: VertexId) -> Self::InIter {
        let list = self
            .0
            .incoming
            .get(v as usize)
            .map_or(&[][..], Vec::as_slice);
        list.iter().copied()
    }
}

impl<'a> WeightedNeighbors for ModelLists<'a> {
    type WeightedIter = std::iter::Copied<std::slice::Iter<'a, (VertexId, Weight)>>;

    fn out_neighbors_weighted(self, v: VertexId) -> Self::WeightedIter {
        let list = self.0.out.get(v as usize).map_or(&[][..], Vec::as_slice);
        list.iter().copied()
    }
}

impl InEdges for ReferenceGraph {
    type InHandle<'a> = ModelLists<'a>;

    fn in_edges(&self) -> Result<ModelLists<'_>> {
        Ok(ModelLists(self))
    }
}

impl EdgeWeights for ReferenceGraph {
    type WeightHandle<'a> = ModelLists<'a>;

    fn edge_weights(&self) -> Result<ModelLists<'_>> {
        Ok(ModelLists(self))
    }
}

impl GraphUpdate for ReferenceGraph {
    fn insert_weighted_edge(
        &mut self,
        src: VertexId,
        dst: VertexId,
        weight: Weight,
    ) -> Result<bool> {
        check_limit(self.vertex_limit(), [src, dst])?;
        self.grow(src.max(dst) as usize + 1);
        if self.semantics == Semantics::Simple && self.has_edge(src, dst) {
            return Ok(false);
        }
        self.out[src as usize].push((dst, weight));
        self.incoming[dst as usize].push(src);
        self.edge_count += 1;
        Ok(true)
    }

    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        let Some(list) = self.out.get_mut(src as usize) else {
            return Ok(false);
        };
        let Some(position) = list.iter().position(|&(d, _)| d == dst) else {
            return Ok(false);
        };
        list.remove(position);
        let sources = &mut self.incoming[dst as usize];
        if let Some(position) = sources.iter().position(|&s| s == src) {
            sources.remove(position);
        }
        self.edge_count -= 1;
        Ok(true)
    }

    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        let start = self.out.len();
        let end = start + count;
        if end > self.vertex_limit() {
            return Err(crate::Error::VertexLimit {
                vertex: end as u64 - 1,
                needed: end as u64,
                limit: self.vertex_limit() as u64,
            });
        }
        self.grow(end);
        Ok(start as VertexId..end as VertexId)
    }

    fn vertex_limit(&self) -> usize {
        DEFAULT_VERTEX_LIMIT
    }
}

fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort_unstable();
    items
}

/// Reads of vertices outside the graph answer as for an isolated vertex,
/// out, in and weighted: the contract's rule (never a panic).
fn check_outside<G: ReadGraph + ?Sized>(store: &G) -> Result<(), String> {
    let n = store.vertex_count() as u64;
    let outside = [n, n + 1, n + 64, u64::from(VertexId::MAX)];
    for v in outside
        .into_iter()
        .filter_map(|v| VertexId::try_from(v).ok())
    {
        if store.out_degree(v) != 0 || store.out_neighbors(v).next().is_some() {
            return Err(format!("vertex {v} outside the graph has out-edges"));
        }
        if let Ok(incoming) = store.in_edges()
            && (incoming.in_degree(v) != 0 || incoming.in_neighbors(v).next().is_some())
        {
            return Err(format!("vertex {v} outside the graph has in-edges"));
        }
        if let Ok(weights) = store.edge_weights()
            && weights.out_neighbors_weighted(v).next().is_some()
        {
            return Err(format!(
                "vertex {v} outside the graph has weighted out-edges"
            ));
        }
    }
    Ok(())
}

/// Compares a store with the model, vertex by vertex: vertex and edge
/// counts, and each out-list as a multiset (a set under simple semantics)
/// of neighbours — with weights when the store keeps them — and the in-lists
/// when the store keeps in-edges. Returns the first difference found.
/// Vertices just past the graph must read as isolated.
pub fn compare_with_model<G: ReadGraph + ?Sized>(
    store: &G,
    model: &ReferenceGraph,
) -> Result<(), String> {
    if store.vertex_count() != model.vertex_count() {
        return Err(format!(
            "vertex count: store has {}, model has {}",
            store.vertex_count(),
            model.vertex_count()
        ));
    }
    if store.edge_count() != model.edge_count() {
        return Err(format!(
            "edge count: store has {}, model has {}",
            store.edge_count(),
            model.edge_count()
        ));
    }
    check_outside(store)?;
    let want_lists = ModelLists(model);
    let weights = store.edge_weights().ok();
    let incoming = store.in_edges().ok();
    for v in 0..model.vertex_count() as VertexId {
        if store.out_degree(v) != model.out_degree(v) {
            return Err(format!(
                "vertex {v}: out-degree {} in the store, {} in the model",
                store.out_degree(v),
                model.out_degree(v)
            ));
        }
        if let Some(weights) = weights {
            let got = sorted(
                weights
                    .out_neighbors_weighted(v)
                    .map(|(d, w)| (d, w.to_bits()))
                    .collect(),
            );
            let want = sorted(
                want_lists
                    .out_neighbors_weighted(v)
                    .map(|(d, w)| (d, w.to_bits()))
                    .collect(),
            );
            if got != want {
                return Err(format!(
                    "vertex {v}: weighted out-edges {got:?} in the store, {want:?} in the model"
                ));
            }
        }
        let got = sorted(store.out_neighbors(v).collect::<Vec<_>>());
        let want = sorted(model.out_neighbors(v).collect::<Vec<_>>());
        if got != want {
            return Err(format!(
                "vertex {v}: out-neighbours {got:?} in the store, {want:?} in the model"
            ));
        }
        if let Some(incoming) = incoming {
            let got = sorted(incoming.in_neighbors(v).collect::<Vec<_>>());
            let want = sorted(want_lists.in_neighbors(v).collect::<Vec<_>>());
            if got != want || incoming.in_degree(v) != got.len() as u64 {
                return Err(format!(
                    "vertex {v}: in-neighbours {got:?} (in-degree {}) in the store, {want:?} in the model",
                    incoming.in_degree(v)
                ));
            }
        }
    }
    Ok(())
}

/// One step of a contract check.
#[derive(Clone, Debug)]
pub enum Op {
    /// `insert_weighted_edge`.
    Insert(WeightedEdge),
    /// `delete_edge`.
    Delete(Edge),
    /// `insert_edges` of a weighted batch.
    InsertBatch(Vec<WeightedEdge>),
    /// `insert_edges` of the same batch as columns without weights.
    InsertColumns(Vec<Edge>),
    /// `delete_edges`.
    DeleteBatch(Vec<Edge>),
    /// `add_vertices`.
    AddVertices(usize),
    /// Take a snapshot, checked against the model of that moment after
    /// every later step.
    Snapshot,
    /// Drop the oldest live snapshot.
    DropSnapshot,
}

/// Random edges over `0..max_vertex` with small integral weights.
pub fn weighted_edges(
    max_vertex: VertexId,
    len: Range<usize>,
) -> impl Strategy<Value = Vec<WeightedEdge>> {
    prop::collection::vec(
        (0..max_vertex, 0..max_vertex, 1u8..8)
            .prop_map(|(s, d, w)| WeightedEdge::new(s, d, f32::from(w))),
        len,
    )
}

/// A fixed stream of `count` edges among `vertices` vertices with weights
/// 1 to 7, from a small linear congruential generator seeded by `seed`:
/// the same edges on every run, for tests too large for a proptest.
pub fn fixed_weighted_edges(count: usize, vertices: VertexId, seed: u64) -> Vec<WeightedEdge> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as u32
    };
    (0..count)
        .map(|_| {
            WeightedEdge::new(
                next() % vertices,
                next() % vertices,
                (next() % 7 + 1) as f32,
            )
        })
        .collect()
}

/// Random contract steps over `0..max_vertex` (deletes mostly hit present
/// edges because ids are few).
pub fn ops(max_vertex: VertexId, len: Range<usize>) -> impl Strategy<Value = Vec<Op>> {
    let edge = (0..max_vertex, 0..max_vertex).prop_map(|(s, d)| Edge::new(s, d));
    let weighted = (0..max_vertex, 0..max_vertex, 1u8..8)
        .prop_map(|(s, d, w)| WeightedEdge::new(s, d, w.into()));
    let op = prop_oneof![
        6 => weighted.clone().prop_map(Op::Insert),
        4 => edge.clone().prop_map(Op::Delete),
        2 => prop::collection::vec(weighted, 0..40).prop_map(Op::InsertBatch),
        1 => prop::collection::vec(edge.clone(), 0..40).prop_map(Op::InsertColumns),
        1 => prop::collection::vec(edge, 0..20).prop_map(Op::DeleteBatch),
        1 => (0usize..3).prop_map(Op::AddVertices),
        1 => Just(Op::Snapshot),
        1 => Just(Op::DropSnapshot),
    ];
    prop::collection::vec(op, len)
}

/// Drives a store through the whole contract against the model: a bulk
/// build of `base`, then `ops` — single and batch updates (from slices and
/// from columns), snapshots taken mid-stream and checked against the model
/// of their moment after every later step — then `edges()`,
/// `weighted_edges()` and `to_csr()` at the end, and the capability checks:
/// in-edges and weights answer exactly when `options` asked for them, and
/// otherwise fail with [`Error::MissingCapability`].
///
/// Returns the first difference found.
pub fn check_contract<S: DynamicStore>(
    options: StoreOptions,
    base: &[WeightedEdge],
    ops: &[Op],
) -> Result<(), String> {
    check_contract_with::<S>(S::Options::from_shared(options), base, ops, |_, _| Ok(()))
}

/// [`check_contract`] with the store's own options (a batch path, a gap
/// policy), and `also` run on the store and the model after every step:
/// a store's own invariants, or an order its reads promise.
///
/// Returns the first difference found.
pub fn check_contract_with<S: DynamicStore>(
    store_options: S::Options,
    base: &[WeightedEdge],
    ops: &[Op],
    mut also: impl FnMut(&S, &ReferenceGraph) -> Result<(), String>,
) -> Result<(), String> {
    let options = *store_options.shared();
    let fail = |context: &str, e: Error| format!("{context}: {e}");
    let mut model = ReferenceGraph::new(options.semantics);
    let base_report = model
        .insert_edges(base)
        .map_err(|e| fail("model base", e))?;
    let mut store = S::from_edges(base, store_options).map_err(|e| fail("from_edges", e))?;
    store
        .end_batch()
        .map_err(|e| fail("end_batch after from_edges", e))?;
    compare_with_model(&store, &model).map_err(|e| format!("after from_edges: {e}"))?;
    if store.edge_count() != base_report.edges_added {
        return Err("from_edges kept a different number of edges".into());
    }
    check_capabilities(&store, options)?;

    let mut snapshots: Vec<(S::Snapshot, ReferenceGraph)> = Vec::new();
    for (step, op) in ops.iter().enumerate() {
        let context = format!("step {step} ({op:?})");
        match op {
            Op::Insert(e) => {
                let got = store
                    .insert_weighted_edge(e.src, e.dst, e.weight)
                    .map_err(|e| fail(&context, e))?;
                let want = model
                    .insert_weighted_edge(e.src, e.dst, e.weight)
                    .map_err(|e| fail(&context, e))?;
                if got != want {
                    return Err(format!("{context}: store reported {got}, model {want}"));
                }
            }
            Op::Delete(e) => {
                let got = store
                    .delete_edge(e.src, e.dst)
                    .map_err(|e| fail(&context, e))?;
                let want = model
                    .delete_edge(e.src, e.dst)
                    .map_err(|e| fail(&context, e))?;
                if got != want {
                    return Err(format!("{context}: store reported {got}, model {want}"));
                }
            }
            Op::InsertBatch(batch) => {
                let got = store.insert_edges(batch).map_err(|e| fail(&context, e))?;
                let want = model.insert_edges(batch).map_err(|e| fail(&context, e))?;
                if got != want {
                    return Err(format!("{context}: store reported {got:?}, model {want:?}"));
                }
            }
            Op::InsertColumns(batch) => {
                let src: Vec<VertexId> = batch.iter().map(|e| e.src).collect();
                let dst: Vec<VertexId> = batch.iter().map(|e| e.dst).collect();
                let columns = crate::EdgeChunk::new(&src, &dst, None).expect("equal lengths");
                let got = store
                    .insert_edges(&columns)
                    .map_err(|e| fail(&context, e))?;
                let want = model.insert_edges(batch).map_err(|e| fail(&context, e))?;
                if got != want {
                    return Err(format!("{context}: store reported {got:?}, model {want:?}"));
                }
            }
            Op::DeleteBatch(batch) => {
                let got = store.delete_edges(batch).map_err(|e| fail(&context, e))?;
                let want = model.delete_edges(batch).map_err(|e| fail(&context, e))?;
                if got != want {
                    return Err(format!("{context}: store reported {got:?}, model {want:?}"));
                }
            }
            Op::AddVertices(count) => {
                let got = store.add_vertices(*count).map_err(|e| fail(&context, e))?;
                let want = model.add_vertices(*count).map_err(|e| fail(&context, e))?;
                if got != want {
                    return Err(format!("{context}: store added {got:?}, model {want:?}"));
                }
            }
            Op::Snapshot => snapshots.push((store.snapshot(), model.clone())),
            Op::DropSnapshot => {
                if !snapshots.is_empty() {
                    snapshots.remove(0);
                }
            }
        }
        // Reads reflect every update once the batch is ended (stores that
        // work per batch, like a rebuild-per-batch baseline, do it here).
        store.end_batch().map_err(|e| fail(&context, e))?;
        compare_with_model(&store, &model).map_err(|e| format!("{context}: {e}"))?;
        also(&store, &model).map_err(|e| format!("{context}: {e}"))?;
        for (index, (snapshot, then)) in snapshots.iter().enumerate() {
            let view = store
                .view(snapshot)
                .map_err(|e| fail(&format!("{context}: view of snapshot {index}"), e))?;
            compare_with_model(&view, then)
                .map_err(|e| format!("{context}: snapshot {index}: {e}"))?;
            check_capabilities(&view, options)
                .map_err(|e| format!("{context}: snapshot {index}: {e}"))?;
        }
    }

    // Whole-graph iteration and the freeze.
    let got = sorted(store.edges().collect::<Vec<_>>());
    let want = sorted(model.edges().collect::<Vec<_>>());
    if got != want {
        return Err(format!("edges(): {got:?}, model {want:?}"));
    }
    if options.weighted {
        let got = sorted(
            store
                .weighted_edges()
                .map_err(|e| fail("weighted_edges()", e))?
                .map(|e| (e.src, e.dst, e.weight.to_bits()))
                .collect::<Vec<_>>(),
        );
        let want = sorted(
            model
                .weighted_edges()
                .expect("the model is weighted")
                .map(|e| (e.src, e.dst, e.weight.to_bits()))
                .collect::<Vec<_>>(),
        );
        if got != want {
            return Err(format!("weighted_edges(): {got:?}, model {want:?}"));
        }
    }
    let csr = store.to_csr().map_err(|e| fail("to_csr", e))?;
    compare_with_model(&csr, &model).map_err(|e| format!("to_csr: {e}"))?;
    check_capabilities(&csr, options).map_err(|e| format!("to_csr: {e}"))?;
    for v in 0..store.vertex_count() as VertexId {
        if !store.out_neighbors(v).eq(csr.out_neighbors(v)) {
            return Err(format!(
                "to_csr: vertex {v}'s order differs from the store's"
            ));
        }
    }
    Ok(())
}

/// How [`same_lists`] compares two stores' in-lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InListOrder {
    /// In the order each store keeps them.
    Kept,
    /// As sorted multisets: for stores whose in-list order depends on the
    /// path that built it (a batch against one edge at a time).
    Sorted,
}

/// Whether `a` and `b` show the same graph list by list: the vertex and
/// edge counts, every out-list in order (with its weights when `a` keeps
/// weights), and every in-list when `a` keeps in-edges, compared as
/// `in_lists` says. The first difference as a message naming the vertex.
/// A batch path's tests compare its store with one built edge by edge.
pub fn same_lists<G: ReadGraph>(a: &G, b: &G, in_lists: InListOrder) -> Result<(), String> {
    if (a.vertex_count(), a.edge_count()) != (b.vertex_count(), b.edge_count()) {
        return Err(format!(
            "{} vertices, {} edges against {}, {}",
            a.vertex_count(),
            a.edge_count(),
            b.vertex_count(),
            b.edge_count()
        ));
    }
    let capability = |e: Error| e.to_string();
    let weights = match a.edge_weights() {
        Ok(w) => Some((w, b.edge_weights().map_err(capability)?)),
        Err(_) => None,
    };
    let incoming = match a.in_edges() {
        Ok(i) => Some((i, b.in_edges().map_err(capability)?)),
        Err(_) => None,
    };
    for v in 0..a.vertex_count() as VertexId {
        let (x, y): (Vec<_>, Vec<_>) = (a.out_neighbors(v).collect(), b.out_neighbors(v).collect());
        if x != y {
            return Err(format!("out-list of {v}: {x:?} against {y:?}"));
        }
        if let Some((wa, wb)) = &weights {
            let (x, y): (Vec<_>, Vec<_>) = (
                wa.out_neighbors_weighted(v).collect(),
                wb.out_neighbors_weighted(v).collect(),
            );
            if x != y {
                return Err(format!("weighted out-list of {v}: {x:?} against {y:?}"));
            }
        }
        if let Some((ia, ib)) = &incoming {
            let (mut x, mut y): (Vec<_>, Vec<_>) =
                (ia.in_neighbors(v).collect(), ib.in_neighbors(v).collect());
            if in_lists == InListOrder::Sorted {
                x.sort_unstable();
                y.sort_unstable();
            }
            if x != y {
                return Err(format!("in-list of {v}: {x:?} against {y:?}"));
            }
        }
    }
    Ok(())
}

/// The edges a graph shows, per vertex: out (with weights, `1.0` when it
/// keeps none) in the store's order, and in, sorted.
pub type Lists = Vec<(Vec<(VertexId, Weight)>, Vec<VertexId>)>;

/// [`Lists`] of `graph`.
pub fn lists<G: ReadGraph>(graph: &G) -> Lists {
    let incoming = graph.in_edges().ok();
    let weights = graph.edge_weights().ok();
    (0..graph.vertex_count() as VertexId)
        .map(|v| {
            let out = match weights {
                Some(w) => w.out_neighbors_weighted(v).collect(),
                None => graph.out_neighbors(v).map(|d| (d, 1.0)).collect(),
            };
            let mut ins: Vec<VertexId> =
                incoming.map_or(Vec::new(), |i| i.in_neighbors(v).collect());
            ins.sort_unstable();
            (out, ins)
        })
        .collect()
}

/// Snapshots taken before a batch read the same after it: a store built
/// from 3,000 edges takes a batch of 20,000 that adds vertices, then the
/// deletes of half its base edges, then a small batch into lists holding
/// tombstones, with a snapshot before each; at the end every snapshot's
/// view shows the lists it showed when it was taken. Returns the store, for
/// the caller's own checks of what the snapshots kept.
pub fn check_snapshots_across_batches<S: DynamicStore>(options: S::Options) -> Result<S, String> {
    let base = fixed_weighted_edges(3_000, 300, 3);
    let mut graph = S::from_edges(&base[..], options).map_err(|e| e.to_string())?;
    let mut taken = Vec::new();
    let mut take = |graph: &S, name: &'static str| -> Result<(), String> {
        let snapshot = graph.snapshot();
        let seen = lists(&graph.view(&snapshot).map_err(|e| e.to_string())?);
        taken.push((snapshot, seen, name));
        Ok(())
    };
    take(&graph, "before the first batch")?;
    graph
        .insert_edges(&fixed_weighted_edges(20_000, 350, 4)[..])
        .map_err(|e| e.to_string())?;
    take(&graph, "before the deletes")?;
    let deletes: Vec<Edge> = base
        .iter()
        .step_by(2)
        .map(|e| Edge::new(e.src, e.dst))
        .collect();
    let removed = graph
        .delete_edges(&deletes[..])
        .map_err(|e| e.to_string())?;
    if removed.edges_removed == 0 {
        return Err("the deletes of base edges removed nothing".into());
    }
    take(&graph, "before the last batch")?;
    graph
        .insert_edges(&fixed_weighted_edges(500, 300, 5)[..])
        .map_err(|e| e.to_string())?;
    for (snapshot, seen, name) in &taken {
        let now = lists(&graph.view(snapshot).map_err(|e| e.to_string())?);
        if &now != seen {
            return Err(format!("the snapshot taken {name} reads differently"));
        }
    }
    Ok(graph)
}

/// A clone is a copy, not a view: a store is built from `base` and
/// cloned, then the original takes `batch` as one batch, loses one
/// occurrence of each of `base`'s first edges and gains three vertices.
/// The clone must still read as `base` alone (and take updates of its
/// own), the original as `base` with those changes. A `batch` longer than
/// a store's small-batch threshold also pins its grouped batch path
/// against the model's one edge at a time.
///
/// Returns the first difference found.
pub fn check_clone_is_independent<S: DynamicStore + Clone>(
    options: StoreOptions,
    base: &[WeightedEdge],
    batch: &[WeightedEdge],
) -> Result<(), String> {
    let fail = |context: &str, e: Error| format!("{context}: {e}");
    let mut before = ReferenceGraph::new(options.semantics);
    before
        .insert_edges(base)
        .map_err(|e| fail("model base", e))?;
    let mut store =
        S::from_edges(base, S::Options::from_shared(options)).map_err(|e| fail("from_edges", e))?;
    let mut clone = store.clone();
    compare_with_model(&clone, &before).map_err(|e| format!("fresh clone: {e}"))?;

    let mut after = before.clone();
    let got = store.insert_edges(batch).map_err(|e| fail("batch", e))?;
    let want = after
        .insert_edges(batch)
        .map_err(|e| fail("model batch", e))?;
    if got != want {
        return Err(format!("batch: store reported {got:?}, model {want:?}"));
    }
    store.end_batch().map_err(|e| fail("end_batch", e))?;
    for e in base.iter().take(8) {
        let got = store
            .delete_edge(e.src, e.dst)
            .map_err(|e| fail("delete", e))?;
        let want = after
            .delete_edge(e.src, e.dst)
            .map_err(|e| fail("model delete", e))?;
        if got != want {
            return Err(format!("delete {e:?}: store reported {got}, model {want}"));
        }
    }
    store.add_vertices(3).map_err(|e| fail("add_vertices", e))?;
    after
        .add_vertices(3)
        .map_err(|e| fail("model add_vertices", e))?;
    compare_with_model(&store, &after).map_err(|e| format!("original after changes: {e}"))?;
    compare_with_model(&clone, &before)
        .map_err(|e| format!("clone after the original changed: {e}"))?;

    // And the other way round: the clone's own updates leave the original.
    if let Some(e) = base.first() {
        clone
            .insert_weighted_edge(e.dst, e.src, e.weight)
            .map_err(|e| fail("clone insert", e))?;
        before
            .insert_weighted_edge(e.dst, e.src, e.weight)
            .map_err(|e| fail("model clone insert", e))?;
        compare_with_model(&clone, &before).map_err(|e| format!("clone after its insert: {e}"))?;
        compare_with_model(&store, &after)
            .map_err(|e| format!("original after the clone changed: {e}"))?;
    }
    Ok(())
}

/// The build-only part of the contract, for stores without updates
/// (`Csr`): `from_edges`, a snapshot view, `edges()`, `to_csr()` and the
/// capability checks, against the model of `edges`.
pub fn check_build_contract<S: crate::GraphStore>(
    options: StoreOptions,
    edges: &[WeightedEdge],
) -> Result<(), String> {
    let mut model = ReferenceGraph::new(options.semantics);
    model
        .insert_edges(edges)
        .map_err(|e| format!("model: {e}"))?;
    let store =
        S::from_edges(edges, S::Options::from_shared(options)).map_err(|e| e.to_string())?;
    compare_with_model(&store, &model).map_err(|e| format!("after from_edges: {e}"))?;
    check_capabilities(&store, options)?;
    let snapshot = store.snapshot();
    let view = store.view(&snapshot).map_err(|e| e.to_string())?;
    compare_with_model(&view, &model).map_err(|e| format!("view: {e}"))?;
    let got = sorted(store.edges().collect::<Vec<_>>());
    let want = sorted(model.edges().collect::<Vec<_>>());
    if got != want {
        return Err(format!("edges(): {got:?}, model {want:?}"));
    }
    let csr = store.to_csr().map_err(|e| e.to_string())?;
    compare_with_model(&csr, &model).map_err(|e| format!("to_csr: {e}"))?;
    Ok(())
}

/// In-edges and weights answer exactly as `options` asked.
fn check_capabilities<G: ReadGraph + ?Sized>(
    graph: &G,
    options: StoreOptions,
) -> Result<(), String> {
    match (graph.in_edges().map(|_| ()), options.in_edges) {
        (Ok(()), true) => {}
        (
            Err(Error::MissingCapability {
                capability: Capability::InEdges,
                ..
            }),
            false,
        ) => {}
        (got, want) => {
            return Err(format!(
                "in_edges() answered {got:?} for a store built with in_edges = {want}"
            ));
        }
    }
    match (graph.edge_weights().map(|_| ()), options.weighted) {
        (Ok(()), true) => {}
        (
            Err(Error::MissingCapability {
                capability: Capability::Weights,
                ..
            }),
            false,
        ) => {}
        (got, want) => {
            return Err(format!(
                "edge_weights() answered {got:?} for a store built with weighted = {want}"
            ));
        }
    }
    Ok(())
}
