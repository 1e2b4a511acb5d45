package io.regent.cli.holder;

import static io.regent.cli.command.SnapshotCommandTest.freePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Format;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import io.regent.process.ProcessExit;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code lock}/{@code elect} holders suspend, resume and are lost (docs/architecture.md §3.6), against a
 * one-node cluster: the lease keeper's renewals are held back by a gate (its pause hook), as when no node
 * answers, so the 2/3-TTL deadline passes; opening the gate lets the next renewal through.
 */
@Tag("cluster")
class SuspensionTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  /** Suspended 2 s after the last acknowledged renewal. */
  private static final Duration TTL = Duration.ofSeconds(3);

  @TempDir
  static Path dir;
  static RegentServer node;
  static RegentClient client;
  final Gate gate = new Gate();
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  @BeforeAll
  static void start() throws Exception {
    int apiPort = freePort();
    node = RegentServer.start(ServerConfig.of("s1", Map.of("s1", "127.0.0.1:" + freePort()), apiPort,
        dir.resolve("s1")));
    client = RegentClient.connect("127.0.0.1:" + apiPort);
    await().atMost(WAIT).ignoreExceptions().until(() -> client.cluster().status(true).getAppliedIndex() > 0);
  }

  @AfterEach
  void openGate() {
    gate.open();
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    node.close();
  }

  @Test
  void aSuspendedLocksCommandIsFrozenThawedWithTheSameTokenAndKilledWhenTheLeaseEndsWhileFrozen()
      throws Exception {
    String marker = "suspension-test-" + ProcessHandle.current().pid();
    Path termed = dir.resolve("termed");
    CompletableFuture<Integer> lock = run("jobs", List.of("sh", "-c", "trap 'touch " + termed + "' TERM; "
            + "sleep 1000 & wait", marker), new SuspendOptions());
    String locked = await().atMost(WAIT).until(() -> line(out, "locked jobs "), Optional::isPresent).orElseThrow();
    String tokenAndLease = locked.replaceAll(".* (token=\\d+ lease=\\d+)$", "$1");
    ProcessHandle sh = await().atMost(WAIT).until(() -> ProcessHandle.current().children()
        .filter(p -> p.info().arguments().map(a -> List.of(a).contains(marker)).orElse(false)).findFirst(),
        Optional::isPresent).orElseThrow();
    ProcessHandle sleep = await().atMost(WAIT).until(() -> sh.children().findFirst(), Optional::isPresent)
        .orElseThrow();

    long lease = Long.parseLong(tokenAndLease.replaceAll(".*lease=", ""));
    gate.close();
    // The lease stays alive on the server meanwhile, as when another node keeps answering: the keeper's resume
    // then does not race the server's expiry, however slowly this test observes the suspension.
    ScheduledExecutorService server = Executors.newSingleThreadScheduledExecutor();
    try {
      server.scheduleWithFixedDelay(() -> client.leases().keepAlive(lease, TTL.toMillis()), 0, TTL.toMillis() / 3,
          TimeUnit.MILLISECONDS);
      await().atMost(WAIT).until(() -> line(err, "suspended jobs: ").isPresent());
      await().atMost(WAIT).until(() -> ExecChildTest.state(sh) == 'T' && ExecChildTest.state(sleep) == 'T');
    } finally {
      server.shutdownNow();
    }
    gate.open();
    assertThat(await().atMost(WAIT).until(() -> line(err, "resumed "), Optional::isPresent).orElseThrow())
        .isEqualTo("resumed jobs " + tokenAndLease);
    await().atMost(WAIT).until(() -> ExecChildTest.state(sh) != 'T' && ExecChildTest.state(sleep) != 'T');

    gate.close();
    await().atMost(WAIT).until(() -> err.toString().lines().filter(l -> l.startsWith("suspended jobs: ")).count() == 2);
    client.leases().revoke(lease);
    gate.open(); // the next renewal finds the lease gone: lost, although the command is frozen

    assertThat(lock.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(ExitCodes.ERROR);
    assertThat(err.toString().lines().toList()).last().asString()
        .startsWith("lost jobs: lease ").endsWith(" expired or was revoked");
    assertThat(sh.isAlive()).isFalse();
    assertThat(ProcessExit.ended(sleep)).isTrue();
    assertThat(termed).as("killed where it stood: its SIGTERM handler never ran").doesNotExist();
  }

  /**
   * The resume races the server's expiry and loses: nobody keeps the lease alive while the keeper is held back,
   * the server expires it and a queued candidate takes the name; only then does the gate open. The held-back
   * renewal must find the lease gone: lost, the frozen command killed where it stands, never a "resumed" line
   * (a grace longer than the test, so that the answer and not the client's own timer decides).
   */
  @Test
  void aHolderResumingAfterTheServerExpiredItsLeaseIsLostNotResumed() throws Exception {
    String marker = "suspension-race-" + ProcessHandle.current().pid();
    Path termed = dir.resolve("termed-race");
    SuspendOptions longGrace = new SuspendOptions();
    longGrace.grace = Duration.ofMinutes(5);
    CompletableFuture<Integer> lock = run("reports", List.of("sh", "-c", "trap 'touch " + termed + "' TERM; "
        + "sleep 1000 & wait", marker), longGrace);
    await().atMost(WAIT).until(() -> line(out, "locked reports ").isPresent());
    ProcessHandle sh = await().atMost(WAIT).until(() -> ProcessHandle.current().children()
        .filter(p -> p.info().arguments().map(a -> List.of(a).contains(marker)).orElse(false)).findFirst(),
        Optional::isPresent).orElseThrow();

    gate.close();
    await().atMost(WAIT).until(() -> line(err, "suspended reports: ").isPresent());
    await().atMost(WAIT).until(() -> ExecChildTest.state(sh) == 'T');
    long next = client.leases().grant(60_000);
    // returns once the server has expired the holder's lease and passed the name on
    var successor = client.elections().campaign("reports", next, com.google.protobuf.ByteString.copyFromUtf8("next"),
        0, WAIT);
    gate.open();

    try {
      assertThat(lock.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(ExitCodes.ERROR);
      assertThat(err.toString().lines().toList()).noneMatch(l -> l.startsWith("resumed "));
      assertThat(err.toString().lines().toList()).last().asString()
          .startsWith("lost reports: lease ").endsWith(" expired or was revoked");
      assertThat(ProcessExit.ended(sh)).isTrue();
      assertThat(termed).as("killed where it stood: never thawed to run its SIGTERM handler").doesNotExist();
    } finally {
      client.leases().revoke(successor.getLease());
    }
  }

  @Test
  void withNoSuspendTheLockIsLostAtTheDeadline() throws Exception {
    SuspendOptions noSuspend = new SuspendOptions();
    noSuspend.noSuspend = true;
    CompletableFuture<Integer> lock = run("backups", List.of(), noSuspend);
    await().atMost(WAIT).until(() -> line(out, "locked backups ").isPresent());

    gate.close();

    assertThat(lock.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(ExitCodes.ERROR);
    assertThat(err.toString().lines().toList()).singleElement().asString()
        .matches("lost backups: lease \\d+ not renewed for 2/3 of its 3000 ms TTL");
  }

  @Test
  void electAllIsSuspendedThenLostOnceTheTtlAndTheGraceHavePassed() throws Exception {
    SuspendOptions noGrace = new SuspendOptions();
    noGrace.grace = Duration.ZERO;
    ElectAll.Run run = new ElectAll.Run(List.of("a", "b"), "v", TTL.toMillis(), false, noGrace);
    CompletableFuture<Integer> elect = CompletableFuture.supplyAsync(() -> {
      try {
        return ElectAll.run(client, run, LeaseKeeper.options().pauseHook(gate::pass), new PrintWriter(out, true),
            new PrintWriter(err, true));
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    await().atMost(WAIT).until(() -> out.toString().lines().count() == 2);

    gate.close();

    assertThat(elect.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(ExitCodes.ERROR);
    assertThat(err.toString().lines().toList()).satisfiesExactly(
        l -> assertThat(l).matches("suspended a,b: lease \\d+ not renewed for 2/3 of its 3000 ms TTL"),
        l -> assertThat(l).matches("lost a,b: lease \\d+ not renewed within its 3000 ms TTL and a grace of 0 ms"));
  }

  /** {@code lock NAME [-- CMD]} in this JVM, its keeper behind the gate. */
  private CompletableFuture<Integer> run(String name, List<String> command, SuspendOptions suspension) {
    Candidacy.Run run = new Candidacy.Run(name, "me", TTL, 0, command, null,
        k -> "locked " + Format.leaderKey(k, false), suspension);
    return CompletableFuture.supplyAsync(() -> {
      try {
        return Candidacy.run(client, run, null, false, LeaseKeeper.options().pauseHook(gate::pass),
            new PrintWriter(out, true), new PrintWriter(err, true));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  private static Optional<String> line(StringWriter w, String prefix) {
    return w.toString().lines().filter(l -> l.startsWith(prefix)).reduce((first, last) -> last);
  }

  /** Holds renewals back while closed. */
  static final class Gate {
    private final AtomicReference<CountDownLatch> closed = new AtomicReference<>();

    void close() {
      closed.set(new CountDownLatch(1));
    }

    void open() {
      CountDownLatch l = closed.getAndSet(null);
      if (l != null) {
        l.countDown();
      }
    }

    void pass() throws InterruptedException {
      CountDownLatch l = closed.get();
      if (l != null) {
        l.await();
      }
    }
  }
}
