package io.regent.jepsen.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A lease kept alive by one logical client, with the client-side time rule of docs/architecture.md §3.6, exactly as
 * {@code io.regent.client.LeaseKeeper} applies it: renew every ttl/3; count the TTL from the moment
 * the last <em>acknowledged</em> request was sent; stop believing in the lease 2/3 ttl after that.
 * The workloads need what {@code LeaseKeeper} keeps private (the deadline itself, to record the belief
 * interval) and a pause hook (the renewal thread passes through the client's {@link PauseGate}), hence
 * this twin.
 */
public final class HeldLease implements AutoCloseable {
  private final ClientProcess process;
  private final long id;
  private final long ttlMs;
  private final ScheduledExecutorService timer;
  private volatile long lastAckSentNanos;
  private volatile boolean lost;
  private volatile boolean down;
  private volatile boolean closed;

  private HeldLease(ClientProcess process, long id, long ttlMs, long grantSentNanos) {
    this.process = process;
    this.id = id;
    this.ttlMs = ttlMs;
    this.lastAckSentNanos = grantSentNanos;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "jepsen-lease-" + process.name() + "-" + id);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Grants a lease (under the process's operation deadline) and starts renewing it.
   *
   * @throws StatusRuntimeException when the grant fails (a lease may still have been created: it
   *     expires unrenewed)
   */
  public static HeldLease grant(ClientProcess process, long ttlMs) {
    long sent = System.nanoTime();
    long id = process.call(() -> process.client().grant(ttlMs));
    HeldLease lease = new HeldLease(process, id, ttlMs, sent);
    long period = Math.max(1, ttlMs / 3);
    lease.timer.scheduleWithFixedDelay(lease::renew, period, period, TimeUnit.MILLISECONDS);
    return lease;
  }

  private void renew() {
    try {
      process.gate().await();
    } catch (InterruptedException e) {
      return;
    }
    if (closed || lost) {
      return;
    }
    long sent = System.nanoTime();
    try {
      Deadline.call(Duration.ofMillis(Math.max(1, ttlMs / 3)),
          () -> process.client().keepAlive(id, Math.max(1, ttlMs / 3)));
      if (System.nanoTime() - deadlineNanos() >= 0) {
        down = true;   // the ack came after the deadline: LeaseKeeper would already have stepped down
      } else {
        lastAckSentNanos = Math.max(lastAckSentNanos, sent);
      }
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        lost = true;
      }
      // Anything else: retried next period; the deadline decides.
    }
  }

  /** The lease id. */
  public long id() {
    return id;
  }

  /** The TTL, ms. */
  public long ttlMs() {
    return ttlMs;
  }

  /** The step-down deadline on {@link System#nanoTime()}: last acknowledged send + 2/3 ttl. */
  public long deadlineNanos() {
    return lastAckSentNanos + TimeUnit.MILLISECONDS.toNanos(ttlMs * 2 / 3);
  }

  /**
   * True while the client may still act on this lease: not lost, deadline not passed. Once false it
   * stays false (like {@code LeaseKeeper}'s step-down), even if a late acknowledgement arrives.
   */
  public boolean valid() {
    if (down || lost || closed) {
      return false;
    }
    if (System.nanoTime() - deadlineNanos() >= 0) {
      down = true;
      return false;
    }
    return true;
  }

  /** The end of the client's belief if it stops believing now: min(now, deadline). */
  public long beliefEndNanos() {
    long now = System.nanoTime();
    long deadline = deadlineNanos();
    return now - deadline < 0 ? now : deadline;
  }

  /** Stops renewing (the lease then expires on the server); does not revoke. Idempotent. */
  @Override
  public void close() {
    closed = true;
    timer.shutdownNow();
  }

  /** Stops renewing and revokes the lease; returns normally only if the revoke was acknowledged. */
  public void revoke() {
    close();
    process.call(() -> {
      process.client().revoke(id);
      return null;
    });
  }
}
