"""Leads NAME and appends to the fenced demo ledger with the fencing token, until leadership is lost.

    python3 examples/ledger_writer.py ENDPOINTS LEDGER NAME [COUNT]

Prints 'admitted ENTRY token=T position=P' per append and 'rejected token=T: ...' when the ledger refuses
a stale token (a deposed leader's write, which the ledger keeps out). Exit 0 after COUNT appends (default
5), 1 when leadership was lost first.
"""

import socket
import sys

import grpc

from regent_client.v1 import regent_pb2 as pb
from regent_client.v1 import regent_pb2_grpc as rpc
from regent_client import connect


def main(endpoints, ledger, name, count=5):
    me = "%s:%d" % (socket.gethostname(), __import__("os").getpid())
    appender = rpc.LedgerStub(grpc.insecure_channel(ledger))
    with connect(endpoints) as client, client.elect(name, ttl=5.0, value=me.encode()) as lead:
        print("elected %s token=%d lease=%d" % (name, lead.token, lead.lease), flush=True)
        for i in range(count):
            if not lead.valid():
                print("lost %s" % name, flush=True)
                return 1
            entry = ("%s #%d" % (me, i)).encode()
            try:
                r = appender.Append(pb.LedgerAppendRequest(key=name, token=lead.token, entry=entry), timeout=5)
                print("admitted %s token=%d position=%d" % (entry.decode(), lead.token, r.position), flush=True)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                print("rejected token=%d: %s" % (lead.token, e.details()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 5))
