package io.regent.client;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.CampaignRequest;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.FreshTokenRequest;
import io.regent.api.v1.FreshTokenResponse;
import io.regent.api.v1.LeaseGrantRequest;
import io.regent.api.v1.LeaseGrantResponse;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import io.regent.api.v1.LeaseTimeToLiveRequest;
import io.regent.api.v1.LeaseTimeToLiveResponse;
import io.regent.api.v1.Member;
import io.regent.api.v1.MemberListRequest;
import io.regent.api.v1.MemberListResponse;
import io.regent.api.v1.StatusRequest;
import io.regent.api.v1.StatusResponse;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fake Regent node on loopback for the client's routing and re-send tests: counts calls, records the request
 * ids of its mutating calls, answers with the {@link LeaderMetadata} hint it is set to, and can hang its mutating
 * calls (a paused node: DEADLINE_EXCEEDED) or fail them with UNAVAILABLE after taking them (an answer lost after
 * the apply).
 */
final class FakeNode {
  /** The status description of {@link Mutations#UNAVAILABLE_AFTER_APPLY}: sent without the node's trailers. */
  static final String RESET = "connection reset after the apply";

  /** What a node does with a mutating call (Grant, Campaign, FreshToken) after recording it. */
  enum Mutations { ANSWER, HANG, UNAVAILABLE_AFTER_APPLY }

  final String id;
  final Server server;
  final AtomicInteger grants = new AtomicInteger();
  final AtomicInteger reads = new AtomicInteger();
  final AtomicInteger keepAlives = new AtomicInteger();
  final AtomicInteger statuses = new AtomicInteger();
  final AtomicInteger memberLists = new AtomicInteger();
  /** The request id of every mutating call that reached this node, in order. */
  final Queue<String> requestIds = new ConcurrentLinkedQueue<>();
  /**
   * Each call's method (bare name) and the {@link LeaderMetadata#SEEN_INDEX} it carried ("-" when none), in
   * arrival order.
   */
  final Queue<String> seenIndexes = new ConcurrentLinkedQueue<>();
  /** The applied index this node's replies name; 0: none. */
  volatile long appliedIndex;
  volatile LeaderRouting.Hint hint;
  volatile Mutations mutations = Mutations.ANSWER;
  volatile List<Member> members = List.of();
  /** How many of the next keepalives on a stream this node refuses in the stream's message, UNAVAILABLE. */
  final AtomicInteger streamRefusals = new AtomicInteger();

