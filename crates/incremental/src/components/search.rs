//! Which parts of a component split off when edges are deleted: searches
//! from the endpoints of every deleted edge, grown cheapest first.
//!
//! Every endpoint of a deleted edge whose endpoints were in one component
//! (label `L`) starts a search. A search explores the new graph, out- and
//! in-edges, but only vertices that still carry label `L`: an edge to
//! another label is an inserted one, which the union pass joins
//! afterwards, so the searches of one old component stay inside it. Two
//! searches that meet merge. A search with nothing left to explore has
//! found a whole component of the old component's remaining edges: it
//! gets a fresh id. The searches of `L` stop as soon as at most one of
//! them is open: that one holds every vertex of `L` not split off, so it
//! keeps `L`. Always growing the open search that has read the fewest
//! edges bounds the work by the number of searches times the size of the
//! parts that split off (or of the searches until they meet).

use super::DynamicComponents;
use crate::maintained::UpdateStats;
use dyngraph_core::{Edge, InNeighbors, ReadGraph, VertexId};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// How the deletions went.
pub(super) enum Outcome {
    /// Every split found and labelled.
    Done,
    /// A deletion may split a component, and the store keeps no in-edges
    /// to search the undirected view with.
    NoInEdges,
    /// The searches read more edges than the budget.
    OverBudget,
}

/// One search (or several merged).
struct Search {
    /// The label of the old component it explores.
    label: u32,
    /// Visited vertices already expanded.
    expanded: Vec<VertexId>,
    /// Visited vertices still to expand.
    open: Vec<VertexId>,
    /// Adjacency entries read.
    work: u64,
    /// Merged into another search, or finished.
    closed: bool,
}

/// Finds and labels the components split off by `deleted`.
pub(super) fn split_deleted<G: ReadGraph>(
    state: &mut DynamicComponents,
    graph: &G,
    deleted: &[Edge],
    budget: u64,
    stats: &mut UpdateStats,
) -> Outcome {
    let n = state.label.len();
    // Deleted edges inside one component are the only ones that may split
    // it (an edge between two components was never there).
    let candidates: Vec<(VertexId, VertexId, u32)> = deleted
        .iter()
        .filter(|e| e.src != e.dst && (e.src as usize) < n && (e.dst as usize) < n)
        .filter_map(|e| {
            let a = state.ids.find(state.label[e.src as usize]);
            let b = state.ids.find(state.label[e.dst as usize]);
            (a == b).then_some((e.src, e.dst, a))
        })
        .collect();
    if candidates.is_empty() {
        return Outcome::Done;
    }
    let Ok(incoming) = graph.in_edges() else {
        return Outcome::NoInEdges;
    };

    let epoch = state.visited.next_epoch();
    let mut searches: Vec<Search> = Vec::new();
    // `merged_into[s]`: the search `s` was merged into (itself if open or
    // finished); a union-find over search indices.
    let mut merged_into: Vec<u32> = Vec::new();
    // Open searches per old label.
    let mut open_per_label: HashMap<u32, u32> = HashMap::new();
    for &(u, v, label) in &candidates {
        for x in [u, v] {
            if state.visited.mark(x, epoch) {
                let index = searches.len() as u32;
                state.owner[x as usize] = index;
                searches.push(Search {
                    label,
                    expanded: Vec::new(),
                    open: vec![x],
                    work: 0,
                    closed: false,
                });
                merged_into.push(index);
                *open_per_label.entry(label).or_default() += 1;
            }
        }
    }
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = searches
        .iter()
        .enumerate()
        .filter(|(_, s)| open_per_label[&s.label] > 1)
        .map(|(i, _)| Reverse((0, i as u32)))
        .collect();

    let mut total_work = 0u64;
    while let Some(Reverse((work, index))) = heap.pop() {
        let search = &searches[index as usize];
        if search.closed || search.work != work || open_per_label[&search.label] <= 1 {
            continue;
        }
        let label = search.label;
        // Grow this search by one vertex.
        let x = searches[index as usize]
            .open
            .pop()
            .expect("an open search has vertices");
        searches[index as usize].expanded.push(x);
        stats.vertices_processed += 1;
        let mut read = 0u64;
        let mut meet = Vec::new();
        {
            let mut visit = |y: VertexId, searches: &mut Vec<Search>| {
                read += 1;
                if y == x || state.ids.root(state.label[y as usize]) != label {
                    return;
                }
                if state.visited.mark(y, epoch) {
                    state.owner[y as usize] = index;
                    searches[index as usize].open.push(y);
                } else {
                    let other = find(&mut merged_into, state.owner[y as usize]);
                    if other != index {
                        meet.push(other);
                    }
                }
            };
            for y in graph.out_neighbors(x) {
                visit(y, &mut searches);
            }
            for y in incoming.in_neighbors(x) {
                visit(y, &mut searches);
            }
        }
        total_work += read;
        stats.edges_scanned += read;
        if total_work > budget {
            return Outcome::OverBudget;
        }
        let mut current = index;
        searches[current as usize].work += read;
        for other in meet {
            let other = find(&mut merged_into, other);
            if other == current {
                continue;
            }
            current = merge(&mut searches, &mut merged_into, current, other);
            *open_per_label.get_mut(&label).expect("label counted") -= 1;
        }
        let search = &mut searches[current as usize];
        if search.open.is_empty() {
            // A whole component of what is left of `label`: a fresh id.
            search.closed = true;
            *open_per_label.get_mut(&label).expect("label counted") -= 1;
            let members = std::mem::take(&mut search.expanded);
            let id = state.ids.fresh(members.len() as u32);
            let old = state.ids.find(label);
            let size = &mut state.ids.size[old as usize];
            *size = size.saturating_sub(members.len() as u32);
            for v in members {
                state.label[v as usize] = id;
            }
        } else {
            heap.push(Reverse((search.work, current)));
        }
    }
    Outcome::Done
}

/// The search `s` ended up in.
fn find(merged_into: &mut [u32], mut s: u32) -> u32 {
    while merged_into[s as usize] != s {
        let next = merged_into[merged_into[s as usize] as usize];
        merged_into[s as usize] = next;
        s = next;
    }
    s
}

/// Merges two open searches, the one with fewer vertices into the other;
/// returns the survivor.
fn merge(searches: &mut [Search], merged_into: &mut [u32], a: u32, b: u32) -> u32 {
    let size = |s: &Search| s.expanded.len() + s.open.len();
    let (small, large) = if size(&searches[a as usize]) < size(&searches[b as usize]) {
        (a, b)
    } else {
        (b, a)
    };
    let taken = std::mem::replace(
        &mut searches[small as usize],
        Search {
            label: 0,
            expanded: Vec::new(),
            open: Vec::new(),
            work: 0,
            closed: true,
        },
    );
    let survivor = &mut searches[large as usize];
    survivor.expanded.extend(taken.expanded);
    survivor.open.extend(taken.open);
    survivor.work += taken.work;
    merged_into[small as usize] = large;
    large
}
