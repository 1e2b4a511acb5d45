package io.regent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.TypeConversionException;

class DurationConverterTest {
  @ParameterizedTest
  @CsvSource({"500ms,500", "3s,3000", "1m,60000", "2h,7200000", "7,7000", "0,0", " 10s ,10000", "0ms,0"})
  void parsesUnitsAndBareSeconds(String text, long millis) {
    assertThat(DurationConverter.parse(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "3x", "-1s", "1.5s", "ms", "s3", "3 s", "PT5S", "1d", "9999999999999s"})
  void rejectsMalformedDurations(String text) {
    assertThatThrownBy(() -> DurationConverter.parse(text)).isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("is not a duration");
  }

  @ParameterizedTest
  @ValueSource(strings = {"3x", "-1s", "soon"})
  void aBadDurationOnTheCommandLineIsAUsageErrorOnOneLine(String ttl) {
    StringWriter err = new StringWriter();
    CommandLine cmd = Regent.commandLine();
    cmd.setErr(new PrintWriter(err));
    cmd.setOut(new PrintWriter(new StringWriter()));

    int code = cmd.execute("elect", "jobs", "node-a", "--ttl", ttl, "--endpoints", "127.0.0.1:1");

    assertThat(code).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString().lines()).singleElement().asString()
        .startsWith("error: ").contains("'" + ttl + "' is not a duration").contains("regent elect --help");
  }
}
