package io.regent.cli.settings;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.Regent;
import io.regent.cli.command.server.ServerCommand;
import io.regent.cli.output.ExitCodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code regent server} settings from flags, {@code REGENT_*} variables and {@code --config} files: the
 * precedence, {@code --print-config}, and the errors for unknown keys and bad values. No server starts: every
 * run either prints the settings or fails validation before the node would start.
 */
class ServerSettingsTest {
  @TempDir
  Path dir;
  final Map<String, String> env = new HashMap<>();

  /** The outcome of one {@code regent ARGS} run. */
  record Run(int code, String out, String err) {
    /** The printed value of {@code key} and its origin comment, e.g. {@code [7101, default]}. */
    String[] setting(String key) {
      Matcher m = Pattern.compile("(?m)^" + Pattern.quote(key) + ": (\\S+) +# (.+)$").matcher(out);
      assertThat(m.find()).as("line for %s in:%n%s", key, out).isTrue();
      return new String[] {m.group(1), m.group(2)};
    }
  }

  Run regent(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Regent.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
    cl.getSubcommands().get("server").setDefaultValueProvider(new ServerSettings(env));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  Path file(String yaml) throws IOException {
    return Files.writeString(dir.resolve("regent.yaml"), yaml);
  }

  @Test
  void flagBeatsEnvironmentBeatsFileBeatsDefault() throws IOException {
    Path config = file("api-port: 7201\ndata-dir: /from/file\nelection-timeout: 1s..2s\n");
    env.put("REGENT_API_PORT", "7301");
    env.put("REGENT_DATA_DIR", "/from/env");

    Run all = regent("server", "--config", config.toString(), "--print-config", "--api-port", "7401");
    assertThat(all.code()).as(all.err()).isZero();
    assertThat(all.setting("api-port")).containsExactly("7401", "flag");
    assertThat(all.setting("data-dir")).containsExactly("/from/env", "environment REGENT_DATA_DIR");
    assertThat(all.setting("election-timeout"))
        .containsExactly("1s..2s", "config file " + config + ", key election-timeout");
    assertThat(all.setting("api-host")).containsExactly("127.0.0.1", "default");
    assertThat(all.out()).contains("# config file: " + config).containsPattern("(?m)^# id: +# not set");

    assertThat(regent("server", "--config", config.toString(), "--print-config").setting("api-port"))
        .containsExactly("7301", "environment REGENT_API_PORT");
    env.remove("REGENT_API_PORT");
    assertThat(regent("server", "--config", config.toString(), "--print-config").setting("api-port"))
        .containsExactly("7201", "config file " + config + ", key api-port");
    assertThat(regent("server", "--print-config").setting("api-port")).containsExactly("7101", "default");
  }

  @Test
  void theConsoleIsOnByDefaultOffWithPermissionsOrClientCertificatesAndNeedsTheMetricsPort() throws IOException {
    assertThat(ServerCommand.console(null, false)).isTrue();
    assertThat(ServerCommand.console(null, true)).as("the unauthenticated port must not show what permissions hide")
        .isFalse();
    assertThat(ServerCommand.console(true, true)).isTrue();
    assertThat(ServerCommand.console(false, false)).isFalse();

    Run off = regent("server", "--config", file("console: false\n").toString(), "--print-config");
    assertThat(off.code()).as(off.err()).isZero();
    assertThat(off.setting("console")).containsExactly("false", "config file " + dir.resolve("regent.yaml")
        + ", key console");
    env.put("REGENT_CONSOLE", "true");
    Run noPort = regent("server", "--id", "n1", "--peers", "n1=127.0.0.1:1", "--data-dir", dir.resolve("d").toString());
    assertThat(noPort.code()).isEqualTo(2);
    assertThat(noPort.err()).contains("--console true needs --metrics-port");
    assertThat(dir.resolve("d")).as("refused before touching the data directory").doesNotExist();
  }

  @Test
  void printedSettingsReadBackAsTheSameSettings() throws IOException {
    Path config = file("""
        # a comment
        id: n2
        peers:
          - n1=127.0.0.1:7001
          - n2=127.0.0.1:7002
        api-host: "::1"
        data-dir: /var/lib/regent dir
        metrics-port: 7202
        single-writer: false
        """);
    Run first = regent("server", "--config", config.toString(), "--print-config");
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.setting("peers")[0]).isEqualTo("n1=127.0.0.1:7001,n2=127.0.0.1:7002");

    Path printed = Files.writeString(dir.resolve("printed.yaml"), first.out());
    Run second = regent("server", "--config", printed.toString(), "--print-config");
    assertThat(second.code()).as(second.err()).isZero();
    assertThat(values(second.out())).isEqualTo(values(first.out()));
    assertThat(values(first.out())).contains("api-host: \"::1\"", "data-dir: \"/var/lib/regent dir\"");
  }

  @Test
  void regentConfigNamesTheFileAndClientVariablesAreIgnored() throws IOException {
    Path config = file("api-port: 7555\n");
    env.put("REGENT_CONFIG", config.toString());
    env.put("REGENT_ENDPOINTS", "10.0.0.1:7101");
    env.put("REGENT_FENCING_TOKEN", "42");
    env.put("REGENT_JAVA_OPTS", "-Xmx1g");
    env.put("REGENT_METRICS_PORT", ""); // empty: unset

    Run r = regent("server", "--print-config");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("# config file: " + config + " (from environment REGENT_CONFIG)");
    assertThat(r.setting("api-port")).containsExactly("7555", "config file " + config + ", key api-port");
    assertThat(r.setting("metrics-port")).containsExactly("-1", "default");
  }

