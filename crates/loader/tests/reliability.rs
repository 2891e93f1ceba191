//! Regression tests for issue 20, the reliability sweep, each named after
//! the defect it pins: the binary `Csr` file as input, error texts printed
//! once with the path and a remedy, Matrix Market field types, atomic
//! writes.

use dyngraph_core::StoreConfig;
use dyngraph_core::{
    Csr, CsrOptions, Error, Graph, InEdges, InNeighbors, OutNeighbors, ParseErrorKind, Semantics,
    WeightedEdge,
};
use dyngraph_loader::{
    CSR_FILE_MAGIC, CsrFile, EdgeStream, Format, LoadOptions, ThirdColumn, is_csr_file, load_csr,
    load_edge_stream, parse_csr, parse_edge_stream, read_csr_file, write_csr_file,
    write_csr_file_to, write_edges,
};
use std::io::Write;
use std::path::{Path, PathBuf};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dyngraph-reliability-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn college_msg() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/CollegeMsg.txt"
    ))
}

/// What `anyhow`'s `{:#}` prints: each error of the chain once, joined.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(source) = next {
        text.push_str(": ");
        text.push_str(&source.to_string());
        next = source.source();
    }
    text
}

/// No part of `text` between `: ` separators appears twice.
fn assert_no_repeated_part(text: &str) {
    let parts: Vec<&str> = text.split(": ").collect();
    for (i, part) in parts.iter().enumerate() {
        assert!(
            !parts[i + 1..].contains(part),
            "{part:?} is printed twice in {text:?}"
        );
    }
}

fn weighted_sample() -> Csr {
    let edges = [
        WeightedEdge::new(0, 1, 0.5),
        WeightedEdge::new(0, 2, 1.5),
        WeightedEdge::new(2, 0, -3.0),
        WeightedEdge::new(2, 2, 7.0),
        WeightedEdge::new(0, 1, 2.5),
    ];
    Csr::from_edges(&edges, CsrOptions::default().in_edges(true).vertex_count(5)).unwrap()
}

// ---- item 1: the binary Csr file is accepted wherever a graph file is ----

/// Issue 20: `dyngraph load g.dgcsr` parsed the binary file as text and
/// failed at `1:1` on the magic bytes.
#[test]
fn binary_csr_file_is_accepted_by_load_csr_and_load_edge_stream_whatever_its_extension() {
    let text = load_csr(college_msg(), &LoadOptions::default().in_edges(true)).unwrap();
    for name in [
        "college.dgcsr",
        "college.txt",
        "college.el",
        "college-no-extension",
    ] {
        let path = temp(name);
        write_csr_file(&path, &text).unwrap();
        assert!(is_csr_file(&path).unwrap());
        // The same CSR, in-edges included, as from the text.
        let csr = load_csr(&path, &LoadOptions::default().in_edges(true)).unwrap();
        assert_eq!(csr, text, "{name}");
        // Without `transpose`, no in-edges, as from text.
        let plain = load_csr(&path, &LoadOptions::default()).unwrap();
        assert!(!plain.has_in_edges());
        assert_eq!(plain.targets(), text.targets());
        // The stream: every edge grouped by source, every vertex counted.
        let stream = load_edge_stream(&path, &LoadOptions::default()).unwrap();
        assert_eq!(stream.len(), 59_835);
        assert_eq!(stream.vertex_count(), 1_900);
        assert_eq!(stream.to_csr(&CsrOptions::default()).unwrap(), plain);
    }
    assert!(!is_csr_file(college_msg()).unwrap());
}

#[test]
fn binary_csr_file_applies_the_load_options() {
    let csr = weighted_sample();
    let path = temp("options.dgcsr");
    write_csr_file(&path, &csr).unwrap();

    // Weights kept, isolated vertices 3 and 4 counted.
    let stream = load_edge_stream(&path, &LoadOptions::default()).unwrap();
    assert_eq!(stream.vertex_count(), 5);
    assert_eq!(stream.src(), [0, 0, 0, 2, 2]);
    assert_eq!(stream.dst(), [1, 2, 1, 0, 2]);
    assert_eq!(stream.weights().unwrap(), [0.5, 1.5, 2.5, -3.0, 7.0]);

    let options = LoadOptions::default()
        .symmetrize(true)
        .drop_self_loops(true)
        .dedupe(true);
    let stream = load_edge_stream(&path, &options).unwrap();
    let pairs: Vec<(u32, u32)> = stream.edges().map(|e| (e.src, e.dst)).collect();
    assert_eq!(pairs, [(0, 1), (1, 0), (0, 2), (2, 0)]);

    let deduped = load_csr(&path, &LoadOptions::default().dedupe(true).in_edges(true)).unwrap();
    assert_eq!(deduped.semantics(), Semantics::Simple);
    assert_eq!(deduped.edge_count(), 4);
    assert_eq!(
        deduped
            .in_edges()
            .unwrap()
            .in_neighbors(0)
            .collect::<Vec<_>>(),
        [2]
    );
    assert_eq!(deduped.vertex_count(), 5);

    let unweighted = load_csr(
        &path,
        &LoadOptions::default().third_column(ThirdColumn::Ignore),
    )
    .unwrap();
    assert!(unweighted.weights().is_none());
    let error = load_csr(
        &path,
        &LoadOptions::default().third_column(ThirdColumn::Timestamp),
    )
    .unwrap_err();
    assert!(error.to_string().contains("no timestamps"), "{error}");

    // The vertex limit applies, before anything is built.
    let error = load_csr(&path, &LoadOptions::default().max_vertices(4)).unwrap_err();
    assert!(matches!(error, Error::InvalidCsrFile { .. }), "{error}");
    assert!(error.to_string().contains("5 vertices"), "{error}");
}

