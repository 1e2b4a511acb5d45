#!/usr/bin/env bash
# A 3-node etcd cluster on loopback, for comparing Regent with etcd on the same machine.
#
#   scripts/etcd-cluster.sh up DIR [BASE_PORT]   # installs Debian's etcd-server when missing, starts 3 nodes
#   scripts/etcd-cluster.sh down DIR             # stops exactly the PIDs recorded in DIR/*.pid
#
# Node i (1..3) listens for clients on 127.0.0.1:BASE+i and for peers on 127.0.0.1:BASE+10+i
# (BASE defaults to 23700, away from etcd's own 2379/2380). Data in DIR/e<i>, log in DIR/e<i>.log,
# pid in DIR/e<i>.pid; DIR/endpoints holds the comma-separated client endpoints (host:port).
# Settings are etcd's defaults (heartbeat 100 ms, election 1000 ms, fsync on every commit).
set -euo pipefail

usage() { echo "usage: $0 up DIR [BASE_PORT] | down DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
base=${3:-23700}
nodes=(e1 e2 e3)
# shellcheck source=lib/nodes.sh
. "$(cd "$(dirname "$0")" && pwd)/lib/nodes.sh"

ensure_etcd() {
  if ! command -v etcd >/dev/null 2>&1; then
    echo "etcd not found: installing Debian's etcd-server" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y etcd-server >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y etcd-server >/dev/null; }
  fi
}

up() {
  ensure_etcd
  local cluster="" endpoints="" i=0
  for n in "${nodes[@]}"; do
    i=$((i + 1))
    cluster+="${cluster:+,}$n=http://127.0.0.1:$((base + 10 + i))"
    endpoints+="${endpoints:+,}127.0.0.1:$((base + i))"
  done
  local state=new
  [ -d "$dir/e1/member" ] && state=existing
  i=0
  for n in "${nodes[@]}"; do
    i=$((i + 1))
    node_start "$n" "$dir/$n.pid" "$dir/$n.log" etcd --name "$n" --data-dir "$dir/$n" \
      --listen-client-urls "http://127.0.0.1:$((base + i))" \
      --advertise-client-urls "http://127.0.0.1:$((base + i))" \
      --listen-peer-urls "http://127.0.0.1:$((base + 10 + i))" \
      --initial-advertise-peer-urls "http://127.0.0.1:$((base + 10 + i))" \
      --initial-cluster "$cluster" --initial-cluster-state "$state" \
      --initial-cluster-token "regent-bench-etcd" || continue
    echo "started $n (pid $(cat "$dir/$n.pid")): client 127.0.0.1:$((base + i)), peer 127.0.0.1:$((base + 10 + i)), log $dir/$n.log"
  done
  echo "$endpoints" >"$dir/endpoints"
  local deadline=$((SECONDS + 30))
  until ETCDCTL_API=3 etcdctl --endpoints "$endpoints" endpoint health >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      echo "error: etcd not healthy after 30 s; see $dir/e*.log" >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "etcd ready: $(etcd --version | head -1)"
  echo "$endpoints"
}

down() {
  local n
  for n in "${nodes[@]}"; do
    node_stop "$n" "$dir/$n.pid" "--data-dir $dir/$n"
  done
}

case "$cmd" in
  up) up ;;
  down) down ;;
  *) usage ;;
esac
