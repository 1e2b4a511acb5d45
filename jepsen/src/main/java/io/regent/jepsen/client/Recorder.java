package io.regent.jepsen.client;

import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Keyword;
import io.regent.jepsen.history.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The history being recorded. Events are appended under one lock that also reads the clock, so the
 * order of the history is the real-time order Knossos assumes and {@code :time} never goes backwards.
 * Times are nanoseconds of {@link System#nanoTime()} since the recorder was made (the test's start),
 * as in Jepsen.
 */
public final class Recorder {
  private final long origin = System.nanoTime();
  private final List<Op> ops = new ArrayList<>();

  /** Nanoseconds since the start of the test. */
  public long now() {
    return System.nanoTime() - origin;
  }

  /** Converts a {@link System#nanoTime()} reading to test time. */
  public long relative(long nanoTime) {
    return nanoTime - origin;
  }

  /** The test's origin on {@link System#nanoTime()}. */
  public long origin() {
    return origin;
  }

  /** Appends an event stamped with the current time; returns it. */
  public synchronized Op append(long process, Op.Type type, String f, Object key, Object value,
      Map<Keyword, Object> extra) {
    Op op = new Op(process, type, Keyword.of(f), value, now(), key, extra);
    ops.add(op);
    return op;
  }

  /** Records a nemesis event ({@code :process :nemesis, :type :info}). */
  public Op nemesis(String f, Object value) {
    return append(Op.NEMESIS, Op.Type.INFO, f, null, value, null);
  }

  /** A copy of the events so far. */
  public synchronized List<Op> ops() {
    return List.copyOf(ops);
  }

  /** The events so far as a history. */
  public History history() {
    return new History(ops());
  }
}
