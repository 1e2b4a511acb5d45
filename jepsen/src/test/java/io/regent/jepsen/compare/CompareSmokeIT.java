package io.regent.jepsen.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.regent.jepsen.cluster.Netns;
import io.regent.jepsen.cluster.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code regent compare --smoke}, start to finish: every target runs, every measurement is in the JSON in the
 * shape the full run writes, the fence rejects every zombie write, no Jepsen verdict is invalid, the tables
 * and plots are written, and nothing is left running. On a machine with etcd (CI installs etcd-server) the
 * etcd target must run; without it, the JSON must say it was skipped and why.
 *
 * <p>It is also {@code mvn verify}'s real-cluster smoke run: Regent 3 nodes' Jepsen run (election, 30 s, kill
 * -9, SIGSTOP and client-isolate, seed 42) must come out valid and leave every output file in its store. That
 * run was once a test of its own (SmokeRunIT), a second 3-node election run beside this one's; one run now
 * asserts both.
 */
@Tag("cluster")
class CompareSmokeIT {
  private static final List<String> SCENARIOS =
      List.of("a-kill-one-node", "b-isolate-leader", "c-kill-writer", "c-pause-writer", "d-partition-minority");
  /** The files every Jepsen run writes to its store directory (a 3-node run: one log per node). */
  private static final List<String> RUN_OUTPUTS = List.of("history.edn", "results.edn", "results.json",
      "timeline.html", "latency.png", "rate.png", "n1.log", "n2.log", "n3.log");

  @Test
  @Timeout(value = 40, unit = TimeUnit.MINUTES)
  void smokeRunWritesEveryMeasureOfEveryTarget() throws Exception {
    Path jar = Path.of(System.getProperty("regent.jar", "../cli/target/regent.jar")).toAbsolutePath().normalize();
    assumeTrue(Files.isRegularFile(jar), "no server jar at " + jar + ": build the cli module first");
    Path out = Path.of("target", "compare-smoke").toAbsolutePath();
    int exit = new CommandLine(new CompareCommand()).execute("--smoke", "--out", out.toString(), "--jar", jar.toString(),
        "--seed", "42");

    JsonObject root = JsonParser.parseString(Files.readString(out.resolve("comparison.json"))).getAsJsonObject();
    JsonObject run = root.getAsJsonObject("run");
    assertThat(run.keySet()).contains("date", "mode", "command", "host", "cores", "java", "etcd", "git",
        "load_avg_start", "load_avg_end", "seconds");
    assertThat(run.get("mode").getAsString()).isEqualTo("smoke");
    List<String> labels = new ArrayList<>();
    root.getAsJsonArray("targets").forEach(t -> labels.add(t.getAsJsonObject().get("label").getAsString()));
    assertThat(labels).containsExactlyElementsOf(Compare.TARGETS);
    boolean etcd = EtcdDeployment.version().isPresent();
    boolean netns = Netns.unavailableReason().isEmpty();
    for (JsonElement e : root.getAsJsonArray("targets")) {
      JsonObject t = e.getAsJsonObject();
      String label = t.get("label").getAsString();
      if (label.equals("etcd-3") && !etcd) {
        assertThat(t.get("status").getAsString()).isEqualTo("skipped");
        assertThat(t.get("reason").getAsString()).contains("etcd");
        continue;
      }
      assertThat(t.get("status").getAsString()).as(label + ": " + t.get("reason")).isEqualTo("ok");
      checkTarget(label, t, netns);
    }
    assertThat(exit).isEqualTo(etcd ? 0 : 1);
    assertThat(Files.readString(out.resolve("comparison.md"))).contains("| regent-3 |", "| single-writer |");
    for (String png : List.of("throughput.png", "latency-p99.png", "availability.png", "failover.png")) {
      assertThat(out.resolve(png)).isRegularFile();
    }
    assertThat(Netns.leftBehind()).as("namespaces left behind").isEmpty();
    assertThat(Processes.started().stream().filter(ProcessHandle::isAlive).toList())
        .as("server processes left behind").isEmpty();
  }

