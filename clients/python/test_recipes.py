"""lock(), suspension, proclaim() and the resuming observe() against a real cluster: python3 test_recipes.py
(the cluster: regent_client.testing.start_cluster).

Run by the cli module's PythonClientTest; names start with py-; exits non-zero on failure.
"""

import sys
import threading
import time
import unittest
from concurrent import futures

import grpc

from regent_client import LostLeadership, connect, testing
from regent_client.holder import Leadership
from regent_client.keeper import LeaseKeeper
from regent_client.resume_point import ResumePoint
from regent_client.v1 import regent_pb2 as pb
from regent_client.v1 import regent_pb2_grpc as rpc
from tcp_proxy import TcpProxy

ENDPOINTS = ""
KIND = pb.ObserveResponse.Kind


def next_within(events, seconds=15.0):
    """The next event, or AssertionError (the observation closed) when none comes within `seconds`."""
    with futures.ThreadPoolExecutor(1) as pool:
        pending = pool.submit(next, events)
        try:
            return pending.result(seconds)
        except futures.TimeoutError:
            events.close()  # ends the next() the pool waits for
            raise AssertionError("no event within %.1f s" % seconds)


class LockTest(unittest.TestCase):
    def test_the_second_holder_gets_the_lock_only_after_the_first_releases_with_a_larger_token(self):
        with connect(ENDPOINTS) as c:
            first = c.lock("py-lock", ttl=2.0, owner="owner-1")
            self.assertGreater(first.token, 0)
            self.assertEqual(c.leader("py-lock").value, b"owner-1")
            got = {}
            done = threading.Event()

            def second():
                got["lock"] = c.lock("py-lock", ttl=2.0, owner="owner-2")
                got["holder_then"] = c.leader("py-lock").value
                done.set()

            t = threading.Thread(target=second)
            t.start()
            # 1.5 TTLs: the first's keeper renews, so the second must still be waiting (the assertion, not a sync)
            self.assertFalse(done.wait(3.0), "the second got the lock while the first held it")
            self.assertTrue(first.valid())
            first.close()
            self.assertFalse(first.valid())
            self.assertTrue(done.wait(15.0), "the second did not get the lock after the first released")
            t.join()
            lock = got["lock"]
            self.assertGreater(lock.token, first.token)
            self.assertEqual(got["holder_then"], b"owner-2")
            with self.assertRaises(grpc.RpcError) as e:
                c.unlock(first.key)  # the released key frees nothing
            self.assertEqual(e.exception.code(), grpc.StatusCode.FAILED_PRECONDITION)
            lock.close()
            self.assertIsNone(c.leader("py-lock"))
            with self.assertRaises(grpc.RpcError) as e:
                c.time_to_live(lock.lease)
            self.assertEqual(e.exception.code(), grpc.StatusCode.NOT_FOUND, "release revokes the lease")

    def test_a_lock_not_had_within_its_timeout_leaves_no_lease_behind(self):
        with connect(ENDPOINTS) as c, c.lock("py-lock-timeout", ttl=2.0) as held:
            with self.assertRaises(grpc.RpcError) as e:
                c.lock("py-lock-timeout", ttl=2.0, timeout=1.0)
            self.assertEqual(e.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
            self.assertEqual(c.leader("py-lock-timeout").token, held.token)

    def test_bad_input_is_refused_before_anything_is_granted(self):
        with connect(ENDPOINTS) as c:
            for bad in (dict(ttl=0), dict(ttl=float("nan")), dict(lock_delay=-1), dict(lock_delay=7200)):
                with self.assertRaises(ValueError):
                    c.lock("py-lock-bad", **bad)
            with self.assertRaises(TypeError):
                c.lock("py-lock-bad", owner=7)
            self.assertIsNone(c.leader("py-lock-bad"))


class ProclaimTest(unittest.TestCase):
    def test_proclaim_publishes_a_value_under_the_same_token_and_a_stale_key_is_refused(self):
        with connect(ENDPOINTS) as c:
            with c.elect("py-proclaim", ttl=2.0, value=b"v1") as lead:
                key = lead.proclaim(b"v2")
                self.assertEqual((key.value, key.token), (b"v2", lead.token))
                self.assertEqual(c.leader("py-proclaim").value, b"v2")
            with self.assertRaises(grpc.RpcError) as e:
                c.proclaim(key, b"v3")
            self.assertEqual(e.exception.code(), grpc.StatusCode.FAILED_PRECONDITION)
            self.assertIsNone(c.leader("py-proclaim"))
            with c.lock("py-proclaim-lock", ttl=2.0) as lock, self.assertRaises(ValueError):
                lock.proclaim(b"x")


class SuspensionTest(unittest.TestCase):
    """The keeper against a fake lessor whose keepalives fail while `blocked` is set (no cluster)."""

    class Lessor:
        def __init__(self):
            self.blocked = threading.Event()
            self.gone = False

        def keep_alive_answer(self, lease, timeout):
            if self.gone:
                raise FakeError(grpc.StatusCode.NOT_FOUND)
            if self.blocked.is_set():
                raise FakeError(grpc.StatusCode.UNAVAILABLE)
            return pb.LeaseKeepAliveResponse(id=lease, ttl_ms=600)

    def keeper(self, lessor, **options):
        events = []
        changed = threading.Condition()

        def record(kind):
            def told(reason):
                with changed:
                    events.append(kind)
                    changed.notify_all()
            return told

        k = LeaseKeeper(lessor, 9, 0.6, time.monotonic(), on_lost=record("lost"), on_suspended=record("suspended"),
                        on_resumed=record("resumed"), **options)
        self.addCleanup(k.stop)

        def wait_for(kind):
            with changed:
                self.assertTrue(changed.wait_for(lambda: kind in events, 5.0), "no %s event: %s" % (kind, events))
        return k, events, wait_for

    def test_a_suspended_holder_stops_acting_and_resumes_with_the_same_lease_on_a_renewal_in_time(self):
        lessor = self.Lessor()
        lessor.blocked.set()
        k, events, wait_for = self.keeper(lessor, suspend=True)
        lead = Leadership(None, k, pb.LeaderKey(name="n", token=12, lease=9))
        wait_for("suspended")
        self.assertFalse(lead.valid())
        self.assertTrue(lead.suspended())
        with self.assertRaises(LostLeadership) as e:
            lead.check()
        self.assertFalse(e.exception.lost)
        lessor.blocked.clear()
        wait_for("resumed")
        self.assertTrue(lead.valid())
        self.assertEqual(lead.token, 12)
        self.assertEqual(events, ["suspended", "resumed"])

    def test_a_suspended_holder_is_lost_after_ttl_and_grace_or_at_once_on_not_found(self):
        lessor = self.Lessor()
        lessor.blocked.set()
        k, events, wait_for = self.keeper(lessor, suspend=True, grace=0.2)
        wait_for("lost")
        self.assertEqual(events, ["suspended", "lost"])
        self.assertIn("grace", k.validity.reason())
        lessor = self.Lessor()
        lessor.gone = True
        k, events, wait_for = self.keeper(lessor, suspend=True)
        wait_for("lost")
        self.assertEqual(events, ["lost"])

    def test_without_suspension_the_deadline_is_the_step_down_and_a_late_renewal_revives_nothing(self):
        lessor = self.Lessor()
        lessor.blocked.set()
        k, events, wait_for = self.keeper(lessor)
        wait_for("lost")
        lessor.blocked.clear()
        self.assertFalse(k.valid())
        self.assertEqual(events, ["lost"])


class FakeError(grpc.RpcError):
    def __init__(self, code):
        super().__init__(code.name)
        self._code = code

    def code(self):
        return self._code


class ObserveTest(unittest.TestCase):
    def take(self, events, n):
        return [next_within(events) for _ in range(n)]

    def test_observe_resumes_at_another_node_after_its_stream_is_cut_without_a_gap_or_a_repeat(self):
        proxy = TcpProxy(ENDPOINTS.split(",")[0])
        self.addCleanup(proxy.cut)
        with connect(ENDPOINTS) as c, connect([proxy.endpoint] + ENDPOINTS.split(",")) as watcher:
            with watcher.observe("py-observe") as events:
                first = next_within(events)
                self.assertEqual(first.kind, KIND.CURRENT)
                with c.elect("py-observe", ttl=2.0, value=b"v1") as lead:
                    elected = next_within(events)
                    self.assertEqual((elected.kind, elected.leader.value), (KIND.ELECTED, b"v1"))
                    proxy.cut()  # the stream's node is gone: what follows must come through another
                    lead.proclaim(b"v2")
                    lead.proclaim(b"v3")
                    later = self.take(events, 2)
                self.assertEqual([(e.kind, e.leader.value) for e in later],
                                 [(KIND.PROCLAIMED, b"v2"), (KIND.PROCLAIMED, b"v3")])
                resigned = next_within(events)
                self.assertEqual(resigned.kind, KIND.RESIGNED)
                indexes = [e.index for e in [elected] + later + [resigned]]
                self.assertEqual(indexes, sorted(set(indexes)), "each event once, in log order")
                self.assertFalse(any(e.compacted for e in later))
                self.assertEqual(events.last_index, resigned.index)

    def test_observe_resumes_within_an_entry_after_the_last_ordinal_seen(self):
        """Fake nodes: the first sends (5, 1) and fails; the second is asked after (5, 1) and repeats it."""
        requests = []

        class Election(rpc.ElectionServicer):
            def Observe(self, request, context):
                requests.append((request.after_index, request.after_ordinal))
                yield pb.ObserveResponse(kind=KIND.RESIGNED, name="n", index=5, ordinal=1)
                if len(requests) == 1:
                    context.abort(grpc.StatusCode.UNAVAILABLE, "node stopping")
                yield pb.ObserveResponse(kind=KIND.ELECTED, name="n", index=5, ordinal=2,
                                         leader=pb.LeaderKey(name="n", token=5, lease=3))
                yield pb.ObserveResponse(kind=KIND.PROCLAIMED, name="n", index=6, ordinal=1,
                                         leader=pb.LeaderKey(name="n", token=5, lease=3))

        endpoints = []
        for _ in range(2):
            server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
            rpc.add_ElectionServicer_to_server(Election(), server)
            endpoints.append("127.0.0.1:%d" % server.add_insecure_port("127.0.0.1:0"))
            server.start()
            self.addCleanup(server.stop, None)
        with connect(endpoints) as c, c.observe("n") as events:
            got = [(e.kind, e.index, e.ordinal) for e in self.take(events, 3)]
        self.assertEqual(got, [(KIND.RESIGNED, 5, 1), (KIND.ELECTED, 5, 2), (KIND.PROCLAIMED, 6, 1)])
        self.assertEqual(requests, [(0, 0), (5, 1)])

    def test_a_namespaced_observation_shows_the_callers_names(self):
        with connect(ENDPOINTS, namespace="py-ns-observe/") as c, c.observe("jobs") as events:
            self.assertEqual(next_within(events).name, "jobs")
            with c.elect("jobs", ttl=2.0, value=b"x"):
                elected = next_within(events)
        self.assertEqual((elected.kind, elected.name, elected.leader.name), (KIND.ELECTED, "jobs", "jobs"))

    def test_a_closed_observation_ends_and_a_bad_after_is_refused(self):
        with connect(ENDPOINTS) as c:
            events = c.observe("py-observe-close")
            next(events)
            threading.Timer(0.2, events.close).start()  # closes from another thread while next() waits
            with self.assertRaises(StopIteration):
                next(events)
            with self.assertRaises(ValueError):
                c.observe("py-observe-close", after=-1)


class CampaignAttemptTest(unittest.TestCase):
    """A blocking campaign waits out its whole timeout at one node, moved on from a dead node only (fake nodes)."""

    class Election(rpc.ElectionServicer):
        def __init__(self, dead):
            self.dead = dead
            self.calls = []  # (request id, seconds the call had left when it arrived)

        def Campaign(self, request, context):
            self.calls.append((request.request_id, context.time_remaining()))
            if self.dead:
                context.abort(grpc.StatusCode.UNAVAILABLE, "node stopping")
            ended = threading.Event()
            context.add_callback(ended.set)  # the client's deadline ends the call: never elected here
            ended.wait()
            return pb.CampaignResponse()

    def test_one_attempt_takes_the_whole_timeout_after_a_dead_node_and_carries_the_first_sends_id(self):
        dead, waiting, spare = self.Election(True), self.Election(False), self.Election(False)
        endpoints = []
        for node in (dead, waiting, spare):
            server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
            rpc.add_ElectionServicer_to_server(node, server)
            endpoints.append("127.0.0.1:%d" % server.add_insecure_port("127.0.0.1:0"))
            server.start()
            self.addCleanup(server.stop, None)
        with connect(endpoints) as c, self.assertRaises(grpc.RpcError) as e:
            c.campaign("n", 7, timeout=2.0)
        self.assertEqual(e.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
        self.assertEqual((len(dead.calls), len(waiting.calls), spare.calls), (1, 1, []),
                         "a campaign is not moved on for taking long")
        self.assertGreater(waiting.calls[0][1], 1.5, "the attempt after the dead node had the whole timeout")
        self.assertEqual(waiting.calls[0][0], dead.calls[0][0], "the re-send carries the first send's id")


class RefusingLeaderTest(unittest.TestCase):
    """A leader that refuses a keepalive UNAVAILABLE itself, in its stream's message (not ready yet after an
    election), stays the leader: only the transport's UNAVAILABLE makes it suspect (fake nodes)."""

    class Lease(rpc.LeaseServicer):
        def __init__(self, hints, refusals, ttl_ms):
            self.hints, self.refusals, self.ttl_ms, self.keepalives = hints, refusals, ttl_ms, 0

        def KeepAliveStream(self, request_iterator, context):
            context.send_initial_metadata(self.hints())
            for r in request_iterator:
                self.keepalives += 1
                if self.refusals > 0:
                    self.refusals -= 1
                    yield pb.LeaseKeepAliveResponse(id=r.id, tag=r.tag, code=grpc.StatusCode.UNAVAILABLE.value[0],
                                                    message="not confirmed by a ready leader")
                else:
                    yield pb.LeaseKeepAliveResponse(id=r.id, tag=r.tag, ttl_ms=self.ttl_ms)

    def test_a_keepalive_refused_in_the_leaders_stream_does_not_make_it_suspect(self):
        addresses = {}
        leader = self.Lease(lambda: (("regent-term", "3"), ("regent-leader-id", "n2"), ("regent-node", "n2")), 1, 3000)
        other = self.Lease(lambda: (("regent-term", "3"), ("regent-leader-id", "n2"), ("regent-node", "n1"),
                                    ("regent-leader", addresses["n2"])), 0, 2000)
        endpoints = []
        for node, name in ((other, "n1"), (leader, "n2")):
            server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
            rpc.add_LeaseServicer_to_server(node, server)
            addresses[name] = "127.0.0.1:%d" % server.add_insecure_port("127.0.0.1:0")
            endpoints.append(addresses[name])
            server.start()
            self.addCleanup(server.stop, None)
        with connect(endpoints) as c:
            self.assertEqual(c.keep_alive(7, 5.0), 2000, "n1 answers the first and names n2, at its address")
            self.assertEqual(c.leader_endpoint(), addresses["n2"])
            self.assertEqual(c.keep_alive(7, 5.0), 2000, "n2 refused in its stream; n1 answered")
            self.assertEqual(c.leader_endpoint(), addresses["n2"], "a live leader's own refusal: not suspect")
            for _ in range(3):
                self.assertEqual(c.keep_alive(7, 5.0), 3000)
            self.assertEqual(leader.keepalives, 4)


class ResumePointTest(unittest.TestCase):
    def test_each_event_is_admitted_once_in_order_and_a_compacted_state_moves_nothing_back(self):
        point = ResumePoint(0)

        def event(index, ordinal, compacted=False):
            return pb.ObserveResponse(index=index, ordinal=ordinal, compacted=compacted)

        self.assertTrue(point.admit(event(4, 0)))  # CURRENT: the whole entry 4
        self.assertFalse(point.admit(event(4, 1)))
        self.assertTrue(point.admit(event(5, 1)))
        self.assertFalse(point.admit(event(5, 1)), "a repeat after a reopen")
        self.assertTrue(point.admit(event(5, 2)))
        self.assertEqual(point.request("n"), pb.ObserveRequest(name="n", after_index=5, after_ordinal=2))
        self.assertTrue(point.admit(event(3, 0, compacted=True)), "a node behind sends its current state")
        self.assertEqual((point.index, point.ordinal), (5, 2))
        for bad in (-1, 1.5, True):
            with self.assertRaises(ValueError):
                ResumePoint(bad)


if __name__ == "__main__":
    with testing.start_cluster() as cluster:  # $REGENT_ENDPOINTS's cluster, else a local one of its own
        ENDPOINTS = cluster.endpoints
        sys.exit(not unittest.main(argv=[sys.argv[0], "-v"], exit=False).result.wasSuccessful())
