package io.regent.jepsen.compare;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.regent.jepsen.runner.RunOptions;
import io.regent.jepsen.runner.TestRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Safety: the Jepsen workloads (election, lease-exclusivity, ledger) under kill, pause and partition, run by
 * the Jepsen runner itself ({@link TestRun}: its own cluster, nemesis, history and checkers). They drive
 * Regent's client API, so they run on the Regent targets; for etcd the entry says so.
 */
final class Safety {
  /** Client processes of each run (as in jepsen/README.md's runs). */
  static final int CONCURRENCY = 5;
  private static final String[] KEPT = {"valid?", "test", "network", "operations", "events", "faults", "recovered?",
      "notes", "error"};

  private Safety() {
  }

  /** The runs of {@code plan} for {@code label}; an empty array when the plan has none for it. */
  static JsonArray run(String label, Plan plan, Path jar, Path store, long seed, Log log) throws Exception {
    JsonArray out = new JsonArray();
    if (label.equals("etcd-3")) {
      JsonObject o = new JsonObject();
      o.addProperty("workload", "all");
      o.addProperty("valid?", "not-run");
      o.addProperty("reason", "the Jepsen workloads drive Regent's client API (leases with the client-side "
          + "time rule of docs/architecture.md §3.6, Regent's fenced ledger); they have no etcd client. "
          + "The zombie scenario above runs on etcd.");
      out.add(o);
      return out;
    }
    for (Plan.SafetyCase c : plan.safety()) {
      if (!c.targets().contains(label)) {
        continue;
      }
      boolean sw = label.equals("single-writer");
      int nodes = sw ? 1 : Integer.parseInt(label.substring(label.indexOf('-') + 1));
      RunOptions o = new RunOptions(c.workload(), nodes, c.timeLimit(), c.nemesis(), CONCURRENCY, false, sw,
          "auto", 3000, Duration.ofSeconds(5), store, jar, seed, Duration.ofSeconds(60), plan.recovery(), false, 1);
      log.say(label + " safety: jepsen " + o.testName() + " for " + c.timeLimit().toSeconds() + " s");
      String load = Load.now();
      TestRun.RunOutcome r = new TestRun(o).run();
      JsonObject e = new JsonObject();
      e.addProperty("workload", c.workload());
      e.add("nemesis", strings(c.nemesis()));
      e.addProperty("time_limit_s", c.timeLimit().toSeconds());
      e.addProperty("load_avg", load + " -> " + Load.now());
      e.addProperty("store", r.dir().toString());
      e.addProperty("command", "jepsen/run test --workload " + c.workload() + (sw ? " --target single-writer"
          : " --nodes " + nodes) + " --time-limit " + c.timeLimit().toSeconds() + " --nemesis "
          + String.join(",", c.nemesis()) + " --concurrency " + CONCURRENCY + " --seed " + seed);
      Path results = r.dir().resolve("results.json");
      if (Files.isRegularFile(results)) {
        JsonObject res = JsonParser.parseString(Files.readString(results)).getAsJsonObject();
        for (String k : KEPT) {
          if (res.has(k)) {
            e.add(k, res.get(k));
          }
        }
        JsonObject checkers = new JsonObject();
        for (var ch : res.getAsJsonObject("checkers").entrySet()) {
          JsonElement v = ch.getValue().getAsJsonObject().get("valid?");
          checkers.add(ch.getKey(), v);
        }
        e.add("checkers", checkers);
      } else {
        e.addProperty("valid?", r.verdict().toString().toLowerCase());
      }
      out.add(e);
    }
    return out;
  }

  private static JsonArray strings(List<String> l) {
    JsonArray a = new JsonArray();
    l.forEach(a::add);
    return a;
  }
}
