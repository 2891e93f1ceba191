//! Every real data file parses with the exact counts its README gives, with
//! 1 and 2 threads and with block sizes so small that block boundaries fall
//! on almost every line.

use dyngraph_core::{Graph, OutNeighbors};
use dyngraph_loader::{EdgeStream, LoadOptions, load_csr, load_edge_stream};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

const SHARED_DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data");
const BUNDLED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");

/// The path of a shared data file, or `None` (with a note) when absent.
fn shared(name: &str) -> Option<PathBuf> {
    let path = Path::new(SHARED_DATA).join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipping: {} not found", path.display());
        None
    }
}

/// Thread counts and block sizes every file is read with. 7 bytes is
/// shorter than any line, so every line starts its own block.
const SETTINGS: [(usize, usize); 5] = [(1, 1 << 20), (2, 1 << 20), (1, 7), (2, 7), (2, 4096)];

/// Loads `path` under every setting, checks that all agree, and returns one.
fn load_everywhere(path: &Path, base: &LoadOptions) -> EdgeStream {
    let mut first: Option<EdgeStream> = None;
    for (threads, block_size) in SETTINGS {
        let options = base.clone().threads(threads).block_size(block_size);
        let stream = load_edge_stream(path, &options)
            .unwrap_or_else(|e| panic!("{threads} threads, {block_size} B blocks: {e}"));
        let csr = load_csr(path, &options).unwrap();
        assert_eq!(csr.edge_count(), stream.len() as u64);
        assert_eq!(csr.vertex_count(), stream.vertex_count());
        match &first {
            None => first = Some(stream),
            Some(first) => assert_eq!(
                first, &stream,
                "{threads} threads, {block_size} B blocks differ"
            ),
        }
    }
    first.unwrap()
}

fn distinct_pairs(stream: &EdgeStream) -> usize {
    stream.edges().collect::<HashSet<_>>().len()
}

fn max_id(stream: &EdgeStream) -> u32 {
    stream
        .src()
        .iter()
        .chain(stream.dst())
        .copied()
        .max()
        .unwrap()
}

fn check_college_msg(path: &Path) {
    let stream = load_everywhere(path, &LoadOptions::default());
    assert_eq!(stream.len(), 59_835);
    assert_eq!(max_id(&stream), 1_899);
    assert_eq!(stream.vertex_count(), 1_900);
    assert!(!stream.src().contains(&0) && !stream.dst().contains(&0));
    assert_eq!(distinct_pairs(&stream), 20_296);
    let timestamps = stream
        .timestamps()
        .expect("SNAP .txt third column is a timestamp");
    assert!(
        timestamps.windows(2).all(|w| w[0] <= w[1]),
        "non-decreasing"
    );
    // First data line of the file: `1 2 1082040961`.
    assert_eq!(
        (stream.src()[0], stream.dst()[0], timestamps[0]),
        (1, 2, 1082040961)
    );

    let deduped = load_everywhere(path, &LoadOptions::default().dedupe(true));
    assert_eq!(deduped.len(), 20_296);
    let csr = load_csr(path, &LoadOptions::default().dedupe(true)).unwrap();
    assert_eq!(csr.edge_count(), 20_296);
}

#[test]
fn bundled_college_msg() {
    check_college_msg(Path::new(BUNDLED));
}

#[test]
fn shared_college_msg() {
    if let Some(path) = shared("CollegeMsg.txt") {
        check_college_msg(&path);
    }
}

#[test]
fn email_eu_core_part() {
    let Some(path) = shared("email-Eu-core-temporal-part.txt") else {
        return;
    };
    let stream = load_everywhere(&path, &LoadOptions::default());
    assert_eq!(stream.len(), 83_083);
    assert_eq!(max_id(&stream), 816);
    // The README counts 4 places where the timestamp goes backwards, but
    // that figure compares the CRLF-terminated lines as strings (e.g.
    // "8061\r" > "19403\r"); numerically the timestamps never decrease
    // (checked independently with a Python one-liner).
    let timestamps = stream.timestamps().unwrap();
    let backwards = timestamps.windows(2).filter(|w| w[1] < w[0]).count();
    assert_eq!(backwards, 0, "places where the timestamp goes backwards");
    assert_eq!(timestamps[..3], [0, 2797, 3304]);
}

#[test]
fn dnc_temporal() {
    let Some(path) = shared("dnc-temporal.txt") else {
        return;
    };
    let stream = load_everywhere(&path, &LoadOptions::default());
    assert_eq!(stream.len(), 39_264);
    assert_eq!(max_id(&stream), 1_891);
    let self_loops = stream.edges().filter(|e| e.src == e.dst).count();
    assert_eq!(self_loops, 1_843);
    assert_eq!(distinct_pairs(&stream), 5_598);

    let without_loops = load_everywhere(&path, &LoadOptions::default().drop_self_loops(true));
    assert_eq!(without_loops.len(), 39_264 - 1_843);
    assert!(without_loops.edges().all(|e| e.src != e.dst));
}

#[test]
fn sx_mathoverflow_split() {
    let (Some(b30_base), Some(b30_dynamic), Some(b10_base)) = (
        shared("sx-mathoverflow/b30/base.wel"),
        shared("sx-mathoverflow/b30/dynamic.wel"),
        shared("sx-mathoverflow/b10/base.wel"),
    ) else {
        return;
    };
    let base = load_everywhere(&b30_base, &LoadOptions::default());
    let dynamic = load_everywhere(&b30_dynamic, &LoadOptions::default());
    let b10 = load_everywhere(&b10_base, &LoadOptions::default());
    assert_eq!(base.len(), 112_792);
    assert_eq!(dynamic.len(), 263_180);
    assert_eq!(b10.len(), 37_598);
    assert_eq!(
        b10.edge(b10.len() - 1),
        dyngraph_core::Edge::new(88_580, 21_349)
    );
    assert_eq!(b10.weights().unwrap()[b10.len() - 1], 114.0);
    assert_eq!(b10.vertex_count(), 88_581);

    let all: Vec<_> = base.edges().chain(dynamic.edges()).collect();
    assert_eq!(all.len(), 375_972);
    let pairs: HashSet<_> = all.iter().copied().collect();
    assert_eq!(pairs.len(), 375_972, "no duplicate pair");
    assert!(
        all.iter()
            .all(|e| e.src != e.dst && e.src >= 1 && e.dst >= 1)
    );
    assert!(
        all.iter().all(|e| pairs.contains(&e.reversed())),
        "both directions"
    );
    assert_eq!(all.iter().map(|e| e.src.max(e.dst)).max(), Some(88_580));
    for stream in [&base, &dynamic] {
        let weights = stream.weights().unwrap();
        // The README says [0, 256); the files hold 1..=256 (checked
        // independently), so that is what is asserted.
        assert!(
            weights
                .iter()
                .all(|&w| (1.0..=256.0).contains(&w) && w.fract() == 0.0)
        );
    }

    // The sorted CSR's lists are the stream's, sorted (first 200 vertices).
    let csr = load_csr(&b30_base, &LoadOptions::default().sort(true)).unwrap();
    for v in 0..csr.vertex_count() as u32 {
        let expected: Vec<u32> = {
            let mut n: Vec<u32> = base.edges().filter(|e| e.src == v).map(|e| e.dst).collect();
            n.sort_unstable();
            n
        };
        if csr.out_degree(v) > 0 || !expected.is_empty() {
            assert_eq!(csr.out_neighbors(v).collect::<Vec<_>>(), expected);
        }
        if v > 200 {
            break;
        }
    }
}
