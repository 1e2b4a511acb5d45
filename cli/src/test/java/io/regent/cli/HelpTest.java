package io.regent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

class HelpTest {
  /** Every command path, e.g. [cluster, up], found by walking the command tree. */
  static Stream<List<String>> commands() {
    List<List<String>> paths = new ArrayList<>();
    walk(Regent.commandLine(), new ArrayList<>(), paths);
    return paths.stream();
  }

  private static void walk(CommandLine cmd, List<String> path, List<List<String>> out) {
    out.add(List.copyOf(path));
    cmd.getSubcommands().forEach((name, sub) -> {
      path.add(name);
      walk(sub, path, out);
      path.remove(path.size() - 1);
    });
  }

  @ParameterizedTest
  @MethodSource("commands")
  void everyCommandHasHelp(List<String> path) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> args = new ArrayList<>(path);
    args.add("--help");

    int code = Regent.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute(args.toArray(String[]::new));

    assertThat(code).isZero();
    assertThat(out.toString()).startsWith("Usage: regent" + (path.isEmpty() ? "" : " " + String.join(" ", path)));
    assertThat(err.toString()).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("commands")
  void clientCommandsTakeEndpointsAndOutputFormat(List<String> path) {
    CommandLine cmd = Regent.commandLine();
    for (String p : path) {
      cmd = cmd.getSubcommands().get(p);
    }
    boolean client = cmd.getCommandSpec().mixins().containsKey("client");
    if (client) {
      assertThat(cmd.getCommandSpec().findOption("--endpoints")).isNotNull();
      assertThat(cmd.getCommandSpec().findOption("-w")).isNotNull();
    }
  }

  @org.junit.jupiter.api.Test
  void theClientCommandsAreAllThere() {
    assertThat(commands().map(p -> String.join(" ", p))).contains("server", "cluster up", "cluster down",
        "elect", "observe", "leader", "lease grant", "lease keep-alive", "lease revoke", "lease ttl", "lease list",
        "status", "lock", "ledger serve", "ledger append", "ledger read", "ledger append-loop", "demo");
  }
}
