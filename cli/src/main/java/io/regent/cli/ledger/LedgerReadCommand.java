package io.regent.cli.ledger;

import io.regent.api.v1.LedgerEntry;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Format;
import io.regent.client.LedgerClient;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent ledger read KEY}: every admitted entry of a key. */
@Command(name = "read", mixinStandardHelpOptions = true,
    description = {"Prints every entry of KEY in append order, one line each: position=P token=T entry=E "
        + "(-w json: {\"position\":P,\"token\":T,\"entry\":E}).",
        "A key without entries prints nothing and exits 0."})
public final class LedgerReadCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  LedgerOptions ledger;

  @Parameters(index = "0", paramLabel = "KEY", description = "ledger key")
  String key;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (LedgerClient c = ledger.connect()) {
      for (LedgerEntry e : c.read(key)) {
        out.println(Format.ledgerEntry(e, ledger.json()));
      }
      out.flush();
      return ExitCodes.OK;
    }
  }
}
