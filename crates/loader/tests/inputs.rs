//! The inputs people have (issue 25) and the input defects of the
//! reliability trial (issue 26, defects 2, 3, 4 and 6), each pinned by a
//! test named after it: CSV and TSV, header rows, byte-order marks, binary
//! files, weights where timestamps are read, NaN and negative weights,
//! pipes, and original ids that survive a load, a `Csr`, a binary file and
//! a text file written back.

use dyngraph_core::{
    Csr, CsrOptions, Error, Graph, IdKind, Keyed, OriginalId, OutNeighbors, ParseErrorKind,
};
use dyngraph_loader::{
    Delimiter, EdgeStream, Format, IdMode, LoadOptions, ThirdColumn, load_csr, load_edge_stream,
    parse_csr, parse_edge_stream, read_csr_file, write_csr_file, write_edges,
};
use proptest::prelude::*;
use std::io::Write;
use std::path::PathBuf;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dyngraph-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn college_msg() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/CollegeMsg.txt"
    ))
}

/// The location and kind of a parse error.
fn parse_failure(result: dyngraph_core::Result<EdgeStream>) -> (u64, u64, ParseErrorKind) {
    match result {
        Err(Error::Parse { location, kind }) => (location.line, location.column, kind),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

fn pairs(stream: &EdgeStream) -> Vec<(u32, u32)> {
    stream.edges().map(|e| (e.src, e.dst)).collect()
}

/// Issue 26, defect 2: `\xef\xbb\xbf0 1` loaded 3 vertices.
#[test]
fn a_utf8_byte_order_mark_is_skipped() {
    let text = b"\xef\xbb\xbf0 1\n1 0\n";
    let stream = parse_edge_stream(text, &LoadOptions::default()).unwrap();
    assert_eq!(stream.vertex_count(), 2);
    assert_eq!(pairs(&stream), [(0, 1), (1, 0)]);
    let path = temp("bom.el");
    std::fs::write(&path, text).unwrap();
    assert_eq!(
        load_csr(&path, &LoadOptions::default())
            .unwrap()
            .vertex_count(),
        2
    );
    // Before a header and a delimited file too.
    let csv = b"\xef\xbb\xbfsrc,dst\n0,1\n";
    let options = LoadOptions::default().format(Format::Csv).header(true);
    assert_eq!(pairs(&parse_edge_stream(csv, &options).unwrap()), [(0, 1)]);
}

/// Issue 26, defect 3: `src dst` before numeric lines loaded as an edge
/// between two string vertices, and every id became a string.
#[test]
fn a_header_line_is_never_an_edge() {
    let text = b"src dst\n0 1\n1 2\n";
    let (line, column, kind) = parse_failure(parse_edge_stream(text, &LoadOptions::default()));
    assert_eq!((line, column), (1, 1));
    assert!(matches!(kind, ParseErrorKind::Header { .. }), "{kind:?}");
    let message = parse_edge_stream(text, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("LoadOptions::header(true)"), "{message}");
    assert!(parse_csr(text, &LoadOptions::default()).is_err());
    let skipped = parse_edge_stream(text, &LoadOptions::default().header(true)).unwrap();
    assert_eq!(skipped.vertex_count(), 3);
    assert_eq!(pairs(&skipped), [(0, 1), (1, 2)]);
    assert!(skipped.ids().is_none());
    // Line numbers count the header: an error after it names its line.
    let bad = b"# a comment\nfrom to\n0 1\n1 x\n";
    let (line, column, _) =
        parse_failure(parse_edge_stream(bad, &LoadOptions::default().header(true)));
    assert_eq!((line, column), (4, 3));
    // A file of names has no header to find: its first line is an edge.
    let names = parse_edge_stream(b"alice bob\nbob carol\n", &LoadOptions::default()).unwrap();
    assert_eq!(names.len(), 2);
}

/// Issue 26, defect 4: `convert r.el o.el` wrote `0 1`/`2 3` for
/// `1 2`/`3 4294967296`. A text file written from a relabelled stream
/// holds the original ids; Matrix Market, which cannot, refuses.
#[test]
fn text_outputs_keep_the_original_ids() {
    let text = b"1 2\n3 4294967296\n";
    let auto = LoadOptions::default().ids(IdMode::Auto);
    let stream = parse_edge_stream(text, &auto).unwrap();
    assert!(stream.ids().is_some());
    for (name, format) in [("o.el", Format::EdgeList), ("o.csv", Format::Csv)] {
        let path = temp(name);
        write_edges(&path, &stream, format).unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        let expected = if format == Format::Csv {
            "1,2\n3,4294967296\n"
        } else {
            "1 2\n3 4294967296\n"
        };
        assert_eq!(written, expected);
        assert_eq!(load_edge_stream(&path, &auto).unwrap(), stream);
    }
    let error = write_edges(temp("o.mtx"), &stream, Format::MatrixMarket).unwrap_err();
    assert!(error.to_string().contains("cannot be kept"), "{error}");
    // Names with blanks go to delimited files only, quoted where needed.
    let names = b"\"Smith, Ann\",Bob Ray\nBob Ray,carol\n";
    let options = LoadOptions::default().format(Format::Csv);
    let stream = parse_edge_stream(names, &options).unwrap();
    let path = temp("names.csv");
    write_edges(&path, &stream, Format::Csv).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "\"Smith, Ann\",Bob Ray\nBob Ray,carol\n"
    );
    let error = write_edges(temp("names.el"), &stream, Format::EdgeList).unwrap_err();
    assert!(error.to_string().contains(".csv or .tsv"), "{error}");
    let path = temp("names.tsv");
    write_edges(&path, &stream, Format::Csv).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "Smith, Ann\tBob Ray\nBob Ray\tcarol\n"
    );
    assert_eq!(
        load_edge_stream(&path, &LoadOptions::default()).unwrap(),
        stream
    );
}