  @Test
  void aSwitchFromTheFileStaysOnWhenAlsoGivenAndAFlagCanTurnItOff() throws IOException {
    Path config = file("single-writer: true\n");
    assertThat(regent("server", "--config", config.toString(), "--print-config").setting("single-writer"))
        .containsExactly("true", "config file " + config + ", key single-writer");
    assertThat(regent("server", "--config", config.toString(), "--print-config", "--single-writer")
        .setting("single-writer")).containsExactly("true", "flag");
    assertThat(regent("server", "--config", config.toString(), "--print-config", "--single-writer=false")
        .setting("single-writer")).containsExactly("false", "flag");
  }

  @Test
  void unknownKeyIsAUsageErrorNamingKeyAndFile() throws IOException {
    Path config = file("api-port: 7101\napi-prot: 7102\n");
    Run r = regent("server", "--config", config.toString(), "--id", "n1", "--peers", "n1=127.0.0.1:7001",
        "--data-dir", dir.resolve("data").toString());
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(oneLine(r.err())).startsWith("error: config file " + config + ": unknown key 'api-prot' (known keys: ")
        .contains("api-port");
    assertThat(r.out()).isEmpty();
    assertThat(dir.resolve("data")).doesNotExist();
  }

  @Test
  void flagOnlyKeysAreRefusedInTheFile() throws IOException {
    Path config = file("unsafe-local-grants: true\n");
    Run r = regent("server", "--config", config.toString(), "--print-config");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(oneLine(r.err()))
        .startsWith("error: config file " + config + ": key 'unsafe-local-grants' can only be given as a flag");
  }

  @Test
  void badValuesAreUsageErrorsNamingWhereTheyWereWritten() throws IOException {
    Path config = file("api-port: seven\n");
    Run fromFile = regent("server", "--config", config.toString(), "--print-config");
    assertThat(fromFile.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(oneLine(fromFile.err())).startsWith("error: config file " + config + ", key api-port: ")
        .contains("'seven'");

    env.put("REGENT_METRICS_PORT", "http");
    Run fromEnv = regent("server", "--print-config");
    assertThat(fromEnv.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(oneLine(fromEnv.err())).startsWith("error: environment REGENT_METRICS_PORT: ").contains("'http'");
  }

  @Test
  void invalidSettingsFromTheFileFailBeforeTheNodeStarts() throws IOException {
    Path data = dir.resolve("data");
    Path config = file("id: n1\npeers: n1=127.0.0.1\ndata-dir: " + data + "\n");
    Run r = regent("server", "--config", config.toString());
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(oneLine(r.err())).startsWith("error: invalid peer 'n1=127.0.0.1': expected ID=HOST:PORT "
        + "(peers from config file " + config + ", key peers)");
    assertThat(data).doesNotExist();
  }

  @Test
  void malformedFilesAreUsageErrorsWithTheirLine() throws IOException {
    Map<String, String> cases = Map.of(
        "api-port: 7101\napi-port: 7102\n", "line 2",
        "api-port: [7101\n", "line 2",
        "- a\n- b\n", "expected a mapping",
        "api-port:\n  nested: 1\n", "key 'api-port' must have a single value or a list of values",
        "api-port:\n", "key 'api-port' has no value");
    List<String> failures = new ArrayList<>();
    for (Map.Entry<String, String> c : cases.entrySet()) {
      Path config = file(c.getKey());
      Run r = regent("server", "--config", config.toString(), "--print-config");
      String err = oneLine(r.err());
      if (r.code() != ExitCodes.USAGE || !err.startsWith("error: config file " + config + ": ")
          || !err.contains(c.getValue())) {
        failures.add(c.getKey().replace("\n", "\\n") + " -> " + r.code() + " " + err);
      }
    }
    assertThat(failures).isEmpty();
    Run missing = regent("server", "--config", dir.resolve("absent.yaml").toString(), "--print-config");
    assertThat(missing.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(oneLine(missing.err())).startsWith("error: config file " + dir.resolve("absent.yaml")
        + ": no such file");
  }

  @Test
  void serverVariablesAreThoseOfConfigurableOptionsOnly() {
    assertThat(ServerSettings.serverVariables(new CommandLine(new ServerCommand()).getCommandSpec()))
        .contains("REGENT_CONFIG", "REGENT_API_PORT", "REGENT_PEERS", "REGENT_LOG_DIR", "REGENT_SINGLE_WRITER")
        .doesNotContain("REGENT_ENDPOINTS", "REGENT_FENCING_TOKEN", "REGENT_UNSAFE_LOCAL_GRANTS", "REGENT_HELP",
            "REGENT_PRINT_CONFIG");
  }

  /** The setting lines of a --print-config output without their origin comments. */
  private static List<String> values(String printed) {
    List<String> lines = new ArrayList<>();
    for (String line : printed.split("\n")) {
      if (!line.startsWith("#") && !line.isBlank()) {
        lines.add(line.replaceFirst("\\s+#.*$", ""));
      }
    }
    return lines;
  }

  private static String oneLine(String err) {
    assertThat(err.strip()).doesNotContain("\n");
    return err.strip();
  }
}
