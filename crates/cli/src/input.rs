//! Reading the replay input through the loader.

use crate::stream::Stream;
use anyhow::Result;
use dyngraph_loader::{EdgeValues, LoadOptions, load_edge_stream};
use std::path::Path;

/// Reads any format the loader knows into a stream in file order. Parse
/// errors carry the loader's `file:line:column` location.
pub(crate) fn read_stream(path: &Path, options: &LoadOptions) -> Result<Stream> {
    let (src, dst, values, _) = load_edge_stream(path, options)?.into_parts();
    let (timestamps, weights) = match values {
        EdgeValues::None => (None, None),
        EdgeValues::Weights(weights) => (None, Some(weights)),
        EdgeValues::Timestamps(timestamps) => (Some(timestamps), None),
    };
    Ok(Stream {
        src,
        dst,
        timestamps,
        weights,
    })
}
