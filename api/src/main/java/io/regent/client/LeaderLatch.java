package io.regent.client;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaderKey;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Curator's {@code LeaderLatch} over a Regent election: {@link #start()} campaigns for a name in the background
 * with a kept-alive lease ({@link LeaseKeeper}); the {@link Listener} hears {@code isLeader(token)} once elected
 * and {@code notLeader(reason)} when the lease can no longer be vouched for. With {@code autoRequeue} (Curator's
 * {@code LeaderSelector.autoRequeue}) a latch that lost leadership campaigns again; {@link #close()} resigns.
 *
 * <p>Unlike Curator's latch, each leadership carries a fencing token (the log index of the grant,
 * docs/architecture.md §5): attach it to every write at the protected resource, which refuses older ones.
 * Both listener methods run on the latch's own thread, in order; a listener must not block it for long.
 */
public final class LeaderLatch implements AutoCloseable {
  /** Pause before campaigning again after a failed campaign (no quorum, lease lost), ms. */
  static final long RETRY_MS = 200;

  /** Told of leadership changes, on the latch's thread. */
  public interface Listener {
    /** Elected: act as leader, fencing every write with {@code token}. */
    void isLeader(long token);

    /** No longer leader (lost, closed): stop acting as leader at once. */
    void notLeader(String reason);
  }

  private final RegentClient client;
  private final String name;
  private final ByteString value;
  private final long ttlMs;
  private final boolean autoRequeue;
  private final Listener listener;
  private final BlockingQueue<String> lost = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile LeaseKeeper keeper;
  private volatile LeaderKey key;
  private volatile boolean closed;

  /**
   * A latch, not started.
   *
   * @param name the election name
   * @param value published while leader (e.g. this process's address)
   * @param ttlMs lease TTL, ms (the cluster's range: 1.5 x max election timeout to 1 h)
   * @param autoRequeue campaign again after losing leadership
   * @param listener told of leadership changes
   */
  public LeaderLatch(RegentClient client, String name, ByteString value, long ttlMs, boolean autoRequeue,
                     Listener listener) {
    this.client = Objects.requireNonNull(client, "client");
    this.name = Objects.requireNonNull(name, "name");
    this.value = Objects.requireNonNull(value, "value");
    this.ttlMs = ttlMs;
    this.autoRequeue = autoRequeue;
    this.listener = Objects.requireNonNull(listener, "listener");
    this.thread = new Thread(this::run, "regent-latch-" + name);
    this.thread.setDaemon(true);
  }

  /** Starts campaigning in the background. @throws IllegalStateException when started twice */
  public void start() {
    thread.start();
  }

  /** Whether this latch leads now: elected and its lease still vouched for. */
  public boolean hasLeadership() {
    LeaseKeeper k = keeper;
    return key != null && k != null && k.isValid();
  }

  /** The fencing token of the current leadership; empty when not leader. */
  public OptionalLong token() {
    LeaderKey k = key;
    return k != null && hasLeadership() ? OptionalLong.of(k.getToken()) : OptionalLong.empty();
  }

  /**
   * Waits until this latch leads, at most {@code timeout}.
   *
   * @return whether it leads
   */
  public boolean await(Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      while (!hasLeadership() && !closed) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
    return hasLeadership();
  }

  private void run() {
    while (!closed) {
      boolean led = term();
      if (led && !autoRequeue) {
        return;
      }
      if (!closed) {
        pause(); // failed to get a lease or lost the campaign: try again (Curator's latch keeps trying too)
      }
    }
  }

  /** One leadership term: lease, campaign, lead until lost or closed. Whether it led. */
  private boolean term() {
    lost.clear();
    LeaseKeeper k;
    try {
      k = LeaseKeeper.grant(client, ttlMs, name, lost::add);
    } catch (StatusRuntimeException e) {
      return false;
    }
    keeper = k;
    try {
      if (closed) {
        return false;
      }
      while (true) {
        try {
          key = client.elections().campaign(name, k.leaseId(), value);
          break;
        } catch (StatusRuntimeException e) {
          Status.Code code = e.getStatus().getCode();
          if (closed || (code != Status.Code.UNAVAILABLE && code != Status.Code.DEADLINE_EXCEEDED)
              || !k.isValid()) {
            return false;
          }
          pause(); // idempotent per lease: campaigning again keeps or regains the place in line
        }
      }
      synchronized (this) {
        notifyAll();
      }
      listener.isLeader(key.getToken());
      String reason;
      try {
        reason = lost.take();
      } catch (InterruptedException e) {
        reason = "closed";
      }
      key = null;
      listener.notLeader(reason);
      return true;
    } finally {
      key = null;
      if (closed) {
        k.close(); // revokes: frees the name should the campaign have won as we closed
      } else {
        k.stop(); // lost: the lease is gone or about to be
      }
      keeper = null;
    }
  }

  private void pause() {
    try {
      Thread.sleep(RETRY_MS); // a backoff before campaigning again, not a synchronisation
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops campaigning; when leader, resigns and tells the listener {@code notLeader("closed")}. Idempotent. */
  @Override
  public void close() throws InterruptedException {
    closed = true;
    LeaderKey k = key;
    LeaseKeeper lk = keeper;
    if (k != null) {
      try {
        client.elections().resign(k);
      } catch (StatusRuntimeException e) {
        // No longer the holder, or no quorum: revoking the lease below frees the name either way.
      }
    }
    if (lk != null) {
      lk.close(); // revokes
    }
    lost.add("closed");
    if (k == null) {
      thread.interrupt(); // cancels a campaign in progress
    }
    synchronized (this) {
      notifyAll();
    }
    if (thread.isAlive() && thread != Thread.currentThread()) {
      thread.join(5_000);
    }
  }
}
