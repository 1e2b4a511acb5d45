package io.regent.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.impl.DefaultTimekeeperImpl;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.SnapshotInfo;

/**
 * The Raft side of one cell's metrics on a node, read from its Ratis division: term, commit and applied index,
 * leader role and changes, snapshots, whether the division stopped for good; and the cell's readiness check of
 * {@code /readyz}. Every series is tagged {@code cell} (docs/architecture.md §14). Gauges read the division at
 * scrape time; leader changes are sampled every {@value #LEADER_POLL_MS} ms on the node's scheduler.
 */
final class RaftMetrics implements AutoCloseable {
  /** How often the Raft leader is sampled to count leader changes, ms. */
  static final long LEADER_POLL_MS = 100;

  private final int cell;
  private final Supplier<Optional<String>> stopped;
  private final ScheduledFuture<?> sampling;
  private final Counter leaderChanges;
  private volatile RaftServer.Division division;
  private String lastLeader;
  private long lastTerm = -1;

  /**
   * Registers the gauges of cell {@code cell} on {@code registry} and starts sampling its group {@code groupId} of
   * {@code server} on {@code timers}; {@code stopped} says why the cell's division stopped for good, or empty.
   */
  RaftMetrics(MeterRegistry registry, RaftServer server, RaftGroupId groupId, int cell,
              Supplier<Optional<String>> stopped, ScheduledExecutorService timers) {
    this.cell = cell;
    this.stopped = stopped;
    Tags tags = Tags.of("cell", String.valueOf(cell));
    Gauge.builder("regent.cell.stopped", () -> stopped.get().isPresent() ? 1 : 0).tags(tags)
        .description("1 once this cell's division on this node stopped for good (an apply fault; only a restart "
            + "brings it back); the node serves its other cells").register(registry);
    this.leaderChanges = Counter.builder("regent.raft.leader.changes")
        .tags(tags).description("Raft leaders (term, leader id) this node has seen, sampled every 100 ms").register(registry);
    Gauge.builder("regent.raft.term", () -> info().map(DivisionInfo::getCurrentTerm).orElse(-1L))
        .tags(tags).description("Current Raft term as this node knows it").register(registry);
    Gauge.builder("regent.raft.commit.index", () -> div().map(d -> d.getRaftLog().getLastCommittedIndex())
        .orElse(-1L)).tags(tags).description("Highest log index this node knows to be committed").register(registry);
    Gauge.builder("regent.raft.applied.index", () -> info().map(DivisionInfo::getLastAppliedIndex).orElse(-1L))
        .tags(tags).description("Highest log index applied to this node's state").register(registry);
    Gauge.builder("regent.raft.is.leader", () -> info().map(i -> i.isLeader() ? 1 : 0).orElse(0))
        .tags(tags).description("1 when this node is the Raft leader").register(registry);
    Gauge.builder("regent.raft.has.leader", () -> info().map(i -> i.getLeaderId() != null ? 1 : 0).orElse(0))
        .tags(tags).description("1 when this node knows a Raft leader").register(registry);
    Gauge.builder("regent.snapshot.index", () -> snapshot().map(SnapshotInfo::getIndex).orElse(-1L))
        .tags(tags).description("Log index of this node's latest snapshot").register(registry);
    Gauge.builder("regent.snapshot.size", () -> snapshot().map(RaftMetrics::size).orElse(0L))
        .baseUnit("bytes").tags(tags).description("Size of this node's latest snapshot").register(registry);
    FunctionCounter.builder("regent.snapshots.taken", this, m -> m.snapshotTimer().map(t -> (double) t.getCount())
        .orElse(0.0)).tags(tags).description("Snapshots this node has taken since it started").register(registry);
    Gauge.builder("regent.snapshot.duration", () -> snapshotTimer().map(t -> t.getSnapshot().getMean() / 1e9)
        .orElse(0.0)).baseUnit("seconds").tags(tags).description("Mean time of this node's recent snapshots")
        .register(registry);
    Gauge.builder("regent.snapshot.duration.max", () -> snapshotTimer().map(t -> t.getSnapshot().getMax() / 1e9)
        .orElse(0.0)).baseUnit("seconds").tags(tags).description("Longest of this node's recent snapshots")
        .register(registry);
    sampling = timers.scheduleWithFixedDelay(() -> {
      if (division == null) {
        try {
          division = server.getDivision(groupId);
        } catch (Exception e) {
          return; // not started yet
        }
      }
      sampleLeader();
    }, 0, LEADER_POLL_MS, TimeUnit.MILLISECONDS);
  }

  /** The cell these metrics are of. */
  int cell() {
    return cell;
  }

  /** Why the cell's division stopped for good, or empty while it has not. */
  Optional<String> stoppedReason() {
    return stopped.get();
  }

  /** Why the cell is not ready on this node, or empty: see {@link RegentMetrics#notReadyReason()}. */
  Optional<String> notReadyReason() {
    RaftServer.Division d = division;
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
    if (commit - applied > RegentMetrics.READY_MAX_APPLY_LAG) {
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
    long total = 0;
    for (FileInfo f : s.getFiles()) {
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

  @Override
  public void close() {
    sampling.cancel(false);
  }
}
