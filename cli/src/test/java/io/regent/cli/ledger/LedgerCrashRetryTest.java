package io.regent.cli.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.api.v1.LedgerEntry;
import io.regent.cli.Regent;
import io.regent.cli.cluster.Launcher;
import io.regent.client.LedgerClient;
import io.regent.process.ChildProcess;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crash between effect and answer: {@code regent ledger serve} in a process of its own, held by its failpoint
 * ({@code -Dregent.ledger.failpoint=hold-after-commit}) right after an append's LMDB commit and before the
 * reply, is {@code kill -9}ed; the client saw only UNAVAILABLE, so it retries on the ledger restarted on
 * the same data. With an idempotency key the entry is stored once and the retry gets its position; without one
 * (the control) the retry stores it a second time.
 */
@Tag("cluster")
class LedgerCrashRetryTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String HELD = "failpoint hold-after-commit: committed, answer held: ";

  @TempDir
  Path dir;
  private final List<ChildProcess> processes = new ArrayList<>();

  @AfterEach
  void stop() {
    processes.forEach(ChildProcess::close);
  }

  /** {@code regent ledger serve --port 0 --data-dir DIR/ledger}, in a JVM of its own; returns it and its address. */
  private ChildProcess serve(boolean failpoint) throws Exception {
    List<String> jvm = new ArrayList<>(Launcher.CLIENT_JVM);
    if (failpoint) {
      jvm.add("-Dregent.ledger.failpoint=hold-after-commit");
    }
    List<String> cmd = new ArrayList<>(Launcher.javaCommand(jvm));
    cmd.addAll(List.of("ledger", "serve", "--port", "0", "--data-dir", dir.resolve("ledger").toString()));
    ChildProcess p = ChildProcess.builder("ledger", cmd)
        .captureOutput(line -> System.out.println("[ledger] " + line)).start();
    processes.add(p);
    p.awaitLine(l -> l.startsWith("ledger serving on "), WAIT);
    return p;
  }

  private static String address(ChildProcess ledger) throws InterruptedException {
    return ledger.awaitLine(l -> l.startsWith("ledger serving on "), WAIT).split(" ")[3];
  }

  /** {@code regent ledger append ...} in this JVM: exit code, stdout and stderr. */
  private record Run(int code, String out, String err) {
  }

  private static Run append(String ledger, String entry, String... more) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> args = new ArrayList<>(List.of("ledger", "append", "jobs", entry, "--token", "7", "--ledger", ledger));
    args.addAll(List.of(more));
    int code = Regent.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
        .execute(args.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  /** Appends in the background, waits until the ledger holds the committed append, kills it -9: the client's run. */
  private Run crashAfterCommit(String entry, String... more) throws Exception {
    ChildProcess ledger = serve(true);
    String address = address(ledger);
    CompletableFuture<Run> call = CompletableFuture.supplyAsync(() -> append(address, entry, more));
    ledger.awaitLine(l -> l.startsWith(HELD), WAIT);
    ledger.kill9();
    return call.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void anAppendCommittedBeforeAKillNineIsAppliedOnceWhenRetriedWithItsKey() throws Exception {
    // The client hears UNAVAILABLE, closed connection (exit 1, not 5: ExitCodes takes a closed connection for a
    // possible TLS mismatch): it cannot know whether the append was stored.
    Run first = crashAfterCommit("pay 10", "--idempotency-key", "pay-1");
    assertThat(first.code()).isNotZero();
    assertThat(first.err()).startsWith("error: UNAVAILABLE");
    assertThat(first.out()).isEmpty();
    Run control = crashAfterCommit("pay 20");
    assertThat(control.code()).isNotZero();
    assertThat(control.err()).startsWith("error: UNAVAILABLE");

    String address = address(serve(false));
    Run retry = append(address, "pay 10", "--idempotency-key", "pay-1");
    Run controlRetry = append(address, "pay 20");

    assertThat(retry.code()).as(retry.err()).isZero();
    assertThat(retry.out().lines()).containsExactly("appended jobs position=1 token=7 replayed=true");
    assertThat(controlRetry.out().lines()).containsExactly("appended jobs position=3 token=7");
    List<String> entries;
    try (LedgerClient c = LedgerClient.connect(address)) {
      entries = c.read("jobs").stream().map(LedgerEntry::getEntry).map(e -> e.toStringUtf8()).toList();
    }
    assertThat(entries).as("pay 10 once (its key), pay 20 twice (the control, no key)")
        .containsExactly("pay 10", "pay 20", "pay 20");
  }
}
