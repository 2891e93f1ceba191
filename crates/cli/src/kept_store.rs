//! A durable store's directory given where a graph file may be (`load`,
//! `run`, `recover`): told from a file by what it holds, a damaged store
//! or somebody else's directory named as such, and the store's keys read
//! so that results name vertices as the input did.

use anyhow::{Result, bail};
use dyngraph::core::IdMap;
use dyngraph::durable::{DurableVcsr, StoreDir};
use std::path::Path;

/// Whether `path` is a durable store's directory (`true`), a file
/// (`false`), or an error saying what the directory holds instead.
pub(crate) fn is_store_dir(path: &Path) -> Result<bool> {
    if !path.is_dir() {
        return Ok(false);
    }
    match DurableVcsr::inspect_dir(path)? {
        StoreDir::Store { .. } => Ok(true),
        StoreDir::Damaged { reason } => {
            bail!("{} is a damaged durable store: {reason}", path.display())
        }
        StoreDir::Vacant => bail!(
            "{} is an empty directory: give a graph file, or the directory of a durable \
             store (`replay --store durable --dir DIR`)",
            path.display()
        ),
        StoreDir::Foreign { entries } => bail!(
            "{} is a directory that holds no durable store ({}): give a graph file, or the \
             directory of a durable store (`replay --store durable --dir DIR`)",
            path.display(),
            entries.join(", ")
        ),
        StoreDir::NotADirectory => Ok(false),
    }
}

/// The keys the store in `dir` keeps, or `None` for a store of plain
/// vertex ids.
pub(crate) fn keys(dir: &Path) -> Result<Option<IdMap>> {
    Ok(DurableVcsr::read_keys(dir)?)
}
