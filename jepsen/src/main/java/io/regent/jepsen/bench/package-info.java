/**
 * A benchmark of the linearizability checker ({@link io.regent.jepsen.bench.CheckerBench}) and the
 * generator of random valid cas-register histories it uses ({@link
 * io.regent.jepsen.bench.RandomCasHistory}). Not part of the test suite.
 */
package io.regent.jepsen.bench;
