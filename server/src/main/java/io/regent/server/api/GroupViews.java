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

  /** The assignment of {@code member} in {@code g} (null: no such group) as read at {@code index}. */
  static GroupWatchResponse member(GroupRecord g, String member, long index) {
    GroupWatchResponse.Builder b = GroupWatchResponse.newBuilder().setIndex(index);
    if (g == null) {
      return b.build();
    }
    b.setPartitions(g.getPartitions());
    long lease = g.getMembersList().stream().filter(m -> m.getId().equals(member)).mapToLong(GroupMember::getLeaseId)
        .findFirst().orElse(0);
    if (lease == 0) {
      return b.build();
    }
    b.setJoined(true).setLease(lease);
    for (int p = 0; p < g.getPartitions(); p++) {
      boolean owns = g.getOwner(p) == lease;
      if (owns) {
        b.addOwned(PartitionToken.newBuilder().setPartition(p).setToken(g.getToken(p)));
        if (g.getTarget(p) != lease) {
          b.addRelease(p);
        }
      } else if (g.getTarget(p) == lease) {
        b.addIncoming(p);
      }
    }
    return b.build();
  }

  /** Whether two member views say the same, whatever their index. */
  static boolean sameAssignment(GroupWatchResponse a, GroupWatchResponse b) {
    return a.toBuilder().clearIndex().build().equals(b.toBuilder().clearIndex().build());
  }
}
