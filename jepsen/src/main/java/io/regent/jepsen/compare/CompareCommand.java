package io.regent.jepsen.compare;

import com.google.gson.JsonObject;
import io.regent.jepsen.cluster.ServerImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent compare} (through {@code bin/regent}, which hands it to {@code jepsen/run compare}). */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Regent 3 nodes, Regent 5 nodes, Regent's single-writer mode and a 3-node etcd, each started on "
        + "this machine in turn and measured with the same clients: cost (throughput, latency, CPU, RSS, disk "
        + "bytes per op at 1, 16 and 64 clients), the per-key ceiling, failover, availability under faults, the "
        + "zombie writer, and the Jepsen workloads' verdicts.",
        "Writes OUT/comparison.json (one shape for full and smoke), OUT/comparison.md, PNG plots and the logs. "
            + "Root (network namespaces) for the partition faults; Debian's etcd-server for the etcd target.",
        "Exit 0 when every target ran, 1 when one failed or was skipped."})
public final class CompareCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--smoke", description = "every target and measurement, each cut short (CI; several minutes "
      + "on 2 loaded cores); default: the full run (about 30 minutes)")
  boolean smoke;

  @Option(names = "--out", paramLabel = "DIR", description = "output directory (default: $JEPSEN_STORE/compare/<UTC time>)")
  Path out;

  @Option(names = "--targets", split = ",", paramLabel = "T[,T...]",
      description = "a subset of regent-3, regent-5, single-writer, etcd-3 (default: all)")
  List<String> targets;

  @Option(names = "--jar", paramLabel = "JAR", description = "the server jar (default: $REGENT_JAR or cli/target/regent.jar)")
  Path jar;

  @Option(names = "--seed", defaultValue = "7", description = "seed of the Jepsen runs (default: ${DEFAULT-VALUE})")
  long seed;

  @Override
  public Integer call() throws Exception {
    List<String> chosen = targets == null ? Compare.TARGETS : targets;
    for (String t : chosen) {
      if (!Compare.TARGETS.contains(t)) {
        throw new ParameterException(spec.commandLine(), "--targets: unknown target '" + t + "' (one of "
            + Compare.TARGETS + ")");
      }
    }
    Path serverJar = jar != null ? jar : Path.of(System.getenv().getOrDefault("REGENT_JAR", "cli/target/regent.jar"));
    if (!Files.isRegularFile(serverJar)) {
      throw new ParameterException(spec.commandLine(), "no server jar at " + serverJar + " (build: mvn -B -q install -DskipTests)");
    }
    Path dir = out != null ? out : Path.of(System.getenv().getOrDefault("JEPSEN_STORE", "jepsen/store"), "compare",
        LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss")));
    Files.createDirectories(dir);
    List<String> args = new ArrayList<>(spec.commandLine().getParseResult().originalArgs());
    if (!args.isEmpty() && args.get(0).equals("compare")) {
      args.remove(0); // parsed as jepsen/run's subcommand
    }
    // Every process runs from the jar's image, a private copy: a concurrent build may rewrite the jar under a run.
    Path image = ServerImage.of(serverJar);
    JsonObject result = new Compare(smoke ? Plan.smoke() : Plan.full(), dir.toAbsolutePath(), image, seed)
        .run(chosen, ("regent compare " + String.join(" ", args)).trim());
    spec.commandLine().getOut().println("wrote " + dir.resolve("comparison.json") + ", comparison.md and plots");
    boolean allOk = true;
    for (var t : result.getAsJsonArray("targets")) {
      allOk &= "ok".equals(t.getAsJsonObject().get("status").getAsString());
    }
    return allOk ? 0 : 1;
  }
}
