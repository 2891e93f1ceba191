//! Reading the replay input through the loader.

use anyhow::Result;
use dyngraph_loader::{LoadOptions, load_edge_stream};
use dyngraph_replay::Stream;
use std::path::Path;

/// Reads any format the loader knows into a stream in file order. Parse
/// errors carry the loader's `file:line:column` location.
pub(crate) fn read_stream(path: &Path, options: &LoadOptions) -> Result<Stream> {
    Ok(Stream::from(load_edge_stream(path, options)?))
}
