"""Regent's client: endpoints with failover, and elect() that keeps its lease on a thread.

The lease rule is the one of Regent's docs/architecture.md section 3, as the Java LeaseKeeper applies it:
renew every ttl/3, count validity from the moment the last acknowledged keepalive was *sent* (on the
monotonic clock), and stop acting as leader 2/3 ttl after that, whatever the server says.
"""

import threading
import time

import grpc

from regent.v1 import regent_pb2 as pb
from regent.v1 import regent_pb2_grpc as rpc

# Status codes after which a call that is safe to repeat is tried at the next endpoint.
_FAILOVER = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


class LostLeadership(Exception):
    """Raised by Leadership.check() once the lease can no longer be vouched for."""


class Client:
    """A client over several endpoints (host:port of any nodes); calls stick to one and move on when it fails.

    timeout: deadline of each call, seconds. Calls that are safe to repeat (keepalives, reads, campaign by
    lease, resign, revoke) are retried at the next endpoint after UNAVAILABLE or DEADLINE_EXCEEDED; grant
    is not re-sent after a timeout (a lease may have been granted: unrenewed, it expires after its TTL).
    Errors are grpc.RpcError with the codes of docs/api.md.
    """

    def __init__(self, endpoints, timeout=15.0):
        if isinstance(endpoints, str):
            endpoints = [e.strip() for e in endpoints.split(",") if e.strip()]
        if not endpoints:
            raise ValueError("at least one endpoint is required")
        self.endpoints = list(endpoints)
        self.timeout = timeout
        self._channels = [grpc.insecure_channel(e) for e in self.endpoints]
        self._current = 0
        self._lock = threading.Lock()

    def close(self):
        for ch in self._channels:
            ch.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _call(self, method, request, timeout=None, safe=True):
        """Calls stub method `method` (e.g. ("Lease", "KeepAlive")) from the current endpoint on."""
        service, name = method
        stubs = {"Lease": rpc.LeaseStub, "Election": rpc.ElectionStub, "Cluster": rpc.ClusterStub}
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        last = None
        for _ in range(len(self._channels)):
            with self._lock:
                idx = self._current
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                return getattr(stubs[service](self._channels[idx]), name)(request, timeout=left)
            except grpc.RpcError as e:
                if e.code() not in _FAILOVER:
                    raise
                with self._lock:
                    if self._current == idx:
                        self._current = (idx + 1) % len(self._channels)
                if not safe and e.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                    raise
                last = e
        if last is None:
            raise TimeoutError("no time left for the call")
        raise last

    def grant(self, ttl):
        """Grants a lease of `ttl` seconds; its id. Not re-sent after a timeout."""
        return self._call(("Lease", "Grant"), pb.LeaseGrantRequest(ttl_ms=int(ttl * 1000)), safe=False).id

    def keep_alive(self, lease, timeout):
        """Renews a lease within `timeout` seconds; NOT_FOUND once it is gone."""
        return self._call(("Lease", "KeepAlive"), pb.LeaseKeepAliveRequest(id=lease), timeout=timeout).ttl_ms

    def revoke(self, lease):
        """Revokes a lease, freeing every name it holds."""
        self._call(("Lease", "Revoke"), pb.LeaseRevokeRequest(id=lease))

    def campaign(self, name, lease, value=b"", timeout=3600.0):
        """Blocks until `lease` holds `name` (at most `timeout` s); the LeaderKey (name, value, token, lease)."""
        return self._call(("Election", "Campaign"), pb.CampaignRequest(name=name, lease=lease, value=value),
                          timeout=timeout).leader

    def resign(self, key):
        """Gives the name up; FAILED_PRECONDITION when `key` no longer holds it."""
        self._call(("Election", "Resign"), pb.ResignRequest(leader=key))

    def leader(self, name):
        """The current holder of `name` (a LeaderKey), read linearizably; None when free."""
        try:
            return self._call(("Election", "Leader"), pb.LeaderRequest(name=name)).leader
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise

    def status(self):
        """The answering node's view: node, leader, term, commit_index, applied_index, members, version."""
        return self._call(("Cluster", "Status"), pb.StatusRequest())

    def elect(self, name, ttl, value=b"", timeout=3600.0, on_lost=None):
        """Grants a lease, campaigns for `name` and returns a Leadership (a context manager) once elected.

        ttl: lease TTL, seconds (the cluster's minimum is 1.5 x its max election timeout). The lease is kept
        alive on a daemon thread; `on_lost(reason)` is called once when leadership can no longer be vouched
        for (2/3 ttl without an acknowledged keepalive, or the lease gone). Leaving the `with` block resigns
        and revokes the lease.
        """
        sent = time.monotonic()
        lease = self.grant(ttl)
        keeper = _Keeper(self, lease, ttl, sent, on_lost)
        try:
            key = self.campaign(name, lease, value, timeout=timeout)
        except BaseException:
            keeper.stop()
            _quietly(self.revoke, lease)
            raise
        return Leadership(self, keeper, key)


