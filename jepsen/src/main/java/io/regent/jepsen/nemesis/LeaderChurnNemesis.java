package io.regent.jepsen.nemesis;

import io.regent.client.RegentClient;
import io.regent.jepsen.client.Deadline;
import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.cluster.Probe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code leader-churn}: moves Raft leadership back and forth between two nodes (the leader at the start and
 * another one chosen at random), a transfer every 1–3 s for as long as the fault is held. Before the run it
 * grants {@link #IDLE_LEASES} idle leases of the longest TTL, never renewed and never used, so that every
 * new leader's readiness scan (it re-arms every lease, docs/architecture.md §3.1) takes time: the churn then
 * lands leader changes inside those scans. Value at start: {@code ["n1" "n3"]}; at stop: {@code [transfers
 * failed]}, the transfers made and those refused or timed out (a transfer while a node is down fails).
 */
final class LeaderChurnNemesis implements Nemesis {
  /** Idle leases granted before the run. */
  static final int IDLE_LEASES = 100_000;
  /** Their TTL: the longest the server accepts, 1 h, so that none expires during a run. */
  static final long IDLE_TTL_MS = 3_600_000;
  private static final Duration CALL = Duration.ofSeconds(10);
  /** A seeding grant's deadline: on a loaded machine 64 grants in flight can take over 10 s. */
  private static final Duration GRANT_CALL = Duration.ofSeconds(30);
  /** Tries per idle lease: a grant that timed out may have been granted, and one lease more does no harm. */
  private static final int GRANT_TRIES = 5;
  private static final int GRANTERS = 64;
  /** Connections the grants go over: a server admits 20 000 live leases per connection by default. */
  private static final int CONNECTIONS = 8;

  private final Cluster cluster;
  private final int idleLeases;
  private Thread churn;
  private final AtomicLong transfers = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final List<RegentClient> granters = new ArrayList<>();

  LeaderChurnNemesis(Cluster cluster, int idleLeases) {
    this.cluster = cluster;
    this.idleLeases = idleLeases;
  }

  @Override
  public String name() {
    return "leader-churn";
  }

  /**
   * Grants the idle leases, {@value #GRANTERS} callers at a time over {@value #CONNECTIONS} connections
   * (kept open to the end of the run: a lease counts against the connection that granted it while it lives).
   * These grants are the fault's set-up, not test operations, so one that fails is sent again, up to
   * {@value #GRANT_TRIES} times; then the set-up fails.
   */
  @Override
  public void prepare() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(GRANTERS);
    for (int i = 0; i < CONNECTIONS; i++) {
      granters.add(RegentClient.connect(cluster.endpoints()));
    }
    try {
      List<Future<?>> parts = new ArrayList<>();
      AtomicLong next = new AtomicLong();
      for (int t = 0; t < GRANTERS; t++) {
        RegentClient c = granters.get(t % CONNECTIONS);
        parts.add(pool.submit(() -> {
          while (next.getAndIncrement() < idleLeases) {
            for (int tries = 1; ; tries++) {
              try {
                Deadline.call(GRANT_CALL, () -> c.leases().grant(IDLE_TTL_MS));
                break;
              } catch (RuntimeException e) {
                if (tries == GRANT_TRIES) {
                  throw e;
                }
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> f : parts) {
        f.get();
      }
    } catch (Exception e) {
      close();
      throw e;
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Override
  public Object start(Random random) {
    Optional<String> leader = Probe.raftLeader(cluster);
    List<Node> others = cluster.nodes().stream().filter(n -> leader.isEmpty() || !n.id().equals(leader.get()))
        .toList();
    if (leader.isEmpty() || others.isEmpty()) {
      return null;
    }
    List<String> pair = List.of(leader.get(), others.get(random.nextInt(others.size())).id());
    transfers.set(0);
    failed.set(0);
    long seed = random.nextLong();
    churn = new Thread(() -> churn(pair, new Random(seed)), "jepsen-leader-churn");
    churn.setDaemon(true);
    churn.start();
    return new ArrayList<Object>(pair);
  }

  private void churn(List<String> pair, Random random) {
    try (RegentClient c = RegentClient.connect(cluster.endpoints())) {
      for (int i = 1; !Thread.currentThread().isInterrupted(); i++) {
        Thread.sleep(1000 + random.nextInt(2000));
        String to = pair.get(i % 2);
        try {
          Deadline.call(CALL, () -> c.cluster().transferLeadership(to));
          transfers.incrementAndGet();
        } catch (RuntimeException e) {
          failed.incrementAndGet(); // a node of the pair is down (another fault), or the transfer timed out
        }
      }
    } catch (InterruptedException e) {
      // stopped
    }
  }

  @Override
  public void close() {
    granters.forEach(RegentClient::close);
    granters.clear();
  }

  @Override
  public Object stop() throws InterruptedException {
    if (churn == null) {
      return null;
    }
    churn.interrupt();
    churn.join(CALL.toMillis() + 5_000);
    churn = null;
    return List.of(transfers.get(), failed.get());
  }
}
