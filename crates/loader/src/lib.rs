//! `dyngraph-loader`: graph generators and (in progress) parallel readers.
#![deny(missing_docs)]

pub mod generate;
mod stream;

pub use generate::{ArrivalOrder, Generator, GraphKind};
pub use stream::{EdgeStream, EdgeValues, ValueKind};
