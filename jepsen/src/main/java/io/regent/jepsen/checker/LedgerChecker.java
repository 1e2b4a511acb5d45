package io.regent.jepsen.checker;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The ledger checker for the fenced-ledger workload: holders append to a ledger guarded by fencing
 * tokens, and a final read returns the admitted entries in ledger order. Three properties:
 *
 * <ol>
 *   <li>fencing: admitted tokens never decrease along the ledger;
 *   <li>ownership: every admitted token was granted, and to the writer that used it (the grants come
 *       from the history as a map token → writer);
 *   <li>durability: every acknowledged append appears in the final read.
 * </ol>
 */
public final class LedgerChecker {
  private LedgerChecker() {
  }

  /**
   * A ledger entry or an append request.
   *
   * @param token the fencing token the writer presented
   * @param writer the client that appended
   * @param payload what it appended (unique per append in the workload, so lost appends can be found)
   */
  public record Entry(long token, String writer, Object payload) {
    /** Validates the writer. */
    public Entry {
      Objects.requireNonNull(writer, "writer");
    }
  }

  /** Kinds of ledger anomalies. */
  public enum Kind {
    /** An entry's token is lower than the token of an entry before it. */
    TOKEN_DECREASED,
    /** An entry's token was never granted. */
    TOKEN_NOT_GRANTED,
    /** An entry's token was granted to another writer. */
    WRONG_WRITER,
    /** An acknowledged append is missing from the final read. */
    LOST_APPEND
  }

  /**
   * One anomaly.
   *
   * @param kind what went wrong
   * @param message a sentence saying so
   * @param entries the entries involved
   */
  public record Anomaly(Kind kind, String message, List<Entry> entries) {
    /** Copies the entry list. */
    public Anomaly {
      entries = List.copyOf(entries);
    }
  }

  /**
   * The verdict.
   *
   * @param verdict VALID or INVALID
   * @param entries entries in the final read
   * @param acknowledged acknowledged appends checked
   * @param anomalies all anomalies, in ledger order (lost appends last)
   */
  public record Report(Verdict verdict, int entries, int acknowledged, List<Anomaly> anomalies) {
    /** Copies the anomaly list. */
    public Report {
      anomalies = List.copyOf(anomalies);
    }

    /** The first anomaly's message, or a summary if there is none. */
    public String explanation() {
      return anomalies.isEmpty()
          ? "ledger ok: " + entries + " entries, " + acknowledged + " acknowledged appends all present"
          : anomalies.get(0).message();
    }
  }

  /**
   * Checks a ledger.
   *
   * @param finalRead the admitted entries, in ledger order
   * @param grants every granted token and the writer it was granted to
   * @param acknowledged appends that were acknowledged to their writer
   */
  public static Report check(List<Entry> finalRead, Map<Long, String> grants,
      List<Entry> acknowledged) {
    List<Anomaly> out = new ArrayList<>();
    Entry previous = null;
    for (int i = 0; i < finalRead.size(); i++) {
      Entry e = finalRead.get(i);
      if (previous != null && e.token() < previous.token()) {
        out.add(new Anomaly(Kind.TOKEN_DECREASED, "entry " + i + " has token " + e.token()
            + " after token " + previous.token() + ": " + previous + " then " + e,
            List.of(previous, e)));
      }
      String owner = grants.get(e.token());
      if (owner == null) {
        out.add(new Anomaly(Kind.TOKEN_NOT_GRANTED,
            "entry " + i + " uses token " + e.token() + ", which was never granted: " + e,
            List.of(e)));
      } else if (!owner.equals(e.writer())) {
        out.add(new Anomaly(Kind.WRONG_WRITER, "entry " + i + " was written by " + e.writer()
            + " with token " + e.token() + ", which was granted to " + owner + ": " + e, List.of(e)));
      }
      if (previous == null || e.token() >= previous.token()) {
        previous = e;
      }
    }
    Set<Entry> present = new HashSet<>(finalRead);
    for (Entry a : acknowledged) {
      if (!present.contains(a)) {
        out.add(new Anomaly(Kind.LOST_APPEND,
            "acknowledged append is missing from the final read: " + a, List.of(a)));
      }
    }
    return new Report(out.isEmpty() ? Verdict.VALID : Verdict.INVALID, finalRead.size(),
        acknowledged.size(), out);
  }
}
