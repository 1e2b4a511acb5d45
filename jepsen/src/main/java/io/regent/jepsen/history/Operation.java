package io.regent.jepsen.history;

/**
 * A client operation: an invoke event paired with its completion (if any) by {@link History}.
 *
 * @param id dense index of this operation in invoke order, starting at 0
 * @param invoke the {@code :invoke} event
 * @param completion the {@code :ok}, {@code :fail} or {@code :info} event; {@code null} if the history
 *     ends without one
 * @param invokeIndex position of the invoke event in the history
 * @param completionIndex position of the completion in the history, or -1 if there is none
 */
public record Operation(int id, Op invoke, Op completion, int invokeIndex, int completionIndex) {

  /** What is known about whether the operation took effect. */
  public enum Outcome {
    /** Completed {@code :ok}: it took effect between its invoke and its completion. */
    OK,
    /** Completed {@code :fail}: it did not take effect. */
    FAIL,
    /**
     * Completed {@code :info} or never completed: it may have taken effect at any point after its
     * invoke (even after the end of the history), or never.
     */
    INDETERMINATE
  }

  /** The outcome, from the completion's type. */
  public Outcome outcome() {
    if (completion == null || completion.type() == Op.Type.INFO) {
      return Outcome.INDETERMINATE;
    }
    return completion.type() == Op.Type.OK ? Outcome.OK : Outcome.FAIL;
  }

  /** The process that ran the operation. */
  public long process() {
    return invoke.process();
  }

  /** The operation's function. */
  public Keyword f() {
    return invoke.f();
  }

  /** The key for per-key decomposition: the invoke's {@code :key}, else the completion's. */
  public Object key() {
    if (invoke.key() != null || completion == null) {
      return invoke.key();
    }
    return completion.key();
  }

  /**
   * The event a model should apply, following Knossos: for an {@code :ok} operation the completion
   * (so a read's observed value counts); otherwise the invoke, taking the {@code :info} completion's
   * value only where the invoke carried none.
   */
  public Op effective() {
    Object k = key();
    if (outcome() == Outcome.OK) {
      return completion.key() == null && k != null ? completion.withKey(k) : completion;
    }
    if (invoke.value() == null && completion != null && completion.value() != null) {
      return invoke.withValue(completion.value());
    }
    return invoke;
  }

  /** Compact rendering for explanations: {@code process 3 :cas [1 2] → :ok}. */
  @Override
  public String toString() {
    String p = invoke.isNemesis() ? ":nemesis" : Long.toString(process());
    String v = EdnWriter.writeValue(effective().value());
    String end = completion == null ? "(no completion)" : completion.type().keyword().toString();
    return "#" + id + " process " + p + " " + f() + " " + v + " -> " + end
        + (key() == null ? "" : " key " + EdnWriter.writeValue(key()));
  }
}
