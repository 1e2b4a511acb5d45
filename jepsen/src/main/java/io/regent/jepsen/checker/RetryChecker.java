package io.regent.jepsen.checker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Checks clients' beliefs against the cluster's ownership history (issue #34): all times are one host's monotonic
 * clock, in nanoseconds.
 *
 * <ul>
 *   <li><b>belief vs cluster</b>: a holder read that started after a client began to believe it held a name with
 *       lease L, and ended before that belief ended, must find L holding it. A belief ends before the resign is
 *       sent and no later than the keeper's deadline (before the lease can expire), so any other answer means the
 *       cluster took the name while the client was still entitled to believe in it: a cleanup, a double apply.
 *   <li><b>unrenewed holder</b>: a read finding lease L holding a name, started more than TTL + lock-delay +
 *       {@code slackNanos} after every client stopped renewing L (or, for a lease no client knew, after the first
 *       read that found it), means the name was held with nobody renewing it for longer than it may be.
 * </ul>
 *
 * <p>Two clients believing they hold one name at once is {@link ExclusivityChecker}'s check. Leases seen holding a
 * name that no client ever renewed ("orphans": a re-sent request applied twice, or a call abandoned in doubt) are
 * counted, not judged: a call a client gave up on may leave one.
 */
public final class RetryChecker {
  /** One client's belief that it held {@code name} with {@code lease}, from {@code start} to {@code end}. */
  public record Belief(String name, String client, long lease, long start, long end) {
  }

  /** A holder read of {@code name} in [{@code start}, {@code end}]: the lease holding it, or null for nobody. */
  public record Read(String name, long start, long end, Long lease) {
  }

  /** A client renewing {@code lease} (TTL and lock-delay in ms) from {@code start} to {@code end}. */
  public record Renewal(long lease, long start, long end, long ttlMs, long lockDelayMs) {
  }

  /**
   * The outcome.
   *
   * @param violations one line per violation, in the order found
   * @param orphans leases seen holding a name that no client renewed
   */
  public record Report(Verdict verdict, String explanation, int beliefs, int reads, List<String> violations,
                       Set<Long> orphans) {
  }

  private RetryChecker() {
  }

  /**
   * Checks; UNKNOWN when there is no belief or no successful read (nothing to compare), INVALID with the first
   * violations, else VALID.
   *
   * @param slackNanos allowance for a renewal in flight when its client stopped and for leader changes, which may
   *     lengthen an unrenewed lease (docs/architecture.md §3.1)
   * @param ttlMs TTL assumed for a lease no client renewed; lock-delay is then taken as {@code maxLockDelayMs}
   */
  public static Report check(List<Belief> beliefs, List<Read> reads, List<Renewal> renewals, long ttlMs,
                             long maxLockDelayMs, long slackNanos) {
    List<String> violations = new ArrayList<>();
    Map<String, List<Read>> byName = new HashMap<>();
    reads.forEach(r -> byName.computeIfAbsent(r.name(), k -> new ArrayList<>()).add(r));
    for (Belief b : beliefs) {
      for (Read r : byName.getOrDefault(b.name(), List.of())) {
        if (r.start() - b.start() > 0 && b.end() - r.end() > 0 && !Objects.equals(r.lease(), b.lease())) {
          violations.add(b.client() + " believed it held " + b.name() + " with lease " + b.lease() + " from "
              + b.start() + " to " + b.end() + " ns, but a read from " + r.start() + " to " + r.end() + " found "
              + (r.lease() == null ? "nobody" : "lease " + r.lease()) + " holding it");
          break;
        }
      }
    }
    Map<Long, List<Renewal>> renewed = new HashMap<>();
    renewals.forEach(r -> renewed.computeIfAbsent(r.lease(), k -> new ArrayList<>()).add(r));
    Set<Long> orphans = new HashSet<>();
    Map<Long, Long> firstSeen = new HashMap<>();
    List<Read> sorted = new ArrayList<>(reads);
    sorted.sort(Comparator.comparingLong(Read::start));
    Set<Long> flagged = new HashSet<>();
    for (Read r : sorted) {
      if (r.lease() == null) {
        continue;
      }
      long lease = r.lease();
      List<Renewal> rs = renewed.getOrDefault(lease, List.of());
      long limitNanos = (rs.isEmpty() ? ttlMs + maxLockDelayMs
          : rs.stream().mapToLong(x -> x.ttlMs() + x.lockDelayMs()).max().orElseThrow()) * 1_000_000L + slackNanos;
      if (rs.isEmpty()) {
        orphans.add(lease);
      }
      if (rs.stream().anyMatch(x -> r.start() - x.start() >= 0 && x.end() - r.start() >= 0)) {
        continue; // renewed right then
      }
      Long since = rs.stream().filter(x -> r.start() - x.end() > 0).map(Renewal::end).max(Long::compare)
          .orElse(null);
      if (since == null) {
        since = firstSeen.computeIfAbsent(lease, k -> r.end());
      }
      if (r.start() - since > limitNanos && flagged.add(lease)) {
        violations.add("lease " + lease + " held " + r.name() + " at a read from " + r.start() + " ns, "
            + (r.start() - since) / 1_000_000 + " ms after " + (rs.isEmpty() ? "it was first seen (no client knew it)"
            : "its last client stopped renewing it") + ", beyond TTL + lock-delay + slack ("
            + limitNanos / 1_000_000 + " ms)");
      }
    }
    long okReads = reads.size();
    Verdict v = !violations.isEmpty() ? Verdict.INVALID : beliefs.isEmpty() || okReads == 0 ? Verdict.UNKNOWN
        : Verdict.VALID;
    String why = !violations.isEmpty() ? violations.size() + " violation(s); first: " + violations.get(0)
        : beliefs.isEmpty() ? "no client ever believed it held a name: nothing to compare"
        : okReads == 0 ? "no holder read succeeded: nothing to compare beliefs with"
        : beliefs.size() + " beliefs agree with " + okReads + " holder reads; no lease held a name unrenewed too long";
    return new Report(v, why, beliefs.size(), reads.size(), List.copyOf(violations), Set.copyOf(orphans));
  }
}
