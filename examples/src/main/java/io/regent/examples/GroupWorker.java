package io.regent.examples;

import io.regent.client.GroupClient;
import io.regent.client.PartitionOwnership;
import io.regent.client.RegentClient;
import io.regent.api.v1.GroupStatusResponse;
import io.regent.api.v1.PartitionOwner;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A worker that shares partitioned work with its peers (Kafka consumers sharing a topic's partitions, without
 * Kafka): each worker joins an ownership group, Regent spreads the group's partitions over the live workers, and a
 * worker acts only on the partitions it owns, each with its fencing token. When a worker joins, leaves or dies,
 * partitions move; the one giving a partition up is told first ({@code onRevoked}), so two never act on one
 * partition at once (docs/ownership.md).
 *
 * <p>Run: {@code GroupWorker [ENDPOINTS [GROUP [MEMBER [STEPS]]]] [--partitions N] [--members M]
 * [--cacert CA --cert CERT --key KEY]} (defaults {@code $REGENT_ENDPOINTS}, {@code orders}, the process name, 0;
 * N 4, M 1; TLS as for the {@code regent} CLI, see {@link ClientArgs}), as the Python and TypeScript examples run.
 * It joins GROUP (created with N partitions) as MEMBER and prints {@code joined GROUP as MEMBER lease=L}, then
 * {@code assigned P token=T} and {@code revoked P} as the group tells it, and every 100 ms while the assignment is
 * settled (every partition owned, none moving, this worker told all of its share) {@code step I owns P=T,P=T}: one
 * step of the work, whose writes to partition P carry token T. The first step waits until M members have joined,
 * so that workers started at once have split the partitions before either works. It leaves the group (its
 * partitions move on at once) after STEPS steps, or on SIGTERM/SIGINT (STEPS 0: only then), printing
 * {@code left GROUP at=MS} (wall clock, ms). Exit 0; 1 when the lease was lost first ({@code lost GROUP: REASON}).
 */
public final class GroupWorker implements PartitionOwnership.Listener {
  /** The member's lease TTL, ms: how long after this worker dies its partitions move to the others. */
  static final long TTL_MS = 10_000;
  /** Between two steps, ms: the pace of the work, not a wait for anything. */
  private static final long STEP_MS = 100;

  private final PrintStream out;
  /** Partition to token: what this worker acts on. Written by the group's callback thread, read by the work loop. */
  private final Map<Integer, Long> mine = new ConcurrentSkipListMap<>();
  private volatile String lost;

  GroupWorker(PrintStream out) {
    this.out = out;
  }

  /** Joins, works until STEPS steps or a signal, then leaves the group; see the class's comment for the arguments. */
  public static void main(String[] args) throws Exception {
    ClientArgs a = ClientArgs.parse(args, "--partitions", "--members");
    String group = a.arg(0, "orders");
    String member = a.arg(1, ManagementFactory.getRuntimeMXBean().getName());
    long steps = Long.parseLong(a.arg(2, "0"));
    int partitions = Integer.parseInt(a.option("--partitions", "4"));
    int members = Integer.parseInt(a.option("--members", "1"));
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch left = new CountDownLatch(1);
    // SIGTERM and SIGINT run the shutdown hooks: stop working, and let the JVM end only once the group was left
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop.countDown();
      try {
        left.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
    int exit;
    try (RegentClient client = a.connect()) {
      exit = new GroupWorker(System.out).run(client, group, member, partitions, members, steps, stop);
    } finally {
      left.countDown();
    }
    System.exit(exit);
  }

  /**
   * Joins {@code group} as {@code member}, steps while settled until {@code steps} steps (0: no limit), the lease
   * is lost or {@code stop} opens, then leaves; 0, or 1 when the lease was lost.
   */
  int run(RegentClient client, String group, String member, int partitions, int members, long steps,
          CountDownLatch stop) throws InterruptedException {
    GroupClient groups = new GroupClient(client);
    try (PartitionOwnership ownership = join(client, group, member, partitions, this)) {
      out.printf("joined %s as %s lease=%d%n", group, member, ownership.leaseId());
      boolean quorum = members <= 1; // enough members seen, once
      long step = 0;
      while (!stop.await(STEP_MS, TimeUnit.MILLISECONDS) && lost == null && (steps == 0 || step < steps)) {
        GroupStatusResponse status = groups.status(group, false);
        quorum = quorum || status.getMembersCount() >= members;
        if (quorum && settled(status, member)) {
          step++;
          // the work: each write to a partition carries its token, which a resource checks (as in LockedJob)
          out.printf("step %d owns %s%n", step, mine.entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(",")));
        }
      }
    } // closing the ownership revoked every partition, left the group and revoked the lease
    if (lost != null) {
      out.printf("lost %s: %s%n", group, lost);
      return 1;
    }
    out.printf("left %s at=%d%n", group, System.currentTimeMillis());
    return 0;
  }

  /** Whether the assignment is at rest (every partition owned, none moving) and this worker was told its share. */
  private boolean settled(GroupStatusResponse status, String member) {
    Map<Integer, Long> share = new HashMap<>();
    boolean atRest = status.getOwnersCount() == status.getPartitions();
    for (PartitionOwner o : status.getOwnersList()) {
      atRest &= !o.getOwner().isEmpty() && o.getNext().isEmpty();
      if (o.getOwner().equals(member)) {
        share.put(o.getPartition(), o.getToken());
      }
    }
    return atRest && share.equals(mine);
  }

  /** Joins {@code group} (creating it with {@code partitions} partitions when new) as {@code member}. */
  static PartitionOwnership join(RegentClient client, String group, String member, int partitions,
                                 GroupWorker worker) {
    return PartitionOwnership.join(client, group, member, partitions, TTL_MS, worker);
  }

  /** The partitions this worker acts on now, with their tokens. */
  Map<Integer, Long> partitions() {
    return Map.copyOf(mine);
  }

  @Override
  public void onAssigned(int partition, long token) {
    mine.put(partition, token);
    out.printf("assigned %d token=%d%n", partition, token); // from now on, write to it with token
  }

  @Override
  public void onRevoked(int partition) {
    // Stop acting on it before returning: the partition is released, and can go to another worker, right after.
    mine.remove(partition);
    out.printf("revoked %d%n", partition);
  }

  @Override
  public void onStepDown(String reason) {
    // The lease could not be renewed in time: every partition was revoked already; a new join starts afresh.
    lost = reason;
  }
}
