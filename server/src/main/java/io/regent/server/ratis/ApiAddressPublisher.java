package io.regent.server.ratis;

import io.regent.server.confirm.Proposer;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.MemberApi;
import io.regent.statemachine.replica.ReplicaView;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes this node's API address into the replicated state once it is a member, as etcd members publish
 * their client URLs through Raft after they start: every node can then tell clients where each member's API
 * is ({@code member list}, {@code status}). Checks every {@link #PERIOD_MS} ms until the replicated address
 * equals this node's, then stops; a restart on another port publishes again.
 */
public final class ApiAddressPublisher implements AutoCloseable {
  /** Interval between checks, ms. */
  static final long PERIOD_MS = 1_000;
  private static final Logger LOG = LoggerFactory.getLogger(ApiAddressPublisher.class);

  private final RaftServer server;
  private final ReplicaView replica;
  private final Proposer proposer;
  private final String apiAddress;
  private final AtomicBoolean inFlight = new AtomicBoolean();
  private volatile ScheduledFuture<?> checks;

  private ApiAddressPublisher(RaftServer server, ReplicaView replica, Proposer proposer, String apiAddress) {
    this.server = server;
    this.replica = replica;
    this.proposer = proposer;
    this.apiAddress = apiAddress;
  }

  /**
   * Starts publishing.
   *
   * @param apiAddress {@code host:port} clients should use for this node's API
   * @param timers the node's scheduler, which runs the checks
   */
  public static ApiAddressPublisher start(RaftServer server, ReplicaView replica, Proposer proposer,
                                          String apiAddress, ScheduledExecutorService timers) {
    ApiAddressPublisher p = new ApiAddressPublisher(server, replica, proposer, apiAddress);
    p.checks = timers.scheduleWithFixedDelay(p::check, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
    return p;
  }

  /**
   * The address to publish for an API bound to {@code bindHost:port}: a wildcard bind address names no
   * host, so the host of this node's Raft address stands in for it.
   */
  public static String advertised(String bindHost, int port, String raftAddress) {
    boolean wildcard = bindHost.equals("0.0.0.0") || bindHost.equals("::") || bindHost.equals("[::]");
    String host = wildcard ? raftAddress.substring(0, raftAddress.lastIndexOf(':')) : bindHost;
    return host + ":" + port;
  }

  private void check() {
    if (inFlight.get()) {
      return;
    }
    try {
      RaftPeerId self = server.getId();
      var conf = server.getDivision(RaftSetup.GROUP_ID).getRaftConf();
      if (conf.getPeer(self, RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER) == null) {
        return; // not a member yet (a joining node): nothing to publish
      }
    } catch (IOException e) {
      return; // the division is not up yet
    }
    String id = server.getId().toString();
    if (apiAddress.equals(replica.read(txn -> txn.memberApis()).get(id))) {
      ScheduledFuture<?> c = checks;
      if (c != null) { // null only during the first check: the next one cancels
        c.cancel(false);
      }
      return;
    }
    inFlight.set(true);
    proposer.propose(LogEntry.newBuilder().setMemberApi(MemberApi.newBuilder().setMemberId(id)
        .setApiAddress(apiAddress))).whenComplete((r, err) -> {
          inFlight.set(false);
          if (err == null) {
            LOG.info("published API address {} of member {}", apiAddress, id);
          } else {
            LOG.debug("publishing API address {} failed, will retry: {}", apiAddress, err.toString());
          }
        });
  }

  @Override
  public void close() {
    checks.cancel(false);
  }
}