/// Issue 26, defect 6: binary garbage said "line ends before the
/// destination vertex id".
#[test]
fn binary_garbage_is_not_a_text_graph_file() {
    let mut garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    garbage[0] = b'7';
    let not_text = |result: dyngraph_core::Result<EdgeStream>| {
        let error = result.unwrap_err();
        assert!(
            error.to_string().contains("not a text graph file"),
            "{error}"
        );
        assert!(
            matches!(
                error,
                Error::Parse {
                    kind: ParseErrorKind::NotText { .. },
                    ..
                }
            ),
            "{error:#?}"
        );
    };
    not_text(parse_edge_stream(&garbage, &LoadOptions::default()));
    // Gzip of garbage.
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&garbage).unwrap();
    let gzipped = encoder.finish().unwrap();
    let path = temp("garbage.el.gz");
    std::fs::write(&path, &gzipped).unwrap();
    not_text(load_edge_stream(&path, &LoadOptions::default()));
    // Control bytes without a NUL, on the line that fails.
    not_text(parse_edge_stream(
        b"0 1\n2\x01\x02 3\n",
        &LoadOptions::default(),
    ));
    let (line, column, _) =
        parse_failure(parse_edge_stream(b"0 1\n2\x013\n", &LoadOptions::default()));
    assert_eq!((line, column), (2, 2));
}

/// Issue 26, defect 6: an empty file gave no hint.
#[test]
fn an_empty_file_says_what_a_graph_file_holds() {
    for text in [&b""[..], b"\n \t\n"] {
        let message = parse_edge_stream(text, &LoadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(message.contains("one edge per line"), "{message}");
    }
}

/// Issue 26, defect 6: `-5` as a timestamp was a "non-numeric token".
#[test]
fn a_negative_timestamp_is_called_negative() {
    let (line, column, kind) = parse_failure(parse_edge_stream(
        b"0 1 5\n1 2 -5\n",
        &LoadOptions::default(),
    ));
    assert_eq!((line, column), (2, 5));
    assert_eq!(
        kind.to_string(),
        "timestamp -5 is negative; a timestamp is a whole number from 0 up"
    );
}

/// Issue 25: `1 2 0.5` in a `.txt` file said "expected timestamp" without
/// naming the option that reads a weight.
#[test]
fn a_weight_column_read_as_timestamps_names_the_option() {
    let path = temp("weighted.txt");
    std::fs::write(&path, "1 2 0.5\n2 3 1.5\n").unwrap();
    let error = load_edge_stream(&path, &LoadOptions::default()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("LoadOptions::third_column(ThirdColumn::Weight)"),
        "{error}"
    );
    let weighted = load_edge_stream(
        &path,
        &LoadOptions::default().third_column(ThirdColumn::Weight),
    )
    .unwrap();
    assert_eq!(weighted.weights(), Some(&[0.5, 1.5][..]));
}

/// Issue 26, defect 6: a NaN or −1 weight failed SSSP without naming the
/// file and line. NaN is refused always; a negative weight where asked.
#[test]
fn nan_and_negative_weights_are_refused_at_their_line() {
    let path = temp("weights.wel");
    std::fs::write(&path, "0 1 2\n1 2 NaN\n").unwrap();
    let error = load_edge_stream(&path, &LoadOptions::default()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}:2:5: weight NaN is not a number; every weight must be one",
            path.display()
        )
    );
    assert!(load_csr(&path, &LoadOptions::default()).is_err());
    std::fs::write(&path, "0 1 2\n1 2 -1\n").unwrap();
    assert!(load_edge_stream(&path, &LoadOptions::default()).is_ok());
    let strict = LoadOptions::default().nonnegative_weights(true);
    for error in [
        load_edge_stream(&path, &strict).unwrap_err(),
        load_csr(&path, &strict).map(|_| ()).unwrap_err(),
    ] {
        assert_eq!(
            error.to_string(),
            format!(
                "{}:2:5: weight -1 is negative, but shortest paths need weights of 0 or more",
                path.display()
            )
        );
    }
    // Names and delimited files alike.
    let csv = b"a,b,1\nb,c,nan\n";
    let options = LoadOptions::default()
        .format(Format::Csv)
        .third_column(ThirdColumn::Weight);
    let (line, _, kind) = parse_failure(parse_edge_stream(csv, &options));
    assert_eq!(line, 2);
    assert!(matches!(kind, ParseErrorKind::NanWeight { .. }));
}

