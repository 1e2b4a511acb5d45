package io.regent.statemachine.replica;

import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.replica.ReplicaView;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands leadership to the {@link LeaseTimekeeper} as epochs (docs/architecture.md §3.4): a
 * readiness names the term of the leader's own startup entry, never the term read later (a step-down may
 * have raised it meanwhile), and a step-down names the term this node leaves, so the timekeeper can ignore
 * a readiness that arrives after the node left its term (Ratis delivers readiness on the apply thread and
 * step-downs on an RPC thread, and the scan between them takes seconds with 10^6 leases).
 */
public final class LeaderReadiness {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderReadiness.class);

  private final LeaseTimekeeper timekeeper;
  private final ReplicaView replica;

  /**
   * @param timekeeper receives the epochs
   * @param replica the state scanned on readiness (every lease, every name in lock-delay)
   */
  public LeaderReadiness(LeaseTimekeeper timekeeper, ReplicaView replica) {
    this.timekeeper = timekeeper;
    this.replica = replica;
  }

  /**
   * This node's startup entry of {@code startupTerm} is applied (so is every entry of earlier terms): scans
   * the state and declares the node ready in that term, unless it has left that term meanwhile.
   */
  public void ready(long startupTerm) {
    Scan scan = replica.read(txn -> new Scan(txn.allLeases(),
        txn.allNames().stream().filter(n -> n.getLockDelayMs() > 0).toList()));
    LOG.info("leader ready in term {}: re-arming {} leases and {} lock-delays", startupTerm, scan.leases.size(),
        scan.delayed.size());
    timekeeper.onLeaderReady(startupTerm, scan.leases, scan.delayed);
  }

  /** This node is no longer leader; {@code currentTerm} is its term now, at least the term it led. */
  public void notLeader(long currentTerm) {
    timekeeper.onNotLeader(currentTerm);
  }

  private record Scan(List<LeaseRecord> leases, List<NameRecord> delayed) {
  }
}
