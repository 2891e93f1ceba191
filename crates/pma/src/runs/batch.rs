//! Batches of appends to a [`PackedRuns`]: each run's new elements written
//! once, each window the batch overflows redistributed once, disjoint
//! windows in parallel (the batch-parallel packed-memory array of
//! CPMA/F-Graph, Wheatman et al., PPoPP 2024, and PCSR's batch insert).
//!
//! A batch goes one of two ways, chosen by how much of the array it
//! touches:
//! - **merge**: runs with room take their elements in place; every leaf
//!   section with a run that overflows climbs the density tree to the
//!   smallest window that holds the batch's elements within its bound, as
//!   one insert's rebalance would, nested windows are merged, and each
//!   window is laid out again once, in place. Tasks over disjoint runs run
//!   in parallel.
//! - **rebuild**: when that costs less by the measured costs below
//!   ([`merge_costs_more`]), or the root would pass its bound (a growth),
//!   the whole array is laid out again out of place in one parallel pass:
//!   every element is copied once, however many runs take elements and
//!   however large the windows.

use super::{LinearPlacement, PackedRuns, check_capacity, index};
use crate::PmaError;
use crate::element::{Element, Reclaim};
use crate::mover::{Block, move_blocks};
use crate::policy::{GapPolicy, Window, apportion};
use crate::tree::DensityTree;
use rayon::prelude::*;
use std::ops::Range;

/// Costs in nanoseconds on one core, measured on Kronecker 20 (15 M
/// elements, 24 M slots, 1 M runs; `batch_updates` example of
/// `dyngraph-benches`, one thread): a merge pays about 20 per receiving
/// run (its bookkeeping and its slots are cache misses: 18-24 measured at
/// 10^5 and 10^6-element batches) and about 1 per element a window moves
/// (`memmove`); a rebuild pays about 1.6 per element copied and 0.5 per
/// slot of the fresh array filled (36 ms for the whole array).
const MERGE_NS_PER_RUN: f64 = 20.0;
const MERGE_NS_PER_MOVE: f64 = 1.0;
const REBUILD_NS_PER_ELEMENT: f64 = 1.6;
const REBUILD_NS_PER_SLOT: f64 = 0.5;

/// Whether merging a batch into `runs` receiving runs and `windows` costs
/// more than rebuilding an array of `elements` (batch included) in
/// `slots` slots on `threads` threads. A merge's windows are each laid
/// out by one thread, so the largest bounds it from below.
fn merge_costs_more(
    runs: usize,
    windows: &[Job],
    density: f64,
    elements: usize,
    slots: usize,
    threads: usize,
) -> bool {
    let moves = |w: &Job| w.slots.len() as f64 * density * MERGE_NS_PER_MOVE;
    let largest = windows.iter().map(moves).fold(0.0, f64::max);
    let merge = runs as f64 * MERGE_NS_PER_RUN + windows.iter().map(moves).sum::<f64>();
    let rebuild = elements as f64 * REBUILD_NS_PER_ELEMENT + slots as f64 * REBUILD_NS_PER_SLOT;
    let threads = threads.max(1) as f64;
    (merge / threads).max(largest) > rebuild / threads
}

/// A task of runs taking their elements in place is closed once it holds
/// this many of the batch's elements (tasks small enough to share out,
/// large enough that their set-up is noise).
const IN_PLACE_TASK_ELEMENTS: usize = 1 << 14;

/// Runs per task of a rebuild's copy and placement.
const REBUILD_TASK_RUNS: usize = 1 << 12;

/// Receiving runs per task when the batch is counted into the sections.
const COUNT_TASK_RUNS: usize = 1 << 12;

/// The elements a batch appends to some runs of a [`PackedRuns`].
#[derive(Clone, Copy, Debug)]
pub struct RunAppends<'a, T> {
    runs: &'a [u32],
    offsets: &'a [usize],
    elements: &'a [T],
}