/// Issue 26, defect 6: a pipe (`<(zcat x.gz)`, `/dev/stdin`) was opened
/// twice and read as empty. It is read once, whole.
#[test]
fn a_pipe_is_read_once() {
    let fifo = temp("pipe.el");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|status| status.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, "0 1\n1 2\n2 0\n").unwrap())
    };
    let stream = load_edge_stream(&fifo, &LoadOptions::default()).unwrap();
    writer.join().unwrap();
    assert_eq!(pairs(&stream), [(0, 1), (1, 2), (2, 0)]);
    assert!(
        !dyngraph_loader::is_csr_file(&fifo).unwrap(),
        "a pipe is not probed"
    );
}

/// Issue 25: `alice,bob` read with blanks between fields did not say what
/// separates them.
#[test]
fn a_comma_separated_line_read_as_blanks_says_what_separates_fields() {
    let options = LoadOptions::default().format(Format::EdgeList);
    let message = parse_edge_stream(b"alice,bob\n", &options)
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "<input>:1:10: line ends before the destination vertex id: fields are separated by \
         blanks (spaces or tabs), and this line has none but a ','; for ,-separated values \
         name the file .csv, or set the delimiter (LoadOptions::delimiter, `--delimiter ','` \
         on the command line)"
    );
    // Without a final newline, too; and read as CSV it loads.
    assert!(
        parse_edge_stream(b"alice,bob", &options)
            .unwrap_err()
            .to_string()
            .contains("separated by blanks")
    );
    let csv = parse_edge_stream(b"alice,bob\n", &options.delimiter(Delimiter::Comma)).unwrap();
    assert_eq!(csv.ids().map(|ids| ids.len()), Some(2));
}

#[test]
fn csv_and_tsv_files_detect_their_delimiter_and_skip_a_header_on_request() {
    let path = temp("people.csv");
    std::fs::write(&path, "source;target;time\n1;2;10\n2;3;11\n").unwrap();
    let error = load_edge_stream(&path, &LoadOptions::default()).unwrap_err();
    assert!(matches!(
        error,
        Error::Parse {
            kind: ParseErrorKind::Header { .. },
            ..
        }
    ));
    let stream = load_edge_stream(&path, &LoadOptions::default().header(true)).unwrap();
    assert_eq!(pairs(&stream), [(1, 2), (2, 3)]);
    assert_eq!(stream.timestamps(), Some(&[10, 11][..]));
    let tsv = temp("names.tsv");
    std::fs::write(&tsv, "Ann Lee\tBob Ray\nBob Ray\tAnn Lee\n").unwrap();
    let stream = load_edge_stream(&tsv, &LoadOptions::default()).unwrap();
    let ids = stream.ids().unwrap();
    assert_eq!(ids.vertex_of("Ann Lee"), Some(0));
    assert_eq!(ids.len(), 2);
    // Matrix Market fields are blanks only.
    let mtx = b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n";
    assert!(parse_edge_stream(mtx, &LoadOptions::default().delimiter(Delimiter::Comma)).is_err());
}

/// Issue 25: `Csr::from_edges(&stream)` dropped the map; the binary file
/// did not store it.
#[test]
fn original_ids_flow_into_a_csr_a_keyed_store_and_a_binary_file() {
    let stream = parse_edge_stream(
        b"alice bob\nbob carol\ncarol alice\n",
        &LoadOptions::default(),
    )
    .unwrap();
    let csr = Csr::from_edges(&stream, CsrOptions::default()).unwrap();
    assert_eq!(csr.ids(), stream.ids());
    let keyed = Keyed::<Csr>::from_edges(&stream, CsrOptions::default()).unwrap();
    let bob = keyed.vertex("bob").unwrap();
    let after: Vec<_> = keyed
        .out_neighbors(bob)
        .map(|v| keyed.key(v).unwrap())
        .collect();
    assert_eq!(after, [OriginalId::String(b"carol")]);
    assert_eq!(keyed.ids().kind(), IdKind::Strings);
    let path = temp("names.dgcsr");
    write_csr_file(&path, &csr).unwrap();
    assert_eq!(read_csr_file(&path).unwrap(), csr);
    assert_eq!(
        load_edge_stream(&path, &LoadOptions::default())
            .unwrap()
            .ids(),
        stream.ids()
    );
}

