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
import io.regent.statemachine.ratis.ApplyObserver;
import io.regent.statemachine.replica.ReplicaView;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;

/**
 * The metrics of one Regent node, in a Prometheus registry of its own (several nodes may share a JVM in
 * tests). Series, all tagged {@code node}, those of one cell also {@code cell} (docs/architecture.md §14); Prometheus
 * names (see docs/operations.md for what each means):
 *
 * <ul>
 *   <li>state, per cell ({@link StateGauges}): {@code regent_leases_live}, {@code regent_names_held},
 *       {@code regent_candidates_waiting}, … (read from the cell's LMDB at scrape time, cached for a second);
 *   <li>applies ({@link ApplyMetrics}): {@code regent_apply_seconds{command}}, {@code regent_lease_grants_total},
 *       {@code regent_lease_expiries_total}, {@code regent_lease_revocations_total}, {@code regent_resigns_total},
 *       {@code regent_ownership_changes_total{kind=elected|proclaimed|resigned|expired|revoked}};
 *   <li>Raft, per cell ({@link RaftMetrics}): {@code regent_raft_term}, {@code regent_raft_commit_index},
 *       {@code regent_raft_applied_index}, {@code regent_raft_is_leader}, {@code regent_raft_has_leader},
 *       {@code regent_raft_leader_changes_total}, {@code regent_cell_stopped};
 *   <li>followers, on the leader only ({@link FollowerLagMetrics}): {@code regent_follower_lag_entries{follower}},
 *       {@code regent_follower_lag_seconds{follower}};
 *   <li>snapshots, per cell ({@link RaftMetrics}): {@code regent_snapshot_index}, {@code regent_snapshot_size_bytes},
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

  private final PrometheusMeterRegistry registry;
  private final ApplyMetrics applies;
  private final Timer keepAlive;
  private final Map<ChangeEvent.Kind, Counter> ownership = new EnumMap<>(ChangeEvent.Kind.class);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final FollowerLagMetrics followerLag;
  /** One per cell, cell 0 first. */
  private final List<RaftMetrics> raft = new CopyOnWriteArrayList<>();
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

  /**
   * Counts ownership changes from {@code view}'s events (node-wide, summed over cells) and reads the state gauges of
   * cell {@code cell} from it ({@link StateGauges}, tagged {@code cell}).
   */
  public void bindReplica(ReplicaView view, int cell) {
    view.hub().listen(e -> {
      Counter c = ownership.get(e.kind());
      if (c != null) {
        c.increment();
      }
    });
    StateGauges.bind(registry, view, cell);
  }

  /** Reports the Watch watchers open on the node's etcd port, {@code regent_kv_watchers}. */
  public void bindEtcdWatchers(LongSupplier watchers) {
    Gauge.builder("regent.kv.watchers", watchers::getAsLong)
        .description("Watch watchers open on this node's etcd port (docs/migrating.md, etcd's Watch)").register(registry);
  }

  /**
   * Reads the Raft gauges of cell {@code cell} from its local division ({@code groupId} of {@code server}) and starts
   * sampling its leader changes on {@code timers} (the node's scheduler); {@code stopped} says why the cell's division
   * stopped for good, or empty. Bound once per cell, cell 0 first.
   */
  public void bindRaft(RaftServer server, RaftGroupId groupId, int cell, Supplier<Optional<String>> stopped,
                       ScheduledExecutorService timers) {
    raft.add(new RaftMetrics(registry, server, groupId, cell, stopped, timers));
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
   * Why this node is not ready, or empty when it is: in each cell it must be a member of the cell's group, know a
   * leader (be a ready one, when it is the leader) and have applied up to its commit index within
   * {@link #READY_MAX_APPLY_LAG} entries. On a cluster of several cells each reason names its cell, and a cell whose
   * division stopped for good (an apply fault: only a restart brings it back) does not count: the node serves the
   * others (docs/operations.md, "Health").
   */
  public Optional<String> notReadyReason() {
    List<RaftMetrics> cells = List.copyOf(raft);
    if (cells.isEmpty()) {
      return Optional.of("no Raft division yet");
    }
    if (cells.size() == 1) {
      return cells.get(0).notReadyReason();
    }
    List<String> why = new ArrayList<>();
    for (RaftMetrics r : cells) {
      if (r.cell() == 0 || r.stoppedReason().isEmpty()) {
        r.notReadyReason().ifPresent(w -> why.add("cell " + r.cell() + ": " + w));
      }
    }
    return why.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", why));
  }

  /**
   * The cells whose division on this node stopped for good, each with why ({@code cell 2: ...}); empty when none.
   * {@code /readyz} adds them to its answer.
   */
  public List<String> stoppedCells() {
    List<String> out = new ArrayList<>();
    for (RaftMetrics r : raft) {
      r.stoppedReason().ifPresent(w -> out.add("cell " + r.cell() + " stopped: " + w));
    }
    return out;
  }

  @Override
  public void close() {
    raft.forEach(RaftMetrics::close);
    gc.close();
    registry.close();
  }
}
