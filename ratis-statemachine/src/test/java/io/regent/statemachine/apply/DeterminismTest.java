package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Holder;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.RandomLog;
import io.regent.statemachine.support.RandomLog.Logged;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Replicas that apply the same log reach the same state, whether from the start or from a snapshot. */
class DeterminismTest {
  private static final int HALF = 1000;

  @ParameterizedTest
  @ValueSource(longs = 20240611L)
  void replicasApplyingTheSameLogAgree(long seed, @TempDir Path tmp) {
    // Rule: apply is a pure function of (state, entry, index, term); a snapshot plus the rest of the log
    // reaches the same state, and the replayed entries at or below its applied index are skipped.
    Path snapshot = tmp.resolve("snapshot.mdb");
    try (Replica a = Replica.open(tmp.resolve("a")); Replica b = Replica.open(tmp.resolve("b"))) {
      RandomLog gen = new RandomLog(seed, a);
      gen.extend(HALF);
      a.snapshotTo(snapshot);
      gen.extend(HALF);
      assertExercisesEveryOutcome(gen.outcomes(), seed);

      gen.entries().forEach(e -> b.applyAt(e.index(), e.term(), e.entry()));
      assertThat(b.dump()).as("replica b, seed %d", seed).isEqualTo(a.dump());
      assertThat(b.digest()).as("replica b, every table byte for byte, seed %d", seed).isEqualTo(a.digest());

      try (Replica c = Replica.restore(tmp.resolve("c"), snapshot)) {
        assertThat(c.appliedIndex()).as("seed %d", seed).isEqualTo(HALF);
        long skipped = gen.entries().stream().filter(e -> c.applyAt(e.index(), e.term(), e.entry()) == null)
            .count();
        assertThat(skipped).as("replayed entries skipped, seed %d", seed).isEqualTo(HALF);
        assertThat(c.dump()).as("replica c from snapshot, seed %d", seed).isEqualTo(a.dump());
        assertThat(c.digest()).as("replica c from snapshot, byte for byte, seed %d", seed).isEqualTo(a.digest());
      }
    }
  }

  @Test
  void entriesAtOrBelowAppliedIndexAreSkipped(@TempDir Path tmp) {
    // Rule: the adapter skips every entry at or below the stored appliedIndex, whatever the entry holds.
    try (Replica replica = Replica.open(tmp)) {
      RandomLog gen = new RandomLog(42, replica);
      gen.extend(200);
      String before = replica.dump();
      assertThat(replica.appliedIndex()).isEqualTo(200);

      for (Logged e : gen.entries()) {
        assertThat(replica.applyAt(e.index(), e.term(), e.entry())).as("index %d", e.index()).isNull();
      }
      assertThat(replica.applyAt(200, 1, Entries.grant(1_000))).isNull();
      assertThat(replica.dump()).isEqualTo(before);

      ApplyOutcome next = replica.applyAt(201, 1, Entries.grant(1_000));
      assertThat(next.result().getLeaseId()).isEqualTo(201);
      assertThat(replica.appliedIndex()).isEqualTo(201);
    }
  }

  @ParameterizedTest
  @ValueSource(longs = 99L)
  void tokensRiseAndNamesAndLeasesStayConsistent(long seed, @TempDir Path tmp) {
    // Rule: a holder's token (election or FreshToken) is its entry's index: tokens rise per name and never
    // go back globally (one Revoke or Expire may pass several names at once, all with its index).
    try (Replica replica = Replica.open(tmp)) {
      RandomLog gen = new RandomLog(seed, replica);
      gen.extend(2 * HALF);
      Map<String, List<Long>> perName = new TreeMap<>();
      List<Long> global = new ArrayList<>();
      for (int i = 0; i < gen.entries().size(); i++) {
        long index = gen.entries().get(i).index();
        ApplyOutcome out = gen.outcomes().get(i);
        Map<String, Holder> issued = new TreeMap<>();
        out.events().stream().filter(e -> e.kind() == Kind.ELECTED)
            .forEach(e -> issued.put(e.name(), e.holder()));
        if (gen.entries().get(i).entry().hasFreshToken() && out.result().getCode() == Code.OK) {
          issued.put(out.result().getName().getName(), out.result().getName().getHolder());
        }
        issued.forEach((name, holder) -> {
          assertThat(holder.getToken()).as("token at index %d, seed %d", index, seed).isEqualTo(index);
          perName.computeIfAbsent(name, n -> new ArrayList<>()).add(holder.getToken());
          global.add(holder.getToken());
        });
      }
      assertThat(global).as("seed %d", seed).hasSizeGreaterThan(50).isSorted();
      perName.forEach((name, tokens) ->
          assertThat(tokens).as("name %s, seed %d", name, seed).isSorted().doesNotHaveDuplicates());
      assertConsistent(replica, seed);
    }
  }

  /** Names and leases point at each other: a name's holder and candidates are live leases listing it. */
  private static void assertConsistent(Replica replica, long seed) {
    Map<Long, List<String>> listed = new TreeMap<>();
    replica.leases().forEach(l -> listed.put(l.getId(), l.getNamesList()));
    Map<Long, List<String>> actual = new TreeMap<>();
    listed.keySet().forEach(id -> actual.put(id, new ArrayList<>()));
    for (NameRecord rec : replica.names()) {
      assertThat(rec.hasHolder()).as("%s has no holder, seed %d", rec.getName(), seed).isTrue();
      List<Long> ids = new ArrayList<>(List.of(rec.getHolder().getLeaseId()));
      rec.getCandidatesList().forEach(c -> ids.add(c.getLeaseId()));
      assertThat(ids).as("%s, seed %d", rec.getName(), seed).doesNotHaveDuplicates().allSatisfy(id ->
          assertThat(actual).as("%s: lease %d is live", rec.getName(), id).containsKey(id));
      ids.forEach(id -> actual.get(id).add(rec.getName()));
    }
    actual.values().forEach(names -> names.sort(null));
    assertThat(listed).as("names of each lease, seed %d", seed).isEqualTo(actual);
  }

  /** Guards the generator: a log that never refuses or never elects would prove little. */
  private static void assertExercisesEveryOutcome(List<ApplyOutcome> outcomes, long seed) {
    Set<Code> codes = outcomes.stream().map(o -> o.result().getCode())
        .collect(Collectors.toCollection(() -> EnumSet.noneOf(Code.class)));
    Set<Kind> kinds = outcomes.stream().flatMap(o -> o.events().stream()).map(ChangeEvent::kind)
        .collect(Collectors.toCollection(() -> EnumSet.noneOf(Kind.class)));
    assertThat(codes).as("result codes, seed %d", seed).contains(Code.OK, Code.NOT_FOUND,
        Code.FAILED_PRECONDITION, Code.INVALID_ARGUMENT);
    assertThat(kinds).as("event kinds, seed %d", seed).containsExactlyInAnyOrder(Kind.values());
  }
}
