//! Fuzzes the Matrix Market header (banner, comments, size line) and the
//! field promise: any bytes after the banner keyword give `Ok` or an
//! `Err`, never a panic; the stream and CSR readers agree; an accepted
//! `integer` file holds only whole-number weights, a `pattern` file none.
#![no_main]

use dyngraph_loader::{Format, LoadOptions, parse_csr, parse_edge_stream};
use libfuzzer_sys::fuzz_target;

const BANNERS: [&[u8]; 6] = [
    b"%%MatrixMarket matrix coordinate integer general\n",
    b"%%MatrixMarket matrix coordinate real general\n",
    b"%%MatrixMarket matrix coordinate pattern general\n",
    b"%%MatrixMarket matrix coordinate integer symmetric\n",
    b"%%MatrixMarket matrix coordinate real symmetric\n",
    b"%%MatrixMarket",
];

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    // A fixed banner and a fuzzed size line and body, or the banner words
    // fuzzed too.
    let banner = BANNERS[usize::from(control) % BANNERS.len()];
    let mut text = banner.to_vec();
    text.extend_from_slice(rest);
    let options = LoadOptions::default()
        .format(Format::MatrixMarket)
        .block_size(1 + usize::from(control >> 4))
        .max_vertices(1 << 16);
    let stream = parse_edge_stream(&text, &options);
    let csr = parse_csr(&text, &options);
    assert_eq!(stream.is_ok(), csr.is_ok(), "{stream:?} vs {csr:?}");
    if let (Ok(stream), Ok(csr)) = (stream, csr) {
        assert_eq!(stream.len(), csr.targets().len());
        let header = String::from_utf8_lossy(&text[..text.len().min(64)]).to_ascii_lowercase();
        if header.contains(" integer ") {
            if let Some(weights) = stream.weights() {
                assert!(
                    weights.iter().all(|w| w.is_infinite() || w.fract() == 0.0),
                    "{weights:?}"
                );
            }
        }
        if header.starts_with("%%matrixmarket matrix coordinate pattern ") {
            assert!(stream.weights().is_none());
        }
    }
});
