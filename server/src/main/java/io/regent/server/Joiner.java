package io.regent.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.Member;
import io.regent.client.RegentClient;
import io.regent.server.raft.RaftSetup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a node started with {@link RegentServer#startMember} into a running cluster ({@code regent server
 * --join}): asks the cluster, through its API, to add the node as a learner, waits until the node has applied
 * everything the cluster had committed once it was added (by snapshot install when the leader purged the log
 * behind it), then asks for its promotion to voter. Learner first, so that a new node never counts towards a
 * quorum before it holds the log (Raft thesis §4.2.1, etcd's learners).
 *
 * <p>Safe to repeat: a node that already is a learner is only promoted, one that already votes is left alone.
 */
public final class Joiner {
  private static final Logger LOG = LoggerFactory.getLogger(Joiner.class);
  /** Interval between checks of the node's applied index while it catches up, ms. */
  static final long POLL_MS = 200;

  private Joiner() {
  }

  /**
   * Joins {@code node} to the cluster behind {@code cluster}.
   *
   * @param apiAddress {@code host:port} other nodes and clients should use for the node's API
   * @param catchUpTimeoutMs how long the node may take to catch up before promotion, ms
   * @throws StatusRuntimeException when the cluster refuses (e.g. ALREADY_EXISTS: the id or Raft address is
   *     another member's)
   * @throws TimeoutException when the node has not caught up in time (it stays a learner)
   */
  public static void join(RegentServer node, RegentClient cluster, String apiAddress, long catchUpTimeoutMs)
      throws TimeoutException, InterruptedException {
    String id = node.config().nodeId();
    String raftAddress = node.config().peers().get(id);
    Member self = find(cluster, id);
    if (self == null) {
      LOG.info("asking the cluster to add {} (Raft {}, API {}) as a learner", id, raftAddress, apiAddress);
      cluster.memberAdd(id, raftAddress, apiAddress);
    } else if (!self.getAddress().equals(raftAddress)) {
      throw Status.ALREADY_EXISTS.withDescription("member " + id + " exists with Raft address "
          + self.getAddress() + ", not " + raftAddress + "; remove it first").asRuntimeException();
    } else if (self.getRole() == Member.Role.VOTER) {
      LOG.info("{} already is a voter", id);
      return;
    }
    long target = cluster.status().getCommitIndex();
    awaitApplied(node, target, catchUpTimeoutMs);
    LOG.info("{} applied index {} (the cluster's commit index once it was added): asking for promotion", id,
        target);
    try {
      cluster.memberPromote(id);
    } catch (StatusRuntimeException e) {
      Member now = find(cluster, id);
      if (now == null || now.getRole() != Member.Role.VOTER) {
        throw e;
      } // an earlier attempt that timed out on the way back did promote it
    }
    LOG.info("{} is a voter", id);
  }

  private static Member find(RegentClient cluster, String id) {
    return cluster.memberList().getMembersList().stream().filter(m -> m.getId().equals(id)).findFirst()
        .orElse(null);
  }

  private static void awaitApplied(RegentServer node, long index, long timeoutMs)
      throws TimeoutException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (applied(node) < index) {
      if (System.nanoTime() - deadline > 0) {
        throw new TimeoutException(node.config().nodeId() + " applied only " + applied(node) + " of " + index
            + " entries in " + timeoutMs + " ms; it stays a learner (promote it later with regent member promote)");
      }
      TimeUnit.MILLISECONDS.sleep(POLL_MS); // polling a local counter: nothing to wait on
    }
  }

  private static long applied(RegentServer node) {
    try {
      return node.raft().getDivision(RaftSetup.GROUP_ID).getInfo().getLastAppliedIndex();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
