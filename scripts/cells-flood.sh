#!/usr/bin/env bash
# Does one tenant's flood stay in its cell? (docs/performance.md, "Cells: one tenant's flood"; issue #38's
# containment run (b).) For each number of cells given, ROUNDS times interleaved (1 4 1 4: the second round of each
# is the A-vs-A control), a fresh 3-node `regent cluster up --cells C`, then:
#   settle     SETTLE s of the quiet tenant's load and the flood at once (the JIT, elections, checkpoints);
#   unloaded   the quiet tenant alone for WINDOW s: `regent bench --workload keepalive` (LEASES leases, renewed every
#              TTL/3) and `--workload campaign` (QUIET_CLIENTS clients: campaign with a TTL, then resign-and-revoke),
#              two bench processes at once;
#   flooded    the same, while FLOOD_CLIENTS closed-loop clients of the flood tenant campaign (started 15 s before);
#   after      the quiet tenant alone again (brackets drift).
# The quiet tenant (steady) and the flood's (storm) sit in different cells of a 4-cell cluster (CRC-32 mod 4: 2 and 1),
# in the same (only) cell of a 1-cell one. One JSON line per bench process and phase goes to OUT; then the cluster is
# stopped (`regent cluster down`: only its own PIDs) and its directory removed.
#   scripts/cells-flood.sh [CELLS...]   (default 1 4; ROUNDS=2 SETTLE=180 WINDOW=60 FLOOD_CLIENTS=32 QUIET_CLIENTS=4
#                                        FLOOD_RATE= (empty: closed loop; N: open loop at N campaigns a second)
#                                        LEASES=1000 BASE_PORT=7800 WORK=/tmp OUT=docs/performance/cells-flood.jsonl)
set -euo pipefail
cells_list=("$@"); [ $# -gt 0 ] || cells_list=(1 4)
root=$(cd "$(dirname "$0")/.." && pwd)
regent=$root/bin/regent
base=${BASE_PORT:-7800}; settle=${SETTLE:-180}; window=${WINDOW:-60}; work=${WORK:-/tmp}; rounds=${ROUNDS:-2}
flood_clients=${FLOOD_CLIENTS:-32}; quiet_clients=${QUIET_CLIENTS:-4}; leases=${LEASES:-1000}
flood_rate=${FLOOD_RATE:-}
out=${OUT:-$root/docs/performance/cells-flood.jsonl}
eps=127.0.0.1:$((base + 101)),127.0.0.1:$((base + 102)),127.0.0.1:$((base + 103))
# one JSON line per bench process (a result may end without a newline)
bench() { "$regent" bench --endpoints "$eps" --quiet -w json --warmup 0s "$@"; echo; }

# the quiet tenant's two loads for $1 s, labelled $2, appended to OUT
quiet() {
  bench --tenant steady --workload keepalive --leases "$leases" --clients "$quiet_clients" --duration "${1}s" \
    --label "$2" >> "$out" &
  local k=$!
  bench --tenant steady --workload campaign --clients "$quiet_clients" --duration "${1}s" --label "$2" >> "$out"
  wait "$k"
}
# the flood: closed loop, or open loop at FLOOD_RATE campaigns a second in all when it is set (below the CPU limit)
flood() {
  bench --tenant storm --workload campaign --clients "$flood_clients" --duration "${1}s" --label "$2" \
    ${flood_rate:+--rate "$flood_rate"} >> "$out"
}

. "$root/scripts/cells-cluster.sh"
for round in $(seq 1 "$rounds"); do
  for cells in "${cells_list[@]}"; do
    cells_cluster_up "$cells" "$work/regent-cells-flood-$cells"
    tag="cells=$cells round=$round"
    echo "$(date -u +%T) $tag: settle ${settle} s"
    flood "$settle" "$tag phase=settle flood" > /dev/null &
    f=$!
    quiet "$settle" "$tag phase=settle"
    wait "$f"
    echo "$(date -u +%T) $tag: unloaded"
    quiet "$window" "$tag phase=unloaded"
    echo "$(date -u +%T) $tag: flooded"
    flood $((window + 25)) "$tag phase=flooded flood" &
    f=$!
    sleep 15 # the flood's clients connected and campaigning before the quiet tenant's window opens
    quiet "$window" "$tag phase=flooded"
    wait "$f"
    echo "$(date -u +%T) $tag: after"
    quiet "$window" "$tag phase=after"
    cells_cluster_down
  done
done
