"""Leader-aware routing (docs/api.md, "Leader-aware routing"): which endpoint calls for the Raft leader start at."""

from __future__ import annotations

import threading
import time
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

Metadata = Optional[Iterable[Tuple[str, str]]]

LEADER_QUIET = 1.0
"""Seconds a call sent to the leader's endpoint may go unanswered before the leader is suspect and the calls that
follow start at the current endpoint (docs/api.md, "Leader-aware routing"; the Java client's LEADER_QUIET_MS)."""


class LeaderRouting:
    """The leader learnt from the leader metadata every reply carries; thread-safe, never blocks on I/O.

    Every reply names its node (regent-node), its term (regent-term), the leader's member id (regent-leader-id)
    and the leader's published API address (regent-leader). The leader of the highest term seen is kept; an
    endpoint reaches it when its last reply came from the leader's member id, or its address is the leader's
    published one. A leader endpoint that just failed is suspect (calls start at the current endpoint) until a
    hint names a newer term or the leader itself answers again. So is a leader with a call unanswered for
    LEADER_QUIET seconds (sent() without done()): quiet() checks it when the next call starts, so no timer runs.
    """

    def __init__(self, endpoints: Sequence[str], clock: Callable[[], float] = time.monotonic) -> None:
        self._endpoints = list(endpoints)
        self._nodes: List[Optional[str]] = [None] * len(endpoints)
        self._term = -1
        self._leader_id: Optional[str] = None
        self._leader_api: Optional[str] = None
        self._suspect = False
        self._clock = clock
        self._waiting: Dict[int, Tuple[int, float]] = {}  # ticket -> (endpoint, sent at): calls to the leader
        self._tickets = 0
        self._lock = threading.Lock()

    def observe(self, idx: int, metadata: Metadata) -> None:
        """Takes the hint of a reply (initial metadata) or refusal (trailers) from endpoint `idx`."""
        # pairs, not dict(metadata): grpc.aio's Metadata has keys() and would be read as a mapping of its own
        md = {k: v for k, v in (metadata or ())}
        try:
            term = int(md["regent-term"])
        except (KeyError, ValueError):
            return
        with self._lock:
            node = md.get("regent-node")
            self._nodes[idx] = node
            if term > self._term:
                self._term, self._suspect = term, False
                self._leader_id, self._leader_api = md.get("regent-leader-id"), md.get("regent-leader")
            elif term == self._term and self._leader_id is None:
                self._leader_id, self._leader_api = md.get("regent-leader-id"), md.get("regent-leader")
            if node is not None and node == self._leader_id:
                self._suspect = False  # the leader itself answers again

    def leader(self) -> Optional[int]:
        """The leader's endpoint index, or None (unknown, reached by no endpoint, or suspect)."""
        with self._lock:
            return self._leader_index()

    def quiet(self) -> Optional[int]:
        """The leader's endpoint when a call to it has gone LEADER_QUIET seconds unanswered, now suspect; else None.
        Each such call counts once: a later answer from the leader ends the suspicion, and the call, still
        waiting, does not raise it again."""
        with self._lock:
            idx = self._leader_index()
            if idx is None:
                return None
            now = self._clock()
            late = [t for t, (i, at) in self._waiting.items() if i == idx and now - at >= LEADER_QUIET]
            for t in late:
                del self._waiting[t]
            if not late:
                return None
            self._suspect = True
            return idx

    def sent(self, idx: int) -> int:
        """A call that answers promptly was sent to the leader's endpoint `idx`; returns its ticket for done().
        Not for calls that may wait long by design (a blocking campaign, a membership change)."""
        with self._lock:
            self._tickets += 1
            self._waiting[self._tickets] = (idx, self._clock())
            return self._tickets

    def done(self, ticket: int) -> None:
        """The call of `ticket` ended, answered or failed."""
        with self._lock:
            self._waiting.pop(ticket, None)

    def _leader_index(self) -> Optional[int]:
        if self._leader_id is None or self._suspect:
            return None
        for i, n in enumerate(self._nodes):
            if n == self._leader_id:
                return i
        if self._leader_api in self._endpoints:
            return self._endpoints.index(self._leader_api)
        return None

    def failed(self, idx: int, node_answered: bool = False) -> None:
        """Endpoint `idx` failed a call: suspect when it is the leader's, unless the node refused by itself
        (`node_answered`: alive and answering, errors.answered_unavailable) — then it stays the leader calls start
        at until a newer term."""
        if not node_answered and self.leader() == idx:
            with self._lock:
                self._suspect = True
