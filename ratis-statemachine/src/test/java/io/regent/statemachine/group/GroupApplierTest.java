package io.regent.statemachine.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.GroupRecord;
import io.regent.statemachine.proto.ReleaseSet;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.FreshReplica;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Ownership groups at apply: joins, releases, leaves and lease ends move partitions by the release rule. */
@ExtendWith(FreshReplica.class)
class GroupApplierTest {
  @Test
  void theFirstMemberGetsEveryPartitionWithTheJoinIndexAsToken(Replica r) {
    long a = r.grantLease();
    long join = r.nextIndex();
    Result res = r.apply(GroupEntries.join("g", "a", a, 8)).result();
    assertThat(res.getCode()).isEqualTo(Code.OK);
    GroupRecord g = group(r, "g");
    assertThat(g.getOwnerList()).containsOnly(a);
    assertThat(g.getTokenList()).containsOnly(join);
  }

  @Test
  void aPartitionMovesOnlyWhenItsOwnerReleasesIt(Replica r) {
    // Rule: a partition passes from A to B only once A released it; B's token is the release's index.
    long a = r.grantLease();
    long b = r.grantLease();
    long join = r.nextIndex();
    r.apply(GroupEntries.join("g", "a", a, 4));
    r.apply(GroupEntries.join("g", "b", b, 0));
    GroupRecord g = group(r, "g");
    assertThat(g.getOwnerList()).as("b's share is still a's until released").containsOnly(a);
    List<Integer> toB = targetsOf(g, b);
    assertThat(toB).hasSize(2);
    long release = r.nextIndex();
    Result res = r.apply(GroupEntries.release("g", toB.get(0), join, toB.get(1), join)).result();
    assertThat(res.getSets(0).getCode()).isEqualTo(Code.OK);
    GroupRecord after = group(r, "g");
    for (int p : toB) {
      assertThat(after.getOwner(p)).isEqualTo(b);
      assertThat(after.getToken(p)).isEqualTo(release).isGreaterThan(join);
    }
    assertThat(targetsOf(after, a)).allMatch(p -> after.getOwner(p) == a && after.getToken(p) == join);
  }

  @Test
  void aLeaseEndFreesItsPartitionsInTheSameApply(Replica r) {
    // Rule: Revoke/Expire of a member's lease frees its partitions in that apply; the survivors get them with
    // that entry's index as token.
    long a = r.grantLease();
    long b = r.grantLease();
    r.apply(GroupEntries.join("g", "a", a, 6));
    r.apply(GroupEntries.join("g", "b", b, 6));
    long expire = r.nextIndex();
    var out = r.apply(Entries.expire(Replica.TERM, a));
    assertThat(out.events()).anyMatch(e -> e.kind() == Kind.GROUP_CHANGED && e.name().equals("g"));
    GroupRecord g = group(r, "g");
    assertThat(g.getMembersList()).extracting(m -> m.getId()).containsExactly("b");
    assertThat(g.getOwnerList()).containsOnly(b);
    assertThat(g.getTokenList()).containsOnly(expire);
    assertThat(r.lease(b).getGroupsList()).containsExactly("g");
  }

  @Test
  void aLeaveHandsOverAtOnceAndTheLastLeaveDeletesTheGroup(Replica r) {
    long a = r.grantLease();
    long b = r.grantLease();
    r.apply(GroupEntries.join("g", "a", a, 3));
    r.apply(GroupEntries.join("g", "b", b, 3));
    long leave = r.nextIndex();
    r.apply(GroupEntries.leave("g", "a", a));
    GroupRecord g = group(r, "g");
    assertThat(g.getOwnerList()).containsOnly(b);
    assertThat(r.lease(a).getGroupsList()).isEmpty();
    assertThat(g.getTokenList()).contains(leave);
    r.apply(GroupEntries.leave("g", "b", b));
    assertThat(group(r, "g")).isNull();
  }

  @Test
  void aJoinWithATtlGrantsItsOwnLease(Replica r) {
    long index = r.nextIndex();
    var out = r.apply(GroupEntries.joinWithTtl("g", "a", 5000, 2));
    assertThat(out.result().getLeaseId()).isEqualTo(index);
    assertThat(out.grants().get(0).getId()).isEqualTo(index);
    assertThat(r.lease(index).getTtlMs()).isEqualTo(5000);
    assertThat(group(r, "g").getOwnerList()).containsOnly(index);
  }

  @Test
  void aRetriedJoinChangesNothing(Replica r) {
    long a = r.grantLease();
    r.apply(GroupEntries.join("g", "a", a, 3));
    String before = r.tables();
    assertThat(r.apply(GroupEntries.join("g", "a", a, 3)).result().getCode()).isEqualTo(Code.OK);
    assertThat(r.tables()).isEqualTo(before);
  }

