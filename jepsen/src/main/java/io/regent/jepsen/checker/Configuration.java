package io.regent.jepsen.checker;

import java.util.Arrays;

/**
 * A memoized search configuration: the set of operations linearized so far together with the model
 * state they lead to. Lowe (2017, "Testing for linearizability", Concurrency and Computation 29(4))
 * observed that the Wing–Gong search reaches the same configuration along many orders, and that a
 * configuration seen once need never be explored again; this is the key of that cache.
 *
 * <p>The set is stored compactly: completed ({@code :ok}) operations, numbered in invoke order, as the
 * words of a bitset from the first word that is not all ones (everything before it is linearized) to
 * the last word that is not zero; open operations as their own trimmed bitset.
 */
final class Configuration {
  private final int okBase;
  private final long[] okWords;
  private final long[] openWords;
  private final Model state;
  private final int hash;

  Configuration(int okBase, long[] okWords, long[] openWords, Model state, long setHash) {
    this.okBase = okBase;
    this.okWords = okWords;
    this.openWords = openWords;
    this.state = state;
    long h = setHash * 0x9E3779B97F4A7C15L + state.hashCode();
    this.hash = (int) (h ^ (h >>> 32));
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Configuration c && c.hash == hash && c.okBase == okBase
        && Arrays.equals(c.okWords, okWords) && Arrays.equals(c.openWords, openWords)
        && c.state.equals(state);
  }
}
