//! Fuzzes the binary Csr file reader: arbitrary bytes behind the magic,
//! with the checksum left as it is or fixed up (so the structural checks
//! behind it are reached), and valid files built from the input with one
//! byte changed. Never a panic; the CSR and stream readers agree; a valid
//! file reads back as written.
#![no_main]

use dyngraph_core::{Csr, CsrOptions, Error, Graph, Semantics, StoreConfig, WeightedEdge};
use dyngraph_loader::{
    CSR_FILE_MAGIC, LoadOptions, parse_csr, parse_edge_stream, write_csr_file_to,
};
use libfuzzer_sys::fuzz_target;

const HEADER_BYTES: usize = 88;
const CHECKSUM: std::ops::Range<usize> = 40..48;

/// Writes the CRC-32 of `bytes` (checksum field zeroed) into the field, as
/// the writer does.
fn fix_checksum(bytes: &mut [u8]) {
    if bytes.len() < HEADER_BYTES {
        return;
    }
    bytes[CHECKSUM].fill(0);
    let mut crc = flate2::Crc::new();
    crc.update(bytes);
    bytes[CHECKSUM].copy_from_slice(&u64::from(crc.sum()).to_ne_bytes());
}

fn read_both(bytes: &[u8], control: u8) -> Option<Csr> {
    let options = LoadOptions::default()
        .max_vertices(1 << 16)
        .in_edges(control & 8 != 0)
        .dedupe(control & 16 != 0)
        .symmetrize(control & 32 != 0);
    let csr = parse_csr(bytes, &options);
    let stream = parse_edge_stream(bytes, &options);
    assert_eq!(csr.is_ok(), stream.is_ok(), "{csr:?} vs {stream:?}");
    if bytes.starts_with(&CSR_FILE_MAGIC) {
        for error in [csr.as_ref().err(), stream.as_ref().err()]
            .into_iter()
            .flatten()
        {
            // A file that starts with the magic is never parsed as text.
            assert!(!matches!(error, Error::Parse { .. }), "{error}");
        }
    }
    let (csr, stream) = (csr.ok()?, stream.ok()?);
    if control & 16 == 0 {
        assert_eq!(csr.edge_count(), stream.len() as u64);
    }
    Some(csr)
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    if control & 1 == 0 {
        // Anything behind the magic.
        let mut bytes = CSR_FILE_MAGIC.to_vec();
        bytes.extend_from_slice(rest);
        if control & 2 != 0 {
            fix_checksum(&mut bytes);
        }
        read_both(&bytes, control);
        return;
    }
    // A valid file of the edges the input spells, then one byte changed.
    let (edit, rest) = rest.split_at(rest.len().min(3));
    let edges: Vec<WeightedEdge> = rest
        .chunks_exact(3)
        .map(|c| WeightedEdge::new(u32::from(c[0] % 32), u32::from(c[1] % 32), f32::from(c[2])))
        .collect();
    let options = CsrOptions::default()
        .in_edges(control & 2 != 0)
        .semantics(if control & 4 != 0 {
            Semantics::Simple
        } else {
            Semantics::Multigraph
        });
    let Ok(csr) = Csr::from_edges(&edges, options) else {
        return;
    };
    let mut bytes = Vec::new();
    write_csr_file_to(&mut bytes, csr.view()).unwrap();
    if let [at_high, at_low, xor] = *edit {
        let at = (usize::from(at_high) << 8 | usize::from(at_low)) % bytes.len();
        bytes[at] ^= xor;
        if xor != 0 && bytes.starts_with(&CSR_FILE_MAGIC) {
            // Unfixed, the checksum must catch the change. (A change to the
            // magic makes the bytes text, which is another target's work.)
            assert!(parse_csr(&bytes, &LoadOptions::default()).is_err());
            fix_checksum(&mut bytes);
        }
        read_both(&bytes, control);
    } else {
        let back = read_both(&bytes, control & !(16 | 32)).expect("a valid file reads");
        if control & 8 != 0 {
            assert_eq!(back, csr.with_transpose());
        }
    }
});
