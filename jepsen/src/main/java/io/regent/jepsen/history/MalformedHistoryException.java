package io.regent.jepsen.history;

/**
 * A history that breaks Jepsen's recording rules, refused before any check (as Knossos's {@code
 * knossos.history/complete} refuses it): a completion without an open invoke, a completion naming
 * another {@code :f} than its invoke, a process that invokes while an earlier operation of its own is
 * still open (after an {@code :info} a Jepsen process is retired and must never invoke again), or a
 * {@code :fail} whose value differs from its invoke's. Such a history cannot be checked: a verdict on
 * it would be a verdict on a guess of what the recorder meant.
 */
public final class MalformedHistoryException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** A refusal; the message names the event (its position in the history) and the rule it breaks. */
  public MalformedHistoryException(String message) {
    super("malformed history: " + message);
  }
}
