"""Regent's thread client: endpoints with failover and leader-aware routing, leases, elections, locks, observe.

elect() and lock() keep their lease on a thread by the rule of docs/architecture.md §3.6 (lease_validity.py).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Any, Callable, Dict, Optional, Set

import grpc

from regent_client import tls
from regent_client.endpoints import FAILOVER, STUBS, Endpoints, attempt_budget, parse_endpoints
from regent_client.errors import answered_unavailable
from regent_client.holder import Leadership
from regent_client.keeper import Callback, LeaseKeeper
from regent_client.keepalive_stream import KeepAliveStream
from regent_client.messages import HOLD_RPCS, Bytes, Messages
from regent_client.namespace import Namespace
from regent_client.observe import Observation
from regent_client.ownership import OnAssigned, OnReason, OnResumed, OnRevoked, Ownership
from regent_client.routing import LeaderRouting, Metadata
from regent_client.v1 import group_pb2 as gpb
from regent_client.v1 import regent_pb2 as pb

DEFAULT_TTL = 10.0  # seconds: lease TTL of elect() and lock() without one (as `regent elect --ttl`)
CAMPAIGN_TIMEOUT = 3600.0  # seconds: how long elect(), lock() and campaign() wait by default


def default_owner() -> str:
    """host:pid, what a lock publishes as its owner unless told (as `regent lock` does)."""
    return "%s:%d" % (socket.gethostname(), os.getpid())


class Client:
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

    def __init__(self, endpoints: Endpoints, timeout: float = 15.0, stream_keepalives: bool = True,
                 cacert: Optional[str] = None, cert: Optional[str] = None, key: Optional[str] = None,
                 namespace: str = "") -> None:
        self.endpoints = parse_endpoints(endpoints)
        self.timeout = timeout
        self.ns = Namespace(namespace)
        self._msg = Messages(self.ns)
        creds = tls.credentials(cacert, cert, key)
        self._channels = [tls.channel(e, creds) for e in self.endpoints]
        self._current = 0
        self._lock = threading.Lock()
        self._routing = LeaderRouting(self.endpoints)
        self._streams: Optional[Dict[int, KeepAliveStream]] = {} if stream_keepalives else None
        self._unary: Set[int] = set()  # endpoints whose node lacks the stream

    # ---- endpoints (also what observe() uses) ----

    def leader_endpoint(self) -> Optional[str]:
        """The endpoint calls for the Raft leader go to now, or None when no reply has named one reachable."""
        idx = self._routing.leader()
        return None if idx is None else self.endpoints[idx]

    def current_endpoint(self) -> int:
        """The index of the endpoint calls not routed to the leader start at."""
        with self._lock:
            return self._current

    def channel(self, idx: int) -> grpc.Channel:
        """The channel of endpoint `idx`."""
        return self._channels[idx]

    def hint(self, idx: int, metadata: Metadata) -> None:
        """Takes the leader hint of a reply or refusal from endpoint `idx`."""
        self._routing.observe(idx, metadata)

    def move_on(self, idx: int, node_answered: bool = False) -> None:
        """Endpoint `idx` failed: the next call starts at the following one (the routing: LeaderRouting.failed)."""
        self._routing.failed(idx, node_answered)
        with self._lock:
            if self._current == idx:
                self._current = (idx + 1) % len(self._channels)

    def close(self) -> None:
        """Closes every stream and channel; calls in flight fail."""
        with self._lock:
            streams = list((self._streams or {}).values())
        for s in streams:
            s.close()
        for ch in self._channels:
            ch.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- calls ----

    def _call(self, service: str, method: str, request: Any, timeout: Optional[float] = None,
              to_leader: bool = True, whole_budget: bool = False) -> Any:
        """Calls `service`.`method` from the leader's endpoint (or the current) on; every re-send is `request`
        itself, request id included."""
        return self._failover(self._attempt(service, method, request), timeout, to_leader, whole_budget)

    def _attempt(self, service: str, method: str, request: Any) -> Callable[[int, float], Any]:
        """attempt(endpoint index, seconds left): one call there, its reply's leader hint taken."""

        def attempt(idx: int, left: float) -> Any:
            try:
                response, call = getattr(STUBS[service](self._channels[idx]), method).with_call(request, timeout=left)
            except grpc.RpcError as e:
                self.hint(idx, e.trailing_metadata())
                raise
            self.hint(idx, call.initial_metadata())
            return response

        return attempt

    def _failover(self, attempt: Callable[[int, float], Any], timeout: Optional[float], to_leader: bool,
                  whole_budget: bool = False) -> Any:
        """Runs attempt(endpoint index, seconds left) from the first endpoint on, moving on after UNAVAILABLE or
        DEADLINE_EXCEEDED. Each attempt but the last gets at most half of the time left, so that a hung node leaves
        the others time to answer (as the Java client does) — all of it with whole_budget."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        last: Optional[grpc.RpcError] = None
        n = len(self._channels)
        for i in range(n):
            idx = self.current_endpoint()
            leader = self._routing.leader()
            if i == 0 and to_leader and leader is not None:
                idx = leader
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                return attempt(idx, attempt_budget(left, i, n, whole_budget))
            except grpc.RpcError as e:
                if e.code() not in FAILOVER:
                    raise
                self.move_on(idx, answered_unavailable(e))
                last = e
        if last is None:
            raise TimeoutError("no time left for the call")
        raise last

    # ---- leases ----

    def grant(self, ttl: float) -> int:
        """Grants a lease of `ttl` seconds; its id. Re-sent with one request id: a grant that applied before its
        answer was lost answers with its lease, never a second one. INVALID_ARGUMENT for a TTL out of the cluster's
        range (docs/api.md, "Lease"); ValueError for one <= 0."""
        return self._call("Lease", "Grant", self._msg.grant(ttl)).id

    def keep_alive(self, lease: int, timeout: float) -> int:
        """Renews a lease within `timeout` seconds; its TTL, ms. NOT_FOUND once it is gone."""
        return self.keep_alive_answer(lease, timeout).ttl_ms

    def keep_alive_answer(self, lease: int, timeout: float) -> pb.LeaseKeepAliveResponse:
        """keep_alive() with the whole LeaseKeepAliveResponse: the TTL and the answering node's clock reading."""
        unary = self._attempt("Lease", "KeepAlive", pb.LeaseKeepAliveRequest(id=lease))
        if self._streams is None:
            return self._failover(unary, timeout, True)
        streams: Dict[int, KeepAliveStream] = self._streams

        def attempt(idx: int, left: float) -> pb.LeaseKeepAliveResponse:
            if idx in self._unary:
                return unary(idx, left)
            with self._lock:
                stream = streams.get(idx)
                if stream is None or stream.failed():
                    stream = KeepAliveStream(self._channels[idx], lambda md: self.hint(idx, md))
                    streams[idx] = stream
            try:
                return stream.keep_alive(lease, left)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNIMPLEMENTED:
                    raise
                self._unary.add(idx)  # a node of an older version: unary calls from now on
                return unary(idx, left)

        return self._failover(attempt, timeout, True)

    def revoke(self, lease: int) -> None:
        """Revokes a lease, freeing every name it holds. NOT_FOUND when it is gone already."""
        self._call("Lease", "Revoke", self._msg.revoke(lease))

    def time_to_live(self, lease: int) -> pb.LeaseTimeToLiveResponse:
        """A lease's TTL, ms, what is left of it (remaining_ms) and the names it holds. NOT_FOUND when gone."""
        return self._call("Lease", "TimeToLive", self._msg.time_to_live(lease))

    # ---- elections and locks ----

    def campaign(self, name: str, lease: int, value: Bytes = b"", timeout: float = CAMPAIGN_TIMEOUT,
                 lock_delay: float = 0.0) -> pb.LeaderKey:
        """Blocks until `lease` holds `name` (at most `timeout` s: then DEADLINE_EXCEEDED and the server withdraws
        the candidacy); the LeaderKey (name, value, token, lease). NOT_FOUND when the lease ends first.
        lock_delay: seconds (0..3600) nobody may take the name should this lease expire holding it."""
        request = self._msg.campaign(name, lease, value, lock_delay)
        answer = self._call("Election", "Campaign", request, timeout=timeout, whole_budget=True)
        return self.ns.key_out(answer.leader)

    def lock_with_lease(self, name: str, lease: int, owner: Bytes, timeout: float = CAMPAIGN_TIMEOUT,
                        lock_delay: float = 0.0) -> pb.LeaderKey:
        """Blocks until `lease` holds lock `name` (Lock.Lock; as campaign(): timeout, errors, re-sends)."""
        request = self._msg.lock(name, lease, owner, lock_delay)
        answer = self._call("Lock", "Lock", request, timeout=timeout, whole_budget=True)
        return self.ns.key_out(answer.key)

    def proclaim(self, key: pb.LeaderKey, value: Bytes) -> pb.LeaderKey:
        """Replaces the holder's value; the new key (same token). FAILED_PRECONDITION when `key` no longer holds."""
        return self.ns.key_out(self._call("Election", "Proclaim", self._msg.proclaim(key, value)).leader)

    def resign(self, key: pb.LeaderKey, revoke_lease: bool = False) -> None:
        """Gives the name up (with revoke_lease, ends the lease in the same entry); FAILED_PRECONDITION when `key`
        no longer holds it, and nothing changes."""
        self._call("Election", "Resign", self._msg.resign(key, revoke_lease))

    def unlock(self, key: pb.LeaderKey, revoke_lease: bool = False) -> None:
        """Releases the lock held with `key` (revoke_lease: and its lease); FAILED_PRECONDITION when not the owner."""
        self._call("Lock", "Unlock", self._msg.unlock(key, revoke_lease))

    def leader(self, name: str, serializable: bool = False) -> Optional[pb.LeaderKey]:
        """The current holder of `name` (a LeaderKey), read linearizably (serializable: the answering node's own,
        possibly stale, state); None when free."""
        try:
            answer = self._call("Election", "Leader", self._msg.leader(name, serializable), to_leader=not serializable)
            return self.ns.key_out(answer.leader)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise

    def status(self) -> pb.StatusResponse:
        """The answering node's view: node, leader, term, commit_index, applied_index, members, version."""
        return self._call("Cluster", "Status", pb.StatusRequest(), to_leader=False)

    def observe(self, name: str, after: int = 0) -> Observation:
        """The ownership changes of `name` after log index `after` (0: first the current holder), resuming at the
        next endpoint when its stream fails, without a gap or a repeat (observe.py). ValueError for after < 0."""
        return Observation(self, name, after)

    def elect(self, name: str, ttl: float = DEFAULT_TTL, value: Bytes = b"", timeout: float = CAMPAIGN_TIMEOUT,
              on_lost: Callback = None, on_suspended: Callback = None, on_resumed: Callback = None,
              suspend: bool = False, grace: Optional[float] = None, lock_delay: float = 0.0) -> Leadership:
        """Grants a lease of `ttl` s, keeps it alive on a thread, campaigns for `name` and returns the Leadership
        (a context manager whose exit resigns and revokes the lease) once elected.

        The holder must stop acting once valid() is False: 2/3 ttl without an acknowledged keepalive, the lease
        gone, or this process's clock running slow against the node's (docs/architecture.md §3.6). on_lost(reason)
        is called once then. With suspend=True the deadline only suspends (on_suspended(reason)); a renewal in time
        resumes (on_resumed(None)), and it is lost after ttl + grace s (keeper.py). When the campaign fails (its
        timeout, DEADLINE_EXCEEDED; the lease lost, NOT_FOUND) the lease is revoked and the error raised.
        """
        return self._hold("election", name, ttl, value, timeout, lock_delay,
                          dict(on_lost=on_lost, on_suspended=on_suspended, on_resumed=on_resumed, suspend=suspend,
                               grace=grace))

    def lock(self, name: str, ttl: float = DEFAULT_TTL, owner: Optional[Bytes] = None,
             timeout: float = CAMPAIGN_TIMEOUT, on_lost: Callback = None, on_suspended: Callback = None,
             on_resumed: Callback = None, suspend: bool = False, grace: Optional[float] = None,
             lock_delay: float = 0.0) -> Leadership:
        """elect() for a lock (Lock.Lock, docs/api.md "Lock"): blocks until held, publishing `owner` (default
        host:pid); the Leadership's token fences the resource. Releasing (close(), or leaving the `with` block)
        unlocks and revokes the lease in one entry."""
        return self._hold("lock", name, ttl, default_owner() if owner is None else owner, timeout, lock_delay,
                          dict(on_lost=on_lost, on_suspended=on_suspended, on_resumed=on_resumed, suspend=suspend,
                               grace=grace))

    # ---- ownership groups (docs/ownership.md) ----

    def join_group(self, group: str, member: str, partitions: int = 0, ttl: float = DEFAULT_TTL,
                   on_assigned: OnAssigned = None, on_revoked: OnRevoked = None, on_step_down: OnReason = None,
                   on_suspended: OnReason = None, on_resumed: OnResumed = None, suspend: bool = False,
                   grace: Optional[float] = None) -> Ownership:
        """Joins `group` as `member` (1..128 bytes) with a new lease of `ttl` s, granted in the join's own entry and
        kept alive on a thread, creating the group with `partitions` (1..65 536; 0 joins an existing one), and
        follows the member's assignment: an Ownership, whose callbacks (ownership.py) tell each partition
        assigned with its fencing token and each revoked. Errors of Group.Join (docs/ownership.md, "API"):
        FAILED_PRECONDITION for another partition count than the group's or the member id held by another lease,
        NOT_FOUND for a new group with partitions 0, INVALID_ARGUMENT for a bad name or TTL; ValueError or
        TypeError before anything is sent."""
        return Ownership(self, group, member, partitions, ttl, on_assigned=on_assigned, on_revoked=on_revoked,
                         on_step_down=on_step_down, on_suspended=on_suspended, on_resumed=on_resumed,
                         suspend=suspend, grace=grace)

    def group_status(self, group: str, serializable: bool = False) -> gpb.GroupStatusResponse:
        """A group's whole assignment: partitions, members, each partition's owner and token (and `next` member
        while a move waits for its release), read linearizably unless serializable. NOT_FOUND for no such group."""
        answer = self._call("Group", "Status", self._msg.group_status(group, serializable), to_leader=not serializable)
        answer.group = group
        return answer

    def _hold(self, kind: str, name: str, ttl: float, value: Bytes, timeout: float, lock_delay: float,
              keeper_options: Dict[str, Any]) -> Leadership:
        request = self._msg.hold(kind, name, value, lock_delay)
        grant = self._msg.grant(ttl)
        sent = time.monotonic()
        lease = self._call("Lease", "Grant", grant).id
        keeper = LeaseKeeper(self, lease, ttl, sent, **keeper_options)
        request.lease = lease
        service, method, field = HOLD_RPCS[kind]
        try:
            key = getattr(self._call(service, method, request, timeout=timeout, whole_budget=True), field)
        except BaseException:
            keeper.stop()
            try:
                self.revoke(lease)  # frees the name should the campaign have won as its deadline passed
            except grpc.RpcError:
                pass  # no quorum: the lease expires one TTL after its last renewal
            raise
        return Leadership(self, keeper, self.ns.key_out(key), kind)


def connect(endpoints: Endpoints, timeout: float = 15.0, stream_keepalives: bool = True,
            cacert: Optional[str] = None, cert: Optional[str] = None, key: Optional[str] = None,
            namespace: str = "") -> Client:
    """A Client over `endpoints` ("h1:p1,h2:p2" or a list); TLS and namespace as Client's arguments say."""
    return Client(endpoints, timeout, stream_keepalives, cacert=cacert, cert=cert, key=key, namespace=namespace)
