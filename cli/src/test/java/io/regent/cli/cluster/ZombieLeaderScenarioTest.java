package io.regent.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.api.v1.LedgerEntry;
import io.regent.cli.output.ExitCodes;
import io.regent.client.LedgerClient;
import io.regent.process.ChildProcess;
import io.regent.ledger.LedgerMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The zombie-leader scenario (README.md, docs/comparison.md) with real processes: a 3-node cluster (the module's
 * shared one, {@link SharedClusterUp}: only client processes are paused here, never a node), a fenced ledger, and two
 * {@code regent elect --exec} holders whose writer ({@code ledger append-loop}) appends every 200 ms. A is
 * paused with SIGSTOP of its process group (elect JVM and writer) beyond its TTL; B is elected with a
 * larger token and appends; then A's writer is resumed first, like a write that had passed its leadership
 * check just before the pause, and A's elect after it, which must notice the loss, stop its writer and exit 1.
 * A zombie write is a write by A answered after B's first entry (one in flight when A froze may have landed
 * just before it). Fenced ledgers must reject every zombie write; the unfenced control must admit them.
 */
@Timeout(100)
@Tag("cluster")
@ExtendWith(SharedClusterUp.class)
class ZombieLeaderScenarioTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  /**
   * The holders' lease TTL. 3 s works on an idle machine; 5 s (as in {@code regent demo}) keeps a waiting
   * candidate's keepalives, which step down after 2/3 TTL without an answer, alive on a loaded one.
   */
  private static final String TTL = "5s";
  /**
   * A write the ledger answered, as its writer reports it: result, writer id, attempt number, token, H. (A
   * call that failed without an answer, e.g. whose deadline ran out during the pause, is no write.)
   */
  private static final Pattern ATTEMPT =
      Pattern.compile("^(admitted|rejected) (\\S+) #(\\d+) token=(\\d+)(?: highest=(\\d+))?");

  private static Path dir;
  private static ProcessCluster cluster;
  /** One ledger per mode, all started at once. */
  private static final Map<LedgerMode, ChildProcess> LEDGERS = new EnumMap<>(LedgerMode.class);
  private final List<ChildProcess> processes = new ArrayList<>();

  @BeforeAll
  static void startLedgers(ProcessCluster shared) throws Exception {
    dir = Files.createTempDirectory("regent-zombie-");
    cluster = shared;
    for (LedgerMode mode : LedgerMode.values()) {
      LEDGERS.put(mode, scenarioProcess("ledger-" + mode.name().toLowerCase(Locale.ROOT), ledgerServe(mode)));
    }
    for (ChildProcess ledger : LEDGERS.values()) {
      ledger.awaitLine(l -> l.startsWith("ledger serving on "), WAIT);
    }
  }

  @AfterAll
  static void stopLedgers() throws Exception {
    try {
      LEDGERS.values().forEach(ChildProcess::close);
      LEDGERS.clear();
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @AfterEach
  void stopProcesses() {
    processes.forEach(ChildProcess::close);
  }

  @ParameterizedTest
  @EnumSource(LedgerMode.class)
  void aPausedHoldersWritesAfterItsSuccessorsGrantAreRejected(LedgerMode mode) throws Exception {
    String m = mode.name().toLowerCase(Locale.ROOT);
    String name = SharedClusterUp.name("zombie-" + m);
    String key = "zlog-" + m;
    ChildProcess ledgerServer = LEDGERS.get(mode);
    String ledger = ledgerServer.awaitLine(l -> l.startsWith("ledger serving on "), WAIT).split(" ")[3];

    ChildProcess a = start("A", elect(name, "A", key, ledger, mode));
    long tokenA = grantToken(a);
    await().atMost(WAIT).until(() -> attempts(a, 0).stream().filter(x -> x.group(1).equals("admitted")).count() >= 2);
    ChildProcess b = start("B", elect(name, "B", key, ledger, mode)); // one JVM starting at a time

    a.signalGroup("STOP"); // the pause: A's elect JVM and its writer
    long tokenB = grantToken(b);
    b.awaitLine(l -> l.startsWith("admitted B #"), WAIT);
    int mark = a.lines().size();
    a.signalDescendants("CONT"); // A's writer wakes up first, still sure it leads
    await().atMost(WAIT).until(() -> attempts(a, mark).size() >= 3);
    a.signalGroup("CONT"); // then A's elect: it must notice that its lease is gone
    assertThat(a.awaitExit(WAIT)).as("A's elect exit code").isEqualTo(ExitCodes.ERROR);
    assertThat(a.lines()).anyMatch(l -> l.startsWith("lost " + name + ": "));

    List<LedgerEntry> entries;
    try (LedgerClient c = LedgerClient.connect(ledger)) {
      entries = c.read(key);
    }
    List<String> texts = entries.stream().map(e -> e.getEntry().toStringUtf8()).toList();
    int firstB = texts.indexOf(texts.stream().filter(t -> t.startsWith("B #")).findFirst().orElseThrow());
    long lastABeforeB = texts.subList(0, firstB).stream().filter(t -> t.startsWith("A #"))
        .mapToLong(t -> Long.parseLong(t.substring(3))).max().orElseThrow();
    List<Matcher> zombie = attempts(a, mark).stream().filter(x -> Long.parseLong(x.group(3)) > lastABeforeB).toList();
    long rejected = zombie.stream().filter(x -> x.group(1).equals("rejected")).count();
    System.out.printf("%s: tokens A=%d B=%d; zombie writes attempted %d, rejected %d; ledger %s%n", m, tokenA, tokenB,
        zombie.size(), rejected, texts);

    assertThat(tokenB).isGreaterThan(tokenA);
    assertThat(zombie).hasSizeGreaterThanOrEqualTo(2).allMatch(x -> Long.parseLong(x.group(4)) < tokenB);
    if (mode == LedgerMode.UNFENCED) {
      // The negative control: without the fence the zombie's write lands after its successor's.
      assertThat(zombie).anyMatch(x -> x.group(1).equals("admitted"));
      assertThat(texts.subList(firstB, texts.size())).anyMatch(t -> t.startsWith("A #"));
    } else {
      assertThat(zombie).allMatch(x -> x.group(1).equals("rejected") && Long.parseLong(x.group(5)) >= tokenB);
      assertThat(texts.subList(firstB, texts.size())).noneMatch(t -> t.startsWith("A #"));
      List<Long> tokens = entries.stream().map(LedgerEntry::getToken).toList();
      for (int i = 1; i < tokens.size(); i++) {
        assertThat(tokens.get(i)).as("token at position %d after %d", i + 1, tokens.get(i - 1))
            .isGreaterThanOrEqualTo(tokens.get(i - 1) + (mode == LedgerMode.STRICT ? 1 : 0));
      }
    }
    assertThat(b.terminate(WAIT)).as("B's elect exit code after SIGTERM").isZero();
    assertThat(ledgerServer.terminate(WAIT)).as("ledger exit code after SIGTERM").isZero();
    long counted = Long.parseLong(ledgerServer.awaitLine(l -> l.startsWith("ledger stopped: "), WAIT)
        .replaceAll(".* ", ""));
    assertThat(counted).as("regent_fence_rejected_total").isGreaterThanOrEqualTo(rejected);
  }

  private ChildProcess start(String label, List<String> args) throws Exception {
    ChildProcess p = scenarioProcess(label, args);
    processes.add(p);
    return p;
  }

  /**
   * Starts {@code regent ARGS...} (this JVM's java and class path) in a process group of its own, so that it
   * and the command it runs can be paused together; its output is collected and echoed line by line.
   */
  private static ChildProcess scenarioProcess(String label, List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>(Launcher.javaCommand(Launcher.CLIENT_JVM));
    cmd.addAll(args);
    return ChildProcess.builder(label, cmd).newSession()
        .captureOutput(line -> System.out.println("[" + label + "] " + line)).start();
  }

  private static List<String> ledgerServe(LedgerMode mode) {
    List<String> args = new ArrayList<>(List.of("ledger", "serve", "--port", "0", "--data-dir",
        dir.resolve("ledger-" + mode.name().toLowerCase(Locale.ROOT)).toString()));
    switch (mode) {
      case STRICT -> args.add("--strict");
      case UNFENCED -> args.add("--unfenced");
      default -> { }
    }
    return args;
  }

  /** {@code elect --exec} with the writer; strict ledgers need a fresh token for (nearly) every append. */
  private static List<String> elect(String name, String id, String key, String ledger, LedgerMode mode) {
    List<String> args = new ArrayList<>(List.of("elect", name, id, "--ttl", TTL, "--endpoints", cluster.endpoints()));
    if (mode == LedgerMode.STRICT) {
      args.addAll(List.of("--fresh-token-every", "150ms"));
    }
    args.addAll(List.of("--exec", "--"));
    args.addAll(Launcher.javaCommand(Launcher.CLIENT_JVM));
    args.addAll(List.of("ledger", "append-loop", key, "--ledger", ledger, "--interval", "200ms", "--id", id));
    return args;
  }

  /** The token of the holder's grant; fails at once should the holder lose its lease first. */
  private static long grantToken(ChildProcess p) throws InterruptedException {
    String line = p.awaitLine(l -> l.startsWith("elected ") || l.startsWith("lost "), WAIT);
    assertThat(line).as("a candidate's keepalives took over 2/3 of its %s TTL: an overloaded machine?", TTL)
        .startsWith("elected ");
    return Long.parseLong(line.replaceAll(".* token=(\\d+) .*", "$1"));
  }

  /** The writer's attempt lines from line {@code from} on. */
  private static List<Matcher> attempts(ChildProcess p, int from) {
    List<String> lines = p.lines();
    return lines.subList(Math.min(from, lines.size()), lines.size()).stream().map(ATTEMPT::matcher)
        .filter(Matcher::find).toList();
  }
}
