//! A clone of every store of the crate is a copy, not a view: changing
//! the original after the clone leaves the clone as it was, and the other
//! way round (`dyngraph_core::testing::check_clone_is_independent`), for
//! every combination of semantics, in-edges and weights. The batch the
//! original takes is longer than `Vcsr`'s small-batch threshold, so its
//! grouped batch path is checked against single inserts too.

use dyngraph_core::testing::check_clone_is_independent;
use dyngraph_core::{DynamicStore, Semantics, StoreOptions, VertexId, WeightedEdge};
use dyngraph_vcsr::{Bal, Pcsr, Vcsr};

/// `count` edges among `vertices` vertices with weights 1 to 7, from a
/// small linear congruential generator.
fn stream(count: usize, vertices: VertexId, seed: u64) -> Vec<WeightedEdge> {
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

fn every_option() -> impl Iterator<Item = StoreOptions> {
    [Semantics::Multigraph, Semantics::Simple]
        .into_iter()
        .flat_map(|semantics| {
            [(false, false), (false, true), (true, false), (true, true)].map(
                move |(in_edges, weighted)| {
                    StoreOptions::new(semantics)
                        .in_edges(in_edges)
                        .weighted(weighted)
                },
            )
        })
}

fn check<S: DynamicStore + Clone>(batch_len: usize) {
    let base = stream(600, 300, 1);
    let batch = stream(batch_len, 400, 2);
    for options in every_option() {
        if let Err(difference) = check_clone_is_independent::<S>(options, &base, &batch) {
            panic!("{} with {options:?}: {difference}", S::NAME);
        }
    }
}

#[test]
fn a_vcsr_clone_is_unchanged_when_the_original_takes_a_large_batch() {
    // Past `SMALL_BATCH` (2^14): the grouped path.
    check::<Vcsr>(20_000);
}

#[test]
fn a_vcsr_clone_is_unchanged_when_the_original_takes_a_small_batch() {
    check::<Vcsr>(8);
}

#[test]
fn a_pcsr_clone_is_unchanged_when_the_original_changes() {
    check::<Pcsr>(500);
}

#[test]
fn a_bal_clone_is_unchanged_when_the_original_changes() {
    check::<Bal>(500);
}
