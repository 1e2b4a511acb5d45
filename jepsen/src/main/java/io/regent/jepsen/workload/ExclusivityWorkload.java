package io.regent.jepsen.workload;

import io.regent.jepsen.client.ClientProcess;
import io.regent.server.placement.Placement;
import java.util.List;

/**
 * {@code lease-exclusivity}: processes compete for one or two names, hold a name for 0.3–1.5 s while
 * their lease is renewed, then resign; a holder whose lease can no longer be vouched for (2/3 ttl
 * since the last acknowledged renewal was sent) steps down. Each belief is recorded as a {@code
 * :release} op with {@code :held [start end]} on the test's monotonic clock; the exclusivity checker
 * asserts that no two clients' intervals for a name overlap (the property docs/architecture.md §3.3's
 * keepalive-confirmation rule protects). The same {@code :grant}/{@code :read} ops are also checked
 * with {@code FencedRegister}.
 */
public final class ExclusivityWorkload extends ContenderWorkload {
  /**
   * A workload.
   *
   * @param names the contended names
   * @param ttlMs the lease TTL
   * @param tryCampaign campaign with tryCampaign (see {@link Contender}) instead of a bounded blocking campaign
   * @param placement the cluster's cells ({@link CellNames})
   */
  public ExclusivityWorkload(List<String> names, long ttlMs, boolean tryCampaign, Placement placement) {
    super(names, ttlMs, tryCampaign, placement);
  }

  @Override
  public String name() {
    return "lease-exclusivity";
  }

  @Override
  Moves moves(ClientProcess p) {
    return new Moves() {
      /** When the name held now is to be resigned, on System.nanoTime. */
      private long holdUntil;

      @Override
      public long next(Contender h) throws InterruptedException {
        if (h.holding()) {
          if (System.nanoTime() - holdUntil < 0) {
            return 20;
          }
          h.resign();
          return 50 + p.random().nextInt(100);
        }
        String n = anyName(p);
        if (p.random().nextDouble() < 0.1) {
          h.read(n);
        } else {
          h.campaign(n);
          holdUntil = System.nanoTime() + 1_000_000L * (300 + p.random().nextInt(1200));
        }
        return 50 + p.random().nextInt(100);
      }
    };
  }
}
