"""Ownership groups (join_group, thread and asyncio members) against a real cluster, and the request ids of their
writes against fake nodes: python3 test_groups.py (the cluster: regent_client.testing.start_cluster).

Run by the cli module's PythonClientTest; names start with py-group; exits non-zero on failure.
"""

import asyncio
import sys
import threading
import unittest
from concurrent import futures

import grpc

from regent_client import aio, connect, testing
from regent_client.v1 import group_pb2 as gpb
from regent_client.v1 import group_pb2_grpc as group_rpc

ENDPOINTS = ""
WAIT = 30.0  # seconds: the longest a settled assignment may take to reach a member


class Member:
    """A member's view as its callbacks tell it: partition to token, and every (partition, token) assigned."""

    def __init__(self):
        self.owned = {}
        self.assigned = []
        self.changed = threading.Condition()
        self.on_change = lambda: None  # the asyncio test's wake-up (its callbacks run on its loop)

    def on_assigned(self, partition, token):
        with self.changed:
            self.owned[partition] = token
            self.assigned.append((partition, token))
            self.changed.notify_all()
        self.on_change()

    def on_revoked(self, partition):
        with self.changed:
            del self.owned[partition]
            self.changed.notify_all()
        self.on_change()

    def wait_for(self, partitions):
        """Waits until the member owns exactly `partitions`; its owned map then."""
        with self.changed:
            ok = self.changed.wait_for(lambda: set(self.owned) == set(partitions), WAIT)
            assert ok, "owns %s, not %s, after %.0f s" % (sorted(self.owned), sorted(partitions), WAIT)
            return dict(self.owned)

    def callbacks(self):
        return dict(on_assigned=self.on_assigned, on_revoked=self.on_revoked)


def split(a, b):
    """Waits until members a and b share the 4 partitions between them, 2 each (balanced); their owned maps."""
    with a.changed:
        a.changed.wait_for(lambda: len(a.owned) == 2, WAIT)
    mine = set(a.owned)
    return a.wait_for(mine), b.wait_for(set(range(4)) - mine)


class GroupTest(unittest.TestCase):
    def test_two_members_split_the_partitions_and_the_one_left_gets_all_four_with_larger_tokens(self):
        a, b = Member(), Member()
        with connect(ENDPOINTS) as c:
            with c.join_group("py-group", "a", partitions=4, ttl=3.0, **a.callbacks()) as first, \
                    c.join_group("py-group", "b", partitions=4, ttl=3.0, **b.callbacks()) as second:
                owned_a, owned_b = split(a, b)
                self.assertEqual(set(owned_a) | set(owned_b), {0, 1, 2, 3})
                self.assertTrue(all(t > 0 for t in list(owned_a.values()) + list(owned_b.values())))
                self.assertEqual(first.owned(), owned_a)
                self.assertEqual(second.token(next(iter(owned_b))), owned_b[next(iter(owned_b))])
                with self.assertRaises(LookupError):
                    first.token(next(iter(owned_b)))
                status = c.group_status("py-group")
                self.assertEqual({o.partition: (o.owner, o.token) for o in status.owners},
                                 {**{p: ("a", t) for p, t in owned_a.items()},
                                  **{p: ("b", t) for p, t in owned_b.items()}})
                second.close()
                self.assertEqual(b.owned, {}, "close() revokes every partition of the member")
                after = a.wait_for(range(4))
                before = max(list(owned_a.values()) + list(owned_b.values()))
                for p in owned_b:
                    self.assertGreater(after[p], before, "partition %d moved with a token above every earlier one" % p)
                for p in owned_a:
                    self.assertEqual(after[p], owned_a[p], "a keeps what it had (sticky)")
                self.assertEqual(first.owned(), after)
            self.assertEqual(a.owned, {})
            with self.assertRaises(grpc.RpcError) as e:
                c.group_status("py-group")
            self.assertEqual(e.exception.code(), grpc.StatusCode.NOT_FOUND, "deleted with its last member")

    def test_another_partition_count_is_refused_and_bad_input_sends_nothing(self):
        with connect(ENDPOINTS) as c, c.join_group("py-group-count", "a", partitions=4, ttl=3.0):
            with self.assertRaises(grpc.RpcError) as e:
                c.join_group("py-group-count", "b", partitions=8, ttl=3.0)
            self.assertEqual(e.exception.code(), grpc.StatusCode.FAILED_PRECONDITION)
            for bad in (dict(partitions=65537), dict(partitions=-1), dict(member=""), dict(member="m" * 129),
                        dict(ttl=0)):
                args = {**dict(member="b", partitions=4, ttl=3.0), **bad}
                with self.assertRaises(ValueError):
                    c.join_group("py-group-count", args.pop("member"), **args)
            self.assertEqual([m.member for m in c.group_status("py-group-count").members], ["a"])


