package io.regent.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.Regent;
import io.regent.cli.output.ExitCodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** {@code regent demo --cells}: a count outside 1..32768 is a usage error on one line, before anything starts. */
class DemoCellsOptionTest {
  @ParameterizedTest
  @ValueSource(strings = {"0", "-1", "32769"})
  void aCellCountOutOfRangeIsAUsageErrorAndStartsNothing(String cells) {
    StringWriter err = new StringWriter();
    StringWriter out = new StringWriter();
    CommandLine cmd = Regent.commandLine();
    cmd.setErr(new PrintWriter(err));
    cmd.setOut(new PrintWriter(out));

    int code = cmd.execute("demo", "--cells", cells);

    assertThat(code).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString().lines()).singleElement().asString().startsWith("error: ")
        .contains("--cells must be within 1..32768, not " + cells);
    assertThat(out.toString()).as("no step printed").isEmpty();
  }
}
