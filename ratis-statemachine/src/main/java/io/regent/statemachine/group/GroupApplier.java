package io.regent.statemachine.group;

import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.GroupJoin;
import io.regent.statemachine.proto.GroupLeave;
import io.regent.statemachine.proto.GroupMember;
import io.regent.statemachine.proto.GroupRecord;
import io.regent.statemachine.proto.GroupRelease;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.ReleaseSet;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.proto.SetResult;
import io.regent.statemachine.store.StateTxn;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Applies the ownership-group entries (join, leave, release) and the end of members' leases, as part of the
 * one apply of an entry (docs/ownership.md). Pure: reads and writes only the given transaction.
 *
 * <p>The rule: a partition passes from owner A to B only when A released it (a token-checked release, or A
 * left the group) or A's lease ended; B's grant happens in that later entry, so B's token, that entry's index,
 * is above every token A held for it. The target of every partition is recomputed by {@link Assignment} on
 * every membership change; a free partition goes to its target in the same apply.
 *
 * <p>Not thread-safe: one instance per apply, on the apply thread.
 */
public final class GroupApplier {
  private final StateTxn txn;
  private final long index;
  private final List<ChangeEvent> events;
  private final Function<Long, LeaseRecord> grantLease;
  private final boolean skipReleaseRule;

  /**
   * @param txn the apply's transaction
   * @param index index of the entry being applied (the token of every grant it makes)
   * @param events receives one {@link Kind#GROUP_CHANGED} event per group the entry changed
   * @param grantLease grants a lease of the given TTL, ms, with id {@code index} (a join with a TTL)
   * @param skipReleaseRule TESTS ONLY, the negative control of Jepsen's ownership workload (the hidden {@code
   *     regent server --unsafe-skip-release}, given to every node of the cluster so that the replicas still apply
   *     alike): a rebalance hands a partition to its new target in the same entry, before the old owner released
   *     it and while its lease still runs, the very move the release rule of docs/ownership.md forbids, so that
   *     two members believe they own one partition at once and the workload's checker must say so
   */
  public GroupApplier(StateTxn txn, long index, List<ChangeEvent> events, Function<Long, LeaseRecord> grantLease,
                      boolean skipReleaseRule) {
    this.txn = txn;
    this.index = index;
    this.events = events;
    this.grantLease = grantLease;
    this.skipReleaseRule = skipReleaseRule;
  }