class GroupStepDownTest(unittest.TestCase):
    def test_a_member_whose_lease_is_revoked_revokes_every_partition_then_steps_down(self):
        m = Member()
        seen = []  # what the member owned when it was told to step down
        stepped = threading.Event()

        def step_down(reason):
            seen.append(dict(m.owned))
            stepped.set()

        with connect(ENDPOINTS) as c, c.join_group("py-group-lost", "a", partitions=2, ttl=3.0,
                                                   on_step_down=step_down, **m.callbacks()) as member:
            m.wait_for(range(2))
            c.revoke(member.lease)  # as the leader does when the lease expires
            self.assertTrue(stepped.wait(WAIT), "no step-down within %.0f s" % WAIT)
            self.assertEqual(seen, [{}], "every partition is revoked before the step-down")
            self.assertFalse(member.valid())
            self.assertEqual(member.owned(), {})


class AsyncGroupTest(unittest.IsolatedAsyncioTestCase):
    async def test_asyncio_members_split_the_partitions_and_the_one_left_gets_all_four_with_larger_tokens(self):
        a, b = Member(), Member()
        self.changed = asyncio.Event()
        a.on_change = b.on_change = self.changed.set  # called on this loop by the members' tasks
        async with aio.connect(ENDPOINTS) as c:
            first = await c.join_group("py-group-aio", "a", partitions=4, ttl=3.0, **a.callbacks())
            second = await c.join_group("py-group-aio", "b", partitions=4, ttl=3.0, **b.callbacks())
            await self.until(lambda: len(a.owned) == 2 and len(b.owned) == 2)
            owned_a, owned_b = dict(a.owned), dict(b.owned)
            self.assertEqual(set(owned_a) | set(owned_b), {0, 1, 2, 3})
            await second.close()
            await self.until(lambda: len(a.owned) == 4)
            before = max(list(owned_a.values()) + list(owned_b.values()))
            self.assertTrue(all(a.owned[p] > before for p in owned_b))
            self.assertEqual(first.owned(), a.owned)
            await first.close()
            self.assertEqual(a.owned, {})

    async def until(self, condition):
        """Waits until condition() holds, woken by each callback (they run on this loop, so none comes between a
        check and the clear after it)."""

        async def changes():
            while not condition():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(changes(), WAIT)


class GroupRequestIdTest(unittest.TestCase):
    """A join re-sent after a dead node carries its first send's request id, so it applies once (fake nodes)."""

    class Group(group_rpc.GroupServicer):
        def __init__(self, dead):
            self.dead = dead
            self.joins = []  # request ids, in order

        def Join(self, request, context):
            self.joins.append(request.request_id)
            if self.dead:
                context.abort(grpc.StatusCode.UNAVAILABLE, "node stopping")
            return gpb.GroupJoinResponse(lease=7, index=8)

        def Watch(self, request, context):
            ended = threading.Event()
            # nothing changes: the stream stays open until the member cancels it (False: it did already)
            if context.add_callback(ended.set):
                ended.wait()
            return iter(())

        def Leave(self, request, context):
            self.joins.append("leave:" + request.request_id)
            return gpb.GroupLeaveResponse(index=9)

    def test_a_join_re_sent_at_the_next_node_carries_the_same_request_id(self):
        dead, alive = self.Group(True), self.Group(False)
        endpoints = []
        for node in (dead, alive):
            server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
            group_rpc.add_GroupServicer_to_server(node, server)
            endpoints.append("127.0.0.1:%d" % server.add_insecure_port("127.0.0.1:0"))
            server.start()
            self.addCleanup(server.stop, None)
        with connect(endpoints) as c:
            member = c.join_group("g", "m", partitions=4, ttl=3.0)
            self.assertEqual(member.lease, 7)
            member.close()  # its keeper's renewals and the revoke fail here (no Lease service): best effort
        self.assertEqual(len(dead.joins), 1)
        self.assertEqual(alive.joins[0], dead.joins[0], "the re-send carries the first send's id")
        self.assertTrue(alive.joins[1].startswith("leave:") and alive.joins[1] != "leave:",
                        "the leave carries a request id of its own")


if __name__ == "__main__":
    with testing.start_cluster() as cluster:  # $REGENT_ENDPOINTS's cluster, else a local one of its own
        ENDPOINTS = cluster.endpoints
        sys.exit(not unittest.main(argv=[sys.argv[0], "-v"], exit=False).result.wasSuccessful())
