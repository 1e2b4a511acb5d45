package io.regent.server.ratis;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;

/**
 * Ratis's gRPC transport with Regent's log appender ({@link CommitPushAppender}): the same servers, clients and
 * wire protocol as {@code SupportedRpcType.GRPC}, so nodes with and without it interoperate. Ratis instantiates it
 * by class name from {@code raft.rpc.type} ({@code RpcType.valueOf}), hence the public no-argument constructor.
 */
public final class RegentRpcType implements RpcType {
  /** What Ratis needs to find it again: its class name. */
  @Override
  public String name() {
    return RegentRpcType.class.getName();
  }

  @Override
  public RpcFactory newFactory(Parameters parameters) {
    return new GrpcFactory(parameters) {
      @Override
      public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
        return new CommitPushAppender(server, state, follower);
      }
    };
  }
}
