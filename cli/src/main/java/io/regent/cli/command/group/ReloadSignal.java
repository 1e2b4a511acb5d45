package io.regent.cli.command.group;

import java.util.Locale;
import java.util.Map;

/**
 * How a {@code group join --exec} child hears of a change of its partitions: {@code restart} (the default:
 * stopped and started again, so any program works, as consul-template's exec mode without a reload signal),
 * a signal it handles ({@code --reload-signal HUP}), or {@code none} (it polls its partitions file).
 *
 * @param name the signal's name without {@code SIG} (for {@code kill -s}), or null for restart and none
 * @param restart whether the child is restarted on a change
 */
record ReloadSignal(String name, boolean restart) {
  /** Stop and start the child on every change. */
  static final ReloadSignal RESTART = new ReloadSignal(null, true);
  /** Tell the child nothing: it reads its file when it likes. */
  static final ReloadSignal NONE = new ReloadSignal(null, false);

  /** The signals a child may ask for, by number on Linux (for naming an exit status of 128 + N). */
  private static final Map<String, Integer> SIGNALS = Map.of("HUP", 1, "INT", 2, "QUIT", 3, "USR1", 10,
      "USR2", 12, "ALRM", 14, "TERM", 15, "WINCH", 28);

  /**
   * Parses {@code --reload-signal}: a name from {@link #SIGNALS} (case-insensitive, with or without
   * {@code SIG}) or {@code none}.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  static ReloadSignal parse(String text) {
    String s = text.trim().toUpperCase(Locale.ROOT);
    if (s.equals("NONE")) {
      return NONE;
    }
    String name = s.startsWith("SIG") ? s.substring(3) : s;
    if (!SIGNALS.containsKey(name)) {
      throw new IllegalArgumentException("--reload-signal must be none or one of " + String.join(", ",
          new java.util.TreeSet<>(SIGNALS.keySet())) + ", not '" + text + "'");
    }
    return new ReloadSignal(name, false);
  }

  /**
   * The line {@code group join} prints when its child ended with {@code status} by itself, or null when the
   * status is not a death by signal (128 + N, as a shell and Java's {@code Process} report it).
   */
  String describeExit(int status) {
    if (status <= 128) {
      return null;
    }
    int number = status - 128;
    String signal = SIGNALS.entrySet().stream().filter(e -> e.getValue() == number).map(Map.Entry::getKey)
        .findFirst().map(n -> "SIG" + n).orElse("signal " + number);
    if (name != null && SIGNALS.get(name) == number) {
      return "child ended by " + signal + " (exit " + status + "), the --reload-signal it was sent on a change: "
          + "it must handle or ignore " + signal + "; without --reload-signal the child is restarted instead";
    }
    return "child ended by " + signal + " (exit " + status + ")";
  }
}
