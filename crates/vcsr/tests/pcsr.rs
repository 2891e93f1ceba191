//! `Pcsr` through the shared store harness.

mod common;

use dyngraph_core::{StoreOptions, VertexId};
use dyngraph_vcsr::Pcsr;

impl common::Store for Pcsr {
    fn build(options: StoreOptions) -> Self {
        Pcsr::new(options).unwrap()
    }

    fn validate(&self) -> Result<(), String> {
        Pcsr::validate(self).map_err(|e| e.to_string())
    }

    fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        Pcsr::has_edge(self, src, dst)
    }
}

store_tests!(Pcsr, 48);

#[test]
fn refuses_a_vertex_limit_that_reaches_the_sentinel() {
    let err = Pcsr::new(StoreOptions::default().vertex_limit(1 << 33)).unwrap_err();
    assert!(err.to_string().contains("PCSR"), "{err}");
}

#[test]
fn keeps_one_sentinel_per_vertex_and_reports_pma_work() {
    use dyngraph_core::{Graph, GraphUpdate};
    let mut pcsr = Pcsr::new(StoreOptions::default().in_edges(true)).unwrap();
    for i in 0..3000u32 {
        pcsr.insert_edge(i % 97, (i * 31) % 101).unwrap();
    }
    pcsr.validate().unwrap();
    assert_eq!(pcsr.vertex_count(), 101);
    assert!(pcsr.stats().elements_moved > 0);
    assert!(pcsr.stats().inserts >= 3000 + 101, "edges plus sentinels");
    assert!(pcsr.in_edge_stats().is_some());
    assert!(pcsr.density() > 0.0 && pcsr.memory_bytes() > 3000 * 16);
}

/// In-edges go through a log merged into the packed set when it fills
/// (thousands of edges): across many merges, with deletes hitting both the
/// merged set and the log, every in-list stays exactly the in-edges in
/// insertion order, the oldest occurrence removed first.
#[test]
fn in_edge_log_merges_keep_insertion_order_through_deletes() {
    use dyngraph_core::{GraphStore, GraphUpdate, InEdges, InNeighbors};
    const VERTICES: usize = 60;
    let mut pcsr = Pcsr::new(StoreOptions::default().in_edges(true)).unwrap();
    let mut model: Vec<Vec<VertexId>> = vec![Vec::new(); VERTICES];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let check = |pcsr: &Pcsr, model: &[Vec<VertexId>]| {
        pcsr.validate().unwrap();
        let incoming = pcsr.in_edges().unwrap();
        for (v, want) in model.iter().enumerate() {
            let v = v as VertexId;
            assert_eq!(incoming.in_neighbors(v).collect::<Vec<_>>(), *want, "in-list of {v}");
            let folded = incoming.in_neighbors(v).fold(0usize, |n, _| n + 1);
            assert_eq!(folded as u64, incoming.in_degree(v));
        }
    };
    for step in 0..30_000u32 {
        let r = next();
        if step % 5 == 4 {
            let dst = (r % VERTICES as u64) as usize;
            if model[dst].is_empty() {
                continue;
            }
            let src = model[dst][((r >> 8) % model[dst].len() as u64) as usize];
            assert!(pcsr.delete_edge(src, dst as VertexId).unwrap());
            let oldest = model[dst].iter().position(|&s| s == src).unwrap();
            model[dst].remove(oldest);
        } else {
            // Skewed destinations: a few vertices take most in-edges.
            let dst = ((r >> 8) % VERTICES as u64).min((r >> 20) % VERTICES as u64);
            let src = (r % VERTICES as u64) as VertexId;
            pcsr.insert_edge(src, dst as VertexId).unwrap();
            model[dst as usize].push(src);
        }
        if step % 3001 == 0 {
            check(&pcsr, &model);
        }
    }
    check(&pcsr, &model);
    // No in-edge went into the packed set one by one: they were logged
    // and merged (a merged set's counters start afresh; only sentinels,
    // added before the first merge, may have been inserted).
    assert!(pcsr.in_edge_stats().unwrap().inserts <= VERTICES as u64);
}
