"""A Client's ownership groups (docs/ownership.md): join_group(), and a group's status."""

from __future__ import annotations

from typing import Optional

from regent_client.elections import DEFAULT_TTL, Elections
from regent_client.ownership import OnAssigned, OnReason, OnResumed, OnRevoked, Ownership
from regent_client.v1 import group_pb2 as gpb


class Groups(Elections):
    """join_group, group_status."""

    def join_group(self, group: str, member: str, partitions: int = 0, ttl: float = DEFAULT_TTL,
                   on_assigned: OnAssigned = None, on_revoked: OnRevoked = None, on_step_down: OnReason = None,
                   on_suspended: OnReason = None, on_resumed: OnResumed = None, suspend: bool = False,
                   grace: Optional[float] = None) -> Ownership:
        """Joins `group` as `member` (1..128 bytes) with a new lease of `ttl` s, granted in the join's own entry and
        kept alive on a thread, creating the group with `partitions` (1..65 536; 0 joins an existing one), and
        follows the member's assignment: an Ownership, whose callbacks (ownership.py) tell each partition
        assigned with its fencing token and each revoked. Errors of Group.Join (docs/ownership.md, "API"):
        FAILED_PRECONDITION for another partition count than the group's or the member id held by another lease,
        NOT_FOUND for a new group with partitions 0, INVALID_ARGUMENT for a bad name or TTL; ValueError or
        TypeError before anything is sent."""
        return Ownership(self, group, member, partitions, ttl, on_assigned=on_assigned, on_revoked=on_revoked,
                         on_step_down=on_step_down, on_suspended=on_suspended, on_resumed=on_resumed,
                         suspend=suspend, grace=grace)

    def group_status(self, group: str, serializable: bool = False) -> gpb.GroupStatusResponse:
        """A group's whole assignment: partitions, members, each partition's owner and token (and `next` member
        while a move waits for its release), read linearizably unless serializable. NOT_FOUND for no such group."""
        answer = self._call("Group", "Status", self._msg.group_status(group, serializable), to_leader=not serializable)
        answer.group = group
        return answer

