//! A replay of a binary edge stream reads the mapped columns in place: at
//! a billion edges the copy was 8.6 of the replay's 16 GiB.

use dyngraph_loader::Order;
use dyngraph_loader::{LoadOptions, load_edge_stream, map_edge_stream, write_edge_stream_file};
use dyngraph_replay::{ReplaySpec, prepare_stream, run, run_reading};
use dyngraph_stores::StoreKind;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/CollegeMsg.txt")
}

/// The bundled sample written as a binary edge stream in a fresh directory.
fn binary_sample(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("dyngraph-mapped-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("college.dges");
    let edges = load_edge_stream(sample(), &LoadOptions::default()).unwrap();
    write_edge_stream_file(&path, &edges).unwrap();
    (dir, path)
}

fn mapped(path: &PathBuf) -> dyngraph_core::Result<dyngraph_loader::EdgeStream> {
    // SAFETY: a file this test wrote and does not touch again while mapped.
    unsafe { map_edge_stream(path, &LoadOptions::default()) }
}

#[test]
fn replay_of_a_binary_edge_stream_reads_its_columns_in_place() {
    let (dir, path) = binary_sample("in-place");
    let mut spec = ReplaySpec::new(&path);
    let stream = prepare_stream(&spec, mapped(&path).unwrap()).unwrap();
    assert!(stream.timestamps().is_some());
    assert!(stream.is_mapped(), "every column, the timestamps too");

    // A reordering gathers into owned columns, in the new order.
    spec.order = Order::Time;
    let by_time = prepare_stream(&spec, mapped(&path).unwrap()).unwrap();
    assert!(!by_time.is_mapped());
    let times = by_time.timestamps().unwrap();
    assert!(times.windows(2).all(|pair| pair[0] <= pair[1]));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_mapped_replay_reports_what_the_text_replay_reports() {
    let (dir, path) = binary_sample("same-report");
    let stop = AtomicBool::new(false);
    let settings = |input: PathBuf| {
        let mut spec = ReplaySpec::new(input);
        spec.stores = vec![StoreKind::Vcsr, StoreKind::Csrpp];
        spec.replay.batch = 1000;
        spec.verify = true;
        spec
    };
    let text = run(&settings(sample()), &mut (), &stop).unwrap();
    let binary = run_reading(
        &settings(path.clone()),
        |spec| mapped(&spec.input),
        &mut (),
        &stop,
    )
    .unwrap();
    assert!(binary.verify_failures.is_empty());
    for (a, b) in text.stores.iter().zip(&binary.stores) {
        assert_eq!((a.edges, a.vertices), (b.edges, b.vertices));
    }
    std::fs::remove_dir_all(dir).unwrap();
}
