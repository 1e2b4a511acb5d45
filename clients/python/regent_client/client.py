"""Regent's client: endpoints with failover and leader-aware routing, and elect() that keeps its lease on a thread.

The lease rule is the one of Regent's docs/architecture.md §3.6, as the Java LeaseKeeper applies it:
renew every ttl/3, count validity from the moment the last acknowledged keepalive was *sent* (on the
monotonic clock), and stop acting as leader 2/3 ttl after that, whatever the server says; and step down when
this process's clock runs slow against the answering node's (clock_rate.py, "Clock bounds" there).
"""

import itertools
import logging
import queue
import secrets
import threading
import time

import grpc

from regent_client import tls
from regent_client.backoff import full_jitter
from regent_client.clock_rate import ClockRate, Sample
from regent_client.namespace import Namespace

from regent_client.v1 import regent_pb2 as pb
from regent_client.v1 import regent_pb2_grpc as rpc

# Status codes after which a call is tried at the next endpoint: every call of this client is safe to repeat
# (docs/api.md, "Request ids": reads, keepalives, and every write with its request id).
_FAILOVER = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def _request_id():
    """A new request id (docs/api.md, "Request ids: exactly-once mutating calls"): 128 random bits, base64url.

    A write makes one before its first send and every re-send carries it (the request is built once), so the
    server applies the write once and answers a re-send of one that applied with the first answer.
    """
    return secrets.token_urlsafe(16)


class LostLeadership(Exception):
    """Raised by Leadership.check() once the lease can no longer be vouched for."""


class StatusError(grpc.RpcError):
    """A refusal that arrived inside a stream's answer (a keepalive's NOT_FOUND): code() and details()."""

    def __init__(self, code, details):
        super().__init__(details)
        self._code = code
        self._details = details

    def code(self):
        return self._code

    def details(self):
        return self._details


_CODES = {c.value[0]: c for c in grpc.StatusCode}


class _Routing:
    """Which endpoint calls for the Raft leader start at, from the leader metadata every reply carries.

    Every reply names its node (regent-node), its term (regent-term), the leader's member id (regent-leader-id)
    and the leader's published API address (regent-leader); docs/api.md, "Leader-aware routing". The leader of
    the highest term seen is kept; an endpoint reaches it when its last reply came from the leader's member id,
    or its address is the leader's published one. A leader endpoint that just failed is suspect (calls start at
    the current endpoint) until a hint names a newer term or the leader itself answers again.
    """

    def __init__(self, endpoints):
        self._endpoints = endpoints
        self._nodes = [None] * len(endpoints)
        self._term = -1
        self._leader_id = None
        self._leader_api = None
        self._suspect = False
        self._lock = threading.Lock()

    def observe(self, idx, metadata):
        md = dict(metadata or ())
        try:
            term = int(md["regent-term"])
        except (KeyError, ValueError):
            return
        with self._lock:
            node = md.get("regent-node")
            self._nodes[idx] = node
            if term > self._term:
                self._term, self._suspect = term, False
                self._leader_id, self._leader_api = md.get("regent-leader-id"), md.get("regent-leader")
            elif term == self._term and self._leader_id is None:
                self._leader_id, self._leader_api = md.get("regent-leader-id"), md.get("regent-leader")
            if node is not None and node == self._leader_id:
                self._suspect = False  # the leader itself answers again

    def leader(self):
        """The leader's endpoint index, or None (unknown, reached by no endpoint, or suspect)."""
        with self._lock:
            if self._leader_id is None or self._suspect:
                return None
            for i, n in enumerate(self._nodes):
                if n == self._leader_id:
                    return i
            if self._leader_api in self._endpoints:
                return self._endpoints.index(self._leader_api)
            return None

    def failed(self, idx):
        if self.leader() == idx:
            with self._lock:
                self._suspect = True


