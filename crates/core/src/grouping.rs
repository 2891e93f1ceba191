//! A batch grouped by vertex, in parallel, arrival order kept within each
//! vertex: what the stores' merged batch paths (`Vcsr`'s and `CsrPP`'s)
//! hand their edge arrays.
//!
//! The batch is read in place, as [`Arrivals`]. The key space is cut into
//! one part per thread with about as many items each (a coarse histogram
//! decides where); every part reads the whole batch and groups its own
//! keys into its own piece of the output: by counting where the part's
//! keys are dense, by a radix sort where they are not. Reading the batch
//! once per part is sequential; the scatters, which are not, are done
//! once.

use rayon::prelude::*;
use std::ops::Range;

/// Batches below this many items are grouped on the calling thread.
const PARALLEL_ITEMS: usize = 1 << 15;

/// Buckets of the histogram that balances the parts.
const BALANCE_BUCKETS: usize = 1 << 10;

/// Items grouped by key: key `keys[i]` has `items[offsets[i]..offsets[i +
/// 1]]`, in arrival order; keys strictly increasing.
#[derive(Debug)]
pub struct Groups<T> {
    /// The keys that have items, increasing.
    pub keys: Vec<u32>,
    /// `keys.len() + 1` positions into `items`, from 0.
    pub offsets: Vec<usize>,
    /// The items, grouped by key.
    pub items: Vec<T>,
}

impl<T> Groups<T> {
    /// The number of keys with items.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no key has items.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The positions in `items` of group `i`.
    #[inline]
    pub fn range(&self, i: usize) -> Range<usize> {
        self.offsets[i]..self.offsets[i + 1]
    }
}

/// A batch's arrivals, each a key and an item, read in order by range.
pub trait Arrivals: Sync {
    /// What is grouped.
    type Item: Copy + Default + Send + Sync;

