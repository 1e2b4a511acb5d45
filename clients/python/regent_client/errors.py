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
    """A refusal that arrived inside a stream's answer (a keepalive's NOT_FOUND): code() and details()."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self._code = code
        self._details = details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details
