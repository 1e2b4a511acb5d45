package io.regent.jepsen.history;

import java.util.Objects;

/**
 * An EDN keyword such as {@code :cas} or {@code :nemesis}. The name is kept without the leading colon;
 * namespaced keywords ({@code :jepsen/foo}) keep their slash in the name.
 *
 * @param name the name without the colon, e.g. {@code cas}
 */
public record Keyword(String name) implements Comparable<Keyword> {

  /** Validates that the name is non-empty and carries no leading colon. */
  public Keyword {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty() || name.startsWith(":")) {
      throw new IllegalArgumentException("bad keyword name: '" + name + "'");
    }
  }

  /** Returns the keyword with this name; a single leading colon is accepted and dropped. */
  public static Keyword of(String name) {
    return new Keyword(name.startsWith(":") ? name.substring(1) : name);
  }

  @Override
  public int compareTo(Keyword o) {
    return name.compareTo(o.name);
  }

  /** The EDN spelling, with the colon. */
  @Override
  public String toString() {
    return ":" + name;
  }
}