impl<'a, T> RunAppends<'a, T> {
    /// Run `runs[i]` receives `elements[offsets[i]..offsets[i + 1]]`,
    /// after its current elements, in that order. Refuses (with
    /// [`PmaError::Invariant`]) runs that are not strictly increasing, and
    /// offsets that are not one more than the runs, non-decreasing, from 0
    /// to `elements.len()`.
    pub fn new(runs: &'a [u32], offsets: &'a [usize], elements: &'a [T]) -> Result<Self, PmaError> {
        let fail = |why: &str| Err(PmaError::Invariant(format!("run appends: {why}")));
        if offsets.len() != runs.len() + 1 {
            return fail("offsets must be one more than runs");
        }
        if offsets[0] != 0 || offsets[runs.len()] != elements.len() {
            return fail("offsets must run from 0 to the element count");
        }
        if offsets.windows(2).any(|w| w[0] > w[1]) {
            return fail("offsets must not decrease");
        }
        if runs.windows(2).any(|w| w[0] >= w[1]) {
            return fail("runs must be strictly increasing");
        }
        Ok(RunAppends {
            runs,
            offsets,
            elements,
        })
    }

    /// Elements appended in all.
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Whether no element is appended.
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    #[inline]
    fn count(&self, i: usize) -> usize {
        self.offsets[i + 1] - self.offsets[i]
    }

    #[inline]
    fn elements_of(&self, i: usize) -> &'a [T] {
        &self.elements[self.offsets[i]..self.offsets[i + 1]]
    }
}

/// What a chunk of a batch adds to the sections: `(section, elements)`
/// pairs, and the sections that cannot take it in place.
type SectionCounts = (Vec<(usize, usize)>, Vec<usize>);

/// Runs `runs` (slots `slots`) that one task changes: a window laid out
/// again at `level`, or (`level` `None`) runs that take their elements in
/// place. `appends` indexes the batch's receiving runs inside `runs`.
#[derive(Clone, Debug)]
struct Job {
    runs: Range<usize>,
    slots: Range<usize>,
    appends: Range<usize>,
    level: Option<u32>,
}

/// One job's share of the array.
struct JobSlices<'s, T> {
    slots: &'s mut [T],
    start: &'s mut [u32],
    len: &'s mut [u32],
}

/// Cuts the array into the jobs' disjoint pieces (jobs in run order).
fn split_jobs<'s, T>(
    mut slots: &'s mut [T],
    mut start: &'s mut [u32],
    mut len: &'s mut [u32],
    jobs: &[Job],
) -> Vec<JobSlices<'s, T>> {
    let (mut slot_at, mut run_at) = (0, 0);
    let mut pieces = Vec::with_capacity(jobs.len());
    for job in jobs {
        let (_, rest) = std::mem::take(&mut slots).split_at_mut(job.slots.start - slot_at);
        let (job_slots, rest) = rest.split_at_mut(job.slots.len());
        slots = rest;
        slot_at = job.slots.end;
        let skip = job.runs.start - run_at;
        let (_, rest) = std::mem::take(&mut start).split_at_mut(skip);
        let (job_start, rest) = rest.split_at_mut(job.runs.len());
        start = rest;
        let (_, rest) = std::mem::take(&mut len).split_at_mut(skip);
        let (job_len, rest) = rest.split_at_mut(job.runs.len());
        len = rest;
        run_at = job.runs.end;
        pieces.push(JobSlices {
            slots: job_slots,
            start: job_start,
            len: job_len,
        });
    }
    pieces
}

/// Drops the reclaimable elements of the runs of a window that may hold
/// some, leftward inside each run's own slots. Returns the elements
/// dropped and the runs (window-relative) left without a tombstone.
fn squeeze_window<T: Element>(
    piece: &mut JobSlices<'_, T>,
    job: &Job,
    touched: impl Fn(usize) -> bool,
    reclaim: &Reclaim<T>,
) -> (usize, Vec<usize>) {
    let base = job.slots.start;
    let (mut dropped, mut cleaned) = (0, Vec::new());
    for i in 0..job.runs.len() {
        if !touched(job.runs.start + i) {
            continue;
        }
        let s = piece.start[i] as usize - base;
        let l = piece.len[i] as usize;
        let mut write = s;
        let mut kept_tombstones = false;
        for read in s..s + l {
            let element = piece.slots[read];
            if reclaim.reclaims(&element) {
                continue;
            }
            kept_tombstones |= element.is_tombstone();
            piece.slots[write] = element;
            write += 1;
        }
        if !kept_tombstones {
            cleaned.push(i);
        }
        dropped += s + l - write;
        piece.len[i] = index(write - s);
    }
    (dropped, cleaned)
}

