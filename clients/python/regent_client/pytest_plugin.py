"""pytest's regent_cluster fixture: one local Regent cluster for the whole test session (testing.py).

Installing regent-client registers it with pytest (entry point pytest11), so a test only names it:

    def test_jobs_run_once(regent_cluster):
        with regent_client.connect(regent_cluster.endpoints) as c:
            ...

It starts a 3-node cluster from the Regent jar ($REGENT_JAR, else `regent` on the PATH) before the first test that
asks for it and stops it after the last test, or uses the cluster $REGENT_ENDPOINTS names (nothing started).
Tests share it: give each its own names.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from regent_client.testing import LocalCluster, start_cluster


@pytest.fixture(scope="session")
def regent_cluster() -> Iterator[LocalCluster]:
    """The session's LocalCluster (its `endpoints`), stopped at the session's end when it was started here."""
    with start_cluster() as cluster:
        yield cluster
