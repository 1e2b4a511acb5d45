"""Where an Observe stream resumes after a failure, so that no event is delivered twice and none is skipped.

docs/api.md, "Election" (Observe): one entry can change a name more than once (RESIGNED then ELECTED), each
change carrying its ordinal within the entry (1, 2, ...; 0 for CURRENT, which stands for the whole entry); a
stream reopened with after_index = the last index seen and after_ordinal = its ordinal sends the rest of that
entry and what follows. A node that no longer keeps that history sends the current state with compacted = true.
Shared by the thread client's observe() and the asyncio one's (as the Java ResumingObserver keeps it).
"""

from __future__ import annotations

from regent_client.v1 import regent_pb2 as pb


class ResumePoint:
    """The position (index, ordinal) of the last event delivered; ValueError for a negative or non-int index."""

    def __init__(self, after_index: int = 0) -> None:
        if isinstance(after_index, bool) or not isinstance(after_index, int) or after_index < 0:
            raise ValueError("after must be a log index >= 0, not %r" % (after_index,))
        self.index = after_index
        self.ordinal = 0  # 0: the whole entry `index` was delivered

    def request(self, name: str) -> pb.ObserveRequest:
        """The request that (re)opens the stream of `name` (as the cluster knows it) after this point."""
        return pb.ObserveRequest(name=name, after_index=self.index, after_ordinal=self.ordinal)

    def admit(self, event: pb.ObserveResponse) -> bool:
        """Whether to deliver `event`: it comes after this point (which then moves to it), or it is a compacted
        state (delivered although a node behind this one may send an older index: the point does not move back)."""
        if event.index != self.index:
            later = event.index > self.index
        else:
            later = self.ordinal != 0 and event.ordinal > self.ordinal
        if later:
            self.index, self.ordinal = event.index, event.ordinal
        return later or event.compacted
