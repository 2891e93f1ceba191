use super::layout::{ENDIAN_MARKER, header_bytes};
use super::*;
use dyngraph_core::{CsrOptions, StoreConfig, WeightedEdge};
use dyngraph_core::{IdMap, OutNeighbors};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dyngraph-csr-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn sample() -> Csr {
    let edges = [
        WeightedEdge::new(0, 1, 0.5),
        WeightedEdge::new(0, 2, 1.5),
        WeightedEdge::new(2, 0, -3.0),
        WeightedEdge::new(3, 3, 7.0),
    ];
    Csr::from_edges(
        &edges,
        CsrOptions::default()
            .in_edges(true)
            .semantics(Semantics::Simple),
    )
    .unwrap()
}

#[test]
fn round_trip_through_the_map_and_through_reads() {
    let csr = sample();
    let path = temp("sample.csr");
    write_csr_file(&path, &csr).unwrap();
    // SAFETY: this test created the file in its own directory and
    // nothing writes it while it is mapped.
    let file = unsafe { CsrFile::open(&path) }.unwrap();
    let view = file.view().unwrap();
    assert_eq!(view, csr.view());
    assert_eq!(view.semantics(), Semantics::Simple);
    // No copy: the view's arrays live inside the map.
    let map = file.map.as_ptr_range();
    assert!(map.contains(&view.targets().as_ptr().cast()));
    assert_eq!(read_csr_file(&path).unwrap(), csr);
    assert_eq!(file.to_csr().unwrap(), csr);
}

