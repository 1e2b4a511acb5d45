#!/usr/bin/env bash
# CPU per campaign and per keepalive, one cell against four (docs/performance.md, "Cells: CPU per operation"; issue
# #38's cost run: batches shrink as load spreads over cells, so measure). 64 clients as PROCS bench processes of
# 64/PROCS clients at once, each process one tenant: t4, t0, t5, t1 sit in cells 0, 1, 2, 3 of a 4-cell cluster
# (CRC-32 mod 4), all in the one cell of a 1-cell cluster. For each number of cells given, ROUNDS times interleaved
# (1 4 1 4: the second round of each is the A-vs-A control), a fresh 3-node `regent cluster up --cells C`, then:
#   settle     SETTLE s of the campaign load;
#   campaign   WINDOW s: `regent bench --workload campaign` (campaign with a TTL, then resign-and-revoke: 2 entries);
#   keepalive  WINDOW s: `--workload keepalive`, LEASES leases per process renewed every TTL/3 (KeepAliveMany).
# Each bench process reports the three servers' CPU over its window (--pid-dir: utime + stime of the node PIDs, in
# cores); CPU per operation = those cores / the processes' summed throughput. One JSON line per process and window
# goes to OUT; then the cluster is stopped (`regent cluster down`: only its own PIDs) and its directory removed.
#   scripts/cells-cpu.sh [CELLS...]   (default 1 4; ROUNDS=2 SETTLE=180 WINDOW=60 PROCS=4 LEASES=500 TTL=10s
#                                      BASE_PORT=7800 WORK=/tmp OUT=docs/performance/cells-cpu.jsonl)
set -euo pipefail
cells_list=("$@"); [ $# -gt 0 ] || cells_list=(1 4)
root=$(cd "$(dirname "$0")/.." && pwd)
regent=$root/bin/regent
base=${BASE_PORT:-7800}; settle=${SETTLE:-180}; window=${WINDOW:-60}; work=${WORK:-/tmp}; rounds=${ROUNDS:-2}
procs=${PROCS:-4}; leases=${LEASES:-500}; ttl=${TTL:-10s}
out=${OUT:-$root/docs/performance/cells-cpu.jsonl}
eps=127.0.0.1:$((base + 101)),127.0.0.1:$((base + 102)),127.0.0.1:$((base + 103))
tenants=(t4 t0 t5 t1)

# PROCS bench processes at once, each with its tenant, the rest of the arguments theirs; one JSON line each to OUT
load() {
  local pids=() i
  for i in $(seq 0 $((procs - 1))); do
    { "$regent" bench --endpoints "$eps" --quiet -w json --warmup 0s --clients $((64 / procs)) \
        --tenant "${tenants[$((i % 4))]}" "$@"; echo; } >> "$out" &
    pids+=($!)
  done
  wait "${pids[@]}"
}

. "$root/scripts/cells-cluster.sh"
for round in $(seq 1 "$rounds"); do
  for cells in "${cells_list[@]}"; do
    cells_cluster_up "$cells" "$work/regent-cells-cpu-$cells"
    tag="cells=$cells round=$round"
    echo "$(date -u +%T) $tag: settle ${settle} s"
    load --workload campaign --duration "${settle}s" --label "$tag phase=settle"
    echo "$(date -u +%T) $tag: campaign"
    load --workload campaign --duration "${window}s" --pid-dir "$dir" --label "$tag phase=campaign"
    echo "$(date -u +%T) $tag: keepalive"
    load --workload keepalive --leases "$leases" --ttl "$ttl" --duration "${window}s" --pid-dir "$dir" \
      --label "$tag phase=keepalive"
    cells_cluster_down
  done
done
