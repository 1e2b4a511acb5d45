package io.regent.server.limits;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.store.StateTxn;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Counts the names held by the leases granted to each client identity through this node, and refuses a
 * campaign of an identity at its limit (docs/architecture.md §7.2). A lease counts from its grant's answer
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
   * The grant of {@code leaseId} to {@code identity} was answered: its names count from now on.
   *
   * @param state the local replica, read at once for the names the lease already holds
   */
  public synchronized void granted(String identity, long leaseId, StateTxn state) {
    owner.put(leaseId, identity);
    LeaseRecord lease = state.lease(leaseId);
    if (lease == null) {
      forget(leaseId); // ended before its answer was handled: its LEASE_ENDED came already
      return;
    }
    for (String name : lease.getNamesList()) {
      if (holds(state.name(name), leaseId)) {
        add(leaseId, name);
      }
    }
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
    for (Long id : Set.copyOf(owner.keySet())) {
      String identity = owner.get(id);
      forget(id);
      if (installed.lease(id) != null) {
        granted(identity, id, installed);
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
