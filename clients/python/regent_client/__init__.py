"""A Python client of Regent: leases, elections with fencing tokens, and the fenced demo ledger.

    from regent_client import connect

    with connect("127.0.0.1:7101,127.0.0.1:7102") as c, c.elect("jobs", ttl=5.0, value=b"worker-1") as lead:
        while lead.valid():
            write_with(lead.token)

The gRPC modules are generated from regent.proto by generate.sh (regent_client.v1).
"""

from regent_client.client import Client, Leadership, LostLeadership, StatusError, connect

__all__ = ["Client", "Leadership", "LostLeadership", "StatusError", "connect"]
