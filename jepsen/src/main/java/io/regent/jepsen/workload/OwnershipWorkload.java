package io.regent.jepsen.workload;

import io.grpc.StatusRuntimeException;
import io.regent.api.v1.GroupMemberInfo;
import io.regent.api.v1.GroupStatusResponse;
import io.regent.api.v1.PartitionOwner;
import io.regent.client.GroupClient;
import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.client.ClientProcess;
import io.regent.jepsen.client.Errors;
import io.regent.server.config.ServerConfig;
import io.regent.ledger.LedgerMode;
import io.regent.ledger.LedgerServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code ownership}: every process is a member of one ownership group of {@value #PARTITIONS} partitions
 * ({@link OwnershipMember}, through the shipped {@code PartitionOwnership}); while it believes it owns a
 * partition it appends to that partition's fenced ledger (Regent's LMDB ledger service, monotone mode, one key
 * per partition) with the partition's token. Members join, leave, crash and pause past their TTL at random
 * (a new process takes a slot after each leave or crash); the nemeses come on top.
 *
 * <p>The quiet phase ({@link #quiet}), once the faults healed and the cluster recovered: one more member joins,
 * then membership stays still ({@code :quiet}, value TTL + election timeout in ms); that long plus a second
 * later, a linearizable {@code :status} read records the whole assignment (value {@code [[partition owner
 * token] ...]}, {@code :members}). The final reads read every partition's ledger ({@code :read-ledger}, key
 * the partition). Checked by {@code HistoryChecks}' {@code ownership}: no two members' beliefs in one partition
 * overlap; per partition the admitted writes' tokens never go back, each was that writer's, none acknowledged
 * is lost, and each new owner's token is above its predecessor's; and in the quiet phase every partition has
 * an owner that believes it within TTL + election timeout.
 */
public final class OwnershipWorkload implements Workload {
  /** The group's name on one cell (on several, in a tenant of cell 1: {@link CellNames#outsideCellZero}). */
  public static final String GROUP = "jepsen-og";
  /** Its partition count. */
  public static final int PARTITIONS = 16;
  /** How long the quiet phase goes on past TTL + election timeout before the status read, ms. */
  static final long QUIET_MARGIN_MS = 1_000;
  /** Chance per step that a member leaves, crashes, or pauses past its TTL (each). */
  static final double CHURN = 0.003;

  private final String group;
  private final long ttlMs;
  private final LedgerServer ledger;

  /**
   * Starts the ledger server.
   *
   * @param group the group's name
   * @param ttlMs the members' lease TTL
   * @param dataDir the ledger's LMDB directory
   */
  public OwnershipWorkload(String group, long ttlMs, Path dataDir) throws IOException {
    this.group = group;
    this.ttlMs = ttlMs;
    this.ledger = LedgerServer.start(0, dataDir, LedgerMode.MONOTONE);
  }

  @Override
  public String name() {
    return "ownership";
  }

  @Override
  public List<String> names() {
    return List.of(group);
  }

  @Override
  public ClientPool.Session session(ClientProcess p) {
    OwnershipMember m = new OwnershipMember(p, group, PARTITIONS, ttlMs, ledger.port());
    return new ClientPool.Session() {
      @Override
      public long step() throws InterruptedException {
        p.gate().await();
        if (!m.joined()) {
          m.join();
          return 200 + p.random().nextInt(300);
        }
        double x = p.random().nextDouble();
        if (x < CHURN) {
          m.leave();
        } else if (x < 2 * CHURN) {
          m.crash();
        } else if (x < 3 * CHURN) {
          m.pause(ttlMs * 3 / 2 + p.random().nextInt(1000));
        } else {
          m.write();
        }
        return 50 + p.random().nextInt(100);
      }

      @Override
      public boolean holding() {
        return m.holding();
      }

      @Override
      public void close() {
        m.close();
      }
    };
  }

  /**
   * The quiet phase: a member joins (so that the group is not empty), membership then stays still for TTL +
   * election timeout (the servers' default maximum) + {@link #QUIET_MARGIN_MS}, and a linearizable status read
   * records the assignment; the member then leaves. Without a successful join there is no {@code :quiet}, and
   * the check of this phase is unknown.
   */
  @Override
  public void quiet(ClientProcess q) throws InterruptedException {
    OwnershipMember sentinel = new OwnershipMember(q, group, PARTITIONS, ttlMs, ledger.port());
    try {
      for (int i = 0; i < 10 && !sentinel.joined() && !q.retired(); i++) {
        sentinel.join();
        if (!sentinel.joined()) {
          Thread.sleep(1_000); // a refused join (no quorum yet): try again
        }
      }
      if (!sentinel.joined()) {
        return;
      }
      long electionMs = ServerConfig.DEFAULT_ELECTION_MAX_MS;
      long boundMs = ttlMs + electionMs;
      q.instant("quiet", group, boundMs, Map.of("ttl-ms", ttlMs, "election-timeout-ms", electionMs));
      Thread.sleep(boundMs + QUIET_MARGIN_MS); // the property's own time bound, then a margin to look at
      for (int i = 0; i < 5 && !q.retired() && !status(q); i++) {
        Thread.sleep(500);
      }
    } finally {
      sentinel.close();
    }
  }

  /** A linearizable {@code :status} read of the group; true when it succeeded. */
  private boolean status(ClientProcess q) {
    ClientProcess.Invocation inv = q.invoke("status", group, null);
    try {
      GroupStatusResponse r = q.call(() -> new GroupClient(q.client()).status(group, false));
      List<Object> owners = new ArrayList<>();
      for (PartitionOwner o : r.getOwnersList()) {
        boolean owned = !o.getOwner().isEmpty();
        owners.add(Arrays.asList((long) o.getPartition(), owned ? o.getOwner() : null, owned ? o.getToken() : null));
      }
      List<String> members = r.getMembersList().stream().map(GroupMemberInfo::getMember).toList();
      inv.ok(owners, Map.of("members", members, "index", r.getIndex()));
      return true;
    } catch (StatusRuntimeException e) {
      if (Errors.timeout(e)) {
        inv.info(Errors.describe(e));
      } else {
        inv.fail(Errors.describe(e));
      }
      return false;
    }
  }

  @Override
  public void finalReads(ClientProcess p) {
    try (LedgerCalls calls = new LedgerCalls(p, ledger.port())) {
      for (int partition = 0; partition < PARTITIONS; partition++) {
        calls.read((long) partition, OwnershipMember.ledgerKey(group, partition));
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    ledger.close();
  }
}
