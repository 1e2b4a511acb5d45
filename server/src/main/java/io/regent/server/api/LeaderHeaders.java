package io.regent.server.api;

import io.regent.server.membership.ClusterView;
import io.regent.server.membership.RaftLeader;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.regent.client.LeaderMetadata;
import io.regent.statemachine.replica.ReplicaView;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Names the Raft leader in every reply of the public API, as etcd's {@code ResponseHeader} names the member and
 * the term: the {@link LeaderMetadata} keys — this node's id, its term, its applied index, the leader's id and the
 * leader's published API address — go into the response headers, or into the trailers of a reply that sends no headers
 * (an error: a follower's refusal, a limit, a permission check) and into the trailers of a stream that fails
 * after its headers, so that a client learns the leader from any answer (docs/api.md, "Leader metadata"). The values are those at the moment the reply is sent.
 *
 * <p>Cheap on the hot path: the leader and term come from the local Raft division's memory
 * ({@link ClusterView#raftLeader}); the leader's API address, which lives in the replicated member table
 * (LMDB), is read once per leader and term and then at most once per {@link #REFRESH_NANOS} (an address
 * published again in the same term, by a leader restarted on another port, or not published yet), by one call
 * while the others use the cached value. A view with no Raft (the single writer) adds nothing.
 */
final class LeaderHeaders implements ServerInterceptor {
  /** How long a cached leader API address is used before it is read again from the member table, ns. */
  static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** The leader's API address ({@code null}: unknown) as read at {@code readAt} for one leader and term. */
  private record Cached(long term, String leader, String termText, String api, long readAt) {
  }

  private final ClusterView view;
  private final ReplicaView replica;
  private final LongSupplier nanos;
  private final AtomicBoolean refreshing = new AtomicBoolean();
  private volatile Cached cached;

  /**
   * @param view where the leader and term come from
   * @param replica this node's state, whose member table holds the published API addresses
   * @param nanos the clock of the cache, ns ({@link System#nanoTime})
   */
  LeaderHeaders(ClusterView view, ReplicaView replica, LongSupplier nanos) {
    this.view = view;
    this.replica = replica;
    this.nanos = nanos;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                     ServerCallHandler<Q, R> next) {
    return next.startCall(new SimpleForwardingServerCall<>(call) {
      private boolean headersSent; // gRPC forbids concurrent calls on a ServerCall: no race

      @Override
      public void sendHeaders(Metadata h) {
        headersSent = true;
        write(h);
        super.sendHeaders(h);
      }

      @Override
      public void close(Status status, Metadata trailers) {
        // A stream that fails after its headers (a keepalive stream whose leader changed) names the leader of now.
        if (!headersSent || !status.isOk()) {
          write(trailers);
        }
        super.close(status, trailers);
      }
    }, headers);
  }

  /** What {@link #write} would name now; null when this node has no Raft view. */
  NamedLeader named() {
    RaftLeader now = view.raftLeader();
    return now == null ? null : new NamedLeader(now.leader(), now.term(), now.leader() == null ? null
        : cached(now).api());
  }

  /** Puts this node's view of the leader into {@code md}; nothing when it has none. */
  void write(Metadata md) {
    RaftLeader now = view.raftLeader();
    if (now == null) {
      return;
    }
    Cached c = cached(now);
    md.put(LeaderMetadata.NODE, now.node());
    md.put(LeaderMetadata.TERM, c.termText());
    md.put(LeaderMetadata.APPLIED_INDEX, Long.toString(replica.appliedIndex()));
    if (now.leader() != null) {
      md.put(LeaderMetadata.LEADER_ID, now.leader());
      if (c.api() != null) {
        md.put(LeaderMetadata.LEADER, c.api());
      }
    }
  }

  /** The cache entry for {@code now}'s leader and term, read again when it is of another or too old. */
  private Cached cached(RaftLeader now) {
    Cached c = cached;
    long t = nanos.getAsLong();
    boolean same = c != null && c.term() == now.term() && Objects.equals(c.leader(), now.leader());
    if (same && (t - c.readAt() < REFRESH_NANOS || !refreshing.compareAndSet(false, true))) {
      return c; // the common case; or another call is refreshing it
    }
    try {
      Cached fresh = new Cached(now.term(), now.leader(), Long.toString(now.term()), apiOf(now.leader()), t);
      cached = fresh;
      return fresh;
    } finally {
      if (same) {
        refreshing.set(false);
      }
    }
  }

  /** The API address that member {@code id} published, or null (none, no leader, or the state unreadable). */
  private String apiOf(String id) {
    if (id == null) {
      return null;
    }
    try {
      String api = replica.read(txn -> txn.memberApis().get(id));
      return api == null || api.isEmpty() ? null : api;
    } catch (RuntimeException e) {
      return null; // the store closing, or being replaced by a snapshot install: the next refresh reads it
    }
  }
}
