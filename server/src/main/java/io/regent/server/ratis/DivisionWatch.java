package io.regent.server.ratis;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/**
 * Notices that this node's Raft division has stopped for good, and says so once (docs/architecture.md §11).
 * Ratis closes the division when the state machine's apply throws (an LMDB commit on a full disk), and its log
 * worker, once a write failed, fails every later one while the division stays up; neither ever comes back in
 * this process. The node then is not live: {@code /healthz} fails and {@code regent server} exits, so that its
 * supervisor restarts it and it catches up from its log and its peers.
 */
public final class DivisionWatch implements AutoCloseable {
  /** How often the division is looked at, ms. */
  static final long PERIOD_MS = 200;

  private final CellDivision cell;
  private final Supplier<Optional<String>> storageFault;
  private final Consumer<String> onStopped;
  private volatile boolean reported;
  private ScheduledFuture<?> checks;

  /**
   * @param cell the cell's division on this node
   * @param storageFault why the state machine's storage failed for good, or empty
   * @param onStopped told the reason once, on a timer thread, when the division stopped for good
   */
  public DivisionWatch(CellDivision cell, Supplier<Optional<String>> storageFault, Consumer<String> onStopped) {
    this.cell = cell;
    this.storageFault = storageFault;
    this.onStopped = onStopped;
  }

  /** Starts looking every {@link #PERIOD_MS} on {@code timers}; call once the Ratis server has started. */
  public synchronized void start(ScheduledExecutorService timers) {
    checks = timers.scheduleWithFixedDelay(this::check, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
  }

  /** Why this node is not live (its division stopped for good, or its storage failed), or empty while it is. */
  public Optional<String> notLiveReason() {
    Optional<String> fault = storageFault.get();
    if (fault.isPresent()) {
      return fault;
    }
    try {
      DivisionInfo info = cell.division().getInfo();
      return info.isAlive() ? Optional.empty()
          : Optional.of("Raft division is not running (" + info.getLifeCycleState() + ")");
    } catch (IOException e) {
      return Optional.of("no Raft division: " + e.getMessage());
    }
  }

  private void check() {
    Optional<String> reason = notLiveReason();
    if (reason.isPresent() && !reported) {
      reported = true;
      onStopped.accept(reason.get());
    }
  }

  /** Stops looking: the node closes its division itself next, which is no failure. */
  @Override
  public synchronized void close() {
    reported = true;
    if (checks != null) {
      checks.cancel(false);
    }
  }
}