  /** Adds a member (see {@code GroupJoin}); the result carries the member's lease id. */
  public Result.Builder join(GroupJoin j) {
    String bad = first(GroupLimits.checkGroup(j.getGroup()), GroupLimits.checkMemberId(j.getMemberId()),
        GroupLimits.checkPartitions(j.getPartitions()));
    if (bad == null && (j.getLeaseId() <= 0) == (j.getTtlMs() <= 0)) {
      bad = "give either a lease id or a TTL, not " + (j.getLeaseId() <= 0 ? "neither" : "both");
    }
    if (bad == null && j.getTtlMs() > Limits.MAX_TTL_MS) {
      bad = "ttl " + j.getTtlMs() + " ms above " + Limits.MAX_TTL_MS;
    }
    if (bad != null) {
      return error(Code.INVALID_ARGUMENT, bad);
    }
    GroupRecord g = txn.group(j.getGroup());
    if (g == null && j.getPartitions() == 0) {
      return error(Code.NOT_FOUND, "group '" + j.getGroup() + "' not found; give a partition count to create it");
    }
    if (g != null && j.getPartitions() != 0 && j.getPartitions() != g.getPartitions()) {
      return error(Code.FAILED_PRECONDITION, "group '" + j.getGroup() + "' has " + g.getPartitions()
          + " partitions, not " + j.getPartitions());
    }
    LeaseRecord lease = j.getLeaseId() > 0 ? txn.lease(j.getLeaseId()) : null;
    if (j.getLeaseId() > 0 && lease == null) {
      return error(Code.NOT_FOUND, "lease " + j.getLeaseId() + " not found");
    }
    long leaseId = j.getLeaseId() > 0 ? j.getLeaseId() : index;
    if (g != null) {
      for (GroupMember m : g.getMembersList()) {
        if (m.getId().equals(j.getMemberId()) && m.getLeaseId() == leaseId) {
          return Result.newBuilder().setLeaseId(leaseId); // a retried join
        }
        if (m.getId().equals(j.getMemberId()) || m.getLeaseId() == leaseId) {
          return error(Code.FAILED_PRECONDITION, "group '" + j.getGroup() + "' already has member '" + m.getId()
              + "' with lease " + m.getLeaseId() + "; a member id and a lease join a group once");
        }
      }
      int max = j.getMaxMembers() > 0 ? Math.min(j.getMaxMembers(), GroupLimits.MAX_MEMBERS) : GroupLimits.MAX_MEMBERS;
      if (g.getMembersCount() >= max) {
        return error(Code.RESOURCE_EXHAUSTED, "group '" + j.getGroup() + "' has " + g.getMembersCount()
            + " members, its limit");
      }
    }
    if (lease == null) {
      lease = grantLease.apply(j.getTtlMs());
    }
    txn.putLease(withGroup(lease, j.getGroup()));
    GroupRecord.Builder b = g == null ? empty(j.getGroup(), j.getPartitions()) : g.toBuilder();
    TreeMap<String, GroupMember> members = new TreeMap<>();
    b.getMembersList().forEach(m -> members.put(m.getId(), m));
    members.put(j.getMemberId(), GroupMember.newBuilder().setId(j.getMemberId()).setLeaseId(leaseId)
        .setJoinedIndex(index).build());
    b.clearMembers().addAllMembers(members.values());
    settle(b);
    return Result.newBuilder().setLeaseId(leaseId);
  }

  /** Removes a member that gives up everything it owns (see {@code GroupLeave}). */
  public Result.Builder leave(GroupLeave l) {
    GroupRecord g = txn.group(l.getGroup());
    if (g == null) {
      return error(Code.NOT_FOUND, "group '" + l.getGroup() + "' not found");
    }
    GroupMember member = g.getMembersList().stream()
        .filter(m -> m.getId().equals(l.getMemberId()) && m.getLeaseId() == l.getLeaseId()).findFirst().orElse(null);
    if (member == null) {
      return error(Code.NOT_FOUND, "group '" + l.getGroup() + "' has no member '" + l.getMemberId() + "' with lease "
          + l.getLeaseId());
    }
    LeaseRecord lease = txn.lease(l.getLeaseId());
    if (lease != null) {
      txn.putLease(withoutGroup(lease, l.getGroup()));
    }
    settle(withoutMembers(g.toBuilder(), Set.of(l.getLeaseId())));
    return Result.newBuilder().setLeaseId(l.getLeaseId());
  }

  /** Judges each release set on its own, all or nothing; one {@code SetResult} per set, in order. */
  public Result.Builder release(GroupRelease r) {
    Result.Builder out = Result.newBuilder();
    for (ReleaseSet set : r.getSetsList()) {
      out.addSets(releaseSet(set));
    }
    return out;
  }

