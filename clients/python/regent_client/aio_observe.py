"""The asyncio observe(): observe.py's resuming stream as an async iterator (same rules, same ResumePoint)."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Optional, Tuple

import grpc

from regent_client.backoff import full_jitter
from regent_client.observe import FIRST_BACKOFF, MAX_BACKOFF, StreamSource
from regent_client.resume_point import ResumePoint
from regent_client.v1 import regent_pb2 as pb
from regent_client.v1 import regent_pb2_grpc as rpc


class AsyncObservation:
    """An async iterator of ObserveResponse for one name, reopened at the next endpoint after the last (index,
    ordinal) delivered when its stream fails (observe.Observation's rules). close() or leaving `async with` ends
    it; INVALID_ARGUMENT (a bad name) ends it with that grpc.RpcError."""

    def __init__(self, client: StreamSource, name: str, after: int = 0) -> None:
        self._client = client
        self._name = client.ns.name(name)
        self._point = ResumePoint(after)
        self._closed = asyncio.Event()
        self._call: Optional[Tuple[Any, int]] = None  # the open stream and its endpoint's index
        self._failures = 0

    @property
    def last_index(self) -> int:
        """The index of the last event delivered (where a reopened stream resumes)."""
        return self._point.index

    def __aiter__(self) -> AsyncIterator[pb.ObserveResponse]:
        return self

    async def __anext__(self) -> pb.ObserveResponse:
        while not self._closed.is_set():
            if self._call is None:
                idx = self._client.current_endpoint()
                self._call = (rpc.ElectionStub(self._client.channel(idx)).Observe(self._point.request(self._name)), idx)
            call, idx = self._call
            try:
                while True:
                    event = await call.read()
                    if event is grpc.aio.EOF:
                        break  # a node that shuts down ends its streams
                    if self._point.admit(event):
                        self._failures = 0
                        return self._client.ns.event_out(event)
            except asyncio.CancelledError:
                if not self._closed.is_set():
                    raise  # the caller's task was cancelled, not the stream by close()
                break
            except grpc.RpcError as e:
                if self._closed.is_set():
                    break
                self._client.hint(idx, e.trailing_metadata())
                if e.code() == grpc.StatusCode.INVALID_ARGUMENT:
                    self.close()
                    raise
            self._call = None
            self._client.move_on(idx)
            try:
                # a backoff before reopening, not a synchronisation: close() ends it at once
                await asyncio.wait_for(self._closed.wait(), full_jitter(self._failures, FIRST_BACKOFF, MAX_BACKOFF))
            except asyncio.TimeoutError:
                pass
            self._failures += 1
        raise StopAsyncIteration

    def close(self) -> None:
        """Ends the iteration (the stream is cancelled); idempotent."""
        self._closed.set()
        if self._call is not None:
            self._call[0].cancel()
            self._call = None

    async def __aenter__(self) -> "AsyncObservation":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
