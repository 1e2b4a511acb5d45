package io.regent.cli.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.regent.cli.Regent;
import io.regent.fencing.FencingMode;
import io.regent.fencing.StaleTokenException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine.Command;
import picocli.CommandLine;

class ExitCodesTest {
  @ParameterizedTest
  @CsvSource({"OK,0", "NOT_FOUND,3", "FAILED_PRECONDITION,4", "INVALID_ARGUMENT,1", "UNAVAILABLE,5",
      "RESOURCE_EXHAUSTED,1", "DEADLINE_EXCEEDED,5", "INTERNAL,1", "CANCELLED,1"})
  void mapsStatusCodes(Status.Code code, int exit) {
    assertThat(ExitCodes.forStatus(code)).isEqualTo(exit);
  }

  /** A command that fails with whatever the test puts in {@link #failure}. */
  @Command(name = "failing")
  static final class Failing implements Callable<Integer> {
    static Exception failure;

    @Override
    public Integer call() throws Exception {
      throw failure;
    }
  }

  private static int run(Exception failure, StringWriter err) {
    Failing.failure = failure;
    ExitCodes handler = new ExitCodes();
    return new CommandLine(new Failing()).setExecutionExceptionHandler(handler)
        .setParameterExceptionHandler(handler).setErr(new PrintWriter(err)).setOut(new PrintWriter(new StringWriter()))
        .execute();
  }

  @ParameterizedTest
  @CsvSource({"FAILED_PRECONDITION,4", "NOT_FOUND,3", "INVALID_ARGUMENT,1", "UNAVAILABLE,5"})
  void aGrpcErrorBecomesOneLineAndItsExitCode(Status.Code code, int exit) {
    StringWriter err = new StringWriter();

    int got = run(Status.fromCode(code).withDescription("token 12 is stale,\nholder has 20").asRuntimeException(), err);

    assertThat(got).isEqualTo(exit);
    assertThat(err.toString()).isEqualTo("error: " + code + ": token 12 is stale, holder has 20"
        + System.lineSeparator());
  }

  @Test
  void aStaleTokenIsExitFourNamingTauAndH() {
    StringWriter err = new StringWriter();

    int got = run(new StaleTokenException("jobs", 7, 39, FencingMode.MONOTONE), err);

    assertThat(got).isEqualTo(ExitCodes.STALE_TOKEN);
    assertThat(err.toString().lines()).containsExactly("error: stale fencing token 7 for key 'jobs': highest "
        + "admitted is 39 (monotone mode needs token >= 39)");
  }

  @Test
  void aWrappedGrpcErrorIsFoundThroughItsCauses() {
    StringWriter err = new StringWriter();

    int got = run(new RuntimeException("wrapper", Status.NOT_FOUND.withDescription("lease 7").asRuntimeException()),
        err);

    assertThat(got).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(err.toString()).startsWith("error: NOT_FOUND: lease 7");
  }

  @Test
  void anyOtherFailureIsExitOneWithItsMessage() {
    StringWriter err = new StringWriter();

    int got = run(new IllegalStateException("no Raft leader after 30 s"), err);

    assertThat(got).isEqualTo(ExitCodes.ERROR);
    assertThat(err.toString().lines()).containsExactly("error: no Raft leader after 30 s");
  }

  @Test
  void usageErrorsAreExitTwoOnOneLine() {
    StringWriter err = new StringWriter();
    CommandLine cmd = Regent.commandLine().setErr(new PrintWriter(err)).setOut(new PrintWriter(new StringWriter()));

    assertThat(cmd.execute("no-such-command")).isEqualTo(ExitCodes.USAGE);
    assertThat(cmd.execute("lease", "grant")).isEqualTo(ExitCodes.USAGE);
    assertThat(cmd.execute("leader", "jobs", "--endpoints", "nohostport")).isEqualTo(ExitCodes.USAGE);
    assertThat(cmd.execute("cluster", "up", "--nodes", "4")).isEqualTo(ExitCodes.USAGE);
    assertThat(cmd.execute("server", "--id", "n9", "--peers", "n1=127.0.0.1:7001", "--data-dir", "x"))
        .isEqualTo(ExitCodes.USAGE);
    assertThat(cmd.execute("server", "--single-writer", "--id", "n1", "--data-dir", "x")).isEqualTo(ExitCodes.USAGE);
    assertThat(cmd.execute("server", "--id", "n1", "--peers", "n1=127.0.0.1:7001", "--data-dir", "x", "--etcd-port",
        "0", "--permissions", "permissions.yaml")).as("the etcd port has no permission checks").isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString().lines()).hasSize(7).allMatch(l -> l.startsWith("error: "));
  }
}
