//! The copy-before-write snapshot registry `Pcsr` and `Bal` keep
//! ([`dyngraph_core::cow`]).

use dyngraph_core::cow::SnapshotRegistry;
use std::ops::Deref;

/// A store's [`SnapshotRegistry`], which a clone of the store does not
/// share: snapshots of the original describe the original only, so the
/// clone starts with a fresh registry (deriving `Clone` on the store then
/// does the right thing).
#[derive(Debug, Default)]
pub(crate) struct CowRegistry(SnapshotRegistry);

impl Clone for CowRegistry {
    fn clone(&self) -> Self {
        CowRegistry::default()
    }
}

impl Deref for CowRegistry {
    type Target = SnapshotRegistry;

    #[inline]
    fn deref(&self) -> &SnapshotRegistry {
        &self.0
    }
}
