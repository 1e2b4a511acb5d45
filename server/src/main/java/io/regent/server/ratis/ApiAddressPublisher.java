package io.regent.server.ratis;

import io.regent.server.replication.Proposer;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.MemberApi;
import io.regent.statemachine.replica.ReplicaView;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.ratis.server.RaftServer;

/**
 * Publishes this node's API address into the replicated state once it is a member, as etcd members publish
 * their client URLs through Raft after they start: every node can then tell clients where each member's API
 * is ({@code member list}, {@code status}). Checks until the replicated address equals this node's, then stops;
 * a restart on another port publishes again ({@link MemberRecordPublisher}).
 */
public final class ApiAddressPublisher implements AutoCloseable {
  private final MemberRecordPublisher publisher;

  private ApiAddressPublisher(MemberRecordPublisher publisher) {
    this.publisher = publisher;
  }

  /**
   * Starts publishing.
   *
   * @param apiAddress {@code host:port} clients should use for this node's API
   * @param timers the node's scheduler, which runs the checks
   */
  public static ApiAddressPublisher start(CellDivision cell, ReplicaView replica, Proposer proposer,
                                          String apiAddress, ScheduledExecutorService timers) {
    String id = cell.serverId().toString();
    return new ApiAddressPublisher(MemberRecordPublisher.start(cell, replica, proposer,
        r -> apiAddress.equals(r.read(txn -> txn.memberApis()).get(id)),
        LogEntry.newBuilder().setMemberApi(MemberApi.newBuilder().setMemberId(id).setApiAddress(apiAddress)),
        "API address " + apiAddress + " of member " + id, timers));
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

  @Override
  public void close() {
    publisher.close();
  }
}
