package io.regent.server;

import io.regent.server.limits.ServerLimits;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Settings of one Regent node.
 *
 * @param nodeId this node's Raft peer id (one of {@code peers})
 * @param peers every voting member: id to Raft address {@code host:port}, in a stable order
 * @param apiHost address the public gRPC API binds to
 * @param apiPort port of the public gRPC API (0 picks a free port)
 * @param dataDir directory holding {@code raft/} (Ratis log and snapshots) and {@code lmdb/} (live state)
 * @param electionTimeoutMinMs lower bound of Raft's randomized election timeout, ms
 * @param electionTimeoutMaxMs upper bound, ms; the minimum lease TTL is 1.5 times this (etcd's rule)
 * @param snapshotThreshold applied entries between automatic snapshots
 * @param logSegmentBytes maximum size of one Raft log segment; purging works segment by segment
 * @param requestTimeoutMs how long a proposal may take before the API answers UNAVAILABLE
 * @param unsafeLocalGrants TESTS ONLY (the Jepsen negative control): a Campaign on a name this node sees
 *     as free is answered "elected" at once, from local state, without Raft; breaks every guarantee
 * @param metricsPort port of the HTTP endpoint serving {@code /metrics}, {@code /healthz} and {@code /readyz}
 *     on {@code apiHost}; -1 (the default) serves none, 0 picks a free port
 * @param limits limits of the public API ({@link ServerLimits#DEFAULTS} unless set)
 * @param confirm how leadership is confirmed before keepalives and linearizable reads ({@link ConfirmRule#LEASE}
 *     unless set; {@code null} means that)
 */
public record ServerConfig(String nodeId, Map<String, String> peers, String apiHost, int apiPort, Path dataDir,
                           long electionTimeoutMinMs, long electionTimeoutMaxMs, long snapshotThreshold,
                           long logSegmentBytes, long requestTimeoutMs, boolean unsafeLocalGrants,
                           int metricsPort, ServerLimits limits, ConfirmRule confirm) {

  /** Default election timeouts: 600–1200 ms, so the minimum TTL is 1.8 s (tests can use 2–3 s TTLs). */
  public static final long DEFAULT_ELECTION_MIN_MS = 600;
  /** See {@link #DEFAULT_ELECTION_MIN_MS}. */
  public static final long DEFAULT_ELECTION_MAX_MS = 1200;

  /**
   * Validates the settings.
   *
   * @throws IllegalArgumentException when {@code nodeId} is not a peer or the election timeouts are not
   *     {@code 0 < min <= max}
   */
  public ServerConfig {
    peers = new LinkedHashMap<>(peers);
    if (!peers.containsKey(nodeId)) {
      throw new IllegalArgumentException("node id '" + nodeId + "' is not among the peers " + peers.keySet());
    }
    if (electionTimeoutMinMs <= 0 || electionTimeoutMaxMs < electionTimeoutMinMs) {
      throw new IllegalArgumentException("election timeout range " + electionTimeoutMinMs + ".."
          + electionTimeoutMaxMs + " ms is invalid");
    }
    if (metricsPort < -1 || metricsPort > 65_535) {
      throw new IllegalArgumentException("metrics port " + metricsPort + " is outside -1..65535");
    }
    if (limits == null) {
      throw new IllegalArgumentException("limits must be set (ServerLimits.DEFAULTS)");
    }
    if (confirm == null) {
      confirm = ConfirmRule.LEASE;
    }
  }

  /** A node with the default limits (the settings before limits existed; see {@link #withLimits}). */
  public ServerConfig(String nodeId, Map<String, String> peers, String apiHost, int apiPort, Path dataDir,
                      long electionTimeoutMinMs, long electionTimeoutMaxMs, long snapshotThreshold,
                      long logSegmentBytes, long requestTimeoutMs, boolean unsafeLocalGrants, int metricsPort) {
    this(nodeId, peers, apiHost, apiPort, dataDir, electionTimeoutMinMs, electionTimeoutMaxMs, snapshotThreshold,
        logSegmentBytes, requestTimeoutMs, unsafeLocalGrants, metricsPort, ServerLimits.DEFAULTS, ConfirmRule.LEASE);
  }

  /** A node without a metrics endpoint (the settings before metrics existed; see {@link #withMetricsPort}). */
  public ServerConfig(String nodeId, Map<String, String> peers, String apiHost, int apiPort, Path dataDir,
                      long electionTimeoutMinMs, long electionTimeoutMaxMs, long snapshotThreshold,
                      long logSegmentBytes, long requestTimeoutMs, boolean unsafeLocalGrants) {
    this(nodeId, peers, apiHost, apiPort, dataDir, electionTimeoutMinMs, electionTimeoutMaxMs, snapshotThreshold,
        logSegmentBytes, requestTimeoutMs, unsafeLocalGrants, -1);
  }

  /** A node with default timings: snapshots every 10 000 entries, 8 MiB log segments, 10 s requests. */
  public static ServerConfig of(String nodeId, Map<String, String> peers, int apiPort, Path dataDir) {
    return new ServerConfig(nodeId, peers, "127.0.0.1", apiPort, dataDir, DEFAULT_ELECTION_MIN_MS,
        DEFAULT_ELECTION_MAX_MS, 10_000, 8L << 20, 10_000, false);
  }

  /** Smallest TTL a lease may have: 1.5 x the maximum election timeout, in ms (etcd's minimum-TTL rule). */
  public long minTtlMs() {
    return electionTimeoutMaxMs * 3 / 2;
  }

  /** A copy whose proposals give up (UNAVAILABLE) after {@code ms}. */
  public ServerConfig withRequestTimeout(long ms) {
    return new ServerConfig(nodeId, peers, apiHost, apiPort, dataDir, electionTimeoutMinMs, electionTimeoutMaxMs,
        snapshotThreshold, logSegmentBytes, ms, unsafeLocalGrants, metricsPort, limits, confirm);
  }

  /** A copy with other snapshot and segment sizes (tests force purges and snapshot installs with these). */
  public ServerConfig withSnapshots(long threshold, long segmentBytes) {
    return new ServerConfig(nodeId, peers, apiHost, apiPort, dataDir, electionTimeoutMinMs, electionTimeoutMaxMs,
        threshold, segmentBytes, requestTimeoutMs, unsafeLocalGrants, metricsPort, limits, confirm);
  }

  /** A copy with the unsafe local-grant mode switched on or off (see {@code unsafeLocalGrants}). */
  public ServerConfig withUnsafeLocalGrants(boolean unsafe) {
    return new ServerConfig(nodeId, peers, apiHost, apiPort, dataDir, electionTimeoutMinMs, electionTimeoutMaxMs,
        snapshotThreshold, logSegmentBytes, requestTimeoutMs, unsafe, metricsPort, limits, confirm);
  }

  /** A copy with other limits of the public API. */
  public ServerConfig withLimits(ServerLimits newLimits) {
    return new ServerConfig(nodeId, peers, apiHost, apiPort, dataDir, electionTimeoutMinMs, electionTimeoutMaxMs,
        snapshotThreshold, logSegmentBytes, requestTimeoutMs, unsafeLocalGrants, metricsPort, newLimits, confirm);
  }

  /** A copy serving metrics and health on {@code port} (-1: none, 0: a free port). */
  public ServerConfig withMetricsPort(int port) {
    return new ServerConfig(nodeId, peers, apiHost, apiPort, dataDir, electionTimeoutMinMs, electionTimeoutMaxMs,
        snapshotThreshold, logSegmentBytes, requestTimeoutMs, unsafeLocalGrants, port, limits, confirm);
  }

  /** A copy that confirms leadership by {@code rule} ({@code --confirm}, {@code --unsafe-leadership-lease-factor}). */
  public ServerConfig withConfirm(ConfirmRule rule) {
    return new ServerConfig(nodeId, peers, apiHost, apiPort, dataDir, electionTimeoutMinMs, electionTimeoutMaxMs,
        snapshotThreshold, logSegmentBytes, requestTimeoutMs, unsafeLocalGrants, metricsPort, limits, rule);
  }
}
