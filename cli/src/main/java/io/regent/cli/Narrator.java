package io.regent.cli;

import java.io.PrintWriter;

/** The demo's voice: one line per step or fact, and checks that say ok or stop the demo. */
final class Narrator {
  private final PrintWriter out;

  Narrator(PrintWriter out) {
    this.out = out;
  }

  PrintWriter out() {
    return out;
  }

  void say(String format, Object... args) {
    synchronized (out) {
      out.println(String.format(format, args));
      out.flush();
    }
  }

  /** Prints {@code check: WHAT: ok}, or {@code FAILED} and throws. */
  void check(boolean condition, String format, Object... args) {
    String what = String.format(format, args);
    say("      check: %s: %s", what, condition ? "ok" : "FAILED");
    if (!condition) {
      throw new IllegalStateException("check failed: " + what);
    }
  }
}
