"""The endpoints and unary calls of a Client (client.py): failover over the endpoints and leader-aware routing."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Dict, Optional, Set, TypeVar

import grpc

from regent_client import tls
from regent_client.endpoints import FAILOVER, STUBS, Endpoints, attempt_budget, parse_endpoints
from regent_client.errors import answered_unavailable
from regent_client.keepalive_stream import KeepAliveStream
from regent_client.messages import Messages
from regent_client.namespace import Namespace
from regent_client.routing import LeaderRouting, Metadata

Self = TypeVar("Self", bound="Calls")


class Calls:
    """A Client's channels, one per endpoint, the endpoint calls start at, the routing that names the Raft leader's,
    and the unary call with its failover (Client's docstring: its arguments, the rules of docs/api.md)."""

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

    def _leave_quiet_leader(self) -> None:
        """A call to the leader's endpoint has gone LEADER_QUIET unanswered (routing.py): the leader is suspect, and
        when it is the current endpoint too the calls start at the next one (a frozen node forwards nothing)."""
        idx = self._routing.quiet()
        if idx is not None:
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

    def __enter__(self: Self) -> Self:
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
        self._leave_quiet_leader()
        for i in range(n):
            idx = self.current_endpoint()
            leader = self._routing.leader()
            if i == 0 and to_leader and leader is not None:
                idx = leader
            left = deadline - time.monotonic()
            if left <= 0:
                break
            # only calls that answer promptly: a blocking campaign waits at the leader while its name is held
            ticket = self._routing.sent(idx) if idx == leader and not whole_budget else None
            try:
                return attempt(idx, attempt_budget(left, i, n, whole_budget))
            except grpc.RpcError as e:
                if e.code() not in FAILOVER:
                    raise
                self.move_on(idx, answered_unavailable(e))
                last = e
            finally:
                if ticket is not None:
                    self._routing.done(ticket)
        if last is None:
            raise TimeoutError("no time left for the call")
        raise last

