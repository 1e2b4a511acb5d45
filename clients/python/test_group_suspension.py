"""A suspending group member (join_group(suspend=True)), thread and asyncio, against a real cluster, its keepalives
held by a paused TCP forwarder (tcp_proxy.py): python3 test_group_suspension.py (the cluster:
regent_client.testing.start_cluster).

Run by the cli module's PythonClientTest; groups start with py-group-suspend or py-aio-group-suspend; exits
non-zero on failure.
"""

import asyncio
import os
import sys
import threading
import unittest

from regent_client import aio, connect, testing
from tcp_proxy import TcpProxy

ENDPOINTS = ""
WAIT = 30.0  # seconds: the longest a change may take to reach a member
TTL = 6.0  # seconds: in doubt 4 s after the last acknowledged keepalive's send, expired about 2 s later


class Member:
    """What a member's callbacks told, in order: ("assigned", partition, token), ("revoked", partition),
    ("suspended",), ("resumed",), ("step_down",)."""

    def __init__(self):
        self.events = []
        self.changed = threading.Condition()
        self.on_change = lambda: None  # an asyncio member's wake-up (AsyncMember)

    def _add(self, *event):
        with self.changed:
            self.events.append(event)
            self.changed.notify_all()
        self.on_change()

    def callbacks(self):
        return dict(on_assigned=lambda p, t: self._add("assigned", p, t), on_revoked=lambda p: self._add("revoked", p),
                    on_suspended=lambda _: self._add("suspended"), on_resumed=lambda: self._add("resumed"),
                    on_step_down=lambda _: self._add("step_down"))

    def wait_for(self, what, after=0):
        """Waits until events[after:] hold what(events[after:]) true; the number of events then."""
        with self.changed:
            ok = self.changed.wait_for(lambda: what(self.events[after:]), WAIT)
            assert ok, "after %.0f s: %s" % (WAIT, self.events)
            return len(self.events)

    def owned_after(self, start):
        """partition -> token owned by the events from `start` on."""
        with self.changed:
            return owned_by(self.events[start:])


class AsyncMember(Member):
    """Member for an asyncio member, whose callbacks run on the test's loop: until() awaits instead of blocking it.
    Make it on that loop."""

    def __init__(self):
        super().__init__()
        self._woken = asyncio.Event()
        self.on_change = self._woken.set

    async def until(self, what, after=0):
        """Member.wait_for awaited: woken by each callback (they run on this loop, so none comes between a check
        and the clear after it)."""

        async def changes():
            while not what(self.events[after:]):
                self._woken.clear()
                await self._woken.wait()

        try:
            await asyncio.wait_for(changes(), WAIT)
        except asyncio.TimeoutError:
            raise AssertionError("after %.0f s: %s" % (WAIT, self.events)) from None
        return len(self.events)


def owned_by(events):
    """partition -> token the events leave owned."""
    owned = {}
    for e in events:
        if e[0] == "assigned":
            owned[e[1]] = e[2]
        elif e[0] == "revoked":
            del owned[e[1]]
    return owned


def owns(partitions):
    return lambda events: set(owned_by(events)) == set(partitions)


class GroupSuspensionTest(unittest.TestCase):
    def member_behind_a_proxy(self, group, partitions):
        """Member a of `group`, all of whose calls (Join, Watch, keepalives) go through a TcpProxy; (proxy, client,
        its Member record, its Ownership)."""
        proxy = TcpProxy(ENDPOINTS.split(",")[0])  # followers serve every call (docs/api.md): any node will do
        self.addCleanup(proxy.cut)
        client = connect(proxy.endpoint)
        self.addCleanup(client.close)
        a = Member()
        ownership = client.join_group(group, "a", partitions=partitions, ttl=TTL, suspend=True, **a.callbacks())
        self.addCleanup(ownership.close)
        self.addCleanup(proxy.resume)  # first (cleanups run last-in first): a failed test's close() is not held
        return proxy, a, ownership

    def test_a_member_cut_off_past_two_thirds_of_its_ttl_is_suspended_and_resumes_with_the_same_tokens(self):
        group = "py-group-suspend-%d" % os.getpid()
        proxy, a, member = self.member_behind_a_proxy(group, 2)
        assigned = a.wait_for(owns({0, 1}))
        tokens = a.owned_after(0)
        proxy.pause()  # no keepalive gets through: in doubt 2/3 TTL after the last acknowledged one's send
        suspended = a.wait_for(lambda events: ("suspended",) in events, after=assigned)
        self.assertEqual(a.events[assigned:suspended], [("revoked", 0), ("revoked", 1), ("suspended",)],
                         "every partition revoked before on_suspended")
        self.assertEqual(member.owned(), {})
        self.assertFalse(member.valid())
        self.assertTrue(member.suspended())
        with self.assertRaises(LookupError):
            member.token(0)
        proxy.resume()  # within the TTL: the next keepalive renews the lease, and the member resumes
        a.wait_for(lambda events: ("resumed",) in events and owns({0, 1})(events), after=suspended)
        self.assertEqual(a.events[suspended], ("resumed",), "on_resumed before the partitions are assigned again")
        self.assertEqual(a.owned_after(suspended), tokens, "the same tokens: no partition moved meanwhile")
        self.assertEqual(member.owned(), tokens)
        self.assertTrue(member.valid())
        with connect(ENDPOINTS) as c:
            self.assertEqual({o.partition: (o.owner, o.token) for o in c.group_status(group).owners},
                             {p: ("a", t) for p, t in tokens.items()})

    def test_a_suspended_member_whose_lease_expires_steps_down_and_its_partitions_move_with_larger_tokens(self):
        group = "py-group-suspend-lost-%d" % os.getpid()
        proxy, a, member = self.member_behind_a_proxy(group, 4)
        b = Member()
        with connect(ENDPOINTS) as c, c.join_group(group, "b", partitions=4, ttl=TTL, **b.callbacks()):
            b.wait_for(lambda events: len(owned_by(events)) == 2)  # moved from a, which owned all 4 first
            assigned = a.wait_for(owns({0, 1, 2, 3} - set(b.owned_after(0))))
            tokens_a = a.owned_after(0)
            proxy.pause()
            suspended = a.wait_for(lambda events: ("suspended",) in events, after=assigned)
            # held past its TTL: the cluster expires a's lease and gives its partitions to b
            b.wait_for(owns({0, 1, 2, 3}))
            owned_b = b.owned_after(0)
            for p, t in tokens_a.items():
                self.assertGreater(owned_b[p], t, "partition %d moved from a to b with a larger token" % p)
            proxy.resume()  # a's next keepalive: NOT_FOUND, and a steps down
            a.wait_for(lambda events: ("step_down",) in events, after=suspended)
            self.assertNotIn("assigned", [e[0] for e in a.events[suspended:]], "nothing assigned to a again")
            self.assertFalse(member.valid())
            self.assertEqual(member.owned(), {})
            self.assertEqual({o.owner for o in c.group_status(group).owners}, {"b"})


