package io.regent.bench.load;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What {@code regent bench} asks of a coordination service, one instance per benchmark client (its own
 * connection). Each method is one client-visible operation with the same meaning on Regent and on etcd.
 * Public for {@code regent compare} (jepsen module), which drives every target through these same clients.
 */
public interface Target extends AutoCloseable {
  /** A name this client holds: its lease, its fencing token and the service's own handle. */
  record Held(String name, long lease, long token, Object handle) {
  }

  /**
   * One client of {@code kind} that starts at endpoint {@code clientIndex mod endpoints.size()}.
   *
   * @param kind {@code regent} (Regent's Java client, failing over along the rotated list; keepalives of leases due
   *     together in one KeepAliveMany call), {@code regentstream} and {@code regentunary} (the same, keepalives
   *     one per lease through the client on its keepalive streams, or as unary calls), {@code etcd}
   *     (etcd v3 gRPC on that one endpoint) or {@code ratis} (bare Ratis: {@code endpoints} are the Raft
   *     addresses of n0, n1, ...; see {@link RatisTarget})
   * @throws IllegalArgumentException for another kind
   */
  static Target connect(String kind, List<String> endpoints, int clientIndex) {
    return connect(kind, endpoints, clientIndex, ClientTls.NONE, BenchRun.DEFAULT_TENANT);
  }

  /**
   * As {@link #connect(String, List, int)}, the Regent kinds over {@code tls} (its client certificate being the
   * client's identity), granting their leases in the cell of {@code tenant} (docs/architecture.md §14).
   *
   * @throws IllegalArgumentException for another kind, or TLS asked of {@code etcd} or {@code ratis}
   */
  static Target connect(String kind, List<String> endpoints, int clientIndex, ClientTls tls, String tenant) {
    if (tls.enabled() && !kind.startsWith("regent")) {
      throw new IllegalArgumentException("TLS is for the regent targets only, not '" + kind + "'");
    }
    return switch (kind) {
      case "regent" -> new RegentTarget(endpoints, clientIndex, RegentTarget.Keepalives.MANY, tls, tenant);
      case "regentstream" -> new RegentTarget(endpoints, clientIndex, RegentTarget.Keepalives.STREAM, tls, tenant);
      case "regentunary" -> new RegentTarget(endpoints, clientIndex, RegentTarget.Keepalives.UNARY, tls, tenant);
      case "etcd" -> new EtcdTarget(endpoints, clientIndex);
      case "ratis" -> new RatisTarget(endpoints);
      default -> throw new IllegalArgumentException("target must be regent, regentstream, regentunary, etcd or ratis, not '"
          + kind + "'");
    };
  }

  /** Grants a lease of {@code ttlMs}; returns its id. */
  long grant(long ttlMs);

  /** Campaigns for {@code name} with {@code lease}; blocks until elected. */
  Held campaign(String name, long lease, String value);

  /**
   * The service's own way to take {@code name} with a new lease of {@code ttlMs} (blocks until elected). By
   * default a grant, then a campaign (etcd); Regent campaigns with a TTL, one log entry.
   */
  default Held campaignFresh(String name, long ttlMs, String value) {
    return campaign(name, grant(ttlMs), value);
  }

  /** Gives {@code held} up and ends its lease. By default a resign, then a revoke; Regent does both in one entry. */
  default void resignAndRevoke(Held held) {
    resign(held);
    revoke(held.lease());
  }

  /**
   * Takes every one of {@code names} with {@code lease} in one atomic step, all or none: Regent's CampaignAll (one
   * log entry), etcd's one Txn that creates every key only if none exists. Blocks until elected on Regent; etcd's
   * Txn fails when a key exists (the workloads use names nobody else takes).
   *
   * @throws UnsupportedOperationException on bare Ratis, which has no names
   */
  List<Held> campaignAll(List<String> names, long lease, String value);

  /** Queues for a name other clients contend for too (blocks until elected): the handover workload. */
  Held contend(String name, long lease, String value);

  /** Gives {@code held} up. */
  void resign(Held held);

  /** Revokes a lease. */
  void revoke(long lease);

  /** A linearizable read of the current holder of {@code name}; true when someone holds it. */
  boolean leaderRead(String name);

  /** A new, larger fencing token for the current holder. */
  Held freshToken(Held held);

  /** Renews {@code lease}; completes with true when renewed, false when the service says it is gone. */
  CompletableFuture<Boolean> keepAliveAsync(long lease);

  /**
   * Renews {@code leases}, which fell due together; one result per lease, as {@link #keepAliveAsync(long)}
   * gives. By default one call per lease (etcd's API renews one lease per message); Regent renews them in one
   * {@code KeepAliveMany} call.
   */
  default List<CompletableFuture<Boolean>> keepAliveAsync(long[] leases) {
    List<CompletableFuture<Boolean>> out = new ArrayList<>(leases.length);
    for (long lease : leases) {
      out.add(keepAliveAsync(lease));
    }
    return out;
  }

  @Override
  void close();
}
