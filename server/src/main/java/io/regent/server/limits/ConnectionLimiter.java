package io.regent.server.limits;

import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Per-connection limits of the public API: a token bucket on the calls a connection starts, and a cap on
 * the calls it has in progress. A call over either is closed at once with RESOURCE_EXHAUSTED, before any
 * handler runs, so it changes nothing and costs the node almost nothing.
 *
 * <p>Install it both as the server's interceptor and as its transport filter: the filter forgets a
 * connection's state when the connection closes. Calls see their connection's key in {@link #CONNECTION}.
 */
public final class ConnectionLimiter extends ServerTransportFilter implements ServerInterceptor {
  /** The calling connection's key (its remote address), readable in handlers through the gRPC context. */
  public static final Context.Key<String> CONNECTION = Context.key("regent-connection");

  private final ServerLimits limits;
  private final LongSupplier nanoClock;
  private final Consumer<String> onClosed;
  private final ConcurrentHashMap<String, Budget> budgets = new ConcurrentHashMap<>();

  /**
   * @param nanoClock monotonic clock for the rate limit, ns
   * @param onClosed told the key of each connection that closes (per-connection lease counts)
   */
  public ConnectionLimiter(ServerLimits limits, LongSupplier nanoClock, Consumer<String> onClosed) {
    this.limits = limits;
    this.nanoClock = nanoClock;
    this.onClosed = onClosed;
  }

  @Override
  public void transportTerminated(Attributes attrs) {
    if (attrs == null) {
      return; // never became ready (e.g. a failed TLS handshake): grpc-java passes null, and nothing was tracked
    }
    String key = key(attrs);
    budgets.remove(key);
    onClosed.accept(key);
  }

  /** Connections this node tracks now. */
  public int connections() {
    return budgets.size();
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                    ServerCallHandler<Q, R> next) {
    String key = key(call.getAttributes());
    Budget budget = budgets.computeIfAbsent(key, k -> new Budget(
        new TokenBucket(limits.requestsPerSecond(), limits.requestBurst(), nanoClock)));
    if (!budget.rate.tryTake()) {
      return refuse(call, "request rate above " + limits.requestsPerSecond() + "/s (burst "
          + limits.requestBurst() + ") for this connection (--max-request-rate); retry later");
    }
    if (budget.active.incrementAndGet() > limits.maxCallsPerConnection()) {
      budget.active.decrementAndGet();
      return refuse(call, "this connection has " + limits.maxCallsPerConnection()
          + " calls in progress, its limit (--max-calls-per-connection)");
    }
    AtomicBoolean done = new AtomicBoolean();
    Runnable release = () -> {
      if (done.compareAndSet(false, true)) {
        budget.active.decrementAndGet();
      }
    };
    ServerCall<Q, R> counted = new SimpleForwardingServerCall<>(call) {
      @Override
      public void close(Status status, Metadata trailers) {
        release.run();
        super.close(status, trailers);
      }
    };
    ServerCall.Listener<Q> listener = Contexts.interceptCall(Context.current().withValue(CONNECTION, key),
        counted, headers, next);
    return new SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onCancel() {
        release.run();
        super.onCancel();
      }
    };
  }

  private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, String message) {
    call.close(Status.RESOURCE_EXHAUSTED.withDescription(message), new Metadata());
    return new ServerCall.Listener<>() {
    };
  }

  private static String key(Attributes attrs) {
    SocketAddress remote = attrs.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    return String.valueOf(remote);
  }

  private record Budget(TokenBucket rate, AtomicInteger active) {
    Budget(TokenBucket rate) {
      this(rate, new AtomicInteger());
    }
  }
}