  private static void checkTarget(String label, JsonObject t, boolean netns) {
    List<Integer> clients = new ArrayList<>();
    for (JsonElement p : t.getAsJsonObject("cost").getAsJsonArray("campaign")) {
      JsonObject point = p.getAsJsonObject();
      assertThat(point.keySet()).as(label + " cost " + point).contains("throughput", "p50_ms", "p99_ms",
          "server_cpu_cores", "server_rss_mib", "disk_bytes_per_op", "load_avg");
      clients.add(point.get("clients").getAsInt());
    }
    assertThat(clients).as(label).containsExactly(1, 16, 64);
    JsonObject ceiling = t.getAsJsonObject("ceiling");
    assertThat(ceiling.getAsJsonObject("one_name").keySet()).as(label + " ceiling").contains("throughput");
    assertThat(ceiling.getAsJsonObject("many_names").keySet()).contains("throughput");

    JsonObject z = t.getAsJsonObject("zombie");
    assertThat(z.has("error")).as(label + " zombie " + z).isFalse();
    assertThat(z.get("token_b").getAsLong()).as(label + ": B's token").isGreaterThan(z.get("token_a").getAsLong());
    assertThat(z.get("zombie_rejected").getAsInt()).as(label + ": zombie writes rejected")
        .isEqualTo(z.get("zombie_writes").getAsInt());

    JsonObject f = t.getAsJsonObject("failover");
    assertThat(f.keySet()).as(label + " failover " + f).contains("fault", "kill_to_next_grant_ms", "recovered", "load_avg");

    List<String> scenarios = new ArrayList<>();
    for (JsonElement s : t.getAsJsonArray("availability")) {
      JsonObject a = s.getAsJsonObject();
      String name = a.get("scenario").getAsString();
      scenarios.add(name);
      boolean partition = name.startsWith("b-") || name.startsWith("d-");
      boolean applicable = !(partition && (label.equals("single-writer") || !netns));
      assertThat(a.get("applicable").getAsBoolean()).as(label + " " + name).isEqualTo(applicable);
      if (applicable) {
        assertThat(a.keySet()).as(label + " " + name + " " + a).contains("fault", "window_ms", "load_avg", "recovered",
            "first_grant_after_heal_ms");
        assertThat(a.getAsJsonObject("during_fault").keySet()).contains("campaign_fraction", "leader_fraction",
            "longest_gap_ms");
      } else {
        assertThat(a.get("reason").getAsString()).isNotBlank();
      }
    }
    assertThat(scenarios).as(label).containsExactlyElementsOf(SCENARIOS);

    assertThat(t.getAsJsonArray("safety")).as(label + " safety").isNotEmpty();
    for (JsonElement s : t.getAsJsonArray("safety")) {
      String verdict = s.getAsJsonObject().get("valid?").getAsString();
      if (label.equals("etcd-3")) {
        assertThat(verdict).isEqualTo("not-run");
      } else if (label.equals("regent-3")) {
        smokeRunIsValid(s.getAsJsonObject());
      } else {
        assertThat(verdict).as(label + " jepsen " + s).isIn("true", "unknown");
      }
    }
  }

  /** The smoke run: election under kill, pause and client-isolate, valid, with every output file written. */
  private static void smokeRunIsValid(JsonObject s) {
    assertThat(s.get("workload").getAsString()).isEqualTo("election");
    List<String> nemesis = new ArrayList<>();
    s.getAsJsonArray("nemesis").forEach(n -> nemesis.add(n.getAsString()));
    assertThat(nemesis).containsExactly("kill", "pause", "client-isolate");
    assertThat(s.get("valid?").getAsString()).as("regent-3 jepsen " + s).isEqualTo("true");
    Path store = Path.of(s.get("store").getAsString());
    for (String f : RUN_OUTPUTS) {
      assertThat(store.resolve(f)).as(f).isRegularFile();
    }
  }
}
