"""One term of holding a name (elect) or a lock (lock): its fencing token, its kept-alive lease, its release."""

from __future__ import annotations

from typing import Optional, Protocol

import grpc

from regent_client.clock_rate import Estimate
from regent_client.errors import LostLeadership
from regent_client.lease_validity import LeaseValidity
from regent_client.v1 import regent_pb2 as pb


class Keeper(Protocol):
    """A lease keeper: keeper.LeaseKeeper (a thread) or aio_keeper.AsyncLeaseKeeper (a task)."""

    validity: LeaseValidity

    def valid(self) -> bool: ...

    def stop(self) -> None: ...


class Releaser(Protocol):
    """The calls a holder makes (a Client's)."""

    def proclaim(self, key: pb.LeaderKey, value: bytes) -> pb.LeaderKey: ...

    def resign(self, key: pb.LeaderKey, revoke_lease: bool = False) -> None: ...

    def unlock(self, key: pb.LeaderKey, revoke_lease: bool = False) -> None: ...

    def revoke(self, lease: int) -> None: ...


class Held:
    """What the thread and asyncio holders share: `key` (name, value or owner, token, lease), `token`, `lease`,
    `kind` ("election" or "lock"), and whether the holder may act.

    Send `token` with every write to a fenced resource (docs/architecture.md §5: the resource refuses older
    tokens) and stop acting once valid() is False: the lease was not renewed within 2/3 of its TTL, or is gone.
    """

    def __init__(self, keeper: Keeper, key: pb.LeaderKey, kind: str) -> None:
        self._keeper = keeper
        self.key = key
        self.kind = kind
        self.token: int = key.token
        self.lease: int = key.lease
        self._released = False

    def valid(self) -> bool:
        """Whether this process may act as holder now (renewed in time, not suspended, not lost, not released)."""
        return not self._released and self._keeper.valid()

    def suspended(self) -> bool:
        """Whether it is in doubt but may resume with the same lease and token (with suspend=True only)."""
        return self._keeper.validity.suspended()

    def check(self) -> None:
        """Raises LostLeadership (with the reason; `lost` False while only suspended) unless valid(); call it
        before each write."""
        if self.valid():
            return
        if self._released:
            raise LostLeadership("%s: released" % self.key.name)
        v = self._keeper.validity
        raise LostLeadership("%s: %s" % (self.key.name, v.reason()), lost=not v.suspended())

    def deadline(self) -> float:
        """time.monotonic() by which the holder must stop acting unless the lease is renewed before."""
        return self._keeper.validity.deadline()

    def clock_rate(self) -> Optional[Estimate]:
        """This process's clock rate against the answering node's (clock_rate.Estimate), or None before renewals
        of one node span 5 s of its time."""
        return self._keeper.validity.clock_rate()

    def _check_proclaim(self) -> None:
        if self.kind != "election":
            raise ValueError("proclaim is for elections; a lock's owner is fixed")

    def _start_release(self) -> bool:
        """Marks it released and stops renewing; False when it was released already."""
        if self._released:
            return False
        self._released = True
        self._keeper.stop()
        return True


class Leadership(Held):
    """A held name or lock of the thread client (Client.elect, Client.lock); a context manager whose exit
    releases it."""

    def __init__(self, client: Releaser, keeper: Keeper, key: pb.LeaderKey, kind: str = "election") -> None:
        super().__init__(keeper, key, kind)
        self.client = client

    def proclaim(self, value: bytes) -> pb.LeaderKey:
        """Publishes `value` as the holder's value (elections only; docs/api.md "Election"); the new key, same
        token. FAILED_PRECONDITION when no longer the holder (nothing changes); ValueError for a lock."""
        self._check_proclaim()
        self.key = self.client.proclaim(self.key, value)
        return self.key

    def close(self) -> None:
        """Releases: stops renewing, then resigns (or unlocks) and revokes the lease in one log entry; when that is
        refused (no longer the holder) or fails, revokes the lease, best effort — unrevoked, it expires one TTL
        after its last renewal. Idempotent."""
        if not self._start_release():
            return
        release = self.client.unlock if self.kind == "lock" else self.client.resign
        try:
            release(self.key, revoke_lease=True)
        except grpc.RpcError:
            try:
                self.client.revoke(self.lease)
            except grpc.RpcError:
                pass  # no quorum, or gone already: the lease expires on its own

    def __enter__(self) -> "Leadership":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
