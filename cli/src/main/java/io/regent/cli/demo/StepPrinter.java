package io.regent.cli.demo;

import java.io.PrintWriter;

/** Prints the demo's steps: one line per step or fact, and checks that say ok or stop the demo. */
final class StepPrinter {
  private final PrintWriter out;

  /** A printer of steps and checks to {@code out}, flushing after each line. */
  StepPrinter(PrintWriter out) {
    this.out = out;
  }

  /** Prints one line, {@link String#format}ted from {@code format} and {@code args}, and flushes. */
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
