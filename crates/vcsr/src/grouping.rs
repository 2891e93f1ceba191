//! A batch grouped by vertex, in parallel, arrival order kept within each
//! vertex: what the merged batch paths hand the edge arrays.
//!
//! The key space is cut into one part per thread with about as many items
//! each (a coarse histogram decides where); every part reads all the keys
//! and groups its own into its own piece of the output: by counting where
//! the part's keys are dense, by a radix sort where they are not. Reading
//! the keys once per part is a sequential 4 bytes per item.

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

/// Parts of fewer items are grouped by sorting `(key, arrival)` tags.
const TAG_SORT_ITEMS: usize = 1 << 11;

/// Parts whose keys span at most this many values (and no more than four
/// per item) are grouped by counting: the counts stay in cache.
const COUNT_SPAN: usize = 1 << 16;

/// Buckets of the radix sort's first pass are at least `2^8` and enough
/// that each bucket's keys span at most `2^16` values.
const FIRST_DIGIT_BITS: u32 = 8;
const BUCKET_SPAN_BITS: u32 = 16;

/// Groups the items whose key is in `range` into `out` (exactly their
/// count); returns the part's keys and each group's end in `out`.
///
/// Keys of a narrow range are counted in one pass. Wider ones take a
/// radix sort of two passes: by the high bits into a few hundred buckets
/// (few enough write streams for the caches and the TLB, which a count
/// per key over a million-vertex range misses at every item), then each
/// bucket by its low bits, counted when it is dense enough and
/// tag-sorted otherwise. Both passes are stable, so arrival order holds
/// within a key. A few items are tag-sorted at once.
fn group_part<T: Copy + Default>(
    keys: &[u32],
    items: &[T],
    range: Range<u32>,
    out: &mut [T],
) -> (Vec<u32>, Vec<usize>) {
    let n = out.len();
    let span = (range.end - range.start) as usize;
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    if span <= COUNT_SPAN && span <= 4 * n {
        return count_part(keys, items, range, out);
    }
    if n < TAG_SORT_ITEMS {
        return tag_sort_part(keys, items, range, out);
    }
    let bits = u32::BITS - (span as u32 - 1).leading_zeros();
    let high = FIRST_DIGIT_BITS
        .max(bits.saturating_sub(BUCKET_SPAN_BITS))
        .min(bits);
    let low = bits - high;
    let mut next = vec![0u32; (1usize << high) + 1];
    for &key in keys.iter().filter(|k| range.contains(k)) {
        next[((key - range.start) >> low) as usize + 1] += 1;
    }
    for b in 1..next.len() {
        next[b] += next[b - 1];
    }
    let bucket_ends: Vec<usize> = next[1..].iter().map(|&end| end as usize).collect();
    let mut by_bucket = vec![(0u32, T::default()); n];
    for (&key, &item) in keys.iter().zip(items).filter(|(k, _)| range.contains(k)) {
        let key = key - range.start;
        let at = &mut next[(key >> low) as usize];
        by_bucket[*at as usize] = (key, item);
        *at += 1;
    }
    let (mut group_keys, mut ends) = (Vec::new(), Vec::new());
    let mut counts = Vec::new();
    let mut tags: Vec<u64> = Vec::new();
    let mut start = 0;
    for (bucket, &end) in bucket_ends.iter().enumerate() {
        let pairs = &by_bucket[start..end];
        let first_key = ((bucket as u32) << low) + range.start;
        let bucket_out = &mut out[start..end];
        if pairs.len() * 4 >= 1 << low {
            counts.clear();
            counts.resize((1usize << low) + 1, 0u32);
            let low_of = |key: u32| (key & ((1u32 << low) - 1)) as usize;
            for &(key, _) in pairs {
                counts[low_of(key) + 1] += 1;
            }
            for k in 0..1usize << low {
                if counts[k + 1] > 0 {
                    group_keys.push(first_key + k as u32);
                    ends.push(start + (counts[k] + counts[k + 1]) as usize);
                }
                counts[k + 1] += counts[k];
            }
            for &(key, item) in pairs {
                let at = &mut counts[low_of(key)];
                bucket_out[*at as usize] = item;
                *at += 1;
            }
        } else if !pairs.is_empty() {
            tags.clear();
            tags.extend(
                pairs
                    .iter()
                    .enumerate()
                    .map(|(i, &(key, _))| (u64::from(key) << 32) | i as u64),
            );
            tags.sort_unstable();
            for (i, (slot, &tag)) in bucket_out.iter_mut().zip(&tags).enumerate() {
                *slot = pairs[(tag & u64::from(u32::MAX)) as usize].1;
                if i + 1 == tags.len() || tags[i + 1] >> 32 != tag >> 32 {
                    group_keys.push(range.start + (tag >> 32) as u32);
                    ends.push(start + i + 1);
                }
            }
        }
        start = end;
    }
    (group_keys, ends)
}

/// [`group_part`] by counting: one count per key of the range.
fn count_part<T: Copy>(
    keys: &[u32],
    items: &[T],
    range: Range<u32>,
    out: &mut [T],
) -> (Vec<u32>, Vec<usize>) {
    let span = (range.end - range.start) as usize;
    let mut next = vec![0u32; span + 1];
    for &key in keys.iter().filter(|k| range.contains(k)) {
        next[(key - range.start) as usize + 1] += 1;
    }
    let mut part_keys = Vec::new();
    for k in 0..span {
        if next[k + 1] > 0 {
            part_keys.push(range.start + k as u32);
        }
        next[k + 1] += next[k];
    }
    let ends = part_keys
        .iter()
        .map(|&key| next[(key - range.start) as usize + 1] as usize)
        .collect();
    for (&key, &item) in keys.iter().zip(items).filter(|(k, _)| range.contains(k)) {
        let at = &mut next[(key - range.start) as usize];
        out[*at as usize] = item;
        *at += 1;
    }
    (part_keys, ends)
}

/// [`group_part`] by sorting `(key, arrival)` tags, so equal keys keep
/// arrival order.
fn tag_sort_part<T: Copy>(
    keys: &[u32],
    items: &[T],
    range: Range<u32>,
    out: &mut [T],
) -> (Vec<u32>, Vec<usize>) {
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
    let (mut part_keys, mut ends) = (Vec::new(), Vec::new());
    for (i, pair) in tags.windows(2).enumerate() {
        if pair[0] >> 32 != pair[1] >> 32 {
            part_keys.push((pair[0] >> 32) as u32);
            ends.push(i + 1);
        }
    }
    part_keys.push((tags[tags.len() - 1] >> 32) as u32);
    ends.push(tags.len());
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
            // Wider than a count per key in cache, dense enough to count
            // per bucket.
            let mid: Vec<u32> = (0..300_000).map(|_| next() % 200_000).collect();
            check(&mid, 200_000, threads);
            let few: Vec<u32> = (0..1_500).map(|_| next() % 1_000_000).collect();
            check(&few, 1_000_000, threads);
            let wide: Vec<u32> = (0..20_000).map(|_| next() % 3_000_000_000).collect();
            check(&wide, u32::MAX as usize, threads);
            // One hub takes most items: the parts are unbalanced but exact.
            let skewed: Vec<u32> = (0..90_000)
                .map(|i| if i % 4 == 0 { next() % 1_000 } else { 777 })
                .collect();
            check(&skewed, 1_000, threads);
        }
    }
}
