//! Which of the registry's stores each bench measures: every store of
//! [`StoreKind::ALL`] unless a bench leaves it out here, by name and with
//! the reason. A store added to the registry is measured by every bench
//! without a line of the benches changing; leaving it out of one is a
//! decision written down here (Sahu's suite dispatches with a `match`
//! without a catch-all arm, so a new store does not compile there until
//! it is placed).

use dyngraph::stores::StoreKind;

/// Why the edge-at-a-time insert bench (`vcsr_replay`'s `insert`) leaves
/// `kind` out, or `None` when it measures it.
pub fn left_out_of_edge_at_a_time(kind: StoreKind) -> Option<&'static str> {
    match kind {
        StoreKind::CsrRebuild => Some(
            "a rebuild per edge would be tens of thousands of full builds: it has its own row, \
             rebuilt per 1 % of the stream",
        ),
        StoreKind::Durable => Some(
            "each edge is a sync point to disk: benches/examples/durable_compare.rs measures it \
             beside Vcsr and SQLite",
        ),
        _ => None,
    }
}

/// Why the kernels-after-updates bench (`vcsr_replay`'s `pagerank_20`)
/// leaves `kind` out, or `None` when it measures it.
pub fn left_out_of_analytics(kind: StoreKind) -> Option<&'static str> {
    match kind {
        StoreKind::CsrRebuild => Some("it is `Csr`, measured as the baseline row"),
        StoreKind::Durable => Some(
            "built edge at a time it syncs per edge (left out above); its kernels on the kept \
             graph: `dyngraph run KERNEL DIR`",
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every store of the registry is measured by each bench, or left out
    /// with a reason.
    #[test]
    fn every_store_is_measured_or_left_out_with_a_reason() {
        for &kind in StoreKind::ALL {
            for choice in [left_out_of_edge_at_a_time, left_out_of_analytics] {
                if let Some(reason) = choice(kind) {
                    assert!(reason.len() > 20, "{kind}: {reason:?}");
                }
            }
        }
        assert!(
            StoreKind::ALL
                .iter()
                .filter(|&&k| left_out_of_edge_at_a_time(k).is_none())
                .count()
                >= 4
        );
    }
}
