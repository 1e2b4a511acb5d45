package io.regent.server.limits;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.regent.server.rpc.Lane;
import io.regent.server.rpc.MethodRule;
import io.regent.server.rpc.MethodRules;
import java.util.EnumMap;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Admission of every public API call by lane and by identity (docs/architecture.md §7.2): the priority lane
 * ({@link Lane#PRIORITY}: keepalives and the calls that give back what a client holds) is never refused by the
 * bulk limits, so that a node saturated by reads and campaigns still renews its leases; a bulk call beyond
 * {@link AdmissionLimits#maxBulkCalls()} in progress on this node, or beyond its identity's share, is refused at once.
 * Per identity also: a request rate (keepalives not counted), open streams, and (through {@link #leaseQuota()})
 * live leases. A refusal is RESOURCE_EXHAUSTED with a message naming the limit and the identity, and the trailer
 * {@value #RETRY_PUSHBACK_KEY} with the back-off to take; it changes nothing and runs no handler.
 *
 * <p>The identity is the mTLS client certificate's CN; without one (plaintext, or TLS without a client
 * certificate), every caller is the one identity {@value #DEFAULT_IDENTITY}. Handlers read it in {@link #IDENTITY}.
 * Per-identity counts are reported as metrics ({@link #bindTo}, tag {@code identity}).
 *
 * <p>"In progress" runs from the call's start to its close or cancellation: a waiting campaign or lock holds its
 * place (it holds memory too). A streaming bulk call (Observe, Group.Watch, Snapshot) is refused while the node or
 * its identity is at its bulk limit, but once open counts only against {@link AdmissionLimits#maxStreamsPerIdentity()}
 * (and the node's {@code --max-observers}), so that long-lived streams do not fill the bulk lane.
 */
public final class Admission implements ServerInterceptor, MeterBinder {
  /** The calling identity, readable in handlers through the gRPC context. */
  public static final Context.Key<String> IDENTITY = Context.key("regent-identity");
  /** The identity of every caller without a client certificate. */
  public static final String DEFAULT_IDENTITY = "_default";
  /** The trailer with the back-off a refusal suggests, ms (gRFC A6; grpc-java's retry policy honours it). */
  public static final String RETRY_PUSHBACK_KEY = "grpc-retry-pushback-ms";

  private static final Metadata.Key<String> PUSHBACK = Metadata.Key.of(RETRY_PUSHBACK_KEY,
      Metadata.ASCII_STRING_MARSHALLER);

  private final AdmissionLimits limits;
  private final Function<ServerCall<?, ?>, String> identities;
  private final LongSupplier nanoClock;
  private final AtomicInteger bulk = new AtomicInteger();
  private final ConcurrentHashMap<String, Tenant> tenants = new ConcurrentHashMap<>();
  private final LeaseQuota leases;
  private final NameQuota names;
  private volatile MeterRegistry registry;

  /**
   * @param identities the caller's identity from its call (its client certificate's CN), null when it has none
   * @param nanoClock monotonic clock for the request rates, ns
   */
  public Admission(AdmissionLimits limits, Function<ServerCall<?, ?>, String> identities, LongSupplier nanoClock) {
    this.limits = limits;
    this.identities = identities;
    this.nanoClock = nanoClock;
    this.leases = new LeaseQuota(limits.maxLeasesPerIdentity(),
        id -> "identity '" + id + "'", "--max-leases-per-identity");
    this.names = new NameQuota(limits.maxNamesPerIdentity());
  }

  /** Live leases per identity: reserve against it on every grant, with the identity in {@link #IDENTITY}. */
  public LeaseQuota leaseQuota() {
    return leases;
  }

  /** Names held per identity: checked on every campaign, told of every grant, with the identity in {@link #IDENTITY}. */
  public NameQuota nameQuota() {
    return names;
  }

  /** Bulk calls in progress on this node now (streams not counted once open). */
  public int bulkInProgress() {
    return bulk.get();
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                    ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    String named = identities.apply(call);
    String identity = named == null ? DEFAULT_IDENTITY : named;
    Tenant tenant = tenant(identity);
    MethodRule rule = MethodRules.of(method);
    if (!rule.renewsLeases() && !tenant.rate.tryTake()) {
      return refuse(call, tenant, Refusal.RATE, "identity '" + identity + "' started more than "
          + limits.identityRequestsPerSecond() + " calls/s (burst " + limits.identityRequestBurst()
          + ") on this node, its limit (--identity-request-rate)");
    }
    Context context = Context.current().withValue(IDENTITY, identity);
    if (limits.priorityLanes() && rule.lane() == Lane.PRIORITY) {
      return Contexts.interceptCall(context, call, headers, next);
    }
    MethodType type = call.getMethodDescriptor().getType();
    boolean stream = type == MethodType.SERVER_STREAMING || type == MethodType.BIDI_STREAMING;
    AtomicInteger held;
    if (stream) {
      if (bulk.get() >= limits.maxBulkCalls()) {
        return refuse(call, tenant, Refusal.BULK, nodeFull());
      }
      if (tenant.bulk.get() >= limits.maxBulkCallsPerIdentity()) {
        return refuse(call, tenant, Refusal.IDENTITY_BULK, identityFull(identity));
      }
      if (tenant.streams.incrementAndGet() > limits.maxStreamsPerIdentity()) {
        tenant.streams.decrementAndGet();
        return refuse(call, tenant, Refusal.IDENTITY_STREAMS, "identity '" + identity + "' has "
            + limits.maxStreamsPerIdentity() + " streams open on this node, its limit (--max-streams-per-identity)");
      }
      held = tenant.streams;
    } else {
      if (bulk.incrementAndGet() > limits.maxBulkCalls()) {
        bulk.decrementAndGet();
        return refuse(call, tenant, Refusal.BULK, nodeFull());
      }
      if (tenant.bulk.incrementAndGet() > limits.maxBulkCallsPerIdentity()) {
        tenant.bulk.decrementAndGet();
        bulk.decrementAndGet();
        return refuse(call, tenant, Refusal.IDENTITY_BULK, identityFull(identity));
      }
      held = tenant.bulk;
    }
    AtomicBoolean done = new AtomicBoolean();
    Runnable release = () -> {
      if (done.compareAndSet(false, true)) {
        held.decrementAndGet();
        if (!stream) {
          bulk.decrementAndGet();
        }
      }
    };
    ServerCall<Q, R> counted = new SimpleForwardingServerCall<>(call) {
      @Override
      public void close(Status status, Metadata trailers) {
        release.run();
        super.close(status, trailers);
      }
    };
    ServerCall.Listener<Q> listener;
    try {
      listener = Contexts.interceptCall(context, counted, headers, next);
    } catch (RuntimeException e) {
      release.run(); // gRPC closes the call itself, through the call under ours
      throw e;
    }
    return new SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onCancel() {
        release.run();
        super.onCancel();
      }
    };
  }

  private String nodeFull() {
    return "this node has " + limits.maxBulkCalls() + " reads, campaigns and other bulk calls in progress, its limit "
        + "(--max-bulk-calls); keepalives are still served; retry in " + limits.retryAfterMs() + " ms";
  }

  private String identityFull(String identity) {
    return "identity '" + identity + "' has " + limits.maxBulkCallsPerIdentity() + " bulk calls in progress on this "
        + "node, its limit (--max-bulk-calls-per-identity); retry in " + limits.retryAfterMs() + " ms";
  }

  private <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Tenant tenant, Refusal reason, String message) {
    tenant.refused.get(reason).incrementAndGet();
    Metadata trailers = new Metadata();
    trailers.put(PUSHBACK, Long.toString(limits.retryAfterMs()));
    call.close(Status.RESOURCE_EXHAUSTED.withDescription(message), trailers);
    return new ServerCall.Listener<>() {
    };
  }

  private Tenant tenant(String identity) {
    Tenant t = tenants.get(identity);
    if (t != null) {
      return t;
    }
    Tenant created = tenants.computeIfAbsent(identity, id -> new Tenant(id,
        new TokenBucket(limits.identityRequestsPerSecond(), limits.identityRequestBurst(), nanoClock)));
    MeterRegistry r = registry;
    if (r != null) {
      created.register(r);
    }
    return created;
  }

  /**
   * Reports per identity ({@code identity} tag): {@code regent_admission_bulk_calls} and
   * {@code regent_admission_streams} in progress, {@code regent_admission_leases} live, {@code regent_admission_names} held, and
   * {@code regent_admission_refused_total} by {@code reason} ({@code rate}, {@code bulk}, {@code identity_bulk},
   * {@code identity_streams}); identities seen later are added as they first call.
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("regent.admission.bulk.calls.node", bulk, AtomicInteger::get)
        .description("Bulk calls in progress on this node (docs/architecture.md §7.2)").register(registry);
    tenants.values().forEach(t -> t.register(registry));
  }

  /** Why a call was refused: the {@code reason} tag of {@code regent_admission_refused_total}. */
  private enum Refusal {
    RATE, BULK, IDENTITY_BULK, IDENTITY_STREAMS
  }

  /** One identity's state on this node. */
  private final class Tenant {
    final String identity;
    final TokenBucket rate;
    final AtomicInteger bulk = new AtomicInteger();
    final AtomicInteger streams = new AtomicInteger();
    final EnumMap<Refusal, AtomicLong> refused = new EnumMap<>(Refusal.class);
    final AtomicBoolean registered = new AtomicBoolean();

    Tenant(String identity, TokenBucket rate) {
      this.identity = identity;
      this.rate = rate;
      for (Refusal r : Refusal.values()) {
        refused.put(r, new AtomicLong());
      }
    }

    void register(MeterRegistry reg) {
      if (!registered.compareAndSet(false, true)) {
        return;
      }
      Gauge.builder("regent.admission.bulk.calls", bulk, AtomicInteger::get).tag("identity", identity)
          .description("Bulk calls of this identity in progress on this node").register(reg);
      Gauge.builder("regent.admission.streams", streams, AtomicInteger::get).tag("identity", identity)
          .description("Streams of this identity open on this node").register(reg);
      Gauge.builder("regent.admission.leases", leases, q -> q.count(identity)).tag("identity", identity)
          .description("Live leases granted to this identity through this node").register(reg);
      Gauge.builder("regent.admission.names", names, q -> q.count(identity)).tag("identity", identity)
          .description("Names held by the leases granted to this identity through this node").register(reg);
      refused.forEach((reason, n) -> FunctionCounter.builder("regent.admission.refused", n, AtomicLong::get)
          .tag("identity", identity).tag("reason", reason.name().toLowerCase(Locale.ROOT))
          .description("Calls refused with RESOURCE_EXHAUSTED by the admission limits").register(reg));
    }
  }
}
