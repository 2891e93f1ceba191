use super::layout::{CHECKSUM_RANGE, HEADER_BYTES, checksum};
use super::*;
use crate::{IdMode, ValueKind, load_csr, load_edge_stream, parse_edge_stream};
use dyngraph_core::{Edge, WeightedEdge};

const COLLEGE_MSG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "dyngraph-edge-stream-{}-{name}.dges",
        std::process::id()
    ))
}

/// Maps `path` (a file of this test, unchanged while mapped).
fn mapped(path: &Path) -> Result<EdgeStream> {
    // SAFETY: the test's own file, not modified while the stream lives.
    unsafe { map_edge_stream(path, &LoadOptions::default()) }
}

#[test]
fn college_msg_round_trips_through_a_binary_stream_in_place() {
    let text = load_edge_stream(COLLEGE_MSG, &LoadOptions::default()).unwrap();
    assert_eq!(text.len(), 59_835);
    let path = temp_path("college");
    write_edge_stream_file(&path, &text).unwrap();
    assert!(is_edge_stream_file(&path).unwrap());
    assert!(!is_edge_stream_file(COLLEGE_MSG).unwrap());

    let map = mapped(&path).unwrap();
    assert!(map.is_mapped(), "read in place, not copied");
    assert_eq!(map, text);
    assert_eq!(map.timestamps().unwrap()[0], 1_082_040_961);
    let copied = load_edge_stream(&path, &LoadOptions::default()).unwrap();
    assert!(!copied.is_mapped());
    assert_eq!(copied, text);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        parse_edge_stream(&bytes, &LoadOptions::default()).unwrap(),
        text
    );
    let options = LoadOptions::default().in_edges(true);
    assert_eq!(
        load_csr(&path, &options).unwrap(),
        load_csr(COLLEGE_MSG, &options).unwrap()
    );
    drop(map);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn weights_ids_and_empty_streams_round_trip() {
    let weighted = EdgeStream::from_weighted_edges(&[
        WeightedEdge::new(0, 3, 0.5),
        WeightedEdge::new(3, 1, 2.0),
        WeightedEdge::new(2, 2, 7.25),
    ]);
    let named = parse_edge_stream(
        b"alice bob\nbob carol\ncarol alice\n",
        &LoadOptions::default().ids(IdMode::Auto),
    )
    .unwrap();
    assert!(named.ids().is_some());
    for (name, stream) in [
        ("weighted", weighted),
        ("named", named),
        ("empty", EdgeStream::new()),
    ] {
        let path = temp_path(name);
        write_edge_stream_file(&path, &stream).unwrap();
        let back = mapped(&path).unwrap();
        assert_eq!(back, stream, "{name}");
        assert_eq!(back.ids(), stream.ids(), "{name}");
        drop(back);
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn a_stream_written_in_chunks_is_the_stream_written_whole() {
    let stream = crate::Generator::kronecker(10, 8)
        .weighted(true)
        .generate()
        .unwrap();
    let (whole, chunked) = (temp_path("whole"), temp_path("chunked"));
    write_edge_stream_file(&whole, &stream).unwrap();
    let mut writer = EdgeStreamWriter::create(
        &chunked,
        stream.vertex_count(),
        stream.len(),
        ValueKind::Weight,
        None,
    )
    .unwrap();
    for start in (0..stream.len()).step_by(1000) {
        writer
            .append(&stream, start..(start + 1000).min(stream.len()))
            .unwrap();
    }
    assert_eq!(writer.written(), stream.len() as u64);
    writer.finish().unwrap();
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&chunked).unwrap()
    );
    std::fs::remove_file(&whole).unwrap();
    std::fs::remove_file(&chunked).unwrap();
}

#[test]
fn an_unfinished_or_refused_writer_leaves_nothing_under_the_name() {
    let path = temp_path("unfinished");
    let stream = EdgeStream::from_edges(&[Edge::new(0, 1), Edge::new(1, 2)]);
    let mut writer = EdgeStreamWriter::create(&path, 3, 3, ValueKind::None, None).unwrap();
    writer.append(&stream, 0..2).unwrap();
    let refused = writer.finish().unwrap_err();
    assert!(
        refused.to_string().contains("2 edges appended, but 3"),
        "{refused}"
    );
    assert!(!path.exists());

    let mut writer = EdgeStreamWriter::create(&path, 2, 2, ValueKind::None, None).unwrap();
    let error = writer.append(&stream, 0..2).unwrap_err();
    assert!(
        error.to_string().contains("vertex id 2 is not below"),
        "{error}"
    );
    let error = writer
        .append(&EdgeStream::with_value_kind(ValueKind::Weight), 0..0)
        .unwrap_err();
    assert!(error.to_string().contains("Weight values"), "{error}");
    drop(writer);
    assert!(!path.exists());
    let leftovers = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|entry| entry.ok())
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.contains("unfinished") && name.contains(&std::process::id().to_string())
        })
        .count();
    assert_eq!(leftovers, 0, "no temporary file left behind");
}

