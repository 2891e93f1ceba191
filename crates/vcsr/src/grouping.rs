//! A batch grouped by vertex, in parallel, arrival order kept within each
//! vertex: what the merged batch paths hand the edge arrays.
//!
//! The key space is cut into one part per thread with about as many items
//! each (a coarse histogram decides where); every part reads all the keys
//! and groups its own, by counting where the part's keys are dense and by
//! sorting `(key, arrival)` tags where they are sparse, straight into its
//! own piece of the output. Reading the keys once per part is a sequential
//! 4 bytes per item; the scatter, which is not, is done once.

use rayon::prelude::*;
use std::ops::Range;

/// Batches below this many items are grouped on the calling thread.
const PARALLEL_ITEMS: usize = 1 << 15;

/// Buckets of the histogram that balances the parts.
const BALANCE_BUCKETS: usize = 1 << 10;

/// Items grouped by key: key `keys[i]` has `items[offsets[i]..offsets[i +
/// 1]]`, in arrival order; keys strictly increasing.
#[derive(Debug)]
pub(crate) struct Groups<T> {
    pub(crate) keys: Vec<u32>,
    pub(crate) offsets: Vec<usize>,
    pub(crate) items: Vec<T>,
}

impl<T> Groups<T> {
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    #[inline]
    pub(crate) fn range(&self, i: usize) -> Range<usize> {
        self.offsets[i]..self.offsets[i + 1]
    }
}

/// `len` arrivals as keys and items, filled in parallel chunks by
/// `fill(first, keys, items)`, which writes arrivals `first..first +
/// keys.len()` in order.
pub(crate) fn collect<T: Copy + Default + Send>(
    len: usize,
    fill: impl Fn(usize, &mut [u32], &mut [T]) + Sync,
) -> (Vec<u32>, Vec<T>) {
    const CHUNK: usize = 1 << 14;
    let mut keys = vec![0u32; len];
    let mut items = vec![T::default(); len];
    keys.par_chunks_mut(CHUNK)
        .zip(items.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(chunk, (keys, items))| fill(chunk * CHUNK, keys, items));
    (keys, items)
}

/// Groups `items` by `keys` (arrival order kept within a key), ignoring
/// the items whose key is `key_bound` or more. Arrivals are numbered in
/// `u32`: at most `u32::MAX` items.
pub(crate) fn group_by_key<T: Copy + Default + Send + Sync>(
    keys: &[u32],
    items: &[T],
    key_bound: usize,
) -> Groups<T> {
    debug_assert_eq!(keys.len(), items.len());
    debug_assert!(keys.len() <= u32::MAX as usize);
    let key_bound = key_bound.min(u32::MAX as usize);
    let parts = if keys.len() < PARALLEL_ITEMS {
        1
    } else {
        rayon::current_num_threads().clamp(1, keys.len() / PARALLEL_ITEMS)
    };
    let ranges = balanced_key_ranges(keys, key_bound, parts);
    let sizes: Vec<usize> = ranges.iter().map(|(_, count)| *count).collect();
    let mut grouped = vec![T::default(); sizes.iter().sum()];
    let mut pieces = Vec::with_capacity(ranges.len());
    let mut rest = &mut grouped[..];
    for &size in &sizes {
        let (piece, tail) = std::mem::take(&mut rest).split_at_mut(size);
        pieces.push(piece);
        rest = tail;
    }
    let parts: Vec<(Vec<u32>, Vec<usize>)> = pieces
        .into_par_iter()
        .zip(ranges.into_par_iter())
        .map(|(out, (range, _))| group_part(keys, items, range, out))
        .collect();
    let groups = parts.iter().map(|(keys, _)| keys.len()).sum::<usize>();
    let mut all_keys = Vec::with_capacity(groups);
    let mut offsets = Vec::with_capacity(groups + 1);
    offsets.push(0);
    let mut base = 0;
    for ((keys, ends), size) in parts.into_iter().zip(sizes) {
        all_keys.extend(keys);
        offsets.extend(ends.into_iter().map(|end| base + end));
        base += size;
    }
    Groups {
        keys: all_keys,
        offsets,
        items: grouped,
    }
}

