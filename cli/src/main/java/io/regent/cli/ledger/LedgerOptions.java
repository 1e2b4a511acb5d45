package io.regent.cli.ledger;

import io.regent.cli.command.ClientOptions;
import io.regent.client.LedgerClient;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Options shared by the ledger client commands: where the ledger is and how to print. */
public final class LedgerOptions {
  /** The address of {@code regent ledger serve}'s default port. */
  public static final String DEFAULT_LEDGER = "127.0.0.1:" + LedgerServeCommand.DEFAULT_PORT;

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--ledger", paramLabel = "HOST:PORT",
      description = "the ledger's address (default: $REGENT_LEDGER, else " + DEFAULT_LEDGER + ")")
  String ledger;

  @Option(names = {"-w", "--write-out"}, paramLabel = "FORMAT", defaultValue = "simple",
      description = "output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}); json prints one object "
          + "per line")
  ClientOptions.Output output = ClientOptions.Output.simple;

  /** Whether {@code -w json} was asked for. */
  public boolean json() {
    return output == ClientOptions.Output.json;
  }

  /** A client of the ledger: {@code --ledger}, else {@code $REGENT_LEDGER}, else the default; close it when done. */
  public LedgerClient connect() {
    String raw = ledger;
    if (raw == null || raw.isBlank()) {
      raw = System.getenv("REGENT_LEDGER");
    }
    if (raw == null || raw.isBlank()) {
      raw = DEFAULT_LEDGER;
    }
    return LedgerClient.connect(ClientOptions.parse(raw.trim(), mixee).get(0));
  }
}
