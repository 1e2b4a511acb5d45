#!/usr/bin/env bash
# Before/after comparison of two Regent builds: a 3-node cluster of each, side by side, measured by the same
# load generator with the points interleaved, so that outside load hits both alike.
#   scripts/ab-builds.sh BEFORE_JAR AFTER_JAR [WORK_DIR]    (jars: cli/target/regent.jar of each build)
# Environment: DURATION (10s) per point. Writes WORK_DIR/results.jsonl (labels "before", "after").
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_JAR AFTER_JAR [WORK_DIR]" >&2; exit 2; }
declare -A jar=([before]=$1 [after]=$2)
out=${3:-/tmp/regent-ab}
rm -rf "$out" && mkdir -p "$out"
trap 'for t in before after; do java -jar "${jar[$t]}" cluster down --dir "$out/$t" >/dev/null 2>&1 || true; done' EXIT
java -jar "${jar[before]}" cluster up --dir "$out/before" --base-port 27100 >&2
java -jar "${jar[after]}" cluster up --dir "$out/after" --base-port 28100 >&2
for point in "campaign 1" "leader-read 1" "campaign 16" "leader-read 16" "campaign 64" "leader-read 64"; do
  read -r w c <<<"$point"
  for t in before after; do
    java -jar "${jar[after]}" bench --target regent --endpoints "$(cat "$out/$t/endpoints")" --workload "$w" \
      --clients "$c" --duration "${DURATION:-10s}" --warmup 2s --label "$t" -w json 2>/dev/null \
      | tee -a "$out/results.jsonl"
  done
done
