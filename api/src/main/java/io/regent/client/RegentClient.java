package io.regent.client;

import com.google.common.util.concurrent.ListenableFuture;
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
import io.regent.api.v1.LeaseKeepAliveResponse;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A Regent client over a list of endpoints ({@code host:port} of any nodes' public API). Every node accepts
 * every call (a follower forwards writes to the Raft leader), but the leader answers writes and linearizable
 * reads one network hop sooner, so the client routes them there (docs/api.md, "Leader-aware routing"):
 *
 * <ul>
 *   <li>Every reply, refusals included, names the leader and the Raft term in its {@link LeaderMetadata}; the
 *       client keeps the leader of the highest term and, when one of its endpoints reaches it, starts writes
 *       and linearizable reads (and keepalives, campaigns, membership changes) there, the other endpoints
 *       following in their order as fallback. With no leader known, and for serializable reads,
 *       {@link #status} and streams (Observe, Watch), calls start at the current endpoint, as before.
 *   <li>When the leader's endpoint fails (below), calls start at the current endpoint again until a reply names
 *       a leader of a new term or the leader itself answers again.
 *   <li>A client given one endpoint learns the others (etcd's auto-sync, Kafka's bootstrap servers): after its
 *       first reply it reads the member list and adds every member's published API address as an endpoint
 *       ({@link Builder#discoverEndpoints}), again after a new term.
 * </ul>
 *
 * <p>Failover is as it always was: the client moves on to the next endpoint when one is unreachable or hangs
 * (docs/architecture.md §7):
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

  /** Shortest interval between two member-list reads of a client that discovers endpoints, ns. */
  static final long SYNC_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** One per endpoint, in the order of {@link #endpoints}; replaced (never changed) when an endpoint is learnt. */
  private volatile List<ManagedChannel> channels = List.of();
  private volatile List<String> endpoints = List.of();
  private final ChannelCredentials credentials;
  private final Duration connectTimeout;
  private final Duration keepAliveTime;
  private final Duration keepAliveTimeout;
  private final Executor executor;
  private final LeaderRouting routing;
  private final boolean preferLeader;
  private final boolean discover;
  /** Whether the member list should be read (again): at first, after a new term, after an incomplete list. */
  private volatile boolean syncWanted;
  private final java.util.concurrent.atomic.AtomicBoolean syncing = new java.util.concurrent.atomic.AtomicBoolean();
  private volatile long nextSyncNanos = System.nanoTime();
  /** The connection of its own that a member-list read in flight uses (closed with the client). */
  private volatile ManagedChannel syncChannel;
  private volatile boolean closed;
  private final long callTimeoutMs;
  private final long attemptTimeoutMs;
  private final long campaignTimeoutMs;
  private final RetryPolicy retry;
  /** Fires the per-attempt context deadlines. */
  private final ScheduledExecutorService deadlines = deadlineTimer();
  /** This client's keepalive streams, or null when it sends unary keepalives ({@link Builder#streamKeepAlives}). */
  private final KeepAliveStreams keepAliveStreams;
  private volatile int current;

  private RegentClient(Builder b, ChannelCredentials credentials) {
    if (b.endpoints.isEmpty()) {
      throw new IllegalArgumentException("at least one endpoint is required");
    }
    this.callTimeoutMs = b.callTimeout.toMillis();
    this.attemptTimeoutMs = b.attemptTimeout.toMillis();
    this.campaignTimeoutMs = b.campaignTimeout.toMillis();
    this.retry = b.retry;
    this.credentials = credentials;
    this.connectTimeout = b.connectTimeout;
    this.keepAliveTime = b.keepAliveTime;
    this.keepAliveTimeout = b.keepAliveTimeout;
    this.executor = b.executor;
    this.preferLeader = b.preferLeader;
    this.keepAliveStreams = b.streamKeepAlives ? new KeepAliveStreams(deadlines) : null;
    this.discover = b.discover != null ? b.discover : b.endpoints.size() == 1;
    this.syncWanted = discover;
    List<String> given = List.copyOf(b.endpoints);
    for (String e : given) {
      if (port(e) < 0) {
        throw new IllegalArgumentException("endpoint '" + e + "' is not host:port");
      }
    }
    this.routing = new LeaderRouting(given);
    List<ManagedChannel> opened = new ArrayList<>();
    for (int i = 0; i < given.size(); i++) {
      opened.add(open(given.get(i), i));
    }
    this.channels = List.copyOf(opened);
    this.endpoints = given;
  }

  /** The port of {@code host:port}, or -1 when it is not one. */
  private static int port(String endpoint) {
    int colon = endpoint.lastIndexOf(':');
    int port;
    try {
      port = colon <= 0 ? -1 : Integer.parseInt(endpoint.substring(colon + 1));
    } catch (NumberFormatException ex) {
      port = -1;
    }
    return port < 1 || port > 65_535 ? -1 : port;
  }

  /**
   * A channel to {@code endpoint} ({@code host:port}, checked), connecting lazily; with {@code index} >= 0 it
   * reports its replies' leader hints to the routing as that endpoint's.
   */
  private ManagedChannel open(String endpoint, int index) {
    NettyChannelBuilder nb = NettyChannelBuilder.forAddress(endpoint.substring(0, endpoint.lastIndexOf(':')),
            port(endpoint), credentials)
        .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
            connectTimeout.toMillis()))
        // Pings on a connection with calls in flight: a paused node or a silently dropped link turns into
        // UNAVAILABLE (then failover) for a blocking campaign or an Observe stream, which have no short deadline.
        .keepAliveTime(keepAliveTime.toMillis(), TimeUnit.MILLISECONDS)
        .keepAliveTimeout(keepAliveTimeout.toMillis(), TimeUnit.MILLISECONDS);
    if (index >= 0) {
      nb.intercept(new LeaderHintInterceptor(index, this::hint));
    }
    if (executor != null) {
      nb.executor(executor);
    }
    return nb.build();
  }

  /** A reply's leader hint (on gRPC's callback thread: nothing here blocks). */
  private void hint(int endpoint, LeaderRouting.Hint h) {
    boolean newTerm = routing.observe(endpoint, h);
    if (!discover) {
      return;
    }
    if (newTerm) {
      syncWanted = true;
    }
    LeaderRouting.Hint unreached = routing.unreachedLeader();
    if (unreached != null) {
      learn(unreached.leaderId(), unreached.leaderApi());
    }
    if (syncWanted) {
      sync(endpoint);
    }
  }

  /**
   * Adds {@code apiAddress} as the endpoint of member {@code id}, unless an endpoint already reaches that member
   * or has that address, or the address is not {@code host:port}.
   */
  private synchronized void learn(String id, String apiAddress) {
    if (closed || apiAddress.isEmpty() || port(apiAddress) < 0 || routing.endpointOf(id) >= 0
        || endpoints.contains(apiAddress)) {
      return;
    }
    List<ManagedChannel> chs = new ArrayList<>(channels);
    chs.add(open(apiAddress, chs.size()));
    List<String> eps = new ArrayList<>(endpoints);
    eps.add(apiAddress);
    channels = List.copyOf(chs); // before the routing can name the new index
    endpoints = List.copyOf(eps);
    routing.endpointsChanged(endpoints);
  }

  /**
   * Reads the member list from the node at {@code endpoint}, on a connection of its own (so that it takes
   * nothing from the per-connection budgets of the client's calls), and learns every member's API address; at
   * most one read at a time and one per {@link #SYNC_RETRY_NANOS}. A list with a member that has not published
   * its address yet, or a failed read, is read again at a later reply.
   */
  private void sync(int endpoint) {
    long now = System.nanoTime();
    if (now - nextSyncNanos < 0 || !syncing.compareAndSet(false, true)) {
      return;
    }
    ManagedChannel ch;
    synchronized (this) {
      if (closed) {
        syncing.set(false);
        return;
      }
      ch = open(endpoints.get(endpoint), -1);
      syncChannel = ch;
    }
    // Outside the context of the call whose reply triggered it, which is cancelled when that call ends.
    com.google.common.util.concurrent.ListenableFuture<MemberListResponse> reply;
    Context previous = Context.ROOT.attach();
    try {
      reply = ClusterGrpc.newFutureStub(ch).withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
          .memberList(MemberListRequest.getDefaultInstance());
    } finally {
      Context.ROOT.detach(previous);
    }
    reply.addListener(() -> {
      try {
        boolean complete = true;
        for (Member m : reply.get().getMembersList()) {
          complete &= !m.getApiAddress().isEmpty();
          learn(m.getId(), m.getApiAddress());
        }
        syncWanted = !complete;
      } catch (Exception e) {
        // unreachable, no quorum, or closed: read again at a later reply
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
      } finally {
        nextSyncNanos = System.nanoTime() + SYNC_RETRY_NANOS;
        ch.shutdownNow();
        syncing.set(false);
      }
    }, com.google.common.util.concurrent.MoreExecutors.directExecutor());
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

  /**
   * The endpoints this client uses, in order: those it was given, then those it learnt (see
   * {@link Builder#discoverEndpoints}); the list only grows.
   */
  public List<String> endpoints() {
    return endpoints;
  }

  /**
   * The endpoint ({@code host:port}) that calls for the Raft leader go to now, if the replies named a leader
   * that one of the endpoints reaches and that endpoint has not failed since; empty otherwise (calls then start
   * at the current endpoint).
   */
  public Optional<String> leaderEndpoint() {
    int i = preferLeader ? routing.leader() : -1;
    return i < 0 ? Optional.empty() : Optional.of(endpoints.get(i));
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

  /**
   * Renews a lease, on the endpoint's keepalive stream unless {@link Builder#streamKeepAlives} turned streams
   * off; returns its TTL in ms. NOT_FOUND once the lease is gone or its expiry is decided.
   */
  public long keepAlive(long leaseId, long timeoutMs) {
    return keepAliveAnswer(leaseId, timeoutMs).getTtlMs();
  }

  /** {@link #keepAlive} with the whole answer: the TTL and the answering node's clock reading ({@link ClockRate}). */
  LeaseKeepAliveResponse keepAliveAnswer(long leaseId, long timeoutMs) {
    return hedged(timeoutMs, keepAliveRpc(leaseId));
  }

  /**
   * {@link #keepAlive} without blocking, for a holder of many leases (as a load generator): the future
   * completes with the TTL in ms, or fails with the {@link StatusRuntimeException} that {@link #keepAlive}
   * would throw. Cancelling it cancels the attempts still out.
   */
  public CompletableFuture<Long> keepAliveAsync(long leaseId, long timeoutMs) {
    return HedgedCall.start(channels, start(true), budget(timeoutMs), hedgeAfterMs(timeoutMs, attemptTimeoutMs),
        deadlines, keepAliveRpc(leaseId), idx -> current = idx, this::hedgeFailed).thenApply(r -> r.getTtlMs());
  }

  private java.util.function.BiFunction<ManagedChannel, Deadline, ListenableFuture<LeaseKeepAliveResponse>>
      keepAliveRpc(long leaseId) {
    if (keepAliveStreams != null) {
      return (ch, d) -> keepAliveStreams.keepAlive(ch, leaseId, d);
    }
    LeaseKeepAliveRequest req = LeaseKeepAliveRequest.newBuilder().setId(leaseId).build();
    return (ch, d) -> LeaseGrpc.newFutureStub(ch).withDeadline(d).keepAlive(req);
  }

  /**
   * One daemon thread firing deadlines; a cancelled one leaves its queue at once (a keepalive answered in time
   * cancels its deadline: thousands a second with many leases).
   */
  private static ScheduledExecutorService deadlineTimer() {
    ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
      Thread th = new Thread(r, "regent-client-deadlines");
      th.setDaemon(true);
      return th;
    });
    t.setRemoveOnCancelPolicy(true);
    return t;
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
    return call(timeout.toMillis(), false, true, ch -> ElectionGrpc.newBlockingStub(ch)
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
      return Optional.of(call(callTimeoutMs, true, !serializable, ch -> ElectionGrpc.newBlockingStub(ch)
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
    ctx.run(() -> ElectionGrpc.newStub(currentChannel()).observe(ObserveRequest.newBuilder().setName(name)
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
    // not routed to the leader: it asks the answering node for its own view
    return call(callTimeoutMs, true, false, ch -> ClusterGrpc.newBlockingStub(ch)
        .withDeadlineAfter(callTimeoutMs, TimeUnit.MILLISECONDS)
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
      ListenableFuture<T>> rpc) {
    return HedgedCall.run(channels, start(true), budget(budgetMs), hedgeAfterMs(budgetMs, attemptTimeoutMs),
        deadlines, rpc, idx -> current = idx, this::hedgeFailed);
  }

  /** {@code budgetMs} from now, or the calling thread's gRPC context deadline when that comes first. */
  private static Deadline budget(long budgetMs) {
    Deadline overall = Deadline.after(Math.max(1, budgetMs), TimeUnit.MILLISECONDS);
    Deadline outer = Context.current().getDeadline();
    return outer != null && outer.isBefore(overall) ? outer : overall;
  }

  /** A hedged attempt's endpoint was unreachable or hung: calls for the leader start elsewhere for now. */
  private void hedgeFailed(int idx) {
    routing.failed(idx);
    moveOn(idx);
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
    return call(callTimeoutMs, true, true, rpc);
  }

  /** Runs a call that must not be re-sent after a timeout: it moves on only from an unreachable endpoint. */
  private <T> T callOnce(long budgetMs, Function<ManagedChannel, T> rpc) {
    return call(budgetMs, false, true, rpc);
  }

  /**
   * The endpoint a call starts at: with {@code toLeader} (and {@link Builder#preferLeader}) the leader's when
   * the routing knows it, else the current one.
   */
  private int start(boolean toLeader) {
    int c = current;
    return toLeader && preferLeader ? routing.start(c) : c;
  }

  /**
   * Runs {@code rpc} from the current endpoint (or the leader's) on: the next endpoint is tried after
   * UNAVAILABLE, and after DEADLINE_EXCEEDED when {@code retryOnTimeout}, with passes and pauses of the
   * {@link RetryPolicy}, until {@code budgetMs} (or the caller's context deadline) has passed.
   *
   * @param retryOnTimeout whether the call is safe to repeat after a timeout; each attempt then gets half of
   *     what is left of the budget (at least {@link #MIN_ATTEMPT_MS}, at most the attempt timeout)
   * @param toLeader whether the first attempt goes to the Raft leader's endpoint when it is known (writes and
   *     linearizable reads); the others follow in the endpoints' order from there
   */
  private <T> T call(long budgetMs, boolean retryOnTimeout, boolean toLeader, Function<ManagedChannel, T> rpc) {
    Deadline overall = Deadline.after(Math.max(1, budgetMs), TimeUnit.MILLISECONDS);
    Deadline outer = Context.current().getDeadline();
    if (outer != null && outer.isBefore(overall)) {
      overall = outer;
    }
    StatusRuntimeException last = null;
    int n = channels.size(); // endpoints learnt during the call are tried by the next one
    for (int pass = 0; pass < retry.rounds(); pass++) {
      for (int i = 0; i < n; i++) {
        int idx = pass == 0 && i == 0 ? start(toLeader) : current;
        List<ManagedChannel> chs = channels; // read after idx: an index the routing names is in it already
        Deadline attempt = overall;
        long leftMs = overall.timeRemaining(TimeUnit.MILLISECONDS);
        boolean lastTry = pass == retry.rounds() - 1 && i == n - 1;
        if (retryOnTimeout && !lastTry && leftMs > 2 * MIN_ATTEMPT_MS) {
          attempt = Deadline.after(Math.min(attemptTimeoutMs, Math.max(MIN_ATTEMPT_MS, leftMs / 2)),
              TimeUnit.MILLISECONDS);
        }
        try {
          return attempt(attempt, () -> rpc.apply(chs.get(idx)));
        } catch (StatusRuntimeException e) {
          Status.Code code = e.getStatus().getCode();
          boolean hung = code == Status.Code.DEADLINE_EXCEEDED;
          if (code != Status.Code.UNAVAILABLE && !hung) {
            throw e;
          }
          // The next call starts elsewhere, even when this one is not re-sent.
          routing.failed(idx);
          current = (idx + 1) % chs.size();
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
    synchronized (this) {
      closed = true;
      ManagedChannel sc = syncChannel;
      if (sc != null) {
        sc.shutdownNow();
      }
    }
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
    private boolean preferLeader = true;
    private boolean streamKeepAlives = true;
    private Boolean discover;

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

    /**
     * Whether writes and linearizable reads go first to the Raft leader's endpoint, learnt from the replies'
     * {@link LeaderMetadata}; default true. False keeps the endpoints' order for every call (a client that
     * should spread its calls over the nodes, or stick to one).
     */
    public Builder preferLeader(boolean prefer) {
      this.preferLeader = prefer;
      return this;
    }

    /**
     * Whether {@link RegentClient#keepAlive} sends its renewals over one {@code Lease/KeepAliveStream} per
     * endpoint (etcd's LeaseKeepAlive) instead of one unary call each; default true. The rules are the same
     * (hedging, failover, verdicts); a node without the stream gets unary calls.
     */
    public Builder streamKeepAlives(boolean stream) {
      this.streamKeepAlives = stream;
      return this;
    }

    /**
     * Whether the client learns the cluster's other endpoints: after its first reply (and after a new Raft term)
     * it reads the member list and adds each member's published API address, and adds the leader's address
     * when a reply names a leader that no endpoint reaches. Default: true when the client was given exactly
     * one endpoint (a bootstrap address), false for a list (taken as the endpoints to use: proxies, a subset).
     * The learnt addresses are those the nodes advertise ({@code --api-host}, or their Raft host): they must be
     * reachable from the client, and with TLS match the nodes' certificates.
     */
    public Builder discoverEndpoints(boolean discover) {
      this.discover = discover;
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
