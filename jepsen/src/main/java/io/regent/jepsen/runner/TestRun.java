package io.regent.jepsen.runner;

import io.regent.jepsen.checker.Budget;
import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.client.ClientProcess;
import io.regent.jepsen.client.PauseGate;
import io.regent.jepsen.client.Recorder;
import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.ClusterSpec;
import io.regent.jepsen.cluster.DataDirs;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.cluster.Probe;
import io.regent.jepsen.cluster.RunLock;
import io.regent.jepsen.cluster.ServerImage;
import io.regent.jepsen.history.EdnWriter;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.MalformedHistoryException;
import io.regent.jepsen.history.Op;
import io.regent.jepsen.nemesis.ClientLinks;
import io.regent.jepsen.nemesis.NemesisScheduler;
import io.regent.jepsen.workload.Workload;
import io.regent.jepsen.workload.Workloads;
import io.regent.server.placement.Placement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * One test, start to finish: cluster up, clients and nemesis for the time limit, nemesis off and
 * everything healed, wait for recovery, final reads, cluster down, then history, checks and reports
 * into {@code <store>/<test>/<timestamp>/}. Processes and namespaces are removed in every case
 * (finally blocks, plus the shutdown hook of {@code Processes}).
 */
public final class TestRun {
  private final RunOptions o;
  private final List<String> notes = new ArrayList<>();
  private Recorder recorder;

  /** A run with these options. */
  public TestRun(RunOptions options) {
    this.o = options;
  }

  /** Runs the test; never throws for a failure of the system under test (that is in the outcome). */
  public RunOutcome run() throws IOException, InterruptedException {
    Path dir = o.storeRoot().resolve(o.testName())
        .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS")));
    Files.createDirectories(dir);
    RunResults results = new RunResults(o, dir);
    try (RunLock lock = RunLock.acquire(Duration.ofMinutes(10))) {
      execute(dir, results, lock);
    } catch (Exception e) {
      results.crash(e);
      log("run crashed: " + e);
    }
    // The events are written before they are paired: a malformed recording (a client bug) is kept to look at.
    List<Op> events = recorder == null ? List.of() : recorder.ops();
    Files.writeString(dir.resolve("history.edn"), EdnWriter.toString(events));
    History history;
    try {
      history = new History(events);
    } catch (MalformedHistoryException e) {
      results.crash(e);
      log("run crashed: the recorded " + e.getMessage());
      history = new History(List.of());
    }
    results.notes(notes);
    if (!results.crashed()) {
      log("checking " + history.operations().size() + " operations");
      results.checks(HistoryChecks.check(o.workload(), history, Budget.ofTime(o.checkBudget())));
    }
    results.history(history);
    results.write();
    Reports.write(history, o.testName(), dir);
    return new RunOutcome(results.verdict(), dir, results.summary());
  }

  private void execute(Path dir, RunResults results, RunLock lock) throws Exception {
    if (!Files.isRegularFile(o.jar())) {
      throw new IllegalStateException("no server jar at " + o.jar() + "; build it: mvn -B -q install -DskipTests");
    }
    Path data = Files.createTempDirectory("regent-jepsen-");
    try {
      Path jar = ServerImage.of(o.jar());
      List<String> serverArgs = new ArrayList<>();
      Optional<String> flag = o.negativeControl() ? Workloads.negativeControlFlag(o.workload()) : Optional.empty();
      if (flag.isPresent()) {
        ServerFlags.require(jar, flag.get());
        serverArgs.add(flag.get());
      }
      if (o.cells() > 1) {
        serverArgs.addAll(List.of("--cells", String.valueOf(o.cells())));
      }
      ClusterSpec spec = new ClusterSpec(o.singleWriter() ? 1 : o.nodes(), o.singleWriter(), o.network(), jar,
          dir, data, ClusterSpec.DEFAULT_JVM, serverArgs);
      log("starting " + spec.nodes() + " node(s) " + o.testName() + " -> " + dir);
      try (Cluster cluster = Cluster.start(spec, lock);
           Workload workload = Workloads.create(o.workload(), o.ttlMs(), o.tryCampaign(), data,
               cluster.etcdEndpoints(), o.negativeControl(), new Placement(o.cells()))) {
        cluster.loopbackReason().ifPresent(r -> notes.add("nodes share loopback: " + r));
        results.network(cluster.netns().isPresent() ? "netns" : "loopback");
        Optional<String> down = Probe.awaitHealthy(cluster, Duration.ofSeconds(120), !o.singleWriter());
        if (down.isPresent()) {
          throw new IllegalStateException("the cluster did not come up: " + down.get());
        }
        drive(cluster, workload, results);
      }
    } finally {
      DataDirs.delete(data);
    }
  }

