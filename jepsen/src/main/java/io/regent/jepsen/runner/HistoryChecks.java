package io.regent.jepsen.runner;

import io.regent.jepsen.checker.Budget;
import io.regent.jepsen.checker.CasRegister;
import io.regent.jepsen.checker.ExclusivityChecker;
import io.regent.jepsen.checker.FencedRegister;
import io.regent.jepsen.checker.LedgerChecker;
import io.regent.jepsen.checker.LinearizabilityChecker;
import io.regent.jepsen.checker.Model;
import io.regent.jepsen.checker.Mutex;
import io.regent.jepsen.checker.Result;
import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.EdnWriter;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import io.regent.jepsen.history.Operation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks a history, from the history alone, for a workload or a model: what {@code jepsen/run test}
 * does at the end of a run and {@code jepsen/run check} does on a stored {@code history.edn}.
 *
 * <ul>
 *   <li>{@code election}: linearizability of the {@code :grant/:read/:resign/:release} ops against
 *       {@link FencedRegister}, per name ({@code :key}); {@link BeliefCheck} (no read inside a
 *       holder's belief interval returns anything but its token); {@link ExclusivityChecker} over
 *       the {@code :held} intervals of the {@code :release} ops;
 *   <li>{@code lease-exclusivity}: the same three, except that a history without any belief interval
 *       is {@code :unknown} for exclusivity (that workload exists to test it);
 *   <li>{@code ledger}: {@link LedgerChecker} over the final {@code :read-ledger}, the {@code :ok}
 *       grants and the {@code :ok} appends, plus the election checks;
 *   <li>{@code fenced-register}, {@code cas-register}, {@code mutex}: linearizability against that
 *       model alone (the last two are Knossos's models, for Knossos histories).
 * </ul>
 */
public final class HistoryChecks {
  /** Models/workloads {@link #check} accepts, besides {@code auto}. */
  public static final List<String> MODELS =
      List.of("election", "lease-exclusivity", "ledger", "fenced-register", "cas-register", "mutex");
  private static final Set<String> ELECTION_FS = Set.of("grant", "read", "resign", "release");

  private HistoryChecks() {
  }

  /** Runs the checkers of {@code model} ({@code auto}: {@link #detect}) with a time budget each. */
  public static List<CheckOutcome> check(String model, History h, Duration budget) {
    return switch (model) {
      case "auto" -> check(detect(h), h, budget);
      case "election" -> List.of(linearizable(only(h, ELECTION_FS), FencedRegister.initial(), budget),
          BeliefCheck.check(h), exclusivity(h, false));
      case "fenced-register" -> List.of(linearizable(only(h, ELECTION_FS), FencedRegister.initial(), budget));
      case "lease-exclusivity" -> List.of(exclusivity(h, true), BeliefCheck.check(h),
          linearizable(only(h, ELECTION_FS), FencedRegister.initial(), budget));
      case "ledger" -> List.of(LedgerCheck.check(h), BeliefCheck.check(h), exclusivity(h, false),
          linearizable(only(h, ELECTION_FS), FencedRegister.initial(), budget));
      case "cas-register" -> List.of(linearizable(h, CasRegister.initial(), budget));
      case "mutex" -> List.of(linearizable(h, Mutex.initial(), budget));
      default -> throw new IllegalArgumentException("unknown model '" + model + "'; one of auto, " + MODELS);
    };
  }

  /** Guesses the workload or model from the ops' {@code :f} values. */
  public static String detect(History h) {
    Set<String> fs = new TreeSet<>();
    boolean held = false;
    for (Op op : h.ops()) {
      if (!op.isNemesis()) {
        fs.add(op.f().name());
        held |= op.extra().containsKey(io.regent.jepsen.history.Keyword.of("held"));
      }
    }
    if (fs.isEmpty()) {
      throw new IllegalArgumentException("the history has no client operations: nothing to check");
    }
    if (fs.contains("append") || fs.contains("read-ledger")) {
      return "ledger";
    }
    if (fs.contains("grant") || held) {
      return "election";
    }
    if (Set.of("read", "write", "cas").containsAll(fs)) {
      return "cas-register";
    }
    if (Set.of("acquire", "release").containsAll(fs)) {
      return "mutex";
    }
    throw new IllegalArgumentException("cannot tell the model from the ops' :f values " + fs
        + "; pass --model");
  }

  /** The sub-history of client ops whose {@code :f} is in {@code fs} (nemesis events kept). */
  static History only(History h, Set<String> fs) {
    List<Op> ops = new ArrayList<>();
    for (Op op : h.ops()) {
      if (op.isNemesis() || fs.contains(op.f().name())) {
        ops.add(op);
      }
    }
    return new History(ops);
  }

  static CheckOutcome linearizable(History h, Model model, Duration budget) {
    Result r = new LinearizabilityChecker(model, Budget.ofTime(budget)).check(h);
    Map<String, Object> stats = new LinkedHashMap<>();
    stats.put("operations", (long) r.opCount());
    stats.put("keys", (long) r.keys());
    stats.put("configurations", r.configurations());
    stats.put("check-ms", r.elapsed().toMillis());
    List<String> anomaly = new ArrayList<>();
    for (Operation o : r.ops()) {
      anomaly.add(EdnWriter.writeOp(o.invoke()) + (o.completion() == null ? ""
          : " -> " + EdnWriter.writeOp(o.completion())));
    }
    return new CheckOutcome("linearizable", r.verdict(), r.explanation(), stats, anomaly);
  }

  static CheckOutcome exclusivity(History h, boolean requireIntervals) {
    List<ExclusivityChecker.Interval> intervals = new ArrayList<>();
    Map<ExclusivityChecker.Interval, Op> source = new LinkedHashMap<>();
    for (Op op : h.ops()) {
      Object held = op.extra().get(io.regent.jepsen.history.Keyword.of("held"));
      if (op.isNemesis() || op.type() != Op.Type.OK || !(held instanceof List<?> l) || l.size() != 2) {
        continue;
      }
      ExclusivityChecker.Interval i = new ExclusivityChecker.Interval(String.valueOf(op.key()),
          "p" + op.process(), (Long) l.get(0), (Long) l.get(1));
      intervals.add(i);
      source.put(i, op);
    }
    ExclusivityChecker.Report r = ExclusivityChecker.check(intervals);
    List<String> anomaly = new ArrayList<>();
    if (r.first() != null) {
      anomaly.add(EdnWriter.writeOp(source.get(r.first().a())));
      anomaly.add(EdnWriter.writeOp(source.get(r.first().b())));
    }
    Map<String, Object> stats = Map.of("intervals", (long) r.intervals(),
        "overlapping-names", List.copyOf(r.overlappingNames()));
    Verdict v = requireIntervals && intervals.isEmpty() ? Verdict.UNKNOWN : r.verdict();
    String why = intervals.isEmpty() ? "no client ever believed it held a name: nothing to compare"
        : r.explanation();
    return new CheckOutcome("exclusivity", v, why, stats, anomaly);
  }
}
