"""A Client's elections and locks (docs/api.md, "Election", "Lock"), and elect() and lock(), which keep their lease
on a thread by the rule of docs/architecture.md §3.6 (lease_validity.py)."""

from __future__ import annotations

import os
import socket
import time
from typing import Any, Dict, Optional

import grpc

from regent_client.holder import Leadership
from regent_client.keeper import Callback, LeaseKeeper
from regent_client.leases import Leases
from regent_client.messages import HOLD_RPCS, Bytes
from regent_client.v1 import regent_pb2 as pb

DEFAULT_TTL = 10.0  # seconds: lease TTL of elect() and lock() without one (as `regent elect --ttl`)
CAMPAIGN_TIMEOUT = 3600.0  # seconds: how long elect(), lock() and campaign() wait by default


def default_owner() -> str:
    """host:pid, what a lock publishes as its owner unless told (as `regent lock` does)."""
    return "%s:%d" % (socket.gethostname(), os.getpid())


class Elections(Leases):
    """campaign, lock_with_lease, proclaim, resign, unlock, leader; elect and lock."""

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

    def _hold(self, kind: str, name: str, ttl: float, value: Bytes, timeout: float, lock_delay: float,
              keeper_options: Dict[str, Any]) -> Leadership:
        request = self._msg.hold(kind, name, value, lock_delay)
        grant = self._msg.grant(ttl, name)  # in the name's cell (docs/architecture.md §14)
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

