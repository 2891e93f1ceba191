//! The tour of the crate docs as a program: load a temporal graph, build
//! two stores from the same columns, update them, snapshot, run kernels on
//! the snapshot and on a store, freeze into a `Csr` and compare.
//!
//! ```sh
//! cargo run --release -p dyngraph --example tour [FILE]
//! ```
//!
//! One dependency (`dyngraph`), one `use`.

use dyngraph::core::{Semantics, StoreOptions};
use dyngraph::csrpp::CsrPPOptions;
use dyngraph::kernels::{BfsOptions, PageRankOptions, bfs, pagerank, verify_pagerank};
use dyngraph::loader::{LoadOptions, load_edge_stream};
use dyngraph::prelude::*;
use dyngraph::vcsr::VcsrOptions;

fn main() -> dyngraph::Result<()> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt").to_string()
    });
    let stream = load_edge_stream(&path, &LoadOptions::default())?;
    let all = stream.as_chunk();
    let split = all.len() * 9 / 10;
    let (base, rest) = (all.slice(0..split), all.slice(split..all.len()));

    let options = StoreOptions::new(Semantics::Multigraph).in_edges(true);
    let mut vcsr = Vcsr::from_edges(&base, VcsrOptions::from(options))?;
    let mut csrpp = CsrPP::from_edges(&base, CsrPPOptions::from(options))?;

    vcsr.insert_edges(&rest)?;
    csrpp.insert_edges(&rest)?;
    let oldest: Vec<Edge> = (0..1000.min(stream.len()))
        .map(|i| stream.edge(i))
        .collect();
    let removed = vcsr.delete_edges(&oldest)?.edges_removed;
    csrpp.delete_edges(&oldest)?;

    let snapshot = vcsr.snapshot();
    vcsr.insert_edge(0, 1)?;
    let view = vcsr.view(&snapshot)?;
    let ranks = pagerank(&view, &PageRankOptions::default())?;
    verify_pagerank(&view, &ranks).expect("PageRank verified");

    let source = stream.edge(0).src;
    let tree = bfs(&csrpp, &BfsOptions::from_source(source))?;
    let csr = csrpp.to_csr()?;
    let on_csr = bfs(&csr, &BfsOptions::from_source(source))?;
    assert_eq!(tree.reached(), on_csr.reached());

    println!("{path}: {} edges loaded, {removed} deleted", stream.len());
    println!(
        "snapshot: {} edges (the store has {} now); PageRank {:?}, top vertex {:?}",
        view.edge_count(),
        vcsr.edge_count(),
        ranks.method,
        ranks.top(1)
    );
    println!(
        "BFS from {source} reached {} vertices on CsrPP and on Csr",
        tree.reached()
    );
    println!(
        "bytes: Vcsr {}, CsrPP {}, Csr {}",
        vcsr.memory_bytes(),
        csrpp.memory_bytes(),
        csr.memory_bytes()
    );
    Ok(())
}
