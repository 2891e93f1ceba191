//! [`BatchUpdates::Merged`](crate::BatchUpdates::Merged): a batch grouped
//! by vertex in parallel, then merged into each edge array in one pass
//! ([`PackedRuns::append_batch`]); deletes grouped the same way and
//! tombstoned run by run in parallel ([`PackedRuns::par_runs_mut`]).
//!
//! The result equals applying the batch one edge at a time: every list,
//! out and in, gets the batch's edges in arrival order (under simple
//! semantics a batch's in-edges arrive in source order), and a delete
//! removes the oldest live occurrence.

use super::{EdgeArrays, pma_error};
use crate::slot::{Slot, TOMBSTONE, Target};
use dyngraph_core::grouping::{Arrivals, Groups, group_by_key};
use dyngraph_core::{EdgeSource, Error, Result, VertexId};
use dyngraph_pma::{Element, GapPolicy, PackedRuns, RunAppends};
use rayon::prelude::*;
use std::marker::PhantomData;
use std::ops::Range;

/// Marks a delete that found no live occurrence.
const NOT_FOUND: u32 = u32::MAX;

/// A deleted slot a snapshot may still need: `(in-edge array, vertex,
/// index in its run)`.
pub(super) type DeletedSlot = (bool, VertexId, u32);

/// A run is matched against at most this many distinct targets of a batch
/// one target at a time, against more through [`SortedTargets`].
const FEW_TARGETS: usize = 8;

/// Runs of at most this many slots (run and batch together) are checked
/// for duplicates by scanning each pair, longer ones in one pass over the
/// run ([`SortedTargets`]).
const SCAN_FOR_DUPLICATES: usize = 64;

/// A batch's out-edges: keyed by source, the slots to append.
struct OutSlots<'a, E: ?Sized, S>(&'a E, PhantomData<S>);

impl<E: EdgeSource + ?Sized, S: Slot> Arrivals for OutSlots<'_, E, S> {
    type Item = S;
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn visit(&self, range: Range<usize>, mut f: impl FnMut(u32, S)) {
        self.0
            .for_each_in(range, |src, dst, weight| f(src, S::new(dst, weight)));
    }
}

/// A batch's in-edges: keyed by destination, the sources.
struct InSlots<'a, E: ?Sized>(&'a E);

impl<E: EdgeSource + ?Sized> Arrivals for InSlots<'_, E> {
    type Item = Target;
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn visit(&self, range: Range<usize>, mut f: impl FnMut(u32, Target)) {
        self.0.for_each_in(range, |src, dst, _| f(dst, Target(src)));
    }
}

/// A batch of deletes: keyed by source (an edge with an end outside the
/// graph, which cannot be there, by a key past every vertex), the
/// destination and where it was found.
struct Deletes<'a, E: ?Sized> {
    edges: &'a E,
    vertices: usize,
}

impl<E: EdgeSource + ?Sized> Arrivals for Deletes<'_, E> {
    type Item = (u32, u32);
    fn len(&self) -> usize {
        self.edges.len()
    }
    #[inline]
    fn visit(&self, range: Range<usize>, mut f: impl FnMut(u32, (u32, u32))) {
        let vertices = self.vertices;
        self.edges.for_each_in(range, |src, dst, _| {
            let inside = (src as usize) < vertices && (dst as usize) < vertices;
            f(if inside { src } else { u32::MAX }, (dst, NOT_FOUND));
        });
    }
}

/// Groups read again as arrivals: `regroup(key, item)` gives each item's
/// new key and item, in the groups' order.
struct Regrouped<'a, T, F> {
    groups: &'a Groups<T>,
    regroup: F,
}

impl<T, U, F> Arrivals for Regrouped<'_, T, F>
where
    T: Sync,
    U: Copy + Default + Send + Sync,
    F: Fn(u32, &T) -> (u32, U) + Sync,
{
    type Item = U;
    fn len(&self) -> usize {
        self.groups.items.len()
    }
    fn visit(&self, range: Range<usize>, mut f: impl FnMut(u32, U)) {
        let offsets = &self.groups.offsets;
        let mut g = offsets
            .partition_point(|&end| end <= range.start)
            .saturating_sub(1);
        for i in range {
            while offsets[g + 1] <= i {
                g += 1;
            }
            let (key, item) = (self.regroup)(self.groups.keys[g], &self.groups.items[i]);
            f(key, item);
        }
    }
}

