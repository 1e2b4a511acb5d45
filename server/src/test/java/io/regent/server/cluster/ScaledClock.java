package io.regent.server.cluster;

import java.util.function.LongSupplier;

/**
 * A monotonic clock running at {@code rate} times {@code System.nanoTime}, continuous across rate changes: what a
 * node reports to its peers' clock probes when a test runs it "at half speed" (libfaketime on a real process).
 */
final class ScaledClock implements LongSupplier {
  private long realBase = System.nanoTime();
  private long reportedBase = realBase;
  private double rate;

  ScaledClock(double rate) {
    this.rate = rate;
  }

  @Override
  public synchronized long getAsLong() {
    return reportedBase + (long) ((System.nanoTime() - realBase) * rate);
  }

  /** Runs at {@code newRate} from now on, continuing from the current reading. */
  synchronized void setRate(double newRate) {
    long now = System.nanoTime();
    reportedBase += (long) ((now - realBase) * rate);
    realBase = now;
    rate = newRate;
  }
}
