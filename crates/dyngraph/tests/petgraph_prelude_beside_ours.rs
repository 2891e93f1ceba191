//! Issue 25: `use petgraph::prelude::*` beside `use dyngraph::prelude::*`
//! compiled with E0782 and broke `g.edge_count()`, because both preludes
//! named `Graph`. Ours now brings the `Graph` trait's methods without its
//! name: `Graph` is petgraph's struct, and both libraries' calls work on a
//! store in one file.

use dyngraph::prelude::*;
use dyngraph::vcsr::VcsrOptions;
use petgraph::algo::{dijkstra, tarjan_scc};
use petgraph::prelude::*;

#[test]
fn both_preludes_in_one_file_compile_and_run() -> dyngraph::Result<()> {
    let edges = [Edge::new(0, 1), Edge::new(1, 0), Edge::new(1, 2)];
    let vcsr = Vcsr::from_edges(&edges, VcsrOptions::default())?;

    // dyngraph's `Graph` methods, by the prelude.
    assert_eq!(vcsr.edge_count(), 3u64);
    assert_eq!(vcsr.vertex_count(), 3);

    // petgraph's algorithms and visitors, directly on the store.
    assert_eq!(tarjan_scc(&vcsr).len(), 2);
    let mut bfs = Bfs::new(&vcsr, 2);
    assert_eq!(bfs.next(&vcsr), Some(2));
    assert_eq!(bfs.next(&vcsr), None);
    let hops = dijkstra(&vcsr, 0, None, |e| *e.weight()); // `EdgeRef`, by petgraph's prelude
    assert_eq!(hops[&2], 2.0);

    // `Graph` is petgraph's struct.
    let mut graph: Graph<(), ()> = Graph::new();
    let (a, b) = (graph.add_node(()), graph.add_node(()));
    graph.add_edge(a, b, ());
    assert_eq!(graph.edge_count(), 1usize);

    // The trait is still there by its full name.
    fn edges_of(g: &impl dyngraph::Graph) -> u64 {
        g.edge_count()
    }
    assert_eq!(edges_of(&vcsr), 3);
    Ok(())
}
