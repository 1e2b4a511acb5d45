package io.regent.jepsen.nemesis;

import java.util.Optional;
import java.util.Random;

/**
 * One kind of fault. The scheduler calls {@link #start} then, some seconds later, {@link #stop}, from
 * one thread; the values they return describe what was done and go into the history as the {@code
 * :value} of {@code :start-<name>} and {@code :stop-<name>} nemesis events.
 */
public interface Nemesis {
  /** The fault's name as in {@code --nemesis}: kill, pause, partition, client-pause or leader. */
  String name();

  /** Why this fault cannot be injected here (e.g. partitions without namespaces), or empty. */
  default Optional<String> unavailable() {
    return Optional.empty();
  }

  /** Injects the fault; returns an EDN value naming the targets (nil when nothing could be done). */
  Object start(Random random) throws Exception;

  /** Heals what {@link #start} did (a no-op if nothing is active); returns an EDN value. */
  Object stop() throws Exception;
}
