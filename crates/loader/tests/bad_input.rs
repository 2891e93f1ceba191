//! The bad-input corpus in `tests/bad/`: one test per file, each asserting
//! the specific error and its line and byte column. Every file is read with
//! 1 and 2 threads and with block sizes down to one byte, through both the
//! stream and the CSR reader, and must fail the same way each time.

use dyngraph_core::{Error, ParseErrorKind};
use dyngraph_loader::{IdMode, LoadOptions, load_csr, load_edge_stream};
use std::path::PathBuf;

fn corpus(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bad")).join(name)
}

/// `(line, column, kind)` of the parse error reading `name`, the same under
/// every thread count, block size and output.
fn parse_error_with(name: &str, base: LoadOptions) -> (u64, u64, ParseErrorKind) {
    let path = corpus(name);
    let mut seen = None;
    for threads in [1, 2] {
        for block_size in [1 << 20, 1, 5] {
            let options = base.clone().threads(threads).block_size(block_size);
            let errors = [
                load_edge_stream(&path, &options).expect_err("stream must fail"),
                load_csr(&path, &options).expect_err("csr must fail"),
            ];
            for error in errors {
                let Error::Parse { location, kind } = &error else {
                    panic!("{name}: expected a parse error, got {error}");
                };
                assert_eq!(location.path.as_deref(), Some(path.as_path()));
                // The message names the file, line and column.
                let message = error.to_string();
                let prefix = format!("{}:{}:{}: ", path.display(), location.line, location.column);
                assert!(message.starts_with(&prefix), "{message}");
                let found = (location.line, location.column, kind.clone());
                match &seen {
                    None => seen = Some(found),
                    Some(seen) => assert_eq!(
                        seen, &found,
                        "{name}: {threads} threads, {block_size} B blocks"
                    ),
                }
            }
        }
    }
    seen.unwrap()
}

fn parse_error(name: &str) -> (u64, u64, ParseErrorKind) {
    parse_error_with(name, LoadOptions::default())
}

#[test]
fn non_numeric_token() {
    let (line, column, kind) = parse_error("non_numeric.el");
    assert_eq!((line, column), (3, 3));
    assert_eq!(
        kind,
        ParseErrorKind::NonNumeric {
            token: "x".into(),
            expected: "destination vertex id"
        }
    );
}

#[test]
fn missing_field() {
    assert_eq!(
        parse_error("missing_field.el"),
        (
            2,
            2,
            ParseErrorKind::MissingField {
                expected: "destination vertex id"
            }
        )
    );
}

#[test]
fn extra_field_in_a_two_column_format() {
    assert_eq!(
        parse_error("extra_field.el"),
        (2, 5, ParseErrorKind::ExtraField { token: "5".into() })
    );
}

#[test]
fn extra_field_after_tabs() {
    assert_eq!(
        parse_error("extra_after_tabs.el"),
        (
            2,
            7,
            ParseErrorKind::ExtraField {
                token: "extra".into()
            }
        )
    );
}

#[test]
fn zero_id_in_matrix_market() {
    assert_eq!(parse_error("zero_id.mtx"), (5, 1, ParseErrorKind::ZeroId));
}

#[test]
fn negative_id() {
    assert_eq!(
        parse_error("negative_id.txt"),
        (2, 1, ParseErrorKind::NegativeId)
    );
}

#[test]
fn id_too_large_for_u32() {
    // Read as dense vertex ids, an id past 32 bits is an error; the
    // default (automatic) id mode reads the file as 64-bit labels instead
    // (tests/ids.rs).
    assert_eq!(
        parse_error_with("id_too_large.el", LoadOptions::default().ids(IdMode::Dense)),
        (
            2,
            3,
            ParseErrorKind::IdTooLarge {
                token: "4294967296".into()
            }
        )
    );
}

#[test]
fn fewer_entries_than_declared() {
    // Reported just past the end of the file.
    assert_eq!(
        parse_error("entries_fewer.mtx"),
        (
            5,
            1,
            ParseErrorKind::EntryCountMismatch {
                declared: 3,
                found: 2
            }
        )
    );
}