class _Keeper(threading.Thread):
    """Renews one lease every ttl/3 on its own thread; validity ends 2/3 ttl after the last acked send."""

    RETRY = 0.1  # seconds before retrying a failed keepalive (at most ttl/10)

    def __init__(self, client, lease, ttl, grant_sent, on_lost):
        super().__init__(name="regent-lease-%d" % lease, daemon=True)
        self.client = client
        self.lease = lease
        self.ttl = ttl
        self.on_lost = on_lost
        self._last_ack_sent = grant_sent
        self._down = False
        self._reason = None
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self.start()

    def deadline(self):
        """When (time.monotonic()) the holder must have stopped acting, unless renewed before."""
        with self._lock:
            return self._last_ack_sent + self.ttl * 2 / 3

    def valid(self):
        """True while renewed within 2/3 ttl of a send; once False, False for ever."""
        with self._lock:
            if not self._down and time.monotonic() >= self._last_ack_sent + self.ttl * 2 / 3:
                self._lose_locked("lease %d not renewed for 2/3 of its %.3f s TTL" % (self.lease, self.ttl))
            return not self._down

    def reason(self):
        with self._lock:
            return self._reason

    def _lose_locked(self, reason):
        if self._down:
            return
        self._down = True
        self._reason = reason
        self._stopped.set()
        if self.on_lost is not None:
            threading.Thread(target=self.on_lost, args=(reason,), daemon=True).start()

    def run(self):
        next_renew = self._last_ack_sent + self.ttl / 3
        while True:
            # Wake for the next renewal, or at the deadline to step down (and tell on_lost) on time.
            if self._stopped.wait(max(0.0, min(next_renew, self.deadline()) - time.monotonic())):
                return
            if not self.valid():
                return
            if time.monotonic() < next_renew:
                continue
            sent = time.monotonic()
            try:
                self.client.keep_alive(self.lease, timeout=max(0.05, self.deadline() - sent))
                with self._lock:
                    if self._down:
                        return
                    if time.monotonic() >= self._last_ack_sent + self.ttl * 2 / 3:
                        # Acknowledged too late: the holder had to stop already; a late ack revives nothing.
                        self._lose_locked("lease %d renewed only after 2/3 of its TTL had passed" % self.lease)
                        return
                    self._last_ack_sent = max(self._last_ack_sent, sent)
                next_renew = sent + self.ttl / 3
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.NOT_FOUND:
                    with self._lock:
                        self._lose_locked("lease %d expired or was revoked" % self.lease)
                    return
                next_renew = time.monotonic() + min(self.RETRY, self.ttl / 10)

    def stop(self):
        with self._lock:
            self._down = True
        self._stopped.set()


class Leadership:
    """One term of leadership: `key` (name, value, token, lease), `token`, `valid()`; a context manager."""

    def __init__(self, client, keeper, key):
        self.client = client
        self._keeper = keeper
        self.key = key
        self.token = key.token
        self.lease = key.lease

    def valid(self):
        """Whether this process may still act as leader (lease renewed within 2/3 ttl of a send)."""
        return self._keeper.valid()

    def check(self):
        """Raises LostLeadership (with the reason) unless valid(); call it before each write."""
        if not self.valid():
            raise LostLeadership(self._keeper.reason())

    def deadline(self):
        """time.monotonic() by which the holder must stop acting unless the lease is renewed before."""
        return self._keeper.deadline()

    def close(self):
        """Resigns (best effort) and revokes the lease."""
        self._keeper.stop()
        _quietly(self.client.resign, self.key)
        _quietly(self.client.revoke, self.lease)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _quietly(call, *args):
    try:
        call(*args)
    except grpc.RpcError:
        pass  # not the holder any more, or no quorum: the lease then expires on its own


def connect(endpoints, timeout=15.0):
    """A Client over `endpoints` ("h1:p1,h2:p2" or a list)."""
    return Client(endpoints, timeout)