/// Lays a window out at `new_starts` in place and appends its runs' new
/// elements. Returns the elements moved.
fn relayout_window<T: Element>(
    piece: JobSlices<'_, T>,
    job: &Job,
    new_starts: &[u32],
    appends: &RunAppends<'_, T>,
) -> u64 {
    let base = job.slots.start as u32;
    let blocks: Vec<Block<u32>> = (0..job.runs.len())
        .filter(|&i| piece.len[i] > 0)
        .map(|i| Block {
            src: piece.start[i] - base,
            dst: new_starts[i] - base,
            len: piece.len[i],
        })
        .collect();
    let moved = move_blocks(piece.slots, &blocks);
    piece.start.copy_from_slice(new_starts);
    append_in_place(piece, job, appends);
    moved
}

/// Appends each receiving run's new elements after its current ones (its
/// slots have room).
fn append_in_place<T: Element>(piece: JobSlices<'_, T>, job: &Job, appends: &RunAppends<'_, T>) {
    let base = job.slots.start;
    for j in job.appends.clone() {
        let i = appends.runs[j] as usize - job.runs.start;
        let at = piece.start[i] as usize - base + piece.len[i] as usize;
        let new = appends.elements_of(j);
        piece.slots[at..at + new.len()].copy_from_slice(new);
        piece.len[i] += index(new.len());
    }
}

impl<T: Element + Send + Sync, P: GapPolicy> PackedRuns<T, P> {
    /// Appends a batch: every run of `appends` gets its elements after its
    /// current ones, as [`push`](Self::push) one at a time would give
    /// (same order within each run), with each window the batch overflows
    /// redistributed once, disjoint windows in parallel on the rayon pool,
    /// or the whole array rebuilt in one parallel pass when that touches
    /// less (see the module docs). Grows once, to what the whole batch
    /// needs. Fails, changing nothing, on a run out of range or past
    /// [`MAX_CAPACITY`](crate::MAX_CAPACITY).
    ///
    /// Memory: a rebuild holds the old and the new array at once.
    pub fn append_batch(&mut self, appends: RunAppends<'_, T>) -> Result<(), PmaError> {
        if appends.is_empty() {
            return Ok(());
        }
        let run_count = self.run_count();
        if let Some(&last) = appends.runs.last()
            && last as usize >= run_count
        {
            return Err(PmaError::RunOutOfRange {
                run: last as usize,
                run_count,
            });
        }
        let added = appends.len();
        let total = self.total + added;
        check_capacity(total)?;
        for (j, &run) in appends.runs.iter().enumerate() {
            for _ in 0..appends.count(j) {
                self.policy.record_insert(run as usize);
            }
        }
        let upper = self.config.thresholds.root_upper;
        if total as f64 > upper * self.slots.len() as f64 {
            let capacity = self.grown_capacity(total);
            check_capacity(capacity)?;
            self.rebuild_with(capacity, &appends);
            return Ok(());
        }
        let needy = self.take_counts(&appends);
        let windows = self.windows_for(&needy);
        let costlier = merge_costs_more(
            appends.runs.len(),
            &windows,
            self.density(),
            total,
            self.slots.len(),
            rayon::current_num_threads(),
        );
        if costlier {
            self.rebuild_with(self.slots.len(), &appends);
            return Ok(());
        }
        self.merge(windows, &appends);
        Ok(())
    }

