"""Keeps one lease alive on a daemon thread, by the rule of lease_validity.py (docs/architecture.md §3.6)."""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable, Dict, Optional, Protocol

import grpc

from regent_client.lease_validity import LeaseValidity
from regent_client.v1 import regent_pb2 as pb

Callback = Optional[Callable[[Optional[str]], None]]  # told the reason (None for on_resumed)


class Lessor(Protocol):
    """What a keeper asks of the cluster (a Client; a fake in unit tests)."""

    def keep_alive_answer(self, lease: int, timeout: float) -> pb.LeaseKeepAliveResponse:
        """Renews within `timeout` s; raises grpc.RpcError (NOT_FOUND once the lease is gone, others are retried)."""


class LeaseKeeper(threading.Thread):
    """Renews lease `lease` (TTL `ttl` s, granted by a call sent at `grant_sent`, time.monotonic()) every ttl/3.

    on_suspended(reason), on_resumed(reason: None) and on_lost(reason) are called on this thread, once per change
    and in the order of the changes; on_lost is the last, after which renewing stops. Keep them short: renewals wait
    for them. suspend and grace (seconds; default max(ttl, 10 s)) as lease_validity.py says.
    """

    def __init__(self, lessor: Lessor, lease: int, ttl: float, grant_sent: float, on_lost: Callback = None,
                 on_suspended: Callback = None, on_resumed: Callback = None, suspend: bool = False,
                 grace: Optional[float] = None) -> None:
        super().__init__(name="regent-lease-%d" % lease, daemon=True)
        self.lease = lease
        self.ttl = ttl
        self.validity = LeaseValidity(lease, ttl, grant_sent, suspend, grace)
        self._lessor = lessor
        self._callbacks = {"lost": on_lost, "suspended": on_suspended, "resumed": on_resumed}
        self._grant_sent = grant_sent
        self._wake = threading.Event()
        self.start()

    def valid(self) -> bool:
        """Whether the holder may act now; a change this finds (the deadline passed) is told on the keeper's thread."""
        ok = self.validity.valid()
        if not ok:
            self._wake.set()  # tell the change now, not at the next renewal
        return ok

    def stop(self) -> None:
        """Stops renewing, without an on_lost call; the lease then expires one TTL after its last renewal."""
        self.validity.stop()
        self._wake.set()

    def run(self) -> None:
        next_renew = self._grant_sent + self.ttl / 3  # ttl/3 after the grant was sent: a slow grant eats validity
        while True:
            watch = self.validity.watch()
            self._tell()
            if watch is None:
                return
            wait = min(next_renew - time.monotonic(), watch)
            if wait > 0:
                # wakes for the renewal, at the deadline, on stop() or on a change valid() found
                self._wake.wait(wait)
                self._wake.clear()
                continue
            sent = time.monotonic()
            pause: Optional[float]
            try:
                answer = self._lessor.keep_alive_answer(self.lease, self.validity.call_timeout(sent))
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


def tell(validity: LeaseValidity, callbacks: Dict[str, Callback]) -> None:
    """Calls the callback of each change `validity` has not told yet, in order; one that raises is logged."""
    for kind, reason in validity.take_events():
        callback = callbacks[kind]
        if callback is None:
            continue
        try:
            callback(reason)
        except Exception:  # a failing callback must not stop the renewals
            logging.getLogger("regent_client").exception("lease %d: the %s callback failed", validity.lease, kind)
