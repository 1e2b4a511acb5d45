"""python-etcd3 (Debian's python3-etcd3) against one etcd endpoint: its Lock and a watch.

Usage: python_etcd3_recipes.py HOST PORT PREFIX STEP, STEP one of lock, lock-wait, watch. Prints one line per
check passed and "ok"; a failed check raises, so the process ends non-zero with the traceback. Exit 3: the step
cannot run with this python-etcd3 (the reason printed). Run by PythonEtcd3Test (etcd-compat module).
"""
import sys

import etcd3

CANNOT_RUN = 3


def lock(a, b, name):
    """One client holds the lock; another's acquire fails while it is held and succeeds once it is released.

    timeout=0: one Txn on the key's create revision, no wait (see lock_wait for the wait).
    """
    first = a.lock(name, ttl=10)
    second = b.lock(name, ttl=10)
    assert first.acquire(timeout=5), "first acquire"
    assert first.is_acquired(), "first holds"
    print("first acquired")
    assert not second.acquire(timeout=0), "second acquired a held lock"
    assert first.is_acquired(), "first still holds"
    print("second refused while held")
    assert first.release(), "first release"
    assert not first.is_acquired(), "first released"
    assert second.acquire(timeout=0), "second acquire after release"
    assert second.is_acquired(), "second holds"
    print("second acquired after release")
    assert second.release(), "second release"


def lock_wait(a, b, name):
    """A second client's acquire with a 1 s timeout waits on a watch of the held lock's key, then fails."""
    first = a.lock(name, ttl=10)
    second = b.lock(name, ttl=10)
    assert first.acquire(timeout=5), "first acquire"
    try:
        acquired = second.acquire(timeout=1)
    except TypeError as e:
        # python-etcd3 0.12.0 (its last release) hands tenacity a wait function of tenacity's old signature, which
        # tenacity 8 no longer calls (kragniz/python-etcd3#2149; the fix, which drops tenacity, is unreleased):
        # the same against etcd itself
        if "delay_since_first_attempt" not in str(e):
            raise
        print("python-etcd3's Lock.acquire cannot wait with this tenacity:", e)
        first.release()
        sys.exit(CANNOT_RUN)
    assert not acquired, "second acquired a held lock"
    assert first.is_acquired(), "first still holds"
    print("second timed out while held")
    assert first.release(), "first release"


def watch(a, b, key):
    """A watch created by one client sees the other's put, with its key, value and revision."""
    events, cancel = a.watch(key)  # returns once the watch is created
    put = b.put(key, "v1")
    event = next(events)
    cancel()
    assert isinstance(event, etcd3.events.PutEvent), event
    assert event.key == key.encode() and event.value == b"v1", event
    assert event.mod_revision == put.header.revision, (event.mod_revision, put.header.revision)
    print("watch saw put at revision", put.header.revision)


STEPS = {"lock": lock, "lock-wait": lock_wait, "watch": watch}


def main():
    host, port, prefix, step = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    a = etcd3.client(host=host, port=port, timeout=20)
    b = etcd3.client(host=host, port=port, timeout=20)
    try:
        STEPS[step](a, b, prefix + step)
    finally:
        a.close()
        b.close()
    print("ok")


if __name__ == "__main__":
    main()
