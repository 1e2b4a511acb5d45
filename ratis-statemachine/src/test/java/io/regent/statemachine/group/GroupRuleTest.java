package io.regent.statemachine.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.GroupRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random joins, leaves, releases, revokes and expiries of one group, checked after every entry against the
 * release rule, and replayed on a second replica (determinism).
 */
class GroupRuleTest {
  private static final int PARTITIONS = 97;
  private static final int STEPS = 400;

  @Test
  void partitionsMoveOnlyByTheRuleWithIncreasingTokens(@TempDir Path dir) {
    Random rnd = new Random(20261201L);
    List<LogEntry> log = new ArrayList<>();
    try (Replica r = Replica.open(dir.resolve("a"))) {
      Map<Long, String> members = new HashMap<>();
      int nextMember = 0;
      GroupRecord before = null;
      for (int step = 0; step < STEPS; step++) {
        LogEntry e;
        Set<Long> freedBy = Set.of();
        int pick = rnd.nextInt(10);
        long someone = members.isEmpty() ? 0 : members.keySet().stream().sorted().toList()
            .get(rnd.nextInt(members.size()));
        if (members.isEmpty() || pick < 3) {
          long lease = r.apply(Entries.grant(10_000)).result().getLeaseId();
          log.add(Entries.grant(10_000));
          String id = "m" + nextMember++;
          e = GroupEntries.join("g", id, lease, PARTITIONS);
          members.put(lease, id);
        } else if (pick < 8 && before != null) {
          e = releaseSomeOf(before, someone, rnd);
          if (e == null) {
            continue;
          }
        } else if (pick == 8) {
          e = GroupEntries.leave("g", members.remove(someone), someone);
          freedBy = Set.of(someone);
        } else {
          members.remove(someone);
          e = rnd.nextBoolean() ? Entries.revoke(someone) : Entries.expire(Replica.TERM, someone);
          freedBy = Set.of(someone);
        }
        long index = r.nextIndex();
        r.apply(e);
        log.add(e);
        GroupRecord after = GroupApplierTest.group(r, "g");
        if (after != null && before != null) {
          check(before, after, e, index, freedBy);
        }
        if (after != null) {
          assertThat(after.getMembersCount()).isEqualTo(members.size());
          int n = members.size();
          for (long m : members.keySet()) {
            assertThat(GroupApplierTest.targetsOf(after, m).size())
                .isBetween(PARTITIONS / n, (PARTITIONS + n - 1) / n);
          }
        }
        before = after;
      }
      try (Replica b = Replica.open(dir.resolve("b"))) {
        log.forEach(b::apply);
        assertThat(b.dump()).isEqualTo(r.dump());
      }
    }
  }

  /** Releases a random part of what {@code owner} was asked to give up (with the right tokens). */
  private static LogEntry releaseSomeOf(GroupRecord g, long owner, Random rnd) {
    List<Long> pt = new ArrayList<>();
    for (int p = 0; p < g.getPartitions(); p++) {
      if (g.getOwner(p) == owner && g.getTarget(p) != owner && rnd.nextBoolean()) {
        pt.add((long) p);
        pt.add(g.getToken(p));
      }
    }
    return pt.isEmpty() ? null : GroupEntries.release("g", pt.stream().mapToLong(Long::longValue).toArray());
  }

  private static void check(GroupRecord before, GroupRecord after, LogEntry e, long index, Set<Long> freedBy) {
    for (int p = 0; p < PARTITIONS; p++) {
      long was = before.getOwner(p);
      long now = after.getOwner(p);
      if (was == now) {
        assertThat(after.getToken(p)).as("token of an unmoved partition %d", p).isEqualTo(before.getToken(p));
        continue;
      }
      assertThat(now).as("a partition is never left free while the group has members").isNotZero();
      assertThat(after.getToken(p)).as("new owner's token is the entry's index").isEqualTo(index)
          .isGreaterThan(before.getToken(p));
      if (was != 0) {
        boolean released = e.hasGroupRelease() && e.getGroupRelease().getSets(0).getPartitionsList().contains(p);
        assertThat(released || freedBy.contains(was))
            .as("partition %d left lease %d only by its release or the end of its membership (%s)", p, was, e)
            .isTrue();
      }
    }
  }
}
