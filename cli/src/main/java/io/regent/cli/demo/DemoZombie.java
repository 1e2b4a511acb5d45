package io.regent.cli.demo;

import io.regent.api.v1.LeaseInfo;
import io.regent.api.v1.LedgerEntry;
import io.regent.cli.cluster.Launcher;
import io.regent.cli.output.ExitCodes;
import io.regent.client.LedgerClient;
import io.regent.client.RegentClient;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Steps 4-7 of {@code regent demo}: holder node-a, writing to the ledger, is paused beyond its TTL; node-b is
 * elected with a larger token and writes; node-a is resumed and every write it attempts is refused.
 */
final class DemoZombie {
  /** What the steps measured; {@code b} still holds "jobs" and is writing. */
  record Outcome(long tokenA, long tokenB, long failoverMs, long stepDownMs, int attempted, int rejected,
                 DemoProcess b) {
  }

  static final Pattern TOKEN = Pattern.compile("token=(\\d+)");
  private static final Pattern LEASE = Pattern.compile("lease=(\\d+)");
  /** node-a's writer, one line per write the ledger answered: result, attempt number. */
  private static final Pattern ATTEMPT = Pattern.compile("^(admitted|rejected) node-a #(\\d+) ");
  /** A writer's admitted appends after its first two: not shown, they would drown the story. */
  private static final Pattern LATER_ADMITTED = Pattern.compile("^admitted \\S+ #([3-9]|\\d\\d+) ");

  private final DemoScript script;
  private final StepPrinter n;
  private final String endpoints;
  private final String ledger;
  private final long ttlMs;
  private final String ttl;

  DemoZombie(DemoScript script, StepPrinter n, String endpoints, String ledger, long ttlMs) {
    this.script = script;
    this.n = n;
    this.endpoints = endpoints;
    this.ledger = ledger;
    this.ttlMs = ttlMs;
    this.ttl = ttlMs % 1000 == 0 ? ttlMs / 1000 + "s" : ttlMs + "ms";
  }

