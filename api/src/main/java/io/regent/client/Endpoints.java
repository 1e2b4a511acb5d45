package io.regent.client;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.ChannelCredentials;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.Member;
import io.regent.api.v1.MemberListRequest;
import io.regent.api.v1.MemberListResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link RegentClient}'s endpoints: one channel per endpoint, the leader hints of their replies
 * ({@link LeaderRouting}), the endpoint calls start at, and the endpoints learnt from the member list
 * ({@link RegentClientBuilder#discoverEndpoints}). Which calls move on, and when, is {@link Calls}'s rule; this
 * class only keeps where they are. Thread-safe.
 */
final class Endpoints {
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
  /** The client's namespace prefix, "" for none (NamespaceInterceptor). */
  private final String namespace;
  private final LeaderRouting routing;
  private final boolean preferLeader;
  private final boolean discover;
  /** Deadline of a member-list read, ms (the client's call timeout). */
  private final long syncTimeoutMs;
  /** Whether the member list should be read (again): at first, after a new term, after an incomplete list. */
  private volatile boolean syncWanted;
  private final AtomicBoolean syncing = new AtomicBoolean();
  /** The highest applied index the replies showed, for re-sends (one for all endpoints). */
  private final SeenIndex seenIndex = new SeenIndex();
  private volatile long nextSyncNanos = System.nanoTime();
  /** The connection of its own that a member-list read in flight uses (closed with the client). */
  private volatile ManagedChannel syncChannel;
  private volatile boolean closed;
  private volatile int current;

  /**
   * Opens (lazily) a channel to each of {@code b}'s endpoints.
   *
   * @throws IllegalArgumentException for no endpoint, or one that is not {@code host:port}
   */
  Endpoints(RegentClientBuilder b, ChannelCredentials credentials) {
    if (b.endpoints.isEmpty()) {
      throw new IllegalArgumentException("at least one endpoint is required");
    }
    this.syncTimeoutMs = b.callTimeout.toMillis();
    this.credentials = credentials;
    this.connectTimeout = b.connectTimeout;
    this.keepAliveTime = b.keepAliveTime;
    this.keepAliveTimeout = b.keepAliveTimeout;
    this.executor = b.executor;
    this.namespace = b.namespace;
    this.preferLeader = b.preferLeader;
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
      nb.intercept(new LeaderHintInterceptor(index, this::hint), seenIndex);
    }
    if (!namespace.isEmpty()) {
      nb.intercept(new NamespaceInterceptor(namespace));
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
    ListenableFuture<MemberListResponse> reply;
    Context previous = Context.ROOT.attach();
    try {
      reply = ClusterGrpc.newFutureStub(ch).withDeadlineAfter(syncTimeoutMs, TimeUnit.MILLISECONDS)
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
    }, MoreExecutors.directExecutor());
  }

  /** The highest applied index the replies of every endpoint have shown so far; 0 before any. */
  long seenIndex() {
    return seenIndex.highest();
  }

  /** The endpoints ({@code host:port}) in order: those given, then those learnt; the list only grows. */
  List<String> addresses() {
    return endpoints;
  }

  /** The channels, one per endpoint in the order of {@link #addresses}; a snapshot (an index stays valid). */
  List<ManagedChannel> channels() {
    return channels;
  }

  /** Index of the leader's endpoint that calls for the leader go to now, or -1 (none known, suspect, or not preferred). */
  int leaderIndex() {
    return preferLeader ? routing.leader() : -1;
  }

  /** The leader's endpoint that calls for the leader go to now, if any (see {@link RegentClient#leaderEndpoint}). */
  Optional<String> leaderEndpoint() {
    int i = preferLeader ? routing.leader() : -1;
    return i < 0 ? Optional.empty() : Optional.of(endpoints.get(i));
  }

  /**
   * The endpoint a call starts at: with {@code toLeader} (and {@link RegentClientBuilder#preferLeader}) the
   * leader's when the routing knows it, else the current one.
   */
  int start(boolean toLeader) {
    int c = current;
    return toLeader && preferLeader ? routing.start(c) : c;
  }

  /** The channel of the current endpoint (for streams, which do not move between endpoints by themselves). */
  ManagedChannel currentChannel() {
    return channels.get(current);
  }

  /** Index of the endpoint calls start at (an Observe stream is opened there). */
  int currentEndpoint() {
    return current;
  }

  /** Endpoint {@code idx} answered: calls start there from now on, and a suspect leader there is trusted again. */
  void answered(int idx) {
    current = idx;
    routing.answered(idx);
  }

  /**
   * Endpoint {@code idx} of {@code count} was unreachable, hung or refused with UNAVAILABLE: the next call starts
   * at the endpoint after it, and, unless the node answered the refusal itself ({@link NodeRefusal}), calls for
   * the leader start elsewhere for now.
   */
  void failed(int idx, int count, boolean nodeAnswered) {
    if (!nodeAnswered) {
      routing.failed(idx);
    }
    current = (idx + 1) % count;
  }

  /**
   * A call sent to endpoint {@code idx} as the leader's has had no answer for {@link Calls#LEADER_QUIET_MS}: when
   * it is still the leader's endpoint, calls for the leader start elsewhere for now, and this call goes on waiting.
   * When it is the current endpoint as well, the calls start at the next one: a frozen node forwards nothing.
   */
  void quiet(int idx) {
    if (routing.leader() == idx) {
      routing.failed(idx);
      moveOn(idx);
    }
  }

  /** A hedged attempt's endpoint failed: as {@link #failed}, moving on unless another call has already. */
  void hedgeFailed(int idx, boolean nodeAnswered) {
    if (!nodeAnswered) {
      routing.failed(idx);
    }
    moveOn(idx);
  }

  /** Moves on from endpoint {@code failed} to the next one, unless another call has already moved on. */
  void moveOn(int failed) {
    if (current == failed) {
      current = (failed + 1) % channels.size();
    }
  }

  /** Closes every channel, and the member-list read's in flight; nothing is learnt afterwards. */
  void close() {
    synchronized (this) {
      closed = true;
      ManagedChannel sc = syncChannel;
      if (sc != null) {
        sc.shutdownNow();
      }
    }
    channels.forEach(ManagedChannel::shutdownNow);
  }
}
