"""Regent's thread client: endpoints with failover and leader-aware routing, leases, elections, locks, observe,
ownership groups.

The client is laid out by job, each class extending the one before: calls.py (endpoints, failover, routing),
leases.py, elections.py (elections, locks, elect/lock), groups.py (ownership groups), and here observe and the
cluster's status.
"""

from __future__ import annotations

from typing import Optional

from regent_client.endpoints import Endpoints
from regent_client.groups import Groups
from regent_client.observe import Observation
from regent_client.v1 import regent_pb2 as pb


class Client(Groups):
    """A client over several endpoints (host:port of any nodes); calls stick to one and move on when it fails.

    Writes, linearizable reads and keepalives start at the Raft leader's endpoint once a reply has named it
    (leader-aware routing, docs/api.md), the other endpoints following as fallback; status() and observe() start at
    the current endpoint. Keepalives travel on one Lease/KeepAliveStream per endpoint, or as unary calls with
    stream_keepalives=False or against a node without the stream.

    timeout: deadline of each call, seconds. Every write carries a request id of its own, the same on each
    re-send (messages.py), so the server applies it once (docs/api.md, "Request ids"); by that section's table
    every call is moved on to the next endpoint after UNAVAILABLE or DEADLINE_EXCEEDED, each attempt but the last
    with at most half the time left — except a blocking campaign or lock, which waits out its whole timeout at one
    endpoint and is moved on from a dead node only (UNAVAILABLE): each send is a new attempt on the server, and a
    cancelled attempt's cleanup touches only its own candidacy (docs/api.md, "Attempts"). Errors are grpc.RpcError
    with the codes of docs/api.md; bad arguments are ValueError or TypeError before anything is sent.

    cacert, cert, key: PEM files for TLS and mutual TLS, defaulting to $REGENT_CACERT, $REGENT_CERT, $REGENT_KEY as
    the regent CLI's --cacert/--cert/--key do (tls.py, docs/security.md); plaintext without a CA certificate.
    namespace: a prefix for every name this client sends, removed from every name it returns (namespace.py).
    """

    def status(self) -> pb.StatusResponse:
        """The answering node's view: node, leader, term, commit_index, applied_index, members, version."""
        return self._call("Cluster", "Status", pb.StatusRequest(), to_leader=False)

    def observe(self, name: str, after: int = 0) -> Observation:
        """The ownership changes of `name` after log index `after` (0: first the current holder), resuming at the
        next endpoint when its stream fails, without a gap or a repeat (observe.py). ValueError for after < 0."""
        return Observation(self, name, after)


def connect(endpoints: Endpoints, timeout: float = 15.0, stream_keepalives: bool = True,
            cacert: Optional[str] = None, cert: Optional[str] = None, key: Optional[str] = None,
            namespace: str = "") -> Client:
    """A Client over `endpoints` ("h1:p1,h2:p2" or a list); TLS and namespace as Client's arguments say."""
    return Client(endpoints, timeout, stream_keepalives, cacert=cacert, cert=cert, key=key, namespace=namespace)
