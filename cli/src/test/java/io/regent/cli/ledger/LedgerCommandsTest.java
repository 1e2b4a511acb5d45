package io.regent.cli.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.Regent;
import io.regent.cli.output.ExitCodes;
import io.regent.ledger.LedgerMode;
import io.regent.ledger.LedgerServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code regent ledger append|read} against a ledger in this JVM. */
@Tag("cluster")
class LedgerCommandsTest {
  @TempDir
  Path dir;
  private LedgerServer server;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private int run(LedgerMode mode, String... args) throws Exception {
    if (server == null) {
      server = LedgerServer.start(0, dir, mode);
    }
    String[] withLedger = new String[args.length + 2];
    System.arraycopy(args, 0, withLedger, 0, args.length);
    withLedger[args.length] = "--ledger";
    withLedger[args.length + 1] = "127.0.0.1:" + server.port();
    return Regent.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
        .execute(withLedger);
  }

  @Test
  void aStaleTokenExitsFourWithOneLineNamingTauAndH() throws Exception {
    assertThat(run(LedgerMode.MONOTONE, "ledger", "append", "jobs", "first", "--token", "12")).isZero();
    assertThat(run(LedgerMode.MONOTONE, "ledger", "append", "jobs", "again", "--token", "12")).isZero();

    assertThat(run(LedgerMode.MONOTONE, "ledger", "append", "jobs", "zombie", "--token", "7"))
        .isEqualTo(ExitCodes.STALE_TOKEN);

    assertThat(out.toString().lines()).containsExactly("appended jobs position=1 token=12",
        "appended jobs position=2 token=12");
    assertThat(err.toString().lines()).containsExactly("error: stale fencing token 7 for key 'jobs': highest "
        + "admitted is 12 (monotone mode needs token >= 12)");
  }

  @Test
  void strictModeRefusesTheSameTokenTwice() throws Exception {
    assertThat(run(LedgerMode.STRICT, "ledger", "append", "jobs", "first", "--token", "12")).isZero();

    assertThat(run(LedgerMode.STRICT, "ledger", "append", "jobs", "again", "--token", "12"))
        .isEqualTo(ExitCodes.STALE_TOKEN);
    assertThat(err.toString()).contains("token 12").contains("highest admitted is 12").contains("token > 12");
  }

  @Test
  void readPrintsOneLinePerEntryAndNothingForAnEmptyKey() throws Exception {
    run(LedgerMode.MONOTONE, "ledger", "append", "jobs", "node-a #1", "--token", "5");
    run(LedgerMode.MONOTONE, "ledger", "append", "jobs", "say \"hi\"", "--token", "9", "-w", "json");
    out.getBuffer().setLength(0);

    assertThat(run(LedgerMode.MONOTONE, "ledger", "read", "nothing-here")).isZero();
    assertThat(out.toString()).isEmpty();
    assertThat(run(LedgerMode.MONOTONE, "ledger", "read", "jobs")).isZero();
    assertThat(run(LedgerMode.MONOTONE, "ledger", "read", "jobs", "-w", "json")).isZero();

    assertThat(out.toString().lines()).containsExactly(
        "position=1 token=5 entry=node-a #1",
        "position=2 token=9 entry=say \"hi\"",
        "{\"position\":1,\"token\":5,\"entry\":\"node-a #1\"}",
        "{\"position\":2,\"token\":9,\"entry\":\"say \\\"hi\\\"\"}");
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void anUnreachableLedgerIsTheRetryableExitCode() {
    int code = Regent.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
        .execute("ledger", "read", "jobs", "--ledger", "127.0.0.1:1");

    assertThat(code).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(err.toString().lines()).singleElement().asString().startsWith("error: UNAVAILABLE");
  }
}
