#!/usr/bin/env bash
# The scale-out measurements of docs/scale-out.md: single-machine rayon
# kernels and replay vs 1 process x 2 workers vs 2 processes x 1 worker on
# a Kronecker graph, repeated. Release builds; JSON lines on stdout.
#
#   crates/dist/measure.sh SCALE REPEATS [BATCH]
#
# BATCH is the replay's batch size (default: a tenth of the edges).
set -euo pipefail
scale=${1:-20}
repeats=${2:-3}
edges=$(( (1 << scale) * 16 ))
batch=${3:-$(( edges / 10 ))}
root=$(cd "$(dirname "$0")/../.." && pwd)
cargo build --release -q -p dyngraph-dist --bins --examples --manifest-path "$root/Cargo.toml"
bin="$root/target/release"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
node_summary() {
  python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); r = d["report"]; s = r["summary"]
edges = s["edges"]
steps = {}
for w in r["workers"]:
    for k in w["kernels"]:
        per = steps.setdefault(k["kernel"], [0] * len(k["supersteps"]))
        for i, t in enumerate(k["supersteps"]):
            per[i] += t["bytes"]
print(json.dumps({
    "config": sys.argv[2],
    "base_seconds": s["base_seconds"],
    "update_seconds": s["seconds"],
    "kernel_seconds": {k: v["seconds"] for k, v in s["kernels"].items()},
    "bytes_per_edge_per_superstep": {k: round(max(v) / edges, 3) for k, v in steps.items()},
    "supersteps": {k: len(v) for k, v in steps.items()},
    "replay_bytes_per_edge": round(sum(w["replay_traffic"]["bytes"] for w in r["workers"]) / max(1, s["edges_inserted"]), 2),
    "imbalance": r["imbalance"],
    "memory_bytes": s["memory_bytes"],
}))
PY
}
echo "# $(uptime)"
for run in $(seq "$repeats"); do
  single=$("$bin/examples/single_machine_kernels" "$scale" 2)
  echo "$single"
  source=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["source"])' "$single")
  "$bin/examples/single_machine_kernels" "$scale" 2 in-edges
  "$bin/examples/single_machine_kernels" "$scale" 2 "replay:$batch"
  # 1 process x 2 workers: kernels on the whole graph, then the replay.
  "$bin/dyngraph-dist-node" --kronecker "$scale" --base-percent 100 --kernels pr,bfs,cc,rw \
    --source "$source" --workers 2 --stall-timeout 600 --output "$work/a.json"
  node_summary "$work/a.json" "1x2 kernels"
  "$bin/dyngraph-dist-node" --kronecker "$scale" --batch "$batch" \
    --workers 2 --stall-timeout 600 --output "$work/b.json"
  node_summary "$work/b.json" "1x2 replay"
  # 2 processes x 1 worker on 127.0.0.1.
  for job in kernels replay; do
    printf '127.0.0.1:%s\n127.0.0.1:%s\n' "$(free_port)" "$(free_port)" > "$work/hosts"
    if [ "$job" = kernels ]; then args=(--base-percent 100 --kernels pr,bfs,cc,rw --source "$source"); else args=(--batch "$batch"); fi
    for p in 1 0; do
      "$bin/dyngraph-dist-node" --kronecker "$scale" "${args[@]}" --hostfile "$work/hosts" \
        --process "$p" --stall-timeout 600 --output "$work/c.json" >/dev/null &
    done
    wait
    node_summary "$work/c.json" "2x1 $job"
  done
  echo "# $(uptime)"
done
