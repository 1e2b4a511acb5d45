package io.regent.jepsen.compare;

import com.google.gson.JsonObject;
import java.util.List;

/** What the probe saw in a time window: fractions of successful calls and the longest gap without a grant. */
final class Window {
  private Window() {
  }

  /**
   * Counts the calls that ended (answered, failed or hit their deadline) in {@code [from, to)} (ns): a call
   * stuck in a fault ends at its deadline, so every window sees the calls it blocked. Finds the longest stretch
   * of the window with no successful campaign ending in it (the window's edges count as ends of a gap).
   *
   * @return {@code campaign_ok}, {@code campaign_calls}, {@code campaign_fraction}, the same for {@code leader},
   *     and {@code longest_gap_ms}; a fraction is -1 when there was no call
   */
  static JsonObject of(List<Prober.Call> calls, long from, long to) {
    JsonObject o = new JsonObject();
    for (String f : List.of("campaign", "leader")) {
      long total = calls.stream().filter(c -> c.f().equals(f) && c.end() >= from && c.end() < to).count();
      long ok = calls.stream().filter(c -> c.f().equals(f) && c.ok() && c.end() >= from && c.end() < to).count();
      o.addProperty(f + "_ok", ok);
      o.addProperty(f + "_calls", total);
      o.addProperty(f + "_fraction", total == 0 ? -1 : Math.round(1000.0 * ok / total) / 1000.0);
    }
    long[] ends = calls.stream().filter(c -> c.f().equals("campaign") && c.ok() && c.end() >= from && c.end() < to)
        .mapToLong(Prober.Call::end).sorted().toArray();
    long gap = 0;
    long last = from;
    for (long e : ends) {
      gap = Math.max(gap, e - last);
      last = e;
    }
    gap = Math.max(gap, to - last);
    o.addProperty("longest_gap_ms", gap / 1_000_000);
    return o;
  }
}