    /// Runs `visit(run, data[i])` on the elements of run `runs[i]` for
    /// every `i`, in parallel on the rayon pool, and returns the results in
    /// order (`runs` strictly increasing, `data` as long). Each run is
    /// noted as possibly holding tombstones, as by
    /// [`run_mut`](Self::run_mut).
    pub fn par_runs_mut<D: Send, R: Send>(
        &mut self,
        runs: &[u32],
        data: Vec<D>,
        visit: impl Fn(&mut [T], D) -> R + Sync,
    ) -> Result<Vec<R>, PmaError> {
        if runs.windows(2).any(|w| w[0] >= w[1]) || data.len() != runs.len() {
            return Err(PmaError::Invariant(
                "par_runs_mut: runs must be strictly increasing, with one datum each".to_string(),
            ));
        }
        let run_count = self.run_count();
        if let Some(&last) = runs.last()
            && last as usize >= run_count
        {
            return Err(PmaError::RunOutOfRange {
                run: last as usize,
                run_count,
            });
        }
        for &run in runs {
            if !self.touched.get(run as usize) {
                self.touched.set(run as usize, true);
                self.touched_count += 1;
            }
        }
        let mut rest = &mut self.slots[..];
        let mut at = 0;
        let mut pieces = Vec::with_capacity(runs.len());
        for &run in runs {
            let (s, l) = (
                self.start[run as usize] as usize,
                self.len[run as usize] as usize,
            );
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(s - at);
            let (piece, tail) = tail.split_at_mut(l);
            pieces.push(piece);
            rest = tail;
            at = s + l;
        }
        Ok(pieces
            .into_par_iter()
            .zip(data)
            .map(|(piece, datum)| visit(piece, datum))
            .collect())
    }

    /// The capacity a growth to `total` elements reaches: grown by the
    /// configured factor until the root is within its bound.
    fn grown_capacity(&self, total: usize) -> usize {
        let upper = self.config.thresholds.root_upper;
        let growth = self.config.growth;
        let grown = |capacity: usize| ((capacity as f64 * growth) as usize).max(capacity + 1);
        let mut capacity = grown(self.slots.len().max(1));
        while total as f64 > upper * capacity as f64 {
            capacity = grown(capacity);
        }
        capacity
    }

    /// Adds the batch to the section counts and returns the sections
    /// (increasing) that cannot take it in place: a receiving run without
    /// room, or the section past its leaf bound. The runs are looked at in
    /// parallel chunks (each a cache miss or two on a large array).
    fn take_counts(&mut self, appends: &RunAppends<'_, T>) -> Vec<usize> {
        let rps = self.runs_per_section;
        let (start, len) = (&self.start, &self.len);
        let chunks: Vec<SectionCounts> = (0..appends.runs.len())
            .into_par_iter()
            .step_by(COUNT_TASK_RUNS)
            .map(|first| {
                let (mut added, mut needy): (Vec<(usize, usize)>, Vec<usize>) =
                    (Vec::new(), Vec::new());
                for j in first..(first + COUNT_TASK_RUNS).min(appends.runs.len()) {
                    let run = appends.runs[j] as usize;
                    let count = appends.count(j);
                    let section = run / rps;
                    match added.last_mut() {
                        Some((last, sum)) if *last == section => *sum += count,
                        _ => added.push((section, count)),
                    }
                    let room = (start[run + 1] - start[run] - len[run]) as usize;
                    if count > room && needy.last() != Some(&section) {
                        needy.push(section);
                    }
                }
                (added, needy)
            })
            .collect();
        let (_, leaf_upper) = self.tree.bounds(0);
        let mut needy: Vec<usize> = Vec::new();
        for (added, chunk_needy) in chunks {
            for (section, count) in added {
                self.section_len[section] += count;
                if leaf_upper < 1.0 {
                    let runs = self.runs_of(section..section + 1);
                    let slots = self.start_of(runs.end) - self.start_of(runs.start);
                    if self.section_len[section] as f64 > leaf_upper * slots as f64 {
                        needy.push(section);
                    }
                }
            }
            needy.extend(chunk_needy);
        }
        needy.sort_unstable();
        needy.dedup();
        needy
    }

