#!/usr/bin/env bash
# The overload benchmark (docs/performance.md, issue 22 item 4) with the load generator split in two processes, to
# tell the servers' queueing from the generator's on one small machine: a fresh 3-node cluster on mutual TLS, then
#   1. the keepalive process: `regent bench --workload overload --flood-clients 0` as identity "polite" (LEASES
#      leases renewed every TTL/3 by CLIENTS clients on --target TARGET, and the well-behaved reader);
#   2. once its leases are granted, the flood process: `--workload overload --leases 1 --flood-clients FLOOD
#      --rate FLOOD_RATE`, its flood as identity "flood", measured over a window that covers the first process's
#      (its own lease and reader are on "polite": their figures are not the ones to read, the first process's are).
# CG=1 (root, cgroup v1 cpu controller at /sys/fs/cgroup/cpu): the nodes and the keepalive process run in a cpu
# cgroup of shares 8192, the flood process in one of shares 64 — the flood takes only the CPU the others leave, as a
# flood from other machines would. The flood's result line says what it achieved (served + refused per second).
# Result lines: WORK_DIR/keepalive.jsonl and WORK_DIR/flood.jsonl; the nodes are stopped by their pids.
#
#   scripts/overload-split.sh [WORK_DIR]     (default /tmp/regent-overload-split)
#
# Environment: CG (0), TARGET (regentstream: the keepalive streams of the default client), IDENTITY_BULK (4: the
# nodes' --max-bulk-calls-per-identity), LEASES (10000), TTL (10s), CLIENTS (16), FLOOD (512; 0 for the unloaded
# baseline), FLOOD_RATE (4000), WARMUP (180s, after the grants), DURATION (30s), BASE_PORT (29800), REGENT_JAR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mkdir -p "${1:-/tmp/regent-overload-split}" && cd "${1:-/tmp/regent-overload-split}" && pwd)
jar=${REGENT_JAR:-$root/cli/target/regent.jar}
base=${BASE_PORT:-29800}
flood=${FLOOD:-512}
warmup=${WARMUP:-180s} duration=${DURATION:-30s}
cg=/sys/fs/cgroup/cpu
opens=(--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED)
rm -rf "$work"/n* "$work"/certs "$work"/*.jsonl "$work"/*.err
certs=$work/certs
java "${opens[@]}" -jar "$jar" certs init --dir "$certs" --nodes n1,n2,n3 --clients polite,flood >/dev/null 2>&1 \
  || { echo "regent certs init failed" >&2; exit 1; }
peers="n1=127.0.0.1:$((base + 1)),n2=127.0.0.1:$((base + 2)),n3=127.0.0.1:$((base + 3))"
endpoints="127.0.0.1:$((base + 101)),127.0.0.1:$((base + 102)),127.0.0.1:$((base + 103))"
polite=(--cacert "$certs/ca.crt" --cert "$certs/polite.crt" --key "$certs/polite.key")
pids=()
cleanup() { # the processes this script started, by pid; then the cgroups it made
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.2; done; done
  if [ "${CG:-0}" = 1 ]; then
    for g in regent-srv regent-gen; do
      [ -d "$cg/$g" ] || continue
      for t in $(cat "$cg/$g/cgroup.procs"); do echo "$t" >"$cg/cgroup.procs" 2>/dev/null || true; done
      rmdir "$cg/$g"
    done
  fi
}
trap cleanup EXIT
if [ "${CG:-0}" = 1 ]; then
  mkdir -p "$cg/regent-srv" "$cg/regent-gen"
  echo 8192 >"$cg/regent-srv/cpu.shares"
  echo 64 >"$cg/regent-gen/cpu.shares"
  echo $$ >"$cg/regent-srv/cgroup.procs" # the nodes and the keepalive process inherit it
fi
for i in 1 2 3; do
  setsid java -Xmx512m "${opens[@]}" -jar "$jar" server --id "n$i" --peers "$peers" --api-port $((base + 100 + i)) \
    --data-dir "$work/n$i" --tls-cert "$certs/n$i.crt" --tls-key "$certs/n$i.key" --tls-ca "$certs/ca.crt" \
    --client-cert-auth --peer-tls-cert "$certs/n$i.crt" --peer-tls-key "$certs/n$i.key" --peer-tls-ca "$certs/ca.crt" \
    --peer-client-cert-auth --max-bulk-calls-per-identity "${IDENTITY_BULK:-4}" >"$work/n$i.log" 2>&1 &
  pids+=($!)
  echo $! >"$work/n$i.pid"
done
for _ in $(seq 1 120); do
  java "${opens[@]}" -jar "$jar" status --endpoints "$endpoints" "${polite[@]}" >/dev/null 2>&1 && break
  sleep 0.5
done
java "${opens[@]}" -jar "$jar" bench --endpoints "$endpoints" --target "${TARGET:-regentstream}" --workload overload \
  --flood-clients 0 --clients "${CLIENTS:-16}" --leases "${LEASES:-10000}" --ttl "${TTL:-10s}" "${polite[@]}" \
  --duration "$duration" --warmup "$warmup" --pid-dir "$work" --label "keepalive-flood$flood" -w json \
  >"$work/keepalive.jsonl" 2>"$work/keepalive.err" &
keepalive=$!
pids+=($keepalive)
until grep -q "granted in" "$work/keepalive.err"; do
  kill -0 $keepalive 2>/dev/null || { echo "the keepalive bench ended before its grants" >&2; exit 1; }
  sleep 1
done
if [ "$flood" -gt 0 ]; then
  secs() { case $1 in *ms) echo $(( ${1%ms} / 1000 ));; *m) echo $(( ${1%m} * 60 ));; *s) echo "${1%s}";; *) echo "$1";; esac; }
  # measured from 20 s after it starts to 10 s after the keepalive process's window ends
  ( [ "${CG:-0}" = 1 ] && echo "$BASHPID" >"$cg/regent-gen/cgroup.procs"
    exec java "${opens[@]}" -jar "$jar" bench --endpoints "$endpoints" --workload overload --clients 1 --leases 1 \
      --ttl "${TTL:-10s}" --flood-clients "$flood" --rate "${FLOOD_RATE:-4000}" "${polite[@]}" \
      --flood-cert "$certs/flood.crt" --flood-key "$certs/flood.key" --warmup 20s \
      --duration "$(( $(secs "$warmup") + $(secs "$duration") - 10 ))s" --label "flood$flood" -w json --quiet \
      >"$work/flood.jsonl" 2>"$work/flood.err" ) &
  pids+=($!)
  floodpid=$!
fi
status=0
wait $keepalive || status=$?
[ "$flood" -gt 0 ] && { wait "$floodpid" || true; }
echo "keepalive: $(tail -1 "$work/keepalive.jsonl")"
[ -s "$work/flood.jsonl" ] && echo "flood: $(tail -1 "$work/flood.jsonl")"
exit $status
