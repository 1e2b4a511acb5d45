"""Regent's asyncio client (grpc.aio): the thread client's verbs as coroutines, on the same request building
(messages.py), routing (routing.py), 2/3-TTL rule (lease_validity.py) and observe positions (resume_point.py).

    from regent_client.aio import connect

    async with connect("127.0.0.1:7101,127.0.0.1:7102") as c:
        async with await c.lock("jobs", ttl=5.0) as lock:
            await write_with(lock.token)

Keepalives are unary calls here (the thread client's KeepAliveStream is not used).
"""

from __future__ import annotations

import time
from typing import Any, Dict, Optional

import grpc

from regent_client import tls
from regent_client.aio_keeper import AsyncLeaseKeeper
from regent_client.aio_observe import AsyncObservation
from regent_client.aio_ownership import AsyncOwnership
from regent_client.elections import CAMPAIGN_TIMEOUT, DEFAULT_TTL, default_owner
from regent_client.endpoints import FAILOVER, STUBS, Endpoints, attempt_budget, parse_endpoints
from regent_client.errors import answered_unavailable
from regent_client.holder import Held
from regent_client.keeper import Callback
from regent_client.messages import HOLD_RPCS, Bytes, Messages
from regent_client.namespace import Namespace
from regent_client.ownership import OnAssigned, OnReason, OnResumed, OnRevoked
from regent_client.routing import LeaderRouting, Metadata
from regent_client.v1 import group_pb2 as gpb
from regent_client.v1 import regent_pb2 as pb


