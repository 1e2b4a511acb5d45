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

/**
 * {@code regent ledger append --idempotency-key} against a ledger in this JVM: what is the CLI's own, that the flag
 * reaches the ledger (a retry prints {@code replayed=true}), the output lines in text and JSON, the exit codes and
 * their one-line errors, and the flags checked before any call. The rules themselves (a retry stored once, a
 * retry not refused for its token, keys scoped, kept and expired) are the ledger's and are proved by its
 * {@code LedgerIdempotencyTest} (docs/testing.md, "Properties and the test that covers each").
 */
@Tag("cluster")
class LedgerIdempotencyCommandsTest {
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

  private int regent(String... args) {
    return Regent.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
  }

  private int append(String entry, String token, String... more) throws Exception {
    if (server == null) {
      server = LedgerServer.start(0, dir, LedgerMode.STRICT);
    }
    String[] args = new String[7 + more.length];
    String[] head = {"ledger", "append", "jobs", entry, "--token", token, "--ledger=127.0.0.1:" + server.port()};
    System.arraycopy(head, 0, args, 0, head.length);
    System.arraycopy(more, 0, args, head.length, more.length);
    return regent(args);
  }

  @Test
  void aRetryWithTheSameKeyPrintsTheFirstPositionAndReplayed() throws Exception {
    assertThat(append("pay 10", "12", "--idempotency-key", "pay-1")).isZero();
    // strict ledger, same token: refused without the key; with it, the first answer
    assertThat(append("pay 10", "12", "--idempotency-key", "pay-1")).isZero();
    assertThat(append("pay 10", "12", "--idempotency-key", "pay-1", "-w", "json")).isZero();

    assertThat(out.toString().lines()).containsExactly(
        "appended jobs position=1 token=12 replayed=false",
        "appended jobs position=1 token=12 replayed=true",
        "{\"key\":\"jobs\",\"position\":1,\"token\":12,\"replayed\":true}");
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void theSameKeyWithAnotherEntryExitsOneWithOneLineNamingTheKey() throws Exception {
    assertThat(append("pay 10", "12", "--idempotency-key", "pay-1")).isZero();
    assertThat(append("pay 20", "13", "--idempotency-key", "pay-1")).isEqualTo(ExitCodes.ERROR);

    assertThat(err.toString().lines()).containsExactly("error: idempotency key 'pay-1' for key "
        + "'jobs' was already used for another request (another request hash): nothing was written; a key names one "
        + "request, use a new key for a new one");
  }

  @Test
  void aBadKeyIsAUsageErrorOnOneLine() throws Exception {
    assertThat(append("pay 10", "12", "--idempotency-key", "")).isEqualTo(ExitCodes.USAGE);
    assertThat(append("pay 10", "12", "--idempotency-key", "k".repeat(256))).isEqualTo(ExitCodes.USAGE);

    assertThat(err.toString().lines()).containsExactly(
        "error: --idempotency-key: idempotency key must not be empty or blank (see 'regent ledger append --help')",
        "error: --idempotency-key: idempotency key is 256 characters, above the limit of 255 (see 'regent ledger "
            + "append --help')");
    assertThat(out.toString()).isEmpty();
    assertThat(append("pay 10", "12")).isZero();
    assertThat(out.toString().lines()).containsExactly("appended jobs position=1 token=12");
  }

  @Test
  void serveRefusesANonPositiveRetention() {
    assertThat(regent("ledger", "serve", "--data-dir", dir.toString(), "--idempotency-retention", "0s"))
        .isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString().lines()).containsExactly(
        "error: --idempotency-retention must be positive (see 'regent ledger serve --help')");
  }
}
