package io.regent.cli.command;

import static io.regent.cli.command.SnapshotCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.command.SnapshotCommandTest.Run;
import io.regent.cli.output.ExitCodes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A negative {@code --after} is a usage error of the command line (the server refuses it too). */
class ObserveOptionsTest {
  @ParameterizedTest
  @CsvSource({"observe,jobs", "group observe,jobs a"})
  void aNegativeAfterIndexIsAUsageErrorOnOneLine(String command, String operands) {
    // nothing listens on port 1: before the check, the command tried the endpoint and exited 5 (unavailable)
    String[] args = (command + " " + operands + " --after -3 --endpoints 127.0.0.1:1").split(" ");

    Run r = run(args);

    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().lines()).hasSize(1).first().asString().contains("--after").contains("-3");
    assertThat(r.out()).isEmpty();
  }
}
