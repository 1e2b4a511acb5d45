"""Drives the Python client against a real cluster: python3 test_regent_client.py ENDPOINTS LEDGER.

Run by the cli module's PythonClientTest (in mvn verify), after generate.sh; exits non-zero on failure.
"""

import subprocess
import sys
import threading
import time
import unittest

import grpc

from regent.v1 import regent_pb2 as pb
from regent.v1 import regent_pb2_grpc as rpc
from regent_client import LostLeadership, connect

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


if __name__ == "__main__":
    ENDPOINTS, LEDGER = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], "-v"])
