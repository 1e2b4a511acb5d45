package io.regent.ledger;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;

/**
 * A failpoint for crash tests, hidden from {@code --help}: with the system property
 * {@value #PROPERTY}{@code =}{@value #HOLD_AFTER_COMMIT}, the ledger's first append, once its LMDB transaction has
 * committed (entry and idempotency record durable) and before its answer is sent, prints
 * {@value #HELD} followed by {@code KEY position=P} on standard output and blocks its thread for good: the moment
 * to {@code kill -9} the process, which then has applied an append whose client never heard of it. A test that
 * polled for that moment instead could miss it (an append takes a millisecond). Later appends are not held. Unset,
 * it does nothing (see also {@code SnapshotFailpoint}, the node's).
 */
final class LedgerFailpoint {
  /** The system property that arms it, e.g. {@code -Dregent.ledger.failpoint=hold-after-commit}. */
  static final String PROPERTY = "regent.ledger.failpoint";
  /** Its one value: hold the first append after its commit. */
  static final String HOLD_AFTER_COMMIT = "hold-after-commit";
  /** Printed when an append is held. */
  static final String HELD = "failpoint hold-after-commit: committed, answer held: ";

  private static final LedgerFailpoint NONE = new LedgerFailpoint(false, System.out);

  private final boolean hold;
  private final PrintStream out;
  private final CountDownLatch never = new CountDownLatch(1);
  private boolean held;

  private LedgerFailpoint(boolean hold, PrintStream out) {
    this.hold = hold;
    this.out = out;
  }

  /** The failpoint {@value #PROPERTY} asks for; none when unset. */
  static LedgerFailpoint fromSystem() {
    String v = System.getProperty(PROPERTY);
    if (v == null || v.isEmpty()) {
      return NONE;
    }
    if (!v.equals(HOLD_AFTER_COMMIT)) {
      throw new IllegalArgumentException(PROPERTY + " must be " + HOLD_AFTER_COMMIT + ", got '" + v + "'");
    }
    return new LedgerFailpoint(true, System.out);
  }

  /** Called by the store right after an append committed, before the answer goes back. */
  void afterCommit(String key, long position) {
    synchronized (this) {
      if (!hold || held) {
        return;
      }
      held = true;
    }
    out.println(HELD + key + " position=" + position);
    out.flush();
    try {
      never.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
