//! A real temporal edge stream (the bundled CollegeMsg sample, 59,835
//! messages in time order) through both layouts, against plain models.

use dyngraph_pma::{DegreeProportional, Even, GapPolicy, HistoryAdaptive, PackedRuns, PackedSet};
use std::collections::BTreeSet;

fn college_msg() -> Vec<(u32, u32)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
    let text = std::fs::read_to_string(path).expect("the bundled sample is in the repo");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut fields = l
                .split_whitespace()
                .map(|f| f.parse::<u32>().expect("numeric field"));
            (fields.next().expect("src"), fields.next().expect("dst"))
        })
        .collect()
}

#[test]
fn college_msg_into_runs_matches_adjacency_lists() {
    let edges = college_msg();
    assert_eq!(edges.len(), 59_835);
    let vertices = edges.iter().map(|&(s, d)| s.max(d)).max().unwrap() as usize + 1;
    let mut model = vec![Vec::new(); vertices];
    for &(s, d) in &edges {
        model[s as usize].push(d);
    }
    let policies: [Box<dyn GapPolicy>; 3] = [
        Box::new(Even),
        Box::<DegreeProportional>::default(),
        Box::<HistoryAdaptive>::default(),
    ];
    let mut moves = Vec::new();
    for policy in policies {
        let name = policy.name().to_string();
        let mut runs = PackedRuns::<u32, _>::with_policy(policy);
        runs.add_runs(vertices).expect("within MAX_CAPACITY");
        for &(s, d) in &edges {
            runs.push(s as usize, d).unwrap();
        }
        runs.validate().unwrap();
        for (v, expected) in model.iter().enumerate() {
            assert_eq!(runs.run(v).unwrap(), &expected[..], "{name}: vertex {v}");
        }
        let stats = runs.stats();
        eprintln!(
            "CollegeMsg {name}: {:.2} moves/insert, {} rebalances, {} grows, density {:.2}",
            stats.moves_per_insert(),
            stats.rebalances(),
            stats.grows,
            runs.density()
        );
        moves.push((name, stats.elements_moved));
    }
    // On a real skewed stream, gaps that follow degree move fewer elements
    // than gaps shared evenly per run (the paper's observation).
    let of = |name: &str| {
        moves
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, m)| m)
            .unwrap()
    };
    assert!(of("degree") < of("even"), "{moves:?}");
}

#[test]
fn college_msg_into_the_set_matches_btreeset() {
    let edges = college_msg();
    let mut set = PackedSet::new();
    let mut model = BTreeSet::new();
    for &e in &edges {
        assert_eq!(set.insert(e), model.insert(e));
    }
    set.validate().unwrap();
    assert!(set.iter().eq(model.iter().copied()));
    // Vertex 10's out-neighbours as a key range, PCSR style.
    let out: Vec<_> = set.range((10, 0)..(11, 0)).collect();
    let expected: Vec<_> = model.range((10, 0)..(11, 0)).copied().collect();
    assert_eq!(out, expected);
    // Delete in arrival order: everything goes, the array shrinks back.
    for e in &edges {
        set.remove(e);
    }
    set.validate().unwrap();
    assert!(set.is_empty());
}
