package io.regent.server.api;

import io.regent.api.v1.GroupMemberInfo;
import io.regent.api.v1.GroupStatusResponse;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.api.v1.PartitionOwner;
import io.regent.api.v1.PartitionToken;
import io.regent.statemachine.proto.GroupMember;
import io.regent.statemachine.proto.GroupRecord;
import java.util.HashMap;
import java.util.Map;

/** Conversions of a stored ownership group to the public Group messages. */
final class GroupViews {
  private GroupViews() {
  }

  /** The whole assignment of {@code g} as read at {@code index}. */
  static GroupStatusResponse status(GroupRecord g, long index) {
    Map<Long, String> ids = new HashMap<>();
    GroupStatusResponse.Builder b = GroupStatusResponse.newBuilder().setGroup(g.getName())
        .setPartitions(g.getPartitions()).setIndex(index);
    for (GroupMember m : g.getMembersList()) {
      ids.put(m.getLeaseId(), m.getId());
      b.addMembers(GroupMemberInfo.newBuilder().setMember(m.getId()).setLease(m.getLeaseId())
          .setJoinedIndex(m.getJoinedIndex()));
    }
    for (int p = 0; p < g.getPartitions(); p++) {
      PartitionOwner.Builder o = PartitionOwner.newBuilder().setPartition(p);
      long owner = g.getOwner(p);
      if (owner != 0) {
        o.setOwner(ids.getOrDefault(owner, "")).setToken(g.getToken(p));
      }
      if (g.getTarget(p) != owner && g.getTarget(p) != 0) {
        o.setNext(ids.getOrDefault(g.getTarget(p), ""));
      }
      b.addOwners(o);
    }
    return b.build();
  }

  /**
   * Every member's assignment in {@code g} as read at {@code index}, by member id, in one pass over the
   * partitions: owned partitions with their tokens, those to release (assigned to another member) and those
   * incoming (assigned to the member, not released by their owner yet).
   */
  static Map<String, GroupWatchResponse> members(GroupRecord g, long index) {
    Map<Long, GroupWatchResponse.Builder> byLease = new HashMap<>();
    for (GroupMember m : g.getMembersList()) {
      byLease.put(m.getLeaseId(), GroupWatchResponse.newBuilder().setIndex(index).setPartitions(g.getPartitions())
          .setJoined(true).setLease(m.getLeaseId()));
    }
    for (int p = 0; p < g.getPartitions(); p++) {
      long owner = g.getOwner(p);
      long target = g.getTarget(p);
      GroupWatchResponse.Builder o = byLease.get(owner);
      if (o != null) {
        o.addOwned(PartitionToken.newBuilder().setPartition(p).setToken(g.getToken(p)));
        if (target != owner) {
          o.addRelease(p);
        }
      }
      GroupWatchResponse.Builder t = target == owner ? null : byLease.get(target);
      if (t != null) {
        t.addIncoming(p);
      }
    }
    Map<String, GroupWatchResponse> out = new HashMap<>();
    for (GroupMember m : g.getMembersList()) {
      out.put(m.getId(), byLease.get(m.getLeaseId()).build());
    }
    return out;
  }

  /** The view of a non-member of {@code g} (null: no such group) as read at {@code index}: nothing joined. */
  static GroupWatchResponse absent(GroupRecord g, long index) {
    GroupWatchResponse.Builder b = GroupWatchResponse.newBuilder().setIndex(index);
    return g == null ? b.build() : b.setPartitions(g.getPartitions()).build();
  }

  /** Whether two member views say the same, whatever their index. */
  static boolean sameAssignment(GroupWatchResponse a, GroupWatchResponse b) {
    return a.toBuilder().clearIndex().build().equals(b.toBuilder().clearIndex().build());
  }
}
