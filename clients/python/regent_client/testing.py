"""A local Regent cluster for a user's own tests, started from the Regent jar and stopped after, or an existing one.

    from regent_client import connect, testing

    with testing.start_cluster() as cluster:   # or pytest's regent_cluster fixture (pytest_plugin.py)
        with connect(cluster.endpoints) as c:
            ...

start_cluster() runs `regent cluster up --nodes N --dir DIR --base-port P` (docs/cli.md) in a new temporary
directory, with the Regent jar ($REGENT_JAR, run with `java -jar`: java from $JAVA_HOME, else the PATH) or else the
`regent` command on the PATH, on free ports, and waits until every node has published its API address (the client
routes by it). stop() runs `regent cluster down --dir DIR` (the nodes' pid files when that fails) and removes the
directory. When $REGENT_ENDPOINTS names an existing cluster's endpoints ("h1:p1,h2:p2"), that cluster is used
instead: nothing is started or stopped (a CI job's cluster, or one kept running between runs).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from typing import List, Optional

import grpc

from regent_client.client import connect

ENDPOINTS_ENV = "REGENT_ENDPOINTS"  # an existing cluster's endpoints: used instead of starting one
JAR_ENV = "REGENT_JAR"  # the Regent jar (cli/target/regent.jar of a build, or a release's)
READY_TIMEOUT = 60.0  # seconds: how long after `cluster up` every node may take to publish its API address


class LocalCluster:
    """A cluster for tests: `endpoints` ("h1:p1,h2:p2,h3:p3"); `directory`, for one this process started, is the
    cluster's directory (`regent cluster up --dir`: the nodes' data, logs n<i>.log and pid files n<i>.pid, read
    them after a failure before stop()), and None for an existing cluster. A context manager whose exit stops what
    was started."""

    def __init__(self, endpoints: str, root: Optional[str] = None, command: Optional[List[str]] = None) -> None:
        self.endpoints = endpoints
        self.directory = None if root is None else os.path.join(root, "cluster")
        self._root = root  # the temporary directory around it, removed by stop()
        self._command = command

    @property
    def started(self) -> bool:
        """Whether this process started the cluster (and stop() stops it)."""
        return self._command is not None

    def stop(self) -> None:
        """Stops the nodes this process started (SIGTERM, then SIGKILL, as `regent cluster down`) and removes
        their directory; nothing for an existing cluster. Idempotent."""
        directory, root, self._root = self.directory, self._root, None
        if directory is None or root is None or self._command is None:
            return
        try:
            down = subprocess.run(self._command + ["cluster", "down", "--dir", directory], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=120)
            if down.returncode != 0:
                _kill_nodes(directory)
        except (OSError, subprocess.TimeoutExpired):
            _kill_nodes(directory)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    def __enter__(self) -> "LocalCluster":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def regent_command(jar: Optional[str] = None) -> List[str]:
    """How to run `regent`: `java -jar JAR` for `jar` or $REGENT_JAR, else the `regent` on the PATH. RuntimeError
    when there is neither."""
    jar = jar or os.environ.get(JAR_ENV)
    if jar:
        if not os.path.isfile(jar):
            raise RuntimeError("%s=%s: no such file (the Regent jar, e.g. cli/target/regent.jar)" % (JAR_ENV, jar))
        home = os.environ.get("JAVA_HOME")
        return [os.path.join(home, "bin", "java") if home else "java", "-jar", jar]
    found = shutil.which("regent")
    if found is None:
        raise RuntimeError("no Regent to start a cluster with: set %s to the Regent jar, put `regent` on the PATH, "
                           "or set %s to an existing cluster's endpoints" % (JAR_ENV, ENDPOINTS_ENV))
    return [found]


def start_cluster(nodes: int = 3, jar: Optional[str] = None, timeout: float = 180.0) -> LocalCluster:
    """The cluster $REGENT_ENDPOINTS names, or a new local one of `nodes` (3 or 5) nodes started from `jar` (see
    regent_command) within `timeout` seconds. RuntimeError, with `cluster up`'s output, when it does not start
    (whatever it started is stopped); ValueError for another node count."""
    existing = os.environ.get(ENDPOINTS_ENV, "").strip()
    if existing:
        return LocalCluster(existing)
    if nodes not in (3, 5):
        raise ValueError("nodes must be 3 or 5, not %r" % (nodes,))
    command = regent_command(jar)
    root = tempfile.mkdtemp(prefix="regent-cluster-")
    cluster = LocalCluster("", root, command)
    try:
        up = subprocess.run(command + ["cluster", "up", "--nodes", str(nodes), "--dir", os.path.join(root, "cluster"),
                                       "--base-port", str(_free_base_port(nodes))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
        if up.returncode != 0:
            raise RuntimeError("regent cluster up failed (exit %d): %s" % (up.returncode, up.stderr.strip()))
        cluster.endpoints = up.stdout.strip().splitlines()[-1]  # its one line on standard output
        _wait_until_published(cluster.endpoints, nodes)
        return cluster
    except BaseException:
        cluster.stop()
        raise


def _free_base_port(nodes: int) -> int:
    """A base port P whose node ports (P+i, P+100+i, P+200+i, P+300+i for i in 1..nodes: Raft, API, metrics,
    etcd-compatible) are all free now, within 12000..26800: below Linux's ephemeral ports (32768..60999 by default),
    which any outgoing connection may take between this check and the nodes' binding, and below the cli module's
    tests' blocks (27000 on)."""
    for _ in range(50):
        base = 12000 + 400 * random.randrange(37)
        ports = [base + offset + i for offset in (0, 100, 200, 300) for i in range(1, nodes + 1)]
        if all(_port_free(p) for p in ports):
            return base
    raise RuntimeError("no free base port between 12000 and 26800")


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def _wait_until_published(endpoints: str, nodes: int) -> None:
    """Polls Cluster.Status (a deadline-bounded wait) until a leader is known and all `nodes` members have
    published their API addresses: `cluster up` returns at the first leader, before every node may have."""
    deadline = time.monotonic() + READY_TIMEOUT
    with connect(endpoints, timeout=5.0) as client:
        while True:
            try:
                s = client.status()
                if s.leader and len(s.members) == nodes and all(m.api_address for m in s.members):
                    return
            except grpc.RpcError:
                pass  # no leader yet: ask again
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster at %s did not publish %d API addresses within %.0f s"
                                   % (endpoints, nodes, READY_TIMEOUT))
            time.sleep(0.05)  # the poll interval of a deadline-bounded wait


def _kill_nodes(directory: str) -> None:
    """SIGKILLs the nodes by their pid files (DIR/n<i>.pid): `cluster down` could not stop them."""
    if not os.path.isdir(directory):
        return
    for name in os.listdir(directory):
        if name.endswith(".pid"):
            try:
                with open(os.path.join(directory, name)) as f:
                    os.kill(int(f.read().strip()), signal.SIGKILL)
            except (OSError, ValueError):
                pass  # gone already
