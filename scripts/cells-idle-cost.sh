#!/usr/bin/env bash
# What an idle cell costs (docs/performance.md, "Cells: what a cell costs at idle"): for each number of cells given,
# a fresh 3-node `regent cluster up --cells C`, left alone for SETTLE seconds (elections, member records, the first
# checkpoints and the JIT, whose compiler threads dominate a node's first minute; 180 s as docs/performance.md asks), then measured over WINDOW
# seconds, one line per node: threads and RSS (/proc/PID/status), the direct buffers the JDK counts
# (jvm_buffer_memory_used_bytes{id="direct"} on the node's metrics port) and CPU (utime + stime over the window, % of
# one core). Then the node leading the most cells is killed (kill -9) and the time until every cell it led has a new
# leader is read from the
# survivors' logs (Ratis's "ELECTION round N: result PASSED", per group; ms stamps). Then the cluster is stopped
# (`regent cluster down`: only its own PIDs) and its directory removed.
#   scripts/cells-idle-cost.sh [CELLS...]     (default 1 4 16 64; BASE_PORT=7800 SETTLE=180 WINDOW=30 WORK=/tmp)
# (docs/performance.md's figures of 2026-12-07 were taken with SETTLE=75, before the 180 s its rules ask for.)
set -euo pipefail
cells_list=("$@"); [ $# -gt 0 ] || cells_list=(1 4 16 64)
root=$(cd "$(dirname "$0")/.." && pwd)
regent=$root/bin/regent
base=${BASE_PORT:-7800}; settle=${SETTLE:-180}; window=${WINDOW:-30}; work=${WORK:-/tmp}
tick=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for cells in "${cells_list[@]}"; do
  dir=$work/regent-cells-cost-$cells
  rm -rf "$dir"
  "$regent" cluster up --cells "$cells" --dir "$dir" --base-port "$base" > "$dir.up" 2>&1 \
    || { echo "cells=$cells: cluster up failed:"; tail -3 "$dir.up"; "$regent" cluster down --dir "$dir" || true; continue; }
  sleep "$settle"
  declare -A before=()
  for n in n1 n2 n3; do before[$n]=$(cpu_ticks "$(cat "$dir/$n.pid")"); done
  sleep "$window"
  for n in n1 n2 n3; do
    pid=$(cat "$dir/$n.pid")
    used=$(( $(cpu_ticks "$pid") - before[$n] ))
    i=${n#n}
    direct=$(curl -s "http://127.0.0.1:$((base + 200 + i))/metrics" \
      | awk '/^jvm_buffer_memory_used_bytes\{.*id="direct"/{printf "%d", $2 / 1024}')
    echo "cells=$cells node=$n threads=$(awk '/^Threads/{print $2}' /proc/$pid/status) direct_kb=$direct" \
      "rss_kb=$(awk '/^VmRSS/{print $2}' /proc/$pid/status)" \
      "cpu_pct=$(awk -v u="$used" -v t="$tick" -v w="$window" 'BEGIN{printf "%.1f", u / t / w * 100}')"
  done
  echo "cells=$cells $(grep -o 'ready in [0-9]* ms' "$dir.up")"
  # the node that leads the most cells: the last election each group's survivors logged before now names it
  victim=$(for n in n1 n2 n3; do echo "$(grep -c "$n@group-.*ELECTION round [0-9]*: result PASSED" "$dir/$n.log") $n"; done \
    | sort -rn | head -1 | cut -d' ' -f2)
  killed=$(date '+%Y-%m-%d %H:%M:%S.%3N')
  kill -9 "$(cat "$dir/$victim.pid")"
  sleep 15
  python3 - "$dir" "$killed" "$cells" "$victim" <<'PY'
import re, sys, datetime
d, killed, cells, victim = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
fmt = '%Y-%m-%d %H:%M:%S.%f'
t0 = datetime.datetime.strptime(killed, fmt)
passed = re.compile(r'^(\S+ \S+) .*?(n\d)@group-(\w+)-LeaderElection\d+ ELECTION round \d+: result PASSED')
led, after = {}, {}
for n in ('n1', 'n2', 'n3'):
    for line in open(f'{d}/{n}.log', errors='replace'):
        m = passed.match(line)
        if not m:
            continue
        at = datetime.datetime.strptime(m.group(1), fmt)
        if at < t0:
            if m.group(3) not in led or led[m.group(3)][0] < at:
                led[m.group(3)] = (at, m.group(2))  # the last election before the kill names the leader
        elif m.group(3) not in after:
            after[m.group(3)] = at
lost = [g for g, (at, n) in led.items() if n == victim]
waits = [(after[g] - t0).total_seconds() * 1000 for g in lost if g in after]
print(f'cells={cells} leader_kill killed={victim} cells_it_led={len(lost)} re_elected={len(waits)}'
      + (f' max_ms={max(waits):.0f} median_ms={sorted(waits)[len(waits) // 2]:.0f}' if waits else ''))
PY
  "$regent" cluster down --dir "$dir" > /dev/null
  rm -rf "$dir" "$dir.up"
done
