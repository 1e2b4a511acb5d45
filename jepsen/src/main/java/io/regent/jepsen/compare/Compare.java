package io.regent.jepsen.compare;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.regent.jepsen.cluster.RunLock;
import io.regent.jepsen.cluster.Shell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * One comparison run: each target started in turn (never two at once, so they do not compete for the
 * machine), measured, stopped; then the Jepsen runs; then {@code comparison.json}, {@code comparison.md}
 * and the plots in the output directory. A measurement that fails is recorded as {@code error} in its place
 * and the run goes on; a target that cannot start (etcd not installed, say) is {@code skipped} or {@code
 * failed} with the reason. The JSON has the same shape in smoke and full mode.
 */
final class Compare {
  /** Every target, in the order they run. */
  static final List<String> TARGETS = List.of("regent-3", "regent-5", "single-writer", "etcd-3");
  private static final Duration START = Duration.ofSeconds(120);

  /** Starts a target's nodes in the network slot {@code lock} holds, with data and logs under {@code dir}. */
  interface Starter {
    Deployment start(String label, Path dir, RunLock lock) throws IOException;
  }

  private final Plan plan;
  private final Path out;
  private final Path jar;
  private final long seed;
  private final Log log;
  private final Starter starter;

  Compare(Plan plan, Path out, Path jar, long seed) {
    this(plan, out, jar, seed, (label, dir, lock) -> switch (label) {
      case "regent-3" -> RegentDeployment.start(label, 3, false, jar, dir, lock);
      case "regent-5" -> RegentDeployment.start(label, 5, false, jar, dir, lock);
      case "single-writer" -> RegentDeployment.start(label, 1, true, jar, dir, lock);
      default -> EtcdDeployment.start(dir, lock);
    });
  }

  /** With {@code starter} in place of the real targets (CompareSlotTest). */
  Compare(Plan plan, Path out, Path jar, long seed, Starter starter) {
    this.plan = plan;
    this.out = out;
    this.jar = jar;
    this.seed = seed;
    this.log = new Log(out.resolve("compare.log"));
    this.starter = starter;
  }

  /** Runs everything and writes the results; returns the JSON written. */
  JsonObject run(List<String> targets, String command) throws Exception {
    JsonObject root = new JsonObject();
    JsonObject run = header(command);
    root.add("run", run);
    long t0 = System.nanoTime();
    JsonArray results = new JsonArray();
    root.add("targets", results);
    for (String label : targets) {
      results.add(target(label));
      write(root);
    }
    for (var e : results) {
      JsonObject t = e.getAsJsonObject();
      t.add("safety", measure(t.get("label").getAsString() + " safety",
          () -> Safety.run(t.get("label").getAsString(), plan, jar, out.resolve("jepsen"), seed, log)));
      write(root);
    }
    run.addProperty("load_avg_end", Load.now());
    run.addProperty("seconds", (System.nanoTime() - t0) / 1_000_000_000);
    write(root);
    Files.writeString(out.resolve("comparison.md"), Report.markdown(root));
    Report.plots(root, out);
    log.say("done: " + out.resolve("comparison.json"));
    return root;
  }

  /** (Re)writes comparison.json: after every step, so that a run cut short keeps what it measured. */
  private void write(JsonObject root) throws java.io.IOException {
    Files.writeString(out.resolve("comparison.json"), new GsonBuilder().setPrettyPrinting().create().toJson(root));
  }

  private JsonObject header(String command) {
    JsonObject run = new JsonObject();
    run.addProperty("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    run.addProperty("mode", plan.mode());
    run.addProperty("command", command);
    run.addProperty("host", Shell.run("hostname").output());
    run.addProperty("kernel", Shell.run("uname", "-r").output());
    run.addProperty("cores", Runtime.getRuntime().availableProcessors());
    run.addProperty("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    run.addProperty("etcd", EtcdDeployment.version().orElse("not installed"));
    Shell.Outcome git = Shell.run("git", "describe", "--always", "--dirty");
    run.addProperty("git", git.ok() ? git.output() : "unknown");
    run.addProperty("seed", seed);
    run.addProperty("load_avg_start", Load.now());
    return run;
  }

  /** Starts, measures and stops one target; its JSON, with {@code status} ok, failed or skipped. */
  JsonObject target(String label) {
    JsonObject t = new JsonObject();
    t.addProperty("label", label);
    t.addProperty("kind", label.startsWith("etcd") ? "etcd" : "regent");
    t.addProperty("nodes", label.equals("single-writer") ? 1 : Integer.parseInt(label.substring(label.indexOf('-') + 1)));
    if (label.startsWith("etcd") && EtcdDeployment.version().isEmpty()) {
      t.addProperty("status", "skipped");
      t.addProperty("reason", "etcd is not installed (Debian: apt-get install etcd-server)");
      log.say(label + " skipped: etcd is not installed");
      return t;
    }
    try (RunLock lock = RunLock.acquire(Duration.ofMinutes(10))) {
      measureInSlot(label, t, lock);
    } catch (Exception e) {
      t.addProperty("status", "failed");
      t.addProperty("reason", String.valueOf(e));
      log.say(label + " failed: " + e);
    }
    return t;
  }

  /**
   * Starts, measures and stops {@code label} while {@code lock} holds its slot: the deployment, network namespaces
   * included, is gone before the slot is free, else another run could take the slot and find them (as left behind)
   * or create its own under the same names.
   */
  private void measureInSlot(String label, JsonObject t, RunLock lock) throws Exception {
    Deployment d = null;
    try {
      Path dir = out.resolve(label);
      Files.createDirectories(dir);
      log.say(label + ": starting");
      long s = System.nanoTime();
      d = starter.start(label, dir, lock);
      Optional<String> down = Health.await(d, START);
      if (down.isPresent()) {
        throw new IllegalStateException("not serving " + START.toSeconds() + " s after start: " + down.get());
      }
      t.addProperty("start_ms", (System.nanoTime() - s) / 1_000_000);
      t.addProperty("network", d.netns().isPresent() ? "netns" : "loopback");
      Deployment dep = d;
      Cost cost = new Cost(dep, plan, jar, dir, log);
      JsonObject c = new JsonObject();
      JsonElement campaign = measure(label + " cost", cost::campaign);
      c.add("campaign", campaign);
      t.add("cost", c);
      t.add("ceiling", measure(label + " ceiling",
          () -> cost.ceiling(campaign.isJsonArray() ? campaign.getAsJsonArray() : new JsonArray())));
      t.add("zombie", measure(label + " zombie", () -> Zombie.run(dep, plan.recovery())));
      Availability av = new Availability(dep, plan, log);
      t.add("failover", measure(label + " failover", av::failover));
      t.add("availability", measure(label + " availability", av::scenarios));
      t.addProperty("status", "ok");
    } finally {
      if (d != null) {
        d.close();
      }
    }
  }

  /** A measurement that may fail. */
  interface Measure<T> {
    T get() throws Exception;
  }

  /** The measurement's result, or an object with {@code error} when it threw. */
  private JsonElement measure(String what, Measure<? extends JsonElement> m) {
    try {
      return m.get();
    } catch (Exception e) {
      log.say(what + " failed: " + e);
      JsonObject err = new JsonObject();
      err.addProperty("error", String.valueOf(e));
      return err;
    }
  }
}
