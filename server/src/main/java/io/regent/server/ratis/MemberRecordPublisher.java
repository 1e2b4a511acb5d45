package io.regent.server.ratis;

import io.regent.server.replication.Proposer;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.replica.ReplicaView;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes one fact about this node into the replicated state once it is a member (its API address, its Raft
 * timing), as etcd members publish their attributes through Raft: checks every {@link #PERIOD_MS} ms until the
 * replicated state holds it, then stops; a restart with another value publishes again.
 */
final class MemberRecordPublisher implements AutoCloseable {
  /** Interval between checks, ms. */
  static final long PERIOD_MS = 1_000;
  private static final Logger LOG = LoggerFactory.getLogger(MemberRecordPublisher.class);

  private final CellDivision cell;
  private final ReplicaView replica;
  private final Proposer proposer;
  private final Predicate<ReplicaView> published;
  private final LogEntry.Builder entry;
  private final String what;
  private final AtomicBoolean inFlight = new AtomicBoolean();
  private volatile ScheduledFuture<?> checks;

  private MemberRecordPublisher(CellDivision cell, ReplicaView replica, Proposer proposer,
                                Predicate<ReplicaView> published, LogEntry.Builder entry, String what) {
    this.cell = cell;
    this.replica = replica;
    this.proposer = proposer;
    this.published = published;
    this.entry = entry;
    this.what = what;
  }

  /**
   * Starts publishing.
   *
   * @param published whether the replicated state already holds the fact
   * @param entry the entry that publishes it
   * @param what the fact, for the log ("API address 10.0.0.1:7101 of member n1")
   * @param timers the node's scheduler, which runs the checks
   */
  static MemberRecordPublisher start(CellDivision cell, ReplicaView replica, Proposer proposer,
                                     Predicate<ReplicaView> published, LogEntry.Builder entry, String what,
                                     ScheduledExecutorService timers) {
    MemberRecordPublisher p = new MemberRecordPublisher(cell, replica, proposer, published, entry, what);
    p.checks = timers.scheduleWithFixedDelay(p::check, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
    return p;
  }

  private void check() {
    if (inFlight.get()) {
      return;
    }
    try {
      var conf = cell.division().getRaftConf();
      if (conf.getPeer(cell.serverId(), RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER) == null) {
        return; // not a member yet (a joining node): nothing to publish
      }
    } catch (IOException e) {
      return; // the division is not up yet
    }
    if (published.test(replica)) {
      ScheduledFuture<?> c = checks;
      if (c != null) { // null only during the first check: the next one cancels
        c.cancel(false);
      }
      return;
    }
    inFlight.set(true);
    proposer.propose(entry.clone()).whenComplete((r, err) -> {
      inFlight.set(false);
      if (err == null) {
        LOG.info("published {}", what);
      } else {
        LOG.debug("publishing {} failed, will retry: {}", what, err.toString());
      }
    });
  }

  @Override
  public void close() {
    checks.cancel(false);
  }
}
