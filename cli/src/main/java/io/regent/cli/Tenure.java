package io.regent.cli;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.LeaderKey;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One holder's tenure of a name, for {@code elect} and {@code lock}: a kept-alive lease and a campaign, then
 * holding until the first of SIGINT/SIGTERM, the loss of the name, or the end of the holder's work; then
 * {@link #release}. Create it on the thread that campaigns: a signal or a loss interrupts that campaign.
 */
final class Tenure {
  /** How a tenure ended. */
  enum End {
    /** SIGINT or SIGTERM: give the name up in an orderly way. */
    SIGNALLED,
    /** The lease can no longer be vouched for, or the name is held no more: stop acting as holder at once. */
    LOST,
    /** The work done as holder (the --exec command) ended by itself. */
    FINISHED
  }

  /** How long releasing may take before the lease is left to expire on its own, ms. */
  static final long RELEASE_TIMEOUT_MS = 5_000;

  private final String name;
  private final PrintWriter err;
  private final Thread campaigner = Thread.currentThread();
  private final CountDownLatch ended = new CountDownLatch(1);
  private final AtomicReference<End> end = new AtomicReference<>();
  private boolean campaigning = true; // guarded by this
  private volatile LeaseKeeper keeper;
  private volatile LeaderKey key;

  /** A tenure of {@code name}; a loss is reported as one line {@code lost NAME: reason} on {@code err}. */
  Tenure(String name, PrintWriter err) {
    this.name = name;
    this.err = err;
    Signals.onTermination(() -> end(End.SIGNALLED));
  }

  /** Ends the tenure, unless it has ended already; wakes a campaign in progress. */
  synchronized void end(End how) {
    if (end.compareAndSet(null, how)) {
      ended.countDown();
      if (campaigning) {
        campaigner.interrupt(); // cancels the blocking call; the server withdraws the candidacy
      }
    }
  }

  /** Ends the tenure as lost and says why, unless it has ended already. */
  void lose(String reason) {
    synchronized (this) {
      if (end.get() != null) {
        return;
      }
      end(End.LOST);
    }
    err.println("lost " + name + ": " + reason);
    err.flush();
  }

  /**
   * Campaigns for the name with a lease of {@code ttlMs} granted in the same log entry; when the name is held,
   * waits for it with that kept-alive lease, retrying while there is no quorum.
   *
   * @return the grant; null when the tenure ended first (a signal, or the lease was lost while waiting)
   * @throws StatusRuntimeException when the cluster refuses (bad TTL, name or value, ...)
   */
  LeaderKey campaign(RegentClient c, long ttlMs, ByteString value, long lockDelayMs) {
    try {
      long sent = System.nanoTime();
      CampaignResponse first = c.campaignWithTtl(name, ttlMs, value, lockDelayMs);
      keeper = LeaseKeeper.adopt(c, first.getLease(), ttlMs, sent, this::lose);
      key = first.getElected() ? first.getLeader() : campaignRetrying(c, value, lockDelayMs);
    } catch (StatusRuntimeException e) {
      if (end.get() == null) {
        throw e;
      }
    } finally {
      synchronized (this) {
        campaigning = false;
        Thread.interrupted(); // a signal or a loss may have interrupted us; `end` records it
      }
    }
    return end.get() == null ? key : null;
  }

  private LeaderKey campaignRetrying(RegentClient c, ByteString value, long lockDelayMs) {
    while (true) {
      try {
        return c.campaign(name, keeper.leaseId(), value, lockDelayMs);
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || !keeper.isValid() || end.get() != null) {
          throw e;
        }
        try {
          Thread.sleep(200); // campaign is idempotent per (name, lease): retrying keeps the place in line
        } catch (InterruptedException ie) {
          throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
        }
      }
    }
  }

  /** Runs {@code announce} (e.g. printing the grant) unless the tenure has ended; whether it ran. */
  synchronized boolean announce(Runnable announce) {
    if (end.get() != null) {
      return false;
    }
    announce.run(); // under the lock: a loss is reported after the grant, never before it
    return true;
  }

  /** Blocks until the tenure ends; how it ended. */
  End await() throws InterruptedException {
    ended.await();
    return end.get();
  }

  /** How the tenure ended; null while it lasts. */
  End how() {
    return end.get();
  }

  /** Takes a new, larger fencing token (FreshToken); FAILED_PRECONDITION when the name is held no more. */
  LeaderKey freshToken(RegentClient c) {
    key = c.freshToken(key);
    return key;
  }

  /**
   * Resigns and revokes the lease in one log entry (when elected; else, or when that fails, revokes the lease),
   * giving up after {@link #RELEASE_TIMEOUT_MS}.
   */
  void release(RegentClient c) throws InterruptedException {
    LeaseKeeper k = keeper;
    LeaderKey held = key;
    if (k == null) {
      return;
    }
    Thread t = new Thread(() -> {
      try {
        if (held != null) {
          c.resign(held, true);
          k.forget();
          return;
        }
      } catch (StatusRuntimeException e) {
        // not the holder any more, or no quorum: revoking the lease frees the name either way
      }
      k.close();
    }, "regent-release");
    t.setDaemon(true);
    t.start();
    t.join(RELEASE_TIMEOUT_MS);
  }
}
