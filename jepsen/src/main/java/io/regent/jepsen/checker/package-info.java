/**
 * Checkers for Regent's Jepsen-style histories.
 *
 * <p>{@link io.regent.jepsen.checker.LinearizabilityChecker} decides whether a history is
 * linearizable (Herlihy and Wing, "Linearizability: a correctness condition for concurrent objects",
 * TOPLAS 12(3), 1990) with respect to a sequential {@link io.regent.jepsen.checker.Model}. Which paper
 * each part follows:
 *
 * <ul>
 *   <li>the search: Wing and Gong, "Testing and verifying concurrent objects", J. Parallel and
 *       Distributed Computing 17, 1993 ({@link io.regent.jepsen.checker.WglSearch});
 *   <li>memoizing (linearized-set, model-state) configurations so that none is explored twice: Lowe,
 *       "Testing for linearizability", Concurrency and Computation: Practice and Experience 29(4), 2017
 *       ({@link io.regent.jepsen.checker.Configuration});
 *   <li>checking each key's sub-history on its own: Horn and Kroening, "Faster linearizability checking
 *       via P-compositionality", FORTE 2015, which rests on the locality of linearizability (Herlihy
 *       and Wing 1990);
 *   <li>the treatment of {@code :fail}, {@code :info} and missing completions, and the {@code
 *       cas-register} and {@code mutex} models: Knossos (github.com/jepsen-io/knossos), the checker
 *       Jepsen uses, whose histories this package reads.
 * </ul>
 *
 * <p>No Java library does Knossos-style checking (Knossos is Clojure and is published only on Clojars,
 * which this build does not use; Porcupine is Go), so this is Regent's own implementation, written
 * from the papers. It is validated against Knossos's own test histories (the corpus test) and against
 * a brute-force oracle on random small histories.
 *
 * <p>A {@link io.regent.jepsen.checker.Budget} bounds time and memory; when it runs out the verdict is
 * {@link io.regent.jepsen.checker.Verdict#UNKNOWN}, never a guess. {@link
 * io.regent.jepsen.checker.ExclusivityChecker} (no two clients believe they hold a name at once) and
 * {@link io.regent.jepsen.checker.LedgerChecker} (fenced-ledger properties) check the two other
 * workloads.
 */
package io.regent.jepsen.checker;
