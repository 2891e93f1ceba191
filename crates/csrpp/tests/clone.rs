//! A `CsrPP` clone is a copy, not a view: changing the original after the
//! clone leaves the clone as it was, and the other way round
//! (`dyngraph_core::testing::check_clone_is_independent`), for every
//! combination of semantics, in-edges and weights; for a store small
//! enough to be cloned on the calling thread and one cloned in parallel,
//! with batches on the one-at-a-time path and past it (2^14 edges) on the
//! grouped per-segment path.

use dyngraph_core::testing::{check_clone_is_independent, fixed_weighted_edges};
use dyngraph_core::{Semantics, StoreOptions};
use dyngraph_csrpp::CsrPP;

fn check(base_len: usize, batch_len: usize) {
    let base = fixed_weighted_edges(base_len, 3_000, 1);
    let batch = fixed_weighted_edges(batch_len, 3_200, 2);
    for semantics in [Semantics::Multigraph, Semantics::Simple] {
        for (in_edges, weighted) in [(false, false), (false, true), (true, false), (true, true)] {
            let options = StoreOptions::new(semantics)
                .in_edges(in_edges)
                .weighted(weighted);
            if let Err(difference) = check_clone_is_independent::<CsrPP>(options, &base, &batch) {
                panic!("{options:?}: {difference}");
            }
        }
    }
}

#[test]
fn a_small_clone_is_unchanged_when_the_original_takes_a_small_batch() {
    check(600, 8);
}

#[test]
fn a_parallel_clone_is_unchanged_when_the_original_takes_a_large_batch() {
    // Past the serial clone's 2^16 edges and the serial batch's 2^14.
    check(70_000, 20_000);
}
