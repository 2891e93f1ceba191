#!/usr/bin/env python3
"""NetworKit's dynamic algorithms beside dyngraph's maintained kernels, on
the same graph, the same base and the same batches (issue 37, item 4).

Not part of CI. Needs Python 3.9+, numpy, NetworKit (`pip install
networkit`; written against 11.3) and the `dyngraph` CLI (built with cargo
unless --dyngraph names a binary).

    python3 benches/peers/networkit_dynamic.py data/CollegeMsg.txt \\
        --base 50 --batch-sizes 100,1000 --threads 1
    python3 benches/peers/networkit_dynamic.py \\
        ../shared/data/sx-mathoverflow/b30/base.wel ../shared/data/sx-mathoverflow/b30/dynamic.wel \\
        --base 10 --batch-sizes 10,100,1000 --threads 1,2 --batches 500 --json nk-mo.json

The same work on both sides:

  input     FILE... read in order and concatenated (whitespace-separated
            `src dst [third]` lines, `#`/`%` comments): `.wel` files give
            the third column as a weight (held as a 32-bit float on both
            sides, as dyngraph keeps it); `.el` has none; `.txt`/`.snap`
            (SNAP) hold a timestamp, which is dropped (arrivals keep the
            file order). Vertex ids are the numbers as written (dyngraph
            `--ids dense`; NetworKit gets max id + 1 nodes up front). The
            edges used are written to one file in a temporary directory,
            which dyngraph replays; NetworKit takes the same arrays.
  arrivals  One per line, in file order (dyngraph `--order file`). With
            --undirected each line is two arrivals, (u, v) then (v, u) (a
            self-loop one), as `dyngraph replay --undirected` doubles them.
  base      The first floor(arrivals * PCT / 100) arrivals (dyngraph's own
            rule), bulk-built: NetworKit through `Graph.addEdges` on numpy
            arrays, dyngraph through the store's `from_edges`. Not timed in
            the tables.
  batches   The rest in batches of N arrivals (dyngraph `--batch N`).
            --batches K keeps only the first K batches: the file written
            for dyngraph then ends there, and `--base` is adjusted so that
            its base is the same count of arrivals (checked against the
            `base_edges` dyngraph reports).
  graph     Undirected by default: NetworKit's undirected `Graph` and
            `DynConnectedComponents`, dyngraph `--undirected`. An undirected
            edge goes to NetworKit in the batch of its first arrival (its
            reverse may fall in the next dyngraph batch when a batch
            boundary splits the pair), so a batch of N arrivals is about
            N/2 NetworKit edges. With --directed: NetworKit's directed
            `Graph` and weakly connected components
            (`DynWeaklyConnectedComponents`; dyngraph's components are
            weakly connected), one arrival per line on both sides.
            NetworKit 11.3's DynDijkstra gives wrong distances on directed
            graphs (the source itself gets a distance > 0 once a cycle
            through it appears), which the checks below report.
  source    BFS and SSSP start at the first arrival's source on both sides.

Per batch, NetworKit: the batch's `GraphEvent(EDGE_ADDITION, u, v, w)` list
is built (not timed); the graph edits (`Graph.addEdges` on the batch's
arrays, timed); then, as NetworKit documents for `DynAlgorithm.updateBatch`
("updating data structure after a batch of updates": the graph is edited
first), each algorithm's `updateBatch(events)`, each timed alone:
components, `DynBFS`, `DynDijkstra` (SSSP; weights 1 on an unweighted
input). NetworKit has no dynamic PageRank: its static `PageRank` is
recomputed on the graph after every batch and that run is timed (L1 norm,
tolerance EPS * (1 - d) / d on the step, which bounds the L1 distance to
the fixed point by EPS for d = 0.85; dyngraph's `--pagerank-bound EPS` is
an L1 bound on the normalised ranks). The timed calls include NetworKit's
Python-to-C++ conversion of the event list (its Python API's cost).
Threads: `networkit.setNumberOfThreads(T)`.

dyngraph: `dyngraph replay FILE --store S --ids dense --order file --base
PCT --batch N --kernel cc,bfs,sssp,pr --incremental --every 1 --source V
--threads T --pagerank-bound EPS --json -`: every kernel maintained across
the batches and brought up to date after each one. The CLI reports each
maintained kernel's total update seconds and its checkpoints, not each
update, so dyngraph's per-batch figure is a mean (total / batches); the
NetworKit median and mean are both printed, and the ratio is NetworKit's
mean over dyngraph's mean. Graph edits: the store's timed batch inserts
(total / batches).

At the end of each run the results are compared: component count, vertices
BFS and SSSP reached, from NetworKit's dynamic algorithms, from a static
NetworKit run on the final graph (not timed), and from dyngraph's
maintained kernels; PageRank's ten highest-ranked vertices are compared
for information (near-ties may swap). A mismatch prints DISAGREES and the
script exits 1 after printing everything.

Timings are wall-clock: run on a quiet machine (`uptime`: a load well
under the core count) and quote ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DAMPING = 0.85
# (dyngraph kernel name, table label, NetworKit call measured, dyngraph side)
ALGORITHMS = [
    ("cc", "components", None, "maintained cc"),
    ("bfs", "BFS", "DynBFS.updateBatch", "maintained bfs"),
    ("sssp", "SSSP", "DynDijkstra.updateBatch", "maintained sssp"),
    ("pr", "PageRank", "static PageRank.run (no dynamic one)", None),
]


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def median(values):
    return statistics.median(values) if values else float("nan")


def mean(values):
    return statistics.fmean(values) if values else float("nan")


def run(cmd) -> str:
    log("$ " + " ".join(shlex.quote(str(c)) for c in cmd))
    result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(
            f"{' '.join(map(str, cmd))} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
        )
    return result.stdout


def build_dyngraph() -> Path:
    log("building dyngraph (cargo build --profile perf -p dyngraph-cli) ...")
    run(["cargo", "build", "--profile", "perf", "-p", "dyngraph-cli"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "perf" / "dyngraph"


def git_commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


# ----- input -----------------------------------------------------------------

def read_edges(paths: list[Path]):
    """src, dst (int64) and weights (float32 or None) of FILE... in order."""
    kinds = {p.suffix.lower() for p in paths}
    if not kinds <= {".wel", ".el", ".txt", ".snap"}:
        raise SystemExit(f"error: {sorted(kinds)}: give .el, .wel, .txt or .snap files "
                         "(whitespace-separated text; not gzip, CSV, Matrix Market or binary)")
    if len(kinds) > 1 and ".wel" in kinds:
        raise SystemExit("error: mix of weighted (.wel) and unweighted files")
    weighted = kinds == {".wel"}
    srcs, dsts, weights = [], [], []
    for path in paths:
        data = path.read_bytes()
        # Comment and blank lines out; then one parse of the whole text in C.
        data = re.sub(rb"(?m)^[ \t]*(?:[#%].*)?(?:\r?\n|\Z)", b"", data)
        first = data.split(b"\n", 1)[0].split()
        columns = len(first)
        lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        values = np.fromstring(data.decode("ascii"), dtype=np.float64, sep=" ")
        if columns not in (2, 3) or values.size != lines * columns:
            raise SystemExit(f"error: {path}: expected {lines} lines of {columns} numbers "
                             f"(the first line's count), read {values.size} numbers")
        table = values.reshape(lines, columns)
        if weighted and columns != 3:
            raise SystemExit(f"error: {path}: a .wel file needs a weight column")
        srcs.append(table[:, 0].astype(np.int64))
        dsts.append(table[:, 1].astype(np.int64))
        if weighted:
            weights.append(table[:, 2].astype(np.float32))
    src, dst = np.concatenate(srcs), np.concatenate(dsts)
    if len(src) == 0:
        raise SystemExit("error: no edges")
    if src.min() < 0 or dst.min() < 0:
        raise SystemExit("error: negative vertex id")
    return src, dst, (np.concatenate(weights) if weighted else None)


class Plan:
    """Which lines are the base and which batch each later line is in,
    following `dyngraph replay`'s arithmetic (crates/replay/src/engine.rs)."""

    def __init__(self, src, dst, weights, base_pct: float, batch: int, undirected: bool,
                 max_batches: int | None):
        copies = np.where(src == dst, 1, 2) if undirected else np.ones(len(src), dtype=np.int64)
        first_arrival = np.cumsum(copies) - copies
        total = int(copies.sum())
        base_len = math.floor(float(total) * base_pct / 100.0)
        lines = len(src)
        dyngraph_pct = base_pct
        if max_batches is not None:
            end = base_len + max_batches * batch
            # Lines whose every arrival is before `end`.
            lines = int(np.searchsorted(first_arrival + copies, end, side="right"))
            lines = max(lines, int(np.searchsorted(first_arrival, base_len, side="left")))
            new_total = int(copies[:lines].sum())
            if new_total < total:
                # The same base count out of the shorter stream.
                dyngraph_pct = 100.0 * (base_len + 0.5) / new_total
                total = new_total
                assert math.floor(float(total) * dyngraph_pct / 100.0) == base_len
        self.src, self.dst = src[:lines], dst[:lines]
        self.weights = None if weights is None else weights[:lines]
        self.first_arrival = first_arrival[:lines]
        self.arrivals, self.base_len, self.batch = total, base_len, batch
        self.dyngraph_pct = dyngraph_pct
        self.batch_count = -(-(total - base_len) // batch)
        self.vertices = int(max(self.src.max(), self.dst.max())) + 1
        self.source = int(self.src[0])
        # Line i goes to NetworKit with its first arrival.
        in_base = self.first_arrival < base_len
        self.base_lines = np.flatnonzero(in_base)
        batch_of = (self.first_arrival[~in_base] - base_len) // batch
        later = np.flatnonzero(~in_base)
        bounds = np.searchsorted(batch_of, np.arange(self.batch_count + 1), side="left")
        self.batch_lines = [later[bounds[b]:bounds[b + 1]] for b in range(self.batch_count)]

    def write(self, path: Path):
        """The lines used, for dyngraph: `src dst` (.el) or `src dst w` (.wel)."""
        with open(path, "w") as out:
            if self.weights is None:
                np.savetxt(out, np.column_stack([self.src, self.dst]), fmt="%d")
            else:
                for s, d, w in zip(self.src.tolist(), self.dst.tolist(), self.weights.tolist()):
                    out.write(f"{s} {d} {float(np.float32(w))!r}\n")


# ----- NetworKit -------------------------------------------------------------

def networkit_run(nk, plan: Plan, undirected: bool, threads: int, bound: float | None) -> dict:
    nk.setNumberOfThreads(threads)
    weighted = plan.weights is not None
    addition = nk.dynamics.GraphEventType.EDGE_ADDITION

    def arrays(lines):
        s = plan.src[lines].astype(np.uint64)
        d = plan.dst[lines].astype(np.uint64)
        if weighted:
            return (plan.weights[lines].astype(np.float64), (s, d))
        return (s, d)

    def pagerank(G):
        if bound is None:
            pr = nk.centrality.PageRank(G, damp=DAMPING)
        else:
            pr = nk.centrality.PageRank(G, damp=DAMPING, tol=bound * (1 - DAMPING) / DAMPING)
            pr.norm = nk.centrality.Norm.L1_NORM
        pr.run()
        return pr

    G = nk.Graph(plan.vertices, weighted, not undirected)
    started = time.perf_counter()
    G.addEdges(arrays(plan.base_lines))
    base_seconds = time.perf_counter() - started
    components_class = (nk.components.DynConnectedComponents if undirected
                        else nk.components.DynWeaklyConnectedComponents)
    algorithms = {
        "cc": components_class(G),
        "bfs": nk.distance.DynBFS(G, plan.source),
        "sssp": nk.distance.DynDijkstra(G, plan.source),
    }
    initial = {}
    for name, algorithm in algorithms.items():
        started = time.perf_counter()
        algorithm.run()
        initial[name] = time.perf_counter() - started
    started = time.perf_counter()
    pagerank(G)
    initial["pr"] = time.perf_counter() - started

    samples = {"edits": [], "cc": [], "bfs": [], "sssp": [], "pr": []}
    for lines in plan.batch_lines:
        ws = plan.weights[lines].tolist() if weighted else [1.0] * len(lines)
        events = [nk.dynamics.GraphEvent(addition, u, v, w)
                  for u, v, w in zip(plan.src[lines].tolist(), plan.dst[lines].tolist(), ws)]
        batch_arrays = arrays(lines)
        started = time.perf_counter()
        if len(lines):
            G.addEdges(batch_arrays)
        samples["edits"].append(time.perf_counter() - started)
        for name, algorithm in algorithms.items():
            started = time.perf_counter()
            algorithm.updateBatch(events)
            samples[name].append(time.perf_counter() - started)
        started = time.perf_counter()
        pr = pagerank(G)
        samples["pr"].append(time.perf_counter() - started)

    # Results, and the same from static NetworKit runs on the final graph.
    inf = np.finfo(np.float64).max

    def reached(distances):
        return int(np.count_nonzero(np.asarray(distances) < inf))

    static_cc = (nk.components.ConnectedComponents(G) if undirected
                 else nk.components.WeaklyConnectedComponents(G)).run()
    static_bfs = nk.distance.BFS(G, plan.source).run()
    static_sssp = nk.distance.Dijkstra(G, plan.source).run()
    dyn_bfs = np.asarray(algorithms["bfs"].getDistances())
    dyn_sssp = np.asarray(algorithms["sssp"].getDistances())
    return {
        "edges": G.numberOfEdges(), "nodes": G.numberOfNodes(),
        "base_seconds": base_seconds, "initial_seconds": initial, "samples": samples,
        "results": {
            "cc": algorithms["cc"].numberOfComponents(),
            "bfs": reached(dyn_bfs), "sssp": reached(dyn_sssp),
            "pr_top": [v for v, _ in pr.ranking()[:10]],
        },
        "static": {
            "cc": static_cc.numberOfComponents(),
            "bfs": reached(static_bfs.getDistances()),
            "sssp": reached(static_sssp.getDistances()),
            "bfs_distances_differ": int(np.count_nonzero(
                dyn_bfs != np.asarray(static_bfs.getDistances()))),
            "sssp_distances_differ": int(np.count_nonzero(
                dyn_sssp != np.asarray(static_sssp.getDistances()))),
        },
    }


# ----- dyngraph --------------------------------------------------------------

def dyngraph_command(dyngraph: Path, stream: Path, plan: Plan, args, threads: int) -> list:
    cmd = [dyngraph, "replay", stream, "--store", args.store, "--ids", "dense",
           "--order", "file", "--base", repr(plan.dyngraph_pct), "--batch", plan.batch,
           "--kernel", "cc,bfs,sssp,pr", "--incremental", "--every", 1,
           "--source", plan.source, "--threads", threads, "--json", "-"]
    if args.undirected:
        cmd.append("--undirected")
    if args.pagerank_bound is not None:
        cmd += ["--pagerank-bound", repr(args.pagerank_bound)]
    if args.verify:
        cmd.append("--verify")
    return cmd


def dyngraph_run(cmd: list, plan: Plan) -> dict:
    report = json.loads(run(cmd))
    store = report["stores"][0]
    if store["base_edges"] != plan.base_len or store["batch_count"] != plan.batch_count:
        raise RuntimeError(
            f"dyngraph replayed a base of {store['base_edges']} edges and "
            f"{store['batch_count']} batches; expected {plan.base_len} and {plan.batch_count}")
    if (plan.weights is not None) != bool(store["weighted"]):
        raise RuntimeError(f"dyngraph kept weights: {report['input']['weights']}; "
                           f"NetworKit's graph weighted: {plan.weights is not None}")
    maintained = store["maintained"]
    results = {}
    for name in ("cc", "bfs", "sssp"):
        m = re.match(r"(\d+) (components|reached)", maintained[name]["result"])
        results[name] = int(m.group(1)) if m else None
    results["pr_top"] = [int(x) for x in re.findall(r"(\d+):", maintained["pr"]["result"])]
    return {
        "edges": store["edges"], "vertices": store["vertices"],
        "edits_seconds": store["seconds"], "batches": store["batch_count"],
        "maintained": maintained, "results": results, "input": report["input"],
    }


# ----- report ----------------------------------------------------------------

def fmt_ms(seconds: float) -> str:
    if seconds != seconds:
        return "n/a"
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 10 else f"{ms:.1f}"


def rows_for(batch: int, threads: int, plan: Plan, nkr: dict, dg: dict, undirected: bool,
             bound: float | None):
    batches = dg["batches"]
    cc_call = ("DynConnectedComponents.updateBatch" if undirected
               else "DynWeaklyConnectedComponents.updateBatch")
    pr_side = (f"maintained pr (L1 <= {bound:g})" if bound is not None
               else "maintained pr (DF-P default)")
    timing = [("graph edits", "Graph.addEdges (batch arrays)", nkr["samples"]["edits"],
               f"store inserts ({batch} arrivals)", dg["edits_seconds"] / batches, None)]
    for name, label, call, side in ALGORITHMS:
        m = dg["maintained"][name]
        timing.append((label, call or cc_call, nkr["samples"][name], side or pr_side,
                       m["seconds"] / m["checkpoints"], m["fallbacks"]))
    rows = []
    for label, call, samples, side, dg_mean, fallbacks in timing:
        rows.append({
            "batch": batch, "threads": threads, "batches": batches, "what": label,
            "networkit": call, "networkit_median_s": median(samples),
            "networkit_mean_s": mean(samples), "dyngraph": side, "dyngraph_mean_s": dg_mean,
            "dyngraph_fallbacks": fallbacks, "ratio": mean(samples) / dg_mean if dg_mean else None,
        })
    checks = []
    for name, what in (("cc", "components"), ("bfs", "BFS reached"), ("sssp", "SSSP reached")):
        a, b, c = nkr["results"][name], dg["results"][name], nkr["static"][name]
        checks.append({"batch": batch, "threads": threads, "check": what, "networkit": a,
                       "dyngraph": b, "networkit_static": c,
                       "verdict": "agrees" if a == b == c else "DISAGREES"})
    for name in ("bfs", "sssp"):
        differ = nkr["static"][f"{name}_distances_differ"]
        checks.append({"batch": batch, "threads": threads,
                       "check": f"{name.upper()} distances, NetworKit dynamic vs its static run",
                       "networkit": f"{differ} vertices differ", "dyngraph": "",
                       "networkit_static": "", "verdict": "agrees" if differ == 0 else "DISAGREES"})
    for name, _, _, _ in ALGORITHMS:
        verified = dg["maintained"][name]["verified"]
        if verified is not None:
            checks.append({"batch": batch, "threads": threads,
                           "check": f"dyngraph --verify, maintained {name}, every batch",
                           "networkit": "", "dyngraph": "verified" if verified else "rejected",
                           "networkit_static": "",
                           "verdict": "agrees" if verified else "DISAGREES"})
    top_nk, top_dg = nkr["results"]["pr_top"], dg["results"]["pr_top"]
    overlap = len(set(top_nk) & set(top_dg))
    checks.append({"batch": batch, "threads": threads, "check": "PageRank top 10 (information)",
                   "networkit": " ".join(map(str, top_nk[:5])) + " ...",
                   "dyngraph": " ".join(map(str, top_dg[:5])) + " ...",
                   "networkit_static": "", "verdict": f"{overlap} of 10 shared"})
    return rows, checks


def print_tables(rows, checks, plan_notes):
    print("## NetworKit dynamic algorithms beside dyngraph's maintained kernels\n")
    for note in plan_notes:
        print(f"- {note}")
    print()
    print("Per batch, wall clock, ms. NetworKit: median and mean of the timed call over the "
          "batches. dyngraph: mean (total update seconds / batches: the CLI reports totals). "
          "Ratio: NetworKit mean / dyngraph mean (> 1: dyngraph faster).\n")
    print("| batch | threads | batches | what | NetworKit call | NK median ms | NK mean ms "
          "| dyngraph | dyngraph mean ms | dyngraph fallbacks | NK / dyngraph |")
    print("|---:|---:|---:|---|---|---:|---:|---|---:|---:|---:|")
    for r in rows:
        ratio = "n/a" if r["ratio"] is None else f"{r['ratio']:.2f}"
        fallbacks = "" if r["dyngraph_fallbacks"] is None else str(r["dyngraph_fallbacks"])
        print(f"| {r['batch']} | {r['threads']} | {r['batches']} | {r['what']} | {r['networkit']} "
              f"| {fmt_ms(r['networkit_median_s'])} | {fmt_ms(r['networkit_mean_s'])} "
              f"| {r['dyngraph']} | {fmt_ms(r['dyngraph_mean_s'])} | {fallbacks} | {ratio} |")
    print("\nResults after the last batch (NetworKit static: a run from scratch on NetworKit's "
          "final graph, not timed):\n")
    print("| batch | threads | check | NetworKit dynamic | dyngraph maintained | NetworKit static "
          "| verdict |")
    print("|---:|---:|---|---|---|---|---|")
    for c in checks:
        print(f"| {c['batch']} | {c['threads']} | {c['check']} | {c['networkit']} "
              f"| {c['dyngraph']} | {c['networkit_static']} | {c['verdict']} |")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="See the module docstring (the top of this file) for what is compared and how.")
    parser.add_argument("files", nargs="+", type=Path,
                        help="edge lists, concatenated in the order given (.el, .wel, .txt, .snap)")
    parser.add_argument("--base", type=float, default=50.0,
                        help="percent of the arrivals bulk-built as the base (default 50)")
    parser.add_argument("--batch-sizes", default="100,1000",
                        help="arrivals per batch, comma-separated (default 100,1000)")
    parser.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    parser.add_argument("--batches", type=int, default=None,
                        help="replay only the first K batches after the base (default: all)")
    parser.add_argument("--directed", action="store_true",
                        help="directed graphs on both sides, weakly connected components "
                             "(default: undirected)")
    parser.add_argument("--pagerank-bound", type=float, default=1e-6,
                        help="L1 bound EPS of both PageRanks (default 1e-6; 0: dyngraph's DF-P "
                             "default and NetworKit's default tolerance)")
    parser.add_argument("--store", default="vcsr", help="dyngraph store (default vcsr)")
    parser.add_argument("--dyngraph", type=Path, help="dyngraph binary (default: build it)")
    parser.add_argument("--verify", action="store_true",
                        help="dyngraph checks every maintained result with its verifier "
                             "(outside the timed updates, but it disturbs the caches: "
                             "time without it)")
    parser.add_argument("--json", type=Path, help="write the tables, samples and settings here")
    args = parser.parse_args()
    args.undirected = not args.directed
    if args.pagerank_bound == 0:
        args.pagerank_bound = None
    batch_sizes = [int(x) for x in args.batch_sizes.split(",")]
    threads = [int(x) for x in args.threads.split(",")]
    if min(batch_sizes) < 1 or min(threads) < 1 or not 0 <= args.base < 100:
        raise SystemExit("error: batch sizes and threads must be >= 1, --base in [0, 100)")

    import networkit as nk  # imported here so --help works without it

    dyngraph = args.dyngraph or build_dyngraph()
    load_before = load_average()
    started = time.time()
    src, dst, weights = read_edges(args.files)
    log(f"read {len(src)} edges from {', '.join(map(str, args.files))}")
    rows, checks, runs = [], [], []
    notes = [
        f"input: {', '.join(str(f) for f in args.files)} ({len(src)} lines, "
        f"{'weighted' if weights is not None else 'unweighted'}), "
        f"{'undirected' if args.undirected else 'directed (weakly connected components)'}, "
        f"base {args.base:g} % of the arrivals, ids as written",
        f"NetworKit {nk.__version__}, dyngraph {git_commit()} `--store {args.store}`, "
        f"load average {load_before} before",
        "PageRank: " + (f"both sides to an L1 error of about {args.pagerank_bound:g}: NetworKit "
                        f"recomputes statically after each batch (it has no dynamic PageRank)"
                        if args.pagerank_bound is not None else
                        "dyngraph's default maintained PageRank (DF-P), NetworKit's static "
                        "PageRank at its default tolerance, recomputed after each batch"),
    ]
    with tempfile.TemporaryDirectory(prefix="nk-peer-") as tmp:
        for batch in batch_sizes:
            plan = Plan(src, dst, weights, args.base, batch, args.undirected, args.batches)
            stream = Path(tmp) / f"stream-{batch}{'.wel' if weights is not None else '.el'}"
            plan.write(stream)
            notes.append(f"batch {batch}: {plan.arrivals} arrivals, base {plan.base_len}, "
                         f"{plan.batch_count} batches, {plan.vertices} vertices, "
                         f"source {plan.source}")
            for t in threads:
                log(f"NetworKit: batch {batch}, {t} threads, {plan.batch_count} batches ...")
                nkr = networkit_run(nk, plan, args.undirected, t, args.pagerank_bound)
                cmd = dyngraph_command(dyngraph, stream, plan, args, t)
                dg = dyngraph_run(cmd, plan)
                r, c = rows_for(batch, t, plan, nkr, dg, args.undirected, args.pagerank_bound)
                rows += r
                checks += c
                runs.append({"batch": batch, "threads": t, "dyngraph_command":
                             " ".join(shlex.quote(str(x)) for x in cmd),
                             "networkit": nkr, "dyngraph": dg})
    elapsed = time.time() - started
    notes.append(f"took {elapsed:.0f} s; load average {load_average()} after")
    print_tables(rows, checks, notes)
    if args.json:
        args.json.write_text(json.dumps({
            "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()
                         if k != "files"} | {"files": [str(f) for f in args.files]},
            "networkit_version": nk.__version__, "dyngraph_commit": git_commit(),
            "load_before": load_before, "load_after": load_average(), "seconds": elapsed,
            "rows": rows, "checks": checks, "runs": runs,
        }, indent=1))
        log(f"wrote {args.json}")
    if any(c["verdict"] == "DISAGREES" for c in checks):
        log("some results DISAGREE (see the table)")
        sys.exit(1)


if __name__ == "__main__":
    main()
