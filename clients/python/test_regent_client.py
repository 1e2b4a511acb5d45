"""Drives the Python client against a real cluster: python3 test_regent_client.py LEDGER
(the cluster: regent_client.testing.start_cluster).

Run by the cli module's PythonClientTest (in mvn verify), after generate.sh; exits non-zero on failure.
"""

import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from concurrent import futures
from unittest import mock

import grpc

from regent_client.v1 import regent_pb2 as pb
from regent_client.v1 import regent_pb2_grpc as rpc
from regent_client import LostLeadership, clock_rate, connect
from regent_client.keeper import LeaseKeeper
from regent_client import testing, tls
from regent_client.backoff import full_jitter
from regent_client.routing import LEADER_QUIET, LeaderRouting

ENDPOINTS = LEDGER = None


class ClientTest(unittest.TestCase):
    def test_elect_holds_the_name_past_its_ttl_and_resigns_on_exit(self):
        with connect(ENDPOINTS) as c:
            with c.elect("py-jobs", ttl=2.0, value=b"py-1") as lead:
                self.assertGreater(lead.token, 0)
                time.sleep(3.0)  # 1.5 TTLs: the keepalive thread must have renewed (the test's subject, not a sync)
                self.assertTrue(lead.valid())
                holder = c.leader("py-jobs")
                self.assertEqual((holder.token, holder.value), (lead.token, b"py-1"))
            self.assertIsNone(c.leader("py-jobs"))

    def test_a_revoked_lease_steps_down_and_check_raises(self):
        lost = threading.Event()
        with connect(ENDPOINTS) as c:
            lead = c.elect("py-revoked", ttl=2.0, on_lost=lambda reason: lost.set())
            c.revoke(lead.lease)
            self.assertTrue(lost.wait(5.0), "on_lost not called")
            self.assertFalse(lead.valid())
            with self.assertRaises(LostLeadership):
                lead.check()
            lead.close()

    def test_a_second_candidate_gets_a_larger_token_after_the_first_resigns(self):
        with connect(ENDPOINTS) as c:
            first = c.elect("py-queue", ttl=2.0)
            result = {}
            t = threading.Thread(target=lambda: result.setdefault("second", c.elect("py-queue", ttl=2.0)))
            t.start()
            first.close()
            t.join(15.0)
            second = result["second"]
            self.assertGreater(second.token, first.token)
            second.close()

    def test_a_bad_ttl_is_invalid_argument_and_grants_nothing(self):
        with connect(ENDPOINTS) as c:
            with self.assertRaises(grpc.RpcError) as e:
                c.elect("py-bad", ttl=0.001)
            self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIsNone(c.leader("py-bad"))

    def test_failover_to_the_next_endpoint_when_the_first_refuses(self):
        with connect(["127.0.0.1:1"] + ENDPOINTS.split(","), timeout=5.0) as c:
            self.assertTrue(c.status().node)

    def test_writes_and_keepalives_go_to_the_leader_learnt_from_the_replies(self):
        with connect(ENDPOINTS) as c:
            status = c.status()
            leader_api = next(m.api_address for m in status.members if m.id == status.leader)
            # the follower-first order: the client must find the leader from the replies' metadata
            order = [e for e in ENDPOINTS.split(",") if e != leader_api] + [leader_api]
        with connect(order) as c:
            lease = c.grant(5.0)
            self.assertEqual(c.leader_endpoint(), leader_api)
            self.assertEqual(c.keep_alive(lease, 5.0), 5000)
            c.revoke(lease)

    def test_a_streamed_keepalive_of_a_gone_lease_is_not_found_and_the_stream_goes_on(self):
        for streamed in (True, False):
            with connect(ENDPOINTS, stream_keepalives=streamed) as c:
                lease = c.grant(5.0)
                self.assertEqual(c.keep_alive(lease, 5.0), 5000)
                c.revoke(lease)
                with self.assertRaises(grpc.RpcError) as e:
                    c.keep_alive(lease, 5.0)
                self.assertEqual(e.exception.code(), grpc.StatusCode.NOT_FOUND, streamed)
                other = c.grant(5.0)
                self.assertEqual(c.keep_alive(other, 5.0), 5000)  # one lease's verdict leaves the stream up
                c.revoke(other)

    def test_the_example_writes_to_the_fenced_ledger_and_a_stale_token_is_refused(self):
        out = subprocess.run([sys.executable, "examples/ledger_writer.py", ENDPOINTS, LEDGER, "py-ledger", "3"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertTrue(lines[0].startswith("elected py-ledger token="), lines)
        self.assertEqual(sum(l.startswith("admitted ") for l in lines), 3, lines)
        token = int(lines[0].split("token=")[1].split()[0])
        ledger = rpc.LedgerStub(grpc.insecure_channel(LEDGER))
        with self.assertRaises(grpc.RpcError) as e:
            ledger.Append(pb.LedgerAppendRequest(key="py-ledger", token=token - 1, entry=b"zombie"), timeout=5)
        self.assertEqual(e.exception.code(), grpc.StatusCode.FAILED_PRECONDITION)
        entries = ledger.Read(pb.LedgerReadRequest(key="py-ledger"), timeout=5).entries
        self.assertEqual([x.token for x in entries], [token] * 3)


class LeaderQuietTest(unittest.TestCase):
    """routing.LeaderRouting's quiet-leader rule (docs/api.md, "Leader-aware routing"), on a clock of the test's."""

    LEADER = [("regent-term", "3"), ("regent-node", "n2"), ("regent-leader-id", "n2")]

    def setUp(self):
        self.now = 100.0
        self.routing = LeaderRouting(["a:1", "b:2", "c:3"], clock=lambda: self.now)
        self.routing.observe(1, self.LEADER)

    def test_a_call_the_leader_leaves_unanswered_sends_the_next_calls_elsewhere_until_it_answers(self):
        ticket = self.routing.sent(1)
        self.now += LEADER_QUIET / 2
        self.assertIsNone(self.routing.quiet(), "not quiet yet")
        self.assertEqual(self.routing.leader(), 1)
        self.now += LEADER_QUIET / 2
        self.assertEqual(self.routing.quiet(), 1, "quiet for LEADER_QUIET")
        self.assertIsNone(self.routing.leader(), "suspect: the next calls start at the current endpoint")
        self.routing.done(ticket)
        self.assertIsNone(self.routing.leader(), "the call's end is no answer from the leader")
        self.routing.observe(1, self.LEADER)
        self.assertEqual(self.routing.leader(), 1, "the leader itself answered")

    def test_a_quiet_call_counts_once(self):
        self.routing.sent(1)
        self.now += LEADER_QUIET
        self.assertEqual(self.routing.quiet(), 1)
        self.routing.observe(1, self.LEADER)
        self.now += 10 * LEADER_QUIET
        self.assertIsNone(self.routing.quiet(), "the same call, still waiting, raised the suspicion once")
        self.assertEqual(self.routing.leader(), 1)

    def test_answered_calls_and_calls_to_other_endpoints_leave_the_leader_alone(self):
        self.routing.done(self.routing.sent(1))
        self.routing.sent(0)
        self.now += 10 * LEADER_QUIET
        self.assertIsNone(self.routing.quiet())
        self.assertEqual(self.routing.leader(), 1)


class ClockRateTest(unittest.TestCase):
    """The clock-rate estimate on fake clocks (no cluster): a node's clock in ms, the client's at a chosen rate."""

    def renewals(self, rate, node, start_ms, end_ms, every_ms, client_rate, rtt_ms, ahead_ms=0):
        last = None
        for t in range(start_ms, end_ms + 1, every_ms):
            mid = (t - ahead_ms) * client_rate / 1000.0
            half = rtt_ms * client_rate / 2000.0
            last = rate.add(node, 1, clock_rate.Sample(mid - half, mid + half, t))
        return last

    def test_half_speed_is_slow_and_its_error_bars_hold_the_truth(self):
        rate = clock_rate.ClockRate()
        self.assertIsNone(self.renewals(rate, "n1", 100000, 104000, 1000, 0.5, 4))
        e = self.renewals(rate, "n1", 105000, 106000, 1000, 0.5, 4)
        self.assertTrue(e.slow())
        self.assertLessEqual(e.low, 0.5)
        self.assertGreaterEqual(e.high, 0.5)
        self.assertTrue(e.describe().startswith("client clock runs at 0.50 of node n1's"), e.describe())

    def test_a_healthy_or_fast_clock_is_not_slow(self):
        self.assertFalse(self.renewals(clock_rate.ClockRate(), "n1", 100000, 160000, 1000, 1.0, 5).slow())
        self.assertFalse(self.renewals(clock_rate.ClockRate(), "n1", 100000, 130000, 1000, 0.92, 5).slow())
        fast = self.renewals(clock_rate.ClockRate(), "n1", 100000, 106000, 1000, 2.0, 3)
        self.assertTrue(fast.fast())
        self.assertFalse(fast.slow())

    def test_long_round_trips_give_no_verdict_until_the_span_outweighs_them(self):
        rate = clock_rate.ClockRate()
        self.assertFalse(self.renewals(rate, "n1", 100000, 105000, 1000, 0.85, 2000).slow())
        self.assertTrue(self.renewals(rate, "n1", 106000, 150000, 1000, 0.85, 2000).slow())

    def test_another_node_restarts_the_window(self):
        rate = clock_rate.ClockRate()
        self.renewals(rate, "n1", 100000, 110000, 1000, 1.0, 2)
        # n2 reads 3 s ahead of n1: compared with n1's readings it would look like a client at 0.4
        self.assertIsNone(self.renewals(rate, "n2", 114000, 118000, 1000, 1.0, 2, ahead_ms=3000))
        self.assertAlmostEqual(self.renewals(rate, "n2", 119000, 119000, 1000, 1.0, 2, ahead_ms=3000).rate(), 1.0, 2)


class KeeperClockTest(unittest.TestCase):
    """The keeper steps down on a slow clock although every keepalive is acknowledged (a fake client)."""

    def test_a_client_clock_at_a_tenth_of_the_nodes_loses_the_lease(self):
        start = time.monotonic()

        class Fake:
            def keep_alive_answer(self, lease, timeout):
                # the node's clock runs 10x the client's: the client is at 0.1 of the node's rate
                now_ms = 1000000 + int((time.monotonic() - start) * 10000)
                return pb.LeaseKeepAliveResponse(id=lease, ttl_ms=600, node_clock_ms=now_ms, node="n1",
                                                 node_started_ms=1)

        lost = threading.Event()
        reasons = []
        keeper = LeaseKeeper(Fake(), 7, 0.6, start, on_lost=lambda r: (reasons.append(r), lost.set()))
        try:
            # renewals every 0.2 s of the client's clock, 2 s of the node's: the fourth spans 6 s of it
            self.assertTrue(lost.wait(5.0), "a client at 0.1 of the node's rate kept its lease")
            self.assertTrue(reasons[0].startswith("client clock runs at 0.10 of node n1's"), reasons)
            self.assertFalse(keeper.valid())
            self.assertTrue(keeper.validity.clock_rate().slow())
        finally:
            keeper.stop()


class RequestIdTest(unittest.TestCase):
    """Writes carry a request id of their own, the same on every re-send (fake nodes in this process, no cluster)."""

    class Lease(rpc.LeaseServicer):
        def __init__(self, answer):
            self.answer = answer  # None: UNAVAILABLE after taking the call (its answer lost after the apply)
            self.ids = []

        def Grant(self, request, context):
            self.ids.append(request.request_id)
            if self.answer is None:
                context.abort(grpc.StatusCode.UNAVAILABLE, "connection reset after the apply")
            return pb.LeaseGrantResponse(id=self.answer, ttl_ms=request.ttl_ms)

    def serve(self, lease):
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        rpc.add_LeaseServicer_to_server(lease, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        self.addCleanup(server.stop, None)
        return "127.0.0.1:%d" % port

    def test_a_grant_answered_unavailable_after_it_applied_is_resent_with_its_id_and_the_next_has_its_own(self):
        a, b = self.Lease(None), self.Lease(8)
        with connect([self.serve(a), self.serve(b)], timeout=5.0) as c:
            self.assertEqual(c.grant(3.0), 8)
            self.assertEqual(c.grant(3.0), 8)  # starts at b: a failed
        self.assertEqual(len(a.ids), 1)
        self.assertRegex(a.ids[0], r"^[A-Za-z0-9._:-]{1,64}$")
        self.assertEqual(len(b.ids), 2)
        self.assertEqual(b.ids[0], a.ids[0], "the re-send carries the first send's id")
        self.assertNotEqual(b.ids[1], a.ids[0], "a new grant has an id of its own")


class GrantTenantTest(unittest.TestCase):
    """A grant names the tenant whose cell holds the lease (docs/architecture.md §14); a fake node, no cluster."""

    class Lease(rpc.LeaseServicer):
        def __init__(self):
            self.tenants = []

        def Grant(self, request, context):
            self.tenants.append(request.tenant)
            return pb.LeaseGrantResponse(id=len(self.tenants), ttl_ms=request.ttl_ms)

    def test_the_tenant_is_sent_in_the_clients_namespace_and_a_bad_one_sends_nothing(self):
        lease = self.Lease()
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        rpc.add_LeaseServicer_to_server(lease, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        self.addCleanup(server.stop, None)
        with connect(["127.0.0.1:%d" % port], timeout=5.0) as c, \
                connect(["127.0.0.1:%d" % port], timeout=5.0, namespace="team/") as n:
            c.grant(3.0)
            c.grant(3.0, "orders")
            n.grant(3.0, "jobs")
            with self.assertRaises(TypeError):
                c.grant(3.0, 5)  # type: ignore[arg-type]
        self.assertEqual(lease.tenants, ["", "orders", "team/jobs"])


class NamespaceTest(unittest.TestCase):
    def test_a_namespaced_client_sends_its_prefix_and_never_shows_it(self):
        with connect(ENDPOINTS, namespace="py-ns-a/") as a, connect(ENDPOINTS) as plain, \
                connect(ENDPOINTS, namespace="py-ns-b/") as b:
            with a.elect("jobs", ttl=3.0, value=b"a-1") as lead:
                self.assertEqual(lead.key.name, "jobs")
                self.assertEqual(a.leader("jobs").name, "jobs")
                held = plain.leader("py-ns-a/jobs")  # the cluster holds the prefixed name
                self.assertEqual((held.name, held.token, held.value), ("py-ns-a/jobs", lead.token, b"a-1"))
                self.assertIsNone(plain.leader("jobs"))
                self.assertIsNone(b.leader("jobs"), "another namespace's jobs is another name")
            self.assertIsNone(plain.leader("py-ns-a/jobs"), "resigned through the namespace on leaving the block")


class BackoffTest(unittest.TestCase):
    def test_the_pause_is_uniform_up_to_a_cap_that_doubles_with_each_failure_up_to_the_maximum(self):
        top = lambda: 1.0  # the largest draw: the cap itself
        self.assertEqual([full_jitter(n, 0.1, 0.5, top) for n in range(4)], [0.1, 0.2, 0.4, 0.5])
        self.assertEqual(full_jitter(3, 0.1, 0.5, lambda: 0.0), 0.0)
        pauses = [full_jitter(2, 0.1, 0.5) for _ in range(200)]
        self.assertTrue(all(0 <= p <= 0.4 for p in pauses))
        self.assertGreater(len(set(pauses)), 100, "jittered, not one pause for every client")
        with self.assertRaises(ValueError):
            full_jitter(-1, 0.1, 0.5)


class TlsTest(unittest.TestCase):
    """The CLI's rules for --cacert/--cert/--key and $REGENT_CACERT/CERT/KEY (no node needed)."""

    def setUp(self):
        env = mock.patch.dict(os.environ)  # restored, whatever a test sets, when it ends
        env.start()
        self.addCleanup(env.stop)
        for v in ("REGENT_CACERT", "REGENT_CERT", "REGENT_KEY"):
            os.environ.pop(v, None)

    def test_arguments_win_over_the_environment_and_an_empty_variable_is_unset(self):
        os.environ.update(REGENT_CACERT="env-ca.pem", REGENT_CERT="", REGENT_KEY="")
        self.assertEqual(tls.tls_files(), ("env-ca.pem", None, None))
        self.assertEqual(tls.tls_files(cacert="ca.pem"), ("ca.pem", None, None))
        os.environ.update(REGENT_CERT="me.crt", REGENT_KEY="me.key")
        self.assertEqual(tls.tls_files(), ("env-ca.pem", "me.crt", "me.key"))

    def test_without_a_ca_certificate_the_channel_is_plaintext(self):
        self.assertIsNone(tls.credentials())

    def test_usage_errors_are_refused_before_any_channel(self):
        with self.assertRaisesRegex(ValueError, "cert and key go together"):
            connect("127.0.0.1:1", cacert="ca.pem", cert="me.crt")
        with self.assertRaisesRegex(ValueError, "cert needs cacert"):
            connect("127.0.0.1:1", cert="me.crt", key="me.key")
        missing = os.path.join(tempfile.mkdtemp(), "ca.pem")
        os.environ["REGENT_CACERT"] = missing
        with self.assertRaisesRegex(ValueError, "cannot read " + missing):
            connect("127.0.0.1:1")


if __name__ == "__main__":
    with testing.start_cluster() as cluster:  # $REGENT_ENDPOINTS's cluster, else a local one of its own
        ENDPOINTS, LEDGER = cluster.endpoints, sys.argv[1]
        sys.exit(not unittest.main(argv=[sys.argv[0], "-v"], exit=False).result.wasSuccessful())
