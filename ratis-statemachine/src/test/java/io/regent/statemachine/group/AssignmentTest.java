package io.regent.statemachine.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The assignment rule: balanced, deterministic, and moving at most ⌈P/n⌉ + 1 partitions per change. */
class AssignmentTest {
  private static final int TRIALS = 300;

  @Test
  void everyMemberGetsItsShareAndNoMore() {
    // Rule: with n members no member has more than ⌈P/n⌉ partitions, nor fewer than ⌊P/n⌋.
    Random rnd = new Random(7);
    for (int t = 0; t < TRIALS; t++) {
      int p = 1 + rnd.nextInt(5000);
      long[] members = leases(1 + rnd.nextInt(120));
      long[] target = Assignment.rebalance(members, new long[p], new long[p]);
      assertBalanced(members, target);
    }
  }

  @Test
  void aJoinOrALeaveMovesAtMostOneShareAndOne() {
    // Rule: from a settled assignment, a join or a leave changes the target of at most ⌈P/n⌉ + 1 partitions
    // (n the larger member count), and the result is balanced again.
    Random rnd = new Random(11);
    for (int t = 0; t < TRIALS; t++) {
      int p = 1 + rnd.nextInt(3000);
      int n = 1 + rnd.nextInt(60);
      long[] members = leases(n);
      long[] settled = Assignment.rebalance(members, new long[p], new long[p]);
      // churn a little first, so the start is not the fresh layout
      long[] current = settle(Assignment.rebalance(Arrays.copyOf(members, Math.max(1, n - 1)), settled, settled));
      current = settle(Assignment.rebalance(members, current, current));
      long[] joined = append(members, 1000 + t);
      long[] afterJoin = Assignment.rebalance(joined, current, current);
      assertBalanced(joined, afterJoin);
      assertThat(moved(current, afterJoin)).as("join, P=%d n=%d", p, n).isLessThanOrEqualTo(ceil(p, n + 1) + 1);
      if (n > 1) {
        long[] left = Arrays.stream(members).filter(m -> m != members[n / 2]).toArray();
        long[] afterLeave = Assignment.rebalance(left, free(current, members[n / 2]), current);
        assertBalanced(left, afterLeave);
        assertThat(moved(current, afterLeave)).as("leave, P=%d n=%d", p, n).isLessThanOrEqualTo(ceil(p, n) + 1);
      }
    }
  }

  @Test
  void theSameInputGivesTheSameAssignment() {
    // Rule: apply is a pure function, so every replica computes the same targets.
    long[] members = leases(7);
    long[] owner = new long[100];
    Arrays.fill(owner, 0, 50, members[2]);
    assertThat(Assignment.rebalance(members, owner, owner.clone()))
        .isEqualTo(Assignment.rebalance(members.clone(), owner.clone(), owner.clone()));
  }

  @Test
  void aPendingMoveIsUndoneBeforeASettledPartitionMoves() {
    // Rule: partitions a member owns are kept before partitions still on their way to it.
    long a = 1;
    long b = 2;
    long[] owner = {a, a, a, a};
    long[] target = {a, a, b, b}; // b joined; a has not released 2 and 3 yet
    long[] afterLeave = Assignment.rebalance(new long[] {a}, owner, target);
    assertThat(afterLeave).containsOnly(a);
    assertThat(moved(owner, afterLeave)).isZero();
  }

  @Test
  void noMemberMeansNoTarget() {
    assertThat(Assignment.rebalance(new long[0], new long[] {3, 0}, new long[] {3, 0})).containsOnly(0L);
  }

  private static void assertBalanced(long[] members, long[] target) {
    Map<Long, Integer> count = new HashMap<>();
    for (long t : target) {
      assertThat(t).isIn(Arrays.stream(members).boxed().toArray());
      count.merge(t, 1, Integer::sum);
    }
    int p = target.length;
    int n = members.length;
    for (long m : members) {
      assertThat(count.getOrDefault(m, 0)).isBetween(p / n, ceil(p, n));
    }
  }

  private static long[] settle(long[] target) {
    return target.clone();
  }

  private static long[] free(long[] owner, long lease) {
    return Arrays.stream(owner).map(o -> o == lease ? 0 : o).toArray();
  }

  private static int moved(long[] before, long[] after) {
    int n = 0;
    for (int i = 0; i < before.length; i++) {
      if (before[i] != after[i]) {
        n++;
      }
    }
    return n;
  }

  private static long[] leases(int n) {
    return LongStream.rangeClosed(1, n).map(i -> i * 10).toArray();
  }

  private static long[] append(long[] a, long v) {
    long[] out = Arrays.copyOf(a, a.length + 1);
    out[a.length] = v;
    return out;
  }

  private static int ceil(int p, int n) {
    return (p + n - 1) / n;
  }
}
