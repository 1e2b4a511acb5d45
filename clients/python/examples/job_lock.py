"""Runs a job under a lock: one process at a time runs it, and it checks the lock before each step.

    python3 examples/job_lock.py ENDPOINTS NAME [STEPS]

lock() waits until this process holds lock NAME, keeps its lease alive on a thread, and releases it (unlock and
revoke the lease) on leaving the with block, so the next waiter gets it, with a larger fencing token. Prints
'locked NAME token=T at=MS', 'step I token=T' per step and 'unlocked NAME at=MS' (MS: wall clock,
milliseconds). Exit 0 after STEPS steps (default 3), 1 when the lock was lost first. TLS from
$REGENT_CACERT/$REGENT_CERT/$REGENT_KEY, as for the regent CLI.
"""

import sys
import time

from regent_client import LostLeadership, connect


def now_ms():
    return int(time.time() * 1000)


def main(endpoints, name, steps=3):
    with connect(endpoints) as client:
        with client.lock(name, ttl=5.0) as lock:  # publishes host:pid as the owner (`regent leader NAME`)
            print("locked %s token=%d at=%d" % (name, lock.token, now_ms()), flush=True)
            try:
                for i in range(1, steps + 1):
                    lock.check()  # raises LostLeadership once the lease can no longer be vouched for
                    print("step %d token=%d" % (i, lock.token), flush=True)
                    time.sleep(0.1)  # the job's work
            except LostLeadership as e:
                print("lost %s: %s" % (name, e), flush=True)
                return 1
            finally:
                print("unlocked %s at=%d" % (name, now_ms()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3))