    /// The windows that take the needy sections: for each, the smallest
    /// window of the density tree around it that holds its elements
    /// (section counts already include the batch) within its level's upper
    /// bound; windows inside others dropped. The root always fits (the
    /// caller grows first), so every section finds one. Sorted by run.
    fn windows_for(&self, needy: &[usize]) -> Vec<Job> {
        let height = self.tree.height();
        let mut chosen: Vec<(Range<usize>, u32)> = Vec::new();
        let mut nodes: Vec<usize> = needy.to_vec();
        for level in 0..=height {
            if nodes.is_empty() {
                break;
            }
            let (_, upper) = self.tree.bounds(level);
            let mut parents: Vec<usize> = Vec::new();
            for &node in &nodes {
                let sections = self.tree.window(node << level, level);
                let runs = self.runs_of(sections.clone());
                let count: usize = if level == height {
                    self.section_len.iter().sum()
                } else {
                    self.section_len[sections].iter().sum()
                };
                let slots = self.start_of(runs.end) - self.start_of(runs.start);
                if level == height || count as f64 <= upper * slots as f64 {
                    chosen.push((runs, level));
                } else if parents.last() != Some(&(node >> 1)) {
                    parents.push(node >> 1);
                }
            }
            nodes = parents;
        }
        // Tree windows nest or are disjoint: sorted by start, longest
        // first, a window inside the last kept one is covered by it.
        chosen.sort_unstable_by_key(|(runs, _)| (runs.start, usize::MAX - runs.end));
        let mut windows: Vec<Job> = Vec::with_capacity(chosen.len());
        for (runs, level) in chosen {
            if windows.last().is_some_and(|w| runs.end <= w.runs.end) {
                continue;
            }
            let slots = self.start_of(runs.start)..self.start_of(runs.end);
            windows.push(Job {
                runs,
                slots,
                appends: 0..0,
                level: Some(level),
            });
        }
        windows
    }

    /// Places runs `first_run..` of `lengths` over slots `lo..hi` with the
    /// policy's gaps, pushing each run's new start to `starts`.
    fn place(
        &mut self,
        first_run: usize,
        lengths: &[u32],
        slots: Range<usize>,
        level: u32,
        starts: &mut Vec<u32>,
    ) {
        let used: usize = lengths.iter().map(|&l| l as usize).sum();
        let free = slots.len() - used;
        let window = Window {
            first_run,
            lengths,
            free_slots: free,
            level,
        };
        let mut next = slots.start;
        match self
            .policy
            .linear_gaps(&window)
            .and_then(|rule| LinearPlacement::new(rule, &window, used))
        {
            Some(mut placement) => {
                for &len in lengths {
                    starts.push(index(next));
                    next += len as usize + placement.gap(len);
                }
            }
            None => {
                self.scratch_gaps.clear();
                self.scratch_gaps.resize(lengths.len(), 0);
                self.policy.distribute(&window, &mut self.scratch_gaps);
                if self.scratch_gaps.iter().sum::<usize>() != free {
                    self.scratch_gaps.iter_mut().for_each(|g| *g = 0);
                    apportion(&mut self.scratch_gaps, free, |_| 1);
                    self.stats.policy_fallbacks += 1;
                }
                for (&len, &gap) in lengths.iter().zip(&self.scratch_gaps) {
                    starts.push(index(next));
                    next += len as usize + gap;
                }
                self.scratch_gaps = Vec::new();
            }
        }
        debug_assert_eq!(next, slots.end);
    }

    /// The merge way: windows laid out again in place, other receiving
    /// runs appended to in place; tasks over disjoint runs in parallel.
    fn merge(&mut self, windows: Vec<Job>, appends: &RunAppends<'_, T>) {
        let jobs = self.jobs(windows, appends);
        let window_jobs: Vec<&Job> = jobs.iter().filter(|j| j.level.is_some()).collect();
        let mut dropped = 0;
        if self.touched_count > 0 && !matches!(self.reclaim, Reclaim::Never) {
            let windows: Vec<Job> = window_jobs.iter().map(|&j| j.clone()).collect();
            let touched = &self.touched;
            let reclaim = &self.reclaim;
            let pieces = split_jobs(&mut self.slots, &mut self.start, &mut self.len, &windows);
            let squeezed: Vec<(usize, Vec<usize>)> = pieces
                .into_par_iter()
                .zip(windows.par_iter())
                .map(|(mut piece, job)| {
                    squeeze_window(&mut piece, job, |r| touched.get(r), reclaim)
                })
                .collect();
            for (job, (count, cleaned)) in windows.iter().zip(squeezed) {
                dropped += count;
                for i in cleaned {
                    self.touched.set(job.runs.start + i, false);
                    self.touched_count -= 1;
                }
            }
        }
        // Where each window's runs go: the policy sees every run with the
        // batch's elements counted in.
        let mut placements: Vec<Vec<u32>> = Vec::with_capacity(window_jobs.len());
        let mut lengths = Vec::new();
        for job in &window_jobs {
            lengths.clear();
            lengths.extend_from_slice(&self.len[job.runs.clone()]);
            for j in job.appends.clone() {
                lengths[appends.runs[j] as usize - job.runs.start] += index(appends.count(j));
            }
            let mut starts = Vec::with_capacity(lengths.len());
            let level = job.level.unwrap_or(0);
            self.place(
                job.runs.start,
                &lengths,
                job.slots.clone(),
                level,
                &mut starts,
            );
            placements.push(starts);
        }
        let mut placements = placements.into_iter();
        let tasks: Vec<(&Job, Option<Vec<u32>>)> = jobs
            .iter()
            .map(|job| (job, job.level.and_then(|_| placements.next())))
            .collect();
        let pieces = split_jobs(&mut self.slots, &mut self.start, &mut self.len, &jobs);
        let moved: Vec<u64> = pieces
            .into_par_iter()
            .zip(tasks.into_par_iter())
            .map(|(piece, (job, starts))| match starts {
                Some(starts) => relayout_window(piece, job, &starts, appends),
                None => {
                    append_in_place(piece, job, appends);
                    0
                }
            })
            .collect();
        for (job, moved) in jobs.iter().zip(moved) {
            if let Some(level) = job.level {
                self.stats.count_rebalance(level, moved);
                self.recount_sections(job.runs.clone());
            }
        }
        self.total = self.total + appends.len() - dropped;
        self.stats.inserts += appends.len() as u64;
        self.stats.reclaimed += dropped as u64;
        if dropped > 0 {
            self.maybe_shrink();
        }
    }