#[test]
fn binary_csr_file_is_accepted_from_memory_and_gzip_compressed() {
    let csr = weighted_sample();
    let mut bytes = Vec::new();
    write_csr_file_to(&mut bytes, csr.view()).unwrap();
    assert!(bytes.starts_with(&CSR_FILE_MAGIC));
    assert_eq!(
        parse_csr(&bytes, &LoadOptions::default().in_edges(true)).unwrap(),
        csr
    );
    // At an address that is not 8-byte aligned too.
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&bytes);
    assert_eq!(
        parse_csr(&shifted[1..], &LoadOptions::default().in_edges(true)).unwrap(),
        csr
    );
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&bytes).unwrap();
    let gzip = encoder.finish().unwrap();
    let path = temp("options.dgcsr.gz");
    std::fs::write(&path, &gzip).unwrap();
    assert_eq!(
        load_csr(&path, &LoadOptions::default().in_edges(true)).unwrap(),
        csr
    );
    assert_eq!(
        parse_edge_stream(&gzip, &LoadOptions::default())
            .unwrap()
            .len(),
        5
    );
}

/// Issue 20: a corrupt or truncated binary file must be refused with the
/// reason, by the loader's entry points as by `convert`.
#[test]
fn truncated_or_corrupted_binary_csr_file_is_refused_with_the_reason() {
    let csr = weighted_sample();
    let mut bytes = Vec::new();
    write_csr_file_to(&mut bytes, csr.view()).unwrap();
    let path = temp("broken.dgcsr");

    std::fs::write(&path, &bytes[..bytes.len() - 8]).unwrap();
    for error in [
        load_csr(&path, &LoadOptions::default()).unwrap_err(),
        load_edge_stream(&path, &LoadOptions::default()).unwrap_err(),
    ] {
        assert!(matches!(error, Error::InvalidCsrFile { .. }), "{error}");
        let message = error.to_string();
        assert!(
            message.starts_with(&format!(
                "{}: not a valid binary Csr file: ",
                path.display()
            )),
            "{message}"
        );
        assert!(message.contains("truncated; write it again"), "{message}");
    }

    std::fs::write(&path, &bytes[..40]).unwrap();
    let error = load_csr(&path, &LoadOptions::default()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("shorter than the 88-byte header"),
        "{error}"
    );

    let mut corrupted = bytes.clone();
    let last = corrupted.len() - 1;
    corrupted[last] ^= 1;
    std::fs::write(&path, &corrupted).unwrap();
    let error = load_edge_stream(&path, &LoadOptions::default()).unwrap_err();
    assert!(
        error.to_string().contains("checksum mismatch") && error.to_string().contains("corrupted"),
        "{error}"
    );

    // Every truncation of the file is refused, through both readers, and
    // never read as text.
    for len in CSR_FILE_MAGIC.len()..bytes.len() {
        let prefix = &bytes[..len];
        assert!(
            matches!(
                parse_csr(prefix, &LoadOptions::default()),
                Err(Error::InvalidCsrFile { .. })
            ),
            "{len}"
        );
        assert!(
            matches!(
                parse_edge_stream(prefix, &LoadOptions::default()),
                Err(Error::InvalidCsrFile { .. })
            ),
            "{len}"
        );
    }
}

#[test]
fn binary_csr_file_maps_without_copying() {
    let csr = load_csr(college_msg(), &LoadOptions::default().in_edges(true)).unwrap();
    let path = temp("mapped.dgcsr");
    write_csr_file(&path, &csr).unwrap();
    // SAFETY: this test's own file; nothing writes it while it is mapped.
    let file = unsafe { CsrFile::open(&path) }.unwrap();
    let view = file.view().unwrap();
    assert_eq!(view, csr.view());
    assert_eq!(
        view.out_neighbors(1).collect::<Vec<_>>(),
        csr.out_neighbors(1).collect::<Vec<_>>()
    );
}

