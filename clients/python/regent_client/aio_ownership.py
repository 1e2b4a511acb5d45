"""AsyncClient.join_group(): ownership.py's group member on the event loop (same Assignment, same order: revoke,
release, assign), its lease kept by an asyncio task and its Watch stream read by another."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional

import grpc

from regent_client.aio_keeper import AsyncLeaseKeeper
from regent_client.assignment import Assignment
from regent_client.backoff import full_jitter
from regent_client.ownership import FIRST_BACKOFF, MAX_BACKOFF, OnAssigned, OnReason, OnResumed, OnRevoked, call_back
from regent_client.v1 import group_pb2_grpc as group_rpc

if TYPE_CHECKING:
    from regent_client.aio import AsyncClient


class AsyncOwnership:
    """ownership.Ownership on the running loop: the same callbacks (plain functions, called on the loop, one at a
    time in log order; keep them short), owned(), token(), valid(), suspended(); `await close()` or leaving
    `async with` revokes everything, leaves the group and revokes the lease. Made by AsyncClient.join_group."""

    def __init__(self, client: "AsyncClient", group: str, member: str, lease: int,
                 callbacks: Dict[str, Optional[Callable[..., None]]]) -> None:
        self.group = group
        self.member = member
        self.lease = lease
        self._client = client
        self._view = Assignment(group, member)
        self._callbacks = callbacks
        self._down = False
        self._closed = asyncio.Event()
        self._stream: Optional[Any] = None
        self._keeper: Optional[AsyncLeaseKeeper] = None
        self._watcher: Optional["asyncio.Task[None]"] = None

    @staticmethod
    async def join(client: "AsyncClient", group: str, member: str, partitions: int, ttl: float,
                   on_assigned: OnAssigned = None, on_revoked: OnRevoked = None, on_step_down: OnReason = None,
                   on_suspended: OnReason = None, on_resumed: OnResumed = None, suspend: bool = False,
                   grace: Optional[float] = None) -> "AsyncOwnership":
        """Client.join_group's rules and errors, awaited."""
        request = client._msg.group_join(group, member, ttl, partitions)  # bad input: raised before any send
        sent = time.monotonic()
        lease = (await client._call("Group", "Join", request)).lease
        o = AsyncOwnership(client, group, member, lease, dict(
            assigned=on_assigned, revoked=on_revoked, step_down=on_step_down, suspended=on_suspended,
            resumed=on_resumed))
        o._keeper = AsyncLeaseKeeper(client, lease, ttl, sent, on_lost=o._lost, on_suspended=o._suspended,
                                     on_resumed=o._resumed, suspend=suspend, grace=grace)
        o._watcher = asyncio.get_running_loop().create_task(o._watch(), name="regent-group-%s" % group)
        return o

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
        return not self._down and self._keeper is not None and self._keeper.valid()

    def suspended(self) -> bool:
        """Whether it is in doubt but may resume (suspend=True only)."""
        return not self._down and self._keeper is not None and self._keeper.validity.suspended()

    @property
    def index(self) -> int:
        """The log index of the last assignment taken."""
        return self._view.index

    async def _watch(self) -> None:
        failures = 0
        while not self._closed.is_set():
            idx = self._client.current_endpoint()
            stub = group_rpc.GroupStub(self._client.channel(idx))
            self._stream = stub.Watch(self._client._msg.group_watch(self.group, self.member, self._view.index))
            try:
                while True:
                    r = await self._stream.read()
                    if r is grpc.aio.EOF:
                        break  # a node that shuts down ends its streams
                    failures = 0
                    await self._take(r)
            except asyncio.CancelledError:
                if not self._closed.is_set():
                    raise
                return
            except grpc.RpcError as e:
                if self._closed.is_set():
                    return
                self._client.hint(idx, e.trailing_metadata())
            self._client.move_on(idx)
            try:
                # a backoff before reopening, not a synchronisation: close() ends it at once
                await asyncio.wait_for(self._closed.wait(), full_jitter(failures, FIRST_BACKOFF, MAX_BACKOFF))
            except asyncio.TimeoutError:
                pass
            failures += 1

    async def _take(self, r: Any) -> None:
        step = None if self._down else self._view.take(r)
        if step is None:
            return
        for p in step.revoke:
            self._revoke(p)
        if step.release:
            try:
                await self._client._call("Group", "Release", self._client._msg.group_release(self.group, step.release))
            except grpc.RpcError:
                pass  # a move undone meanwhile, or no quorum: the next assignment says what to do
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

    def _lost(self, reason: Optional[str]) -> None:
        if self._step_down():
            call_back("on_step_down", self._callbacks["step_down"], reason or "lease lost")

    def _suspended(self, reason: Optional[str]) -> None:
        if not self._down:
            for p in sorted(self._view.owned()):
                self._revoke(p)
            call_back("on_suspended", self._callbacks["suspended"], reason or "lease in doubt")

    def _resumed(self, _: Optional[str]) -> None:
        if not self._down:
            call_back("on_resumed", self._callbacks["resumed"])
            self._assign()

    def _step_down(self) -> bool:
        if self._down:
            return False
        self._down = True
        self._closed.set()
        if self._stream is not None:
            self._stream.cancel()
        for p in sorted(self._view.owned()):
            self._revoke(p)
        return True

    async def close(self) -> None:
        """Revokes every partition, leaves the group and revokes the lease (best effort, as Ownership.close)."""
        was_up = self._step_down()
        if self._keeper is not None:
            self._keeper.stop()
        if not was_up:
            return
        try:
            await self._client._call("Group", "Leave", self._client._msg.group_leave(self.group, self.member,
                                                                                      self.lease))
        except grpc.RpcError:
            pass  # not a member any more (expired): nothing to leave
        try:
            await self._client.revoke(self.lease)
        except grpc.RpcError:
            pass  # gone already, or no quorum: it expires on its own

    async def __aenter__(self) -> "AsyncOwnership":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
