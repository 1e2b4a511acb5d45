"""A Python client of Regent: leases, elections and locks with fencing tokens, resumable observe, ownership
groups (join_group), asyncio.

    from regent_client import connect

    with connect("127.0.0.1:7101,127.0.0.1:7102") as c, c.lock("jobs", ttl=5.0) as lock:
        while lock.valid():
            write_with(lock.token)

regent_client.aio has the same verbs on grpc.aio. The gRPC modules are generated from regent.proto and
group.proto by generate.sh (regent_client.v1).
"""

from regent_client.client import Client, connect
from regent_client.errors import LostLeadership, StatusError
from regent_client.holder import Leadership
from regent_client.observe import Observation
from regent_client.ownership import Ownership

__all__ = ["Client", "Leadership", "LostLeadership", "Observation", "Ownership", "StatusError", "connect"]