/// A valid file's bytes, for the corruption tests: 5 edges over 6
/// vertices with timestamps.
fn valid_bytes() -> Vec<u8> {
    let stream = parse_edge_stream(
        b"0 1 10\n1 2 11\n2 3 12\n3 4 13\n4 5 14\n",
        &LoadOptions::default(),
    )
    .unwrap();
    let path = temp_path("valid");
    write_edge_stream_file(&path, &stream).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    bytes
}

fn reseal(bytes: &mut [u8]) {
    let sum = u64::from(checksum(bytes));
    bytes[CHECKSUM_RANGE].copy_from_slice(&sum.to_ne_bytes());
}

/// The error reading `bytes` from a file (mapped and copied alike), with
/// its offset.
fn refusal(name: &str, bytes: &[u8]) -> (u64, String) {
    let path = temp_path(name);
    std::fs::write(&path, bytes).unwrap();
    let mapped = mapped(&path).unwrap_err();
    let loaded = load_edge_stream(&path, &LoadOptions::default()).unwrap_err();
    let csr = load_csr(&path, &LoadOptions::default()).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(mapped.to_string(), loaded.to_string());
    assert_eq!(mapped.to_string(), csr.to_string());
    let message = mapped.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    let Error::InvalidEdgeStreamFile { offset, .. } = mapped else {
        panic!("{name}: {mapped:?}");
    };
    (offset, message)
}

#[test]
fn every_corruption_is_refused_with_its_byte_offset() {
    let valid = valid_bytes();
    let u64_at =
        |bytes: &[u8], at: usize| u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap());
    let put_u32 = |bytes: &mut Vec<u8>, at: usize, value: u32| {
        bytes[at..at + 4].copy_from_slice(&value.to_ne_bytes())
    };
    let put_u64 = |bytes: &mut Vec<u8>, at: usize, value: u64| {
        bytes[at..at + 8].copy_from_slice(&value.to_ne_bytes())
    };

    // Truncated: in the header, and in each section.
    for len in [8, HEADER_BYTES - 1, HEADER_BYTES + 3, valid.len() - 8] {
        let (offset, message) = refusal("truncated", &valid[..len]);
        assert_eq!(offset, len as u64);
        assert!(message.contains("truncated"), "{message}");
    }
    // Bad checksum: one flipped bit in the destinations.
    let mut flipped = valid.clone();
    flipped[HEADER_BYTES + 24] ^= 1;
    let (offset, message) = refusal("checksum", &flipped);
    assert_eq!(offset, CHECKSUM_RANGE.start as u64);
    assert!(message.contains("checksum mismatch"), "{message}");
    // Wrong magic (read as a binary stream on purpose).
    let mut foreign = valid.clone();
    foreign[5] = b'X';
    let path = temp_path("magic");
    std::fs::write(&path, &foreign).unwrap();
    let error = mapped(&path).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert!(
        error.to_string().contains("magic bytes DYNGEDGS"),
        "{error}"
    );
    // Wrong version, byte order, flags, id width.
    for (at, value, expected) in [
        (8, 2, "version 2"),
        (12, 0x0403_0201, "other byte order"),
        (16, 3, "unknown flags"),
        (20, 8, "ids of 8 bytes"),
    ] {
        let mut bytes = valid.clone();
        put_u32(&mut bytes, at, value);
        reseal(&mut bytes);
        let (offset, message) = refusal("header", &bytes);
        assert_eq!(offset, at as u64, "{message}");
        assert!(message.contains(expected), "{message}");
    }
    // Counts that lie: more edges than the sections hold.
    let mut bytes = valid.clone();
    put_u64(&mut bytes, 32, 6);
    reseal(&mut bytes);
    let (offset, message) = refusal("edges", &bytes);
    assert_eq!(offset, 48);
    assert!(message.contains("the counts lie"), "{message}");
    // ... with section lengths to match: the file is then too short.
    let mut bytes = valid.clone();
    put_u64(&mut bytes, 32, 7);
    for (at, width) in [(48, 4), (56, 4), (64, 8)] {
        put_u64(&mut bytes, at, 7 * width);
    }
    reseal(&mut bytes);
    let (offset, message) = refusal("sections", &bytes);
    assert_eq!(offset, valid.len() as u64);
    assert!(message.contains("truncated"), "{message}");
    // Fewer vertices than the ids need, checksum valid.
    let mut bytes = valid.clone();
    put_u64(&mut bytes, 24, 5);
    reseal(&mut bytes);
    let (offset, message) = refusal("vertices", &bytes);
    let destinations = u64_at(&valid, 48).next_multiple_of(8) + HEADER_BYTES as u64;
    assert_eq!(offset, destinations + 4 * 4, "edge 4's destination");
    assert!(message.contains("destination id 5"), "{message}");
    // Bytes after the last section.
    let mut bytes = valid.clone();
    bytes.extend_from_slice(&[0; 8]);
    reseal(&mut bytes);
    let (offset, message) = refusal("trailing", &bytes);
    assert_eq!(offset, valid.len() as u64);
    assert!(message.contains("8 bytes follow"), "{message}");
}

