#!/usr/bin/env bash
# How fast a fresh node gets fast (docs/performance.md, warm-up; issue 24 item 5): campaign throughput at 64
# clients in 10 s windows from the moment `regent cluster up` returns, and again after the whole cluster is
# stopped and started on its data (a restart), per server runtime VARIANT:
#   java17     the default runtime (Java 17), no archive
#   java25     Temurin 25, no archive
#   java25aot  Temurin 25 with the JDK's ahead-of-time cache (JEP 483/515: classes loaded and linked, method
#              profiles), trained once per run on a 3-node cluster under the bench's workloads
# The generator (`regent bench`, one fresh process per curve) always runs on Java 17, so only the servers differ.
# Each curve is one JSON line in WORK_DIR/results.jsonl (bench's result; `settle_curve` holds the windows).
#
#   scripts/warmup-curve.sh [WORK_DIR]      (default /tmp/regent-warmup)
#
# Environment: VARIANTS ("java17 java25 java25aot"), ROUNDS (2), SETTLE (200s: long enough to read the steady
# rate off the last windows), RESTART_SETTLE (90s), JAVA17 (java on the PATH), JAVA25
# (/usr/lib/jvm/temurin-25-jdk-amd64/bin/java), REGENT_JAR. Stops only the processes it started (DIR/*.pid).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mkdir -p "${1:-/tmp/regent-warmup}" && cd "${1:-/tmp/regent-warmup}" && pwd)
jar=$(cd "$(dirname "${REGENT_JAR:-$root/cli/target/regent.jar}")" && pwd)/$(basename "${REGENT_JAR:-regent.jar}")
variants=${VARIANTS:-java17 java25 java25aot}
rounds=${ROUNDS:-2}
settle=${SETTLE:-200s}
restart_settle=${RESTART_SETTLE:-90s}
java17=${JAVA17:-$(command -v java)}
java25=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
results=$work/results.jsonl
opens=(--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED)
note() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$work/run.log" >&2; }
regent() { "$java17" "${opens[@]}" -jar "$jar" "$@"; }
now_ms() { date +%s%3N; }

# up VARIANT DIR: starts (or restarts) the cluster in DIR with VARIANT's runtime; nodes inherit the options.
up() {
  local java=$java17 tool=
  case $1 in
    java25) java=$java25 ;;
    java25aot) java=$java25 tool="-XX:AOTCache=$work/aot/regent.aot" ;;
  esac
  JAVA_TOOL_OPTIONS=$tool "$java" "${opens[@]}" -jar "$jar" cluster up --dir "$2" --nodes 3 --base-port 27000 >&2
}

# stop DIR: SIGTERM to every node, then waits for each to exit by itself (an AOT cache is written at exit).
stop() {
  local pids=()
  for f in "$1"/n*.pid; do pids+=("$(cat "$f")"); done
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for p in "${pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.5; done; done
}

bench() { # ENDPOINTS LABEL SETTLE
  regent bench --target regent --endpoints "$1" --workload campaign --clients 64 --duration 6s --warmup 2s \
    --settle "$3" --settle-min "$3" --pid-dir "$dir" --label "$2" --quiet -w json >>"$results" 2>>"$work/run.log" \
    || note "bench failed: $2"
}

train() {
  local d=$work/train
  rm -rf "$d" "$work/aot" && mkdir -p "$work/aot"
  note "training the AOT cache on a 3-node cluster"
  JAVA_TOOL_OPTIONS="-XX:AOTCacheOutput=$work/aot/node-%p.aot" "$java25" "${opens[@]}" -jar "$jar" cluster up \
    --dir "$d" --nodes 3 --base-port 27000 >&2
  regent bench --target regent --endpoints "$(cat "$d/endpoints")" --workload campaign,leader-read,keepalive \
    --clients 1,64 --duration 20s --warmup 2s --quiet -w json >/dev/null 2>>"$work/run.log" || note "training bench failed"
  stop "$d"
  # Every node saw the same code paths but one led; keep the largest cache (the leader's, most classes).
  mv "$(ls -S "$work"/aot/node-*.aot | head -1)" "$work/aot/regent.aot"
  note "AOT cache: $(stat -c %s "$work/aot/regent.aot") bytes"
}

case " $variants " in *" java25aot "*) train ;; esac
for ((r = 1; r <= rounds; r++)); do
  for v in $variants; do
    dir=$work/r$r-$v
    rm -rf "$dir"
    t0=$(now_ms)
    up "$v" "$dir"
    note "round $r: $v up in $(($(now_ms) - t0)) ms"
    bench "$(cat "$dir/endpoints")" "warmup-$v-r$r" "$settle"
    note "round $r: $v led by: $(regent status --endpoints "$(cat "$dir/endpoints")" 2>&1 | tr '\n' ' ')"
    stop "$dir"
    t0=$(now_ms)
    up "$v" "$dir"
    note "round $r: $v restarted in $(($(now_ms) - t0)) ms"
    bench "$(cat "$dir/endpoints")" "restart-$v-r$r" "$restart_settle"
    stop "$dir"
  done
done
note "done: $results"
