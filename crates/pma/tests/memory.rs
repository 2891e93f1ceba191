//! The runs layout's footprint and growth: what `memory_bytes` promises in
//! `PackedRuns`'s docs (exact slots, `u32` per-run bookkeeping, no scratch
//! of root size kept), the growth factor, and the capacity limit.

use dyngraph_pma::{DegreeProportional, MAX_CAPACITY, PackedRuns, PmaError, PmaOptions};

/// Pushes `count` elements round-robin-ish (a fixed LCG) over `runs` runs.
fn fill(layout: &mut PackedRuns<u32>, runs: usize, count: u32) {
    let mut x = 12_345u64;
    for value in 0..count {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        layout.push((x >> 33) as usize % runs, value).unwrap();
    }
}

#[test]
fn memory_is_the_slots_plus_nine_bytes_a_run() {
    let runs = 20_000;
    let mut layout: PackedRuns<u32> = PackedRuns::new();
    layout.add_runs(runs).unwrap();
    fill(&mut layout, runs, 200_000);
    layout.validate().unwrap();
    // A root-sized redistribution (a growth) happened, so a layout that
    // kept its scratch would hold 32 more bytes per run.
    assert!(layout.stats().grows > 0, "{:?}", layout.stats());
    let slots = layout.capacity() * 4;
    let sections = runs.div_ceil(layout.runs_per_section()) * 8;
    // Two u32 and a flag per run (plus the `start` sentinel), with at most
    // an eighth spare from adding runs; up to max(64, runs / 32) scratch
    // entries of 32 bytes. (It was 17 bytes a run plus 32 bytes a run of
    // scratch before the u32 bookkeeping.)
    let bookkeeping = (runs + 1) * 9 * 9 / 8 + sections + 64.max(runs / 32) * 32;
    assert!(
        layout.memory_bytes() <= slots + bookkeeping,
        "{} bytes for {slots} bytes of slots and {runs} runs",
        layout.memory_bytes()
    );
}

#[test]
fn growth_factor_sets_the_density_after_a_growth() {
    for growth in [1.5, 2.0] {
        let config = PmaOptions::default().growth(growth);
        let mut layout: PackedRuns<u32> =
            PackedRuns::with_config(DegreeProportional::default(), config).unwrap();
        layout.add_runs(100).unwrap();
        let mut capacity = layout.capacity();
        let mut growths = 0;
        for value in 0..50_000u32 {
            layout.push(value as usize % 100, value).unwrap();
            if layout.capacity() > capacity {
                growths += 1;
                let ratio = layout.capacity() as f64 / capacity as f64;
                assert!(
                    (ratio - growth).abs() < 0.01,
                    "growth {growth}: {capacity} -> {} slots",
                    layout.capacity()
                );
                // The root was at its 0.75 bound before growing.
                let floor = 0.75 / growth - 0.01;
                assert!(layout.density() >= floor, "density {}", layout.density());
                capacity = layout.capacity();
            }
        }
        layout.validate().unwrap();
        assert!(growths >= 5, "growth {growth}: only {growths} growths");
    }
}

#[test]
fn a_growth_factor_outside_one_to_four_is_refused() {
    for bad in [1.0, 0.5, 4.5, f64::NAN, f64::INFINITY] {
        let config = PmaOptions::default().growth(bad);
        let result = PackedRuns::<u32>::with_config(DegreeProportional::default(), config);
        assert!(
            matches!(result, Err(PmaError::InvalidConfig(_))),
            "growth {bad}"
        );
    }
}

#[test]
fn runs_past_the_capacity_limit_are_refused_and_nothing_changes() {
    let mut layout: PackedRuns<u32> = PackedRuns::new();
    layout.add_runs(3).unwrap();
    layout.push(1, 7).unwrap();
    let before = (layout.capacity(), layout.memory_bytes());
    let error = layout.add_runs(MAX_CAPACITY).unwrap_err();
    assert!(
        matches!(error, PmaError::CapacityLimit { limit, .. } if limit == MAX_CAPACITY),
        "{error}"
    );
    assert!(error.to_string().contains("slots"), "{error}");
    assert_eq!(layout.run_count(), 3);
    assert_eq!((layout.capacity(), layout.memory_bytes()), before);
    assert_eq!(layout.run(1), Some(&[7][..]));
    layout.validate().unwrap();
}
