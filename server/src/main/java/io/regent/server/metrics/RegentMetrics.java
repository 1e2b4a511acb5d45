package io.regent.server.metrics;

import io.grpc.ServerInterceptor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.regent.server.confirm.ClockRateCheck;
import io.regent.server.membership.FollowerLag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.ratis.ApplyObserver;
import io.regent.statemachine.replica.ReplicaView;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;

/**
 * The metrics of one Regent node, in a Prometheus registry of its own (several nodes may share a JVM in
 * tests). Series, all tagged {@code node}; Prometheus names (see docs/operations.md for what each means):
 *
 * <ul>
 *   <li>state: {@code regent_leases_live}, {@code regent_names_held}, {@code regent_candidates_waiting}
 *       (read from this node's LMDB at scrape time, cached for a second);
 *   <li>applies ({@link ApplyMetrics}): {@code regent_apply_seconds{command}}, {@code regent_lease_grants_total},
 *       {@code regent_lease_expiries_total}, {@code regent_lease_revocations_total}, {@code regent_resigns_total},
 *       {@code regent_ownership_changes_total{kind=elected|proclaimed|resigned|expired|revoked}};
 *   <li>Raft ({@link RaftMetrics}): {@code regent_raft_term}, {@code regent_raft_commit_index},
 *       {@code regent_raft_applied_index}, {@code regent_raft_is_leader}, {@code regent_raft_has_leader},
 *       {@code regent_raft_leader_changes_total};
 *   <li>followers, on the leader only ({@link FollowerLagMetrics}): {@code regent_follower_lag_entries{follower}},
 *       {@code regent_follower_lag_seconds{follower}};
 *   <li>snapshots ({@link RaftMetrics}): {@code regent_snapshot_index}, {@code regent_snapshot_size_bytes},
 *       {@code regent_snapshots_taken_total}, {@code regent_snapshot_duration_seconds} (mean of recent ones),
 *       {@code regent_snapshot_duration_max_seconds};
 *   <li>API: {@code regent_grpc_requests_seconds{method,status}}, {@code regent_keepalive_confirm_seconds};
 *   <li>storage ({@link StorageMetrics}): {@code regent_data_dir_free_bytes}, {@code regent_data_dir_full};
 *   <li>JVM and process: {@code jvm_*}, {@code process_*}, {@code system_*}.
 * </ul>
 */
