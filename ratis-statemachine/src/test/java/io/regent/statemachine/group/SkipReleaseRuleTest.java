package io.regent.statemachine.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.apply.Applier;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.GroupRecord;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The negative control of Jepsen's ownership workload ({@code regent server --unsafe-skip-release}): with the
 * release rule skipped, a join hands the newcomer its share in the join's own entry, while the old owner has
 * released nothing and its lease runs on. The rule is a setting of each apply, so replicas in one JVM can differ.
 */
class SkipReleaseRuleTest {
  @TempDir
  Path dir;

  @Test
  void withTheRuleSkippedAJoinTakesPartitionsTheirOwnerStillHolds() {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long b = r.grantLease();
      long first = r.nextIndex();
      r.apply(GroupEntries.join("g", "a", a, 4));
      long second = r.nextIndex();
      Result res = r.applyNext((txn, index) -> new GroupApplier(txn, index, new ArrayList<>(), ttl -> {
        throw new AssertionError("the join names its lease");
      }, true).join(GroupEntries.join("g", "b", b, 0).getGroupJoin()).build());
      assertThat(res.getCode()).isEqualTo(Code.OK);
      GroupRecord g = r.read(txn -> txn.group("g"));
      List<Integer> ofB = IntStream.range(0, 4).filter(p -> g.getTarget(p) == b).boxed().toList();
      assertThat(ofB).hasSize(2);
      for (int p = 0; p < 4; p++) {
        boolean moved = ofB.contains(p);
        assertThat(g.getOwner(p)).isEqualTo(moved ? b : a);
        assertThat(g.getToken(p)).isEqualTo(moved ? second : first);
      }
      assertThat(r.lease(a)).as("a's lease did not end").isNotNull();
    }
  }

  @Test
  void withTheRuleKeptTheSameJoinMovesNothing() {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long b = r.grantLease();
      r.apply(GroupEntries.join("g", "a", a, 4));
      r.applyNext((txn, index) -> new GroupApplier(txn, index, new ArrayList<>(), ttl -> null, false)
          .join(GroupEntries.join("g", "b", b, 0).getGroupJoin()).build());
      assertThat(r.read(txn -> txn.group("g")).getOwnerList()).containsOnly(a);
    }
  }

  @Test
  void eachApplyFollowsItsOwnSettingInOneJvm() {
    try (Replica unsafe = Replica.open(dir.resolve("unsafe")); Replica safe = Replica.open(dir.resolve("safe"))) {
      assertThat(ownersAfterTwoJoins(unsafe, true)).as("moved before a released").containsOnly("a", "b");
      assertThat(ownersAfterTwoJoins(safe, false)).as("waits for a's release").containsOnly("a");
      assertThat(ownersAfterTwoJoins(unsafe, true)).as("still unsafe after the safe one ran").containsOnly("a", "b");
    }
  }

  /** Joins a (4 partitions) then b to a new group through {@link Applier}; the owner of each partition after. */
  private static List<String> ownersAfterTwoJoins(Replica r, boolean skipReleaseRule) {
    String group = "g" + r.nextIndex();
    long a = r.grantLease();
    long b = r.grantLease();
    r.apply(GroupEntries.join(group, "a", a, 4));
    r.applyNext((txn, index) -> Applier.apply(txn, GroupEntries.join(group, "b", b, 0), index, Replica.TERM,
        skipReleaseRule));
    return r.read(txn -> txn.group(group)).getOwnerList().stream().map(o -> o == a ? "a" : o == b ? "b" : "?")
        .toList();
  }
}
