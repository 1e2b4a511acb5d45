package io.regent.client;

import com.google.protobuf.ByteString;
import io.grpc.ChannelCredentials;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.CampaignRequest;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.FreshTokenRequest;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaderRequest;
import io.regent.api.v1.LeaderResponse;
import io.regent.api.v1.LeaseGrantRequest;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseInfo;
import io.regent.api.v1.LeaseKeepAliveManyRequest;
import io.regent.api.v1.LeaseKeepAliveManyResponse;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseLeasesRequest;
import io.regent.api.v1.LeaseRevokeRequest;
import io.regent.api.v1.LeaseTimeToLiveRequest;
import io.regent.api.v1.LeaseTimeToLiveResponse;
import io.regent.api.v1.Member;
import io.regent.api.v1.MemberAddRequest;
import io.regent.api.v1.MemberListRequest;
import io.regent.api.v1.MemberListResponse;
import io.regent.api.v1.MemberPromoteRequest;
import io.regent.api.v1.MemberRemoveRequest;
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ObserveResponse;
import io.regent.api.v1.ProclaimRequest;
import io.regent.api.v1.ResignRequest;
import io.regent.api.v1.StatusRequest;
import io.regent.api.v1.StatusResponse;
import io.regent.api.v1.TransferLeadershipRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A Regent client over a list of endpoints ({@code host:port} of any nodes' public API). Every node accepts
 * every call (writes are forwarded to the Raft leader), so the client sticks to one endpoint and moves to the
 * next when it is unreachable or hangs (docs/architecture.md §7):
 *
 * <ul>
 *   <li>UNAVAILABLE (refused, reset, or a transport that the channel keepalive found dead): every call moves
 *       on to the next endpoint, as before.
 *   <li>DEADLINE_EXCEEDED (a paused or silently cut-off node): calls that are safe to repeat — reads, a
 *       campaign by lease id, resign, proclaim, revoke — are retried on the next endpoint, each attempt with at
 *       most half of what is left of the call's deadline (and at most the attempt timeout). Keepalives are
 *       hedged instead: after half their budget without an answer the next endpoint gets the same keepalive,
 *       the first keeping its deadline, and the first answer wins — a hung node costs a lease only part of its
 *       budget, a slow one nothing. Calls that are not safe to repeat —
 *       {@link #grant}, {@link #freshToken}, membership changes — are <em>not</em> re-sent: the caller gets the
 *       DEADLINE_EXCEEDED (a lease may then have been granted unknown to it: unrenewed, it expires after its
 *       TTL; a fresh token may have been taken: tokens only grow, so nothing is fenced wrongly) and the next
 *       call starts at the next endpoint.
 * </ul>
 *
 * <p>Every call has a deadline: {@link Builder#callTimeout} for unary calls, {@link Builder#campaignTimeout}
 * for blocking campaigns, the caller's for keepalives; a deadline in the calling thread's gRPC
 * {@link io.grpc.Context} bounds every attempt too. Errors are {@link StatusRuntimeException}s with the codes
 * of docs/architecture.md §7: INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, UNAVAILABLE, RESOURCE_EXHAUSTED,
 * DEADLINE_EXCEEDED. Thread-safe.
 */
public final class RegentClient implements AutoCloseable {
  /** Default deadline of unary calls other than campaigns, ms. */
  public static final long CALL_TIMEOUT_MS = 15_000;
  /** Shortest deadline of one attempt when a call is retried on another endpoint, ms. */
  static final long MIN_ATTEMPT_MS = 50;

  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<String> endpoints;
  private final long callTimeoutMs;
  private final long attemptTimeoutMs;
  private final long campaignTimeoutMs;
  private final RetryPolicy retry;
  /** Fires the per-attempt context deadlines. */
  private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "regent-client-deadlines");
    t.setDaemon(true);
    return t;
  });
  private volatile int current;

  private RegentClient(Builder b, ChannelCredentials credentials) {
    if (b.endpoints.isEmpty()) {
      throw new IllegalArgumentException("at least one endpoint is required");
    }
    this.endpoints = List.copyOf(b.endpoints);
    this.callTimeoutMs = b.callTimeout.toMillis();
    this.attemptTimeoutMs = b.attemptTimeout.toMillis();
    this.campaignTimeoutMs = b.campaignTimeout.toMillis();
    this.retry = b.retry;
    for (String e : endpoints) {
      int colon = e.lastIndexOf(':');
      int port;
      try {
        port = colon <= 0 ? -1 : Integer.parseInt(e.substring(colon + 1));
      } catch (NumberFormatException ex) {
        port = -1;
      }
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("endpoint '" + e + "' is not host:port");
      }
      NettyChannelBuilder nb = NettyChannelBuilder.forAddress(e.substring(0, colon), port, credentials)
          .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
              b.connectTimeout.toMillis()))
          // Pings on a connection with calls in flight: a paused node or a silently dropped link turns into
          // UNAVAILABLE (then failover) for a blocking campaign or an Observe stream, which have no short deadline.
          .keepAliveTime(b.keepAliveTime.toMillis(), TimeUnit.MILLISECONDS)
          .keepAliveTimeout(b.keepAliveTimeout.toMillis(), TimeUnit.MILLISECONDS);
      if (b.executor != null) {
        nb.executor(b.executor);
      }
      channels.add(nb.build());
    }
  }

  /** Connects (lazily, in plaintext) to {@code endpoints}, each {@code host:port}. */
  public static RegentClient connect(List<String> endpoints) {
    return builder().endpoints(endpoints).build();
  }

  /** A builder, for TLS and client certificates. */
  public static Builder builder() {
    return new Builder();
  }

  /** Parses a comma-separated endpoint list ({@code h1:p1,h2:p2}). */
  public static RegentClient connect(String endpoints) {
    return connect(List.of(endpoints.split(",")));
  }

  /** The endpoints this client uses. */
  public List<String> endpoints() {
    return endpoints;
  }

  /**
   * Grants a lease. @param ttlMs TTL in ms, within [1.5 x max election timeout, 1 h]
   * @return the lease id (the log index of the grant). INVALID_ARGUMENT for a TTL out of range;
   *     DEADLINE_EXCEEDED is not retried (a lease may have been granted: unrenewed, it expires after its TTL)
   */
  public long grant(long ttlMs) {
    return callOnce(callTimeoutMs, ch -> LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
        .grant(LeaseGrantRequest.newBuilder().setTtlMs(ttlMs).build())).getId();
  }

  /** Renews a lease; returns its TTL in ms. NOT_FOUND once the lease is gone or its expiry is decided. */
  public long keepAlive(long leaseId, long timeoutMs) {
    LeaseKeepAliveRequest req = LeaseKeepAliveRequest.newBuilder().setId(leaseId).build();
    return hedged(timeoutMs, (ch, d) -> LeaseGrpc.newFutureStub(ch).withDeadline(d).keepAlive(req)).getTtlMs();
  }

  /**
   * Renews up to 10 000 leases in one call (one confirmation round for all of them).
   *
   * @return lease id to its TTL in ms, or 0 when the lease is not found or is expiring
   * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for no id or more than 10 000 ids; UNAVAILABLE when
   *     no ready leader confirmed the round (retry)
   */
  public Map<Long, Long> keepAliveMany(Collection<Long> leaseIds, long timeoutMs) {
    LeaseKeepAliveManyRequest req = LeaseKeepAliveManyRequest.newBuilder().addAllIds(leaseIds).build();
    LeaseKeepAliveManyResponse r = hedged(timeoutMs,
        (ch, d) -> LeaseGrpc.newFutureStub(ch).withDeadline(d).keepAliveMany(req));
    Map<Long, Long> out = new LinkedHashMap<>();
    r.getResultsList().forEach(x -> out.put(x.getId(), x.getTtlMs()));
    return out;
  }

  /** Revokes a lease, freeing every name it holds. NOT_FOUND when unknown. */
  public void revoke(long leaseId) {
    call(ch -> LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
        .revoke(LeaseRevokeRequest.newBuilder().setId(leaseId).build()));
  }

  /** TTL and remaining time (as measured by the leader) of a lease. NOT_FOUND when unknown. */
  public LeaseTimeToLiveResponse timeToLive(long leaseId) {
    return call(ch -> LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
        .timeToLive(LeaseTimeToLiveRequest.newBuilder().setId(leaseId).build()));
  }

  /** Every live lease, read linearizably. */
  public List<LeaseInfo> leases() {
    return call(ch -> LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
        .leases(LeaseLeasesRequest.getDefaultInstance())).getLeasesList();
  }

  /**
   * Campaigns for {@code name} with a lease and blocks until elected, at most {@link Builder#campaignTimeout}
   * (then DEADLINE_EXCEEDED, and the server withdraws the candidacy). NOT_FOUND when the lease ends first.
   * Retrying keeps the candidate's place (Campaign is idempotent per name and lease), so a campaign whose node
   * becomes unreachable goes on at the next endpoint.
   */
  public LeaderKey campaign(String name, long leaseId, ByteString value) {
    return campaign(name, leaseId, value, 0);
  }

  /**
   * Like {@link #campaign(String, long, ByteString)}, asking for a lock-delay of {@code lockDelayMs} (0 to
   * 3 600 000 ms): should this lease expire while holding the name, nobody is granted it for that long.
   */
  /**
   * Takes every one of {@code names} or none, in one entry, all with one fencing token; blocks while any is
   * held (queued once, as one candidate for all). Returns one key per name, in order. Errors as
   * {@link #campaign}; FAILED_PRECONDITION when the lease already holds or waits for one of them on its own.
   */
  public List<LeaderKey> campaignAll(List<String> names, long leaseId, ByteString value) {
    return call(ch -> ElectionGrpc.newBlockingStub(ch).campaignAll(io.regent.api.v1.CampaignAllRequest.newBuilder()
        .addAllNames(names).setLease(leaseId).setValue(value).build())).getLeadersList();
  }

  public LeaderKey campaign(String name, long leaseId, ByteString value, long lockDelayMs) {
    return campaign(name, leaseId, value, lockDelayMs, Duration.ofMillis(campaignTimeoutMs));
  }

  /**
   * Like {@link #campaign(String, long, ByteString, long)}, waiting at most {@code timeout} to be elected:
   * DEADLINE_EXCEEDED then, and the candidacy is withdrawn.
   */
  public LeaderKey campaign(String name, long leaseId, ByteString value, long lockDelayMs, Duration timeout) {
    // One attempt may take the whole wait: a campaign is not moved on for taking long, only for a dead node.
    return call(timeout.toMillis(), false, ch -> ElectionGrpc.newBlockingStub(ch)
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS).campaign(CampaignRequest.newBuilder()
        .setName(name).setLease(leaseId).setValue(value).setLockDelayMs(lockDelayMs).build())).getLeader();
  }

  /**
   * Campaigns for {@code name} with a lease of {@code ttlMs} that the same log entry grants (an election in two
   * entries with {@link #resign(LeaderKey, boolean)}), and returns at once: elected (the leader key holds the new
   * lease), or queued as a candidate with the new lease in {@code lease}. Keep that lease alive from the moment
   * this call was sent ({@link LeaseKeeper#adopt}); campaign again with it to wait for the name.
   * INVALID_ARGUMENT (TTL, name, value, lock-delay), RESOURCE_EXHAUSTED (server limits).
   */
  public CampaignResponse campaignWithTtl(String name, long ttlMs, ByteString value, long lockDelayMs) {
    return call(ch -> ElectionGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .campaign(CampaignRequest.newBuilder().setName(name).setTtlMs(ttlMs).setValue(value)
            .setLockDelayMs(lockDelayMs).build()));
  }

  /** Tries once: elected at once, or not (then the response carries the current holder, if any). */
  public CampaignResponse tryCampaign(String name, long leaseId, ByteString value) {
    return call(ch -> ElectionGrpc.newBlockingStub(ch).withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
        .campaign(CampaignRequest.newBuilder().setName(name).setLease(leaseId).setValue(value).setNoWait(true)
            .build()));
  }

  /** Replaces the holder's value. FAILED_PRECONDITION when {@code key} no longer holds the name. */
  public LeaderKey proclaim(LeaderKey key, ByteString value) {
    return call(ch -> ElectionGrpc.newBlockingStub(ch).withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
        .proclaim(ProclaimRequest.newBuilder().setLeader(key).setValue(value).build())).getLeader();
  }

  /** Gives the name up. FAILED_PRECONDITION when {@code key} no longer holds it. */
  public void resign(LeaderKey key) {
    resign(key, false);
  }

  /**
   * Gives the name up and, with {@code revokeLease}, revokes the holder's lease in the same log entry (freeing
   * every other name it holds). FAILED_PRECONDITION when {@code key} no longer holds the name: nothing changes.
   */
  public void resign(LeaderKey key, boolean revokeLease) {
    call(ch -> ElectionGrpc.newBlockingStub(ch).withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
        .resign(ResignRequest.newBuilder().setLeader(key).setRevokeLease(revokeLease).build()));
  }

  /**
   * A new, larger fencing token for the current holder. FAILED_PRECONDITION when not the holder;
   * DEADLINE_EXCEEDED is not retried (a token may have been taken; tokens only grow).
   */
  public LeaderKey freshToken(LeaderKey key) {
    return callOnce(callTimeoutMs, ch -> ElectionGrpc.newBlockingStub(ch).withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
        .freshToken(FreshTokenRequest.newBuilder().setLeader(key).build())).getLeader();
  }

  /** The current holder of {@code name}, read linearizably; empty when none. */
  public Optional<LeaderKey> leader(String name) {
    return leader(name, false).map(LeaderResponse::getLeader);
  }

  /**
   * The current holder of {@code name} with the log index the answer reflects ({@code applied_index}):
   * linearizable, or with {@code serializable} the answering node's own state, which may be stale by as much
   * as that index is behind the cluster's (docs/architecture.md §4).
   *
   * @return empty when the name has no holder
   */
  public Optional<LeaderResponse> leader(String name, boolean serializable) {
    try {
      return Optional.of(call(ch -> ElectionGrpc.newBlockingStub(ch)
          .withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
          .leader(LeaderRequest.newBuilder().setName(name).setSerializable(serializable).build())));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * Streams ownership changes of {@code name} from the current endpoint: first the current holder (when
   * {@code afterIndex} is 0), then one message per change. Cancel with the returned handle.
   */
  public Runnable observe(String name, long afterIndex, StreamObserver<ObserveResponse> observer) {
    var ctx = io.grpc.Context.current().withCancellation();
    ctx.run(() -> ElectionGrpc.newStub(channels.get(current)).observe(ObserveRequest.newBuilder().setName(name)
        .setAfterIndex(afterIndex).build(), observer));
    return () -> ctx.cancel(null);
  }

  /** The channel of the current endpoint (for streams, which do not move between endpoints by themselves). */
  ManagedChannel currentChannel() {
    return channels.get(current);
  }

  /** Index of the endpoint calls start at (an Observe stream is opened there). */
  int currentEndpoint() {
    return current;
  }

  /** Moves on from endpoint {@code failed} to the next one, unless another call has already moved on. */
  void moveOn(int failed) {
    if (current == failed) {
      current = (failed + 1) % channels.size();
    }
  }

  /** The answering node's view of the cluster (members, Raft leader, term, indexes), after a confirmation. */
  public StatusResponse status() {
    return status(false);
  }

  /**
   * The answering node's view of the cluster; with {@code serializable}, its own view without a leadership
   * confirmation (it answers even when cut off from the leader, and may be behind).
   */
  public StatusResponse status(boolean serializable) {
    return call(ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
        .status(StatusRequest.newBuilder().setSerializable(serializable).build()));
  }

  /** Deadline of membership changes, ms: adding a member may wait for it to catch up. */
  public static final long MEMBER_CALL_TIMEOUT_MS = 90_000;

  /** Every member (voters and learners) and the Raft leader, read after a leadership confirmation. */
  public MemberListResponse memberList() {
    return call(ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
        .memberList(MemberListRequest.getDefaultInstance()));
  }

  /**
   * Adds a learner (it receives the log but does not vote) whose node must already run, started without peers.
   * ALREADY_EXISTS when the id or Raft address is a member's; INVALID_ARGUMENT for a malformed one.
   *
   * @return the members afterwards
   */
  public List<Member> memberAdd(String id, String raftAddress, String apiAddress) {
    return callOnce(MEMBER_CALL_TIMEOUT_MS, ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .memberAdd(MemberAddRequest.newBuilder().setId(id).setRaftAddress(raftAddress).setApiAddress(apiAddress)
            .build())).getMembersList();
  }

  /** Makes a learner a voter. NOT_FOUND when unknown, FAILED_PRECONDITION when already a voter. */
  public List<Member> memberPromote(String id) {
    return callOnce(MEMBER_CALL_TIMEOUT_MS, ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .memberPromote(MemberPromoteRequest.newBuilder().setId(id).build())).getMembersList();
  }

  /** Removes a member. NOT_FOUND when unknown, FAILED_PRECONDITION for the last voter. */
  public List<Member> memberRemove(String id) {
    return callOnce(MEMBER_CALL_TIMEOUT_MS, ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .memberRemove(MemberRemoveRequest.newBuilder().setId(id).build())).getMembersList();
  }

  /** Moves Raft leadership to voter {@code to}; returns the new leader's id. */
  public String transferLeadership(String to) {
    return callOnce(MEMBER_CALL_TIMEOUT_MS, ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .transferLeadership(TransferLeadershipRequest.newBuilder().setTo(to).build())).getLeader();
  }

  /**
   * Runs a renewal within {@code budgetMs} (and the caller's context deadline), hedged: after
   * {@link #hedgeAfterMs} without an answer, or at once when the endpoint is unreachable, the next endpoint
   * gets it too, the first attempt keeping its deadline ({@link HedgedCall}).
   */
  private <T> T hedged(long budgetMs, java.util.function.BiFunction<ManagedChannel, Deadline,
      com.google.common.util.concurrent.ListenableFuture<T>> rpc) {
    Deadline overall = Deadline.after(Math.max(1, budgetMs), TimeUnit.MILLISECONDS);
    Deadline outer = Context.current().getDeadline();
    if (outer != null && outer.isBefore(overall)) {
      overall = outer;
    }
    return HedgedCall.run(channels, current, overall, hedgeAfterMs(budgetMs, attemptTimeoutMs), deadlines, rpc,
        idx -> current = idx, this::moveOn);
  }

  /**
   * How long a renewal waits for its endpoint before the next one gets it too: a quarter of the budget (at
   * least {@link #MIN_ATTEMPT_MS}, at most {@code attemptTimeoutMs}). A keepalive sent just after its node went
   * silent has about ttl/3 left (a 2/3-ttl validity, renewed every ttl/3); the next node needs one leadership
   * confirmation to answer, which a loaded cluster may take hundreds of ms over, so it gets three quarters of
   * that (at half, a Jepsen client-isolate run saw an isolated holder step down: jepsen/README.md).
   */
  static long hedgeAfterMs(long budgetMs, long attemptTimeoutMs) {
    return Math.min(attemptTimeoutMs, Math.max(MIN_ATTEMPT_MS, budgetMs / 4));
  }

  /**
   * Runs a call that is safe to repeat, within {@link Builder#callTimeout} (see the class comment); also for
   * the other clients of this package, e.g. {@link GroupClient}.
   */
  <T> T call(Function<ManagedChannel, T> rpc) {
    return call(callTimeoutMs, true, rpc);
  }

  /** Runs a call that is safe to repeat within {@code budgetMs}, moving on when an endpoint fails or hangs. */
  private <T> T call(long budgetMs, Function<ManagedChannel, T> rpc) {
    return call(budgetMs, true, rpc);
  }

  /** Runs a call that must not be re-sent after a timeout: it moves on only from an unreachable endpoint. */
  private <T> T callOnce(long budgetMs, Function<ManagedChannel, T> rpc) {
    return call(budgetMs, false, rpc);
  }

  /**
   * Runs {@code rpc} from the current endpoint on: the next endpoint is tried after UNAVAILABLE, and after
   * DEADLINE_EXCEEDED when {@code retryOnTimeout}, with passes and pauses of the {@link RetryPolicy}, until
   * {@code budgetMs} (or the caller's context deadline) has passed.
   *
   * @param retryOnTimeout whether the call is safe to repeat after a timeout; each attempt then gets half of
   *     what is left of the budget (at least {@link #MIN_ATTEMPT_MS}, at most the attempt timeout)
   */
  private <T> T call(long budgetMs, boolean retryOnTimeout, Function<ManagedChannel, T> rpc) {
    Deadline overall = Deadline.after(Math.max(1, budgetMs), TimeUnit.MILLISECONDS);
    Deadline outer = Context.current().getDeadline();
    if (outer != null && outer.isBefore(overall)) {
      overall = outer;
    }
    StatusRuntimeException last = null;
    int n = channels.size();
    for (int pass = 0; pass < retry.rounds(); pass++) {
      for (int i = 0; i < n; i++) {
        int idx = current;
        Deadline attempt = overall;
        long leftMs = overall.timeRemaining(TimeUnit.MILLISECONDS);
        boolean lastTry = pass == retry.rounds() - 1 && i == n - 1;
        if (retryOnTimeout && !lastTry && leftMs > 2 * MIN_ATTEMPT_MS) {
          attempt = Deadline.after(Math.min(attemptTimeoutMs, Math.max(MIN_ATTEMPT_MS, leftMs / 2)),
              TimeUnit.MILLISECONDS);
        }
        try {
          return attempt(attempt, () -> rpc.apply(channels.get(idx)));
        } catch (StatusRuntimeException e) {
          Status.Code code = e.getStatus().getCode();
          boolean hung = code == Status.Code.DEADLINE_EXCEEDED;
          if (code != Status.Code.UNAVAILABLE && !hung) {
            throw e;
          }
          // The next call starts elsewhere, even when this one is not re-sent.
          current = (idx + 1) % n;
          if ((hung && !retryOnTimeout) || overall.isExpired()) {
            throw e;
          }
          last = e;
        }
      }
      if (pass < retry.rounds() - 1) {
        pause(Math.min(retry.backoffMs(pass), overall.timeRemaining(TimeUnit.MILLISECONDS)));
      }
    }
    throw last;
  }

  /** Runs one attempt with {@code deadline} in its gRPC context (gRPC takes the earlier of it and the stub's). */
  private <T> T attempt(Deadline deadline, java.util.function.Supplier<T> body) {
    Context.CancellableContext ctx = Context.current().withDeadline(deadline, deadlines);
    try {
      return ctx.call(body::get);
    } catch (StatusRuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw Status.INTERNAL.withDescription(e.toString()).withCause(e).asRuntimeException();
    } finally {
      ctx.cancel(null);
    }
  }

  private static void pause(long ms) {
    if (ms <= 0) {
      return;
    }
    try {
      Thread.sleep(ms); // a backoff between passes over the endpoints, not a synchronisation
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").withCause(e).asRuntimeException();
    }
  }

  @Override
  public void close() {
    channels.forEach(ManagedChannel::shutdownNow);
    deadlines.shutdownNow();
  }

  /**
   * Builds a {@link RegentClient}: endpoints, and optionally TLS ({@link #caCert}) with a client certificate
   * ({@link #clientCert}) for servers that ask for mutual TLS. The flags of {@code etcdctl}:
   * {@code --cacert}, {@code --cert}, {@code --key}.
   */
  public static final class Builder {
    private List<String> endpoints = List.of();
    private Path caCert;
    private Path cert;
    private Path key;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration callTimeout = Duration.ofMillis(CALL_TIMEOUT_MS);
    private Duration attemptTimeout = Duration.ofSeconds(5);
    private Duration campaignTimeout = Duration.ofHours(1);
    private Duration keepAliveTime = Duration.ofSeconds(10);
    private Duration keepAliveTimeout = Duration.ofSeconds(5);
    private RetryPolicy retry = RetryPolicy.ONCE;
    private Executor executor;

    private Builder() {
    }

    /** How long opening a TCP connection to one endpoint may take (etcd's {@code --dial-timeout}); default 5 s. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive("connect timeout", timeout);
      return this;
    }

    /**
     * Deadline of each unary call, failovers included (etcd's {@code --command-timeout}); default 15 s.
     * Lease keepalives take theirs from {@link LeaseKeeper}, campaigns from {@link #campaignTimeout}.
     */
    public Builder callTimeout(Duration timeout) {
      this.callTimeout = positive("call timeout", timeout);
      return this;
    }

    /** Longest one attempt at one endpoint of a call that is safe to repeat elsewhere; default 5 s. */
    public Builder attemptTimeout(Duration timeout) {
      this.attemptTimeout = positive("attempt timeout", timeout);
      return this;
    }

    /** How long a blocking campaign without its own timeout waits to be elected; default 1 h. */
    public Builder campaignTimeout(Duration timeout) {
      this.campaignTimeout = positive("campaign timeout", timeout);
      return this;
    }

    /**
     * gRPC keepalive: with calls in flight, ping each connection after {@code time} without traffic and
     * drop it when no answer comes within {@code timeout} (its calls then fail over). gRPC raises a
     * {@code time} below 10 s to 10 s; Regent servers accept pings every 5 s. Default 10 s and 5 s.
     */
    public Builder keepAlive(Duration time, Duration timeout) {
      this.keepAliveTime = positive("keepalive time", time);
      this.keepAliveTimeout = positive("keepalive timeout", timeout);
      return this;
    }

    /** Passes over the endpoints and the pauses between them ({@link RetryPolicy#ONCE} by default). */
    public Builder retry(RetryPolicy policy) {
      this.retry = java.util.Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** Where gRPC runs call callbacks (Observe events); default gRPC's shared cached pool. */
    public Builder executor(Executor executor) {
      this.executor = java.util.Objects.requireNonNull(executor, "executor");
      return this;
    }

    private static Duration positive(String what, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, not " + d);
      }
      return d;
    }

    /** The endpoints, each {@code host:port} of a node's public API. */
    public Builder endpoints(List<String> endpoints) {
      this.endpoints = List.copyOf(endpoints);
      return this;
    }

    /** Speaks TLS, trusting server certificates signed by the CA(s) in this PEM file. */
    public Builder caCert(Path caCertPem) {
      this.caCert = caCertPem;
      return this;
    }

    /**
     * Presents this certificate (PEM) and key (unencrypted PKCS#8 PEM) in the TLS handshake; the server
     * knows the client by the certificate's subject CN. Needs {@link #caCert}.
     */
    public Builder clientCert(Path certPem, Path keyPem) {
      this.cert = certPem;
      this.key = keyPem;
      return this;
    }

    /**
     * Builds the client; channels connect lazily.
     *
     * @throws IllegalArgumentException for a bad endpoint, a client certificate without a CA, or a PEM file
     *     that cannot be read (naming it)
     */
    public RegentClient build() {
      return new RegentClient(this, credentials(caCert, cert, key));
    }
  }

  /**
   * Channel credentials for Regent's endpoints: plaintext when {@code caCert} is null, else TLS trusting
   * {@code caCert}, presenting {@code cert} and {@code key} when given (mutual TLS).
   *
   * @throws IllegalArgumentException for a client certificate without a CA, or a PEM file that cannot be
   *     read (naming it)
   */
  public static ChannelCredentials credentials(Path caCert, Path cert, Path key) {
    if (caCert == null) {
      if (cert != null) {
        throw new IllegalArgumentException("a client certificate needs TLS: give the CA certificate too");
      }
      return InsecureChannelCredentials.create();
    }
    TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder();
    try {
      tls.trustManager(caCert.toFile());
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot load the CA certificate " + caCert + ": " + e.getMessage(), e);
    }
    if (cert != null) {
      try {
        tls.keyManager(cert.toFile(), key.toFile());
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException("cannot load the client certificate " + cert + " and key " + key
            + ": " + e.getMessage(), e);
      }
    }
    return tls.build();
  }
}
