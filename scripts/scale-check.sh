#!/usr/bin/env bash
# Regent at scale (docs/performance.md, scale check): a 3-node cluster whose state holds N leases (default 999 000), seeded through
# `regent snapshot restore` (granting 10^6 leases through the API would take most of an hour here).
# Measures, one JSON line each (stdout and WORK_DIR/scale.jsonl):
#   - cluster start from the restored state to the first grant;
#   - restart of a follower (kill -9, start again) until it answers a linearizable read;
#   - kill -9 of the Raft leader until the next grant (the new leader re-arms N lease deadlines);
#   - mass expiry: the seeded leases have TTL_MS (default 60 s) and are never renewed, so all N expire at
#     once; the expiry rate (leases/s, from the live-lease count) and, meanwhile, campaign latency on other
#     names at 10/s open loop, compared with the same load before the expiry.
#   scripts/scale-check.sh [WORK_DIR]     (default /tmp/regent-scale; N=…, TTL_MS=…, REGENT_JAR=…, BENCH_JAR=…)
# Stops only the PIDs of its own cluster (`regent cluster down`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/regent-scale}
# `regent cluster up` keeps the servers' default --max-leases (10^6; it does not pass REGENT_* variables on to
# them), and the checks below grant leases beside the seeded ones: hence 999 000, not 10^6.
n=${N:-999000}
ttl=${TTL_MS:-60000}
regent_jar=${REGENT_JAR:-$root/cli/target/regent.jar}
bench_jar=${BENCH_JAR:-$root/bench-jmh/target/benchmarks.jar}
regent() { java -jar "$regent_jar" "$@"; }
now_ms() { date +%s%3N; }
out() { echo "$1" | tee -a "$work/scale.jsonl"; }
rm -rf "$work" && mkdir -p "$work"
trap 'regent cluster down --dir "$work/c" >/dev/null 2>&1 || true' EXIT

java -cp "$bench_jar" io.regent.bench.jmh.SeedLeases "$work/seed" "$n" "$ttl" >&2
regent snapshot save "$work/state.snap" --data-dir "$work/seed" >&2
for id in n1 n2 n3; do regent snapshot restore "$work/state.snap" --data-dir "$work/c/$id" >&2; done
snap_bytes=$(stat -c %s "$work/state.snap")

t0=$(now_ms)
regent cluster up --dir "$work/c" --base-port "${BASE_PORT:-29000}" >&2
eps=$(cat "$work/c/endpoints")
lease=$(regent lease grant 60s --endpoints "$eps" -w json | sed 's/.*"id":\([0-9]*\).*/\1/')
t1=$(now_ms)
out "{\"step\":\"start_to_first_grant\",\"leases\":$n,\"snapshot_bytes\":$snap_bytes,\"ms\":$((t1 - t0)),\"load1\":$(cut -d' ' -f1 /proc/loadavg)}"

leader=$(regent status --endpoints "$eps" -w json | sed -n 's/.*"leader":"\([^"]*\)".*/\1/p')
follower=$(for id in n1 n2 n3; do if [ "$id" != "$leader" ]; then echo "$id"; fi; done | head -1)
# relaunch ID: starts node ID again with the command line it had (saved before the kill), records its PID
relaunch() {
  local id=$1
  local args
  mapfile -d '' args <"$work/$id.cmdline"
  (cd "$work/c" && exec "${args[@]}" >>"$work/c/$id.log" 2>&1 </dev/null) &
  echo $! >"$work/c/$id.pid"
}
ready() { curl -sf "http://127.0.0.1:$(( $(sed -n "s/^$1.api-port=//p" "$work/c/cluster.conf") + 100 ))/readyz" >/dev/null; }
cp "/proc/$(cat "$work/c/$follower.pid")/cmdline" "$work/$follower.cmdline"
kill -9 "$(cat "$work/c/$follower.pid")"
t0=$(now_ms)
relaunch "$follower"
until ready "$follower"; do sleep 0.05; [ "$(( $(now_ms) - t0 ))" -lt 300000 ] || { echo "$follower not ready in 300 s" >&2; exit 1; }; done
t1=$(now_ms)
out "{\"step\":\"follower_restart_to_ready\",\"leases\":$n,\"ms\":$((t1 - t0)),\"load1\":$(cut -d' ' -f1 /proc/loadavg)}"

# leader kill under open-loop campaign load: the longest latency (from due time) is the outage clients saw
cp "/proc/$(cat "$work/c/$leader.pid")/cmdline" "$work/$leader.cmdline"
regent bench --endpoints "$eps" --workload campaign --clients 4 --rate 20 --duration 20s --warmup 1s \
  --label leader-kill-with-$n-leases -w json 2>/dev/null >"$work/failover.json" &
bench=$!
sleep 6 # let the load run before the fault (pacing, not synchronisation)
kill -9 "$(cat "$work/c/$leader.pid")"
wait "$bench"
out "$(sed 's/^{/{"step":"leader_kill_max_campaign_latency",/' "$work/failover.json")"
relaunch "$leader"
until ready "$leader"; do sleep 0.2; done

# Mass expiry: the new leader re-armed every seeded lease for a full TTL from its readiness.
# live leases from a node's /metrics (its API port + 100): listing 10^6 leases would exceed gRPC's 4 MiB
first_ep=${eps%%,*}
metrics_port=$(( ${first_ep##*:} + 100 ))
live() { curl -sf "http://127.0.0.1:$metrics_port/metrics" | awk '/^regent_leases_live/ {printf "%d", $2}'; }
regent bench --endpoints "$eps" --workload campaign --clients 4 --rate 10 --duration 5s --warmup 1s \
  --label campaign-before-expiry -w json 2>/dev/null | tee -a "$work/scale.jsonl"
regent bench --endpoints "$eps" --workload campaign --clients 4 --rate 10 --duration "$((ttl / 1000 + 20))s" \
  --warmup 0s --label campaign-during-expiry -w json 2>/dev/null >>"$work/scale.jsonl" &
bench=$!
first=""; last=""; prev=$(live); deadline=$(( $(now_ms) + ttl + 120000 ))
while [ "$(now_ms)" -lt "$deadline" ]; do
  sleep 0.5; c=$(live); t=$(now_ms)
  [ -n "$c" ] || continue
  if [ -z "$first" ] && [ "$c" -lt "$prev" ]; then first=$t; fi
  if [ -n "$first" ] && [ "$c" -le 10 ]; then last=$t; break; fi
  prev=$c
done
[ -n "$last" ] || { echo "mass expiry did not finish within $(( ttl / 1000 + 120 )) s" >&2; exit 1; }
out "{\"step\":\"mass_expiry\",\"leases\":$n,\"ms_first_to_last\":$((last - first)),\"leases_per_s\":$(( n * 1000 / (last - first + 1) )),\"load1\":$(cut -d' ' -f1 /proc/loadavg)}"
wait "$bench"
tail -1 "$work/scale.jsonl"
