package io.regent.jepsen.nemesis;

import java.util.Optional;
import java.util.Random;

/**
 * One kind of fault. The scheduler calls {@link #start} then, some seconds later, {@link #stop}, from
 * one thread; the values they return describe what was done and go into the history as the {@code
 * :value} of {@code :start-<name>} and {@code :stop-<name>} nemesis events.
 */
public interface Nemesis extends AutoCloseable {
  /** The fault's name as in {@code --nemesis}: one of {@link NemesisScheduler#FAULTS}. */
  String name();

  /** Why this fault cannot be injected here (e.g. partitions without namespaces), or empty. */
  default Optional<String> unavailable() {
    return Optional.empty();
  }

  /**
   * Sets up what the fault needs before the clients start (e.g. state for it to act on); called once, before
   * {@link #start}. Default: nothing.
   *
   * @throws Exception if the set-up failed: the run cannot test this fault
   */
  default void prepare() throws Exception {
  }

  /** Injects the fault; returns an EDN value naming the targets (nil when nothing could be done). */
  Object start(Random random) throws Exception;

  /**
   * How long the fault lasts before {@link #stop}, ms. Default: 5–10 s; a fault aimed at the clients' failover
   * lasts longer than their channel keepalive takes to give up on a node.
   */
  default long durationMs(Random random) {
    return 5000 + random.nextInt(5000);
  }

  /** Heals what {@link #start} did (a no-op if nothing is active); returns an EDN value. */
  Object stop() throws Exception;

  /** Releases what {@link #prepare} holds, after the last {@link #stop}. Default: nothing. */
  @Override
  default void close() {
  }
}
