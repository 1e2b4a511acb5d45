#!/usr/bin/env bash
# One run of the performance comparison behind docs/performance.md:
#   the physical floor (fsync, loopback RTT); Regent 1/3/5 nodes, the single-writer mode (when the build has
#   it) and a 3-node etcd, all started side by side, each under campaign, leader-read and keepalive at 1, 16
#   and 64 clients (targets interleaved per point); a JFR profile of the Regent 3-node Raft leader under
#   campaign load; failover under load; then the table and PNG plots.
#
#   scripts/perf-report.sh [WORK_DIR]        (default /tmp/regent-perf; 20-25 minutes on 2 cores)
#
# Environment: DURATION (10s) and WARMUP (2s) per point, CLIENTS ("1 16 64"), WORKLOADS
# ("campaign leader-read keepalive"; empty: none), TARGETS ("regent-1 regent-3 regent-5 single-writer etcd-3"),
# LEASES (keepalive, 2000), REGENT_JAR, BENCH_JAR, PAGE (docs/performance.md), NO_RENDER=1, NO_FAILOVER=1.
# Last, the failover step kills the Raft leader of Regent 3 and 5 nodes and of etcd with kill -9 (their own
# recorded PIDs only) under open-loop campaign load.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mkdir -p "${1:-/tmp/regent-perf}" && cd "${1:-/tmp/regent-perf}" && pwd)
regent_jar=${REGENT_JAR:-$root/cli/target/regent.jar}
bench_jar=${BENCH_JAR:-$root/bench-jmh/target/benchmarks.jar}
duration=${DURATION:-10s}
warmup=${WARMUP:-2s}
clients=${CLIENTS:-1 16 64}
workloads=${WORKLOADS-campaign leader-read keepalive}
targets=${TARGETS:-regent-1 regent-3 regent-5 single-writer etcd-3}
leases=${LEASES:-2000}
page=${PAGE:-$root/docs/performance.md}
results=$work/results.jsonl
log=$work/run.log
java_opens=(--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED)

if [ ! -f "$regent_jar" ] || [ ! -f "$bench_jar" ]; then
  (cd "$root" && mvn -B -q install -DskipTests -pl cli,bench-jmh -am)
fi
regent() { java "${java_opens[@]}" -jar "$regent_jar" "$@"; }
note() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$log" >&2; }
: >"$results"
note "run in $work; $(nproc) cores; $(uptime)"
echo "{\"run\":\"$(date -u +%FT%TZ)\",\"host_cores\":$(nproc),\"java\":\"$(java -version 2>&1 | head -1 | tr -d '"')\",\"etcd\":\"$( (etcd --version 2>/dev/null || echo none) | head -1)\",\"duration\":\"$duration\",\"warmup\":\"$warmup\",\"keepalive_leases\":$leases}" >>"$results"

note "floor: fsync of 4 KiB appends and loopback TCP round trips (on the disk holding $work)"
java -cp "$bench_jar" io.regent.bench.floor.Floor "$work" >>"$results"

# point LABEL WORKLOAD CLIENTS: one JSON line for one target, workload and client count.
point() {
  local label=$1 w=$2 c=$3 target=regent
  [ "$label" = etcd-3 ] && target=etcd
  note "$label $w clients=$c (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  regent bench --target "$target" --endpoints "${endpoints[$label]}" --workload "$w" --clients "$c" \
    --duration "$duration" --warmup "$warmup" --leases "$leases" --label "$label" --pid-dir "$work/$label" \
    -w json 2>>"$log" | tee -a "$results" >&2 || note "  exit $? (see $log)"
}

# jfr LABEL: profile the Raft leader of a Regent cluster for 15 s of campaign at 16 clients.
jfr() {
  local dir=$work/$1 leader pid
  leader=$(regent status --endpoints "${endpoints[$1]}" -w json | sed -n 's/.*"leader":"\([^"]*\)".*/\1/p')
  pid=$(cat "$dir/$leader.pid")
  note "JFR: $1 leader $leader (pid $pid) under campaign, 16 clients"
  jcmd "$pid" JFR.start name=perf settings=profile duration=17s filename="$work/leader-campaign.jfr" >>"$log"
  regent bench --endpoints "${endpoints[$1]}" --workload campaign --clients 16 --duration 15s --warmup 1s \
    --label "$1-jfr" --pid-dir "$dir" -w json 2>>"$log" | tee "$work/jfr-run.json" >&2
  sleep 3
  java -cp "$bench_jar" io.regent.bench.jfr.JfrTop "$work/leader-campaign.jfr" 20 >"$work/jfr-top.txt"
  note "JFR summary in $work/jfr-top.txt"
}

