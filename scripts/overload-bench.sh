#!/usr/bin/env bash
# The overload benchmark of docs/performance.md (issue 22 item 4): a 3-node Regent cluster started with the server
# flags in SERVER_FLAGS, then `regent bench --workload overload` against it, then the nodes stopped (by their pids).
# Each mode in MODES is one fresh cluster and one result line in WORK_DIR/results.jsonl:
#   unloaded  as lanes, without the flood (--flood-clients 0): the well-behaved reader's baseline
#   lanes     SERVER_FLAGS as given (priority lanes on, the default)
#   nolanes   SERVER_FLAGS plus --unsafe-no-priority-lanes: the negative control, keepalives shed with the flood
# With TLS=1 (the default) `regent certs init` makes a CA, node certificates and two client identities, "polite"
# (the keepalive clients and the well-behaved reader) and "flood" (the flooding clients, --flood-cert); the nodes
# run mutual TLS, API and Raft, with --max-bulk-calls-per-identity IDENTITY_BULK, so the flood's identity is shed
# and the polite one is not (it has at most max(16, CLIENTS) grants + 1 read in progress over the 3 nodes).
# TLS=0: plaintext, every client the one identity _default, the reader shed with the flood.
# The summary (stderr and WORK_DIR/summary.txt) gives the polite read p99 of lanes over that of unloaded.
#
#   scripts/overload-bench.sh [WORK_DIR]     (default /tmp/regent-overload)
#
# Environment: MODES ("unloaded lanes nolanes"), TLS (1), IDENTITY_BULK (32), SERVER_FLAGS (TLS=1:
# "--max-bulk-calls-per-identity IDENTITY_BULK", TLS=0: "--max-bulk-calls 256"), LEASES (10000), TTL (10s),
# CLIENTS (16: the keepalive clients), FLOOD (512: flooding clients), FLOOD_RATE (0: closed loop; else the flood's
# total offered calls per second, open loop, e.g. 5x the flood_served_per_s of a run that shed nothing), DURATION
# (60s), WARMUP (10s), BASE_PORT (27800), REGENT_JAR. Exit 1 when a run saw a spurious expiry (expected of nolanes under enough flood).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mkdir -p "${1:-/tmp/regent-overload}" && cd "${1:-/tmp/regent-overload}" && pwd)
jar=${REGENT_JAR:-$root/cli/target/regent.jar}
modes=${MODES:-unloaded lanes nolanes}
tls=${TLS:-1}
if [ "$tls" = 1 ]; then
  server_flags=${SERVER_FLAGS:---max-bulk-calls-per-identity ${IDENTITY_BULK:-32}}
else
  server_flags=${SERVER_FLAGS:---max-bulk-calls 256}
fi
base=${BASE_PORT:-27800}
opens=(--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED)
note() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$work/run.log" >&2; }
peers="n1=127.0.0.1:$((base + 1)),n2=127.0.0.1:$((base + 2)),n3=127.0.0.1:$((base + 3))"
endpoints="127.0.0.1:$((base + 101)),127.0.0.1:$((base + 102)),127.0.0.1:$((base + 103))"
status=0
certs=$work/certs
node_tls=() polite_tls=() flood_tls=()
if [ "$tls" = 1 ]; then
  rm -rf "$certs"
  java "${opens[@]}" -jar "$jar" certs init --dir "$certs" --nodes n1,n2,n3 --clients polite,flood \
    >/dev/null 2>>"$work/run.log"
  polite_tls=(--cacert "$certs/ca.crt" --cert "$certs/polite.crt" --key "$certs/polite.key")
  flood_tls=(--flood-cert "$certs/flood.crt" --flood-key "$certs/flood.key")
fi

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
  flood=${FLOOD:-512}
  [ "$mode" = unloaded ] && flood=0
  trap 'stop "$dir"' EXIT
  for i in 1 2 3; do
    [ "$tls" = 1 ] && node_tls=(--tls-cert "$certs/n$i.crt" --tls-key "$certs/n$i.key" --tls-ca "$certs/ca.crt"
      --client-cert-auth --peer-tls-cert "$certs/n$i.crt" --peer-tls-key "$certs/n$i.key"
      --peer-tls-ca "$certs/ca.crt" --peer-client-cert-auth)
    # shellcheck disable=SC2086 # the flags are words
    setsid java -Xmx512m "${opens[@]}" -jar "$jar" server --id "n$i" --peers "$peers" --api-port $((base + 100 + i)) \
      --data-dir "$dir/n$i" "${node_tls[@]}" $flags >"$dir/n$i.log" 2>&1 &
    echo $! >"$dir/n$i.pid"
  done
  note "$mode: nodes up (TLS=$tls) with: $flags"
  for _ in $(seq 1 120); do
    java "${opens[@]}" -jar "$jar" status --endpoints "$endpoints" "${polite_tls[@]}" >/dev/null 2>&1 && break
    sleep 0.5
  done
  note "$mode: bench"
  java "${opens[@]}" -jar "$jar" bench --endpoints "$endpoints" --workload overload --clients "${CLIENTS:-16}" \
    --leases "${LEASES:-10000}" --ttl "${TTL:-10s}" --flood-clients "$flood" --rate "${FLOOD_RATE:-0}" "${polite_tls[@]}" "${flood_tls[@]}" \
    --duration "${DURATION:-60s}" \
    --warmup "${WARMUP:-10s}" --pid-dir "$dir" --label "overload-$mode" --quiet -w json \
    >>"$work/results.jsonl" 2>>"$work/run.log" || { status=1; note "$mode: spurious expiries (or the bench failed)"; }
  tail -1 "$work/results.jsonl" >&2
  stop "$dir"
  trap - EXIT
done
# The "within 2x of unloaded" figure: polite_read_p99_ms of the last lanes line over the last unloaded line's.
p99() { grep "\"label\":\"overload-$1\"" "$work/results.jsonl" | tail -1 | sed -n 's/.*"polite_read_p99_ms":\([0-9.]*\).*/\1/p'; }
base_p99=$(p99 unloaded) lanes_p99=$(p99 lanes)
if [ -n "$base_p99" ] && [ -n "$lanes_p99" ]; then
  awk -v b="$base_p99" -v l="$lanes_p99" 'BEGIN { printf "polite read p99: unloaded %s ms, lanes %s ms, ratio %.2f (target <= 2)\n", b, l, (b > 0 ? l / b : 0) }' \
    | tee "$work/summary.txt" >&2
fi
exit $status
