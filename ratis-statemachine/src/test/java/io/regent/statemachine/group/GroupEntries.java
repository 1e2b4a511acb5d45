package io.regent.statemachine.group;

import io.regent.statemachine.proto.GroupJoin;
import io.regent.statemachine.proto.GroupLeave;
import io.regent.statemachine.proto.GroupRelease;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.ReleaseSet;
import io.regent.statemachine.support.Entries;

/** Group log entries as the proposer writes them (encoded and decoded, as through the Raft log). */
final class GroupEntries {
  private GroupEntries() {
  }

  static LogEntry join(String group, String member, long lease, int partitions) {
    return Entries.logged(LogEntry.newBuilder().setGroupJoin(GroupJoin.newBuilder().setGroup(group).setMemberId(member)
        .setLeaseId(lease).setPartitions(partitions)));
  }

  static LogEntry joinWithTtl(String group, String member, long ttlMs, int partitions) {
    return Entries.logged(LogEntry.newBuilder().setGroupJoin(GroupJoin.newBuilder().setGroup(group).setMemberId(member)
        .setTtlMs(ttlMs).setPartitions(partitions)));
  }

  static LogEntry leave(String group, String member, long lease) {
    return Entries.logged(LogEntry.newBuilder().setGroupLeave(GroupLeave.newBuilder().setGroup(group).setMemberId(member)
        .setLeaseId(lease)));
  }

  /** One release set: {@code partitionTokens} alternates partition and token. */
  static LogEntry release(String group, long... partitionTokens) {
    ReleaseSet.Builder s = ReleaseSet.newBuilder().setGroup(group);
    for (int i = 0; i < partitionTokens.length; i += 2) {
      s.addPartitions((int) partitionTokens[i]).addTokens(partitionTokens[i + 1]);
    }
    return Entries.logged(LogEntry.newBuilder().setGroupRelease(GroupRelease.newBuilder().addSets(s)));
  }

  static LogEntry releaseSets(ReleaseSet... sets) {
    return Entries.logged(LogEntry.newBuilder().setGroupRelease(GroupRelease.newBuilder().addAllSets(java.util.List.of(sets))));
  }
}
