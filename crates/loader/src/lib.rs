//! `dyngraph-loader`: parallel readers for text graphs straight to an
//! [`EdgeStream`] or a [`Csr`](dyngraph_core::Csr), text writers, binary
//! `Csr` files (`.dgcsr`) and binary edge streams (`.dges`) opened by
//! memory map and accepted wherever a graph file is, atomic file writes,
//! and Kronecker/uniform generators that can write a graph larger than
//! memory a chunk at a time.
//!
//! # At a glance
//!
//! | you want | call |
//! |---|---|
//! | the edges of a file in file order (a temporal replay) | [`load_edge_stream`] |
//! | a CSR of a file, without an intermediate edge list | [`load_csr`] |
//! | the same from bytes in memory | [`parse_edge_stream`], [`parse_csr`] |
//! | a text file from a stream | [`write_edges`] (gzip when the name ends in `.gz`) |
//! | a synthetic graph | [`Generator`] ([`Generator::kronecker`], [`Generator::uniform`]) |
//! | a binary edge stream (`.dges`), read back without copying | [`write_edge_stream_file`], [`map_edge_stream`] ([`load_edge_stream`] and [`load_csr`] read one too) |
//! | a file of more edges than memory holds, a chunk at a time | [`Generator::generate_chunks`] into an [`EdgeStreamWriter`] or a [`TextEdgeWriter`] |
//! | a binary `Csr` file, reopened without copying | [`write_csr_file`], [`CsrFile::open`] (or the copying [`read_csr_file`]; [`load_csr`] and [`load_edge_stream`] read one too) |
//! | a file that appears whole or not at all | [`AtomicFile`] (what every writer here uses) |
//!
//! # Formats
//!
//! Matrix Market coordinate (`pattern`, `integer`, `real`; `general`,
//! `symmetric`), SNAP edge lists, `.el`, `.wel`, and delimited values
//! (CSV with `,` or `;`, TSV), each optionally gzip-compressed; see
//! [`Format`] for the table of what each holds and how the third column is
//! read, and [`Delimiter`] for how fields are separated. The format is
//! detected from the Matrix Market banner, else the extension, else SNAP
//! ([`Format::detect`]); [`LoadOptions::format`] overrides it. A binary
//! `Csr` file ([`csr_file`]) and a binary edge stream ([`edge_stream_file`])
//! are recognised by their magic bytes before any of that, and read instead
//! of parsed, by every entry point.
//!
//! # Ids
//!
//! Numeric ids are vertex ids as written, and a file whose numbers cannot
//! be (sparse, or wider than 32 bits) is refused with the [`IdMode`] that
//! relabels it; names are relabelled. [`IdMode::Auto`] relabels whatever
//! needs it, and the stream or `Csr` then carries the original ids
//! ([`EdgeStream::ids`], [`dyngraph_core::Csr::ids`], kept by a binary
//! `Csr` file and written back by [`write_edges`]);
//! [`EdgeStream::relabel_note`] gives a line to tell the user. [`IdMode`]
//! has the whole policy.
//!
//! **Accepted and harmless**: CRLF line ends, trailing spaces and tabs,
//! spaces or tabs (any number) between fields, blank lines, `#` and `%`
//! comment lines anywhere (also between Matrix Market entries), no newline
//! at the end of the file, a UTF-8 byte-order mark, leading zeros in ids,
//! a Matrix Market banner in any letter case and the field name `double`
//! for `real`, a header row with [`LoadOptions::header`], and input from a
//! pipe (read once, whole). A file of only comments is an empty graph; a
//! Matrix Market file declaring 0 entries too.
//!
//! **Refused**, each as [`dyngraph_core::Error::Parse`] with the file, the
//! 1-based line and byte column, and a [`dyngraph_core::ParseErrorKind`]
//! saying what was expected: a non-numeric token, a missing field (naming
//! the delimiter to use when the line holds a `,` or `;` a blank-separated
//! file does not split on), an empty delimited field, an extra field, id 0
//! in Matrix Market (1-based), a negative id, an id beyond the Matrix
//! Market size line, an entry count different from the header's, a file
//! that ends mid-line (an incomplete last line without a newline) or
//! mid-header, an empty (or whitespace-only) file, bytes that are not text
//! (a NUL near the start, or a control byte on the failing line: a binary
//! file), a first line of names before numeric lines (an undeclared
//! header, naming [`LoadOptions::header`]), a negative timestamp, a
//! fraction where a timestamp is read (naming [`LoadOptions::third_column`]),
//! a weight that is NaN, a negative weight under
//! [`LoadOptions::nonnegative_weights`], a `.mtx` file without the banner,
//! and the Matrix Market kinds dyngraph does not read (`array`, `complex`,
//! `hermitian`, `skew-symmetric`), named in the message, and a value that
//! is not a whole number in a Matrix Market `integer` file (a `real` file
//! accepts integers; a value column in a `pattern` file is an extra
//! field). Under the default [`IdMode::Keep`], an id above `u32::MAX` is
//! refused at its line and column ([`dyngraph_core::ParseErrorKind::WideId`])
//! and sparse ids as a whole ([`dyngraph_core::Error::SparseIds`]), each
//! naming the mode that relabels them. An id at or past
//! [`LoadOptions::max_vertices`] is refused at its line and column before
//! anything is allocated for it. Bad input never panics.
//!
//! ```
//! use dyngraph_core::{Error, ParseErrorKind};
//! use dyngraph_loader::{Format, LoadOptions, parse_edge_stream};
//!
//! let error = parse_edge_stream(b"0 1\n1 two\n", &LoadOptions::default().format(Format::EdgeList))
//!     .unwrap_err();
//! assert_eq!(error.to_string(), "<input>:2:3: expected destination vertex id, found non-numeric token \"two\"");
//! let Error::Parse { location, kind } = error else { unreachable!() };
//! assert_eq!((location.line, location.column), (2, 3));
//! assert!(matches!(kind, ParseErrorKind::NonNumeric { .. }));
//! ```
//!
//! # How reading works, and what it costs
//!
//! The file is memory-mapped (with sequential-access advice) or, when it is
//! gzip-compressed, decompressed into memory. The text after any header is
//! cut into blocks of about [`LoadOptions::block_size`] bytes, each moved to
//! the next line start. A first parallel pass counts each block's lines;
//! that sizes the output arrays once and gives every block its own run of
//! slots (one per line, two when lines are expanded both ways), so the
//! second pass parses the blocks in parallel with rayon straight into their
//! final place, with hand-written number parsing and no allocation per line
//! (GVEL's scheme). Each block's newlines are found 64 bytes at a time
//! (SSE2 compares on x86-64, word arithmetic elsewhere), with the input
//! prefetched 2 KiB ahead of the scan (the hardware prefetcher stops at
//! every 4 KiB page of a page-cache map), and a line of two ids of up to
//! seven digits (`digits blank digits`) is read with eight-byte word
//! operations, runs of such lines in a loop that keeps the block's
//! counters in registers. On x86-64 CPUs with SSSE3 (detected at run
//! time) the loop reads each such line of up to 15 bytes with 16-byte
//! vector operations instead: one compare classifies the bytes, one
//! shuffle lines up both ids' digits (up to eight each), three
//! multiply-adds convert them together; lines it does not take go to the
//! word reader, so the ids stored are the same. Any other well-formed data line
//! takes a one-pass byte parse; anything else (comments, blank lines, odd
//! spacing, errors) goes through a line-at-a-time path that produces the
//! exact error. Errors are recorded per block as "n-th line of this block"
//! and turned into file line numbers once all blocks are done.
//!
//! - [`load_edge_stream`]: the two passes; when every line is an edge that
//!   is kept (no comments, nothing dropped) the arrays are the stream as
//!   they stand, otherwise the filled slots are moved down over the gaps
//!   (one serial move of the edges after the first gap). Memory: the
//!   stream (8 bytes per edge, +4 with weights, +8 with timestamps).
//! - [`load_csr`]: the same passes, then
//!   [`Csr::from_columns`](dyngraph_core::Csr::from_columns) on the filled
//!   runs of slots in place (one run when there are no gaps): a radix
//!   scatter through buckets of vertices; no globally sorted edge list is
//!   built. The parsed columns are handed over, and with
//!   [`LoadOptions::in_edges`] the in-edges' sources are written into the
//!   destination column once the scatter has read it; the in-edges
//!   themselves are built in the scatter's last stage from each bucket's
//!   finished out-lists (not by transposing the finished CSR). Memory: the
//!   parsed edges, the CSR and the scatter's temporary copy of the
//!   sources (4 bytes per edge).
//!
//! Within each vertex the CSR keeps file order, unless [`LoadOptions::sort`]
//! or [`LoadOptions::dedupe`] is set.
//!
//! # Example: read a SNAP temporal file, two ways
//!
//! ```
//! use dyngraph_core::{Graph, OutNeighbors};
//! use dyngraph_loader::{LoadOptions, load_csr, load_edge_stream};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
//! let stream = load_edge_stream(path, &LoadOptions::default())?;
//! assert_eq!(stream.len(), 59_835);
//! assert_eq!(stream.vertex_count(), 1_900); // ids 1..=1899
//! // The third column of a SNAP .txt file is a timestamp.
//! assert_eq!(stream.timestamps().unwrap()[0], 1_082_040_961);
//!
//! let csr = load_csr(path, &LoadOptions::default().dedupe(true).threads(2))?;
//! assert_eq!(csr.edge_count(), 20_296); // distinct (src, dst) pairs
//! assert!(csr.out_neighbors(1).next().is_some());
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! # Example: generate, write, read back
//!
//! ```
//! use dyngraph_loader::{Format, Generator, LoadOptions, Order, load_edge_stream, write_edges};
//!
//! let stream = Generator::kronecker(8, 16).seed(42).order(Order::Shuffle).generate()?;
//! let path = std::env::temp_dir().join(format!("dyngraph-doc-kron-{}.el", std::process::id()));
//! write_edges(&path, &stream, Format::EdgeList)?;
//! let back = load_edge_stream(&path, &LoadOptions::default())?;
//! assert_eq!(back.src(), stream.src());
//! assert_eq!(back.dst(), stream.dst());
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
//!
//! # Example: a binary `Csr` file
//!
//! ```
//! use dyngraph_core::{Graph, OutNeighbors};
//! use dyngraph_loader::{CsrFile, LoadOptions, load_csr, parse_csr, write_csr_file};
//!
//! let csr = parse_csr(b"0 1\n0 2\n2 1\n", &LoadOptions::default())?;
//! let path = std::env::temp_dir().join(format!("dyngraph-doc-{}.dgcsr", std::process::id()));
//! write_csr_file(&path, &csr)?;
//! // SAFETY: the file was just written by this program into a fresh path,
//! // and nothing modifies it while `file` is alive.
//! let file = unsafe { CsrFile::open(&path)? };
//! let view = file.view()?; // borrows the mapped file: no copy
//! assert_eq!(view.out_neighbors(0).collect::<Vec<_>>(), [1, 2]);
//! assert_eq!(view.edge_count(), 3);
//! // The loader's entry points take it wherever they take text.
//! assert_eq!(load_csr(&path, &LoadOptions::default())?, csr);
//! # drop(file);
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), dyngraph_core::Error>(())
//! ```
#![deny(missing_docs)]

