package io.regent.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.Regent;
import io.regent.cli.output.ExitCodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Usage errors of elect --exec, lock and the ledger commands: exit 2 and one line, before any connection. */
class HoldingOptionsTest {
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "elect jobs a --exec                              | --exec needs a command after --",
      "elect jobs a -- ./job.sh                         | unexpected argument './job.sh'",
      "elect jobs a --fresh-token-every 1s              | --fresh-token-every needs --exec",
      "elect jobs a --fresh-token-every 0 --exec -- true | --fresh-token-every needs --exec and a positive",
      "elect jobs a --fresh-token-every soon --exec -- x | 'soon' is not a duration",
      "elect --listen jobs --exec -- true               | --listen takes only NAME",
      "lock jobs --timeout 0                            | --timeout needs a positive",
      "lock jobs --timeout 1x                           | '1x' is not a duration",
      "elect jobs a --timeout 0                         | --timeout needs a positive",
      "elect jobs a --timeout 1s --no-wait              | no --no-wait",
      "elect --listen jobs --no-wait                    | --listen takes only NAME",
      "status --dial-timeout 0                          | must be positive",
      "status --command-timeout soon                    | 'soon' is not a duration",
      "lock jobs --lock-delay x -- true                 | 'x' is not a duration",
      "lock jobs --grace -1s -- true                    | '-1s' is not a duration",
      "lock jobs --grace 5s --no-suspend                | --grace needs suspension",
      "elect jobs a --grace 1s --no-suspend             | --grace needs suspension",
      "elect --all a,b v --grace soon                   | 'soon' is not a duration",
      "elect --listen jobs --no-suspend                 | --listen takes only NAME",
      "ledger serve --data-dir d --strict --unfenced    | mutually exclusive",
      "ledger serve --data-dir d --port 70000           | --port must be within 0..65535",
      "ledger append jobs entry                         | --token",
      "ledger append jobs entry --token 1 --ledger nope | invalid endpoint 'nope'",
      "ledger append-loop jobs --token 1 --interval 0   | --interval must be at least 1ms",
      "ledger append-loop jobs --token 1 --interval 0.5ms | --interval must be at least 1ms",
      "ledger append-loop jobs --token 1 --ledger nope  | invalid endpoint 'nope'",
      "ledger partition-loop orders --interval 0        | --interval must be at least 1ms",
      "ledger partition-loop orders --interval 500us    | --interval must be at least 1ms",
      "ledger                                           | missing command",
      "lock x-�� -- true                            | the name is not valid UTF-8",
      "elect x-� a                                       | the name is not valid UTF-8",
      "observe x�                                        | the name is not valid UTF-8",
      "leader x�                                         | the name is not valid UTF-8",
      "lock jobs --ttl 0s -- true                       | --ttl needs a positive",
      "elect jobs a --ttl 0s                            | --ttl needs a positive"})
  void badOptionsAreUsageErrors(String args, String message) {
    StringWriter err = new StringWriter();

    int code = Regent.commandLine().setOut(new PrintWriter(new StringWriter())).setErr(new PrintWriter(err, true))
        .execute(args.trim().split("\\s+"));

    assertThat(code).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString().lines()).singleElement().asString().startsWith("error: ").contains(message)
        .doesNotContain("Error:");
  }
}
