package io.regent.jepsen.workload;

import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.client.ClientProcess;
import java.util.List;

/**
 * {@code election}: processes campaign (bounded wait), resign and read the holder of a few names.
 * History: {@code :grant} (value: the token won, or nil if unknown), {@code :read} (the holder's token
 * or nil), {@code :resign} (the token given up), {@code :release} (end of belief), each with {@code
 * :key} = the name. Checked per name against {@code FencedRegister}: every grant strictly above every
 * earlier grant, and every read returning the last granted token (or nil).
 */
public final class ElectionWorkload implements Workload {
  private final List<String> names;
  private final long ttlMs;
  private final boolean tryCampaign;

  /**
   * A workload.
   *
   * @param names the names
   * @param ttlMs the lease TTL
   * @param tryCampaign campaign with tryCampaign (see {@link Holder}) instead of a bounded blocking campaign
   */
  public ElectionWorkload(List<String> names, long ttlMs, boolean tryCampaign) {
    this.names = List.copyOf(names);
    this.ttlMs = ttlMs;
    this.tryCampaign = tryCampaign;
  }

  @Override
  public String name() {
    return "election";
  }

  @Override
  public List<String> names() {
    return names;
  }

  @Override
  public ClientPool.Session session(ClientProcess p) {
    Holder h = new Holder(p, ttlMs, tryCampaign);
    return new ClientPool.Session() {
      @Override
      public long step() throws InterruptedException {
        p.gate().await();
        h.checkLease();
        double x = p.random().nextDouble();
        String n = names.get(p.random().nextInt(names.size()));
        if (h.holding()) {
          if (x < 0.3) {
            h.resign();
          } else {
            h.read(n);
          }
        } else if (x < 0.5) {
          h.campaign(n);
        } else {
          h.read(n);
        }
        return 50 + p.random().nextInt(150);
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
  public void finalReads(ClientProcess p) {
    Holder h = new Holder(p, ttlMs, tryCampaign);
    names.forEach(h::read);
  }
}
