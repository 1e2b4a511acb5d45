package io.regent.jepsen.workload;

import com.google.protobuf.ByteString;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.LeaderKey;
import io.regent.client.LeaseKeeper;
import io.regent.jepsen.client.ClientProcess;
import io.regent.jepsen.client.Errors;
import io.regent.jepsen.history.Keyword;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One round of a lock holder that retries as the shipped libraries do (the CLI's {@code regent lock}, the Java
 * client's {@code Elections}): a campaign with a TTL (re-sent by the client after UNAVAILABLE and
 * DEADLINE_EXCEEDED), a kept-alive lease adopted from its send time, then, when the name is held, blocking
 * campaigns with that lease re-sent until elected, a deadline, or a cancellation; once elected it holds for a while
 * and resigns (revoking the lease), suspended while the keeper is in doubt, as {@code regent lock} is.
 *
 * <p>Recorded, all instants on this host's monotonic clock (test nanoseconds): {@code :release} with {@code :held
 * [start end]} and {@code :lease} for every belief (from the elected answer to the resign's send, or to the
 * keeper's deadline); {@code :renew} with {@code :renewing [start end]}, {@code :ttl} and {@code :lock-delay} for
 * the time this client kept the lease alive (from the first campaign's send to the keeper's stop);
 * {@code :gave-up} for a campaign abandoned by its deadline or cancelled; {@code :call-failed} for a campaign with
 * TTL that failed (the lease it may have granted is unknown to the client).
 */
final class RetryHolder {
  private static final ScheduledExecutorService CANCELLER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "retry-canceller");
    t.setDaemon(true);
    return t;
  });

  private final ClientProcess p;
  private final long ttlMs;
  private volatile boolean holding;

  RetryHolder(ClientProcess p, long ttlMs) {
    this.p = p;
    this.ttlMs = ttlMs;
  }

  /** Whether it believes it holds a name now (the client-isolate and client-pause nemeses prefer holders). */
  boolean holding() {
    return holding;
  }

  /** One round on {@code name}: campaign, maybe hold, release. Returns the pause before the next, ms. */
  long round(String name) throws InterruptedException {
    long lockDelayMs = p.random().nextInt(4) == 0 ? 500 : 0;
    ByteString value = ByteString.copyFromUtf8(p.name());
    long sent = System.nanoTime();
    CampaignResponse first;
    try {
      first = p.client().elections().campaignWithTtl(name, ttlMs, value, lockDelayMs);
    } catch (StatusRuntimeException e) {
      p.instant("call-failed", name, "campaign-with-ttl", Map.of("error", Errors.describe(e)));
      return 200;
    }
    long lease = first.getLease();
    AtomicBoolean lost = new AtomicBoolean();
    LeaseKeeper keeper = LeaseKeeper.adopt(p.client(), lease, ttlMs, sent, reason -> lost.set(true),
        LeaseKeeper.options().pauseHook(p.gate()::await).suspendWhenInDoubt(reason -> { }, () -> { }));
    boolean resigned = false;
    try {
      LeaderKey key = first.getElected() ? first.getLeader() : await(name, lease, value, lockDelayMs);
      if (key != null) {
        resigned = hold(key, keeper, lost);
      }
    } finally {
      if (resigned) {
        keeper.forget();
      } else {
        keeper.stop(); // not revoked: an unrenewed lease ends on the server, as an abandoned client's would
      }
      Map<String, Object> extra = new LinkedHashMap<>();
      extra.put("renewing", new ArrayList<>(List.of(p.recorder().relative(sent), p.recorder().now())));
      extra.put("ttl", ttlMs);
      extra.put("lock-delay", lockDelayMs);
      p.instant("renew", name, lease, extra);
    }
    return 50 + p.random().nextInt(300);
  }

  /**
   * Blocking campaigns with {@code lease}, re-sent after UNAVAILABLE and DEADLINE_EXCEEDED (as {@code regent lock}
   * does) until a wait of 60 s (half the time) or 1–10 TTLs has passed; one time in four cancelled after a random part of it (a caller
   * that gives up: a signal, a shutdown). The key when elected, else null.
   */
  private LeaderKey await(String name, long lease, ByteString value, long lockDelayMs) throws InterruptedException {
    // half the waits as regent lock's without --timeout (a minute here), the others 1-10 TTLs: a wait that
    // outlasts the channel keepalive's 15 s fails over from a stalled node
    long waitMs = p.random().nextBoolean() ? 60_000 : ttlMs + p.random().nextLong(9 * ttlMs);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
    Context.CancellableContext ctx = Context.current().withCancellation();
    if (p.random().nextInt(4) == 0) {
      CANCELLER.schedule(() -> ctx.cancel(null), p.random().nextLong(waitMs), TimeUnit.MILLISECONDS);
    }
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        try {
          if (left <= 0) {
            throw Status.DEADLINE_EXCEEDED.asRuntimeException();
          }
          return ctx.call(() -> p.client().elections().campaign(name, lease, value, lockDelayMs,
              java.time.Duration.ofNanos(left)));
        } catch (StatusRuntimeException e) {
          Status.Code code = e.getStatus().getCode();
          boolean again = (code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED)
              && !ctx.isCancelled() && System.nanoTime() - deadline < 0;
          if (!again) {
            p.instant("gave-up", name, lease, Map.of("error", ctx.isCancelled() ? "cancelled" : Errors.describe(e)));
            return null;
          }
          Thread.sleep(200); // the pause between re-sends that regent lock takes
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    } finally {
      ctx.cancel(null);
    }
  }

  /**
   * Holds {@code key} for 0.3–2 s (every other time 8–25 s), then resigns revoking the lease, as {@code regent
   * lock} does when its command ends. While the keeper is in doubt the holder is suspended, as {@code regent
   * lock} is: its belief ends at the keeper's deadline and, should a renewal in time resume it, begins again
   * (same lease, same token). Ends early when the keeper stepped down (the lease ended, or the grace passed).
   * Whether it resigned.
   */
  private boolean hold(LeaderKey key, LeaseKeeper keeper, AtomicBoolean lost) throws InterruptedException {
    // every other hold is long (8-25 s): a holder still holding when a stalled node it left resumes
    long holdMs = p.random().nextBoolean() ? 8_000 + p.random().nextInt(17_000) : 300 + p.random().nextInt(1700);
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMs);
    long since = System.nanoTime();
    boolean believing = true;
    holding = true;
    while (!lost.get() && System.nanoTime() - until < 0) {
      boolean valid = keeper.isValid();
      if (believing && !valid) {
        believing = false;
        belief(key, since, endOfBelief(keeper), "suspended");
      } else if (!believing && valid) {
        believing = true;
        since = System.nanoTime();
      }
      Thread.sleep(20); // the holder's work; its belief is checked every 20 ms
    }
    holding = false;
    if (believing) {
      belief(key, since, endOfBelief(keeper), lost.get() ? "lost" : "resign");
    }
    if (lost.get()) {
      return false;
    }
    try {
      p.client().elections().resign(key, true);
      return true;
    } catch (StatusRuntimeException e) {
      return false;
    }
  }

  /** Now, or the keeper's deadline if that passed first. */
  private static long endOfBelief(LeaseKeeper keeper) {
    long now = System.nanoTime();
    long deadline = keeper.deadlineNanos();
    return now - deadline < 0 ? now : deadline;
  }

  private void belief(LeaderKey key, long since, long end, String reason) {
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("held", end - since > 0
        ? new ArrayList<>(List.of(p.recorder().relative(since), p.recorder().relative(end))) : null);
    extra.put("lease", key.getLease());
    extra.put("reason", Keyword.of(reason));
    p.instant("release", key.getName(), key.getToken(), extra);
  }
}