#[test]
fn the_bundled_sample_reads_the_same_as_csv_tsv_and_back() {
    let stream = load_edge_stream(college_msg(), &LoadOptions::default()).unwrap();
    for name in ["college.csv", "college.tsv.gz"] {
        let path = temp(name);
        write_edges(&path, &stream, Format::Csv).unwrap();
        assert_eq!(
            load_edge_stream(&path, &LoadOptions::default()).unwrap(),
            stream
        );
        let csr = load_csr(&path, &LoadOptions::default()).unwrap();
        assert_eq!(
            csr,
            load_csr(college_msg(), &LoadOptions::default()).unwrap()
        );
    }
}

/// The real files, as CSV with a header row and as TSV, read back as
/// they were: the same edges, values and vertex counts.
#[test]
fn the_real_files_read_the_same_as_delimited_files_with_a_header() {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"));
    for name in [
        "email-Eu-core-temporal-part.txt",
        "dnc-temporal.txt",
        "sx-mathoverflow/b30/dynamic.wel",
    ] {
        let path = root.join(name);
        if !path.exists() {
            eprintln!("skipping: {} not found", path.display());
            continue;
        }
        let stream = load_edge_stream(&path, &LoadOptions::default()).unwrap();
        let csv = temp("real.csv");
        write_edges(&csv, &stream, Format::Csv).unwrap();
        let text = std::fs::read(&csv).unwrap();
        std::fs::write(&csv, [&b"source,target,value\n"[..], &text].concat()).unwrap();
        let mut options = LoadOptions::default().header(true);
        if stream.weights().is_some() {
            options = options.third_column(ThirdColumn::Weight);
        }
        let mut back = load_edge_stream(&csv, &options).unwrap();
        back.extend_vertex_count(stream.vertex_count());
        assert_eq!(back, stream, "{name}");
    }
}

/// Lines of `src dst [third]` with the fields joined by `separator`, some
/// padded with spaces (a delimiter's fields are trimmed), comments between.
/// Ids are spelled `{prefix}{id}` (names with a prefix).
fn joined(
    edges: &[(u32, u32, Option<u32>)],
    prefix: &str,
    separator: &str,
    padded: bool,
) -> String {
    let mut text = String::from("# a comment\n");
    for (i, &(src, dst, third)) in edges.iter().enumerate() {
        let pad = if padded && i % 2 == 1 { " " } else { "" };
        let mut line = format!("{prefix}{src}{pad}{separator}{pad}{prefix}{dst}");
        if let Some(third) = third {
            line.push_str(&format!("{separator}{third}"));
        }
        text.push_str(&line);
        text.push_str(if i % 3 == 2 { "\r\n" } else { "\n" });
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A delimited file reads as its blank-separated twin: the same edges,
    /// values and ids, the delimiter detected or chosen, in any block size
    /// and for both readers, numeric ids or names.
    #[test]
    fn delimited_files_read_as_their_blank_separated_twins(
        edges in prop::collection::vec((0u32..40, 0u32..40, 0u32..1000), 1..60),
        third in any::<bool>(),
        names in any::<bool>(),
        block_size in prop::sample::select(vec![1usize, 16, 1 << 20]),
        separator in prop::sample::select(vec![",", ";", "\t"]),
        padded in any::<bool>(),
    ) {
        let edges: Vec<_> = edges
            .into_iter()
            .map(|(s, d, t)| (s, d, third.then_some(t)))
            .collect();
        let prefix = if names { "v" } else { "" };
        let blanks = joined(&edges, prefix, " ", false);
        let delimited = joined(&edges, prefix, separator, padded);
        let options = LoadOptions::default().block_size(block_size);
        let expected = parse_edge_stream(blanks.as_bytes(), &options.clone().format(Format::Snap)).unwrap();
        let detected = parse_edge_stream(delimited.as_bytes(), &options.clone().format(Format::Csv)).unwrap();
        prop_assert_eq!(&detected, &expected);
        let delimiter = match separator {
            "," => Delimiter::Comma,
            ";" => Delimiter::Semicolon,
            _ => Delimiter::Tab,
        };
        let chosen = options.clone().format(Format::Snap).delimiter(delimiter);
        prop_assert_eq!(&parse_edge_stream(delimited.as_bytes(), &chosen).unwrap(), &expected);
        let csr = parse_csr(delimited.as_bytes(), &options.format(Format::Csv)).unwrap();
        prop_assert_eq!(csr.edge_count(), expected.len() as u64);
    }
}
