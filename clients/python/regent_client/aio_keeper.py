"""Keeps one lease alive on an asyncio task, by the rule of lease_validity.py (docs/architecture.md §3.6)."""

from __future__ import annotations

import asyncio
import time
from typing import Awaitable, Optional, Protocol

import grpc

from regent_client.keeper import Callback, tell
from regent_client.lease_validity import LeaseValidity
from regent_client.v1 import regent_pb2 as pb


class AsyncLessor(Protocol):
    """What an asyncio keeper asks of the cluster (an AsyncClient)."""

    def keep_alive_answer(self, lease: int, timeout: float) -> Awaitable[pb.LeaseKeepAliveResponse]: ...


class AsyncLeaseKeeper:
    """keeper.LeaseKeeper on the running event loop: renews every ttl/3 from a task; the callbacks (plain
    functions, keep them short) are called on the loop, once per change, in order, on_lost last. Must be made
    inside a running loop (RuntimeError otherwise)."""

    def __init__(self, lessor: AsyncLessor, lease: int, ttl: float, grant_sent: float, on_lost: Callback = None,
                 on_suspended: Callback = None, on_resumed: Callback = None, suspend: bool = False,
                 grace: Optional[float] = None) -> None:
        self.lease = lease
        self.ttl = ttl
        self.validity = LeaseValidity(lease, ttl, grant_sent, suspend, grace)
        self._lessor = lessor
        self._callbacks = {"lost": on_lost, "suspended": on_suspended, "resumed": on_resumed}
        self._grant_sent = grant_sent
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="regent-lease-%d" % lease)

    def valid(self) -> bool:
        """Whether the holder may act now; a change this finds (the deadline passed) is told from the task."""
        ok = self.validity.valid()
        if not ok:
            self._wake.set()
        return ok

    def stop(self) -> None:
        """Stops renewing, without an on_lost call; the lease then expires one TTL after its last renewal."""
        self.validity.stop()
        self._task.cancel()

    async def _run(self) -> None:
        next_renew = self._grant_sent + self.ttl / 3
        while True:
            watch = self.validity.watch()
            self._tell()
            if watch is None:
                return
            wait = min(next_renew - time.monotonic(), watch)
            if wait > 0:
                try:
                    # wakes for the renewal, at the deadline, or on a change valid() found
                    await asyncio.wait_for(self._wake.wait(), wait)
                except asyncio.TimeoutError:
                    pass
                self._wake.clear()
                continue
            sent = time.monotonic()
            pause: Optional[float]
            try:
                answer = await self._lessor.keep_alive_answer(self.lease, self.validity.call_timeout(sent))
            except grpc.RpcError as e:
                pause = self.validity.failed(e.code())
            else:
                pause = self.validity.renewed(answer, sent, time.monotonic())
            self._tell()
            if pause is None:
                return
            next_renew = time.monotonic() + pause

    def _tell(self) -> None:
        tell(self.validity, self._callbacks)
