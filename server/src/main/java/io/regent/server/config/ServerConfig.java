package io.regent.server.config;

import io.regent.statemachine.apply.EntryCodec;
import io.regent.server.placement.Placement;
import io.regent.server.limits.ServerLimits;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

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
 * @param unsafeSkipRelease TESTS ONLY (the negative control of Jepsen's ownership workload, {@code
 *     --unsafe-skip-release}): this node's state machine applies ownership-group entries with the release rule of
 *     docs/ownership.md skipped, so a rebalance moves a partition before its owner released it; every node of the
 *     cluster must get the same value, or their replicas diverge
 * @param unsafeCleanupAnyAttempt TESTS ONLY (the negative control of Jepsen's retry workload, {@code
 *     --unsafe-cleanup-any-attempt}): a cancelled blocking campaign's cleanup withdraws and resigns whatever its lease
 *     holds, even what a newer attempt of the same campaign won (docs/api.md "Attempts")
 * @param metricsPort port of the HTTP endpoint serving {@code /metrics}, {@code /healthz} and {@code /readyz}
 *     on {@code apiHost}; -1 (the default) serves none, 0 picks a free port
 * @param limits limits of the public API ({@link ServerLimits#DEFAULTS} unless set)
 * @param confirm how leadership is confirmed before keepalives and linearizable reads ({@link ConfirmRule#LEASE}
 *     unless set; {@code null} means that)
 * @param proposalBatch client operations packed into one Raft entry at most, 1..{@value #MAX_PROPOSAL_BATCH}
 *     (docs/architecture.md §2.6; 1: every operation its own entry, as before batch entries)
 * @param console whether the metrics port also serves the read-only web console under {@code /console/}
 *     (names, holders, tokens and groups, unauthenticated like the rest of that port: docs/security.md); only
 *     with a metrics port
 * @param etcdPort port of etcd's Lease, Election and Lock services on {@code apiHost} (docs/migrating.md,
 *     "etcd's clients"); -1 (the default) serves none, 0 picks a free port; plaintext only
 * @param maxEntryVersion TESTS ONLY (the rolling-upgrade test): this node publishes and applies log-entry versions up
 *     to this one, as a build of an older release would (1..{@link EntryCodec#MAX_VERSION}, the default); it stops
 *     applying at a higher one (docs/operations.md "Upgrades")
 * @param cells the cluster's number of cells, 1..{@link Placement#MAX_CELLS} (docs/architecture.md §14): Raft groups
 *     on the same nodes, each with its own state; fixed when the cluster is created, 1 (the default) as a cluster
 *     of a release without cells
 */
public record ServerConfig(String nodeId, Map<String, String> peers, String apiHost, int apiPort, Path dataDir,
                           long electionTimeoutMinMs, long electionTimeoutMaxMs, long snapshotThreshold,
                           long logSegmentBytes, long requestTimeoutMs, boolean unsafeLocalGrants,
                           boolean unsafeSkipRelease, boolean unsafeCleanupAnyAttempt, int metricsPort, ServerLimits limits, ConfirmRule confirm,
                           int proposalBatch, boolean console, int etcdPort, int maxEntryVersion, int cells) {

  /**
   * Default election timeouts: 600–900 ms, so the minimum TTL is 1.35 s (tests can use 2–3 s TTLs). The maximum is
   * 1.5 × the minimum, not etcd's 2 ×: a Ratis follower notices a silent leader after one to two of its random
   * timeouts ({@code FollowerState}), so the maximum bounds failover at about twice itself (docs/ratis.md §10).
   */
  public static final long DEFAULT_ELECTION_MIN_MS = 600;
  /** See {@link #DEFAULT_ELECTION_MIN_MS}. */
  public static final long DEFAULT_ELECTION_MAX_MS = 900;
  /** Default of {@code proposalBatch}: operations per batch entry. */
  public static final int DEFAULT_PROPOSAL_BATCH = 64;
  /** Largest {@code proposalBatch}. */
  public static final int MAX_PROPOSAL_BATCH = 1024;

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
    if (maxEntryVersion < 1 || maxEntryVersion > EntryCodec.MAX_VERSION) {
      throw new IllegalArgumentException("entry version " + maxEntryVersion + " is outside 1.." + EntryCodec.MAX_VERSION);
    }
    if (etcdPort < -1 || etcdPort > 65_535) {
      throw new InvalidSettingException("etcd port " + etcdPort + " is outside -1..65535", "etcd-port");
    }
    if (limits == null) {
      throw new IllegalArgumentException("limits must be set (ServerLimits.DEFAULTS)");
    }
    if (confirm == null) {
      confirm = ConfirmRule.LEASE;
    }
    if (cells < 1 || cells > Placement.MAX_CELLS) {
      throw new InvalidSettingException("cells " + cells + " is outside 1.." + Placement.MAX_CELLS, "cells");
    }
    if (proposalBatch < 1 || proposalBatch > MAX_PROPOSAL_BATCH) {
      throw new InvalidSettingException("proposal batch " + proposalBatch + " is outside 1.." + MAX_PROPOSAL_BATCH,
          "proposal-batch");
    }
  }

  /**
   * A node with default settings, whose voters are {@code peers}.
   *
   * @throws IllegalArgumentException as the canonical constructor
   */
  public static ServerConfig of(String nodeId, Map<String, String> peers, int apiPort, Path dataDir) {
    return builder(nodeId, dataDir).peers(peers).apiPort(apiPort).build();
  }

  /**
   * Settings for node {@code nodeId} with data in {@code dataDir}, every other setting at its default: API on
   * 127.0.0.1:7101, election timeouts {@value #DEFAULT_ELECTION_MIN_MS}–{@value #DEFAULT_ELECTION_MAX_MS} ms,
   * a snapshot every 10 000 entries, 8 MiB log segments, 10 s proposals, no metrics endpoint (the console on when
   * one is set), default limits, leadership confirmed by the leadership lease.
   * The peers must be set ({@link Builder#peers(String)}, {@link Builder#peers(Map)} or
   * {@link Builder#raftAddress(String)}).
   */
  public static Builder builder(String nodeId, Path dataDir) {
    return new Builder(nodeId, dataDir);
  }

  /** A builder holding these settings, to derive other ones from (tests). */
  public Builder toBuilder() {
    Builder b = new Builder(nodeId, dataDir).peers(peers).apiHost(apiHost).apiPort(apiPort)
        .electionTimeout(electionTimeoutMinMs, electionTimeoutMaxMs).snapshots(snapshotThreshold, logSegmentBytes)
        .requestTimeoutMs(requestTimeoutMs).unsafeLocalGrants(unsafeLocalGrants).unsafeSkipRelease(unsafeSkipRelease)
        .unsafeCleanupAnyAttempt(unsafeCleanupAnyAttempt).metricsPort(metricsPort);
    return b.limits(limits).confirm(confirm).proposalBatch(proposalBatch).console(console).etcdPort(etcdPort)
        .maxEntryVersion(maxEntryVersion).cells(cells);
  }

  /** Smallest TTL a lease may have: 1.5 x the maximum election timeout, in ms (etcd's minimum-TTL rule). */
  public long minTtlMs() {
    return electionTimeoutMaxMs * 3 / 2;
  }


  /**
   * Builds a {@link ServerConfig} setting by setting; each setter checks its own argument's form and throws
   * {@link InvalidSettingException} with a one-line message naming it (the CLI prints it as a usage error),
   * and {@link #build()} checks the settings together.
   */
  public static final class Builder {
    private static final Pattern HOST_PORT = Pattern.compile("[^:\\s]+:\\d{1,5}");

    private final String nodeId;
    private final Path dataDir;
    private Map<String, String> peers = Map.of();
    private String apiHost = "127.0.0.1";
    private int apiPort = 7101;
    private long electionTimeoutMinMs = DEFAULT_ELECTION_MIN_MS;
    private long electionTimeoutMaxMs = DEFAULT_ELECTION_MAX_MS;
    private long snapshotThreshold = 10_000;
    private long logSegmentBytes = 8L << 20;
    private long requestTimeoutMs = 10_000;
    private boolean unsafeLocalGrants;
    private boolean unsafeSkipRelease;
    private boolean unsafeCleanupAnyAttempt;
    private int metricsPort = -1;
    private ServerLimits limits = ServerLimits.DEFAULTS;
    private ConfirmRule confirm = ConfirmRule.LEASE;
    private int proposalBatch = DEFAULT_PROPOSAL_BATCH;
    private boolean console = true;
    private int etcdPort = -1;
    private int maxEntryVersion = EntryCodec.MAX_VERSION;
    private int cells = 1;

    private Builder(String nodeId, Path dataDir) {
      this.nodeId = nodeId;
      this.dataDir = dataDir;
    }

    /** Every voting member of a new cluster: id to Raft address {@code host:port}, in a stable order. */
    public Builder peers(Map<String, String> idToAddress) {
      this.peers = new LinkedHashMap<>(idToAddress);
      return this;
    }

    /**
     * The voting members of a new cluster as written on the command line, {@code ID=HOST:PORT[,...]} in the
     * same order on every node; this node's id must be among them.
     *
     * @throws InvalidSettingException naming the malformed or repeated peer, or the missing node id
     */
    public Builder peers(String list) {
      LinkedHashMap<String, String> map = new LinkedHashMap<>();
      for (String p : list.split(",")) {
        String[] kv = p.trim().split("=", 2);
        if (kv.length != 2 || kv[0].isBlank() || !HOST_PORT.matcher(kv[1]).matches()) {
          throw new InvalidSettingException("invalid peer '" + p + "': expected ID=HOST:PORT", "peers");
        }
        if (map.put(kv[0].trim(), kv[1].trim()) != null) {
          throw new InvalidSettingException("peer '" + kv[0] + "' is listed twice", "peers");
        }
      }
      if (!map.containsKey(nodeId)) {
        throw new InvalidSettingException("--id " + nodeId + " is not among --peers " + map.keySet(), "id",
            "peers");
      }
      return peers(map);
    }

    /**
     * This node alone at Raft address {@code hostPort}: a node that is not one of a new cluster's voters (it
     * joins, waits to be added, or restarts on the data of a node that joined).
     *
     * @throws InvalidSettingException when {@code hostPort} is not {@code HOST:PORT}
     */
    public Builder raftAddress(String hostPort) {
      if (!HOST_PORT.matcher(hostPort).matches()) {
        throw new InvalidSettingException("invalid --raft '" + hostPort + "': expected HOST:PORT", "raft");
      }
      return peers(Map.of(nodeId, hostPort));
    }

    /** Address the public API binds to (default 127.0.0.1). */
    public Builder apiHost(String host) {
      this.apiHost = host;
      return this;
    }

    /** Port of the public API (default 7101; 0 picks a free port). */
    public Builder apiPort(int port) {
      this.apiPort = port;
      return this;
    }

    /** Raft's randomized election timeout range, ms (checked by {@link #build()}: {@code 0 < min <= max}). */
    public Builder electionTimeout(long minMs, long maxMs) {
      this.electionTimeoutMinMs = minMs;
      this.electionTimeoutMaxMs = maxMs;
      return this;
    }

    /**
     * The election timeout as written on the command line, {@code MIN[..MAX]} in the durations of
     * {@link Durations} (e.g. {@code 600ms..900ms}); MAX defaults to 2 x MIN.
     *
     * @throws InvalidSettingException when malformed or not {@code 0 < MIN <= MAX}
     */
    public Builder electionTimeout(String range) {
      String[] parts = range.split("\\.\\.", -1);
      if (parts.length > 2) {
        throw new InvalidSettingException("--election-timeout '" + range + "': expected MIN[..MAX]",
            "election-timeout");
      }
      long min;
      long max;
      try {
        min = Durations.parse(parts[0]).toMillis();
        max = parts.length == 2 && !parts[1].isBlank() ? Durations.parse(parts[1]).toMillis() : 2 * min;
      } catch (IllegalArgumentException e) {
        throw new InvalidSettingException("--election-timeout: " + e.getMessage(), "election-timeout");
      }
      if (min <= 0 || max < min) {
        throw new InvalidSettingException("--election-timeout '" + range + "': need 0 < MIN <= MAX",
            "election-timeout");
      }
      return electionTimeout(min, max);
    }

    /** Applied entries between automatic snapshots, and the size of one Raft log segment, bytes. */
    public Builder snapshots(long threshold, long segmentBytes) {
      this.snapshotThreshold = threshold;
      this.logSegmentBytes = segmentBytes;
      return this;
    }

    /** Applied entries between automatic snapshots (default 10 000), the log segment size unchanged. */
    public Builder snapshotThreshold(long threshold) {
      this.snapshotThreshold = threshold;
      return this;
    }

    /** How long a proposal may take before the API answers UNAVAILABLE, ms (default 10 000). */
    public Builder requestTimeoutMs(long ms) {
      this.requestTimeoutMs = ms;
      return this;
    }

    /** TESTS ONLY: the Jepsen negative control (see {@link ServerConfig}'s {@code unsafeLocalGrants}). */
    public Builder unsafeLocalGrants(boolean unsafe) {
      this.unsafeLocalGrants = unsafe;
      return this;
    }

    /** TESTS ONLY: the ownership workload's negative control (see {@link ServerConfig}'s {@code unsafeSkipRelease}). */
    public Builder unsafeSkipRelease(boolean unsafe) {
      this.unsafeSkipRelease = unsafe;
      return this;
    }

    /** TESTS ONLY: the retry workload's negative control (see {@link ServerConfig}'s {@code unsafeCleanupAnyAttempt}). */
    public Builder unsafeCleanupAnyAttempt(boolean unsafe) {
      this.unsafeCleanupAnyAttempt = unsafe;
      return this;
    }

    /** Port of the metrics and health endpoint (-1, the default: none; 0: a free port). */
    public Builder metricsPort(int port) {
      this.metricsPort = port;
      return this;
    }

    /** Limits of the public API (default {@link ServerLimits#DEFAULTS}). */
    public Builder limits(ServerLimits newLimits) {
      this.limits = newLimits;
      return this;
    }

    /** How leadership is confirmed ({@code --confirm}, {@code --unsafe-leadership-lease-factor}; default lease). */
    public Builder confirm(ConfirmRule rule) {
      this.confirm = rule;
      return this;
    }

    /** Client operations per Raft entry, at most ({@code --proposal-batch}; 1: no batching). */
    public Builder proposalBatch(int ops) {
      this.proposalBatch = ops;
      return this;
    }

    /** Whether the metrics port serves the web console too ({@code --console}; default true). */
    public Builder console(boolean on) {
      this.console = on;
      return this;
    }

    /** TESTS ONLY: the highest entry version this node applies (see {@link ServerConfig}'s {@code maxEntryVersion}). */
    public Builder maxEntryVersion(int version) {
      this.maxEntryVersion = version;
      return this;
    }

    /** Port of etcd's Lease, Election and Lock services ({@code --etcd-port}; -1, the default: none; 0: free). */
    public Builder etcdPort(int port) {
      this.etcdPort = port;
      return this;
    }

    /** The cluster's number of cells ({@code --cells}; see {@link ServerConfig}'s {@code cells}; default 1). */
    public Builder cells(int count) {
      this.cells = count;
      return this;
    }

    /**
     * The settings.
     *
     * @throws IllegalArgumentException as the canonical constructor (node id not among the peers, bad
     *     election timeouts or metrics port)
     */
    public ServerConfig build() {
      return new ServerConfig(nodeId, peers, apiHost, apiPort, dataDir, electionTimeoutMinMs, electionTimeoutMaxMs,
          snapshotThreshold, logSegmentBytes, requestTimeoutMs, unsafeLocalGrants, unsafeSkipRelease, unsafeCleanupAnyAttempt,
          metricsPort, limits,
          confirm, proposalBatch, console, etcdPort, maxEntryVersion, cells);
    }
  }

  /**
   * A setting given in a malformed form, or settings that cannot work together (the CLI: a usage error, exit 2).
   */
  public static final class InvalidSettingException extends IllegalArgumentException {
    private final List<String> settings;

    /**
     * @param message the one line the CLI prints
     * @param settings the settings concerned, as {@code regent server}'s options without their dashes
     */
    public InvalidSettingException(String message, String... settings) {
      super(message);
      this.settings = List.of(settings);
    }

    /** The settings concerned, named as {@code regent server}'s options without their dashes ({@code peers}). */
    public List<String> settings() {
      return settings;
    }
  }
}
