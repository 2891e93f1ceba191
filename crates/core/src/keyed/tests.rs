use super::*;
use crate::StoreConfig;
use crate::testing::ReferenceGraph;
use crate::{Csr, CsrOptions, Edge, InNeighbors};
use proptest::prelude::*;
use std::collections::HashMap;
use std::ops::Range;

fn keyed(kind: IdKind) -> Keyed<ReferenceGraph> {
    Keyed::new(ReferenceGraph::new(Semantics::Multigraph), IdMap::new(kind)).unwrap()
}

/// The graph as `(source key, destination key)` edge counts.
fn edges_by_key<S: OutNeighbors>(g: &Keyed<S>) -> HashMap<(String, String), usize> {
    let mut edges = HashMap::new();
    for v in 0..g.vertex_count() as VertexId {
        for w in g.out_neighbors(v) {
            let pair = (g.key(v).unwrap().to_string(), g.key(w).unwrap().to_string());
            *edges.entry(pair).or_default() += 1;
        }
    }
    edges
}

#[test]
fn keys_come_and_stay_and_every_vertex_has_one() {
    let mut g = keyed(IdKind::Integers);
    assert!(g.insert_edge(7u64, 1u64 << 40).unwrap());
    g.insert_edges(&[(3u64, 7u64), (9, 9)]).unwrap();
    assert_eq!(g.vertex_count(), 4);
    assert_eq!(g.ids().len(), 4);
    assert_eq!(g.vertex(7u64), Some(0));
    assert_eq!(g.vertex(1u64 << 40), Some(1));
    // A batch's new keys come in key order.
    assert_eq!((g.vertex(3u64), g.vertex(9u64)), (Some(2), Some(3)));
    assert_eq!(g.add_key(100u64).unwrap(), 4);
    assert_eq!(g.vertex_count(), 5, "an isolated key is a vertex");
    assert_eq!(g.out_degree(4), 0);
    let report = g.delete_edges(&[(3u64, 7u64), (3, 7), (5, 7)]).unwrap();
    assert_eq!(report.edges_removed, 1);
    assert_eq!(g.vertex(5u64), None, "deleting never adds a key");
    assert_eq!(g.edge_count(), 2);
}

#[test]
fn a_key_of_the_other_kind_changes_nothing() {
    let mut g = keyed(IdKind::Strings);
    g.insert_edge("a", "b").unwrap();
    let error = g.insert_edges(&[(OriginalId::String(b"c"), OriginalId::Integer(4))]);
    assert!(error.unwrap_err().to_string().contains("is an integer"));
    assert!(g.delete_edge("a", 3u64).is_err());
    assert!(
        g.delete_edges(&[(OriginalId::Integer(1), OriginalId::String(b"a"))])
            .is_err()
    );
    assert_eq!((g.vertex_count(), g.ids().len(), g.edge_count()), (2, 2, 1));
}

/// A store whose vertex limit is small, to reach the refusals.
#[derive(Debug)]
struct Limited(ReferenceGraph, usize);

impl Graph for Limited {
    fn vertex_count(&self) -> usize {
        self.0.vertex_count()
    }
    fn edge_count(&self) -> u64 {
        self.0.edge_count()
    }
    fn semantics(&self) -> Semantics {
        self.0.semantics()
    }
}

impl GraphUpdate for Limited {
    fn insert_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        crate::check_limit(self.1, [src, dst])?;
        self.0.insert_edge(src, dst)
    }
    fn insert_weighted_edge(&mut self, src: VertexId, dst: VertexId, w: Weight) -> Result<bool> {
        crate::check_limit(self.1, [src, dst])?;
        self.0.insert_weighted_edge(src, dst, w)
    }
    fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<bool> {
        self.0.delete_edge(src, dst)
    }
    fn add_vertices(&mut self, count: usize) -> Result<Range<VertexId>> {
        crate::check_limit(
            self.1,
            [(self.vertex_count() + count).saturating_sub(1) as VertexId],
        )?;
        self.0.add_vertices(count)
    }
    fn vertex_limit(&self) -> usize {
        self.1
    }
}

#[test]
fn new_keys_past_the_vertex_limit_are_refused_and_forgotten() {
    let store = Limited(ReferenceGraph::new(Semantics::Multigraph), 3);
    let mut g = Keyed::new(store, IdMap::new(IdKind::Strings)).unwrap();
    g.insert_edges(&[("a", "b")]).unwrap();
    let error = g.insert_edges(&[("a", "c"), ("d", "a")]).unwrap_err();
    assert!(
        matches!(
            error,
            Error::VertexLimit {
                needed: 4,
                limit: 3,
                ..
            }
        ),
        "{error}"
    );
    assert!(g.insert_edge("x", "y").is_err());
    assert!(g.add_key("c").is_ok());
    assert!(g.add_key("e").is_err());
    assert_eq!((g.ids().len(), g.vertex_count(), g.edge_count()), (3, 3, 1));
    assert_eq!(g.vertex("x"), None);
}

