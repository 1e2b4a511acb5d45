package io.regent.jepsen.workload;

import io.regent.jepsen.client.ClientProcess;
import io.regent.server.placement.Placement;
import java.util.List;

/**
 * {@code election}: processes campaign (bounded wait), resign and read the holder of a few names.
 * History: {@code :grant} (value: the token won, or nil if unknown), {@code :read} (the holder's token
 * or nil), {@code :resign} (the token given up), {@code :release} (end of belief), each with {@code
 * :key} = the name. Checked per name against {@code FencedRegister}: every grant strictly above every
 * earlier grant, and every read returning the last granted token (or nil).
 */
public final class ElectionWorkload extends ContenderWorkload {
  /**
   * A workload.
   *
   * @param names the names
   * @param ttlMs the lease TTL
   * @param tryCampaign campaign with tryCampaign (see {@link Contender}) instead of a bounded blocking campaign
   * @param placement the cluster's cells ({@link CellNames})
   */
  public ElectionWorkload(List<String> names, long ttlMs, boolean tryCampaign, Placement placement) {
    super(names, ttlMs, tryCampaign, placement);
  }

  @Override
  public String name() {
    return "election";
  }

  @Override
  Moves moves(ClientProcess p) {
    return h -> {
      double x = p.random().nextDouble();
      String n = anyName(p);
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
    };
  }
}
