package io.regent.cli.demo;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LedgerAppendResponse;
import io.regent.api.v1.StatusResponse;
import io.regent.cli.cluster.ClusterUpCommand;
import io.regent.cli.cluster.PortBlock;
import io.regent.cli.cluster.ProcessCluster;
import io.regent.cli.output.Format;
import io.regent.client.LeaderElection;
import io.regent.client.LedgerClient;
import io.regent.client.RegentClient;
import io.regent.server.placement.Placement;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The steps of {@code regent demo}, each narrated in a line or two; steps 4-7 are {@link DemoZombie}'s. */
final class DemoScript implements DemoCommand.Script {
  static final long WAIT_MS = 30_000;
  static final String SLOW = "; if it printed 'lost', its lease renewals were too slow (an overloaded machine?): "
      + "try a longer lease, e.g. `regent demo --ttl 10s`";

  private final StepPrinter n;
  private final Path dir;
  private final long ttlMs;
  private final Placement placement;
  private final DemoProcesses processes;
  private ProcessCluster cluster;
  private volatile boolean succeeded;
  private DemoProcess observer;

  DemoScript(PrintWriter out, Path dir, long ttlMs, int cells) {
    this.n = new StepPrinter(out);
    this.processes = new DemoProcesses(out);
    this.dir = dir;
    this.ttlMs = ttlMs;
    this.placement = new Placement(cells);
  }

  @Override
  public void run() throws Exception {
    DemoProcess ledgerServer;
    ClusterUpCommand.Up up;
    try (PortBlock ports = PortBlock.reserve()) { // no other process takes the ports until the nodes have bound them
      int base = ports.base();
      n.say("[1/8] Starting 3 `regent server%s` processes in %s (Raft ports %d-%d, API ports %d-%d) and a fenced "
          + "ledger.", placement.cells() == 1 ? "" : " --cells " + placement.cells(), dir, base + 1, base + 3,
          base + 101, base + 103);
      ledgerServer = start("ledger", l -> l.startsWith("ledger "), // not its log lines
          List.of("ledger", "serve", "--port", "0", "--data-dir", dir.resolve("ledger").toString()));
      up = processes.clusterUp(dir, 3, base, placement.cells());
    }
    cluster = up.cluster();
    String endpoints = cluster.endpoints();
    n.say("      Ready in %d ms: node %s is the Raft leader (term %d).", up.millis(), up.status().getLeader(),
        up.status().getTerm());
    String follower = cluster.nodes().stream().filter(x -> !x.id().equals(up.status().getLeader())).findFirst()
        .orElseThrow().apiAddress();
    n.say("[2/8] `regent observe jobs` on a follower (%s): one line per change of who holds \"jobs\".", follower);
    observer = start("observe", l -> true, List.of("observe", "jobs", "--endpoints", follower));
    observer.await(l -> l.startsWith("CURRENT"), WAIT_MS, "current holder");
    String ledger = ledgerServer.await(l -> l.startsWith("ledger serving on "), WAIT_MS, "its address").split(" ")[3];
    n.say("[3/8] The fenced ledger (`regent ledger serve`) listens on %s. It stands for any storage a leader writes "
        + "to: per key it remembers H, the highest token it has admitted, and refuses an append with a smaller one.",
        ledger);

    try (RegentClient client = RegentClient.connect(endpoints)) {
      DemoZombie.Outcome z = new DemoZombie(this, n, endpoints, ledger, ttlMs).run(client);
      n.say("[8/8] node-b resigns (SIGTERM: it stops its writer first); then kill -9 the Raft leader itself.");
      int code = z.b().terminate(10_000);
      follow("RESIGNED jobs");
      n.check(code == 0, "node-b exited with code %d after SIGTERM (0 expected)", code);
      String raftLeader = leaderOfJobs(client.cluster().status());
      ProcessCluster.Node victim = cluster.nodes().stream().filter(x -> x.id().equals(raftLeader)).findFirst()
          .orElseThrow(() -> new IllegalStateException("no Raft leader reported"));
      ProcessHandle server = cluster.process(victim)
          .orElseThrow(() -> new IllegalStateException("no running process for node " + raftLeader));
      n.say("      kill -9 %s (pid %d): the two survivors must elect a new Raft leader before anything is granted. "
          + "The demo now campaigns itself, as node-c.", raftLeader, server.pid());
      long t1 = System.nanoTime();
      server.destroyForcibly();
      LeaderElection.Leadership c = campaignUntilElected(new LeaderElection(client), t1);
      long failoverC = (System.nanoTime() - t1) / 1_000_000;
      long tokenC = c.token();
      follow("ELECTED jobs node-c");
      n.check(tokenC > z.tokenB(), "node-c's token %d > node-b's token %d", tokenC, z.tokenB());
      n.say("      node-c was elected %d ms after the kill, under the new Raft leader %s, with token %d: tokens are "
          + "log indexes, so they keep growing across Raft leaders.", failoverC,
          leaderOfJobs(client.cluster().status()), tokenC);
      retriedAppend(ledger, tokenC);
      c.close();
      ledgerServer.terminate(10_000);
      List<String> stopped = new ArrayList<>();
      ledgerServer.awaitExit(WAIT_MS, stopped::add);
      String counted = stopped.stream().filter(l -> l.startsWith("ledger stopped: ")).findFirst()
          .map(l -> l.replaceAll(".* ", "")).orElse("?");

      n.say("summary: tokens node-a=%d node-b=%d node-c=%d (strictly increasing: yes)", z.tokenA(), z.tokenB(), tokenC);
      n.say("summary: zombie writes (node-a after its pause) attempted %d, rejected %d; the ledger's "
          + "regent_fence_rejected_total is %s", z.attempted(), z.rejected(), counted);
      n.say("summary: paused holder -> next holder elected in %d ms (lease TTL %d ms, counted from its last renewal); "
          + "resumed, it stepped down and exited in %d ms", z.failoverMs(), ttlMs, z.stepDownMs());
      n.say("summary: Raft leader killed -> next grant in %d ms; cluster start took %d ms", failoverC, up.millis());
      succeeded = true;
    }
  }