// ---- item 2: every error prints its chain once, with the path and a remedy ----

/// Issue 20: `nonexist.el: No such file or directory (os error 2): No such
/// file or directory (os error 2)`.
#[test]
fn missing_file_error_prints_its_source_once() {
    let path = temp("nonexist.el");
    for error in [
        load_edge_stream(&path, &LoadOptions::default()).unwrap_err(),
        load_csr(&path, &LoadOptions::default()).unwrap_err(),
        read_csr_file(&path).unwrap_err(),
    ] {
        let text = chain(&error);
        assert_eq!(
            text,
            format!(
                "{}: No such file or directory (os error 2) (check the path)",
                path.display()
            )
        );
        assert_no_repeated_part(&text);
    }
}

/// Issue 20: `trunc.el.gz: unexpected end of file: unexpected end of file`,
/// with no word of where the data broke off.
#[test]
fn truncated_gzip_error_prints_once_with_the_compressed_offset() {
    let text: String = (0..20_000).map(|i| format!("{i} {}\n", i + 1)).collect();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(text.as_bytes()).unwrap();
    let gzip = encoder.finish().unwrap();
    let path = temp("trunc.el.gz");
    let cut = gzip.len() / 2;
    std::fs::write(&path, &gzip[..cut]).unwrap();
    let error = load_edge_stream(&path, &LoadOptions::default()).unwrap_err();
    let Error::Io { source, .. } = &error else {
        panic!("expected an I/O error, got {error}");
    };
    assert_eq!(source.kind(), std::io::ErrorKind::UnexpectedEof);
    let message = chain(&error);
    let expected = format!(
        "{}: gzip data ends early, at compressed byte {cut} of {cut} (after ",
        path.display()
    );
    assert!(message.starts_with(&expected), "{message}");
    assert!(
        message.ends_with("bytes of text): the file is truncated; download or compress it again"),
        "{message}"
    );
    assert_no_repeated_part(&message);
}

#[test]
fn corrupt_gzip_error_gives_the_compressed_offset() {
    let text: String = (0..20_000).map(|i| format!("{i} {}\n", i + 1)).collect();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(text.as_bytes()).unwrap();
    let mut gzip = encoder.finish().unwrap();
    // A fake gzip: the magic, then garbage.
    let fake = [0x1f, 0x8b, b'n', b'o', b't', b' ', b'g', b'z', b'i', b'p'];
    let error = parse_edge_stream(&fake, &LoadOptions::default()).unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with("<input>: gzip data is corrupt at compressed byte "),
        "{message}"
    );
    assert!(message.contains(" of 10 "), "{message}");
    // A damaged stored checksum, at the end: the whole stream was read.
    let len = gzip.len();
    gzip[len - 8] ^= 0xff;
    let error = parse_edge_stream(&gzip, &LoadOptions::default()).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains(&format!("at compressed byte {len} of {len}"))
            || message.contains(&format!("of {len} (after {} bytes", text.len())),
        "{message}"
    );
    assert!(
        message.ends_with("download or compress it again"),
        "{message}"
    );
}

/// Issue 20: a directory given as input read `No such device (os error
/// 19)`.
#[test]
fn directory_as_input_says_is_a_directory() {
    let dir = temp("a-directory");
    std::fs::create_dir_all(&dir).unwrap();
    let expected = format!(
        "{}: is a directory, not a graph file (give the path of a file, not a directory)",
        dir.display()
    );
    for error in [
        load_edge_stream(&dir, &LoadOptions::default()).unwrap_err(),
        load_csr(&dir, &LoadOptions::default()).unwrap_err(),
        read_csr_file(&dir).unwrap_err(),
        is_csr_file(&dir).unwrap_err(),
        // SAFETY: a directory is refused before anything is mapped.
        unsafe { CsrFile::open(&dir) }.unwrap_err(),
    ] {
        assert_eq!(chain(&error), expected);
    }
}

// ---- item 3: Matrix Market field types ----

fn mtx(field: &str, body: &str) -> Vec<u8> {
    format!("%%MatrixMarket matrix coordinate {field} general\n3 3 2\n{body}").into_bytes()
}

/// Parse errors of `text` through both readers, every thread count and
/// block size, which must agree: `(line, column, kind)`.
fn parse_error_everywhere(text: &[u8]) -> (u64, u64, ParseErrorKind) {
    let mut seen = None;
    for threads in [1, 2] {
        for block_size in [1 << 20, 1, 3, 7] {
            let options = LoadOptions::default()
                .format(Format::MatrixMarket)
                .threads(threads)
                .block_size(block_size);
            for error in [
                parse_edge_stream(text, &options).unwrap_err(),
                parse_csr(text, &options).unwrap_err(),
            ] {
                let Error::Parse { location, kind } = error else {
                    panic!("expected a parse error, got {error}");
                };
                let found = (location.line, location.column, kind);
                match &seen {
                    None => seen = Some(found),
                    Some(seen) => assert_eq!(seen, &found),
                }
            }
        }
    }
    seen.unwrap()
}

