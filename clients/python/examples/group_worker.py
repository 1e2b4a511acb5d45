"""Works on the partitions of an ownership group that this process owns, each with its fencing token.

    python3 examples/group_worker.py ENDPOINTS GROUP MEMBER [STEPS] [--partitions N] [--members M]

Joins GROUP (created with N partitions, default 4) as MEMBER; the group gives each member its share of the
partitions and moves them as members come and go (docs/ownership.md). Prints 'joined GROUP as MEMBER lease=L',
then 'assigned P token=T' and 'revoked P' as the group tells it, and every 100 ms while the assignment is settled
(every partition owned, none moving, this member told all of its share) 'step I owns P=T,P=T' (partition=fencing
token, by partition): one step of the work, whose writes to partition P carry token T. The first step waits until
M members (default 1) have joined, so that two workers started at once have split the partitions before either
works. Leaves the group (its partitions move on at once) after STEPS steps, or on SIGTERM/SIGINT (STEPS 0, the
default: only then), printing 'left GROUP at=MS' (MS: wall clock, milliseconds). Exit 0; 1 when the lease was
lost first ('lost GROUP: REASON'). TLS from $REGENT_CACERT/$REGENT_CERT/$REGENT_KEY, as for the regent CLI.
"""

import argparse
import signal
import sys
import threading
import time

from regent_client import connect

STEP = 0.1  # seconds between two steps: the pace of the work, not a wait for anything


def settled(client, group, ownership):
    """Whether the group's assignment is at rest and this member has been told its whole share."""
    s = client.group_status(group)
    mine = {o.partition: o.token for o in s.owners if o.owner == ownership.member}
    at_rest = len(s.owners) == s.partitions and all(o.owner and not o.next for o in s.owners)
    return at_rest and ownership.owned() == mine, len(s.members)


def main(argv):
    p = argparse.ArgumentParser(prog="group_worker.py")
    p.add_argument("endpoints")
    p.add_argument("group")
    p.add_argument("member")
    p.add_argument("steps", nargs="?", type=int, default=0)
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--members", type=int, default=1)
    a = p.parse_args(argv)

    stop = threading.Event()
    lost = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    def on_step_down(reason):
        lost.append(reason)
        stop.set()

    def on_assigned(partition, token):
        print("assigned %d token=%d" % (partition, token), flush=True)  # from now on, write to it with token

    def on_revoked(partition):
        print("revoked %d" % partition, flush=True)  # stop writing to it now: it moves on once this returns

    with connect(a.endpoints) as client:
        with client.join_group(a.group, a.member, partitions=a.partitions, ttl=5.0, on_assigned=on_assigned,
                               on_revoked=on_revoked, on_step_down=on_step_down) as member:
            print("joined %s as %s lease=%d" % (a.group, a.member, member.lease), flush=True)
            step = 0
            quorum = a.members <= 1  # enough members seen, once
            while not stop.wait(STEP) and (a.steps == 0 or step < a.steps):
                at_rest, members = settled(client, a.group, member)
                quorum = quorum or members >= a.members
                if at_rest and quorum:
                    step += 1
                    owned = ",".join("%d=%d" % pt for pt in sorted(member.owned().items()))
                    print("step %d owns %s" % (step, owned), flush=True)  # the work: each write carries its token
        # leaving the with block revoked every partition, left the group and revoked the lease
        if lost:
            print("lost %s: %s" % (a.group, lost[0]), flush=True)
            return 1
        print("left %s at=%d" % (a.group, int(time.time() * 1000)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