#[test]
fn load_options_apply_to_a_binary_stream_as_to_text() {
    let text = b"0 1 10\n1 1 11\n2 0 12\n0 1 13\n";
    let path = temp_path("options");
    let stream = parse_edge_stream(text, &LoadOptions::default()).unwrap();
    write_edge_stream_file(&path, &stream).unwrap();
    for options in [
        LoadOptions::default().symmetrize(true),
        LoadOptions::default().drop_self_loops(true),
        LoadOptions::default().dedupe(true),
        LoadOptions::default().third_column(crate::ThirdColumn::Ignore),
    ] {
        // SAFETY: the test's own file, not modified while mapped.
        let from_binary = unsafe { map_edge_stream(&path, &options) }.unwrap();
        let from_text = parse_edge_stream(text, &options).unwrap();
        assert_eq!(
            from_binary.edges().collect::<Vec<_>>(),
            from_text.edges().collect::<Vec<_>>(),
            "{options:?}"
        );
        assert_eq!(from_binary.value_kind(), from_text.value_kind());
    }
    let asked = LoadOptions::default().third_column(crate::ThirdColumn::Weight);
    // SAFETY: as above.
    let error = unsafe { map_edge_stream(&path, &asked) }.unwrap_err();
    assert!(error.to_string().contains("holds timestamps"), "{error}");
    let limited = LoadOptions::default().max_vertices(2);
    assert!(load_edge_stream(&path, &limited).is_err());
    std::fs::remove_file(&path).unwrap();
}

/// A weighted temporal stream is refused by the binary writers (one values
/// section), whole or in chunks, and nothing appears under the name; with
/// one column dropped it round trips.
#[test]
fn a_stream_with_weights_and_timestamps_is_refused_not_cut() {
    let both = EdgeStream::from_pairs([(0, 1), (1, 2)])
        .with_weights(vec![0.5, 1.5])
        .unwrap()
        .with_timestamps(vec![7, 8])
        .unwrap();
    assert_eq!(both.value_kind(), ValueKind::WeightAndTimestamp);
    let path = temp_path("both");
    let error = write_edge_stream_file(&path, &both).unwrap_err();
    assert!(
        error.to_string().contains("weights and timestamps")
            && error.to_string().contains("without_timestamps"),
        "{error}"
    );
    assert!(!path.exists());
    let error =
        EdgeStreamWriter::create(&path, 3, 2, ValueKind::WeightAndTimestamp, None).unwrap_err();
    assert!(error.to_string().contains("one value column"), "{error}");
    let mut writer = EdgeStreamWriter::create(&path, 3, 2, ValueKind::Weight, None).unwrap();
    let error = writer.append(&both, 0..2).unwrap_err();
    assert!(error.to_string().contains("WeightAndTimestamp"), "{error}");
    drop(writer);
    assert!(!path.exists());

    for kept in [both.clone().without_timestamps(), both.without_weights()] {
        write_edge_stream_file(&path, &kept).unwrap();
        assert_eq!(mapped(&path).unwrap(), kept);
    }
    std::fs::remove_file(&path).unwrap();
}

/// A replay's reads of a mapped stream stay in the map: its batches, a
/// worker's share, file order; a reordering copies.
#[test]
fn a_mapped_stream_is_read_in_place_until_it_changes() {
    let stream = crate::Generator::kronecker(8, 4)
        .weighted(true)
        .generate()
        .unwrap();
    let path = temp_path("in-place");
    write_edge_stream_file(&path, &stream).unwrap();
    let mut map = mapped(&path).unwrap();
    assert!(map.is_mapped());
    let chunk = map.chunk(10..20, true);
    assert_eq!(chunk.src, &stream.src()[10..20]);
    assert_eq!(chunk.weights, Some(&stream.weights().unwrap()[10..20]));
    let share = map.sub_stream(100..200);
    assert!(share.is_mapped(), "a share narrows the map");
    assert_eq!(share, stream.sub_stream(100..200));
    assert_eq!(
        share.weights().unwrap(),
        &stream.weights().unwrap()[100..200]
    );
    map.reorder(crate::Order::File, 0).unwrap();
    assert!(map.is_mapped(), "file order moves nothing");
    map.reorder(crate::Order::Source, 0).unwrap();
    assert!(!map.is_mapped());
    std::fs::remove_file(&path).unwrap();
}