  /**
   * node-c sends one append twice with the same idempotency key, as a client whose answer was lost retries: the
   * ledger stores it once and answers the retry with the first append's position.
   */
  private void retriedAppend(String ledger, long token) {
    String key = "node-c-1";
    n.say("      node-c appends \"node-c #1\" with its token and an idempotency key, then sends the same append again, "
        + "as a client does whose answer was lost (a timeout, a ledger crash after its commit):");
    n.say("      regent ledger append jobs \"node-c #1\" --token %d --idempotency-key %s --ledger %s   (twice)", token,
        key, ledger);
    ByteString entry = ByteString.copyFromUtf8("node-c #1");
    long stored;
    LedgerAppendResponse first;
    LedgerAppendResponse retry;
    try (LedgerClient c = LedgerClient.connect(ledger)) {
      first = c.append("jobs", token, entry, key);
      retry = c.append("jobs", token, entry, key);
      stored = c.read("jobs").stream().filter(e -> e.getEntry().equals(entry)).count();
    }
    n.say("    [node-c] %s", Format.appended("jobs", first.getPosition(), token, first.getReplayed(), false));
    n.say("    [node-c] %s", Format.appended("jobs", retry.getPosition(), token, retry.getReplayed(), false));
    n.check(!first.getReplayed() && retry.getReplayed() && retry.getPosition() == first.getPosition() && stored == 1,
        "the retried append (idempotency key %s) was applied once: position %d both times, %d \"node-c #1\" entry "
            + "in `regent ledger read jobs`", key, first.getPosition(), stored);
  }

  @Override
  public boolean succeeded() {
    return succeeded;
  }

  @Override
  public void stopEverything() throws Exception {
    processes.stopEverything();
  }

  /** Starts a {@code regent} child, echoing the lines of its stdout and stderr that {@code echo} accepts. */
  DemoProcess start(String label, Predicate<String> echo, List<String> args) throws Exception {
    return processes.start(label, echo, args);
  }

  /** Lets the observer's line for an event appear before the narration goes on (best effort). */
  void follow(String prefix) {
    try {
      observer.await(l -> l.startsWith(prefix), 5_000, "'" + prefix + "' event");
    } catch (Exception e) {
      n.say("      (the observer has not shown '%s' yet)", prefix);
    }
  }

  private LeaderElection.Leadership campaignUntilElected(LeaderElection election, long since)
      throws InterruptedException {
    while (true) {
      try {
        return election.campaign("jobs", ByteString.copyFromUtf8("node-c"), ttlMs, reason -> { });
      } catch (StatusRuntimeException e) {
        // grpc-java reports a call written on the connection the kill just closed as UNKNOWN "channel closed": it
        // may have been applied. Campaigning again is safe here: a lease of the first try that was granted expires
        // after its TTL, and a name it took is then passed on in the queue, to this retry if none other waits.
        Status.Code code = e.getStatus().getCode();
        if ((code != Status.Code.UNAVAILABLE && code != Status.Code.UNKNOWN)
            || System.nanoTime() - since > WAIT_MS * 1_000_000) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }

  static long number(Pattern p, String line) {
    Matcher m = p.matcher(line);
    if (!m.find()) {
      throw new IllegalStateException("no " + p.pattern() + " in " + line);
    }
    return Long.parseLong(m.group(1));
  }

  /** The Raft leader of the group that holds "jobs": the cluster's, or on several cells that of jobs' cell. */
  private String leaderOfJobs(StatusResponse status) {
    return placement.cells() == 1 ? status.getLeader() : status.getCells(placement.cellOf("jobs")).getLeader();
  }
}