class _KeepAliveStream:
    """One Lease/KeepAliveStream on one channel: each keepalive is a message, matched to its answer by a tag."""

    def __init__(self, channel, on_metadata):
        self._requests = queue.Queue()
        self._waiting = {}
        self._tags = itertools.count()
        self._lock = threading.Lock()
        self._failed = None
        self._call = rpc.LeaseStub(channel).KeepAliveStream(iter(self._requests.get, None))
        self._on_metadata = on_metadata
        threading.Thread(target=self._read, name="regent-keepalive-stream", daemon=True).start()

    def failed(self):
        return self._failed is not None

    def keep_alive(self, lease, timeout):
        """The answer (a LeaseKeepAliveResponse); raises grpc.RpcError with the unary KeepAlive's code, or the
        stream's own failure."""
        done = threading.Event()
        slot = {}
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

    def _read(self):
        try:
            first = True
            for r in self._call:
                if first:
                    self._on_metadata(self._call.initial_metadata())
                    first = False
                with self._lock:
                    done, slot = self._waiting.pop(r.tag, (None, None))
                if done is None:
                    continue  # given up on already
                if r.code == 0:
                    slot["answer"] = r
                else:
                    slot["error"] = StatusError(_CODES.get(r.code, grpc.StatusCode.UNKNOWN), r.message)
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

    def close(self):
        self._requests.put(None)
        self._call.cancel()


