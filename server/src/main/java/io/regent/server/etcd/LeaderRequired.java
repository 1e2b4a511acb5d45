package io.regent.server.etcd;

import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.regent.server.membership.RaftLeader;
import java.util.function.Supplier;

/**
 * etcd's {@code hasleader} request metadata (Go's {@code clientv3.WithRequireLeader}, etcdctl's watch): a call
 * carrying {@code hasleader: true} while this node knows no Raft leader is refused before it starts with
 * UNAVAILABLE "etcdserver: no leader", etcd's own text, so a client moves to another endpoint instead of waiting on
 * a node cut off from its cluster. A stream that carries it and started is handed to {@link LeaderLoss}, which
 * ends it the same way should the node lose its leader while it is open. Without the metadata a call proceeds as
 * before (docs/migrating.md "etcd's clients").
 */
final class LeaderRequired implements ServerInterceptor {
  /** etcd's description ({@code rpctypes.ErrGRPCNoLeader}). */
  static final String NO_LEADER = "etcdserver: no leader";
  private static final Metadata.Key<String> HAS_LEADER = Metadata.Key.of("hasleader",
      Metadata.ASCII_STRING_MARSHALLER);

  private final Supplier<RaftLeader> leader;
  private final LeaderLoss streams;

  /**
   * @param leader the Raft leader as this node knows it now; null or a null {@code leader()} when it knows none
   * @param streams where the streams that require a leader are watched while open
   */
  LeaderRequired(Supplier<RaftLeader> leader, LeaderLoss streams) {
    this.leader = leader;
    this.streams = streams;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata md,
                                                    ServerCallHandler<Q, R> next) {
    if ("true".equals(md.get(HAS_LEADER))) {
      RaftLeader l = leader.get();
      if (l == null || l.leader() == null) {
        call.close(Status.UNAVAILABLE.withDescription(NO_LEADER), new Metadata());
        return new ServerCall.Listener<>() { };
      }
      if (call.getMethodDescriptor().getType() != MethodDescriptor.MethodType.UNARY) {
        return bound(call, md, next);
      }
    }
    return next.startCall(call, md);
  }

  private <Q, R> ServerCall.Listener<Q> bound(ServerCall<Q, R> call, Metadata md, ServerCallHandler<Q, R> next) {
    LeaderBoundCall<Q, R> bound = new LeaderBoundCall<>(call, streams);
    streams.add(bound);
    return bound.listen(next.startCall(bound, md));
  }
}
