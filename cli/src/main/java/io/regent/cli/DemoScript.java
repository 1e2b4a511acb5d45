package io.regent.cli;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaseInfo;
import io.regent.client.LeaderElection;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The steps of {@code regent demo}, each narrated in a line or two. */
final class DemoScript {
  static final long WAIT_MS = 30_000;
  private static final Pattern TOKEN = Pattern.compile("\"token\":(\\d+)");
  private static final Pattern LEASE = Pattern.compile("\"lease\":(\\d+)");

  private static final String SLOW = "; if it printed 'lost', its lease renewals were too slow (an overloaded "
      + "machine?): try `regent demo --ttl 5s`";

  private final PrintWriter out;
  private final Path dir;
  private final long ttlMs;
  private final String ttl;
  private final List<DemoProcess> children = new ArrayList<>();
  private volatile LocalCluster cluster;
  private volatile boolean succeeded;
  private DemoProcess observer;

  DemoScript(PrintWriter out, Path dir, long ttlMs) {
    this.out = out;
    this.dir = dir;
    this.ttlMs = ttlMs;
    this.ttl = ttlMs % 1000 == 0 ? ttlMs / 1000 + "s" : ttlMs + "ms";
  }

  void run() throws Exception {
    int base = DemoCommand.freeBasePort();
    say("[1/6] Starting 3 `regent server` processes in %s (Raft ports %d-%d, API ports %d-%d).",
        dir, base + 1, base + 3, base + 101, base + 103);
    ClusterUpCommand.Up up = ClusterUpCommand.up(dir, 3, base, new PrintWriter(PrintWriter.nullWriter()));
    cluster = up.cluster();
    String endpoints = cluster.endpoints();
    say("      Ready in %d ms: node %s is the Raft leader (term %d).", up.millis(), up.status().getLeader(),
        up.status().getTerm());
    String follower = cluster.nodes().stream().filter(n -> !n.id().equals(up.status().getLeader())).findFirst()
        .orElseThrow().apiAddress();
    say("[2/6] `regent observe jobs` on a follower (%s): one line per change of who holds \"jobs\".", follower);
    observer = start("observe", "observe", "jobs", "--endpoints", follower);
    observer.await(l -> l.startsWith("CURRENT"), WAIT_MS, "current holder");

    say("[3/6] node-a campaigns: `regent elect jobs node-a --ttl %s -w json`.", ttl);
    DemoProcess a = start("node-a", "elect", "jobs", "node-a", "--ttl", ttl, "-w", "json", "--endpoints", endpoints);
    String grantA = a.await(l -> l.contains("\"token\""), WAIT_MS, "its grant");
    long tokenA = number(TOKEN, grantA);
    follow("ELECTED jobs node-a");
    say("      node-a holds \"jobs\" with fencing token %d: the Raft log index of the entry that elected it.", tokenA);

    say("[4/6] node-b campaigns too, and waits in line: `regent elect jobs node-b --ttl %s -w json`.", ttl);
    DemoProcess b = start("node-b", "elect", "jobs", "node-b", "--ttl", ttl, "-w", "json", "--endpoints", endpoints);
    try (RegentClient client = RegentClient.connect(endpoints)) {
      awaitCandidate(client, number(LEASE, grantA));
      say("[5/6] kill -9 node-a (pid %d). A dead holder cannot resign: \"jobs\" stays taken until its lease "
          + "expires, %d ms after its last renewal.", a.pid(), ttlMs);
      if (!a.isAlive()) {
        throw new IllegalStateException("node-a gave up its leadership before the demo killed it" + SLOW);
      }
      long t0 = System.nanoTime();
      a.kill();
      long tokenB = number(TOKEN, b.await(l -> l.contains("\"token\""), WAIT_MS, "its grant" + SLOW));
      long failoverB = (System.nanoTime() - t0) / 1_000_000;
      follow("ELECTED jobs node-b");
      check(tokenB > tokenA, "node-b's token %d > node-a's token %d", tokenB, tokenA);
      say("      node-b took over %d ms after the kill. Had node-a merely paused (GC, swap, a partition) it would "
          + "wake up as a zombie leader with token %d; a resource that keeps the highest token it has seen (%d) "
          + "rejects its writes. That is fencing.", failoverB, tokenA, tokenB);

      say("[6/6] node-b resigns (SIGTERM); then kill -9 the Raft leader itself.");
      int code = b.terminate(10_000);
      follow("RESIGNED jobs");
      check(code == 0, "node-b exited with code %d after SIGTERM (0 expected)", code);
      String raftLeader = client.status().getLeader();
      LocalCluster.Node victim = cluster.nodes().stream().filter(n -> n.id().equals(raftLeader)).findFirst()
          .orElseThrow(() -> new IllegalStateException("no Raft leader reported"));
      ProcessHandle server = cluster.process(victim)
          .orElseThrow(() -> new IllegalStateException("no running process for node " + raftLeader));
      say("      kill -9 %s (pid %d): the two survivors must elect a new Raft leader before anything is granted. "
          + "The demo now campaigns itself, as node-c.", raftLeader, server.pid());
      long t1 = System.nanoTime();
      server.destroyForcibly();
      LeaderElection.Leadership c = campaignUntilElected(new LeaderElection(client), t1);
      long failoverC = (System.nanoTime() - t1) / 1_000_000;
      long tokenC = c.token();
      follow("ELECTED jobs node-c");
      check(tokenC > tokenB, "node-c's token %d > node-b's token %d", tokenC, tokenB);
      say("      node-c was elected %d ms after the kill, under the new Raft leader %s, with token %d: tokens are "
          + "log indexes, so they keep growing across Raft leaders.", failoverC, client.status().getLeader(), tokenC);
      c.close();

      say("summary: tokens node-a=%d node-b=%d node-c=%d (strictly increasing: yes)", tokenA, tokenB, tokenC);
      say("summary: holder killed -> next holder elected in %d ms (lease TTL %d ms, counted from its last renewal)",
          failoverB, ttlMs);
      say("summary: Raft leader killed -> next grant in %d ms; cluster start took %d ms", failoverC, up.millis());
      succeeded = true;
    }
  }

