package io.regent.server.limits;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.StateTxn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Counts the names held by the leases granted to each client identity through this node, and refuses a
 * campaign of an identity at its limit (docs/architecture.md §7.2). A lease counts from just before its grant's answer
 * ({@link #granted}: the names it already holds are read from the state then, for a campaign with a TTL elects in
 * its granting entry) until it ends; a name counts from its ELECTED event until the RESIGNED, EXPIRED or REVOKED
 * event that frees it. Node-local bookkeeping, as the per-identity lease quota: a lease granted through another
 * node is not counted here, and the node-wide {@code --max-names}, checked at apply, bounds the state.
 *
 * <p>The check is made when a campaign arrives, so an identity's campaigns in flight at once (at most its bulk
 * calls, {@code --max-bulk-calls-per-identity}) may take it past the limit by their number; the next is refused.
 * Thread-safe: events arrive on the apply thread, checks and grants on gRPC threads.
 */
public final class NameQuota implements Consumer<ChangeEvent>, EventHub.InstallListener {
  private final int perIdentity;
  /** The identity of each lease counted here. */
  private final Map<Long, String> owner = new HashMap<>();
  /** The names each counted lease holds. */
  private final Map<Long, Set<String>> held = new HashMap<>();
  /** The events of each lease whose grant's read of the state is under way ({@link #granted}). */
  private final Map<Long, List<ChangeEvent>> pending = new HashMap<>();
  /** Names held per identity: the sum of its leases' {@link #held} sets. */
  private final Map<String, Integer> count = new HashMap<>();

  /** @param perIdentity names the leases of one identity may hold through this node, at least 1 */
  public NameQuota(int perIdentity) {
    this.perIdentity = perIdentity;
  }

  /**
   * Refuses a campaign of {@code identity} for {@code names} more names when it holds its limit.
   *
   * @throws StatusRuntimeException RESOURCE_EXHAUSTED naming the identity and {@code --max-names-per-identity}
   */
  public synchronized void check(String identity, int names) {
    int holds = count.getOrDefault(identity, 0);
    if (holds + names > perIdentity) {
      throw Status.RESOURCE_EXHAUSTED.withDescription("identity '" + identity + "' holds " + holds
          + " names through leases granted on this node; " + names + " more would pass its limit "
          + "(--max-names-per-identity " + perIdentity + "); resign some first").asRuntimeException();
    }
  }

  /**
   * The grant of {@code leaseId} to {@code identity} was answered: its names count from now on. The names the lease
   * already holds are read from {@code state} outside this quota's monitor, so that the apply thread's events never
   * wait on an LMDB read; the events of the lease that arrive meanwhile are kept and folded in after the read,
   * those the read already reflects (at or below its applied index) left out.
   *
   * @param state the local replica, read once for the names the lease holds
   */
  public void granted(String identity, long leaseId, ReplicaView state) {
    synchronized (this) {
      owner.put(leaseId, identity);
      pending.put(leaseId, new ArrayList<>());
    }
    Held read;
    try {
      read = state.read(txn -> readHeld(txn, leaseId));
    } catch (RuntimeException e) {
      synchronized (this) { // uncounted, rather than a lease whose events pile up in pending for good
        pending.remove(leaseId);
        forget(leaseId);
      }
      throw e;
    }
    synchronized (this) {
      List<ChangeEvent> meanwhile = pending.remove(leaseId);
      if (meanwhile == null) {
        return; // a snapshot install folded it in already (stateInstalled)
      }
      if (read.names() == null) {
        forget(leaseId); // ended before this read: its LEASE_ENDED may have come already
        return;
      }
      read.names().forEach(name -> add(leaseId, name));
      meanwhile.stream().filter(e -> e.index() > read.index()).forEach(this::count);
    }
  }

  /** The names lease {@code leaseId} holds in {@code txn} and the index they are read at; null names: no lease. */
  private static Held readHeld(StateTxn txn, long leaseId) {
    LeaseRecord lease = txn.lease(leaseId);
    if (lease == null) {
      return new Held(txn.appliedIndex(), null);
    }
    List<String> names = new ArrayList<>();
    for (String name : lease.getNamesList()) {
      if (holds(txn.name(name), leaseId)) {
        names.add(name);
      }
    }
    return new Held(txn.appliedIndex(), names);
  }

  private record Held(long index, List<String> names) {
  }

  /** Names the leases of {@code identity} hold, as counted here. */
  public synchronized int count(String identity) {
    return count.getOrDefault(identity, 0);
  }

  @Override
  public synchronized void accept(ChangeEvent e) {
    if (!owner.containsKey(e.leaseId())) {
      return;
    }
    List<ChangeEvent> meanwhile = pending.get(e.leaseId());
    if (meanwhile != null) {
      meanwhile.add(e); // its grant's read is under way: folded in after it (granted)
      return;
    }
    count(e);
  }

  private void count(ChangeEvent e) {
    switch (e.kind()) {
      case ELECTED -> add(e.leaseId(), e.name());
      case RESIGNED, EXPIRED, REVOKED -> remove(e.leaseId(), e.name());
      case LEASE_ENDED -> forget(e.leaseId());
      default -> {
      }
    }
  }

  /** A snapshot replaced the local state: what the counted leases hold is read again from it. */
  @Override
  public synchronized void stateInstalled(StateTxn installed) {
    pending.clear(); // the installed state stands for every event kept so far; granted() sees it was folded
    for (Long id : Set.copyOf(owner.keySet())) {
      String identity = owner.get(id);
      forget(id);
      Held read = readHeld(installed, id);
      if (read.names() != null) {
        owner.put(id, identity);
        read.names().forEach(name -> add(id, name));
      }
    }
  }

  private static boolean holds(NameRecord rec, long leaseId) {
    return rec != null && rec.hasHolder() && rec.getHolder().getLeaseId() == leaseId;
  }

  private void add(long leaseId, String name) {
    if (held.computeIfAbsent(leaseId, id -> new HashSet<>()).add(name)) {
      count.merge(owner.get(leaseId), 1, Integer::sum);
    }
  }

  private void remove(long leaseId, String name) {
    Set<String> names = held.get(leaseId);
    if (names != null && names.remove(name)) {
      decrement(owner.get(leaseId), 1);
    }
  }

  private void forget(long leaseId) {
    String identity = owner.remove(leaseId);
    Set<String> names = held.remove(leaseId);
    if (names != null && !names.isEmpty()) {
      decrement(identity, names.size());
    }
  }

  private void decrement(String identity, int n) {
    count.computeIfPresent(identity, (id, c) -> c - n == 0 ? null : c - n);
  }
}
