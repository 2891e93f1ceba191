//! Writing an [`EdgeStream`] as text, in order.

use crate::atomic::AtomicFile;
use crate::format::Format;
use crate::stream::{EdgeStream, EdgeValues};
use dyngraph_core::{Error, Result};
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;

/// Edges formatted per parallel task.
const EDGES_PER_TASK: usize = 1 << 16;
/// Tasks formatted before their text is written out (bounds the memory
/// held at once to a few tens of megabytes).
const TASKS_PER_ROUND: usize = 64;

/// Writes `stream` to `path` in `format`, in stream order; gzip-compressed
/// when the path ends in `.gz`.
///
/// What each format holds:
/// - [`Format::MatrixMarket`]: `coordinate general`, 1-based; `pattern`
///   without weights, `real` with them; the size line is
///   `n n edges` with `n` the stream's vertex count.
/// - [`Format::EdgeList`]: `src dst`; values are left out.
/// - [`Format::WeightedEdgeList`]: `src dst weight` (weight 1 when the
///   stream has none).
/// - [`Format::Snap`]: `src dst` plus the timestamp or weight, if any.
///
/// Weights are written in the shortest form that reads back to the same
/// `f32`, so a round trip is exact. The file is written atomically
/// ([`AtomicFile`]): `path` holds the previous file until the new one is
/// complete and synced.
///
/// ```
/// use dyngraph_loader::{EdgeStream, Format, LoadOptions, load_edge_stream, write_edges};
/// use dyngraph_core::WeightedEdge;
///
/// let stream = EdgeStream::from_weighted_edges(&[WeightedEdge::new(0, 1, 0.5), WeightedEdge::new(1, 0, 2.0)]);
/// let path = std::env::temp_dir().join(format!("dyngraph-doc-{}.wel.gz", std::process::id()));
/// write_edges(&path, &stream, Format::WeightedEdgeList)?;
/// assert_eq!(load_edge_stream(&path, &LoadOptions::default())?, stream);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), dyngraph_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::Io`] on a write failure (`path` then holds what it held
/// before); [`Error::InvalidArgument`] for
/// timestamps in a format that cannot hold them (Matrix Market and `.wel`
/// store `f32` values only).
pub fn write_edges(path: impl AsRef<Path>, stream: &EdgeStream, format: Format) -> Result<()> {
    let path = path.as_ref();
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    check_representable(stream, format)?;
    let mut file = AtomicFile::create(path)?;
    let gzip = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    if gzip {
        let mut encoder = flate2::write::GzEncoder::new(&mut file, flate2::Compression::fast());
        write_edges_to(&mut encoder, stream, format).map_err(io)?;
        encoder.finish().map_err(io)?;
    } else {
        write_edges_to(&mut file, stream, format).map_err(io)?;
    }
    file.commit()
}

fn check_representable(stream: &EdgeStream, format: Format) -> Result<()> {
    if matches!(stream.values(), EdgeValues::Timestamps(_))
        && matches!(format, Format::MatrixMarket | Format::WeightedEdgeList)
    {
        return Err(Error::InvalidArgument(format!(
            "{format} cannot hold timestamps; write the stream as a SNAP edge list (.txt) \
             to keep them"
        )));
    }
    Ok(())
}

/// [`write_edges`] to any writer (no compression). Text is formatted in
/// parallel chunks and written in order.
///
/// # Errors
/// The writer's errors; [`std::io::ErrorKind::InvalidInput`] for
/// timestamps in Matrix Market or `.wel`.
pub fn write_edges_to(
    writer: &mut impl Write,
    stream: &EdgeStream,
    format: Format,
) -> std::io::Result<()> {
    check_representable(stream, format)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    let one_based = format == Format::MatrixMarket;
    let values = stream.values();
    let third = match (format, values) {
        (Format::EdgeList, _) | (_, EdgeValues::None) if format != Format::WeightedEdgeList => {
            Third::None
        }
        (Format::WeightedEdgeList, EdgeValues::None) => Third::One,
        (_, EdgeValues::Weights(w)) => Third::Weights(w),
        // Matrix Market and .wel with timestamps were refused above.
        (_, EdgeValues::Timestamps(t)) => Third::Timestamps(t),
        (_, EdgeValues::None) => Third::None,
    };
    if format == Format::MatrixMarket {
        let field = if matches!(third, Third::None) {
            "pattern"
        } else {
            "real"
        };
        let n = stream.vertex_count();
        writeln!(writer, "%%MatrixMarket matrix coordinate {field} general")?;
        writeln!(writer, "{n} {n} {}", stream.len())?;
    }

    let tasks: Vec<std::ops::Range<usize>> = (0..stream.len())
        .step_by(EDGES_PER_TASK)
        .map(|start| start..(start + EDGES_PER_TASK).min(stream.len()))
        .collect();
    for round in tasks.chunks(TASKS_PER_ROUND) {
        let texts: Vec<Vec<u8>> = round
            .par_iter()
            .map(|range| format_edges(stream, range.clone(), one_based, &third))
            .collect();
        for text in texts {
            writer.write_all(&text)?;
        }
    }
    Ok(())
}

enum Third<'a> {
    None,
    One,
    Weights(&'a [f32]),
    Timestamps(&'a [u64]),
}

fn format_edges(
    stream: &EdgeStream,
    range: std::ops::Range<usize>,
    one_based: bool,
    third: &Third<'_>,
) -> Vec<u8> {
    let offset = u64::from(one_based);
    let mut text = Vec::with_capacity(range.len() * 24);
    for i in range {
        push_decimal(&mut text, u64::from(stream.src()[i]) + offset);
        text.push(b' ');
        push_decimal(&mut text, u64::from(stream.dst()[i]) + offset);
        match third {
            Third::None => {}
            Third::One => text.extend_from_slice(b" 1"),
            Third::Weights(w) => {
                // `Display` for f32 prints the shortest decimal that reads
                // back to the same value.
                write!(text, " {}", w[i]).expect("writing to a Vec cannot fail");
            }
            Third::Timestamps(t) => {
                text.push(b' ');
                push_decimal(&mut text, t[i]);
            }
        }
        text.push(b'\n');
    }
    text
}

/// Appends `value` in decimal.
#[inline]
fn push_decimal(text: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    text.extend_from_slice(&digits[start..]);
}
