"""examples/group_worker.py run twice at once against a real cluster: python3 test_group_worker.py (the
cluster: regent_client.testing.start_cluster).

Run by the cli module's PythonClientTest; groups start with py-worker; exits non-zero on failure.
"""

import os
import re
import signal
import subprocess
import sys
import threading
import unittest

from regent_client import testing

ENDPOINTS = ""
WAIT = 30.0  # seconds: the longest a settled assignment may take to show in a worker's output
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples", "group_worker.py")
STEP = re.compile(r"^step (\d+) owns (.*)$")


class Worker:
    """A group_worker.py process whose output lines are read as they come."""

    def __init__(self, test, *args):
        self.lines = []
        self.ended = False  # its output read to the end
        self.changed = threading.Condition()
        self.process = subprocess.Popen([sys.executable, EXAMPLE, ENDPOINTS] + list(args), stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        test.addCleanup(self.kill)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.ended = True
            self.changed.notify_all()

    def steps(self):
        """The partition=token maps of its step lines, in order."""
        with self.changed:
            found = [STEP.match(line) for line in self.lines]
        return [dict(tuple(map(int, pt.split("="))) for pt in m.group(2).split(",") if pt) for m in found if m]

    def wait_for_step(self, owning, after=0):
        """Waits for a step line owning `owning` partitions, from step `after` + 1 on; its number and its
        partition=token map (the output's order is the worker's: a later step was taken later)."""
        def found():
            return [(i + 1, s) for i, s in enumerate(self.steps()) if i >= after and len(s) == owning]
        with self.changed:
            ok = self.changed.wait_for(lambda: found() or self.ended, WAIT)
        assert ok and found(), "no step owning %d partitions (within %.0f s, before its end):\n%s" % (
            owning, WAIT, "\n".join(self.lines))
        return found()[0]

    def finish(self):
        """Waits for the process to end; its exit code and whole output (read to its end)."""
        code = self.process.wait(WAIT)
        self.reader.join(WAIT)
        return code, "\n".join(self.lines)

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.reader.join(WAIT)
        self.process.stdout.close()


class GroupWorkerTest(unittest.TestCase):
    def test_two_workers_split_the_partitions_and_the_one_left_takes_all_four_with_larger_tokens(self):
        group = "py-worker-signal-%d" % os.getpid()
        a, b = Worker(self, group, "a"), Worker(self, group, "b")
        (_, owned_a), (b_split, owned_b) = a.wait_for_step(2), b.wait_for_step(2)
        self.assertEqual(set(owned_a) | set(owned_b), {0, 1, 2, 3}, "a %s, b %s" % (owned_a, owned_b))
        a.process.send_signal(signal.SIGTERM)
        code, out = a.finish()
        self.assertEqual(code, 0, out)
        self.assertRegex(out, r"(?m)^left %s at=\d+$" % group)
        _, all_four = b.wait_for_step(4, after=b_split)  # once a has left: b's steps before were split
        for p, token in owned_a.items():
            self.assertGreater(all_four[p], token, "partition %d moved from a to b" % p)
        for p, token in owned_b.items():
            self.assertEqual(all_four[p], token, "partition %d stayed with b" % p)
        b.process.send_signal(signal.SIGINT)
        code, out = b.finish()
        self.assertEqual(code, 0, out)
        self.assertIn("left %s" % group, out)

    def test_two_workers_given_steps_and_two_members_split_the_partitions_before_their_first_step(self):
        # as the install test runs it: both to their end, output read after
        group = "py-worker-steps-%d" % os.getpid()
        a, b = Worker(self, group, "a", "5", "--members", "2"), Worker(self, group, "b", "5", "--members", "2")
        firsts = []
        for w in (a, b):
            code, out = w.finish()
            self.assertEqual(code, 0, out)
            self.assertRegex(out, r"(?m)^joined %s as [ab] lease=\d+$" % group)
            self.assertRegex(out, r"(?m)^step 5 owns ")
            self.assertRegex(out, r"(?m)^left %s at=\d+$" % group)
            firsts.append(w.steps()[0])
        self.assertEqual([len(f) for f in firsts], [2, 2], "first steps %s" % firsts)
        self.assertEqual(set(firsts[0]) | set(firsts[1]), {0, 1, 2, 3})
        self.assertTrue(all(t > 0 for f in firsts for t in f.values()))


if __name__ == "__main__":
    with testing.start_cluster() as cluster:  # $REGENT_ENDPOINTS's cluster, else a local one of its own
        ENDPOINTS = cluster.endpoints
        sys.exit(not unittest.main(argv=[sys.argv[0], "-v"], exit=False).result.wasSuccessful())
