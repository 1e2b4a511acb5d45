package io.regent.jepsen.runner;

import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Keyword;
import io.regent.jepsen.history.Op;
import io.regent.jepsen.report.ResultsFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Collects what a run found and writes {@code results.edn} and {@code results.json}: {@code :valid?}
 * (true, false or {@code :unknown}), the run's parameters, operation and fault counts, notes (faults
 * that were unavailable, a cluster that did not recover), and per checker its verdict, explanation,
 * statistics and the ops of its first anomaly.
 */
final class RunResults {
  private final RunOptions o;
  private final Path dir;
  private String network = "unknown";
  private List<String> nemesisEnabled = List.of();
  private Boolean recovered;
  private List<String> notes = List.of();
  private List<CheckOutcome> checks = List.of();
  private Exception crash;
  private History history;

  RunResults(RunOptions o, Path dir) {
    this.o = o;
    this.dir = dir;
  }

  void network(String n) {
    network = n;
  }

  void nemesisEnabled(List<String> faults) {
    nemesisEnabled = List.copyOf(faults);
  }

  void recovered(boolean r) {
    recovered = r;
  }

  void notes(List<String> n) {
    notes = List.copyOf(n);
  }

  void checks(List<CheckOutcome> c) {
    checks = List.copyOf(c);
  }

  void crash(Exception e) {
    crash = e;
  }

  boolean crashed() {
    return crash != null;
  }

  void history(History h) {
    history = h;
  }

  Verdict verdict() {
    return crash != null ? Verdict.UNKNOWN : CheckOutcome.overall(checks);
  }

  void write() throws IOException {
    ResultsFiles.write(dir, map());
  }

  Map<Keyword, Object> map() {
    Map<Keyword, Object> m = new LinkedHashMap<>();
    m.put(k("valid?"), verdict().ednValue());
    m.put(k("test"), o.testName());
    m.put(k("workload"), k(o.workload()));
    m.put(k("target"), k(o.singleWriter() ? "single-writer" : "cluster"));
    m.put(k("nodes"), (long) (o.singleWriter() ? 1 : o.nodes()));
    m.put(k("network"), k(network));
    m.put(k("concurrency"), (long) o.concurrency());
    m.put(k("time-limit-s"), o.timeLimit().toSeconds());
    m.put(k("ttl-ms"), o.ttlMs());
    m.put(k("seed"), o.seed());
    m.put(k("negative-control?"), o.negativeControl());
    m.put(k("try-campaign?"), o.tryCampaign());
    m.put(k("nemesis"), keywords(o.nemesis()));
    m.put(k("nemesis-enabled"), keywords(nemesisEnabled));
    if (history != null) {
      Map<Object, Object> types = new TreeMap<>();
      Map<Object, Object> faults = new TreeMap<>();
      for (Op op : history.ops()) {
        if (op.isNemesis()) {
          if (op.f().name().startsWith("start-")) {
            faults.merge(op.f().name().substring(6), 1L, (a, b) -> (Long) a + (Long) b);
          }
        } else {
          types.merge(op.type().name().toLowerCase(), 1L, (a, b) -> (Long) a + (Long) b);
        }
      }
      m.put(k("operations"), (long) history.operations().size());
      m.put(k("events"), types);
      m.put(k("processes"), history.operations().stream().map(x -> x.process()).distinct().count());
      m.put(k("faults"), faults);
    }
    m.put(k("recovered?"), recovered);
    m.put(k("notes"), new ArrayList<>(notes));
    if (crash != null) {
      m.put(k("error"), String.valueOf(crash));
    }
    Map<Keyword, Object> cs = new LinkedHashMap<>();
    for (CheckOutcome c : checks) {
      Map<Keyword, Object> one = new LinkedHashMap<>();
      one.put(k("valid?"), c.verdict().ednValue());
      one.put(k("explanation"), c.explanation());
      one.put(k("stats"), new TreeMap<>(c.stats()));
      one.put(k("first-anomaly"), new ArrayList<>(c.anomaly()));
      cs.put(k(c.checker()), one);
    }
    m.put(k("checkers"), cs);
    return m;
  }

  String summary() {
    StringBuilder b = new StringBuilder();
    b.append(o.testName()).append(": ").append(verdict()).append('\n');
    for (CheckOutcome c : checks) {
      b.append("  ").append(c.checker()).append(": ").append(c.verdict()).append(" - ")
          .append(c.explanation().length() > 400 ? c.explanation().substring(0, 400) + "..." : c.explanation())
          .append('\n');
    }
    if (crash != null) {
      b.append("  crashed: ").append(crash).append('\n');
    }
    notes.forEach(n -> b.append("  note: ").append(n).append('\n'));
    b.append("  store: ").append(dir);
    return b.toString();
  }

  private static Keyword k(String s) {
    return Keyword.of(s);
  }

  private static List<Object> keywords(List<String> names) {
    List<Object> out = new ArrayList<>();
    names.forEach(n -> out.add(k(n)));
    return out;
  }
}
