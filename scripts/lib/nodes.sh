# Sourced by the scripts that run a local cluster of other servers (ratis-cluster.sh, etcd-cluster.sh): each
# node is one detached process with its pid in a file, and `down` stops exactly the recorded pids.

# node_alive PIDFILE: whether the process recorded in PIDFILE runs.
node_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# node_start NAME PIDFILE LOG COMMAND...: runs COMMAND detached, output in LOG, pid in PIDFILE; fails (after
# saying so on stderr) when the process PIDFILE records still runs.
node_start() {
  local name=$1 pidfile=$2 log=$3
  shift 3
  if node_alive "$pidfile"; then
    echo "$name already running (pid $(cat "$pidfile"))" >&2
    return 1
  fi
  # setsid: the node outlives the calling script and gets no signal meant for the caller's terminal.
  setsid "$@" >"$log" 2>&1 </dev/null &
  echo $! >"$pidfile"
}

# node_stop NAME PIDFILE MARK: stops the process PIDFILE records if its command line still contains MARK (a
# pid reused by another process is left alone): SIGTERM, up to 5 s, then SIGKILL. Removes PIDFILE.
node_stop() {
  local name=$1 pidfile=$2 mark=$3 pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$mark"; then
    kill "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    echo "stopped $name (pid $pid)"
  fi
  rm -f "$pidfile"
}
