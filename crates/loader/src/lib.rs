//! `dyngraph-loader`: graph generators and parallel readers.
#![deny(missing_docs)]

mod format;
pub mod generate;
mod load;
mod mtx;
mod number;
mod parse;
mod stream;
mod write;

pub use format::{Format, ThirdColumn};
pub use generate::{ArrivalOrder, Generator, GraphKind};
pub use load::{
    DEFAULT_BLOCK_SIZE, LoadOptions, load_csr, load_edge_stream, parse_csr, parse_edge_stream,
};
pub use stream::{EdgeStream, EdgeValues, ValueKind};
pub use write::{write_edges, write_edges_to};