  @Test
  void badInputIsRefusedAndChangesNothing(Replica r) {
    // Rule: P out of range, unknown group, stale token, a member id reused by another lease: a status, no change.
    long a = r.grantLease();
    long b = r.grantLease();
    long join = r.nextIndex();
    r.apply(GroupEntries.join("g", "a", a, 4));
    r.apply(GroupEntries.join("g", "b", b, 4));
    int toB = targetsOf(group(r, "g"), b).get(0);
    int staysA = targetsOf(group(r, "g"), a).get(0);
    String before = r.tables();
    assertThat(code(r, GroupEntries.join("h", "a", a, 0))).isEqualTo(Code.NOT_FOUND);
    assertThat(code(r, GroupEntries.join("h", "a", a, 65_537))).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(code(r, GroupEntries.join("h", "a", a, -1))).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(code(r, GroupEntries.join("g", "a", a, 5))).isEqualTo(Code.FAILED_PRECONDITION);
    assertThat(code(r, GroupEntries.join("g", "a", b, 0))).as("member id of another lease")
        .isEqualTo(Code.FAILED_PRECONDITION);
    assertThat(code(r, GroupEntries.join("g", "c", a, 0))).as("lease already a member")
        .isEqualTo(Code.FAILED_PRECONDITION);
    assertThat(code(r, GroupEntries.join("g", "", a, 0))).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(code(r, GroupEntries.join("g", "c", 999, 0))).isEqualTo(Code.NOT_FOUND);
    assertThat(code(r, GroupEntries.leave("g", "a", b))).isEqualTo(Code.NOT_FOUND);
    assertThat(code(r, GroupEntries.leave("nope", "a", a))).isEqualTo(Code.NOT_FOUND);
    assertThat(setCode(r, GroupEntries.release("nope", 0, join))).isEqualTo(Code.NOT_FOUND);
    assertThat(setCode(r, GroupEntries.release("g", toB, join - 1))).as("stale token")
        .isEqualTo(Code.FAILED_PRECONDITION);
    assertThat(setCode(r, GroupEntries.release("g", staysA, join))).as("still assigned to its owner")
        .isEqualTo(Code.FAILED_PRECONDITION);
    assertThat(setCode(r, GroupEntries.release("g", 4, join))).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(setCode(r, GroupEntries.release("g", toB, join, toB, join))).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(setCode(r, GroupEntries.release("g", toB, join, staysA, join))).as("all or nothing")
        .isEqualTo(Code.FAILED_PRECONDITION);
    assertThat(r.tables()).isEqualTo(before);
  }

  @Test
  void releaseSetsOfOneEntryAreJudgedEachOnItsOwn(Replica r) {
    long a = r.grantLease();
    long b = r.grantLease();
    long join = r.nextIndex();
    r.apply(GroupEntries.join("g", "a", a, 4));
    r.apply(GroupEntries.join("g", "b", b, 4));
    List<Integer> toB = targetsOf(group(r, "g"), b);
    Result res = r.apply(GroupEntries.releaseSets(
        ReleaseSet.newBuilder().setGroup("g").addPartitions(toB.get(0)).addTokens(join - 1).build(),
        ReleaseSet.newBuilder().setGroup("g").addPartitions(toB.get(1)).addTokens(join).build())).result();
    assertThat(res.getSetsList()).extracting(s -> s.getCode())
        .containsExactly(Code.FAILED_PRECONDITION, Code.OK);
    assertThat(group(r, "g").getOwner(toB.get(0))).isEqualTo(a);
    assertThat(group(r, "g").getOwner(toB.get(1))).isEqualTo(b);
  }

  @Test
  void aSnapshotKeepsGroupsAndTokens(Replica r, @TempDir Path dir) {
    // Rule: groups live in LMDB beside leases and names, so a snapshot copy restores them exactly.
    Path file = dir.resolve("s.mdb");
    long a = r.grantLease();
    long b = r.grantLease();
    r.apply(GroupEntries.join("g", "a", a, 100));
    r.apply(GroupEntries.join("g", "b", b, 100));
    r.snapshotTo(file);
    try (Replica c = Replica.restore(dir.resolve("c"), file)) {
      assertThat(c.dump()).isEqualTo(r.dump());
      assertThat(c.lease(a).getGroupsList()).containsExactly("g");
      long revoke = c.nextIndex();
      c.apply(Entries.revoke(a));
      assertThat(group(c, "g").getOwnerList()).containsOnly(b);
      assertThat(group(c, "g").getTokenList()).allMatch(t -> t <= revoke);
    }
  }

  private static Code code(Replica r, io.regent.statemachine.proto.LogEntry e) {
    return r.apply(e).result().getCode();
  }

  private static Code setCode(Replica r, io.regent.statemachine.proto.LogEntry e) {
    return r.apply(e).result().getSets(0).getCode();
  }

  static GroupRecord group(Replica r, String name) {
    return r.read(txn -> txn.group(name));
  }

  static List<Integer> targetsOf(GroupRecord g, long lease) {
    List<Integer> out = new ArrayList<>();
    for (int p = 0; p < g.getPartitions(); p++) {
      if (g.getTarget(p) == lease) {
        out.add(p);
      }
    }
    return out;
  }
}
