package io.regent.jepsen.runner;

import io.regent.jepsen.checker.LedgerChecker;
import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.EdnWriter;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Keyword;
import io.regent.jepsen.history.Op;
import io.regent.jepsen.history.Operation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The ownership workload's own checks, from its history (the third, that no two members' beliefs in one
 * partition overlap, is {@code HistoryChecks}' exclusivity over the {@code :own} ops' {@code :held}
 * intervals, keyed by partition).
 *
 * <ul>
 *   <li>{@link #fencing}: per partition, {@link LedgerChecker} over that partition's final {@code :read-ledger},
 *       its acknowledged {@code :append}s and the tokens its members were assigned ({@code :own}): admitted
 *       tokens never go back along the ledger (so none of a deposed owner's comes after its successor's
 *       first), each was assigned to the member that wrote with it, no acknowledged append is lost. Before
 *       that, per partition: no token assigned to two members, and each owner's token above that of the
 *       owner before it (by the start of their beliefs).
 *   <li>{@link #settled}: after {@code :quiet} (membership still from then on; value: TTL + election timeout,
 *       ms), the first linearizable {@code :status} read invoked once that bound has passed must show an
 *       owner, a member of the group, for every partition, and that owner must have believed it, with that
 *       token, from the bound (at the latest) until the read.
 * </ul>
 */
final class OwnershipCheck {
  private static final Keyword HELD = Keyword.of("held");

  private OwnershipCheck() {
  }

  /** One {@code :own} op: a member's belief in owning a partition, with its interval when it had one. */
  private record Belief(String partition, String client, long token, Long start, Long end, Op source) {
  }

  private static List<Belief> beliefs(History h) {
    List<Belief> out = new ArrayList<>();
    for (Op op : h.ops()) {
      if (op.isNemesis() || op.type() != Op.Type.OK || !op.f().name().equals("own")
          || !(op.value() instanceof Long token)) {
        continue;
      }
      Object held = op.extra().get(HELD);
      Long start = held instanceof List<?> l && l.size() == 2 ? (Long) l.get(0) : null;
      Long end = start == null ? null : (Long) ((List<?>) held).get(1);
      out.add(new Belief(String.valueOf(op.key()), HistoryChecks.client(op.process()), token, start, end, op));
    }
    return out;
  }

  static CheckOutcome fencing(History h) {
    Map<String, List<Belief>> byPartition = new TreeMap<>();
    beliefs(h).forEach(b -> byPartition.computeIfAbsent(b.partition(), k -> new ArrayList<>()).add(b));
    Map<String, List<LedgerChecker.Entry>> acked = new TreeMap<>();
    Map<String, List<LedgerChecker.Entry>> finalReads = new TreeMap<>();
    long refused = 0;
    long[] late = new long[3]; // appends invoked outside the writer's belief in that token: all, admitted, refused
    for (Operation o : h.operations()) {
      String partition = String.valueOf(o.key());
      if (o.f().name().equals("append") && o.outcome() == Operation.Outcome.FAIL) {
        refused++;
      }
      if (o.f().name().equals("append") && isLate(o, partition, byPartition.getOrDefault(partition, List.of()))) {
        late[0]++;
        late[1] += o.outcome() == Operation.Outcome.OK ? 1 : 0;
        late[2] += o.outcome() == Operation.Outcome.FAIL ? 1 : 0;
      }
      if (o.outcome() != Operation.Outcome.OK) {
        continue;
      }
      Object v = o.completion().value();
      if (o.f().name().equals("append")) {
        List<?> tp = (List<?>) v;
        acked.computeIfAbsent(partition, k -> new ArrayList<>())
            .add(new LedgerChecker.Entry((Long) tp.get(0), HistoryChecks.client(o.process()), tp.get(1)));
      } else if (o.f().name().equals("read-ledger")) {
        List<LedgerChecker.Entry> entries = new ArrayList<>();
        for (Object e : (List<?>) v) {
          List<?> tw = (List<?>) e;
          entries.add(new LedgerChecker.Entry((Long) tw.get(0), (String) tw.get(1), tw.get(2)));
        }
        finalReads.put(partition, entries);
      }
    }
    Map<String, Object> stats = new LinkedHashMap<>();
    stats.put("partitions", (long) byPartition.size());
    stats.put("beliefs", byPartition.values().stream().mapToLong(List::size).sum());
    stats.put("acknowledged-appends", acked.values().stream().mapToLong(List::size).sum());
    stats.put("refused-appends", refused);
    stats.put("late-appends", late[0]);
    stats.put("late-appends-admitted", late[1]);
    stats.put("late-appends-refused", late[2]);
    if (byPartition.isEmpty()) {
      return new CheckOutcome("fencing", Verdict.UNKNOWN, "no member ever believed it owned a partition", stats,
          List.of());
    }
    for (Map.Entry<String, List<Belief>> e : byPartition.entrySet()) {
      CheckOutcome bad = succession(e.getKey(), e.getValue(), stats);
      if (bad != null) {
        return bad;
      }
    }
    long entries = 0;
    for (String partition : byPartition.keySet()) {
      List<LedgerChecker.Entry> read = finalReads.get(partition);
      if (read == null) {
        return new CheckOutcome("fencing", Verdict.UNKNOWN, "no successful final read of partition " + partition
            + "'s ledger", stats, List.of());
      }
      Map<Long, String> grants = new LinkedHashMap<>();
      byPartition.get(partition).forEach(b -> grants.put(b.token(), b.client()));
      LedgerChecker.Report r = LedgerChecker.check(read, grants, acked.getOrDefault(partition, List.of()));
      entries += r.entries();
      if (r.verdict() == Verdict.INVALID) {
        stats.put("entries", entries);
        List<String> anomaly = new ArrayList<>();
        r.anomalies().get(0).entries().forEach(x -> anomaly.add(x.toString()));
        return new CheckOutcome("fencing", Verdict.INVALID, "partition " + partition + ": " + r.explanation(),
            stats, anomaly);
      }
    }
    stats.put("entries", entries);
    return new CheckOutcome("fencing", Verdict.VALID, "every partition's ledger admitted only its owners' tokens, "
        + "never going back, and kept every acknowledged append (" + entries + " entries, " + refused
        + " appends refused as stale; of " + late[0] + " appends sent after their writer's belief had ended, "
        + late[1] + " were admitted before any successor wrote and " + late[2] + " refused); each new owner's "
        + "token was above its predecessor's", stats, List.of());
  }

  /**
   * Whether an append was invoked outside every interval in which its writer believed it owned the partition
   * with the token it used: the zombie write of a pause (admitted only while no successor has written).
   */
  private static boolean isLate(Operation append, String partition, List<Belief> beliefs) {
    if (!(append.invoke().value() instanceof List<?> tp) || append.invoke().time() == null) {
      return false;
    }
    long at = append.invoke().time();
    String writer = HistoryChecks.client(append.process());
    return beliefs.stream().noneMatch(b -> b.client().equals(writer) && Objects.equals(b.token(), tp.get(0))
        && b.start() != null && b.start() <= at && at <= b.end());
  }

  /** A token assigned to two members of one partition, or an owner's token not above its predecessor's; or null. */
  private static CheckOutcome succession(String partition, List<Belief> beliefs, Map<String, Object> stats) {
    Map<Long, Belief> byToken = new LinkedHashMap<>();
    for (Belief b : beliefs) {
      Belief other = byToken.putIfAbsent(b.token(), b);
      if (other != null && !other.client().equals(b.client())) {
        return new CheckOutcome("fencing", Verdict.INVALID, "partition " + partition + ": token " + b.token()
            + " was assigned to both " + other.client() + " and " + b.client(), stats,
            List.of(EdnWriter.writeOp(other.source()), EdnWriter.writeOp(b.source())));
      }
    }
    List<Belief> timed = new ArrayList<>(beliefs.stream().filter(b -> b.start() != null).toList());
    timed.sort(Comparator.comparingLong(Belief::start));
    for (int i = 1; i < timed.size(); i++) {
      Belief before = timed.get(i - 1);
      Belief after = timed.get(i);
      if (!before.client().equals(after.client()) && after.token() <= before.token()) {
        return new CheckOutcome("fencing", Verdict.INVALID, "partition " + partition + ": " + after.client()
            + " owned it with token " + after.token() + " after " + before.client() + " had owned it with token "
            + before.token(), stats, List.of(EdnWriter.writeOp(before.source()), EdnWriter.writeOp(after.source())));
      }
    }
    return null;
  }

  static CheckOutcome settled(History h) {
    Op quiet = h.ops().stream().filter(op -> !op.isNemesis() && op.type() == Op.Type.OK
        && op.f().name().equals("quiet") && op.value() instanceof Long).findFirst().orElse(null);
    if (quiet == null || quiet.time() == null) {
      return new CheckOutcome("settled", Verdict.UNKNOWN, "the run never reached a quiet membership phase "
          + "(no :quiet op)", Map.of(), List.of());
    }
    long boundMs = (Long) quiet.value();
    long bound = quiet.time() + boundMs * 1_000_000L;
    Operation status = h.operations().stream().filter(o -> o.f().name().equals("status")
        && o.outcome() == Operation.Outcome.OK && o.invoke().time() != null && o.invoke().time() >= bound)
        .findFirst().orElse(null);
    if (status == null) {
      return new CheckOutcome("settled", Verdict.UNKNOWN, "no successful :status read was invoked " + boundMs
          + " ms after membership went quiet", Map.of("bound-ms", boundMs), List.of());
    }
    List<?> members = status.completion().extra().get(Keyword.of("members")) instanceof List<?> l ? l : List.of();
    List<Belief> beliefs = beliefs(h);
    long read = status.invoke().time();
    long latest = quiet.time();
    List<?> owners = (List<?>) status.completion().value();
    for (Object row : owners) {
      List<?> pot = (List<?>) row;
      String partition = String.valueOf(pot.get(0));
      Object owner = pot.get(1);
      String why = null;
      if (owner == null) {
        why = "partition " + partition + " had no owner";
      } else if (!members.contains(owner)) {
        why = "partition " + partition + "'s owner " + owner + " is not a member";
      } else {
        Belief cover = beliefs.stream().filter(b -> b.partition().equals(partition) && b.client().equals(owner)
            && Objects.equals(b.token(), pot.get(2)) && b.start() != null && b.start() <= bound && b.end() >= read)
            .findFirst().orElse(null);
        if (cover == null) {
          why = owner + " owned partition " + partition + " with token " + pot.get(2)
              + " but did not believe it throughout";
        } else {
          latest = Math.max(latest, cover.start());
        }
      }
      if (why != null) {
        return new CheckOutcome("settled", Verdict.INVALID, why + " from " + boundMs + " ms (TTL + election "
            + "timeout) after membership went quiet until the status read",
            Map.of("bound-ms", boundMs, "partitions", (long) owners.size()),
            List.of(EdnWriter.writeOp(quiet), EdnWriter.writeOp(status.completion())));
      }
    }
    long settledMs = (latest - quiet.time()) / 1_000_000L;
    return new CheckOutcome("settled", owners.isEmpty() ? Verdict.UNKNOWN : Verdict.VALID, "every one of the "
        + owners.size() + " partitions had an owner that believed it within " + settledMs + " ms of membership "
        + "going quiet (bound " + boundMs + " ms: TTL + election timeout), as the linearizable status read shows",
        Map.of("bound-ms", boundMs, "settled-ms", settledMs, "partitions", (long) owners.size()), List.of());
  }
}