  FakeNode(String id) throws Exception {
    this.id = id;
    ServerInterceptor headers = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata h,
                                                         ServerCallHandler<Q, R> next) {
        String seen = h.get(LeaderMetadata.SEEN_INDEX);
        seenIndexes.add(call.getMethodDescriptor().getBareMethodName() + "=" + (seen == null ? "-" : seen));
        return next.startCall(new SimpleForwardingServerCall<>(call) {
          boolean sent;

          @Override
          public void sendHeaders(Metadata md) {
            sent = true;
            write(md);
            super.sendHeaders(md);
          }

          @Override
          public void close(Status status, Metadata trailers) {
            if (!sent && !RESET.equals(status.getDescription())) { // a connection reset carries no trailers
              write(trailers);
            }
            super.close(status, trailers);
          }
        }, h);
      }
    };
    LeaseGrpc.LeaseImplBase lease = new LeaseGrpc.LeaseImplBase() {
      @Override
      public void grant(LeaseGrantRequest req, StreamObserver<LeaseGrantResponse> obs) {
        grants.incrementAndGet();
        mutate(req.getRequestId(), obs, LeaseGrantResponse.newBuilder().setId(grants.get()).build());
      }

      @Override
      public void timeToLive(LeaseTimeToLiveRequest req, StreamObserver<LeaseTimeToLiveResponse> obs) {
        reads.incrementAndGet();
        obs.onNext(LeaseTimeToLiveResponse.newBuilder().setId(req.getId()).build());
        obs.onCompleted();
      }

      @Override
      public void keepAlive(LeaseKeepAliveRequest req, StreamObserver<LeaseKeepAliveResponse> obs) {
        keepAlives.incrementAndGet();
        obs.onNext(LeaseKeepAliveResponse.newBuilder().setTtlMs(1_000).build());
        obs.onCompleted();
      }

      @Override
      public StreamObserver<LeaseKeepAliveRequest> keepAliveStream(StreamObserver<LeaseKeepAliveResponse> obs) {
        return new StreamObserver<>() {
          @Override
          public void onNext(LeaseKeepAliveRequest req) {
            keepAlives.incrementAndGet();
            LeaseKeepAliveResponse.Builder b = LeaseKeepAliveResponse.newBuilder().setId(req.getId())
                .setTag(req.getTag());
            if (streamRefusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
              b.setCode(Status.Code.UNAVAILABLE.value()).setMessage("not confirmed by a ready leader");
            } else {
              b.setTtlMs(1_000);
            }
            synchronized (this) {
              obs.onNext(b.build());
            }
          }

          @Override
          public void onError(Throwable t) {
          }

          @Override
          public synchronized void onCompleted() {
            obs.onCompleted();
          }
        };
      }
    };
    ElectionGrpc.ElectionImplBase election = new ElectionGrpc.ElectionImplBase() {
      @Override
      public void campaign(CampaignRequest req, StreamObserver<CampaignResponse> obs) {
        mutate(req.getRequestId(), obs, CampaignResponse.newBuilder().setElected(true).setLease(7).build());
      }

      @Override
      public void freshToken(FreshTokenRequest req, StreamObserver<FreshTokenResponse> obs) {
        mutate(req.getRequestId(), obs, FreshTokenResponse.newBuilder().setLeader(req.getLeader()).build());
      }
    };
    ClusterGrpc.ClusterImplBase cluster = new ClusterGrpc.ClusterImplBase() {
      @Override
      public void status(StatusRequest req, StreamObserver<StatusResponse> obs) {
        statuses.incrementAndGet();
        obs.onNext(StatusResponse.newBuilder().setNode(FakeNode.this.id).build());
        obs.onCompleted();
      }

      @Override
      public void memberList(MemberListRequest req, StreamObserver<MemberListResponse> obs) {
        memberLists.incrementAndGet();
        obs.onNext(MemberListResponse.newBuilder().addAllMembers(members).build());
        obs.onCompleted();
      }
    };
    this.server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerInterceptors.intercept(lease, headers))
        .addService(ServerInterceptors.intercept(election, headers))
        .addService(ServerInterceptors.intercept(cluster, headers)).build().start();
  }

  /** Records the call's request id, then answers it, hangs it or fails it as {@link #mutations} says. */
  private <T> void mutate(String requestId, StreamObserver<T> obs, T answer) {
    requestIds.add(requestId);
    switch (mutations) {
      case ANSWER -> {
        obs.onNext(answer);
        obs.onCompleted();
      }
      case UNAVAILABLE_AFTER_APPLY -> obs.onError(Status.UNAVAILABLE.withDescription(RESET)
          .asRuntimeException());
      case HANG -> { } // never answered: the client's deadline ends it
    }
  }

  String endpoint() {
    return "127.0.0.1:" + server.getPort();
  }

  void write(Metadata md) {
    LeaderRouting.Hint h = hint;
    if (h == null) {
      return;
    }
    md.put(LeaderMetadata.NODE, id);
    md.put(LeaderMetadata.TERM, Long.toString(h.term()));
    if (appliedIndex > 0) {
      md.put(LeaderMetadata.APPLIED_INDEX, Long.toString(appliedIndex));
    }
    if (h.leaderId() != null) {
      md.put(LeaderMetadata.LEADER_ID, h.leaderId());
    }
    if (h.leaderApi() != null) {
      md.put(LeaderMetadata.LEADER, h.leaderApi());
    }
  }
}
