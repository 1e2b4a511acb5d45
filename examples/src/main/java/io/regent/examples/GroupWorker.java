package io.regent.examples;

import io.regent.client.PartitionOwnership;
import io.regent.client.RegentClient;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A worker that shares partitioned work with its peers (Kafka consumers sharing a topic's partitions, without
 * Kafka): each worker joins an ownership group, Regent spreads the group's partitions over the live workers, and a
 * worker acts only on the partitions it owns, each with its fencing token. When a worker joins, leaves or dies,
 * partitions move; the one giving a partition up is told first ({@code onRevoked}), so two never act on one
 * partition at once (docs/ownership.md).
 *
 * <p>Run: {@code GroupWorker [ENDPOINTS [GROUP [MEMBER [PARTITIONS [SECONDS]]]]] [--cacert CA --cert CERT --key KEY]}
 * (defaults {@code $REGENT_ENDPOINTS}, {@code orders}, the process name, 8, 30). Start it two or three times with
 * other MEMBERs and watch the partitions move.
 */
public final class GroupWorker implements PartitionOwnership.Listener {
  /** The member's lease TTL, ms: how long after this worker dies its partitions move to the others. */
  static final long TTL_MS = 10_000;

  private final String member;
  private final PrintStream out;
  /** Partition to token: what this worker acts on. Written by the group's callback thread, read by the work loop. */
  private final Map<Integer, Long> mine = new ConcurrentSkipListMap<>();

  GroupWorker(String member, PrintStream out) {
    this.member = member;
    this.out = out;
  }

  /** Joins, works for SECONDS on what it owns, then leaves the group; see the class's comment for the arguments. */
  public static void main(String[] args) throws Exception {
    ClientArgs a = ClientArgs.parse(args);
    String group = a.arg(0, "orders");
    String member = a.arg(1, ManagementFactory.getRuntimeMXBean().getName());
    int partitions = Integer.parseInt(a.arg(2, "8"));
    long until = System.nanoTime() + Long.parseLong(a.arg(3, "30")) * 1_000_000_000L;
    GroupWorker worker = new GroupWorker(member, System.out);
    // Closing the ownership leaves the group (the partitions move on at once) and revokes the lease.
    try (RegentClient client = a.connect();
         PartitionOwnership ownership = join(client, group, partitions, worker)) {
      while (System.nanoTime() < until && ownership.isValid()) {
        worker.work();
        Thread.sleep(1_000); // the pace of the work; callbacks arrive meanwhile
      }
    }
  }

  /** Joins {@code group} (creating it with {@code partitions} partitions when new) as this worker. */
  static PartitionOwnership join(RegentClient client, String group, int partitions, GroupWorker worker) {
    return PartitionOwnership.join(client, group, worker.member, partitions, TTL_MS, worker);
  }

  /** One round of work: each owned partition, written with its token (a resource checks it, as in LockedJob). */
  void work() {
    mine.forEach((partition, token) -> out.printf("%s works on %d token=%d%n", member, partition, token));
  }

  /** The partitions this worker acts on now, with their tokens. */
  Map<Integer, Long> partitions() {
    return Map.copyOf(mine);
  }

  @Override
  public void onAssigned(int partition, long token) {
    mine.put(partition, token);
    out.printf("%s assigned %d token=%d%n", member, partition, token);
  }

  @Override
  public void onRevoked(int partition) {
    // Stop acting on it before returning: the partition is released, and can go to another worker, right after.
    mine.remove(partition);
    out.printf("%s revoked %d%n", member, partition);
  }

  @Override
  public void onStepDown(String reason) {
    // The lease could not be renewed in time: every partition was revoked already; a new join starts afresh.
    out.printf("%s stepped down: %s%n", member, reason);
  }
}
