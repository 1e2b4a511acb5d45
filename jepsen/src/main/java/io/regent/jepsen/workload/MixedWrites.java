package io.regent.jepsen.workload;

import com.google.protobuf.ByteString;
import io.regent.api.v1.CampaignResponse;
import io.regent.client.RegentClient;
import io.regent.jepsen.client.Deadline;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The restart run's write load (issue #40, as an operator drove it): {@code workers} threads, each with its own
 * client whose endpoint list starts at another node (the load spreads over the nodes, the followers forwarding
 * to the leader), cycling through a campaign with a TTL on a fresh name, a grant followed by a lock (a blocking
 * campaign with that lease on a fresh name) and two revokes of its oldest leases. Every call goes through the
 * shipped client (re-sent with one request id, docs/api.md "Request ids") under {@link #CALL} deadline.
 *
 * <p>What the checker needs is kept: the leases some call was acknowledged for and not revoked since
 * ({@link #alive()}), and the most recent {@link #REVOKED_KEPT} acknowledged revokes per worker
 * ({@link #revoked()}). A lease whose revoke failed is in doubt and left out of both.
 */
public final class MixedWrites implements AutoCloseable {
  /** Lease TTL, ms: the servers' maximum, longer than any run (at most {@link #LONGEST_RUN_S} s), so that no acknowledged lease may be missing at the end. */
  public static final long TTL_MS = 3_600_000L;
  /** The longest run whose leases all outlive it, s: the TTL less a margin for the final check. */
  public static final long LONGEST_RUN_S = TTL_MS / 1000 - 300;
  /** Deadline of one call (the client re-sends inside it). */
  static final Duration CALL = Duration.ofSeconds(10);
  /** Acknowledged revokes kept per worker for the check. */
  static final int REVOKED_KEPT = 64;

  private final List<RegentClient> clients = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Set<Long> alive = ConcurrentHashMap.newKeySet();
  private final Set<Long> revoked = ConcurrentHashMap.newKeySet();
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();

  /** Starts {@code workers} threads over {@code endpoints} (worker w's list starts at endpoint w mod n). */
  public MixedWrites(List<String> endpoints, int workers) {
    for (int w = 0; w < workers; w++) {
      List<String> rotated = new ArrayList<>(endpoints.subList(w % endpoints.size(), endpoints.size()));
      rotated.addAll(endpoints.subList(0, w % endpoints.size()));
      RegentClient c = RegentClient.connect(rotated);
      clients.add(c);
      int id = w;
      Thread t = new Thread(() -> work(id, c), "restart-load-" + w);
      t.setDaemon(true);
      threads.add(t);
    }
    threads.forEach(Thread::start);
  }

  private void work(int id, RegentClient c) {
    Deque<Long> mine = new ArrayDeque<>();
    Deque<Long> myRevoked = new ArrayDeque<>();
    ByteString value = ByteString.copyFromUtf8("w" + id);
    for (long i = 0; running.get(); i++) {
      String name = "restart-w" + id + "-" + i;
      try {
        switch ((int) (i % 4)) {
          case 0 -> {
            CampaignResponse r = Deadline.call(CALL, () -> c.elections().campaignWithTtl(name, TTL_MS, value, 0));
            ack(mine, r.getLease());
          }
          case 1 -> {
            long lease = Deadline.call(CALL, () -> c.leases().grant(TTL_MS));
            ack(mine, lease);
            Deadline.call(CALL, () -> c.elections().campaign(name, lease, value));
            acknowledged.incrementAndGet();
          }
          default -> {
            Long lease = mine.pollFirst();
            if (lease != null) {
              alive.remove(lease); // in doubt until the revoke is acknowledged
              Deadline.run(CALL, () -> c.leases().revoke(lease));
              acknowledged.incrementAndGet();
              revoked.add(lease);
              myRevoked.addLast(lease);
              if (myRevoked.size() > REVOKED_KEPT) {
                revoked.remove(myRevoked.pollFirst());
              }
            }
          }
        }
      } catch (RuntimeException e) {
        if (failed.get() < 3) {
          System.err.println("restart load: worker " + id + ": " + e);
        }
        failed.incrementAndGet(); // in doubt or refused: a killed node, an election; the next name goes on
        pause();
      }
    }
  }

  private void ack(Deque<Long> mine, long lease) {
    acknowledged.incrementAndGet();
    alive.add(lease);
    mine.addLast(lease);
  }

  /** After a failed call, so that a dead node's instant refusals do not spin. */
  private static void pause() {
    try {
      Thread.sleep(50); // pacing only, not synchronisation
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Leases granted in an acknowledged call and not revoked since (their TTL outlasts the run). */
  public Set<Long> alive() {
    return Set.copyOf(alive);
  }

  /** Leases whose revoke was acknowledged (the most recent ones of each worker). */
  public Set<Long> revoked() {
    return Set.copyOf(revoked);
  }

  /** Acknowledged calls so far. */
  public long acknowledged() {
    return acknowledged.get();
  }

  /** Failed calls so far (in doubt or refused). */
  public long failed() {
    return failed.get();
  }

  /** Stops the workers (each finishes its call in flight) and closes their clients. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(CALL.toMillis() * 3);
    }
    clients.forEach(RegentClient::close);
  }
}
