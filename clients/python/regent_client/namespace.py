"""A namespace: a name prefix that a client adds to every name it sends and removes from every name it returns.

Teams sharing a cluster keep apart by prefix (as Curator's usingNamespace or the etcd3 package's namespace()):
client code says "jobs", the cluster holds "team-a/jobs", and per-name permissions (docs/security.md) can grant
a team its prefix. The caller never sees the prefix: keys and holders come back with the name it gave.
"""

from __future__ import annotations

from regent_client.v1 import regent_pb2 as pb


class Namespace:
    """The prefix (a str; "" for none) and its translations of names and LeaderKeys."""

    def __init__(self, prefix: str = "") -> None:
        if not isinstance(prefix, str):
            raise TypeError("namespace must be a str, e.g. 'team-a/'")
        self.prefix = prefix

    def name(self, name: str) -> str:
        """The name as the cluster knows it: the prefix, then `name`."""
        return self.prefix + name

    def key_in(self, key: pb.LeaderKey) -> pb.LeaderKey:
        """A copy of the caller's LeaderKey with the cluster's name (to send, e.g. to resign)."""
        return self._renamed(key, self.prefix + key.name)

    def key_out(self, key: pb.LeaderKey) -> pb.LeaderKey:
        """A copy of a LeaderKey from the cluster with the caller's name."""
        if not self.prefix or not key.name.startswith(self.prefix):
            return key
        return self._renamed(key, key.name[len(self.prefix):])

    @staticmethod
    def _renamed(key: pb.LeaderKey, name: str) -> pb.LeaderKey:
        copy = pb.LeaderKey()
        copy.CopyFrom(key)
        copy.name = name
        return copy

    def event_out(self, event: pb.ObserveResponse) -> pb.ObserveResponse:
        """A copy of an ObserveResponse from the cluster with the caller's names (event and holder)."""
        if not self.prefix or not event.name.startswith(self.prefix):
            return event
        copy = pb.ObserveResponse()
        copy.CopyFrom(event)
        copy.name = event.name[len(self.prefix):]
        if event.HasField("leader"):
            copy.leader.CopyFrom(self.key_out(event.leader))
        return copy
