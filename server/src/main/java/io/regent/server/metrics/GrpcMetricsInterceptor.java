package io.regent.server.metrics;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Times every call of the public gRPC API, tagged with its full method name and final status code
 * ({@code regent_grpc_requests_seconds{method,status}}). A call's time runs from its arrival to its close:
 * for streams ({@code Observe}) and blocking campaigns that is the life of the call.
 *
 * <p>{@code Lease/KeepAlive} answered OK is also recorded as {@code regent_keepalive_confirm_seconds}: a
 * keepalive is acknowledged only after a leadership confirmation that began after it arrived, so this is
 * the confirmation latency clients see; so is each keepalive on a {@code Lease/KeepAliveStream} answered with a TTL,
 * timed from its request's arrival to its answer (matched by the request's tag).
 */
public final class GrpcMetricsInterceptor implements ServerInterceptor {
  static final String KEEPALIVE = "regent.v1.Lease/KeepAlive";
  static final String KEEPALIVE_STREAM = "regent.v1.Lease/KeepAliveStream";

  private final MeterRegistry registry;
  private final Timer keepAlive;
  /**
   * Each (method, status) timer, registered at its first use and looked up here after: registering again per call
   * built a meter id and searched the registry on every answer (issue 35).
   */
  private final Map<TimerKey, Timer> timers = new ConcurrentHashMap<>();

  private record TimerKey(String method, Status.Code status) {
  }

  GrpcMetricsInterceptor(MeterRegistry registry, Timer keepAlive) {
    this.registry = registry;
    this.keepAlive = keepAlive;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                     ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    long start = System.nanoTime();
    ServerCall<Q, R> timed = new SimpleForwardingServerCall<>(call) {
      @Override
      public void close(Status status, Metadata trailers) {
        long nanos = System.nanoTime() - start;
        timer(method, status.getCode()).record(nanos, TimeUnit.NANOSECONDS);
        if (status.isOk() && method.equals(KEEPALIVE)) {
          keepAlive.record(nanos, TimeUnit.NANOSECONDS);
        }
        super.close(status, trailers);
      }
    };
    if (!method.equals(KEEPALIVE_STREAM)) {
      return next.startCall(timed, headers);
    }
    // Each streamed keepalive is timed on its own; the stream's requests and answers pair up by tag.
    Map<Long, Long> arrived = new ConcurrentHashMap<>();
    ServerCall<Q, R> answers = new SimpleForwardingServerCall<>(timed) {
      @Override
      public void sendMessage(R message) {
        LeaseKeepAliveResponse r = (LeaseKeepAliveResponse) message;
        Long at = arrived.remove(r.getTag());
        if (at != null && r.getCode() == 0) {
          keepAlive.record(System.nanoTime() - at, TimeUnit.NANOSECONDS);
        }
        super.sendMessage(message);
      }
    };
    return new SimpleForwardingServerCallListener<>(next.startCall(answers, headers)) {
      @Override
      public void onMessage(Q message) {
        arrived.put(((LeaseKeepAliveRequest) message).getTag(), System.nanoTime());
        super.onMessage(message);
      }
    };
  }

  private Timer timer(String method, Status.Code status) {
    return timers.computeIfAbsent(new TimerKey(method, status), k -> Timer.builder("regent.grpc.requests")
        .description("Public gRPC API calls by method and final status").tag("method", method)
        .tag("status", status.name()).serviceLevelObjectives(RegentMetrics.BUCKETS).register(registry));
  }
}