mod atomic;
mod bounded;
mod column;
pub mod csr_file;
pub mod edge_stream_file;
mod fields;
mod format;
pub mod generate;
mod ids;
mod load;
mod mtx;
mod number;
mod options;
mod order;
mod parse;
mod prepare;
mod progress;
mod stream;
mod write;

pub use atomic::AtomicFile;
pub use column::Column;
pub use csr_file::{
    CSR_FILE_MAGIC, CsrFile, CsrFileOptions, is_csr_file, read_csr_file, write_csr_file,
    write_csr_file_to, write_csr_file_view,
};
pub use edge_stream_file::{
    EDGE_STREAM_EXTENSION, EDGE_STREAM_MAGIC, EdgeStreamWriter, is_edge_stream_file,
    map_edge_stream, write_edge_stream_file,
};
pub use fields::Delimiter;
pub use format::{Format, ThirdColumn};
pub use generate::{Generator, GraphKind};
pub use ids::{IdMode, SPARSE_FLOOR};
pub use load::{load_csr, load_edge_stream, parse_csr, parse_edge_stream};
pub use options::{DEFAULT_BLOCK_SIZE, LoadOptions};
pub use order::Order;
pub use progress::ParseProgress;
pub use stream::{EdgeStream, ValueKind};
pub use write::{TextEdgeWriter, write_edges, write_edges_to};
