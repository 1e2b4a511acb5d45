#!/usr/bin/env bash
# The overload benchmark of docs/performance.md (issue 22 item 4): a 3-node Regent cluster started with the server
# flags in SERVER_FLAGS, then `regent bench --workload overload` against it, then the nodes stopped (by their pids).
# Each mode in MODES is one fresh cluster and one result line in WORK_DIR/results.jsonl:
#   lanes     SERVER_FLAGS as given (priority lanes on, the default)
#   nolanes   SERVER_FLAGS plus --unsafe-no-priority-lanes: the negative control, keepalives shed with the flood
#
#   scripts/overload-bench.sh [WORK_DIR]     (default /tmp/regent-overload)
#
# Environment: MODES ("lanes nolanes"), SERVER_FLAGS ("--max-bulk-calls 256"), LEASES (10000), TTL (10s),
# CLIENTS (16: the keepalive clients), FLOOD (512: flooding clients), DURATION (60s), WARMUP (10s), BASE_PORT
# (27800), REGENT_JAR. Exit 1 when a run saw a spurious expiry (expected of nolanes under enough flood).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mkdir -p "${1:-/tmp/regent-overload}" && cd "${1:-/tmp/regent-overload}" && pwd)
jar=${REGENT_JAR:-$root/cli/target/regent.jar}
modes=${MODES:-lanes nolanes}
server_flags=${SERVER_FLAGS:---max-bulk-calls 256}
base=${BASE_PORT:-27800}
opens=(--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED)
note() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$work/run.log" >&2; }
peers="n1=127.0.0.1:$((base + 1)),n2=127.0.0.1:$((base + 2)),n3=127.0.0.1:$((base + 3))"
endpoints="127.0.0.1:$((base + 101)),127.0.0.1:$((base + 102)),127.0.0.1:$((base + 103))"
status=0

stop() { # DIR: the nodes this script started, by pid
  for pidfile in "$1"/n*.pid; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  for pidfile in "$1"/n*.pid; do
    [ -f "$pidfile" ] || continue
    while kill -0 "$(cat "$pidfile")" 2>/dev/null; do sleep 0.2; done
    rm -f "$pidfile"
  done
}

for mode in $modes; do
  dir=$work/$mode
  rm -rf "$dir" && mkdir -p "$dir"
  flags=$server_flags
  [ "$mode" = nolanes ] && flags="$flags --unsafe-no-priority-lanes"
  trap 'stop "$dir"' EXIT
  for i in 1 2 3; do
    # shellcheck disable=SC2086 # the flags are words
    setsid java -Xmx512m "${opens[@]}" -jar "$jar" server --id "n$i" --peers "$peers" --api-port $((base + 100 + i)) \
      --data-dir "$dir/n$i" $flags >"$dir/n$i.log" 2>&1 &
    echo $! >"$dir/n$i.pid"
  done
  note "$mode: nodes up with: $flags"
  for _ in $(seq 1 120); do
    java "${opens[@]}" -jar "$jar" status --endpoints "$endpoints" >/dev/null 2>&1 && break
    sleep 0.5
  done
  note "$mode: bench"
  java "${opens[@]}" -jar "$jar" bench --endpoints "$endpoints" --workload overload --clients "${CLIENTS:-16}" \
    --leases "${LEASES:-10000}" --ttl "${TTL:-10s}" --flood-clients "${FLOOD:-512}" --duration "${DURATION:-60s}" \
    --warmup "${WARMUP:-10s}" --pid-dir "$dir" --label "overload-$mode" --quiet -w json \
    >>"$work/results.jsonl" 2>>"$work/run.log" || { status=1; note "$mode: spurious expiries (or the bench failed)"; }
  tail -1 "$work/results.jsonl" >&2
  stop "$dir"
  trap - EXIT
done
exit $status
