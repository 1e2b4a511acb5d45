package io.regent.cli.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.cli.Regent;
import io.regent.cli.output.ExitCodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine;

class DurationConverterTest {
  @ParameterizedTest
  @CsvSource({"500ms,500", "3s,3000", "1m,60000", "2h,7200000", "7,7000", "0,0", " 10s ,10000", "0ms,0",
      "1m30s,90000", "1.5s,1500", "250ms,250", "1h2m3s,3723000", ".5s,500", "1.5,1500", "1000us,1", "2000000ns,2",
      "1h0.5m,3630000", "1.s,1000"})
  void parsesUnitsAndBareSeconds(String text, long millis) {
    assertThat(DurationConverter.parse(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "3x", "-1s", "ms", "s3", "3 s", "PT5S", "1d", "9999999999999h", "1m 30s", "1s-2s",
      ".s", "1..5s", "9999999999999"})
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
