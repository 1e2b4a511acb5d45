#!/usr/bin/env bash
# A JFR profile of a Regent 3-node cluster's Raft leader under one load point, for docs/performance.md's "Where
# an entry's time goes": a fresh cluster of JAR, loaded SETTLE first (the JIT's warm-up), then RECORD of the
# workload profiled on the leader, then JfrTop's summary (CPU by frame, thread group and component; locks;
# thread parks).
#
#   scripts/jfr-leader.sh JAR WORK_DIR [WORKLOAD] [CLIENTS]     (default campaign, 64)
#
# Environment: SETTLE (180s), RECORD (30s), BASE_PORT (29500: clear of the test clusters' ports), BENCH_JAR (bench-jmh/target/benchmarks.jar, for JfrTop),
# TARGET (regent; etcd: the load goes through the nodes' etcd ports with the bench's etcd target).
# Stops only the cluster it started.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 JAR WORK_DIR [WORKLOAD] [CLIENTS]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
jar=$1 work=$(mkdir -p "$2" && cd "$2" && pwd) workload=${3:-campaign} clients=${4:-64}
bench_jar=${BENCH_JAR:-$root/bench-jmh/target/benchmarks.jar}
settle=${SETTLE:-180s} record=${RECORD:-30s}
opens=(--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED)
regent() { java "${opens[@]}" -jar "$jar" "$@"; }
dir=$work/cluster
rm -rf "$dir"
trap 'regent cluster down --dir "$dir" >&2 || true' EXIT
regent cluster up --dir "$dir" --nodes 3 --base-port "${BASE_PORT:-29500}" >&2
endpoints=$(cat "$dir/endpoints")
target=${TARGET:-regent}
load=$endpoints
[ "$target" = etcd ] && load=$(cat "$dir/etcd-endpoints")
regent bench --target "$target" --endpoints "$load" --workload "$workload" --clients "$clients" --duration "$settle" \
  --warmup 1s --label settle --quiet -w json >"$work/settle.json"
leader=$(regent status --endpoints "$endpoints" -w json | sed -n 's/.*"leader":"\([^"]*\)".*/\1/p')
pid=$(cat "$dir/$leader.pid")
secs=${record%s}
jcmd "$pid" JFR.start name=leader settings=profile duration="$((secs + 2))s" filename="$work/leader.jfr" >&2
regent bench --target "$target" --endpoints "$load" --workload "$workload" --clients "$clients" --duration "$record" \
  --warmup 1s --label profiled --pid-dir "$dir" -w json >"$work/profiled.json"
while [ ! -s "$work/leader.jfr" ] || jcmd "$pid" JFR.check 2>/dev/null | grep -q "name=leader"; do sleep 1; done
java -cp "$bench_jar" io.regent.bench.jfr.JfrTop "$work/leader.jfr" 25 >"$work/jfr-top.txt"
echo "leader $leader (pid $pid); summary: $work/jfr-top.txt; run: $work/profiled.json" >&2
