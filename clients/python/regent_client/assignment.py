"""What one member of an ownership group owns and must do about each Watch message (docs/ownership.md), for the
thread (ownership.py) and asyncio (aio_ownership.py) members alike; no I/O here.

Each GroupWatchResponse is the member's whole assignment as of its index. The member stops acting on a partition
(revoke) before it releases it, and acts on a partition (assign) only while its lease is vouched for — the order
of the Java PartitionOwnership.
"""

from __future__ import annotations

import threading
from typing import Dict, List, NamedTuple, Optional

from regent_client.v1 import group_pb2 as gpb


class Step(NamedTuple):
    """What a Watch message asks for, in order: revoke these partitions, then release these (partition to
    token), then assign whatever assigned() lists that is not owned yet."""

    revoke: List[int]
    release: Dict[int, int]


class Assignment:
    """The partitions the member owns (acts on) with their fencing tokens, and those the group assigns it now.

    `owned` changes only through revoke() and grant(); owned() and token() may be read from any thread.
    """

    def __init__(self, group: str, member: str) -> None:
        self.group = group
        self.member = member
        self.index = 0  # the index of the last Watch message taken: where a reopened stream resumes
        self._assigned: Dict[int, int] = {}
        self._owned: Dict[int, int] = {}
        self._lock = threading.Lock()

    def take(self, r: gpb.GroupWatchResponse) -> Optional[Step]:
        """The step message `r` asks for; None for a message not after the last one taken (a resumed stream's)."""
        if r.index <= self.index:
            return None
        self.index = r.index
        to_release = set(r.release)
        keep: Dict[int, int] = {}
        release: Dict[int, int] = {}
        for pt in r.owned:
            (release if pt.partition in to_release else keep)[pt.partition] = pt.token
        self._assigned = keep
        # a partition whose token changed moved away and back meanwhile: stop acting on the old grant first
        revoke = [p for p, t in sorted(self.owned().items()) if keep.get(p) != t]
        return Step(revoke, release)

    def to_assign(self) -> List[int]:
        """The partitions assigned now and not owned yet, in order."""
        owned = self.owned()
        return [p for p in sorted(self._assigned) if p not in owned]

    def assigned_token(self, partition: int) -> int:
        """The token the group assigns `partition` with now (KeyError when it does not)."""
        return self._assigned[partition]

    def grant(self, partition: int, token: int) -> None:
        with self._lock:
            self._owned[partition] = token

    def revoke(self, partition: int) -> None:
        with self._lock:
            self._owned.pop(partition, None)

    def owned(self) -> Dict[int, int]:
        """A copy of the owned partitions: partition to fencing token."""
        with self._lock:
            return dict(self._owned)

    def token(self, partition: int) -> int:
        """The fencing token of an owned partition; LookupError when the member does not own it now."""
        with self._lock:
            t = self._owned.get(partition)
        if t is None:
            raise LookupError("partition %d of %r is not owned by %r" % (partition, self.group, self.member))
        return t
