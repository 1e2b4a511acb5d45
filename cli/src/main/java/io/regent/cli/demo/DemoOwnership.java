package io.regent.cli.demo;

import io.regent.api.v1.GroupStatusResponse;
import io.regent.api.v1.LedgerEntry;
import io.regent.api.v1.PartitionOwner;
import io.regent.cli.cluster.ClusterUpCommand;
import io.regent.cli.cluster.Launcher;
import io.regent.cli.cluster.PortBlock;
import io.regent.cli.output.ExitCodes;
import io.regent.client.GroupClient;
import io.regent.client.LedgerClient;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The steps of {@code regent demo ownership}: 16 partitions over 3 workers, each writing to the fenced ledger
 * key of every partition it owns with that partition's token; one worker is paused beyond its TTL, its
 * partitions move with higher tokens, and its writes after the pause are refused (docs/ownership.md).
 */
final class DemoOwnership implements DemoCommand.Script {
  private static final String GROUP = "orders";
  private static final int PARTITIONS = 16;
  private static final List<String> WORKERS = List.of("w1", "w2", "w3");
  /** A write the ledger answered, as a writer reports it: result, partition, writer, round. */
  private static final Pattern ATTEMPT = Pattern.compile("^(admitted|rejected) " + GROUP + "/(\\d+) (\\S+) #(\\d+) ");
  /** A ledger entry's text: writer, round. */
  private static final Pattern ENTRY = Pattern.compile("^(\\S+) #(\\d+)$");

  private final StepPrinter n;
  private final Path dir;
  private final long ttlMs;
  private final String ttl;
  private final DemoProcesses processes;
  private volatile boolean succeeded;

  DemoOwnership(PrintWriter out, Path dir, long ttlMs) {
    this.n = new StepPrinter(out);
    this.dir = dir;
    this.ttlMs = ttlMs;
    this.ttl = ttlMs % 1000 == 0 ? ttlMs / 1000 + "s" : ttlMs + "ms";
    this.processes = new DemoProcesses(out);
  }