/// `parts` key ranges covering `0..key_bound`, with about as many items
/// each, and the items each holds.
fn balanced_key_ranges(keys: &[u32], key_bound: usize, parts: usize) -> Vec<(Range<u32>, usize)> {
    let bound = key_bound as u32;
    if parts == 1 {
        let count = keys.iter().filter(|&&k| k < bound).count();
        return vec![(0..bound, count)];
    }
    let shift =
        (usize::BITS - key_bound.leading_zeros()).saturating_sub(BALANCE_BUCKETS.trailing_zeros());
    let buckets = (key_bound >> shift) + 1;
    let histogram = keys
        .par_chunks(PARALLEL_ITEMS)
        .map(|chunk| {
            let mut counts = vec![0usize; buckets];
            for &key in chunk.iter().filter(|&&k| k < bound) {
                counts[(key >> shift) as usize] += 1;
            }
            counts
        })
        .reduce(
            || vec![0usize; buckets],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let total: usize = histogram.iter().sum();
    let mut ranges = Vec::with_capacity(parts);
    let (mut first_bucket, mut seen, mut in_part) = (0usize, 0usize, 0usize);
    for (bucket, &count) in histogram.iter().enumerate() {
        seen += count;
        in_part += count;
        let part = ranges.len();
        if part + 1 < parts && seen * parts >= (part + 1) * total {
            let end = ((bucket + 1) << shift).min(key_bound) as u32;
            ranges.push(((first_bucket << shift) as u32..end, in_part));
            first_bucket = bucket + 1;
            in_part = 0;
        }
    }
    ranges.push((
        ((first_bucket << shift).min(key_bound) as u32)..bound,
        in_part,
    ));
    ranges
}

/// Groups the items whose key is in `range` into `out` (exactly their
/// count); returns the part's keys and each group's end in `out`.
fn group_part<T: Copy>(
    keys: &[u32],
    items: &[T],
    range: Range<u32>,
    out: &mut [T],
) -> (Vec<u32>, Vec<usize>) {
    let span = (range.end - range.start) as usize;
    let (mut part_keys, mut ends) = (Vec::new(), Vec::new());
    if out.is_empty() {
        return (part_keys, ends);
    }
    if span <= 4 * out.len() {
        // Dense: a counting sort over the part's keys.
        let mut next = vec![0usize; span + 1];
        for &key in keys.iter().filter(|k| range.contains(k)) {
            next[(key - range.start) as usize + 1] += 1;
        }
        for k in 0..span {
            if next[k + 1] > 0 {
                part_keys.push(range.start + k as u32);
            }
            next[k + 1] += next[k];
        }
        ends.extend(
            part_keys
                .iter()
                .map(|&key| next[(key - range.start) as usize + 1]),
        );
        for (&key, &item) in keys.iter().zip(items).filter(|(k, _)| range.contains(k)) {
            let at = &mut next[(key - range.start) as usize];
            out[*at] = item;
            *at += 1;
        }
    } else {
        // Sparse: sort `(key, arrival)` tags, so equal keys keep arrival
        // order, then gather.
        let mut tags: Vec<u64> = keys
            .iter()
            .enumerate()
            .filter(|(_, k)| range.contains(k))
            .map(|(i, &k)| (u64::from(k) << 32) | i as u64)
            .collect();
        tags.sort_unstable();
        for (slot, &tag) in out.iter_mut().zip(&tags) {
            *slot = items[(tag & u64::from(u32::MAX)) as usize];
        }
        for (i, pair) in tags.windows(2).enumerate() {
            if pair[0] >> 32 != pair[1] >> 32 {
                part_keys.push((pair[0] >> 32) as u32);
                ends.push(i + 1);
            }
        }
        part_keys.push((tags[tags.len() - 1] >> 32) as u32);
        ends.push(tags.len());
    }
    (part_keys, ends)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expected(keys: &[u32], bound: usize) -> Vec<(u32, Vec<usize>)> {
        let mut by_key: Vec<(u32, Vec<usize>)> = Vec::new();
        let mut sorted: Vec<(u32, usize)> = keys
            .iter()
            .enumerate()
            .filter(|(_, k)| (**k as usize) < bound)
            .map(|(i, &k)| (k, i))
            .collect();
        sorted.sort();
        for (k, i) in sorted {
            match by_key.last_mut() {
                Some((last, items)) if *last == k => items.push(i),
                _ => by_key.push((k, vec![i])),
            }
        }
        by_key
    }

    fn check(keys: &[u32], bound: usize, threads: usize) {
        let items: Vec<usize> = (0..keys.len()).collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let groups = pool.install(|| group_by_key(keys, &items, bound));
        let got: Vec<(u32, Vec<usize>)> = (0..groups.len())
            .map(|g| (groups.keys[g], groups.items[groups.range(g)].to_vec()))
            .collect();
        assert_eq!(
            got,
            expected(keys, bound),
            "{} keys below {bound}, {threads} threads",
            keys.len()
        );
    }

    #[test]
    fn groups_keep_arrival_order_dense_sparse_and_skewed() {
        let mut state = 12345u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        for threads in [1, 2, 3] {
            check(&[], 10, threads);
            check(&[3, 1, 3, 0, 1, 3], 4, threads);
            // Out-of-range keys are dropped.
            check(&[9, 2, 12, 2, 10], 10, threads);
            let dense: Vec<u32> = (0..100_000).map(|_| next() % 5_000).collect();
            check(&dense, 5_000, threads);
            let sparse: Vec<u32> = (0..70_000).map(|_| next() % 10_000_000).collect();
            check(&sparse, 10_000_000, threads);
            // One hub takes most items: the parts are unbalanced but exact.
            let skewed: Vec<u32> = (0..90_000)
                .map(|i| if i % 4 == 0 { next() % 1_000 } else { 777 })
                .collect();
            check(&skewed, 1_000, threads);
        }
    }
}
