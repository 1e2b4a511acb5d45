package io.regent.cli.output;

import java.io.PrintWriter;

/** The demo's voice: one line per step or fact, and checks that say ok or stop the demo. */
public final class Narrator {
  private final PrintWriter out;

  /** A narrator that prints to {@code out}, flushing after each line. */
  public Narrator(PrintWriter out) {
    this.out = out;
  }

  PrintWriter out() {
    return out;
  }

  /** Prints one line, {@link String#format}ted from {@code format} and {@code args}, and flushes. */
  public void say(String format, Object... args) {
    synchronized (out) {
      out.println(String.format(format, args));
      out.flush();
    }
  }

  /** Prints {@code check: WHAT: ok}, or {@code FAILED} and throws. */
  public void check(boolean condition, String format, Object... args) {
    String what = String.format(format, args);
    say("      check: %s: %s", what, condition ? "ok" : "FAILED");
    if (!condition) {
      throw new IllegalStateException("check failed: " + what);
    }
  }
}
