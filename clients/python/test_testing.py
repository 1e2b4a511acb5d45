"""The regent_cluster fixture starting and stopping a cluster of its own: python3 -m pytest test_testing.py, with
$REGENT_ENDPOINTS unset and the Regent jar in $REGENT_JAR (or `regent` on the PATH).

Run by the cli module's PythonClientTest, the one place that pays for a cluster start to test the fixture; it
writes the cluster's directory and the nodes' pids to $REGENT_FIXTURE_REPORT, so that PythonClientTest can check
that they are gone once pytest has ended (the fixture's stop).
"""

import os

from regent_client import connect


def test_the_fixture_starts_a_cluster_of_three_nodes_that_serves(regent_cluster):
    assert regent_cluster.started
    with connect(regent_cluster.endpoints) as c:
        s = c.status()
        assert len(s.members) == 3 and all(m.api_address for m in s.members)
        lease = c.grant(3.0)
        c.revoke(lease)
    cluster = regent_cluster.directory
    pids = [open(os.path.join(cluster, f)).read().strip() for f in sorted(os.listdir(cluster)) if f.endswith(".pid")]
    assert len(pids) == 3, os.listdir(cluster)
    with open(os.environ["REGENT_FIXTURE_REPORT"], "w") as f:
        f.write("\n".join([regent_cluster.directory] + pids) + "\n")


def test_later_tests_of_the_session_get_the_same_cluster(regent_cluster):
    assert regent_cluster.started
    with connect(regent_cluster.endpoints) as c:
        assert c.leader("py-fixture-free") is None
