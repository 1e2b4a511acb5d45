package io.regent.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.Member;
import io.regent.client.Cluster;
import io.regent.client.RegentClient;
import io.regent.server.ratis.RaftSetup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
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
  /** Pause before retrying a step the cluster could not take (no leader, a racing change), ms. */
  static final long RETRY_MS = 1_000;

  private Joiner() {
  }

  /**
   * Joins {@code node} to the cluster behind {@code client}.
   *
   * @param apiAddress {@code host:port} other nodes and clients should use for the node's API
   * @param catchUpTimeoutMs how long joining may take in all (catch-up, and retries while the cluster has no
   *     leader or another change races this one), ms
   * @throws IllegalStateException when the id is already a member and this node started with no Raft state
   *     (its data is lost: it must be replaced, docs/operations.md)
   * @throws StatusRuntimeException when the cluster refuses (e.g. ALREADY_EXISTS: the id or Raft address is
   *     another member's), or is still unavailable at the deadline
   * @throws TimeoutException when the node has not caught up in time (it stays a learner)
   */
  public static void join(RegentServer node, RegentClient client, String apiAddress, long catchUpTimeoutMs)
      throws TimeoutException, InterruptedException {
    Cluster cluster = client.cluster();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(catchUpTimeoutMs);
    AtomicBoolean askedToAdd = new AtomicBoolean();
    while (true) {
      try {
        if (step(node, cluster, apiAddress, deadline, askedToAdd)) {
          return;
        }
      } catch (StatusRuntimeException e) {
        // No leader for a moment (an election), or another change raced this one: look again and retry.
        Status.Code code = e.getStatus().getCode();
        if (code != Status.Code.UNAVAILABLE && code != Status.Code.ABORTED || System.nanoTime() - deadline > 0) {
          throw e;
        }
        LOG.warn("joining: {}; retrying", e.getStatus());
        TimeUnit.MILLISECONDS.sleep(RETRY_MS); // a backoff, not a synchronisation
      }
    }
  }

  /**
   * One step towards membership, from what the cluster says now; true once the node is a voter.
   *
   * @param askedToAdd set once this join has asked for the addition (a member found later may be its doing)
   */
  private static boolean step(RegentServer node, Cluster cluster, String apiAddress, long deadline,
                              AtomicBoolean askedToAdd) throws TimeoutException, InterruptedException {
    String id = node.config().nodeId();
    String raftAddress = node.config().peers().get(id);
    Member self = find(cluster, id);
    if (self == null) {
      LOG.info("asking the cluster to add {} (Raft {}, API {}) as a learner", id, raftAddress, apiAddress);
      askedToAdd.set(true);
      cluster.memberAdd(id, raftAddress, apiAddress);
      return false;
    }
    if (!askedToAdd.get() && node.startedWithoutRaftState()) {
      // A member under this id took part before and this node has none of its log: its data is lost, and it
      // would sit at applied index -1 while the leader sends from the member's old match index.
      throw new IllegalStateException(id + " is already a member (" + self.getRole() + ") and this node has no "
          + "Raft state: a node whose data is lost must be replaced, not rejoined: regent member remove " + id
          + " first (docs/operations.md, \"Replace a dead node\")");
    }
    if (!self.getAddress().equals(raftAddress)) {
      throw Status.ALREADY_EXISTS.withDescription("member " + id + " exists with Raft address "
          + self.getAddress() + ", not " + raftAddress + "; remove it first").asRuntimeException();
    }
    if (self.getRole() == Member.Role.VOTER) {
      LOG.info("{} is a voter", id);
      return true;
    }
    long target = cluster.status().getCommitIndex();
    awaitApplied(node, target, deadline);
    LOG.info("{} applied index {} (the cluster's commit index as a learner): asking for promotion", id, target);
    cluster.memberPromote(id);
    return false;
  }

  private static Member find(Cluster cluster, String id) {
    return cluster.memberList().getMembersList().stream().filter(m -> m.getId().equals(id)).findFirst()
        .orElse(null);
  }

  private static void awaitApplied(RegentServer node, long index, long deadline)
      throws TimeoutException, InterruptedException {
    while (applied(node) < index) {
      if (System.nanoTime() - deadline > 0) {
        throw new TimeoutException(node.config().nodeId() + " applied only " + applied(node) + " of " + index
            + " entries in time; it stays a learner (promote it later with regent member promote)");
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
