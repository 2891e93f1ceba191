//! Fuzzes the text parser: any bytes, any format, tiny blocks, must give
//! `Ok` or an `Err`, never a panic, and the stream and CSR readers must
//! agree on which.
#![no_main]

use dyngraph_loader::{Format, LoadOptions, ThirdColumn, parse_csr, parse_edge_stream};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&control, text)) = data.split_first() else {
        return;
    };
    let format = match control & 3 {
        0 => Format::MatrixMarket,
        1 => Format::Snap,
        2 => Format::EdgeList,
        _ => Format::WeightedEdgeList,
    };
    let mut options = LoadOptions::default()
        .format(format)
        .block_size(1 + usize::from(control >> 4))
        .symmetrize(control & 4 != 0)
        // Keep allocations small: the fuzzer is after panics, not memory.
        .max_vertices(1 << 16);
    if control & 8 != 0 {
        options = options.third_column(ThirdColumn::Weight);
    }
    let stream = parse_edge_stream(text, &options);
    let csr = parse_csr(text, &options);
    assert_eq!(stream.is_ok(), csr.is_ok());
    if let (Ok(stream), Ok(csr)) = (stream, csr) {
        assert_eq!(stream.len(), csr.targets().len());
    }
});