  /** Clients and nemesis for the time limit; heal; wait for recovery; close sessions; final reads. */
  private void drive(Cluster cluster, Workload workload, RunResults results) throws Exception {
    recorder = new Recorder();
    // client-isolate cuts one client from one node: each client slot then reaches each node by a link of its own
    try (ClientLinks links = o.nemesis().contains("client-isolate") ? ClientLinks.start(o.concurrency(),
        cluster.endpoints(), cluster.nodes().stream().map(Node::id).toList()) : null) {
      drive(cluster, workload, results, links);
    }
  }

  private void drive(Cluster cluster, Workload workload, RunResults results, ClientLinks links) throws Exception {
    ClientPool pool = links == null
        ? new ClientPool(o.concurrency(), cluster.endpoints(), recorder, o.opTimeout(), o.seed(), workload::session)
        : new ClientPool(o.concurrency(), links::endpoints, recorder, o.opTimeout(), o.seed(), workload::session);
    NemesisScheduler nemesis = new NemesisScheduler(o.nemesis(), cluster, pool, links, o.ttlMs(), recorder,
        o.seed() + 1);
    notes.addAll(nemesis.notes());
    results.nemesisEnabled(nemesis.enabled());
    log("running " + o.concurrency() + " clients for " + o.timeLimit().toSeconds() + " s, nemesis "
        + nemesis.enabled());
    nemesis.prepare();
    try {
      pool.start();
      nemesis.start();
      Thread.sleep(o.timeLimit().toMillis());
    } finally {
      pool.stopSteps(o.opTimeout().plusSeconds(5));
      nemesis.stopAndHeal();
      pool.gates().forEach(PauseGate::open);
      cluster.healAll();
      if (links != null) {
        links.healAll();
      }
      recorder.nemesis("heal-all", null);
    }
    nemesis.errors().forEach(e -> notes.add("nemesis error: " + e));
    log("healed; waiting for recovery");
    Optional<String> stuck = Probe.awaitHealthy(cluster, o.recoveryTimeout(), !o.singleWriter());
    results.recovered(stuck.isEmpty());
    stuck.ifPresent(s -> notes.add("the cluster had not recovered " + o.recoveryTimeout().toSeconds()
        + " s after healing: " + s));
    try (ClientProcess q = new ClientProcess(nextProcess(), cluster.endpoints(), new PauseGate(), recorder,
        o.opTimeout(), new Random(o.seed() + 2))) {
      workload.quiet(q);
    }
    pool.closeSessions(o.opTimeout().plusSeconds(5));
    pool.crashes().forEach(e -> notes.add("client crashed: " + e));
    if (!pool.crashes().isEmpty()) {
      throw new IllegalStateException("a client crashed: " + pool.crashes().get(0));
    }
    try (ClientProcess p = new ClientProcess(nextProcess(), cluster.endpoints(), new PauseGate(), recorder,
        o.opTimeout(), new Random(o.seed()))) {
      workload.finalReads(p);
    }
  }

  /** A process number no client has used yet. */
  private long nextProcess() {
    return recorder.ops().stream().filter(op -> !op.isNemesis()).mapToLong(Op::process).max().orElse(0) + 1;
  }

  static void log(String s) {
    System.err.println("jepsen: " + s);
  }

  /**
   * The outcome of a run.
   *
   * @param verdict the combined verdict (UNKNOWN also when the run crashed)
   * @param dir the store directory of the run
   * @param summary a one-paragraph summary for the console
   */
  public record RunOutcome(Verdict verdict, Path dir, String summary) {
    /** Exit code of {@code jepsen/run test}: 0 valid, 1 invalid, 2 unknown or crashed. */
    public int exitCode() {
      return switch (verdict) {
        case VALID -> 0;
        case INVALID -> 1;
        case UNKNOWN -> 2;
      };
    }
  }
}
