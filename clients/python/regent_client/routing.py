"""Leader-aware routing (docs/api.md, "Leader-aware routing"): which endpoint calls for the Raft leader start at."""

from __future__ import annotations

import threading
from typing import Iterable, List, Optional, Sequence, Tuple

Metadata = Optional[Iterable[Tuple[str, str]]]


class LeaderRouting:
    """The leader learnt from the leader metadata every reply carries; thread-safe, never blocks on I/O.

    Every reply names its node (regent-node), its term (regent-term), the leader's member id (regent-leader-id)
    and the leader's published API address (regent-leader). The leader of the highest term seen is kept; an
    endpoint reaches it when its last reply came from the leader's member id, or its address is the leader's
    published one. A leader endpoint that just failed is suspect (calls start at the current endpoint) until a
    hint names a newer term or the leader itself answers again.
    """

    def __init__(self, endpoints: Sequence[str]) -> None:
        self._endpoints = list(endpoints)
        self._nodes: List[Optional[str]] = [None] * len(endpoints)
        self._term = -1
        self._leader_id: Optional[str] = None
        self._leader_api: Optional[str] = None
        self._suspect = False
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
