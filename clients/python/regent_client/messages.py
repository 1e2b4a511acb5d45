"""The requests of the client's verbs, built and checked once for the thread client and the asyncio one.

Every mutating request gets a request id of its own here, before its first send; the clients re-send the very
message, so every re-send carries that id (docs/api.md, "Request ids: exactly-once mutating calls").
"""

from __future__ import annotations

import math
import secrets
from typing import Mapping, Union

from regent_client.namespace import Namespace
from regent_client.v1 import group_pb2 as gpb
from regent_client.v1 import regent_pb2 as pb

Bytes = Union[bytes, str]  # a value or owner: bytes, or a str sent as UTF-8

# The RPC that takes a name for elect() and lock(), and the field of its answer holding the LeaderKey.
HOLD_RPCS = {"election": ("Election", "Campaign", "leader"), "lock": ("Lock", "Lock", "key")}

MAX_LOCK_DELAY = 3600.0  # seconds: docs/api.md, "Election" (lock_delay_ms 0..3 600 000)
MAX_PARTITIONS = 65536  # a group's partition count: 1..65 536 (docs/ownership.md, "The rule")
MAX_MEMBER_BYTES = 128  # a member id: 1..128 bytes (docs/ownership.md, "The rule")


def request_id() -> str:
    """A new request id: 128 random bits in base64url (22 characters of [A-Za-z0-9_-], within the server's 1..64
    of [A-Za-z0-9._:-]), so two requests share one only by chance."""
    return secrets.token_urlsafe(16)


def seconds_to_ms(seconds: float, what: str) -> int:
    """`seconds` in whole ms; ValueError (naming `what`) unless a finite number >= 0."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or seconds < 0:
        raise ValueError("%s must be a finite number of seconds >= 0, not %r" % (what, seconds))
    return int(round(seconds * 1000))


def ttl_ms(ttl: float) -> int:
    """A lease TTL in ms; ValueError unless at least 1 ms. The cluster refuses one below 1.5 x its max election
    timeout or above 3 600 s with INVALID_ARGUMENT (docs/api.md, "Lease")."""
    if seconds_to_ms(ttl, "ttl") <= 0:
        raise ValueError("ttl must be > 0 seconds, not %r" % (ttl,))
    return seconds_to_ms(ttl, "ttl")


def to_bytes(value: Bytes, what: str) -> bytes:
    """bytes as they are, a str as UTF-8; TypeError otherwise."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise TypeError("%s must be bytes or str, not %s" % (what, type(value).__name__))


def check_name(name: str) -> str:
    """`name` when a non-empty str; TypeError or ValueError otherwise (the cluster checks the rest, docs/api.md
    "Names")."""
    if not isinstance(name, str):
        raise TypeError("name must be a str, not %s" % type(name).__name__)
    if not name:
        raise ValueError("name must not be empty")
    return name


def check_member(member: str) -> str:
    """`member` when a str of 1..128 bytes in UTF-8 (docs/ownership.md, "The rule"); TypeError or ValueError
    otherwise."""
    if not isinstance(member, str):
        raise TypeError("member must be a str, not %s" % type(member).__name__)
    if not 1 <= len(member.encode("utf-8")) <= MAX_MEMBER_BYTES:
        raise ValueError("member must be 1..%d bytes in UTF-8, not %r" % (MAX_MEMBER_BYTES, member))
    return member