  private SetResult releaseSet(ReleaseSet set) {
    GroupRecord g = txn.group(set.getGroup());
    if (g == null) {
      return refusal(Code.NOT_FOUND, "group '" + set.getGroup() + "' not found");
    }
    if (set.getPartitionsCount() != set.getTokensCount() || set.getPartitionsCount() == 0) {
      return refusal(Code.INVALID_ARGUMENT, "a release names one token per partition, and at least one");
    }
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < set.getPartitionsCount(); i++) {
      int p = set.getPartitions(i);
      long token = set.getTokens(i);
      if (p < 0 || p >= g.getPartitions() || !seen.add(p)) {
        return refusal(Code.INVALID_ARGUMENT, "partition " + p + " is not in 0.." + (g.getPartitions() - 1)
            + " or is named twice");
      }
      if (g.getOwner(p) == 0 || g.getToken(p) != token) {
        return refusal(Code.FAILED_PRECONDITION, "token " + token + " is not the owner's token of partition " + p
            + " of '" + set.getGroup() + "' (current " + (g.getOwner(p) == 0 ? "none" : g.getToken(p)) + ")");
      }
      if (g.getTarget(p) == g.getOwner(p)) {
        return refusal(Code.FAILED_PRECONDITION, "partition " + p + " of '" + set.getGroup()
            + "' is still assigned to its owner; leave the group to give it up");
      }
    }
    GroupRecord.Builder b = g.toBuilder();
    seen.forEach(p -> b.setOwner(p, 0));
    settle(b);
    return SetResult.getDefaultInstance();
  }

  /**
   * Removes the members held by {@code leases}, which end in this apply, from every group they are in: what
   * they owned is free at once and goes to the new targets in this same apply.
   */
  public void leasesEnded(Collection<LeaseRecord> leases) {
    TreeSet<String> groups = new TreeSet<>();
    Set<Long> ids = new HashSet<>();
    for (LeaseRecord l : leases) {
      groups.addAll(l.getGroupsList());
      ids.add(l.getId());
    }
    for (String name : groups) {
      GroupRecord g = txn.group(name);
      if (g != null) {
        settle(withoutMembers(g.toBuilder(), ids));
      }
    }
  }

  /** Recomputes the targets, grants every free partition to its target, and stores (or deletes) the group. */
  private void settle(GroupRecord.Builder b) {
    events.add(new ChangeEvent(Kind.GROUP_CHANGED, b.getName(), null, index, 0));
    if (b.getMembersCount() == 0) {
      txn.deleteGroup(b.getName());
      return;
    }
    long[] members = b.getMembersList().stream().mapToLong(GroupMember::getLeaseId).toArray();
    long[] owner = b.getOwnerList().stream().mapToLong(Long::longValue).toArray();
    long[] target = Assignment.rebalance(members, owner,
        b.getTargetList().stream().mapToLong(Long::longValue).toArray());
    for (int p = 0; p < target.length; p++) {
      b.setTarget(p, target[p]);
      if (owner[p] == 0 || skipReleaseRule && owner[p] != target[p]) {
        b.setOwner(p, target[p]).setToken(p, index);
      }
    }
    txn.putGroup(b.build());
  }

  /** Drops the members of {@code leases} and frees what they own. */
  private static GroupRecord.Builder withoutMembers(GroupRecord.Builder b, Set<Long> leases) {
    List<GroupMember> left = b.getMembersList().stream().filter(m -> !leases.contains(m.getLeaseId())).toList();
    b.clearMembers().addAllMembers(left);
    for (int p = 0; p < b.getOwnerCount(); p++) {
      if (leases.contains(b.getOwner(p))) {
        b.setOwner(p, 0);
      }
    }
    return b;
  }

  private static GroupRecord.Builder empty(String name, int partitions) {
    GroupRecord.Builder b = GroupRecord.newBuilder().setName(name).setPartitions(partitions);
    for (int p = 0; p < partitions; p++) {
      b.addOwner(0).addToken(0).addTarget(0);
    }
    return b;
  }

  private static LeaseRecord withGroup(LeaseRecord lease, String group) {
    TreeSet<String> groups = new TreeSet<>(lease.getGroupsList());
    groups.add(group);
    return lease.toBuilder().clearGroups().addAllGroups(groups).build();
  }

  private static LeaseRecord withoutGroup(LeaseRecord lease, String group) {
    TreeSet<String> groups = new TreeSet<>(lease.getGroupsList());
    groups.remove(group);
    return lease.toBuilder().clearGroups().addAllGroups(groups).build();
  }

  private static SetResult refusal(Code code, String message) {
    return SetResult.newBuilder().setCode(code).setMessage(message).build();
  }

  private static Result.Builder error(Code code, String message) {
    return Result.newBuilder().setCode(code).setMessage(message);
  }

  private static String first(String... messages) {
    for (String m : messages) {
      if (m != null) {
        return m;
      }
    }
    return null;
  }
}