    /// The number of arrivals.
    fn len(&self) -> usize;

    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f(key, item)` for the arrivals of `range`, in order.
    fn visit(&self, range: Range<usize>, f: impl FnMut(u32, Self::Item));
}

/// Groups the arrivals by key (arrival order kept within a key), ignoring
/// those whose key is `key_bound` or more. At most `u32::MAX` arrivals.
pub fn group_by_key<A: Arrivals>(arrivals: &A, key_bound: usize) -> Groups<A::Item> {
    debug_assert!(arrivals.len() <= u32::MAX as usize);
    let key_bound = key_bound.min(u32::MAX as usize);
    let len = arrivals.len();
    let parts = if len < PARALLEL_ITEMS {
        1
    } else {
        rayon::current_num_threads().clamp(1, len / PARALLEL_ITEMS)
    };
    let ranges = balanced_key_ranges(arrivals, key_bound, parts);
    let sizes: Vec<usize> = ranges.iter().map(|(_, count)| *count).collect();
    let mut grouped = vec![A::Item::default(); sizes.iter().sum()];
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
        .map(|(out, (range, _))| group_part(arrivals, range, out))
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
fn balanced_key_ranges<A: Arrivals>(
    arrivals: &A,
    key_bound: usize,
    parts: usize,
) -> Vec<(Range<u32>, usize)> {
    let bound = key_bound as u32;
    if parts == 1 {
        let mut count = 0;
        arrivals.visit(0..arrivals.len(), |key, _| {
            count += usize::from(key < bound)
        });
        return vec![(0..bound, count)];
    }
    let shift =
        (usize::BITS - key_bound.leading_zeros()).saturating_sub(BALANCE_BUCKETS.trailing_zeros());
    let buckets = (key_bound >> shift) + 1;
    let histogram = (0..arrivals.len())
        .into_par_iter()
        .step_by(PARALLEL_ITEMS)
        .map(|first| {
            let mut counts = vec![0usize; buckets];
            let chunk = first..(first + PARALLEL_ITEMS).min(arrivals.len());
            arrivals.visit(chunk, |key, _| {
                if key < bound {
                    counts[(key >> shift) as usize] += 1;
                }
            });
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
fn group_part<A: Arrivals>(
    arrivals: &A,
    range: Range<u32>,
    out: &mut [A::Item],
) -> (Vec<u32>, Vec<usize>) {
    let n = out.len();
    let span = (range.end - range.start) as usize;
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    if span <= COUNT_SPAN && span <= 4 * n {
        return count_part(arrivals, range, out);
    }
    let all = 0..arrivals.len();
    if n < TAG_SORT_ITEMS {
        let mut tagged = Vec::with_capacity(n);
        arrivals.visit(all, |key, item| {
            if range.contains(&key) {
                tagged.push((key - range.start, item));
            }
        });
        let (mut keys, mut ends) = (Vec::new(), Vec::new());
        tag_sort(
            &tagged,
            range.start,
            0,
            out,
            &mut Vec::new(),
            &mut keys,
            &mut ends,
        );
        return (keys, ends);
    }
    let bits = u32::BITS - (span as u32 - 1).leading_zeros();
    let high = FIRST_DIGIT_BITS
        .max(bits.saturating_sub(BUCKET_SPAN_BITS))
        .min(bits);
    let low = bits - high;
    let mut next = vec![0u32; (1usize << high) + 1];
    arrivals.visit(all.clone(), |key, _| {
        if range.contains(&key) {
            next[((key - range.start) >> low) as usize + 1] += 1;
        }
    });
    for b in 1..next.len() {
        next[b] += next[b - 1];
    }
    let bucket_ends: Vec<usize> = next[1..].iter().map(|&end| end as usize).collect();
    let mut by_bucket = vec![(0u32, A::Item::default()); n];
    arrivals.visit(all, |key, item| {
        if range.contains(&key) {
            let key = key - range.start;
            let at = &mut next[(key >> low) as usize];
            by_bucket[*at as usize] = (key, item);
            *at += 1;
        }
    });
    let (mut group_keys, mut ends) = (Vec::new(), Vec::new());
    let (mut counts, mut tags) = (Vec::new(), Vec::new());
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
            tag_sort(
                pairs,
                range.start,
                start,
                bucket_out,
                &mut tags,
                &mut group_keys,
                &mut ends,
            );
        }
        start = end;
    }
    (group_keys, ends)
}

/// Groups `pairs` (`(key - key_base, item)` in arrival order) into `out`
/// by sorting `(key, position)` tags, so equal keys keep arrival order;
/// pushes each group's key and end (`out` starts at `first` of the part).
fn tag_sort<T: Copy>(
    pairs: &[(u32, T)],
    key_base: u32,
    first: usize,
    out: &mut [T],
    tags: &mut Vec<u64>,
    keys: &mut Vec<u32>,
    ends: &mut Vec<usize>,
) {
    tags.clear();
    tags.extend(
        pairs
            .iter()
            .enumerate()
            .map(|(i, &(key, _))| (u64::from(key) << 32) | i as u64),
    );
    tags.sort_unstable();
    for (i, (slot, &tag)) in out.iter_mut().zip(tags.iter()).enumerate() {
        *slot = pairs[(tag & u64::from(u32::MAX)) as usize].1;
        if i + 1 == tags.len() || tags[i + 1] >> 32 != tag >> 32 {
            keys.push(key_base + (tag >> 32) as u32);
            ends.push(first + i + 1);
        }
    }
}

/// [`group_part`] by counting: one count per key of the range.
fn count_part<A: Arrivals>(
    arrivals: &A,
    range: Range<u32>,
    out: &mut [A::Item],
) -> (Vec<u32>, Vec<usize>) {
    let span = (range.end - range.start) as usize;
    let mut next = vec![0u32; span + 1];
    arrivals.visit(0..arrivals.len(), |key, _| {
        if range.contains(&key) {
            next[(key - range.start) as usize + 1] += 1;
        }
    });
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
    arrivals.visit(0..arrivals.len(), |key, item| {
        if range.contains(&key) {
            let at = &mut next[(key - range.start) as usize];
            out[*at as usize] = item;
            *at += 1;
        }
    });
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

    /// Keys in arrival order; each arrival's item is its number.
    struct Numbered<'a>(&'a [u32]);

    impl Arrivals for Numbered<'_> {
        type Item = usize;
        fn len(&self) -> usize {
            self.0.len()
        }
        fn visit(&self, range: Range<usize>, mut f: impl FnMut(u32, usize)) {
            for i in range {
                f(self.0[i], i);
            }
        }
    }

    fn check(keys: &[u32], bound: usize, threads: usize) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let groups = pool.install(|| group_by_key(&Numbered(keys), bound));
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
