//! Regression: `from_runs` over few elements and many runs builds an array
//! of `elements + runs` slots (a free slot per run), one slot above the
//! shrink floor (`min_capacity + runs`), and the validator rejected that as
//! "below the shrink threshold". Found by Vcsr's snapshot model test (a
//! vertex id far beyond the others, then `repack`).

use dyngraph_pma::{DegreeProportional, Even, PackedRuns, PmaOptions};

#[test]
fn from_runs_with_few_elements_over_many_runs_validates() {
    // 65 elements in a handful of runs, then 536 empty runs.
    let mut runs: Vec<Vec<u32>> = (0..5)
        .map(|r| (0..13).map(|i| r * 100 + i).collect())
        .collect();
    runs.extend(std::iter::repeat_n(Vec::new(), 536));
    let layout = PackedRuns::from_runs(
        DegreeProportional::default(),
        PmaOptions::default(),
        runs.clone(),
    )
    .unwrap();
    layout.validate().unwrap();
    for (r, run) in runs.iter().enumerate() {
        assert_eq!(layout.run(r).unwrap(), &run[..], "run {r}");
    }

    // Growing one run afterwards keeps the layout valid too.
    let mut layout = PackedRuns::from_runs(Even, PmaOptions::default(), runs).unwrap();
    for value in 0..200 {
        layout.push(540, value).unwrap();
        layout.validate().unwrap();
    }
}
