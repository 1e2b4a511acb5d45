package io.regent.statemachine.group;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The assignment rule of ownership groups (docs/ownership.md): which member each partition should belong to,
 * computed at apply from the members and the current assignment alone, so every replica computes the same.
 *
 * <p>Balanced: with n members every member gets ⌊P/n⌋ or ⌈P/n⌉ partitions. Sticky: a member keeps the
 * partitions it has up to its share, and the ⌈P/n⌉ shares go to the members that already hold the most, so a
 * join moves only the newcomer's share and a leave only the leaver's partitions (at most ⌈P/n⌉ + 1 either
 * way). Partitions a member owns are kept before partitions still on their way to it, so a rebalance
 * undoes a pending move rather than a settled one.
 */
public final class Assignment {
  private Assignment() {
  }

  /**
   * The new target of every partition.
   *
   * @param members the members' lease ids, in member-id order (distinct)
   * @param owner each partition's current owner lease (0: free)
   * @param target each partition's current target lease (0: none); same length as {@code owner}
   * @return each partition's new target lease; all 0 when there is no member
   */
  public static long[] rebalance(long[] members, long[] owner, long[] target) {
    int p = target.length;
    int n = members.length;
    long[] next = new long[p];
    if (n == 0) {
      return next;
    }
    Map<Long, Integer> slot = new HashMap<>();
    for (int i = 0; i < n; i++) {
      slot.put(members[i], i);
    }
    int[] have = new int[n];
    for (long t : target) {
      Integer i = slot.get(t);
      if (i != null) {
        have[i]++;
      }
    }
    int[] quota = quotas(p, have);
    int[] kept = new int[n];
    // 1: settled partitions stay; 2: partitions on their way stay on their way.
    for (int pass = 0; pass < 2; pass++) {
      for (int q = 0; q < p; q++) {
        boolean settled = owner[q] == target[q];
        if (next[q] == 0 && (pass == 1 || settled)) {
          keep(next, q, target[q], slot, quota, kept);
        }
      }
    }
    // 3: a partition its owner was asked to give up returns to it when the owner has room again.
    for (int q = 0; q < p; q++) {
      if (next[q] == 0) {
        keep(next, q, owner[q], slot, quota, kept);
      }
    }
    // 4: the rest fill the members below their share, in member order.
    int m = 0;
    for (int q = 0; q < p; q++) {
      if (next[q] != 0) {
        continue;
      }
      while (kept[m] >= quota[m]) {
        m++;
      }
      next[q] = members[m];
      kept[m]++;
    }
    return next;
  }

  /**
   * Each member's share: ⌈P/n⌉ for the P mod n members that have the most now (ties to the earlier member),
   * ⌊P/n⌋ for the others.
   */
  static int[] quotas(int partitions, int[] have) {
    int n = have.length;
    int[] quota = new int[n];
    Arrays.fill(quota, partitions / n);
    IntStream.range(0, n).boxed()
        .sorted(Comparator.<Integer>comparingInt(i -> -have[i]).thenComparingInt(i -> i))
        .limit(partitions % n)
        .forEach(i -> quota[i]++);
    return quota;
  }

  private static void keep(long[] next, int q, long lease, Map<Long, Integer> slot, int[] quota, int[] kept) {
    Integer i = lease == 0 ? null : slot.get(lease);
    if (i != null && kept[i] < quota[i]) {
      next[q] = lease;
      kept[i]++;
    }
  }
}
