#!/usr/bin/env python3
"""Side by side: dyngraph against the VCSR authors' C++ (DIR-LAB/VCSR) and
GAPBS, on the same files and the same work, alternating runs (issue 17).

Not part of CI. Needs g++ and make (the peers are built here, in a
temporary directory, from ../shared/peers) and the `dyngraph` CLI (built
with cargo unless --dyngraph names a binary). Prints medians and ratios and
writes them, with the machine's load and the peers' commits, to a JSON file.

    python3 benches/peers/run.py                      # everything, 5 reps
    python3 benches/peers/run.py --parts inserts,analytics --reps 7
    python3 benches/peers/run.py --parts kernels --scale 16 --threads 1,2
    python3 benches/peers/run.py --parts kernels --scale 20 --generator kron,uniform
    python3 benches/peers/run.py --parts batches --reps 3 --dyngraph target/perf/dyngraph \
        --lsgraph-src DIR --parlaylib-src DIR --aspen-src DIR

Parts:
  inserts    VCSR/PCSR/BAL inserts on sx-mathoverflow b30 (base 30 %, the
             rest one edge at a time): the C++ `D-Graph Build Time` against
             `dyngraph replay --store S --base 30.0002 --batch 1`, out-edges
             only (`--in-edges off`: the C++ keeps none) and with in-edges
             kept. 30.0002 % of 375,972 is the C++ base's 112,792 edges.
             Rates in M edges/s; ratio = dyngraph / C++ rate.
  analytics  PageRank (20 iterations) and BFS from the stream's first source
             on the final graph, 1 thread: the C++ stores against the C++
             CSR, dyngraph's stores (on a snapshot, through `replay
             --kernel`) against dyngraph's `Csr` of the same edges.
  kernels    GAPBS bfs, sssp, pr, cc, cc_sv, bc, tc against `dyngraph run`
             on identical files: Kronecker `-g SCALE` and/or uniform random
             `-u SCALE` (`--generator kron,uniform`) written by GAPBS's
             converter (as .el and, for sssp, .wel), sx-mathoverflow (full
             .wel) and CollegeMsg (deduplicated, self-loops dropped, as
             GAPBS squishes its graphs). PageRank runs 20 iterations on both
             sides (`-i 20 -t 0`); BC 4 sources on both (`-i 4`; GAPBS
             repeats the given source, dyngraph picks 4 seeded ones); the
             same source for bfs/sssp. Ratio = dyngraph / GAPBS time.
  batches    (not in the default parts) LSGraph (CGCL-codes/LSGraph 6a34627,
             clang + OpenMP, parlaylib 5101769) and Aspen (ldhulipala/aspen
             ecc3193) beside `dyngraph replay`: batch inserts, then deletes of
             the same batches, of sizes --batch-sizes, at --threads, on one
             Kronecker graph (GAPBS `converter -g SCALE`, made simple and
             symmetric, shuffled): every system reads the same base graph and
             the same batch edges in the same order (see write_batch_inputs).
             The peers' sources are edited in a copy (LSGRAPH_EDITS,
             ASPEN_EDITS) to read that file; only the update calls are
             timed. Reports M edges/s and every system's edge count after the
             inserts and after the deletes, checked against each other.
             dyngraph's replay deletes only through --window (the oldest
             arrivals), so its deletes are not measured.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STORES = ["vcsr", "pcsr", "bal"]
GAPBS_KERNELS = ["bfs", "sssp", "pr", "cc", "cc_sv", "bc", "tc"]
# --generator NAME: (file and table name, GAPBS converter flag, description).
GENERATORS = {
    "kron": ("kron", "-g", "Kronecker"),
    "uniform": ("uniform", "-u", "uniform random"),
}


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def run(cmd, env=None, cwd=None) -> str:
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    result = subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, env=full_env, cwd=cwd
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"{' '.join(map(str, cmd))} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
        )
    return result.stdout


def median(values):
    return statistics.median(values) if values else float("nan")


def peer_commits(peers: Path) -> dict[str, str]:
    """The commits the peers README records for each folder."""
    commits = {}
    readme = peers / "README.md"
    if readme.exists():
        for line in readme.read_text().splitlines():
            cells = [c.strip().strip("`/") for c in line.split("|")]
            if len(cells) > 4 and cells[1] in ("VCSR", "gapbs"):
                commits[cells[1]] = cells[3]
    return commits


def build_peers(peers: Path, work: Path) -> Path:
    build = work / "peers"
    for name in ("VCSR", "gapbs"):
        shutil.copytree(peers / name, build / name)
    jobs = str(os.cpu_count() or 2)
    for folder in ("VCSR/csr", "VCSR/vcsr", "VCSR/pcsr", "VCSR/bal", "gapbs"):
        log(f"building {folder} ...")
        run(["make", "-j", jobs], cwd=build / folder)
    return build


def build_dyngraph() -> Path:
    log("building dyngraph (cargo build --profile perf -p dyngraph-cli) ...")
    run(["cargo", "build", "--profile", "perf", "-p", "dyngraph-cli"], cwd=ROOT)
    return ROOT / "target" / "perf" / "dyngraph"


# ----- parsing ---------------------------------------------------------------

def cpp_build_seconds(out: str) -> float:
    m = re.search(r"D-Graph Build Time:\s*([0-9.eE+-]+)", out)
    if not m:
        raise RuntimeError(f"no D-Graph Build Time in:\n{out}")
    return float(m.group(1))


def gapbs_trials(out: str) -> list[float]:
    return [float(x) for x in re.findall(r"Trial Time:\s*([0-9.eE+-]+)", out)]


def dyngraph_trials(out: str) -> list[float]:
    return [float(x) for x in re.findall(r"^trial \d+: ([0-9.eE+-]+) s", out, re.M)]


def replay_json(out: str) -> dict:
    report = json.loads(out)
    return {s["store"].lower(): s for s in report["stores"]}


# ----- inputs ----------------------------------------------------------------

def prepare_inputs(data: Path, work: Path, gapbs: Path, scale: int, parts: set[str],
                   generators: list[str]):
    inputs = {}
    b30 = data / "sx-mathoverflow" / "b30"
    base, dynamic = b30 / "base.wel", b30 / "dynamic.wel"
    full = work / "mathoverflow.wel"
    full.write_text(base.read_text() + dynamic.read_text())
    first_source = int(base.read_text().split(None, 1)[0])
    inputs["mo"] = {"base": base, "dynamic": dynamic, "full": full, "source": first_source}
    if "kernels" in parts:
        # CollegeMsg as GAPBS builds it: duplicates and self-loops dropped,
        # first arrivals kept in order; weights for sssp from a fixed hash.
        seen, lines, wlines = set(), [], []
        for line in (data / "CollegeMsg.txt").read_text().splitlines():
            if not line.strip() or line.startswith(("#", "%")):
                continue
            s, d = line.split()[:2]
            if s == d or (s, d) in seen:
                continue
            seen.add((s, d))
            lines.append(f"{s} {d}\n")
            wlines.append(f"{s} {d} {(int(s) * 2654435761 + int(d) * 40503) % 255 + 1}\n")
        college_el, college_wel = work / "college.el", work / "college.wel"
        college_el.write_text("".join(lines))
        college_wel.write_text("".join(wlines))
        inputs["college"] = {"el": college_el, "wel": college_wel, "source": int(lines[0].split()[0])}
        mo_el = work / "mathoverflow.el"
        mo_el.write_text("".join(" ".join(l.split()[:2]) + "\n" for l in full.read_text().splitlines()))
        inputs["mo"]["el"], inputs["mo"]["wel"] = mo_el, full
        for generator in generators:
            name, flag, what = GENERATORS[generator]
            el, wel = work / f"{name}{scale}.el", work / f"{name}{scale}.wel"
            log(f"writing {what} {flag} {scale} with GAPBS's converter ...")
            run([gapbs / "converter", flag, scale, "-e", el])
            run([gapbs / "converter", flag, scale, "-w", "-e", wel])
            # The same edges in both files (the generators are seeded).
            with open(el) as a, open(wel) as b:
                for la, lb in zip(a, b):
                    if la.split()[:2] != lb.split()[:2]:
                        raise RuntimeError("converter wrote different edges to .el and .wel")
            inputs[f"{name}{scale}"] = {"el": el, "wel": wel, "source": 0}
    return inputs


# ----- the parts -------------------------------------------------------------

def part_inserts(vcsr: Path, dyngraph: Path, mo: dict, reps: int) -> list[dict]:
    rows = []
    edges = sum(1 for _ in open(mo["dynamic"]))
    env1 = {"OMP_NUM_THREADS": "1"}
    for store in STORES:
        cpp, out_only, with_in = [], [], []
        for rep in range(reps):
            log(f"inserts {store} rep {rep + 1}/{reps}")
            out = run([vcsr / store / "bfs", "-B", mo["base"], "-D", mo["dynamic"],
                       "-r", mo["source"], "-n", 1], env=env1)
            cpp.append(edges / cpp_build_seconds(out) / 1e6)
            for in_edges, into in (("off", out_only), ("on", with_in)):
                out = run([dyngraph, "replay", mo["full"], "--store", store, "--base", "30.0002",
                           "--batch", 1, "--in-edges", in_edges, "--threads", 1, "--json", "-"])
                into.append(replay_json(out)[store]["meps"])
        rows.append({
            "store": store, "cpp_meps": median(cpp), "dyngraph_out_only_meps": median(out_only),
            "dyngraph_with_in_meps": median(with_in),
            "ratio_out_only": median(out_only) / median(cpp),
            "ratio_with_in": median(with_in) / median(cpp),
            "samples": {"cpp": cpp, "out_only": out_only, "with_in": with_in},
        })
    return rows


def part_analytics(vcsr: Path, dyngraph: Path, mo: dict, reps: int) -> list[dict]:
    rows = []
    env1 = {"OMP_NUM_THREADS": "1"}
    kernel_flags = {"pr": ["-i", 20, "-t", 0], "bfs": []}
    for kernel in ("pr", "bfs"):
        cpp_csr, cpp_store = [], {s: [] for s in STORES}
        ours, ours_csr = {s: [] for s in STORES}, {s: [] for s in STORES}
        for rep in range(reps):
            log(f"analytics {kernel} rep {rep + 1}/{reps}")
            out = run([vcsr / "csr" / kernel, "-f", mo["full"], "-s", "-r", mo["source"], "-n", 3,
                       *kernel_flags[kernel]], env=env1)
            cpp_csr.append(median(gapbs_trials(out)))
            for store in STORES:
                out = run([vcsr / store / kernel, "-B", mo["base"], "-D", mo["dynamic"],
                           "-r", mo["source"], "-n", 3, *kernel_flags[kernel]], env=env1)
                cpp_store[store].append(median(gapbs_trials(out)))
            out = run([dyngraph, "replay", mo["full"], "--store", ",".join(STORES), "--base",
                       "30.0002", "--batch", 1, "--kernel", kernel, "--threads", 1, "--json", "-"])
            report = replay_json(out)
            for store in STORES:
                summary = report[store]["kernels"][kernel]
                ours[store].append(summary["seconds"])
                ours_csr[store].append(summary["csr_seconds"])
        for store in STORES:
            rows.append({
                "kernel": kernel, "store": store,
                "cpp_seconds": median(cpp_store[store]), "cpp_csr_seconds": median(cpp_csr),
                "cpp_ratio_to_csr": median(cpp_store[store]) / median(cpp_csr),
                "dyngraph_seconds": median(ours[store]),
                "dyngraph_csr_seconds": median(ours_csr[store]),
                "dyngraph_ratio_to_csr": median(ours[store]) / median(ours_csr[store]),
                "dyngraph_vs_cpp": median(ours[store]) / median(cpp_store[store]),
            })
    return rows


def part_kernels(gapbs: Path, dyngraph: Path, inputs: dict, reps: int, threads: list[int],
                 scale: int, generators: list[str], kernels: list[str]) -> list[dict]:
    rows = []
    graphs = [f"{GENERATORS[g][0]}{scale}" for g in generators] + ["mo", "college"]
    for graph in graphs:
        spec = inputs[graph]
        for kernel in kernels:
            file = spec["wel"] if kernel == "sssp" else spec["el"]
            flags = {"pr": ["-i", 20, "-t", 0], "bc": ["-i", 4], "tc": ["-s"]}.get(kernel, [])
            if kernel in ("bfs", "sssp", "bc"):
                flags = [*flags, "-r", spec["source"]]
            for t in threads:
                g_times, d_times = [], []
                # Two alternations of `reps` trials each side.
                for rep in range(2):
                    log(f"kernels {graph} {kernel} {t} threads, round {rep + 1}/2")
                    out = run([gapbs / kernel, "-f", file, "-n", reps, *flags],
                              env={"OMP_NUM_THREADS": str(t)})
                    g_times += gapbs_trials(out)
                    out = run([dyngraph, "run", kernel, file, "--store", "csr", "-n", reps,
                               "--threads", t, "--source", spec["source"]])
                    d_times += dyngraph_trials(out)
                rows.append({
                    "graph": graph, "kernel": kernel, "threads": t,
                    "gapbs_seconds": median(g_times), "dyngraph_seconds": median(d_times),
                    "ratio": median(d_times) / median(g_times),
                })
    return rows


# ----- batches: LSGraph and Aspen beside dyngraph ---------------------------
#
# Neither peer can read a batch file as shipped: both time batches of RMAT
# edges they generate themselves, each batch inserted and at once deleted
# again. The edits below (applied to a copy of the user's checkout, never to
# the checkout itself; each must match its source exactly once, so a
# different commit fails loudly) make each read the batch edges from a file
# (`-u FILE` / `-update-file FILE`, "src dst" lines), insert all batches of
# `-bs N` edges in the file's order, then delete the same batches in the
# same order, and print the totals, the edge counts after the inserts and
# after the deletes and, with `-kernels`, BFS (and PageRank, LSGraph only:
# Aspen ships none) on the graph after the inserts, as `PEERS key value`
# lines. Their own timers are kept: only the update calls are timed (wall
# clock: LSGraph gettimeofday, Aspen its timer). Their sort keys are also
# widened to every vertex id (both shift a source by log2(n/2) bits, enough
# for their own RMAT ids, below n/2, not for a graph's).

# (file, old text, new text): LSGraph 6a34627, src/LSGraph.cc and the
# include/LSGraph.h one-liner of ../shared/peers/README.md.
LSGRAPH_EDITS = [
    # The 2-argument form of this parlaylib (../shared/peers/README.md).
    ("include/LSGraph.h",
     "parlay::stable_integer_sort_inplace(edges, edge_to_long, bits);",
     "parlay::stable_integer_sort_inplace(edges, edge_to_long);"),
    # Read the batch edges (its own edge-list reader).
    ("src/LSGraph.cc",
     "std::vector<uint32_t> update_sizes = {batch_size};",
     "std::vector<uint32_t> update_sizes = {batch_size}; uint64_t upd_m; uint32_t upd_n; "
     "pair_uint *upd = get_edges_from_file(P.getOptionValue(\"-u\", \"updates.el\").c_str(), 1, false, &upd_m, &upd_n);"),
    # One trial per batch of the file; then as many again for the deletes.
    ("src/LSGraph.cc",
     "    // n_trials = 1;",
     "    n_trials = (upd_m + update_sizes[us] - 1) / update_sizes[us];"),
    ("src/LSGraph.cc",
     "for (size_t ts=0; ts<n_trials; ts++) {",
     "for (size_t ts=0; ts<2*n_trials; ts++) { size_t b0 = (ts % n_trials) * update_sizes[us]; "
     "updates_to_run = std::min<size_t>(update_sizes[us], upd_m - b0);"),
    # Sort keys wide enough for every vertex (it generates ids below n/2).
    ("src/LSGraph.cc",
     "size_t nn = 1 << (log2_up(num_nodes) - 1);",
     "size_t nn = 1 << log2_up(num_nodes);"),
    ("src/LSGraph.cc",
     "my_updates[i] = rmat(i);",
     "my_updates[i] = {upd[b0 + i].x, upd[b0 + i].y};"),
    # Inserts in the first pass, deletes in the second.
    ("src/LSGraph.cc",
     "graph.add_edge_batch_sort(my_updates, updates_to_run, nn);",
     "if (ts < n_trials) graph.add_edge_batch_sort(my_updates, updates_to_run, nn);"),
    ("src/LSGraph.cc",
     "avg_insert += cal_time_elapsed(&start, &end);",
     "if (ts < n_trials) avg_insert += cal_time_elapsed(&start, &end); "
     "if (ts == n_trials - 1) { printf(\"PEERS edges_after_inserts %u\\n\", graph.get_num_edges()); "
     "if (P.getOption(\"-kernels\")) { printf(\"PEERS bfs %.9f\\n\", test_bfs(graph, P, 0)); "
     "printf(\"PEERS pr %.9f\\n\", test_pr(graph, P)); } }"),
    ("src/LSGraph.cc",
     "parallel_for(uint32_t i = 0; i < updates_to_run; i++) {",
     "parallel_for(uint32_t i = 0; i < (ts < n_trials ? 0 : updates_to_run); i++) {"),
    ("src/LSGraph.cc",
     "avg_delete +=  cal_time_elapsed(&start, &end);",
     "if (ts >= n_trials) avg_delete += cal_time_elapsed(&start, &end);"),
    ("src/LSGraph.cc",
     "double time_i = (double) avg_insert / n_trials;",
     "printf(\"PEERS edges_after_deletes %u\\nPEERS batches %zu\\nPEERS insert_seconds %.9f\\nPEERS delete_seconds %.9f\\n\", "
     "graph.get_num_edges(), n_trials, avg_insert, avg_delete); "
     # Untimed: what its neighbour lists hold after the deletes: edges listed,
     # batch edges among them, and edges listed twice at a vertex.
     "{ std::vector<uint64_t> U(upd_m); for (uint64_t i = 0; i < upd_m; i++) U[i] = ((uint64_t) upd[i].x << 32) | upd[i].y; "
     "std::sort(U.begin(), U.end()); uint64_t listed = 0, left = 0, twice = 0; std::vector<uint32_t> nei; "
     "for (uint32_t v = 0; v < graph.get_num_vertices(); v++) { nei.clear(); graph.print(v, nei); listed += nei.size(); "
     "std::sort(nei.begin(), nei.end()); for (size_t j = 0; j < nei.size(); j++) { "
     "if (j > 0 && nei[j] == nei[j - 1]) twice++; "
     "if (std::binary_search(U.begin(), U.end(), ((uint64_t) v << 32) | nei[j])) left++; } } "
     "printf(\"PEERS edges_listed_after_deletes %lu\\nPEERS updates_left %lu\\nPEERS listed_twice %lu\\n\", listed, left, twice); } "
     "double time_i = (double) avg_insert / n_trials;"),
]

# Aspen ecc3193, code/tools/run_batch_updates.cpp. Its batch sizes, 10 up to
# 2*10^9, become the one `-bs N` (at most the update file: the cap of
# ../shared/peers/README.md).
ASPEN_EDITS = [
    ("tools/run_batch_updates.cpp",
     "#include \"rmat_util.h\"",
     "#include \"rmat_util.h\"\n#include \"../algorithms/BFS.h\""),
    ("tools/run_batch_updates.cpp",
     "auto update_sizes = pbbs::sequence<size_t>(10);",
     "auto update_sizes = pbbs::sequence<size_t>(1);"),
    ("tools/run_batch_updates.cpp",
     "update_sizes[0] = 10;",
     "update_sizes[0] = P.getOptionLongValue(\"-bs\", 10000000);"),
    *[("tools/run_batch_updates.cpp", f"  update_sizes[{i}] = {size};\n", "")
      for i, size in enumerate([100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                1000000000, 2000000000], start=1)],
    # Read the batch edges from -update-file (an option it has but never reads).
    ("tools/run_batch_updates.cpp",
     "using pair_vertex = tuple<uintV, uintV>;",
     "using pair_vertex = tuple<uintV, uintV>; std::vector<pair_vertex> U; "
     "{ std::ifstream uf(update_fname); uintV us_, ud_; while (uf >> us_ >> ud_) U.emplace_back(us_, ud_); }"),
    ("tools/run_batch_updates.cpp",
     "for (size_t ts=0; ts<n_trials; ts++) {",
     "n_trials = (U.size() + update_sizes[us] - 1) / update_sizes[us]; for (size_t ts=0; ts<2*n_trials; ts++) {"),
    ("tools/run_batch_updates.cpp",
     "size_t updates_to_run = update_sizes[us];",
     "size_t b0 = (ts % n_trials) * update_sizes[us]; size_t updates_to_run = std::min(update_sizes[us], U.size() - b0);"),
    ("tools/run_batch_updates.cpp",
     "size_t nn = 1 << (pbbs::log2_up(n) - 1);",
     "size_t nn = 1 << pbbs::log2_up(n);"),
    ("tools/run_batch_updates.cpp",
     "updates[i] = rmat(i);",
     "updates[i] = U[b0 + i];"),
    ("tools/run_batch_updates.cpp",
     "VG.insert_edges_batch(update_sizes[us], updates.begin(), false, true, nn, false);",
     "if (ts < n_trials) VG.insert_edges_batch(updates_to_run, updates.begin(), false, true, nn, false);"),
    ("tools/run_batch_updates.cpp",
     "avg_insert += batch_time;",
     "if (ts < n_trials) avg_insert += batch_time; if (ts == n_trials - 1) { auto S = VG.acquire_version(); "
     "size_t peers_bytes = S.graph.size_in_bytes(); "
     "cout << \"PEERS edges_after_inserts \" << S.graph.num_edges() << endl << \"PEERS bytes \" << peers_bytes << endl; "
     "if (P.getOption(\"-kernels\")) { timer bt; bt.start(); BFS_Fetch(S.graph, P.getOptionLongValue(\"-src\", 0), true); "
     "cout << setprecision(9) << \"PEERS bfs \" << bt.stop() << endl; } VG.release_version(std::move(S)); }"),
    ("tools/run_batch_updates.cpp",
     "VG.delete_edges_batch(update_sizes[us], updates.begin(), false, true, nn, false);",
     "if (ts >= n_trials) VG.delete_edges_batch(updates_to_run, updates.begin(), false, true, nn, false);"),
    ("tools/run_batch_updates.cpp",
     "avg_delete += batch_time;",
     "if (ts >= n_trials) avg_delete += batch_time;"),
    ("tools/run_batch_updates.cpp",
     "cout << \"Avg insert: \" << (avg_insert / n_trials) << endl;",
     "{ auto S = VG.acquire_version(); cout << \"PEERS edges_after_deletes \" << S.graph.num_edges() << endl; "
     "VG.release_version(std::move(S)); } cout << setprecision(9) << \"PEERS batches \" << n_trials << endl "
     "<< \"PEERS insert_seconds \" << avg_insert << endl << \"PEERS delete_seconds \" << avg_delete << endl; "
     "cout << \"Avg insert: \" << (avg_insert / n_trials) << endl;"),
]


def apply_edits(root: Path, edits) -> None:
    """Applies (file, old, new) edits; each old text must occur exactly once."""
    for name, old, new in edits:
        path = root / name
        text = path.read_text()
        count = text.count(old)
        if count != 1:
            raise RuntimeError(f"{path}: expected the text {old!r} once, found it {count} times "
                               "(not the commit ../shared/peers/README.md names?)")
        path.write_text(text.replace(old, new))


def git_commit(src: Path) -> str:
    try:
        return run(["git", "-C", src, "rev-parse", "--short=7", "HEAD"]).strip()
    except (RuntimeError, OSError):
        return "unknown (not a git checkout)"


LSGRAPH_FLAGS = ["-std=c++20", "-mcx16", "-O3", "-DNDEBUG", "-march=native", "-DOPENMP=1",
                 "-DCILK=0", "-DPARLAY_OPENMP", "-fopenmp", "-m64", "-I.", "-Iinclude"]


def build_stamp(*parts) -> str:
    """What a peer's build depends on: its sources' commits, the edits, the flags."""
    import hashlib
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


def reusable(target: Path, binary: Path, stamp: str) -> bool:
    """Whether an earlier build in `target` was made from the same stamp."""
    mark = target / ".harness-stamp"
    if binary.exists() and mark.exists() and mark.read_text() == stamp:
        log(f"reusing {binary} (built from the same sources and edits)")
        return True
    return False


def build_lsgraph(src: Path, parlaylib: Path, build: Path) -> Path:
    """LSGraph with clang and OpenMP (g++ 12 builds one that loses edges)."""
    target = build / "LSGraph"
    binary = target / "LSGraph"
    flags = [*LSGRAPH_FLAGS, f"-I{parlaylib.resolve() / 'include'}"]
    stamp = build_stamp(git_commit(src), git_commit(parlaylib), LSGRAPH_EDITS, flags)
    if reusable(target, binary, stamp):
        return binary
    if target.exists():
        shutil.rmtree(target)
    # Its repository ships a prebuilt binary, objects and libcilkrts: not copied.
    shutil.copytree(src, target, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", "obj", "lib", "LSGraph"))
    apply_edits(target, LSGRAPH_EDITS)
    (target / "obj").mkdir()
    # One compiler at a time (its Makefile's units, util and LSGraph).
    for unit in ("util", "LSGraph"):
        log(f"building LSGraph {unit}.cc (clang++) ...")
        run(["nice", "clang++", *flags, "-c", "-o", f"obj/{unit}.o", f"src/{unit}.cc"], cwd=target)
    run(["clang++", "-fopenmp", "obj/LSGraph.o", "obj/util.o", "-lm", "-lpthread", "-ldl",
         "-o", "LSGraph"], cwd=target)
    (target / ".harness-stamp").write_text(stamp)
    return binary


def build_aspen(src: Path, build: Path) -> Path:
    """Aspen's run_batch_updates with its own scheduler (make's default)."""
    target = build / "aspen"
    code = target / "code"
    binary = code / "run_batch_updates"
    stamp = build_stamp(git_commit(src), ASPEN_EDITS, "make run_batch_updates")
    if reusable(target, binary, stamp):
        return binary
    if target.exists():
        shutil.rmtree(target)
    # Its inputs/ holds symbolic links to graphs it does not ship: kept as links.
    shutil.copytree(src, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    apply_edits(code, ASPEN_EDITS)
    log("building Aspen run_batch_updates (g++, -DHOMEGROWN) ...")
    run(["nice", "make", "run_batch_updates"], cwd=code)
    (target / ".harness-stamp").write_text(stamp)
    return binary


def build_batch_peers(args, build: Path) -> dict:
    """Builds the peers the batches part runs; returns name -> binary."""
    build.mkdir(parents=True, exist_ok=True)
    peers = {}
    if "lsgraph" in args.batch_systems:
        if not args.lsgraph_src or not args.parlaylib_src:
            raise SystemExit("--parts batches with lsgraph needs --lsgraph-src DIR and "
                             "--parlaylib-src DIR (see benches/peers/README.md)")
        peers["lsgraph"] = build_lsgraph(args.lsgraph_src, args.parlaylib_src, build)
    if "aspen" in args.batch_systems:
        if not args.aspen_src:
            raise SystemExit("--parts batches with aspen needs --aspen-src DIR "
                             "(see benches/peers/README.md)")
        peers["aspen"] = build_aspen(args.aspen_src, build)
    return peers


def uptime() -> str:
    try:
        return run(["uptime"]).strip()
    except (RuntimeError, OSError):
        return f"load average: {load_average()}"


def run_measured(cmd, env=None, cwd=None) -> tuple[str, int]:
    """Like run(), also returning the child's peak RSS in bytes."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([str(c) for c in cmd], stdout=out, stderr=err, env=full_env, cwd=cwd)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read()
        if child.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, cmd))} exited {child.returncode}:\n"
                               f"{stdout[-4000:]}\n{err.read()[-4000:]}")
    return stdout, usage.ru_maxrss * 1024