class Client:
    """A client over several endpoints (host:port of any nodes); calls stick to one and move on when it fails.

    Writes, linearizable reads and keepalives start at the Raft leader's endpoint once a reply has named it
    (leader-aware routing, as the Java client's), the other endpoints following as fallback; status() starts at
    the current endpoint. Keepalives travel on one Lease/KeepAliveStream per endpoint (etcd's LeaseKeepAlive),
    or as unary calls with stream_keepalives=False or against a node without the stream.

    timeout: deadline of each call, seconds. Every write carries a request id of its own, the same on each
    re-send, so the server applies it once (docs/api.md, "Request ids"); by that section's table every call here
    (keepalives, reads, grant, campaign by lease, resign, revoke) is retried at the next endpoint after
    UNAVAILABLE or DEADLINE_EXCEEDED. Errors are grpc.RpcError with the codes of docs/api.md.

    cacert, cert, key: PEM files for TLS (the servers verified against cacert) and mutual TLS (cert and key, the
    certificate's CN being the caller's identity), each defaulting to $REGENT_CACERT, $REGENT_CERT, $REGENT_KEY
    as the regent CLI's --cacert/--cert/--key do (docs/security.md); plaintext without a CA certificate.
    ValueError for a certificate without its key, a client certificate without a CA, or an unreadable file.

    namespace: a prefix for every name this client sends (campaign, resign, leader, elect), removed from every
    name it returns (namespace.py), e.g. "team-a/"; default none.
    """

    def __init__(self, endpoints, timeout=15.0, stream_keepalives=True, cacert=None, cert=None, key=None,
                 namespace=""):
        if isinstance(endpoints, str):
            endpoints = [e.strip() for e in endpoints.split(",") if e.strip()]
        if not endpoints:
            raise ValueError("at least one endpoint is required")
        self.endpoints = list(endpoints)
        self.timeout = timeout
        self._ns = Namespace(namespace)
        creds = tls.credentials(cacert, cert, key)
        self._channels = [tls.channel(e, creds) for e in self.endpoints]
        self._current = 0
        self._lock = threading.Lock()
        self._routing = _Routing(self.endpoints)
        self._streams = {} if stream_keepalives else None  # endpoint index -> _KeepAliveStream
        self._unary = set()  # endpoints whose node lacks the stream

    def leader_endpoint(self):
        """The endpoint calls for the Raft leader go to now, or None when no reply has named one reachable."""
        idx = self._routing.leader()
        return None if idx is None else self.endpoints[idx]

    def close(self):
        with self._lock:
            streams = list((self._streams or {}).values())
        for s in streams:
            s.close()
        for ch in self._channels:
            ch.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _call(self, method, request, timeout=None, to_leader=True):
        """Calls stub method `method` (e.g. ("Lease", "Grant")) from the leader's endpoint (or the current) on;
        every re-send is `request` itself, request id included."""
        return self._failover(self._attempt(method, request), timeout, to_leader)

    def _attempt(self, method, request):
        """attempt(endpoint index, seconds left): one call of `method` there, its reply's leader hint taken."""
        service, name = method
        stubs = {"Lease": rpc.LeaseStub, "Election": rpc.ElectionStub, "Cluster": rpc.ClusterStub}

        def attempt(idx, left):
            try:
                response, call = getattr(stubs[service](self._channels[idx]), name).with_call(request, timeout=left)
            except grpc.RpcError as e:
                self._routing.observe(idx, e.trailing_metadata())
                raise
            self._routing.observe(idx, call.initial_metadata())
            return response

        return attempt

    def _failover(self, attempt, timeout, to_leader):
        """Runs attempt(endpoint index, seconds left) from the first endpoint on, moving on after UNAVAILABLE or
        DEADLINE_EXCEEDED.

        Each attempt but the last gets at most half of the time left, so that a hung node leaves the others time
        to answer (as the Java client does).
        """
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        last = None
        n = len(self._channels)
        for i in range(n):
            with self._lock:
                idx = self._current
            leader = self._routing.leader()
            if i == 0 and to_leader and leader is not None:
                idx = leader
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if i < n - 1:
                left = max(0.05, left / 2)
            try:
                return attempt(idx, left)
            except grpc.RpcError as e:
                if e.code() not in _FAILOVER:
                    raise
                self._routing.failed(idx)
                with self._lock:
                    self._current = (idx + 1) % len(self._channels)
                last = e
        if last is None:
            raise TimeoutError("no time left for the call")
        raise last

    def grant(self, ttl):
        """Grants a lease of `ttl` seconds; its id. Re-sent with one request id: a grant that applied before its
        answer was lost answers with its lease, never a second one."""
        return self._call(("Lease", "Grant"), pb.LeaseGrantRequest(ttl_ms=int(ttl * 1000),
                                                                   request_id=_request_id())).id

    def keep_alive(self, lease, timeout):
        """Renews a lease within `timeout` seconds; its TTL, ms. NOT_FOUND once it is gone."""
        return self.keep_alive_answer(lease, timeout).ttl_ms

    def keep_alive_answer(self, lease, timeout):
        """keep_alive() with the whole LeaseKeepAliveResponse: the TTL and the answering node's clock reading."""
        unary = self._attempt(("Lease", "KeepAlive"), pb.LeaseKeepAliveRequest(id=lease))
        if self._streams is None:
            return self._failover(unary, timeout, True)

        def attempt(idx, left):
            if idx in self._unary:
                return unary(idx, left)
            with self._lock:
                stream = self._streams.get(idx)
                if stream is None or stream.failed():
                    stream = _KeepAliveStream(self._channels[idx], lambda md: self._routing.observe(idx, md))
                    self._streams[idx] = stream
            try:
                return stream.keep_alive(lease, left)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNIMPLEMENTED:
                    raise
                self._unary.add(idx)  # a node of an older version: unary calls from now on
                return unary(idx, left)

        return self._failover(attempt, timeout, True)

    def revoke(self, lease):
        """Revokes a lease, freeing every name it holds."""
        self._call(("Lease", "Revoke"), pb.LeaseRevokeRequest(id=lease, request_id=_request_id()))

    def campaign(self, name, lease, value=b"", timeout=3600.0):
        """Blocks until `lease` holds `name` (at most `timeout` s); the LeaderKey (name, value, token, lease)."""
        # each send is an attempt of its own on the server (docs/api.md, "Attempts"); the id changes nothing there
        request = pb.CampaignRequest(name=self._ns.name(name), lease=lease, value=value, request_id=_request_id())
        return self._ns.key_out(self._call(("Election", "Campaign"), request, timeout=timeout).leader)

    def resign(self, key):
        """Gives the name up; FAILED_PRECONDITION when `key` no longer holds it."""
        self._call(("Election", "Resign"), pb.ResignRequest(leader=self._ns.key_in(key), request_id=_request_id()))

    def leader(self, name):
        """The current holder of `name` (a LeaderKey), read linearizably; None when free."""
        try:
            answer = self._call(("Election", "Leader"), pb.LeaderRequest(name=self._ns.name(name)))
            return self._ns.key_out(answer.leader)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise

    def status(self):
        """The answering node's view: node, leader, term, commit_index, applied_index, members, version."""
        return self._call(("Cluster", "Status"), pb.StatusRequest(), to_leader=False)

    def elect(self, name, ttl, value=b"", timeout=3600.0, on_lost=None):
        """Grants a lease, campaigns for `name` and returns a Leadership (a context manager) once elected.

        ttl: lease TTL, seconds (the cluster's minimum is 1.5 x its max election timeout). The lease is kept
        alive on a daemon thread; `on_lost(reason)` is called once when leadership can no longer be vouched
        for (2/3 ttl without an acknowledged keepalive, the lease gone, or this process's clock running slow
        against the node's: docs/architecture.md §3.6, "Clock bounds"). Leaving the `with` block resigns and
        revokes the lease.
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

    RETRY = 0.1  # seconds: base of the full-jitter pause before retrying a failed keepalive (capped at ttl/10)

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
        self._clock_rate = ClockRate()
        self.estimate = None  # the latest ClockRate estimate, None before renewals span 5 s of a node's time
        self._warned_fast = False
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
        failures = 0  # consecutive failed keepalives: the retry pause grows with them, jittered (backoff.py)
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
                answer = self.client.keep_alive_answer(self.lease, timeout=max(0.05, self.deadline() - sent))
                received = time.monotonic()
                with self._lock:
                    if self._down:
                        return
                    if received >= self._last_ack_sent + self.ttl * 2 / 3:
                        # Acknowledged too late: the holder had to stop already; a late ack revives nothing.
                        self._lose_locked("lease %d renewed only after 2/3 of its TTL had passed" % self.lease)
                        return
                    self._last_ack_sent = max(self._last_ack_sent, sent)
                    if not self._clock_rate_holds_locked(answer, sent, received):
                        return
                next_renew = sent + self.ttl / 3
                failures = 0
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.NOT_FOUND:
                    with self._lock:
                        self._lose_locked("lease %d expired or was revoked" % self.lease)
                    return
                next_renew = time.monotonic() + full_jitter(failures, self.RETRY, self.ttl / 10)
                failures += 1

    def _clock_rate_holds_locked(self, answer, sent, received):
        """Adds the node's clock reading; steps down when this clock runs certainly below 0.9 of the node's."""
        if answer.node_clock_ms == 0:
            return True  # a node that sends no reading
        e = self._clock_rate.add(answer.node, answer.node_started_ms, Sample(sent, received, answer.node_clock_ms))
        if e is None:
            return True
        self.estimate = e
        if e.slow():
            reason = "%s: lease %d's holder stops acting; the 2/3-TTL rule assumes >= 2/3 (docs/architecture.md §3.6)" % (
                e.describe(), self.lease)
            logging.getLogger("regent_client").error(reason)
            self._lose_locked(reason)
            return False
        if e.fast() and not self._warned_fast:
            self._warned_fast = True
            logging.getLogger("regent_client").warning(
                "%s: harmless for lease %d, whose holder stops acting early", e.describe(), self.lease)
        return True

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

    def clock_rate(self):
        """This process's clock rate against the answering node's (clock_rate.Estimate), or None before renewals
        of one node span 5 s of its time."""
        return self._keeper.estimate

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


def connect(endpoints, timeout=15.0, stream_keepalives=True, cacert=None, cert=None, key=None, namespace=""):
    """A Client over `endpoints` ("h1:p1,h2:p2" or a list); TLS and namespace as Client's arguments say."""
    return Client(endpoints, timeout, stream_keepalives, cacert=cacert, cert=cert, key=key, namespace=namespace)
