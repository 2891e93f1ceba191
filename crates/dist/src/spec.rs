//! What every process of a cluster must agree on before any work: every
//! option that changes the result, and the input itself. Each process
//! sends its list in the start-up handshake; a process started with
//! another `--batch`, `--kernel`, `--store` or input file ends the whole
//! cluster with one line naming the first difference and the processes,
//! instead of running on to mixed results (or to a collective whose
//! vectors differ in length).

use crate::input::DistInput;
use crate::run::DistOptions;
use dyngraph_core::Semantics;
use std::io::Read;

/// One option as `(name, value)`, names as the command line spells them.
pub(crate) type Fingerprint = Vec<(String, String)>;

/// Bytes of the input's start and end that its checksum covers.
const EDGE_BYTES: u64 = 1 << 20;

/// The options of a run of store `store` on `input` that change what it
/// computes, and the input's size and checksums. What does not change the
/// result (the stall timeout, a throttle) is left out.
pub(crate) fn fingerprint(store: &str, input: &DistInput, options: &DistOptions) -> Fingerprint {
    let replay = &options.replay;
    let mut kernels: Vec<String> = options.kernels.iter().map(|k| k.to_string()).collect();
    kernels.sort();
    let entries = [
        ("--store", store.to_string()),
        ("--base", replay.base_percent.to_string()),
        ("--batch", replay.batch.to_string()),
        (
            "--window",
            replay
                .window
                .map_or_else(|| "none".into(), |w| w.to_string()),
        ),
        (
            "--simple",
            (options.store.semantics == Semantics::Simple).to_string(),
        ),
        ("--kernel", kernels.join(",")),
        (
            "--every",
            options
                .every
                .map_or_else(|| "end".into(), |e| e.to_string()),
        ),
        (
            "--source",
            options
                .source
                .map_or_else(|| "first arrival".into(), |s| s.to_string()),
        ),
        ("--verify", options.verify.to_string()),
        ("--gather", options.gather.to_string()),
        // After the kernels: `auto` derives them from the kernels asked for.
        ("--in-edges", options.store.in_edges.to_string()),
        ("--weights", options.store.weighted.to_string()),
        ("--partitioner", format!("{:?}", options.partitioner)),
        ("input options", reading(&options.load)),
        ("input", describe_input(input)),
    ];
    entries
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect()
}

/// How the input is read, as far as it changes the edges: format, ids,
/// delimiter, header, third column, and what is dropped or mirrored
/// (`--undirected`). Threads and block sizes are left out.
fn reading(load: &dyngraph_loader::LoadOptions) -> String {
    format!(
        "format {:?}, ids {:?}, delimiter {:?}, header {}, third column {:?}, \
         self-loops dropped {}, deduplicated {}, symmetrized {}, non-negative weights {}",
        load.format,
        load.ids,
        load.delimiter,
        load.header,
        load.third_column,
        load.drop_self_loops,
        load.dedupe,
        load.symmetrize,
        load.nonnegative_weights,
    )
}

/// A file by its size and the CRC-32 of its first and last MiB (every
/// process may read its own copy, at its own path); a generated graph by
/// its generator.
fn describe_input(input: &DistInput) -> String {
    match input {
        DistInput::Generated(generator) => format!("generated {generator:?}"),
        DistInput::File(path) => match file_digest(path) {
            Ok((size, head, tail)) => {
                format!("{size} bytes, first MiB crc {head:08x}, last MiB crc {tail:08x}")
            }
            // Unreadable here: the run itself will say why.
            Err(error) => format!("unreadable ({})", error.kind()),
        },
    }
}

fn file_digest(path: &std::path::Path) -> std::io::Result<(u64, u32, u32)> {
    use std::io::{Seek, SeekFrom};
    let mut file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
    let mut head = Vec::new();
    (&mut file).take(EDGE_BYTES).read_to_end(&mut head)?;
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(size.saturating_sub(EDGE_BYTES)))?;
    file.take(EDGE_BYTES).read_to_end(&mut tail)?;
    Ok((size, crc32fast::hash(&head), crc32fast::hash(&tail)))
}

/// `fingerprint` as the handshake carries it: `name=value` lines.
pub(crate) fn encode(fingerprint: &Fingerprint) -> Vec<u8> {
    let mut bytes = Vec::new();
    for (name, value) in fingerprint {
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(b'=');
        bytes.extend_from_slice(value.replace('\n', " ").as_bytes());
        bytes.push(b'\n');
    }
    bytes
}

/// The lines [`encode`] wrote.
pub(crate) fn decode(bytes: &[u8]) -> Fingerprint {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

/// The first option on which `theirs` (process `peer`) differs from
/// `ours` (process `me`), in words, or `None` when they agree.
pub(crate) fn first_difference(
    ours: &Fingerprint,
    theirs: &Fingerprint,
    me: usize,
    peer: usize,
) -> Option<String> {
    let value = |list: &Fingerprint, name: &str| {
        list.iter()
            .find(|(n, _)| n == name)
            .map_or_else(|| "(not given)".to_string(), |(_, v)| v.clone())
    };
    let names = ours.iter().chain(theirs).map(|(name, _)| name.as_str());
    for name in names {
        let (mine, other) = (value(ours, name), value(theirs, name));
        if mine != other {
            let what = if name == "input" {
                "the input".to_string()
            } else {
                name.to_string()
            };
            return Some(format!(
                "the processes were started differently: {what} is {other} on process {peer} \
                 and {mine} on process {me}; start every process with the same flags and input"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_difference_is_named_with_both_processes() {
        let options = DistOptions::default();
        let input = DistInput::File(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt").into(),
        );
        let ours = fingerprint("Vcsr", &input, &options);
        assert_eq!(decode(&encode(&ours)), ours);
        assert_eq!(first_difference(&ours, &ours, 0, 1), None);
        let mut other = options.clone();
        other.replay.batch = 7;
        other.kernels = vec![dyngraph_kernels::KernelName::PageRank];
        let theirs = fingerprint("Vcsr", &input, &other);
        let why = first_difference(&ours, &theirs, 0, 1).unwrap();
        assert!(
            why.contains("--batch is 7 on process 1 and 1024 on process 0"),
            "{why}"
        );
        let elsewhere = fingerprint(
            "Vcsr",
            &DistInput::File(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml").into()),
            &options,
        );
        let why = first_difference(&ours, &elsewhere, 1, 0).unwrap();
        assert!(why.contains("the input is"), "{why}");
    }
}
