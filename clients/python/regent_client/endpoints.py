"""Where the thread and asyncio clients send calls: the endpoint list, the services' stubs, the failover codes."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence, Union

import grpc

from regent_client.v1 import group_pb2_grpc as group_rpc
from regent_client.v1 import regent_pb2_grpc as rpc

# Status codes after which a call is tried at the next endpoint: every call of these clients is safe to repeat
# (docs/api.md, "Request ids": reads, keepalives, and every write with its request id).
FAILOVER = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
MIN_ATTEMPT = 0.05  # seconds: the shortest deadline of one attempt when others may follow
STUBS: Dict[str, Callable[[Any], Any]] = {
    "Lease": rpc.LeaseStub, "Election": rpc.ElectionStub, "Lock": rpc.LockStub, "Cluster": rpc.ClusterStub,
    "Group": group_rpc.GroupStub}
Endpoints = Union[str, Sequence[str]]


def parse_endpoints(endpoints: Endpoints) -> List[str]:
    """"h1:p1,h2:p2" or a list of host:port; ValueError for none."""
    if isinstance(endpoints, str):
        endpoints = [e.strip() for e in endpoints.split(",")]
    out = [e for e in endpoints if e]
    if not out:
        raise ValueError("at least one endpoint (host:port) is required")
    return out


def attempt_budget(left: float, attempt: int, endpoints: int, whole_budget: bool) -> float:
    """Seconds attempt number `attempt` (from 0) of `endpoints` may take of the `left` of a call: at most half,
    so that a hung node leaves the others time to answer (as the Java client), except for the last attempt and a
    blocking campaign or lock (whole_budget), which is moved on from a dead node only (docs/api.md, "Attempts")."""
    if attempt < endpoints - 1 and not whole_budget:
        return max(MIN_ATTEMPT, left / 2)
    return left
