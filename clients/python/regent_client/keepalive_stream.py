"""One Lease/KeepAliveStream on one channel (docs/api.md, "Keepalives"): etcd's LeaseKeepAlive for this client."""

from __future__ import annotations

import itertools
import queue
import threading
from typing import Callable, Dict, Optional, Tuple

import grpc

from regent_client.errors import CODES, StatusError
from regent_client.routing import Metadata
from regent_client.v1 import regent_pb2 as pb
from regent_client.v1 import regent_pb2_grpc as rpc


class KeepAliveStream:
    """Each keepalive is one message, matched to its answer by a tag; one lease's verdict leaves the stream up.

    on_metadata gets the stream's leader hints (its initial metadata, or the trailers of its end: a leader change
    ends the stream with UNAVAILABLE and names the new leader there).
    """

    def __init__(self, channel: grpc.Channel, on_metadata: Callable[[Metadata], None]) -> None:
        self._requests: "queue.Queue[Optional[pb.LeaseKeepAliveRequest]]" = queue.Queue()
        self._waiting: Dict[int, Tuple[threading.Event, dict]] = {}
        self._tags = itertools.count()
        self._lock = threading.Lock()
        self._failed: Optional[grpc.RpcError] = None
        self._call = rpc.LeaseStub(channel).KeepAliveStream(iter(self._requests.get, None))
        self._on_metadata = on_metadata
        threading.Thread(target=self._read, name="regent-keepalive-stream", daemon=True).start()

    def failed(self) -> bool:
        """Whether the stream has ended (a new one is then needed)."""
        return self._failed is not None

    def keep_alive(self, lease: int, timeout: float) -> pb.LeaseKeepAliveResponse:
        """The answer within `timeout` seconds; raises grpc.RpcError with the unary KeepAlive's code (NOT_FOUND:
        gone), DEADLINE_EXCEEDED when unanswered in time, or the stream's own failure."""
        done = threading.Event()
        slot: dict = {}
        with self._lock:
            if self._failed is not None:
                raise self._failed
            tag = next(self._tags)
            self._waiting[tag] = (done, slot)
        self._requests.put(pb.LeaseKeepAliveRequest(id=lease, tag=tag))
        if not done.wait(timeout):
            with self._lock:
                self._waiting.pop(tag, None)
            raise StatusError(grpc.StatusCode.DEADLINE_EXCEEDED, "keepalive of lease %d not answered in time" % lease)
        if "error" in slot:
            raise slot["error"]
        return slot["answer"]

    def _read(self) -> None:
        error: grpc.RpcError
        try:
            first = True
            for r in self._call:
                if first:
                    self._on_metadata(self._call.initial_metadata())
                    first = False
                with self._lock:
                    entry = self._waiting.pop(r.tag, None)
                if entry is None:
                    continue  # given up on already
                done, slot = entry
                if r.code == 0:
                    slot["answer"] = r
                else:
                    slot["error"] = StatusError(CODES.get(r.code, grpc.StatusCode.UNKNOWN), r.message, in_band=True)
                done.set()
            error = StatusError(grpc.StatusCode.UNAVAILABLE, "keepalive stream ended by the node")
        except grpc.RpcError as e:
            self._on_metadata(e.trailing_metadata())  # a leader change names the new leader here
            error = e
        with self._lock:
            self._failed = error
            waiting, self._waiting = self._waiting, {}
        for done, slot in waiting.values():
            slot["error"] = error
            done.set()

    def close(self) -> None:
        """Ends the stream; keepalives waiting on it fail."""
        self._requests.put(None)
        self._call.cancel()
