package io.regent.jepsen.workload;

import io.grpc.StatusRuntimeException;
import io.regent.client.LeaseKeeper;
import io.regent.client.PartitionOwnership;
import io.regent.jepsen.client.ClientProcess;
import io.regent.jepsen.client.Errors;
import io.regent.jepsen.history.Keyword;
import io.regent.jepsen.history.Op;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * One logical process as one member of an ownership group, through the shipped recipe {@link
 * PartitionOwnership} (its lease kept by the shipped {@code LeaseKeeper}, whose renewals pass the process's
 * pause gate). The member id is the process's name. Its moves, each an op of the process: {@code :join};
 * {@code :append} to the fenced ledger of a partition it believes it owns, with that partition's token;
 * {@code :pause} (every thread of the member stops past its TTL, then it writes with the token it had: the
 * zombie of a GC pause); {@code :leave} (the recipe's {@code close()}: revoke everything, then Leave); {@code
 * :crash} (kill -9's equivalent in this harness: it believes nothing from that instant and its connections are
 * cut, so nothing more reaches the cluster, no release, no Leave, no revoke; its lease expires after its TTL).
 *
 * <p>Its belief in owning a partition runs from {@code onAssigned} to {@code onRevoked}, or to the keeper's
 * step-down deadline if that came first, or to the crash. Each belief is recorded when it ends, as an instant
 * {@code :own} op: {@code :key} the partition, value the token, {@code :held [start end]} in test nanoseconds
 * (nil when it ended before it began: assigned as the deadline passed), {@code :reason}. The listener runs on
 * the recipe's thread, concurrently with the process's operations, so these ops go under process {@code
 * -(id+1)} ({@link ClientProcess#retiredId}), which the checkers read as the same client. The listener passes
 * the pause gate too: a paused process hears of nothing until it wakes.
 */
final class OwnershipMember {
  private final ClientProcess p;
  private final String group;
  private final int partitions;
  private final long ttlMs;
  private final LedgerCalls ledger;
  private final Map<Integer, Belief> believed = new TreeMap<>(); // guarded by this
  private boolean gone; // guarded by this: left or crashed, it believes nothing more
  private volatile PartitionOwnership ownership;
  private int seq;

  /** A belief in owning a partition with {@code token} since {@code since} ({@link System#nanoTime}). */
  private record Belief(long token, long since) {
  }

  /**
   * A member, not joined yet.
   *
   * @param p its process
   * @param group the group's name
   * @param partitions the partition count the group is created with
   * @param ttlMs the member's lease TTL
   * @param ledgerPort the fenced ledger's loopback port
   */
  OwnershipMember(ClientProcess p, String group, int partitions, long ttlMs, int ledgerPort) {
    this.p = p;
    this.group = group;
    this.partitions = partitions;
    this.ttlMs = ttlMs;
    this.ledger = new LedgerCalls(p, ledgerPort);
  }

  /** The ledger key of {@code partition} of {@code group}: one fenced ledger per partition. */
  static String ledgerKey(String group, int partition) {
    return group + "/" + partition;
  }

  /** Whether it has joined and has neither left nor crashed. */
  synchronized boolean joined() {
    return ownership != null && !gone;
  }

  /** Whether it believes it owns a partition now (the client-pause nemesis prefers such clients). */
  synchronized boolean holding() {
    return !believed.isEmpty();
  }

  /** A {@code :join} (value: the lease id): grants a lease, joins (creating the group) and follows the assignment. */
  void join() {
    ClientProcess.Invocation inv = p.invoke("join", group, null);
    LeaseKeeper.Options options = LeaseKeeper.options().pauseHook(p.gate()::await);
    try {
      PartitionOwnership o = p.call(() -> PartitionOwnership.join(p.client(), group, p.name(), partitions, ttlMs,
          listener(), options));
      ownership = o;
      inv.ok(o.leaseId());
    } catch (StatusRuntimeException e) {
      if (Errors.definiteFailure(e)) {
        inv.fail(Errors.describe(e));
      } else {
        inv.info(Errors.describe(e));
      }
    }
  }

  /** An {@code :append} to a partition it believes it owns, if it has one and its lease is vouched for. */
  void write() throws InterruptedException {
    Map.Entry<Integer, Long> target = pick();
    if (target != null) {
      p.gate().await(); // a pause here, after the check, makes a zombie writer
      append(target.getKey(), target.getValue());
    }
  }

  /**
   * A {@code :pause} of {@code ms}: every thread of the member stops (the op thread, the keeper's renewals, the
   * listener); then it appends with the token it had before, if it had one.
   */
  void pause(long ms) throws InterruptedException {
    Map.Entry<Integer, Long> target = pick();
    ClientProcess.Invocation inv = p.invoke("pause", group, ms);
    p.gate().pause(TimeUnit.MILLISECONDS.toNanos(ms));
    p.gate().await();
    inv.ok(ms);
    if (target != null) {
      append(target.getKey(), target.getValue());
    }
  }

  /** A {@code :leave}: the recipe's close (revokes every partition, then leaves the group); the process ends. */
  void leave() {
    ClientProcess.Invocation inv = p.invoke("leave", group, null);
    ownership.close();
    endAll("leave");
    inv.ok(null);
    p.retire();
  }

  /** A {@code :crash}, kill -9's equivalent: believes nothing more, says nothing more; the process ends. */
  void crash() {
    p.instant("crash", group, null, null);
    kill("crash");
    p.retire();
  }

  /**
   * Ends the member with its process: at the end of the test it leaves, or, for a process retired by an {@code
   * :info} (which may invoke nothing more), it goes as a crashed one does; then its ledger channel is closed.
   */
  void close() {
    if (joined()) {
      if (p.retired()) {
        kill("retired");
      } else {
        leave();
      }
    }
    ledger.close();
  }

  private void kill(String reason) {
    endAll(reason);
    // From here every call of the recipe fails at once, on this side: no release, Leave, renewal or revoke is sent.
    p.client().close();
    try {
      ownership.close(); // stops its threads
    } catch (RuntimeException e) {
      // its revoke refused by the closed client (RegentClient takes no call after close), as a dead process's
    }
  }

  /** A partition believed owned and its token, at random, while the lease is vouched for; else null. */
  private synchronized Map.Entry<Integer, Long> pick() {
    PartitionOwnership o = ownership;
    if (gone || believed.isEmpty() || o == null || !o.isValid()) {
      return null;
    }
    List<Integer> owned = new ArrayList<>(believed.keySet());
    int partition = owned.get(p.random().nextInt(owned.size()));
    return Map.entry(partition, believed.get(partition).token());
  }

  private void append(int partition, long token) {
    ledger.append((long) partition, ledgerKey(group, partition), token, p.name() + "-" + seq++);
  }

  private PartitionOwnership.Listener listener() {
    return new PartitionOwnership.Listener() {
      @Override
      public void onAssigned(int partition, long token) {
        passGate();
        synchronized (OwnershipMember.this) {
          if (!gone) {
            believed.putIfAbsent(partition, new Belief(token, System.nanoTime()));
          }
        }
      }

      @Override
      public void onRevoked(int partition) {
        passGate();
        synchronized (OwnershipMember.this) {
          Belief b = believed.remove(partition);
          if (b != null && !gone) {
            record(partition, b, "revoked");
          }
        }
      }
    };
  }

  private void passGate() {
    try {
      p.gate().await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the recipe is closing its thread
    }
  }

  /** Ends every belief now and believes nothing more. */
  private synchronized void endAll(String reason) {
    if (!gone) {
      believed.forEach((partition, b) -> record(partition, b, reason));
    }
    believed.clear();
    gone = true;
  }

  /** Records the end of a belief: now, or the keeper's step-down deadline if that came first. Holds the lock. */
  private void record(int partition, Belief b, String reason) {
    long now = System.nanoTime();
    PartitionOwnership o = ownership;
    boolean lapsed = o != null && now - o.deadlineNanos() >= 0;
    long end = lapsed ? o.deadlineNanos() : now;
    List<Object> held = end - b.since() > 0
        ? new ArrayList<>(List.of(p.recorder().relative(b.since()), p.recorder().relative(end))) : null;
    Map<Keyword, Object> extra = new LinkedHashMap<>();
    extra.put(Keyword.of("held"), held);
    extra.put(Keyword.of("reason"), Keyword.of(lapsed ? "lease-deadline" : reason));
    long as = ClientProcess.retiredId(p.id());
    // One lock (this) around both events: no other op of process -(id+1) can come between them.
    p.recorder().append(as, Op.Type.INVOKE, "own", (long) partition, b.token(), null);
    p.recorder().append(as, Op.Type.OK, "own", (long) partition, b.token(), extra);
  }
}