#[test]
fn more_entries_than_declared() {
    // Reported at the first entry past the declared count (comments and
    // blank lines do not count as entries).
    assert_eq!(
        parse_error("entries_more.mtx"),
        (
            5,
            1,
            ParseErrorKind::EntryCountMismatch {
                declared: 1,
                found: 2
            }
        )
    );
}

#[test]
fn file_ends_mid_line() {
    assert_eq!(
        parse_error("cut_mid_line.el"),
        (
            2,
            2,
            ParseErrorKind::UnexpectedEof {
                context: "an edge line"
            }
        )
    );
}

#[test]
fn file_ends_mid_header() {
    assert_eq!(
        parse_error("cut_mid_header.mtx"),
        (
            3,
            1,
            ParseErrorKind::UnexpectedEof {
                context: "the Matrix Market header"
            }
        )
    );
}

#[test]
fn empty_file() {
    assert_eq!(parse_error("empty.txt"), (1, 1, ParseErrorKind::EmptyInput));
}

#[test]
fn whitespace_only_file() {
    assert_eq!(
        parse_error("whitespace_only.txt"),
        (1, 1, ParseErrorKind::EmptyInput)
    );
}

#[test]
fn header_that_is_not_matrix_market() {
    assert_eq!(
        parse_error("not_matrix_market.mtx"),
        (1, 1, ParseErrorKind::NotMatrixMarket)
    );
}

fn unsupported(kind: &str) -> ParseErrorKind {
    ParseErrorKind::UnsupportedMatrixMarket { kind: kind.into() }
}

#[test]
fn matrix_market_array_is_rejected_by_name() {
    assert_eq!(parse_error("array.mtx"), (1, 23, unsupported("array")));
}

#[test]
fn matrix_market_complex_is_rejected_by_name() {
    assert_eq!(parse_error("complex.mtx"), (1, 34, unsupported("complex")));
}

#[test]
fn matrix_market_hermitian_is_rejected_by_name() {
    assert_eq!(
        parse_error("hermitian.mtx"),
        (1, 39, unsupported("hermitian"))
    );
}

#[test]
fn matrix_market_skew_symmetric_is_rejected_by_name() {
    assert_eq!(
        parse_error("skew_symmetric.mtx"),
        (1, 39, unsupported("skew-symmetric"))
    );
}

#[test]
fn banner_missing_a_field() {
    assert_eq!(
        parse_error("banner_missing_field.mtx"),
        (
            1,
            33,
            ParseErrorKind::MissingField {
                expected: "field (pattern, integer or real)"
            }
        )
    );
}

#[test]
fn size_line_not_numeric() {
    assert_eq!(
        parse_error("size_non_numeric.mtx"),
        (
            2,
            3,
            ParseErrorKind::NonNumeric {
                token: "three".into(),
                expected: "number of columns"
            }
        )
    );
}

#[test]
fn pattern_entry_with_a_value() {
    assert_eq!(
        parse_error("pattern_with_value.mtx"),
        (3, 5, ParseErrorKind::ExtraField { token: "5".into() })
    );
}

/// Issue 20: an `integer` file with the value `1.5` loaded without a word.
#[test]
fn matrix_market_integer_field_with_a_real_value_is_refused_at_its_line_and_column() {
    assert_eq!(
        parse_error("integer_field_with_real_value.mtx"),
        (
            5,
            5,
            ParseErrorKind::ValueNotInteger {
                token: "1.5".into()
            }
        )
    );
    let path = corpus("integer_field_with_real_value.mtx");
    let message = load_csr(&path, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        format!(
            "{}:5:5: value 1.5 is not an integer, but the Matrix Market header declares the \
             field 'integer' (fix the value, or declare the field 'real')",
            path.display()
        )
    );
}

#[test]
fn id_beyond_the_size_line() {
    assert_eq!(
        parse_error("id_beyond_size.mtx"),
        (4, 1, ParseErrorKind::IdBeyondSize { id: 4, size: 3 })
    );
}

#[test]
fn weight_not_a_number() {
    assert_eq!(
        parse_error("bad_weight.wel"),
        (
            2,
            5,
            ParseErrorKind::NonNumeric {
                token: "1,5".into(),
                expected: "weight"
            }
        )
    );
}

