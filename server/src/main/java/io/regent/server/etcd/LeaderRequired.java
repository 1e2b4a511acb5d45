package io.regent.server.etcd;

import io.grpc.Metadata;
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
 * a node cut off from its cluster. Without the metadata a call proceeds as before (docs/migrating.md "etcd's
 * clients").
 */
final class LeaderRequired implements ServerInterceptor {
  /** etcd's description ({@code rpctypes.ErrGRPCNoLeader}). */
  static final String NO_LEADER = "etcdserver: no leader";
  private static final Metadata.Key<String> HAS_LEADER = Metadata.Key.of("hasleader",
      Metadata.ASCII_STRING_MARSHALLER);

  private final Supplier<RaftLeader> leader;

  /** @param leader the Raft leader as this node knows it now; null or a null {@code leader()} when it knows none */
  LeaderRequired(Supplier<RaftLeader> leader) {
    this.leader = leader;
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
    }
    return next.startCall(call, md);
  }
}
