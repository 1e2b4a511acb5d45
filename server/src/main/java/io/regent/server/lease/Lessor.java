package io.regent.server.lease;

import io.regent.server.concurrent.Daemons;
import io.regent.server.raft.Proposer;
import io.regent.statemachine.proto.EndLockDelay;
import io.regent.statemachine.proto.Expire;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.ratis.LeaseTimekeeper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader-side lease time (docs/architecture.md §3; etcd's lessor, ZooKeeper's leader session tracker).
 *
 * <p>Only the ready leader keeps deadlines, on a monotonic clock, in memory. On readiness every lease gets
 * now + ttl; a keepalive confirmed in this leader's term sets now + ttl again; when a deadline passes the
 * lease is marked expiring (its keepalives are refused from then on) and an {@code Expire} entry carrying
 * this leader's term is proposed. Apply ignores an Expire whose proposer term is not its own term, so an
 * expiry decided by a deposed leader cannot revoke a lease its successor renewed.
 *
 * <p>Thread-safe: the apply thread calls the {@link LeaseTimekeeper} methods, a timer thread scans.
 */
public final class Lessor implements LeaseTimekeeper, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Lessor.class);
  /** Leases per Expire entry: one entry revokes a mass expiry in a few log entries. */
  static final int MAX_BATCH = 1000;
  /** How often an expiring lease whose Expire has not been applied is proposed again. */
  static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final LongSupplier nanoClock;
  private final LeaseDeadlines deadlines = new LeaseDeadlines();
  /** Lock-delays in force: name to the time its EndLockDelay is due (and then re-proposed), ns. */
  private final Map<String, Long> lockDelays = new HashMap<>();
  private final ScheduledExecutorService timer;
  private volatile Proposer proposer;
  private long readyTerm = -1;

  /**
   * @param nanoClock monotonic clock in ns ({@code System::nanoTime} in production)
   * @param scanIntervalMs how often deadlines are checked, ms
   */
  public Lessor(LongSupplier nanoClock, long scanIntervalMs) {
    this.nanoClock = nanoClock;
    this.timer = Daemons.scheduler("regent-lessor");
    timer.scheduleWithFixedDelay(this::expireDue, scanIntervalMs, scanIntervalMs, TimeUnit.MILLISECONDS);
  }

  /** Sets where Expire entries go (the node's Ratis client); expiries wait until it is set. */
  public void setProposer(Proposer proposer) {
    this.proposer = proposer;
  }

  @Override
  public synchronized void onLeaderReady(long term, List<LeaseRecord> leases, List<NameRecord> lockDelayed) {
    readyTerm = term;
    deadlines.clear();
    lockDelays.clear();
    long now = nanoClock.getAsLong();
    leases.forEach(l -> deadlines.live(l.getId(), l.getTtlMs(), now + ms(l.getTtlMs())));
    // The previous leader's delay clock is lost with it: wait a full delay again, never less.
    lockDelayed.forEach(n -> lockDelays.put(n.getName(), now + ms(n.getLockDelayMs())));
  }

  @Override
  public synchronized void onNotLeader() {
    readyTerm = -1;
    deadlines.clear();
    lockDelays.clear();
  }

  @Override
  public synchronized void onLockDelay(NameRecord name) {
    if (readyTerm >= 0) {
      lockDelays.put(name.getName(), nanoClock.getAsLong() + ms(name.getLockDelayMs()));
    }
  }

  @Override
  public synchronized void onGranted(LeaseRecord lease) {
    if (readyTerm >= 0) {
      deadlines.live(lease.getId(), lease.getTtlMs(), nanoClock.getAsLong() + ms(lease.getTtlMs()));
    }
  }

  @Override
  public synchronized void onEnded(List<Long> leaseIds) {
    leaseIds.forEach(deadlines::remove);
  }

  @Override
  public synchronized long[] confirm(long term, List<LeaseRecord> renew, List<LeaseRecord> query) {
    long[] out = new long[renew.size() + query.size()];
    long now = nanoClock.getAsLong();
    int i = 0;
    for (LeaseRecord l : renew) {
      if (term != readyTerm) {
        out[i++] = -1;
        continue;
      }
      LeaseDeadlines.Deadline d = deadlines.get(l.getId());
      if (d != null && d.expiringSince() != 0) {
        out[i++] = -2;
      } else {
        deadlines.live(l.getId(), l.getTtlMs(), now + ms(l.getTtlMs()));
        out[i++] = l.getTtlMs();
      }
    }
    for (LeaseRecord l : query) {
      LeaseDeadlines.Deadline d = term == readyTerm ? deadlines.get(l.getId()) : null;
      out[i++] = d == null ? -1 : d.expiringSince() != 0 ? -2 : Math.max(0, (d.deadline() - now) / 1_000_000);
    }
    return out;
  }

  /**
   * Marks every lease past its deadline as expiring and proposes their expiry in this leader's term; also
   * proposes the end of every lock-delay that is due (again each second until it is applied).
   */
  void expireDue() {
    Proposer p = proposer;
    List<Long> due;
    List<String> delaysDue = new ArrayList<>();
    long term;
    synchronized (this) {
      term = readyTerm;
      if (term < 0 || p == null) {
        return;
      }
      long now = nanoClock.getAsLong();
      for (Map.Entry<String, Long> e : lockDelays.entrySet()) {
        if (now - e.getValue() >= 0) {
          delaysDue.add(e.getKey());
          e.setValue(now + RETRY_NANOS);
        }
      }
      due = deadlines.due(now, RETRY_NANOS);
    }
    for (String name : delaysDue) {
      p.propose(LogEntry.newBuilder().setEndLockDelay(EndLockDelay.newBuilder().setName(name)
          .setProposerTerm(term))).thenRun(() -> lockDelayEnded(name));
    }
    for (int from = 0; from < due.size(); from += MAX_BATCH) {
      List<Long> batch = due.subList(from, Math.min(due.size(), from + MAX_BATCH));
      LOG.info("term {}: {} leases expired: {}", term, batch.size(),
          batch.size() <= 10 ? batch : batch.subList(0, 10) + " and " + (batch.size() - 10) + " more");
      p.propose(LogEntry.newBuilder().setExpire(Expire.newBuilder().addAllLeaseIds(batch).setProposerTerm(term)))
          .whenComplete((r, err) -> {
            if (err != null) {
              LOG.warn("expiry of {} not committed yet: {}", batch, err.getMessage());
            }
          });
    }
  }

  private synchronized void lockDelayEnded(String name) {
    lockDelays.remove(name);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }

  private static long ms(long millis) {
    return TimeUnit.MILLISECONDS.toNanos(millis);
  }
}
