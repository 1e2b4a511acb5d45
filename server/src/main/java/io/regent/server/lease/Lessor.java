package io.regent.server.lease;

import io.regent.server.replication.Proposer;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.Checkpoint;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.EndLockDelay;
import io.regent.statemachine.proto.Expire;
import io.regent.statemachine.proto.LeaseCheckpoint;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.LeaseTimekeeper;
import io.regent.statemachine.replica.LeaseVerdict;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
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
 * expiry decided by a deposed leader cannot revoke a lease its successor renewed. Lock-delays are timed the
 * same way and ended by {@code EndLockDelay} entries naming the index that started each delay.
 *
 * <p>Epochs: everything here belongs to the term in which this node became ready. A readiness of a term
 * this node has already left, a reply to an entry proposed in an earlier epoch, or a tick of an epoch that
 * ended, changes nothing (docs/architecture.md §3.4).
 *
 * <p>Checkpoints (etcd #9395): leases of at least {@link Limits#CHECKPOINT_MIN_TTL_MS} have their remaining
 * time written to the log every checkpoint interval, at most {@link #CHECKPOINTS_PER_TICK} per tick in one
 * entry, so that a successor resumes from it instead of granting a full TTL again, and leader churn cannot
 * keep an unrenewed lease alive for ever (docs/architecture.md §3.8).
 *
 * <p>Pacing: each tick proposes at most {@link #EXPIRE_BATCHES_PER_TICK} Expire entries of up to
 * {@link #MAX_BATCH} leases, with at most {@link #MAX_EXPIRES_IN_FLIGHT} uncommitted at once; an entry that
 * failed is proposed again after {@link #RETRY_NANOS}.
 *
 * <p>Thread-safe: the apply thread calls the {@link LeaseTimekeeper} methods, the scheduler ticks, and
 * replies to proposals arrive on Ratis client threads; all meet under this object's lock.
 */
public final class Lessor implements LeaseTimekeeper, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Lessor.class);
  /** Leases per Expire entry: one entry revokes a mass expiry in a few log entries. */
  static final int MAX_BATCH = 1000;
  /** Expire entries proposed per tick, at most. */
  static final int EXPIRE_BATCHES_PER_TICK = 2;
  /** Expire entries proposed and not yet answered, at most. */
  static final int MAX_EXPIRES_IN_FLIGHT = 4;
  /** Leases checkpointed per tick, at most (one entry; with the node's 50 ms tick, 5 000 a second). */
  static final int CHECKPOINTS_PER_TICK = 250;
  /** How long a failed Expire or an unanswered EndLockDelay waits before it is proposed again. */
  static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final LongSupplier nanoClock;
  private final LeaseExpiry expiry = new LeaseExpiry();
  private final LockDelays lockDelays = new LockDelays();
  private final CheckpointSchedule checkpoints;
  private final ScheduledFuture<?> ticks;
  private volatile Proposer proposer;
  /** The term this node is ready in, -1 when it is not the ready leader. */
  private long readyTerm = -1;
  /** The highest term this node is known to have left as leader (a readiness of it or older is stale). */
  private long leftTerm = -1;
  private int expiresInFlight;
  private boolean checkpointInFlight;

  /**
   * @param nanoClock monotonic clock in ns ({@code System::nanoTime} in production)
   * @param scheduler runs this lessor's ticks (shared with other timers of the node; not shut down here)
   * @param tickMs how often deadlines and lock-delays are checked, ms
   * @param checkpointIntervalMs how often each long lease's remaining time is checkpointed, ms (positive)
   */
  public Lessor(LongSupplier nanoClock, ScheduledExecutorService scheduler, long tickMs, long checkpointIntervalMs) {
    this.nanoClock = nanoClock;
    this.checkpoints = new CheckpointSchedule(ms(checkpointIntervalMs));
    this.ticks = scheduler.scheduleWithFixedDelay(this::tick, tickMs, tickMs, TimeUnit.MILLISECONDS);
  }

  /** Sets where Expire and EndLockDelay entries go (the node's Ratis client); nothing is proposed before. */
  public void setProposer(Proposer proposer) {
    this.proposer = proposer;
  }

  @Override
  public synchronized void onLeaderReady(long term, List<LeaseRecord> leases, List<NameRecord> lockDelayed) {
    if (term <= leftTerm || term <= readyTerm) {
      LOG.info("readiness in term {} ignored: this node has left it (left term {}, ready term {})", term, leftTerm,
          readyTerm);
      return;
    }
    newEpoch(term);
    long now = nanoClock.getAsLong();
    for (LeaseRecord l : leases) {
      // Resume from the last checkpoint where there is one: its time has already been served.
      long remaining = l.getCheckpointRemainingMs() > 0 ? Math.min(l.getCheckpointRemainingMs(), l.getTtlMs())
          : l.getTtlMs();
      track(l, now, now + ms(remaining), l.getCheckpointRemainingMs() > 0);
    }
    // The previous leader's delay clock is lost with it: wait a full delay again, never less.
    lockDelayed.forEach(n -> lockDelays.start(n.getName(), n.getLockDelayStartIndex(), now + ms(n.getLockDelayMs())));
  }

  @Override
  public synchronized void onNotLeader(long term) {
    leftTerm = Math.max(leftTerm, term);
    newEpoch(-1);
  }

  private void newEpoch(long term) {
    readyTerm = term;
    expiry.clear();
    lockDelays.clear();
    checkpoints.clear();
    expiresInFlight = 0;
    checkpointInFlight = false;
  }

  private void track(LeaseRecord l, long now, long deadline, boolean checkpointed) {
    expiry.live(l.getId(), l.getTtlMs(), deadline, l.getRenewedIndex(), checkpointed);
    if (l.getTtlMs() >= Limits.CHECKPOINT_MIN_TTL_MS) {
      checkpoints.track(l.getId(), now);
    }
  }

  @Override
  public synchronized void onLockDelay(NameRecord name) {
    if (readyTerm >= 0) {
      lockDelays.start(name.getName(), name.getLockDelayStartIndex(), nanoClock.getAsLong() + ms(name.getLockDelayMs()));
    }
  }

  @Override
  public synchronized void onGranted(LeaseRecord lease) {
    if (readyTerm >= 0) {
      long now = nanoClock.getAsLong();
      track(lease, now, now + ms(lease.getTtlMs()), false);
    }
  }

  @Override
  public synchronized void onEnded(List<Long> leaseIds) {
    for (long id : leaseIds) {
      expiry.remove(id);
      checkpoints.remove(id);
    }
  }

  @Override
  public synchronized List<LeaseVerdict> confirm(long term, List<LeaseRecord> renew, List<LeaseRecord> query) {
    List<LeaseVerdict> out = new ArrayList<>(renew.size() + query.size());
    long now = nanoClock.getAsLong();
    for (LeaseRecord l : renew) {
      LeaseExpiry.Deadline d = expiry.get(l.getId());
      if (d != null && l.getRenewedIndex() < d.renewedIndex()) {
        // read before a later Confirm applied (a local answer's snapshot): that Confirm, not this read, tells what
        // the state holds, and a checkpoint measured since it will apply; this read clears and vouches for nothing
        out.add(LeaseVerdict.UNVOUCHED);
        continue;
      }
      if (d != null && l.getRenewedIndex() > d.renewedIndex()) {
        // the entry cleared the lease's checkpoint, whoever proposed it: later checkpoints measure from here
        d = new LeaseExpiry.Deadline(d.ttlMs(), d.deadline(), d.expiring(), l.getRenewedIndex(), false);
        expiry.update(l.getId(), d);
      }
      if (term != readyTerm || d == null || d.checkpointed()) {
        // Untracked in the ready term: an applied entry ended the lease after the caller read it (a keepalive
        // answered under the leadership lease reads an older snapshot than the apply thread's), and its names
        // may have passed on; only a round, which reads the state after that entry, may answer (etcd's Renew
        // refuses a lease missing from its map). A renewal that cleared no checkpoint (one without an entry)
        // cannot vouch for a lease with a checkpoint in the state or on its way: its successor would resume
        // from it.
        out.add(LeaseVerdict.UNVOUCHED);
      } else if (d.expiring()) {
        out.add(LeaseVerdict.EXPIRING);
      } else {
        expiry.live(l.getId(), l.getTtlMs(), now + ms(l.getTtlMs()), l.getRenewedIndex(), false);
        // a client that keeps renewing (every ttl/3) is never checkpointed again: its keepalives need no entry
        checkpoints.postpone(l.getId(), now + ms(l.getTtlMs() / 2));
        out.add(LeaseVerdict.measured(l.getTtlMs()));
      }
    }
    for (LeaseRecord l : query) {
      LeaseExpiry.Deadline d = term == readyTerm ? expiry.get(l.getId()) : null;
      out.add(d == null ? LeaseVerdict.UNVOUCHED : d.expiring() ? LeaseVerdict.EXPIRING
          : LeaseVerdict.measured(Math.max(0, (d.deadline() - now) / 1_000_000)));
    }
    return out;
  }

  /**
   * Whether the replicated state may hold a checkpoint of lease {@code id} that no renewal has cleared yet.
   * A keepalive of such a lease must be acknowledged only after an entry clearing it (a Confirm) commits:
   * renewals are not in the log, and a successor would otherwise expire, from the old checkpoint, a lease
   * whose client was just renewed (docs/architecture.md §3.8). Unknown leases answer true.
   */
  @Override
  public synchronized boolean checkpointed(long id) {
    LeaseExpiry.Deadline d = expiry.get(id);
    return d == null || d.checkpointed();
  }

  /**
   * Marks every lease past its deadline as expiring and proposes a bounded number of expiries in this
   * leader's term; proposes the end of every lock-delay that is due (again after {@link #RETRY_NANOS} until
   * it is answered).
   */
  void tick() {
    Proposer p = proposer;
    List<List<Long>> batches = new ArrayList<>();
    List<LockDelays.Delay> delaysDue;
    LeaseCheckpoint.Builder checkpoint = LeaseCheckpoint.newBuilder();
    long term;
    synchronized (this) {
      term = readyTerm;
      if (term < 0 || p == null) {
        return;
      }
      long now = nanoClock.getAsLong();
      delaysDue = lockDelays.due(now, RETRY_NANOS);
      while (batches.size() < EXPIRE_BATCHES_PER_TICK && expiresInFlight < MAX_EXPIRES_IN_FLIGHT) {
        List<Long> batch = expiry.take(now, MAX_BATCH);
        if (batch.isEmpty()) {
          break;
        }
        batches.add(batch);
        expiresInFlight++;
      }
      if (!checkpointInFlight) {
        measure(now, checkpoint);
        checkpointInFlight = checkpoint.getCheckpointsCount() > 0;
      }
    }
    if (checkpoint.getCheckpointsCount() > 0) {
      propose(p, LogEntry.newBuilder().setLeaseCheckpoint(checkpoint.setProposerTerm(term)))
          .whenComplete((r, err) -> checkpointAnswered(term, err));
    }
    for (LockDelays.Delay d : delaysDue) {
      propose(p, LogEntry.newBuilder().setEndLockDelay(EndLockDelay.newBuilder().setName(d.name())
          .setProposerTerm(term).setDelayStartIndex(d.startIndex())))
          .thenAccept(r -> lockDelayAnswered(term, d, r));
    }
    for (List<Long> batch : batches) {
      LOG.info("term {}: {} leases expired: {}", term, batch.size(),
          batch.size() <= 10 ? batch : batch.subList(0, 10) + " and " + (batch.size() - 10) + " more");
      propose(p, LogEntry.newBuilder().setExpire(Expire.newBuilder().addAllLeaseIds(batch).setProposerTerm(term)))
          .whenComplete((r, err) -> expireAnswered(term, batch, r, err));
    }
  }

  private static CompletableFuture<Result> propose(Proposer p, LogEntry.Builder entry) {
    try {
      return p.propose(entry);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e); // a tick must not die with the scheduler's task
    }
  }

  /** Adds to {@code into} the remaining time of every long lease whose checkpoint is due, up to the budget. */
  private void measure(long now, LeaseCheckpoint.Builder into) {
    // every lease the schedule holds is tracked: both learn of grants and ends, and both start each epoch empty
    for (long id : checkpoints.due(now, CHECKPOINTS_PER_TICK)) {
      LeaseExpiry.Deadline d = expiry.get(id);
      long remainingMs = TimeUnit.NANOSECONDS.toMillis(d.deadline() - now);
      if (d.expiring() || remainingMs <= 0) {
        continue; // its Expire is on the way
      }
      into.addCheckpoints(Checkpoint.newBuilder().setLeaseId(id).setRemainingMs(remainingMs)
          .setRenewedIndex(d.renewedIndex()));
      expiry.update(id, d.withCheckpoint()); // before it applies: a keepalive must clear it from now on
    }
  }

  private synchronized void checkpointAnswered(long term, Throwable err) {
    if (term == readyTerm) {
      checkpointInFlight = false;
      if (err != null) {
        LOG.warn("term {}: lease checkpoint not committed: {}", term, err.getMessage());
      }
    }
  }

  private synchronized void lockDelayAnswered(long term, LockDelays.Delay d, Result r) {
    if (term == readyTerm && r.getCode() == Code.OK) {
      lockDelays.ended(d.name(), d.startIndex());
    }
  }

  private synchronized void expireAnswered(long term, List<Long> batch, Result r, Throwable err) {
    if (term != readyTerm) {
      return; // an earlier epoch's entry: this epoch re-armed every lease itself
    }
    expiresInFlight--;
    if (err != null || r.getCode() != Code.OK) {
      LOG.warn("term {}: expiry of {} leases not committed ({}); proposed again in {} ms", term, batch.size(),
          err != null ? err.getMessage() : r.getMessage(), TimeUnit.NANOSECONDS.toMillis(RETRY_NANOS));
      expiry.failed(batch, nanoClock.getAsLong() + RETRY_NANOS);
    }
  }

  /** Stops ticking (the scheduler belongs to the caller). */
  @Override
  public void close() {
    ticks.cancel(false);
  }

  private static long ms(long millis) {
    return TimeUnit.MILLISECONDS.toNanos(millis);
  }
}
