#!/usr/bin/env bash
# The scale-out measurements of docs/scale-out.md: one run of one job on
# one configuration, printed as one JSON line. Release binaries, the CLI's
# `dyngraph replay` (single machine, `--workers`, `--hostfile`), built with
# the cluster runtime: `cargo build --release -p dyngraph-cli --features dist`.
#
#   crates/dist/measure.sh CONFIG JOB FILE [STORE] [BATCH]
#
# CONFIG  single   one process, a 2-thread pool (the single machine)
#         csr      `dyngraph load` into a Csr, 2 threads (JOB must be load)
#         1x2      one process, two timely workers
#         2x1, 3x1 two or three processes of one worker each on 127.0.0.1,
#                  each with a one-thread rayon pool (equal total cores: two)
#         p1       one process of one worker (the P = 1 of the memory table)
# JOB     kernels  base 100%, in-edges, PageRank, BFS, CC
#         load     base 100%, no kernels
#         replay   base 10%, batches of BATCH (default 1000000)
# STORE   vcsr (default), or any distributable store: pcsr, bal, csrpp, csr-rebuild
#
# Every process runs under /usr/bin/time: `peak_kb` lists each process's
# peak resident set. Repeat a call to get medians (the figures in the doc
# are medians of five runs, A/B alternated with the single machine).
set -euo pipefail
config=$1 job=$2 file=$3 store=${4:-vcsr} batch=${5:-1000000}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/target/release/dyngraph"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $job in
  kernels) args=(--base 100 --kernel pr,bfs,cc --in-edges on) ;;
  load) args=(--base 100) ;;
  replay) args=(--base 10 --batch "$batch") ;;
  *) echo "unknown job $job" >&2; exit 2 ;;
esac
free_ports() {
  python3 -c 'import socket,sys
s=[socket.socket() for _ in range(int(sys.argv[1]))]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))' "$1"
}
timed() { # OUTPUT_RSS_FILE COMMAND...
  local rss=$1; shift
  /usr/bin/time -f '%M' -o "$rss" "$@"
}
started=$(date +%s.%N)
case $config in
  single) timed "$work/rss0" "$bin" replay "$file" --store "$store" "${args[@]}" --threads 2 --json "$work/out.json" >/dev/null ;;
  csr) timed "$work/rss0" "$bin" load "$file" --threads 2 --json "$work/load.json" >/dev/null ;;
  1x2) timed "$work/rss0" "$bin" replay "$file" --store "$store" "${args[@]}" --workers 2 --json "$work/out.json" >/dev/null ;;
  p1|2x1|3x1)
    processes=${config:0:1}; [ "$config" = p1 ] && processes=1
    : > "$work/hosts"
    for port in $(free_ports "$processes"); do echo "127.0.0.1:$port" >> "$work/hosts"; done
    pids=()
    for ((p = processes - 1; p >= 0; p--)); do
      RAYON_NUM_THREADS=1 timed "$work/rss$p" "$bin" replay "$file" --store "$store" "${args[@]}" \
        --hostfile "$work/hosts" --process "$p" --workers 1 --threads 1 --json "$work/out$p.json" >/dev/null &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    mv "$work/out0.json" "$work/out.json" ;;
  *) echo "unknown config $config" >&2; exit 2 ;;
esac
wall=$(python3 -c "import sys,time; print(round(time.time() - float(sys.argv[1]), 3))" "$started")
python3 - "$work" "$config" "$job" "$store" "$wall" <<'PY'
import glob, json, os, sys
work, config, job, store, wall = sys.argv[1:6]
peaks = [int(open(f).read().split()[-1]) for f in sorted(glob.glob(os.path.join(work, "rss*")))]
line = {"config": config, "job": job, "store": store, "wall_seconds": float(wall), "peak_kb": peaks}
if config == "csr":
    d = json.load(open(os.path.join(work, "load.json")))
    line.update({k: d[k] for k in d if k.endswith("seconds")})
else:
    d = json.load(open(os.path.join(work, "out.json")))
    s = d["stores"][0]
    line.update({
        "base_seconds": s["base_seconds"],
        "update_seconds": s["seconds"],
        "batches": s["batch_count"],
        "edges": s["edges"],
        "memory_bytes": s["memory_bytes"],
        "kernel_seconds": {k: v["seconds"] for k, v in s["kernels"].items()},
        "csr_kernel_seconds": {k: v["csr_seconds"] for k, v in s["kernels"].items()},
        "modes": {k: v["mode"] for k, v in s["kernels"].items()},
    })
    for run in d.get("distributed", []):
        line["imbalance"] = run["imbalance"]
        line["worker_memory_bytes"] = [w["memory_bytes"] for w in run["workers"]]
        steps = {}
        for w in run["workers"]:
            for k in w["kernels"]:
                steps.setdefault(k["kernel"], []).append(k["iterations"])
        line["iterations"] = {k: max(v) for k, v in steps.items()}
print(json.dumps(line))
PY