#[test]
fn a_store_that_grows_with_its_keys_is_refused_a_mismatch() {
    let csr = Csr::from_edges(&[Edge::new(0, 2)], CsrOptions::default()).unwrap();
    assert!(Keyed::new(csr.clone(), IdMap::from_integers(vec![5, 6]).unwrap()).is_err());
    let g = Keyed::new(csr, IdMap::from_integers(vec![5, 6, 9]).unwrap()).unwrap();
    assert_eq!(
        g.out_neighbors(0)
            .map(|v| g.key(v).unwrap())
            .collect::<Vec<_>>(),
        [OriginalId::Integer(9)]
    );
}

#[test]
fn built_from_plain_edges_the_keys_are_the_vertex_ids() {
    let edges = [Edge::new(0, 3), Edge::new(3, 1)];
    let g = Keyed::<Csr>::from_edges(&edges[..], CsrOptions::default().in_edges(true)).unwrap();
    assert_eq!(g.ids().integers(), Some(&[0, 1, 2, 3][..]));
    let incoming = g.in_edges().unwrap();
    assert_eq!(incoming.in_neighbors(3).collect::<Vec<_>>(), [0]);
    let snapshot = g.snapshot();
    assert_eq!(g.view(&snapshot).unwrap().edge_count(), 2);
    let empty = Keyed::<Csr>::with_kind(IdKind::Strings, CsrOptions::default()).unwrap();
    assert_eq!(
        (empty.vertex_count(), empty.ids().kind()),
        (0, IdKind::Strings)
    );
}

#[test]
fn top_ranks_by_value_then_vertex_with_nan_last() {
    let ids = IdMap::from_strings(["a", "b", "c", "d", "e"]).unwrap();
    let g = Keyed::new(
        Csr::from_edges(&[Edge::new(4, 4)], CsrOptions::default()).unwrap(),
        ids,
    )
    .unwrap();
    let scores = [0.5f32, f32::NAN, 2.0, 0.5, 1.0];
    let named = |top: Vec<(OriginalId<'_>, f32)>| -> Vec<String> {
        top.into_iter().map(|(k, _)| k.to_string()).collect()
    };
    let by_key = g.by_key(&scores);
    assert_eq!(named(by_key.top(3)), ["c", "e", "a"]);
    assert_eq!(named(by_key.top(10)), ["c", "e", "a", "d", "b"]);
    assert_eq!(by_key.get("e"), Some(&1.0));
    assert_eq!(by_key.get("zed"), None);
    assert_eq!(by_key.iter().count(), 5);
    // A result from before later keys still reads right.
    assert_eq!(g.by_key(&scores[..2]).get("c"), None);
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u8, u8),
    Delete(u8, u8),
    Batch(Vec<(u8, u8)>),
    DeleteBatch(Vec<(u8, u8)>),
}

fn op() -> impl Strategy<Value = Op> {
    let key = 0u8..12;
    let pair = (key.clone(), key);
    prop_oneof![
        3 => pair.clone().prop_map(|(s, d)| Op::Insert(s, d)),
        2 => pair.clone().prop_map(|(s, d)| Op::Delete(s, d)),
        2 => prop::collection::vec(pair.clone(), 0..8).prop_map(Op::Batch),
        1 => prop::collection::vec(pair, 0..8).prop_map(Op::DeleteBatch),
    ]
}

fn name(k: u8) -> String {
    format!("user-{}", 11 - k)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Inserts and deletes by key, one at a time and in batches, give the
    /// graph a model keyed by the same names has (edge counts per key
    /// pair), with every vertex keyed.
    #[test]
    fn keyed_updates_match_a_model_by_key(ops in prop::collection::vec(op(), 1..40)) {
        let mut g = keyed(IdKind::Strings);
        let mut model: HashMap<(String, String), usize> = HashMap::new();
        for op in ops {
            match op {
                Op::Insert(s, d) => {
                    prop_assert!(g.insert_edge(name(s), name(d)).unwrap());
                    *model.entry((name(s), name(d))).or_default() += 1;
                }
                Op::Delete(s, d) => {
                    let present = model.get(&(name(s), name(d))).is_some_and(|&c| c > 0);
                    prop_assert_eq!(g.delete_edge(name(s), name(d)).unwrap(), present);
                    if present {
                        *model.get_mut(&(name(s), name(d))).unwrap() -= 1;
                    }
                }
                Op::Batch(pairs) => {
                    let named: Vec<(String, String)> =
                        pairs.iter().map(|&(s, d)| (name(s), name(d))).collect();
                    let report = g.insert_edges(&named).unwrap();
                    prop_assert_eq!(report.edges_added, pairs.len() as u64);
                    for pair in named {
                        *model.entry(pair).or_default() += 1;
                    }
                }
                Op::DeleteBatch(pairs) => {
                    let named: Vec<(String, String)> =
                        pairs.iter().map(|&(s, d)| (name(s), name(d))).collect();
                    let mut removed = 0;
                    for pair in &named {
                        if let Some(count) = model.get_mut(pair).filter(|c| **c > 0) {
                            *count -= 1;
                            removed += 1;
                        }
                    }
                    prop_assert_eq!(g.delete_edges(&named).unwrap().edges_removed, removed);
                }
            }
            prop_assert_eq!(g.vertex_count(), g.ids().len());
        }
        model.retain(|_, count| *count > 0);
        prop_assert_eq!(edges_by_key(&g), model);
    }
}
