#!/usr/bin/env python3
"""NetworKit's rows of `benches/examples/incremental.rs` (issue 37): the
example's own base graph and batches, given to NetworKit's dynamic
algorithms, each update timed as the example times dyngraph's.

Not run by hand: the example calls it with `--networkit PYTHON` (a Python
with NetworKit and numpy, e.g. a venv after `pip install networkit`;
written against NetworKit 11.3) and reads back what it writes.

    PYTHON networkit_batches.py DIR --jobs A,B,... --threads T --bound EPS --source S

Files, all little-endian, written by the example into DIR:

  base.bin     u64 vertex count, u64 edge count, then per edge
               u32 src, u32 dst, f32 weight: the base graph (directed).
  JOB.bin      u64 batch count, then per batch: u64 inserts, u64 deletes,
               inserts x (u32 src, u32 dst, f32 weight), deletes x
               (u32 src, u32 dst): the same batches, in the same order,
               that dyngraph's rows took.

For every job NetworKit builds the base graph (`Graph.addEdges` on numpy
arrays, not timed), runs each algorithm once (not timed), then per batch
edits the graph (`addEdges` on the batch's arrays, `removeEdge` per
deleted edge; NetworKit has no bulk removal; not timed) and times, each
alone, as NetworKit documents `updateBatch` (the graph edited first):

  cc    DynWeaklyConnectedComponents.updateBatch (directed graph, weakly
        connected components, as dyngraph's)
  bfs   DynBFS.updateBatch from the source
  sssp  DynDijkstra.updateBatch from the source (the edges' weights)
  pr    PageRank.run: NetworKit has no dynamic PageRank, so its static
        one is recomputed after every batch, L1 norm, tolerance
        EPS (1 - d) / d on the step (which bounds the L1 distance to the
        fixed point by EPS for d = 0.85), on an unweighted copy of the
        graph given the same edits (NetworKit's PageRank follows edge
        weights; dyngraph's, as GAPBS's, does not)

The event lists (`GraphEvent`) are built before the timer starts; the
timed calls include their conversion from Python to C++.

Writes DIR/JOB.json: the seconds of every timed call and, per dynamic
algorithm, the vertices where its final result differs from NetworKit's
own static run on the final graph (`self_check`), and DIR/JOB-pr.f64,
JOB-cc.u64, JOB-bfs.f64, JOB-sssp.f64: the final PageRank scores, component
ids and distances, which the example compares with its own static runs.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

DAMPING = 0.85
EDGE = np.dtype([("src", "<u4"), ("dst", "<u4"), ("w", "<f4")])
PAIR = np.dtype([("src", "<u4"), ("dst", "<u4")])


def read_base(path: Path):
    with open(path, "rb") as f:
        vertices, edges = np.frombuffer(f.read(16), dtype="<u8")
        base = np.frombuffer(f.read(int(edges) * EDGE.itemsize), dtype=EDGE)
    return int(vertices), base


def read_batches(path: Path):
    data = path.read_bytes()
    (count,) = np.frombuffer(data[:8], dtype="<u8")
    at = 8
    batches = []
    for _ in range(int(count)):
        inserts, deletes = (int(x) for x in np.frombuffer(data[at:at + 16], dtype="<u8"))
        at += 16
        ins = np.frombuffer(data[at:at + inserts * EDGE.itemsize], dtype=EDGE)
        at += inserts * EDGE.itemsize
        dels = np.frombuffer(data[at:at + deletes * PAIR.itemsize], dtype=PAIR)
        at += deletes * PAIR.itemsize
        batches.append((ins, dels))
    return batches


def edge_arrays(edges, weighted=True):
    ends = (edges["src"].astype(np.uint64), edges["dst"].astype(np.uint64))
    return (edges["w"].astype(np.float64), ends) if weighted else ends


def partition_differences(a, b):
    """Vertices whose component differs, mapping labels by first sight."""
    forward, backward, differ = {}, {}, 0
    for x, y in zip(a.tolist(), b.tolist()):
        if forward.setdefault(x, y) != y or backward.setdefault(y, x) != x:
            differ += 1
    return differ


def run_job(nk, vertices, base, batches, source, bound, kernels):
    addition = nk.dynamics.GraphEventType.EDGE_ADDITION
    removal = nk.dynamics.GraphEventType.EDGE_REMOVAL
    G = nk.Graph(vertices, True, True)
    G.addEdges(edge_arrays(base))
    unweighted = nk.Graph(vertices, False, True) if "pr" in kernels else None
    if unweighted is not None:
        unweighted.addEdges(edge_arrays(base, weighted=False))
    dynamic = {}
    if "cc" in kernels:
        dynamic["cc"] = nk.components.DynWeaklyConnectedComponents(G)
    if "bfs" in kernels:
        dynamic["bfs"] = nk.distance.DynBFS(G, source)
    if "sssp" in kernels:
        dynamic["sssp"] = nk.distance.DynDijkstra(G, source)
    for algorithm in dynamic.values():
        algorithm.run()

    def pagerank():
        pr = nk.centrality.PageRank(unweighted, damp=DAMPING,
                                    tol=bound * (1 - DAMPING) / DAMPING)
        pr.norm = nk.centrality.Norm.L1_NORM
        pr.run()
        return pr

    seconds = {name: [] for name in list(dynamic) + (["pr"] if "pr" in kernels else [])}
    pr = None
    for ins, dels in batches:
        events = [nk.dynamics.GraphEvent(addition, int(u), int(v), float(w))
                  for u, v, w in zip(ins["src"], ins["dst"], ins["w"])]
        events += [nk.dynamics.GraphEvent(removal, int(u), int(v), 1.0)
                   for u, v in zip(dels["src"], dels["dst"])]
        if len(ins):
            G.addEdges(edge_arrays(ins))
            if unweighted is not None:
                unweighted.addEdges(edge_arrays(ins, weighted=False))
        for u, v in zip(dels["src"].tolist(), dels["dst"].tolist()):
            G.removeEdge(u, v)
            if unweighted is not None:
                unweighted.removeEdge(u, v)
        for name, algorithm in dynamic.items():
            started = time.perf_counter()
            algorithm.updateBatch(events)
            seconds[name].append(time.perf_counter() - started)
        if "pr" in kernels:
            started = time.perf_counter()
            pr = pagerank()
            seconds["pr"].append(time.perf_counter() - started)
    finals, self_check = {}, {}
    if pr is not None:
        finals["pr"] = np.asarray(pr.scores(), dtype="<f8")
    if "cc" in dynamic:
        finals["cc"] = np.asarray(dynamic["cc"].getPartition().getVector(), dtype="<u8")
        static = nk.components.WeaklyConnectedComponents(G)
        static.run()
        self_check["cc"] = partition_differences(
            finals["cc"], np.asarray(static.getPartition().getVector()))
    for name, static_class in (("bfs", nk.distance.BFS), ("sssp", nk.distance.Dijkstra)):
        if name in dynamic:
            finals[name] = np.asarray(dynamic[name].getDistances(), dtype="<f8")
            static = static_class(G, source)
            static.run()
            self_check[name] = int(np.count_nonzero(
                finals[name] != np.asarray(static.getDistances())))
    return seconds, finals, self_check, G.numberOfEdges()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--jobs", required=True, help="comma-separated job names (JOB.bin in DIR)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--bound", type=float, default=1e-6)
    parser.add_argument("--source", type=int, required=True)
    parser.add_argument("--kernels", default="pr,cc,bfs,sssp")
    args = parser.parse_args()
    try:
        import networkit as nk
    except ImportError as e:
        sys.exit(f"networkit_batches.py: {e} (pip install networkit)")
    nk.setNumberOfThreads(args.threads)
    kernels = set(args.kernels.split(","))
    vertices, base = read_base(args.dir / "base.bin")
    for job in args.jobs.split(","):
        batches = read_batches(args.dir / f"{job}.bin")
        seconds, finals, self_check, edges = run_job(nk, vertices, base, batches, args.source,
                                         args.bound, kernels)
        for name, values in finals.items():
            suffix = "u64" if name == "cc" else "f64"
            values.tofile(args.dir / f"{job}-{name}.{suffix}")
        (args.dir / f"{job}.json").write_text(json.dumps({
            "networkit": nk.__version__, "threads": args.threads, "edges": edges,
            "seconds": seconds, "self_check": self_check,
        }))


if __name__ == "__main__":
    main()
