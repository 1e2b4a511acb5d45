"""Client.join_group(): one member of an ownership group (docs/ownership.md), on threads, as the Java
PartitionOwnership and `regent group join` are."""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional

import grpc

from regent_client.assignment import Assignment
from regent_client.backoff import full_jitter
from regent_client.keeper import LeaseKeeper
from regent_client.v1 import group_pb2_grpc as group_rpc

if TYPE_CHECKING:
    from regent_client.leases import Leases

FIRST_BACKOFF = 0.1  # seconds: base of the full-jitter pause before reopening a failed Watch stream
MAX_BACKOFF = 2.0  # seconds: its largest cap (as observe()'s)

OnAssigned = Optional[Callable[[int, int], None]]  # (partition, fencing token)
OnRevoked = Optional[Callable[[int], None]]  # (partition)
OnReason = Optional[Callable[[str], None]]  # (reason)
OnResumed = Optional[Callable[[], None]]


def call_back(what: str, callback: Optional[Callable[..., None]], *args: Any) -> None:
    """Calls an application callback; one that raises is logged, so that it stops neither the member nor its
    lease."""
    if callback is None:
        return
    try:
        callback(*args)
    except Exception:
        logging.getLogger("regent_client").exception("the %s callback failed", what)


class Ownership:
    """A member of an ownership group: the partitions it owns now, each with its fencing token, told by callbacks.

    on_assigned(partition, token): the member owns `partition` from now on; write to it with `token` (a fenced
    resource refuses older tokens: per partition they only rise, docs/ownership.md "The rule").
    on_revoked(partition): stop acting on it now; it is released (to the member the group moved it to) right after
    this returns. on_step_down(reason): once, after every partition was revoked, when the lease can no longer be
    vouched for (2/3 of the TTL without an acknowledged keepalive, or the lease gone: docs/architecture.md §3.6);
    the member then does nothing more. With suspend=True that deadline only suspends: every partition is revoked,
    then on_suspended(reason); the member stays in the group and keeps releasing what the group moves away; a
    renewal in time calls on_resumed() and assigns again what the group assigns it (same tokens unless a partition
    moved meanwhile). It steps down once ttl + grace have passed or the lease is gone.

    Callbacks come one at a time, in log order, from the member's Watch thread or its lease keeper's; keep them
    short. The Watch stream is reopened at the next endpoint after a failure (full-jitter pause), resuming after
    the last assignment taken. close() (or leaving the `with` block) revokes everything, leaves the group (its
    partitions move on at once) and revokes the lease.
    """

    def __init__(self, client: "Leases", group: str, member: str, partitions: int, ttl: float,
                 on_assigned: OnAssigned = None, on_revoked: OnRevoked = None, on_step_down: OnReason = None,
                 on_suspended: OnReason = None, on_resumed: OnResumed = None, suspend: bool = False,
                 grace: Optional[float] = None) -> None:
        request = client._msg.group_join(group, member, ttl, partitions)  # bad input: raised before any send
        self.group = group
        self.member = member
        self._client = client
        self._view = Assignment(group, member)
        self._callbacks: Dict[str, Optional[Callable[..., None]]] = dict(
            assigned=on_assigned, revoked=on_revoked, step_down=on_step_down, suspended=on_suspended,
            resumed=on_resumed)
        self._events = threading.RLock()  # one callback at a time, in order
        self._down = False
        self._closed = threading.Event()
        self._stream: Optional[Any] = None
        self._stream_lock = threading.Lock()
        sent = time.monotonic()
        # one entry grants the lease and joins; re-sent with its request id, it joins once
        self.lease: int = client._call("Group", "Join", request).lease
        self._keeper = LeaseKeeper(client, self.lease, ttl, sent, on_lost=self._lost, on_suspended=self._suspended,
                                   on_resumed=self._resumed, suspend=suspend, grace=grace)
        self._watcher = threading.Thread(target=self._watch, name="regent-group-%s" % group, daemon=True)
        self._watcher.start()

    # ---- what the application reads ----

    def owned(self) -> Dict[int, int]:
        """The partitions owned now, partition to fencing token (empty once stepped down or closed)."""
        return self._view.owned() if self.valid() else {}

    def token(self, partition: int) -> int:
        """The fencing token of an owned partition; LookupError when it is not owned now."""
        if not self.valid():
            raise LookupError("%r of %r may not act: stepped down, suspended or closed" % (self.member, self.group))
        return self._view.token(partition)

    def valid(self) -> bool:
        """Whether the member may act: its lease is vouched for, and it has neither stepped down nor closed."""
        return not self._down and self._keeper.valid()

    def suspended(self) -> bool:
        """Whether it is in doubt but may resume (suspend=True only)."""
        return not self._down and self._keeper.validity.suspended()

    @property
    def index(self) -> int:
        """The log index of the last assignment taken."""
        return self._view.index

    # ---- the Watch stream ----

    def _watch(self) -> None:
        failures = 0  # consecutive reopenings without a message
        while not self._closed.is_set():
            idx = self._client.current_endpoint()
            stub = group_rpc.GroupStub(self._client.channel(idx))
            call = stub.Watch(self._client._msg.group_watch(self.group, self.member, self._view.index))
            with self._stream_lock:
                if self._closed.is_set():
                    call.cancel()
                    return
                self._stream = call
            try:
                for r in call:
                    failures = 0
                    self._take(r)
            except grpc.RpcError as e:
                if self._closed.is_set():
                    return
                self._client.hint(idx, e.trailing_metadata())
            self._client.move_on(idx)  # a node that stops ends its streams: reopen elsewhere
            # a backoff before reopening, not a synchronisation: close() ends it at once
            self._closed.wait(full_jitter(failures, FIRST_BACKOFF, MAX_BACKOFF))
            failures += 1

    def _take(self, r: Any) -> None:
        """Brings the member to assignment `r`: revoke, then release, then assign. The release is sent outside the
        callbacks' lock, so that a step-down at the lease's deadline is told at once, not after the call."""
        with self._events:
            step = None if self._down else self._view.take(r)
            if step is None:
                return
            for p in step.revoke:
                self._revoke(p)
        if step.release:
            try:
                self._client._call("Group", "Release", self._client._msg.group_release(self.group, step.release))
            except grpc.RpcError:
                pass  # a move undone meanwhile, or no quorum: the next assignment says what to do
        with self._events:
            self._assign()  # valid() again: the lease may have been lost while the release was on its way

    def _assign(self) -> None:
        for p in self._view.to_assign():
            if not self.valid():
                return
            token = self._view.assigned_token(p)
            self._view.grant(p, token)
            call_back("on_assigned", self._callbacks["assigned"], p, token)

    def _revoke(self, partition: int) -> None:
        self._view.revoke(partition)
        call_back("on_revoked", self._callbacks["revoked"], partition)

    # ---- the lease keeper's changes ----

    def _lost(self, reason: Optional[str]) -> None:
        with self._events:
            if self._step_down():
                call_back("on_step_down", self._callbacks["step_down"], reason or "lease lost")

    def _suspended(self, reason: Optional[str]) -> None:
        with self._events:
            if not self._down:
                for p in sorted(self._view.owned()):
                    self._revoke(p)
                call_back("on_suspended", self._callbacks["suspended"], reason or "lease in doubt")

    def _resumed(self, _: Optional[str]) -> None:
        with self._events:
            if not self._down:
                call_back("on_resumed", self._callbacks["resumed"])
                self._assign()

    def _step_down(self) -> bool:
        """Stops following the group and revokes every partition; False when it had stopped already."""
        if self._down:
            return False
        self._down = True
        self._closed.set()
        with self._stream_lock:
            if self._stream is not None:
                self._stream.cancel()
        for p in sorted(self._view.owned()):
            self._revoke(p)
        return True

    def close(self) -> None:
        """Revokes every partition, leaves the group (its partitions move on at once) and revokes the lease. Best
        effort: without a quorum the lease expires one TTL after its last renewal, and the partitions move then.
        Idempotent."""
        with self._events:
            was_up = self._step_down()
        self._keeper.stop()
        if not was_up:
            return
        try:
            self._client._call("Group", "Leave", self._client._msg.group_leave(self.group, self.member, self.lease))
        except grpc.RpcError:
            pass  # not a member any more (expired): nothing to leave
        try:
            self._client.revoke(self.lease)
        except grpc.RpcError:
            pass  # gone already, or no quorum: it expires on its own

    def __enter__(self) -> "Ownership":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
