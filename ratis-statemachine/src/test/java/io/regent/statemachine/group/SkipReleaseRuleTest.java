package io.regent.statemachine.group;

import static org.assertj.core.api.Assertions.assertThat;

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
 * The negative control of Jepsen's ownership workload ({@link UnsafeSkipRelease}): with the release rule
 * skipped, a join hands the newcomer its share in the join's own entry, while the old owner has released
 * nothing and its lease runs on. Driven through {@link GroupApplier} directly: the process-wide switch is
 * never turned on in a test JVM.
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
}
