package io.regent.jepsen.runner;

import io.regent.jepsen.checker.LedgerChecker;
import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import io.regent.jepsen.history.Operation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ledger workload's check from its history: the final {@code :read-ledger} (value: entries as
 * {@code [token writer payload]}), the tokens granted ({@code :grant :ok}, writer {@code p<process>})
 * and the acknowledged appends ({@code :append :ok}, value {@code [token payload]}) go to {@link
 * LedgerChecker}. One more anomaly is checked first: a token granted to two different processes
 * (fencing cannot tell such writers apart, so that alone is invalid).
 */
final class LedgerCheck {
  private LedgerCheck() {
  }

  static CheckOutcome check(History h) {
    List<LedgerChecker.Entry> finalRead = null;
    Map<Long, String> grants = new LinkedHashMap<>();
    List<LedgerChecker.Entry> acked = new ArrayList<>();
    String duplicate = null;
    List<String> dupOps = new ArrayList<>();
    for (Operation o : h.operations()) {
      if (o.outcome() != Operation.Outcome.OK) {
        continue;
      }
      Op c = o.completion();
      String writer = "p" + o.process();
      switch (o.f().name()) {
        case "grant" -> {
          if (c.value() instanceof Long t) {
            String before = grants.putIfAbsent(t, writer);
            if (before != null && !before.equals(writer) && duplicate == null) {
              duplicate = "token " + t + " was granted to both " + before + " and " + writer;
              dupOps.add(io.regent.jepsen.history.EdnWriter.writeOp(c));
            }
          }
        }
        case "append" -> {
          List<?> v = (List<?>) c.value();
          acked.add(new LedgerChecker.Entry((Long) v.get(0), writer, v.get(1)));
        }
        case "read-ledger" -> {
          finalRead = new ArrayList<>();
          for (Object e : (List<?>) c.value()) {
            List<?> tw = (List<?>) e;
            finalRead.add(new LedgerChecker.Entry((Long) tw.get(0), (String) tw.get(1), tw.get(2)));
          }
        }
        default -> {
        }
      }
    }
    Map<String, Object> stats = new LinkedHashMap<>();
    stats.put("grants", (long) grants.size());
    stats.put("acknowledged-appends", (long) acked.size());
    if (finalRead == null) {
      return new CheckOutcome("ledger", Verdict.UNKNOWN, "no successful final read of the ledger",
          stats, List.of());
    }
    LedgerChecker.Report r = LedgerChecker.check(finalRead, grants, acked);
    stats.put("entries", (long) r.entries());
    stats.put("anomalies", (long) r.anomalies().size() + (duplicate == null ? 0 : 1));
    if (duplicate != null) {
      return new CheckOutcome("ledger", Verdict.INVALID, duplicate, stats, dupOps);
    }
    List<String> anomaly = new ArrayList<>();
    if (!r.anomalies().isEmpty()) {
      r.anomalies().get(0).entries().forEach(e -> anomaly.add(e.toString()));
    }
    return new CheckOutcome("ledger", r.verdict(), r.explanation(), stats, anomaly);
  }
}
