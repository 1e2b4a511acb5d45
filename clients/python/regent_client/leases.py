"""A Client's lease calls (docs/api.md, "Lease"); keepalives on one KeepAliveStream per endpoint."""

from __future__ import annotations

from typing import Dict

import grpc

from regent_client.calls import Calls
from regent_client.keepalive_stream import KeepAliveStream
from regent_client.v1 import regent_pb2 as pb


class Leases(Calls):
    """grant, keep_alive, revoke, time_to_live."""

    def grant(self, ttl: float, tenant: str = "") -> int:
        """Grants a lease of `ttl` seconds; its id. Re-sent with one request id: a grant that applied before its
        answer was lost answers with its lease, never a second one. INVALID_ARGUMENT for a TTL out of the cluster's
        range (docs/api.md, "Lease"); ValueError for one <= 0. On a cluster of several cells the lease sits in the
        cell of `tenant` (a tenant or any name of it, in this client's namespace; "" for cell 0) and holds names of
        that cell only (docs/architecture.md §14); TypeError for a tenant that is not a str."""
        return self._call("Lease", "Grant", self._msg.grant(ttl, tenant)).id

    def keep_alive(self, lease: int, timeout: float) -> int:
        """Renews a lease within `timeout` seconds; its TTL, ms. NOT_FOUND once it is gone."""
        return self.keep_alive_answer(lease, timeout).ttl_ms

    def keep_alive_answer(self, lease: int, timeout: float) -> pb.LeaseKeepAliveResponse:
        """keep_alive() with the whole LeaseKeepAliveResponse: the TTL and the answering node's clock reading."""
        unary = self._attempt("Lease", "KeepAlive", pb.LeaseKeepAliveRequest(id=lease))
        if self._streams is None:
            return self._failover(unary, timeout, True)
        streams: Dict[int, KeepAliveStream] = self._streams

        def attempt(idx: int, left: float) -> pb.LeaseKeepAliveResponse:
            if idx in self._unary:
                return unary(idx, left)
            with self._lock:
                stream = streams.get(idx)
                if stream is None or stream.failed():
                    stream = KeepAliveStream(self._channels[idx], lambda md: self.hint(idx, md))
                    streams[idx] = stream
            try:
                return stream.keep_alive(lease, left)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNIMPLEMENTED:
                    raise
                self._unary.add(idx)  # a node of an older version: unary calls from now on
                return unary(idx, left)

        return self._failover(attempt, timeout, True)

    def revoke(self, lease: int) -> None:
        """Revokes a lease, freeing every name it holds. NOT_FOUND when it is gone already."""
        self._call("Lease", "Revoke", self._msg.revoke(lease))

    def time_to_live(self, lease: int) -> pb.LeaseTimeToLiveResponse:
        """A lease's TTL, ms, what is left of it (remaining_ms) and the names it holds. NOT_FOUND when gone."""
        return self._call("Lease", "TimeToLive", self._msg.time_to_live(lease))