class AsyncLeadership(Held):
    """A held name or lock of the asyncio client (AsyncClient.elect, AsyncClient.lock); an async context manager
    whose exit releases it. valid(), check(), suspended(), deadline() as the thread client's Leadership."""

    def __init__(self, client: "AsyncClient", keeper: AsyncLeaseKeeper, key: pb.LeaderKey, kind: str) -> None:
        super().__init__(keeper, key, kind)
        self.client = client

    async def proclaim(self, value: Bytes) -> pb.LeaderKey:
        """Publishes `value` (elections only); the new key. FAILED_PRECONDITION when no longer the holder;
        ValueError for a lock."""
        self._check_proclaim()
        self.key = await self.client.proclaim(self.key, value)
        return self.key

    async def close(self) -> None:
        """Stops renewing, resigns (or unlocks) and revokes the lease in one entry; revokes alone, best effort,
        when that is refused or fails. Idempotent."""
        if not self._start_release():
            return
        release = self.client.unlock if self.kind == "lock" else self.client.resign
        try:
            await release(self.key, revoke_lease=True)
        except grpc.RpcError:
            try:
                await self.client.revoke(self.lease)
            except grpc.RpcError:
                pass  # no quorum, or gone already: the lease expires on its own

    async def __aenter__(self) -> "AsyncLeadership":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class AsyncClient:
    """client.Client's rules on grpc.aio: leader-aware routing, failover after UNAVAILABLE or DEADLINE_EXCEEDED
    with at most half the time left per attempt (a blocking campaign or lock: all of it, moved on from a dead node
    only), one request id per mutating call on every re-send (docs/api.md, "Request ids" and "Attempts"). TLS and
    namespace as Client's. Use it within one event loop; close() (or `async with`) when done."""

    def __init__(self, endpoints: Endpoints, timeout: float = 15.0, cacert: Optional[str] = None,
                 cert: Optional[str] = None, key: Optional[str] = None, namespace: str = "") -> None:
        self.endpoints = parse_endpoints(endpoints)
        self.timeout = timeout
        self.ns = Namespace(namespace)
        self._msg = Messages(self.ns)
        creds = tls.credentials(cacert, cert, key)
        self._channels = [grpc.aio.insecure_channel(e) if creds is None else grpc.aio.secure_channel(e, creds)
                          for e in self.endpoints]
        self._current = 0
        self._routing = LeaderRouting(self.endpoints)

    def current_endpoint(self) -> int:
        """The index of the endpoint calls not routed to the leader start at."""
        return self._current

    def channel(self, idx: int) -> grpc.aio.Channel:
        """The channel of endpoint `idx`."""
        return self._channels[idx]

    def hint(self, idx: int, metadata: Metadata) -> None:
        """Takes the leader hint of a reply or refusal from endpoint `idx`."""
        self._routing.observe(idx, metadata)

    def move_on(self, idx: int, node_answered: bool = False) -> None:
        """Endpoint `idx` failed: the next call starts at the following one (the routing: LeaderRouting.failed)."""
        self._routing.failed(idx, node_answered)
        if self._current == idx:
            self._current = (idx + 1) % len(self._channels)

    async def close(self) -> None:
        """Closes every channel; calls in flight fail."""
        for ch in self._channels:
            await ch.close()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, service: str, method: str, request: Any, timeout: Optional[float] = None,
                    to_leader: bool = True, whole_budget: bool = False) -> Any:
        """As Client._failover: from the leader's endpoint (or the current) on; every re-send is `request` itself."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        last: Optional[grpc.RpcError] = None
        n = len(self._channels)
        quiet = self._routing.quiet()  # as Calls._leave_quiet_leader
        if quiet is not None and self._current == quiet:
            self._current = (quiet + 1) % n
        for i in range(n):
            idx = self._current
            leader = self._routing.leader()
            if i == 0 and to_leader and leader is not None:
                idx = leader
            left = deadline - time.monotonic()
            if left <= 0:
                break
            call = getattr(STUBS[service](self._channels[idx]), method)(
                request, timeout=attempt_budget(left, i, n, whole_budget))
            # only calls that answer promptly: a blocking campaign waits at the leader while its name is held
            ticket = self._routing.sent(idx) if idx == leader and not whole_budget else None
            try:
                response = await call
            except grpc.RpcError as e:
                self.hint(idx, e.trailing_metadata())
                if e.code() not in FAILOVER:
                    raise
                self.move_on(idx, answered_unavailable(e))
                last = e
                continue
            finally:
                if ticket is not None:
                    self._routing.done(ticket)
            self.hint(idx, await call.initial_metadata())
            return response
        if last is None:
            raise TimeoutError("no time left for the call")
        raise last

    async def grant(self, ttl: float, tenant: str = "") -> int:
        """Client.grant: a lease of `ttl` seconds in the cell of `tenant`, once whatever the re-sends; its id."""
        return (await self._call("Lease", "Grant", self._msg.grant(ttl, tenant))).id

    async def keep_alive(self, lease: int, timeout: float) -> int:
        """Renews a lease within `timeout` seconds; its TTL, ms. NOT_FOUND once it is gone."""
        return (await self.keep_alive_answer(lease, timeout)).ttl_ms

    async def keep_alive_answer(self, lease: int, timeout: float) -> pb.LeaseKeepAliveResponse:
        """keep_alive() with the whole answer (the TTL and the answering node's clock reading)."""
        return await self._call("Lease", "KeepAlive", pb.LeaseKeepAliveRequest(id=lease), timeout=timeout)

    async def revoke(self, lease: int) -> None:
        """Revokes a lease, freeing every name it holds. NOT_FOUND when gone already."""
        await self._call("Lease", "Revoke", self._msg.revoke(lease))

    async def time_to_live(self, lease: int) -> pb.LeaseTimeToLiveResponse:
        """A lease's TTL, remaining_ms and names. NOT_FOUND when gone."""
        return await self._call("Lease", "TimeToLive", self._msg.time_to_live(lease))

    async def campaign(self, name: str, lease: int, value: Bytes = b"", timeout: float = CAMPAIGN_TIMEOUT,
                       lock_delay: float = 0.0) -> pb.LeaderKey:
        """Client.campaign: blocks until `lease` holds `name` (DEADLINE_EXCEEDED after `timeout` s)."""
        request = self._msg.campaign(name, lease, value, lock_delay)
        return self.ns.key_out((await self._call("Election", "Campaign", request, timeout, True, True)).leader)

    async def proclaim(self, key: pb.LeaderKey, value: Bytes) -> pb.LeaderKey:
        """Replaces the holder's value; FAILED_PRECONDITION when `key` no longer holds the name."""
        return self.ns.key_out((await self._call("Election", "Proclaim", self._msg.proclaim(key, value))).leader)

    async def resign(self, key: pb.LeaderKey, revoke_lease: bool = False) -> None:
        """Gives the name up (revoke_lease: and the lease, in one entry); FAILED_PRECONDITION when not the holder."""
        await self._call("Election", "Resign", self._msg.resign(key, revoke_lease))

    async def unlock(self, key: pb.LeaderKey, revoke_lease: bool = False) -> None:
        """Releases the lock held with `key`; FAILED_PRECONDITION when not the owner."""
        await self._call("Lock", "Unlock", self._msg.unlock(key, revoke_lease))

    async def leader(self, name: str, serializable: bool = False) -> Optional[pb.LeaderKey]:
        """The current holder of `name`, read linearizably (or serializable); None when free."""
        try:
            answer = await self._call("Election", "Leader", self._msg.leader(name, serializable),
                                      to_leader=not serializable)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise
        return self.ns.key_out(answer.leader)

    async def status(self) -> pb.StatusResponse:
        """The answering node's view of the cluster."""
        return await self._call("Cluster", "Status", pb.StatusRequest(), to_leader=False)

    def observe(self, name: str, after: int = 0) -> AsyncObservation:
        """Client.observe as an async iterator (aio_observe.py). ValueError for after < 0."""
        return AsyncObservation(self, name, after)

    async def elect(self, name: str, ttl: float = DEFAULT_TTL, value: Bytes = b"",
                    timeout: float = CAMPAIGN_TIMEOUT, on_lost: Callback = None, on_suspended: Callback = None,
                    on_resumed: Callback = None, suspend: bool = False, grace: Optional[float] = None,
                    lock_delay: float = 0.0) -> AsyncLeadership:
        """Client.elect on the event loop: the lease is kept alive by a task (aio_keeper.py)."""
        return await self._hold("election", name, ttl, value, timeout, lock_delay,
                                dict(on_lost=on_lost, on_suspended=on_suspended, on_resumed=on_resumed,
                                     suspend=suspend, grace=grace))

    async def lock(self, name: str, ttl: float = DEFAULT_TTL, owner: Optional[Bytes] = None,
                   timeout: float = CAMPAIGN_TIMEOUT, on_lost: Callback = None, on_suspended: Callback = None,
                   on_resumed: Callback = None, suspend: bool = False, grace: Optional[float] = None,
                   lock_delay: float = 0.0) -> AsyncLeadership:
        """Client.lock on the event loop: blocks until held; owner defaults to host:pid."""
        return await self._hold("lock", name, ttl, default_owner() if owner is None else owner, timeout,
                                lock_delay, dict(on_lost=on_lost, on_suspended=on_suspended, on_resumed=on_resumed,
                                                 suspend=suspend, grace=grace))

    async def join_group(self, group: str, member: str, partitions: int = 0, ttl: float = DEFAULT_TTL,
                         on_assigned: OnAssigned = None, on_revoked: OnRevoked = None, on_step_down: OnReason = None,
                         on_suspended: OnReason = None, on_resumed: OnResumed = None, suspend: bool = False,
                         grace: Optional[float] = None) -> AsyncOwnership:
        """Client.join_group on the event loop (aio_ownership.py): same arguments, callbacks and errors."""
        return await AsyncOwnership.join(self, group, member, partitions, ttl, on_assigned=on_assigned,
                                         on_revoked=on_revoked, on_step_down=on_step_down,
                                         on_suspended=on_suspended, on_resumed=on_resumed, suspend=suspend,
                                         grace=grace)

    async def group_status(self, group: str, serializable: bool = False) -> gpb.GroupStatusResponse:
        """Client.group_status: a group's whole assignment. NOT_FOUND for no such group."""
        answer = await self._call("Group", "Status", self._msg.group_status(group, serializable),
                                  to_leader=not serializable)
        answer.group = group
        return answer

    async def _hold(self, kind: str, name: str, ttl: float, value: Bytes, timeout: float, lock_delay: float,
                    keeper_options: Dict[str, Any]) -> AsyncLeadership:
        request = self._msg.hold(kind, name, value, lock_delay)
        grant = self._msg.grant(ttl, name)  # in the name's cell (docs/architecture.md §14)
        sent = time.monotonic()
        lease = (await self._call("Lease", "Grant", grant)).id
        keeper = AsyncLeaseKeeper(self, lease, ttl, sent, **keeper_options)
        request.lease = lease
        service, method, field = HOLD_RPCS[kind]
        try:
            key = getattr(await self._call(service, method, request, timeout, True, True), field)
        except BaseException:
            keeper.stop()
            try:
                await self.revoke(lease)  # frees the name should the campaign have won as its deadline passed
            except grpc.RpcError:
                pass  # no quorum: the lease expires one TTL after its last renewal
            raise
        return AsyncLeadership(self, keeper, self.ns.key_out(key), kind)


def connect(endpoints: Endpoints, timeout: float = 15.0, cacert: Optional[str] = None, cert: Optional[str] = None,
            key: Optional[str] = None, namespace: str = "") -> AsyncClient:
    """An AsyncClient over `endpoints` ("h1:p1,h2:p2" or a list); channels connect lazily, on the running loop."""
    return AsyncClient(endpoints, timeout, cacert=cacert, cert=cert, key=key, namespace=namespace)
