package io.regent.server.metrics;

import io.grpc.ServerInterceptor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
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
import io.regent.statemachine.ratis.LeaseTimekeeper;
import io.regent.statemachine.replica.ReplicaView;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.impl.DefaultTimekeeperImpl;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.SnapshotInfo;

/**
 * The metrics of one Regent node, in a Prometheus registry of its own (several nodes may share a JVM in
 * tests). Series, all tagged {@code node}; Prometheus names (see docs/operations.md for what each means):
 *
 * <ul>
 *   <li>state: {@code regent_leases_live}, {@code regent_names_held}, {@code regent_candidates_waiting}
 *       (read from this node's LMDB at scrape time, cached for a second);
 *   <li>applied changes: {@code regent_lease_grants_total}, {@code regent_lease_ends_total} (expired or
 *       revoked), {@code regent_ownership_changes_total{kind=elected|proclaimed|resigned|expired|revoked}};
 *   <li>Raft: {@code regent_raft_term}, {@code regent_raft_commit_index}, {@code regent_raft_applied_index},
 *       {@code regent_raft_is_leader}, {@code regent_raft_has_leader}, {@code regent_raft_leader_changes_total};
 *   <li>snapshots: {@code regent_snapshot_index}, {@code regent_snapshot_size_bytes},
 *       {@code regent_snapshots_taken_total}, {@code regent_snapshot_duration_seconds} (mean of recent ones),
 *       {@code regent_snapshot_duration_max_seconds};
 *   <li>API: {@code regent_grpc_requests_seconds{method,status}}, {@code regent_keepalive_confirm_seconds};
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
  /** How often the Raft leader is sampled to count leader changes, ms. */
  static final long LEADER_POLL_MS = 100;
  /** How long one reading of the LMDB state counts serves the gauges, ms. */
  static final long STATE_CACHE_MS = 1000;

  private final PrometheusMeterRegistry registry;
  private final Counter grants;
  private final Counter ends;
  private final Timer keepAlive;
  private final Map<ChangeEvent.Kind, Counter> ownership = new EnumMap<>(ChangeEvent.Kind.class);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "regent-metrics");
    t.setDaemon(true);
    return t;
  });
  private volatile RaftServer.Division division;
  private volatile StateCounts counts;
  private String lastLeader;
  private long lastTerm = -1;
  private final Counter leaderChanges;

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
    this.grants = Counter.builder("regent.lease.grants").description("Lease grants applied on this node")
        .register(registry);
    this.ends = Counter.builder("regent.lease.ends")
        .description("Leases ended (expired or revoked) by entries applied on this node").register(registry);
    this.leaderChanges = Counter.builder("regent.raft.leader.changes")
        .description("Raft leaders (term, leader id) this node has seen, sampled every 100 ms").register(registry);
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

  /** Wraps the lease clock given to the state machine so that applied grants and ends are counted. */
  public LeaseTimekeeper countingTimekeeper(LeaseTimekeeper timekeeper) {
    return new CountingTimekeeper(timekeeper, grants, ends);
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
  }

  /** Reads Raft gauges from the local division of {@code server} and starts sampling leader changes. */
  public void bindRaft(RaftServer server, org.apache.ratis.protocol.RaftGroupId groupId) {
    Runnable find = () -> {
      if (division == null) {
        try {
          division = server.getDivision(groupId);
        } catch (Exception e) {
          // not started yet
        }
      }
    };
    Gauge.builder("regent.raft.term", () -> info().map(DivisionInfo::getCurrentTerm).orElse(-1L))
        .description("Current Raft term as this node knows it").register(registry);
    Gauge.builder("regent.raft.commit.index", () -> div().map(d -> d.getRaftLog().getLastCommittedIndex())
        .orElse(-1L)).description("Highest log index this node knows to be committed").register(registry);
    Gauge.builder("regent.raft.applied.index", () -> info().map(DivisionInfo::getLastAppliedIndex).orElse(-1L))
        .description("Highest log index applied to this node's state").register(registry);
    Gauge.builder("regent.raft.is.leader", () -> info().map(i -> i.isLeader() ? 1 : 0).orElse(0))
        .description("1 when this node is the Raft leader").register(registry);
    Gauge.builder("regent.raft.has.leader", () -> info().map(i -> i.getLeaderId() != null ? 1 : 0).orElse(0))
        .description("1 when this node knows a Raft leader").register(registry);
    Gauge.builder("regent.snapshot.index", () -> snapshot().map(SnapshotInfo::getIndex).orElse(-1L))
        .description("Log index of this node's latest snapshot").register(registry);
    Gauge.builder("regent.snapshot.size", () -> snapshot().map(RegentMetrics::size).orElse(0L))
        .baseUnit("bytes").description("Size of this node's latest snapshot").register(registry);
    FunctionCounter.builder("regent.snapshots.taken", this, m -> m.snapshotTimer().map(t -> (double) t.getCount())
        .orElse(0.0)).description("Snapshots this node has taken since it started").register(registry);
    Gauge.builder("regent.snapshot.duration", () -> snapshotTimer().map(t -> t.getSnapshot().getMean() / 1e9)
        .orElse(0.0)).baseUnit("seconds").description("Mean time of this node's recent snapshots")
        .register(registry);
    Gauge.builder("regent.snapshot.duration.max", () -> snapshotTimer().map(t -> t.getSnapshot().getMax() / 1e9)
        .orElse(0.0)).baseUnit("seconds").description("Longest of this node's recent snapshots")
        .register(registry);
    poller.scheduleWithFixedDelay(() -> {
      find.run();
      sampleLeader();
    }, 0, LEADER_POLL_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * Why this node is not ready, or empty when it is: it must be a member of its group, know a leader (be a
   * ready one, when it is the leader) and have applied up to its commit index within
   * {@link #READY_MAX_APPLY_LAG} entries.
   */
  public Optional<String> notReadyReason() {
    RaftServer.Division d = div().orElse(null);
    if (d == null) {
      return Optional.of("no Raft division yet");
    }
    DivisionInfo info = d.getInfo();
    if (!info.isAlive()) {
      return Optional.of("Raft division is not running");
    }
    if (info.getLeaderId() == null) {
      return Optional.of("no known Raft leader");
    }
    if (info.isLeader() && !info.isLeaderReady()) {
      return Optional.of("leader not ready yet");
    }
    long commit = d.getRaftLog().getLastCommittedIndex();
    long applied = info.getLastAppliedIndex();
    if (commit - applied > READY_MAX_APPLY_LAG) {
      return Optional.of("applied index " + applied + " trails commit index " + commit);
    }
    return Optional.empty();
  }

  private synchronized void sampleLeader() {
    Optional<DivisionInfo> info = info();
    if (info.isEmpty() || info.get().getLeaderId() == null) {
      return;
    }
    String leader = info.get().getLeaderId().toString();
    long term = info.get().getCurrentTerm();
    if (!leader.equals(lastLeader) || term != lastTerm) {
      leaderChanges.increment();
      lastLeader = leader;
      lastTerm = term;
    }
  }

  private Optional<RaftServer.Division> div() {
    return Optional.ofNullable(division);
  }

  private Optional<DivisionInfo> info() {
    return div().map(RaftServer.Division::getInfo);
  }

  private Optional<SnapshotInfo> snapshot() {
    return div().map(d -> d.getStateMachine().getLatestSnapshot());
  }

  private static long size(SnapshotInfo s) {
    List<FileInfo> files = s.getFiles();
    long total = 0;
    for (FileInfo f : files) {
      total += f.getPath().toFile().length();
    }
    return total;
  }

  /** Ratis's own "takeSnapshot" timer of this division (ratis-metrics-default), when it exists. */
  private Optional<org.apache.ratis.thirdparty.com.codahale.metrics.Timer> snapshotTimer() {
    RaftServer.Division d = division;
    if (d == null) {
      return Optional.empty();
    }
    String member = d.getMemberId().toString();
    for (RatisMetricRegistry r : MetricRegistries.global().getMetricRegistries()) {
      var info = r.getMetricRegistryInfo();
      if ("state_machine".equals(info.getMetricsComponentName()) && info.getPrefix().contains(member)
          && r.timer("takeSnapshot") instanceof DefaultTimekeeperImpl t) {
        return Optional.of(t.getTimer());
      }
    }
    return Optional.empty();
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
        return new StateCounts(now, txn.allLeases().size(), held, waiting);
      });
      counts = c;
    }
    return c;
  }

  private record StateCounts(long at, long leases, long held, long waiting) {
  }

  @Override
  public void close() {
    poller.shutdownNow();
    gc.close();
    registry.close();
  }
}