#[test]
fn matrix_market_integer_field_refuses_every_non_integer_value() {
    for (value, column) in [
        ("1.5", 5),
        ("2.0", 5),
        ("1e3", 5),
        ("nan", 5),
        ("inf", 5),
        ("+-1", 5),
    ] {
        let text = mtx("integer", &format!("1 2 7\n2 3 {value}\n"));
        let (line, found_column, kind) = parse_error_everywhere(&text);
        assert_eq!((line, found_column), (4, column), "{value}");
        assert!(
            matches!(&kind, ParseErrorKind::ValueNotInteger { token } if token == value),
            "{value}: {kind:?}"
        );
    }
    // Whole numbers of any sign and length are integers.
    let text = mtx("integer", "1 2 -7\n2 3 +0012\n");
    let stream = parse_edge_stream(&text, &LoadOptions::default()).unwrap();
    assert_eq!(stream.weights().unwrap(), [-7.0, 12.0]);
    // Asked to ignore the value, the file's promise is not checked.
    let text = mtx("integer", "1 2 7\n2 3 1.5\n");
    let options = LoadOptions::default().third_column(ThirdColumn::Ignore);
    assert_eq!(parse_edge_stream(&text, &options).unwrap().len(), 2);
}

#[test]
fn matrix_market_real_field_accepts_integers() {
    let text = mtx("real", "1 2 7\n2 3 -1.5e1\n");
    let stream = parse_edge_stream(&text, &LoadOptions::default()).unwrap();
    assert_eq!(stream.weights().unwrap(), [7.0, -15.0]);
}

#[test]
fn matrix_market_pattern_field_refuses_a_value_column() {
    let text = mtx("pattern", "1 2\n2 3 4\n");
    assert_eq!(
        parse_error_everywhere(&text),
        (4, 5, ParseErrorKind::ExtraField { token: "4".into() })
    );
}

// ---- item 4: nothing half-written under a final name ----

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".tmp"))
        .collect()
}

#[test]
fn writers_replace_the_previous_file_whole_and_leave_no_temporary() {
    let dir = temp("atomic-writers");
    std::fs::create_dir_all(&dir).unwrap();
    let stream = EdgeStream::from_weighted_edges(&[
        WeightedEdge::new(0, 1, 0.5),
        WeightedEdge::new(1, 2, 2.0),
    ]);
    for name in ["g.wel", "g.wel.gz", "g.mtx"] {
        let path = dir.join(name);
        std::fs::write(&path, "previous").unwrap();
        let format = Format::from_path(&path).unwrap();
        write_edges(&path, &stream, format).unwrap();
        assert_eq!(
            load_edge_stream(&path, &LoadOptions::default()).unwrap(),
            stream
        );
    }
    let path = dir.join("g.dgcsr");
    std::fs::write(&path, "previous").unwrap();
    write_csr_file(&path, &weighted_sample()).unwrap();
    assert_eq!(read_csr_file(&path).unwrap(), weighted_sample());
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
}

/// A write that fails part-way (here: the destination is in a directory
/// that does not exist, so it fails before any byte) leaves the
/// destination untouched; the mid-write case is the CLI's size-limit test.
#[test]
fn a_failed_write_leaves_the_previous_file() {
    let error = write_csr_file("/nonexistent/dir/g.dgcsr", &weighted_sample()).unwrap_err();
    assert_eq!(
        chain(&error),
        "/nonexistent/dir/g.dgcsr: cannot create a file there: the directory /nonexistent/dir \
         does not exist (check the path)"
    );
}

#[test]
fn a_csr_file_mapped_while_it_is_rewritten_keeps_its_contents() {
    // Atomic replacement means a reader's map of the previous file stays
    // valid: the new file is a new inode.
    let path = temp("remapped.dgcsr");
    let first = weighted_sample();
    write_csr_file(&path, &first).unwrap();
    // SAFETY: nothing writes this file in place: the rewrite below renames
    // a new file over its name, which leaves the mapped inode as it was.
    let file = unsafe { CsrFile::open(&path) }.unwrap();
    let second = Csr::from_edges(&[WeightedEdge::new(1, 0, 9.0)], CsrOptions::default()).unwrap();
    write_csr_file(&path, &second).unwrap();
    assert_eq!(file.view().unwrap(), first.view());
    assert_eq!(read_csr_file(&path).unwrap(), second);
}