    /// The tasks of a merge: the windows, and between them runs of
    /// receiving runs with room, cut at [`IN_PLACE_TASK_ELEMENTS`].
    fn jobs(&self, windows: Vec<Job>, appends: &RunAppends<'_, T>) -> Vec<Job> {
        let mut jobs = Vec::with_capacity(windows.len() * 2 + 1);
        let mut windows = windows.into_iter().peekable();
        let mut open: Option<(usize, usize)> = None; // (first append, elements)
        let close = |jobs: &mut Vec<Job>, open: &mut Option<(usize, usize)>, end: usize| {
            if let Some((first, _)) = open.take() {
                let runs = appends.runs[first] as usize..appends.runs[end - 1] as usize + 1;
                let slots = self.start_of(runs.start)..self.start_of(runs.end);
                jobs.push(Job {
                    runs,
                    slots,
                    appends: first..end,
                    level: None,
                });
            }
        };
        let mut j = 0;
        while j < appends.runs.len() {
            let run = appends.runs[j] as usize;
            while windows.peek().is_some_and(|w| w.runs.end <= run) {
                // A window holds a receiving run of its own; none is
                // skipped, but stay safe.
                let mut window = windows.next().unwrap_or_else(|| unreachable!());
                window.appends = j..j;
                close(&mut jobs, &mut open, j);
                jobs.push(window);
            }
            if let Some(window) = windows.peek()
                && window.runs.start <= run
            {
                close(&mut jobs, &mut open, j);
                let end =
                    j + appends.runs[j..].partition_point(|&r| (r as usize) < window.runs.end);
                let mut window = windows.next().unwrap_or_else(|| unreachable!());
                window.appends = j..end;
                jobs.push(window);
                j = end;
                continue;
            }
            let count = appends.count(j);
            let elements = open.map_or(0, |(_, e)| e) + count;
            open = Some((open.map_or(j, |(first, _)| first), elements));
            j += 1;
            if elements >= IN_PLACE_TASK_ELEMENTS {
                close(&mut jobs, &mut open, j);
            }
        }
        close(&mut jobs, &mut open, j);
        for mut window in windows {
            window.appends = j..j;
            jobs.push(window);
        }
        jobs
    }

    /// Sets the counts of the sections of `runs` (whole sections) from the
    /// run lengths.
    fn recount_sections(&mut self, runs: Range<usize>) {
        let rps = self.runs_per_section;
        let first = runs.start / rps;
        for (count, lengths) in self.section_len[first..]
            .iter_mut()
            .zip(self.len[runs].chunks(rps))
        {
            *count = lengths.iter().map(|&l| l as usize).sum();
        }
    }

