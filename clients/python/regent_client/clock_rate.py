"""This client's clock rate against one node's, from the node's clock readings in renewed keepalives.

The rule of Regent's docs/architecture.md §3.6 ("Clock bounds"), as the Java ClockRate applies it: the node read
its monotonic clock (node_clock_ms) somewhere between the client's send and receipt, truncated to the ms, so over
two samples a and b at least MIN_SPAN_MS of the node's time apart the client's rate certainly lies within
[(b.sent - a.received) / (D + 1 ms), (b.received - a.sent) / (D - 1 ms)], D = b.node_ms - a.node_ms. Samples of
another node, or of another process of the same node, restart the window.
"""

from __future__ import annotations

import collections
from typing import Deque, List, Optional, Tuple

# A client clock certainly slower than this against the node's steps the holder down (the 2/3-TTL rule
# tolerates >= 2/3; 0.9 leaves room for an answering follower within +-10 % of the leader and is far outside
# what a healthy clock does).
SLOW_BELOW = 0.9
# A client clock certainly faster than this is reported (harmless: the holder stops early).
FAST_ABOVE = 1.1
MIN_SPAN_MS = 5000  # shortest span of the node's time over which a rate is estimated
MAX_SPAN_MS = 60000  # longest span of the node's time kept in the window
MIN_GAP_MS = 1000  # samples closer than this share one slot (the shorter round trip is kept)

Sample = collections.namedtuple("Sample", "sent received node_ms")  # sent, received: seconds, time.monotonic()


class Estimate(collections.namedtuple("Estimate", "node low high span_ms")):
    """The client's rate against `node`'s clock (1 = the same), certainly within [low, high], over span_ms."""

    def rate(self) -> float:
        return (self.low + self.high) / 2

    def slow(self) -> bool:
        return self.high < SLOW_BELOW

    def fast(self) -> bool:
        return self.low > FAST_ABOVE

    def describe(self) -> str:
        who = "node %s's" % self.node if self.node else "the node's"
        return "client clock runs at %.2f of %s (%.2f to %.2f over %.1f s)" % (
            self.rate(), who, self.low, self.high, self.span_ms / 1000.0)


class ClockRate:
    """The window of one node's samples; add() returns the most telling estimate, or None. Not thread-safe."""

    def __init__(self) -> None:
        self._window: Deque[Sample] = collections.deque()  # in the node's time order
        self._clock: Optional[Tuple[str, int]] = None  # (node, node_started_ms) of the window's samples

    def add(self, node: str, node_started_ms: int, sample: Sample) -> Optional[Estimate]:
        if sample.received < sample.sent:
            return None
        if (node, node_started_ms) != self._clock or (self._window and sample.node_ms < self._window[-1].node_ms):
            self._window.clear()  # another clock: the old one's readings say nothing about it
            self._clock = (node, node_started_ms)
        while self._window and sample.node_ms - self._window[0].node_ms > MAX_SPAN_MS:
            self._window.popleft()
        estimate = self._estimate(node, sample)
        last = self._window[-1] if self._window else None
        if last is None or sample.node_ms - last.node_ms >= MIN_GAP_MS:
            self._window.append(sample)
        elif sample.received - sample.sent < last.received - last.sent:
            self._window[-1] = sample
        return estimate

    def _estimate(self, node: str, b: Sample) -> Optional[Estimate]:
        found: List[Estimate] = []
        for a in self._window:
            span = b.node_ms - a.node_ms
            if span < MIN_SPAN_MS:
                break
            low = max(0.0, (b.sent - a.received) * 1000.0) / (span + 1)
            high = (b.received - a.sent) * 1000.0 / (span - 1)
            found.append(Estimate(node, low, high, span))
        if not found:
            return None
        slowest = min(found, key=lambda e: e.high)
        if slowest.slow():
            return slowest
        fastest = max(found, key=lambda e: e.low)
        if fastest.fast():
            return fastest
        return min(found, key=lambda e: e.high - e.low)