# serve LABEL API_PORT ARGS...: one `regent server` process (1-node Raft, or the single-writer mode) in
# WORK/LABEL, its pid in WORK/LABEL/server.pid; up when `regent status` answers within 60 s.
serve() {
  local label=$1 api=$2 dir=$work/$1
  shift 2
  mkdir -p "$dir"
  java -Xmx512m "${java_opens[@]}" -jar "$regent_jar" server --api-port "$api" "$@" >"$dir/server.log" 2>&1 &
  echo $! >"$dir/server.pid"
  for _ in $(seq 120); do
    if regent status --endpoints "127.0.0.1:$api" >/dev/null 2>&1; then
      endpoints[$label]=127.0.0.1:$api; up+=("$label"); return
    fi
    kill -0 "$(cat "$dir/server.pid")" 2>/dev/null || break
    sleep 0.5
  done
  note "$label did not start: $(tail -1 "$dir/server.log")"
  echo "{\"note\":\"$label skipped: $(tail -1 "$dir/server.log" | tr -d '"\\')\"}" >>"$results"
  kill "$(cat "$dir/server.pid")" 2>/dev/null || true
}

# failover LABEL: open-loop campaign at 20/s from 4 clients, and kill -9 of the Raft leader 4 s into the
# measurement; latency counts from each request's due time, so the longest one is the outage clients saw.
failover() {
  local label=$1 dir=$work/$1 pid target=regent err=$work/$1-failover.err
  if [ "$label" = etcd-3 ]; then
    target=etcd
    local ep
    ep=$(ETCDCTL_API=3 etcdctl --endpoints "${endpoints[$label]}" endpoint status | awk -F', ' '$5 == "true" {print $1}')
    pid=$(cat "$dir/e$(( ${ep##*:} - 23800 )).pid")
  else
    pid=$(cat "$dir/$(regent status --endpoints "${endpoints[$label]}" -w json | sed -n 's/.*"leader":"\([^"]*\)".*/\1/p').pid")
  fi
  regent bench --target $target --endpoints "${endpoints[$label]}" --workload campaign --clients 4 --rate 20 \
    --duration 15s --warmup 1s --label "$label-failover" -w json 2>"$err" | tee -a "$results" >&2 &
  local bench=$!
  for _ in $(seq 150); do grep -q measuring "$err" 2>/dev/null && break; sleep 0.2; done
  sleep 4
  note "failover: kill -9 of the $label leader (pid $pid)"
  kill -9 "$pid"
  wait $bench || true
}

# Start every target first, then run each point on all of them in turn: paired points are minutes apart at
# most, so load from other processes on the machine hits every target alike.
declare -A endpoints
up=()
port=7600
for t in $targets; do
  dir=$work/$t
  rm -rf "$dir"
  case $t in
    regent-1)
      serve "$t" $((port + 100)) --id n1 --peers n1=127.0.0.1:$((port + 1)) --data-dir "$dir/n1"
      ;;
    regent-*)
      if regent cluster up --nodes "${t#regent-}" --dir "$dir" --base-port "$port" >>"$log" 2>&1; then
        endpoints[$t]=$(cat "$dir/endpoints"); up+=("$t")
      else
        note "$t did not start"; regent cluster down --dir "$dir" >>"$log" 2>&1 || true
      fi
      ;;
    single-writer)
      serve "$t" $((port + 100)) --single-writer --data-dir "$dir/data"
      ;;
    etcd-3)
      "$root/scripts/etcd-cluster.sh" up "$dir" 23800 >>"$log" 2>&1 && { endpoints[$t]=$(cat "$dir/endpoints"); up+=("$t"); }
      ;;
  esac
  port=$((port + 20))
done
note "up: ${up[*]}"
# A fresh JVM (and a fresh etcd) is slow for its first seconds: prime every target with 5 s of campaign.
for t in "${up[@]}"; do
  target=regent; [ "$t" = etcd-3 ] && target=etcd
  regent bench --target $target --endpoints "${endpoints[$t]}" --workload campaign --clients 4 --duration 5s \
    --warmup 0s --quiet >>"$log" 2>&1 || true
done

for w in $workloads; do
  for c in $clients; do
    for t in "${up[@]}"; do
      point "$t" "$w" "$c"
    done
  done
done
for t in "${up[@]}"; do
  [ "$t" = regent-3 ] && jfr regent-3
done
if [ -z "${NO_FAILOVER:-}" ]; then
  for t in "${up[@]}"; do
    case $t in regent-3 | regent-5 | etcd-3) failover "$t" ;; esac
  done
fi

for t in "${up[@]}"; do
  case $t in
    regent-1 | single-writer) kill "$(cat "$work/$t/server.pid")" 2>/dev/null || true ;;
    regent-*) regent cluster down --dir "$work/$t" >>"$log" 2>&1 ;;
    etcd-3) "$root/scripts/etcd-cluster.sh" down "$work/$t" >>"$log" 2>&1 ;;
  esac
done
note "done; $(uptime)"

if [ -z "${NO_RENDER:-}" ]; then
  java -Djava.awt.headless=true -cp "$bench_jar" io.regent.bench.report.PerfReport "$results" "$page" \
    "$(dirname "$page")/performance"
fi