#[test]
fn negative_timestamp() {
    assert_eq!(
        parse_error("negative_timestamp.txt"),
        (
            2,
            5,
            ParseErrorKind::NegativeValue {
                token: "-5".into(),
                expected: "timestamp"
            }
        )
    );
}

#[test]
fn snap_lines_must_keep_the_first_lines_column_count() {
    assert_eq!(
        parse_error("inconsistent_columns.txt"),
        (
            2,
            4,
            ParseErrorKind::MissingField {
                expected: "timestamp"
            }
        )
    );
}

#[test]
fn absurd_id_is_refused_by_the_vertex_guard() {
    // Dense ids: one absurd id would size the graph. (Automatic ids
    // relabel the sparse ids instead: tests/ids.rs.)
    let (line, column, kind) = parse_error_with(
        "absurd_id.el",
        LoadOptions::default()
            .max_vertices(1_000_000)
            .ids(IdMode::Dense),
    );
    assert_eq!((line, column), (2, 3));
    let ParseErrorKind::Other(message) = kind else {
        panic!("expected the vertex-limit message, got {kind:?}");
    };
    assert!(
        message.contains("250000000") && message.contains("1000000"),
        "{message}"
    );
    // The default guard (2^28 vertices) admits it as a dense id; kept as
    // it is by default, so sparse an id is refused with the mode to use.
    let path = corpus("absurd_id.el");
    let dense = LoadOptions::default().ids(IdMode::Dense);
    assert!(load_edge_stream(&path, &dense).is_ok());
    let error = load_edge_stream(&path, &LoadOptions::default()).unwrap_err();
    assert!(
        matches!(
            error,
            dyngraph_core::Error::SparseIds {
                largest: 250_000_000,
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn truncated_gzip_is_an_io_error() {
    let path = corpus("truncated.el.gz");
    for error in [
        load_edge_stream(&path, &LoadOptions::default()).unwrap_err(),
        load_csr(&path, &LoadOptions::default()).unwrap_err(),
    ] {
        let Error::Io {
            path: error_path, ..
        } = &error
        else {
            panic!("expected an I/O error, got {error}");
        };
        assert_eq!(error_path, &path);
    }
}

#[test]
fn missing_file_is_an_io_error() {
    let path = corpus("no-such-file.el");
    assert!(matches!(
        load_edge_stream(&path, &LoadOptions::default()),
        Err(Error::Io { .. })
    ));
}

/// Every file in the corpus has a test above (a new file without one fails
/// here).
#[test]
fn every_corpus_file_is_tested() {
    let source = include_str!("bad_input.rs");
    for entry in std::fs::read_dir(corpus("")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            source.contains(&format!("\"{name}\"")),
            "{name} has no test"
        );
    }
}

/// A line past the 1 MiB bound deep in a regular file (not the first line,
/// not a stream) is refused at its own line, whatever block it starts in
/// and however many threads read it (issue 35: bounded input).
#[test]
fn an_overlong_line_deep_in_a_file_is_refused_at_its_line() {
    let dir = std::env::temp_dir().join(format!("dyngraph-overlong-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("overlong.el");
    let mut text = "3 4\n".repeat(5_000);
    text.push_str("1 ");
    text.push_str(&"7".repeat(2 << 20));
    text.push('\n');
    text.push_str(&"5 6\n".repeat(100));
    std::fs::write(&path, text).unwrap();
    for threads in [1, 2] {
        for block_size in [1 << 20, 64 << 10] {
            let options = LoadOptions::default()
                .threads(threads)
                .block_size(block_size);
            let error = load_edge_stream(&path, &options).expect_err("an overlong line");
            let Error::Parse { location, kind } = &error else {
                panic!("{error}");
            };
            assert!(
                matches!(kind, ParseErrorKind::LineTooLong { .. }),
                "{threads} threads, {block_size} B blocks: {error}"
            );
            assert_eq!(location.line, 5_001, "{error}");
            assert!(error.to_string().contains("overlong.el:5001:"), "{error}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