def peers_values(out: str) -> dict[str, float]:
    return {k: float(v) for k, v in re.findall(r"^PEERS (\w+) ([0-9.eE+-]+)\s*$", out, re.M)}


def build_converter(peers: Path, build: Path) -> Path:
    """GAPBS's converter alone (the generator of every synthetic graph here)."""
    target = build / "gapbs"
    if not (target / "converter").exists():
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(peers / "gapbs", target)
        log("building GAPBS converter ...")
        run(["nice", "make", "converter"], cwd=target)
    return target / "converter"


def write_batch_inputs(converter: Path, work: Path, scale: int, update_edges: int,
                       batch_sizes: list[int], seed: int) -> dict:
    """The graph files and the files of batch edges that every system reads.

    GAPBS's Kronecker generator (`converter -g SCALE`, Graph500 parameters,
    edge factor 16, the graph of the kernels part) made simple and
    symmetric: self-loops dropped, each undirected edge once, shuffled
    (seeded), then listed pair by pair, (u, v) then (v, u): the stream.
    A batch size N updates the stream's last U = max(N, `update_edges`)
    directed edges (at most half the stream), in batches of N in the
    stream's order (the last batch the remainder); the rest is the base
    graph. U and N are even, so no batch splits a pair and the graph is
    symmetric between any two batches, as both peers assume.

    Files: `stream.el` (one line per undirected edge, in the stream's
    order: `dyngraph replay --undirected --order file` inserts each line as
    (u, v) then (v, u), so its arrivals are the stream's directed edges;
    `--base` puts the first total - U of them in the base) and, in one
    folder per U, `base.adj` (the base, the peers' AdjacencyGraph text) and
    `updates.el` (the U update edges, src dst lines, in batch order: what
    LSGraph and Aspen read as batches, line for line the stream's last U
    arrivals).
    """
    raw = work / f"kron{scale}.el"
    log(f"writing Kronecker -g {scale} with GAPBS's converter ...")
    run([converter, "-g", scale, "-e", raw])
    data = raw.read_bytes().split()
    raw.unlink()
    src = list(map(int, data[0::2]))
    dst = list(map(int, data[1::2]))
    del data
    keys = {(min(u, v) << 32) | max(u, v) for u, v in zip(src, dst) if u != v}
    del src, dst
    undirected = sorted(keys)
    del keys
    import random
    random.Random(seed).shuffle(undirected)
    n = 1 << scale
    mask = (1 << 32) - 1
    degree = [0] * n
    for key in undirected:
        degree[key >> 32] += 1
        degree[key & mask] += 1
    source = max(range(n), key=degree.__getitem__)
    total = 2 * len(undirected)
    with open(work / "stream.el", "w") as stream:
        for key in undirected:
            stream.write(f"{key >> 32} {key & mask}\n")
    cap = total // 2 - (total // 2) % 2
    cases, folders = {}, {}
    for size in batch_sizes:
        updates = max(size, update_edges)
        updates -= updates % 2
        if updates > cap:
            if size > cap:
                log(f"batch {size}: more than half the graph's {total} edges, skipped")
                continue
            updates = cap
        base = total - updates
        if updates not in folders:
            folder = work / f"updates{updates}"
            folder.mkdir()
            log(f"writing a base of {base} edges and {updates} update edges to {folder} ...")
            pairs_base = base // 2
            adjacency = [[] for _ in range(n)]
            for key in undirected[:pairs_base]:
                u, v = key >> 32, key & mask
                adjacency[u].append(v)
                adjacency[v].append(u)
            with open(folder / "base.adj", "w") as f:
                f.write(f"AdjacencyGraph\n{n}\n{base}\n")
                offset = 0
                for neighbours in adjacency:
                    f.write(f"{offset}\n")
                    offset += len(neighbours)
                for neighbours in adjacency:
                    if neighbours:
                        neighbours.sort()
                        f.write("\n".join(map(str, neighbours)) + "\n")
            del adjacency
            with open(folder / "updates.el", "w") as upd:
                for key in undirected[pairs_base:]:
                    u, v = key >> 32, key & mask
                    upd.write(f"{u} {v}\n{v} {u}\n")
            folders[updates] = {
                "dir": folder, "base": base, "updates": updates,
                # floor(total * pct / 100) == base, as replay rounds.
                "base_pct": f"{100.0 * (base + 0.5) / total:.12g}"}
        cases[size] = {**folders[updates], "batches": -(-updates // size)}
    return {"generator": f"GAPBS converter -g {scale}", "scale": scale, "vertices": n,
            "edges": total, "stream": work / "stream.el", "source": source,
            "source_degree": degree[source], "seed": seed, "min_update_edges": update_edges,
            "sizes": list(cases), "cases": cases}


def batch_inputs(converter: Path, folder: Path, scale: int, update_edges: int,
                 batch_sizes: list[int], seed: int) -> dict:
    """write_batch_inputs into `folder`, or the files already there when they
    were written for the same graph, seed and sizes (--batch-inputs)."""
    meta = folder / "inputs.json"
    key = {"scale": scale, "update_edges": update_edges, "batch_sizes": batch_sizes, "seed": seed}
    if meta.exists():
        saved = json.loads(meta.read_text())
        if saved.get("key") == key:
            log(f"reusing the batch inputs in {folder}")
            inputs = saved["inputs"]
            inputs["stream"] = Path(inputs["stream"])
            inputs["cases"] = {int(size): {**case, "dir": Path(case["dir"])}
                               for size, case in inputs["cases"].items()}
            return inputs
    if folder.exists() and any(folder.iterdir()):
        if not meta.exists():
            raise SystemExit(f"--batch-inputs {folder}: not empty and not written by this script")
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    inputs = write_batch_inputs(converter, folder, scale, update_edges, batch_sizes, seed)
    meta.write_text(json.dumps({"key": key, "inputs": inputs}, default=str))
    return inputs


def batch_rows(system: str, stores: list[str]) -> list[str]:
    """Table rows a system contributes (dyngraph: one per store)."""
    return [f"dyngraph {s}" for s in stores] if system == "dyngraph" else [system]


def peer_measurement(out: str, inputs: dict, rss: int) -> dict:
    """A peer's `PEERS key value` lines as one measurement."""
    v = peers_values(out)
    for key in ("insert_seconds", "delete_seconds", "edges_after_inserts",
                "edges_after_deletes", "batches"):
        if key not in v:
            raise RuntimeError(f"no 'PEERS {key}' line in its output:\n{out[-4000:]}")
    return {
        "insert_eps": inputs["updates"] / v["insert_seconds"],
        "delete_eps": inputs["updates"] / v["delete_seconds"],
        "insert_seconds": v["insert_seconds"], "delete_seconds": v["delete_seconds"],
        "bfs_seconds": v.get("bfs"), "pr_seconds": v.get("pr"),
        "edges_after_inserts": int(v["edges_after_inserts"]),
        "edges_after_deletes": int(v["edges_after_deletes"]),
        "batches": int(v["batches"]), "memory_bytes": int(v["bytes"]) if "bytes" in v else None,
        "peak_rss_bytes": rss}


def batch_command(system: str, binary: Path, inputs: dict, size, threads, stores: list[str],
                  kernels: bool, simple: bool) -> tuple[list, dict]:
    """The command line and environment of one run: the same two files
    (base.adj and updates.el, or stream.el: the same edges in the same
    order) and the same batch size for every system."""
    folder = Path(inputs["dir"])
    source = inputs["source"]
    if system == "lsgraph":
        return ([binary, "-f", folder / "base.adj", "-u", folder / "updates.el", "-bs", size,
                 "-src", source, "-maxiters", 20, *(["-kernels"] if kernels else [])],
                {"OMP_NUM_THREADS": str(threads)})
    if system == "aspen":
        return ([binary, "-s", "-f", folder / "base.adj", "-update-file", folder / "updates.el",
                 "-bs", size, "-src", source, *(["-kernels"] if kernels else [])],
                {"NUM_THREADS": str(threads)})
    # dyngraph: stream.el is one line per undirected edge, the base's pairs
    # then the updates'; --undirected inserts each as (u, v) then (v, u), so
    # the replayed stream is the base, then updates.el line for line, in
    # batches of N after the first `base` arrivals (bulk-built, untimed).
    # --simple: set semantics, as both peers (a batch's edges are looked up,
    # duplicates dropped); --ids dense: the file's ids are the vertex ids;
    # --in-edges off: the peers keep out-edges only (of a symmetric graph).
    return ([binary, "replay", inputs["stream"], "--undirected", "--order", "file",
             "--ids", "dense", "--base", inputs["base_pct"], "--batch", size,
             "--in-edges", "off", "--threads", threads, "--store", ",".join(stores),
             *(["--simple"] if simple else []),
             *(["--kernel", "bfs,pr", "--source", source] if kernels else []),
             "--json", "-"], {})


def run_batch_system(system: str, binary: Path, inputs: dict, size: int, threads: int,
                     stores: list[str], kernels: bool, simple: bool) -> dict[str, dict]:
    """One run of one system at one batch size; returns row -> measurement."""
    cmd, env = batch_command(system, binary, inputs, size, threads, stores, kernels, simple)
    if system == "lsgraph":
        out, rss = run_measured(cmd, env=env, cwd=binary.parent)
        m = peer_measurement(out, inputs, rss)
        # Its own check after loading the base: every base edge is found.
        m["base_edges_missing"] = len(re.findall(r"not found, should be", out))
        v = peers_values(out)
        m["updates_left"] = int(v.get("updates_left", -1))
        m["edges_listed_after_deletes"] = int(v.get("edges_listed_after_deletes", -1))
        m["listed_twice"] = int(v.get("listed_twice", -1))
        return {"lsgraph": m}
    if system == "aspen":
        out, rss = run_measured(cmd, env=env, cwd=binary.parent)
        m = peer_measurement(out, inputs, rss)
        reach = re.search(r"Reachable = (\d+)", out)
        m["bfs_reached"] = int(reach.group(1)) if reach else None
        return {"aspen": m}
    out, rss = run_measured(cmd, env=env)
    report = json.loads(out)
    if report["input"]["edges"] != inputs["edges"]:
        raise RuntimeError(f"dyngraph replayed {report['input']['edges']} arrivals, "
                           f"expected {inputs['edges']}")
    by_store = {st["store"].lower(): st for st in report["stores"]}
    rows = {}
    for store in stores:
        st = by_store[store]
        if st["base_edges"] != inputs["base"]:
            raise RuntimeError(f"dyngraph {store}: base of {st['base_edges']} edges, "
                               f"expected {inputs['base']}")
        inserted = st["edges_inserted"] - st["base_edges"]
        if inserted != inputs["updates"]:
            raise RuntimeError(f"dyngraph {store}: {inserted} edges inserted in batches, "
                               f"expected {inputs['updates']}")
        k = st.get("kernels") or {}
        rows[f"dyngraph {store}"] = {
            "insert_eps": inserted / st["seconds"], "delete_eps": None,
            "insert_seconds": st["seconds"], "delete_seconds": None,
            "bfs_seconds": k.get("bfs", {}).get("seconds"),
            "pr_seconds": k.get("pr", {}).get("seconds"),
            "edges_after_inserts": st["edges"], "edges_after_deletes": None,
            "batches": st["batch_count"], "memory_bytes": st["memory_bytes"],
            "peak_rss_bytes": rss}
    return rows


def part_batches(args, dyngraph, work: Path, threads: list[int]) -> dict:
    build = args.batch_build or (work / "batch-build")
    peers = build_batch_peers(args, build)
    converter = build_converter(args.peers, build)
    binaries = {**peers, **({"dyngraph": dyngraph} if dyngraph else {})}
    inputs = batch_inputs(converter, args.batch_inputs or (work / "batch-inputs"), args.scale,
                          args.update_edges, args.batch_sizes, args.seed)
    systems = [s for s in args.batch_systems if s in binaries]
    rows = [r for s in systems for r in batch_rows(s, args.batch_stores)]
    samples = {}  # "row|threads|size" -> list of measurements
    started = time.time()
    # Repetitions outermost, so that a change of load reaches every cell
    # alike; within each, every system in turn, one further on each time.
    for rep in range(args.reps):
        for size in inputs["sizes"]:
            for t in threads:
                shift = (rep + inputs["sizes"].index(size) + threads.index(t)) % len(systems)
                for system in systems[shift:] + systems[:shift]:
                    before = load_average()
                    log(f"batches rep {rep + 1}/{args.reps}: {system}, batch {size}, {t} "
                        f"thread(s); load {before}; {time.time() - started:.0f} s in")
                    result = run_batch_system(system, binaries[system],
                                              {**inputs, **inputs["cases"][size]}, size, t,
                                              args.batch_stores, args.batch_kernels,
                                              not args.batch_multigraph)
                    after = load_average()
                    for row, m in result.items():
                        m.update({"rep": rep, "load_before": before, "load_after": after})
                        log(f"  {row}: inserts {m['insert_eps'] / 1e6:.2f} M/s"
                            + (f", deletes {m['delete_eps'] / 1e6:.2f} M/s"
                               if m["delete_eps"] else "")
                            + f"; edges {m['edges_after_inserts']} / {m['edges_after_deletes']}")
                        samples.setdefault(f"{row}|{t}|{size}", []).append(m)
    summary = []
    for row in rows:
        for t in threads:
            for size in inputs["sizes"]:
                ms = samples.get(f"{row}|{t}|{size}", [])
                if not ms:
                    continue

                def med(key):
                    vals = [m[key] for m in ms if m.get(key) is not None]
                    return median(vals) if vals else None
                case = inputs["cases"][size]
                summary.append({
                    "row": row, "threads": t, "batch": size, "runs": len(ms),
                    "base_edges": case["base"], "update_edges": case["updates"],
                    **{k: med(k) for k in ("insert_eps", "delete_eps", "insert_seconds",
                                           "delete_seconds", "bfs_seconds", "pr_seconds",
                                           "memory_bytes", "peak_rss_bytes")},
                    "edges_after_inserts": sorted({m["edges_after_inserts"] for m in ms}),
                    "edges_after_deletes": sorted({m["edges_after_deletes"] for m in ms
                                                   if m["edges_after_deletes"] is not None}),
                    "batches": sorted({m["batches"] for m in ms}),
                    "base_edges_missing": sorted({m["base_edges_missing"] for m in ms
                                                  if "base_edges_missing" in m}),
                    "bfs_reached": sorted({m["bfs_reached"] for m in ms
                                           if m.get("bfs_reached") is not None}),
                    "updates_left": sorted({m["updates_left"] for m in ms if "updates_left" in m}),
                    "edges_listed_after_deletes": sorted({m["edges_listed_after_deletes"] for m in ms
                                                          if "edges_listed_after_deletes" in m}),
                    "listed_twice": sorted({m["listed_twice"] for m in ms if "listed_twice" in m}),
                })
    commands = {}
    for system in systems:
        cmd, env = batch_command(system, binaries[system],
                                 {**inputs, "dir": "DIR", "base_pct": "PCT"}, "N", "T",
                                 args.batch_stores, args.batch_kernels,
                                 not args.batch_multigraph)
        commands[system] = " ".join([*(f"{k}=T" for k in env), *map(str, cmd)])
    inputs["stream"] = str(inputs["stream"])
    inputs["cases"] = {size: {**case, "dir": str(case["dir"])}
                       for size, case in inputs["cases"].items()}
    return {"inputs": inputs, "commands": commands, "rows": rows, "threads": threads, "reps": args.reps,
            "kernels": args.batch_kernels, "summary": summary, "samples": samples,
            "seconds": time.time() - started,
            "binaries": {k: str(v) for k, v in binaries.items()},
            "commits": {"lsgraph": git_commit(args.lsgraph_src) if args.lsgraph_src else None,
                        "parlaylib": git_commit(args.parlaylib_src) if args.parlaylib_src else None,
                        "aspen": git_commit(args.aspen_src) if args.aspen_src else None}}


def size_label(size: int) -> str:
    exponent = round(math.log10(size)) if size > 0 else 0
    return f"10^{exponent}" if 10 ** exponent == size else str(size)


ROW_NAMES = {"lsgraph": "LSGraph", "aspen": "Aspen", "dyngraph vcsr": "dyngraph Vcsr",
             "dyngraph csrpp": "dyngraph CsrPP", "dyngraph pcsr": "dyngraph Pcsr",
             "dyngraph bal": "dyngraph Bal"}


def batch_agreement(b: dict) -> list[str]:
    """Problems with the edge counts: each against the expected count, and
    the systems against each other, per threads and batch size."""
    inputs = b["inputs"]
    problems = []
    cells = {}
    for r in b["summary"]:
        name = f"{ROW_NAMES.get(r['row'], r['row'])}, {r['threads']} thread(s), batch {size_label(r['batch'])}"
        ins, dels = r["edges_after_inserts"], r["edges_after_deletes"]
        if ins != [inputs["edges"]]:
            problems.append(f"{name}: {ins} edges after the inserts, expected {inputs['edges']:,}")
        if dels and dels != [r["base_edges"]]:
            left = r.get("updates_left") or []
            listed = r.get("edges_listed_after_deletes") or []
            twice = r.get("listed_twice") or []
            problems.append(f"{name}: {dels} edges after the deletes, expected {r['base_edges']:,}"
                            + (f" (its neighbour lists then hold {listed} edges: {left} of them "
                               f"batch edges it was to delete, {twice} listed twice)"
                               if listed else ""))
        if any(r["base_edges_missing"]):
            problems.append(f"{name}: its own check found {r['base_edges_missing']} base edges missing")
        cells.setdefault((r["threads"], r["batch"]), {})[r["row"]] = (ins, dels)
    for (t, size), counts in sorted(cells.items()):
        after_inserts = {tuple(c[0]) for c in counts.values()}
        after_deletes = {tuple(c[1]) for c in counts.values() if c[1]}
        if len(after_inserts) > 1 or len(after_deletes) > 1:
            problems.append(f"{t} thread(s), batch {size_label(size)}: the systems disagree: "
                            + "; ".join(f"{ROW_NAMES.get(k, k)} {v[0]} / {v[1] or '—'}"
                                        for k, v in counts.items()))
    return problems


def print_batches(b: dict):
    inputs = b["inputs"]
    sizes = sorted({r["batch"] for r in b["summary"]})
    threads = sorted({r["threads"] for r in b["summary"]})
    cell = {(r["row"], r["threads"], r["batch"]): r for r in b["summary"]}
    c = b["commits"]
    print(f"\n## batches: {inputs['generator']} made simple and symmetric: "
          f"{inputs['vertices']:,} vertices, {inputs['edges']:,} directed edges "
          f"({inputs['edges'] // 2:,} undirected), shuffled (seed {inputs['seed']}); "
          f"medians of {b['reps']} runs; wall clock of the update calls only "
          f"(LSGraph {c['lsgraph']} with parlaylib {c['parlaylib']}, Aspen {c['aspen']})\n")
    shown = set()
    for r in sorted(b["summary"], key=lambda r: r["batch"]):
        if r["batch"] not in shown:
            shown.add(r["batch"])
            print(f"- batch {size_label(r['batch'])}: the base is the stream's first "
                  f"{r['base_edges']:,} edges, then its last {r['update_edges']:,} in "
                  f"{-(-r['update_edges'] // r['batch'])} batch(es); every system reads the "
                  f"same files")
    print("\nEach run (DIR: the folder of the batch size's base.adj and updates.el; PCT puts "
          "the same base in dyngraph's; N: the batch size; T: threads):\n")
    for system, command in b.get("commands", {}).items():
        print(f"    {command}")
    for title, key in (("inserts", "insert_eps"),
                       ("deletes (the same batches, in the same order, after all the inserts)",
                        "delete_eps")):
        print(f"\n### {title}: M edges/s")
        print("| system | threads | " + " | ".join(size_label(s) for s in sizes) + " |")
        print("|---|---|" + "---|" * len(sizes))
        for row in b["rows"]:
            for t in threads:
                vals = []
                for s in sizes:
                    r = cell.get((row, t, s))
                    if r is None:
                        vals.append("—")
                    elif r[key] is None:
                        vals.append("not measured" if row.startswith("dyngraph") else "—")
                    else:
                        vals.append(f"{r[key] / 1e6:.2f}")
                print(f"| {ROW_NAMES.get(row, row)} | {t} | " + " | ".join(vals) + " |")
    if any(r.startswith("dyngraph") for r in b["rows"]):
        print("\ndyngraph's deletes are not measured: `dyngraph replay` deletes only through "
              "`--window` (the oldest arrivals, the base first), not given batches.")
    if b.get("kernels"):
        print("\n### after the inserts: BFS / PageRank (20 iterations) ms")
        print("| system | threads | " + " | ".join(size_label(s) for s in sizes) + " |")
        print("|---|---|" + "---|" * len(sizes))
        for row in b["rows"]:
            for t in threads:
                vals = []
                for s in sizes:
                    r = cell.get((row, t, s))
                    if r is None:
                        vals.append("—")
                        continue
                    bfs = "—" if r["bfs_seconds"] is None else f"{r['bfs_seconds'] * 1e3:.1f}"
                    pr = "—" if r["pr_seconds"] is None else f"{r['pr_seconds'] * 1e3:.1f}"
                    vals.append(f"{bfs} / {pr}")
                print(f"| {ROW_NAMES.get(row, row)} | {t} | " + " | ".join(vals) + " |")
        print("\nAspen ships no PageRank.")
    print(f"\n### edge counts after the inserts / after the deletes (expected "
          f"{inputs['edges']:,} / the base)")
    print("| system | threads | " + " | ".join(size_label(s) for s in sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for row in b["rows"]:
        for t in threads:
            vals = []
            for s in sizes:
                r = cell.get((row, t, s))
                if r is None:
                    vals.append("—")
                    continue
                ins = ",".join(f"{x:,}" for x in r["edges_after_inserts"])
                dels = ",".join(f"{x:,}" for x in r["edges_after_deletes"]) or "—"
                vals.append(f"{ins} / {dels}")
            print(f"| {ROW_NAMES.get(row, row)} | {t} | " + " | ".join(vals) + " |")
    problems = batch_agreement(b)
    for p in problems:
        print(f"- DISAGREES: {p}")
    if not problems:
        print("\nEvery system holds every edge after the inserts and the base after the deletes "
              "(dyngraph: after the inserts only), in every run; LSGraph's own check after "
              "loading the base found no edge missing.")
    reached = sorted({x for r in b["summary"] for x in r["bfs_reached"]})
    if reached:
        print(f"Aspen's BFS from {inputs['source']} reached {reached} vertices.")


def print_tables(results: dict):
    print(f"\n# peers side by side ({results['date']}, load {results['load_before']} -> "
          f"{results['load_after']}; VCSR {results['commits'].get('VCSR', '?')}, "
          f"gapbs {results['commits'].get('gapbs', '?')})")
    if "inserts" in results:
        print("\n## inserts, sx-mathoverflow b30, one edge at a time (M edges/s, medians)")
        print("| store | C++ | dyngraph out-only | ratio | dyngraph with in-edges | ratio |")
        print("|---|---|---|---|---|---|")
        for r in results["inserts"]:
            print(f"| {r['store']} | {r['cpp_meps']:.2f} | {r['dyngraph_out_only_meps']:.2f} | "
                  f"{r['ratio_out_only']:.2f}x | {r['dyngraph_with_in_meps']:.2f} | {r['ratio_with_in']:.2f}x |")
    if "analytics" in results:
        print("\n## PageRank (20 it.) and BFS on the final sx-mathoverflow graph, 1 thread (ms, medians)")
        print("| kernel | store | C++ store | C++ CSR | C++ ratio | dyngraph store | dyngraph Csr | dyngraph ratio |")
        print("|---|---|---|---|---|---|---|---|")
        for r in results["analytics"]:
            print(f"| {r['kernel']} | {r['store']} | {r['cpp_seconds'] * 1e3:.2f} | "
                  f"{r['cpp_csr_seconds'] * 1e3:.2f} | {r['cpp_ratio_to_csr']:.2f}x | "
                  f"{r['dyngraph_seconds'] * 1e3:.2f} | {r['dyngraph_csr_seconds'] * 1e3:.2f} | "
                  f"{r['dyngraph_ratio_to_csr']:.2f}x |")
    if "kernels" in results:
        print("\n## GAPBS kernels vs dyngraph run --store csr (ms, medians; ratio = dyngraph / GAPBS)")
        print("| graph | kernel | threads | GAPBS | dyngraph | ratio |")
        print("|---|---|---|---|---|---|")
        for r in results["kernels"]:
            print(f"| {r['graph']} | {r['kernel']} | {r['threads']} | {r['gapbs_seconds'] * 1e3:.2f} | "
                  f"{r['dyngraph_seconds'] * 1e3:.2f} | {r['ratio']:.2f}x |")
    if "batches" in results:
        print_batches(results["batches"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", type=Path, default=ROOT.parent / "shared" / "peers")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--dyngraph", type=Path, help="the dyngraph binary (default: cargo build)")
    parser.add_argument("--parts", default="inserts,analytics,kernels",
                        help="comma-separated: inserts, analytics, kernels, batches "
                             "(batches: LSGraph and Aspen, built from --lsgraph-src, "
                             "--parlaylib-src, --aspen-src)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--generator", default="kron",
                        help="synthetic graphs for the kernels part, comma-separated: "
                             "kron (converter -g), uniform (converter -u)")
    parser.add_argument("--kernels", default=",".join(GAPBS_KERNELS),
                        help="kernels for the kernels part, comma-separated")
    parser.add_argument("--lsgraph-src", type=Path,
                        help="batches: a checkout of CGCL-codes/LSGraph (6a34627), read only")
    parser.add_argument("--parlaylib-src", type=Path,
                        help="batches: a checkout of cmuparlay/parlaylib (5101769), read only")
    parser.add_argument("--aspen-src", type=Path,
                        help="batches: a checkout of ldhulipala/aspen (ecc3193), read only")
    parser.add_argument("--batch-build", type=Path,
                        help="batches: where the peers are built (default: the temporary directory)")
    parser.add_argument("--batch-inputs", type=Path,
                        help="batches: folder of the graph and batch files, reused when written "
                             "for the same --scale, --seed, --batch-sizes and --update-edges "
                             "(default: the temporary directory)")
    parser.add_argument("--batch-sizes", default="10000,100000,1000000,10000000",
                        help="batches: edges per batch, comma-separated")
    parser.add_argument("--batch-systems", default="lsgraph,aspen,dyngraph",
                        help="batches: systems to run, comma-separated: lsgraph, aspen, dyngraph")
    parser.add_argument("--update-edges", type=int, default=2_000_000,
                        help="batches: at least this many directed edges inserted (then "
                             "deleted) in batches of each size, the stream's last ones; a "
                             "larger batch size updates one batch (at most half the graph)")
    parser.add_argument("--batch-stores", default="vcsr",
                        help="batches: dyngraph stores, comma-separated (replay --store)")
    parser.add_argument("--batch-multigraph", action="store_true",
                        help="batches: replay dyngraph as a multigraph (default --simple: set "
                             "semantics, as LSGraph and Aspen)")
    parser.add_argument("--batch-kernels", action="store_true",
                        help="batches: also time BFS (and PageRank, not in Aspen) after the inserts")
    parser.add_argument("--seed", type=int, default=1, help="batches: shuffle seed of the edges")
    parser.add_argument("--json", type=Path, default=Path("peers-results.json"))
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    threads = [int(t) for t in args.threads.split(",")]
    generators = args.generator.split(",")
    kernels = args.kernels.split(",")
    args.batch_sizes = [int(float(b)) for b in args.batch_sizes.split(",")]
    args.batch_systems = args.batch_systems.split(",")
    args.batch_stores = args.batch_stores.split(",")
    for size in args.batch_sizes:
        if size <= 0 or size % 2:
            parser.error(f"--batch-sizes {size}: expected an even, positive size (a batch "
                         "holds whole pairs (u, v), (v, u))")
    for system in args.batch_systems:
        if system not in ("lsgraph", "aspen", "dyngraph"):
            parser.error(f"--batch-systems {system}: expected some of lsgraph, aspen, dyngraph")
    unknown = parts - {"inserts", "analytics", "kernels", "batches"}
    if unknown:
        parser.error(f"--parts {','.join(sorted(unknown))}: expected some of "
                     "inserts, analytics, kernels, batches")
    for generator in generators:
        if generator not in GENERATORS:
            parser.error(f"--generator {generator}: expected one of {', '.join(GENERATORS)}")
    for kernel in kernels:
        if kernel not in GAPBS_KERNELS:
            parser.error(f"--kernels {kernel}: expected some of {', '.join(GAPBS_KERNELS)}")

    work = Path(tempfile.mkdtemp(prefix="dyngraph-peers-"))
    try:
        results = {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_before": load_average(),
            "commits": peer_commits(args.peers),
            "reps": args.reps,
        }
        if parts & {"inserts", "analytics", "kernels"}:
            peers = build_peers(args.peers, work)
            vcsr, gapbs = peers / "VCSR", peers / "gapbs"
        dyngraph = None
        if parts - {"batches"} or "dyngraph" in args.batch_systems:
            dyngraph = (args.dyngraph or build_dyngraph()).resolve()
        if parts & {"inserts", "analytics", "kernels"}:
            inputs = prepare_inputs(args.data, work, gapbs, args.scale, parts, generators)
        if "inserts" in parts:
            results["inserts"] = part_inserts(vcsr, dyngraph, inputs["mo"], args.reps)
        if "analytics" in parts:
            results["analytics"] = part_analytics(vcsr, dyngraph, inputs["mo"], args.reps)
        if "kernels" in parts:
            results["kernels"] = part_kernels(gapbs, dyngraph, inputs, args.reps, threads,
                                              args.scale, generators, kernels)
        if "batches" in parts:
            results["batches"] = part_batches(args, dyngraph, work, threads)
        results["load_after"] = load_average()
        args.json.write_text(json.dumps(results, indent=1, default=str))
        print_tables(results)
        log(f"results written to {args.json}")
    finally:
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
