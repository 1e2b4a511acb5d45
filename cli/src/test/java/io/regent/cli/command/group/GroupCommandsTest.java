package io.regent.cli.command.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.cli.cluster.Launcher;
import io.regent.cli.cluster.ProcessCluster;
import io.regent.cli.cluster.SharedClusterUp;
import io.regent.cli.command.SnapshotCommandTest;
import io.regent.cli.command.SnapshotCommandTest.Run;
import io.regent.cli.output.ExitCodes;
import io.regent.process.ChildProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code regent group join|status|observe} and {@code elect --all}, driven as a user would, on the module's
 * shared 3-node cluster ({@link SharedClusterUp}); every group and name here is this class's own.
 */
@Tag("cluster")
@ExtendWith(SharedClusterUp.class)
class GroupCommandsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  /** Long enough that a cold JVM on a busy machine keeps its lease; no test here waits for an expiry. */
  private static final String TTL = "10s";
  private static final Pattern ASSIGNED = Pattern.compile("^assigned (\\d+) token=(\\d+)$");

  @TempDir
  static Path dir;
  static ProcessCluster cluster;

  @BeforeAll
  static void join(ProcessCluster shared) {
    cluster = shared;
  }

  @Test
  void membersSharePartitionsAndTheChildSeesItsFile() throws Exception {
    Path seen = dir.resolve("seen");
    Path hup = dir.resolve("hup");
    // the child keeps a copy of its partitions file (what it sees) and marks every SIGHUP it gets
    String script = "trap 'touch " + hup + "' HUP; while true; do cp \"$REGENT_PARTITIONS_FILE\" " + seen
        + ".tmp && mv " + seen + ".tmp " + seen + "; sleep 0.1; done";
    // a runs with SIGHUP ignored, as under nohup: its shell child must still be able to trap it
    String group = SharedClusterUp.name("group-jobs");
    try (ChildProcess a = regent("a", List.of("env", "--ignore-signal=HUP"), List.of("group", "join", group, "a",
             "--partitions", "4",
             "--ttl", TTL, "--endpoints", cluster.endpoints(), "--reload-signal", "HUP", "--exec", "--", "sh", "-c",
             script))) {
      await().atMost(WAIT).until(() -> assigned(a).size() == 4);
      await().atMost(WAIT).until(() -> Files.exists(seen) && Files.readAllLines(seen).size() == 4);
      Run status = SnapshotCommandTest.run("group", "status", group, "-w", "json", "--endpoints", cluster.endpoints());
      assertThat(status.code()).isZero();
      assertThat(status.out()).startsWith("{\"group\":\"" + group + "\",").contains("\"members\":[{\"member\":\"a\"")
          .contains("{\"partition\":0,\"owner\":\"a\",\"token\":" + assigned(a).get(0)[1] + "}");
      long first = assigned(a).get(0)[1];
      try (ChildProcess b = regent("b", List.of("group", "join", group, "b", "--ttl", TTL,
          "--endpoints", cluster.endpoints()))) {
        await().atMost(WAIT).until(() -> assigned(b).size() == 2);
        assertThat(a.lines()).filteredOn(l -> l.startsWith("revoked ")).hasSize(2);
        assertThat(assigned(b)).allMatch(pt -> pt[1] > first);
        await().atMost(WAIT).until(() -> Files.readAllLines(seen).size() == 2);
        await().atMost(WAIT).until(() -> Files.exists(hup)); // b's join changed a's partitions after a's child started
        Run observe = SnapshotCommandTest.run("group", "status", group, "--endpoints", cluster.endpoints());
        assertThat(observe.out()).startsWith("group " + group + " partitions=4 members=a,b index=");
        assertThat(b.terminate(WAIT)).isZero();
      }
      await().atMost(WAIT).until(() -> assigned(a).size() == 6);
      assertThat(SnapshotCommandTest.run("group", "status", SharedClusterUp.name("group-nope"), "--endpoints",
          cluster.endpoints()).code())
          .isEqualTo(ExitCodes.NOT_FOUND);
      assertThat(a.terminate(WAIT)).isZero();
    }
  }

  @Test
  void aChildWithoutAHandlerIsRestartedOnEachChange() throws Exception {
    Path starts = dir.resolve("starts");
    Path seen = dir.resolve("plain-seen");
    // a plain program (no SIGHUP handler): every start is recorded with the file it found, then it sleeps
    String script = "echo start >> " + starts + "; cp \"$REGENT_PARTITIONS_FILE\" " + seen + ".tmp && mv " + seen
        + ".tmp " + seen + "; exec sleep 600";
    String group = SharedClusterUp.name("group-plain");
    try (ChildProcess a = regent("a", List.of("group", "join", group, "a", "--partitions", "2", "--ttl", TTL,
        "--endpoints", cluster.endpoints(), "--exec", "--", "sh", "-c", script))) {
      await().atMost(WAIT).until(() -> assigned(a).size() == 2);
      await().atMost(WAIT).until(() -> Files.exists(seen) && Files.readAllLines(seen).size() == 2);
      int before = Files.readAllLines(starts).size();
      try (ChildProcess b = regent("b", List.of("group", "join", group, "b", "--ttl", TTL,
          "--endpoints", cluster.endpoints()))) {
        await().atMost(WAIT).until(() -> assigned(b).size() == 1);
        await().atMost(WAIT).until(() -> Files.readAllLines(seen).size() == 1);
        assertThat(Files.readAllLines(starts).size()).isGreaterThan(before);
        assertThat(a.alive()).isTrue(); // the member stayed: a restart is not the child ending by itself
        assertThat(b.terminate(WAIT)).isZero();
      }
      assertThat(a.terminate(WAIT)).isZero();
    }
  }

  @Test
  void aChildEndedByItsReloadSignalIsNamedAndEndsTheMember() throws Exception {
    String group = SharedClusterUp.name("group-sig");
    try (ChildProcess a = regent("a", List.of("group", "join", group, "a", "--partitions", "2", "--ttl", TTL,
        "--endpoints", cluster.endpoints(), "--reload-signal", "hup", "--exec", "--", "sleep", "600"))) {
      await().atMost(WAIT).until(() -> !assigned(a).isEmpty());
      // the first change after the child started ends it: a's own later assignment, or b's join (which
      // creates the group again if a has already left it)
      try (ChildProcess b = regent("b", List.of("group", "join", group, "b", "--partitions", "2", "--ttl", TTL,
          "--endpoints", cluster.endpoints()))) {
        assertThat(a.awaitExit(WAIT)).isEqualTo(129);
        assertThat(a.lines()).anyMatch(l -> l.startsWith("child ended by SIGHUP (exit 129), the --reload-signal"));
        // a may have ended before b's JVM was up: b leaves cleanly (exit 0) only once it is a member
        await().atMost(WAIT).until(() -> !assigned(b).isEmpty());
        assertThat(b.terminate(WAIT)).isZero();
      }
    }
  }

  @Test
  void aBadReloadSignalIsAUsageError() {
    String group = SharedClusterUp.name("group-bad");
    Run bad = SnapshotCommandTest.run("group", "join", group, "a", "--partitions", "2", "--endpoints",
        cluster.endpoints(), "--reload-signal", "KILL", "--exec", "--", "true");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).startsWith("error: --reload-signal must be none or one of ALRM, HUP").doesNotContain("\n");
    Run without = SnapshotCommandTest.run("group", "join", group, "a", "--partitions", "2", "--endpoints",
        cluster.endpoints(), "--reload-signal", "HUP");
    assertThat(without.code()).isEqualTo(2);
    assertThat(without.err()).startsWith("error: --reload-signal needs --exec");
    assertThat(SnapshotCommandTest.run("group", "status", group, "--endpoints", cluster.endpoints()).code())
        .isEqualTo(ExitCodes.NOT_FOUND); // nothing was created
  }

  @Test
  void electAllTakesEveryNameWithOneToken() throws Exception {
    String x = SharedClusterUp.name("group-x");
    String y = SharedClusterUp.name("group-y");
    try (ChildProcess p = regent("all", List.of("elect", "--all", x + "," + y, "v", "--ttl", TTL,
        "--endpoints", cluster.endpoints()))) {
      String electedX = p.awaitLine(l -> l.startsWith("elected " + x + " "), WAIT);
      String electedY = p.awaitLine(l -> l.startsWith("elected " + y + " "), WAIT);
      assertThat(electedX.replaceAll(".*token=(\\d+).*", "$1"))
          .isEqualTo(electedY.replaceAll(".*token=(\\d+).*", "$1"));
      assertThat(p.terminate(WAIT)).isZero();
    }
  }

  private static List<long[]> assigned(ChildProcess p) {
    List<long[]> out = new ArrayList<>();
    for (String l : p.lines()) {
      Matcher m = ASSIGNED.matcher(l);
      if (m.find()) {
        out.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
      }
    }
    return out;
  }

  /** Starts {@code regent ARGS...} on this JVM's java and class path, its output echoed with a label. */
  private static ChildProcess regent(String label, List<String> args) throws IOException {
    return regent(label, List.of(), args);
  }

  /** As {@link #regent(String, List)}, the JVM started through {@code prefix} (e.g. {@code env ...}). */
  private static ChildProcess regent(String label, List<String> prefix, List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.addAll(Launcher.javaCommand(Launcher.CLIENT_JVM));
    cmd.addAll(args);
    return ChildProcess.builder(label, cmd)
        .captureOutput(line -> System.out.println("[" + label + "] " + line)).start();
  }
}
