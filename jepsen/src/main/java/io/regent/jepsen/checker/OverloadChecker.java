package io.regent.jepsen.checker;

import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Keyword;
import io.regent.jepsen.history.Operation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The verdict of the {@code overload} run (jepsen/README.md): holders renew their leases every TTL/3 while a
 * flood of reads and campaigns saturates the cluster; keepalives go first and the flood is shed
 * (docs/architecture.md §7.2), so no lease its holder kept renewing in time may expire.
 *
 * <p>History: a holder's {@code :grant} (ok value: the lease id) and its {@code :keepalive}s ({@code :key} the
 * lease id; ok value: the TTL answered, ms; {@code :fail} with {@code :error "NOT_FOUND"} once the lease is
 * gone, {@code "RESOURCE_EXHAUSTED"} when refused; {@code :info} when the deadline passed). The flood's {@code
 * :read}s and {@code :campaign}s fail {@code "RESOURCE_EXHAUSTED"} when shed: refusals are counted, never a failure.
 *
 * <p>A <em>spurious expiry</em> is a lease reported gone (a keepalive answered NOT_FOUND) although its holder
 * sent a keepalive less than one TTL after the grant and after each earlier keepalive, up to and including the
 * one that found it gone: the client did its part, the cluster lost the lease. It is the overload form of
 * {@link LeaseSurvival}'s rule, which measures from the last <em>acknowledged</em> keepalive: under overload the
 * acknowledgements themselves are what the cluster delays or refuses, so the sends are the client's part.
 */
public final class OverloadChecker {
  private static final Keyword GRANT = Keyword.of("grant");
  private static final Keyword KEEPALIVE = Keyword.of("keepalive");
  private static final Keyword ERROR = Keyword.of("error");

  private OverloadChecker() {
  }

  /** Whether {@code op} failed with the gRPC status {@code code}, named at the head of its {@code :error}. */
  private static boolean failed(Operation op, String code) {
    return op.outcome() == Operation.Outcome.FAIL
        && String.valueOf(op.completion().extra().get(ERROR)).startsWith(code);
  }

  /**
   * The outcome.
   *
   * @param spurious leases kept renewing in time that the cluster reported gone (must be 0)
   * @param leases leases granted to holders
   * @param expired leases reported gone, spurious or not
   * @param renewals keepalives acknowledged
   * @param keepaliveRefusals keepalives refused RESOURCE_EXHAUSTED (shed: the failure priority lanes prevent)
   * @param floodOps flood operations invoked
   * @param floodRefusals flood operations refused RESOURCE_EXHAUSTED (allowed)
   * @param firstSpurious the first spurious lease's id, or -1
   */
  public record Outcome(Verdict verdict, int spurious, int leases, int expired, int renewals,
                        int keepaliveRefusals, int floodOps, int floodRefusals, long firstSpurious,
                        String explanation) {
  }

  /**
   * Judges {@code history}; {@code ttlNanos} is the holders' TTL. UNKNOWN when no keepalive was acknowledged
   * (nothing was kept, so nothing could be lost), INVALID when a lease expired spuriously, else VALID.
   */
  public static Outcome check(History history, long ttlNanos) {
    Map<Object, Long> grantedAt = new LinkedHashMap<>();
    Map<Object, List<Operation>> keepalives = new LinkedHashMap<>();
    int renewals = 0;
    int keepaliveRefusals = 0;
    int floodOps = 0;
    int floodRefusals = 0;
    for (Operation op : history.operations()) {
      boolean refused = failed(op, "RESOURCE_EXHAUSTED");
      if (op.f().equals(GRANT)) {
        if (op.outcome() == Operation.Outcome.OK) {
          grantedAt.put(op.completion().value(), op.completion().time());
        }
      } else if (op.f().equals(KEEPALIVE)) {
        keepalives.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
        renewals += op.outcome() == Operation.Outcome.OK ? 1 : 0;
        keepaliveRefusals += refused ? 1 : 0;
      } else {
        floodOps++;
        floodRefusals += refused ? 1 : 0;
      }
    }
    int spurious = 0;
    int expired = 0;
    long first = -1;
    for (Map.Entry<Object, Long> lease : grantedAt.entrySet()) {
      List<Operation> kas = new ArrayList<>(keepalives.getOrDefault(lease.getKey(), List.of()));
      kas.sort(Comparator.comparingLong(o -> o.invoke().time()));
      long previousSend = lease.getValue();
      boolean inTime = true;
      for (Operation ka : kas) {
        inTime &= ka.invoke().time() - previousSend < ttlNanos;
        previousSend = ka.invoke().time();
        if (failed(ka, "NOT_FOUND")) {
          expired++;
          if (inTime) {
            spurious++;
            first = first < 0 ? ((Number) lease.getKey()).longValue() : first;
          }
          break;
        }
      }
    }
    String counts = spurious + " spurious expiries of " + grantedAt.size() + " leases (" + expired + " expired), "
        + renewals + " renewals, " + keepaliveRefusals + " keepalives refused; flood: " + floodRefusals + " of "
        + floodOps + " refused RESOURCE_EXHAUSTED";
    Verdict v = renewals == 0 ? Verdict.UNKNOWN : spurious > 0 ? Verdict.INVALID : Verdict.VALID;
    return new Outcome(v, spurious, grantedAt.size(), expired, renewals, keepaliveRefusals, floodOps,
        floodRefusals, first, renewals == 0 ? "no keepalive was acknowledged: " + counts : counts);
  }
}
