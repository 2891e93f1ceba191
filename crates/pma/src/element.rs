//! What the runs layout stores, and which of its elements may be reclaimed.

use std::fmt;
use std::sync::Arc;

/// An element of a [`PackedRuns`](crate::PackedRuns).
///
/// `Copy` because redistributions move elements with `memmove`; `Default`
/// because gap slots must hold *some* value (this keeps the crate free of
/// uninitialised memory, at the cost of writing `T::default()` into new
/// slots on growth). A store marks an element deleted in place (through
/// [`PackedRuns::run_mut`](crate::PackedRuns::run_mut)) and reports it here;
/// readers skip such elements, and a redistribution drops them when the
/// layout's [`Reclaim`] allows.
pub trait Element: Copy + Default {
    /// Whether this element is a deletion marker (default: never).
    fn is_tombstone(&self) -> bool {
        false
    }
}

macro_rules! never_tombstone {
    ($($t:ty),*) => { $(impl Element for $t {})* };
}
never_tombstone!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, char, bool
);

impl<A: Copy + Default, B: Copy + Default> Element for (A, B) {}
impl<A: Copy + Default, B: Copy + Default, C: Copy + Default> Element for (A, B, C) {}

/// Which elements a redistribution of a [`PackedRuns`](crate::PackedRuns)
/// may drop.
///
/// A store that keeps snapshots cannot drop a tombstone while a snapshot
/// older than the deletion may still read it; it uses [`Reclaim::Never`]
/// while such snapshots live, or [`Reclaim::When`] with a predicate that
/// compares the element's deletion version with the oldest live snapshot.
pub enum Reclaim<T> {
    /// Drop every element whose [`Element::is_tombstone`] is true (default).
    Tombstones,
    /// Drop nothing; redistributions keep every element.
    Never,
    /// Drop the elements for which the predicate is true.
    When(Arc<dyn Fn(&T) -> bool + Send + Sync>),
}

impl<T: Element> Reclaim<T> {
    /// Whether `element` may be dropped under this rule.
    pub fn reclaims(&self, element: &T) -> bool {
        match self {
            Reclaim::Tombstones => element.is_tombstone(),
            Reclaim::Never => false,
            Reclaim::When(predicate) => predicate(element),
        }
    }
}

impl<T> Clone for Reclaim<T> {
    fn clone(&self) -> Self {
        match self {
            Reclaim::Tombstones => Reclaim::Tombstones,
            Reclaim::Never => Reclaim::Never,
            Reclaim::When(p) => Reclaim::When(Arc::clone(p)),
        }
    }
}

impl<T> fmt::Debug for Reclaim<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reclaim::Tombstones => f.write_str("Tombstones"),
            Reclaim::Never => f.write_str("Never"),
            Reclaim::When(_) => f.write_str("When(<predicate>)"),
        }
    }
}
