package io.regent.jepsen.workload;

import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.client.ClientProcess;
import io.regent.server.placement.Placement;
import java.util.List;

/**
 * The loop the election and lease-exclusivity workloads share: each process drives one {@link Contender} over
 * a few names, waiting at the nemesis gate and checking its lease before every move; the final reads read
 * every name. A subclass says only which move a process makes next.
 */
abstract class ContenderWorkload implements Workload {
  private final List<String> names;
  private final long ttlMs;
  private final boolean tryCampaign;
  private final Placement placement;

  /**
   * @param names the names campaigned for
   * @param ttlMs the lease TTL
   * @param tryCampaign campaign with tryCampaign (see {@link Contender}) instead of a bounded blocking campaign
   * @param placement the cluster's cells: a campaign's lease is granted in its name's cell
   */
  ContenderWorkload(List<String> names, long ttlMs, boolean tryCampaign, Placement placement) {
    this.names = List.copyOf(names);
    this.ttlMs = ttlMs;
    this.tryCampaign = tryCampaign;
    this.placement = placement;
  }

  /** One process's moves; it may keep state between moves (it lives as long as the process's session). */
  interface Moves {
    /**
     * Makes the next move with {@code h}, whose lease was just checked.
     *
     * @return how long to pause before the next move, ms
     */
    long next(Contender h) throws InterruptedException;
  }

  /** The moves of process {@code p}. */
  abstract Moves moves(ClientProcess p);

  @Override
  public final List<String> names() {
    return names;
  }

  /** One of the names, picked at random by {@code p}. */
  final String anyName(ClientProcess p) {
    return names.get(p.random().nextInt(names.size()));
  }

  @Override
  public final ClientPool.Session session(ClientProcess p) {
    Contender h = new Contender(p, ttlMs, tryCampaign, placement);
    Moves moves = moves(p);
    return new ClientPool.Session() {
      @Override
      public long step() throws InterruptedException {
        p.gate().await();
        h.checkLease();
        return moves.next(h);
      }

      @Override
      public boolean holding() {
        return h.holding();
      }

      @Override
      public void close() {
        h.close();
      }
    };
  }

  @Override
  public final void finalReads(ClientProcess p) {
    Contender h = new Contender(p, ttlMs, tryCampaign, placement);
    names.forEach(h::read);
  }
}
