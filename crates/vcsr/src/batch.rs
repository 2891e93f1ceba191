//! What every store of the crate does alike around an update: vertex-limit
//! checks and the one-at-a-time batch walk over an [`EdgeSource`].

use dyngraph_core::{EdgeSource, Error, Result, UpdateReport, VertexId, Weight, check_limit};

/// The vertex count after adding `count` to `start`, or the limit error.
pub(crate) fn add_vertices_end(start: usize, count: usize, limit: usize) -> Result<usize> {
    match start.checked_add(count) {
        Some(end) if end <= limit => Ok(end),
        _ => Err(Error::VertexLimit {
            vertex: (start as u64)
                .saturating_add(count as u64)
                .saturating_sub(1),
            needed: (start as u64).saturating_add(count as u64),
            limit: limit as u64,
        }),
    }
}

/// The vertex count a bulk build of `edges` needs (its declared count when
/// larger than its ids, [`EdgeSource::vertex_bound`]), refused with
/// [`Error::VertexLimit`] past `limit`.
pub(crate) fn checked_vertex_bound<E: EdgeSource + ?Sized>(
    edges: &E,
    limit: usize,
) -> Result<usize> {
    let bound = edges.vertex_bound();
    if bound > limit {
        return Err(Error::VertexLimit {
            vertex: bound as u64 - 1,
            needed: bound as u64,
            limit: limit as u64,
        });
    }
    Ok(bound)
}

/// The vertex count a batch needs (largest id + 1), after checking every
/// id against `limit`, so a refused batch changes nothing; `None` for an
/// empty batch.
pub(crate) fn batch_vertex_count<E: EdgeSource + ?Sized>(
    edges: &E,
    limit: usize,
) -> Result<Option<usize>> {
    let max = edges.max_vertex();
    check_limit(limit, max)?;
    Ok(max.map(|m| m as usize + 1))
}

/// Calls `insert(src, dst, weight)` for every edge of `edges`, in order,
/// read in place; stops at the first error. Reports the edges added.
pub(crate) fn insert_each<E: EdgeSource + ?Sized>(
    edges: &E,
    mut insert: impl FnMut(VertexId, VertexId, Weight) -> Result<bool>,
) -> Result<UpdateReport> {
    let mut report = UpdateReport::default();
    let mut failure = None;
    edges.for_each_in(0..edges.len(), |src, dst, weight| {
        if failure.is_none() {
            match insert(src, dst, weight) {
                Ok(added) => report.edges_added += u64::from(added),
                Err(error) => failure = Some(error),
            }
        }
    });
    match failure {
        Some(error) => Err(error),
        None => Ok(report),
    }
}
