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
"""

from __future__ import annotations

import argparse
import json
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
    log("building dyngraph (cargo build --release -p dyngraph-cli) ...")
    run(["cargo", "build", "--release", "-p", "dyngraph-cli"], cwd=ROOT)
    return ROOT / "target" / "release" / "dyngraph"


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", type=Path, default=ROOT.parent / "shared" / "peers")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--dyngraph", type=Path, help="the dyngraph binary (default: cargo build)")
    parser.add_argument("--parts", default="inserts,analytics,kernels")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--generator", default="kron",
                        help="synthetic graphs for the kernels part, comma-separated: "
                             "kron (converter -g), uniform (converter -u)")
    parser.add_argument("--kernels", default=",".join(GAPBS_KERNELS),
                        help="kernels for the kernels part, comma-separated")
    parser.add_argument("--json", type=Path, default=Path("peers-results.json"))
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    threads = [int(t) for t in args.threads.split(",")]
    generators = args.generator.split(",")
    kernels = args.kernels.split(",")
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
        peers = build_peers(args.peers, work)
        dyngraph = args.dyngraph or build_dyngraph()
        vcsr, gapbs = peers / "VCSR", peers / "gapbs"
        inputs = prepare_inputs(args.data, work, gapbs, args.scale, parts, generators)
        if "inserts" in parts:
            results["inserts"] = part_inserts(vcsr, dyngraph, inputs["mo"], args.reps)
        if "analytics" in parts:
            results["analytics"] = part_analytics(vcsr, dyngraph, inputs["mo"], args.reps)
        if "kernels" in parts:
            results["kernels"] = part_kernels(gapbs, dyngraph, inputs, args.reps, threads,
                                              args.scale, generators, kernels)
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
