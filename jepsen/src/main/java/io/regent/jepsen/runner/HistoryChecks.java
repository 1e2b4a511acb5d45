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
import java.util.ArrayList;
import java.util.HashSet;
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
 *   <li>{@code election}: linearizability of the ops {@link FencedRegister} reads ({@code
 *       :grant/:read/:resign/:release}, and a fencing history's {@code :acquire/:read-token}) against
 *       it, per name ({@code :key}); {@link BeliefCheck} (no read inside a
 *       holder's belief interval returns anything but its token); {@link ExclusivityChecker} over
 *       the {@code :held} intervals of the {@code :release} ops;
 *   <li>{@code lease-exclusivity}: the same three, except that a history without any belief interval
 *       is {@code :unknown} for exclusivity (that workload exists to test it);
 *   <li>{@code ledger}: {@link LedgerChecker} over the final {@code :read-ledger}, the {@code :ok}
 *       grants and the {@code :ok} appends, plus the election checks;
 *   <li>{@code ownership}: {@link ExclusivityChecker} over the {@code :own} ops' intervals, keyed by
 *       partition (no two members believed they owned one partition at once; a history without any is
 *       {@code :unknown}), and {@link OwnershipCheck}'s fencing (per-partition ledgers and tokens) and
 *       settled (every partition owned within TTL + election timeout of a quiet membership);
 *   <li>{@code retry}: {@link ExclusivityChecker} over the {@code :release} beliefs (a history without any is
 *       {@code :unknown}) and {@link RetryCheck} (beliefs against the polled holder reads; leases held unrenewed);
 *   <li>{@code etcdctl-lock}: {@link ExclusivityChecker} over the {@code :release} beliefs of etcdctl's holds (a
 *       history without any is {@code :unknown}) and {@link LockTokenCheck} (each lock's tokens grow);
 *   <li>{@code fenced-register}, {@code cas-register}, {@code mutex}: linearizability against that
 *       model alone (the last two are Knossos's models, for Knossos histories).
 * </ul>
 *
 * <p>No checker passes on nothing: a history none of whose ops a model reads, or with no operation
 * left to search, is UNKNOWN with that reason, never VALID.
 */
public final class HistoryChecks {
  /** Models/workloads {@link #check} accepts, besides {@code auto}. */
  public static final List<String> MODELS =
      List.of("election", "lease-exclusivity", "ledger", "ownership", "retry", "etcdctl-lock", "fenced-register",
          "cas-register", "mutex");

  private HistoryChecks() {
  }

  /**
   * Runs the checkers of {@code model} ({@code auto}: {@link #detect}), each within {@code budget}.
   *
   * @throws IllegalArgumentException for a model not in {@link #MODELS} (nor {@code auto})
   */
  public static List<CheckOutcome> check(String model, History h, Budget budget) {
    return switch (model) {
      case "auto" -> check(detect(h), h, budget);
      case "election" -> List.of(fenced(h, budget), BeliefCheck.check(h), exclusivity(h, false));
      case "fenced-register" -> List.of(fenced(h, budget));
      case "lease-exclusivity" -> List.of(exclusivity(h, true), BeliefCheck.check(h), fenced(h, budget));
      case "ledger" -> List.of(LedgerCheck.check(h), BeliefCheck.check(h), exclusivity(h, false),
          fenced(h, budget));
      case "ownership" -> List.of(exclusivity(h, true), OwnershipCheck.fencing(h), OwnershipCheck.settled(h));
      case "retry" -> List.of(exclusivity(h, true), RetryCheck.check(h));
      case "etcdctl-lock" -> List.of(exclusivity(h, true), LockTokenCheck.check(h));
      case "cas-register" -> List.of(linearizable(h, "cas-register", CasRegister.initial(), budget, ""));
      case "mutex" -> List.of(linearizable(h, "mutex", Mutex.initial(), budget, ""));
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
    if (fs.contains("join") || fs.contains("own")) {
      return "ownership";
    }
    if (fs.contains("renew")) {
      return "retry";
    }
    if (fs.contains("append") || fs.contains("read-ledger")) {
      return "ledger";
    }
    if (fs.contains("acquire") && held) {
      return "etcdctl-lock";
    }
    if (fs.contains("grant") || held) {
      return "election";
    }
    if (fs.contains("read-token") || h.ops().stream().anyMatch(HistoryChecks::isFencedAcquire)) {
      return "fenced-register";
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

  /** True for an {@code :acquire} carrying {@code [client token]}, the fencing histories' form. */
  private static boolean isFencedAcquire(Op op) {
    return !op.isNemesis() && op.f().name().equals("acquire") && op.value() instanceof List<?> l
        && l.size() == 2;
  }

  /**
   * Linearizability of the ops {@link FencedRegister} reads. Ops it does not read (a ledger's appends)
   * are left out, and counted, when they are on other names ({@code :key}); on a name the model
   * checks they would make its verdict a verdict on part of that name's history, so the outcome is
   * UNKNOWN with the reason, and so it is when the model reads none of the history's ops: it would
   * otherwise pass on nothing.
   */
  static CheckOutcome fenced(History h, Budget budget) {
    Set<String> left = new TreeSet<>();
    Set<Object> fencedKeys = new HashSet<>();
    Set<Object> otherKeys = new HashSet<>();
    int leftOut = 0;
    for (Operation o : h.operations()) {
      if (FencedRegister.FS.contains(o.f().name())) {
        fencedKeys.add(String.valueOf(o.key()));
      } else {
        left.add(":" + o.f().name());
        otherKeys.add(String.valueOf(o.key()));
        leftOut++;
      }
    }
    String others = leftOut + " client operations (" + String.join(" ", left) + ")";
    if (fencedKeys.isEmpty() && leftOut > 0) {
      return unknown("none of the history's " + others + " is one the fenced-register model reads "
          + new TreeSet<>(FencedRegister.FS) + ": nothing to check");
    }
    otherKeys.retainAll(fencedKeys);
    if (!otherKeys.isEmpty()) {
      return unknown("the history has " + others + " that the fenced-register model does not read, on "
          + "the names it checks " + new TreeSet<>(otherKeys) + ": a verdict would ignore them");
    }
    String note = leftOut == 0 ? "" : " (" + others + " on other names were left out)";
    return linearizable(only(h, FencedRegister.FS), "fenced-register", FencedRegister.initial(), budget,
        note);
  }

  private static CheckOutcome unknown(String why) {
    return new CheckOutcome("linearizable", Verdict.UNKNOWN, why, Map.of("operations", 0L), List.of());
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

  /**
   * Linearizability against {@code model}; {@code note} is appended to the explanation. A history the
   * model cannot read (an {@code :f} or a value it does not know) is UNKNOWN with the model's reason.
   */
  static CheckOutcome linearizable(History h, String name, Model model, Budget budget, String note) {
    Result r;
    try {
      r = new LinearizabilityChecker(model, budget).check(h);
    } catch (IllegalArgumentException e) {
      return new CheckOutcome("linearizable", Verdict.UNKNOWN, "cannot check this history against the "
          + name + " model: " + e.getMessage(), Map.of(), List.of());
    }
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
    // Knossos calls a history with nothing to search linearizable; a check that saw nothing has no verdict.
    Verdict v = r.verdict() == Verdict.VALID && r.keys() == 0 ? Verdict.UNKNOWN : r.verdict();
    return new CheckOutcome("linearizable", v, r.explanation() + note, stats, anomaly);
  }

  /**
   * The client that recorded an op under {@code process}: {@code p<process>}, and for the end of a retired
   * process's belief, recorded under {@code -(p + 1)} ({@code ClientProcess.retiredId}), that process.
   */
  static String client(long process) {
    return "p" + (process < 0 ? -process - 1 : process);
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
          client(op.process()), (Long) l.get(0), (Long) l.get(1));
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
