package io.regent.jepsen.compare;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.cluster.ServerImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Cost and the per-key ceiling, measured by {@code regent bench} itself (a separate process, the same
 * command as {@code scripts/perf-report.sh}): campaign (grant, campaign for the client's own name, resign,
 * revoke) closed loop at each client count, with CPU and resident memory of the servers ({@code --pid-dir});
 * the disk bytes the servers wrote ({@code /proc/PID/io} {@code write_bytes}) per campaign; and one hot name
 * ({@code handover}: every client queues for the same name) against many names (campaign, same clients).
 */
final class Cost {
  /** Clients of the ceiling points. */
  static final int CEILING_CLIENTS = 16;
  private static final long BENCH_TIMEOUT_S = 300;
  private final Deployment d;
  private final Plan plan;
  private final Path jar;
  private final Path dir;
  private final Log log;

  Cost(Deployment d, Plan plan, Path jar, Path dir, Log log) {
    this.d = d;
    this.plan = plan;
    this.jar = jar;
    this.dir = dir;
    this.log = log;
  }

  /** The campaign points, one per client count, each with {@code disk_bytes_per_campaign} and the load. */
  JsonArray campaign() throws Exception {
    JsonArray out = new JsonArray();
    for (int c : plan.clients()) {
      out.add(point("campaign", c));
    }
    return out;
  }

  /** {@code one_name} (handover) and {@code many_names} (campaign), both at {@value #CEILING_CLIENTS} clients. */
  JsonObject ceiling(JsonArray campaign) throws Exception {
    JsonObject o = new JsonObject();
    o.add("one_name", point("handover", CEILING_CLIENTS));
    for (var e : campaign) {
      if (e.getAsJsonObject().get("clients").getAsInt() == CEILING_CLIENTS) {
        o.add("many_names", e);
      }
    }
    return o;
  }

  /** One bench run; its JSON line plus disk bytes and the load average, or {@code error} when it failed. */
  JsonObject point(String workload, int clients) throws Exception {
    Path pids = dir.resolve("pids");
    Files.createDirectories(pids);
    try (var old = Files.list(pids)) {
      for (Path p : old.toList()) {
        Files.delete(p);
      }
    }
    for (Node n : d.nodes()) {
      Files.writeString(pids.resolve(n.id() + ".pid"), Long.toString(n.pid()));
    }
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m"));
    cmd.addAll(ServerImage.jvmOptions(jar));
    cmd.addAll(List.of("-jar", jar.toString(), "bench", "--target", d.kind(), "--endpoints",
        String.join(",", d.endpoints()), "--workload", workload, "--clients", Integer.toString(clients),
        "--duration", plan.benchDuration().toMillis() + "ms", "--warmup", plan.benchWarmup().toMillis() + "ms",
        "--pid-dir", pids.toString(), "--label", d.label(), "--quiet", "-w", "json"));
    log.say(d.label() + " bench " + workload + " clients=" + clients);
    String load = Load.now();
    long before = writeBytes();
    Path err = dir.resolve("bench-" + workload + "-" + clients + ".err");
    Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    boolean done = p.waitFor(BENCH_TIMEOUT_S, TimeUnit.SECONDS);
    long written = writeBytes() - before;
    JsonObject o;
    if (!done || p.exitValue() != 0 || out.isEmpty()) {
      p.destroyForcibly();
      o = new JsonObject();
      o.addProperty("workload", workload);
      o.addProperty("clients", clients);
      o.addProperty("error", "regent bench failed (exit " + (done ? p.exitValue() : "timeout") + "): "
          + lastLine(err));
    } else {
      o = JsonParser.parseString(out.lines().reduce((a, b) -> b).orElseThrow()).getAsJsonObject();
      long ops = o.get("ops").getAsLong();
      // Warm-up ops write too: charge the bytes to every op of the run, estimated from the measured rate.
      double allOps = o.get("throughput").getAsDouble() * (o.get("seconds").getAsDouble()
          + plan.benchWarmup().toMillis() / 1000.0);
      o.addProperty("disk_bytes_written", written);
      o.addProperty("disk_bytes_per_op", ops == 0 ? -1 : Math.round(written / Math.max(allOps, ops)));
    }
    o.addProperty("command", "regent " + String.join(" ", cmd.subList(4, cmd.size())));
    o.addProperty("load_avg", load + " -> " + Load.now());
    return o;
  }

  /** Sum of {@code write_bytes} (bytes this process caused to be written to storage) over the nodes. */
  private long writeBytes() {
    long sum = 0;
    for (Node n : d.nodes()) {
      try {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(n.pid()), "io"))) {
          if (line.startsWith("write_bytes:")) {
            sum += Long.parseLong(line.substring(12).trim());
          }
        }
      } catch (IOException | RuntimeException e) {
        // gone or not readable: counts nothing
      }
    }
    return sum;
  }

  private static String lastLine(Path f) {
    try {
      List<String> lines = Files.readAllLines(f);
      return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    } catch (IOException e) {
      return "";
    }
  }
}
