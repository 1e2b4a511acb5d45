"""Full-jitter backoff: pauses that spread the retries of many clients instead of sending them in lockstep.

The pause after the n-th consecutive failure (n from 0) is uniform over [0, min(cap, base * 2**n)] ("full
jitter"; the Java client's RetryPolicy uses equal jitter between its passes over the endpoints, docs/api.md
"Attempts"). After a leader change every client's keepalives fail at once; without jitter they would all retry
at the same instants against the new leader.
"""

from __future__ import annotations

import random
from typing import Callable


def full_jitter(failures: int, base: float, cap: float, rand: Callable[[], float] = random.random) -> float:
    """The pause, seconds, after `failures` consecutive failures (0 for the first): uniform over
    [0, min(cap, base * 2**failures)]. base and cap in seconds, not negative; rand() uniform over [0, 1)."""
    if failures < 0 or base < 0 or cap < 0:
        raise ValueError("failures, base and cap must not be negative")
    return rand() * min(cap, base * 2 ** min(failures, 32))
