package io.regent.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.util.concurrent.CompletionException;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The client loop on a virtual clock: what latency each mode records around a stall. */
class ClientLoopTest {
  private static final long MS = 1_000_000;

  /** A virtual clock: sleeping jumps to the wake-up time; each operation advances it by its service time. */
  private static final class Clock {
    long now;
  }

  /** 100 operations of 1 ms, except the 10th, which stalls for 100 ms; 1 client. */
  private static Histogram run(boolean open) throws Exception {
    Clock clock = new Clock();
    LatencyStats stats = new LatencyStats();
    stats.startMeasuring();
    ClientLoop loop = new ClientLoop(stats, () -> clock.now, until -> clock.now = Math.max(clock.now, until));
    int[] count = {0};
    ClientLoop.Op op = () -> {
      count[0]++;
      clock.now += count[0] == 10 ? 100 * MS : MS;
      return ClientLoop.TIME_IT;
    };
    if (open) {
      loop.open(op, () -> count[0] < 100, 0, 100.0, 0, 1); // due every 10 ms
    } else {
      loop.closed(op, () -> count[0] < 100);
    }
    stats.tick();
    return stats.total();
  }

  @Test
  void closedLoopRecordsServiceTimeOnly() throws Exception {
    Histogram h = run(false);
    assertThat(h.getTotalCount()).isEqualTo(100);
    assertThat(h.getValueAtPercentile(50)).isBetween(MS - MS / 100, MS + MS / 100);
    assertThat(h.getValueAtPercentile(98)).isLessThan(2 * MS); // the stall hides in one sample
  }

  @Test
  void openLoopChargesTheStallToEveryDelayedOperation() throws Exception {
    Histogram h = run(true);
    assertThat(h.getTotalCount()).isEqualTo(100);
    // Operation 10 is due at 90 ms and ends at 190 ms; operations 11..19 were due at 100..180 ms and run
    // back to back after it, so each waited: latencies 100, 91, 82, ... ms instead of 1 ms.
    assertThat(h.getMaxValue()).isBetween(99 * MS, 101 * MS);
    assertThat(h.getCountBetweenValues(2 * MS, 200 * MS)).isEqualTo(11);
    assertThat(h.getValueAtPercentile(50)).isBetween(MS - MS / 100, MS + MS / 100);
  }

  @Test
  void openLoopSpreadsClientsOverThePeriod() throws Exception {
    Clock clock = new Clock();
    LatencyStats stats = new LatencyStats();
    long[] starts = new long[3];
    int[] n = {0};
    new ClientLoop(stats, () -> clock.now, until -> clock.now = Math.max(clock.now, until))
        .open(() -> {
          starts[n[0]++] = clock.now;
          return ClientLoop.SKIP;
        }, () -> n[0] < 3, 0, 1000.0, 1, 4); // client 1 of 4 at 1000/s: due at 1, 5, 9 ms
    assertThat(starts).containsExactly(MS, 5 * MS, 9 * MS);
  }

  @Test
  void errorsAreCountedByKindAfterWarmUpOnly() {
    LatencyStats stats = new LatencyStats();
    stats.error(new IllegalStateException("warm-up"));
    stats.record(5 * MS);
    stats.startMeasuring();
    stats.error(Status.UNAVAILABLE.asRuntimeException());
    stats.error(new CompletionException(Status.UNAVAILABLE.asRuntimeException()));
    stats.error(new IllegalStateException("x"));
    stats.record(MS);
    stats.tick();
    assertThat(stats.errors()).containsExactly(java.util.Map.entry("IllegalStateException", 1L),
        java.util.Map.entry("UNAVAILABLE", 2L));
    assertThat(stats.total().getTotalCount()).isEqualTo(1);
    assertThat(stats.errorCount()).isEqualTo(3);
  }
}
