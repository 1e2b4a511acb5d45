package io.regent.server.cluster;

import io.grpc.StatusRuntimeException;
import io.regent.server.confirm.LeadershipLease;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * Cuts a leader off from its peers at a moment when its leadership lease has most of its length left, then sends
 * one call after another through it until it refuses one, and says when each acknowledged call was sent against
 * the lease's <em>safe end</em>: the start p of the lease (the proposal of the last round that committed) plus
 * {@link LeadershipLease#SAFE_FACTOR} × the smallest minimum election timeout of the <em>other</em> voters, whose
 * clocks decide when they vote again (docs/architecture.md §8.1). p is read from the lease itself after the last
 * answer, so a round that committed just after the cut counts.
 */
final class LeaseWindow {
  /** What one run saw. All times are {@link System#nanoTime}; {@code refusal} is null if none came in 30 s. */
  record Seen(long cut, long safeEnd, List<Long> acknowledgedSends, StatusRuntimeException refusal) {
    /** Acknowledged calls sent at or after the safe end. */
    List<Long> lateSends() {
      return acknowledgedSends.stream().filter(s -> s - safeEnd >= 0).toList();
    }

    /** Acknowledged calls sent after the cut. */
    long afterCut() {
      return acknowledgedSends.stream().filter(s -> s - cut > 0).count();
    }

    String describe() {
      return acknowledgedSends.size() + " acknowledged after the cut, the last sent "
          + ms(acknowledgedSends.isEmpty() ? cut : acknowledgedSends.get(acknowledgedSends.size() - 1))
          + " ms after the cut; safe end " + ms(safeEnd) + " ms after the cut; then " + (refusal == null ? "no refusal" : refusal.getStatus());
    }

    private long ms(long t) {
      return TimeUnit.NANOSECONDS.toMillis(t - cut);
    }
  }

  /** One call through the old leader; throws when it is refused. */
  @FunctionalInterface
  interface Call {
    void run();
  }

  private LeaseWindow() {
  }

  /**
   * Renews the leader's lease with {@code call} until more than half of it is left, isolates the leader, then
   * calls until a refusal.
   *
   * @param cluster a cluster under the leadership lease
   * @param leader the index of its Raft leader
   * @param call a keepalive or a linearizable read through the leader's own endpoint
   */
  static Seen acrossTheCut(LocalCluster cluster, int leader, Call call) {
    LeadershipLease lease = cluster.node(leader).leadershipLease().orElseThrow();
    // A call in the lease's second half starts a round nobody waits for; its commit renews the lease.
    while (lease.lengthNanos() == 0 || lease.remainingNanos() < lease.lengthNanos() / 2) {
      call.run();
    }
    cluster.isolate(leader);
    long cut = System.nanoTime();
    List<Long> acknowledged = new ArrayList<>();
    StatusRuntimeException refusal = null;
    // bounded: a leader that never refuses is a failure the caller reports, not a hung test
    long giveUp = cut + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() - giveUp < 0) {
      long sent = System.nanoTime();
      try {
        call.run();
        acknowledged.add(sent);
      } catch (StatusRuntimeException e) {
        refusal = e;
        break;
      }
    }
    // the clock is read after the lease: read before it, a pause between the two readings (a busy machine) would
    // move the safe end earlier by that pause and flag a send the lease did cover (a clean-clone run: 453 ms, 453 ms)
    long remaining = lease.remainingNanos();
    long start = System.nanoTime() + remaining - lease.lengthNanos();
    long othersMinMs = IntStream.range(0, cluster.size()).filter(i -> i != leader)
        .mapToLong(i -> cluster.node(i).config().electionTimeoutMinMs()).min().orElseThrow();
    long safeEnd = start + (long) (LeadershipLease.SAFE_FACTOR * TimeUnit.MILLISECONDS.toNanos(othersMinMs));
    return new Seen(cut, safeEnd, acknowledged, refusal);
  }
}
