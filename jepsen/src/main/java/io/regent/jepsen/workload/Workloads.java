package io.regent.jepsen.workload;

import io.regent.server.placement.Placement;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Builds a workload by name. */
public final class Workloads {
  /** The workload names, for options and help. */
  public static final List<String> NAMES =
      List.of("election", "lease-exclusivity", "ledger", "ownership", "retry", "etcdctl-lock");

  private Workloads() {
  }

  /**
   * The hidden {@code regent server} switch of the workload's negative control (TESTS ONLY): the ownership
   * workload's assignment skips the release rule, the retry workload's cancel cleanup acts on any attempt (the
   * behaviour issue #34 fixed), the others' campaigns are granted without Raft; none for {@code etcdctl-lock},
   * whose control is its clients' ({@link EtcdctlLockWorkload}).
   */
  public static Optional<String> negativeControlFlag(String name) {
    return switch (name) {
      case "ownership" -> Optional.of("--unsafe-skip-release");
      case "retry" -> Optional.of("--unsafe-cleanup-any-attempt");
      case "etcdctl-lock" -> Optional.empty();
      default -> Optional.of("--unsafe-local-grants");
    };
  }

  /** The workloads that spread their names over a cluster's cells ({@link CellNames}); the others run on one. */
  public static final List<String> OVER_CELLS = List.of("election", "lease-exclusivity", "ownership");

  /**
   * A workload.
   *
   * @param name one of {@link #NAMES}
   * @param ttlMs the lease TTL its clients use
   * @param tryCampaign campaign with the non-blocking tryCampaign (shows its non-final "not elected")
   * @param dataRoot where a workload may keep data (the ledger's LMDB)
   * @param etcdEndpoints the nodes' etcd endpoints (the etcdctl-lock workload's clients use them)
   * @param negativeControl the run is its negative control: the etcdctl-lock workload's clients then lock names
   *     of their own
   * @param placement the cluster's cells: the workloads of {@link #OVER_CELLS} spread their names over them
   */
  public static Workload create(String name, long ttlMs, boolean tryCampaign, Path dataRoot,
                                List<String> etcdEndpoints, boolean negativeControl, Placement placement)
      throws IOException {
    return switch (name) {
      case "election" -> new ElectionWorkload(CellNames.spread("e", 3, placement), ttlMs, tryCampaign, placement);
      case "lease-exclusivity" -> new ExclusivityWorkload(CellNames.spread("x", 2, placement), ttlMs, tryCampaign,
          placement);
      case "ledger" -> new LedgerWorkload(List.of("ledger-writer"), ttlMs, tryCampaign,
          dataRoot.resolve("ledger"));
      case "ownership" -> new OwnershipWorkload(CellNames.outsideCellZero(OwnershipWorkload.GROUP, placement), ttlMs,
          dataRoot.resolve("ownership-ledger"));
      case "retry" -> new RetryWorkload(List.of("r0", "r1"), ttlMs);
      case "etcdctl-lock" -> new EtcdctlLockWorkload(etcdEndpoints, negativeControl);
      default -> throw new IllegalArgumentException("unknown workload '" + name + "'; one of " + NAMES);
    };
  }
}
