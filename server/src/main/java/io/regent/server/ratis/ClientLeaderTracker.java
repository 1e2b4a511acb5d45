package io.regent.server.ratis;

import io.regent.server.confirm.Confirmer;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServer.Division;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tracks the leader for this node's Ratis clients: tells the {@link RaftClientPool} which leader the local Raft
 * server follows, so that proposals made after a
 * leader change go to the new leader at once instead of timing out against the old one.
 *
 * <p>It polls the local division every {@code periodMs}: Ratis has no listener for leader changes outside the
 * state machine, and a read of the division's leader id costs nothing next to a proposal. A follower learns the
 * new leader from its first AppendEntries (Raft §5.2), about an election timeout after the old leader went
 * silent. On a change it also tells {@code onChange} (the {@link Confirmer}, whose round in flight and whose
 * questions to the leader went to the old leader).
 *
 * <p>It does both again when this node itself becomes the <em>ready</em> leader (Ratis: its startup entry
 * applied): a round restarted when it won the election, before it was ready, can hang on a leader-not-ready
 * reply for longer than the minimum TTL (docs/ratis.md §10); restarted through fresh clients, it commits at once.
 */
public final class ClientLeaderTracker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClientLeaderTracker.class);

  private final CellDivision cell;
  private final RaftClientPool clients;
  private final Runnable onChange;
  private ScheduledFuture<?> polls;
  /** Whether this node was the ready leader at the last poll (polls never overlap). */
  private boolean readyLeader;

  private ClientLeaderTracker(CellDivision cell, RaftClientPool clients, Runnable onChange) {
    this.cell = cell;
    this.clients = clients;
    this.onChange = onChange;
  }

  /**
   * Starts polling on the node's scheduler (docs/architecture.md §10). Polls never overlap (a fixed-delay
   * task), so {@link RaftClientPool#followLeader} is called by one poll at a time.
   *
   * @param periodMs how often to read the local leader id, ms, at least 1
   * @param onChange run by the poll after the clients were pointed at a new leader; must not block
   * @param timers the node's scheduler
   */
  public static ClientLeaderTracker start(CellDivision cell, RaftClientPool clients, long periodMs, Runnable onChange,
                                          ScheduledExecutorService timers) {
    ClientLeaderTracker f = new ClientLeaderTracker(cell, clients, onChange);
    f.polls = timers.scheduleWithFixedDelay(f::check, periodMs, periodMs, TimeUnit.MILLISECONDS);
    return f;
  }

  /** One poll (tests call it directly). */
  void check() {
    try {
      Division division = cell.division();
      RaftPeerId leader = division.getInfo().getLeaderId();
      // A joining node hears from the leader before it has applied a configuration that names it; a Ratis
      // client told to start at a peer missing from its group fails every call ("Server n1 not found"). Follow
      // it at a later poll, once the configuration is in.
      boolean followed = leader != null && division.getGroup().getPeer(leader) != null && clients.followLeader(leader);
      boolean ready = division.getInfo().isLeaderReady();
      boolean becameReady = ready && !readyLeader;
      readyLeader = ready;
      if (becameReady && !followed) {
        clients.renewAll();
      }
      if (followed || becameReady) {
        onChange.run();
      }
    } catch (Exception e) {
      // Not started yet, or closing; a scheduled task that throws is never run again, so keep it alive.
      LOG.debug("cannot read the local leader id", e);
    }
  }

  @Override
  public void close() {
    polls.cancel(false);
  }
}
