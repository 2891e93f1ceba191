//! `Bal` through the shared store harness.

mod common;

use dyngraph_core::{StoreOptions, VertexId};
use dyngraph_vcsr::Bal;

impl common::Store for Bal {
    fn build(options: StoreOptions) -> Self {
        Bal::new(options).unwrap()
    }

    fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        Bal::has_edge(self, src, dst)
    }
}

store_tests!(Bal, 64);

#[test]
fn long_chains_shift_across_blocks() {
    use dyngraph_core::{EdgeWeights, GraphUpdate, OutNeighbors, WeightedNeighbors};
    let mut bal = Bal::new(StoreOptions::default().weighted(true)).unwrap();
    for i in 0..2000u32 {
        bal.insert_weighted_edge(7, i % 700, i as f32).unwrap();
    }
    // Blocks of 8, 8, 16, ..., 256 (512 edges), then three of 512.
    assert_eq!(bal.stats().blocks, 10);
    // Delete the oldest 0..700 once: 700 edges out of the first block(s).
    for d in 0..700 {
        assert!(bal.delete_edge(7, d).unwrap());
    }
    let want: Vec<u32> = (700..2000).map(|i| i % 700).collect();
    assert_eq!(bal.out_neighbors(7).collect::<Vec<_>>(), want);
    // 1300 edges left fill the blocks up to the second 512: the last
    // block emptied and went back to the free list.
    assert_eq!(bal.stats().blocks - bal.stats().free_blocks, 9);
    let weights: Vec<f32> = bal
        .edge_weights()
        .unwrap()
        .out_neighbors_weighted(7)
        .map(|(_, w)| w)
        .collect();
    let want: Vec<f32> = (700..2000).map(|i| i as f32).collect();
    assert_eq!(weights, want);
}

#[test]
fn refuses_a_vertex_limit_past_u32_ids() {
    let err = Bal::new(StoreOptions::default().vertex_limit(1 << 33)).unwrap_err();
    assert!(err.to_string().contains("u32"), "{err}");
}