    /// The rebuild way: the whole array laid out again into `capacity`
    /// fresh slots, reclaimable elements dropped and the batch appended,
    /// in one parallel pass.
    fn rebuild_with(&mut self, capacity: usize, appends: &RunAppends<'_, T>) {
        let run_count = self.run_count();
        let reclaiming = self.touched_count > 0 && !matches!(self.reclaim, Reclaim::Never);
        let mut lengths = vec![0u32; run_count];
        let (slots, start, len, touched, reclaim) = (
            &self.slots,
            &self.start,
            &self.len,
            &self.touched,
            &self.reclaim,
        );
        let kept: usize = lengths
            .par_chunks_mut(REBUILD_TASK_RUNS)
            .enumerate()
            .map(|(chunk, lengths)| {
                let first = chunk * REBUILD_TASK_RUNS;
                let mut kept = 0;
                for (i, length) in lengths.iter_mut().enumerate() {
                    let run = first + i;
                    *length = len[run];
                    if reclaiming && touched.get(run) {
                        let s = start[run] as usize;
                        let gone = slots[s..s + len[run] as usize]
                            .iter()
                            .filter(|e| reclaim.reclaims(e))
                            .count();
                        *length -= index(gone);
                    }
                    kept += *length as usize;
                }
                let mut j = appends.runs.partition_point(|&r| (r as usize) < first);
                while j < appends.runs.len() && (appends.runs[j] as usize) < first + lengths.len() {
                    lengths[appends.runs[j] as usize - first] += index(appends.count(j));
                    j += 1;
                }
                kept
            })
            .sum();
        let dropped = self.total - kept;
        let level = self.tree.height();
        let starts = self.place_all(&lengths, capacity, level);
        // Plain pages, not advised for huge ones as a bulk build's are: a
        // rebuild runs inside a batch, and on a machine whose memory is
        // fragmented (a replay that parsed and built its base) each huge
        // page faulted in stalled for milliseconds. Kronecker 20 (33.5 M
        // edges), a growth during a 2 M-edge batch, 1 thread: the fill of
        // 186 MB took 480 ms advised, 70 ms not, and the batch 555-576 ms
        // against 139-155 ms; batches without a rebuild, and rebuilds
        // where huge pages came free, changed within the noise (±10%).
        let mut fresh: Vec<T> = Vec::with_capacity(capacity);
        fresh.par_extend(rayon::iter::repeat_n(T::default(), capacity));
        let tasks: Vec<Range<usize>> = (0..run_count)
            .step_by(REBUILD_TASK_RUNS)
            .map(|first| first..(first + REBUILD_TASK_RUNS).min(run_count))
            .collect();
        let mut pieces = Vec::with_capacity(tasks.len());
        let mut rest = &mut fresh[..];
        for runs in &tasks {
            let size = (starts[runs.end] - starts[runs.start]) as usize;
            let (piece, tail) = std::mem::take(&mut rest).split_at_mut(size);
            pieces.push(piece);
            rest = tail;
        }
        let starts_ref = &starts;
        let (slots, start, len, touched, reclaim) = (
            &self.slots,
            &self.start,
            &self.len,
            &self.touched,
            &self.reclaim,
        );
        pieces
            .into_par_iter()
            .zip(tasks.par_iter())
            .for_each(|(piece, runs)| {
                let base = starts_ref[runs.start] as usize;
                let mut j = appends.runs.partition_point(|&r| (r as usize) < runs.start);
                for run in runs.clone() {
                    let mut at = starts_ref[run] as usize - base;
                    let s = start[run] as usize;
                    let elements = &slots[s..s + len[run] as usize];
                    if reclaiming && touched.get(run) {
                        for element in elements.iter().filter(|e| !reclaim.reclaims(e)) {
                            piece[at] = *element;
                            at += 1;
                        }
                    } else {
                        piece[at..at + elements.len()].copy_from_slice(elements);
                        at += elements.len();
                    }
                    if j < appends.runs.len() && appends.runs[j] as usize == run {
                        let new = appends.elements_of(j);
                        piece[at..at + new.len()].copy_from_slice(new);
                        j += 1;
                    }
                }
            });
        let grew = capacity > self.slots.len();
        self.slots = fresh;
        self.start = starts;
        self.len = lengths;
        self.total = kept + appends.len();
        if reclaiming {
            self.refresh_touched();
        }
        self.recount_all_sections();
        if grew {
            self.policy.on_resize(capacity, run_count);
            self.stats.count_resize(true, kept as u64);
        } else {
            self.stats.count_rebalance(level, kept as u64);
        }
        self.stats.inserts += appends.len() as u64;
        self.stats.reclaimed += dropped as u64;
        if dropped > 0 {
            self.maybe_shrink();
        }
    }

