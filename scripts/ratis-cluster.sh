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
# shellcheck source=lib/nodes.sh
. "$root/scripts/lib/nodes.sh"

up() {
  [ -f "$jar" ] || { echo "error: $jar missing (mvn -pl cli -am package -DskipTests)" >&2; exit 1; }
  local endpoints=""
  for ((i = 0; i < count; i++)); do endpoints+="${endpoints:+,}127.0.0.1:$((base + 1 + i))"; done
  for ((i = 0; i < count; i++)); do
    local n=n$i
    node_start "$n" "$dir/$n.pid" "$dir/$n.log" \
      java -Xmx512m --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
      -cp "$jar" io.regent.bench.ratis.BareRatisServer "$n" "$dir/$n" "$endpoints" || continue
    echo "started $n (pid $(cat "$dir/$n.pid")): raft 127.0.0.1:$((base + 1 + i)), log $dir/$n.log"
  done
  echo "$endpoints" >"$dir/endpoints"
  echo "$endpoints"
}

down() {
  local f n
  for f in "$dir"/n*.pid; do
    [ -f "$f" ] || continue
    n=$(basename "$f" .pid)
    node_stop "$n" "$f" "BareRatisServer $n $dir/$n"
  done
}

case "$cmd" in
  up) up ;;
  down) down ;;
  *) usage ;;
esac