/// The groups' item slices, mutable, in key order.
fn split_items<'a, T>(offsets: &[usize], mut items: &'a mut [T]) -> Vec<&'a mut [T]> {
    let mut slices = Vec::with_capacity(offsets.len().saturating_sub(1));
    for bounds in offsets.windows(2) {
        let (slice, rest) = std::mem::take(&mut items).split_at_mut(bounds[1] - bounds[0]);
        slices.push(slice);
        items = rest;
    }
    slices
}

/// Appends each group to its vertex's run and counts it in its degree.
fn append_groups<T: Element + Send + Sync, P: GapPolicy>(
    runs: &mut PackedRuns<T, P>,
    groups: &Groups<T>,
    degrees: &mut [u32],
) -> Result<()> {
    let appends =
        RunAppends::new(&groups.keys, &groups.offsets, &groups.items).map_err(pma_error)?;
    runs.append_batch(appends).map_err(pma_error)?;
    change_degrees(
        degrees,
        &groups.keys,
        |g| groups.range(g).len() as u32,
        true,
    );
    Ok(())
}

/// Groups per task when degrees change.
const DEGREE_TASK_GROUPS: usize = 1 << 12;

/// Adds (or, not `add`, subtracts) `count(g)` to the degree of vertex
/// `keys[g]` for every group `g`, in parallel over disjoint ranges of
/// vertices (each update is a cache miss on a large graph).
fn change_degrees(
    degrees: &mut [u32],
    keys: &[u32],
    count: impl Fn(usize) -> u32 + Sync,
    add: bool,
) {
    let mut pieces = Vec::with_capacity(keys.len().div_ceil(DEGREE_TASK_GROUPS));
    let (mut rest, mut at) = (degrees, 0usize);
    for first in (0..keys.len()).step_by(DEGREE_TASK_GROUPS) {
        let last = (first + DEGREE_TASK_GROUPS).min(keys.len()) - 1;
        let vertices = keys[first] as usize..keys[last] as usize + 1;
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(vertices.start - at);
        let (piece, tail) = tail.split_at_mut(vertices.len());
        pieces.push((first..last + 1, vertices.start, piece));
        rest = tail;
        at = vertices.end;
    }
    pieces
        .into_par_iter()
        .for_each(|(groups, first_vertex, piece)| {
            for g in groups {
                let degree = &mut piece[keys[g] as usize - first_vertex];
                if add {
                    *degree += count(g);
                } else {
                    *degree -= count(g);
                }
            }
        });
}

/// Which of `new` (in order) a run holding `run` may take under simple
/// semantics: no live slot of the run and no earlier kept one of `new`
/// points to the same target.
///
/// A long run is matched against the batch's distinct targets in one
/// pass, `O(degree + batch)`: a hub's run is read once per batch that
/// touches it, not hashed into a set first (a `HashSet` of every run a
/// batch touched cost about the whole graph's edges per batch on a
/// Kronecker graph, whose hubs every batch touches: 0.08 M edges/s at
/// 10^4-edge batches).
fn keep_firsts<S: Slot>(run: &[S], new: &[S]) -> Vec<bool> {
    let live = |slot: &S| slot.target().0;
    if run.len() + new.len() <= SCAN_FOR_DUPLICATES {
        let mut keep = Vec::with_capacity(new.len());
        for (j, slot) in new.iter().enumerate() {
            let target = slot.target().0;
            let seen = run.iter().any(|s| live(s) == target)
                || new[..j]
                    .iter()
                    .zip(&keep)
                    .any(|(s, &k)| k && s.target().0 == target);
            keep.push(!seen);
        }
        return keep;
    }
    // The first arrival of each distinct target: sorted by target, then
    // by position, the first of each target's entries.
    let mut firsts: Vec<(u32, u32)> = new
        .iter()
        .enumerate()
        .map(|(j, slot)| (slot.target().0, j as u32))
        .collect();
    firsts.sort_unstable();
    firsts.dedup_by_key(|&mut (target, _)| target);
    let targets: Vec<u32> = firsts.iter().map(|&(target, _)| target).collect();
    let mut present = vec![false; targets.len()];
    // Tombstones carry the top bit, so they never equal a target.
    if targets.len() <= FEW_TARGETS {
        // A pass per target with no branch per slot: the compiler turns
        // each into vector compares, several slots a cycle (most runs a
        // batch touches take one or two of its edges).
        for (&target, present) in targets.iter().zip(&mut present) {
            *present = run
                .iter()
                .fold(false, |seen, slot| seen | (slot.target().0 == target));
        }
    } else {
        let targets = SortedTargets::new(targets);
        for block in run.chunks(64) {
            let mut candidates = targets.candidates(block.iter().map(|slot| slot.target().0));
            while candidates != 0 {
                let at = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                if let Some(t) = targets.find(block[at].target().0) {
                    present[t] = true;
                }
            }
        }
    }
    let mut keep = vec![false; new.len()];
    for (&(_, j), &present) in firsts.iter().zip(&present) {
        keep[j as usize] = !present;
    }
    keep
}

