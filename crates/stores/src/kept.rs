//! A durable store kept in a directory, as found before a job writes to
//! it: a store is created only in a missing or empty directory, appended
//! to only where a store is, and never written over where the directory
//! holds anything else (somebody's files, or a store's files without its
//! superblock). What the job needs to map its input onto the kept
//! vertices (the key map the store keeps) comes with it.

use crate::{StoreKind, StoreSettings};
use dyngraph_core::{Error, IdMap, Result};
use dyngraph_durable::{DurableVcsr, StoreDir};
use std::path::PathBuf;

/// The kept store a job writes to.
#[derive(Debug)]
pub enum KeptStore {
    /// A store is created in the (missing or empty) directory: it keeps
    /// the input's key map when the input is relabelled.
    New,
    /// The job appends to the store in `dir`, which keeps `keys` (or
    /// none: vertex ids as they are).
    Append {
        /// The store's directory.
        dir: PathBuf,
        /// The keys naming its vertices.
        keys: Option<IdMap>,
        /// Whether the store keeps in-edges: the replay's `auto` follows
        /// the store, so a day-2 run without a kernel appends to a store
        /// built with them.
        in_edges: bool,
    },
}

impl KeptStore {
    /// What the durable directory of `settings` holds, checked before any
    /// work: `None` when `stores` keep nothing (no durable store, or no
    /// directory: a temporary one).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a directory that holds a store
    /// without `append`, a missing or empty one with `append`, a damaged
    /// store, or files that are not a store's, each saying what was found.
    pub fn find(stores: &[StoreKind], settings: &StoreSettings) -> Result<Option<KeptStore>> {
        if !stores.contains(&StoreKind::Durable) {
            return Ok(None);
        }
        let Some(dir) = &settings.durable_dir else {
            return Ok(None);
        };
        let shown = dir.display();
        match DurableVcsr::inspect_dir(dir)? {
            StoreDir::NotADirectory => Err(Error::InvalidArgument(format!(
                "{shown} is a file: the durable store needs a directory"
            ))),
            StoreDir::Vacant if settings.append => Err(Error::InvalidArgument(format!(
                "{shown} holds no durable store to append to ({}): give the directory of a \
                 kept store, or leave out --append to create one",
                if dir.exists() {
                    "it is empty"
                } else {
                    "it does not exist"
                }
            ))),
            StoreDir::Vacant => Ok(Some(KeptStore::New)),
            StoreDir::Store { .. } if !settings.append => Err(Error::InvalidArgument(format!(
                "{shown} already holds a durable store: append to it (`append` in the \
                 settings, --append on the command line), or pick another directory"
            ))),
            StoreDir::Store { in_edges, .. } => Ok(Some(KeptStore::Append {
                dir: dir.clone(),
                keys: DurableVcsr::read_keys(dir)?,
                in_edges,
            })),
            StoreDir::Damaged { reason } => Err(Error::InvalidArgument(format!(
                "{shown} is not a store to write to: {reason}"
            ))),
            StoreDir::Foreign { entries } => Err(Error::InvalidArgument(format!(
                "{shown} holds files that are not a durable store's ({}): nothing in it is \
                 written over; give an empty or new directory for a new store",
                entries.join(", ")
            ))),
        }
    }
}
