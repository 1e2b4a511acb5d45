package io.regent.server.limits;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.store.StateTxn;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Counts the live leases granted over each client connection (or, as {@link Admission#leaseQuota()}, to each
 * client identity) and refuses a grant beyond {@code perConnection}. A lease stops counting when it ends (its
 * LEASE_ENDED event, on the apply thread) or when its connection closes (the lease itself lives on; the node-wide
 * {@code --max-leases}, checked at apply, bounds the state). Node-local bookkeeping: nothing here is replicated.
 */
public final class LeaseQuota implements Consumer<ChangeEvent>, EventHub.InstallListener {
  private final int perConnection;
  private final Function<String, String> describe;
  private final String flag;
  private final Map<String, Integer> pending = new HashMap<>();
  private final Map<String, Set<Long>> live = new HashMap<>();
  private final Map<Long, String> owner = new HashMap<>();

  /** @param perConnection live leases one connection may hold (granted plus being granted) */
  public LeaseQuota(int perConnection) {
    this(perConnection, c -> "this connection", "--max-leases-per-connection");
  }

  /**
   * @param perKey live leases one key may hold (granted plus being granted)
   * @param describe names a key in the refusal ("identity 'x'")
   * @param flag the setting of the limit, named in the refusal
   */
  LeaseQuota(int perKey, Function<String, String> describe, String flag) {
    this.perConnection = perKey;
    this.describe = describe;
    this.flag = flag;
  }

  /**
   * Reserves room for one grant over {@code connection}; follow with {@link #granted} or {@link #released}.
   *
   * @throws StatusRuntimeException RESOURCE_EXHAUSTED when the connection is at its limit
   */
  public synchronized void reserve(String connection) {
    int used = live.getOrDefault(connection, Set.of()).size() + pending.getOrDefault(connection, 0);
    if (used >= perConnection) {
      throw Status.RESOURCE_EXHAUSTED.withDescription(describe.apply(connection) + " holds " + used
          + " leases, its limit (" + flag + " " + perConnection + "); revoke some first")
          .asRuntimeException();
    }
    pending.merge(connection, 1, Integer::sum);
  }

  /** The reserved grant succeeded: {@code leaseId} counts against {@code connection} until it ends. */
  public synchronized void granted(String connection, long leaseId) {
    if (unreserve(connection)) {
      live.computeIfAbsent(connection, c -> new HashSet<>()).add(leaseId);
      owner.put(leaseId, connection);
    }
  }

  /** The reserved grant failed: the room is given back. */
  public synchronized void released(String connection) {
    unreserve(connection);
  }

  /** The connection closed: its leases stop counting against anything here. */
  public synchronized void forget(String connection) {
    pending.remove(connection);
    Set<Long> ids = live.remove(connection);
    if (ids != null) {
      ids.forEach(owner::remove);
    }
  }

  /** Live leases counted against {@code connection}. */
  public synchronized int count(String connection) {
    return live.getOrDefault(connection, Set.of()).size();
  }

  @Override
  public synchronized void accept(ChangeEvent e) {
    if (e.kind() != ChangeEvent.Kind.LEASE_ENDED) {
      return;
    }
    String connection = owner.remove(e.leaseId());
    if (connection != null) {
      Set<Long> ids = live.get(connection);
      ids.remove(e.leaseId());
      if (ids.isEmpty()) {
        live.remove(connection);
      }
    }
  }

  /** A snapshot replaced the local state: leases it no longer holds ended in entries whose events never came. */
  @Override
  public synchronized void stateInstalled(StateTxn installed) {
    owner.keySet().removeIf(id -> installed.lease(id) == null);
    live.values().forEach(ids -> ids.removeIf(id -> !owner.containsKey(id)));
    live.values().removeIf(Set::isEmpty);
  }

  /** False when the connection was forgotten meanwhile (closed while its grant was in flight). */
  private boolean unreserve(String connection) {
    Integer n = pending.get(connection);
    if (n == null) {
      return false;
    }
    if (n <= 1) {
      pending.remove(connection);
    } else {
      pending.put(connection, n - 1);
    }
    return true;
  }
}
