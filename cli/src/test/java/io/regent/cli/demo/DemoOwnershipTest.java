package io.regent.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.cli.cluster.Launcher;
import io.regent.process.ChildProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code regent demo ownership} as a user runs it: it must exit 0 (every late write of the paused worker
 * refused by the ledger) and leave none of the processes it started behind.
 */
@Timeout(150)
@Tag("cluster")
class DemoOwnershipTest {
  private static final Pattern LATE = Pattern.compile("late writes .* attempted (\\d+), refused (\\d+);");
  private static final Pattern STOPPED = Pattern.compile("kill -STOP ([\\d ]+):");

  @Test
  void aPausedWorkersLateWritesAreAllRefusedAndEverythingIsCleanedUp() throws Exception {
    List<String> cmd = new ArrayList<>(Launcher.javaCommand(Launcher.CLIENT_JVM));
    // 5 s: the workers' keepalives, which give up after 2/3 TTL without an answer, survive a loaded machine
    cmd.addAll(List.of("demo", "ownership", "--ttl", "5s"));
    try (ChildProcess demo = ChildProcess.builder("demo-ownership", cmd)
        .captureOutput(line -> System.out.println("[demo] " + line)).start()) {
      demo.awaitLine(l -> l.startsWith("[4/6] "), Duration.ofSeconds(120));
      List<Long> started = demo.tree(); // the demo, its workers, writers and ledger (and servers, if its children)
      int code = demo.awaitExit(Duration.ofSeconds(60));
      List<String> out = demo.lines();
      assertThat(code).as("exit code").isZero();
      assertThat(out).noneMatch(l -> l.contains("FAILED"));
      Matcher late = out.stream().map(LATE::matcher).filter(Matcher::find).findFirst().orElseThrow();
      assertThat(Long.parseLong(late.group(1))).isPositive().isEqualTo(Long.parseLong(late.group(2)));
      assertThat(out).anyMatch(l -> l.startsWith("Cleaned up: children and cluster stopped, ") && l.endsWith(" removed."));
      Matcher paused = out.stream().map(STOPPED::matcher).filter(Matcher::find).findFirst().orElseThrow();
      List<Long> victim = Arrays.stream(paused.group(1).trim().split(" ")).map(Long::parseLong).toList();
      assertThat(victim).as("the paused worker's processes").hasSizeGreaterThanOrEqualTo(2);
      assertThat(started).as("processes the demo started").hasSizeGreaterThan(3);
      // an orphan that was just killed may take a moment to be reaped by init
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(started).noneMatch(DemoOwnershipTest::alive));
      assertThat(victim).noneMatch(DemoOwnershipTest::alive);
    }
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }
}