class AsyncGroupSuspensionTest(unittest.IsolatedAsyncioTestCase):
    """GroupSuspensionTest's two cases with an asyncio member (AsyncClient.join_group, aio_ownership.py), its
    lease kept by an asyncio task (aio_keeper.py)."""

    async def member_behind_a_proxy(self, group, partitions):
        """As GroupSuspensionTest.member_behind_a_proxy, on this loop: (proxy, its AsyncMember, its
        AsyncOwnership)."""
        proxy = TcpProxy(ENDPOINTS.split(",")[0])
        self.addCleanup(proxy.cut)
        client = aio.connect(proxy.endpoint)
        self.addAsyncCleanup(client.close)
        a = AsyncMember()
        ownership = await client.join_group(group, "a", partitions=partitions, ttl=TTL, suspend=True,
                                            **a.callbacks())
        self.addAsyncCleanup(ownership.close)
        self.addCleanup(proxy.resume)
        return proxy, a, ownership

    async def test_an_asyncio_member_cut_off_past_two_thirds_of_its_ttl_is_suspended_and_resumes(self):
        group = "py-aio-group-suspend-%d" % os.getpid()
        proxy, a, member = await self.member_behind_a_proxy(group, 2)
        assigned = await a.until(owns({0, 1}))
        tokens = a.owned_after(0)
        proxy.pause()
        suspended = await a.until(lambda events: ("suspended",) in events, after=assigned)
        self.assertEqual(a.events[assigned:suspended], [("revoked", 0), ("revoked", 1), ("suspended",)],
                         "every partition revoked before on_suspended")
        self.assertEqual(member.owned(), {})
        self.assertFalse(member.valid())
        self.assertTrue(member.suspended())
        with self.assertRaises(LookupError):
            member.token(0)
        proxy.resume()
        await a.until(lambda events: ("resumed",) in events and owns({0, 1})(events), after=suspended)
        self.assertEqual(a.events[suspended], ("resumed",), "on_resumed before the partitions are assigned again")
        self.assertEqual(a.owned_after(suspended), tokens, "the same tokens: no partition moved meanwhile")
        self.assertEqual(member.owned(), tokens)
        self.assertTrue(member.valid())
        self.assertFalse(member.suspended())
        async with aio.connect(ENDPOINTS) as c:
            self.assertEqual({o.partition: (o.owner, o.token) for o in (await c.group_status(group)).owners},
                             {p: ("a", t) for p, t in tokens.items()})

    async def test_a_suspended_asyncio_member_whose_lease_expires_steps_down_and_its_partitions_move(self):
        group = "py-aio-group-suspend-lost-%d" % os.getpid()
        proxy, a, member = await self.member_behind_a_proxy(group, 4)
        b = AsyncMember()
        async with aio.connect(ENDPOINTS) as c, await c.join_group(group, "b", partitions=4, ttl=TTL,
                                                                   **b.callbacks()):
            await b.until(lambda events: len(owned_by(events)) == 2)
            assigned = await a.until(owns({0, 1, 2, 3} - set(b.owned_after(0))))
            tokens_a = a.owned_after(0)
            proxy.pause()
            suspended = await a.until(lambda events: ("suspended",) in events, after=assigned)
            await b.until(owns({0, 1, 2, 3}))
            owned_b = b.owned_after(0)
            for p, t in tokens_a.items():
                self.assertGreater(owned_b[p], t, "partition %d moved from a to b with a larger token" % p)
            proxy.resume()
            await a.until(lambda events: ("step_down",) in events, after=suspended)
            self.assertNotIn("assigned", [e[0] for e in a.events[suspended:]], "nothing assigned to a again")
            self.assertFalse(member.valid())
            self.assertFalse(member.suspended())
            self.assertEqual(member.owned(), {})
            self.assertEqual({o.owner for o in (await c.group_status(group)).owners}, {"b"})


if __name__ == "__main__":
    with testing.start_cluster() as cluster:  # $REGENT_ENDPOINTS's cluster, else a local one of its own
        ENDPOINTS = cluster.endpoints
        sys.exit(not unittest.main(argv=[sys.argv[0], "-v"], exit=False).result.wasSuccessful())
