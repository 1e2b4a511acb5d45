#!/usr/bin/env bash
# A bare-Ratis cluster on loopback: the floor under Regent, for `regent bench --target ratis`.
#
#   scripts/ratis-cluster.sh up DIR [NODES] [BASE_PORT]   # starts NODES (default 3) server JVMs
#   scripts/ratis-cluster.sh down DIR                     # stops exactly the PIDs recorded in DIR/*.pid
#
# Each node is io.regent.bench.ratis.BareRatisServer: a state machine that only counts entries, under the Ratis
# properties a Regent node uses (RaftSetup), in a JVM started like a Regent server's (-Xmx512m). Node n<i>
# (i from 0) serves Raft on 127.0.0.1:BASE+1+i (BASE defaults to 23900); data in DIR/n<i>, log in
# DIR/n<i>.log, pid in DIR/n<i>.pid; DIR/endpoints holds the comma-separated Raft addresses, n0 first.
# REGENT_JAR (default cli/target/regent.jar) holds the class.
set -euo pipefail

usage() { echo "usage: $0 up DIR [NODES] [BASE_PORT] | down DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
count=${3:-3}
base=${4:-23900}
root=$(cd "$(dirname "$0")/.." && pwd)
jar=${REGENT_JAR:-$root/cli/target/regent.jar}

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

up() {
  [ -f "$jar" ] || { echo "error: $jar missing (mvn -pl cli -am package -DskipTests)" >&2; exit 1; }
  local endpoints=""
  for ((i = 0; i < count; i++)); do endpoints+="${endpoints:+,}127.0.0.1:$((base + 1 + i))"; done
  for ((i = 0; i < count; i++)); do
    local n=n$i
    if alive "$dir/$n.pid"; then
      echo "$n already running (pid $(cat "$dir/$n.pid"))" >&2
      continue
    fi
    # setsid: the node outlives this script and gets no signal meant for the caller's terminal.
    setsid java -Xmx512m --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
      -cp "$jar" io.regent.bench.ratis.BareRatisServer "$n" "$dir/$n" "$endpoints" \
      >"$dir/$n.log" 2>&1 </dev/null &
    echo $! >"$dir/$n.pid"
    echo "started $n (pid $!): raft 127.0.0.1:$((base + 1 + i)), log $dir/$n.log"
  done
  echo "$endpoints" >"$dir/endpoints"
  echo "$endpoints"
}

down() {
  for f in "$dir"/n*.pid; do
    [ -f "$f" ] || continue
    local n pid
    n=$(basename "$f" .pid)
    pid=$(cat "$f")
    # Only our own node: the pid must still be a BareRatisServer with this data dir.
    if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "BareRatisServer $n $dir/$n"; then
      kill "$pid"
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
      echo "stopped $n (pid $pid)"
    fi
    rm -f "$f"
  done
}

case "$cmd" in
  up) up ;;
  down) down ;;
  *) usage ;;
esac
