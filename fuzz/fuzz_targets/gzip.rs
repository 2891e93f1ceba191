//! Fuzzes the gzip path: arbitrary bytes behind the gzip magic give `Ok`
//! or an `Err`, never a panic, and an I/O error names the compressed byte
//! where the data broke off; real text compressed and cut anywhere reads
//! exactly as the uncut text (when whole) or fails with such an error.
#![no_main]

use dyngraph_core::Error;
use dyngraph_loader::{Format, LoadOptions, parse_edge_stream};
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fn check_io_message(error: &Error) {
    if let Error::Io { .. } = error {
        let message = error.to_string();
        assert!(message.contains("compressed byte"), "{message}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let options = LoadOptions::default()
        .format(Format::EdgeList)
        .block_size(1 + usize::from(control >> 4))
        .max_vertices(1 << 16);
    if control & 1 == 0 {
        // Raw bytes behind the magic: a fake or damaged gzip file.
        let mut bytes = vec![0x1f, 0x8b];
        bytes.extend_from_slice(rest);
        if let Err(error) = parse_edge_stream(&bytes, &options) {
            check_io_message(&error);
        }
        return;
    }
    // Real text, compressed (in one or two members), cut at a point the
    // input picks.
    let (cut, text) = match rest.split_first() {
        Some((&cut, text)) => (cut, text),
        None => return,
    };
    if text.starts_with(&[0x1f, 0x8b]) || text.starts_with(&dyngraph_loader::CSR_FILE_MAGIC) {
        // Not text: the raw mode covers bytes behind the gzip magic.
        return;
    }
    let mut compressed = Vec::new();
    let halves = if control & 2 != 0 {
        text.split_at(text.len() / 2)
    } else {
        (text, &[][..])
    };
    for part in [halves.0, halves.1] {
        if part.is_empty() && !compressed.is_empty() {
            continue;
        }
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(part).unwrap();
        compressed.extend(encoder.finish().unwrap());
    }
    let plain = parse_edge_stream(text, &options);
    let whole = parse_edge_stream(&compressed, &options);
    match (&plain, &whole) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (
            Err(Error::Parse {
                kind: a,
                location: la,
            }),
            Err(Error::Parse {
                kind: b,
                location: lb,
            }),
        ) => {
            assert_eq!((a, la.line, la.column), (b, lb.line, lb.column));
        }
        // Any other refusal (ids too sparse to keep, a binary file's
        // magic at the start) must be the same for the compressed text.
        (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
        _ => panic!("plain {plain:?} but compressed {whole:?}"),
    }
    let at = usize::from(cut) * compressed.len() / 256;
    if at < compressed.len() {
        match parse_edge_stream(&compressed[..at], &options) {
            Err(error) => check_io_message(&error),
            // Cut exactly between two members: the first member's text.
            Ok(_) => assert!(control & 2 != 0, "a cut gzip stream was accepted"),
        }
    }
});
