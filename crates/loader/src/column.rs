//! [`Column`]: one column of an [`EdgeStream`](crate::EdgeStream), owned or
//! borrowed from a mapped binary edge-stream file.

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

/// The values of one column of an [`EdgeStream`](crate::EdgeStream)
/// (sources, destinations, weights or timestamps): a vector the stream
/// owns, or a range of a memory-mapped binary edge-stream file
/// ([`crate::edge_stream_file`]) read in place, without a copy.
///
/// Either way it reads as a slice (`Deref<Target = [T]>`); taking it apart
/// ([`Column::into_vec`]) or changing it copies a mapped column into a
/// vector first.
///
/// ```
/// use dyngraph_loader::Column;
/// let column = Column::from(vec![3u32, 1, 2]);
/// assert_eq!(&column[..], [3, 1, 2]);
/// assert!(!column.is_mapped());
/// assert_eq!(column.into_vec(), [3, 1, 2]);
/// ```
#[derive(Clone)]
pub struct Column<T>(Repr<T>);

#[derive(Clone)]
enum Repr<T> {
    Owned(Vec<T>),
    /// `bytes` of `map`, checked when the column was made to be aligned
    /// for `T` and a whole number of `T`s.
    Mapped {
        map: Arc<memmap2::Mmap>,
        bytes: Range<usize>,
    },
}

impl<T: bytemuck::Pod> Column<T> {
    /// `bytes` of `map` as a column, or `None` when they are not aligned for
    /// `T`, not a whole number of `T`s, or outside the map.
    pub(crate) fn mapped(map: &Arc<memmap2::Mmap>, bytes: Range<usize>) -> Option<Self> {
        let slice = map.get(bytes.clone())?;
        bytemuck::try_cast_slice::<u8, T>(slice).ok()?;
        Some(Column(Repr::Mapped {
            map: Arc::clone(map),
            bytes,
        }))
    }

    /// Whether the column is read in place from a mapped file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.0, Repr::Mapped { .. })
    }

    /// The values as a vector: moved out when owned, copied when mapped.
    pub fn into_vec(self) -> Vec<T> {
        match self.0 {
            Repr::Owned(values) => values,
            Repr::Mapped { .. } => self.to_vec(),
        }
    }

    /// Values `range` as a column of their own: a mapped column narrowed
    /// in place, an owned one copied. Panics if `range` is out of bounds,
    /// like slicing.
    pub(crate) fn range(&self, range: Range<usize>) -> Self {
        let values = &self[range.clone()];
        match &self.0 {
            Repr::Owned(_) => Column(Repr::Owned(values.to_vec())),
            Repr::Mapped { map, bytes } => {
                let size = std::mem::size_of::<T>();
                let start = bytes.start + range.start * size;
                // Aligned for `T` and a whole number of `T`s, as the
                // column it narrows.
                Column(Repr::Mapped {
                    map: Arc::clone(map),
                    bytes: start..start + std::mem::size_of_val(values),
                })
            }
        }
    }

    /// The values as a vector to change, copied out of the map first when
    /// mapped.
    pub(crate) fn make_mut(&mut self) -> &mut Vec<T> {
        if let Repr::Mapped { .. } = self.0 {
            self.0 = Repr::Owned(self.to_vec());
        }
        match &mut self.0 {
            Repr::Owned(values) => values,
            Repr::Mapped { .. } => unreachable!("replaced by an owned copy above"),
        }
    }
}

impl<T: bytemuck::Pod> Deref for Column<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.0 {
            Repr::Owned(values) => values,
            // Range, alignment and size were checked in `Column::mapped`,
            // and the map never changes, so the cast cannot fail.
            Repr::Mapped { map, bytes } => bytemuck::cast_slice(&map[bytes.clone()]),
        }
    }
}

impl<T> Default for Column<T> {
    fn default() -> Self {
        Column(Repr::Owned(Vec::new()))
    }
}

impl<T> From<Vec<T>> for Column<T> {
    fn from(values: Vec<T>) -> Self {
        Column(Repr::Owned(values))
    }
}

impl<T> FromIterator<T> for Column<T> {
    fn from_iter<I: IntoIterator<Item = T>>(values: I) -> Self {
        Column(Repr::Owned(values.into_iter().collect()))
    }
}

impl<T: bytemuck::Pod + PartialEq> PartialEq for Column<T> {
    fn eq(&self, other: &Self) -> bool {
        self[..] == other[..]
    }
}

impl<T: bytemuck::Pod + fmt::Debug> fmt::Debug for Column<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self[..].fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapped_column_reads_in_place_and_copies_when_changed() {
        let path = std::env::temp_dir().join(format!("dyngraph-column-{}", std::process::id()));
        let words: Vec<u32> = (0..16).collect();
        std::fs::write(&path, bytemuck::cast_slice::<u32, u8>(&words)).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        // SAFETY: a fresh file of this test, not modified while mapped.
        let map = Arc::new(unsafe { memmap2::Mmap::map(&file) }.unwrap());
        std::fs::remove_file(&path).unwrap();

        assert!(Column::<u32>::mapped(&map, 1..9).is_none(), "misaligned");
        assert!(Column::<u32>::mapped(&map, 0..6).is_none(), "not whole");
        assert!(Column::<u32>::mapped(&map, 0..68).is_none(), "past the end");
        let mut column = Column::<u32>::mapped(&map, 8..24).unwrap();
        assert!(column.is_mapped());
        assert_eq!(&column[..], [2, 3, 4, 5]);
        assert_eq!(column, Column::from(vec![2, 3, 4, 5]));
        let narrowed = column.range(1..3);
        assert!(narrowed.is_mapped());
        assert_eq!(&narrowed[..], [3, 4]);
        assert_eq!(column.range(4..4).len(), 0);
        assert!(!Column::from(vec![1u32, 2]).range(1..2).is_mapped());
        column.make_mut().push(6);
        assert!(!column.is_mapped());
        assert_eq!(column.into_vec(), [2, 3, 4, 5, 6]);
    }
}
