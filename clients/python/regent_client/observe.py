"""observe(): the ownership changes of one name as an iterator that survives the failure of its node."""

from __future__ import annotations

import threading
from typing import Any, Iterator, Optional, Protocol, Tuple

import grpc

from regent_client.backoff import full_jitter
from regent_client.namespace import Namespace
from regent_client.resume_point import ResumePoint
from regent_client.routing import Metadata
from regent_client.v1 import regent_pb2 as pb
from regent_client.v1 import regent_pb2_grpc as rpc

FIRST_BACKOFF = 0.1  # seconds: base of the full-jitter pause before reopening a failed stream
MAX_BACKOFF = 2.0  # seconds: its largest cap (as the Java ResumingObserver's and the TypeScript observe's)


class StreamSource(Protocol):
    """What an Observation uses of a Client: its endpoints' channels and moving on between them."""

    ns: Namespace

    def current_endpoint(self) -> int: ...

    def channel(self, idx: int) -> Any: ...  # a grpc.Channel, or a grpc.aio.Channel for the asyncio client

    def hint(self, idx: int, metadata: Metadata) -> None: ...

    def move_on(self, idx: int) -> None: ...


class Observation:
    """An iterator of ObserveResponse (kind, name, leader, index, ordinal, compacted) for one name, in log order:
    first the current holder (after 0), then one event per change.

    When its stream fails — the node stopped, hung (found by the channel's keepalive), refused or ended the stream
    — it is reopened at the client's next endpoint after a full-jitter pause, after the last event delivered
    (resume_point.py), so no event comes twice and none is skipped; `compacted` says that changes in between were
    not kept and are lost (docs/api.md, "Election"). close() (from any thread) or leaving the `with` block ends
    the iteration; INVALID_ARGUMENT (a bad name) ends it with that grpc.RpcError.
    """

    def __init__(self, client: StreamSource, name: str, after: int = 0) -> None:
        self._client = client
        self._name = client.ns.name(name)
        self._point = ResumePoint(after)
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._call: Optional[Tuple[Any, int]] = None  # the open stream and its endpoint's index
        self._failures = 0  # consecutive reopenings without an event

    @property
    def last_index(self) -> int:
        """The index of the last event delivered (where a reopened stream resumes)."""
        return self._point.index

    @property
    def last_ordinal(self) -> int:
        """Its ordinal within that entry (0: the whole entry)."""
        return self._point.ordinal

    def __iter__(self) -> Iterator[pb.ObserveResponse]:
        return self

    def __next__(self) -> pb.ObserveResponse:
        while True:
            opened = self._open()
            if opened is None:
                break
            call, idx = opened
            try:
                for event in call:
                    if self._point.admit(event):
                        self._failures = 0
                        return self._client.ns.event_out(event)
            except grpc.RpcError as e:
                if self._closed.is_set():
                    break
                self._client.hint(idx, e.trailing_metadata())
                if e.code() == grpc.StatusCode.INVALID_ARGUMENT:
                    self.close()
                    raise
            with self._lock:
                self._call = None
            if self._closed.is_set():
                break
            self._client.move_on(idx)  # a node that shuts down ends its streams: reopen elsewhere
            # a backoff before reopening, not a synchronisation: close() ends it at once
            self._closed.wait(full_jitter(self._failures, FIRST_BACKOFF, MAX_BACKOFF))
            self._failures += 1
        raise StopIteration

    def _open(self) -> Optional[Tuple[Any, int]]:
        """The open stream (opened at the current endpoint when none is), or None once closed."""
        with self._lock:
            if self._closed.is_set():
                return None
            if self._call is None:
                idx = self._client.current_endpoint()
                stub = rpc.ElectionStub(self._client.channel(idx))
                self._call = (stub.Observe(self._point.request(self._name)), idx)
            return self._call

    def close(self) -> None:
        """Ends the iteration (the stream is cancelled); idempotent, from any thread."""
        self._closed.set()
        with self._lock:
            call = self._call
        if call is not None:
            call[0].cancel()

    def __enter__(self) -> "Observation":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
