package io.regent.cli.holder;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.LeaderKey;
import io.regent.cli.output.NotAcquiredException;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import io.regent.client.RequestIds;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The holder of one name, for {@code elect} and {@code lock}: a kept-alive lease and a campaign, then
 * holding until the first of SIGINT/SIGTERM, the loss of the name, or the end of the holder's work; then
 * {@link #release}. Create it on the thread that campaigns: a signal or a loss interrupts that campaign.
 *
 * <p>Unless told not to ({@link SuspendOptions}), a holder whose lease can no longer be vouched for is
 * <em>suspended</em> first (docs/architecture.md §3.6): one line {@code suspended NAME: reason} on stderr, its
 * command frozen; a renewal in time resumes it (the command thawed, {@code resumed NAME token=T lease=L}: the
 * same lease and token); the loss comes on NOT_FOUND or after the grace.
 */
final class NameHolder {
  /** How a holding ended. */
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

  /** Pause between two first campaigns while no node answers, ms (each already tried every endpoint). */
  private static final long RETRY_PAUSE_MS = 200;

  private final String name;
  private final PrintWriter err;
  private final LeaseKeeper.Options keeperOptions;
  private final boolean suspends;
  private final Thread campaigner = Thread.currentThread();
  private final CountDownLatch ended = new CountDownLatch(1);
  private final AtomicReference<End> end = new AtomicReference<>();
  private boolean campaigning = true; // guarded by this
  private boolean suspended; // guarded by this
  private ExecChild child; // guarded by this
  private volatile LeaseKeeper keeper;
  private volatile long leaseId;
  private volatile LeaderKey key;

  /**
   * A holder of {@code name}; a loss is reported as one line {@code lost NAME: reason} on {@code err}.
   *
   * @param suspension whether (and how long) the holder is suspended before it is lost
   * @param keeperOptions the lease keeper's options (a pause hook in tests), to which the suspension is added
   */
  NameHolder(String name, SuspendOptions suspension, LeaseKeeper.Options keeperOptions, PrintWriter err) {
    this.name = name;
    this.err = err;
    this.suspends = !suspension.noSuspend;
    this.keeperOptions = suspension.apply(keeperOptions, this::suspend, this::resume);
    Signals.onTermination(() -> end(End.SIGNALLED));
  }

  /** Ends the holding, unless it has ended already; wakes a campaign in progress and a start put off. */
  synchronized void end(End how) {
    if (end.compareAndSet(null, how)) {
      ended.countDown();
      notifyAll();
      if (campaigning) {
        campaigner.interrupt(); // cancels the blocking call; the server withdraws the candidacy
      }
    }
  }

  /** The keeper is in doubt: freezes the command (if any) before saying so; nothing once the holding ended. */
  private synchronized void suspend(String reason) {
    if (end.get() != null) {
      return;
    }
    suspended = true;
    if (child != null) {
      child.suspend();
    }
    err.println("suspended " + name + ": " + reason);
    err.flush();
  }

  /** A renewal in time proved the lease held all along: thaws the command, then says so with the same token. */
  private synchronized void resume() {
    suspended = false;
    notifyAll();
    if (end.get() != null) {
      return;
    }
    if (child != null) {
      child.resume();
    }
    LeaderKey k = key;
    err.println("resumed " + name + (k != null ? " token=" + k.getToken() : "") + " lease=" + leaseId);
    err.flush();
  }

  /**
   * Starts the holder's command with {@code start}, once the lease is vouched for: a start while suspended is
   * put off until the resume, so the command never runs while the holder is unsure.
   *
   * @return the command; null when the holding ended first
   */
  synchronized ExecChild startChild(Callable<ExecChild> start) throws Exception {
    if (!awaitVouched()) {
      return null;
    }
    child = start.call();
    return child;
  }

  /** Waits while suspended; whether the holding lasts. Caller holds the lock. */
  private boolean awaitVouched() throws InterruptedException {
    while (suspended && end.get() == null) {
      wait();
    }
    return end.get() == null;
  }

  /** Ends the holding as lost and says why, unless it has ended already. */
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
   * @param timeout how long to wait to be granted the name; null for no limit
   * @param noWait ask once: granted at once, or not at all
   * @return the grant; null when the holding ended first (a signal, or the lease was lost while waiting)
   * @throws StatusRuntimeException when the cluster refuses (bad TTL, name or value, ...)
   * @throws NotAcquiredException when not granted within {@code timeout}, or at once with {@code noWait}
   */
  LeaderKey campaign(RegentClient c, long ttlMs, ByteString value, long lockDelayMs, Duration timeout,
                     boolean noWait) {
    long start = System.nanoTime();
    try {
      long sent = System.nanoTime();
      CampaignResponse first = firstCampaign(c, ttlMs, value, lockDelayMs,
          timeout == null ? -1 : start + timeout.toNanos());
      leaseId = first.getLease();
      keeper = LeaseKeeper.adopt(c, first.getLease(), ttlMs, sent, this::lose, keeperOptions);
      key = first.getElected() ? first.getLeader() : noWait ? notElected(first)
          : campaignRetrying(c, value, lockDelayMs, timeout == null ? -1 : start + timeout.toNanos(), timeout);
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

  /**
   * The first campaign (with its own lease), sent again under one request id while no node answers — as
   * {@code consul lock} and {@code etcdctl lock} keep trying — until {@code deadlineNanos} (on
   * {@link System#nanoTime}; negative: no limit) has passed or the holding ended (a signal); then the last
   * UNAVAILABLE is thrown (exit 5). One line on stderr says it is still trying. Why one id: a campaign that applied
   * but whose answer was lost must not leave a second lease queued behind the first (docs/api.md "Request ids").
   */
  private CampaignResponse firstCampaign(RegentClient c, long ttlMs, ByteString value, long lockDelayMs,
                                         long deadlineNanos) {
    String requestId = RequestIds.next();
    boolean told = false;
    while (true) {
      try {
        return c.elections().campaignWithTtl(name, ttlMs, value, lockDelayMs, requestId);
      } catch (StatusRuntimeException e) {
        boolean unreachable = e.getStatus().getCode() == Status.Code.UNAVAILABLE;
        if (!unreachable || end.get() != null || (deadlineNanos >= 0 && System.nanoTime() - deadlineNanos >= 0)) {
          throw e;
        }
        if (!told) {
          err.println("no node answers yet (" + e.getStatus().getDescription() + "); trying "
              + (deadlineNanos < 0 ? "until one does" : "until --timeout"));
          err.flush();
          told = true;
        }
        try {
          Thread.sleep(RETRY_PAUSE_MS); // a pause between passes over the endpoints, not a synchronisation
        } catch (InterruptedException ie) {
          throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
        }
      }
    }
  }

  /** With --no-wait: the first campaign did not elect; says who holds the name (its lease is revoked on release). */
  private LeaderKey notElected(CampaignResponse r) {
    throw new NotAcquiredException("not elected: " + name + " is held" + (r.hasLeader()
        ? " (token=" + r.getLeader().getToken() + " value=" + r.getLeader().getValue().toStringUtf8() + ")" : ""));
  }

  /** Campaigns until granted; {@code deadlineNanos} (on {@link System#nanoTime}) bounds it unless negative. */
  private LeaderKey campaignRetrying(RegentClient c, ByteString value, long lockDelayMs, long deadlineNanos,
                                     Duration timeout) {
    while (true) {
      try {
        if (deadlineNanos < 0) {
          return c.elections().campaign(name, keeper.leaseId(), value, lockDelayMs);
        }
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          throw Status.DEADLINE_EXCEEDED.asRuntimeException();
        }
        return c.elections().campaign(name, keeper.leaseId(), value, lockDelayMs, Duration.ofNanos(left));
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        if (code == Status.Code.DEADLINE_EXCEEDED && deadlineNanos >= 0 && System.nanoTime() - deadlineNanos >= 0
            && end.get() == null) {
          throw new NotAcquiredException(name + " not granted within " + timeout.toMillis() + " ms");
        }
        // A call's deadline bounds one call (the client's attempt timeout can end it before --timeout does):
        // campaign again until --timeout, if any, has passed.
        boolean again = code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED;
        // a suspended keeper is not valid, yet still renews: only its loss (which ends the holding) stops us
        if (!again || end.get() != null || (!suspends && !keeper.isValid())) {
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

  /**
   * Runs {@code announce} (e.g. printing the grant) unless the holding has ended; while suspended, only after
   * the resume. Whether it ran.
   */
  synchronized boolean announce(Runnable announce) throws InterruptedException {
    if (!awaitVouched()) {
      return false;
    }
    announce.run(); // under the lock: a loss is reported after the grant, never before it
    return true;
  }

  /** Blocks until the holding ends; how it ended. */
  End await() throws InterruptedException {
    ended.await();
    return end.get();
  }

  /** How the holding ended; null while it lasts. */
  End how() {
    return end.get();
  }

  /** Takes a new, larger fencing token (FreshToken); FAILED_PRECONDITION when the name is held no more. */
  LeaderKey freshToken(RegentClient c) {
    key = c.elections().freshToken(key);
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
          c.elections().resign(held, true);
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
