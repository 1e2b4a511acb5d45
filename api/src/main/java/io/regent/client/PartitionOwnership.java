package io.regent.client;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.api.v1.PartitionToken;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A member of an ownership group (docs/ownership.md), in the shape of Kafka's rebalance listener: the
 * application is told {@link Listener#onAssigned} with each partition's fencing token, and
 * {@link Listener#onRevoked} <em>before</em> the partition's release is sent, so it has stopped acting on the
 * partition by the time another member can be granted it.
 *
 * <p>Step-down: the member's lease is kept alive by a {@link LeaseKeeper}; when renewal has failed for 2/3
 * of the TTL (or the lease is gone) every partition is revoked at once, before the server can expire the
 * lease and hand the partitions on. Attach {@link #token(int)} to every write of a partition, checked by a
 * {@code FencingGuard} keyed by partition at the resource.
 *
 * <p>Suspension (when the keeper's options ask for it, {@link LeaseKeeper.Options#suspendWhenInDoubt}; Curator's
 * SUSPENDED, docs/architecture.md §3.6): at that deadline the member is only <em>suspended</em> — every
 * partition is revoked ({@link Listener#onRevoked}), then {@link Listener#onSuspended}, but the member stays in
 * the group and goes on renewing and following its assignment (it still releases what the group moves away).
 * A renewal in time proves the lease never ended: {@link Listener#onResumed}, then every partition the group
 * assigns it now is assigned again, with its token (unchanged unless the partition moved meanwhile). The
 * options' own suspension callbacks run after the member's. It steps down as without suspension once the
 * keeper does (the lease gone, or the grace passed).
 *
 * <p>Listener calls come from one thread, in log order. Thread-safe.
 */
public final class PartitionOwnership implements AutoCloseable {
  /** Pause before a broken watch stream is opened again, ms. */
  static final long REWATCH_MS = 200;

  /** What the application does when its assignment changes. Must not block for long. */
  public interface Listener {
    /** The member owns {@code partition} from now on; write to it with {@code token}. */
    void onAssigned(int partition, long token);

    /** The member must stop acting on {@code partition} now (it is released right after this returns). */
    void onRevoked(int partition);

    /** Called once, after every partition was revoked, when the lease can no longer be vouched for. */
    default void onStepDown(String reason) {
    }

    /** With suspension: every partition was revoked because the lease is in doubt for {@code reason}. */
    default void onSuspended(String reason) {
    }

    /** With suspension: the lease proved held again; the partitions it owns now are assigned right after. */
    default void onResumed() {
    }
  }

  private final GroupClient groups;
  private final String group;
  private final String member;
  private final Listener listener;
  private final LeaseKeeper keeper;
  private final ScheduledExecutorService events;
  private final Map<Integer, Long> owned = new TreeMap<>(); // guarded by this
  /** What the last assignment gave this member, to act on or not: partition to token. Events thread. */
  private Map<Integer, Long> assigned = Map.of();
  private volatile Runnable cancelWatch = () -> { };
  private volatile boolean down;
  private long lastIndex; // events thread only

  private PartitionOwnership(RegentClient client, String group, String member, long ttlMs, Listener listener,
                             LeaseKeeper.Options keeperOptions) {
    this.groups = new GroupClient(client);
    this.group = group;
    this.member = member;
    this.listener = listener;
    this.events = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "regent-partitions-" + group);
      t.setDaemon(true);
      return t;
    });
    if (keeperOptions.onSuspend != null) {
      java.util.function.Consumer<String> theirSuspend = keeperOptions.onSuspend;
      Runnable theirResume = keeperOptions.onResume;
      keeperOptions.suspendWhenInDoubt(reason -> events.execute(() -> suspend(reason, theirSuspend)),
          () -> events.execute(() -> resume(theirResume)));
    }
    this.keeper = LeaseKeeper.grant(client, ttlMs, group, reason -> events.execute(() -> {
      if (!down) {
        stepDown();
        listener.onStepDown(reason);
      }
    }), keeperOptions);
  }

  /** The lease is in doubt: stop acting on every partition, but stay in the group. Events thread. */
  private void suspend(String reason, java.util.function.Consumer<String> then) {
    if (down) {
      return;
    }
    Map.copyOf(owned).keySet().forEach(this::revoke);
    listener.onSuspended(reason);
    then.accept(reason);
  }

  /** The lease proved held: act again on what the group assigns now. Events thread. */
  private void resume(Runnable then) {
    if (down) {
      return;
    }
    listener.onResumed();
    then.run();
    assign(assigned);
  }

  /**
   * Grants a lease of {@code ttlMs}, joins {@code group} as {@code member} (creating the group with
   * {@code partitions} partitions; 0 to join an existing one) and starts following the assignment.
   *
   * @throws StatusRuntimeException the errors of Group.Join (bad input, member id taken, ...); UNAVAILABLE
   */
  public static PartitionOwnership join(RegentClient client, String group, String member, int partitions,
                                        long ttlMs, Listener listener) {
    return join(client, group, member, partitions, ttlMs, listener, LeaseKeeper.options());
  }

  /**
   * Like {@link #join(RegentClient, String, String, int, long, Listener)}, its lease kept with {@code
   * keeperOptions} (a clock, a scheduler, or a hook before each renewal: Jepsen's simulated process pause).
   */
  public static PartitionOwnership join(RegentClient client, String group, String member, int partitions,
                                        long ttlMs, Listener listener, LeaseKeeper.Options keeperOptions) {
    PartitionOwnership o = new PartitionOwnership(client, group, member, ttlMs, listener, keeperOptions);
    try {
      o.groups.join(group, member, partitions, o.keeper.leaseId());
    } catch (RuntimeException e) {
      o.close();
      throw e;
    }
    o.events.execute(o::watch);
    return o;
  }

  /** The fencing token of an owned partition. @throws IllegalStateException when it is not owned now */
  public synchronized long token(int partition) {
    Long t = isValid() ? owned.get(partition) : null;
    if (t == null) {
      throw new IllegalStateException("partition " + partition + " of '" + group + "' is not owned by " + member);
    }
    return t;
  }

  /** The partitions owned now, with their tokens (empty after a step-down). */
  public synchronized Map<Integer, Long> owned() {
    return isValid() ? Map.copyOf(owned) : Map.of();
  }

  /** Whether the member may still act: its lease is vouched for and it has not closed or stepped down. */
  public boolean isValid() {
    return !down && keeper.isValid();
  }

  /**
   * Until when, on the lease keeper's clock ({@link System#nanoTime} by default), ns, the member may act: the
   * keeper's step-down deadline (docs/architecture.md §3.6), after which {@link #isValid()} is false for good.
   */
  public long deadlineNanos() {
    return keeper.deadlineNanos();
  }

  /** The member's lease id. */
  public long leaseId() {
    return keeper.leaseId();
  }

  private void watch() {
    if (down) {
      return;
    }
    cancelWatch = groups.watch(group, member, lastIndex, new StreamObserver<>() {
      @Override
      public void onNext(GroupWatchResponse r) {
        events.execute(() -> apply(r));
      }

      @Override
      public void onError(Throwable t) {
        events.schedule(PartitionOwnership.this::watch, REWATCH_MS, TimeUnit.MILLISECONDS);
      }

      @Override
      public void onCompleted() {
        events.schedule(PartitionOwnership.this::watch, REWATCH_MS, TimeUnit.MILLISECONDS);
      }
    });
  }

  /** Brings the local view to {@code r}: revoke first (then release), then assign. Events thread. */
  private void apply(GroupWatchResponse r) {
    if (down || r.getIndex() <= lastIndex) {
      return;
    }
    lastIndex = r.getIndex();
    Set<Integer> toRelease = new HashSet<>(r.getReleaseList());
    Map<Integer, Long> keep = new TreeMap<>();
    Map<Integer, Long> release = new TreeMap<>();
    for (PartitionToken pt : r.getOwnedList()) {
      (toRelease.contains(pt.getPartition()) ? release : keep).put(pt.getPartition(), pt.getToken());
    }
    for (Map.Entry<Integer, Long> e : Map.copyOf(owned).entrySet()) {
      if (!e.getValue().equals(keep.get(e.getKey()))) {
        revoke(e.getKey());
      }
    }
    if (!release.isEmpty()) {
      try {
        groups.release(group, release);
      } catch (StatusRuntimeException e) {
        // a move undone meanwhile, or no quorum: the next assignment says what to do
      }
    }
    assigned = keep;
    assign(keep);
  }

  /** Starts acting on each partition of {@code keep} not owned yet, while the lease is vouched for. */
  private void assign(Map<Integer, Long> keep) {
    for (Map.Entry<Integer, Long> e : keep.entrySet()) {
      if (!owned.containsKey(e.getKey()) && isValid()) {
        synchronized (this) {
          owned.put(e.getKey(), e.getValue());
        }
        listener.onAssigned(e.getKey(), e.getValue());
      }
    }
  }

  private void revoke(int partition) {
    synchronized (this) {
      owned.remove(partition);
    }
    listener.onRevoked(partition);
  }

  /** The lease can no longer be vouched for: stop acting on everything (the server frees it on expiry). */
  private void stepDown() {
    if (down) {
      return;
    }
    down = true;
    cancelWatch.run();
    Map.copyOf(owned).keySet().forEach(this::revoke);
  }

  /**
   * Revokes every partition, leaves the group (they move on at once) and revokes the lease. Best effort:
   * without quorum the lease expires on its own after its TTL.
   */
  @Override
  public void close() {
    try {
      events.submit(() -> {
        boolean wasUp = !down;
        stepDown();
        if (wasUp) {
          try {
            groups.leave(group, member, keeper.leaseId());
          } catch (StatusRuntimeException e) {
            // not a member (never joined, or expired): nothing to leave
          }
        }
      }).get(RegentClient.CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      // timed out or interrupted: revoking the lease below frees the partitions anyway
    } finally {
      events.shutdownNow();
      keeper.close();
    }
  }
}