  Outcome run(RegentClient client) throws Exception {
    n.say("[4/8] node-a campaigns; once elected it runs a writer that appends \"node-a #1\", \"node-a #2\", ... to the "
        + "ledger every 200 ms, each tagged with node-a's fencing token (each writer's admitted appends after "
        + "its second are not shown):");
    n.say("      regent elect jobs node-a --ttl %s --exec -- regent ledger append-loop jobs --ledger %s --id node-a",
        ttl, ledger);
    DemoProcess a = holder("node-a");
    String grantA = a.await(l -> l.startsWith("elected "), DemoScript.WAIT_MS, "its grant" + DemoScript.SLOW);
    long tokenA = DemoScript.number(TOKEN, grantA);
    script.follow("ELECTED jobs node-a");
    a.await(l -> l.startsWith("admitted node-a #2 "), DemoScript.WAIT_MS, "two admitted appends");

    n.say("[5/8] node-b does the same, and waits in line behind node-a.");
    DemoProcess b = holder("node-b");
    awaitCandidate(client, DemoScript.number(LEASE, grantA));
    a.discardPending(); // freeze node-a right after its next append, while its writer sleeps
    a.await(l -> l.startsWith("admitted node-a "), DemoScript.WAIT_MS, "an admitted append");
    List<Long> pids = a.tree();
    DemoProcess.kill("STOP", pids);
    long paused = System.nanoTime();
    n.say("[6/8] kill -STOP %s: node-a's elect and its writer freeze, as in a long GC pause or a swapped-out VM. "
        + "node-a cannot renew its lease: %d ms after its last renewal the cluster expires it and elects node-b.",
        join(pids), ttlMs);
    long tokenB = DemoScript.number(TOKEN, b.await(l -> l.startsWith("elected "), DemoScript.WAIT_MS,
        "its grant" + DemoScript.SLOW));
    long failoverMs = (System.nanoTime() - paused) / 1_000_000;
    script.follow("ELECTED jobs node-b");
    n.check(tokenB > tokenA, "node-b's token %d > node-a's token %d", tokenB, tokenA);
    b.await(l -> l.startsWith("admitted node-b "), DemoScript.WAIT_MS, "an admitted append");

    n.say("[7/8] kill -CONT %s (node-a's writer), then %d (its elect). The writer wakes up sure that it still leads, "
        + "like a thread that checked its lease just before the pause, and appends with token %d. The ledger has "
        + "admitted token %d since, so it refuses.", join(pids.subList(1, pids.size())), a.pid(), tokenA, tokenB);
    a.discardPending();
    DemoProcess.kill("CONT", pids.subList(1, pids.size()));
    List<String> zombie = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      zombie.add(a.await(l -> ATTEMPT.matcher(l).find(), DemoScript.WAIT_MS, "a write after the pause"));
    }
    DemoProcess.kill("CONT", List.of(a.pid()));
    long resumed = System.nanoTime();
    int code = a.awaitExit(DemoScript.WAIT_MS, l -> {
      if (ATTEMPT.matcher(l).find()) {
        zombie.add(l);
      }
    });
    long stepDownMs = (System.nanoTime() - resumed) / 1_000_000;
    n.say("      node-a's elect, running again, found its lease gone at once: it stopped its writer and exited "
        + "%d ms after SIGCONT.", stepDownMs);
    n.check(code == ExitCodes.ERROR, "node-a's elect exited with code %d (1: leadership lost)", code);
    int[] counts = checkLedger(zombie);
    return new Outcome(tokenA, tokenB, failoverMs, stepDownMs, counts[0], counts[1], b);
  }

  /**
   * Reads the ledger and checks it; returns {attempted, rejected} for node-a's writes after node-b's first
   * entry (an append in flight when node-a froze may still have landed before it: that one is no zombie).
   */
  private int[] checkLedger(List<String> afterResume) {
    List<LedgerEntry> entries;
    try (LedgerClient c = LedgerClient.connect(ledger)) {
      entries = c.read("jobs");
    }
    List<String> texts = entries.stream().map(e -> e.getEntry().toStringUtf8()).toList();
    int firstB = texts.indexOf(texts.stream().filter(t -> t.startsWith("node-b #")).findFirst().orElse(""));
    long lastABeforeB = texts.subList(0, Math.max(firstB, 0)).stream().filter(t -> t.startsWith("node-a #"))
        .mapToLong(t -> Long.parseLong(t.substring("node-a #".length()))).max().orElse(0);
    int attempted = 0;
    int rejected = 0;
    for (String line : afterResume) {
      Matcher m = ATTEMPT.matcher(line);
      if (m.find() && Long.parseLong(m.group(2)) > lastABeforeB) {
        attempted++;
        rejected += m.group(1).equals("rejected") ? 1 : 0;
      }
    }
    n.check(attempted > 0 && rejected == attempted, "node-a's writes after node-b took over: %d attempted, %d "
        + "rejected", attempted, rejected);
    boolean ordered = firstB >= 0;
    for (int i = 1; i < entries.size(); i++) {
      ordered &= entries.get(i).getToken() >= entries.get(i - 1).getToken()
          && !(i > firstB && texts.get(i).startsWith("node-a #"));
    }
    n.check(ordered, "`regent ledger read jobs`: %d entries, tokens never decrease, no node-a entry after node-b's "
        + "first", entries.size());
    return new int[] {attempted, rejected};
  }

  /** {@code regent elect jobs ID --exec -- regent ledger append-loop jobs ...}. */
  private DemoProcess holder(String id) throws Exception {
    List<String> args = new ArrayList<>(List.of("elect", "jobs", id, "--ttl", ttl, "--endpoints", endpoints,
        "--exec", "--"));
    args.addAll(Launcher.javaCommand(Launcher.CLIENT_JVM));
    args.addAll(List.of("ledger", "append-loop", "jobs", "--ledger", ledger, "--interval", "200ms", "--id", id));
    return script.start(id, l -> !LATER_ADMITTED.matcher(l).find(), args);
  }

  /** Waits until a second lease (node-b's) is queued for "jobs" behind {@code leaseA}. */
  private static void awaitCandidate(RegentClient client, long leaseA) throws InterruptedException {
    long deadline = System.nanoTime() + DemoScript.WAIT_MS * 1_000_000;
    while (System.nanoTime() < deadline) {
      for (LeaseInfo l : client.leases().list()) {
        if (l.getId() != leaseA && l.getNamesList().contains("jobs")) {
          return;
        }
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("node-b did not queue for \"jobs\" within " + DemoScript.WAIT_MS / 1000 + " s");
  }

  private static String join(List<Long> pids) {
    return String.join(" ", pids.stream().map(String::valueOf).toList());
  }
}
