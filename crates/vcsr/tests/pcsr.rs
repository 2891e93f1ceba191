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