/// Distinct targets, sorted, with a bit per hashed target that turns away
/// most ids before the binary search: what a pass over a long run matches
/// a batch's edges against.
struct SortedTargets {
    targets: Vec<u32>,
    filter: Vec<u64>,
    shift: u32,
}

impl SortedTargets {
    /// `targets` sorted and distinct.
    fn new(targets: Vec<u32>) -> Self {
        debug_assert!(targets.windows(2).all(|w| w[0] < w[1]));
        // 32 bits per target: about 3% of other ids pass.
        let filter_bits = (targets.len() * 32).next_power_of_two().clamp(64, 1 << 16);
        let mut sorted = Self {
            filter: vec![0u64; filter_bits / 64],
            shift: u32::BITS - filter_bits.trailing_zeros(),
            targets,
        };
        for t in 0..sorted.targets.len() {
            let bit = sorted.bit(sorted.targets[t]);
            sorted.filter[bit / 64] |= 1 << (bit % 64);
        }
        sorted
    }

    #[inline]
    fn bit(&self, id: u32) -> usize {
        (id.wrapping_mul(0x9E37_79B1) >> self.shift) as usize
    }

    #[inline]
    fn passes(&self, id: u32) -> bool {
        let bit = self.bit(id);
        self.filter[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// Bit `i` set for the `i`-th of (at most 64) `ids` that passes the
    /// filter: computed without a branch per id, so a long run's
    /// mismatches cost no mispredicted jumps, only its candidates do.
    #[inline]
    fn candidates(&self, ids: impl Iterator<Item = u32>) -> u64 {
        ids.enumerate()
            .fold(0, |mask, (i, id)| mask | (u64::from(self.passes(id)) << i))
    }

    /// The index of `id` among the targets, if it is one.
    #[inline]
    fn find(&self, id: u32) -> Option<usize> {
        if !self.passes(id) {
            return None;
        }
        self.targets.binary_search(&id).ok()
    }
}

impl<S: Slot, P: GapPolicy + Clone + Send> EdgeArrays<'_, S, P> {
    /// Inserts a batch (ids checked, the graph grown) the merged way.
    /// Returns the edges added. Under multigraph semantics the out- and
    /// in-edge sides are independent and run side by side.
    pub(super) fn insert_merged<E: EdgeSource + ?Sized>(&mut self, edges: &E) -> Result<u64> {
        let vertices = self.out_degree.len();
        if self.simple {
            let mut out = group_by_key(&OutSlots(edges, PhantomData), vertices);
            self.drop_duplicates(&mut out);
            append_groups(self.out, &out, self.out_degree)?;
            if let Some(runs) = self.incoming.as_deref_mut() {
                let sources = Regrouped {
                    groups: &out,
                    regroup: |src: u32, slot: &S| (slot.target().0, Target(src)),
                };
                append_groups(runs, &group_by_key(&sources, vertices), self.in_degree)?;
            }
            return Ok(out.items.len() as u64);
        }
        let (out_runs, out_degree) = (&mut *self.out, &mut *self.out_degree);
        let (incoming, in_degree) = (self.incoming.as_deref_mut(), &mut *self.in_degree);
        let (out, into) = rayon::join(
            || {
                append_groups(
                    out_runs,
                    &group_by_key(&OutSlots(edges, PhantomData), vertices),
                    out_degree,
                )
            },
            || match incoming {
                Some(runs) => {
                    append_groups(runs, &group_by_key(&InSlots(edges), vertices), in_degree)
                }
                None => Ok(()),
            },
        );
        out?;
        into?;
        Ok(edges.len() as u64)
    }

    /// Under simple semantics: drops from `out` every edge the store or an
    /// earlier edge of the batch already has.
    fn drop_duplicates(&self, out: &mut Groups<S>) {
        let runs: Vec<&[S]> = out
            .keys
            .iter()
            .map(|&v| self.out.run(v as usize).unwrap_or(&[]))
            .collect();
        let groups = &*out;
        let keep: Vec<bool> = runs
            .par_iter()
            .enumerate()
            .flat_map_iter(|(g, run)| keep_firsts(run, &groups.items[groups.range(g)]))
            .collect();
        let (mut write, mut kept_keys, mut ends) = (0, Vec::new(), vec![0]);
        for g in 0..out.len() {
            for read in out.range(g) {
                if keep[read] {
                    out.items[write] = out.items[read];
                    write += 1;
                }
            }
            if write > *ends.last().unwrap_or(&0) {
                kept_keys.push(out.keys[g]);
                ends.push(write);
            }
        }
        out.items.truncate(write);
        out.keys = kept_keys;
        out.offsets = ends;
    }

    /// Deletes a batch the merged way: each edge removes the oldest live
    /// occurrence, if any. Returns the edges removed and, when `record`,
    /// the slots deleted (for the snapshots alive).
    pub(super) fn delete_merged<E: EdgeSource + ?Sized>(
        &mut self,
        edges: &E,
        record: bool,
    ) -> Result<(u64, Vec<DeletedSlot>)> {
        let vertices = self.out_degree.len();
        let mut out = group_by_key(&Deletes { edges, vertices }, vertices);
        let slices = split_items(&out.offsets, &mut out.items);
        let removed = self
            .out
            .par_runs_mut(&out.keys, slices, |run, wanted| {
                tombstone_oldest(run, wanted, |slot: &mut S| &mut slot.target_mut().0)
            })
            .map_err(pma_error)?;
        change_degrees(self.out_degree, &out.keys, |g| removed[g], false);
        let total = removed.iter().map(|&count| u64::from(count)).sum();
        let mut deleted = Vec::new();
        if record {
            for (g, &v) in out.keys.iter().enumerate() {
                let found = out.items[out.range(g)]
                    .iter()
                    .filter(|(_, at)| *at != NOT_FOUND);
                deleted.extend(found.map(|&(_, at)| (false, v, at)));
            }
        }
        if let Some(incoming) = self.incoming.as_deref_mut() {
            let found = Regrouped {
                groups: &out,
                regroup: |src: u32, &(dst, at): &(u32, u32)| {
                    (
                        if at == NOT_FOUND { u32::MAX } else { dst },
                        (src, NOT_FOUND),
                    )
                },
            };
            let mut sources = group_by_key(&found, vertices);
            let slices = split_items(&sources.offsets, &mut sources.items);
            let removed = incoming
                .par_runs_mut(&sources.keys, slices, |run, wanted| {
                    tombstone_oldest(run, wanted, |slot: &mut Target| &mut slot.0)
                })
                .map_err(pma_error)?;
            for (g, (&v, &count)) in sources.keys.iter().zip(&removed).enumerate() {
                if count as usize != sources.range(g).len() {
                    return Err(Error::InvalidStructure(format!(
                        "in-edges of {v}: {} of a batch's deletes missing",
                        sources.range(g).len() - count as usize
                    )));
                }
                if record {
                    let found = sources.items[sources.range(g)].iter();
                    deleted.extend(found.map(|&(_, at)| (true, v, at)));
                }
            }
            change_degrees(self.in_degree, &sources.keys, |g| removed[g], false);
        }
        Ok((total, deleted))
    }
}

/// Runs with at most this many deletes are searched once per delete;
/// more are matched in one pass over the run.
const SEARCH_PER_DELETE: usize = 4;

/// Tombstones, for each `(target, found)` of `wanted` in order, the first
/// live slot of `run` pointing to `target` (the `i`-th delete of a target
/// takes its `i`-th live occurrence), and notes its index in `found`.
/// Returns how many were found.
///
/// Many deletes from one run (a hub's) are matched in one pass over the
/// run, `O(degree + deletes)`, instead of a search each, `O(degree)` per
/// delete: on Kronecker graphs hubs take a share of every batch.
fn tombstone_oldest<S: Copy>(
    run: &mut [S],
    wanted: &mut [(u32, u32)],
    target: impl Fn(&mut S) -> &mut u32,
) -> u32 {
    let mut removed = 0;
    if wanted.len() <= SEARCH_PER_DELETE {
        for (dst, found) in wanted.iter_mut() {
            if let Some(at) = run.iter_mut().position(|slot| *target(slot) == *dst) {
                *target(&mut run[at]) |= TOMBSTONE;
                *found = at as u32;
                removed += 1;
            }
        }
        return removed;
    }
    // The deletes of each distinct target (sorted), in order:
    // `order[next..end]` of a target are its deletes still unmatched. A
    // bit per hashed target turns away most slots before the search.
    let mut order: Vec<u32> = (0..wanted.len() as u32).collect();
    order.sort_unstable_by_key(|&i| (wanted[i as usize].0, i));
    let (mut targets, mut spans): (Vec<u32>, Vec<(usize, usize)>) = (Vec::new(), Vec::new());
    for (at, &i) in order.iter().enumerate() {
        let t = wanted[i as usize].0;
        match targets.last() {
            Some(&last) if last == t => spans.last_mut().map_or((), |span| span.1 = at + 1),
            _ => {
                targets.push(t);
                spans.push((at, at + 1));
            }
        }
    }
    let targets = SortedTargets::new(targets);
    for (position, slot) in run.iter_mut().enumerate() {
        let id = target(slot);
        if let Some(t) = targets.find(*id) {
            let (next, end) = &mut spans[t];
            if next < end {
                *id |= TOMBSTONE;
                wanted[order[*next] as usize].1 = position as u32;
                *next += 1;
                removed += 1;
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `keep_firsts` must answer, written plainly: an arrival is kept
    /// when no live slot of the run and no earlier arrival has its target.
    fn model(run: &[Target], new: &[Target]) -> Vec<bool> {
        new.iter()
            .enumerate()
            .map(|(j, slot)| {
                let target = slot.0;
                !run.iter().any(|s| s.0 == target) && !new[..j].iter().any(|s| s.0 == target)
            })
            .collect()
    }

    #[test]
    fn keep_firsts_agrees_with_the_plain_check_on_every_path() {
        // Short runs (pairs scanned), long runs with few targets (a pass
        // per target) and with many (the filter), tombstones that once
        // held a target, and repeats inside the batch.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |bound: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % u64::from(bound)) as u32
        };
        for (run_len, new_len, ids) in [
            (10, 5, 20),
            (200, 1, 300),
            (200, 3, 300),
            (5_000, 8, 6_000),
            (5_000, 9, 6_000),
            (5_000, 700, 6_000),
            (70, 70, 50),
        ] {
            for _ in 0..20 {
                let run: Vec<Target> = (0..run_len)
                    .map(|_| {
                        let id = next(ids);
                        Target(if next(5) == 0 { id | TOMBSTONE } else { id })
                    })
                    .collect();
                let new: Vec<Target> = (0..new_len).map(|_| Target(next(ids))).collect();
                assert_eq!(
                    keep_firsts(&run, &new),
                    model(&run, &new),
                    "run of {run_len}, {new_len} new, ids below {ids}"
                );
            }
        }
    }
}
