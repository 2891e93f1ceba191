//! A clone of every store of the crate is a copy, not a view: changing
//! the original after the clone leaves the clone as it was, and the other
//! way round (`dyngraph_core::testing::check_clone_is_independent`), for
//! every combination of semantics, in-edges and weights. The batch the
//! original takes is longer than `Vcsr`'s small-batch threshold, so its
//! grouped batch path is checked against single inserts too.

use dyngraph_core::testing::{check_clone_is_independent, fixed_weighted_edges};
use dyngraph_core::{DynamicStore, Semantics, StoreOptions};
use dyngraph_vcsr::{Bal, Pcsr, Vcsr};

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
    let base = fixed_weighted_edges(600, 300, 1);
    let batch = fixed_weighted_edges(batch_len, 400, 2);
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
