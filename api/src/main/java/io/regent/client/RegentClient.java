package io.regent.client;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A Regent client over a list of endpoints ({@code host:port} of any nodes' public API), in the shape of etcd's
 * {@code client/v3}: one face per service — {@link #leases()}, {@link #elections()}, {@link #cluster()} — over
 * shared connections. Every node accepts every call (a follower forwards writes to the Raft leader), but the
 * leader answers writes and linearizable reads one network hop sooner, so the client routes them there
 * (docs/api.md, "Leader-aware routing"):
 *
 * <ul>
 *   <li>Every reply, refusals included, names the leader and the Raft term in its {@link LeaderMetadata}; the
 *       client keeps the leader of the highest term and, when one of its endpoints reaches it, starts writes
 *       and linearizable reads (and keepalives, campaigns, membership changes) there, the other endpoints
 *       following in their order as fallback. With no leader known, and for serializable reads,
 *       {@link Cluster#status} and streams (Observe, Watch), calls start at the current endpoint, as before.
 *   <li>When the leader's endpoint fails (below), calls start at the current endpoint again until a reply names
 *       a leader of a new term or the leader itself answers again.
 *   <li>A client given one endpoint learns the others (etcd's auto-sync, Kafka's bootstrap servers): after its
 *       first reply it reads the member list and adds every member's published API address as an endpoint
 *       ({@link RegentClientBuilder#discoverEndpoints}), again after a new term.
 * </ul>
 *
 * <p>Failover: the client moves on to the next endpoint when one is unreachable or hangs (docs/architecture.md
 * §7). Every mutating call carries a request id of its own, the same on each re-send, so the server applies it
 * once (docs/api.md "Request ids"). UNAVAILABLE moves every call on; after DEADLINE_EXCEEDED the calls that
 * docs/api.md's table names safe are re-sent (grants and campaigns with a TTL among them, by their request id),
 * keepalives are hedged, blocking campaigns wait out their own timeout, and membership changes are not re-sent.
 * The whole rule, call by call, lives in one place: {@code Calls}.
 *
 * <p>Every call has a deadline: {@link RegentClientBuilder#callTimeout} for unary calls,
 * {@link RegentClientBuilder#campaignTimeout} for blocking campaigns, the caller's for keepalives; a deadline
 * in the calling thread's gRPC {@link io.grpc.Context} bounds every attempt too. Errors are
 * {@link StatusRuntimeException}s with the codes of docs/architecture.md §7: INVALID_ARGUMENT, NOT_FOUND,
 * FAILED_PRECONDITION, UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED. Thread-safe.
 */
public final class RegentClient implements AutoCloseable {
  /** Default deadline of unary calls other than campaigns, ms. */
  public static final long CALL_TIMEOUT_MS = 15_000;

  private final Endpoints endpoints;
  private final Calls calls;
  private final Leases leases;
  private final Elections elections;
  private final Cluster cluster;

  /** Built by {@link RegentClientBuilder#build}. */
  RegentClient(RegentClientBuilder b, io.grpc.ChannelCredentials credentials) {
    this.endpoints = new Endpoints(b, credentials);
    this.calls = new Calls(endpoints, b.callTimeout.toMillis(), b.attemptTimeout.toMillis(), b.retry);
    this.leases = new Leases(calls, b.streamKeepAlives);
    this.elections = new Elections(calls, endpoints, b.campaignTimeout.toMillis());
    this.cluster = new Cluster(calls);
  }

  /** Connects (lazily, in plaintext) to {@code endpoints}, each {@code host:port}. */
  public static RegentClient connect(List<String> endpoints) {
    return builder().endpoints(endpoints).build();
  }

  /** Parses a comma-separated endpoint list ({@code h1:p1,h2:p2}). */
  public static RegentClient connect(String endpoints) {
    return connect(List.of(endpoints.split(",")));
  }

  /** A builder, for TLS, client certificates, timeouts and routing. */
  public static RegentClientBuilder builder() {
    return new RegentClientBuilder();
  }

  /** Leases: grant, keepalive, revoke, time-to-live, list ({@code regent.v1.Lease}). */
  public Leases leases() {
    return leases;
  }

  /** Elections: campaign, proclaim, resign, fresh token, leader, observe ({@code regent.v1.Election}). */
  public Elections elections() {
    return elections;
  }

  /** The cluster: status, members, membership changes, leadership transfer ({@code regent.v1.Cluster}). */
  public Cluster cluster() {
    return cluster;
  }

  /**
   * The endpoints this client uses, in order: those it was given, then those it learnt (see
   * {@link RegentClientBuilder#discoverEndpoints}); the list only grows.
   */
  public List<String> endpoints() {
    return endpoints.addresses();
  }

  /**
   * The endpoint ({@code host:port}) that calls for the Raft leader go to now, if the replies named a leader
   * that one of the endpoints reaches and that endpoint has not failed since; empty otherwise (calls then start
   * at the current endpoint).
   */
  public Optional<String> leaderEndpoint() {
    return endpoints.leaderEndpoint();
  }

  /**
   * Runs a call that is safe to repeat, within {@link RegentClientBuilder#callTimeout}, by {@link Calls}'s rule:
   * for the other clients of this package over this client's endpoints, e.g. {@link GroupClient}.
   */
  <T> T call(Function<ManagedChannel, T> rpc) {
    return calls.call(rpc);
  }

  /** The channel of the current endpoint (for streams, which do not move between endpoints by themselves). */
  ManagedChannel currentChannel() {
    return endpoints.currentChannel();
  }

  /** Index of the endpoint calls start at (an Observe stream is opened there). */
  int currentEndpoint() {
    return endpoints.currentEndpoint();
  }

  /** Moves on from endpoint {@code failed} to the next one, unless another call has already moved on. */
  void moveOn(int failed) {
    endpoints.moveOn(failed);
  }

  /** Closes every connection at once (calls in flight fail) and stops the deadline timer. */
  @Override
  public void close() {
    endpoints.close();
    calls.close();
  }
}