  @Override
  public void run() throws Exception {
    DemoProcess ledgerServer;
    ClusterUpCommand.Up up;
    try (PortBlock ports = PortBlock.reserve()) { // no other process takes the ports until the nodes have bound them
      int base = ports.base();
      n.say("[1/6] Starting 3 `regent server` processes in %s (API ports %d-%d) and a fenced ledger.", dir,
          base + 101, base + 103);
      ledgerServer = processes.start("ledger", l -> l.startsWith("ledger "),
          List.of("ledger", "serve", "--port", "0", "--data-dir", dir.resolve("ledger").toString()));
      up = processes.clusterUp(dir, 3, base);
    }
    String endpoints = up.cluster().endpoints();
    String ledger = ledgerServer.await(l -> l.startsWith("ledger serving on "), DemoScript.WAIT_MS, "its address")
        .split(" ")[3];
    n.say("      Ready in %d ms; the ledger listens on %s. Per key it remembers the highest token it admitted and "
        + "refuses an append with a smaller one; here a key is a partition, orders/0 .. orders/15.", up.millis(), ledger);

    n.say("[2/6] 3 workers join group \"%s\" of %d partitions, each running a writer that appends \"wN #round\" to "
        + "orders/P of every partition P it owns, with P's token, every 300 ms:", GROUP, PARTITIONS);
    n.say("      regent group join %s wN --partitions %d --ttl %s --reload-signal none --exec -- "
        + "regent ledger partition-loop %s "
        + "--ledger %s --id wN", GROUP, PARTITIONS, ttl, GROUP, ledger);
    Map<String, DemoProcess> workers = new HashMap<>();
    for (String w : WORKERS) {
      workers.put(w, worker(w, endpoints, ledger));
    }
    try (RegentClient client = RegentClient.connect(endpoints); LedgerClient fence = LedgerClient.connect(ledger)) {
      GroupClient groups = new GroupClient(client);
      GroupStatusResponse before = awaitStable(groups, WORKERS.size());
      awaitWritten(fence, before);
      describe(before);
      String victim = mostPartitions(before);
      Map<Integer, Long> oldTokens = tokensOf(before, victim);
      n.check(!oldTokens.isEmpty() && (int) before.getOwnersList().stream().map(PartitionOwner::getOwner).distinct()
          .count() == WORKERS.size(), "every partition has one owner, the 3 workers share them");

      DemoProcess v = workers.get(victim);
      List<Long> pids = v.tree();
      n.say("[3/6] kill -STOP %s: %s (its `group join` and its writer) freezes, as in a long GC pause. It cannot "
          + "renew its lease: %d ms after its last renewal the leader expires it, and %s's partitions %s go to the "
          + "others, in that one Expire entry, with its index as their new token.", join(pids), victim, ttlMs, victim,
          oldTokens.keySet());
      DemoProcess.kill("STOP", pids);
      long paused = System.nanoTime();
      GroupStatusResponse after = awaitStable(groups, WORKERS.size() - 1);
      awaitWritten(fence, after);
      long failoverMs = (System.nanoTime() - paused) / 1_000_000;
      n.say("[4/6] %d ms after the pause the 2 others own every partition and have written to each:", failoverMs);
      describe(after);
      boolean higher = true;
      for (Map.Entry<Integer, Long> p : oldTokens.entrySet()) {
        PartitionOwner now = after.getOwners(p.getKey());
        n.say("      partition %2d: %s token %d -> %s token %d", p.getKey(), victim, p.getValue(), now.getOwner(),
            now.getToken());
        higher &= now.getToken() > p.getValue() && !now.getOwner().equals(victim);
      }
      n.check(higher, "every partition of %s moved to another worker with a higher token", victim);

      n.say("[5/6] kill -CONT %s (the writer): it wakes up with its old partitions file, sure it still owns %s, and "
          + "appends with the old tokens. The ledger has admitted the new owners' higher tokens on those keys since, "
          + "so it refuses.", join(pids.subList(1, pids.size())), oldTokens.keySet());
      v.discardPending();
      DemoProcess.kill("CONT", pids.subList(1, pids.size()));
      List<String> late = new ArrayList<>();
      while (late.stream().map(l -> partition(l)).distinct().count() < oldTokens.size()) {
        late.add(v.await(l -> ATTEMPT.matcher(l).find(), DemoScript.WAIT_MS, "a write after the pause"));
      }
      DemoProcess.kill("CONT", List.of(v.pid()));
      long resumed = System.nanoTime();
      int code = v.awaitExit(DemoScript.WAIT_MS, l -> {
        if (ATTEMPT.matcher(l).find()) {
          late.add(l);
        }
      });
      n.say("      kill -CONT %d (its `group join`): it finds its lease gone, revokes every partition, stops its "
          + "writer and exits %d ms later.", v.pid(), (System.nanoTime() - resumed) / 1_000_000);
      n.check(code == ExitCodes.ERROR, "%s's `group join` exited with code %d (1: lease lost)", victim, code);
      int[] counts = checkLedger(fence, victim, oldTokens, late);

      n.say("[6/6] The other workers leave (SIGTERM); the ledger stops.");
      for (String w : WORKERS) {
        if (!w.equals(victim)) {
          int c = workers.get(w).terminate(10_000);
          n.check(c == 0, "%s exited with code %d after SIGTERM (0 expected)", w, c);
        }
      }
      ledgerServer.terminate(10_000);
      List<String> stopped = new ArrayList<>();
      ledgerServer.awaitExit(DemoScript.WAIT_MS, stopped::add);
      String counted = stopped.stream().filter(l -> l.startsWith("ledger stopped: ")).findFirst()
          .map(l -> l.replaceAll(".* ", "")).orElse("?");
      n.say("summary: %s paused -> its %d partitions owned and written by the others in %d ms (lease TTL %d ms)",
          victim, oldTokens.size(), failoverMs, ttlMs);
      n.say("summary: late writes (%s after the pause) attempted %d, refused %d; the ledger's "
          + "regent_fence_rejected_total is %s", victim, counts[0], counts[1], counted);
      succeeded = true;
    }
  }

  @Override
  public boolean succeeded() {
    return succeeded;
  }

  @Override
  public void stopEverything() throws Exception {
    processes.stopEverything();
  }

  /**
   * {@code regent group join orders ID --exec -- regent ledger partition-loop orders ...}; echoes its refusals,
   * its loss and errors (not its admitted writes and assignment lines: the narration sums them up).
   */
  private DemoProcess worker(String id, String endpoints, String ledger) throws Exception {
    List<String> args = new ArrayList<>(List.of("group", "join", GROUP, id, "--partitions", String.valueOf(PARTITIONS),
        // no signal and no restart on a change: the writer reads its file every round anyway, and a JVM
        // restarted on every move would be slow on a small machine
        "--ttl", ttl, "--endpoints", endpoints, "--reload-signal", "none", "--exec", "--"));
    args.addAll(Launcher.javaCommand(Launcher.CLIENT_JVM));
    args.addAll(List.of("ledger", "partition-loop", GROUP, "--ledger", ledger, "--interval", "300ms", "--id", id));
    return processes.start(id, l -> !l.startsWith("admitted ") && !l.startsWith("failed ") && !l.startsWith("assigned ")
        && !l.startsWith("revoked ") && !l.contains(" INFO "), args);
  }