public final class RegentMetrics implements AutoCloseable {
  /** Histogram buckets of the latency timers: 1 ms to 10 s. */
  static final Duration[] BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5),
      Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
      Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500),
      Duration.ofSeconds(5), Duration.ofSeconds(10)};
  /** A node whose applied index trails its commit index by more than this is not ready. */
  public static final long READY_MAX_APPLY_LAG = 100;
  /** How long one reading of the LMDB state counts serves the gauges, ms. */
  static final long STATE_CACHE_MS = 1000;

  private final PrometheusMeterRegistry registry;
  private final ApplyMetrics applies;
  private final Timer keepAlive;
  private final Map<ChangeEvent.Kind, Counter> ownership = new EnumMap<>(ChangeEvent.Kind.class);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final FollowerLagMetrics followerLag;
  private volatile RaftMetrics raft;
  private volatile StateCounts counts;
  private volatile Supplier<Optional<String>> notLive = Optional::empty;

  /** A registry for node {@code nodeId} with the JVM and process metrics bound. */
  public RegentMetrics(String nodeId) {
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().commonTags(Tags.of("node", nodeId));
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    this.applies = new ApplyMetrics(registry);
    this.followerLag = new FollowerLagMetrics(registry);
    for (ChangeEvent.Kind k : ChangeEvent.Kind.values()) {
      if (k.isOwnershipChange()) {
        ownership.put(k, Counter.builder("regent.ownership.changes")
            .description("Ownership changes of names applied on this node, by kind")
            .tag("kind", k.name().toLowerCase(Locale.ROOT)).register(registry));
      }
    }
    this.keepAlive = Timer.builder("regent.keepalive.confirm")
        .description("Lease KeepAlive calls answered OK: arrival to acknowledgement, i.e. one leadership "
            + "confirmation round")
        .serviceLevelObjectives(BUCKETS).register(registry);
  }

  /** The registry (tests, other binders). */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The Prometheus text exposition of every series. */
  public String scrape() {
    return registry.scrape();
  }

  /** The observer to give the state machine: times each apply and counts grants, expiries, revocations, resigns. */
  public ApplyObserver applyObserver() {
    return applies;
  }

  /** The interceptor that times every call of the public API. */
  public ServerInterceptor grpcInterceptor() {
    return new GrpcMetricsInterceptor(registry, keepAlive);
  }

  /** Counts ownership changes from {@code view}'s events and reads its state gauges. */
  public void bindReplica(ReplicaView view) {
    view.hub().listen(e -> {
      Counter c = ownership.get(e.kind());
      if (c != null) {
        c.increment();
      }
    });
    Gauge.builder("regent.leases.live", () -> counts(view).leases)
        .description("Leases in this node's state").register(registry);
    Gauge.builder("regent.names.held", () -> counts(view).held)
        .description("Names (elections and locks) with a holder in this node's state").register(registry);
    Gauge.builder("regent.candidates.waiting", () -> counts(view).waiting)
        .description("Candidates queued behind a holder, summed over names").register(registry);
    Gauge.builder("regent.request.records", () -> counts(view).requests)
        .description("Stored answers to request ids (docs/api.md, request ids), at most 100 000").register(registry);
    Gauge.builder("regent.request.record.bytes", () -> counts(view).requestBytes)
        .description("Bytes of the stored answers to request ids, at most 32 MiB").register(registry);
    Gauge.builder("regent.kv.keys", () -> counts(view).kvKeys)
        .description("Keys in etcd's keyspace in this node's state (docs/migrating.md, etcd's KV)").register(registry);
    Gauge.builder("regent.kv.bytes", () -> counts(view).kvBytes)
        .description("Bytes of LMDB pages etcd's keyspace takes in this node's state").register(registry);
    Gauge.builder("regent.kv.history.revisions", () -> counts(view).historyRevisions)
        .description("Revisions of etcd's keyspace whose watch events are kept (docs/migrating.md, etcd's Watch), "
            + "at most 10 000").register(registry);
    Gauge.builder("regent.kv.history.bytes", () -> counts(view).historyBytes)
        .description("Bytes of the kept watch events of etcd's keyspace, at most 64 MiB").register(registry);
  }

  /** Reports the Watch watchers open on the node's etcd port, {@code regent_kv_watchers}. */
  public void bindEtcdWatchers(LongSupplier watchers) {
    Gauge.builder("regent.kv.watchers", watchers::getAsLong)
        .description("Watch watchers open on this node's etcd port (docs/migrating.md, etcd's Watch)").register(registry);
  }

  /**
   * Reads Raft gauges from the local division of {@code server} and starts sampling leader changes on
   * {@code timers} (the node's scheduler).
   */
  public void bindRaft(RaftServer server, RaftGroupId groupId, ScheduledExecutorService timers) {
    raft = new RaftMetrics(registry, server, groupId, timers);
  }

  /**
   * Reports the free space of data directory {@code root} and whether it is full; {@code storageFault} is why the
   * replica's storage failed for good, or empty.
   */
  public void bindDataDir(Path root, Supplier<Optional<String>> storageFault) {
    StorageMetrics.bind(registry, root, storageFault);
  }

  /**
   * Reports each peer's clock rate relative to this node's, {@code regent_peer_clock_rate{peer}} (NaN while unknown
   * or stale), and {@code regent_leadership_lease_clock_withheld}: 1 while a voter's rate is unknown, stale or beyond
   * the bound, so that this node, as leader, holds no leadership lease from a round that voter may have acknowledged
   * (docs/operations.md, "Clock rates").
   */
  public void bindClockRates(ClockRateCheck rates) {
    Gauge.builder("regent.leadership.lease.clock.withheld", () -> rates.withheld() ? 1 : 0)
        .description("1 while a voter's clock rate is unknown, stale or beyond the bound: no leadership lease from "
            + "a round that voter may have acknowledged; else 0").register(registry);
    rates.onNewPeer(peer -> Gauge.builder("regent.peer.clock.rate", () -> rates.rate(peer))
        .description("A peer's clock rate relative to this node's (1.0: equal), from the clock probes; NaN while "
            + "unknown or stale").tag("peer", peer).register(registry));
  }

  /**
   * Exports {@code lag}, each follower's lag by id as this node sampled it now (empty when it does not lead), as
   * {@code regent_follower_lag_entries{follower}} and {@code regent_follower_lag_seconds{follower}}.
   */
  public void followerLag(Map<String, FollowerLag> lag) {
    followerLag.update(lag);
  }

  /** Sets what says why this node is not live ({@code /healthz}); until set, it always is. */
  public void bindLiveness(Supplier<Optional<String>> reason) {
    this.notLive = reason;
  }

  /**
   * Why this node is not live — its Raft division stopped for good, so only a restart brings it back
   * (docs/operations.md, "Health") — or empty while it is.
   */
  public Optional<String> notLiveReason() {
    return notLive.get();
  }

  /**
   * Why this node is not ready, or empty when it is: it must be a member of its group, know a leader (be a
   * ready one, when it is the leader) and have applied up to its commit index within
   * {@link #READY_MAX_APPLY_LAG} entries.
   */
  public Optional<String> notReadyReason() {
    RaftMetrics r = raft;
    return r == null ? Optional.of("no Raft division yet") : r.notReadyReason();
  }

  private StateCounts counts(ReplicaView view) {
    StateCounts c = counts;
    long now = System.nanoTime();
    if (c == null || now - c.at > TimeUnit.MILLISECONDS.toNanos(STATE_CACHE_MS)) {
      c = view.read(txn -> {
        long held = 0;
        long waiting = 0;
        for (NameRecord n : txn.allNames()) {
          held += n.hasHolder() ? 1 : 0;
          waiting += n.getCandidatesCount();
        }
        return new StateCounts(now, txn.allLeases().size(), held, waiting, txn.requests().count(),
            txn.requests().bytes(), txn.kv().count(), txn.kv().bytes(), txn.kvHistory().count(),
            txn.kvHistory().bytes());
      });
      counts = c;
    }
    return c;
  }

  private record StateCounts(long at, long leases, long held, long waiting, long requests, long requestBytes,
                             long kvKeys, long kvBytes, long historyRevisions, long historyBytes) {
  }

  @Override
  public void close() {
    RaftMetrics r = raft;
    if (r != null) {
      r.close();
    }
    gc.close();
    registry.close();
  }
}
