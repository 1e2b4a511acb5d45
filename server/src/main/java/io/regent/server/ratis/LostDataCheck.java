package io.regent.server.ratis;

import java.io.IOException;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a brand-new voter of a cluster's first configuration from an old member whose data directory was
 * wiped, before the node starts Raft with no log (docs/operations.md, "Replace a dead node").
 *
 * <p>The rule: a node that starts with {@code --peers} and no Raft state asks each other peer, through Ratis's
 * group info, what commit index it last heard from this node. A peer that has heard one (at or above 0) saw
 * this node take part in the cluster, so its log and its vote are gone: the node refuses to start. Left to
 * run, it would answer the leader's appends with "INCONSISTENCY, nextIndex 0" for ever (the leader does not
 * go below the match index it recorded for it) and could vote twice in a term. A node that never ran has no
 * such commit index (Ratis starts a follower's at -1), so a first start of the cluster, or of one of its
 * first voters that starts late, goes on; so does a node whose peers are unreachable or know no group yet
 * (the whole cluster starting). Peers remember a follower's commit index while they run: a wiped node whose
 * peers have all restarted since it last ran is not caught (as with etcd's check of its peers, the check is
 * a guard against a common mistake, not a proof). A node started with {@code --join} checks the cluster's
 * member list instead ({@code Joiner}).
 */
public final class LostDataCheck {
  private static final Logger LOG = LoggerFactory.getLogger(LostDataCheck.class);
  /** How long one peer may take to answer, ms (a peer that is down answers at once: connection refused). */
  static final long PEER_TIMEOUT_MS = 2_000;

  private LostDataCheck() {
  }

  /**
   * Throws if a peer in {@code group} remembers {@code self} as a member that took part.
   *
   * @param self this node's id
   * @param group the bootstrap group ({@code --peers})
   * @param props this node's Raft properties (TLS and transport settings)
   * @param params this node's Raft parameters (TLS)
   * @param dataDir this node's data directory, for the message
   * @throws IOException one line naming the peer, the index and the replace procedure
   */
  public static void refuseIfRemembered(RaftPeerId self, RaftGroup group, RaftProperties props, Parameters params,
                                        String dataDir) throws IOException {
    RaftProperties p = new RaftProperties(props);
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(PEER_TIMEOUT_MS, TimeUnit.MILLISECONDS));
    try (RaftClient client = RaftClient.newBuilder().setProperties(p).setParameters(params).setRaftGroup(group)
        .setRetryPolicy(RetryPolicies.noRetry()).build()) {
      for (RaftPeer peer : group.getPeers()) {
        if (peer.getId().equals(self)) {
          continue;
        }
        OptionalLong heard = heardFrom(client, peer.getId(), group, self);
        if (heard.isPresent()) {
          throw new IOException(self + ": data directory " + dataDir + " holds no Raft state, but peer "
              + peer.getId() + " heard this node commit up to index " + heard.getAsLong() + ": its data is lost. "
              + "Replace it, do not restart it: regent member remove " + self + ", then start it on an empty data "
              + "directory with --raft and --join (docs/operations.md, \"Replace a dead node\")");
        }
      }
    }
  }

  /** The commit index {@code peer} last heard from {@code self}, if it heard one; empty when it cannot say. */
  private static OptionalLong heardFrom(RaftClient client, RaftPeerId peer, RaftGroup group, RaftPeerId self) {
    GroupInfoReply info;
    try {
      info = client.getGroupManagementApi(peer).info(group.getGroupId());
    } catch (IOException | RuntimeException e) {
      LOG.debug("{} cannot tell whether {} took part before: {}", peer, self, e.toString());
      return OptionalLong.empty(); // down, or no group yet: the cluster is starting too
    }
    for (CommitInfoProto c : info.getCommitInfos()) {
      if (RaftPeerId.valueOf(c.getServer().getId()).equals(self) && c.getCommitIndex() >= 0) {
        return OptionalLong.of(c.getCommitIndex());
      }
    }
    return OptionalLong.empty();
  }
}
