package io.regent.jepsen.history;

import java.util.Objects;

/**
 * An EDN symbol other than {@code nil}, {@code true} and {@code false} (Jepsen prints exception
 * classes this way, e.g. {@code :type java.net.SocketTimeoutException}); kept so that such histories
 * read and round-trip.
 *
 * @param name the symbol as written
 */
public record Symbol(String name) {

  /** Validates the name. */
  public Symbol {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("empty symbol");
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
