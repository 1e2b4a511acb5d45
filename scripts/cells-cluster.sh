# Sourced by scripts/cells-flood.sh and scripts/cells-cpu.sh: the fresh cluster each of their measurements starts.
# Needs $root, $regent and $base. Builds once first, so that bin/regent does not rebuild itself between two bench
# processes; a failed step (set -e) still stops the cluster it started, and only that one.
(cd "$root" && mvn -B -q -o install -DskipTests)
dir=""
trap '[ -z "$dir" ] || "$regent" cluster down --dir "$dir" > /dev/null 2>&1 || true' EXIT

# cells_cluster_up CELLS DIR: a fresh 3-node `regent cluster up --cells CELLS` in DIR (removed first), on $base
cells_cluster_up() {
  dir=$2
  rm -rf "$dir"
  "$regent" cluster up --cells "$1" --dir "$dir" --base-port "$base" > "$dir.up" 2>&1 \
    || { echo "cells=$1: cluster up failed:"; tail -3 "$dir.up"; exit 1; }
}

# cells_cluster_down: stops the cluster (`regent cluster down`: only its own PIDs) and removes its directory
cells_cluster_down() {
  "$regent" cluster down --dir "$dir" > /dev/null
  rm -rf "$dir" "$dir.up"
  dir=""
}
