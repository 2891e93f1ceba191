//! A keyed durable store keeps its keys with its edges: reopened after a
//! close or a crash, every acknowledged edge is named by the keys it was
//! inserted under.

use dyngraph_core::{Graph, Keyed, OutNeighbors, StoreConfig};
use dyngraph_core::{IdKind, InEdges};
use dyngraph_durable::{DurableOptions, DurableVcsr, KEYS_FILE, SyncPolicy};
use std::path::{Path, PathBuf};

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dyngraph-keys-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn options(dir: &Path) -> DurableOptions {
    DurableOptions::in_dir(dir)
        .sync(SyncPolicy::Explicit)
        .in_edges(true)
}

/// `(source key, destination key)` of every edge, sorted.
fn named_edges(graph: &Keyed<DurableVcsr>) -> Vec<(String, String)> {
    let mut edges = Vec::new();
    for v in 0..graph.vertex_count() as u32 {
        for w in graph.out_neighbors(v) {
            let name = |x| graph.key(x).map_or("?".to_string(), |k| k.to_string());
            edges.push((name(v), name(w)));
        }
    }
    edges.sort();
    edges
}

#[test]
fn keys_come_back_after_a_clean_close() {
    let dir = fresh("clean");
    let mut graph: Keyed<DurableVcsr> = Keyed::with_kind(IdKind::Strings, options(&dir)).unwrap();
    graph
        .insert_edges(&[("alice", "bob"), ("bob", "carol"), ("carol", "alice")])
        .unwrap();
    assert!(graph.delete_edge("bob", "carol").unwrap());
    DurableVcsr::sync_keyed(&mut graph).unwrap();
    let before = named_edges(&graph);
    drop(graph);

    let reopened = DurableVcsr::open_keyed(&dir, &options(&dir)).unwrap();
    assert_eq!(named_edges(&reopened), before);
    let alice = reopened.vertex("alice").unwrap();
    assert_eq!(reopened.in_degree(alice).unwrap(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_crash_after_new_keys_keeps_the_synced_graph_under_its_keys() {
    let dir = fresh("crash");
    let mut graph: Keyed<DurableVcsr> = Keyed::with_kind(IdKind::Integers, options(&dir)).unwrap();
    graph.insert_edges(&[(10u64, 20u64), (20, 30)]).unwrap();
    DurableVcsr::sync_keyed(&mut graph).unwrap();
    let synced = named_edges(&graph);
    // New keys and edges after the sync point, made durable by the store
    // alone (a policy that commits on its own, or log writes a kill left
    // in the page cache), then a kill: the keys file lacks key 40.
    graph
        .insert_edges(&[(30u64, 40u64), (40, 10), (10, 30)])
        .unwrap();
    graph
        .with_parts_mut(|store, _| store.commit().map(|_| ()))
        .unwrap();
    let (store, _) = graph.into_parts();
    store.drop_without_close();

    let mut reopened = DurableVcsr::open_keyed(&dir, &options(&dir)).unwrap();
    let after = named_edges(&reopened);
    // Nothing acknowledged is lost, and no edge is left unnamed.
    for edge in &synced {
        assert!(after.contains(edge), "{edge:?} lost: {after:?}");
    }
    assert!(after.iter().all(|(s, d)| s != "?" && d != "?"), "{after:?}");
    // Vertex 40's key was never saved, so its edges are gone (10 -> 30,
    // between named vertices, stays) and the vertex waits, unnamed, for
    // the next new key.
    assert!(after.contains(&("10".into(), "30".into())), "{after:?}");
    assert_eq!(reopened.vertex(40u64), None);
    assert_eq!((reopened.vertex_count(), reopened.ids().len()), (4, 3));
    // A new key takes the next vertex, the unnamed one.
    reopened.insert_edge(50u64, 10u64).unwrap();
    assert_eq!(reopened.vertex(50u64), Some(3));
    assert_eq!(
        reopened
            .key(reopened.vertex(50u64).unwrap())
            .unwrap()
            .to_string(),
        "50"
    );
    DurableVcsr::sync_keyed(&mut reopened).unwrap();
    drop(reopened);
    let again = DurableVcsr::open_keyed(&dir, &options(&dir)).unwrap();
    assert!(named_edges(&again).contains(&("50".into(), "10".into())));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_store_without_keys_is_refused_naming_the_file() {
    let dir = fresh("nokeys");
    let store = DurableVcsr::create(&dir, options(&dir)).unwrap();
    drop(store);
    let error = DurableVcsr::open_keyed(&dir, &options(&dir)).unwrap_err();
    assert!(error.to_string().contains(KEYS_FILE), "{error}");
    // A damaged keys file: refused, not read as other keys.
    std::fs::write(dir.join(KEYS_FILE), b"DGID\x02garbage").unwrap();
    let error = DurableVcsr::open_keyed(&dir, &options(&dir)).unwrap_err();
    assert!(error.to_string().contains(KEYS_FILE), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The command line's keyed store ([`DurableOptions::keys`]): the keys go
/// in with the store's creation and with each append, before the edges
/// they name are acknowledged; an append's keys must extend the kept ones,
/// and a store kept without keys refuses keys (and the reverse).
#[test]
fn keys_given_with_the_options_are_kept_and_must_extend_the_kept_ones() {
    use dyngraph_core::{Edge, FromEdges, IdMap};
    use std::sync::Arc;
    let dir = fresh("options");
    let day1 = Arc::new(IdMap::from_strings(["alice", "bob", "carol"]).unwrap());
    let edges = [Edge::new(0, 1), Edge::new(1, 2)];
    let store =
        DurableVcsr::from_edges(&edges, options(&dir).keys(Some(Arc::clone(&day1)))).unwrap();
    store.close().unwrap();
    assert_eq!(DurableVcsr::read_keys(&dir).unwrap().as_ref(), Some(&*day1));

    // Day two: the kept keys, then new ones.
    let mut day2 = (*day1).clone();
    let dave = day2.intern("dave").unwrap();
    let append = options(&dir).append(true);
    let store = DurableVcsr::from_edges(
        &[Edge::new(dave, 0)],
        append.clone().keys(Some(Arc::new(day2.clone()))),
    )
    .unwrap();
    store.close().unwrap();
    let graph = DurableVcsr::open_keyed(&dir, &options(&dir)).unwrap();
    assert_eq!(named_edges(&graph).len(), 3);
    assert!(named_edges(&graph).contains(&("dave".into(), "alice".into())));
    drop(graph);

    // Keys that rename a kept vertex are refused, and nothing is written.
    let renamed = Arc::new(IdMap::from_strings(["bob", "alice", "carol", "dave"]).unwrap());
    let error = DurableVcsr::from_edges(&[Edge::new(0, 1)], append.clone().keys(Some(renamed)))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(error.contains("do not extend"), "{error}");
    assert_eq!(DurableVcsr::read_keys(&dir).unwrap(), Some(day2));
    // No keys for a keyed store: refused by name.
    let error = DurableVcsr::from_edges(&[Edge::new(0, 1)], append)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(error.contains("named by keys"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}
