package io.regent.server.api;

import io.regent.server.membership.ClusterView;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LockGrpc;
import io.regent.api.v1.StatusResponse;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the standard gRPC health service tell the truth (docs/operations.md, "Health"): the overall service
 * ({@code ""}) and Lease, Election, Lock and Cluster are SERVING only while this node knows a Raft leader and
 * has, since it started, applied everything the cluster had committed when it first learnt of a leader —
 * NOT_SERVING before (a node catching up would answer serializable reads from old state and make every
 * linearizable call wait) and while it knows no leader (its calls would fail or wait for an election).
 */
final class HealthReporter implements AutoCloseable, StateReader.Replay {
  /** How often readiness is re-evaluated, ms. */
  static final long PERIOD_MS = 100;
  /** The services whose status follows readiness, besides the overall {@code ""}. */
  static final List<String> SERVICES = List.of("", LeaseGrpc.SERVICE_NAME, ElectionGrpc.SERVICE_NAME,
      LockGrpc.SERVICE_NAME, ClusterGrpc.SERVICE_NAME);
  private static final Logger LOG = LoggerFactory.getLogger(HealthReporter.class);

  private final ClusterView view;
  private final HealthStatusManager health;
  private final LongSupplier appliedIndex;
  private ScheduledFuture<?> evaluations;
  // Set once, by whichever of an evaluation or a serializable read (an API thread) first sees a leader.
  private final AtomicLong catchUpTarget = new AtomicLong(-1);
  // Volatile: latched by evaluations and by serializable reads on the API's threads (replayed).
  private volatile boolean caughtUp;
  // Read and written by one evaluation at a time (a fixed-delay task never overlaps itself, and each run
  // happens-before the next, on whichever timer thread it runs).
  private Boolean serving;

  /** @param appliedIndex this node's applied index, read live: {@link #replayed} asks it between evaluations */
  HealthReporter(ClusterView view, HealthStatusManager health, LongSupplier appliedIndex) {
    this.view = view;
    this.health = health;
    this.appliedIndex = appliedIndex;
    SERVICES.forEach(s -> health.setStatus(s, ServingStatus.NOT_SERVING));
  }

  /** Starts re-evaluating readiness every {@link #PERIOD_MS} on {@code timers}, the node's scheduler. */
  void start(ScheduledExecutorService timers) {
    evaluations = timers.scheduleWithFixedDelay(this::evaluate, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
  }

  private void evaluate() {
    boolean now;
    try {
      now = ready(view.status());
    } catch (RuntimeException e) {
      now = false; // the Raft division is not (or no longer) there
    }
    if (serving == null || serving != now) {
      serving = now;
      ServingStatus status = now ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
      SERVICES.forEach(s -> health.setStatus(s, status));
      LOG.info("health: {}", status);
    }
  }

  /** Whether {@code s} (this node's own view) shows a known leader and a finished start-up catch-up. */
  boolean ready(StatusResponse s) {
    boolean hasLeader = learnTarget(s);
    return hasLeader && caughtUpTo(s.getAppliedIndex());
  }

  /** Whether {@code s} shows a leader; the first such status sets the catch-up target to its commit index. */
  private boolean learnTarget(StatusResponse s) {
    boolean hasLeader = !s.getLeader().isEmpty();
    if (hasLeader) {
      catchUpTarget.compareAndSet(-1, s.getCommitIndex());
    }
    return hasLeader;
  }

  /** Latches {@link #caughtUp} once {@code applied} reaches the target. */
  private boolean caughtUpTo(long applied) {
    long target = catchUpTarget.get();
    if (!caughtUp && target >= 0 && applied >= target) {
      caughtUp = true;
    }
    return caughtUp;
  }

  /**
   * Whether this node, since it started, has learnt of a leader and applied everything committed then — the start-up
   * catch-up of readiness. Until then serializable reads are refused (docs/operations.md "Restarts"): they would
   * answer from a state older than what this node may have answered before it stopped (a state rebuilt from a
   * snapshot). Why a leader's commit index: Ratis does not persist its own (Regent turns its log-metadata entries
   * off, docs/ratis.md §6), so only a leader says what was committed. Stays true once true. Reads the applied index
   * itself rather than waiting for the next evaluation (every {@link #PERIOD_MS}): a read right after the catch-up was
   * once refused with "applied index 747 of the 724 committed" (DiskFullTest). For the same reason it asks this
   * node's view for a leader itself while none has been learnt: a single node that had just elected itself and
   * granted a name once refused the read with "knows no leader yet" (ReadIndexTest).
   */
  @Override
  public boolean replayed() {
    if (!caughtUp && catchUpTarget.get() < 0) {
      try {
        learnTarget(view.status());
      } catch (RuntimeException e) {
        return false; // the Raft division is not (or no longer) there
      }
    }
    return caughtUpTo(appliedIndex.getAsLong());
  }

  /** The index {@link #replayed} waits for; -1 while no leader has been learnt since the start. */
  @Override
  public long replayTarget() {
    return catchUpTarget.get();
  }

  @Override
  public void close() {
    if (evaluations != null) { // null when the API never started
      evaluations.cancel(false);
    }
    health.enterTerminalState();
  }
}