#[test]
fn every_truncation_and_every_flipped_byte_is_refused() {
    let path = temp("truncate.csr");
    write_csr_file(&path, &sample()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let broken = temp("broken.csr");
    for len in 0..bytes.len() {
        std::fs::write(&broken, &bytes[..len]).unwrap();
        assert!(
            matches!(read_csr_file(&broken), Err(Error::InvalidCsrFile { .. })),
            "truncated to {len}"
        );
    }
    for i in 0..bytes.len() {
        let mut corrupted = bytes.clone();
        corrupted[i] ^= 0x10;
        std::fs::write(&broken, &corrupted).unwrap();
        assert!(read_csr_file(&broken).is_err(), "byte {i} flipped");
    }
}

#[test]
fn unverified_open_still_refuses_broken_structure() {
    let path = temp("structure.csr");
    let csr = Csr::from_parts(vec![0, 1, 2], vec![1, 0], None, Semantics::Multigraph).unwrap();
    write_csr_file(&path, &csr).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    // The second target (at the end of the targets section) points past
    // the vertex count.
    let targets_start = header_bytes(CSR_FILE_VERSION) + 3 * 8;
    bytes[targets_start + 4..targets_start + 8].copy_from_slice(&9u32.to_ne_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let options = CsrFileOptions {
        verify_checksum: false,
    };
    // SAFETY: this test's own file; nothing else writes it.
    let file = unsafe { CsrFile::open_with(&path, options) }.unwrap();
    assert!(matches!(file.view(), Err(Error::InvalidStructure(_))));
    // With verification the corruption is caught at open.
    // SAFETY: as above.
    let verified = unsafe { CsrFile::open(&path) };
    assert!(matches!(verified, Err(Error::InvalidCsrFile { .. })));
}

#[test]
fn foreign_and_empty_files_are_refused() {
    let path = temp("foreign.csr");
    std::fs::write(&path, vec![b'x'; 200]).unwrap();
    // SAFETY: this test's own file; nothing else writes it.
    let error = unsafe { CsrFile::open(&path) }.unwrap_err();
    assert!(error.to_string().contains("foreign"), "{error}");
    std::fs::write(&path, b"").unwrap();
    // SAFETY: as above.
    let empty = unsafe { CsrFile::open(&path) };
    assert!(matches!(empty, Err(Error::InvalidCsrFile { .. })));
}

#[test]
fn other_byte_order_is_named() {
    let path = temp("endian.csr");
    write_csr_file(&path, &sample()).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[12..16].copy_from_slice(&ENDIAN_MARKER.swap_bytes().to_ne_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let error = read_csr_file(&path).unwrap_err();
    assert!(error.to_string().contains("byte order"), "{error}");
}

#[test]
fn empty_graph_round_trips() {
    let csr = Csr::from_edges::<[dyngraph_core::Edge]>(&[], CsrOptions::default()).unwrap();
    let path = temp("empty.csr");
    write_csr_file(&path, &csr).unwrap();
    assert_eq!(read_csr_file(&path).unwrap(), csr);
}

/// `csr` written as a version-1 file (no ids section), as builds before
/// version 2 wrote it.
fn version_one_bytes(csr: &Csr) -> Vec<u8> {
    let mut bytes = Vec::new();
    write_csr_file_to(&mut bytes, csr.view()).unwrap();
    // Drop the ids section's length (the last header field; the section
    // is empty) and say version 1.
    bytes.drain(88..96);
    bytes[8..12].copy_from_slice(&1u32.to_ne_bytes());
    bytes[40..48].fill(0);
    let checksum = u64::from(crc32(&[&bytes]));
    bytes[40..48].copy_from_slice(&checksum.to_ne_bytes());
    bytes
}

#[test]
fn version_one_files_still_read() {
    let csr = sample();
    let path = temp("version1.dgcsr");
    std::fs::write(&path, version_one_bytes(&csr)).unwrap();
    assert_eq!(read_csr_file(&path).unwrap(), csr);
    // SAFETY: this test's own file; nothing else writes it.
    let file = unsafe { CsrFile::open(&path) }.unwrap();
    assert_eq!(file.view().unwrap(), csr.view());
    assert!(!file.has_ids());
    let loaded = crate::load_csr(&path, &LoadOptions::default().in_edges(true)).unwrap();
    assert_eq!(loaded, csr);
}

#[test]
fn original_ids_round_trip_through_the_file_and_every_reader() {
    for ids in [
        IdMap::from_strings(["alice", "bob", "carol", "dave"]).unwrap(),
        IdMap::from_integers(vec![9, 1 << 40, 3, 77]).unwrap(),
    ] {
        let csr = sample().with_ids(ids.clone()).unwrap();
        let path = temp("ids.dgcsr");
        write_csr_file(&path, &csr).unwrap();
        // SAFETY: this test's own file; nothing else writes it.
        let file = unsafe { CsrFile::open(&path) }.unwrap();
        assert!(file.has_ids());
        let view = file.view().unwrap();
        assert_eq!(view.ids(), Some(&ids));
        assert_eq!(view.out_neighbors(0).count(), 2);
        assert_eq!(read_csr_file(&path).unwrap().ids(), Some(&ids));
        let options = LoadOptions::default();
        assert_eq!(crate::load_csr(&path, &options).unwrap().ids(), Some(&ids));
        let rebuilt = crate::load_csr(&path, &options.clone().symmetrize(true)).unwrap();
        assert_eq!(rebuilt.ids(), Some(&ids));
        assert_eq!(
            crate::load_edge_stream(&path, &options).unwrap().ids(),
            Some(&ids)
        );
    }
}

#[test]
fn a_damaged_ids_section_is_refused_even_unverified() {
    let ids = IdMap::from_strings(["a", "b", "c", "d"]).unwrap();
    let path = temp("ids-damaged.dgcsr");
    write_csr_file(&path, &sample().with_ids(ids).unwrap()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    // The ids record's magic, at the start of the last section.
    let at = bytes.windows(4).position(|w| w == b"DGID").unwrap();
    let mut broken = bytes.clone();
    broken[at] = b'X';
    std::fs::write(&path, &broken).unwrap();
    let options = CsrFileOptions {
        verify_checksum: false,
    };
    // SAFETY: this test's own file; nothing else writes it.
    let error = unsafe { CsrFile::open_with(&path, options) }.unwrap_err();
    assert!(
        error.to_string().contains("ids section is damaged"),
        "{error}"
    );
}
