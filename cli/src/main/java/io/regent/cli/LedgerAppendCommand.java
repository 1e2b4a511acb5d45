package io.regent.cli;

import com.google.protobuf.ByteString;
import io.regent.client.LedgerClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent ledger append KEY ENTRY --token N}: one fenced append. */
@Command(name = "append", mixinStandardHelpOptions = true,
    description = {"Appends ENTRY to KEY with fencing token N.",
        "Prints 'appended KEY position=P token=N' when admitted. A stale token exits 4 with one line on stderr "
            + "naming the token and H, the highest token the ledger has admitted for KEY; nothing is stored."})
public final class LedgerAppendCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  LedgerOptions ledger;

  @Parameters(index = "0", paramLabel = "KEY", description = "ledger key")
  String key;

  @Parameters(index = "1", paramLabel = "ENTRY", description = "the entry (UTF-8 text)")
  String entry;

  @Option(names = "--token", paramLabel = "N", required = true,
      description = "fencing token, e.g. the token printed by `regent elect` or $REGENT_FENCING_TOKEN")
  long token;

  @Override
  public Integer call() {
    try (LedgerClient c = ledger.connect()) {
      long position = c.append(key, token, ByteString.copyFromUtf8(entry));
      spec.commandLine().getOut().println(Format.appended(key, position, token, ledger.json()));
      return ExitCodes.OK;
    }
  }
}