  /**
   * Waits until {@code members} members own every partition, with no move pending (twice the demo's usual
   * wait: at first six JVMs start at once, and each change of a worker's file is one SIGHUP by `kill`).
   */
  private static GroupStatusResponse awaitStable(GroupClient groups, int members) throws InterruptedException {
    long deadline = System.nanoTime() + 2 * DemoScript.WAIT_MS * 1_000_000;
    while (System.nanoTime() < deadline) {
      try {
        GroupStatusResponse s = groups.status(GROUP, false);
        if (s.getMembersCount() == members
            && s.getOwnersList().stream().allMatch(o -> !o.getOwner().isEmpty() && o.getNext().isEmpty())) {
          return s;
        }
      } catch (io.grpc.StatusRuntimeException e) {
        // the group does not exist until the first worker has joined
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("no stable assignment over " + members + " workers within "
        + 2 * DemoScript.WAIT_MS / 1000 + " s" + DemoScript.SLOW);
  }

  /** Waits until every partition's ledger key holds an entry written with its owner's current token. */
  private static void awaitWritten(LedgerClient fence, GroupStatusResponse s) throws InterruptedException {
    long deadline = System.nanoTime() + DemoScript.WAIT_MS * 1_000_000;
    for (PartitionOwner o : s.getOwnersList()) {
      while (fence.read(GROUP + "/" + o.getPartition()).stream().noneMatch(e -> e.getToken() == o.getToken())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(o.getOwner() + " has not written to partition " + o.getPartition()
              + " within " + DemoScript.WAIT_MS / 1000 + " s");
        }
        Thread.sleep(100);
      }
    }
  }

  /** One line per worker: its partitions and their tokens. */
  private void describe(GroupStatusResponse s) {
    Map<String, List<PartitionOwner>> by = s.getOwnersList().stream()
        .collect(Collectors.groupingBy(PartitionOwner::getOwner, TreeMap::new, Collectors.toList()));
    by.forEach((w, owned) -> n.say("      %s owns %s", w, owned.stream()
        .map(o -> o.getPartition() + "@" + o.getToken()).collect(Collectors.joining(" "))));
  }

  private static String mostPartitions(GroupStatusResponse s) {
    return s.getOwnersList().stream().collect(Collectors.groupingBy(PartitionOwner::getOwner, TreeMap::new,
        Collectors.counting())).entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
  }

  private static Map<Integer, Long> tokensOf(GroupStatusResponse s, String owner) {
    Map<Integer, Long> out = new TreeMap<>();
    s.getOwnersList().stream().filter(o -> o.getOwner().equals(owner))
        .forEach(o -> out.put(o.getPartition(), o.getToken()));
    return out;
  }

  /**
   * Checks each of the victim's former partitions in the ledger; returns {attempted, refused} for its late
   * writes: those of a round above the last one of its that the ledger holds before the new owner's first entry
   * (an append in flight when it froze may have landed before it: that one is not late).
   */
  private int[] checkLedger(LedgerClient fence, String victim, Map<Integer, Long> oldTokens, List<String> lines) {
    int attempted = 0;
    int refused = 0;
    boolean ordered = true;
    for (Map.Entry<Integer, Long> p : oldTokens.entrySet()) {
      List<LedgerEntry> entries = fence.read(GROUP + "/" + p.getKey());
      int firstNew = 0;
      while (firstNew < entries.size() && entries.get(firstNew).getToken() <= p.getValue()) {
        firstNew++;
      }
      long lastBefore = 0;
      for (int i = 0; i < entries.size(); i++) {
        Matcher e = ENTRY.matcher(entries.get(i).getEntry().toStringUtf8());
        boolean byVictim = e.find() && e.group(1).equals(victim);
        if (byVictim && i < firstNew) {
          lastBefore = Math.max(lastBefore, Long.parseLong(e.group(2)));
        }
        ordered &= !(byVictim && i >= firstNew) && (i == 0 || entries.get(i).getToken() >= entries.get(i - 1).getToken());
      }
      ordered &= firstNew < entries.size();
      for (String line : lines) {
        Matcher m = ATTEMPT.matcher(line);
        if (m.find() && Integer.parseInt(m.group(2)) == p.getKey() && m.group(3).equals(victim)
            && Long.parseLong(m.group(4)) > lastBefore) {
          attempted++;
          refused += m.group(1).equals("rejected") ? 1 : 0;
        }
      }
    }
    n.check(attempted > 0 && refused == attempted, "%s's writes after the pause on its former partitions: %d "
        + "attempted, %d refused by the ledger", victim, attempted, refused);
    n.check(ordered, "`regent ledger read orders/P` for each of them: tokens never decrease, no %s entry after the "
        + "new owner's first", victim);
    return new int[] {attempted, refused};
  }

  private static int partition(String attemptLine) {
    Matcher m = ATTEMPT.matcher(attemptLine);
    return m.find() ? Integer.parseInt(m.group(2)) : -1;
  }

  private static String join(List<Long> pids) {
    return pids.stream().map(String::valueOf).collect(Collectors.joining(" "));
  }
}
