"""The 2/3-TTL rule's bookkeeping for one kept-alive lease, shared by the thread keeper and the asyncio one.

The rule of docs/architecture.md §3.6, as the Java and TypeScript LeaseKeepers apply it: renew every ttl/3, count
validity from the moment the last acknowledged keepalive was *sent* (time.monotonic()), and stop acting 2/3 ttl
after that, whatever the server says; step down when this process's clock runs certainly slow against the
answering node's (clock_rate.py, "Clock bounds" there).

Suspension (optional; Chubby's "jeopardy", Curator's SUSPENDED, the Java keeper's suspendWhenInDoubt): at the
deadline the holder is only *suspended* — it must stop acting, renewals go on — and a keepalive acknowledged
within 2/3 ttl of its own sending proves the lease never ended (an ended lease is never renewed: NOT_FOUND), so
the holder *resumes* with the same lease and token. It is lost for good on NOT_FOUND, on a slow clock, or once
ttl + grace have passed since the last acknowledged send. Without suspension the deadline is the step-down.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable, List, Optional, Tuple

import grpc

from regent_client.backoff import full_jitter
from regent_client.clock_rate import ClockRate, Estimate, Sample
from regent_client.v1 import regent_pb2 as pb

MIN_CALL = 0.05  # seconds: shortest deadline given to one keepalive call
RETRY = 0.1  # seconds: base of the full-jitter pause before retrying a failed keepalive (capped at ttl/10)
MIN_DEFAULT_GRACE = 10.0  # seconds: shortest default grace of a suspended holder (the default: max(ttl, this))

Event = Tuple[str, Optional[str]]  # ("suspended" | "resumed" | "lost", reason)
_LOG = logging.getLogger("regent_client")


class LeaseValidity:
    """Whether the holder of lease `lease` (TTL `ttl` s, granted by a call sent at `grant_sent`) may act.

    No thread or event loop of its own: a driver (keeper.LeaseKeeper, aio's keeper) renews and reports each
    answer (renewed, failed) and asks watch() at the deadlines; each returns how long to wait before the next step,
    or None once the lease is lost. Changes are queued as events, in order, for the driver to tell (take_events).
    Thread-safe. ValueError for ttl <= 0 or a negative grace (seconds).
    """

    def __init__(self, lease: int, ttl: float, grant_sent: float, suspend: bool = False,
                 grace: Optional[float] = None, clock: Callable[[], float] = time.monotonic) -> None:
        if not ttl > 0:
            raise ValueError("ttl must be > 0 seconds, not %r" % (ttl,))
        if grace is not None and not grace >= 0:
            raise ValueError("grace must be >= 0 seconds, not %r" % (grace,))
        self.lease = lease
        self.ttl = ttl
        self.grace = max(ttl, MIN_DEFAULT_GRACE) if grace is None else grace
        self._suspend_in_doubt = suspend
        self._clock = clock
        self._last_ack_sent = grant_sent
        self._suspended = False
        self._down = False
        self._reason: Optional[str] = None
        self._events: List[Event] = []
        self._failures = 0  # consecutive failed keepalives: the retry pause grows with them, jittered
        self._clock_rate = ClockRate()
        self._estimate: Optional[Estimate] = None
        self._warned_fast = False
        self._lock = threading.Lock()

    def deadline(self) -> float:
        """When (time.monotonic()) the holder must have stopped acting, unless renewed before."""
        with self._lock:
            return self._last_ack_sent + self.ttl * 2 / 3

    def valid(self) -> bool:
        """Whether the holder may act now: renewed within 2/3 ttl of a send, not suspended, not lost."""
        with self._lock:
            if not self._down and self._clock() >= self._last_ack_sent + self.ttl * 2 / 3:
                self._in_doubt_locked("lease %d not renewed for 2/3 of its %.3f s TTL" % (self.lease, self.ttl))
            return not self._down and not self._suspended

    def suspended(self) -> bool:
        """Whether the holder is in doubt and may still resume (suspension only)."""
        with self._lock:
            return self._suspended

    def lost(self) -> bool:
        """Whether the lease is lost for good (or the keeper stopped)."""
        with self._lock:
            return self._down

    def reason(self) -> Optional[str]:
        """Why the holder may not act (the last suspension or the loss); None while it never had to stop."""
        with self._lock:
            return self._reason

    def clock_rate(self) -> Optional[Estimate]:
        """The latest clock-rate estimate, None before renewals of one node span 5 s of its time."""
        with self._lock:
            return self._estimate

    def take_events(self) -> List[Event]:
        """The changes not yet told, oldest first; each is returned once."""
        with self._lock:
            events, self._events = self._events, []
            return events

    def call_timeout(self, sent: float) -> float:
        """Seconds a keepalive sent at `sent` may take: until the deadline, or ttl/3 while suspended (only an answer
        within 2/3 ttl of its send can resume the holder)."""
        with self._lock:
            left = self.ttl / 3 if self._suspended else self._last_ack_sent + self.ttl * 2 / 3 - sent
            return max(MIN_CALL, left)

    def renewed(self, answer: pb.LeaseKeepAliveResponse, sent: float, received: float) -> Optional[float]:
        """Counts a keepalive sent at `sent` and acknowledged at `received`; seconds until the next renewal, or
        None when renewing ends (lost)."""
        with self._lock:
            if self._down:
                return None
            late = "lease %d renewed only after 2/3 of its %.3f s TTL had passed" % (self.lease, self.ttl)
            if not self._suspend_in_doubt and received >= self._last_ack_sent + self.ttl * 2 / 3:
                self._step_down_locked(late)  # the holder had to stop already: a late ack revives nothing
                return None
            self._last_ack_sent = max(self._last_ack_sent, sent)
            if not self._clock_rate_holds_locked(answer, sent, received):
                return None
            self._failures = 0
            if received >= sent + self.ttl * 2 / 3:
                self._suspend_locked(late)
                return min(RETRY, self.ttl / 10)
            if self._suspended:
                self._suspended = False
                self._events.append(("resumed", None))
            return max(0.0, self.ttl / 3 - (received - sent))

    def failed(self, code: Optional[grpc.StatusCode]) -> Optional[float]:
        """Counts a failed keepalive; seconds until the retry (full jitter), or None after NOT_FOUND (lost)."""
        with self._lock:
            if self._down:
                return None
            if code == grpc.StatusCode.NOT_FOUND:
                self._step_down_locked("lease %d expired or was revoked" % self.lease)
                return None
            pause = full_jitter(self._failures, RETRY, self.ttl / 10)
            self._failures += 1
            return pause

    def watch(self) -> Optional[float]:
        """Applies the deadline now: seconds until it should be applied again, or None once lost."""
        with self._lock:
            if self._down:
                return None
            now = self._clock()
            left = self._last_ack_sent + self.ttl * 2 / 3 - now
            if left > 0:
                return left
            reason = "lease %d not renewed for 2/3 of its %.3f s TTL" % (self.lease, self.ttl)
            if not self._suspend_in_doubt:
                self._step_down_locked(reason)
                return None
            give_up_in = self._last_ack_sent + self.ttl + self.grace - now
            if give_up_in <= 0:
                self._step_down_locked("lease %d not renewed within its %.3f s TTL and a grace of %.3f s" % (
                    self.lease, self.ttl, self.grace))
                return None
            self._suspend_locked(reason)
            return min(give_up_in, RETRY)

    def stop(self) -> None:
        """Ends it without an event (the holder resigned or gave up waiting)."""
        with self._lock:
            self._down = True

    def _in_doubt_locked(self, reason: str) -> None:
        if self._suspend_in_doubt:
            self._suspend_locked(reason)
        else:
            self._step_down_locked(reason)

    def _suspend_locked(self, reason: str) -> None:
        if not self._suspended and not self._down:
            self._suspended = True
            self._reason = reason
            self._events.append(("suspended", reason))

    def _step_down_locked(self, reason: str) -> None:
        if self._down:
            return
        self._down = True
        self._suspended = False
        self._reason = reason
        self._events.append(("lost", reason))

    def _clock_rate_holds_locked(self, answer: pb.LeaseKeepAliveResponse, sent: float, received: float) -> bool:
        """Adds the node's clock reading; steps down when this clock runs certainly below 0.9 of the node's (also
        when suspending: every later judgment would be measured on the clock now known to run slow)."""
        if answer.node_clock_ms == 0:
            return True  # a node that sends no reading
        e = self._clock_rate.add(answer.node, answer.node_started_ms, Sample(sent, received, answer.node_clock_ms))
        if e is None:
            return True
        self._estimate = e
        if e.slow():
            reason = "%s: lease %d's holder stops acting; the 2/3-TTL rule assumes >= 2/3 (docs/architecture.md §3.6)" % (
                e.describe(), self.lease)
            _LOG.error(reason)
            self._step_down_locked(reason)
            return False
        if e.fast() and not self._warned_fast:
            self._warned_fast = True
            _LOG.warning("%s: harmless for lease %d, whose holder stops acting early", e.describe(), self.lease)
        return True
