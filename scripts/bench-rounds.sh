#!/usr/bin/env bash
# Regent against etcd and bare Ratis, the method of docs/performance.md: one target up at a time (each gets the
# whole machine), targets interleaved over ROUNDS rounds, each target measured by one long-lived `regent bench`
# process that first loads it until its throughput stops improving (--settle: the servers' JIT warm-up), then
# runs every point. Results: one JSON line per point in WORK_DIR/results.jsonl (label, round in "label").
#
#   scripts/bench-rounds.sh [WORK_DIR]     (default /tmp/regent-rounds)
#
# Environment: ROUNDS (2), TARGETS ("regent-3 ratis-3 etcd-3"; also regent-5, ratis-5, regentlease-3/-5:
# Regent with `--confirm lease`, and regentnobatch-3/-5: Regent with `--proposal-batch 1`, one entry per
# operation, the A/B of batching; regentstream-N and regentunary-N: Regent's cluster, the bench renewing leases
# one at a time through the Java client on its keepalive streams, or as unary calls; regentetcd-N: Regent's cluster
# measured through its etcd ports by the bench's etcd target, etcd's own recipes over KV), WORKLOADS ("campaign,leader-read,campaign4"), CLIENTS ("1,16,64"),
# TTLS (10s; several, comma-separated: a keepalive ladder, --leases x 3 / TTL renewals per s at each),
# DURATION (6s) and WARMUP (2s) per point, SETTLE_MIN (180s: every fresh cluster is loaded at least this long
# first — on 2 cores a new cluster was still getting faster after 60 s) and SETTLE (240s at most), REGENT_JAR.
# After each target's points, which node led goes into run.log. Stops only the processes it started
# (their DIR/*.pid).
#
# A/B and the A-vs-A control: a target may name a build, KIND-N@BUILD, whose servers run JAR_<BUILD> (default
# REGENT_JAR) with JAVA_TOOL_OPTIONS=OPTS_<BUILD> (e.g. -Draft.server.log.appender.wait-time.min=0ms, which Regent
# and scripts/ratis-cluster.sh pass to Ratis). Two tags of one jar, say regent-3@A regent-3@B regent-3@A2 with
# JAR_A2=JAR_A, give the noise next to the A/B. The load generator is always REGENT_JAR's bench. Hypervisor steal
# over each target's points (/proc/stat) goes into run.log and WORK_DIR/steal.jsonl.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mkdir -p "${1:-/tmp/regent-rounds}" && cd "${1:-/tmp/regent-rounds}" && pwd)
jar=${REGENT_JAR:-$root/cli/target/regent.jar}
rounds=${ROUNDS:-2}
targets=${TARGETS:-regent-3 ratis-3 etcd-3}
workloads=${WORKLOADS:-campaign,leader-read,campaign4}
clients=${CLIENTS:-1,16,64}
ttls=${TTLS:-10s}
duration=${DURATION:-6s}
warmup=${WARMUP:-2s}
settle=${SETTLE:-240s}
settle_min=${SETTLE_MIN:-180s}
results=$work/results.jsonl
opens=(--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED)
note() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$work/run.log" >&2; }

# steal ticks and all ticks of the machine so far, from /proc/stat's cpu line
ticks() { awk '/^cpu /{t=0; for (i = 2; i <= NF; i++) t += $i; print $9, t}' /proc/stat; }

up() { # TARGET DIR -> prints endpoints
  local kind=${1%-*} n=${1##*-}
  case $kind in
    regent|regentstream|regentunary) java "${opens[@]}" -jar "$jar" cluster up --dir "$2" --nodes "$n" --base-port 27000 >&2
            cat "$2/endpoints" ;;
    regentetcd) java "${opens[@]}" -jar "$jar" cluster up --dir "$2" --nodes "$n" --base-port 27000 >&2
            cat "$2/etcd-endpoints" ;;
    regentlease) java "${opens[@]}" -jar "$jar" cluster up --dir "$2" --nodes "$n" --base-port 27000 \
            --confirm lease >&2
            cat "$2/endpoints" ;;
    regentnobatch) java "${opens[@]}" -jar "$jar" cluster up --dir "$2" --nodes "$n" --base-port 27000 \
            --proposal-batch 1 >&2
            cat "$2/endpoints" ;;
    ratis) REGENT_JAR=$jar "$root/scripts/ratis-cluster.sh" up "$2" "$n" >&2; sleep 3; cat "$2/endpoints" ;;
    etcd) "$root/scripts/etcd-cluster.sh" up "$2" >&2; cat "$2/endpoints" ;;
  esac
}
down() {
  case ${1%-*} in
    regent|regentlease|regentnobatch|regentstream|regentunary|regentetcd) java "${opens[@]}" -jar "$jar" cluster down --dir "$2" >&2 || true ;;
    ratis) "$root/scripts/ratis-cluster.sh" down "$2" >&2 ;;
    etcd) "$root/scripts/etcd-cluster.sh" down "$2" >&2 ;;
  esac
}

for ((r = 1; r <= rounds; r++)); do
  for tb in $targets; do
    t=${tb%@*}
    build=; [[ $tb == *@* ]] && build=${tb#*@}
    jar_var=JAR_$build opts_var=OPTS_$build
    dir=$work/r$r-$tb
    rm -rf "$dir"
    note "round $r: $tb up (jar ${!jar_var:-$jar}, JAVA_TOOL_OPTIONS '${!opts_var:-}')"
    endpoints=$(jar=${!jar_var:-$jar} JAVA_TOOL_OPTIONS=${!opts_var:-} up "$t" "$dir" | tail -1)
    read -r steal0 total0 < <(ticks)
    note "round $r: $t $workloads x clients $clients (settle up to $settle)"
    kind=${t%-*}
    kind=${kind%lease}
    kind=${kind%nobatch}
    [[ $kind == regentetcd ]] && kind=etcd  # the bench's etcd target, on Regent's etcd ports
    java "${opens[@]}" -jar "$jar" bench --target "$kind" --endpoints "$endpoints" --workload "$workloads" \
      --clients "$clients" --ttl "$ttls" --duration "$duration" --warmup "$warmup" --settle "$settle" --settle-min "$settle_min" \
      --pid-dir "$dir" --label "$tb-r$r" --quiet -w json >>"$results" 2>>"$work/run.log" || note "bench failed: $tb"
    read -r steal1 total1 < <(ticks)
    steal=$(awk -v s=$((steal1 - steal0)) -v t=$((total1 - total0)) 'BEGIN { printf "%.2f", t ? 100 * s / t : 0 }')
    note "round $r: $tb steal ${steal}% of the machine's CPU time over its settle and points"
    echo "{\"label\":\"$tb-r$r\",\"steal_pct\":$steal}" >>"$work/steal.jsonl"
    case $t in
      regent*) note "round $r: $tb led by: $(java "${opens[@]}" -jar "$jar" status --endpoints "$(cat "$dir/endpoints")" \
                2>&1 | tr '\n' ' ')" ;;
      etcd-*) for ep in ${endpoints//,/ }; do # etcd's own gauge on its client port (etcdctl may be missing)
              note "round $r: $t $ep $(curl -s "http://$ep/metrics" | grep '^etcd_server_is_leader' || echo '?')"
            done ;;
    esac
    jar=${!jar_var:-$jar} down "$t" "$dir"
  done
done
note "done: $results"
