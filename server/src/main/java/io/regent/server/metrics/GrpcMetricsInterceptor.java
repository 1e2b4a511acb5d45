package io.regent.server.metrics;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Times every call of the public gRPC API, tagged with its full method name and final status code
 * ({@code regent_grpc_requests_seconds{method,status}}). A call's time runs from its arrival to its close:
 * for streams ({@code Observe}) and blocking campaigns that is the life of the call.
 *
 * <p>{@code Lease/KeepAlive} answered OK is also recorded as {@code regent_keepalive_confirm_seconds}: a
 * keepalive is acknowledged only after a leadership confirmation that began after it arrived, so this is
 * the confirmation latency clients see.
 */
public final class GrpcMetricsInterceptor implements ServerInterceptor {
  static final String KEEPALIVE = "regent.v1.Lease/KeepAlive";

  private final MeterRegistry registry;
  private final Timer keepAlive;

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
        Timer.builder("regent.grpc.requests").description("Public gRPC API calls by method and final status")
            .tag("method", method).tag("status", status.getCode().name()).serviceLevelObjectives(RegentMetrics.BUCKETS)
            .register(registry).record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        if (status.isOk() && method.equals(KEEPALIVE)) {
          keepAlive.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        super.close(status, trailers);
      }
    };
    return next.startCall(timed, headers);
  }
}
