package io.regent.jepsen.runner;

import io.regent.jepsen.checker.RetryChecker;
import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Keyword;
import io.regent.jepsen.history.Op;
import io.regent.jepsen.history.Operation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code retry} workload's check from a history ({@link RetryChecker}): beliefs are the {@code :release} ops'
 * {@code :held [start end]} with their {@code :lease}, renewals the {@code :renew} ops' {@code :renewing [start
 * end]} with {@code :ttl} and {@code :lock-delay}, the ownership history the {@code :ok} {@code :read}s (value
 * {@code [lease token]} or nil) with their invoke and completion times.
 */
final class RetryCheck {
  /** A renewal in flight when its client stopped (its call budget) plus a leader change's checkpoint gap. */
  static final long SLACK_NANOS = 8_000_000_000L;

  private RetryCheck() {
  }

  static CheckOutcome check(History h) {
    List<RetryChecker.Belief> beliefs = new ArrayList<>();
    List<RetryChecker.Renewal> renewals = new ArrayList<>();
    long ttlMs = 0;
    long lockDelayMs = 0;
    for (Op op : h.ops()) {
      if (op.isNemesis() || op.type() != Op.Type.OK) {
        continue;
      }
      Map<Keyword, Object> x = op.extra();
      if (op.f().name().equals("release") && x.get(Keyword.of("held")) instanceof List<?> held && held.size() == 2) {
        beliefs.add(new RetryChecker.Belief(String.valueOf(op.key()), HistoryChecks.client(op.process()),
            (Long) x.get(Keyword.of("lease")), (Long) held.get(0), (Long) held.get(1)));
      } else if (op.f().name().equals("renew") && x.get(Keyword.of("renewing")) instanceof List<?> span) {
        long ttl = (Long) x.get(Keyword.of("ttl"));
        long delay = (Long) x.get(Keyword.of("lock-delay"));
        renewals.add(new RetryChecker.Renewal((Long) op.value(), (Long) span.get(0), (Long) span.get(1), ttl, delay));
        ttlMs = Math.max(ttlMs, ttl);
        lockDelayMs = Math.max(lockDelayMs, delay);
      }
    }
    List<RetryChecker.Read> reads = new ArrayList<>();
    for (Operation o : h.operations()) {
      if (o.f().name().equals("read") && o.outcome() == Operation.Outcome.OK) {
        Long lease = o.completion().value() instanceof List<?> v ? (Long) v.get(0) : null;
        reads.add(new RetryChecker.Read(String.valueOf(o.key()), o.invoke().time(), o.completion().time(), lease));
      }
    }
    RetryChecker.Report r = RetryChecker.check(beliefs, reads, renewals, ttlMs, lockDelayMs, SLACK_NANOS);
    Map<String, Object> stats = new LinkedHashMap<>();
    stats.put("beliefs", (long) r.beliefs());
    stats.put("reads", (long) r.reads());
    stats.put("violations", (long) r.violations().size());
    stats.put("orphan-leases", (long) r.orphans().size());
    Verdict v = renewals.isEmpty() && r.verdict() == Verdict.VALID ? Verdict.UNKNOWN : r.verdict();
    return new CheckOutcome("retry", v, r.explanation(), stats,
        r.violations().subList(0, Math.min(10, r.violations().size())));
  }
}