    /// Every run's start over `0..capacity` with the policy's gaps (and
    /// the end, `capacity`): in parallel chunks when the policy's gaps are
    /// linear (each start has a closed form in the prefix sums of lengths
    /// and weights), in one pass of [`place`](Self::place) otherwise.
    fn place_all(&mut self, lengths: &[u32], capacity: usize, level: u32) -> Vec<u32> {
        let used: usize = lengths.par_iter().map(|&l| l as usize).sum();
        let window = Window {
            first_run: 0,
            lengths,
            free_slots: capacity - used,
            level,
        };
        let placement = self
            .policy
            .linear_gaps(&window)
            .and_then(|rule| LinearPlacement::new(rule, &window, used));
        let mut starts = Vec::with_capacity(lengths.len() + 1);
        match placement {
            Some(placement) => {
                // Start of run `i`: the elements and base gaps before it,
                // plus `floor(W_i * share / W)`, `W_i` the weight before it
                // (what one pass of `LinearPlacement::gap` adds up to).
                let rule = placement.rule;
                let sums: Vec<(usize, u64)> = lengths
                    .par_chunks(REBUILD_TASK_RUNS)
                    .map(|chunk| {
                        let elements = chunk.iter().map(|&l| l as usize).sum();
                        (elements, chunk.iter().map(|&l| rule.weight(l)).sum())
                    })
                    .collect();
                let mut before = Vec::with_capacity(sums.len());
                let (mut elements, mut weight) = (0usize, 0u64);
                for &(e, w) in &sums {
                    before.push((elements, weight));
                    elements += e;
                    weight += w;
                }
                starts.resize(lengths.len(), 0);
                starts
                    .par_chunks_mut(REBUILD_TASK_RUNS)
                    .zip(lengths.par_chunks(REBUILD_TASK_RUNS))
                    .zip(before.par_iter().enumerate())
                    .for_each(
                        |((starts, lengths), (chunk, &(mut elements, mut weight)))| {
                            let runs = chunk * REBUILD_TASK_RUNS..;
                            for (run, (start, &len)) in runs.zip(starts.iter_mut().zip(lengths)) {
                                let shared = weight * placement.share / placement.divisor;
                                *start = index(elements + run * rule.base + shared as usize);
                                elements += len as usize;
                                weight += rule.weight(len);
                            }
                        },
                    );
            }
            None => self.place(0, lengths, 0..capacity, level, &mut starts),
        }
        #[cfg(debug_assertions)]
        {
            let mut one_pass = Vec::with_capacity(lengths.len());
            self.place(0, lengths, 0..capacity, level, &mut one_pass);
            assert_eq!(starts, one_pass, "parallel placement differs from one pass");
        }
        starts.push(index(capacity));
        starts
    }

    /// Sections chosen again for the run count and counted from the run
    /// lengths, in parallel, with a fresh tree.
    fn recount_all_sections(&mut self) {
        self.runs_per_section = self.chosen_runs_per_section();
        self.section_len = self
            .len
            .par_chunks(self.runs_per_section)
            .map(|lengths| lengths.iter().map(|&l| l as usize).sum())
            .collect();
        let sections = self.section_len.len();
        self.tree = DensityTree::new(sections.max(1), self.config.thresholds);
    }

    /// After a rebuild that reclaimed: a run stays noted as possibly
    /// holding tombstones only if it still holds one. Word by word of the
    /// flags, in parallel.
    fn refresh_touched(&mut self) {
        let (slots, start, len) = (&self.slots, &self.start, &self.len);
        self.touched_count = self
            .touched
            .words
            .par_iter_mut()
            .enumerate()
            .map(|(w, word)| {
                let mut bits = *word;
                while bits != 0 {
                    let run = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let s = start[run] as usize;
                    if !slots[s..s + len[run] as usize].iter().any(T::is_tombstone) {
                        *word &= !(1u64 << (run % 64));
                    }
                }
                word.count_ones() as usize
            })
            .sum();
    }
}
