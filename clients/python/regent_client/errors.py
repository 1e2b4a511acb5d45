"""The client's own errors; every refusal of a node is a grpc.RpcError with the codes of docs/api.md "Status codes"."""

from __future__ import annotations

from typing import Dict

import grpc

# The numeric status codes a stream's answer carries (LeaseKeepAliveResponse.code), to grpc's enum.
CODES: Dict[int, grpc.StatusCode] = {c.value[0]: c for c in grpc.StatusCode}


class LostLeadership(Exception):
    """Raised by Leadership.check() once the holder may not act: lost for good, or (with suspension) in doubt.

    `lost` is True when the lease is gone or can never be vouched for again, False while only suspended.
    """

    def __init__(self, reason: str, lost: bool = True) -> None:
        super().__init__(reason)
        self.lost = lost


class StatusError(grpc.RpcError):
    """A refusal that arrived inside a stream's answer (a keepalive's NOT_FOUND): code() and details().

    `in_band` is True when a node sent it as a stream's message (it is alive and answering), False when the
    client made it (a deadline used up, a stream that ended)."""

    def __init__(self, code: grpc.StatusCode, details: str, in_band: bool = False) -> None:
        super().__init__(details)
        self._code = code
        self._details = details
        self.in_band = in_band

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


def answered_unavailable(e: grpc.RpcError) -> bool:
    """Whether `e` is an UNAVAILABLE that a Regent node answered itself — a stream's message, or a status whose
    trailers name the node (`regent-node`) — rather than the transport's (unreachable, connection lost). Only the
    transport's makes the leader's endpoint suspect: a new leader that refuses keepalives while it becomes ready
    stays the endpoint calls start at (docs/api.md, "Leader-aware routing")."""
    if e.code() != grpc.StatusCode.UNAVAILABLE:
        return False
    if isinstance(e, StatusError):
        return e.in_band
    trailers = e.trailing_metadata() if hasattr(e, "trailing_metadata") else None
    return any(k == "regent-node" for k, _ in (trailers or ()))
