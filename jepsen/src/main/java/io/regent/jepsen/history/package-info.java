/**
 * Jepsen/Knossos operation histories for Regent's Jepsen-style tests.
 *
 * <p>{@link io.regent.jepsen.history.Op} is one event ({@code :invoke}, {@code :ok}, {@code :fail},
 * {@code :info}); {@link io.regent.jepsen.history.History} pairs each invoke with its completion per
 * process, with Jepsen's rule that an {@code :info} or missing completion leaves the operation open
 * (it may or may not have taken effect). {@link io.regent.jepsen.history.EdnReader} and {@link
 * io.regent.jepsen.history.EdnWriter} read and write the EDN format that Knossos (the Clojure checker
 * Jepsen uses) reads, so that a history recorded here can also be checked by Knossos. The EDN code is
 * Regent's own; no EDN or Clojure library is used.
 */
package io.regent.jepsen.history;