class Messages:
    """Builds the request of each verb of the same name (Client.grant, .campaign, .lock_with_lease, ...), its
    names prefixed with the namespace (namespace.py) and its arguments checked: ValueError or TypeError (see the
    functions above) before anything is sent."""

    def __init__(self, namespace: Namespace) -> None:
        self.ns = namespace

    def grant(self, ttl: float, tenant: str = "") -> pb.LeaseGrantRequest:
        """A grant in the cell of `tenant` (a tenant or a name of this namespace; "" for cell 0)."""
        if not isinstance(tenant, str):
            raise TypeError(f"tenant must be a str, not {type(tenant).__name__}")
        return pb.LeaseGrantRequest(ttl_ms=ttl_ms(ttl), request_id=request_id(),
                                    tenant=self.ns.name(tenant) if tenant else "")

    @staticmethod
    def revoke(lease: int) -> pb.LeaseRevokeRequest:
        return pb.LeaseRevokeRequest(id=lease, request_id=request_id())

    @staticmethod
    def time_to_live(lease: int) -> pb.LeaseTimeToLiveRequest:
        return pb.LeaseTimeToLiveRequest(id=lease)

    def campaign(self, name: str, lease: int, value: Bytes, lock_delay: float) -> pb.CampaignRequest:
        # each send is an attempt of its own on the server (docs/api.md, "Attempts"); the id changes nothing there
        return pb.CampaignRequest(name=self.ns.name(check_name(name)), lease=lease, value=to_bytes(value, "value"),
                                  lock_delay_ms=self._lock_delay(lock_delay), request_id=request_id())

    def lock(self, name: str, lease: int, owner: Bytes, lock_delay: float) -> pb.LockRequest:
        return pb.LockRequest(name=self.ns.name(check_name(name)), lease=lease, owner=to_bytes(owner, "owner"),
                              lock_delay_ms=self._lock_delay(lock_delay), request_id=request_id())

    def hold(self, kind: str, name: str, value: Bytes, lock_delay: float) -> Union[pb.LockRequest, pb.CampaignRequest]:
        """The blocking call of elect() ("election": Campaign) or lock() ("lock": Lock.Lock), its lease still to set;
        built before the lease is granted, so that bad input grants nothing."""
        return self.lock(name, 0, value, lock_delay) if kind == "lock" else self.campaign(name, 0, value, lock_delay)

    def proclaim(self, key: pb.LeaderKey, value: Bytes) -> pb.ProclaimRequest:
        return pb.ProclaimRequest(leader=self.ns.key_in(key), value=to_bytes(value, "value"), request_id=request_id())

    def resign(self, key: pb.LeaderKey, revoke_lease: bool) -> pb.ResignRequest:
        return pb.ResignRequest(leader=self.ns.key_in(key), revoke_lease=revoke_lease, request_id=request_id())

    def unlock(self, key: pb.LeaderKey, revoke_lease: bool) -> pb.UnlockRequest:
        return pb.UnlockRequest(key=self.ns.key_in(key), revoke_lease=revoke_lease, request_id=request_id())

    def leader(self, name: str, serializable: bool) -> pb.LeaderRequest:
        return pb.LeaderRequest(name=self.ns.name(check_name(name)), serializable=serializable)

    def group_join(self, group: str, member: str, ttl: float, partitions: int) -> gpb.GroupJoinRequest:
        """Join with a new lease of `ttl` granted in the same entry (group.proto), creating the group with
        `partitions` (0: it must exist); ValueError for a partition count outside 0..65 536 or a bad member id."""
        if isinstance(partitions, bool) or not isinstance(partitions, int):
            raise TypeError("partitions must be an int, not %s" % type(partitions).__name__)
        if not 0 <= partitions <= MAX_PARTITIONS:
            raise ValueError("partitions must be within 0..%d (0: join an existing group), not %d"
                             % (MAX_PARTITIONS, partitions))
        return gpb.GroupJoinRequest(group=self.ns.name(check_name(group)), member=check_member(member),
                                    ttl_ms=ttl_ms(ttl), partitions=partitions, request_id=request_id())

    def group_leave(self, group: str, member: str, lease: int) -> gpb.GroupLeaveRequest:
        return gpb.GroupLeaveRequest(group=self.ns.name(group), member=member, lease=lease, request_id=request_id())

    def group_release(self, group: str, tokens: Mapping[int, int]) -> gpb.GroupReleaseRequest:
        """Gives up each partition named with the token it was granted with (partition to token)."""
        return gpb.GroupReleaseRequest(
            group=self.ns.name(group), request_id=request_id(),
            partitions=[gpb.PartitionToken(partition=p, token=t) for p, t in sorted(tokens.items())])

    def group_watch(self, group: str, member: str, after: int) -> gpb.GroupWatchRequest:
        return gpb.GroupWatchRequest(group=self.ns.name(group), member=member, after_index=after)

    def group_status(self, group: str, serializable: bool) -> gpb.GroupStatusRequest:
        return gpb.GroupStatusRequest(group=self.ns.name(check_name(group)), serializable=serializable)

    @staticmethod
    def _lock_delay(seconds: float) -> int:
        ms = seconds_to_ms(seconds, "lock_delay")
        if ms > MAX_LOCK_DELAY * 1000:
            raise ValueError("lock_delay must be at most %d seconds, not %r" % (MAX_LOCK_DELAY, seconds))
        return ms
