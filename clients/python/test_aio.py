"""The asyncio client against a real cluster: python3 test_aio.py (the cluster: regent_client.testing.start_cluster).

Run by the cli module's PythonClientTest; names start with py-aio-; exits non-zero on failure.
"""

import asyncio
import sys
import unittest

import grpc

from regent_client import aio, testing
from regent_client.v1 import regent_pb2 as pb
from tcp_proxy import TcpProxy

ENDPOINTS = ""
KIND = pb.ObserveResponse.Kind


class AsyncClientTest(unittest.IsolatedAsyncioTestCase):
    async def test_an_asyncio_lock_goes_to_the_second_holder_only_after_the_first_releases(self):
        async with aio.connect(ENDPOINTS) as c:
            first = await c.lock("py-aio-lock", ttl=2.0, owner="aio-1")
            second = asyncio.ensure_future(c.lock("py-aio-lock", ttl=2.0, owner="aio-2"))
            # 1.5 TTLs: the first's keeper task renews, so the second must still be waiting (the assertion)
            done, _ = await asyncio.wait({second}, timeout=3.0)
            self.assertFalse(done, "the second got the lock while the first held it")
            self.assertTrue(first.valid())
            self.assertEqual((await c.leader("py-aio-lock")).value, b"aio-1")
            await first.close()
            lock = await asyncio.wait_for(second, 15.0)
            self.assertGreater(lock.token, first.token)
            self.assertEqual((await c.leader("py-aio-lock")).value, b"aio-2")
            async with lock:
                self.assertTrue(lock.valid())
            self.assertIsNone(await c.leader("py-aio-lock"))
            with self.assertRaises(grpc.RpcError) as e:
                await c.time_to_live(lock.lease)
            self.assertEqual(e.exception.code(), grpc.StatusCode.NOT_FOUND, "release revokes the lease")

    async def test_elect_proclaim_and_a_revoked_lease_is_lost(self):
        lost = asyncio.Event()
        async with aio.connect(ENDPOINTS) as c:
            lead = await c.elect("py-aio-elect", ttl=2.0, value=b"v1", on_lost=lambda reason: lost.set())
            key = await lead.proclaim(b"v2")
            self.assertEqual((key.value, key.token), (b"v2", lead.token))
            await c.revoke(lead.lease)
            await asyncio.wait_for(lost.wait(), 5.0)
            self.assertFalse(lead.valid())
            self.assertIsNone(await c.leader("py-aio-elect"))
            await lead.close()

    async def test_bad_input_is_refused_and_grants_nothing(self):
        async with aio.connect(ENDPOINTS) as c:
            with self.assertRaises(ValueError):
                await c.lock("py-aio-bad", ttl=-1)
            with self.assertRaises(ValueError):
                c.observe("py-aio-bad", after=-1)
            with self.assertRaises(grpc.RpcError) as e:
                await c.elect("py-aio-bad", ttl=0.001)  # below the cluster's minimum TTL
            self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIsNone(await c.leader("py-aio-bad"))

    async def test_observe_resumes_at_another_node_after_its_stream_is_cut(self):
        proxy = TcpProxy(ENDPOINTS.split(",")[0])
        self.addCleanup(proxy.cut)
        async with aio.connect(ENDPOINTS) as c, aio.connect([proxy.endpoint] + ENDPOINTS.split(",")) as watcher:
            async with watcher.observe("py-aio-observe") as events:
                self.assertEqual((await events.__anext__()).kind, KIND.CURRENT)
                lead = await c.elect("py-aio-observe", ttl=2.0, value=b"v1")
                elected = await asyncio.wait_for(events.__anext__(), 10.0)
                self.assertEqual(elected.kind, KIND.ELECTED)
                proxy.cut()
                await lead.proclaim(b"v2")
                await lead.close()
                later = [await asyncio.wait_for(events.__anext__(), 10.0) for _ in range(2)]
        self.assertEqual([e.kind for e in later], [KIND.PROCLAIMED, KIND.RESIGNED])
        self.assertEqual(later[0].leader.value, b"v2")
        self.assertLess(elected.index, later[0].index)
        self.assertLess(later[0].index, later[1].index)


if __name__ == "__main__":
    with testing.start_cluster() as cluster:  # $REGENT_ENDPOINTS's cluster, else a local one of its own
        ENDPOINTS = cluster.endpoints
        sys.exit(not unittest.main(argv=[sys.argv[0], "-v"], exit=False).result.wasSuccessful())