  boolean succeeded() {
    return succeeded;
  }

  /** Stops the children (SIGTERM, then SIGKILL) and the cluster's servers. */
  void stopEverything() throws Exception {
    children.forEach(DemoProcess::close);
    if (cluster != null) {
      cluster.stop(ClusterDownCommand.GRACE_MS, new PrintWriter(PrintWriter.nullWriter()));
    }
  }

  private DemoProcess start(String label, String... args) throws Exception {
    DemoProcess p = DemoProcess.start(label, out, args);
    children.add(p);
    return p;
  }

  /** Lets the observer's line for an event appear before the narration goes on (best effort). */
  private void follow(String prefix) {
    try {
      observer.await(l -> l.startsWith(prefix), 5_000, "'" + prefix + "' event");
    } catch (Exception e) {
      say("      (the observer has not shown '%s' yet)", prefix);
    }
  }

  /** Waits until a second lease (node-b's) is queued for "jobs" behind {@code leaseA}. */
  private static void awaitCandidate(RegentClient client, long leaseA) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT_MS * 1_000_000;
    while (System.nanoTime() < deadline) {
      for (LeaseInfo l : client.leases()) {
        if (l.getId() != leaseA && l.getNamesList().contains("jobs")) {
          return;
        }
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("node-b did not queue for \"jobs\" within " + WAIT_MS / 1000 + " s");
  }

  private LeaderElection.Leadership campaignUntilElected(LeaderElection election, long since)
      throws InterruptedException {
    while (true) {
      try {
        return election.campaign("jobs", ByteString.copyFromUtf8("node-c"), ttlMs, reason -> { });
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || System.nanoTime() - since > WAIT_MS * 1_000_000) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }

  private void check(boolean condition, String format, Object... args) {
    String what = String.format(format, args);
    say("      check: %s: %s", what, condition ? "ok" : "FAILED");
    if (!condition) {
      throw new IllegalStateException("check failed: " + what);
    }
  }

  private void say(String format, Object... args) {
    synchronized (out) {
      out.println(String.format(format, args));
      out.flush();
    }
  }

  private static long number(Pattern p, String json) {
    Matcher m = p.matcher(json);
    if (!m.find()) {
      throw new IllegalStateException("no " + p.pattern() + " in " + json);
    }
    return Long.parseLong(m.group(1));
  }
}
